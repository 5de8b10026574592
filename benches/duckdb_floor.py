"""How fast could `to_arrow` be? The contract's floor against DuckDB, taking turns.

`to_arrow` must read every line as JSON (a line that is not is a recorded failure) and
check each argument string and write its compact form (arguments that are not a JSON
object are a recorded defect). `examples/bulk_speed.rs` times that work alone, in the
Rust core, with nothing else (no envelope, no walk, no Arrow row): its `floor` stage.
This script runs it round by round, in turn with DuckDB's typed reader (and the same
with the arguments checked) and with `to_arrow` itself, one thread each, on the OpenAI
Batch bench file (`test_bench_duckdb.batch_lines`), and prints medians and ratios.

    cargo build --release --example bulk_speed
    python benches/duckdb_floor.py [--lines 40000] [--rounds 7]

The floor's time is the example's own (its process start and file read left out).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import test_bench_duckdb as duck  # noqa: E402
from turns import timed  # noqa: E402

EXAMPLE = HERE.parent / "target" / "release" / "examples" / "bulk_speed"


def floor_seconds(example: Path, path: Path) -> float:
    """The example's `floor` stage, one round: seconds."""
    out = subprocess.run([str(example), str(path), "1"], capture_output=True, text=True)
    out.check_returncode()
    (line,) = [line for line in out.stdout.splitlines() if line.startswith("floor")]
    return float(line.split()[1]) / 1e3


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    args.add_argument("--lines", type=int, default=40_000)
    args.add_argument("--rounds", type=int, default=7)
    args.add_argument("--example", type=Path, default=EXAMPLE)
    opts = args.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "openai_batch_output.jsonl"
        path.write_bytes(b"\n".join(duck.batch_lines("openai", opts.lines, 0)) + b"\n")
        f = duck.BatchFile("openai", path, path.stat().st_size / 1e6, opts.lines)
        runs = {e.key: e.make(f) for e in duck.ENTRIES if e.key.endswith("_t1")}
        times: dict[str, list[float]] = {key: [] for key in [*runs, "floor_t1"]}
        for _ in range(opts.rounds):
            for key, run in runs.items():
                times[key].append(timed(run))
            times["floor_t1"].append(floor_seconds(opts.example, path))
    medians = {key: statistics.median(values) for key, values in times.items()}
    print(f"{opts.lines} records, {f.megabytes:.1f} MB, {opts.rounds} rounds, medians")
    for key, seconds in medians.items():
        ratios = "".join(
            f"  {medians[base] / seconds:5.2f}x {base}"
            for base in ("duckdb_typed_t1", "duckdb_checked_t1")
            if base != key
        )
        print(f"  {key:20s} {seconds * 1e3:7.1f} ms {f.megabytes / seconds:7.1f} MB/s{ratios}")


if __name__ == "__main__":
    main()
