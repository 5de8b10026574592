"""Writes the vectors of the second-wave provider formats: `<format>.json` (responses:
the same schema as parsers.json) and `<format>.batch.json` (batch output lines).

Run it after editing the cases below; pytest and `cargo test` read the JSON files.

`<format>.json`: a list of `{"name", "parser": FORMAT, "input": <the response>, "calls":
[{"name", "arguments", "id", "raw_arguments"}]}`; `"sdk": false` marks an input the
provider's SDK model refuses to validate (malformed on purpose), so the SDK-object tests
skip it (every other input must validate).

`<format>.batch.json`: a list of `{"name", "parser": FORMAT, "input": <one line of batch
output>, "envelope": bool}`; with `"envelope": true` also `"custom_id"`, `"error"` (the
record's error, or null) and `"calls"`, the calls of the unwrapped response walked by the
format `"walk"` (the `parser` when absent: Bedrock batch output of Claude models holds
Anthropic Messages bodies). `"envelope": false` says `unwrap_batch` leaves the line alone.

The realistic responses follow the shapes of the providers' API references and SDK types
(openai-python `types/responses`, anthropic-sdk-python `types/message.py` and
`types/messages/message_batch_*`, cohere-python `v2/types/v2chat_response.py` and
`types/non_streamed_chat_response.py`, google-genai `interactions.Interaction`, ollama-python `_types.py` / Ollama `docs/api.md`,
the Bedrock Converse API reference and batch inference guide); ids and texts are made up
in the same style.
"""

import json
from pathlib import Path

BIG = 123456789012345678901234567890
NEG_BIG = -98765432109876543210987654321


def call(name, arguments=None, id=None, raw=None):
    return {"name": name, "arguments": arguments or {}, "id": id, "raw_arguments": raw}


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


files = {}


def case(fmt, name, calls, input, sdk=True):
    c = {"name": f"{fmt} {name}", "parser": fmt, "input": input, "calls": calls}
    if not sdk:
        c["sdk"] = False
    files.setdefault(fmt, []).append(c)


batches = {}


def batch(fmt, name, input, envelope=True, custom_id=None, error=None, calls=(), walk=None):
    c = {"name": f"{fmt} batch {name}", "parser": fmt, "input": input, "envelope": envelope}
    if envelope:
        c["custom_id"] = custom_id
        c["error"] = error
        c["calls"] = list(calls)
        if walk is not None:
            c["walk"] = walk
    batches.setdefault(fmt, []).append(c)


# --- OpenAI Responses ----------------------------------------------------------------
OR = "openai-responses"
WEATHER_TOOL = {
    "type": "function",
    "name": "get_weather",
    "description": "Get current temperature for a given location.",
    "parameters": {
        "type": "object",
        "properties": {"location": {"type": "string", "description": "City and country"}},
        "required": ["location"],
        "additionalProperties": False,
    },
    "strict": True,
}


def resp(*output, tools=(), status="completed"):
    return {
        "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
        "object": "response",
        "created_at": 1741476542,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "model": "gpt-4.1-2025-04-14",
        "output": list(output),
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": None, "summary": None},
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": list(tools),
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": 291,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 23,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 314,
        },
        "user": None,
        "metadata": {},
    }


def fc(name, arguments, call_id="call_1", id="fc_1"):
    item = {"type": "function_call", "id": id, "call_id": call_id, "name": name}
    if arguments is not ...:
        item["arguments"] = arguments
    item["status"] = "completed"
    return item


def ctc(name, input, call_id="call_custom_1", id="ctc_1"):
    item = {"type": "custom_tool_call", "id": id, "call_id": call_id, "name": name}
    if input is not ...:
        item["input"] = input
    return item


