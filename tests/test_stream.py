"""Streams: `parser.stream()` with `feed`, `partial`, `finish`, on both backends, over the
shared vectors (tests/vectors/<format>.stream.json, which `cargo test` reads too)."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from conftest import VECTORS, bind, both_backends, calls_as_dicts, same
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import ParseError, parsers
from toolsift._pure import formats

STREAMED = [spec for spec in formats.WALKED if hasattr(spec.module, "stream_event")]


def stream_vectors() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for spec in STREAMED:
        cases += json.loads((VECTORS / f"{spec.name}.stream.json").read_text("utf-8"))
    return cases


CASES = stream_vectors()
IDS = [case["name"] for case in CASES]


def parser_for(make: Any, name: str) -> Any:
    return getattr(make, formats.by_name(name).parser_class)()


def event_of(event: Any, as_text: bool = False) -> Any:
    if isinstance(event, dict) and "$hex" in event:
        return bytes.fromhex(event["$hex"])
    if as_text and isinstance(event, dict):
        return json.dumps(event)
    return event


def run(parser: Any, events: list[Any], as_text: bool = False) -> tuple[list[int], Any, Any]:
    stream = parser.stream()
    done = [len(stream.feed(event_of(event, as_text))) for event in events]
    partial = stream.partial()
    return done, partial, stream.finish()


def test_every_walked_format_has_a_stream_reader_and_vectors() -> None:
    assert [spec.name for spec in STREAMED] == [spec.name for spec in formats.WALKED]
    assert len(CASES) >= 30


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vector(make: Any, case: dict[str, Any]) -> None:
    parser = parser_for(make, case["parser"])
    done, _, response = run(parser, case["events"])
    got = calls_as_dicts(response)
    assert same(got, case["calls"]), got
    assert response.error == case.get("error")
    if "done" in case:
        assert done == case["done"]
    assert response.raw == [event_of(e) for e in case["events"]]
    if "response" in case:
        # The non-streamed response of the same call gives the same calls (and error),
        # given as a dict and as JSON text; an event given alone gives them to auto too.
        parsers = [parser]
        if case["events"] == [case["response"]]:
            parsers.append(make.AutoResponseParser())
        for raw in (case["response"], json.dumps(case["response"])):
            for reading in parsers:
                parsed = reading.parse(raw)
                assert same(calls_as_dicts(parsed), case["calls"])
                assert parsed.error == case.get("error")
    if "partial" in case:
        at, expected = case["partial"]
        stream = parser.stream()
        for event in case["events"][: at + 1]:
            stream.feed(event_of(event))
        assert same([c.model_dump() for c in stream.partial()], expected)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vector_as_json_text_and_auto(make: Any, case: dict[str, Any]) -> None:
    """Each event given as JSON text, and the auto parser (detecting the format from the
    first event), give the same calls."""
    _, _, response = run(parser_for(make, case["parser"]), case["events"], as_text=True)
    assert same(calls_as_dicts(response), case["calls"])
    _, _, response = run(make.AutoResponseParser(), case["events"])
    assert same(calls_as_dicts(response), case["calls"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_every_prefix(make: Any, case: dict[str, Any]) -> None:
    """Cut after any event: `feed` and `partial` never raise, the calls already completed
    stay completed (in `partial()` and in `finish()`), and nothing started is dropped."""
    parser = parser_for(make, case["parser"])
    for cut in range(len(case["events"]) + 1):
        stream = parser.stream()
        completed: list[dict[str, Any]] = []
        for event in case["events"][:cut]:
            completed += [call.model_dump() for call in stream.feed(event_of(event))]
            now = [call.model_dump() for call in stream.partial()]
            assert all(any(same(c, p) for p in now) for c in completed)
        final = calls_as_dicts(stream.finish())
        assert all(any(same(c, f) for f in final) for c in completed)
        assert len(final) >= len(stream.partial()) >= len(completed)


def consistent(partial: Any, final: Any) -> bool:
    """`partial` is what `final` shows when cut short: dicts and lists hold some of their
    members or items (each consistent), other values are equal."""
    if isinstance(final, dict):
        return isinstance(partial, dict) and all(
            k in final and consistent(v, final[k]) for k, v in partial.items()
        )
    if isinstance(final, list):
        return (
            isinstance(partial, list)
            and len(partial) <= len(final)
            and all(consistent(p, f) for p, f in zip(partial, final, strict=False))
        )
    return same(partial, final)


ARGUMENTS = [
    '{"location": "Paris, France", "unit": "celsius"}',
    '{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": {"d": []}}, "e": ""}',
    '{"text": "a \\"quote\\", a \\\\ backslash, \\u00fc, \\ud83c\\udf27 and \\n"}',
    '{"nested": [[{"x": 10}], {"y": [0, -0.5]}], "big": 12345678901234567890123}',
    '{ "spaced" :  [ 1 ,  2 ] , "k" : { } }',
    '{"émoji": "🌧 Zürich", "n": 0}',
]


@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_partial_on_every_prefix_of_the_arguments(make: Any, arguments: str) -> None:
    """One character per delta: after each, `partial()` shows the arguments decoded as
    far as they are complete, consistent with the final object, never raising."""
    final = json.loads(arguments)
    stream = make.OpenAIResponseParser().stream()
    stream.feed(
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f"}}]},
                }
            ]
        }
    )
    shown: list[Any] = []
    for char in arguments:
        stream.feed(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": char}}]},
                    }
                ]
            }
        )
        (call,) = stream.partial()
        assert consistent(call.arguments, final), (call.arguments, final)
        shown.append(call.arguments)
    assert shown[-1] == final
    assert stream.finish().tool_calls[0].arguments == final


def test_partial_json_every_prefix_both_backends_agree() -> None:
    rust, python = both_backends()
    for arguments in ARGUMENTS:
        for cut in range(len(arguments) + 1):
            got = []
            for backend in (rust, python):
                stream = bind(parsers.OpenAIResponseParser, backend)().stream()
                stream.feed(
                    {
                        "choices": [
                            {
                                "delta": {
                                    "tool_calls": [
                                        {
                                            "index": 0,
                                            "function": {"name": "f", "arguments": arguments[:cut]},
                                        }
                                    ]
                                }
                            }
                        ]
                    }
                )
                got.append([c.model_dump() for c in stream.partial()])
            assert same(got[0], got[1]), (arguments[:cut], got)


def test_feed_after_finish_and_bad_events(make: Any) -> None:
    stream = make.OpenAIResponseParser().stream()
    stream.finish()
    with pytest.raises(ValueError, match=r"feed\(\) after finish\(\)"):
        stream.feed({"choices": []})
    stream = make.OpenAIResponseParser().stream()
    for bad in (None, 1, 2.5, True):
        with pytest.raises(TypeError, match="a stream event is a dict, an SDK object or text"):
            stream.feed(bad)
    for bad in ("{not json}", "not json", b"\xff{}"):
        with pytest.raises(ParseError):
            make.OpenAIResponseParser().stream().feed(bad)
    with pytest.raises(ParseError):
        stream.feed(b'data: {"choices": [\n\n')
    assert stream.finish().tool_calls == []
    # Text that may be the start of a value waits for the rest: at the end, it was cut.
    stream = make.OpenAIResponseParser().stream()
    assert stream.feed("{not json") == []
    assert stream.finish().tool_calls == []
    with pytest.raises(ValueError, match="'litert' format has no stream reader"):
        make.SdkResponseParser().stream()


def test_a_list_fed_at_once_gives_its_calls_as_after_its_last_event(make: Any) -> None:
    """`feed` of a list of events returns the calls they completed as the whole list left
    them (an event after the one that completed a call may still add to it)."""

    def chunk(tool_calls: Any = None, finish: str | None = None) -> dict[str, Any]:
        delta = {"tool_calls": tool_calls} if tool_calls else {}
        return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    stream = make.OpenAIResponseParser().stream()
    start = {"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x":'}}
    assert stream.feed(chunk([start])) == []
    more = chunk([{"index": 0, "function": {"arguments": "1}"}}])
    done = stream.feed([chunk(finish="tool_calls"), more])
    assert [c.model_dump() for c in done] == [
        {"name": "f", "arguments": {"x": 1}, "id": "a", "raw_arguments": None}
    ]
    assert stream.finish().tool_calls == done


def test_json_parser_streams_whole_responses(make: Any) -> None:
    stream = make.JsonResponseParser(tool_calls_key="calls").stream()
    assert [c.name for c in stream.feed({"calls": [{"name": "a", "arguments": {"x": 1}}]})] == ["a"]
    stream.feed('{"calls": [{"name": "b", "arguments": "{\\"y\\": 2}"}]}')
    assert [c.model_dump() for c in stream.finish().tool_calls] == [
        {"name": "a", "arguments": {"x": 1}, "id": None, "raw_arguments": None},
        {"name": "b", "arguments": {"y": 2}, "id": None, "raw_arguments": None},
    ]


def test_a_list_of_events_is_fed_in_turn(make: Any) -> None:
    case = CASES[0]
    stream = make.OpenAIResponseParser().stream()
    assert len(stream.feed(case["events"])) == 1
    assert same(calls_as_dicts(stream.finish()), case["calls"])


def chunk(*calls: dict[str, Any], index: Any = 0) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": {"tool_calls": list(calls)}}]}


def test_lone_surrogates_in_dict_events_are_kept(make: Any) -> None:
    # A Python str given in a dict may hold lone surrogates: names, ids and argument text
    # are kept as they are (never replaced), in feed, partial, finish and parse of a list.
    first = {"index": 0, "id": "c\ud800", "function": {"name": "f\udc00", "arguments": '{"a'}}
    later = {"index": 0, "function": {"arguments": '": "\ud800"}'}}
    events = [chunk({"index": 1, "id": "x", "function": {"name": "g", "arguments": "{}"}})]
    events += [chunk(first), chunk(later)]
    stream = make.OpenAIResponseParser().stream()
    for event in events:
        assert stream.feed(event) == []
    assert [(c.name, c.id) for c in stream.partial()] == [("f\udc00", "c\ud800"), ("g", "x")]
    expected = [
        {"name": "f\udc00", "arguments": {}, "id": "c\ud800", "raw_arguments": '{"a": "\ud800"}'},
        {"name": "g", "arguments": {}, "id": "x", "raw_arguments": None},
    ]
    assert calls_as_dicts(stream.finish()) == expected
    assert calls_as_dicts(make.OpenAIResponseParser().parse(events)) == expected
    stream = make.AnthropicResponseParser().stream()
    block = {"type": "tool_use", "id": "t", "name": "\ud83d", "input": {}}
    stream.feed({"type": "content_block_start", "index": 0, "content_block": block})
    assert [c.name for c in stream.feed({"type": "message_stop"})] == ["\ud83d"]


BIG = 2**70


@pytest.mark.parametrize("as_text", [False, True])
def test_indices_beyond_64_bits_key_calls(make: Any, as_text: bool) -> None:
    # Python ints are unbounded: an index beyond 64 bits keys its call as any other
    # (in order of value), given in a dict or in JSON text.
    events = [
        chunk({"index": BIG, "id": "a", "function": {"name": "f", "arguments": "{}"}}),
        chunk({"index": -BIG, "id": "b", "function": {"name": "g", "arguments": "{"}}),
        chunk({"index": 2**63 - 1, "id": "c", "function": {"name": "h", "arguments": ""}}),
        chunk({"index": -BIG, "function": {"arguments": '"x": 1}'}}),
        chunk({"id": "d", "function": {"name": "i"}}, index=BIG),
        chunk({"index": 2**64, "function": {"name": "j"}}, index=BIG),
    ]
    stream = make.OpenAIResponseParser().stream()
    for event in events:
        stream.feed(json.dumps(event) if as_text else event)
    expected = [("g", {"x": 1}), ("h", {}), ("f", {}), ("i", {}), ("j", {})]
    assert [(c.name, c.arguments) for c in stream.finish().tool_calls] == expected
    # A call without an index goes after the largest one, beyond 64 bits too.
    stream = make.AnthropicResponseParser().stream()
    for index in (2**63 - 1, None, None):
        event: dict[str, Any] = {"type": "content_block_start"}
        event["content_block"] = {"type": "tool_use", "name": f"t{index}", "input": {}}
        if index is not None:
            event["index"] = index
        stream.feed(json.dumps(event) if as_text else event)
    names = [c.name for c in stream.finish().tool_calls]
    assert names == ["t9223372036854775807", "tNone", "tNone"]


def test_a_record_with_big_indices_in_bulk(make: Any) -> None:
    events = [
        chunk({"index": BIG, "id": "a", "function": {"name": "f", "arguments": "{}"}}),
        chunk({"index": 1, "id": "b", "function": {"name": "g", "arguments": "{}"}}),
    ]
    parser = make.OpenAIResponseParser()
    [response] = parser.parse_many([json.dumps(events)])
    assert [c.name for c in response.tool_calls] == ["g", "f"]
    assert [c.name for c in parser.parse(events).tool_calls] == ["g", "f"]


@pytest.mark.parametrize("kind", ["response.\ud800", "\ud800step.start", "message_start\udfff"])
@pytest.mark.parametrize("key", ["type", "event_type"])
@pytest.mark.parametrize("name", [*[spec.name for spec in STREAMED], "auto"])
def test_a_kind_with_lone_surrogates(name: str, key: str, kind: str) -> None:
    """A `type` (or `event_type`) that is a `str` with lone surrogates equals no event
    type and starts with what it starts with: `parse` and a stream read the dict alike on
    both backends (the Rust one cannot hold such text, and used to raise
    UnicodeEncodeError)."""
    doc = {key: kind, "content": [], "usage": "x"}
    seen = []
    for backend in both_backends():
        make = getattr(parsers, "AutoResponseParser" if name == "auto" else
                       formats.by_name(name).parser_class)  # fmt: skip
        parser = bind(make, backend)()
        try:
            parsed: Any = parser.parse(doc)
            parsed = (calls_as_dicts(parsed), parsed.error)
        except ParseError as exc:
            parsed = str(exc)
        stream = parser.stream()
        fed = stream.feed(doc)
        finished = stream.finish()
        seen.append((parsed, fed, calls_as_dicts(finished), finished.error))
    assert seen[0] == seen[1]
    assert seen[0][1] == []


# --- SDK event objects --------------------------------------------------------------

# The cases of an event given alone: `parse` reads it as a stream of that one event.
ALONE = [c for c in CASES if c.get("response") is not None and c["events"] == [c["response"]]]


def sdk_events(name: str, events: list[Any]) -> list[Any] | None:
    """The events as the provider's SDK gives them (None: no SDK type for this format).
    openai-python and anthropic-sdk-python build their stream events from the wire with
    `construct_type` (no validation), as here."""
    from pydantic import TypeAdapter

    if name in ("openai", "openai-responses"):
        from openai._models import construct_type
        from openai.types.chat import ChatCompletionChunk
        from openai.types.responses import ResponseStreamEvent

        kind: Any = ChatCompletionChunk if name == "openai" else ResponseStreamEvent
        if all("event_id" in e for e in events):  # the Realtime API's server events
            from openai.types.realtime import RealtimeServerEvent

            kind = RealtimeServerEvent
        return [construct_type(type_=kind, value=e) for e in events]
    if name == "anthropic":
        from anthropic._models import construct_type as anthropic_construct
        from anthropic.types import RawMessageStreamEvent

        return [anthropic_construct(type_=RawMessageStreamEvent, value=e) for e in events]
    if name == "cohere":
        from cohere import StreamedChatResponse, StreamedChatResponseV2

        # v1 events (`client.chat_stream`) are told by their `event_type`.
        v1 = all("event_type" in e for e in events)
        adapter: Any = TypeAdapter(StreamedChatResponse if v1 else StreamedChatResponseV2)
        return [adapter.validate_python(e) for e in events]
    if name == "gemini":
        from google.genai.types import GenerateContentResponse, LiveServerMessage

        live = {"setupComplete", "serverContent", "toolCall", "toolCallCancellation"}
        return [
            (LiveServerMessage if live & e.keys() else GenerateContentResponse).model_validate(e)
            for e in events
        ]
    if name == "gemini-interactions":
        from google.genai.interactions import InteractionSSEEvent

        adapter = TypeAdapter(InteractionSSEEvent)
        return [adapter.validate_python(e) for e in events]
    if name == "ollama":
        from ollama import ChatResponse

        return [ChatResponse.model_validate(e) for e in events]
    return None  # boto3 gives Bedrock's events as dicts


SDK_CASES = [
    c
    for c in CASES
    if c.get("sdk", True) and all(isinstance(e, dict) and "$hex" not in e for e in c["events"])
]


@pytest.mark.parametrize("case", SDK_CASES, ids=[c["name"] for c in SDK_CASES])
def test_sdk_event_objects(make: Any, case: dict[str, Any]) -> None:
    events = sdk_events(case["parser"], case["events"])
    if events is None:
        pytest.skip("no SDK event type")
    done, _, response = run(parser_for(make, case["parser"]), events)
    assert same(calls_as_dicts(response), case["calls"])
    assert response.error == case.get("error")
    if "done" in case:
        assert done == case["done"]
    if case in ALONE:  # the SDK's event given alone to `parse`, named and auto
        for parser in (parser_for(make, case["parser"]), make.AutoResponseParser()):
            parsed = parser.parse(events[0])
            assert same(calls_as_dicts(parsed), case["calls"])
            assert parsed.error == case.get("error")


# --- Parity: random arguments in random fragments, every provider ----------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def fragmented(name: str, text: str, cuts: list[int], id: str) -> list[dict[str, Any]]:
    """`text` in fragments (cut at `cuts`), as `name`'s stream events for one call."""
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    parts = [text[a:b] for a, b in itertools.pairwise(bounds)]
    if name == "openai":
        start = {
            "index": 0,
            "id": id,
            "type": "function",
            "function": {"name": "tool", "arguments": ""},
        }
        return [
            {"choices": [{"index": 0, "delta": {"tool_calls": [start]}, "finish_reason": None}]},
            *[
                {
                    "choices": [
                        {
                            "index": 0,
                            "delta": {"tool_calls": [{"index": 0, "function": {"arguments": p}}]},
                        }
                    ]
                }
                for p in parts
            ],
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
    if name == "anthropic":
        block = {"type": "tool_use", "id": id, "name": "tool", "input": {}}
        return [
            {"type": "content_block_start", "index": 0, "content_block": block},
            *[
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": p},
                }
                for p in parts
            ],
            {"type": "content_block_stop", "index": 0},
        ]
    if name == "openai-responses":
        item = {
            "type": "function_call",
            "id": "fc_1",
            "call_id": id,
            "name": "tool",
            "arguments": "",
        }
        return [
            {"type": "response.output_item.added", "output_index": 0, "item": item},
            *[
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": "fc_1",
                    "output_index": 0,
                    "delta": p,
                }
                for p in parts
            ],
        ]
    if name == "bedrock":
        return [
            {
                "contentBlockStart": {
                    "start": {"toolUse": {"toolUseId": id, "name": "tool"}},
                    "contentBlockIndex": 0,
                }
            },
            *[
                {"contentBlockDelta": {"delta": {"toolUse": {"input": p}}, "contentBlockIndex": 0}}
                for p in parts
            ],
            {"contentBlockStop": {"contentBlockIndex": 0}},
        ]
    if name == "cohere":
        start = {"id": id, "type": "function", "function": {"name": "tool", "arguments": ""}}
        return [
            {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": start}}},
            *[
                {
                    "type": "tool-call-delta",
                    "index": 0,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": p}}}},
                }
                for p in parts
            ],
            {"type": "tool-call-end", "index": 0},
        ]
    if name == "gemini-interactions":
        step = {"type": "function_call", "id": id, "name": "tool", "arguments": {}}
        return [
            {"event_type": "step.start", "index": 0, "step": step},
            *[
                {
                    "event_type": "step.delta",
                    "index": 0,
                    "delta": {"type": "arguments_delta", "arguments": p},
                }
                for p in parts
            ],
            {"event_type": "step.stop", "index": 0},
        ]
    whole = json.loads(text)
    if name == "gemini":
        return [
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [{"functionCall": {"id": id, "name": "tool", "args": whole}}]
                        }
                    }
                ]
            }
        ]
    if name == "ollama":
        return [
            {
                "model": "m",
                "message": {
                    "role": "assistant",
                    "tool_calls": [{"id": id, "function": {"name": "tool", "arguments": whole}}],
                },
                "done": False,
            }
        ]
    raise ValueError(f"no stream events for {name!r}: add them here")


