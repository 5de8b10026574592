"""Real SDK response objects (openai, google-genai) and other objects read by attribute."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import both_backends, calls_as_dicts, same

openai_chat = pytest.importorskip("openai.types.chat")
genai_types = pytest.importorskip("google.genai.types")
ChatCompletion = openai_chat.ChatCompletion

# --------------------------------------------------------------------------- openai


def completion(*messages: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o",
        "choices": [
            {"index": i, "finish_reason": "tool_calls", "message": {"role": "assistant", **m}}
            for i, m in enumerate(messages)
        ],
    }


def function_call(id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


OPENAI_CASES = {
    "one call": completion(
        {"content": None, "tool_calls": [function_call("c1", "get_weather", '{"city": "Paris"}')]}
    ),
    "calls in two choices": completion(
        {
            "content": None,
            "tool_calls": [
                function_call("c1", "a", '{"x": [1, 2.5, null, true], "y": {"z": "ü🚀"}}'),
                function_call("c2", "b", "{}"),
            ],
        },
        {"content": None, "tool_calls": [function_call("c3", "c", '{"n": 123456789012345678901}')]},
    ),
    "text only": completion({"content": "Hello!"}),
    "tool_calls null": completion({"content": "Hi", "tool_calls": None}),
    "no choices": {**completion(), "choices": []},
    "undecodable arguments": completion(
        {
            "content": None,
            "tool_calls": [
                function_call("c1", "f", '{"city": "Par'),
                function_call("c2", "g", "[1, 2]"),
                function_call("c3", "h", ""),
            ],
        }
    ),
}


@pytest.mark.parametrize("name", list(OPENAI_CASES))
def test_openai_chat_completion(make: Any, name: str) -> None:
    data = OPENAI_CASES[name]
    sdk = ChatCompletion.model_validate(copy.deepcopy(data))
    parser = make.OpenAIResponseParser()
    from_sdk = parser.parse(sdk)
    assert from_sdk.raw is sdk
    assert same(calls_as_dicts(from_sdk), calls_as_dicts(parser.parse(data)))
    # and as the SDK writes it back out
    dumped = sdk.model_dump_json()
    assert same(calls_as_dicts(from_sdk), calls_as_dicts(parser.parse(dumped)))


def test_openai_chat_completion_values(make: Any) -> None:
    sdk = ChatCompletion.model_validate(OPENAI_CASES["calls in two choices"])
    calls = calls_as_dicts(make.OpenAIResponseParser().parse(sdk))
    assert calls == [
        {
            "name": "a",
            "arguments": {"x": [1, 2.5, None, True], "y": {"z": "ü🚀"}},
            "id": "c1",
            "raw_arguments": None,
        },
        {"name": "b", "arguments": {}, "id": "c2", "raw_arguments": None},
        {"name": "c", "arguments": {"n": 123456789012345678901}, "id": "c3", "raw_arguments": None},
    ]
    undecodable = make.OpenAIResponseParser().parse(
        ChatCompletion.model_validate(OPENAI_CASES["undecodable arguments"])
    )
    assert [(c.arguments, c.raw_arguments) for c in undecodable.tool_calls] == [
        ({}, '{"city": "Par'),
        ({}, "[1, 2]"),
        ({}, ""),
    ]


def test_openai_custom_tool_calls(make: Any) -> None:
    """The newer `type: custom` tool calls: their free-text `input` is kept in
    `raw_arguments` (arguments `{}`), read by attribute from the SDK's objects."""
    custom_call = getattr(openai_chat, "ChatCompletionMessageCustomToolCall", None)
    if custom_call is None:
        pytest.skip("this openai SDK has no custom tool calls")
    data = completion(
        {
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "custom", "custom": {"name": "grep", "input": "x"}},
                function_call("c2", "f", '{"a": 1}'),
            ],
        }
    )
    sdk = ChatCompletion.model_validate(data)
    assert isinstance(sdk.choices[0].message.tool_calls[0], custom_call)
    response = make.OpenAIResponseParser().parse(sdk)
    assert calls_as_dicts(response) == [
        {"name": "grep", "arguments": {}, "id": "c1", "raw_arguments": "x"},
        {"name": "f", "arguments": {"a": 1}, "id": "c2", "raw_arguments": None},
    ]
    assert same(calls_as_dicts(response), calls_as_dicts(make.OpenAIResponseParser().parse(data)))


