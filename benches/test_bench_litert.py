"""LiteRT-LM (Gemma 4) helpers, side by side in one run: rust vs python backend vs what
an app writes today (``json.loads`` + a recursive strip in Python).

Groups: ``litert-extract`` (``SdkResponseParser.extract_tool_calls`` over every record,
and ``parse_many``) and ``litert-clean`` (``clean_raw_for_history``). The corpus is
``litert_corpus.litert_texts``: compact and pretty JSON messages with escape tokens,
glued documents, raw Gemma 4 / FunctionGemma call tokens in prose, plain prose.
The plain baseline reads one JSON document only: it finds no call in glued documents
or raw tokens (its ``calls`` in ``extra_info`` says how many it found).

The corpus has ``TOOLSIFT_BENCH_LINES / 4`` records (default 5000) with timing on: the
python backend reads this text character by character, and five rounds of it over
20000 records would take minutes.

Run with timing:  pytest benches/test_bench_litert.py --benchmark-enable
Smoke test:       pytest benches/test_bench_litert.py
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import litert_corpus
import pytest
from conftest import run_on_fresh_heap

# ------------------------------------------------------------------- what is available


def _sdk(impl: str) -> Any:
    """`SdkResponseParser` bound to backend `impl` ("rust" | "python")."""
    try:
        from toolsift import _backend, parsers
    except Exception as exc:
        pytest.skip(f"toolsift does not import: {type(exc).__name__}: {exc}")
    try:
        backend = _backend.load(impl)
    except ImportError as exc:
        if impl == "rust":
            pytest.skip(f"native module toolsift._native is missing ({exc.__cause__ or exc})")
        raise
    cls = parsers.SdkResponseParser
    return type(cls.__name__, (cls,), {"_backend": backend})


@dataclass
class LiteRtCorpus:
    texts: list[str]
    megabytes: float
    calls: int  # what extract_tool_calls must find (the pure specification's count)

    @property
    def records(self) -> int:
        return len(self.texts)


@pytest.fixture(scope="session")
def litert_corpus_texts(bench_settings: Any) -> LiteRtCorpus:
    lines = max(bench_settings.lines // 4, 1) if bench_settings.timed else bench_settings.lines
    texts = [text for _, text in litert_corpus.litert_texts(lines, bench_settings.seed)]
    from toolsift._pure.formats import litert

    calls = sum(len(litert.extract_tool_calls(text)) for text in texts)
    megabytes = sum(len(text.encode()) for text in texts) / 1e6
    return LiteRtCorpus(texts, megabytes, calls)


# ---------------------------------------------------------------------------- entries

Run = Callable[[], Any]


@dataclass(frozen=True)
class Entry:
    key: str
    label: str
    group: str  # "extract" | "clean"
    make: Callable[[LiteRtCorpus], Run]

    @property
    def impl(self) -> str:
        head = self.key.split("_", 1)[0]
        return head if head in ("rust", "python") else "baseline"


def _extract(impl: str) -> Callable[[LiteRtCorpus], Run]:
    def make(c: LiteRtCorpus) -> Run:
        extract = _sdk(impl).extract_tool_calls
        texts = c.texts
        return lambda: [extract(text) for text in texts]

    return make


def _parse_many(impl: str, threads: int) -> Callable[[LiteRtCorpus], Run]:
    def make(c: LiteRtCorpus) -> Run:
        parse_many = _sdk(impl)().parse_many
        texts = c.texts
        return lambda: [r.tool_calls for r in parse_many(texts, threads=threads)]

    return make


def _clean(impl: str) -> Callable[[LiteRtCorpus], Run]:
    def make(c: LiteRtCorpus) -> Run:
        clean = _sdk(impl).clean_raw_for_history
        texts = c.texts
        return lambda: [clean(text) for text in texts]

    return make


def _plain(function: Callable[[str], Any]) -> Callable[[LiteRtCorpus], Run]:
    def make(c: LiteRtCorpus) -> Run:
        texts = c.texts
        return lambda: [function(text) for text in texts]

    return make


ENTRIES = (
    Entry("rust_extract", "rust extract_tool_calls", "extract", _extract("rust")),
    Entry("rust_parse_many_t1", "rust parse_many t=1", "extract", _parse_many("rust", 1)),
    Entry("rust_parse_many_t2", "rust parse_many t=2", "extract", _parse_many("rust", 2)),
    Entry("python_extract", "python extract_tool_calls", "extract", _extract("python")),
    Entry(
        "json_strip_extract",
        "json.loads + walk + strip (JSON only)",
        "extract",
        _plain(litert_corpus.plain_extract),
    ),
    Entry("rust_clean", "rust clean_raw_for_history", "clean", _clean("rust")),
    Entry("python_clean", "python clean_raw_for_history", "clean", _clean("python")),
    Entry(
        "json_strip_clean",
        "json.loads + strip + json.dumps",
        "clean",
        _plain(litert_corpus.plain_clean),
    ),
)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.key for e in ENTRIES])
def test_litert(benchmark: Any, litert_corpus_texts: LiteRtCorpus, bench_settings: Any, entry):
    c = litert_corpus_texts
    run = entry.make(c)  # may skip: before the benchmark fixture is used

    benchmark.group = f"litert-{entry.group}"
    benchmark.extra_info.update(
        key=entry.key,
        order=ENTRIES.index(entry),
        label=entry.label,
        impl=entry.impl,
        MB=c.megabytes,
        records=c.records,
    )
    if entry.impl == "rust":
        from toolsift import _backend

        benchmark.extra_info["build"] = getattr(_backend.load("rust"), "BUILD_PROFILE", "?")
    result = run_on_fresh_heap(benchmark, run, bench_settings)
    assert len(result) == c.records
    if entry.group == "extract":
        found = sum(len(calls) for calls in result)
        benchmark.extra_info["calls"] = found
        if entry.impl != "baseline":  # the whole job, not a shortcut
            assert found == c.calls


def test_litert_backends_agree(litert_corpus_texts: LiteRtCorpus) -> None:
    """Both backends give identical results on the corpus (so the timings compare like
    with like)."""
    rust, python = _sdk("rust"), _sdk("python")
    for text in litert_corpus_texts.texts:
        a = [call.model_dump() for call in rust.extract_tool_calls(text)]
        b = [call.model_dump() for call in python.extract_tool_calls(text)]
        assert repr(a) == repr(b), text  # repr tells 1, 1.0 and True apart
        assert rust.clean_raw_for_history(text) == python.clean_raw_for_history(text), text
