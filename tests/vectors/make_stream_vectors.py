"""Writes the stream vectors: `<format>.stream.json`, one file per format with a stream
reader. Run it after editing the cases below; pytest (tests/test_stream.py) and
`cargo test` (tests/stream_vectors.rs) read the JSON files.

A case: `{"name", "parser": FORMAT, "events": [...], "calls": [...], "done": [...]}` and
optionally `"response"`.

* `events`: what is fed, in order: an object (a dict; cargo feeds its JSON text), a
  string (`str`: one JSON event or a chunk of SSE text) or `{"$hex": "..."}` (`bytes`).
* `calls`: the calls `finish()` gives, as `{"name", "arguments", "id", "raw_arguments"}`.
* `done`: how many calls each event completed (its `feed()` result's length).
* `response`: the non-streamed response of the same call, where there is one: `parse`
  of it gives `calls` (the test checks it, so the expectations are the provider's own).
* `partial`: optional `[event number, calls]`: what `partial()` gives after that event.
* `error`: optional: the `error` of `finish()`'s response (and of `parse(response)`),
  where it is not None.
* `"sdk": false`: events the provider's SDK model refuses (malformed on purpose); the
  SDK-object test skips the case.

The event sequences follow the providers' streaming references and SDK event types
(openai-python `ChatCompletionChunk` and `types/responses/response_*_event.py`,
anthropic-sdk-python `RawMessageStreamEvent` / `InputJSONDelta`, the Bedrock
ConverseStream API reference, cohere-python `StreamedChatResponseV2` and `StreamedChatResponse`
(v1), google-genai `GenerateContentResponse` and `interactions.InteractionSSEEvent`, Ollama `docs/api.md`); ids and texts are made up
in the same style. The failure modes frameworks keep meeting (repeated names, ids in every chunk,
interleaved parallel calls, empty deltas, a missing `index`, zero-argument tools, cuts
inside a string, an escape or a UTF-8 character) each have a case.
"""

import base64
import json
from pathlib import Path


def call(name, arguments=None, id=None, raw=None):
    return {"name": name, "arguments": arguments or {}, "id": id, "raw_arguments": raw}


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def pieces(text, size):
    return [text[i : i + size] for i in range(0, len(text), size)]


def sse(events, named=False):
    """A transcript: `data:` lines (with `event:` lines where `named`), `[DONE]` last."""
    out = []
    for event in events:
        if named:
            out.append(f"event: {event['type']}\n")
        out.append(f"data: {compact(event)}\n\n")
    return "".join(out)


files = {}

# --- OpenAI chat completion chunks ----------------------------------------------------

CHUNK = {"id": "chatcmpl-9xK2", "object": "chat.completion.chunk", "created": 1735000000}
CHUNK["model"] = "gpt-4o-2024-08-06"
CHUNK["system_fingerprint"] = "fp_5f20662549"


