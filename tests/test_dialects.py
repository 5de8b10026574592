"""The shared dialect vectors (tests/vectors/dialects/<name>.json) on the pure twin;
`cargo test` runs the same files on the Rust core (tests/dialect_vectors.rs)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest
from conftest import same
from toolsift._pure import dialects
from toolsift._pure.dialects import Tools

VECTORS = pathlib.Path(__file__).parent / "vectors" / "dialects"


def cases() -> list[Any]:
    out = []
    for name in dialects.DIALECTS:
        for case in json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8")):
            out.append(pytest.param(name, case, id=f"{name}: {case['name']}"))
    return out


def dumped(parsed: dialects.Parsed) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"name": c.name, "arguments": c.arguments, "id": c.id, "raw_arguments": c.raw_arguments}
            for c in parsed.tool_calls
        ],
        "content": parsed.content,
        "reasoning": parsed.reasoning,
    }


def test_every_dialect_has_vectors() -> None:
    for name in dialects.DIALECTS:
        assert len(json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))) >= 10


@pytest.mark.parametrize(("dialect", "case"), cases())
def test_vector(dialect: str, case: dict[str, Any]) -> None:
    tools = Tools(case["tools"]) if "tools" in case else None
    got = dumped(dialects.DIALECTS[dialect].parse(case["input"], tools))
    assert same(got, case["expect"]), f"got {got!r}"


DETECT = json.loads((VECTORS / "detect.json").read_text(encoding="utf-8"))


def test_registry_order() -> None:
    assert list(dialects.DIALECTS) == DETECT["registry_order"]


@pytest.mark.parametrize("case", DETECT["cases"], ids=[case["name"] for case in DETECT["cases"]])
def test_detection(case: dict[str, Any]) -> None:
    """tests/vectors/dialects/detect.json (not a dialect's vectors: read here, not in
    `cases`): what `detected` names and every dialect whose `detect` is true."""
    assert dialects.detected(case["text"]) == case["detected"]
    assert [name for name, module in dialects.DIALECTS.items() if module.detect(case["text"])] == (
        case["detects"]
    )