def test_openai_sdk_objects_in_parse_many(make: Any) -> None:
    sdks = [ChatCompletion.model_validate(d) for d in OPENAI_CASES.values()]
    parser = make.OpenAIResponseParser()
    for threads in (1, 2, None):
        results = parser.parse_many(sdks, threads=threads)
        assert [r.raw for r in results] == sdks
        assert all(r.raw is s for r, s in zip(results, sdks, strict=True))
        assert [calls_as_dicts(r) for r in results] == [
            calls_as_dicts(parser.parse(d)) for d in OPENAI_CASES.values()
        ]


# --------------------------------------------------------------------------- google-genai


def gemini(*parts_per_candidate: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finish_reason": "STOP", "index": i}
            for i, parts in enumerate(parts_per_candidate)
        ],
        "usage_metadata": {"prompt_token_count": 10},
    }


GEMINI_CASES = {
    "one call with id": gemini(
        [{"function_call": {"id": "fc-1", "name": "get_weather", "args": {"city": "Paris"}}}]
    ),
    "text and calls in two candidates": gemini(
        [
            {"text": "Let me check."},
            {"function_call": {"name": "a", "args": {"x": [1, 2.5, None, True]}}},
            {"function_call": {"name": "b"}},
        ],
        [{"function_call": {"id": "fc-3", "name": "c", "args": {"y": {"z": "ü🚀"}}}}],
    ),
    "text only": gemini([{"text": "Hello!"}]),
    "empty args": gemini([{"function_call": {"name": "f", "args": {}}}]),
    "big integer": gemini([{"function_call": {"name": "f", "args": {"n": 10**30}}}]),
}