def out_message(text):
    return {
        "type": "message",
        "id": "msg_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


REASONING = {"type": "reasoning", "id": "rs_6820f383d7c08191846711c5df8233bc", "summary": []}
WEB_SEARCH = {
    "type": "web_search_call",
    "id": "ws_67ccf18f64008190a39b619f4c8455ef087bb177ab789d5c",
    "status": "completed",
    "action": {"type": "search", "query": "positive news today"},
}
FILE_SEARCH = {
    "type": "file_search_call",
    "id": "fs_67c09ccea8c48191ade9367e3ba71515",
    "status": "completed",
    "queries": ["What is deep research?"],
    "results": None,
}
CODE_INTERPRETER = {
    "type": "code_interpreter_call",
    "id": "ci_6841d8d8d9d08191acfc1a4e57d4a8b30e0c6b3b8f1f1ad5",
    "status": "completed",
    "code": "print(4 * 3.82)",
    "container_id": "cntr_6841d8d7f2f481908b7f8c5d3a0e0c7c",
    "outputs": None,
}
MCP_CALL = {
    "type": "mcp_call",
    "id": "mcp_682d437d90a88191bf88cd03aae0c3e503937d5f622d7a90",
    "server_label": "deepwiki",
    "name": "ask_question",
    "arguments": '{"repoName":"modelcontextprotocol/modelcontextprotocol","question":"What transport protocols does the 2025-03-26 version of the MCP spec support?"}',
    "output": "The 2025-03-26 version of the MCP spec supports stdio and Streamable HTTP.",
    "error": None,
}
MCP_LIST = {
    "type": "mcp_list_tools",
    "id": "mcpl_682d4379df088191886b70f4ec39f90403937d5f622d7a90",
    "server_label": "deepwiki",
    "tools": [
        {"name": "ask_question", "input_schema": {"type": "object"}, "annotations": None},
    ],
    "error": None,
}
COMPUTER_CALL = {
    "type": "computer_call",
    "id": "cu_67cc10df2cbc819085f88e1d9c5b1e12",
    "call_id": "call_zw3IHnqVmGmXIZCC3kM1EGHz",
    "action": {"type": "click", "button": "left", "x": 156, "y": 50},
    "pending_safety_checks": [],
    "status": "completed",
}
IMAGE_GENERATION = {
    "type": "image_generation_call",
    "id": "ig_123",
    "status": "completed",
    "result": "iVBORw0KGgo=",
}

case(
    OR,
    "one function call (the API reference's example)",
    [call("get_weather", {"location": "Paris, France"}, "call_12345xyz")],
    resp(
        fc("get_weather", '{"location":"Paris, France"}', "call_12345xyz", "fc_12345xyz"),
        tools=[WEATHER_TOOL],
    ),
)
case(
    OR,
    "parallel function calls",
    [
        call("get_weather", {"location": "Paris, France"}, "call_1"),
        call("get_weather", {"location": "Bogotá, Colombia"}, "call_2"),
        call("send_email", {"to": "bob@email.com", "body": "Hi bob"}, "call_3"),
    ],
    resp(
        fc("get_weather", '{"location":"Paris, France"}', "call_1", "fc_1"),
        fc("get_weather", '{"location":"Bogotá, Colombia"}', "call_2", "fc_2"),
        fc("send_email", '{"to":"bob@email.com","body":"Hi bob"}', "call_3", "fc_3"),
        tools=[WEATHER_TOOL],
    ),
)
case(
    OR,
    "reasoning item then a call",
    [call("get_weather", {"location": "Oslo"}, "call_r")],
    resp(REASONING, fc("get_weather", '{"location": "Oslo"}', "call_r", "fc_r")),
)
case(
    OR,
    "id is call_id, not the item id",
    [call("f", {}, "call_abc")],
    resp(fc("f", "{}", "call_abc", "fc_not_this")),
)
case(
    OR,
    "call without an item id",
    [call("f", {"a": 1}, "call_1")],
    resp(fc("f", '{"a":1}', "call_1", None)),
)
case(OR, "empty arguments string", [call("f", {}, "call_1", "")], resp(fc("f", "")))
case(OR, "arguments {}", [call("f", {}, "call_1")], resp(fc("f", "{}")))
case(OR, "arguments missing", [call("f", {}, "call_1")], resp(fc("f", ...)), sdk=False)
case(OR, "arguments null", [call("f", {}, "call_1")], resp(fc("f", None)), sdk=False)
case(
    OR,
    "arguments already an object",
    [call("f", {"a": {"b": None}}, "call_1")],
    resp(fc("f", {"a": {"b": None}})),
    sdk=False,
)
case(OR, "arguments a JSON array", [call("f", {}, "call_1", "[1, 2]")], resp(fc("f", "[1, 2]")))
case(OR, "arguments truncated", [call("f", {}, "call_1", '{"a": ')], resp(fc("f", '{"a": ')))
case(
    OR,
    "arguments a number (not a string)",
    [call("f", {}, "call_1", "42")],
    resp(fc("f", 42)),
    sdk=False,
)
case(
    OR,
    "arguments a list (not a string)",
    [call("f", {}, "call_1", '[1,"é",null]')],
    resp(fc("f", [1, "é", None])),
    sdk=False,
)
case(
    OR,
    "unicode",
    [call("météo_☀", {"ville": "Zürich", "emoji": "🌧️", "cjk": "東京", "sep": "\u2028"}, "call_ü")],
    resp(
        fc(
            "météo_☀",
            '{"ville": "Z\\u00fcrich", "emoji": "🌧️", "cjk": "東京", "sep": "\\u2028"}',
            "call_ü",
        )
    ),
)
case(
    OR,
    "big integers in the arguments string",
    [call("f", {"n": BIG, "m": NEG_BIG, "x": 1.5}, "call_1")],
    resp(fc("f", '{"n": %d, "m": %d, "x": 1.5}' % (BIG, NEG_BIG))),
)
case(
    OR,
    "big integers in inline arguments",
    [call("f", {"n": BIG}, "call_1")],
    resp(fc("f", {"n": BIG})),
    sdk=False,
)
case(
    OR,
    "custom tool call: input kept as text",
    [call("code_exec", {}, "call_custom_1", 'print("hello world")')],
    resp(ctc("code_exec", 'print("hello world")')),
)
case(
    OR,
    "custom tool call: input that is JSON text is still text",
    [call("grammar_tool", {}, "call_custom_1", '{"a": 1}')],
    resp(ctc("grammar_tool", '{"a": 1}')),
)
case(
    OR,
    "custom tool call: empty input",
    [call("t", {}, "call_custom_1", "")],
    resp(ctc("t", "")),
)
case(
    OR,
    "custom tool call: input missing",
    [call("t", {}, "call_custom_1")],
    resp(ctc("t", ...)),
    sdk=False,
)
case(
    OR,
    "custom tool call: input an object (read as arguments)",
    [call("t", {"a": 1}, "call_custom_1")],
    resp(ctc("t", {"a": 1})),
    sdk=False,
)
case(
    OR,
    "built-in tool items (server-run and computer_call) give no calls, mixed with function calls",
    [
        call("get_weather", {"location": "Rome"}, "call_w"),
        call("apply_diff", {}, "call_c", "*** Begin Patch\n*** End Patch"),
    ],
    resp(
        REASONING,
        WEB_SEARCH,
        FILE_SEARCH,
        CODE_INTERPRETER,
        MCP_LIST,
        MCP_CALL,
        IMAGE_GENERATION,
        COMPUTER_CALL,
        fc("get_weather", '{"location":"Rome"}', "call_w", "fc_w"),
        ctc("apply_diff", "*** Begin Patch\n*** End Patch", "call_c", "ctc_c"),
        out_message("Checking the weather."),
    ),
)
case(OR, "only server-side tools", [], resp(WEB_SEARCH, out_message("Here is some positive news.")))
case(OR, "a text answer, no calls", [], resp(out_message("Hello! How can I help?")))
case(OR, "empty output", [], resp(status="in_progress"))
case(
    OR,
    "unknown item types and odd items are skipped",
    [call("f", {}, "c")],
    resp(
        {
            "type": "function_call_output",
            "id": "fco_1",
            "call_id": "c0",
            "output": "{}",
            "status": "completed",
        },
        fc("f", "{}", "c", "fc"),
    ),
)
case(
    OR,
    "a null name and a missing call_id",
    [call("", {"a": 1}, None)],
    {
        "object": "response",
        "output": [{"type": "function_call", "name": None, "arguments": '{"a":1}'}],
    },
    sdk=False,
)

# --- Anthropic -------------------------------------------------------------------------
AN = "anthropic"


def msg(*content, stop_reason="tool_use", model="claude-sonnet-4-5-20250929"):
    return {
        "id": "msg_01Aq9w938a90dw8q",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 472,
            "output_tokens": 89,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        },
    }


