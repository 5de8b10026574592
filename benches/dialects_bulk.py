"""`to_arrow` (Rust backend, one thread) on a JSONL file of raw model outputs of one
dialect, each line a JSON string holding one output (as a vLLM or SGLang offline batch
writes them once unwrapped): issue 39's target is at least 300 MB/s for `hermes`.

    python benches/dialects_bulk.py [--lines 20000] [--rounds 5] [--dialect hermes]
    python benches/dialects_bulk.py --instructions [--lines 2000]

The corpus (seeded): prose before the calls, 1-3 calls, arguments of 100 B to 5 KB with
escapes (quotes, backslashes, newlines, `\\uXXXX`) and unicode (accents, CJK, emoji),
sometimes text between and after the calls. Times are wall-clock medians of `--rounds`
runs, MB/s of the file's bytes, the load average printed beside them (the machine may
be shared: compare instruction counts, not times across runs). `--instructions` counts
instructions instead (valgrind's callgrind, for a loaded machine): one pass and two
passes over the file, the difference being one pass, printed per byte of the file.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "benches"))

import callgrind  # noqa: E402

WORDS = (
    "the weather report for tomorrow looks mild with light rain in the evening and "
    'a path like C:\\Users\\docs\\a.txt or a quote "said" café naïve 北京 東京 ☀️ 🌍 '
    "{braces} [brackets] <tags> tab\there\nnew line"
).split(" ")
TOOLS = ("get_weather", "search", "run_code", "write_file", "lookup_user")
PROSE = (
    "Let me check that for you.",
    "I'll look this up using the available tools.",
    "好的。我来查一下。",
    "Sure — calling the tool now.",
)


def sentence(rng: random.Random, size: int) -> str:
    """Words of `WORDS` to about `size` characters."""
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)


def arguments(rng: random.Random) -> dict[str, object]:
    """A call's arguments: about 100 B to 5 KB of JSON text."""
    size = int(100 * 50 ** rng.random())  # 100 B .. 5 KB, more short than long
    return {
        "query": sentence(rng, size // 2),
        "limit": rng.randint(1, 500),
        "ratio": round(rng.random(), 4),
        "flags": [rng.random() < 0.5, None],
        "options": {"note": sentence(rng, size // 2), "lang": rng.choice(["en", "zh", "fr"])},
    }


def hermes(rng: random.Random) -> str:
    """One Hermes-style output: prose, 1-3 `<tool_call>` blocks, maybe text between/after."""
    parts = [rng.choice(PROSE) + "\n"]
    for _ in range(rng.choice((1, 1, 2, 3))):
        call = {"name": rng.choice(TOOLS), "arguments": arguments(rng)}
        parts.append(f"<tool_call>\n{json.dumps(call, ensure_ascii=False)}\n</tool_call>\n")
        if rng.random() < 0.2:
            parts.append(rng.choice(PROSE) + "\n")
    return "".join(parts)


MAKERS = {"hermes": hermes}


def write_corpus(path: pathlib.Path, dialect: str, lines: int, seed: int = 0) -> int:
    """`lines` outputs of `dialect`, each line a JSON string; the file's size in bytes."""
    rng = random.Random(seed)
    maker = MAKERS[dialect]
    with path.open("w", encoding="utf-8") as out:
        for _ in range(lines):
            out.write(json.dumps(maker(rng), ensure_ascii=rng.random() < 0.3) + "\n")
    return path.stat().st_size


def run_passes(path: str, dialect: str, passes: int) -> None:
    """`passes` runs of `to_arrow` over the file (what callgrind counts)."""
    from toolsift.parsers import RawTextParser

    parser = RawTextParser(dialect)
    for _ in range(passes):
        parser.to_arrow(path, threads=1)


def instructions(path: pathlib.Path, dialect: str) -> int:
    """Instructions of one pass of `to_arrow` over the file (callgrind: two less one)."""
    return callgrind.instructions(
        __file__, [str(path), dialect], {"TOOLSIFT_IMPLEMENTATION": "rust"}
    )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--dialect", default="hermes", choices=sorted(MAKERS))
    options.add_argument("--lines", type=int, default=20000)
    options.add_argument("--rounds", type=int, default=5)
    options.add_argument("--instructions", action="store_true")
    options.add_argument("--run", nargs=3, help=argparse.SUPPRESS)
    args = options.parse_args()
    if args.run:
        path, dialect, passes = args.run
        run_passes(path, dialect, int(passes))
        return
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / f"{args.dialect}.jsonl"
        size = write_corpus(path, args.dialect, args.lines)
        if args.instructions:
            count = instructions(path, args.dialect)
            print(
                f"{args.dialect}: {args.lines} lines, {size / 1e6:.1f} MB; to_arrow t=1: "
                f"{count / 1e6:.1f} M instructions, {count / size:.2f} per byte"
            )
            return
        from toolsift.parsers import RawTextParser

        parser = RawTextParser(args.dialect)
        rows = parser.to_arrow(path, threads=1).num_rows
        load = os.getloadavg()[0]
        times = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            parser.to_arrow(path, threads=1)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{args.dialect}: {args.lines} lines, {size / 1e6:.1f} MB, {rows} calls; to_arrow "
            f"t=1: median {median * 1e3:.1f} ms, {size / 1e6 / median:.0f} MB/s "
            f"(load average {load:.1f} before, {os.getloadavg()[0]:.1f} after, "
            f"{os.cpu_count()} cores)"
        )


if __name__ == "__main__":
    main()