@settings(max_examples=60, deadline=None)
@given(
    arguments=objects,
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    name=st.sampled_from([spec.name for spec in STREAMED]),
    as_sse=st.booleans(),
)
def test_random_fragments_parity(
    arguments: dict[str, Any], cuts: list[int], name: str, as_sse: bool
) -> None:
    text = json.dumps(arguments, ensure_ascii=bool(cuts and cuts[0] % 2))
    events: list[Any] = fragmented(name, text, cuts, "call_1")
    if as_sse:
        transcript = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
        bounds = sorted({0, len(transcript), *(c % (len(transcript) + 1) for c in cuts)})
        events = [transcript[a:b] for a, b in itertools.pairwise(bounds)]
    results = []
    for backend in both_backends():
        parser = bind(getattr(parsers, formats.by_name(name).parser_class), backend)()
        stream = parser.stream()
        partials = []
        for event in events:
            stream.feed(event)
            partials.append([c.model_dump() for c in stream.partial()])
        results.append((partials, calls_as_dicts(stream.finish())))
    assert same(results[0], results[1])
    (final,) = results[0][1]
    assert final["name"] == "tool" and final["id"] == "call_1"
    assert same(final["arguments"], json.loads(text))
    assert final["raw_arguments"] is None


# --- Logged streams: a record holding a whole stream ------------------------------------