def tu(name, input, id="toolu_01A09q90qw90lq917835lq9"):
    block = {"type": "tool_use", "id": id, "name": name}
    if input is not ...:
        block["input"] = input
    return block


def text(t):
    return {"type": "text", "text": t}


THINKING = {
    "type": "thinking",
    "thinking": "The user wants the weather; I should call get_weather.",
    "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds",
}
SERVER_TOOL_USE = {
    "type": "server_tool_use",
    "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
    "name": "web_search",
    "input": {"query": "claude shannon birth date"},
}
WEB_SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE",
    "content": [
        {
            "type": "web_search_result",
            "url": "https://en.wikipedia.org/wiki/Claude_Shannon",
            "title": "Claude Shannon - Wikipedia",
            "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y",
            "page_age": "April 30, 2025",
        }
    ],
}
CODE_EXECUTION_USE = {
    "type": "server_tool_use",
    "id": "srvtoolu_01A2B3C4D5E6F7G8H9",
    "name": "code_execution",
    "input": {"code": "import numpy as np\nprint(np.mean([1, 2, 3]))"},
}
MCP_TOOL_USE = {
    "type": "mcp_tool_use",
    "id": "mcptoolu_014Q35RayjACSWkSj4X2yov1",
    "name": "echo",
    "server_name": "example-mcp",
    "input": {"param1": "value1"},
}

case(
    AN,
    "one tool_use (the tool use guide's example)",
    [
        call(
            "get_weather",
            {"location": "San Francisco, CA", "unit": "celsius"},
            "toolu_01A09q90qw90lq917835lq9",
        )
    ],
    msg(
        text("I'll check the current weather in San Francisco for you."),
        tu("get_weather", {"location": "San Francisco, CA", "unit": "celsius"}),
    ),
)
case(
    AN,
    "parallel tool_use blocks",
    [
        call("get_weather", {"location": "San Francisco, CA"}, "toolu_01"),
        call("get_time", {"timezone": "America/Los_Angeles"}, "toolu_02"),
    ],
    msg(
        text("I'll check both."),
        tu("get_weather", {"location": "San Francisco, CA"}, "toolu_01"),
        tu("get_time", {"timezone": "America/Los_Angeles"}, "toolu_02"),
    ),
)
case(
    AN,
    "extended thinking then a tool_use",
    [call("get_weather", {"location": "Paris"}, "toolu_t")],
    msg(THINKING, tu("get_weather", {"location": "Paris"}, "toolu_t")),
)
case(AN, "empty input", [call("get_time", {}, "toolu_1")], msg(tu("get_time", {}, "toolu_1")))
case(
    AN,
    "input missing",
    [call("get_time", {}, "toolu_1")],
    msg(tu("get_time", ..., "toolu_1")),
    sdk=False,
)
case(
    AN,
    "input null",
    [call("get_time", {}, "toolu_1")],
    msg(tu("get_time", None, "toolu_1")),
    sdk=False,
)
case(
    AN,
    "input a JSON string (decoded as OpenAI's)",
    [call("f", {"a": 1}, "toolu_1")],
    msg(tu("f", '{"a": 1}', "toolu_1")),
    sdk=False,
)
case(
    AN,
    "input an undecodable string",
    [call("f", {}, "toolu_1", "not json")],
    msg(tu("f", "not json", "toolu_1")),
    sdk=False,
)
case(
    AN,
    "input a list",
    [call("f", {}, "toolu_1", '[1,{"a":"ü"}]')],
    msg(tu("f", [1, {"a": "ü"}], "toolu_1")),
    sdk=False,
)
case(
    AN,
    "input a number",
    [call("f", {}, "toolu_1", "3.25")],
    msg(tu("f", 3.25, "toolu_1")),
    sdk=False,
)
case(AN, "input true", [call("f", {}, "toolu_1", "true")], msg(tu("f", True, "toolu_1")), sdk=False)
case(
    AN,
    "unicode",
    [call("天気", {"都市": "東京", "note": "naïve café 🚀", "ctl": "tab\there"}, "toolu_ü")],
    msg(tu("天気", {"都市": "東京", "note": "naïve café 🚀", "ctl": "tab\there"}, "toolu_ü")),
)
case(
    AN,
    "big integers, exact",
    [call("f", {"n": BIG, "list": [NEG_BIG, 1, 2.5]}, "toolu_1")],
    msg(tu("f", {"n": BIG, "list": [NEG_BIG, 1, 2.5]}, "toolu_1")),
)
case(
    AN,
    "nested input",
    [
        call(
            "create_event",
            {"event": {"title": "Sync", "attendees": ["a@x.io", "b@x.io"], "at": None}},
            "toolu_1",
        )
    ],
    msg(
        tu(
            "create_event",
            {"event": {"title": "Sync", "attendees": ["a@x.io", "b@x.io"], "at": None}},
            "toolu_1",
        )
    ),
)
case(
    AN,
    "MCP connector (beta mcp_tool_use) and server tools mixed with a client call",
    [call("save_note", {"text": "Shannon was born on April 30, 1916."}, "toolu_save")],
    msg(
        text("Let me search for that."),
        SERVER_TOOL_USE,
        WEB_SEARCH_RESULT,
        CODE_EXECUTION_USE,
        MCP_TOOL_USE,
        text("Claude Shannon was born on April 30, 1916."),
        tu("save_note", {"text": "Shannon was born on April 30, 1916."}, "toolu_save"),
    ),
    sdk=False,  # mcp_tool_use is a beta block: the non-beta Message refuses it
)
case(
    AN,
    "server tools (web search, code execution) mixed with client calls",
    [
        call("save_note", {"text": "Shannon was born on April 30, 1916."}, "toolu_save"),
        call("notify", {"channel": "#general"}, "toolu_notify"),
    ],
    msg(
        text("Let me search for that."),
        SERVER_TOOL_USE,
        WEB_SEARCH_RESULT,
        CODE_EXECUTION_USE,
        text("Claude Shannon was born on April 30, 1916."),
        tu("save_note", {"text": "Shannon was born on April 30, 1916."}, "toolu_save"),
        tu("notify", {"channel": "#general"}, "toolu_notify"),
    ),
)
case(
    AN,
    "server tools only",
    [],
    msg(text("Let me search."), SERVER_TOOL_USE, WEB_SEARCH_RESULT, stop_reason="end_turn"),
)
case(AN, "a text answer, no calls", [], msg(text("Hello! How can I help?"), stop_reason="end_turn"))
case(AN, "empty content", [], msg(stop_reason="end_turn"))
case(
    AN,
    "programmatic tool calling: a tool_use with a caller is still the client's call",
    [call("query_db", {"sql": "SELECT 1"}, "toolu_p")],
    msg(
        {
            **tu("query_db", {"sql": "SELECT 1"}, "toolu_p"),
            "caller": {"type": "code_execution_20250825", "tool_id": "srvtoolu_abc"},
        }
    ),
)
case(
    AN,
    "a block without a type is skipped; a tool_use without a name or id",
    [call("", {"a": 1}, None)],
    {
        "type": "message",
        "role": "assistant",
        "content": [{"id": "x", "name": "f"}, {"type": "tool_use", "input": {"a": 1}}],
    },
    sdk=False,
)

