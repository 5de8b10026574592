"""Cases for the Rust-vs-pure differential of the raw-text dialects, until the dialects
are wired into the parsers (and so into `fuzz/run.py`): texts made by mutating each
dialect's vectors (cuts, marker fragments spliced in, values swapped for edge values,
spans doubled), with what the pure twin reads, for the Rust core to read the same:

    PYTHONPATH=python python fuzz/dialect_cases.py /tmp/cases.json --seed 1 --per-dialect 4000
    DIALECT_CASES=/tmp/cases.json cargo test --release --test dialect_differential \\
        -- --ignored --nocapture

FRAGMENTS lists, per dialect (all of them), the pieces spliced in: its markers and the
JSON edges its arguments meet.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
from typing import Any

from toolsift._pure.dialects import DIALECTS, Tools

VECTORS = pathlib.Path(__file__).parent.parent / "tests" / "vectors" / "dialects"
DSML = "\uff5cDSML\uff5c"
THINK = ["<think>", "</think>"]
JSON_EDGES = ["{", "}", "[", "]", '"', "\\", ",", ":", '{"name": "f", "arguments": {}}']
DEEPSEEK = ["<\uff5ctool\u2581calls\u2581begin\uff5c>", "<\uff5ctool\u2581calls\u2581end\uff5c>"]
DEEPSEEK += ["<\uff5ctool\u2581call\u2581begin\uff5c>", "<\uff5ctool\u2581call\u2581end\uff5c>"]
DEEPSEEK += ["<\uff5ctool\u2581sep\uff5c>", "<\uff5ctool\u2581", *THINK, *JSON_EDGES]
FRAGMENTS: dict[str, list[str]] = {
    "qwen3-coder": [
        *("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter="),
        *("</parameter>", ">", "\n", "<", *THINK),
    ],
    "seed-oss": [
        *("<seed:tool_call>", "</seed:tool_call>", "<function=", "</function>"),
        *("<parameter=", "</parameter>", ">", "\n", "<seed:think>", "</seed:think>"),
    ],
    "glm": [
        *("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>"),
        *("</arg_value>", "\n", "<", ">", *THINK),
    ],
    "minimax-m2": [
        *("<minimax:tool_call>", "</minimax:tool_call>", '<invoke name="', '">'),
        *("</invoke>", '<parameter name="', "</parameter>", '"', *THINK),
    ],
    "deepseek-dsml": [
        *(f"<{DSML}function_calls>", f"</{DSML}function_calls>", f"<{DSML}tool_calls>"),
        *(f'<{DSML}invoke name="', '">', f"</{DSML}invoke>", f'<{DSML}parameter name="'),
        *('" string="true">', '" string="false">', '">', f"</{DSML}parameter>", *THINK),
    ],
    "deepseek-v3": [*DEEPSEEK, "function", "\n", "```json\n", "\n```"],
    "deepseek-v3.1": DEEPSEEK,
    "kimi-k2": [
        *("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>"),
        *("<|tool_call_end|>", "<|tool_call_argument_begin|>", "functions.", ":0", "<|"),
        "<|tool_call_section_begin|>",
        *(*THINK, *JSON_EDGES),
    ],
    "harmony": [
        *("<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "<|end|>", "<|call|>"),
        *("<|return|>", "assistant", "analysis", "commentary", "final", " to=functions."),
        *("json", "<|", *JSON_EDGES),
    ],
    "pythonic": [
        *("<|python_start|>", "<|python_end|>", "<|tool_call_start|>", "<|tool_call_end|>"),
        *("(", ")", "=", "'", "True", "None", "f(", *THINK, *JSON_EDGES),
    ],
    "mistral": ["[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[THINK]", "[/THINK]", *THINK, *JSON_EDGES],
    "granite": ["<|tool_call|>", "<tool_call>", "</tool_call>", *THINK, *JSON_EDGES],
    "hermes": ["<tool_call>", "</tool_call>", "\n", *THINK, *JSON_EDGES],
    "llama3-json": ["<|python_tag|>", ";", '"parameters"', *THINK, *JSON_EDGES],
    "xlam": ["```", "```json", "\n", *THINK, *JSON_EDGES],
}
VALUES = ["03106", "42", " 42 ", "-0", "1.5", "1e400", "1E5", "NaN", "true", "True"]
VALUES += ["false", "None", "null", "nil", '{"a": [1, "}"]}', '{"a": 1, "a": 2}', "[1, 2"]
VALUES += ["[]", "{}", "C:\\path", "é🚀", "", "\n", "\n5\n", "9" * 30, '"str"']


def mutated(rng: random.Random, text: str, fragments: list[str]) -> str:
    for _ in range(rng.randint(0, 3)):
        op = rng.random()
        i = rng.randint(0, len(text))
        if op < 0.3:
            text = text[:i] + rng.choice(fragments) + text[i:]
        elif op < 0.5:
            text = text[:i]
        elif op < 0.8:  # the next value-like span becomes an edge value
            for marker in (">", "<arg_value>"):
                j = text.find(marker, i)
                if j != -1:
                    k = text.find("<", j + len(marker))
                    if k != -1:
                        text = text[: j + len(marker)] + rng.choice(VALUES) + text[k:]
                    break
        else:
            a, b = sorted((i, rng.randint(0, len(text))))
            text = text[:b] + text[a:b] + text[b:]
    return text


def cases(seed: int, per_dialect: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for name, fragments in FRAGMENTS.items():
        vectors = json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))
        for n in range(per_dialect):
            source = rng.choice(vectors)
            text = mutated(rng, source["input"], fragments)
            tools = source.get("tools")
            parsed = DIALECTS[name].parse(text, Tools(tools) if tools is not None else None)
            calls = [
                {"name": c.name, "arguments": c.arguments, "id": c.id}
                | {"raw_arguments": c.raw_arguments}
                for c in parsed.tool_calls
            ]
            case = {"dialect": name, "name": f"{name} {n}", "input": text}
            case["expect"] = {
                "tool_calls": calls,
                "content": parsed.content,
                "reasoning": parsed.reasoning,
            }
            if tools is not None:
                case["tools"] = tools
            try:
                json.dumps(case, allow_nan=False)
            except ValueError:
                continue  # an infinity (`1e400` read as JSON) has no JSON text to compare
            out.append(case)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-dialect", type=int, default=4000)
    args = parser.parse_args()
    made = cases(args.seed, args.per_dialect)
    args.out.write_text(json.dumps(made, ensure_ascii=False), encoding="utf-8")
    print(f"{len(made)} cases written to {args.out}")


if __name__ == "__main__":
    main()