WHOLE = [c for c in CASES if all(isinstance(e, dict) and "$hex" not in e for e in c["events"])]


@pytest.mark.parametrize("case", WHOLE, ids=[c["name"] for c in WHOLE])
def test_a_record_holding_a_stream(make: Any, case: dict[str, Any], tmp_path: Any) -> None:
    """A JSON array of the events, or their SSE transcript as a JSON string, is one
    response to `parse`, `parse_many`, `parse_file` and `to_arrow` (named and auto)."""
    events = case["events"]
    transcript = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    records = [json.dumps(events), json.dumps(transcript)]
    for parser in (parser_for(make, case["parser"]), make.AutoResponseParser()):
        assert same(calls_as_dicts(parser.parse(events)), case["calls"])
        assert parser.parse(events).error == case.get("error")
        for response in parser.parse_many(records):
            assert response.error == case.get("error")
            assert same(calls_as_dicts(response), case["calls"])
        path = tmp_path / "streams.jsonl"
        path.write_text("\n".join(records) + "\n", "utf-8")
        for response in parser.parse_file(str(path)):
            assert same(calls_as_dicts(response), case["calls"])
        rows = parser.to_arrow(str(path)).to_pylist()
        if "error" in case:  # one row per record, saying so
            assert [r["error"] for r in rows] == [case["error"]] * 2
            continue
        assert len(rows) == 2 * len(case["calls"])
        assert [r["name"] for r in rows] == [c["name"] for c in case["calls"]] * 2
        assert {r["format"] for r in rows} <= {case["parser"]}


