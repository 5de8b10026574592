"""Conversation transcripts (`messages`, `MessagesParser`) on both backends: every door
(parse, parse_many, parse_file, to_arrow, arrow_batches, the CLI), auto-detection, the
options, and a parity property over generated transcripts. The per-style cases are the
shared vectors (tests/vectors/messages.json, read by test_parsers.py and cargo test)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from conftest import VECTORS, bind, both_backends, calls_as_dicts
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import ToolCall, cli, parsers

CASES = json.loads((VECTORS / "messages.json").read_text("utf-8"))
ROLLOUT = next(case for case in CASES if case["name"].startswith("messages openai rollout"))
ANTHROPIC = next(case for case in CASES if "is_error" in case["name"])


def test_tool_call_fields_are_absent_from_model_dump_unless_set() -> None:
    plain = ToolCall("f", {"a": 1}, "c1")
    assert plain.turn is None and plain.result is None and plain.result_error is None
    assert list(plain.model_dump()) == ["name", "arguments", "id", "raw_arguments"]
    call = ToolCall("f", {}, None, None, turn=2, result="ok", result_error=False)
    assert call.model_dump() == {
        "name": "f",
        "arguments": {},
        "id": None,
        "raw_arguments": None,
        "turn": 2,
        "result": "ok",
        "result_error": False,
    }
    assert repr(call) == "ToolCall(name='f', arguments={}, turn=2, result='ok', result_error=False)"
    for made in (plain, call):
        copy = pickle.loads(pickle.dumps(made))
        assert copy.model_dump() == made.model_dump()


def test_other_parsers_leave_the_transcript_fields_unset(make: Any) -> None:
    response = make.OpenAIResponseParser().parse(
        {"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}}]}
    )
    (call,) = response.tool_calls
    assert (call.turn, call.result, call.result_error) == (None, None, None)
    assert "turn" not in call.model_dump()


def test_every_door_gives_the_same_calls(make: Any, tmp_path: Path) -> None:
    parser = make.MessagesParser()
    line = json.dumps(ROLLOUT["input"])
    expected = ROLLOUT["calls"]
    assert calls_as_dicts(parser.parse(line)) == expected
    (one,) = parser.parse_many([line, ROLLOUT["input"]], threads=2)[:1]
    assert calls_as_dicts(one) == expected
    path = tmp_path / "rollouts.jsonl"
    path.write_text(line + "\n" + json.dumps(ANTHROPIC["input"]) + "\n")
    responses = list(parser.parse_file(path))
    assert [calls_as_dicts(r) for r in responses] == [expected, ANTHROPIC["calls"]]
    rows = parser.to_arrow(path).to_pylist()
    assert [
        (r["record"], r["format"], r["name"], r["turn"], r["result"], r["result_error"])
        for r in rows
    ] == [
        (0, "messages", "get_weather", 2, "18C, cloudy", False),
        (0, "messages", "get_weather", 2, '{"temp": 24}', False),
        (1, "messages", "read_file", 1, "ENOENT: no such file", True),
        (1, "messages", "list_dir", 1, '[{"type":"text","text":"a.txt"}]', False),
    ]
    batches = parser.arrow_batches(path, batch_rows=3)
    assert [len(b) for b in batches] == [3, 1]
    # The list at a record path, and auto-detection, read alike (the list has no
    # `model`: the record's own is the rollout's).
    assert rows[0]["model"] == ROLLOUT["input"]["model"]
    at_path = parser.to_arrow(path, record_path="messages").to_pylist()
    assert at_path == [{**r, "model": None} for r in rows]
    auto = make.AutoResponseParser().to_arrow(path).to_pylist()
    assert auto == rows


def test_arrow_columns_of_a_failed_record_and_of_other_formats(make: Any) -> None:
    table = make.MessagesParser().to_arrow(["{oops"])
    assert table.schema.field("turn").type == "int32"
    assert table.schema.field("result_error").type == "bool"
    assert table.to_pylist()[0]["turn"] is None


def test_text_dialect_and_tools(make: Any) -> None:
    text = (
        "<tool_call>\n<function=set_temp>\n<parameter=degrees>\n21\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    messages = [
        {"role": "user", "content": "warm"},
        {"role": "assistant", "content": text},
        {"role": "tool", "content": "set"},
    ]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "set_temp",
                "parameters": {"type": "object", "properties": {"degrees": {"type": "integer"}}},
            },
        }
    ]
    assert make.MessagesParser().parse(messages).tool_calls == []
    (call,) = make.MessagesParser(text_dialect="qwen3-coder").parse(messages).tool_calls
    assert (call.arguments, call.turn, call.result) == ({"degrees": "21"}, 1, "set")
    typed = make.MessagesParser(text_dialect="qwen3-coder", tools=tools).parse(messages)
    assert typed.tool_calls[0].arguments == {"degrees": 21}
    parser = make.MessagesParser(text_dialect="auto", tools=tools)
    assert pickle.loads(pickle.dumps(parser)).parse(messages).tool_calls == typed.tool_calls
    assert repr(parser) == "MessagesParser(text_dialect='auto', tools=[...1])"


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"text_dialect": "klingon"}, "unknown dialect 'klingon'"),
    ],
)
def test_bad_options(make: Any, options: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        make.MessagesParser(**options)


def test_tools_without_text_dialect_check_the_calls(make: Any) -> None:
    """As for the provider parsers: `tools` alone check each call (`violations`)."""
    pytest.importorskip("jsonschema")
    schema = {"type": "object", "properties": {"city": {"type": "integer"}}}
    parser = make.MessagesParser(tools={"get_weather": schema})
    calls = parser.parse(ROLLOUT["input"]).tool_calls
    assert calls and all(call.violations == ["wrong_type:/city"] for call in calls)


def test_the_core_refuses_text_dialect_for_other_formats(backend: Any) -> None:
    with pytest.raises(ValueError, match="text_dialect"):
        backend.Parser("json", text_dialect="hermes")
    with pytest.raises(ValueError, match="unknown dialect"):
        backend.Parser("messages", text_dialect="nope")


def test_no_stream(make: Any) -> None:
    with pytest.raises(ValueError, match="no stream reader"):
        make.MessagesParser().stream()


def test_auto_leaves_streams_and_responses_alone(make: Any) -> None:
    """A list of stream events is still a stream; a response is still its format."""
    chunks = [
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}}
                        ]
                    },
                    "finish_reason": "tool_calls",
                }
            ]
        }
    ]
    auto = make.AutoResponseParser()
    assert auto.to_arrow([json.dumps(chunks)]).to_pylist()[0]["format"] == "openai"
    ollama = {
        "model": "m",
        "done": True,
        "message": {
            "role": "assistant",
            "tool_calls": [{"function": {"name": "f", "arguments": {}}}],
        },
    }
    assert auto.to_arrow([json.dumps(ollama)]).to_pylist()[0]["format"] == "ollama"


def test_a_named_parser_points_to_messages(make: Any) -> None:
    with pytest.warns(UserWarning, match="'messages' format: use MessagesParser"):
        make.OpenAIResponseParser().parse(ROLLOUT["input"])


def test_cli(tmp_path: Path) -> None:
    source = tmp_path / "rollouts.jsonl"
    source.write_text(json.dumps(ROLLOUT["input"]) + "\n")
    out = tmp_path / "calls.jsonl"
    assert (
        cli.main(["extract", str(source), "--format", "messages", "-o", str(out), "--quiet"]) == 0
    )
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["turn"], r["result"], r["result_error"]) for r in rows] == [
        (2, "18C, cloudy", False),
        (2, '{"temp": 24}', False),
    ]


# The parity property: generated transcripts read alike by both backends.

_ID = st.sampled_from(["c1", "c2", "", None])
_ARGS = st.one_of(
    st.just("{}"),
    st.just('{"a": [1, 2.5]}'),
    st.just("{oops"),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_CONTENT = st.one_of(
    st.none(), st.text(max_size=5), st.just({"x": 1}), st.just([{"type": "text", "text": "t"}])
)


def _with_id(fields: dict[str, Any], key: str, id: str | None) -> dict[str, Any]:
    return fields if id is None else {**fields, key: id}


@st.composite
def _message(draw: Any) -> dict[str, Any]:
    kind = draw(st.integers(0, 6))
    id = draw(_ID)
    if kind == 0:
        calls = [
            _with_id({"type": "function", "function": {"name": "f", "arguments": a}}, "id", i)
            for a, i in draw(st.lists(st.tuples(_ARGS, _ID), max_size=3))
        ]
        return {"role": "assistant", "content": None, "tool_calls": calls}
    if kind == 1:
        blocks = [
            _with_id({"type": "tool_use", "name": "g", "input": {"n": n}}, "id", i)
            for n, i in draw(st.lists(st.tuples(st.integers(), _ID), max_size=3))
        ]
        return {"role": "assistant", "content": blocks}
    if kind == 2:
        call = _with_id({"name": "h", "args": {}}, "id", id)
        return {"role": "model", "parts": [{"functionCall": call}]}
    if kind == 3:
        return {
            "role": "assistant",
            "content": '<tool_call>{"name": "t", "arguments": {}}</tool_call>',
        }
    if kind == 4:
        return _with_id({"role": "tool", "content": draw(_CONTENT)}, "tool_call_id", id)
    if kind == 5:
        block = _with_id(
            {
                "type": "tool_result",
                "content": draw(_CONTENT),
                "is_error": draw(st.sampled_from([True, False, 1])),
            },
            "tool_use_id",
            id,
        )
        return {"role": "user", "content": [block]}
    response = draw(st.sampled_from([{"ok": 1}, {"error": "no"}, {"error": None}, "x"]))
    part = _with_id({"name": "h", "response": response}, "id", id)
    return {"role": "user", "parts": [{"functionResponse": part}]}


@settings(max_examples=60, deadline=None)
@given(
    messages=st.lists(_message(), max_size=8),
    shape=st.sampled_from(["list", "messages", "contents"]),
)
def test_both_backends_read_transcripts_alike(messages: list[Any], shape: str) -> None:
    doc: Any = messages if shape == "list" else {shape: messages}
    text = json.dumps(doc)
    rust, python = both_backends()
    for options in ({}, {"text_dialect": "hermes"}):
        results = []
        for backend in (rust, python):
            parser = bind(parsers.MessagesParser, backend)(**options)
            auto = bind(parsers.AutoResponseParser, backend)()
            results.append(
                (
                    [calls_as_dicts(parser.parse(raw)) for raw in (doc, text)],
                    parser.to_arrow([text]).to_pylist(),
                    [r.error for r in auto.parse_many([text, doc])],
                    auto.to_arrow([text]).to_pylist(),
                )
            )
        assert results[0] == results[1]