def chunk(tool_calls=None, finish=None, index=0, role=False, usage=None):
    delta = {}
    if role:
        delta = {"role": "assistant", "content": None}
    if tool_calls is not None:
        delta["tool_calls"] = tool_calls
    choice = {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
    return {**CHUNK, "choices": [choice]}


def fn(index, args=None, name=None, id=None, typed=True):
    entry = {} if index is None else {"index": index}
    if id is not None:
        entry["id"] = id
    if typed and id is not None:
        entry["type"] = "function"
    function = {}
    if name is not None:
        function["name"] = name
    if args is not None:
        function["arguments"] = args
    entry["function"] = function
    return entry


def completion(*calls, content=None):
    return {
        "id": "chatcmpl-9xK2",
        "object": "chat.completion",
        "created": 1735000000,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": content,
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": id,
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                        for name, id, arguments in calls
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
    }


def ended_by_last(name, events, calls, response=None):
    """An OpenAI case whose calls all complete at its last event (`finish_reason`)."""
    case = {"name": name, "parser": "openai", "events": events}
    case["done"] = [0] * (len(events) - 1) + [1]
    case["calls"] = calls
    if response is not None:
        case["response"] = response
    return case


WEATHER = '{"location": "Paris, France", "unit": "celsius"}'
WEATHER_ARGS = {"location": "Paris, France", "unit": "celsius"}
TIME = '{"timezone": "Europe/Paris"}'
TIME_ARGS = {"timezone": "Europe/Paris"}

openai = []
basic = [
    chunk([fn(0, "", "get_weather", "call_Ab12")], role=True),
    *[chunk([fn(0, piece)]) for piece in pieces(WEATHER, 7)],
    chunk(finish="tool_calls"),
]
openai.append(
    ended_by_last(
        "openai one call streamed (the function calling guide's chunks)",
        basic,
        [call("get_weather", WEATHER_ARGS, "call_Ab12")],
        completion(("get_weather", "call_Ab12", WEATHER)),
    )
)
usage_chunk = {
    **CHUNK,
    "choices": [],
    "usage": {"prompt_tokens": 80, "completion_tokens": 20, "total_tokens": 100},
}
interleaved = [
    chunk([fn(0, "", "get_weather", "call_W1")], role=True),
    chunk([fn(1, "", "get_time", "call_T2")]),
]
for a, b in zip(pieces(WEATHER, 9), pieces(TIME, 5) + [""] * 10, strict=False):
    interleaved.append(chunk([fn(0, a), fn(1, b)] if b else [fn(0, a)]))
interleaved += [chunk(finish="tool_calls"), usage_chunk]
openai.append(
    {
        "name": "openai parallel calls interleaved (both indexes in one chunk)",
        "parser": "openai",
        "events": interleaved,
        "done": [0] * (len(interleaved) - 2) + [2, 0],
        "calls": [
            call("get_weather", WEATHER_ARGS, "call_W1"),
            call("get_time", TIME_ARGS, "call_T2"),
        ],
        "response": completion(("get_weather", "call_W1", WEATHER), ("get_time", "call_T2", TIME)),
    }
)
second_first = [
    chunk([fn(1, "", "get_time", "call_T2")], role=True),
    chunk([fn(0, "", "get_weather", "call_W1")]),
    chunk([fn(1, TIME)]),
    chunk([fn(0, WEATHER)]),
    chunk(finish="tool_calls"),
]
openai.append(
    {
        "name": "openai parallel calls arriving out of index order: finish() orders by index",
        "parser": "openai",
        "events": second_first,
        "done": [0, 0, 0, 0, 2],
        "calls": [
            call("get_weather", WEATHER_ARGS, "call_W1"),
            call("get_time", TIME_ARGS, "call_T2"),
        ],
        "response": completion(("get_weather", "call_W1", WEATHER), ("get_time", "call_T2", TIME)),
    }
)
repeated = [
    chunk([fn(0, piece, "get_weather", "call_R1")], role=(i == 0))
    for i, piece in enumerate(pieces(WEATHER, 6))
] + [chunk(finish="tool_calls")]
openai.append(
    ended_by_last(
        "openai full name and id repeated in every chunk: set once, never concatenated",
        repeated,
        [call("get_weather", WEATHER_ARGS, "call_R1")],
        completion(("get_weather", "call_R1", WEATHER)),
    )
)
empty = [
    chunk([fn(0, "", "get_weather", "call_E1")], role=True),
    chunk([{"index": 0, "id": "", "function": {"name": "", "arguments": ""}}]),
    chunk([{"index": 0, "id": None, "function": {"name": None, "arguments": WEATHER[:10]}}]),
    chunk([{"index": 0, "function": {"arguments": None}}]),
    chunk([{"index": 0, "function": {"name": "", "arguments": WEATHER[10:]}}]),
    chunk([]),
    chunk(finish="tool_calls"),
]
openai.append(
    {
        "name": "openai empty and null name, id and argument deltas are ignored",
        "parser": "openai",
        "events": empty,
        "done": [0, 0, 0, 0, 0, 0, 1],
        "calls": [call("get_weather", WEATHER_ARGS, "call_E1")],
        "response": completion(("get_weather", "call_E1", WEATHER)),
    }
)
no_index = [
    chunk([fn(None, "", "get_weather", "call_N1")], role=True),
    chunk([fn(None, WEATHER[:20])]),
    chunk([fn(None, WEATHER[20:])]),
    chunk([fn(None, "", "get_time", "call_N2")]),
    chunk([fn(None, TIME)]),
    chunk(finish="tool_calls"),
]
openai.append(
    {
        "name": "openai no index (OpenAI-compatible servers): a new id starts a call",
        "parser": "openai",
        "sdk": False,
        "events": no_index,
        "done": [0, 0, 0, 0, 0, 2],
        "calls": [
            call("get_weather", WEATHER_ARGS, "call_N1"),
            call("get_time", TIME_ARGS, "call_N2"),
        ],
        "response": completion(("get_weather", "call_N1", WEATHER), ("get_time", "call_N2", TIME)),
    }
)
index_zero = [
    chunk([fn(0, "", "get_weather", "call_Z1")], role=True),
    chunk([fn(0, WEATHER)]),
    chunk([fn(0, "", "get_time", "call_Z2")]),
    chunk([fn(0, TIME[:8])]),
    chunk([fn(0, TIME[8:])]),
    chunk(finish="tool_calls"),
]
openai.append(
    {
        "name": "openai every call given index 0: a new id at the index starts a new call",
        "parser": "openai",
        "events": index_zero,
        "done": [0, 0, 0, 0, 0, 2],
        "calls": [
            call("get_weather", WEATHER_ARGS, "call_Z1"),
            call("get_time", TIME_ARGS, "call_Z2"),
        ],
        "response": completion(("get_weather", "call_Z1", WEATHER), ("get_time", "call_Z2", TIME)),
    }
)
openai.append(
    {
        "name": "openai zero-argument tool: no argument text gives {}",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "list_files", "call_0a")], role=True),
            chunk([fn(0, "")]),
            chunk(finish="tool_calls"),
        ],
        "done": [0, 0, 1],
        "calls": [call("list_files", {}, "call_0a")],
        "response": completion(("list_files", "call_0a", "{}")),
    }
)
# Custom tools (free-text input): `custom.{name, input}` deltas, as openai-python
# issue #2530 shows them; the input is kept as it is, in raw_arguments.
SQL = "SELECT name FROM users WHERE id = 7;"
custom_sql = {"index": 0, "id": "call_Cu1", "type": "custom"}
custom_sql["custom"] = {"name": "run_sql", "input": ""}
custom_response = completion(content=None)
custom_response["choices"][0]["message"]["tool_calls"] = [
    {"id": "call_Cu1", "type": "custom", "custom": {"name": "run_sql", "input": SQL}}
]
custom_events = [
    chunk([custom_sql], role=True),
    *[chunk([{"index": 0, "custom": {"input": piece}}]) for piece in pieces(SQL, 9)],
    chunk(finish="tool_calls"),
]
openai.append(
    ended_by_last(
        "openai custom tool streamed: its input kept as it is",
        custom_events,
        [call("run_sql", {}, "call_Cu1", SQL)],
        custom_response,
    )
)
cut = '{"unit": "celsius", "location": "Par'
openai.append(
    {
        "name": "openai stream cut inside a string: the text kept, the complete members shown",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "get_weather", "call_C1")], role=True),
            chunk([fn(0, cut[:12])]),
            chunk([fn(0, cut[12:])]),
        ],
        "done": [0, 0, 0],
        "calls": [call("get_weather", {}, "call_C1", cut)],
        "partial": [2, [call("get_weather", {"unit": "celsius"}, "call_C1", cut)]],
    }
)
escape_cut = '{"unit": "c", "city": "Z\\u00'
openai.append(
    {
        "name": "openai stream cut inside a \\u escape",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "get_weather", "call_U1")], role=True),
            chunk([fn(0, escape_cut)]),
        ],
        "done": [0, 0],
        "calls": [call("get_weather", {}, "call_U1", escape_cut)],
        "partial": [1, [call("get_weather", {"unit": "c"}, "call_U1", escape_cut)]],
    }
)
escaped = '{"city": "Z\\u00fcrich", "note": "a \\"quoted\\" word"}'
openai.append(
    {
        "name": "openai escapes split between deltas",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "get_weather", "call_S1")], role=True),
            *[chunk([fn(0, piece)]) for piece in pieces(escaped, 3)],
            chunk(finish="tool_calls"),
        ],
        "done": [0] * (len(pieces(escaped, 3)) + 1) + [1],
        "calls": [call("get_weather", {"city": "Zürich", "note": 'a "quoted" word'}, "call_S1")],
        "response": completion(("get_weather", "call_S1", escaped)),
    }
)
utf8 = [
    chunk([fn(0, "", "get_weather", "call_M1")], role=True),
    chunk([fn(0, '{"city": "Zürich", ')]),
    chunk([fn(0, '"emoji": "🌧"}')]),
    chunk(finish="tool_calls"),
]
transcript = (sse(utf8) + "data: [DONE]\n\n").encode()
at = transcript.index("ü".encode()) + 1  # between the two bytes of ü
at2 = transcript.index("🌧".encode()) + 2  # inside the four bytes of the emoji
openai.append(
    {
        "name": "openai SSE bytes with UTF-8 characters split across chunks",
        "parser": "openai",
        "events": [
            {"$hex": transcript[:at].hex()},
            {"$hex": transcript[at:at2].hex()},
            {"$hex": transcript[at2:].hex()},
        ],
        "done": [0, 0, 1],
        "calls": [call("get_weather", {"city": "Zürich", "emoji": "🌧"}, "call_M1")],
        "response": completion(("get_weather", "call_M1", '{"city": "Zürich", "emoji": "🌧"}')),
    }
)
text = sse(basic).replace("\n", "\r\n") + ": keep-alive\r\n\r\ndata: [DONE]\r\n\r\n"
openai.append(
    {
        "name": "openai SSE text with CRLF lines, a comment and [DONE], cut every 50 characters",
        "parser": "openai",
        "events": pieces(text, 50),
        "done": None,
        "calls": [call("get_weather", WEATHER_ARGS, "call_Ab12")],
        "response": completion(("get_weather", "call_Ab12", WEATHER)),
    }
)
openai.append(
    {
        "name": "openai SSE transcript without its last empty line: read at finish()",
        "parser": "openai",
        "events": [sse(basic)[:-2]],
        "done": [0],
        "calls": [call("get_weather", WEATHER_ARGS, "call_Ab12")],
    }
)
openai.append(
    ended_by_last(
        "openai JSON text events, one chunk each",
        [compact(event) for event in basic],
        [call("get_weather", WEATHER_ARGS, "call_Ab12")],
    )
)
openai.append(
    {
        "name": "openai two choices (n=2): keyed by choice, then call index",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "get_weather", "call_A")], index=1, role=True),
            chunk([fn(0, "", "get_time", "call_B")], index=0, role=True),
            chunk([fn(0, WEATHER)], index=1),
            chunk([fn(0, TIME)], index=0),
            chunk(finish="tool_calls", index=1),
            chunk(finish="tool_calls", index=0),
        ],
        "done": [0, 0, 0, 0, 1, 1],
        "calls": [
            call("get_time", TIME_ARGS, "call_B"),
            call("get_weather", WEATHER_ARGS, "call_A"),
        ],
    }
)
openai.append(
    {
        "name": "openai arguments that are not an object are kept as text",
        "parser": "openai",
        "events": [
            chunk([fn(0, "", "echo", "call_X")], role=True),
            chunk([fn(0, "[1, 2")]),
            chunk([fn(0, "]")]),
            chunk(finish="tool_calls"),
        ],
        "done": [0, 0, 0, 1],
        "calls": [call("echo", {}, "call_X", "[1, 2]")],
        "response": completion(("echo", "call_X", "[1, 2]")),
    }
)
files["openai"] = openai

# --- Anthropic Messages streaming -----------------------------------------------------

MESSAGE = {
    "id": "msg_014p7gG3wDgGV9EUtLvnow3U",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "stop_sequence": None,
}


