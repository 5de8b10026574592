"""Fixtures for the benchmarks: corpus size, rounds, and the corpora themselves.

* With timing on (``--benchmark-enable``) each corpus has ``TOOLSIFT_BENCH_LINES`` lines
  (default 20000) and each benchmark runs ``TOOLSIFT_BENCH_ROUNDS`` rounds (default 5)
  after one warm-up round.
* With timing off (the project's default ``--benchmark-disable``) every benchmark runs
  once over ``TOOLSIFT_BENCH_SMOKE_LINES`` lines (default 200): a smoke test.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

# Use the installed toolsift if there is one (it may hold a compiled toolsift._native);
# otherwise the sources in python/ (the pure-Python backend at least).
# A toolsift that is there but broken is left alone: its entries skip or fail with the reason.
try:
    import toolsift  # noqa: F401
except ModuleNotFoundError as exc:
    if exc.name == "toolsift":
        sys.path.append(str(HERE.parent / "python"))
except Exception:
    pass

import corpus as corpus_mod  # noqa: E402


@dataclass(frozen=True)
class BenchSettings:
    timed: bool
    lines: int
    rounds: int
    seed: int


@dataclass
class Corpus:
    name: str
    lines: list[bytes]  # one JSON document each, no newline
    dicts: list[dict]  # the same, decoded with json.loads (for parse(dict) benchmarks)
    blob: bytes  # the lines joined by newlines, as a file would hold them
    calls: int  # tool calls in the corpus (what every parser must find)

    @property
    def records(self) -> int:
        return len(self.lines)

    @property
    def megabytes(self) -> float:
        return len(self.blob) / 1e6


def _env_int(name: str, default: int, minimum: int = 1) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        n = int(value)
    except ValueError:
        raise pytest.UsageError(f"{name} must be an integer, got {value!r}") from None
    if n < minimum:
        raise pytest.UsageError(f"{name} must be at least {minimum}, got {n}")
    return n


@pytest.fixture(scope="session")
def bench_settings(request: pytest.FixtureRequest) -> BenchSettings:
    config = request.config
    try:
        disabled = config.getoption("benchmark_disable") and not config.getoption(
            "benchmark_enable"
        )
    except ValueError:  # pytest-benchmark missing: the benchmark fixture will error anyway
        disabled = True
    seed = _env_int("TOOLSIFT_BENCH_SEED", 0, minimum=0)
    if disabled:
        return BenchSettings(False, _env_int("TOOLSIFT_BENCH_SMOKE_LINES", 200), 1, seed)
    return BenchSettings(
        True, _env_int("TOOLSIFT_BENCH_LINES", 20_000), _env_int("TOOLSIFT_BENCH_ROUNDS", 5), seed
    )


@pytest.fixture(scope="session")
def corpora(bench_settings: BenchSettings):
    """`corpora(name)`: the corpus called `name`, generated once per session."""
    cache: dict[str, Corpus] = {}

    def get(name: str) -> Corpus:
        if name not in cache:
            lines = corpus_mod.corpus_lines(name, bench_settings.lines, bench_settings.seed)
            dicts = [json.loads(line) for line in lines]
            calls = sum(len(corpus_mod.calls_of(d)) for d in dicts)
            cache[name] = Corpus(name, lines, dicts, b"\n".join(lines) + b"\n", calls)
        return cache[name]

    return get


def run_on_fresh_heap(benchmark: Any, run: Any, settings: BenchSettings) -> Any:
    """Time `run()` with pytest-benchmark and return its last result.

    Each round starts from the same heap: the previous round's result is dropped and
    collected, untimed, so it is not in the live set while the next round allocates
    (pedantic would otherwise keep it alive until the next round returns). The timed
    part ends with the collection of the youngest generation that the next allocation
    would set off anyway.
    """
    kept: list[Any] = []

    def fresh_heap() -> None:
        kept.clear()
        gc.collect()
        # All that is alive out of the collector's sight: the corpora, which hold
        # millions of objects (in sight, every full collection a benchmark's allocations
        # set off would walk them all: timing noise of several x, charged to whichever
        # entry was unlucky), and what the run imported or cached in its first round
        # (russo's and pydantic's objects, say: else a baseline's full collection would
        # scan them in the first group only).
        gc.freeze()

    def timed() -> None:
        kept.append(run())
        # A batch that paused the cyclic collector leaves all its results in the youngest
        # generation, and the next allocation makes the collector scan them: that scan
        # is part of its cost. (With the collector on all along, this finds little.)
        gc.collect(0)

    benchmark.pedantic(
        timed,
        setup=fresh_heap,
        rounds=settings.rounds,
        warmup_rounds=1 if settings.timed else 0,
    )
    (result,) = kept
    return result