# Message Batches results (`MessageBatchIndividualResponse`, one a line).
batch(
    AN,
    "succeeded",
    {
        "custom_id": "my-first-request",
        "result": {
            "type": "succeeded",
            "message": msg(tu("get_weather", {"location": "Paris"}, "toolu_b1")),
        },
    },
    custom_id="my-first-request",
    calls=[call("get_weather", {"location": "Paris"}, "toolu_b1")],
)
batch(
    AN,
    "succeeded without calls",
    {
        "custom_id": "r2",
        "result": {"type": "succeeded", "message": msg(text("Hi"), stop_reason="end_turn")},
    },
    custom_id="r2",
)
batch(
    AN,
    "errored (ErrorResponse nesting)",
    {
        "custom_id": "my-second-request",
        "result": {
            "type": "errored",
            "error": {
                "type": "error",
                "error": {
                    "type": "invalid_request_error",
                    "message": "Validation error: max_tokens: Field required",
                },
            },
        },
    },
    custom_id="my-second-request",
    error="batch error: invalid_request_error: Validation error: max_tokens: Field required",
)
batch(
    AN,
    "errored with a request_id",
    {
        "custom_id": "r3",
        "result": {
            "type": "errored",
            "error": {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
                "request_id": "req_011CSHoEeqs5C35K2UUqR7Fy",
            },
        },
    },
    custom_id="r3",
    error="batch error: overloaded_error: Overloaded",
)
batch(
    AN,
    "errored, flat error object",
    {
        "custom_id": "r4",
        "result": {
            "type": "errored",
            "error": {"type": "api_error", "message": "Internal server error"},
        },
    },
    custom_id="r4",
    error="batch error: api_error: Internal server error",
)
batch(
    AN,
    "errored, message without a type",
    {
        "custom_id": "r5",
        "result": {"type": "errored", "error": {"type": "error", "error": {"message": "boom"}}},
    },
    custom_id="r5",
    error="batch error: boom",
)
batch(
    AN,
    "errored, unreadable error",
    {"custom_id": "r6", "result": {"type": "errored", "error": {"code": 7}}},
    custom_id="r6",
    error='batch error: {"code":7}',
)
batch(
    AN,
    "errored, no error",
    {"custom_id": "r6b", "result": {"type": "errored"}},
    custom_id="r6b",
    error="batch error: null",
)
batch(
    AN,
    "canceled",
    {"custom_id": "r7", "result": {"type": "canceled"}},
    custom_id="r7",
    error="batch canceled",
)
batch(
    AN,
    "expired",
    {"custom_id": "r8", "result": {"type": "expired"}},
    custom_id="r8",
    error="batch expired",
)
batch(
    AN,
    "unknown result type",
    {"custom_id": "r9", "result": {"type": "paused"}},
    custom_id="r9",
    error='unknown batch result type: "paused"',
)
batch(
    AN,
    "result without a type",
    {"custom_id": "r9b", "result": {}},
    custom_id="r9b",
    error="unknown batch result type: null",
)
batch(
    AN,
    "result null",
    {"custom_id": "r10", "result": None},
    custom_id="r10",
    error="batch record has no response",
)
batch(
    AN,
    "succeeded without a message",
    {"custom_id": "r11", "result": {"type": "succeeded"}},
    custom_id="r11",
    error="batch record has no response",
)
batch(
    AN,
    "a custom_id that is not a string",
    {"custom_id": 12, "result": {"type": "canceled"}},
    custom_id=None,
    error="batch canceled",
)
batch(AN, "not an envelope: a Message", msg(text("x")), envelope=False)
batch(
    AN,
    "not an envelope: OpenAI batch output",
    {"custom_id": "r1", "response": {"status_code": 200, "body": {}}, "error": None},
    envelope=False,
)

# --- Bedrock Converse ------------------------------------------------------------------
BR = "bedrock"


def conv(*content, stop_reason="tool_use", metadata=False):
    doc = {
        "output": {"message": {"role": "assistant", "content": list(content)}},
        "stopReason": stop_reason,
        "usage": {"inputTokens": 375, "outputTokens": 64, "totalTokens": 439},
        "metrics": {"latencyMs": 1212},
    }
    if metadata:
        doc = {
            "ResponseMetadata": {
                "RequestId": "9a8b1c2d-3e4f-5a6b-7c8d-9e0f1a2b3c4d",
                "HTTPStatusCode": 200,
                "HTTPHeaders": {"content-type": "application/json", "content-length": "412"},
                "RetryAttempts": 0,
            },
            **doc,
        }
    return doc


def tool_use(name, input, id="tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", **extra):
    use = {"toolUseId": id, "name": name}
    if input is not ...:
        use["input"] = input
    use.update(extra)
    return {"toolUse": use}


