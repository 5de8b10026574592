"""Entries taking turns, round by round (`interleaved.py`, `dialects_vs_vllm.py`).

pytest-benchmark runs all the rounds of one entry, then all the rounds of the next. On a
shared host whose speed drifts by 10-30% from one minute to the next, a slow minute then
lands on one entry and skews its ratios. Here round r runs every entry once, in turn,
before round r+1 starts, so a slow minute lands on all of them alike. A run is timed as
`conftest.run_on_fresh_heap` times it: an untimed `gc.collect()` first, then the run and
the young-generation collection it leaves behind. No dependency beyond the standard
library (the oracle's venv has no pytest).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from typing import Any

Run = Callable[[], Any]


def timed(run: Run, clock: Callable[[], float] = time.perf_counter) -> float:
    gc.collect()
    start = clock()
    result = run()
    gc.collect(0)
    elapsed = clock() - start
    del result
    return elapsed


def take_turns(
    entries: dict[str, Run],
    rounds: int,
    freeze: bool = False,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """Median seconds of each entry, the entries taking turns round by round. With
    `freeze`, what is alive after the warm-up round (the corpus, and what the entries'
    first runs imported or cached) is moved out of the collector's sight first. `clock`:
    wall time by default; `time.process_time` counts this process's CPU time only (on a
    host other work shares, the time the others take is left out)."""
    times: dict[str, list[float]] = {key: [] for key in entries}
    for run in entries.values():
        timed(run, clock)  # warm-up
    if freeze:
        gc.collect()
        gc.freeze()
    for _ in range(rounds):
        for key, run in entries.items():
            times[key].append(timed(run, clock))
    return {key: statistics.median(values) for key, values in times.items()}