@pytest.mark.parametrize("case", ALONE, ids=[c["name"] for c in ALONE])
def test_an_event_given_alone_in_bulk(make: Any, case: dict[str, Any], tmp_path: Any) -> None:
    """An event given alone is a stream of that one event in every bulk API too, named
    and auto: as a record, with a number beyond the float range beside it (which the Rust
    reader's first pass leaves to a pruned parse, which must keep what tells), and in a
    batch envelope (which the file APIs unwrap)."""
    event = json.dumps(case["response"])
    # Beside the event's members, or inside the value of an event of one member (a
    # Bedrock exception is an object of that one member).
    at = event.index("{", 1) + 1 if len(case["response"]) == 1 else 1
    records = [event, f'{event[:at]}"x": 1e400, {event[at:]}', json.dumps({"custom_id": "r1",
               "response": {"status_code": 200, "body": case["response"]}})]  # fmt: skip
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(records) + "\n", "utf-8")
    for parser in (parser_for(make, case["parser"]), make.AutoResponseParser()):
        for response in parser.parse_many(records[:2]):
            assert same(calls_as_dicts(response), case["calls"])
            assert response.error == case.get("error")
        for response in parser.parse_file(str(path)):
            assert same(calls_as_dicts(response), case["calls"])
        rows = parser.to_arrow(str(path)).to_pylist()
        if "error" in case:
            assert [r["error"] for r in rows] == [case["error"]] * 3
        else:
            assert [r["name"] for r in rows] == [c["name"] for c in case["calls"]] * 3
            assert {r["format"] for r in rows} == {case["parser"]}
        assert [r["custom_id"] for r in rows][-1] == "r1"


BEDROCK_CHUNKS = next(c for c in CASES if "InvokeModelWithResponseStream" in c["name"])


def test_bedrock_chunks_as_boto3_gives_them(make: Any) -> None:
    """boto3's `invoke_model_with_response_stream` gives each chunk's event as `bytes`
    (decoded from the wire's base64); a `bytearray` reads the same."""
    import base64

    for kind in (bytes, bytearray):
        events = [
            {"chunk": {"bytes": kind(base64.b64decode(e["chunk"]["bytes"]))}}
            for e in BEDROCK_CHUNKS["events"]
        ]
        for parser in (parser_for(make, "anthropic"), make.AutoResponseParser()):
            done, _, response = run(parser, events)
            assert same(calls_as_dicts(response), BEDROCK_CHUNKS["calls"])
            assert done == BEDROCK_CHUNKS["done"]
            assert same(calls_as_dicts(parser.parse(events)), BEDROCK_CHUNKS["calls"])


def _chunk_outcome(parser: Any, data: Any) -> Any:
    """What a stream fed one chunk holding `data` (where it decodes: a tool_use block's
    `content_block_start`) gives: the calls, or the error raised."""
    stream = parser.stream()
    try:
        stream.feed({"chunk": {"bytes": data}})
        return calls_as_dicts(stream.finish())
    except Exception as exc:
        return type(exc).__name__, str(exc)


def test_bedrock_chunk_bytes_read_alike() -> None:
    """Base64 as Python's `b64decode(validate=True)` reads it (padding required, bits
    after the last byte ignored), else the text itself; anything else in `bytes` leaves
    the event unread; the same on both backends."""
    import base64

    event = json.dumps(
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_9", "name": "f", "input": {}},
        }
    )
    encoded = base64.b64encode(event.encode()).decode()
    assert encoded.endswith("=")  # so that the padding cases below test padding
    last = encoded.rstrip("=")
    trailing = last[:-1] + chr(ord(last[-1]) + 1) + encoded[len(last) :]
    datas = [
        encoded,
        event,
        encoded.rstrip("="),  # padding missing: not base64, so not JSON either
        trailing,  # other bits after the last byte: the same bytes
        encoded[:8] + "\n" + encoded[8:],
        encoded + "=",
        "",
        "é" + encoded,
        "\ud800",
        b"not json",
        None,
        5,
        {"nested": encoded},
    ]
    rust, python = both_backends()
    for data in datas:
        got = [
            _chunk_outcome(bind(parsers.AnthropicResponseParser, backend)(), data)
            for backend in (rust, python)
        ]
        assert got[0] == got[1], (data, got)
    calls = _chunk_outcome(parsers.AnthropicResponseParser(), encoded)
    assert [c["name"] for c in calls] == ["f"]
    assert _chunk_outcome(parsers.AnthropicResponseParser(), trailing) == calls
    assert _chunk_outcome(parsers.AnthropicResponseParser(), event) == calls
    assert _chunk_outcome(parsers.AnthropicResponseParser(), None) == []
    assert _chunk_outcome(parsers.AnthropicResponseParser(), b"not json")[0] == "ParseError"


