"""The russo-compatibility table: russo 0.3.3's own parsers against toolsift's.

For every vector with an `input` object, russo's parser runs on that object. Without a
`russo` key in the case, russo and toolsift (both backends) find the same calls (name,
arguments); "raises" means russo raises; a list is exactly what russo gives; "differs"
is explained below, case by case. Then `toolsift.russo` inside russo itself: its models,
its evaluator, its HTTP agent and pipeline.
"""

from __future__ import annotations

import asyncio
import json
import math
from types import MappingProxyType
from typing import Any

import pytest
from conftest import bind, format_vectors

pytest.importorskip("russo")
import russo
import russo.parsers
import toolsift.russo
from russo._protocols import ResponseParser
from russo.adapters import HttpAgent
from russo.evaluators import ExactEvaluator

# The formats russo has: its vectors (the other formats are toolsift's own).
VECTORS = [case for case in format_vectors() if case["parser"] in ("openai", "gemini", "json")]
OBJECT_CASES = [case for case in VECTORS if "input" in case]
CLASSES = {
    "openai": "OpenAIResponseParser",
    "gemini": "GeminiResponseParser",
    "json": "JsonResponseParser",
}


def russo_parser(case: dict[str, Any]) -> Any:
    return getattr(russo.parsers, CLASSES[case["parser"]])(**case.get("options", {}))


def toolsift_parser(make: Any, case: dict[str, Any]) -> Any:
    return getattr(make, CLASSES[case["parser"]])(**case.get("options", {}))


def pairs(response: Any) -> list[tuple[str, Any]]:
    return [(call.name, call.arguments) for call in response.tool_calls]


def test_the_installed_russo_is_the_reference() -> None:
    from importlib.metadata import version

    assert version("russo") == "0.3.3"


def test_every_object_case_is_covered() -> None:
    assert len(OBJECT_CASES) > 50
    kinds = {
        case.get("russo", "same") if not isinstance(case.get("russo"), list) else "list"
        for case in OBJECT_CASES
    }
    assert kinds == {"same", "raises", "differs", "list"}


# Why russo and toolsift differ, for each vector marked "differs", and what russo gives:
# russo decodes arguments with `json.loads`, which accepts what is not JSON (RFC 8259):
# NaN and escaped lone surrogates. toolsift keeps such text in `raw_arguments`.
DIFFERS: dict[str, tuple[str, list[tuple[str, Any]]]] = {
    "openai arguments NaN text": (
        "json.loads accepts NaN, which is not JSON; toolsift keeps the text",
        [("f", {"a": math.nan})],
    ),
    "openai arguments with an escaped lone surrogate": (
        "json.loads keeps an escaped lone surrogate, which has no UTF-8 form; toolsift "
        "refuses it (as orjson does) and keeps the text",
        [("f", {"a": "\ud800"})],
    ),
}