def as_rest(value: Any) -> Any:
    """The REST (camelCase) spelling of a snake_case response dict."""
    if isinstance(value, list):
        return [as_rest(v) for v in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            head, *rest = key.split("_")
            camel = head + "".join(word.title() for word in rest)
            out[camel] = item if key == "args" else as_rest(item)
        return out
    return value


@pytest.mark.parametrize("name", list(GEMINI_CASES))
def test_genai_generate_content_response(make: Any, name: str) -> None:
    data = GEMINI_CASES[name]
    sdk = genai_types.GenerateContentResponse.model_validate(copy.deepcopy(data))
    parser = make.GeminiResponseParser()
    from_sdk = parser.parse(sdk)
    assert from_sdk.raw is sdk
    expected = calls_as_dicts(parser.parse(data))
    assert same(calls_as_dicts(from_sdk), expected)
    # the REST spelling (functionCall) of the same response gives the same calls
    assert same(calls_as_dicts(parser.parse(as_rest(data))), expected)
    assert same(calls_as_dicts(parser.parse(json.dumps(as_rest(data)))), expected)
    # the SDK's own JSON (camelCase aliases, as REST) too
    assert same(calls_as_dicts(parser.parse(sdk.model_dump_json(by_alias=True))), expected)


def test_genai_values(make: Any) -> None:
    sdk = genai_types.GenerateContentResponse.model_validate(
        GEMINI_CASES["text and calls in two candidates"]
    )
    assert calls_as_dicts(make.GeminiResponseParser().parse(sdk)) == [
        {"name": "a", "arguments": {"x": [1, 2.5, None, True]}, "id": None, "raw_arguments": None},
        {"name": "b", "arguments": {}, "id": None, "raw_arguments": None},
        {"name": "c", "arguments": {"y": {"z": "ü🚀"}}, "id": "fc-3", "raw_arguments": None},
    ]


def test_genai_built_with_constructors(make: Any) -> None:
    types = genai_types
    response = types.GenerateContentResponse(
        candidates=[
            types.Candidate(
                content=types.Content(
                    role="model",
                    parts=[
                        types.Part(text="Sure."),
                        types.Part(
                            function_call=types.FunctionCall(
                                id="fc-9", name="book", args={"seats": 2, "to": "LA"}
                            )
                        ),
                        types.Part.from_function_call(name="confirm", args={"ok": True}),
                    ],
                )
            ),
            types.Candidate(finish_reason=types.FinishReason.SAFETY),  # content None
        ]
    )
    calls = make.GeminiResponseParser().parse(response).tool_calls
    assert [(c.name, c.arguments, c.id) for c in calls] == [
        ("book", {"seats": 2, "to": "LA"}, "fc-9"),
        ("confirm", {"ok": True}, None),
    ]
    # the calls the SDK itself reports
    assert [(c.name, c.args, c.id) for c in response.function_calls] == [
        (c.name, c.arguments, c.id) for c in calls
    ]


def test_genai_blocked_prompt(make: Any) -> None:
    response = genai_types.GenerateContentResponse.model_validate(
        {"prompt_feedback": {"block_reason": "SAFETY"}}
    )
    assert response.candidates is None
    assert make.GeminiResponseParser().parse(response).tool_calls == []


def test_genai_blocked_prompt_auto_detected(make: Any) -> None:
    """A response whose prompt was blocked (no candidates) is recognized as Gemini by
    auto-detection: the SDK object, its dumps and its JSON, in parse and in batches."""
    response = genai_types.GenerateContentResponse.model_validate(
        {
            "prompt_feedback": {"block_reason": "SAFETY"},
            "usage_metadata": {"prompt_token_count": 8, "total_token_count": 8},
            "model_version": "gemini-2.5-flash",
            "response_id": "mK3vaJ2QEoGm1dkP8rWv4Ak",
        }
    )
    assert response.candidates is None
    raws = [
        response,
        response.model_dump(),
        response.model_dump(mode="json"),
        response.model_dump(exclude_none=True),
        response.model_dump_json(),
        response.model_dump_json(by_alias=True, exclude_none=True),  # as REST gives it
    ]
    parser = make.AutoResponseParser()
    for raw in raws:
        assert parser.parse(raw).tool_calls == []
    assert [r.error for r in parser.parse_many(raws)] == [None] * len(raws)
    # in a table, no error row (a record without calls gives no row)
    assert parser.to_arrow([response.model_dump_json(by_alias=True)]).num_rows == 0


def test_genai_live_server_message(make: Any) -> None:
    """A Live API `LiveServerMessage` with a `tool_call`: its calls, from the SDK object,
    its dumps and its JSON (as REST and as the SDK spell it), named and auto-detected,
    in parse, batches and tables."""
    message = genai_types.LiveServerMessage(
        tool_call=genai_types.LiveServerToolCall(
            function_calls=[
                genai_types.FunctionCall(id="fc-1", name="turn_on_the_lights", args={}),
                genai_types.FunctionCall(id="fc-2", name="get_weather", args={"city": "Paris"}),
            ]
        )
    )
    raws = [
        message,
        message.model_dump(),
        message.model_dump(mode="json"),
        message.model_dump_json(),
        message.model_dump_json(by_alias=True, exclude_none=True),  # as the wire gives it
    ]
    expected = [("turn_on_the_lights", {}, "fc-1"), ("get_weather", {"city": "Paris"}, "fc-2")]
    for parser in (make.GeminiResponseParser(), make.AutoResponseParser()):
        for raw in raws:
            calls = parser.parse(raw).tool_calls
            assert [(c.name, c.arguments, c.id) for c in calls] == expected
        assert [len(r.tool_calls) for r in parser.parse_many(raws)] == [2] * len(raws)
        rows = parser.to_arrow([raw for raw in raws if isinstance(raw, str)]).to_pylist()
        assert [(r["name"], r["format"]) for r in rows] == [
            ("turn_on_the_lights", "gemini"),
            ("get_weather", "gemini"),
        ] * 2
    other = genai_types.LiveServerMessage(setup_complete=genai_types.LiveServerSetupComplete())
    assert make.GeminiResponseParser().parse(other).tool_calls == []


def test_genai_arguments_are_a_copy(make: Any) -> None:
    args = {"a": [1]}
    response = genai_types.GenerateContentResponse(
        candidates=[
            genai_types.Candidate(
                content=genai_types.Content(
                    parts=[
                        genai_types.Part(
                            function_call=genai_types.FunctionCall(name="f", args=args)
                        )
                    ]
                )
            )
        ]
    )
    (call,) = make.GeminiResponseParser().parse(response).tool_calls
    sdk_args = response.candidates[0].content.parts[0].function_call.args
    assert call.arguments == sdk_args
    assert call.arguments is not sdk_args  # the dict is copied (its values are shared)


def test_sdk_objects_same_on_both_backends() -> None:
    sdks = [ChatCompletion.model_validate(d) for d in OPENAI_CASES.values()]
    sdks_gemini = [
        genai_types.GenerateContentResponse.model_validate(d) for d in GEMINI_CASES.values()
    ]
    rust, python = both_backends()
    for format, objects in (("openai", sdks), ("gemini", sdks_gemini)):
        for obj in objects:
            a = rust.Parser(format).parse(obj)
            b = python.Parser(format).parse(obj)
            assert same(calls_as_dicts(a), calls_as_dicts(b))
            # AutoResponseParser recognizes the SDK object and reads it the same way.
            for backend in (rust, python):
                assert same(calls_as_dicts(backend.Parser("auto").parse(obj)), calls_as_dicts(a))


# --------------------------------------------------------------------------- other objects

NS = SimpleNamespace


@pytest.mark.parametrize(
    "response",
    [
        NS(),
        NS(choices=None),
        NS(choices=[NS()]),
        NS(choices=[NS(message=None)]),
        NS(choices=[NS(message=NS())]),
        NS(choices=[NS(message=NS(tool_calls=None))]),
        NS(choices=[NS(message=NS(tool_calls=[NS()]))]),
        NS(choices=[NS(message=NS(tool_calls=[NS(function=None)]))]),
        NS(choices=[NS(message=NS(tool_calls=[NS(id="c1")]))]),
        NS(choices="not a list"),
        NS(choices=[1, "x", None]),
        object(),
        42,
        None,
    ],
)
def test_openai_objects_with_missing_attributes(make: Any, response: Any) -> None:
    result = make.OpenAIResponseParser().parse(response)
    assert result.tool_calls == []
    assert result.raw is response


def test_openai_object_with_partial_call(make: Any) -> None:
    response = NS(choices=[NS(message=NS(tool_calls=[NS(function=NS())]))])
    assert calls_as_dicts(make.OpenAIResponseParser().parse(response)) == [
        {"name": "", "arguments": {}, "id": None, "raw_arguments": None}
    ]
    response = NS(choices=[NS(message=NS(tool_calls=[NS(id="c1", function=NS(name="f"))]))])
    assert calls_as_dicts(make.OpenAIResponseParser().parse(response)) == [
        {"name": "f", "arguments": {}, "id": "c1", "raw_arguments": None}
    ]
    # tuples are read as lists; dicts and objects mix
    response = NS(choices=({"message": NS(tool_calls=({"function": {"name": "g"}},))},))
    assert [c.name for c in make.OpenAIResponseParser().parse(response).tool_calls] == ["g"]


@pytest.mark.parametrize(
    "response",
    [
        NS(),
        NS(candidates=[NS()]),
        NS(candidates=[NS(content=None)]),
        NS(candidates=[NS(content=NS())]),
        NS(candidates=[NS(content=NS(parts=[NS()]))]),
        NS(candidates=[NS(content=NS(parts=[NS(text="hi", function_call=None)]))]),
    ],
)
def test_gemini_objects_with_missing_attributes(make: Any, response: Any) -> None:
    assert make.GeminiResponseParser().parse(response).tool_calls == []


def test_gemini_object_with_partial_call(make: Any) -> None:
    response = NS(candidates=[NS(content=NS(parts=[NS(function_call=NS(name="f"))]))])
    assert calls_as_dicts(make.GeminiResponseParser().parse(response)) == [
        {"name": "f", "arguments": {}, "id": None, "raw_arguments": None}
    ]
    # the REST spelling as an attribute
    response = NS(candidates=[NS(content=NS(parts=[NS(functionCall=NS(name="g", id="i"))]))])
    assert calls_as_dicts(make.GeminiResponseParser().parse(response)) == [
        {"name": "g", "arguments": {}, "id": "i", "raw_arguments": None}
    ]


def test_json_parser_does_not_read_attributes(make: Any) -> None:
    """Custom JSON paths are dict keys only."""
    assert make.JsonResponseParser().parse(NS(tool_calls=[{"name": "f"}])).tool_calls == []
    assert make.JsonResponseParser().parse({"tool_calls": [NS(name="f")]}).tool_calls == []


class Boom(Exception):
    pass


class NotThere(AttributeError):
    pass


def raising(error: BaseException, where: str) -> Any:
    """An OpenAI-shaped object whose `where` attribute raises `error` when read."""

    class Raises:
        def __init__(self, **attributes: Any) -> None:
            self.__dict__.update({k: v for k, v in attributes.items() if k != where})

        def __getattr__(self, name: str) -> Any:  # only called for what __dict__ lacks
            raise error if name == where else AttributeError(name)

    function = Raises(name="f", arguments='{"a": 1}')
    call = Raises(id="c1", function=function)
    message = Raises(tool_calls=[call])
    return Raises(choices=[Raises(message=message)])


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (None, [("f", {"a": 1}, "c1")]),
        ("choices", []),
        ("message", []),
        ("tool_calls", []),
        ("function", []),
        ("id", [("f", {"a": 1}, None)]),
        ("name", [("", {"a": 1}, "c1")]),
        ("arguments", [("f", {}, "c1")]),
    ],
)
def test_attribute_error_means_missing(make: Any, where: str | None, expected: list[Any]) -> None:
    """An AttributeError (or a subclass) from an attribute read counts as missing."""
    for error in (AttributeError("nope"), NotThere("gone")):
        obj = raising(error, str(where))
        parser = make.OpenAIResponseParser()
        result = parser.parse(obj)
        assert [(c.name, c.arguments, c.id) for c in result.tool_calls] == expected
        (recorded,) = parser.parse_many([obj])
        assert recorded.error is None
        assert [(c.name, c.arguments, c.id) for c in recorded.tool_calls] == expected