case(
    BR,
    "one toolUse (the Converse tool use guide's example)",
    [call("top_song", {"sign": "WZPZ"}, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q")],
    conv(tool_use("top_song", {"sign": "WZPZ"}), metadata=True),
)
case(
    BR,
    "text then parallel toolUse blocks",
    [
        call("get_weather", {"city": "Seattle"}, "tooluse_1"),
        call("get_weather", {"city": "Austin"}, "tooluse_2"),
    ],
    conv(
        {"text": "I'll look up both cities."},
        tool_use("get_weather", {"city": "Seattle"}, "tooluse_1"),
        tool_use("get_weather", {"city": "Austin"}, "tooluse_2"),
    ),
)
case(
    BR,
    "reasoning content then a toolUse",
    [call("lookup", {"q": "x"}, "tooluse_r")],
    conv(
        {
            "reasoningContent": {
                "reasoningText": {"text": "I need to look this up.", "signature": "sig"}
            }
        },
        tool_use("lookup", {"q": "x"}, "tooluse_r"),
    ),
)
case(BR, "empty input", [call("now", {}, "tooluse_1")], conv(tool_use("now", {}, "tooluse_1")))
case(BR, "input missing", [call("now", {}, "tooluse_1")], conv(tool_use("now", ..., "tooluse_1")))
case(BR, "input null", [call("now", {}, "tooluse_1")], conv(tool_use("now", None, "tooluse_1")))
case(
    BR,
    "input a JSON string",
    [call("f", {"a": [1]}, "tooluse_1")],
    conv(tool_use("f", '{"a": [1]}', "tooluse_1")),
)
case(
    BR,
    "input a string, not JSON",
    [call("f", {}, "tooluse_1", "hello")],
    conv(tool_use("f", "hello", "tooluse_1")),
)
case(
    BR,
    "input a list",
    [call("f", {}, "tooluse_1", '["a",1]')],
    conv(tool_use("f", ["a", 1], "tooluse_1")),
)
case(BR, "input a number", [call("f", {}, "tooluse_1", "-7")], conv(tool_use("f", -7, "tooluse_1")))
case(
    BR,
    "unicode",
    [call("wetter", {"stadt": "Köln", "zeichen": "✓ ∑ 😀"}, "tooluse_ä")],
    conv(tool_use("wetter", {"stadt": "Köln", "zeichen": "✓ ∑ 😀"}, "tooluse_ä")),
)
case(
    BR,
    "big integers, exact",
    [call("f", {"n": BIG, "m": NEG_BIG}, "tooluse_1")],
    conv(tool_use("f", {"n": BIG, "m": NEG_BIG}, "tooluse_1")),
)
case(
    BR,
    "a server tool use gives no call, mixed with a client call",
    [call("get_weather", {"city": "Lima"}, "tooluse_c")],
    conv(
        tool_use("nova_grounding", {"query": "weather news"}, "tooluse_s", type="server_tool_use"),
        {
            "toolResult": {
                "toolUseId": "tooluse_s",
                "content": [{"text": "..."}],
                "status": "success",
            }
        },
        {"citationsContent": {"content": [{"text": "It rained."}], "citations": []}},
        tool_use("get_weather", {"city": "Lima"}, "tooluse_c"),
    ),
)
case(BR, "a text answer, no calls", [], conv({"text": "Hello there."}, stop_reason="end_turn"))
case(BR, "empty content", [], conv(stop_reason="end_turn"))
case(
    BR,
    "odd blocks: toolUse null, not an object, no name",
    [call("", {}, None, None), call("", {"x": 1}, "t")],
    conv({"toolUse": None}, {"toolUse": "x"}, {"toolUse": {"toolUseId": "t", "input": {"x": 1}}}),
)

# Batch inference output (`{"recordId", "modelInput", "modelOutput" | "error"}`).
CLAUDE_INPUT = {
    "anthropic_version": "bedrock-2023-05-31",
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}],
}
batch(
    BR,
    "Converse job",
    {
        "recordId": "CALL0000001",
        "modelInput": {"messages": [{"role": "user", "content": [{"text": "Top song on WZPZ?"}]}]},
        "modelOutput": conv(tool_use("top_song", {"sign": "WZPZ"}, "tooluse_b1")),
    },
    custom_id="CALL0000001",
    calls=[call("top_song", {"sign": "WZPZ"}, "tooluse_b1")],
)
batch(
    BR,
    "Claude InvokeModel job: an Anthropic Messages body",
    {
        "recordId": "CALL0000002",
        "modelInput": CLAUDE_INPUT,
        "modelOutput": msg(
            tu("get_weather", {"location": "Paris"}, "toolu_bdrk_01"),
            model="claude-3-5-sonnet-20240620",
        ),
    },
    custom_id="CALL0000002",
    calls=[call("get_weather", {"location": "Paris"}, "toolu_bdrk_01")],
    walk="anthropic",
)
batch(
    BR,
    "error (the batch inference guide's example)",
    {
        "recordId": "1223213ABCD",
        "modelInput": {"inputText": "Hello world"},
        "error": {"errorCode": 400, "errorMessage": "bad request"},
    },
    custom_id="1223213ABCD",
    error="batch error: 400: bad request",
)
batch(
    BR,
    "error with a string code",
    {
        "recordId": "R3",
        "modelInput": {},
        "error": {"errorCode": "ThrottlingException", "errorMessage": "slow down"},
    },
    custom_id="R3",
    error="batch error: ThrottlingException: slow down",
)
batch(
    BR,
    "error without a code",
    {"recordId": "R4", "modelInput": {}, "error": {"errorMessage": "failed"}},
    custom_id="R4",
    error="batch error: failed",
)
batch(
    BR,
    "error without a message",
    {"recordId": "R5", "modelInput": {}, "error": {"errorCode": 500}},
    custom_id="R5",
    error='batch error: {"errorCode":500}',
)
batch(
    BR,
    "error a string",
    {"recordId": "R6", "modelInput": {}, "error": "oops"},
    custom_id="R6",
    error="batch error: oops",
)
batch(
    BR,
    "error null, output present",
    {"recordId": "R7", "modelInput": {}, "modelOutput": conv({"text": "ok"}), "error": None},
    custom_id="R7",
)
batch(
    BR,
    "no recordId",
    {"modelInput": {}, "modelOutput": conv(tool_use("f", {}, "t1"))},
    custom_id=None,
    calls=[call("f", {}, "t1")],
)
batch(
    BR,
    "modelOutput null",
    {"recordId": "R8", "modelInput": {}, "modelOutput": None},
    custom_id="R8",
    error="batch record has no response",
)
batch(BR, "not an envelope: a Converse response", conv({"text": "x"}), envelope=False)
batch(BR, "not an envelope: recordId alone", {"recordId": "R9", "other": 1}, envelope=False)

