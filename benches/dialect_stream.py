"""Cost of `RawTextParser.stream()`: ~100 KB of ordinary text per dialect (the makers of
`dialects_linear.py`) fed in 1-byte and in 16-byte deltas, against `parse` of the whole
text. The ratio is stream / parse; a stream that rescanned the text per delta would be
thousands of times slower at 1-byte deltas.

    python benches/dialect_stream.py [--kb 100] [--rounds 3] [--only DIALECT ...]
    python benches/dialect_stream.py --instructions [--kb 20] [--only DIALECT ...]

`--instructions` counts instructions instead (valgrind's callgrind, for a loaded machine):
each way of reading run once and twice, the difference being one run.

Both backends drive text streams with the pure twin (`toolsift._pure.dialects._stream`);
with `--native`, each piece of text is read by the native backend's parser (as
`RawTextParser(...).stream()` does with the Rust backend) and `parse` is the native one.
Times are wall-clock medians of `--rounds` runs (the load average is printed: compare
ratios from one run, not times across runs).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "benches"))

import callgrind  # noqa: E402
from dialects_linear import TABLE  # noqa: E402
from toolsift._pure.walk import Parser  # noqa: E402


def median_time(run: object, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def streamed(parser: Parser, data: bytes, size: int) -> int:
    stream = parser.stream()
    calls = 0
    for at in range(0, len(data), size):
        calls += len(stream.feed(data[at : at + size]))
    return calls + len(stream.finish().tool_calls) * 0


def run_once(name: str, kb: int, way: str, passes: int) -> None:
    """`passes` runs of one way of reading (`parse`, or a stream of 16- or 1-byte deltas)."""
    text = dict((row[0], row[1]) for row in TABLE)[name](kb * 1000)
    data = text.encode("utf-8")
    parser = Parser(name)
    for _ in range(passes):
        if way == "parse":
            parser.parse(text)
        else:
            streamed(parser, data, int(way))


def instructions(name: str, kb: int, way: str) -> int:
    """Instructions of one run of `way` (callgrind: two runs less one)."""
    return callgrind.instructions(__file__, [name, str(kb), way])


def native_parser(name: str) -> Any:
    """The native backend's parser of dialect `name`."""
    from toolsift import _native

    return _native.Parser(name)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--kb", type=int, default=100)
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--only", nargs="*", default=None)
    options.add_argument("--instructions", action="store_true")
    options.add_argument("--native", action="store_true")
    options.add_argument("--run", nargs=4, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.run:
        name, kb, way, passes = args.run
        run_once(name, int(kb), way, int(passes))
        return
    if args.instructions:
        print(f"{'dialect':15} {'KB':>5} {'parse Minstr':>13} {'16 B x':>8} {'1 B x':>8}")
        for name, _, _ in sorted(TABLE, key=lambda row: row[0]):
            if args.only and name not in args.only:
                continue
            base = instructions(name, args.kb, "parse")
            by16 = instructions(name, args.kb, "16") / base
            by1 = instructions(name, args.kb, "1") / base
            print(f"{name:15} {args.kb:5} {base / 1e6:13.1f} {by16:8.1f} {by1:8.1f}")
        return
    print(
        f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; native: {args.native}"
    )
    print(f"{'dialect':15} {'KB':>5} {'calls':>6} {'parse ms':>9} {'16 B x':>8} {'1 B x':>8}")
    ratios_1, ratios_16 = [], []
    for name, ordinary, _ in sorted(TABLE, key=lambda row: row[0]):
        if args.only and name not in args.only:
            continue
        text = ordinary(args.kb * 1000)
        data = text.encode("utf-8")
        parser = native_parser(name) if args.native else Parser(name)
        reported = streamed(parser, data, 16)
        whole = parser.parse(text)
        parse_s = median_time(lambda: parser.parse(text), args.rounds)  # noqa: B023
        s16 = median_time(lambda: streamed(parser, data, 16), args.rounds)  # noqa: B023
        s1 = median_time(lambda: streamed(parser, data, 1), max(1, args.rounds // 2))  # noqa: B023
        ratios_16.append(s16 / parse_s)
        ratios_1.append(s1 / parse_s)
        print(
            f"{name:15} {len(data) // 1000:5} {len(whole.tool_calls):6} {parse_s * 1e3:9.2f}"
            f" {s16 / parse_s:8.1f} {s1 / parse_s:8.1f}"
            + ("" if reported == len(whole.tool_calls) else f"  (reported {reported} by feed)")
        )
    if ratios_1:
        print(
            f"median ratio: 16-byte deltas {statistics.median(ratios_16):.1f}x, "
            f"1-byte deltas {statistics.median(ratios_1):.1f}x parse of the whole"
        )
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
