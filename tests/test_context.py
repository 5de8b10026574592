"""The context columns (`model`, `response_id`, `finish_reason`, `choice_index`,
`call_type`) of `to_arrow`, on both backends: tests/vectors/context.json (which
`cargo test` reads too, tests/context_vectors.rs), and the schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import VECTORS
from toolsift import formats
from toolsift._types import COLUMNS

CONTEXT = ("model", "response_id", "finish_reason", "choice_index", "call_type")
CASES = json.loads((VECTORS / "context.json").read_text("utf-8"))


def parser(make: Any, format: str) -> Any:
    cls = getattr(make, formats.parser_classes()[format])
    return cls(format) if cls.__name__ == "RawTextParser" else cls()


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_context_vectors(make: Any, case: dict[str, Any]) -> None:
    table = parser(make, case["format"]).to_arrow([case["text"]])
    columns = table.select(["name", *CONTEXT]).to_pydict()
    rows = [list(row) for row in zip(*columns.values(), strict=True)]
    assert rows == case["rows"]


def test_context_columns_come_last(make: Any) -> None:
    """Added at the end: the columns before them keep their places."""
    table = make.OpenAIResponseParser().to_arrow([CASES[0]["text"]])
    assert tuple(table.column_names[-5:]) == CONTEXT
    assert tuple(table.column_names) == COLUMNS
    assert str(table.schema.field("choice_index").type) == "int32"


def test_context_vectors_cover_every_format() -> None:
    """Every walked format, `json`, `litert`, a dialect and `auto` have a vector."""
    covered = {case["format"] for case in CASES}
    walked = {name for name, cls in formats.parser_classes().items() if cls != "RawTextParser"}
    assert walked <= covered
    assert covered - walked  # a raw-text dialect