@pytest.mark.parametrize(
    "error",
    [
        Boom("deep trouble"),
        ValueError("bad value"),
        KeyError("k"),
        RuntimeError(""),
        TypeError("t"),
    ],
)
def test_exception_from_a_property(make: Any, error: Exception) -> None:
    class Response:
        @property
        def choices(self) -> Any:
            raise error

    obj = Response()
    parser = make.OpenAIResponseParser()
    with pytest.raises(type(error)) as caught:
        parser.parse(obj)
    assert caught.value is error
    good = {"choices": [{"message": {"tool_calls": [{"function": {"name": "f"}}]}}]}
    results = parser.parse_many([good, obj, b"{}", obj], threads=1)
    assert [r.raw for r in results] == [good, obj, b"{}", obj]
    assert [c.name for c in results[0].tool_calls] == ["f"]
    for failed in (results[1], results[3]):
        assert failed.tool_calls == []
        assert failed.raw is obj
        assert failed.error == f"{type(error).__name__}: {error}"
    assert results[2].error is None


def test_exception_deep_inside_the_response(make: Any) -> None:
    class Function:
        name = "f"

        @property
        def arguments(self) -> Any:
            raise Boom("arguments unavailable")

    obj = NS(choices=[NS(message=NS(tool_calls=[NS(id="c", function=Function())]))])
    parser = make.OpenAIResponseParser()
    with pytest.raises(Boom, match="arguments unavailable"):
        parser.parse(obj)
    (result,) = parser.parse_many([obj])
    assert result.error == "Boom: arguments unavailable"
    assert result.tool_calls == []


