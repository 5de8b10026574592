"""Writes openai.json, gemini.json and json.json: the shared vectors of those formats.

Run it after editing the cases below; pytest and `cargo test` read the JSON file. Each
case has `parser` (+ `options`), then either `input` (a JSON value: parsed as a dict, as
str and as bytes) or `text` (raw text, maybe invalid), and either `calls` (expected
ToolCalls as dicts) or `error: true`. `russo` says what russo 0.3.3 gives where it
differs on purpose: "raises", "differs" (a value JSON cannot hold), or its calls
(as `{name, arguments}`). `auto: true` says AutoResponseParser detects the input as the
case's format and gives the same calls. Vectors are strict JSON (no NaN or infinities),
for serde_json.
"""

import json
from pathlib import Path


def call(name, arguments=None, id=None, raw=None):
    return {"name": name, "arguments": arguments or {}, "id": id, "raw_arguments": raw}


def oa(*calls_per_choice, **extra):
    """An OpenAI chat completion whose choices hold the given tool_calls lists."""
    choices = []
    for i, calls in enumerate(calls_per_choice):
        message = {"role": "assistant", "content": None}
        if calls is not None:
            message["tool_calls"] = calls
        choices.append({"index": i, "message": message, "finish_reason": "tool_calls"})
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o",
        "choices": choices,
        **extra,
    }


def fn(name, arguments, id="call_1"):
    item = {"id": id, "type": "function", "function": {"name": name}}
    if arguments is not ...:
        item["function"]["arguments"] = arguments
    return item


def gm(*parts_per_candidate):
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": i}
            for i, parts in enumerate(parts_per_candidate)
        ],
        "usageMetadata": {"promptTokenCount": 10},
    }


BIG = 123456789012345678901234567890
cases = []


def case(
    name,
    parser,
    calls=None,
    *,
    input=None,
    text=None,
    options=None,
    error=False,
    russo=None,
    auto=False,
):
    c = {"name": name, "parser": parser}
    if options:
        c["options"] = options
    if text is not None:
        c["text"] = text
    else:
        c["input"] = input
    if error:
        c["error"] = True
    else:
        c["calls"] = calls
    if russo is not None:
        c["russo"] = russo
    if auto:
        c["auto"] = True
    cases.append(c)


# --- OpenAI ---
case(
    "openai one call",
    "openai",
    [call("get_weather", {"city": "Paris"}, "call_1")],
    input=oa([fn("get_weather", '{"city": "Paris"}')]),
)

# Custom tools (free-text input, kept in raw_arguments) and the legacy function_call.
case(
    "openai custom tool call beside a function call",
    "openai",
    [
        call("get_weather", {"city": "Paris"}, "call_1"),
        call("run_sql", {}, "call_2", "SELECT * FROM t WHERE a = '{'"),
    ],
    input=oa(
        [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "call_2",
                "type": "custom",
                "custom": {"name": "run_sql", "input": "SELECT * FROM t WHERE a = '{'"},
            },
        ]
    ),
    russo=[call("get_weather", {"city": "Paris"})],
)
case(
    "openai custom tool call with empty input",
    "openai",
    [call("g", {}, "c", "")],
    input=oa([{"id": "c", "type": "custom", "custom": {"name": "g", "input": ""}}]),
    russo=[],
)
case(
    "openai legacy function_call",
    "openai",
    [call("get_weather", {"city": "Paris"})],
    input={
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "function_call": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                "finish_reason": "function_call",
            }
        ],
    },
    russo=[],
)

