"""Parity of every walked format: hypothesis builds responses of each provider's shape
(calls with random names, ids and arguments given as the provider gives them, server-side
items and text mixed in), and both backends must read them the same, as dicts, as text,
in batches and in tables, named and auto-detected."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from conftest import bind, both_backends, same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_bulk import JSON_OBJECTS, _json_text
from toolsift import parsers
from toolsift._pure import formats

SETTINGS = settings(
    max_examples=int(os.environ.get("TOOLSIFT_PARITY_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
NAMES = st.text(min_size=0, max_size=8) | st.sampled_from(["get_weather", "f", "é"])
IDS = st.none() | st.text(max_size=8)


def _arguments(draw: Any, as_text: bool) -> Any:
    value = draw(JSON_OBJECTS)
    choice = draw(st.sampled_from(["object", "text", "odd", "missing"]))
    if choice == "missing":
        return None
    if choice == "odd":  # not an object: kept as raw_arguments
        return draw(st.sampled_from([[1, 2], "5", "", '{"a":', 7, True]))
    if as_text or choice == "text":
        return _json_text(value, draw(st.randoms(use_true_random=False)))
    return value


@st.composite
def responses(draw: Any, name: str) -> dict[str, Any]:
    """A response of the format `name` with 0 to 3 calls and some noise."""
    calls = [
        (draw(NAMES), draw(IDS), _arguments(draw, name in ("openai", "cohere")))
        for _ in range(draw(st.integers(0, 3)))
    ]
    text = draw(st.text(max_size=10))

    def drop_none(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if v is not None}

    if name == "openai":
        message = {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                drop_none(
                    {
                        "id": i,
                        "type": "function",
                        "function": drop_none({"name": n, "arguments": a}),
                    }
                )
                for n, i, a in calls
            ],
        }
        return {"object": "chat.completion", "choices": [{"index": 0, "message": message}]}
    if name == "openai-responses":
        output: list[Any] = [{"type": "web_search_call", "id": "ws", "status": "completed"}]
        for n, i, a in calls:
            if draw(st.booleans()):
                output.append(
                    drop_none(
                        {
                            "type": "function_call",
                            "call_id": i,
                            "name": n,
                            "arguments": a if isinstance(a, str) else json.dumps(a),
                        }
                    )
                )
            else:
                output.append(
                    drop_none({"type": "custom_tool_call", "call_id": i, "name": n, "input": text})
                )
        return {"object": "response", "output": output}
    if name == "anthropic":
        content: list[Any] = [{"type": "text", "text": text}]
        content += [
            drop_none({"type": "tool_use", "id": i, "name": n, "input": a}) for n, i, a in calls
        ]
        content.append({"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}})
        return {"type": "message", "role": "assistant", "content": content}
    if name == "gemini":
        parts: list[Any] = [{"text": text}]
        parts += [{"functionCall": drop_none({"id": i, "name": n, "args": a})} for n, i, a in calls]
        return {"candidates": [{"content": {"role": "model", "parts": parts}}]}
    if name == "gemini-interactions":
        steps: list[Any] = [{"type": "model_output", "content": [{"type": "text", "text": text}]}]
        steps += [
            drop_none({"type": "function_call", "id": i, "name": n, "arguments": a})
            for n, i, a in calls
        ]
        steps.append({"type": "google_search_call", "id": "s", "arguments": {"queries": [text]}})
        key = draw(st.sampled_from(["steps", "outputs"]))  # `outputs` before May 2026
        return {"object": "interaction", "status": "requires_action", key: steps}
    if name == "bedrock":
        blocks: list[Any] = [{"text": text}]
        blocks += [
            {"toolUse": drop_none({"toolUseId": i, "name": n, "input": a})} for n, i, a in calls
        ]
        return {
            "output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": "tool_use",
        }
    if name == "ollama":
        message = {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                drop_none({"id": i, "function": drop_none({"name": n, "arguments": a})})
                for n, i, a in calls
            ],
        }
        return {"model": "m", "message": message, "done": True}
    assert name == "cohere"
    if draw(st.booleans()):  # Chat API v1: the response's own calls, without ids
        v1_calls = [drop_none({"name": n, "parameters": a}) for n, _, a in calls]
        return {"text": text, "generation_id": "g", "finish_reason": "COMPLETE"} | (
            {"tool_calls": v1_calls} if v1_calls else {}
        )
    message = {
        "role": "assistant",
        "tool_plan": text,
        "tool_calls": [
            drop_none(
                {"id": i, "type": "function", "function": drop_none({"name": n, "arguments": a})}
            )
            for n, i, a in calls
        ],
    }
    return {"message": message, "finish_reason": "TOOL_CALL"}


def outcome(parser: Any, raw: Any) -> Any:
    try:
        return [c.model_dump() for c in parser.parse(raw).tool_calls]
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("name", [spec.name for spec in formats.WALKED])
@SETTINGS
@given(data=st.data())
def test_both_backends_read_every_format_alike(name: str, data: Any) -> None:
    doc = data.draw(responses(name))
    text = json.dumps(doc, ensure_ascii=data.draw(st.booleans()))
    rust, python = both_backends()
    spec = formats.by_name(name)
    for make in (lambda b: b.Parser(name), lambda b: b.Parser("auto")):
        r, p = make(rust), make(python)
        for raw in (doc, text, text.encode()):
            assert same(outcome(r, raw), outcome(p, raw)), raw
        assert r.parse_many([text], 1)[0].error == p.parse_many([text], 1)[0].error
    assert spec.detect(json.loads(text))
    tables = [
        bind(getattr(parsers, spec.parser_class), backend)().to_arrow([text]).to_pylist()
        for backend in (rust, python)
    ]
    assert tables[0] == tables[1]