def anthropic_events(blocks, text="Let me check the weather."):
    """message_start, a text block, then each (id, name, json) tool_use block."""
    events = [
        {
            "type": "message_start",
            "message": {
                **MESSAGE,
                "content": [],
                "stop_reason": None,
                "usage": {"input_tokens": 472, "output_tokens": 2},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "ping"},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
    ]
    for n, (id, name, arguments) in enumerate(blocks, start=1):
        events.append(
            {
                "type": "content_block_start",
                "index": n,
                "content_block": {"type": "tool_use", "id": id, "name": name, "input": {}},
            }
        )
        for piece in ["", *pieces(arguments, 8)]:
            events.append(
                {
                    "type": "content_block_delta",
                    "index": n,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
            )
        events.append({"type": "content_block_stop", "index": n})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 89},
        }
    )
    events.append({"type": "message_stop"})
    return events


def message(blocks, text="Let me check the weather."):
    content = [{"type": "text", "text": text}]
    for id, name, arguments in blocks:
        content.append({"type": "tool_use", "id": id, "name": name, "input": json.loads(arguments)})
    return {
        **MESSAGE,
        "content": content,
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 472, "output_tokens": 89},
    }


def done_at_stops(events):
    return [int(e["type"] == "content_block_stop" and e["index"] > 0) for e in events]


