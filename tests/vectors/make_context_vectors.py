"""Writes tests/vectors/context.json: the context columns (`model`, `response_id`,
`finish_reason`, `choice_index`, `call_type`) of one record of each format's shapes, the
expected rows written here by hand from the providers' documented fields. Read by
tests/test_context.py (both backends) and tests/context_vectors.rs (`cargo test`).

Each vector: `format` (a `--format` name), `record` (the JSONL line: a JSON value,
written compact, or `text`, the line as it is), and `rows`: for each row of
`to_arrow`, `[name, model, response_id, finish_reason, choice_index, call_type]`;
optionally `text_dialect` (the parser's), and `by_record`: `[model, response_id,
calls]` of the record's row with `rows="records"` (a record without calls has its
model and id too)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def call(name: str, arguments: str = "{}", id: str = "call_1") -> dict[str, Any]:
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai(choices: list[dict[str, Any]], **top: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o",
        **top,
        "choices": choices,
    }


def choice(index: Any, finish: Any, *calls: dict[str, Any]) -> dict[str, Any]:
    found = {"message": {"role": "assistant", "content": None, "tool_calls": list(calls)}}
    if index is not None:
        found["index"] = index
    return {**found, "finish_reason": finish}


HERMES_TEXT = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
GEMINI_CALL = {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
RESPONSES_TOP = {"id": "resp_1", "object": "response", "model": "gpt-4.1-2025-04-14"}
FUNCTION_ITEM = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
ANTHROPIC = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}],
    "stop_reason": "tool_use",
    "stop_sequence": None,
}
BEDROCK = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "tooluse_1", "name": "f", "input": {}}}],
        }
    },
    "stopReason": "tool_use",
}

VECTORS: list[dict[str, Any]] = [
    {
        "name": "openai: model, id, the choice's finish_reason and index",
        "format": "openai",
        "record": openai([choice(0, "tool_calls", call("f"))]),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "tool_calls", 0, "function"]],
    },
    {
        "name": "openai: a custom tool call beside a function call",
        "format": "openai",
        "record": openai(
            [
                choice(
                    0,
                    "tool_calls",
                    call("f"),
                    {
                        "id": "call_2",
                        "type": "custom",
                        "custom": {"name": "run_sql", "input": "SELECT 1"},
                    },
                )
            ]
        ),
        "rows": [
            ["f", "gpt-4o", "chatcmpl-1", "tool_calls", 0, "function"],
            ["run_sql", "gpt-4o", "chatcmpl-1", "tool_calls", 0, "custom"],
        ],
    },
    {
        "name": "openai n=2: each call has its own choice's finish reason and index",
        "format": "openai",
        "record": openai(
            [
                choice(0, "tool_calls", call("f")),
                choice(1, "length", call("g"), call("h", id="call_2")),
            ]
        ),
        "rows": [
            ["f", "gpt-4o", "chatcmpl-1", "tool_calls", 0, "function"],
            ["g", "gpt-4o", "chatcmpl-1", "length", 1, "function"],
            ["h", "gpt-4o", "chatcmpl-1", "length", 1, "function"],
        ],
    },
    {
        "name": "openai: no index (the choice's position), a finish reason that is not a string",
        "format": "openai",
        "record": openai([choice(None, None), choice(None, 7, call("f"))], model=None),
        "rows": [["f", None, "chatcmpl-1", None, 1, "function"]],
    },
    {
        "name": "openai: an index beyond 32 bits is the position",
        "format": "openai",
        "record": openai([choice(2**40, "stop", call("f"))]),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "stop", 0, "function"]],
    },
    {
        "name": "openai: legacy function_call",
        "format": "openai",
        "record": openai(
            [
                {
                    "index": 0,
                    "finish_reason": "function_call",
                    "message": {
                        "role": "assistant",
                        "function_call": {"name": "f", "arguments": "{}"},
                    },
                }
            ]
        ),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "function_call", 0, "function"]],
    },
    {
        "name": "openai Batch API line: the inner response's fields",
        "format": "openai",
        "record": {
            "id": "batch_req_1",
            "custom_id": "request-0",
            "response": {
                "status_code": 200,
                "request_id": "r1",
                "body": openai(
                    [choice(0, "tool_calls", call("f"))],
                    id="chatcmpl-9",
                    model="gpt-4o-mini-2024-07-18",
                ),
            },
            "error": None,
        },
        "rows": [["f", "gpt-4o-mini-2024-07-18", "chatcmpl-9", "tool_calls", 0, "function"]],
    },
    {
        "name": "auto: the detected format's fields",
        "format": "auto",
        "record": openai([choice(0, "tool_calls", call("f"))]),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "tool_calls", 0, "function"]],
    },
    {
        "name": "openai-responses: model, id, status; custom_tool_call",
        "format": "openai-responses",
        "record": {
            **RESPONSES_TOP,
            "status": "completed",
            "incomplete_details": None,
            "output": [
                FUNCTION_ITEM,
                {
                    "type": "custom_tool_call",
                    "call_id": "call_2",
                    "name": "run_sql",
                    "input": "SELECT 1",
                },
            ],
        },
        "rows": [
            ["f", "gpt-4.1-2025-04-14", "resp_1", "completed", None, "function"],
            ["run_sql", "gpt-4.1-2025-04-14", "resp_1", "completed", None, "custom"],
        ],
    },
    {
        "name": "openai-responses: incomplete, the reason from incomplete_details",
        "format": "openai-responses",
        "record": {
            **RESPONSES_TOP,
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "output": [FUNCTION_ITEM],
        },
        "rows": [["f", "gpt-4.1-2025-04-14", "resp_1", "max_output_tokens", None, "function"]],
    },
    {
        "name": "anthropic: model, id, stop_reason",
        "format": "anthropic",
        "record": ANTHROPIC,
        "rows": [["f", "claude-sonnet-4-5-20250929", "msg_01", "tool_use", None, "function"]],
    },
    {
        "name": "anthropic Message Batches line: the message's fields",
        "format": "anthropic",
        "record": {"custom_id": "req-1", "result": {"type": "succeeded", "message": ANTHROPIC}},
        "rows": [["f", "claude-sonnet-4-5-20250929", "msg_01", "tool_use", None, "function"]],
    },
    {
        "name": "gemini REST: modelVersion, responseId, the candidate's finishReason (index 0 omitted)",
        "format": "gemini",
        "record": {
            "candidates": [
                {"content": {"role": "model", "parts": [GEMINI_CALL]}, "finishReason": "STOP"}
            ],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "abc123",
        },
        "rows": [["get_weather", "gemini-2.5-flash", "abc123", "STOP", 0, "function"]],
    },
    {
        "name": "gemini SDK dump: snake_case fields; two candidates",
        "format": "gemini",
        "record": {
            "candidates": [
                {"content": {"parts": [{"text": "hi"}]}, "finish_reason": "STOP", "index": 0},
                {
                    "content": {"parts": [{"function_call": {"name": "f", "args": {}}}]},
                    "finish_reason": "MAX_TOKENS",
                    "index": 1,
                },
            ],
            "model_version": "gemini-2.0-flash-001",
            "response_id": "r-2",
        },
        "rows": [["f", "gemini-2.0-flash-001", "r-2", "MAX_TOKENS", 1, "function"]],
    },
    {
        "name": "gemini Live API message: calls outside candidates",
        "format": "gemini",
        "record": {"toolCall": {"functionCalls": [{"id": "c1", "name": "f", "args": {}}]}},
        "rows": [["f", None, None, None, None, "function"]],
    },
    {
        "name": "gemini in a Vertex AI batch line",
        "format": "gemini",
        "record": {
            "status": "",
            "request": {"contents": []},
            "response": {
                "candidates": [
                    {"content": {"role": "model", "parts": [GEMINI_CALL]}, "finishReason": "STOP"}
                ],
                "modelVersion": "gemini-2.0-flash-001",
            },
        },
        "rows": [["get_weather", "gemini-2.0-flash-001", None, "STOP", 0, "function"]],
    },
    {
        "name": "gemini-interactions: model, id, status",
        "format": "gemini-interactions",
        "record": {
            "id": "v1_1",
            "object": "interaction",
            "model": "gemini-3-flash-preview",
            "status": "requires_action",
            "steps": [{"type": "function_call", "id": "k1", "name": "f", "arguments": {}}],
        },
        "rows": [["f", "gemini-3-flash-preview", "v1_1", "requires_action", None, "function"]],
    },
    {
        "name": "bedrock Converse: stopReason; no model or id",
        "format": "bedrock",
        "record": BEDROCK,
        "rows": [["f", None, None, "tool_use", None, "function"]],
    },
    {
        "name": "bedrock batch inference line: the output's stopReason",
        "format": "bedrock",
        "record": {"recordId": "CALL1", "modelInput": {"messages": []}, "modelOutput": BEDROCK},
        "rows": [["f", None, None, "tool_use", None, "function"]],
    },
    {
        "name": "ollama: model, done_reason",
        "format": "ollama",
        "record": {
            "model": "llama3.2",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": "f", "arguments": {}}}],
            },
            "done_reason": "stop",
            "done": True,
        },
        "rows": [["f", "llama3.2", None, "stop", None, "function"]],
    },
    {
        "name": "cohere v2: id, finish_reason",
        "format": "cohere",
        "record": {
            "id": "7dc0",
            "message": {"role": "assistant", "tool_calls": [call("f")]},
            "finish_reason": "TOOL_CALL",
        },
        "rows": [["f", None, "7dc0", "TOOL_CALL", None, "function"]],
    },
    {
        "name": "cohere v1: response_id, finish_reason",
        "format": "cohere",
        "record": {
            "response_id": "3c1a",
            "generation_id": "b5ee",
            "text": "",
            "tool_calls": [{"name": "f", "parameters": {}}],
            "finish_reason": "COMPLETE",
        },
        "rows": [["f", None, "3c1a", "COMPLETE", None, "function"]],
    },
    {
        "name": "cohere v1 without response_id: generation_id",
        "format": "cohere",
        "record": {
            "generation_id": "b5ee",
            "text": "",
            "tool_calls": [{"name": "f"}],
            "finish_reason": "COMPLETE",
        },
        "rows": [["f", None, "b5ee", "COMPLETE", None, "function"]],
    },
    {
        "name": "json: no context; calls are functions",
        "format": "json",
        "record": {"model": "m", "tool_calls": [{"name": "f", "arguments": {}}]},
        "rows": [["f", None, None, None, None, "function"]],
    },
    {
        "name": "a record holding a stream: only the call types",
        "format": "openai",
        "record": [
            {
                "id": "c1",
                "model": "gpt-4o",
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "call_1",
                                    "type": "custom",
                                    "custom": {"name": "run_sql", "input": "SELECT 1"},
                                }
                            ]
                        },
                    }
                ],
            },
            {
                "id": "c1",
                "model": "gpt-4o",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}],
            },
        ],
        "rows": [["run_sql", None, None, None, None, "custom"]],
    },
    {
        "name": "litert: calls read from text",
        "format": "litert",
        "text": "<|tool_call>call:f{a:1}<tool_call|>",
        "rows": [["f", None, None, None, None, "litert"]],
    },
    {
        "name": "a raw-text dialect: its name",
        "format": "hermes",
        "text": '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>',
        "rows": [["f", None, None, None, None, "hermes"]],
    },
    {
        "name": "openai without calls: the record's row has its model and id",
        "format": "openai",
        "record": openai([choice(0, "stop")]),
        "rows": [],
        "by_record": ["gpt-4o", "chatcmpl-1", 0],
    },
    {
        "name": "anthropic without calls: the record's row has its model and id",
        "format": "anthropic",
        "record": {**ANTHROPIC, "content": [{"type": "text", "text": "hi"}]},
        "rows": [],
        "by_record": ["claude-sonnet-4-5-20250929", "msg_01", 0],
    },
    {
        "name": "gemini in a Vertex AI batch line, without calls: the model",
        "format": "gemini",
        "record": {
            "status": "",
            "request": {"contents": []},
            "response": {
                "candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}],
                "modelVersion": "gemini-2.0-flash-001",
            },
        },
        "rows": [],
        "by_record": ["gemini-2.0-flash-001", None, 0],
    },
    {
        "name": "text_dialect, openai n=3: a call read from text has its choice's context "
        "and the dialect's type; structured calls are functions",
        "format": "openai",
        "text_dialect": "hermes",
        "record": openai(
            [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": HERMES_TEXT},
                    "finish_reason": "stop",
                },
                choice(1, "tool_calls", call("g")),
                {"index": 2, "message": {"content": "no call"}, "finish_reason": "length"},
            ],
            model="Qwen/Qwen3-8B",
        ),
        "rows": [
            ["f", "Qwen/Qwen3-8B", "chatcmpl-1", "stop", 0, "hermes"],
            ["g", "Qwen/Qwen3-8B", "chatcmpl-1", "tool_calls", 1, "function"],
        ],
        "by_record": ["Qwen/Qwen3-8B", "chatcmpl-1", 2],
    },
    {
        "name": "text_dialect in an OpenAI Batch API line: the inner response's fields",
        "format": "openai",
        "text_dialect": "hermes",
        "record": {
            "custom_id": "request-0",
            "response": {
                "status_code": 200,
                "body": openai(
                    [{"index": 0, "message": {"content": HERMES_TEXT}, "finish_reason": "stop"}]
                ),
            },
        },
        "rows": [["f", "gpt-4o", "chatcmpl-1", "stop", 0, "hermes"]],
    },
    {
        "name": "text_dialect auto: the name of the dialect the text was read as",
        "format": "openai",
        "text_dialect": "auto",
        "record": openai(
            [{"index": 0, "message": {"content": HERMES_TEXT}, "finish_reason": "stop"}]
        ),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "stop", 0, "hermes"]],
    },
    {
        "name": "text_dialect, openai without any call: the model and id",
        "format": "openai",
        "text_dialect": "hermes",
        "record": openai([{"index": 0, "message": {"content": "hi"}, "finish_reason": "stop"}]),
        "rows": [],
        "by_record": ["gpt-4o", "chatcmpl-1", 0],
    },
    {
        "name": "text_dialect, gemini: the candidate's finish reason and index",
        "format": "gemini",
        "text_dialect": "hermes",
        "record": {
            "candidates": [
                {"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"},
                {
                    "content": {"parts": [{"text": HERMES_TEXT}]},
                    "finishReason": "MAX_TOKENS",
                    "index": 1,
                },
            ],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "abc123",
        },
        "rows": [["f", "gemini-2.5-flash", "abc123", "MAX_TOKENS", 1, "hermes"]],
    },
    {
        "name": "text_dialect, anthropic: the response's stop_reason",
        "format": "anthropic",
        "text_dialect": "hermes",
        "record": {**ANTHROPIC, "content": [{"type": "text", "text": HERMES_TEXT}]},
        "rows": [["f", "claude-sonnet-4-5-20250929", "msg_01", "tool_use", None, "hermes"]],
    },
    {
        "name": "text_dialect, ollama: model, done_reason",
        "format": "ollama",
        "text_dialect": "hermes",
        "record": {
            "model": "qwen3",
            "message": {"role": "assistant", "content": HERMES_TEXT},
            "done_reason": "stop",
            "done": True,
        },
        "rows": [["f", "qwen3", None, "stop", None, "hermes"]],
    },
    {
        "name": "text_dialect, auto format: the detected format's fields",
        "format": "auto",
        "text_dialect": "hermes",
        "record": openai(
            [{"index": 3, "message": {"content": HERMES_TEXT}, "finish_reason": "stop"}]
        ),
        "rows": [["f", "gpt-4o", "chatcmpl-1", "stop", 3, "hermes"]],
    },
    {
        "name": "a record that cannot be read: its row has no context",
        "format": "openai",
        "text": "{oops",
        "rows": [[None, None, None, None, None, None]],
    },
]


if __name__ == "__main__":
    for vector in VECTORS:
        if "record" in vector:
            vector["text"] = json.dumps(vector.pop("record"), separators=(",", ":"))
    (HERE / "context.json").write_text(json.dumps(VECTORS, indent=1, ensure_ascii=False) + "\n")