ERROR_VALUES = [
    "model runner has unexpectedly stopped",
    "",
    {"message": "m"},
    {"message": "m", "code": 7, "type": "t"},
    {"message": "m", "code": -(2**63)},
    {"message": "m", "code": 2**63, "type": "beyond 64 bits: the type"},
    {"message": "m", "code": True, "status": "a bool is no code"},
    {"message": "m", "code": 1.5},
    {"message": "m", "code": None, "type": None, "status": "UNAVAILABLE"},
    {"message": 5, "code": "no message text"},
    {"message": "m", "code": "c\ud800"},
    [1],
    False,
]


@pytest.mark.parametrize("as_text", [False, True])
def test_error_texts_alike(as_text: bool) -> None:
    """A stream's error event, read alike by both backends, as dicts and as JSON text."""
    rust, python = both_backends()
    for value in ERROR_VALUES:
        event: Any = {"error": value}
        if as_text:
            event = json.dumps(event)
        got = []
        for backend in (rust, python):
            stream = bind(parsers.OllamaResponseParser, backend)().stream()
            try:
                stream.feed(event)
                got.append(stream.finish().error)
            except ParseError as exc:  # lone surrogates are no JSON text
                got.append(type(exc).__name__)
        assert got[0] == got[1], (value, got)
    stream = parsers.OllamaResponseParser().stream()
    stream.feed({"error": {"message": "m", "code": 2**63, "type": "t"}})
    assert stream.finish().error == "stream error: t: m"


@pytest.mark.parametrize("as_text", [False, True])
def test_bedrock_exceptions_alike(as_text: bool) -> None:
    """A Bedrock exception is an event of that one member: with another member beside it,
    it is no exception (boto3 never gives one so); the same on both backends."""
    events: list[Any] = [
        {"throttlingException": {"message": "m"}},
        {"throttlingException": {"message": "m"}, "metadata": {}},
        {"validationException": "as text"},
        {"validationException": {"message": [1, {"a": []}]}},
        {},
        {"unknownException": {"message": "m"}},
    ]
    expected = [
        "stream error: throttlingException: m",
        None,
        "stream error: as text",
        "stream error: validationException",  # no message: the code alone
        None,
        None,
    ]
    rust, python = both_backends()
    for event, error in zip(events, expected, strict=True):
        for backend in (rust, python):
            stream = bind(parsers.BedrockConverseParser, backend)().stream()
            stream.feed(json.dumps(event) if as_text else event)
            assert stream.finish().error == error, (event, backend)


def test_records_that_are_no_stream(make: Any) -> None:
    auto = make.AutoResponseParser()
    with pytest.raises(ParseError, match=r"unrecognized response shape \(an array\)"):
        auto.parse("[1, [2], {}]")
    assert make.OpenAIResponseParser().parse("[1, [2], {}]").tool_calls == []
    (response,) = auto.parse_many(['"data: {not json\\n\\n"'])
    assert response.error == "a stream event is not JSON"
    with pytest.raises(ParseError, match="unrecognized response shape \\(a string\\)"):
        auto.parse('"data: [DONE]\\n\\n"')
    with pytest.raises(ParseError):  # SSE text itself is no JSON text: feed it to a stream
        auto.parse("data: [DONE]\n\n")


def test_gemini_partial_args_paths(make: Any) -> None:
    """Values at JSON paths make the arguments; a path that is not one, goes through a
    value of another kind, or indexes past 10,000 sets nothing."""
    args = [
        {"jsonPath": "$.a.b", "numberValue": 1},
        {"jsonPath": "$.a.b.c", "stringValue": "conflict: a.b is a number"},
        {"jsonPath": "$.list[2][0]", "boolValue": False},
        {"jsonPath": "$.list.x", "stringValue": "conflict: list is an array"},
        {"jsonPath": "$[0]", "stringValue": "the root is an object"},
        {"jsonPath": "a.b", "stringValue": "no $"},
        {"jsonPath": "$.big[10001]", "stringValue": "too far"},
        {"jsonPath": "$..x", "stringValue": "empty step"},
        {"jsonPath": '$["q"]', "stringValue": "quoted"},
        {"jsonPath": "$.s", "stringValue": "one", "willContinue": True},
        {"jsonPath": "$.s", "stringValue": " two"},
        {"jsonPath": "$.s", "stringValue": "replaced"},
        {"jsonPath": "$.n"},
    ]
    event = {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"name": "f", "partialArgs": args}}]}}
        ]
    }
    stream = make.GeminiResponseParser().stream()
    (call,) = stream.feed(event)
    assert call.arguments == {
        "a": {"b": 1},
        "list": [None, None, [False]],
        "q": "quoted",
        "s": "replaced",
    }


def extract_rows(impl: str, *args: str) -> list[dict[str, Any]]:
    """`toolsift extract ARGS` (JSONL on stdout) run with backend `impl`: its rows."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "toolsift", "extract", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_extract_stream_lines(impl: str, tmp_path: Any) -> None:
    """`toolsift extract --stream-lines`: one event a line, two OpenAI streams interleaved
    line by line (grouped by their `id`), then a line that is not JSON (its own record)."""
    first = CASES[0]["events"]  # "call_Ab12"
    second = [dict(e, id="chatcmpl-other") for e in CASES[6]["events"]]  # "call_Z1", "call_Z2"
    lines = [json.dumps(e) for pair in zip(first, second, strict=False) for e in pair]
    lines += [json.dumps(e) for e in first[len(second) :]] + [
        json.dumps(e) for e in second[len(first) :]
    ]
    path = tmp_path / "lines.jsonl"
    path.write_text("\n".join([*lines, "not json"]) + "\n", "utf-8")
    rows = extract_rows(impl, str(path), "--stream-lines", "--quiet")
    assert [(r["record"], r["id"], r["format"]) for r in rows[:3]] == [
        (0, "call_Ab12", "openai"),
        (1, "call_Z1", "openai"),
        (1, "call_Z2", "openai"),
    ]
    assert rows[0]["arguments"] == {"location": "Paris, France", "unit": "celsius"}
    assert rows[3]["record"] == 2 and rows[3]["error"]
    assert len(rows) == 4


def test_extract_stream_lines_of_bedrock_chunks(impl: str, tmp_path: Any) -> None:
    """`--stream-lines` groups Bedrock `chunk` lines by the Anthropic events they wrap:
    two streams (two messages) one after the other are two records, not one a line."""
    import base64

    texts = [base64.b64decode(e["chunk"]["bytes"]).decode() for e in BEDROCK_CHUNKS["events"]]
    texts = [t.replace("toolu_02", "toolu_03").replace('"msg_', '"msg_2') for t in texts]
    second = [{"chunk": {"bytes": base64.b64encode(t.encode()).decode()}} for t in texts]
    lines = [json.dumps(e) for e in BEDROCK_CHUNKS["events"] + second]
    path = tmp_path / "chunks.jsonl"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    rows = extract_rows(impl, str(path), "--stream-lines", "--quiet")
    assert [(r["record"], r["id"], r["format"]) for r in rows] == [
        (0, "toolu_01A09q90qw90lq917835lq9", "anthropic"),
        (0, "toolu_02", "anthropic"),
        (1, "toolu_01A09q90qw90lq917835lq9", "anthropic"),
        (1, "toolu_03", "anthropic"),
    ]


def test_extract_stream(impl: str, tmp_path: Any) -> None:
    """`toolsift extract --stream`: each line one whole stream; a line holding a list of
    events is assembled. A Gemini 3 chunk holding only `partialArgs` is a piece of a
    stream, with or without the flag: no call, its record's error says so."""
    gemini = json.loads((VECTORS / "gemini.stream.json").read_text("utf-8"))
    streamed = next(c for c in gemini if c["name"].startswith("gemini 3 streamed arguments ("))
    lone = streamed["events"][1]  # partialArgs only
    path = tmp_path / "streams.jsonl"
    path.write_text(json.dumps(streamed["events"]) + "\n" + json.dumps(lone) + "\n", "utf-8")

    def rows(*flags: str) -> list[dict[str, Any]]:
        return extract_rows(impl, str(path), "--format", "gemini", *flags)

    got = rows("--stream", "--quiet")
    fragment = next(c for c in gemini if "error" in c)["error"]
    assert [(r["record"], r["name"], r["arguments"], r["error"]) for r in got] == [
        (0, "get_weather", streamed["calls"][0]["arguments"], None),
        (1, None, None, fragment),
    ]
    assert [(r["record"], r["error"]) for r in rows("--quiet")][1:] == [(1, fragment)]