# --- Gemini Interactions API ------------------------------------------------------------
# The `Interaction` resource (google-genai `interactions.Interaction`; ai.google.dev
# "Interactions API" and its May 2026 migration guide): `steps[]` with `type`
# discriminators; before May 2026, `outputs[]` with the same `function_call` items.
GI = "gemini-interactions"
GI_SIGNATURE = "CiQB0e2Kb3Rlc3Qtc2lnbmF0dXJlLWZvci10aG91Z2h0"


def interaction(*steps, status="requires_action", object=True, input_step=False):
    doc = {"id": "v1_ChdXS0l4YWZXTk9xbk0SF1dLSXhhZlhOT3FuTQ"}
    if object:
        doc["object"] = "interaction"
    doc |= {"model": "gemini-3-flash-preview", "status": status}
    echoed = [{"type": "user_input", "content": [{"type": "text", "text": "Weather in Paris?"}]}]
    doc["steps"] = [*(echoed if input_step else []), *steps]
    doc |= {
        "usage": {
            "total_input_tokens": 61,
            "total_output_tokens": 18,
            "total_thought_tokens": 44,
            "total_tokens": 123,
        },
        "created": "2026-08-05T01:58:29Z",
        "updated": "2026-08-05T01:58:31Z",
        "service_tier": "standard",
    }
    return doc


def gi_thought():
    return {"type": "thought", "signature": GI_SIGNATURE}


def gi_call(name, arguments, id="9kv2qaxp"):
    step = {"type": "function_call", "id": id, "name": name}
    if arguments is not ...:
        step["arguments"] = arguments
    return step


def gi_output(text):
    return {"type": "model_output", "content": [{"type": "text", "text": text}]}


case(
    GI,
    "one call (a thought, then the call)",
    [call("get_weather", {"location": "Paris, France"}, "9kv2qaxp")],
    interaction(gi_thought(), gi_call("get_weather", {"location": "Paris, France"})),
)
case(
    GI,
    "the input echoed as the first step (GET /interactions/{id})",
    [call("get_weather", {"location": "Paris, France"}, "9kv2qaxp")],
    interaction(gi_call("get_weather", {"location": "Paris, France"}), input_step=True),
)
case(
    GI,
    "parallel calls",
    [
        call("get_weather", {"location": "Paris, France"}, "a1"),
        call("get_time", {"timezone": "Europe/Paris"}, "a2"),
    ],
    interaction(
        gi_thought(),
        gi_call("get_weather", {"location": "Paris, France"}, "a1"),
        gi_call("get_time", {"timezone": "Europe/Paris"}, "a2"),
    ),
)
case(
    GI,
    "a later turn: a function result, then another call",
    [call("book_table", {"restaurant": "Le Comptoir", "people": 2, "time": "20:00"}, "b7")],
    interaction(
        {"type": "function_result", "call_id": "a1", "name": "get_weather",
         "result": [{"type": "text", "text": "18 C, clear"}]},
        gi_output("It is clear tonight; booking a table."),
        gi_call("book_table", {"restaurant": "Le Comptoir", "people": 2, "time": "20:00"}, "b7"),
    ),
)  # fmt: skip
case(
    GI,
    "the steps of built-in and remote tools give none",
    [],
    interaction(
        {"type": "google_search_call", "id": "gs1", "arguments": {"queries": ["Paris weather"]}},
        {"type": "code_execution_call", "id": "ce1",
         "arguments": {"code": "print(1 + 1)", "language": "python"}},
        {"type": "mcp_server_tool_call", "id": "mc1", "name": "lookup",
         "server_name": "weather", "arguments": {"city": "Paris"}},
        gi_output("It is 18 C and clear in Paris."),
        status="completed",
    ),
)  # fmt: skip
case(
    GI,
    "a text answer, no calls",
    [],
    interaction(gi_thought(), gi_output("The sky is blue."), status="completed"),
)
case(GI, "no steps", [], interaction(status="in_progress"))
case(GI, "empty arguments", [call("now", {}, "9kv2qaxp")], interaction(gi_call("now", {})))
case(
    GI,
    "unicode",
    [call("traduire", {"texte": "¿Dónde está la biblioteca? 📚", "langue": "français"}, "t1")],
    interaction(
        gi_call("traduire", {"texte": "¿Dónde está la biblioteca? 📚", "langue": "français"}, "t1")
    ),
)
case(
    GI,
    "big integers, exact",
    [call("f", {"n": BIG, "m": [NEG_BIG]}, "9kv2qaxp")],
    interaction(gi_call("f", {"n": BIG, "m": [NEG_BIG]})),
)
case(
    GI,
    "an SDK object's dump: no object member, a status",
    [call("get_weather", {"location": "Paris, France"}, "9kv2qaxp")],
    interaction(gi_call("get_weather", {"location": "Paris, France"}), object=False),
)
case(
    GI,
    "before May 2026: outputs[] in place of steps[]",
    [call("get_weather", {"location": "Paris, France"}, "9kv2qaxp")],
    {
        "id": "v1_ChdXS0l4YWZXTk9xbk0SF1dLSXhhZlhOT3FuTQ",
        "object": "interaction",
        "model": "gemini-3-flash-preview",
        "status": "requires_action",
        "role": "model",
        "outputs": [
            {"type": "thought", "signature": GI_SIGNATURE},
            gi_call("get_weather", {"location": "Paris, France"}),
        ],
        "usage": {"total_input_tokens": 61, "total_output_tokens": 18, "total_tokens": 79},
        "created": "2026-01-12T09:30:02Z",
        "updated": "2026-01-12T09:30:04Z",
    },
)
case(
    GI,
    "arguments a JSON string",
    [call("f", {"a": 1}, "9kv2qaxp")],
    interaction(gi_call("f", '{"a": 1}')),
    sdk=False,
)
case(
    GI,
    "arguments not JSON text: kept as text",
    [call("f", {}, "9kv2qaxp", "{oops")],
    interaction(gi_call("f", "{oops")),
    sdk=False,
)
case(GI, "arguments missing", [call("f", {}, "9kv2qaxp")], interaction(gi_call("f", ...)),
     sdk=False)  # fmt: skip
case(
    GI,
    "a step without a name or id",
    [call("", {"x": 1})],
    interaction({"type": "function_call", "arguments": {"x": 1}}),
    sdk=False,
)

# --- Ollama ----------------------------------------------------------------------------
OL = "ollama"