case(
    "openai two calls two choices",
    "openai",
    [call("a", {"x": 1}, "c1"), call("b", {}, "c2"), call("c", {"y": [1, 2]}, "c3")],
    input=oa([fn("a", '{"x":1}', "c1"), fn("b", "{}", "c2")], [fn("c", '{"y":[1,2]}', "c3")]),
)
case(
    "openai arguments already an object",
    "openai",
    [call("f", {"a": {"b": None}}, "call_1")],
    input=oa([fn("f", {"a": {"b": None}})]),
)
case("openai arguments missing", "openai", [call("f", {}, "call_1")], input=oa([fn("f", ...)]))
case("openai arguments null", "openai", [call("f", {}, "call_1")], input=oa([fn("f", None)]))
case(
    "openai arguments empty string",
    "openai",
    [call("f", {}, "call_1", "")],
    input=oa([fn("f", "")]),
)
case(
    "openai arguments truncated JSON",
    "openai",
    [call("f", {}, "call_1", '{"city": "Par')],
    input=oa([fn("f", '{"city": "Par')]),
)
case(
    "openai arguments a JSON array",
    "openai",
    [call("f", {}, "call_1", "[1, 2]")],
    input=oa([fn("f", "[1, 2]")]),
    russo="raises",
)
case(
    "openai arguments a JSON string",
    "openai",
    [call("f", {}, "call_1", '"x"')],
    input=oa([fn("f", '"x"')]),
    russo="raises",
)
case("openai arguments a number", "openai", [call("f", {}, "call_1", "5")], input=oa([fn("f", 5)]))
case(
    "openai arguments a list",
    "openai",
    [call("f", {}, "call_1", '[1,"a",true,null]')],
    input=oa([fn("f", [1, "a", True, None])]),
)
case(
    "openai arguments NaN text",
    "openai",
    [call("f", {}, "call_1", '{"a": NaN}')],
    input=oa([fn("f", '{"a": NaN}')]),
    russo="differs",
)
case(
    "openai arguments with trailing data",
    "openai",
    [call("f", {}, "call_1", '{"a": 1} x')],
    input=oa([fn("f", '{"a": 1} x')]),
)
case(
    "openai arguments with an escaped lone surrogate",
    "openai",
    [call("f", {}, "call_1", '{"a": "\\ud800"}')],
    input=oa([fn("f", '{"a": "\\ud800"}')]),
    russo="differs",
)
case(
    "openai arguments unicode and escapes",
    "openai",
    [call("f", {"q": "naïve café 東京 🚀", "s": 'say "hi"\\n\n\t', "k": "\u0000"}, "call_1")],
    input=oa(
        [fn("f", json.dumps({"q": "naïve café 東京 🚀", "s": 'say "hi"\\n\n\t', "k": "\u0000"}))]
    ),
)
case(
    "openai arguments big integers and exact floats",
    "openai",
    [
        call(
            "f",
            {
                "big": BIG,
                "neg": -BIG,
                "u64": 18446744073709551615,
                "f": 0.1,
                "g": 1e-7,
                "h": 1.7976931348623157e308,
                "z": -0.0,
                "e": 1e22,
            },
            "call_1",
        )
    ],
    input=oa(
        [
            fn(
                "f",
                '{"big": %d, "neg": -%d, "u64": 18446744073709551615, "f": 0.1, "g": 1e-7, "h": 1.7976931348623157e308, "z": -0.0, "e": 1e22}'
                % (BIG, BIG),
            )
        ]
    ),
)
case(
    "openai arguments duplicate keys: last wins",
    "openai",
    [call("f", {"a": 2, "b": 1}, "call_1")],
    input=oa([fn("f", '{"a": 1, "b": 1, "a": 2}')]),
)
case(
    "openai arguments nested",
    "openai",
    [call("f", {"a": [{"b": [[], {}, [1, [2, [3]]]]}], "t": True, "n": None}, "call_1")],
    input=oa([fn("f", '{"a": [{"b": [[], {}, [1, [2, [3]]]]}], "t": true, "n": null}')]),
)
case("openai no tool_calls", "openai", [], input=oa(None))
case(
    "openai tool_calls null",
    "openai",
    [],
    input=oa([]) | {"choices": [{"message": {"content": "hi", "tool_calls": None}}]},
)
case("openai message null", "openai", [], input={"choices": [{"message": None}]})
case("openai choices missing", "openai", [], input={"id": "x"})
case("openai choices not a list", "openai", [], input={"choices": "abc"})
case("openai choices an object", "openai", [], input={"choices": {"message": {}}})
case(
    "openai function missing or null is skipped",
    "openai",
    [call("g", {}, "c2")],
    input=oa(
        [{"id": "c1", "type": "function"}, {"id": "c0", "function": None}, fn("g", "{}", "c2")]
    ),
)
case(
    "openai custom tool call: its input text is kept",
    "openai",
    [call("x", {}, "c1", "y")],
    input=oa([{"id": "c1", "type": "custom", "custom": {"name": "x", "input": "y"}}]),
    russo=[],
)
case(
    "openai name missing",
    "openai",
    [call("", {}, "call_1")],
    input=oa([{"id": "call_1", "function": {"arguments": "{}"}}]),
)
case(
    "openai name null",
    "openai",
    [call("", {}, "call_1")],
    input=oa([{"id": "call_1", "function": {"name": None, "arguments": "{}"}}]),
    russo="raises",
)
case(
    "openai name a number",
    "openai",
    [call("", {}, "call_1")],
    input=oa([{"id": "call_1", "function": {"name": 7, "arguments": "{}"}}]),
    russo="raises",
)
case("openai id not a string", "openai", [call("f", {}, None)], input=oa([fn("f", "{}", 12)]))
case(
    "openai function a string",
    "openai",
    [call("", {}, "call_1")],
    input=oa([{"id": "call_1", "function": "f"}]),
)
case("openai top level a list", "openai", [], input=[oa([fn("f", "{}")])])
case("openai top level a JSON string", "openai", [], text='"hello"')
case("openai top level null", "openai", [], input=None)
case(
    "openai duplicate choices key: last wins",
    "openai",
    [call("second", {}, "c2")],
    text='{"choices": [{"message": {"tool_calls": [{"id": "c1", "function": {"name": "first"}}]}}], '
    '"choices": [{"message": {"tool_calls": [{"id": "c2", "function": {"name": "second"}}]}}]}',
)
case(
    "openai duplicate name key: last wins",
    "openai",
    [call("b", {}, None)],
    text='{"choices": [{"message": {"tool_calls": [{"function": {"name": "a", "name": "b"}}]}}]}',
)
case(
    "openai whitespace around the document",
    "openai",
    [call("f", {}, None)],
    text=' \n\t{"choices": [{"message": {"tool_calls": [{"function": {"name": "f"}}]}}]}\r\n ',
)
case(
    "openai escaped key names",
    "openai",
    [call("f", {"k": 1}, None)],
    text='{"\\u0063hoices": [{"message": {"tool_calls": [{"function": {"name": "\\u0066", "arguments": "{\\"k\\": 1}"}}]}}]}',
)