paths = st.lists(
    st.one_of(st.text("ab", min_size=1, max_size=2), st.integers(0, 3)), min_size=1, max_size=3
)
partial_values = st.one_of(
    st.tuples(st.just("stringValue"), st.text(max_size=4)),
    st.tuples(st.just("numberValue"), st.integers(-5, 5) | st.floats(-10, 10)),
    st.tuples(st.just("boolValue"), st.booleans()),
    st.tuples(st.just("nullValue"), st.just("NULL_VALUE")),
)


def json_path(steps: list[Any]) -> str:
    return "$" + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in steps)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(paths, partial_values, st.booleans()), max_size=8), st.integers(1, 3))
def test_gemini_partial_args_parity(args: list[Any], chunks: int) -> None:
    """Random values at random paths, over a few chunks: both backends agree, chunk by
    chunk (`feed`, `partial`) and at `finish`."""
    partial = [
        {"jsonPath": json_path(steps), kind: value, "willContinue": more}
        for steps, (kind, value), more in args
    ]
    events = [
        {
            "candidates": [
                {"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}
            ]
        }
    ]
    for n in range(chunks):
        part = {"partialArgs": partial[n::chunks], "willContinue": n < chunks - 1}
        events.append({"candidates": [{"content": {"parts": [{"functionCall": part}]}}]})
    results = []
    for backend in both_backends():
        stream = bind(parsers.GeminiResponseParser, backend)().stream()
        seen = []
        for event in events:
            seen.append([c.model_dump() for c in stream.feed(event)])
            seen.append([c.model_dump() for c in stream.partial()])
        results.append((seen, calls_as_dicts(stream.finish())))
    assert same(results[0], results[1])
    assert len(results[0][1]) == 1


@pytest.mark.parametrize("case", WHOLE[:3] + [c for c in WHOLE if c["parser"] == "anthropic"][:1])
def test_a_stream_at_a_record_path(make: Any, case: dict[str, Any]) -> None:
    """A stream inside each record, at `record_path`: read whole (never pruned)."""
    events = case["events"]
    transcript = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    records = [json.dumps({"log": {"events": events}}), json.dumps({"log": {"events": transcript}})]
    parser = parser_for(make, case["parser"])
    rows = parser.to_arrow(records, record_path="log.events").to_pylist()
    assert [(r["record"], r["name"]) for r in rows] == [
        (n, c["name"]) for n in (0, 1) for c in case["calls"]
    ]
    for response in parser.parse_many(records):
        assert response.error is None


# Pieces of JSON text for `test_json_text_cut_anywhere_alike`: Ollama lines, values that
# are no event, strings holding brackets and escapes, and text that is not JSON.
_OLLAMA_LINE = {
    "model": "llama3.2",
    "message": {
        "role": "assistant",
        "content": 'é } ] \\" {',
        "tool_calls": [{"function": {"name": "f", "arguments": {"a": [1, "]"]}}}],
    },
    "done": False,
}
_JSON_TEXTS = [
    json.dumps(_OLLAMA_LINE),
    json.dumps(_OLLAMA_LINE, ensure_ascii=False, separators=(",", ":")),
    json.dumps([_OLLAMA_LINE, 1]),
    '{"error": "model runner has unexpectedly stopped"}',
    '"a string } ["',
    "12",
    "1e400",
    "123456789012345678901234",
    "true",
    "nul",
    "[]",
    "{}",
    "[[{}]]",
    "{not json}",
    "not json",
    '{"a": 1,}',
    "]",
    "\\x",
    "x",
    "é",
    '{"a": "\\ud800"}',
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_JSON_TEXTS), max_size=6),
    st.sampled_from(["\n", "\r\n", " ", ""]),
    st.lists(st.integers(0, 400), max_size=8),
    st.booleans(),
)
def test_json_text_cut_anywhere_alike(
    texts: list[str], between: str, cuts: list[int], as_str: bool
) -> None:
    """JSON text that is not SSE, cut anywhere (inside UTF-8 characters too, as bytes):
    every feed's calls or error, and finish()'s response, the same on both backends;
    and the calls the same as those of the whole text fed at once, cut nowhere."""
    body: Any = between.join(texts).encode()
    if as_str:
        body = body.decode()
    cuts = sorted({min(at, len(body)) for at in cuts})
    chunks = [body[a:b] for a, b in itertools.pairwise([0, *cuts, len(body)])]
    got = []
    for backend in both_backends():
        stream = bind(parsers.OllamaResponseParser, backend)().stream()
        steps: list[Any] = []
        for chunk in chunks:
            try:
                steps.append([call.name for call in stream.feed(chunk)])
            except ParseError as exc:
                steps.append(str(exc))
        response = stream.finish()
        steps.append((calls_as_dicts(response), response.error))
        got.append(steps)
    assert got[0] == got[1], (chunks, got)
    stream = parsers.OllamaResponseParser().stream()
    try:
        stream.feed(body)
    except ParseError:
        pass
    assert calls_as_dicts(stream.finish()) == got[0][-1][0], (chunks, got)