def ochat(*tool_calls, content="", model="llama3.2", thinking=None, calls_key=True):
    message = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if calls_key:
        message["tool_calls"] = list(tool_calls)
    return {
        "model": model,
        "created_at": "2024-07-22T20:33:28.123648Z",
        "message": message,
        "done_reason": "stop",
        "done": True,
        "total_duration": 885095291,
        "load_duration": 3753500,
        "prompt_eval_count": 122,
        "prompt_eval_duration": 328493000,
        "eval_count": 33,
        "eval_duration": 552222000,
    }


def ofn(name, arguments, index=None, id=None):
    function = {"name": name}
    if index is not None:
        function["index"] = index
    if arguments is not ...:
        function["arguments"] = arguments
    tool_call = {"function": function}
    if id is not None:
        tool_call = {"id": id, **tool_call}
    return tool_call


case(
    OL,
    "one call (the API docs' example)",
    [call("get_current_weather", {"format": "celsius", "location": "Paris, FR"})],
    ochat(ofn("get_current_weather", {"format": "celsius", "location": "Paris, FR"})),
)
case(
    OL,
    "parallel calls with index",
    [
        call("get_temperature", {"city": "New York"}),
        call("get_conditions", {"city": "New York"}),
    ],
    ochat(
        ofn("get_temperature", {"city": "New York"}, 0),
        ofn("get_conditions", {"city": "New York"}, 1),
        model="qwen3",
        thinking="The user wants temperature and conditions; call both tools.",
    ),
)
case(
    OL,
    "calls with ids",
    [
        call("add", {"a": 2, "b": 3}, "call_ab12cd34"),
        call("mul", {"a": 4, "b": 5}, "call_ef56gh78"),
    ],
    ochat(
        ofn("add", {"a": 2, "b": 3}, 0, "call_ab12cd34"),
        ofn("mul", {"a": 4, "b": 5}, 1, "call_ef56gh78"),
    ),
)
case(OL, "empty arguments", [call("now", {})], ochat(ofn("now", {})))
case(OL, "arguments missing", [call("now", {})], ochat(ofn("now", ...)), sdk=False)
case(OL, "arguments null", [call("now", {})], ochat(ofn("now", None)), sdk=False)
case(
    OL,
    "arguments a JSON string",
    [call("f", {"a": 1}, None)],
    ochat(ofn("f", '{"a": 1}')),
    sdk=False,
)
case(OL, "arguments an empty string", [call("f", {}, None, "")], ochat(ofn("f", "")), sdk=False)
case(OL, "arguments a list", [call("f", {}, None, "[1,2]")], ochat(ofn("f", [1, 2])), sdk=False)
case(OL, "arguments false", [call("f", {}, None, "false")], ochat(ofn("f", False)), sdk=False)
case(
    OL,
    "unicode",
    [call("traduire", {"texte": "¿Dónde está la biblioteca? 📚", "langue": "français"})],
    ochat(ofn("traduire", {"texte": "¿Dónde está la biblioteca? 📚", "langue": "français"})),
)
case(
    OL,
    "big integers, exact",
    [call("f", {"n": BIG, "m": [NEG_BIG]})],
    ochat(ofn("f", {"n": BIG, "m": [NEG_BIG]})),
)
case(
    OL,
    "a text answer, no calls (tool_calls absent)",
    [],
    ochat(content="The sky is blue.", calls_key=False),
)
case(OL, "tool_calls empty", [], ochat())
case(
    OL,
    "entries without a function are skipped",
    [call("f", {"x": 1})],
    ochat({"type": "function"}, ofn("f", {"x": 1})),
    sdk=False,
)

# --- Cohere v2 -------------------------------------------------------------------------
CO = "cohere"


def cchat(*tool_calls, tool_plan=None, content=None, finish_reason="TOOL_CALL", calls_key=True):
    message = {"role": "assistant"}
    if tool_plan is not None:
        message["tool_plan"] = tool_plan
    if calls_key:
        message["tool_calls"] = list(tool_calls)
    if content is not None:
        message["content"] = content
    return {
        "id": "7dc0f2d4-30cf-4a1c-98c6-e0c7f3c5d3a1",
        "message": message,
        "finish_reason": finish_reason,
        "usage": {
            "billed_units": {"input_tokens": 37, "output_tokens": 19},
            "tokens": {"input_tokens": 780, "output_tokens": 53},
        },
    }


def cfn(name, arguments, id="get_weather_1byjy32y4hvq"):
    function = {"name": name}
    if arguments is not ...:
        function["arguments"] = arguments
    return {"id": id, "type": "function", "function": function}


case(
    CO,
    "one call (the tool use guide's example)",
    [call("get_weather", {"location": "Toronto"}, "get_weather_1byjy32y4hvq")],
    cchat(
        cfn("get_weather", '{"location":"Toronto"}'),
        tool_plan="I will search for the weather in Toronto.",
    ),
)
case(
    CO,
    "parallel calls",
    [
        call("get_weather", {"location": "Toronto"}, "get_weather_1"),
        call("get_weather", {"location": "New York"}, "get_weather_2"),
    ],
    cchat(
        cfn("get_weather", '{"location":"Toronto"}', "get_weather_1"),
        cfn("get_weather", '{"location":"New York"}', "get_weather_2"),
        tool_plan="I will look up the weather in Toronto and New York.",
    ),
)
case(CO, "empty arguments", [call("now", {}, "now_1")], cchat(cfn("now", "{}", "now_1")))
case(CO, "empty arguments string", [call("now", {}, "now_1", "")], cchat(cfn("now", "", "now_1")))
case(CO, "arguments missing", [call("now", {}, "now_1")], cchat(cfn("now", ..., "now_1")))
case(CO, "arguments null", [call("now", {}, "now_1")], cchat(cfn("now", None, "now_1")))
case(
    CO,
    "arguments an object",
    [call("f", {"a": {"b": [1]}}, "f_1")],
    cchat(cfn("f", {"a": {"b": [1]}}, "f_1")),
    sdk=False,
)
case(
    CO,
    "arguments a JSON array string",
    [call("f", {}, "f_1", "[1]")],
    cchat(cfn("f", "[1]", "f_1")),
)
case(CO, "arguments truncated", [call("f", {}, "f_1", '{"a"')], cchat(cfn("f", '{"a"', "f_1")))
case(
    CO,
    "arguments a number",
    [call("f", {}, "f_1", "1e+100")],
    cchat(cfn("f", 1e100, "f_1")),
    sdk=False,
)
case(
    CO,
    "unicode",
    [call("rechercher", {"requête": "météo à Montréal", "emoji": "🍁"}, "rechercher_ü")],
    cchat(
        cfn(
            "rechercher",
            '{"requête": "météo à Montréal", "emoji": "\\ud83c\\udf41"}',
            "rechercher_ü",
        )
    ),
)
case(
    CO,
    "big integers, exact",
    [call("f", {"n": BIG, "m": NEG_BIG}, "f_1")],
    cchat(cfn("f", '{"n": %d, "m": %d}' % (BIG, NEG_BIG), "f_1")),
)
case(
    CO,
    "a text answer with citations, no calls",
    [],
    cchat(
        content=[{"type": "text", "text": "It is 24°C in Toronto."}],
        finish_reason="COMPLETE",
        calls_key=False,
    )
    | {
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "It is 24°C in Toronto."}],
            "citations": [
                {
                    "start": 6,
                    "end": 10,
                    "text": "24°C",
                    "sources": [
                        {
                            "type": "tool",
                            "id": "get_weather_1byjy32y4hvq:0",
                            "tool_output": {"temperature": '{"toronto":"24C"}'},
                        }
                    ],
                }
            ],
        }
    },
)
case(CO, "tool_calls empty", [], cchat(tool_plan="Nothing to do."))
case(
    CO,
    "entries without a function are skipped",
    [call("f", {"x": 1}, "f_1")],
    cchat({"id": "x", "type": "function"}, cfn("f", '{"x":1}', "f_1")),
)


