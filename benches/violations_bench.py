"""Checks against the declared tools on the OpenAI Batch file (issue 41 item 7).

    python benches/violations_bench.py [--lines N] [--rounds R] [--impl rust|python]
    python benches/violations_bench.py --lines 2000 --instructions

Writes the bench corpus (`corpus.py`'s `openai`, in Batch API envelopes, as
`test_bench_bulk.py` does) and its request file (the Batch *input*: one request per
`custom_id`, whose body declares a function tool for every tool name of the corpus, its
schema inferred from the calls: each key's JSON type, the keys every call has required,
`additionalProperties: false`). Then times, on one thread, `to_arrow(path)` and
`to_arrow(path, requests=...)` (reading the request file included), interleaved, and
prints the medians, the MB/s of the output file and the ratio. Say the machine's load
with the numbers, or count instructions instead (`--instructions`: callgrind, one
`to_arrow` each way, plain, `tools=` (the request file's tools) and `requests=`, counted
only inside the Rust calls, `Parser.arrow_batches` and `Checks.new`: the interpreter's own
work varies by millions from run to run; Python's read of the request file is left out).

Measured before issue 41's instance work (the request file read with its tools cut out; a
build without LTO, load average 3.4 on 2 shared cores): 20,000 lines, output 41.2 MB,
requests 126.8 MB, median of 5: `to_arrow` 141.8 ms (290.8 MB/s),
`to_arrow(requests=...)` 346.5 ms (119.0 MB/s of the output file), ratio 2.44.

Each call's arguments are now read for the validator by the project's own pass into items
over their text (`src/violations/instance.rs`, a `Json` representation of the
`jsonschema` crate), not into a `serde_json::Value` (~25 k instructions a call); and the
request file's lines skip a second search and a copy of their tools value. Instructions
(`--lines 2000 --instructions`, 4.2 MB output, 12.7 MB requests, 2,159 calls; builds
without LTO), before / after: plain 98.4 M / 98.3 M; `tools=` 169.5 M (1.72x) / 125.3 M
(1.27x); `requests=` 204.8 M (2.08x) / 144.9 M (1.47x). What `requests=` adds to plain,
46.6 M: reading the request file, 18.7 M (9.3 k a line of 6.3 KB: finding the line's end
4.4 M, parsing the line without its tools value 5.2 M, comparing that value with the known
one 1.7 M), and compiling the schemas once, 7.3 M; checking the calls, 20.6 M (reading the
arguments 17.7 M, of which unescaping strings 4.9 M and the duplicate-key check 3.0 M; the
validation itself ~1.3 M). The arguments are read twice, once by the bulk reader
(`bulk::canonical::object`, 26.2 M of plain) into their compact text, once here: checking
them on the reader's own pass would take most of the 17.7 M off.
Wall time (one run, median of 7, build without LTO, load average 2.6-2.8 on 2 shared
cores, other sessions running): `to_arrow` 184.0 ms (224.1 MB/s), `to_arrow(requests=...)`
340.1 ms (121.2 MB/s of the output file, 493.9 MB/s of both files), ratio 1.85; runs a
minute apart gave ratios 1.41 to 1.85 (the main branch's build, same minute: 3.80). The
instruction ratio (1.47) leaves out what dominates the wall time: Python reads the
126.8 MB request file into one new `bytes` object (`_bulk.checks`), 109.5 ms (median of 5;
page faults and a copy), where reading it in 1 MiB chunks into one buffer takes 19.1 ms;
the Rust reading of it (`Checks`) takes 37.6 ms. 200 MB/s of the output file is 206 ms for
these 41.2 MB: at 290 MB/s plain (142 ms) and 1.47x (209 ms) the target needs the request
file streamed in chunks by the Rust side (and decompressed there when gzip) and the
arguments read once (the reader's pass, above).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpus

JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return JSON_TYPES[type(value)]


def schemas_of(lines: list[bytes]) -> dict[str, dict[str, Any]]:
    """A schema per tool name, inferred from its calls in `lines`."""
    seen: dict[str, list[dict[str, Any]]] = {}
    for line in lines:
        for name, arguments in corpus.calls_of(json.loads(line)):
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except ValueError:
                    continue
            if isinstance(arguments, dict):
                seen.setdefault(name, []).append(arguments)
    schemas = {}
    for name, calls in seen.items():
        properties: dict[str, Any] = {}
        for arguments in calls:
            for key, value in arguments.items():
                kinds = properties.setdefault(key, {"type": []})["type"]
                kind = json_type(value)
                if kind not in kinds:
                    kinds.append(kind)
        required = sorted(set.intersection(*(set(call) for call in calls)))
        schemas[name] = {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        }
    return schemas


def envelope(i: int, line: bytes) -> bytes:
    return (
        b'{"id":"batch_req_%d","custom_id":"request-%d","response":{"status_code":200,'
        b'"request_id":"req_%d","body":%s},"error":null}' % (i, i, i, line)
    )


def write_files(folder: Path, n: int, seed: int) -> tuple[Path, Path]:
    lines = corpus.corpus_lines("openai", n, seed)
    output = folder / "openai_batch_output.jsonl"
    output.write_bytes(b"".join(envelope(i, line) + b"\n" for i, line in enumerate(lines)))
    tools = [
        {"type": "function", "function": {"name": name, "description": "d", "parameters": s}}
        for name, s in schemas_of(lines).items()
    ]
    requests = folder / "openai_batch_input.jsonl"
    with requests.open("w") as file:
        for i in range(len(lines)):
            body = {
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": f"request {i}"}],
                "tools": tools,
            }
            request = {"custom_id": f"request-{i}", "method": "POST", "url": "/v1/chat/completions"}
            file.write(json.dumps({**request, "body": body}) + "\n")
    return output, requests


#: What each way of the instruction counts passes `to_arrow` (the tools are the request
#: file's: every request declares the same ones).
WAYS = ("plain", "tools", "requests")


def run_passes(folder: str, way: str, passes: int) -> None:
    """`passes` runs of `to_arrow` over the output file, `way` (what callgrind counts)."""
    from toolsift.parsers import OpenAIResponseParser

    output = Path(folder) / "openai_batch_output.jsonl"
    requests = Path(folder) / "openai_batch_input.jsonl"
    with requests.open() as file:
        tools = json.loads(file.readline())["body"]["tools"]
    options = {"plain": {}, "tools": {"tools": tools}, "requests": {"requests": requests}}[way]
    reader = OpenAIResponseParser()
    for _ in range(passes):
        reader.to_arrow(output, threads=1, **options)


def instructions(folder: Path, way: str) -> int:
    """Instructions of one `to_arrow` in the Rust core, `way` (callgrind, collecting only
    inside the native calls that read the files and the request file: the interpreter's
    own work, which varies from run to run by millions, left out)."""
    done = subprocess.run(
        [
            *("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"),
            *("--collect-atstart=no", "--toggle-collect=*Parser::arrow_batches"),
            "--toggle-collect=*violations::Checks::new",
            *(sys.executable, __file__, "--run", str(folder), way, "1"),
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "0", "TOOLSIFT_IMPLEMENTATION": "rust"},
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count: {done.stderr[-500:]}")
    return int(found.group(1))


def print_instructions(folder: Path, lines: int) -> None:
    """Instructions of one `to_arrow` each way."""
    counts = {way: instructions(folder, way) for way in WAYS}
    plain = counts["plain"]
    print(f"rust: {lines} lines, instructions of one to_arrow in the Rust core, t=1:")
    for way, count in counts.items():
        print(f"  {way:9} {count / 1e6:8.1f} M  {count / plain:5.2f}x plain")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--impl", default="rust")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        folder, way, passes = args.run
        run_passes(folder, way, int(passes))
        return
    os.environ["TOOLSIFT_IMPLEMENTATION"] = args.impl
    from toolsift import IMPLEMENTATION
    from toolsift.parsers import OpenAIResponseParser

    with tempfile.TemporaryDirectory() as folder:
        output, requests = write_files(Path(folder), args.lines, args.seed)
        if args.instructions:
            print_instructions(Path(folder), args.lines)
            return
        mb = output.stat().st_size / 1e6
        request_mb = requests.stat().st_size / 1e6
        reader = OpenAIResponseParser()
        plain_times, checked_times = [], []
        table = None
        for _ in range(args.rounds):
            started = time.perf_counter()
            reader.to_arrow(output, threads=1)
            plain_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            table = reader.to_arrow(output, threads=1, requests=requests)
            checked_times.append(time.perf_counter() - started)
        assert table is not None
        violations = table.column("violations").to_pylist()
        found = sum(1 for codes in violations if codes)
        plain, checked = statistics.median(plain_times), statistics.median(checked_times)
        print(
            f"{IMPLEMENTATION}: {args.lines} lines, output {mb:.1f} MB, requests "
            f"{request_mb:.1f} MB, {len(violations)} calls ({found} with violations), "
            f"one thread, median of {args.rounds}:\n"
            f"  to_arrow                 {plain * 1e3:8.1f} ms  {mb / plain:7.1f} MB/s\n"
            f"  to_arrow(requests=...)   {checked * 1e3:8.1f} ms  {mb / checked:7.1f} MB/s "
            f"(of the output file; {(mb + request_mb) / checked:.1f} MB/s of both files)\n"
            f"  ratio checked / plain    {checked / plain:.2f}"
        )


if __name__ == "__main__":
    main()
