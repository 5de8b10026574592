"""RSS of many `arrow_batches` readers held mid-file (issue 37: each should hold about
one batch ahead of its consumer, not tens of MB).

    python benches/held_readers_rss.py [--readers 200] [--impl rust] [--threads N]
        [--megabytes 64] [--keep FILE]

Writes an OpenAI Batch output file (the benchmark corpus in Batch API envelopes), then in
a fresh subprocess opens `--readers` readers of it, takes one batch of each (so that
every one is reading mid-file), drops that batch and holds the readers; prints the RSS
(``VmRSS``) after import and with the readers held, and the difference per reader.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CHILD = r"""
import gc, sys, time
import toolsift
from toolsift.parsers import OpenAIResponseParser

def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])

path, count, threads, batch_rows = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
threads = None if threads == "None" else int(threads)
parser = OpenAIResponseParser()
parser.to_arrow([b"{}"])  # pyarrow and the backend loaded
before = rss()
readers = []
for _ in range(count):
    reader = parser.arrow_batches(path, threads=threads, batch_rows=batch_rows)
    reader.read_next_batch()  # then dropped: only what the reader holds stays
    readers.append(reader)
gc.collect()
time.sleep(2)  # the reading threads fill what they may hold, then wait
held = rss()
print(toolsift.IMPLEMENTATION, before, held)
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--readers", type=int, default=200)
    ap.add_argument("--impl", default="rust", choices=("rust", "python"))
    ap.add_argument("--threads", default="None", help="arrow_batches' threads (None: all cores)")
    ap.add_argument("--batch-rows", type=int, default=65_536)
    ap.add_argument("--megabytes", type=float, default=64)
    ap.add_argument("--keep", help="write the file here and keep it (else a temp file)")
    args = ap.parse_args()
    from bulk_rss import write

    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.keep) if args.keep else Path(folder) / "batch.jsonl"
        if not path.exists():
            write(path, int(args.megabytes * 1e6))
        env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": args.impl}
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                CHILD,
                str(path),
                str(args.readers),
                args.threads,
                str(args.batch_rows),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        impl, before, held = done.stdout.split()
        grown = (int(held) - int(before)) / 1024
        print(
            f"{impl}: {args.readers} arrow_batches readers held mid-file "
            f"({os.path.getsize(path) / 1e6:,.0f} MB file, threads={args.threads}, "
            f"batch_rows={args.batch_rows}): RSS {int(before) / 1024:,.0f} MiB after import, "
            f"{int(held) / 1024:,.0f} MiB held, {grown / args.readers:.1f} MiB per reader "
            f"(nproc {os.cpu_count()})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
