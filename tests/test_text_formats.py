"""The formats that read text (LiteRT-LM and the raw-text dialects) on both backends: what
the one text route (`Format::text` in Rust, `Parser._text_reader` in the pure twin) does
with a record that is not JSON where a `record_path` asks for JSON, and with the caller's
own objects."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import bind, both_backends, calls_as_dicts
from toolsift import parsers

TEXT_PARSERS = [("SdkResponseParser", ()), ("RawTextParser", ("hermes",))]
NOT_JSON = {
    "text": ("not json", "invalid literal at byte 1"),
    "lone-surrogate": ("\ud800 x", "invalid UTF-8 at byte 0"),
    "cut-off": (b'{"a":', "unexpected end of input at byte 5"),
}


@pytest.mark.parametrize(("parser", "args"), TEXT_PARSERS, ids=["litert", "hermes"])
@pytest.mark.parametrize("record", NOT_JSON, ids=list(NOT_JSON))
def test_not_json_at_a_record_path_is_the_error_never_raised(
    make: Any, parser: str, args: tuple[str, ...], record: str
) -> None:
    text, error = NOT_JSON[record]
    response = getattr(make, parser)(*args).parse(text, record_path="response")
    assert response.tool_calls == []
    assert response.error == error


@pytest.mark.parametrize(("parser", "args"), TEXT_PARSERS, ids=["litert", "hermes"])
def test_objects_and_envelopes_alike_on_both_backends(parser: str, args: tuple[str, ...]) -> None:
    call = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    records: list[Any] = [
        {"tool_calls": [{"name": "f", "arguments": {"a": 1}}]},
        {"response": call},
        {"response": {"tool_calls": [{"name": "g", "arguments": "{}"}]}},
        '{"response": "' + call.replace('"', '\\"') + '"}',
        ["x", {"tool_calls": [{"name": "h"}]}],
        call,
    ]
    for record in records:
        for path in (None, "response"):
            results = [
                bind(getattr(parsers, parser), backend)(*args).parse(record, record_path=path)
                for backend in both_backends()
            ]
            rust, pure = results
            assert calls_as_dicts(rust) == calls_as_dicts(pure), record
            assert (rust.error, rust.content) == (pure.error, pure.content), record