def test_json_text_cut_anywhere_gives_the_calls_of_the_whole_text() -> None:
    lines = [json.dumps(_OLLAMA_LINE, ensure_ascii=False) + "\n"] * 3
    body = "".join(lines).encode()
    for size in (1, 2, 5, 64, len(body)):
        stream = parsers.OllamaResponseParser().stream()
        done = [len(stream.feed(body[at : at + size])) for at in range(0, len(body), size)]
        assert sum(done) == 3, size
        assert [c.arguments for c in stream.finish().tool_calls] == [{"a": [1, "]"]}] * 3


def test_json_values_are_the_same_however_the_text_is_cut() -> None:
    """The pure splitter, on the text of the Rust one's unit test."""
    from toolsift._pure.framing import JsonValues

    text = (
        '{"a":"}\\"{é"}\n[1,{"b":[]},[{}]][1 {}]{}\r\n"s \\" ]" 12 true\t-0.5e+3 x y\n[{"c":{}},{'
    )
    expected = [
        '{"a":"}\\"{é"}'.encode(),
        b'{"b":[]}',  # an object in an array: given as it completes (the array is JSON)
        b"{}",
        b"[1 {}]",  # an array that is not JSON: given too, after its object, to raise
        b"{}",
        b'"s \\" ]"',
        b"12",
        b"true",
        b"-0.5e+3",
        b"x",
        b"y",
        b'{"c":{}}',  # then the array is left open: not given (its objects were)
    ]
    data = text.encode()
    for size in range(1, len(data) + 1):
        values = JsonValues()
        found = []
        for at in range(0, len(data), size):
            values.feed(data[at : at + size])
            while (value := values.next_value()) is not None:
                found.append(value)
        last = values.end()
        found.extend([] if last is None else [last])
        assert found == expected, size


@pytest.mark.parametrize("sse", [False, True])
def test_events_after_one_that_is_not_json_are_read(make: Any, sse: bool) -> None:
    """A piece holding several events, one of them not JSON: that one raises, once the
    others were read (none is lost with it)."""
    lines = [json.dumps(_OLLAMA_LINE), "{not json}", json.dumps(_OLLAMA_LINE)]
    text = "".join(f"data: {line}\n\n" if sse else f"{line}\n" for line in lines)
    stream = make.OllamaResponseParser().stream()
    with pytest.raises(ParseError, match="expected a string key"):
        stream.feed(text)
    assert [call.name for call in stream.finish().tool_calls] == ["f", "f"]


# Issue 37: SSE line ends, a byte order mark, lookups by id, `partial()` read incrementally.

_SSE_CHUNKS = [
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}
                    ]
                },
            }
        ]
    },
    {
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '"é\\r\\n"}'}}]},
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
]


def sse_text(ends: list[str]) -> str:
    """`_SSE_CHUNKS` as SSE, each event's data on two lines (split inside the JSON, so
    that an event dispatched early is not JSON), after an `event:` line and a comment;
    the line ends taken from `ends` in turn."""
    lines: list[str] = []
    for chunk in _SSE_CHUNKS:
        text = json.dumps(chunk)
        cut = text.index(":") + 1  # after the first key
        lines += [": comment", "event: chunk", f"data: {text[:cut]}", f"data:{text[cut:]}", ""]
    lines += ["data: [DONE]", ""]
    cycle = itertools.cycle(ends)
    return "".join(line + next(cycle) for line in lines)


@pytest.mark.parametrize(
    # (Mixed so that no CR ends a line before a blank line ended by LF: that is a CRLF.)
    "ends",
    [["\n"], ["\r"], ["\r\n"], ["\r\n", "\n", "\r"], ["\r\n", "\r"]],
    ids=repr,
)
def test_sse_line_ends_lf_cr_crlf(make: Any, ends: list[str]) -> None:
    """The SSE grammar's three line ends, alone or mixed: the same calls, fed whole or
    cut at every byte (a CRLF cut between two pieces is one line end: no blank line, so
    no event dispatched early)."""
    expected = [{"name": "f", "arguments": {"a": "é\r\n"}, "id": "c1", "raw_arguments": None}]
    data = sse_text(ends).encode()
    for cut in range(len(data) + 1):
        stream = make.OpenAIResponseParser().stream()
        for piece in (data[:cut], data[cut:]):
            stream.feed(piece)
        assert calls_as_dicts(stream.finish()) == expected, (ends, cut)
    stream = make.OpenAIResponseParser().stream()
    for byte in range(len(data)):
        stream.feed(data[byte : byte + 1])
    assert calls_as_dicts(stream.finish()) == expected


def test_sse_lone_cr_in_a_record_and_in_parse(make: Any) -> None:
    """A record holding SSE text with lone CRs is read as with LFs."""
    text = sse_text(["\r"])
    assert calls_as_dicts(make.OpenAIResponseParser().parse(json.dumps(text))) == calls_as_dicts(
        make.OpenAIResponseParser().parse(json.dumps(sse_text(["\n"])))
    )


def test_a_long_sse_line_fed_in_small_pieces(make: Any) -> None:
    """An `event:` line and a `data:` line, each long and fed in small pieces."""
    data = (
        "event: " + "x" * 50_000 + "\r\n" + "data: " + json.dumps(_SSE_CHUNKS[0]) + "\r\n\r\n"
    ).encode()
    stream = make.OpenAIResponseParser().stream()
    for at in range(0, len(data), 7):
        stream.feed(data[at : at + 7])
    (call,) = stream.partial()
    assert call.name == "f"


BOM_TEXT = "\ufeff" + json.dumps(_OLLAMA_LINE)


@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_byte_order_mark_says_so_in_feed_as_in_parse(make: Any, as_bytes: bool) -> None:
    """`feed` of text starting with a UTF-8 byte order mark raises `parse`'s error, fed
    whole or cut anywhere (also inside the mark); the event after it is still read."""
    parser = make.OllamaResponseParser()
    with pytest.raises(ParseError) as parsed:
        parser.parse(BOM_TEXT.encode() if as_bytes else BOM_TEXT)
    data: str | bytes = BOM_TEXT.encode() if as_bytes else BOM_TEXT
    for cut in range(len(data) + 1):
        stream = parser.stream()
        with pytest.raises(ParseError) as fed:
            for piece in (data[:cut], data[cut:]):
                stream.feed(piece)
        assert str(fed.value) == str(parsed.value), cut
        assert str(parsed.value).startswith("byte order mark is not allowed")


def test_a_byte_order_mark_cut_off_at_the_end(make: Any) -> None:
    """The start of a mark ending the text: no call, no error at `finish`."""
    stream = make.OllamaResponseParser().stream()
    stream.feed(json.dumps(_OLLAMA_LINE).encode() + b"\n\xef\xbb")
    assert [call.name for call in stream.finish().tool_calls] == ["f"]


def _openai_chunk(call: dict[str, Any]) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}