def same_nan(a: Any, b: Any) -> bool:
    """Equality where NaN equals NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same_nan(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_nan(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize("case", OBJECT_CASES, ids=[c["name"] for c in OBJECT_CASES])
def test_russo_on_the_vector(make: Any, case: dict[str, Any]) -> None:
    raw = case["input"]
    expected = case.get("russo")
    ours = pairs(toolsift_parser(make, case).parse(raw))
    assert ours == [(c["name"], c["arguments"]) for c in case["calls"]]
    if expected == "raises":
        with pytest.raises(Exception):  # noqa: B017  (pydantic, json, TypeError: any)
            russo_parser(case).parse(raw)
        return
    theirs = pairs(russo_parser(case).parse(raw))
    if expected is None:
        assert theirs == ours
    elif isinstance(expected, list):
        assert theirs == [(c["name"], c["arguments"]) for c in expected]
        assert theirs != ours  # else the case would not need a russo key
    else:
        assert expected == "differs"
        assert case["name"] in DIFFERS, f"document why {case['name']!r} differs in DIFFERS"
        _why, russo_gives = DIFFERS[case["name"]]
        assert same_nan(theirs, russo_gives)
        assert not same_nan(theirs, ours)
        # toolsift keeps what it did not decode
        (call,) = toolsift_parser(make, case).parse(raw).tool_calls
        assert call.arguments == {}
        assert call.raw_arguments is not None


def test_differs_table_has_no_stale_entries() -> None:
    differs = {case["name"] for case in OBJECT_CASES if case.get("russo") == "differs"}
    assert set(DIFFERS) == differs


@pytest.mark.parametrize("case", OBJECT_CASES, ids=[c["name"] for c in OBJECT_CASES])
def test_russo_does_not_parse_text(make: Any, case: dict[str, Any]) -> None:
    """README: russo reads attributes of a str/bytes (finding none); toolsift parses it."""
    text = json.dumps(case["input"], ensure_ascii=False)
    for raw in (text, text.encode()):
        assert russo_parser(case).parse(raw).tool_calls == []
        assert pairs(toolsift_parser(make, case).parse(raw)) == pairs(
            toolsift_parser(make, case).parse(case["input"])
        )


# --------------------------------------------------------------------------- other differences
# Found while writing this table; not (yet) in the README's list of differences.


def test_tuple_of_calls_in_custom_json(make: Any) -> None:
    """russo's JsonResponseParser wants a list (a tuple there gives nothing), and only a
    list at the top; toolsift iterates tuples too (the README says russo "iterated")."""
    raw = {"tool_calls": ({"name": "f"},)}
    assert russo.parsers.JsonResponseParser().parse(raw).tool_calls == []
    assert pairs(make.JsonResponseParser().parse(raw)) == [("f", {})]
    top = ({"tool_calls": [{"name": "f"}]},)
    assert russo.parsers.JsonResponseParser().parse(top).tool_calls == []
    assert pairs(make.JsonResponseParser().parse(top)) == [("f", {})]
    # OpenAI and Gemini: russo iterates whatever it finds, tuples included, as toolsift
    openai = {"choices": ({"message": {"tool_calls": ({"function": {"name": "f"}},)}},)}
    assert pairs(russo.parsers.OpenAIResponseParser().parse(openai)) == [("f", {})]
    assert pairs(make.OpenAIResponseParser().parse(openai)) == [("f", {})]


def test_gemini_args_as_a_list_of_pairs(make: Any) -> None:
    """russo calls `dict(args)`: a list of pairs becomes a dict there (not every list
    raises, as the README's table says); toolsift keeps any list as text."""
    raw = {
        "candidates": [
            {"content": {"parts": [{"function_call": {"name": "f", "args": [["a", 1]]}}]}}
        ]
    }
    assert pairs(russo.parsers.GeminiResponseParser().parse(raw)) == [("f", {"a": 1})]
    (call,) = make.GeminiResponseParser().parse(raw).tool_calls
    assert (call.arguments, call.raw_arguments) == ({}, '[["a",1]]')


def test_gemini_mapping_args(make: Any) -> None:
    raw = {
        "candidates": [
            {
                "content": {
                    "parts": [{"function_call": {"name": "f", "args": MappingProxyType({"a": 1})}}]
                }
            }
        ]
    }
    assert pairs(russo.parsers.GeminiResponseParser().parse(raw)) == [("f", {"a": 1})]
    assert pairs(make.GeminiResponseParser().parse(raw)) == [("f", {"a": 1})]


# --------------------------------------------------------------------------- toolsift.russo

RUSSO_CLASSES = ("OpenAIResponseParser", "GeminiResponseParser", "JsonResponseParser")


@pytest.fixture
def ts_russo(backend: Any) -> Any:
    """toolsift.russo's classes, bound to the backend under test."""
    from types import SimpleNamespace

    return SimpleNamespace(
        **{name: bind(getattr(toolsift.russo, name), backend) for name in RUSSO_CLASSES}
    )


OPENAI_RAW = {
    "choices": [
        {
            "message": {
                "tool_calls": [
                    {
                        "id": "c1",
                        "function": {
                            "name": "book_flight",
                            "arguments": '{"from_city": "NYC", "to_city": "LA"}',
                        },
                    },
                    {
                        "id": "c2",
                        "function": {"name": "get_weather", "arguments": '{"city": "LA"}'},
                    },
                ]
            }
        }
    ]
}


@pytest.mark.parametrize("case", OBJECT_CASES, ids=[c["name"] for c in OBJECT_CASES])
def test_toolsift_russo_gives_russo_models(ts_russo: Any, make: Any, case: dict[str, Any]) -> None:
    parser = getattr(ts_russo, CLASSES[case["parser"]])(**case.get("options", {}))
    raw = case["input"]
    response = parser.parse(raw)
    assert isinstance(response, russo.AgentResponse)
    assert all(isinstance(call, russo.ToolCall) for call in response.tool_calls)
    assert response.raw is raw
    assert pairs(response) == pairs(toolsift_parser(make, case).parse(raw))
    if case.get("russo") is None:
        assert response.tool_calls == russo_parser(case).parse(raw).tool_calls


def test_toolsift_russo_is_a_russo_response_parser(ts_russo: Any) -> None:
    for name in RUSSO_CLASSES:
        parser = getattr(ts_russo, name)()
        assert isinstance(parser, ResponseParser)
        assert isinstance(parser, getattr(toolsift.parsers, name))


def test_toolsift_russo_text_and_parse_many(ts_russo: Any) -> None:
    parser = ts_russo.OpenAIResponseParser()
    text = json.dumps(OPENAI_RAW)
    expected = russo.parsers.OpenAIResponseParser().parse(OPENAI_RAW).tool_calls
    assert parser.parse(text).tool_calls == expected
    results = parser.parse_many([OPENAI_RAW, text, text.encode(), b"{", None], threads=2)
    assert all(isinstance(r, russo.AgentResponse) for r in results)
    assert [r.tool_calls for r in results] == [expected, expected, expected, [], []]
    assert results[3].raw == b"{"


def test_russo_models_serialize(ts_russo: Any) -> None:
    response = ts_russo.OpenAIResponseParser().parse(OPENAI_RAW)
    dumped = response.model_dump()
    assert dumped["tool_calls"] == [
        {"name": "book_flight", "arguments": {"from_city": "NYC", "to_city": "LA"}},
        {"name": "get_weather", "arguments": {"city": "LA"}},
    ]
    assert dumped["raw"] == OPENAI_RAW
    again = russo.AgentResponse.model_validate_json(response.model_dump_json())
    assert again.tool_calls == response.tool_calls


def test_exact_evaluator(ts_russo: Any) -> None:
    actual = ts_russo.OpenAIResponseParser().parse(OPENAI_RAW).tool_calls
    evaluator = ExactEvaluator()
    passed = evaluator.evaluate(
        expected=[
            russo.tool_call("get_weather", city="LA"),
            russo.tool_call("book_flight", from_city="NYC", to_city="LA"),
        ],
        actual=actual,
    )
    assert passed.passed
    assert all(match.matched for match in passed.matches)
    russo.assert_tool_calls(passed)
    failed = evaluator.evaluate(
        expected=[russo.tool_call("book_flight", from_city="SF")], actual=actual
    )
    assert not failed.passed
    with pytest.raises(russo.ToolCallAssertionError):
        russo.assert_tool_calls(failed)
    ordered = ExactEvaluator(match_order=True).evaluate(
        expected=[russo.tool_call("get_weather", city="LA")], actual=actual
    )
    assert not ordered.passed  # book_flight comes first


def test_exact_evaluator_on_gemini_and_json(ts_russo: Any) -> None:
    gemini = {
        "candidates": [
            {"content": {"parts": [{"function_call": {"name": "f", "args": {"a": [1, 2]}}}]}}
        ]
    }
    custom = {"result": {"calls": [{"fn": "f", "params": {"a": [1, 2]}}]}}
    expected = [russo.tool_call("f", a=[1, 2])]
    for parser, raw in (
        (ts_russo.GeminiResponseParser(), gemini),
        (
            ts_russo.JsonResponseParser(
                tool_calls_key="result.calls", name_key="fn", arguments_key="params"
            ),
            custom,
        ),
    ):
        assert (
            ExactEvaluator().evaluate(expected=expected, actual=parser.parse(raw).tool_calls).passed
        )


class FakeHttpAgent(HttpAgent):
    """russo's HttpAgent with the network replaced by a canned JSON body."""

    def __init__(self, body: Any, **kwargs: Any) -> None:
        super().__init__(url="http://localhost:1/agent", **kwargs)
        self.body = body
        self.sent: list[dict[str, Any]] = []

    def _send_sync(self, payload: dict[str, Any]) -> Any:
        self.sent.append(payload)
        return json.loads(json.dumps(self.body))  # as HttpAgent does with the response


def test_http_agent_with_toolsift_parser(ts_russo: Any) -> None:
    agent = FakeHttpAgent(OPENAI_RAW, parser=ts_russo.OpenAIResponseParser())
    response = asyncio.run(agent.run(russo.Audio(data=b"\x00\x01")))
    assert isinstance(response, russo.AgentResponse)
    assert agent.sent == [{"audio": "AAE=", "format": "wav"}]
    assert response.tool_calls == russo.parsers.OpenAIResponseParser().parse(OPENAI_RAW).tool_calls


def test_russo_pipeline_with_toolsift_parser(ts_russo: Any) -> None:
    """russo.run: synthesizer -> HttpAgent (toolsift.russo parser) -> ExactEvaluator."""

    class Synthesizer:
        async def synthesize(self, text: str) -> Any:
            return russo.Audio(data=text.encode())

    gemini = {
        "candidates": [
            {
                "content": {
                    "parts": [
                        {"functionCall": {"name": "get_weather", "args": {"city": "LA"}, "id": "x"}}
                    ]
                }
            }
        ]
    }
    agent = FakeHttpAgent(gemini, parser=ts_russo.GeminiResponseParser())
    result = asyncio.run(
        russo.run(
            prompt="weather in LA?",
            synthesizer=Synthesizer(),
            agent=agent,
            evaluator=ExactEvaluator(),
            expect=[russo.tool_call("get_weather", city="LA")],
        )
    )
    assert result.passed
    russo.assert_tool_calls(result)
    # with russo's own parser the REST camelCase call is not found
    agent = FakeHttpAgent(gemini, parser=russo.parsers.GeminiResponseParser())
    result = asyncio.run(
        russo.run(
            prompt="weather in LA?",
            synthesizer=Synthesizer(),
            agent=agent,
            evaluator=ExactEvaluator(),
            expect=[russo.tool_call("get_weather", city="LA")],
        )
    )
    assert not result.passed


def test_http_agent_parser_attribute_called_directly(ts_russo: Any) -> None:
    """What HttpAgent.run does with the decoded body: `self.parser.parse(raw_dict)`."""
    agent = HttpAgent(url="http://localhost:1/agent", parser=ts_russo.JsonResponseParser())
    raw = {"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}
    response = agent.parser.parse(raw)
    assert isinstance(response, russo.AgentResponse)
    assert response.tool_calls == [russo.tool_call("f", a=1)]
    assert response.tool_calls == agent._default_parse(raw).tool_calls


OPENAI_EVENTS = [
    {
        "choices": [
            {
                "delta": {
                    "tool_calls": [
                        {"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a": '}}
                    ]
                }
            }
        ]
    },
    {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}}]},
    {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
]


@pytest.mark.parametrize("name", RUSSO_CLASSES[:2])
def test_toolsift_russo_streams_give_russo_models(ts_russo: Any, name: str) -> None:
    """`stream()` of toolsift.russo's classes gives russo's models, as `parse` does."""
    events = OPENAI_EVENTS
    if name == "GeminiResponseParser":
        part = {"functionCall": {"name": "f", "args": {"a": 1}}}
        events = [{"candidates": [{"content": {"parts": [part]}, "finishReason": "STOP"}]}]
    stream = getattr(ts_russo, name)().stream()
    done = [call for event in events for call in stream.feed(event)]
    partial = stream.partial()
    response = stream.finish()
    assert isinstance(response, russo.AgentResponse)
    for calls in (done, partial, response.tool_calls):
        assert calls == [russo.tool_call("f", a=1)]
        assert all(type(call) is russo.ToolCall for call in calls)
    assert response.raw == events


def test_toolsift_russo_reads_envelopes_and_record_path(ts_russo: Any) -> None:
    parser = ts_russo.OpenAIResponseParser()
    line = {"custom_id": "r1", "response": {"status_code": 200, "body": OPENAI_RAW}}
    expected = russo.parsers.OpenAIResponseParser().parse(OPENAI_RAW).tool_calls
    assert parser.parse(json.dumps(line)).tool_calls == expected
    assert parser.parse(line, record_path="response.body").tool_calls == expected
    found = parser.parse_many([line], record_path="response.body", threads=1)
    assert [r.tool_calls for r in found] == [expected]
