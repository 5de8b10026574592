"""Detection of the special-token dialects (deepseek-v3.1, deepseek-v3, kimi-k2, harmony,
pythonic) on the pure twin; tests/dialect_detect_tokens.rs runs the same file on Rust."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from toolsift._pure.dialects import DIALECTS

MINE = ("deepseek-v3.1", "deepseek-v3", "kimi-k2", "harmony", "pythonic")
CASES = json.loads(
    (pathlib.Path(__file__).parent / "vectors" / "dialect_detect_tokens.json").read_text(
        encoding="utf-8"
    )
)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_detect(case: dict[str, Any]) -> None:
    got = [name for name in MINE if DIALECTS[name].detect(case["input"])]
    assert got == case["detected_by"]
