"""Peak RSS of iterating `parse_file` over a large OpenAI Batch output file.

    python benches/bulk_rss.py [--gigabytes 2] [--impl rust] [--keep FILE]

Writes the file (the benchmark corpus, wrapped in Batch API envelopes, repeated up to the
size asked), then iterates `parse_file` over it in a fresh subprocess and prints the
file size, time, MB/s, records, calls and the peak RSS (``VmHWM``) before and after.
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

# The child: iterates parse_file and reports its own peak RSS (shared with the tests).
CHILD = HERE.parent / "tests" / "parse_file_peak.py"


def write(path: Path, size: int) -> None:
    import corpus
    from test_bench_bulk import envelope

    lines = corpus.corpus_lines("openai", 20000, 0)
    block = b"".join(envelope(i, line) + b"\n" for i, line in enumerate(lines))
    with path.open("wb") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gigabytes", type=float, default=2.0)
    ap.add_argument("--impl", default="rust", choices=("rust", "python"))
    ap.add_argument("--keep", help="write the file here and keep it (else a temp file)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.keep) if args.keep else Path(folder) / "big.jsonl"
        if not path.exists():
            write(path, int(args.gigabytes * 1e9))
        # (VmHWM is the child's own peak: what this process holds does not count.)
        done = subprocess.run(
            [sys.executable, str(CHILD), str(path), args.impl],
            capture_output=True,
            text=True,
            check=True,
        )
        records, calls, seconds, before, after = done.stdout.split()
        size = os.path.getsize(path) / 1e6
        print(
            f"{args.impl} parse_file over {size:,.0f} MB: {float(seconds):.1f} s, "
            f"{size / float(seconds):,.0f} MB/s, {int(records):,} records, {int(calls):,} calls; "
            f"peak RSS {int(before) / 1024:.0f} MiB after import, {int(after) / 1024:.0f} MiB "
            f"at the end (nproc {os.cpu_count()})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
