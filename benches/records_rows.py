"""What `rows="records"` (and `carry=`) cost over the default `to_arrow`, on the OpenAI
Batch corpus of the bulk suite (`test_bench_bulk.batch_file`: the `openai` corpus, each
response in a Batch API envelope), the entries taking turns (see interleaved.py).

    python benches/records_rows.py [--lines 20000] [--rounds 15] [--threads 1]
    python benches/records_rows.py --write FILE          # the corpus file only
    python benches/records_rows.py --once ENTRY FILE     # one run (for callgrind; ENTRY
                                                         # "none" reads nothing)

Prints the median seconds of each entry and its ratio to the default.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from test_bench_bulk import envelope  # noqa: E402
from toolsift.parsers import OpenAIResponseParser  # noqa: E402

ENTRIES = {
    "default": {},
    "records": {"rows": "records"},
    "carry": {"carry": ["response.request_id", "response.status_code"]},
}


def write(lines: int, folder: Path) -> Path:
    path = folder / "openai_batch_output.jsonl"
    data = corpus.corpus_lines("openai", lines, 0)
    path.write_bytes(b"".join(envelope(i, line) + b"\n" for i, line in enumerate(data)))
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--once", nargs=2, metavar=("ENTRY", "FILE"))
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    parser = OpenAIResponseParser()
    if args.write is not None:
        folder = Path(args.write).parent
        write(args.lines, folder).rename(args.write)
        return
    if args.once is not None:
        import pyarrow.compute  # noqa: F401  (imported once by every entry: a fixed cost)

        entry, file = args.once
        if entry != "none":
            parser.to_arrow(file, threads=args.threads, **ENTRIES[entry])
        return
    with tempfile.TemporaryDirectory() as folder:
        path = write(args.lines, Path(folder))
        times: dict[str, list[float]] = {name: [] for name in ENTRIES}
        for _ in range(args.rounds):
            for name, options in ENTRIES.items():
                gc.collect()
                start = time.perf_counter()
                parser.to_arrow(path, threads=args.threads, **options)
                times[name].append(time.perf_counter() - start)
        mb = path.stat().st_size / 1e6
        base = statistics.median(times["default"])
        print(f"{args.lines} records, {mb:.1f} MB, threads={args.threads}, {args.rounds} rounds")
        for name, spent in times.items():
            median = statistics.median(spent)
            print(f"{name:8} median {median * 1e3:8.2f} ms  {median / base:5.3f}x")


if __name__ == "__main__":
    main()