one = [("toolu_01A09q90qw90lq917835lq9", "get_weather", WEATHER)]
two = [*one, ("toolu_02", "get_time", TIME)]
zero = [("toolu_03", "list_files", "")]
anthropic = [
    {
        "name": "anthropic one tool_use streamed (the streaming guide's events)",
        "parser": "anthropic",
        "events": anthropic_events(one),
        "done": done_at_stops(anthropic_events(one)),
        "calls": [call("get_weather", WEATHER_ARGS, one[0][0])],
        "response": message(one),
    },
    {
        "name": "anthropic two tool_use blocks",
        "parser": "anthropic",
        "events": anthropic_events(two),
        "done": done_at_stops(anthropic_events(two)),
        "calls": [
            call("get_weather", WEATHER_ARGS, one[0][0]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
        "response": message(two),
    },
    {
        "name": "anthropic zero-argument tool: only an empty partial_json gives {}",
        "parser": "anthropic",
        "events": anthropic_events(zero),
        "done": done_at_stops(anthropic_events(zero)),
        "calls": [call("list_files", {}, "toolu_03")],
        "response": message([("toolu_03", "list_files", "{}")]),
    },
    {
        "name": "anthropic SSE transcript with event lines",
        "parser": "anthropic",
        "events": [sse(anthropic_events(two), named=True)],
        "done": [2],
        "calls": [
            call("get_weather", WEATHER_ARGS, one[0][0]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
        "response": message(two),
    },
    {
        "name": "anthropic stream cut before content_block_stop: the call kept, not completed",
        "parser": "anthropic",
        "events": anthropic_events(one)[:-5],
        "done": [0] * len(anthropic_events(one)[:-5]),
        "calls": [call("get_weather", {}, one[0][0], WEATHER[:32])],
    },
]

# Two messages in one stream (a logged transcript of two turns): each message's block
# indices start at 0 again, so the second message's calls are new calls, and the first
# message's stay as they were (completed or not).
later = [("toolu_02", "get_time", TIME)]
second_message = anthropic_events(later, text="And the time.")
second_message[0]["message"]["id"] = "msg_01XFDUDYJgAACzvnptvVoYEL"
two_messages = anthropic_events(one) + second_message
cut_then_second = anthropic_events(one)[:-5] + second_message
anthropic += [
    {
        "name": "anthropic two messages in one stream: a message_start starts indices again",
        "parser": "anthropic",
        "events": two_messages,
        "done": done_at_stops(two_messages),
        "calls": [
            call("get_weather", WEATHER_ARGS, one[0][0]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
    },
    {
        "name": "anthropic a message cut inside a tool_use block, then another message",
        "parser": "anthropic",
        "events": cut_then_second,
        "done": done_at_stops(cut_then_second),
        "calls": [
            call("get_weather", {}, one[0][0], WEATHER[:32]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
    },
    {
        "name": "anthropic SSE transcript of two messages",
        "parser": "anthropic",
        "events": [sse(two_messages, named=True)],
        "done": [2],
        "calls": [
            call("get_weather", WEATHER_ARGS, one[0][0]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
    },
]


# Claude on Bedrock through InvokeModelWithResponseStream (not Converse): each event is
# `{"chunk": {"bytes": B}}` (the bedrock-runtime API reference's `ResponseStream` /
# `PayloadPart`), B the Anthropic event as JSON text, base64 on the wire and in JSON logs
# (boto3 decodes it to `bytes`, tests/test_stream.py feeds those too). Bedrock adds its
# invocation metrics to `message_stop`.
def bedrock_chunks(events, encode=True):
    events = [dict(e) for e in events]
    events[-1]["amazon-bedrock-invocationMetrics"] = {
        "inputTokenCount": 472,
        "outputTokenCount": 89,
        "invocationLatency": 1874,
        "firstByteLatency": 512,
    }
    texts = [json.dumps(e, separators=(",", ":")) for e in events]
    if encode:
        texts = [base64.b64encode(t.encode()).decode() for t in texts]
    return [{"chunk": {"bytes": t}} for t in texts]


anthropic += [
    {
        "name": "anthropic on Bedrock InvokeModelWithResponseStream: chunk events (base64)",
        "parser": "anthropic",
        "events": bedrock_chunks(anthropic_events(two)),
        "done": done_at_stops(anthropic_events(two)),
        "calls": [
            call("get_weather", WEATHER_ARGS, one[0][0]),
            call("get_time", TIME_ARGS, "toolu_02"),
        ],
        "response": message(two),
        "sdk": False,  # boto3 gives dicts
    },
    {
        "name": "anthropic on Bedrock: chunk events whose bytes a log decoded to JSON text",
        "parser": "anthropic",
        "events": bedrock_chunks(anthropic_events(one), encode=False),
        "done": done_at_stops(anthropic_events(one)),
        "calls": [call("get_weather", WEATHER_ARGS, one[0][0])],
        "sdk": False,
    },
]
files["anthropic"] = anthropic

# --- OpenAI Responses streaming -------------------------------------------------------


def fc_item(status, arguments, id="fc_67ca09c5efe0", call_id="call_unLAR8MvFNptuiZK6K6HCy5k"):
    return {
        "type": "function_call",
        "id": id,
        "call_id": call_id,
        "name": "get_weather",
        "arguments": arguments,
        "status": status,
    }


RESPONSE = {"id": "resp_67ca09c5efe0", "object": "response", "created_at": 1741294021}
RESPONSE["model"] = "gpt-4.1-2025-04-14"


def responses_events(arguments=WEATHER, custom=False, end=True):
    seq = iter(range(1000))
    events = [
        {
            "type": "response.created",
            "sequence_number": next(seq),
            "response": {**RESPONSE, "status": "in_progress", "output": []},
        },
        {
            "type": "response.output_item.added",
            "sequence_number": next(seq),
            "output_index": 0,
            "item": fc_item("in_progress", ""),
        },
    ]
    for piece in pieces(arguments, 6):
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "sequence_number": next(seq),
                "item_id": "fc_67ca09c5efe0",
                "output_index": 0,
                "delta": piece,
            }
        )
    if not end:
        return events
    events += [
        {
            "type": "response.function_call_arguments.done",
            "sequence_number": next(seq),
            "item_id": "fc_67ca09c5efe0",
            "output_index": 0,
            "arguments": arguments,
        },
        {
            "type": "response.output_item.done",
            "sequence_number": next(seq),
            "output_index": 0,
            "item": fc_item("completed", arguments),
        },
        {
            "type": "response.completed",
            "sequence_number": next(seq),
            "response": {
                **RESPONSE,
                "status": "completed",
                "output": [fc_item("completed", arguments)],
            },
        },
    ]
    return events


custom_events = [
    {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": {
            "type": "custom_tool_call",
            "id": "ctc_6890",
            "call_id": "call_aGiFQkRWSWAIsMQ19fKqxUgb",
            "name": "code_exec",
            "input": "",
        },
    },
    {
        "type": "response.custom_tool_call_input.delta",
        "output_index": 1,
        "item_id": "ctc_6890",
        "delta": "print('hello",
    },
    {
        "type": "response.custom_tool_call_input.delta",
        "output_index": 1,
        "item_id": "ctc_6890",
        "delta": " world')",
    },
    {
        "type": "response.custom_tool_call_input.done",
        "output_index": 1,
        "item_id": "ctc_6890",
        "input": "print('hello world')",
    },
]
full = responses_events()
responses = [
    {
        "name": "openai-responses function call streamed (the streaming guide's events)",
        "parser": "openai-responses",
        "events": full,
        "done": [int(e["type"] == "response.function_call_arguments.done") for e in full],
        "calls": [call("get_weather", WEATHER_ARGS, "call_unLAR8MvFNptuiZK6K6HCy5k")],
        "response": full[-1]["response"],
    },
    {
        "name": "openai-responses cut after the deltas: the text kept",
        "parser": "openai-responses",
        "events": responses_events(WEATHER[:-1], end=False),
        "done": [0] * len(responses_events(WEATHER[:-1], end=False)),
        "calls": [call("get_weather", {}, "call_unLAR8MvFNptuiZK6K6HCy5k", WEATHER[:-1])],
    },
    {
        "name": "openai-responses function call then custom tool call input deltas",
        "parser": "openai-responses",
        "events": full[:-1] + custom_events,
        "done": [int(e["type"].endswith(".done") and "arguments" in e) for e in full[:-1]]
        + [0, 0, 0, 1],
        "calls": [
            call("get_weather", WEATHER_ARGS, "call_unLAR8MvFNptuiZK6K6HCy5k"),
            call("code_exec", {}, "call_aGiFQkRWSWAIsMQ19fKqxUgb", "print('hello world')"),
        ],
    },
    {
        "name": "openai-responses only response.completed",
        "parser": "openai-responses",
        "events": [full[-1]],
        "done": [1],
        "calls": [call("get_weather", WEATHER_ARGS, "call_unLAR8MvFNptuiZK6K6HCy5k")],
        "response": full[-1]["response"],
    },
    {
        "name": "openai-responses SSE transcript",
        "parser": "openai-responses",
        "events": pieces(sse(full, named=True), 64),
        "done": None,
        "calls": [call("get_weather", WEATHER_ARGS, "call_unLAR8MvFNptuiZK6K6HCy5k")],
        "response": full[-1]["response"],
    },
]
files["openai-responses"] = responses

# --- Bedrock ConverseStream -----------------------------------------------------------


def bedrock_block(n, start, arguments):
    """A toolUse block at index `n`: its start (`start` is the `toolUse`), input deltas, stop."""
    events = [{"contentBlockStart": {"start": {"toolUse": start}, "contentBlockIndex": n}}]
    for piece in pieces(arguments, 10):
        events.append(
            {"contentBlockDelta": {"delta": {"toolUse": {"input": piece}}, "contentBlockIndex": n}}
        )
    return [*events, {"contentBlockStop": {"contentBlockIndex": n}}]


def bedrock_events(blocks):
    events = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Checking."}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    for n, (id, name, arguments) in enumerate(blocks, start=1):
        events += bedrock_block(n, {"toolUseId": id, "name": name}, arguments)
    events.append({"messageStop": {"stopReason": "tool_use"}})
    events.append(
        {
            "metadata": {
                "usage": {"inputTokens": 329, "outputTokens": 57, "totalTokens": 386},
                "metrics": {"latencyMs": 1240},
            }
        }
    )
    return events


def converse(blocks):
    content = [{"text": "Checking."}]
    for id, name, arguments in blocks:
        content.append(
            {"toolUse": {"toolUseId": id, "name": name, "input": json.loads(arguments or "{}")}}
        )
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 329, "outputTokens": 57, "totalTokens": 386},
        "metrics": {"latencyMs": 1240},
    }


def bedrock_done(events):
    return [
        int("contentBlockStop" in e and e["contentBlockStop"]["contentBlockIndex"] > 0)
        for e in events
    ]


b_two = [
    ("tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "get_weather", WEATHER),
    ("tooluse_2", "list_files", ""),
]
bedrock = [
    {
        "name": "bedrock ConverseStream tool use (the API reference's events)",
        "parser": "bedrock",
        "events": bedrock_events(b_two),
        "done": bedrock_done(bedrock_events(b_two)),
        "calls": [
            call("get_weather", WEATHER_ARGS, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q"),
            call("list_files", {}, "tooluse_2"),
        ],
        "response": converse(b_two),
    },
    {
        "name": "bedrock stream cut inside the input",
        "parser": "bedrock",
        "events": bedrock_events(b_two)[:5],
        "done": [0] * 5,
        "calls": [call("get_weather", {}, "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", WEATHER[:10])],
    },
]

# A tool Bedrock runs itself (Nova grounding): `ToolUseBlockStart.type`, enum ToolUseType
# ["server_tool_use"], in botocore's bedrock-runtime model. No call, in the stream as in
# the response; its input deltas go to no other call.
SERVER = {"toolUseId": "tooluse_s1", "name": "nova_grounding", "type": "server_tool_use"}
server_result = {"toolUseId": "tooluse_s1", "status": "success"}
server_then_call = [
    {"messageStart": {"role": "assistant"}},
    *bedrock_block(0, SERVER, '{"q":"x"}'),
    {"contentBlockStart": {"start": {"toolResult": server_result}, "contentBlockIndex": 1}},
    {"contentBlockDelta": {"delta": {"toolResult": [{"text": "x is y"}]}, "contentBlockIndex": 1}},
    {"contentBlockStop": {"contentBlockIndex": 1}},
    *bedrock_block(2, {"toolUseId": b_two[0][0], "name": "get_weather"}, WEATHER),
    {"messageStop": {"stopReason": "tool_use"}},
]
server_response = converse(b_two[:1])
server_response["output"]["message"]["content"][:1] = [
    {"toolUse": {**SERVER, "input": {"q": "x"}}},
    {"toolResult": {**server_result, "content": [{"text": "x is y"}]}},
]
bedrock += [
    {
        "name": "bedrock server_tool_use block: no call",
        "parser": "bedrock",
        "events": [
            *bedrock_block(0, SERVER, '{"q":"x"}'),
            {"messageStop": {"stopReason": "end_turn"}},
        ],
        "done": [0, 0, 0, 0],
        "calls": [],
    },
    {
        "name": "bedrock server_tool_use and its result, then a tool call",
        "parser": "bedrock",
        "events": server_then_call,
        "done": [0] * (len(server_then_call) - 2) + [1, 0],
        "calls": [call("get_weather", WEATHER_ARGS, b_two[0][0])],
        "response": server_response,
    },
]

# Two messages in one stream: a messageStart starts the block indices at 0 again.
b_later = [("tooluse_3", "get_time", TIME)]
b_two_messages = bedrock_events(b_two[:1]) + bedrock_events(b_later)
bedrock.append(
    {
        "name": "bedrock two messages in one stream: a messageStart starts indices again",
        "parser": "bedrock",
        "events": b_two_messages,
        "done": bedrock_done(b_two_messages),
        "calls": [
            call("get_weather", WEATHER_ARGS, b_two[0][0]),
            call("get_time", TIME_ARGS, "tooluse_3"),
        ],
    }
)
files["bedrock"] = bedrock

# --- Cohere v2 chat stream ------------------------------------------------------------

COHERE_ARGS = '{"location":"Toronto"}'


def cohere_events(calls):
    events = [
        {
            "type": "message-start",
            "id": "7c1ee9b0-7f6c-4d2c-9b1e-3e5b0f0f3d21",
            "delta": {"message": {"role": "assistant"}},
        },
        {
            "type": "tool-plan-delta",
            "delta": {"message": {"tool_plan": "I will look up the weather."}},
        },
    ]
    for n, (id, name, arguments) in enumerate(calls):
        events.append(
            {
                "type": "tool-call-start",
                "index": n,
                "delta": {
                    "message": {
                        "tool_calls": {
                            "id": id,
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    }
                },
            }
        )
        for piece in pieces(arguments, 5):
            events.append(
                {
                    "type": "tool-call-delta",
                    "index": n,
                    "delta": {"message": {"tool_calls": {"function": {"arguments": piece}}}},
                }
            )
        events.append({"type": "tool-call-end", "index": n})
    events.append(
        {
            "type": "message-end",
            "delta": {
                "finish_reason": "TOOL_CALL",
                "usage": {"billed_units": {"input_tokens": 37, "output_tokens": 28}},
            },
        }
    )
    return events


c_calls = [
    ("get_weather_nsz5zm3w56q3", "get_weather", COHERE_ARGS),
    ("get_time_2", "get_time", TIME),
]
cohere = [
    {
        "name": "cohere v2 tool calls streamed (the tool use streaming guide's events)",
        "parser": "cohere",
        "events": cohere_events(c_calls),
        "done": [int(e["type"] == "tool-call-end") for e in cohere_events(c_calls)],
        "calls": [
            call("get_weather", {"location": "Toronto"}, "get_weather_nsz5zm3w56q3"),
            call("get_time", TIME_ARGS, "get_time_2"),
        ],
        "response": {
            "id": "7c1ee9b0-7f6c-4d2c-9b1e-3e5b0f0f3d21",
            "finish_reason": "TOOL_CALL",
            "message": {
                "role": "assistant",
                "tool_plan": "I will look up the weather.",
                "tool_calls": [
                    {"id": id, "type": "function", "function": {"name": name, "arguments": args}}
                    for id, name, args in c_calls
                ],
            },
        },
    },
    {
        "name": "cohere SSE transcript",
        "parser": "cohere",
        "events": [sse(cohere_events(c_calls), named=True)],
        "done": [2],
        "calls": [
            call("get_weather", {"location": "Toronto"}, "get_weather_nsz5zm3w56q3"),
            call("get_time", TIME_ARGS, "get_time_2"),
        ],
    },
]

# --- Cohere v1 chat stream (`event_type`; cohere-python `types/streamed_chat_response.py`)

V1_GENERATION = "b5ee2f3c-7c2a-4f5e-8a8e-2f1e5f6a9d01"
V1_PLAN = "I will use the query_daily_sales_report tool to find the sales summary."
v1_calls = [
    {"name": "query_daily_sales_report", "parameters": {"day": "2023-09-29"}},
    {"name": "query_product_catalog", "parameters": {"category": "Electronics"}},
]


def v1_response(tool_calls, text=""):
    response = {
        "response_id": "3c1a4a55-0d3b-4f7f-9f0a-6b2d1a7b8c9e",
        "text": text,
        "generation_id": V1_GENERATION,
        "chat_history": [{"role": "USER", "message": "Sales on 29 September 2023?"}],
        "finish_reason": "COMPLETE",
        "meta": {"api_version": {"version": "1"}},
    }
    if tool_calls:
        response["tool_calls"] = tool_calls
    return response


def v1_events(tool_calls, generation=True, text=None):
    events = [{"is_finished": False, "event_type": "stream-start", "generation_id": V1_GENERATION}]
    if text is not None:
        for piece in pieces(text, 12):
            events.append({"is_finished": False, "event_type": "text-generation", "text": piece})
    for piece in pieces(V1_PLAN, 20) if tool_calls else []:
        events.append(
            {
                "is_finished": False,
                "event_type": "tool-calls-chunk",
                "tool_call_delta": {"text": piece},
                "text": piece,
            }
        )
    for n, c in enumerate(tool_calls):
        events.append(
            {
                "is_finished": False,
                "event_type": "tool-calls-chunk",
                "tool_call_delta": {"index": n, "name": c["name"]},
            }
        )
        for piece in pieces(json.dumps(c["parameters"], indent=4), 7):
            events.append(
                {
                    "is_finished": False,
                    "event_type": "tool-calls-chunk",
                    "tool_call_delta": {"index": n, "parameters": piece},
                }
            )
    if tool_calls and generation:
        events.append(
            {
                "is_finished": False,
                "event_type": "tool-calls-generation",
                "text": V1_PLAN,
                "tool_calls": tool_calls,
            }
        )
    events.append(
        {
            "is_finished": True,
            "event_type": "stream-end",
            "finish_reason": "COMPLETE",
            "response": v1_response(tool_calls, text or ""),
        }
    )
    return events


V1_CALLS = [
    call("query_daily_sales_report", {"day": "2023-09-29"}),
    call("query_product_catalog", {"category": "Electronics"}),
]
v1_streamed = v1_events(v1_calls)
v1_without_generation = v1_events(v1_calls[:1], generation=False)
cohere += [
    {
        "name": "cohere v1 tool calls streamed (chunks, then tool-calls-generation, then "
        "stream-end repeating them)",
        "parser": "cohere",
        "events": v1_streamed,
        "done": [int(e["event_type"] == "tool-calls-generation") * 2 for e in v1_streamed],
        "calls": V1_CALLS,
        "response": v1_response(v1_calls),
        # The chunks give no call: the calls come whole with tool-calls-generation.
        "partial": [len(v1_streamed) - 3, []],
    },
    {
        "name": "cohere v1 only stream-end: its response's calls, once",
        "parser": "cohere",
        "events": [v1_streamed[-1]],
        "done": [2],
        "calls": V1_CALLS,
        "response": v1_streamed[-1],  # given alone to `parse`: the same
    },
    {
        "name": "cohere v1 JSON lines",
        "parser": "cohere",
        "events": [compact(e) for e in v1_streamed],
        "done": [int(e["event_type"] == "tool-calls-generation") * 2 for e in v1_streamed],
        "calls": V1_CALLS,
    },
    {
        "name": "cohere v1 two responses in one stream, the second without tool-calls-generation",
        "parser": "cohere",
        "events": v1_streamed + v1_without_generation,
        "done": [int(e["event_type"] == "tool-calls-generation") * 2 for e in v1_streamed]
        + [int(e["event_type"] == "stream-end") for e in v1_without_generation],
        "calls": V1_CALLS + V1_CALLS[:1],
    },
    {
        "name": "cohere v1 text only",
        "parser": "cohere",
        "events": v1_events([], text="On 29 September 2023 the sales were 10000."),
        "calls": [],
        "response": v1_response([], "On 29 September 2023 the sales were 10000."),
    },
]
files["cohere"] = cohere

# --- Gemini streamGenerateContent -----------------------------------------------------


def gemini_chunk(parts, finish=None):
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash"}


g_events = [
    gemini_chunk([{"functionCall": {"name": "get_weather", "args": WEATHER_ARGS}}]),
    gemini_chunk(
        [
            {"functionCall": {"name": "get_time", "args": TIME_ARGS}},
            {"functionCall": {"name": "list_files"}},
        ]
    ),
    {
        **gemini_chunk([{"text": ""}], finish="STOP"),
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 12},
    },
]
gemini = [
    {
        "name": "gemini whole function calls per chunk",
        "parser": "gemini",
        "events": g_events,
        "done": [1, 2, 0],
        "calls": [
            call("get_weather", WEATHER_ARGS),
            call("get_time", TIME_ARGS),
            call("list_files", {}),
        ],
        "response": gemini_chunk(
            [
                {"functionCall": {"name": "get_weather", "args": WEATHER_ARGS}},
                {"functionCall": {"name": "get_time", "args": TIME_ARGS}},
                {"functionCall": {"name": "list_files"}},
            ],
            finish="STOP",
        ),
    },
    {
        "name": "gemini SSE transcript (alt=sse)",
        "parser": "gemini",
        "events": [sse(g_events)],
        "done": [3],
        "calls": [
            call("get_weather", WEATHER_ARGS),
            call("get_time", TIME_ARGS),
            call("list_files", {}),
        ],
    },
]


def fc(**fields):
    return gemini_chunk([{"functionCall": fields}])


streamed_args = [
    fc(name="get_weather", id="fc_1", willContinue=True),
    fc(
        partialArgs=[{"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True}],
        willContinue=True,
    ),
    fc(partialArgs=[{"jsonPath": "$.location", "stringValue": "ton, MA"}], willContinue=True),
    fc(
        partialArgs=[
            {"jsonPath": "$.days", "numberValue": 2.5},
            {"jsonPath": "$.units[1]", "stringValue": "celsius"},
            {"jsonPath": "$.detail.hourly", "boolValue": True},
            {"jsonPath": "$['note']", "nullValue": "NULL_VALUE"},
        ],
        willContinue=True,
    ),
    {**fc(), "usageMetadata": {"promptTokenCount": 40}},
]
weather_args = {
    "location": "Boston, MA",
    "days": 2.5,
    "units": [None, "celsius"],
    "detail": {"hourly": True},
    "note": None,
}
gemini += [
    {
        "name": "gemini 3 streamed arguments (partial_args, will_continue)",
        "parser": "gemini",
        "events": streamed_args,
        "done": [0, 0, 0, 0, 1],
        "calls": [call("get_weather", weather_args, "fc_1")],
        "partial": [1, [call("get_weather", {"location": "Bos"}, "fc_1")]],
    },
    {
        "name": "gemini 3 streamed arguments, then a whole call: the first completes",
        "parser": "gemini",
        "events": [*streamed_args[:3], fc(name="get_time", args=TIME_ARGS)],
        "done": [0, 0, 0, 2],
        "calls": [
            call("get_weather", {"location": "Boston, MA"}, "fc_1"),
            call("get_time", TIME_ARGS),
        ],
    },
    {
        "name": "gemini 3 stream cut while its arguments go on: the call is kept",
        "parser": "gemini",
        "events": streamed_args[:2],
        "done": [0, 0],
        "calls": [call("get_weather", {"location": "Bos"}, "fc_1")],
    },
    {
        "name": "gemini 3 chunk with a name and partial_args: the call with its own pieces",
        "parser": "gemini",
        "events": [
            fc(
                name="get_weather",
                id="fc_1",
                partialArgs=streamed_args[1]["candidates"][0]["content"]["parts"][0][
                    "functionCall"
                ]["partialArgs"],
                willContinue=True,
            )
        ],
        "done": [0],
        "calls": [call("get_weather", {"location": "Bos"}, "fc_1")],
    },
    {
        "name": "gemini 3 stream without its first chunk: pieces give no call, and an error",
        "parser": "gemini",
        "events": streamed_args[1:3],
        "done": [0, 0],
        "calls": [],
        "response": streamed_args[1],
        "error": (
            "a functionCall with partialArgs but no name: a piece of a stream; "
            "read the whole stream (parser.stream(), --stream)"
        ),
    },
]
gemini[-2]["response"] = gemini[-2]["events"][0]

# A Live API session (google-genai `LiveServerMessage`s, the Live API reference's
# BidiGenerateContentServerMessage): a `toolCall` message holds whole calls, each
# completed as it comes; the other messages hold none.
live_calls = [
    {"id": "function-call-8402", "name": "turn_on_the_lights", "args": {}},
    {"id": "function-call-8403", "name": "get_weather", "args": {"city": "Paris"}},
]
live = [
    {"setupComplete": {}},
    {"serverContent": {"modelTurn": {"parts": [{"text": "Let me check."}]}}},
    {"toolCall": {"functionCalls": live_calls}},
    {"serverContent": {"turnComplete": True}},
]
gemini.append(
    {
        "name": "gemini Live API session: a toolCall message's calls",
        "parser": "gemini",
        "events": live,
        "done": [0, 0, 2, 0],
        "calls": [
            call("turn_on_the_lights", {}, "function-call-8402"),
            call("get_weather", {"city": "Paris"}, "function-call-8403"),
        ],
        "response": live[2],
    }
)
files["gemini"] = gemini

# --- Gemini Interactions API streaming -------------------------------------------------
# Server-sent events named by `event_type` (google-genai `interactions.InteractionSSEEvent`:
# `StepStart`, `StepDelta` with an `ArgumentsDelta`, `StepStop`, `InteractionCreatedEvent`,
# `InteractionCompletedEvent`, `ErrorEvent`). A stream skips the input step; a
# `function_call` step starts with `arguments: {}` and its text comes in `arguments_delta`.

GI_ID = "v1_ChdXS0l4YWZXTk9xbk0SF1dLSXhhZlhOT3FuTQ"


def gi_interaction(status, steps=None):
    interaction = {"id": GI_ID, "object": "interaction", "model": "gemini-3-flash-preview"}
    interaction["status"] = status
    if steps is not None:
        interaction["steps"] = steps
    return interaction


def gi_events(calls, size=7, thought=True, completed=None):
    """The events of a turn: a thought step, then each call `(id, name, arguments text)`
    as a step of its own, its text in pieces of `size`."""
    events = [{"event_type": "interaction.created", "interaction": gi_interaction("in_progress")}]
    index = 0
    if thought:
        events += [
            {"event_type": "step.start", "index": 0, "step": {"type": "thought"}},
            {"event_type": "step.delta", "index": 0,
             "delta": {"type": "thought_signature", "signature": "CiQB0e2Kb3Rlc3Q"}},
            {"event_type": "step.stop", "index": 0},
        ]  # fmt: skip
        index = 1
    for id, name, text in calls:
        step = {"type": "function_call", "id": id, "name": name, "arguments": {}}
        events.append({"event_type": "step.start", "index": index, "step": step})
        for piece in pieces(text, size):
            delta = {"type": "arguments_delta", "arguments": piece}
            events.append({"event_type": "step.delta", "index": index, "delta": delta})
        events.append({"event_type": "step.stop", "index": index})
        index += 1
    end = gi_interaction("requires_action" if calls else "completed", completed)
    events.append({"event_type": "interaction.completed", "interaction": end})
    return events


def gi_response(calls):
    steps = [{"type": "thought", "signature": "CiQB0e2Kb3Rlc3Q"}]
    steps += [
        {"type": "function_call", "id": id, "name": name, "arguments": json.loads(text)}
        for id, name, text in calls
    ]
    return gi_interaction("requires_action", steps)


def gi_done(events):
    return [1 if e["event_type"] == "step.stop" and i > 3 else 0 for i, e in enumerate(events)]


def gi_sse(events):
    return "".join(f"event: {e['event_type']}\ndata: {compact(e)}\n\n" for e in events)


gi_one = [("9kv2qaxp", "get_weather", compact(WEATHER_ARGS))]
gi_two = [*gi_one, ("2mz7rq4t", "get_time", compact(TIME_ARGS))]
gi_cut = [("u1", "traduire", json.dumps({"texte": "«Où est la bibliothèque?» 📚\n\\ok"}))]
interactions = [
    {
        "name": "gemini-interactions one call, its arguments in deltas",
        "parser": "gemini-interactions",
        "events": gi_events(gi_one),
        "calls": [call("get_weather", WEATHER_ARGS, "9kv2qaxp")],
        "response": gi_response(gi_one),
    },
    {
        "name": "gemini-interactions two calls, one step each",
        "parser": "gemini-interactions",
        "events": gi_events(gi_two, size=5),
        "calls": [
            call("get_weather", WEATHER_ARGS, "9kv2qaxp"),
            call("get_time", TIME_ARGS, "2mz7rq4t"),
        ],
        "response": gi_response(gi_two),
    },
    {
        "name": "gemini-interactions cuts inside an escape and a UTF-8 character",
        "parser": "gemini-interactions",
        "events": gi_events(gi_cut, size=1, thought=False),
        "calls": [call("traduire", {"texte": "«Où est la bibliothèque?» 📚\n\\ok"}, "u1")],
    },
    {
        "name": "gemini-interactions a zero-argument tool: no delta, its {} stands",
        "parser": "gemini-interactions",
        "events": gi_events([("z1", "list_files", "")]),
        "calls": [call("list_files", {}, "z1")],
    },
    {
        "name": "gemini-interactions a text answer: no calls",
        "parser": "gemini-interactions",
        "events": [
            *gi_events([])[:-1],
            {
                "event_type": "step.start",
                "index": 1,
                "step": {"type": "model_output", "content": [{"type": "text", "text": ""}]},
            },
            {"event_type": "step.delta", "index": 1, "delta": {"type": "text", "text": "Hello"}},
            {"event_type": "step.stop", "index": 1},
            gi_events([])[-1],
        ],
        "done": [0] * 8,
        "calls": [],
    },
    {
        "name": "gemini-interactions interaction.completed holding the steps completes them",
        "parser": "gemini-interactions",
        "events": [
            gi_events(gi_one)[0],
            {"event_type": "interaction.completed", "interaction": gi_response(gi_two)},
        ],
        "done": [0, 2],
        "calls": [
            call("get_weather", WEATHER_ARGS, "9kv2qaxp"),
            call("get_time", TIME_ARGS, "2mz7rq4t"),
        ],
    },
    {
        "name": "gemini-interactions a call cut off: completed by interaction.completed",
        "parser": "gemini-interactions",
        "events": [
            e for e in gi_events(gi_one) if e["event_type"] != "step.stop" or e["index"] == 0
        ],
        "calls": [call("get_weather", WEATHER_ARGS, "9kv2qaxp")],
    },
    {
        "name": "gemini-interactions SSE transcript",
        "parser": "gemini-interactions",
        "events": [gi_sse(gi_events(gi_two))],
        "done": [2],
        "calls": [
            call("get_weather", WEATHER_ARGS, "9kv2qaxp"),
            call("get_time", TIME_ARGS, "2mz7rq4t"),
        ],
    },
]
for case in interactions:
    if "done" not in case:
        case["done"] = gi_done(case["events"])
interactions[3]["done"] = gi_done(interactions[3]["events"])
interactions[6]["done"] = [0] * (len(interactions[6]["events"]) - 1) + [1]
interactions[2]["done"] = [1 if e["event_type"] == "step.stop" else 0
                           for e in interactions[2]["events"]]  # fmt: skip
files["gemini-interactions"] = interactions

# --- Ollama NDJSON chunks -------------------------------------------------------------


def ollama_chunk(tool_calls=None, done=False):
    message = {"role": "assistant", "content": ""}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    out = {"model": "llama3.2", "created_at": "2025-01-01T00:00:00.000Z", "message": message}
    out["done"] = done
    if done:
        out |= {"done_reason": "stop", "total_duration": 885095291, "eval_count": 31}
    return out


o_calls = [
    {"function": {"name": "get_weather", "arguments": WEATHER_ARGS}},
    {"function": {"name": "get_time", "arguments": TIME_ARGS}},
]
o_events = [ollama_chunk([o_calls[0]]), ollama_chunk([o_calls[1]]), ollama_chunk(done=True)]
ollama = [
    {
        "name": "ollama whole tool calls per chunk",
        "parser": "ollama",
        "events": o_events,
        "done": [1, 1, 0],
        "calls": [call("get_weather", WEATHER_ARGS), call("get_time", TIME_ARGS)],
        "response": {**ollama_chunk(o_calls, done=True)},
    },
    {
        "name": "ollama NDJSON lines fed as text",
        "parser": "ollama",
        "events": [compact(e) for e in o_events],
        "done": [1, 1, 0],
        "calls": [call("get_weather", WEATHER_ARGS), call("get_time", TIME_ARGS)],
    },
]


def cut_values(texts, size, opening="", between="\n", closing="\n"):
    """JSON texts written one after the other (`opening`, `between` and `closing` around
    them: NDJSON, or a JSON array) as UTF-8, cut every `size` bytes, as an HTTP body
    comes off the socket: the pieces (`bytes`), and where each text ends (its last byte's
    offset), so that `done` can count the calls each piece completes."""
    body, ends = opening.encode(), []
    for n, text in enumerate(texts):
        body += (between if n else "").encode() + text.encode()
        ends.append(len(body) - 1)
    body += closing.encode()
    return [{"$hex": piece.hex()} for piece in pieces(body, size)], ends


def done_per_piece(ends, counts, size, total):
    done = [0] * total
    for end, count in zip(ends, counts, strict=True):
        done[end // size] += count
    return done


o_body = [ollama_chunk(), *o_events]
o_body[0]["message"]["content"] = 'Je v\u00e9rifie la m\u00e9t\u00e9o \u2600\ufe0f {"[\\"'
o_pieces, o_ends = cut_values([compact(e) for e in o_body], 37)
ollama.append(
    {
        "name": "ollama HTTP body (NDJSON) cut every 37 bytes, inside UTF-8 characters and "
        "strings holding brackets: each line read once its object is complete",
        "parser": "ollama",
        "events": o_pieces,
        "done": done_per_piece(o_ends, [0, 1, 1, 0], 37, len(o_pieces)),
        "calls": [call("get_weather", WEATHER_ARGS), call("get_time", TIME_ARGS)],
    }
)
o_lines = [compact(e) + "\n" for e in o_events]
ollama.append(
    {
        "name": "ollama NDJSON: two lines in one piece, the second cut, then the rest",
        "parser": "ollama",
        "events": [o_lines[0] + o_lines[1][:40], o_lines[1][40:] + o_lines[2]],
        "done": [1, 1],
        "calls": [call("get_weather", WEATHER_ARGS), call("get_time", TIME_ARGS)],
    }
)
files["ollama"] = ollama

# Gemini's REST streamGenerateContent without `alt=sse`: one JSON array whose items are
# the chunks, pretty-printed, written as they come.
g_pieces, g_ends = cut_values([json.dumps(e, indent=2) for e in g_events], 29, "[", ",\r\n", "]")
gemini.append(
    {
        "name": "gemini REST stream without alt=sse (a JSON array of chunks) cut every 29 "
        "bytes: each chunk read as it completes",
        "parser": "gemini",
        "events": g_pieces,
        "done": done_per_piece(g_ends, [1, 2, 0], 29, len(g_pieces)),
        "calls": [
            call("get_weather", WEATHER_ARGS),
            call("get_time", TIME_ARGS),
            call("list_files", {}),
        ],
    }
)

# --- Streams that failed: the provider's error event -----------------------------------
# Each provider's documented error event (Anthropic's streaming guide "Error events",
# OpenAI's `{"error": ...}` data and Responses' `error` / `response.failed` events, the
# Bedrock runtime stream's exceptions, Gemini's and Ollama's error objects). Where no call
# came, the response's `error` says so; calls that came are kept, without an error. The
# SDKs raise these rather than yield them, hence `"sdk": false`.


def failed(fmt, name, events, error=None, calls=()):
    done = [0] * len(events)
    case = {"name": f"{fmt} {name}", "parser": fmt, "events": events, "done": done}
    case |= {"calls": list(calls), "sdk": False}
    if error is not None:
        case["error"] = f"stream error: {error}"
    files[fmt].append(case)


OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
failed("anthropic", "stream that failed: an error event", [*anthropic_events([])[:3], OVERLOADED],
       "overloaded_error: Overloaded")  # fmt: skip
with_call = anthropic_events(one)[:-2]
failed("anthropic", "error event after a call: the call, no error", [*with_call, OVERLOADED],
       calls=[call("get_weather", WEATHER_ARGS, one[0][0])])  # fmt: skip
files["anthropic"][-1]["done"] = [*done_at_stops(with_call), 0]
SERVER_ERROR = {
    "message": "The server had an error while processing your request. Sorry about that!",
    "type": "server_error",
    "param": None,
    "code": None,
}
failed("openai", "stream that failed: an error object", [chunk(role=True), {"error": SERVER_ERROR}],
       f"server_error: {SERVER_ERROR['message']}")  # fmt: skip
failed("openai-responses", "stream that failed: an error event",
       [responses_events()[0], {"type": "error", "code": "ERR_SOMETHING",
        "message": "Something went wrong", "param": None, "sequence_number": 1}],
       "ERR_SOMETHING: Something went wrong")  # fmt: skip
failed("openai-responses", "stream that failed: response.failed",
       [responses_events()[0], {"type": "response.failed", "sequence_number": 1, "response": {
           **RESPONSE, "status": "failed", "output": [], "error": {
               "code": "server_error", "message": "The model failed to generate a response."}}}],
       "server_error: The model failed to generate a response.")  # fmt: skip
THROTTLED = {"message": "Too many requests, please wait before trying again."}
failed("bedrock", "stream that failed: a throttlingException",
       [bedrock_events([])[0], {"throttlingException": THROTTLED}],
       f"throttlingException: {THROTTLED['message']}")  # fmt: skip
failed("bedrock", "only an exception (auto recognizes no event: the error still says why)",
       [{"modelStreamErrorException": {"message": "Model stream error", "originalStatusCode": 500}}],
       "modelStreamErrorException: Model stream error")  # fmt: skip
UNAVAILABLE = {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
failed("gemini", "stream that failed: an error object",
       [gemini_chunk([{"text": "Let me"}]), {"error": UNAVAILABLE}],
       "503: The model is overloaded.")  # fmt: skip
# Cohere: v2's `message-end` `delta.error` (cohere-python `ChatMessageEndEventDelta`), else
# a finish reason of a generation that failed (v2 `ERROR`, `TIMEOUT`; v1's `stream-end`
# `ERROR`, `ERROR_TOXIC`, `ERROR_LIMIT`).
C_FAILED = {"finish_reason": "ERROR", "error": "internal server error, this has been reported"}
failed("cohere", "v2 stream that failed: message-end's delta.error",
       [*cohere_events([])[:-1], {"type": "message-end", "delta": C_FAILED}],
       C_FAILED["error"])  # fmt: skip
failed("cohere", "v2 stream that timed out: its finish reason",
       [*cohere_events([])[:-1], {"type": "message-end", "delta": {"finish_reason": "TIMEOUT"}}],
       "TIMEOUT")  # fmt: skip
failed("cohere", "v1 stream stopped by the content filters: stream-end's ERROR_TOXIC",
       [*v1_events([], text="I")[:-1], {**v1_events([])[-1], "finish_reason": "ERROR_TOXIC"}],
       "ERROR_TOXIC")  # fmt: skip
for case in files["cohere"][-3:]:
    case["sdk"] = True  # the SDKs yield these events: they are no error events
GI_ERROR = {"code": "RESOURCE_EXHAUSTED", "message": "Quota exceeded for this model."}
failed("gemini-interactions", "stream that failed: an error event",
       [gi_events([])[0], {"event_type": "error", "error": GI_ERROR}],
       "RESOURCE_EXHAUSTED: Quota exceeded for this model.")  # fmt: skip
for case in files["gemini-interactions"][-1:]:
    case["sdk"] = True  # the SDK yields its ErrorEvent
failed("ollama", "stream that failed: an error line",
       [ollama_chunk(), {"error": "model runner has unexpectedly stopped"}],
       "model runner has unexpectedly stopped")  # fmt: skip

# --- The OpenAI Realtime API (`response.*` server events, as the Responses API's) ---------
# The Realtime API reference's server events: a function call item added, its argument
# deltas and `.done`, then `response.done`, whose `response` (a `realtime.response`) holds
# the whole output, `status_details.error` where its `status` is `failed`.

RT_ITEM = {"id": "item_CYn3f8", "object": "realtime.item", "type": "function_call"}
RT_ITEM |= {"name": "get_weather", "call_id": "call_8f2kLq1Z"}
RT_RESPONSE = {"id": "resp_CYn3f7", "object": "realtime.response", "conversation_id": "conv_1"}


def realtime_events(arguments=WEATHER):
    base = {"response_id": RT_RESPONSE["id"], "item_id": RT_ITEM["id"], "output_index": 0}
    ids = iter(f"event_{n}" for n in range(1000))
    events = [
        {"type": "response.created", "event_id": next(ids),
         "response": {**RT_RESPONSE, "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "event_id": next(ids), **base,
         "item": {**RT_ITEM, "status": "in_progress", "arguments": ""}},
    ]  # fmt: skip
    delta = {"type": "response.function_call_arguments.delta", **base}
    for piece in pieces(arguments, 9):
        events.append(
            {**delta, "event_id": next(ids), "call_id": RT_ITEM["call_id"], "delta": piece}
        )
    item = {**RT_ITEM, "status": "completed", "arguments": arguments}
    return [
        *events,
        {"type": "response.function_call_arguments.done", "event_id": next(ids), **base,
         "call_id": RT_ITEM["call_id"], "arguments": arguments},
        {"type": "response.output_item.done", "event_id": next(ids), **base, "item": item},
        {"type": "response.done", "event_id": next(ids),
         "response": {**RT_RESPONSE, "status": "completed", "output": [item]}},
    ]  # fmt: skip


realtime = realtime_events()
RT_CALL = call("get_weather", WEATHER_ARGS, RT_ITEM["call_id"])
RT_FAILED = {"type": "response.done", "event_id": "event_9", "response": {
    **RT_RESPONSE, "status": "failed", "output": [], "status_details": {
        "type": "failed", "error": {"type": "server_error", "code": "internal_error"}}}}  # fmt: skip
files["openai-responses"] += [
    {
        "name": "openai-responses Realtime API function call (its server events)",
        "parser": "openai-responses",
        "events": realtime,
        "done": [int(e["type"] == "response.function_call_arguments.done") for e in realtime],
        "calls": [RT_CALL],
    },
    {
        "name": "openai-responses Realtime response.done given alone: its output's calls",
        "parser": "openai-responses",
        "events": realtime[-1:],
        "done": [1],
        "calls": [RT_CALL],
        "response": realtime[-1],
    },
    {
        "name": "openai-responses Realtime response.done of status failed",
        "parser": "openai-responses",
        "events": [realtime[0], RT_FAILED],
        "done": [0, 0],
        "calls": [],
        "error": "stream error: internal_error",
    },
]

# --- Events given alone -----------------------------------------------------------------
# A log may keep only some events of a stream (the last one, which holds the whole
# response, or the event of an error). `parse` reads an event given alone as a stream of
# that one event: the case's `response` is the event itself. (OpenAI chat chunks stay
# responses without calls, as russo reads them; Gemini and Ollama chunks are responses.)

CASES_ALONE = [
    ("openai-responses", "response.completed", full[-1], 1,
     [call("get_weather", WEATHER_ARGS, "call_unLAR8MvFNptuiZK6K6HCy5k")], None),
    ("openai-responses", "a response.failed event", files["openai-responses"][-4]["events"][1],
     0, [], "server_error: The model failed to generate a response."),
    ("openai-responses", "an error event", files["openai-responses"][-5]["events"][1], 0, [],
     "ERR_SOMETHING: Something went wrong"),
    ("anthropic", "content_block_start of a tool_use block (its input so far: {})",
     next(e for e in anthropic_events(one) if e.get("content_block", {}).get("type") == "tool_use"),
     0, [call("get_weather", {}, one[0][0])], None),
    ("anthropic", "an error event", OVERLOADED, 0, [], "overloaded_error: Overloaded"),
    ("bedrock", "contentBlockStart of a toolUse block", bedrock_events(b_two)[3], 0,
     [call("get_weather", {}, b_two[0][0])], None),
    ("bedrock", "a runtime exception", {"throttlingException": THROTTLED}, 0, [],
     f"throttlingException: {THROTTLED['message']}"),
    ("cohere", "v1 tool-calls-generation", v1_streamed[-2], 2, V1_CALLS, None),
    ("gemini-interactions", "interaction.completed holding the steps",
     {"event_type": "interaction.completed", "interaction": gi_response(gi_one)}, 1,
     [call("get_weather", WEATHER_ARGS, "9kv2qaxp")], None),
    ("gemini-interactions", "an error event", {"event_type": "error", "error": GI_ERROR}, 0, [],
     "RESOURCE_EXHAUSTED: Quota exceeded for this model."),
]  # fmt: skip
for fmt, what, event, done, calls, error in CASES_ALONE:
    case = {"name": f"{fmt} {what} given alone", "parser": fmt, "events": [event]}
    case |= {"done": [done], "calls": calls, "response": event}
    if error is not None:
        case["error"] = f"stream error: {error}"
    files[fmt].append(case)

here = Path(__file__).parent
for name, cases in files.items():
    for case in cases:
        if case.get("done") is None:
            case.pop("done", None)
    text = json.dumps(cases, indent=1, ensure_ascii=False) + "\n"
    (here / f"{name}.stream.json").write_text(text, "utf-8")
    print(f"{name}.stream.json: {len(cases)} cases")
