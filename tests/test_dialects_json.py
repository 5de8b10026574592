"""The JSON-in-text dialects' `detect` (hermes, mistral, granite, llama3-json, xlam) on the
pure twin: tests/vectors/dialects/_detect_json_dialects.json, which
`cargo test --test dialects_json` runs on the Rust core. (Their parse vectors run in
tests/test_dialects.py.)"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from toolsift._pure import dialects

JSON_DIALECTS = ("mistral", "granite", "hermes", "llama3-json", "xlam")
CASES = json.loads(
    (
        pathlib.Path(__file__).parent / "vectors" / "dialects" / "_detect_json_dialects.json"
    ).read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", CASES, ids=[case["text"][:40] for case in CASES])
def test_detect(case: dict[str, Any]) -> None:
    detects = [name for name in JSON_DIALECTS if dialects.DIALECTS[name].detect(case["text"])]
    assert detects == case["detects"]
    detected = dialects.detected(case["text"])
    if detected is None or detected in JSON_DIALECTS:  # other dialects may claim a text too
        assert detected == case["detected"]


def test_registry_order() -> None:
    names = [name for name in dialects.DIALECTS if name in JSON_DIALECTS]
    assert names == list(JSON_DIALECTS)
