"""Streams: a 100 KB argument object streamed in 2,000 deltas against one `parse` of the
final response (the issue's bound: at most 3x). Groups `stream-<backend>`: `parse` of the
final response's JSON text, and the stream fed the chunks as dicts, as JSON text (one
chunk a line, as logged), and as an SSE transcript cut into 2,000 pieces, each with
`finish()`. Without --benchmark-enable each entry runs once (a smoke test; the assembled
call must equal the one `parse` gives).

Quote the medians of one run: `pytest benches/test_bench_stream.py --benchmark-enable`.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from conftest import run_on_fresh_heap
from toolsift import _backend, parsers

DELTAS = 2_000


def arguments_text() -> str:
    """About 100 KB of JSON: rows of mixed values."""
    rows = [
        {
            "id": i,
            "name": f"item-{i}",
            "tags": ["alpha", "beta"],
            "score": i * 0.5,
            "ok": i % 2 == 0,
        }
        for i in range(1_150)
    ]
    return json.dumps({"rows": rows})


def chunk(tool_calls: Any = None, finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": tool_calls} if tool_calls else {}
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}


def pieces(text: Any, count: int) -> list[Any]:
    """`text` cut into `count` pieces of (nearly) equal length."""
    cuts = [len(text) * i // count for i in range(count + 1)]
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


ARGUMENTS = arguments_text()
START = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": ""}}
EVENTS = [
    chunk([START]),
    *[
        chunk([{"index": 0, "function": {"arguments": piece}}])
        for piece in pieces(ARGUMENTS, DELTAS)
    ],
    chunk(finish="tool_calls"),
]
LINES = [json.dumps(event) for event in EVENTS]
TRANSCRIPT = "".join(f"data: {line}\n\n" for line in LINES).encode() + b"data: [DONE]\n\n"
SSE = pieces(TRANSCRIPT, DELTAS)
FINAL = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "f", "arguments": ARGUMENTS},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
).encode()

ENTRIES = ("parse", "stream_dicts", "stream_lines", "stream_sse")


def parser(impl: str) -> Any:
    try:
        backend = _backend.load(impl)
    except ImportError:
        pytest.skip(f"the {impl} backend is not available")
    return type("OpenAIResponseParser", (parsers.OpenAIResponseParser,), {"_backend": backend})()


def streamed(p: Any, events: list[Any]) -> Any:
    stream = p.stream()
    for event in events:
        stream.feed(event)
    return stream.finish()


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("impl", ["rust", "python"])
def test_stream(benchmark: Any, bench_settings: Any, impl: str, entry: str) -> None:
    p = parser(impl)
    events = {"stream_dicts": EVENTS, "stream_lines": LINES, "stream_sse": SSE}.get(entry)
    run = (lambda: p.parse(FINAL)) if events is None else (lambda: streamed(p, events))
    benchmark.group = f"stream-{impl}"
    benchmark.extra_info.update(
        key=entry,
        order=ENTRIES.index(entry),
        label=entry,
        impl=impl,
        deltas=DELTAS,
        KB=len(ARGUMENTS) / 1e3,
    )
    response = run_on_fresh_heap(benchmark, run, bench_settings)
    assert len(ARGUMENTS) >= 100_000 and len(EVENTS) == DELTAS + 2 and len(SSE) == DELTAS
    assert response.tool_calls == p.parse(FINAL).tool_calls
