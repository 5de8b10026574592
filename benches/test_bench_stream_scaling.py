"""Streams whose cost once grew with the square of their size (issue 37), timed at n and
at 4n on both backends: the ratio of the medians is ~4 where feeding is linear, ~16
where it is quadratic.

    python benches/test_bench_stream_scaling.py [--rounds 3] [--scale 1.0] [--only NAME]

Cases (n: the smaller size, at --scale 1), each fed to one stream, then `finish()`:

* `by_id index 0`: n OpenAI calls (5,000), every one at index 0 with a new id, two
  fragments each;
* `by_id no index`: the same without an `index` (calls found by id);
* `responses items`: n Responses API function calls (5,000), deltas found by item id;
* `sse long line`: an `event:` line of n bytes (320 KB), then one event, in pieces of
  16 bytes;
* `partial string`: a call whose arguments (one long string value) come in n deltas
  (2,000), `partial()` after each;
* `partial rows`: the same with an object of small rows (what `partial()` returns, and
  so its cost, grows with the text: quadratic whatever is kept).

Rounds take turns (every entry once per round), as in `interleaved.py`. Under pytest
(`pytest benches`) each case runs once at a small size on both backends, and the two
must give the same calls.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import pytest
from toolsift import _backend, parsers


def chunk(call: dict[str, Any] | None = None, finish: str | None = None) -> dict[str, Any]:
    delta = {"tool_calls": [call]} if call else {}
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def by_id_events(n: int, index: bool) -> list[Any]:
    """n calls, each started with a new id and continued under that id."""
    at = {"index": 0} if index else {}
    events: list[Any] = []
    for i in range(n):
        events.append(chunk({**at, "id": f"call_{i}", "function": {"name": "f", "arguments": "{"}}))
        events.append(chunk({**at, "id": f"call_{i}", "function": {"arguments": f'"i":{i}}}'}}))
    events.append(chunk(finish="tool_calls"))
    return events


def responses_events(n: int) -> list[Any]:
    events: list[Any] = []
    for i in range(n):
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "f"}
        events.append({"type": "response.output_item.added", "output_index": i, "item": item})
        delta = {"type": "response.function_call_arguments.delta", "item_id": f"fc_{i}"}
        events.append({**delta, "delta": f'{{"i":{i}}}'})
    return events


def sse_pieces(n: int) -> list[bytes]:
    event = chunk({"index": 0, "id": "c", "function": {"name": "f", "arguments": "{}"}})
    text = b"event: " + b"x" * n + b"\n" + b"data: " + json.dumps(event).encode() + b"\n\n"
    return [text[at : at + 16] for at in range(0, len(text), 16)]


def argument_deltas(n: int, rows: bool) -> list[Any]:
    """Arguments cut into n deltas of about 20 bytes: a long string, or rows."""
    if rows:
        body = ",".join(f'{{"id":{i},"ok":true}}' for i in range(n))
        text = f'{{"rows":[{body}]}}'
    else:
        text = json.dumps({"path": "a.py", "content": "print('hello, world')\n" * n})
    size = max(1, len(text) // n)
    start = chunk({"index": 0, "id": "c", "function": {"name": "f", "arguments": ""}})
    deltas = [
        chunk({"index": 0, "function": {"arguments": text[at : at + size]}})
        for at in range(0, len(text), size)
    ]
    return [start, *deltas]


def run(parser: Any, events: list[Any], partial: bool = False) -> Any:
    stream = parser.stream()
    for event in events:
        stream.feed(event)
        if partial:
            stream.partial()
    return stream.finish()


CASES: dict[str, tuple[str, int, Callable[[int], list[Any]], bool]] = {
    # name: (parser class, n at scale 1, events of size n, partial() after each)
    "by_id index 0": ("OpenAIResponseParser", 5_000, lambda n: by_id_events(n, True), False),
    "by_id no index": ("OpenAIResponseParser", 5_000, lambda n: by_id_events(n, False), False),
    "responses items": ("OpenAIResponsesParser", 5_000, responses_events, False),
    "sse long line": ("OpenAIResponseParser", 320_000, sse_pieces, False),
    "partial string": ("OpenAIResponseParser", 2_000, lambda n: argument_deltas(n, False), True),
    "partial rows": ("OpenAIResponseParser", 2_000, lambda n: argument_deltas(n, True), True),
}


def parser_of(backend_name: str, cls: str) -> Any:
    backend = _backend.load(backend_name)
    return type(cls, (getattr(parsers, cls),), {"_backend": backend})()


def backends() -> list[str]:
    names = []
    for name in ("rust", "python"):
        try:
            _backend.load(name)
        except ImportError:
            continue
        names.append(name)
    return names


@pytest.mark.parametrize("case", list(CASES))
def test_scaling_cases_run_alike(case: str) -> None:
    """A smoke run of each case at a small size: both backends give the same calls."""
    cls, _, events_of, partial = CASES[case]
    events = events_of(50)
    got = [run(parser_of(name, cls), events, partial) for name in backends()]
    dumps = [[call.model_dump() for call in response.tool_calls] for response in got]
    assert dumps[0] and all(d == dumps[0] for d in dumps)


def timed(parser: Any, events: list[Any], partial: bool) -> float:
    """One run, as `conftest.run_on_fresh_heap` times one: an untimed full collection,
    all then alive (the events among it) moved out of the collector's sight."""
    gc.collect()
    gc.freeze()
    try:
        start = time.perf_counter()
        run(parser, events, partial)
        return time.perf_counter() - start
    finally:
        gc.unfreeze()


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--rounds", type=int, default=3)
    args.add_argument("--scale", type=float, default=1.0)
    args.add_argument("--only", choices=list(CASES))
    args.add_argument("--backend", choices=["rust", "python"])
    a = args.parse_args()
    names = [a.backend] if a.backend else backends()
    print(f"{a.rounds} rounds, entries taking turns; medians; ratio = time(4n) / time(n)")
    for case, (cls, n, events_of, partial) in CASES.items():
        if a.only and case != a.only:
            continue
        n = max(1, int(n * a.scale))
        sizes = {size: events_of(size) for size in (n, 4 * n)}
        entries = {(name, size): parser_of(name, cls) for name in names for size in sizes}
        times: dict[tuple[str, int], list[float]] = {key: [] for key in entries}
        for _ in range(a.rounds):
            for (name, size), parser in entries.items():
                times[name, size].append(timed(parser, sizes[size], partial))
        for name in names:
            small, large = (statistics.median(times[name, size]) for size in sizes)
            print(
                f"{case:16} {name:6}  n={n:<8} {small * 1e3:9.1f} ms   "
                f"4n={4 * n:<8} {large * 1e3:9.1f} ms   ratio {large / small:5.1f}"
            )


if __name__ == "__main__":
    main()
