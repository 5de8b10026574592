"""The headline ratios, measured with the entries taking turns.

pytest-benchmark runs all the rounds of one entry, then all the rounds of the next. On a
shared host whose speed drifts by 10-30% from one minute to the next, a slow minute then
lands on one entry and skews its ratios. Here round r runs every entry once, in turn,
before round r+1 starts, so a slow minute lands on all of them alike. The entries are
the pytest suites' own (`test_bench_parse.ENTRIES`, `test_bench_bulk.ENTRIES`), on the
same seeded corpora, timed as `conftest.run_on_fresh_heap` times them: an untimed
`gc.collect()` first, then the run and the young-generation collection it leaves behind.

    python benches/interleaved.py [--lines 20000] [--rounds 9] [--seed 0] [--slow]
                                  [--only {parse,bulk,files,duckdb}] [--unfrozen]

`--slow` adds the slow baselines (`json.loads` + walk or + russo, the python backend's
bulk entries). `--unfrozen` runs the parse suite with nothing frozen (benches/README.md:
what a baseline's full collection costs). Prints the median of each entry and its ratios.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus as corpus_mod  # noqa: E402
import pytest  # noqa: E402
import test_bench_bulk as bulk  # noqa: E402
import test_bench_duckdb as duck  # noqa: E402
import test_bench_parse as parse  # noqa: E402
from conftest import Corpus  # noqa: E402
from turns import Run, take_turns  # noqa: E402

SLOW = {"json_walk", "json_russo", "python_parse_bytes", "python_parse_bytes_drop",
        "python_to_arrow_t1",
        "python_parse_file_t1"}  # fmt: skip
FLOORS = {"floor_iter", "floor_count", "floor_split"}


def made(make: Callable[..., Run], *args: Any) -> Run | None:
    """`make(*args)`, or None (said) when the entry skips."""
    try:
        return make(*args)
    except pytest.skip.Exception as skipped:  # a backend or russo missing
        print(f"  (skipped: {skipped})")
        return None


def report(title: str, medians: dict[str, float], megabytes: float, bases: dict[str, list[str]]):
    """Each entry's median and MB/s, and how many times faster it is than each of its
    `bases` (and than its own t=1, for a t=2 entry)."""
    print(f"\n{title}")
    for key, seconds in medians.items():
        against = [base for base in bases.get(key, []) if base in medians and base != key]
        if key.endswith("_t2"):
            against.append(key.replace("_t2", "_t1"))
        ratios = "".join(f"  {medians[base] / seconds:5.2f}x {base}" for base in against)
        print(f"  {key:22s} {seconds * 1e3:8.1f} ms {megabytes / seconds:7.1f} MB/s{ratios}")


def bases_of(key: str, dict_input: bool, dropped: bool = False) -> list[str]:
    """What an entry is compared with: the plain walk, msgspec, russo, and for the rust
    backend the python backend doing the same."""
    if dropped:
        bases = ["orjson_walk_drop", "msgspec_walk_drop"]
    elif dict_input:
        bases = ["walk_dict", "russo_dict"]
    else:
        bases = ["orjson_walk", "msgspec_walk", "json_russo"]
    if key.startswith("rust_"):
        bases.append("python_" + key.removeprefix("rust_").replace("_t2", "_t1"))
    return bases


def parse_groups(lines: int, seed: int, rounds: int, slow: bool, frozen: bool = True) -> None:
    """The parse suite, each corpus frozen (as conftest freezes its corpora) with what the
    entries' warm-up imported. Unless `frozen`, nothing is frozen and no decoded corpus
    is kept (the parse(dict) entries are left out): a full collection then scans every
    object the process made, its imports' too, as in a process that froze nothing."""
    for name in parse.CORPORA:
        found = corpus_mod.corpus_lines(name, lines, seed)
        dicts = [json.loads(line) for line in found]
        calls = sum(len(corpus_mod.calls_of(d)) for d in dicts)
        c = Corpus(name, found, dicts if frozen else [], b"\n".join(found) + b"\n", calls)
        del dicts
        fmt = parse.FORMAT[name]
        entries: dict[str, Run] = {}
        bases: dict[str, list[str]] = {}
        for entry in parse.ENTRIES:
            if entry.key in FLOORS or (entry.key in SLOW and not slow):
                continue
            if entry.input == "dict" and not frozen:
                continue
            run = made(entry.make, c, fmt)
            if run is not None:
                entries[entry.key] = run
                bases[entry.key] = bases_of(entry.key, entry.input == "dict", entry.dropped)
        medians = take_turns(entries, rounds, freeze=frozen)
        report(f"parse-{name}: {len(found)} records", medians, c.megabytes, bases)