def test_calls_found_by_id_and_item_alike() -> None:
    """Calls found again by their id (OpenAI: every call at index 0, or none) or item id
    (the Responses API), fragments interleaved: the same calls on both backends; a call
    found by an id that two calls have is the first to arrive with it."""
    streams = [
        [
            _openai_chunk({"index": 0, "id": "a", "function": {"name": "f", "arguments": "{"}}),
            _openai_chunk({"index": 0, "id": "b", "function": {"name": "g", "arguments": "["}}),
            _openai_chunk({"index": 0, "id": "a", "function": {"arguments": "}"}}),
            _openai_chunk({"index": 0, "id": "b", "function": {"arguments": "]"}}),
            _openai_chunk({"index": 0, "id": "c", "function": {"name": "h"}}),
        ],
        [
            _openai_chunk({"id": "a", "function": {"name": "f", "arguments": '{"x"'}}),
            _openai_chunk({"id": "b", "function": {"name": "g"}}),
            _openai_chunk({"function": {"arguments": "{}"}}),
            _openai_chunk({"id": "a", "function": {"arguments": ": 1}"}}),
        ],
        [  # index 1 gets id "x" first; then the call at index 0 gets it too
            _openai_chunk({"index": 0, "function": {"name": "f"}}),
            _openai_chunk({"index": 1, "id": "x", "function": {"name": "g"}}),
            _openai_chunk({"index": 0, "id": "x", "function": {"arguments": "{}"}}),
            _openai_chunk({"id": "x", "function": {"arguments": "more"}}),
        ],
    ]
    responses = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "type": "function_call",
                "id": "i1",
                "call_id": "c1",
                "name": "f",
                "arguments": "",
            },
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {
                "type": "function_call",
                "id": "i2",
                "call_id": "c2",
                "name": "g",
                "arguments": "",
            },
        },
        {"type": "response.function_call_arguments.delta", "item_id": "i1", "delta": '{"a":'},
        {"type": "response.function_call_arguments.delta", "item_id": "i2", "delta": "{}"},
        {"type": "response.function_call_arguments.delta", "item_id": "i1", "delta": " 1}"},
        {"type": "response.function_call_arguments.delta", "output_index": 5, "delta": "{}"},
    ]
    rust, python = both_backends()
    for parser, events in [("OpenAIResponseParser", e) for e in streams] + [
        ("OpenAIResponsesParser", responses)
    ]:
        got = []
        for backend in (rust, python):
            stream = bind(getattr(parsers, parser), backend)().stream()
            partial = []
            for event in events:
                stream.feed(event)
                partial.append([c.model_dump() for c in stream.partial()])
            got.append((partial, calls_as_dicts(stream.finish())))
        assert same(got[0], got[1]), got
    assert [c["arguments"] for c in got[0][1]] == [{"a": 1}, {}, {}]


class _CountingList(list):  # type: ignore[type-arg]
    """A list that counts how often it is walked."""

    walks = 0

    def __iter__(self) -> Any:
        _CountingList.walks += 1
        return super().__iter__()


@pytest.mark.parametrize("shape", ["index 0", "no index", "responses"])
def test_finding_a_call_by_id_walks_no_calls(shape: str, monkeypatch: Any) -> None:
    """Pure backend: a call is found by its id, item id or as the next key without
    walking every call (which made a stream of n such calls cost n squared)."""
    from toolsift._pure import accumulator as pure_accumulator

    made = pure_accumulator.Accumulator.__init__

    def counting(self: Any) -> None:
        made(self)
        self.slots = _CountingList()

    monkeypatch.setattr(pure_accumulator.Accumulator, "__init__", counting)
    parser = bind(parsers.OpenAIResponseParser, backend_module_python())()
    if shape == "responses":
        parser = bind(parsers.OpenAIResponsesParser, backend_module_python())()
    stream = parser.stream()
    _CountingList.walks = 0
    for n in range(200):
        if shape == "responses":
            item = {"type": "function_call", "id": f"i{n}", "call_id": f"c{n}", "name": "f"}
            stream.feed({"type": "response.output_item.added", "item": item})
            stream.feed(
                {
                    "type": "response.function_call_arguments.delta",
                    "item_id": f"i{n}",
                    "delta": "{}",
                }
            )
        else:
            call = {"id": f"c{n}", "function": {"name": "f", "arguments": "{}"}}
            stream.feed(_openai_chunk(call if shape == "no index" else {"index": 0, **call}))
    assert _CountingList.walks == 0
    assert len(stream.finish().tool_calls) == 200


def backend_module_python() -> Any:
    from toolsift import _backend

    return _backend.load("python")


def _fresh_partial(parser: Any, events: list[Any]) -> list[dict[str, Any]]:
    stream = parser.stream()
    for event in events:
        stream.feed(event)
    return [call.model_dump() for call in stream.partial()]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_partial_after_every_event_is_partial_from_scratch(make: Any, case: dict[str, Any]) -> None:
    """`partial()` after every event (reading on from what it read before) gives what a
    stream fed the same events gives at its first `partial()`."""
    parser = parser_for(make, case["parser"])
    events = [event_of(event) for event in case["events"]]
    stream = parser.stream()
    for k, event in enumerate(events):
        stream.feed(event)
        assert same(
            [call.model_dump() for call in stream.partial()],
            _fresh_partial(parser, events[: k + 1]),
        ), (case["name"], k)


_PIECES = [
    '{"a": ', '"x\\', "u00e9", '\\n"', ", ", '"b"', ": [", "1", ".5e", "-3", "]", "}",
    "tru", "e", "nul", "l", " ", "{", "[", ",", ":", "\\", '"', "x", "\x01", "é",
]  # fmt: skip
_JSON_VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(
        st.one_of(
            st.sampled_from(_PIECES), st.text(max_size=4), st.builds(json.dumps, _JSON_VALUES)
        ),
        max_size=14,
    ),
    whole=st.booleans(),
)
def test_partial_incremental_is_partial_from_scratch(texts: list[str], whole: bool) -> None:
    """Argument text in random pieces (JSON cut anywhere, and text that is not JSON):
    `partial()` after each piece equals `partial()` of a stream fed all of it at once, on
    both backends alike; also where a Responses API call's text replaces the fragments
    (`.done`) and where fragments follow a whole string value."""
    rust, python = both_backends()
    item = {"type": "function_call", "id": "i", "call_id": "c", "name": "f"}
    if whole:
        item["arguments"] = '{"w": 1'
    events: list[Any] = [{"type": "response.output_item.added", "output_index": 0, "item": item}]
    events += [
        {"type": "response.function_call_arguments.delta", "item_id": "i", "delta": text}
        for text in texts
    ]
    if texts and whole:
        done = {"type": "response.function_call_arguments.done", "item_id": "i"}
        events.insert(len(events) // 2 + 1, {**done, "arguments": "".join(texts[:1])})
    got = []
    for backend in (rust, python):
        parser = bind(parsers.OpenAIResponsesParser, backend)()
        stream = parser.stream()
        seen = []
        for k, event in enumerate(events):
            stream.feed(event)
            now = [call.model_dump() for call in stream.partial()]
            assert same(now, _fresh_partial(parser, events[: k + 1])), (k, now)
            seen.append(now)
        got.append(seen)
    assert same(got[0], got[1])
