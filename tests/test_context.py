"""The context columns (`model`, `response_id`, `finish_reason`, `choice_index`,
`call_type`) of `to_arrow`, on both backends: tests/vectors/context.json (which
`cargo test` reads too, tests/context_vectors.rs), the schema, and the two backends on
responses of any shape (hypothesis)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import VECTORS, bind, both_backends
from hypothesis import given
from hypothesis import strategies as st
from test_parity import GEMINI, OPENAI, TEXT, examples
from toolsift import formats, parsers
from toolsift._types import COLUMNS

CONTEXT = ("model", "response_id", "finish_reason", "choice_index", "call_type")
CASES = json.loads((VECTORS / "context.json").read_text("utf-8"))


def parser(make: Any, format: str, text_dialect: str | None = None) -> Any:
    cls = getattr(make, formats.parser_classes()[format])
    if cls.__name__ == "RawTextParser":
        return cls(format)
    return cls() if text_dialect is None else cls(text_dialect=text_dialect)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_context_vectors(make: Any, case: dict[str, Any]) -> None:
    """Each call row's context; with `by_record`, the record's row of `rows="records"`
    (a record without calls has its model and id too)."""
    read = parser(make, case["format"], case.get("text_dialect"))
    table = read.to_arrow([case["text"]])
    columns = table.select(["name", *CONTEXT]).to_pydict()
    rows = [list(row) for row in zip(*columns.values(), strict=True)]
    assert rows == case["rows"]
    if "by_record" in case:
        [record] = read.to_arrow([case["text"]], rows="records").to_pylist()
        assert [record["model"], record["response_id"], record["calls"]] == case["by_record"]
        batches = read.arrow_batches([case["text"]], rows="records")
        [streamed] = batches.read_all().select(["model", "response_id", "calls"]).to_pylist()
        assert list(streamed.values()) == case["by_record"]


def test_a_record_without_calls_gives_no_row_of_calls(make: Any) -> None:
    """Without `rows="records"`, a record without calls still gives no row."""
    [case] = [case for case in CASES if case["rows"] == [] and "by_record" in case][:1]
    assert parser(make, case["format"]).to_arrow([case["text"]]).num_rows == 0


def test_context_columns_come_last(make: Any) -> None:
    """Added at the end: the columns before them keep their places."""
    table = make.OpenAIResponseParser().to_arrow([CASES[0]["text"]])
    at = table.column_names.index(CONTEXT[0])  # together, after the columns before them
    assert tuple(table.column_names[at : at + 5]) == CONTEXT
    assert tuple(table.column_names) == COLUMNS
    assert str(table.schema.field("choice_index").type) == "int32"


def test_context_vectors_cover_every_format() -> None:
    """Every walked format, `json`, `litert`, a dialect and `auto` have a vector."""
    covered = {case["format"] for case in CASES}
    walked = {name for name, cls in formats.parser_classes().items() if cls != "RawTextParser"}
    assert walked <= covered
    assert covered - walked  # a raw-text dialect
    assert any("text_dialect" in case for case in CASES)


# A context value: a string, or anything else JSON holds (only strings are kept; an
# index only where it is an integer of 32 bits).
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**64, 1.0]),
    TEXT,
    st.sampled_from(["stop", "tool_calls", "STOP", "MAX_TOKENS"]),
    st.lists(st.integers(), max_size=1),
)
TOP_KEYS = ("model", "id", "modelVersion", "model_version", "responseId", "response_id")
CHOICE_KEYS = ("finish_reason", "finishReason", "index")


def with_context(doc: Any, data: st.DataObject) -> Any:
    """`doc` with context members of any value added to it and to its choices."""
    if not isinstance(doc, dict):
        return doc
    draw = data.draw
    doc = {**doc, **draw(st.dictionaries(st.sampled_from(TOP_KEYS), VALUES, max_size=3))}
    for key in ("choices", "candidates"):
        if isinstance(doc.get(key), list):
            doc[key] = [
                {**item, **draw(st.dictionaries(st.sampled_from(CHOICE_KEYS), VALUES))}
                if isinstance(item, dict)
                else item
                for item in doc[key]
            ]
    return doc


@pytest.mark.filterwarnings("ignore:.*found no tool call")
@examples(200)
@given(
    st.sampled_from(["openai", "gemini", "auto"]),
    st.one_of(OPENAI, GEMINI),
    st.sampled_from([None, "hermes", "auto"]),
    st.data(),
)
def test_context_parity(
    format: str, doc: Any, text_dialect: str | None, data: st.DataObject
) -> None:
    """Both backends give the same context columns for responses of any shape (with
    `text_dialect` too), and the same model and id for each record by record."""
    doc = with_context(doc, data)
    line = json.dumps(doc)
    tables = []
    for backend in both_backends():
        cls = bind(getattr(parsers, formats.parser_classes()[format]), backend)
        read = cls() if text_dialect is None else cls(text_dialect=text_dialect)
        calls = read.to_arrow([line, line.encode()]).select(["name", "error", *CONTEXT])
        records = read.to_arrow([line], rows="records").select(["model", "response_id", "calls"])
        tables.append((calls.to_pylist(), records.to_pylist()))
    rust, python = tables
    assert rust == python, line