BULK_GROUPS = ("bulk-arrow", "bulk-parse_file", "bulk-files-gz")


def bulk_groups(
    lines: int, seed: int, rounds: int, slow: bool, folder: Path, groups: tuple[str, ...]
) -> None:
    found = corpus_mod.corpus_lines("openai", lines, seed)
    data = b"".join(bulk.envelope(i, line) + b"\n" for i, line in enumerate(found))
    path, gz = folder / "openai_batch_output.jsonl", folder / "openai_batch_output.jsonl.gz"
    path.write_bytes(data)
    gz.write_bytes(bulk.gzip.compress(data, compresslevel=6))
    parts = bulk.write_parts(data, folder)
    f = bulk.BatchFile(path, gz, len(data) / 1e6, gz.stat().st_size / 1e6, len(found), 0, parts)
    for group in groups:
        entries: dict[str, Run] = {}
        for entry in bulk.ENTRIES:
            if entry.group != group or entry.key in FLOORS or (entry.key in SLOW and not slow):
                continue
            run = made(entry.make, f)
            if run is not None:
                entries[entry.key] = run
        bases = {key: bases_of(key, False) for key in entries}
        report(f"{group}: {len(found)} records", take_turns(entries, rounds), f.megabytes, bases)


def duckdb_groups(lines: int, seed: int, rounds: int, folder: Path) -> None:
    """`to_arrow` against DuckDB's typed reader on each provider's batch file, threads
    matched; each entry's ratios to the DuckDB entries with its thread count."""
    for provider in duck.PROVIDERS:
        found = duck.batch_lines(provider, lines, seed)
        path = folder / f"{provider}_batch_output.jsonl"
        data = b"\n".join(found) + b"\n"
        path.write_bytes(data)
        f = duck.BatchFile(provider, path, len(data) / 1e6, len(found))
        entries: dict[str, Run] = {}
        for entry in duck.ENTRIES:
            if provider in entry.providers:
                run = made(entry.make, f)
                if run is not None:
                    entries[entry.key] = run
        bases = {
            key: [
                other for other in entries if other.startswith("duckdb_") and other[-2:] == key[-2:]
            ]
            for key in entries
            if key.startswith("rust_")
        }
        report(
            f"duckdb-{provider}: {len(found)} records",
            take_turns(entries, rounds),
            f.megabytes,
            bases,
        )


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--lines", type=int, default=20_000)
    args.add_argument("--rounds", type=int, default=9)
    args.add_argument("--seed", type=int, default=0)
    args.add_argument("--slow", action="store_true", help="also the slow baselines")
    args.add_argument(
        "--only",
        choices=("parse", "bulk", "files", "duckdb"),
        help="one of the suites, or the bulk suite's bulk-files-gz group",
    )
    args.add_argument(
        "--unfrozen",
        action="store_true",
        help="parse suite: freeze nothing (and leave out the parse(dict) entries)",
    )
    a = args.parse_args()
    print(f"{a.rounds} rounds, entries taking turns; medians; ratios within this run")
    if a.only in (None, "parse"):
        parse_groups(a.lines, a.seed, a.rounds, a.slow, frozen=not a.unfrozen)
    if a.only in (None, "duckdb"):
        with tempfile.TemporaryDirectory() as folder:
            duckdb_groups(a.lines, a.seed, a.rounds, Path(folder))
    if a.only not in ("parse", "duckdb"):
        groups = ("bulk-files-gz",) if a.only == "files" else BULK_GROUPS
        with tempfile.TemporaryDirectory() as folder:
            bulk_groups(a.lines, a.seed, a.rounds, a.slow, Path(folder), groups)


if __name__ == "__main__":
    main()
