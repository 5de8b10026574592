# ruff: noqa: RUF001  (DeepSeek's markers are written with full-width bars)
"""`parse` per text: toolsift's RawTextParser against vLLM's own tool parser, per dialect.

    ORACLE_VENV="$(bash tools/oracle/setup.sh)"           # or `make bench-oracle`
    "$ORACLE_VENV/bin/python" benches/dialects_vs_vllm.py [--texts 100] [--rounds 5]
        [--seed 0] [--min-seconds 0.05] [--only ROW ...]

Runs in the oracle's torch-free venv (tools/oracle/, as `make oracle` does; not in CI),
toolsift imported from this tree's python/ (the Rust entries skip when the extension is
not built there). Per dialect, a seeded corpus of `--texts` generated outputs (prose
before, 1-3 calls, arguments of 100 B to 5 KB from `corpus.py`'s builders, with escapes,
unicode and nesting) is read text by text by entries taking turns round by round
(`turns.py`): toolsift's `RawTextParser(dialect).parse` on the Rust backend and on the
pure twin, vLLM's parser's `extract_tool_calls` (one parser and one request made before
timing, as vLLM holds them for a request; for `harmony`, vLLM's HarmonyParser on token
ids encoded before timing, as the engine hands them over), and `json.loads` of the
argument texts vLLM returned (toolsift's arguments are objects). Every round checks that
each entry found every call the corpus holds (the same work on both sides).

Times are this process's CPU time (`time.process_time`: on a shared host the time other
processes take is left out); a fast entry passes over the corpus several times a round.
Prints per dialect MB/s, the ratio rust / vLLM (and pure / vLLM), the target of issue
39 (3x where vLLM reads over 10 MB/s, 50x where it is slower) and rust / (vLLM +
json.loads). The load average is printed with each row: compare ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import keyword
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(HERE), str(ROOT / "tools" / "oracle"), str(ROOT / "python")]

import corpus  # noqa: E402
import run as oracle  # noqa: E402  (tools/oracle/run.py)
from turns import Run, take_turns, timed  # noqa: E402

Arguments = dict[str, Any]
Render = Callable[[random.Random, str, list[tuple[str, Arguments]]], str]

# --------------------------------------------------------------------------- the corpus

_BUILDERS = [pair for _, _, pairs in corpus._SIZE_CLASSES[:2] for pair in pairs]
MIN_ARGUMENTS, MAX_ARGUMENTS = 100, 5000


def _fits(arguments: Arguments) -> bool:
    """100 B to 5 KB of compact JSON, keys that are Python names (for `pythonic`)."""
    size = len(json.dumps(arguments, ensure_ascii=False, separators=(",", ":")).encode())
    names = all(k.isidentifier() and not keyword.iskeyword(k) for k in arguments)
    return MIN_ARGUMENTS <= size <= MAX_ARGUMENTS and names


def _call(rng: random.Random) -> tuple[str, Arguments]:
    while True:
        name, build = rng.choice(_BUILDERS)
        arguments = build(rng)
        if _fits(arguments):
            return name, arguments


def _json(rng: random.Random, name: str, arguments: Arguments) -> str:
    """The arguments' JSON text as models write it (corpus._Blob: mostly compact, some
    spaced, some with \\uXXXX escapes, a few indented)."""
    return corpus._Blob(name, arguments, rng).oa_text


def _prose(rng: random.Random) -> str:
    """A sentence or a few paragraphs (unicode, quotes, backslashes), without the brackets
    and angle brackets that open calls: the engines' regexes read a `{` or `[` anywhere."""
    text = corpus._paragraphs(rng, rng.randint(1, 4), spice=0.2)
    return text.translate(str.maketrans("", "", "{}[]<>"))