# --- Cohere v1 -------------------------------------------------------------------------
# `client.chat` (cohere-python `types/non_streamed_chat_response.py`, `types/tool_call.py`):
# the calls are the response's own `tool_calls[]` (`{name, parameters}`), without ids.

V1_HISTORY = [
    {"role": "USER", "message": "Can you provide a sales summary for 29th September 2023?"},
]
V1_META = {
    "api_version": {"version": "1"},
    "billed_units": {"input_tokens": 692, "output_tokens": 45},
    "tokens": {"input_tokens": 1522, "output_tokens": 45},
}


def v1chat(*tool_calls, text="", finish_reason="COMPLETE", generation_id=True, history=None):
    response = {
        "response_id": "3c1a4a55-0d3b-4f7f-9f0a-6b2d1a7b8c9e",
        "text": text,
        "generation_id": "b5ee2f3c-7c2a-4f5e-8a8e-2f1e5f6a9d01",
        "chat_history": list(V1_HISTORY if history is None else history),
        "finish_reason": finish_reason,
        "meta": V1_META,
    }
    if tool_calls:
        response["tool_calls"] = list(tool_calls)
        response["chat_history"].append(
            {"role": "CHATBOT", "message": text, "tool_calls": list(tool_calls)}
        )
    if not generation_id:
        del response["generation_id"]
    if finish_reason is None:
        del response["finish_reason"]
    return response


def v1call(name, parameters):
    call = {"name": name}
    if parameters is not ...:
        call["parameters"] = parameters
    return call


case(
    CO,
    "v1 two calls (the v1 tool use guide's example)",
    [
        call("query_daily_sales_report", {"day": "2023-09-29"}),
        call("query_product_catalog", {"category": "Electronics"}),
    ],
    v1chat(
        v1call("query_daily_sales_report", {"day": "2023-09-29"}),
        v1call("query_product_catalog", {"category": "Electronics"}),
        text="I will report the sales and list the electronics products.",
    ),
)
case(
    CO,
    "v1 text only",
    [],
    v1chat(text="On 29 September 2023, the total sales amount was 10000, with 250 units sold."),
)
case(
    CO,
    "v1 the chat history's calls are not the response's",
    [],
    v1chat(
        text="The total sales amount was 10000.",
        history=[
            *V1_HISTORY,
            {
                "role": "CHATBOT",
                "message": "I will look up the sales report.",
                "tool_calls": [v1call("query_daily_sales_report", {"day": "2023-09-29"})],
            },
            {
                "role": "TOOL",
                "tool_results": [
                    {
                        "call": v1call("query_daily_sales_report", {"day": "2023-09-29"}),
                        "outputs": [{"total_sales_amount": 10000, "total_units_sold": 250}],
                    }
                ],
            },
        ],
    ),
)
case(CO, "v1 tool_calls null", [], v1chat(text="Hello!") | {"tool_calls": None})
case(CO, "v1 parameters empty", [call("now", {})], v1chat(v1call("now", {})))
case(
    CO,
    "v1 parameters nested, unicode",
    [call("rechercher", {"requête": "météo à Montréal", "options": {"jours": [1, 2.5]}})],
    v1chat(v1call("rechercher", {"requête": "météo à Montréal", "options": {"jours": [1, 2.5]}})),
)
case(
    CO,
    "v1 without a generation_id",
    [call("f", {"x": 1})],
    v1chat(v1call("f", {"x": 1}), generation_id=False, finish_reason="MAX_TOKENS"),
)
case(
    CO,
    "v1 without a finish_reason",
    [call("f", {"x": 1})],
    v1chat(v1call("f", {"x": 1}), finish_reason=None),
)
case(
    CO,
    "v1 parameters a JSON string",
    [call("f", {"x": 1})],
    v1chat(v1call("f", '{"x": 1}')),
    sdk=False,
)
case(CO, "v1 parameters missing", [call("f", {})], v1chat(v1call("f", ...)), sdk=False)
case(
    CO,
    "v1 parameters a list",
    [call("f", {}, None, "[1,2]")],
    v1chat(v1call("f", [1, 2])),
    sdk=False,
)
case(
    CO,
    "v1 an entry with neither name nor parameters is skipped",
    [call("f", {"x": 1})],
    v1chat({"type": "function"}, v1call("f", {"x": 1})),
    sdk=False,
)


here = Path(__file__).parent
for fmt, cases in files.items():
    (here / f"{fmt}.json").write_text(
        json.dumps(cases, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
    )
for fmt, cases in batches.items():
    (here / f"{fmt}.batch.json").write_text(
        json.dumps(cases, indent=1, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
    )
print({fmt: len(c) for fmt, c in files.items()}, {fmt: len(c) for fmt, c in batches.items()})
