# ruff: noqa: RUF001  (DeepSeek's markers are written with full-width bars)
"""Linear time of the raw-text dialects: 1 MB of adversarial text against 1 MB of ordinary
text of the same dialect, on the pure twin and (with `--rust`) on the Rust core.

    python benches/dialects_linear.py [--rust] [--only DIALECT ...] [--mb 1]

`TABLE` lists, per dialect (all fifteen), a maker of ordinary text and makers of adversarial text
(unclosed markers, a million `{`, a marker every few bytes, long backslash runs...), each
taking a size in bytes. Times are medians of `--rounds` runs; the ratio is adversarial /
ordinary (target: at most 5). `--rust` writes the texts to a temporary folder and runs
the ignored cargo test `tests/dialects_linear.rs` on them (release, without LTO).

Where the Rust backend stood (issue 39's check; callgrind, instructions of one parse of
1 MB, the cargo test's build; its wall-clock ratios under load 7-8 in brackets):

| dialect, case | before | after | ordinary | ratio |
|---|---|---|---|---|
| deepseek-v3 backslash run | 66.4M (6.4x) | 16.7M | 13.7M | 4.9x -> 1.2x |
| deepseek-v3.1 backslash run | 66.5M (4.8x) | 16.7M | 13.1M | 5.1x -> 1.3x |
| kimi-k2 backslash run | 66.4M (6.6x) | 16.7M | 13.4M | 5.0x -> 1.2x |
| deepseek-v3.1 call begin every few bytes | 31.6M (5.6x) | 31.6M | 13.1M | 2.4x |
| kimi-k2 call begin every few bytes | 39.2M (6.0x) | 39.2M | 13.4M | 2.9x |
| harmony `<|` every 2 bytes | 70.1M (6.5x) | 70.1M | 28.1M | 2.5x |
| pythonic nesting at the depth limit | 271.5M (6.7-7.5x) | 131.1M | 53.4M | 5.1x -> 2.5x |

The backslash runs were the JSON layer reading the cut-off argument string twice: the
hand-written pass, then serde_json again for an error message no one read
(`json::parse_str_or_none` now refuses text whose first container never closes without
it); and `json::container_end` now skips string runs sixteen bytes at a time.
What is left over 5x in wall time is per call, not per byte: "call begin every few bytes"
makes a call of every marker (53K calls per MB for kimi-k2's 19-byte marker), and its
profile is the calls themselves (kimi-k2, per MB: the block scan 24.5M, each call's
reading 6.7M, the content of 53K empty pieces 3.5M, vectors growing 6M); in instructions
it is under 3x ordinary text. Its wall time is twice its instruction count's share
because each call is a `Call` of about 130 bytes, with its block and piece in two more
vectors: about 8 MB of new memory per MB of text (harmony's `<|` case likewise makes
250K empty segments per MB). Building one result per call is the output, not a scan
that could be avoided. Pythonic's nesting (one 1 MB call of lists nested 98 deep) was
JSON's: the arguments the pythonic reader writes as JSON text nest 100 deep, deeper than
`json`'s hand-written pass went (64), so serde_json read them (70% of the parse); that
pass now goes to 128 deep (2.1x wall, load 1.7).

Where the pure twin stood (wall-clock ratios; two runs of the script alone, under load
1.8-3.1 before and 4.7-5.8 after, other helpers' builds running; the two `--rust` runs,
under more load, give the same picture: 4.8-15.6x before, 0.09-1.6x after):

| dialect, case | before | after |
|---|---|---|
| deepseek-v3.1 a million { | 11.4x | 0.25x |
| deepseek-v3.1 backslash run | 11.0x | 1.6x |
| deepseek-v3 a million { | 10.7x | 0.33x |
| deepseek-v3 backslash run | 10.9x | 1.5x |
| kimi-k2 a million { | 11.2x | 0.15x |
| kimi-k2 backslash run | 10.8x | 1.6x |
| harmony a million { | 4.2x | 0.06x |
| kimi-k2 call begin every few bytes | 5.1x | 4.7x -> 3.8x |
| llama3-json ; every few bytes | 9.8x | 9.0x -> 4.1x |

The cut-off arguments were read twice in Python: `_jsontext.error_for` looked for why
they are not JSON (no one read the reason), then `toolsift._pure.defects.salvage`
classified them one character at a time (the defect column). Now `loads_if_json` lets
`json.loads` (C) refuse the text before `error_for`, and the salvage reader takes each
run of one kind in one possessive regex match (whitespace, brackets, a string's body
between escapes, control characters, comments, and the stretch of plain strict JSON
after a token), reading no text twice (but a string the stretch stops in, at a raw
control character). What is left over 5x on the pure twin is per call, as on the Rust
core: llama3-json's `{};` every 3 bytes makes 333K calls per MB (50 times ordinary
text's), each read in Python for about 4 us (its end found, a name looked for, the `;`
after it, a `ToolCall`: the object alone is 0.5 us); kimi-k2's call begin (53K calls per
MB, about 1.5 us each) is at the bar (4.7-5.2x in four runs).

Then both per call (the `->` column; one run, load 1.7-1.9, `--rust` with it: every
case of llama3-json, kimi-k2, pythonic and both deepseeks at most 4.1x pure, 3.8x Rust):
llama3-json reads a run of objects that hold no string (so no name: each is a nameless
call of its text) in two regex matches, and the `;` between calls in one; the special-
token dialects find each marker with one regex search (their shared prefix, then the
rest of every marker, one group per kind) instead of a find of the prefix, then
`startswith` per kind, and keep no empty content pieces (ordinary text is faster too:
kimi-k2's 15.7 -> 12.9 ms). What is left is the `ToolCall`s themselves: llama3-json's
333K take 0.44 s per MB under load 6 (0.19 s with the garbage collector off), where
ordinary text takes 0.15-0.22 s in all; kimi-k2's 53K, about half of its 49 ms.
"""

