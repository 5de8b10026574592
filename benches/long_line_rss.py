"""Peak RSS of one long line (issue 37: a line should cost a few times its size).

    python benches/long_line_rss.py [--megabytes 150] [--impl rust] [--keep FILE]

Writes one OpenAI chat response line of about `--megabytes` MB whose one call's arguments
hold a long string (with escapes and non-ASCII text), then, each in a fresh subprocess,
runs `toolsift extract LINE -o out.jsonl` (in-process, `toolsift.cli.main`) and
`to_arrow(LINE)`, and prints each one's peak RSS (``ru_maxrss``), the RSS of the process
before it, and the peak over the line's size.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import resource, sys
from toolsift.parsers import OpenAIResponseParser
parser = OpenAIResponseParser()
parser.to_arrow([b"{}"])  # pyarrow and the backend loaded
base = int(open("/proc/self/statm").read().split()[1]) * 4096
if sys.argv[2] == "cli":
    from toolsift.cli import main
    main(["extract", sys.argv[1], "--format", "openai", "-o", sys.argv[3], "--quiet"])
else:
    parser.to_arrow(sys.argv[1])
print(base, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""


def write(path: Path, size: int) -> None:
    piece = 'word "q" line\n tab\t é '
    # json.dumps escapes about 1.43 bytes per byte of this text, twice nested
    text = piece * int(size / 1.43 / len(piece.encode()))
    arguments = json.dumps({"text": text}, ensure_ascii=False)
    call = {"id": "t", "type": "function", "function": {"name": "f", "arguments": arguments}}
    message = {"role": "assistant", "tool_calls": [call]}
    doc = {"id": "c", "choices": [{"index": 0, "message": message}]}
    path.write_bytes(json.dumps(doc, ensure_ascii=False).encode() + b"\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--megabytes", type=float, default=150)
    ap.add_argument("--impl", default="rust", choices=("rust", "python"))
    ap.add_argument("--keep", help="write the line here and keep it (else a temp file)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(args.keep) if args.keep else Path(folder) / "long.jsonl"
        if not path.exists():
            write(path, int(args.megabytes * 1e6))
        size = os.path.getsize(path)
        env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": args.impl}
        for what in ("cli", "to_arrow"):
            out = str(Path(folder) / "out.jsonl")
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(path), what, out],
                capture_output=True,
                text=True,
                check=True,
                env=env,
            )
            base, peak = map(int, done.stdout.split())
            print(
                f"{args.impl} {what}: a line of {size / 1e6:,.0f} MB peaks at "
                f"{peak / 2**20:,.0f} MiB RSS ({base / 2**20:,.0f} MiB before it): "
                f"{(peak - base) / size:.1f}x the line"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