def test_exception_in_gemini_part(make: Any) -> None:
    class Part:
        @property
        def function_call(self) -> Any:
            raise ValueError("no call")

    obj = NS(candidates=[NS(content=NS(parts=[NS(function_call=NS(name="ok")), Part()]))])
    parser = make.GeminiResponseParser()
    with pytest.raises(ValueError, match="no call"):
        parser.parse(obj)
    assert parser.parse_many([obj])[0].error == "ValueError: no call"


def test_keyboard_interrupt_from_a_property_propagates(make: Any) -> None:
    class Response:
        @property
        def choices(self) -> Any:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        make.OpenAIResponseParser().parse_many([{}, Response(), {}])


@pytest.mark.parametrize("error", [SystemExit("bye"), GeneratorExit("gen")])
def test_base_exceptions_from_a_property_propagate_python(error: BaseException) -> None:
    """The specification: only Exception subclasses are recorded (walk.py)."""

    class Response:
        @property
        def choices(self) -> Any:
            raise error

    with pytest.raises(type(error)):
        both_backends()[1].Parser("openai").parse_many([{}, Response()])


@pytest.mark.parametrize("error", [SystemExit("bye"), GeneratorExit("gen")])
def test_base_exceptions_from_a_property_propagate(error: BaseException) -> None:
    class Response:
        @property
        def choices(self) -> Any:
            raise error

    outcomes = []
    for backend in both_backends():
        try:
            results = backend.Parser("openai").parse_many([{}, Response()])
        except BaseException as exc:
            outcomes.append(("raised", type(exc).__name__))
        else:
            outcomes.append(("recorded", results[1].error))
    assert outcomes[0] == outcomes[1] == ("raised", type(error).__name__)


