"""`RawTextParser.stream()`: raw text fed in deltas (both backends). The final result of
a stream is `parse` of the whole text for every dialect vector, whatever the cuts; calls
are reported as their end marker arrives; `partial()` shows the open call."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import same
from toolsift._pure.dialects import DIALECTS

VECTORS = Path(__file__).parent / "vectors" / "dialects"


def vectors(name: str) -> list[dict[str, Any]]:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def cases() -> list[Any]:
    return [
        pytest.param(name, case, id=f"{name}: {case['name']}")
        for name in DIALECTS
        for case in vectors(name)
    ]


def dumped(response: Any) -> dict[str, Any]:
    return {
        "tool_calls": [call.model_dump() for call in response.tool_calls],
        "content": response.content,
        "reasoning": response.reasoning,
        "error": response.error,
    }


def streamed(parser: Any, deltas: list[Any]) -> tuple[list[Any], Any]:
    """The calls each feed reported (in order, all feeds) and the finished response."""
    stream = parser.stream()
    reported = []
    for delta in deltas:
        reported += stream.feed(delta)
    return reported, stream.finish()


def cut(data: bytes, places: list[int]) -> list[bytes]:
    places = [0, *sorted(places), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(places)]


def check(parser: Any, text: str, deltas: list[Any]) -> None:
    expected = parser.parse(text)
    reported, response = streamed(parser, deltas)
    assert same(dumped(response), dumped(expected)), deltas
    assert response.raw == deltas
    # Every call reported is the final call at its place (the vectors hold no text where
    # a later `</think>` turns reported calls into reasoning).
    calls = [call.model_dump() for call in response.tool_calls]
    assert same([call.model_dump() for call in reported], calls[: len(reported)]), deltas


@pytest.mark.parametrize(("dialect", "case"), cases())
def test_every_cut_gives_the_parse_result(make: Any, dialect: str, case: dict[str, Any]) -> None:
    """Two deltas cut at every byte (inside markers and UTF-8 characters), and random
    3-5 cuts; as the dialect and as auto."""
    text = case["input"]
    data = text.encode("utf-8")
    parser = make.RawTextParser(dialect, tools=case.get("tools"))
    for place in range(len(data) + 1):
        check(parser, text, cut(data, [place]))
    rng = random.Random(f"{dialect} {case['name']}")
    auto = make.RawTextParser("auto", tools=case.get("tools"))
    for _ in range(8):
        places = [rng.randint(0, len(data)) for _ in range(rng.randint(3, 5))]
        check(parser, text, cut(data, places))
        check(auto, text, cut(data, places))
    # str deltas: a character at a time
    check(parser, text, list(text))


def test_a_text_that_is_a_json_string_finishes_as_parse_reads_it(make: Any) -> None:
    # (parse reads a text that is one JSON string as the string it holds)
    text = json.dumps('<tool_call>{"name": "a", "arguments": {"x": 1}}</tool_call>')
    check(make.RawTextParser("hermes"), text, list(text))


def test_a_call_is_reported_when_its_end_marker_arrives(make: Any) -> None:
    parser = make.RawTextParser("hermes")
    text = (
        'Hi <tool_call>{"name": "a", "arguments": {"x": "é"}}</tool_call> and '
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    stream = parser.stream()
    data = text.encode("utf-8")
    seen = {}
    for at in range(len(data)):
        for call in stream.feed(data[at : at + 1]):
            seen[call.name] = at + 1
    assert seen == {
        "a": data.index(b"</tool_call>") + len(b"</tool_call>"),
        "b": len(data),
    }
    assert stream.finish().content == "Hi  and"


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        ("hermes", '<think>\n<tool_call>{"name": "a", "arguments": {}}</tool_call>'),
        ("qwen3-coder", "<think><tool_call><function=a></function></tool_call>"),
        (
            "kimi-k2",
            "<think><|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>{}"
            "<|tool_call_end|>",
        ),
    ],
)
def test_a_think_block_being_streamed_holds_no_calls(make: Any, dialect: str, text: str) -> None:
    stream = make.RawTextParser(dialect).stream()
    assert [call for char in text for call in stream.feed(char)] == []
    assert stream.partial() == []
    assert stream.feed("</think>") == []
    response = stream.finish()
    assert response.tool_calls == []
    assert response.reasoning is not None


def test_calls_before_a_think_block_in_the_same_delta_are_reported(make: Any) -> None:
    stream = make.RawTextParser("hermes").stream()
    call = '<tool_call>{"name": "a", "arguments": {}}</tool_call>'
    assert [c.name for c in stream.feed(call + "<think>" + call)] == ["a"]
    assert [c.name for c in stream.feed(call * 3)] == []  # quoted in the reasoning
    assert [c.name for c in stream.feed("</think>" + call)] == ["a"]
    assert [c.name for c in stream.finish().tool_calls] == ["a", "a"]


@pytest.mark.parametrize(
    ("dialect", "text", "when"),
    [
        # no end marker: the closing bracket proves the call ended
        ("llama3-json", '{"name": "a", "parameters": {"x": 1}}', -1),
        ("mistral", '[TOOL_CALLS]a{"x": "}"}', -1),
        ("mistral", '[TOOL_CALLS] [{"name": "a", "arguments": {}}, {"name": "b"', 43),
        ("pythonic", "[a(x='])'), b()]", -1),
        # an item of a list: at its own closing brace
        ("xlam", '[{"name": "a", "arguments": {"s": "]"}}]', -2),
    ],
)
def test_calls_without_an_end_marker(make: Any, dialect: str, text: str, when: int) -> None:
    stream = make.RawTextParser(dialect).stream()
    at = [i for i, char in enumerate(text) if stream.feed(char)]
    assert at[0] == (len(text) + when if when < 0 else when)
    parser = make.RawTextParser(dialect)
    assert dumped(stream.finish()) == dumped(parser.parse(text))


def test_partial_shows_json_arguments_so_far(make: Any) -> None:
    stream = make.RawTextParser("hermes").stream()
    stream.feed('<tool_call>{"name": "get", "arguments": {"city": "Paris", "days": 3, "u')
    (call,) = stream.partial()
    assert (call.name, call.arguments) == ("get", {"city": "Paris", "days": 3})
    stream = make.RawTextParser("kimi-k2").stream()
    stream.feed('<|tool_call_begin|>functions.get:0<|tool_call_argument_begin|>{"a": [1, 2, 3')
    (call,) = stream.partial()  # (3 may go on: 35)
    assert (call.name, call.id, call.arguments) == ("get", "functions.get:0", {"a": [1, 2]})


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get",
            "parameters": {"properties": {"days": {"type": "integer"}, "zip": {"type": "string"}}},
        },
    }
]


@pytest.mark.parametrize(
    ("dialect", "text"),
    [
        (
            "qwen3-coder",
            "<tool_call>\n<function=get>\n<parameter=days>\n3\n</parameter>\n"
            "<parameter=zip>\n03106\n</parameter>\n<parameter=city>\nPar",
        ),
        (
            "minimax-m2",
            '<minimax:tool_call><invoke name="get"><parameter name="days">3</parameter>'
            '<parameter name="zip">03106</parameter><parameter name="city">Par',
        ),
        (
            "glm",
            "<tool_call>get<arg_key>days</arg_key><arg_value>3</arg_value>"
            "<arg_key>zip</arg_key><arg_value>03106</arg_value><arg_key>city</arg_key><arg_value>Pa",
        ),
    ],
)
def test_partial_shows_the_xml_parameters_complete_so_far(
    make: Any, dialect: str, text: str
) -> None:
    stream = make.RawTextParser(dialect, tools=TOOLS).stream()
    assert stream.feed(text) == []
    (call,) = stream.partial()
    assert same((call.name, call.arguments), ("get", {"days": 3, "zip": "03106"}))


def test_partial_keeps_the_calls_reported(make: Any) -> None:
    stream = make.RawTextParser("hermes").stream()
    (done,) = stream.feed('<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"na')
    assert stream.partial()[0] == done
    assert len(stream.partial()) == 2
    assert stream.finish().tool_calls[0] == done


def test_auto_streams_the_dialect_whose_markers_arrive(make: Any) -> None:
    stream = make.RawTextParser("auto").stream()
    text = "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    reported = [call for char in text for call in stream.feed(char)]
    assert [call.name for call in reported] == ["f"]
    assert stream.finish().tool_calls == reported


def test_bytes_that_are_not_utf8_give_no_call(make: Any) -> None:
    stream = make.RawTextParser("hermes").stream()
    stream.feed(b'<tool_call>{"name": "a"}</tool')
    stream.feed(b"\xff_call>")
    response = stream.finish()
    assert response.tool_calls == []
    assert response.raw == [b'<tool_call>{"name": "a"}</tool', b"\xff_call>"]


def test_a_stream_cut_inside_a_character_gives_no_call(make: Any) -> None:
    # As `parse` of the same bytes: they are not UTF-8.
    stream = make.RawTextParser("hermes").stream()
    stream.feed(b'<tool_call>{"name": "a"}</tool_call>' + "é".encode()[:1])
    assert dumped(stream.finish()) == dumped(make.RawTextParser("hermes").parse(b"\xc3"))


def test_feed_after_finish_and_bad_deltas_raise(make: Any) -> None:
    stream = make.RawTextParser("hermes").stream()
    with pytest.raises(TypeError, match="str or bytes"):
        stream.feed(1)
    stream.finish()
    with pytest.raises(ValueError, match="finished"):
        stream.feed("x")