# --- Gemini ---
case(
    "gemini function_call",
    "gemini",
    [call("get_weather", {"city": "Paris"})],
    input=gm([{"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}]),
    auto=True,
)
case(
    "gemini REST functionCall with id",
    "gemini",
    [call("f", {"a": 1}, "fc-1")],
    input=gm(
        [{"text": "let me check"}, {"functionCall": {"name": "f", "args": {"a": 1}, "id": "fc-1"}}]
    ),
    russo=[],
)
case(
    "gemini several candidates and parts",
    "gemini",
    [call("a", {}), call("b", {"x": [1]}), call("c", {"y": "z"})],
    input=gm(
        [{"function_call": {"name": "a"}}, {"function_call": {"name": "b", "args": {"x": [1]}}}],
        [{"text": "t"}, {"function_call": {"name": "c", "args": {"y": "z"}}}],
    ),
)
case("gemini text only", "gemini", [], input=gm([{"text": "hello"}]))
case(
    "gemini args missing or null",
    "gemini",
    [call("a", {}), call("b", {})],
    input=gm([{"function_call": {"name": "a"}}, {"function_call": {"name": "b", "args": None}}]),
)
case(
    "gemini args a JSON string",
    "gemini",
    [call("a", {"k": [1, 2]})],
    input=gm([{"function_call": {"name": "a", "args": '{"k": [1, 2]}'}}]),
)
case(
    "gemini args an invalid JSON string",
    "gemini",
    [call("a", {}, None, "{k: 1}")],
    input=gm([{"function_call": {"name": "a", "args": "{k: 1}"}}]),
    russo="raises",
)
case(
    "gemini args a list",
    "gemini",
    [call("a", {}, None, '["x",1]')],
    input=gm([{"function_call": {"name": "a", "args": ["x", 1]}}]),
    russo="raises",
)
case(
    "gemini args big integer",
    "gemini",
    [call("a", {"n": BIG})],
    input=gm([{"function_call": {"name": "a", "args": {"n": BIG}}}]),
)
case(
    "gemini function_call wins over functionCall",
    "gemini",
    [call("snake", {})],
    input=gm([{"function_call": {"name": "snake"}, "functionCall": {"name": "camel"}}]),
)
case(
    "gemini function_call null falls back to functionCall",
    "gemini",
    [call("camel", {})],
    input=gm([{"function_call": None, "functionCall": {"name": "camel"}}]),
    russo=[],
)
case("gemini content missing", "gemini", [], input={"candidates": [{"finishReason": "SAFETY"}]})
case("gemini candidates missing", "gemini", [], input={"promptFeedback": {"blockReason": "SAFETY"}})
# A prompt blocked: no candidates (google-genai `GenerateContentResponse`), detected by
# its promptFeedback with the response's other members.
BLOCKED = {
    "promptFeedback": {"blockReason": "SAFETY"},
    "usageMetadata": {"promptTokenCount": 8, "totalTokenCount": 8},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "mK3vaJ2QEoGm1dkP8rWv4Ak",
}
case("gemini prompt blocked (REST)", "gemini", [], input=BLOCKED, auto=True)
case(
    "gemini prompt blocked (an SDK object's model_dump(mode='json'))",
    "gemini",
    [],
    input={
        "sdk_http_response": None,
        "candidates": None,
        "create_time": None,
        "model_version": "gemini-2.5-flash",
        "prompt_feedback": {
            "block_reason": "SAFETY",
            "block_reason_message": None,
            "safety_ratings": None,
        },
        "response_id": "mK3vaJ2QEoGm1dkP8rWv4Ak",
        "usage_metadata": {"prompt_token_count": 8, "total_token_count": 8},
        "model_status": None,
        "automatic_function_calling_history": None,
        "parsed": None,
    },
    russo="raises",
    auto=True,
)
case(
    "gemini prompt blocked, usageMetadata only",
    "gemini",
    [],
    input={"promptFeedback": {"blockReason": "OTHER"}, "usageMetadata": {"promptTokenCount": 3}},
    auto=True,
)
# A Live API session's server message (google-genai `LiveServerMessage`): the calls of
# `toolCall.functionCalls` (the Live API reference's BidiGenerateContentToolCall; the
# SDK's `tool_call.function_calls`); other messages hold none.
LIGHTS = {"id": "function-call-8402", "name": "turn_on_the_lights", "args": {}}
WEATHER_LIVE = {"id": "function-call-8403", "name": "get_weather", "args": {"city": "Paris"}}
case(
    "gemini Live API toolCall message (REST)",
    "gemini",
    [
        call("turn_on_the_lights", {}, "function-call-8402"),
        call("get_weather", {"city": "Paris"}, "function-call-8403"),
    ],
    input={"toolCall": {"functionCalls": [LIGHTS, WEATHER_LIVE]}},
    russo=[],
    auto=True,
)
case(
    "gemini Live API tool_call message (an SDK object's model_dump(mode='json'))",
    "gemini",
    [call("get_weather", {"city": "Paris"}, "function-call-8403")],
    input={
        "setup_complete": None,
        "server_content": None,
        "tool_call": {"function_calls": [WEATHER_LIVE]},
        "tool_call_cancellation": None,
        "usage_metadata": None,
        "go_away": None,
        "session_resumption_update": None,
    },
    russo=[],
    auto=True,
)
case(
    "gemini Live API message without calls",
    "gemini",
    [],
    input={"serverContent": {"modelTurn": {"parts": [{"text": "Hello"}]}, "turnComplete": True}},
)
case(
    "gemini Live API toolCallCancellation: no calls",
    "gemini",
    [],
    input={"toolCallCancellation": {"ids": ["function-call-8402"]}},
)
case(
    "gemini Live API a call not an object",
    "gemini",
    [call("", {}, None)],
    input={"toolCall": {"functionCalls": [7]}},
    russo=[],
)
case(
    "gemini Live API tool_call wins over toolCall (its function_calls not a list)",
    "gemini",
    [],
    input={"tool_call": {"function_calls": {"a": 1}}, "toolCall": {"functionCalls": [LIGHTS]}},
)
case(
    "gemini name missing",
    "gemini",
    [call("", {"a": 1})],
    input=gm([{"function_call": {"args": {"a": 1}}}]),
)
case(
    "gemini id not a string",
    "gemini",
    [call("f", {}, None)],
    input=gm([{"functionCall": {"name": "f", "id": 3}}]),
    russo=[],
)
case(
    "gemini parts not a list",
    "gemini",
    [],
    input={"candidates": [{"content": {"parts": {"text": "x"}}}]},
)

# --- custom JSON ---
case(
    "json default keys",
    "json",
    [call("f", {"a": 1}), call("g", {})],
    input={"tool_calls": [{"name": "f", "arguments": {"a": 1}}, {"name": "g"}]},
)
case(
    "json nested path and custom keys",
    "json",
    [call("lookup", {"q": "x"})],
    options={"tool_calls_key": "result.calls", "name_key": "fn", "arguments_key": "params"},
    input={"result": {"calls": [{"fn": "lookup", "params": {"q": "x"}}]}},
)
case(
    "json single",
    "json",
    [call("f", {"a": 1}, "t1")],
    options={"tool_calls_key": "toolCall", "single": True},
    input={"toolCall": {"name": "f", "arguments": {"a": 1}, "id": "t1"}},
)
case(
    "json single null",
    "json",
    [],
    options={"tool_calls_key": "toolCall", "single": True},
    input={"toolCall": None},
)
case(
    "json list input: first item with calls wins",
    "json",
    [call("second", {})],
    input=[
        {"type": "ping"},
        {"tool_calls": []},
        {"tool_calls": [{"name": ""}]},
        {"tool_calls": [{"name": "second"}]},
        {"tool_calls": [{"name": "third"}]},
    ],
)
case("json list input without calls", "json", [], input=[{"a": 1}, 2, "x", None])
case("json nested lists are not searched", "json", [], input=[[{"tool_calls": [{"name": "f"}]}]])
case(
    "json entries without a name are skipped",
    "json",
    [call("ok", {})],
    input={
        "tool_calls": [
            {"arguments": {}},
            {"name": ""},
            {"name": None},
            "x",
            3,
            None,
            {"name": "ok"},
        ]
    },
)
case(
    "json name not a string is skipped",
    "json",
    [call("ok", {})],
    input={"tool_calls": [{"name": 5}, {"name": ["x"]}, {"name": "ok"}]},
    russo="raises",
)
case(
    "json arguments a JSON string",
    "json",
    [call("f", {"a": [1, {"b": 2}]})],
    input={"tool_calls": [{"name": "f", "arguments": '{"a": [1, {"b": 2}]}'}]},
)
case(
    "json arguments an invalid string",
    "json",
    [call("f", {}, None, "{nope")],
    input={"tool_calls": [{"name": "f", "arguments": "{nope"}]},
)
case(
    "json arguments not an object",
    "json",
    [call("f", {}, None, "[1]"), call("g", {}, None, "true")],
    input={"tool_calls": [{"name": "f", "arguments": [1]}, {"name": "g", "arguments": True}]},
)
case("json path missing", "json", [], input={"other": []})
case(
    "json path through a non-object",
    "json",
    [],
    options={"tool_calls_key": "a.b"},
    input={"a": [1]},
)
case("json calls not a list", "json", [], input={"tool_calls": {"name": "f"}})
case("json top level a number", "json", [], input=5)

# --- text that is not JSON ---
for name, text in [
    ("empty text", ""),
    ("only whitespace", "  \n"),
    ("truncated document", '{"choices": [{"message": '),
    ("trailing comma", '{"choices": [1,]}'),
    ("NaN", '{"choices": NaN}'),
    ("trailing data", '{"choices": []} {}'),
    ("single quotes", "{'choices': []}"),
    ("unescaped control character", '{"a": "x\ty"}'),
    ("lone surrogate escape", '{"a": "\\udc00"}'),
    ("nesting deeper than 1024", "[" * 1025 + "]" * 1025),
    ("100000 open brackets", "[" * 100_000),
]:
    for parser in ("openai", "gemini", "json"):
        case(f"{parser} invalid: {name}", parser, text=text, error=True)
case("openai nesting of exactly 1024 is fine", "openai", [], text="[" * 1024 + "]" * 1024)

# One vector file per format of the registry (tests/vectors/<format>.json).
for parser in ("openai", "gemini", "json"):
    mine = [c for c in cases if c["parser"] == parser]
    Path(__file__).with_name(f"{parser}.json").write_text(
        json.dumps(mine, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
    )
    print(len(mine), parser, "cases")