def _value_text(value: Any) -> str:
    """A value of the XML-style dialects: a string as it is, anything else its JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _hermes(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    blocks = (
        f'<tool_call>\n{{"name": "{n}", "arguments": {_json(rng, n, a)}}}\n</tool_call>'
        for n, a in calls
    )
    return prose + "\n\n" + "\n".join(blocks)


def _qwen3_coder(open_: str, close: str, space: str) -> Render:
    def render(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
        blocks = []
        for name, arguments in calls:
            parameters = "".join(
                f"<parameter={k}>{space}{_value_text(v)}{space}</parameter>\n"
                for k, v in arguments.items()
            )
            blocks.append(f"{open_}\n<function={name}>\n{parameters}</function>\n{close}")
        return prose + "\n\n" + "\n".join(blocks)

    return render


_QWEN3_CODER = _qwen3_coder("<tool_call>", "</tool_call>", "\n")
_SEED_OSS = _qwen3_coder("<seed:tool_call>", "</seed:tool_call>", "")


def _glm(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    blocks = []
    for name, arguments in calls:
        pairs = "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_value_text(v)}</arg_value>\n"
            for k, v in arguments.items()
        )
        blocks.append(f"<tool_call>{name}\n{pairs}</tool_call>")
    return prose + "\n\n" + "\n".join(blocks)


def _minimax(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    invokes = []
    for name, arguments in calls:
        parameters = "".join(
            f'<parameter name="{k}">{_value_text(v)}</parameter>\n' for k, v in arguments.items()
        )
        invokes.append(f'<invoke name="{name}">\n{parameters}</invoke>\n')
    return f"{prose}\n\n<minimax:tool_call>\n{''.join(invokes)}</minimax:tool_call>"


DSML = "｜DSML｜"


def _dsml(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    invokes = []
    for name, arguments in calls:
        parameters = "".join(
            f'<{DSML}parameter name="{k}" string="{str(isinstance(v, str)).lower()}">'
            f"{_value_text(v)}</{DSML}parameter>\n"
            for k, v in arguments.items()
        )
        invokes.append(f'<{DSML}invoke name="{name}">\n{parameters}</{DSML}invoke>\n')
    return f"{prose}\n\n<{DSML}function_calls>\n{''.join(invokes)}</{DSML}function_calls>"


def _kimi(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    blocks = "".join(
        f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>"
        f"{_json(rng, n, a)}<|tool_call_end|>"
        for i, (n, a) in enumerate(calls)
    )
    return f"{prose}<|tool_calls_section_begin|>{blocks}<|tool_calls_section_end|>"


def _deepseek_v3(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    blocks = "\n".join(
        f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{_json(rng, n, a)}\n```"
        "<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"{prose}<｜tool▁calls▁begin｜>{blocks}<｜tool▁calls▁end｜>"


def _deepseek_v31(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    blocks = "".join(
        f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{_json(rng, n, a)}<｜tool▁call▁end｜>"
        for n, a in calls
    )
    return f"{prose}<｜tool▁calls▁begin｜>{blocks}<｜tool▁calls▁end｜>"


def _listed(rng: random.Random, calls: list[tuple[str, Arguments]], key: str = "arguments") -> str:
    return (
        "[" + ", ".join(f'{{"name": "{n}", "{key}": {_json(rng, n, a)}}}' for n, a in calls) + "]"
    )


def _mistral(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    return f"{prose}[TOOL_CALLS] {_listed(rng, calls)}"


def _mistral_v11(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    return prose + "".join(f"[TOOL_CALLS]{n}[ARGS]{_json(rng, n, a)}" for n, a in calls)


def _llama3_json(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    bodies = (f'{{"name": "{n}", "parameters": {_json(rng, n, a)}}}' for n, a in calls)
    return f"{prose}<|python_tag|>" + "; ".join(bodies)


def _pythonic(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    # vLLM's pythonic parser reads a text that is the list and nothing else: no prose.
    return (
        "["
        + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls)
        + "]"
    )


def _granite(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    return f"{prose}\n<|tool_call|>{_listed(rng, calls)}"


def _xlam(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    return f"{prose}\n```json\n{_listed(rng, calls)}\n```"


def _harmony(rng: random.Random, prose: str, calls: list[tuple[str, Arguments]]) -> str:
    messages = "<|start|>assistant".join(
        f"<|channel|>commentary to=functions.{n} <|constrain|>json<|message|>"
        f"{_json(rng, n, a)}<|call|>"
        for n, a in calls
    )
    return f"<|channel|>analysis<|message|>{prose}<|end|><|start|>assistant{messages}"


@dataclass(frozen=True)
class Dialect:
    """A row: toolsift's dialect, vLLM's parser (tools/oracle/run.py's ENGINES) and how a
    text is written; `v11`: the stand-in tokenizer has `[ARGS]` (vLLM's Mistral parser
    reads the v11 syntax then, the JSON list before v11 otherwise)."""

    row: str
    dialect: str
    parser: str
    render: Render
    v11: bool = True


DIALECTS = [
    Dialect("hermes", "hermes", "hermes", _hermes),
    Dialect("qwen3-coder", "qwen3-coder", "qwen3_coder", _QWEN3_CODER),
    Dialect("seed-oss", "seed-oss", "seed_oss", _SEED_OSS),
    Dialect("glm", "glm", "glm45", _glm),
    Dialect("kimi-k2", "kimi-k2", "kimi_k2", _kimi),
    Dialect("deepseek-v3", "deepseek-v3", "deepseek_v3", _deepseek_v3),
    Dialect("deepseek-v3.1", "deepseek-v3.1", "deepseek_v31", _deepseek_v31),
    Dialect("deepseek-dsml", "deepseek-dsml", "deepseek_v32", _dsml),
    Dialect("mistral", "mistral", "mistral", _mistral, v11=False),
    Dialect("mistral v11", "mistral", "mistral", _mistral_v11),
    Dialect("llama3-json", "llama3-json", "llama3_json", _llama3_json),
    Dialect("pythonic", "pythonic", "pythonic", _pythonic),
    Dialect("granite", "granite", "granite", _granite),
    Dialect("xlam", "xlam", "xlam", _xlam),
    Dialect("minimax-m2", "minimax-m2", "minimax_m2", _minimax),
    Dialect("harmony", "harmony", "openai-harmony", _harmony),
]  # fmt: skip


def texts(d: Dialect, n: int, seed: int) -> tuple[list[str], int]:
    """`n` outputs of dialect `d` (seeded: the same texts every run) and their calls."""
    rng = random.Random(f"dialects-vs-vllm-{d.row}-{seed}")
    out, calls = [], 0
    for _ in range(n):
        made = [_call(rng) for _ in range(rng.choices((1, 2, 3), (0.5, 0.3, 0.2))[0])]
        out.append(d.render(rng, _prose(rng), made))
        calls += len(made)
    return out, calls


# --------------------------------------------------------------------------- the entries


def toolsift_entry(backend: str, dialect: str, corpus_: list[str]) -> Run | None:
    """`parse` of every text by RawTextParser on `backend` (None: the backend is missing)."""
    from toolsift._backend import load
    from toolsift.parsers import RawTextParser

    try:
        core = load(backend)
    except ImportError:
        return None
    parser = type("RawTextParser", (RawTextParser,), {"_backend": core})(dialect)
    return lambda: sum(len(parser.parse(text).tool_calls) for text in corpus_)


def vllm_parser(d: Dialect) -> tuple[Callable[[str], list[Any]], Callable[[Any], str]]:
    """vLLM's own parser of `d` (made once, as vLLM holds one for a request): a function
    from a text to its tool calls, and one from a call to its arguments' JSON text."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    tokenizer = oracle.Tokenizer()
    if not d.v11:
        del tokenizer.vocab["[ARGS]"]
    request = ChatCompletionRequest(model="oracle", messages=[{"role": "user", "content": "hi"}])
    if d.parser == "openai-harmony":
        from vllm.entrypoints.openai.parser.harmony_utils import get_encoding
        from vllm.parser.harmony import HarmonyParser
        from vllm.reasoning.gptoss_reasoning_parser import GptOssReasoningParser
        from vllm.tool_parsers.gptoss_tool_parser import GptOssToolParser

        HarmonyParser.reasoning_parser_cls = GptOssReasoningParser
        HarmonyParser.tool_parser_cls = GptOssToolParser
        harmony = HarmonyParser(tokenizer, None)
        ids: dict[str, list[int]] = {}  # the engine hands the parser the token ids

        def harmony_calls(text: str) -> list[Any]:
            if text not in ids:
                ids[text] = get_encoding().encode(text, allowed_special="all")
            calls = harmony.parse(
                text, request, enable_auto_tools=True, model_output_token_ids=ids[text]
            )[2]
            return calls or []

        return harmony_calls, lambda call: call.arguments
    from vllm.tool_parsers import ToolParserManager

    parser = ToolParserManager.get_tool_parser(d.parser)(tokenizer, None)
    return (
        lambda text: parser.extract_tool_calls(text, request).tool_calls or [],
        lambda call: call.function.arguments,
    )


def counted(run: Run, calls: int, label: str) -> Run:
    """`run`, checked each time to find `calls` calls."""

    def checked() -> int:
        found = run()
        if found != calls:
            raise SystemExit(f"{label}: found {found} calls, the corpus holds {calls}")
        return found

    return checked


def passes_for(run: Run, seconds: float) -> int:
    """How many passes of `run` take at least `seconds` of CPU (one pass timed: the first,
    untimed by the rounds, warms the entry up)."""
    once = timed(run, time.process_time)
    return max(1, math.ceil(seconds / max(once, 1e-9)))


def repeated(run: Run, passes: int) -> Run:
    return lambda: [run() for _ in range(passes)][-1]


# --------------------------------------------------------------------------- the run


def row(d: Dialect, args: argparse.Namespace) -> list[str]:
    """The table's row of dialect `d`: its corpus read by every entry, taking turns."""
    found, calls = texts(d, args.texts, args.seed)
    megabytes = sum(len(t.encode()) for t in found) / 1e6
    entries: dict[str, Run] = {}
    for backend in ("rust", "python"):
        run = toolsift_entry(backend, d.dialect, found)
        if run is not None:
            entries[backend] = counted(run, calls, f"{d.row} / toolsift {backend}")
    vllm_calls, arguments_of = vllm_parser(d)
    entries["vllm"] = counted(
        lambda: sum(len(vllm_calls(text)) for text in found), calls, f"{d.row} / vLLM"
    )
    # vLLM's arguments are JSON text, toolsift's objects: decoding vLLM's, timed apart.
    arguments = [arguments_of(call) for text in found for call in vllm_calls(text)]
    entries["loads"] = lambda: len([json.loads(text) for text in arguments])
    passes = {key: passes_for(run, args.min_seconds) for key, run in entries.items()}
    medians = take_turns(
        {key: repeated(run, passes[key]) for key, run in entries.items()},
        args.rounds,
        clock=time.process_time,
    )
    seconds = {key: median / passes[key] for key, median in medians.items()}
    speed = {key: megabytes / s for key, s in seconds.items()}
    target = 3 if speed["vllm"] > 10 else 50
    ratio = {key: seconds["vllm"] / seconds[key] for key in ("rust", "python") if key in seconds}
    cells = [d.row, d.parser, f"{megabytes:.2f}", str(calls)]
    cells += [f"{speed[k]:.2f}" if k in speed else "-" for k in ("rust", "python", "vllm")]
    cells += [f"{ratio[k]:.1f}x" if k in ratio else "-" for k in ("rust", "python")]
    cells.append(f"{target}x")
    if "rust" in seconds:
        cells.append("yes" if ratio["rust"] >= target else "**no**")
        cells.append(f"{(seconds['vllm'] + seconds['loads']) / seconds['rust']:.1f}x")
    else:
        cells += ["-", "-"]
    return [*cells, f"{os.getloadavg()[0]:.2f}"]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--texts", type=int, default=100, help="texts per dialect")
    options.add_argument("--rounds", type=int, default=5)
    options.add_argument("--seed", type=int, default=0)
    options.add_argument(
        "--min-seconds",
        type=float,
        default=0.05,
        help="CPU seconds an entry's round lasts at least (fast entries pass over the corpus"
        " several times a round)",
    )
    options.add_argument("--only", nargs="*", help="these rows only (e.g. hermes 'mistral v11')")
    args = options.parse_args()
    oracle.boot()

    print(
        f"{args.texts} texts per dialect, {args.rounds} rounds, entries taking turns;"
        " medians of CPU time (time.process_time)"
    )
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    header = ("row", "vLLM parser", "MB", "calls", "rust MB/s", "pure MB/s", "vLLM MB/s",
              "rust / vLLM", "pure / vLLM", "target", "met",
              "rust / (vLLM + json.loads)", "load")  # fmt: skip
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for d in DIALECTS:
        if not args.only or d.row in args.only:
            print("| " + " | ".join(row(d, args)) + " |", flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