def test_raw_keeps_the_object_itself(make: Any) -> None:
    sdk = ChatCompletion.model_validate(OPENAI_CASES["one call"])
    obj = NS(choices=[])
    for raw in (sdk, obj):
        assert make.OpenAIResponseParser().parse(raw).raw is raw


# --------------------------------------------------------------------------- cohere v1

V1_RESPONSE = {
    "response_id": "3c1a4a55-0d3b-4f7f-9f0a-6b2d1a7b8c9e",
    "text": "I will report the sales and list the electronics products.",
    "generation_id": "b5ee2f3c-7c2a-4f5e-8a8e-2f1e5f6a9d01",
    "finish_reason": "COMPLETE",
    "tool_calls": [
        {"name": "query_daily_sales_report", "parameters": {"day": "2023-09-29"}},
        {"name": "query_product_catalog", "parameters": {"category": "Electronics"}},
    ],
    "chat_history": [
        {"role": "USER", "message": "Sales on 29 September 2023, and our electronics?"},
        {
            "role": "CHATBOT",
            "message": "I will look it up.",
            "tool_calls": [{"name": "earlier_turn", "parameters": {}}],
        },
    ],
    "meta": {"api_version": {"version": "1"}, "billed_units": {"input_tokens": 692}},
}
V1_CALLS = [
    {
        "name": "query_daily_sales_report",
        "arguments": {"day": "2023-09-29"},
        "id": None,
        "raw_arguments": None,
    },
    {
        "name": "query_product_catalog",
        "arguments": {"category": "Electronics"},
        "id": None,
        "raw_arguments": None,
    },
]


def test_cohere_v1_non_streamed_chat_response(make: Any) -> None:
    """`cohere.Client().chat(...)`'s `NonStreamedChatResponse`, read by attribute by the
    named parser and by auto-detection (by its JSON dump): the response's own calls, not
    the chat history's, without ids."""
    cohere = pytest.importorskip("cohere")
    sdk = cohere.NonStreamedChatResponse.model_validate(copy.deepcopy(V1_RESPONSE))
    for parser in (make.CohereResponseParser(), make.AutoResponseParser()):
        response = parser.parse(sdk)
        assert response.raw is sdk
        assert calls_as_dicts(response) == V1_CALLS
        assert calls_as_dicts(parser.parse(sdk.model_dump_json())) == V1_CALLS
    text_only = cohere.NonStreamedChatResponse.model_validate(
        {"text": "It was 10000.", "generation_id": "g", "finish_reason": "COMPLETE"}
    )
    assert make.AutoResponseParser().parse(text_only).tool_calls == []


def test_cohere_v1_stream_event_objects(make: Any) -> None:
    """`cohere.Client().chat_stream(...)`'s `StreamedChatResponse` objects: the calls of
    `tool-calls-generation`, once (`stream-end`'s response repeats them); a stream of
    `stream-end` alone gives its response's calls."""
    cohere = pytest.importorskip("cohere")
    from pydantic import TypeAdapter

    adapter: Any = TypeAdapter(cohere.StreamedChatResponse)
    events = [
        adapter.validate_python(e)
        for e in (
            {"event_type": "stream-start", "generation_id": V1_RESPONSE["generation_id"]},
            {"event_type": "tool-calls-chunk", "tool_call_delta": {"index": 0, "name": "x"}},
            {"event_type": "tool-calls-generation", "tool_calls": V1_RESPONSE["tool_calls"]},
            {"event_type": "stream-end", "finish_reason": "COMPLETE", "response": V1_RESPONSE},
        )
    ]
    for parser in (make.CohereResponseParser(), make.AutoResponseParser()):
        stream = parser.stream()
        assert [len(stream.feed(event)) for event in events] == [0, 0, 2, 0]
        assert calls_as_dicts(stream.finish()) == V1_CALLS
        stream = parser.stream()
        assert len(stream.feed(events[-1])) == 2
        assert calls_as_dicts(stream.finish()) == V1_CALLS
