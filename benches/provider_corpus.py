"""Corpora of the second-wave formats, made from the OpenAI corpus (`corpus.py`): each
logged Chat Completions response rewritten as the same turn in another provider's shape,
with the same calls and the same text, so the formats compare on responses of about the
same size. Arguments a provider gives as an object are the decoded argument text (a call
whose text does not decode gets `{}`)."""

from __future__ import annotations

import json
import random
from typing import Any

import corpus

FORMATS = (
    "openai",
    "openai-responses",
    "anthropic",
    "gemini-interactions",
    "bedrock",
    "ollama",
    "cohere",
)


def _calls(doc: dict[str, Any]) -> tuple[str | None, list[tuple[str, str, str]]]:
    """(the text, [(id, name, arguments text)]) of the first choice."""
    message = doc["choices"][0]["message"]
    calls = [
        (c["id"], c["function"]["name"], c["function"]["arguments"])
        for c in message.get("tool_calls") or ()
    ]
    return message.get("content"), calls


def _object(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _responses(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    output: list[dict[str, Any]] = []
    if text:
        output.append(
            {
                "id": "msg_" + corpus._token(rng, 40),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    for call_id, name, arguments in calls:
        output.append(
            {
                "id": "fc_" + corpus._token(rng, 40),
                "type": "function_call",
                "status": "completed",
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
            }
        )
    usage = doc["usage"]
    return {
        "id": "resp_" + corpus._token(rng, 40),
        "object": "response",
        "created_at": doc["created"],
        "status": "completed",
        "model": doc["model"],
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "usage": {
            "input_tokens": usage["prompt_tokens"],
            "output_tokens": usage["completion_tokens"],
            "total_tokens": usage["total_tokens"],
        },
    }


def _anthropic(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {
            "type": "tool_use",
            "id": "toolu_" + corpus._token(rng, 24),
            "name": n,
            "input": _object(a),
        }
        for _, n, a in calls
    ]
    return {
        "id": "msg_" + corpus._token(rng, 24),
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": doc["usage"]["prompt_tokens"], "output_tokens": 80},
    }


def _bedrock(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    content: list[dict[str, Any]] = [{"text": text}] if text else []
    content += [
        {
            "toolUse": {
                "toolUseId": "tooluse_" + corpus._token(rng, 22),
                "name": n,
                "input": _object(a),
            }
        }
        for _, n, a in calls
    ]
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if calls else "end_turn",
        "usage": {"inputTokens": doc["usage"]["prompt_tokens"], "outputTokens": 80},
        "metrics": {"latencyMs": rng.randrange(200, 3000)},
    }


def _interactions(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    steps: list[dict[str, Any]] = [{"type": "thought", "signature": corpus._token(rng, 64)}]
    if text:
        steps.append({"type": "model_output", "content": [{"type": "text", "text": text}]})
    steps += [
        {"type": "function_call", "id": corpus._token(rng, 8), "name": n, "arguments": _object(a)}
        for _, n, a in calls
    ]
    return {
        "id": "v1_" + corpus._token(rng, 40),
        "object": "interaction",
        "model": "gemini-3-flash-preview",
        "status": "requires_action" if calls else "completed",
        "steps": steps,
        "usage": {
            "total_input_tokens": doc["usage"]["prompt_tokens"],
            "total_output_tokens": 80,
            "total_tokens": doc["usage"]["prompt_tokens"] + 80,
        },
        "created": "2026-08-05T01:58:29Z",
        "updated": "2026-08-05T01:58:31Z",
    }


def _ollama(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": text or ""}
    if calls:
        message["tool_calls"] = [
            {"function": {"name": n, "arguments": _object(a)}} for _, n, a in calls
        ]
    return {
        "model": "llama3.1:8b",
        "created_at": "2026-01-01T00:00:00.000000Z",
        "message": message,
        "done_reason": "stop",
        "done": True,
        "total_duration": rng.randrange(10**9),
        "eval_count": 80,
    }


def _cohere(doc: dict[str, Any], text: str | None, calls: list[Any], rng: Any) -> dict:
    message: dict[str, Any] = {"role": "assistant"}
    if calls:
        message["tool_plan"] = "I will call the tools."
        message["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ]
    else:
        message["content"] = [{"type": "text", "text": text or ""}]
    return {
        "id": corpus._token(rng, 36),
        "message": message,
        "finish_reason": "TOOL_CALL" if calls else "COMPLETE",
        "usage": {"tokens": {"input_tokens": doc["usage"]["prompt_tokens"], "output_tokens": 80}},
    }


_SHAPES = {
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini-interactions": _interactions,
    "bedrock": _bedrock,
    "ollama": _ollama,
    "cohere": _cohere,
}


def format_lines(name: str, n: int, seed: int = 0) -> list[bytes]:
    """`n` responses of the format called `name`, one JSON document each."""
    lines = corpus.corpus_lines("openai", n, seed)
    if name == "openai":
        return lines
    shape = _SHAPES[name]
    rng = random.Random(f"toolsift-{name}-{seed}")
    out = []
    for line in lines:
        doc = json.loads(line)
        text, calls = _calls(doc)
        out.append(json.dumps(shape(doc, text, calls, rng), ensure_ascii=False).encode())
    return out
