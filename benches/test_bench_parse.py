"""Parse throughput, side by side in one run: toolsift (rust, python) vs what users write today.

One benchmark group per corpus (``parse-openai``, ``parse-gemini``, ``parse-gemini_sdk``,
``parse-litert``);
each entry turns the whole corpus into AgentResponses (or, for the read floors, only
touches the bytes). ``extra_info`` carries ``MB``, ``records`` and ``calls`` so
``benches/report.py`` can print throughput and ratios.

Run with timing:  pytest benches --benchmark-enable --benchmark-json=bench.json
Smoke test:       pytest benches          (each entry once, over a small corpus)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from conftest import run_on_fresh_heap

CORPORA = ("openai", "gemini", "gemini_sdk", "litert")
FORMAT = {"openai": "openai", "gemini": "gemini", "gemini_sdk": "gemini", "litert": "litert"}
PARSER_CLASS = {
    "openai": "OpenAIResponseParser",
    "gemini": "GeminiResponseParser",
    "litert": "SdkResponseParser",
}


# ------------------------------------------------------------------- what is available


def _toolsift_parsers() -> Any:
    try:
        import toolsift.parsers
    except Exception as exc:
        pytest.skip(f"toolsift.parsers does not import: {type(exc).__name__}: {exc}")
    return toolsift.parsers


def _backend(impl: str) -> Any:
    try:
        from toolsift import _backend
    except Exception as exc:
        pytest.skip(f"toolsift does not import: {type(exc).__name__}: {exc}")
    try:
        return _backend.load(impl)
    except ImportError as exc:
        if impl == "rust":
            pytest.skip(f"native module toolsift._native is missing ({exc.__cause__ or exc})")
        raise


_PARSERS: dict[tuple[str, str], Any] = {}


def parser_for(fmt: str, impl: str) -> Any:
    """A toolsift parser for `fmt` bound to backend `impl` ("rust" | "python")."""
    key = (fmt, impl)
    if key not in _PARSERS:
        cls = getattr(_toolsift_parsers(), PARSER_CLASS[fmt])
        bound = type(cls.__name__, (cls,), {"_backend": _backend(impl)})
        _PARSERS[key] = bound()
    return _PARSERS[key]


def _baselines() -> Any:
    try:
        import baselines
    except Exception as exc:  # it builds toolsift's own ToolCall/AgentResponse
        pytest.skip(f"baselines need toolsift._types: {type(exc).__name__}: {exc}")
    return baselines


def _russo_parser(fmt: str, corpus_name: str) -> Any:
    if fmt == "litert":
        pytest.skip("russo has no LiteRT-LM parser")
    if corpus_name == "gemini":
        pytest.skip(
            "russo's GeminiResponseParser reads only snake_case `function_call`, so on REST "
            "camelCase logs it finds no calls; see the parse-gemini_sdk group"
        )
    try:
        import russo.parsers
    except Exception as exc:
        pytest.skip(f"russo.parsers is not importable: {type(exc).__name__}: {exc}")
    return getattr(russo.parsers, PARSER_CLASS[fmt])()


# ---------------------------------------------------------------------------- entries

Run = Callable[[], Any]


@dataclass(frozen=True)
class Entry:
    key: str  # test id: "<impl>_<op>[_tN]" for toolsift, else the baseline's name
    label: str  # what report.py prints
    make: Callable[[Any, str], Run]  # (corpus, format) -> the timed callable
    threads: int | None = None  # parse_many only
    # Each result dropped before the next call (a streaming consumer), not kept in a list.
    dropped: bool = False

    @property
    def impl(self) -> str:
        """ "rust" | "python" | "floor" | "baseline"."""
        head = self.key.split("_", 1)[0]
        return head if head in ("rust", "python", "floor") else "baseline"

    @property
    def op(self) -> str:
        """What is compared across backends: parse_dict, parse_bytes, parse_many."""
        if self.impl in ("rust", "python"):
            return self.key.split("_", 1)[1].removesuffix(f"_t{self.threads}")
        return self.key

    @property
    def input(self) -> str:
        return "dict" if self.key.endswith("_dict") else "bytes"

    @property
    def finds_calls(self) -> bool:
        return self.impl != "floor"


def _floor_iter(c: Any, fmt: str) -> Run:
    lines = c.lines

    def run() -> int:
        n = 0
        for line in lines:
            n += len(line)
        return n

    return run


def _floor_count(c: Any, fmt: str) -> Run:
    blob = c.blob
    return lambda: blob.count(b"\n")


def _floor_split(c: Any, fmt: str) -> Run:
    blob = c.blob
    return lambda: blob.split(b"\n")


def _parse_dict(impl: str) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        parse = parser_for(fmt, impl).parse
        dicts = c.dicts
        return lambda: [parse(d) for d in dicts]

    return make


def _parse_bytes(impl: str) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        parse = parser_for(fmt, impl).parse
        lines = c.lines
        return lambda: [parse(line) for line in lines]

    return make


def _dropping(one: Callable[[Any], Any], lines: list[bytes]) -> Run:
    """A run that calls `one` per line and drops each result: (records, calls)."""

    def run() -> tuple[int, int]:
        calls = 0
        for line in lines:
            calls += len(one(line).tool_calls)
        return len(lines), calls

    return run


def _parse_bytes_dropped(impl: str) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        return _dropping(parser_for(fmt, impl).parse, c.lines)

    return make


def _walk_dropped(kind: str) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        return _dropping(getattr(_baselines(), f"{kind}_one_{fmt}"), c.lines)

    return make


def _parse_many(impl: str, threads: int) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        parse_many = parser_for(fmt, impl).parse_many
        lines = c.lines
        return lambda: parse_many(lines, threads=threads)

    return make


def _walk(kind: str) -> Callable[[Any, str], Run]:
    def make(c: Any, fmt: str) -> Run:
        fn = getattr(_baselines(), f"{kind}_walk_{fmt}")
        lines = c.lines
        return lambda: fn(lines)

    return make


def _walk_dict(c: Any, fmt: str) -> Run:
    walk = getattr(_baselines(), f"{fmt}_walk")
    dicts = c.dicts
    return lambda: [walk(d) for d in dicts]


def _json_russo(c: Any, fmt: str) -> Run:
    parse = _russo_parser(fmt, c.name).parse
    loads = json.loads
    lines = c.lines
    return lambda: [parse(loads(line)) for line in lines]


def _russo_dict(c: Any, fmt: str) -> Run:
    parse = _russo_parser(fmt, c.name).parse
    dicts = c.dicts
    return lambda: [parse(d) for d in dicts]


ENTRIES = (
    Entry("floor_iter", "read floor: iterate lines", _floor_iter),
    Entry("floor_count", "read floor: blob.count(\\n)", _floor_count),
    Entry("floor_split", "read floor: blob.split(\\n)", _floor_split),
    Entry("rust_parse_dict", "rust parse(dict)", _parse_dict("rust")),
    Entry("rust_parse_bytes", "rust parse(bytes)", _parse_bytes("rust")),
    Entry("rust_parse_many_t1", "rust parse_many t=1", _parse_many("rust", 1), 1),
    Entry("rust_parse_many_t2", "rust parse_many t=2", _parse_many("rust", 2), 2),
    Entry("python_parse_dict", "python parse(dict)", _parse_dict("python")),
    Entry("python_parse_bytes", "python parse(bytes)", _parse_bytes("python")),
    Entry("python_parse_many_t1", "python parse_many t=1", _parse_many("python", 1), 1),
    Entry(
        "rust_parse_bytes_drop",
        "rust parse(bytes), dropped",
        _parse_bytes_dropped("rust"),
        dropped=True,
    ),
    Entry(
        "python_parse_bytes_drop",
        "python parse(bytes), dropped",
        _parse_bytes_dropped("python"),
        dropped=True,
    ),
    Entry("json_walk", "json.loads + walk", _walk("json")),
    Entry("orjson_walk", "orjson.loads + walk", _walk("orjson")),
    Entry(
        "orjson_walk_drop", "orjson.loads + walk, dropped", _walk_dropped("orjson"), dropped=True
    ),
    Entry("msgspec_walk", "msgspec structs + walk", _walk("msgspec")),
    Entry(
        "msgspec_walk_drop",
        "msgspec structs + walk, dropped",
        _walk_dropped("msgspec"),
        dropped=True,
    ),
    Entry("walk_dict", "plain walk(dict)", _walk_dict),
    Entry("json_russo", "json.loads + russo", _json_russo),
    Entry("russo_dict", "russo parse(dict)", _russo_dict),
)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.key for e in ENTRIES])
@pytest.mark.parametrize("corpus_name", CORPORA)
def test_parse(benchmark: Any, corpora: Any, bench_settings: Any, corpus_name: str, entry: Entry):
    c = corpora(corpus_name)
    fmt = FORMAT[corpus_name]
    run = entry.make(c, fmt)  # may skip: before the benchmark fixture is used

    benchmark.group = f"parse-{corpus_name}"
    benchmark.extra_info.update(
        key=entry.key,
        order=ENTRIES.index(entry),
        label=entry.label,
        impl=entry.impl,
        op=entry.op,
        input=entry.input,
        dropped=entry.dropped,
        threads=entry.threads,
        corpus=corpus_name,
        MB=c.megabytes,
        records=c.records,
        calls=c.calls,
    )
    if entry.impl == "rust":  # a debug build would make every rust number meaningless
        benchmark.extra_info["build"] = getattr(_backend("rust"), "BUILD_PROFILE", "unknown")
    result = run_on_fresh_heap(benchmark, run, bench_settings)

    if entry.dropped:  # each result was looked at, then dropped
        assert result == (c.records, c.calls)
    elif entry.finds_calls:  # the benchmark did the whole job, not a shortcut
        assert len(result) == c.records
        assert sum(len(r.tool_calls) for r in result) == c.calls


# ------------------------------------------------------------------ same answers


def _calls(responses: list[Any]) -> list[list[tuple[Any, ...]]]:
    return [[(t.name, t.arguments, t.id, t.raw_arguments) for t in r.tool_calls] for r in responses]


def _has_big_int(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_big_int(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_big_int(v) for v in value)
    return type(value) is int and not -(2**63) <= value < 2**64


def _has_infinity(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_has_infinity(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_infinity(v) for v in value)
    return isinstance(value, float) and value in (float("inf"), float("-inf"))


@pytest.mark.parametrize("corpus_name", CORPORA)
def test_entries_agree(corpora: Any, corpus_name: str):
    """Every benchmarked path finds the same calls (so the timings compare like with like)."""
    c = corpora(corpus_name)
    fmt = FORMAT[corpus_name]
    b = _baselines()
    expected = _calls(getattr(b, f"json_walk_{fmt}")(c.lines))
    assert sum(map(len, expected)) == c.calls

    got = {}
    for impl in ("python", "rust"):
        try:
            p = parser_for(fmt, impl)
        except pytest.skip.Exception:
            continue
        got[f"{impl} parse(dict)"] = [p.parse(d) for d in c.dicts]
        got[f"{impl} parse(bytes)"] = [p.parse(line) for line in c.lines]
        got[f"{impl} parse_many"] = p.parse_many(c.lines, threads=1)
    if not got:
        pytest.skip("no toolsift backend importable")
    for label, responses in got.items():
        assert _calls(responses) == expected, label

    # orjson differs from json.loads only where an integer is beyond 64 bits
    orj = _calls(getattr(b, f"orjson_walk_{fmt}")(c.lines))
    for want, have in zip(expected, orj, strict=True):
        for w, h in zip(want, have, strict=True):
            assert w == h or _has_big_int(w[1]), (w, h)
    # msgspec refuses numbers beyond the float range (json.loads: inf)
    ms = _calls(getattr(b, f"msgspec_walk_{fmt}")(c.lines))
    for want, have in zip(expected, ms, strict=True):
        for w, h in zip(want, have, strict=True):
            assert w == h or _has_infinity(w[1]), (w, h)