from __future__ import annotations

import argparse
import functools
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

from toolsift._pure.dialects import DIALECTS  # noqa: E402

Maker = Callable[[int], str]

ARGUMENTS = (
    '{"path": "C:\\\\Users\\\\docs\\\\report.txt", "query": "caf\\u00e9 \\"quoted\\" 北京 ☀️", '
    '"items": [1, 2.5, true, null, {"k": "}{]["}], "text": "' + "lorem ipsum " * 20 + '"}'
)
PYTHON_ARGUMENTS = (
    'path=\'C:\\\\Users\\\\docs\', query="caf\\u00e9 \\"quoted\\" 北京 ☀️", '
    "items=[1, 2.5, True, None, {'k': '}{]['}], text='" + "lorem ipsum " * 20 + "'"
)
PROSE = "Let me look that up for you; the answer needs two tools. 好的。\n"


def repeated(unit: str, size: int) -> str:
    """`unit` repeated to about `size` bytes (UTF-8)."""
    return unit * max(1, size // len(unit.encode("utf-8")))


def kimi(size: int) -> str:
    call = "<|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    unit = PROSE + "<|tool_calls_section_begin|>" + call.replace("{}", ARGUMENTS) * 2
    return repeated(unit + "<|tool_calls_section_end|>", size)


def deepseek_v31(size: int) -> str:
    call = "<｜tool▁call▁begin｜>search<｜tool▁sep｜>" + ARGUMENTS + "<｜tool▁call▁end｜>"
    return repeated(PROSE + "<｜tool▁calls▁begin｜>" + call * 2 + "<｜tool▁calls▁end｜>", size)


def deepseek_v3(size: int) -> str:
    fenced = "search\n```json\n" + ARGUMENTS + "\n```"
    call = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + fenced + "<｜tool▁call▁end｜>"
    return repeated(PROSE + "<｜tool▁calls▁begin｜>" + call * 2 + "<｜tool▁calls▁end｜>", size)


def harmony(size: int) -> str:
    unit = (
        "<|channel|>analysis<|message|>" + PROSE + "<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.search <|constrain|>json"
        "<|message|>" + ARGUMENTS + "<|call|><|start|>assistant"
    )
    return repeated(unit, size)


def pythonic(size: int) -> str:
    block = "<|tool_call_start|>[search(" + PYTHON_ARGUMENTS + "), f()]<|tool_call_end|>"
    return repeated(PROSE + block, size)


THINK_MAKERS: dict[str, Maker] = {
    "unclosed <think>": lambda size: "<think>" + "x" * size,
    "<think></think> every 15 bytes": lambda size: repeated("<think></think>", size),
    "</think> every 8 bytes": lambda size: repeated("</think>", size),
}

CODE = 'print("héllo {world}")\\n' * 8
DSML = "\uff5cDSML\uff5c"


def qwen3_coder(size: int, open_: str = "<tool_call>", close: str = "</tool_call>") -> str:
    call = (
        f"Let me run it.\n{open_}\n<function=run>\n<parameter=code>\n{CODE}\n</parameter>\n"
        f"<parameter=timeout>\n30\n</parameter>\n</function>\n{close}\n"
    )
    return repeated(call, size)


def glm(size: int) -> str:
    call = (
        "Let me run it.\n<tool_call>run\n<arg_key>code</arg_key>\n"
        f"<arg_value>{CODE}</arg_value>\n</tool_call>\n"
    )
    return repeated(call, size)


def minimax_m2(size: int) -> str:
    call = (
        f'Running.\n<minimax:tool_call>\n<invoke name="run">\n<parameter name="code">{CODE}'
        "</parameter>\n</invoke>\n</minimax:tool_call>\n"
    )
    return repeated(call, size)


def deepseek_dsml(size: int) -> str:
    call = (
        f'Running.\n<{DSML}function_calls>\n<{DSML}invoke name="run">\n<{DSML}parameter '
        f'name="code" string="true">{CODE}</{DSML}parameter>\n</{DSML}invoke>\n'
        f"</{DSML}function_calls>\n"
    )
    return repeated(call, size)


def xml_makers(opener: str, param_open: str, param_close: str) -> dict[str, Maker]:
    """The adversarial texts of the XML-style (invoke) dialects."""
    return {
        "unclosed opener": lambda size: repeated(opener, size),
        "a million {": lambda size: opener + repeated("{", size),
        "backslash run": lambda size: opener + repeated("\\", size),
        "unclosed values": lambda size: repeated(opener + param_open, size),
        "closes no marker follows": lambda size: repeated(
            opener + param_open + param_close + "x", size
        ),
        "close every few bytes in one value": lambda size: (
            opener + param_open + repeated(param_close + "x", size)
        ),
        **THINK_MAKERS,
        "<think> every 7 bytes": lambda size: repeated("<think>", size),
        "stray </think>": lambda size: repeated("x</think>", size),
    }


JSON_ARGUMENTS = (
    '{"path": "C:\\\\tmp\\\\a [1] {2}.txt", "text": "h\\u00e9llo \\"w\\" é 🌍", "n": [1, 2.5]}'
)
JSON_CALL = f'{{"name": "write", "arguments": {JSON_ARGUMENTS}}}'
JSON_LIST = f"[{JSON_CALL}, {JSON_CALL}]"


def json_makers(opener: str) -> dict[str, Maker]:
    """The adversarial texts of the JSON-in-text dialects."""
    return {
        "unclosed opener": lambda size: repeated(opener, size),
        "opener then {": lambda size: repeated(opener + "{", size),
        "opener then [": lambda size: repeated(opener + "[", size),
        "a million {": lambda size: opener + repeated("{", size),
        "a million [": lambda size: opener + repeated("[", size),
        "backslash run": lambda size: opener + '{"name": "' + repeated("\\", size),
        "unclosed string each opener": lambda size: repeated(
            opener + '{"name": "f", "arguments": {"a": "', size
        ),
        **THINK_MAKERS,
        "<think> every 7 bytes": lambda size: repeated("<think>", size),
        "stray </think>": lambda size: repeated("x</think>", size),
    }


def token_makers(begin: str, argument: str, prefix: str) -> dict[str, Maker]:
    """The adversarial texts of the special-token dialects (kimi-k2, deepseek)."""
    return {
        "call begin every few bytes": lambda size: repeated(begin, size),
        "marker prefix every few bytes": lambda size: repeated(prefix, size),
        "a million {": lambda size: begin + argument + "{" * size,
        "backslash run": lambda size: begin + argument + '{"a": "' + "\\" * size,
        "argument marker every few bytes": lambda size: begin + repeated(argument, size),
        **THINK_MAKERS,
    }


TABLE: list[tuple[str, Maker, dict[str, Maker]]] = [
    (
        "deepseek-v3.1",
        deepseek_v31,
        token_makers("<｜tool▁call▁begin｜>", "f<｜tool▁sep｜>", "<｜tool▁"),
    ),
    (
        "deepseek-v3",
        deepseek_v3,
        {
            **token_makers("<｜tool▁call▁begin｜>", "function<｜tool▁sep｜>f\n", "<｜tool▁"),
            "fences every 4 bytes": lambda size: (
                "<｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n" + repeated("```\n", size)
            ),
        },
    ),
    (
        "kimi-k2",
        kimi,
        token_makers(
            "<|tool_call_begin|>", "functions.f:0<|tool_call_argument_begin|>", "<|tool_call"
        ),
    ),
    (
        "harmony",
        harmony,
        {
            "<| every 2 bytes": lambda size: repeated("<|", size),
            "<|message|> in one body": lambda size: (
                "<|channel|>final" + repeated("<|message|>", size)
            ),
            "<|start|> every 9 bytes": lambda size: repeated("<|start|>", size),
            "one long header": lambda size: (
                "<|channel|>commentary" + repeated(" to=functions.f <|constrain|>json", size)
            ),
            "a million {": lambda size: (
                "<|channel|>commentary to=functions.f<|message|>" + "{" * size
            ),
            "backslash run": lambda size: (
                "<|channel|>commentary to=functions.f<|message|>" + '{"a": "' + "\\" * size
            ),
        },
    ),
    (
        "pythonic",
        pythonic,
        {
            "a million [ (bare)": lambda size: "[" * size,
            "a million [ in a block": lambda size: "<|python_start|>[f(a=" + "[" * size,
            "start marker every 16 bytes": lambda size: repeated("<|python_start|>", size),
            "<| every 2 bytes": lambda size: repeated("<|", size),
            "backslash run in a string": lambda size: "[f(x='" + "\\" * size + "')]",
            "unclosed string": lambda size: "<|python_start|>[f(x='" + "a" * size,
            "nesting at the depth limit": lambda size: (
                "[f(x=[" + repeated("[" * 98 + "1" + "]" * 98 + ",", size) + "])]"
            ),
            "many calls, unclosed list (bare)": lambda size: repeated("[f(x=1), ", size),
            **THINK_MAKERS,
        },
    ),
    (
        "seed-oss",
        lambda size: qwen3_coder(size, "<seed:tool_call>", "</seed:tool_call>"),
        xml_makers("<seed:tool_call><function=f>", "<parameter=a>", "</parameter>"),
    ),
    (
        "qwen3-coder",
        qwen3_coder,
        xml_makers("<tool_call><function=f>", "<parameter=a>", "</parameter>"),
    ),
    (
        "glm",
        glm,
        {
            **xml_makers("<tool_call>f", "<arg_key>a</arg_key><arg_value>", "</arg_value>"),
            "< every byte": lambda size: "<tool_call>" + repeated("<", size),
        },
    ),
    (
        "minimax-m2",
        minimax_m2,
        xml_makers('<minimax:tool_call><invoke name="f">', '<parameter name="a">', "</parameter>"),
    ),
    (
        "deepseek-dsml",
        deepseek_dsml,
        xml_makers(
            f'<{DSML}function_calls><{DSML}invoke name="f">',
            f'<{DSML}parameter name="a" string="true">',
            f"</{DSML}parameter>",
        ),
    ),
    (
        "mistral",
        lambda size: repeated(f"Let me do it.[TOOL_CALLS]write[ARGS]{JSON_ARGUMENTS}\n", size),
        {
            **json_makers("[TOOL_CALLS]"),
            "name then [ every byte": lambda size: "[TOOL_CALLS]f" + repeated("[", size),
            "[ARGS] every few bytes": lambda size: repeated("[TOOL_CALLS]f[ARGS]", size),
            "unclosed [THINK]": lambda size: repeated("[THINK]", size),
        },
    ),
    (
        "granite",
        lambda size: repeated(f"Sure.\n<|tool_call|>{JSON_LIST}\n", size),
        {
            **json_makers("<|tool_call|>"),
            "text markers": lambda size: repeated("<tool_call>[", size),
            "unclosed list items": lambda size: repeated("<|tool_call|>[{}, {", size),
        },
    ),
    (
        "hermes",
        lambda size: repeated(f"Let me check.\n<tool_call>\n{JSON_CALL}\n</tool_call>\n", size),
        {
            **json_makers("<tool_call>"),
            "closing tags only": lambda size: repeated("</tool_call>", size),
            "opener then } every few bytes": lambda size: "<tool_call>{" + repeated('"}"', size),
        },
    ),
    (
        "llama3-json",
        lambda size: repeated(f"<|python_tag|>{JSON_CALL}; {JSON_CALL}\n", size),
        {
            **json_makers("<|python_tag|>"),
            "bare: a million {": lambda size: repeated("{", size),
            "; every few bytes": lambda size: "<|python_tag|>" + repeated("{};", size),
        },
    ),
    (
        "xlam",
        lambda size: repeated(f"```json\n{JSON_LIST}\n```\n", size),
        {
            **json_makers("```json\n"),
            "bare: a million [": lambda size: repeated("[", size),
            "fences only": lambda size: repeated("```", size),
            "fenced lists without names": lambda size: repeated("```[{}", size),
        },
    ),
]


def median_seconds(function: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def texts(only: list[str] | None, size: int) -> list[tuple[str, str, str]]:
    """(dialect, case, text) for every row, the ordinary text first."""
    out = []
    for dialect, ordinary, adversarial in TABLE:
        if only and dialect not in only:
            continue
        out.append((dialect, "ordinary", ordinary(size)))
        out += [(dialect, case, maker(size)) for case, maker in adversarial.items()]
    return out


def rust_times(cases: list[tuple[str, str, str]], rounds: int) -> dict[tuple[str, str], float]:
    """Median seconds per (dialect, case) on the Rust core (the ignored cargo test)."""
    with tempfile.TemporaryDirectory() as folder:
        for number, (dialect, case, text) in enumerate(cases):
            path = pathlib.Path(folder) / f"{number:03d}.txt"
            path.write_text(f"{dialect}\t{case}\n{text}", encoding="utf-8")
        env = dict(
            os.environ,
            DIALECTS_LINEAR_DIR=folder,
            DIALECTS_LINEAR_ROUNDS=str(rounds),
            CARGO_PROFILE_RELEASE_LTO="off",
            CARGO_PROFILE_RELEASE_CODEGEN_UNITS="16",
        )
        command = ["cargo", "test", "--release", "--quiet", "--test", "dialects_linear"]
        command += ["--", "--ignored", "--nocapture"]
        run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(run.stdout + run.stderr)
    times = {}
    for line in run.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[0] == "time":
            times[(parts[1], parts[2])] = float(parts[3])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rust", action="store_true", help="time the Rust core too")
    parser.add_argument("--only", nargs="*", help="these dialects only")
    parser.add_argument("--mb", type=float, default=1.0, help="text size in MB (default 1)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cases = texts(args.only, int(args.mb * 1_000_000))
    backends: dict[str, dict[tuple[str, str], float]] = {"pure": {}}
    for dialect, case, text in cases:
        module = DIALECTS[dialect]
        backends["pure"][(dialect, case)] = median_seconds(
            functools.partial(module.parse, text, None), args.rounds
        )
    if args.rust:
        backends["rust"] = rust_times(cases, args.rounds)
    print(
        f"{'dialect':14} {'case':36} " + " ".join(f"{b + ' ms':>10} {'ratio':>6}" for b in backends)
    )
    worst = dict.fromkeys(backends, 0.0)
    for dialect, case, text in cases:
        cells = []
        for backend, times in backends.items():
            seconds = times[(dialect, case)]
            ratio = seconds / times[(dialect, "ordinary")]
            if case != "ordinary":
                worst[backend] = max(worst[backend], ratio)
            cells.append(f"{seconds * 1000:10.2f} {ratio:6.2f}")
        size = len(text.encode("utf-8")) / 1e6
        print(f"{dialect:14} {case + f' ({size:.2f} MB)':36} " + " ".join(cells))
    print("worst ratio: " + ", ".join(f"{b} {r:.2f}" for b, r in worst.items()))


if __name__ == "__main__":
    main()
