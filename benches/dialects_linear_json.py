"""Linear time of the raw-text dialects (issue 39): 1 MB of adversarial text per dialect
(unclosed markers, a million `{`, a marker every few bytes, long backslash runs) against
1 MB of ordinary text of that dialect, on the pure backend; the Rust modules are timed by
`cargo test --release --test dialects_linear_<family> -- --ignored --nocapture` on the
same texts (`xml`, `json`). Target: adversarial / ordinary <= 5x. Run:

    PYTHONPATH=python python benches/dialects_linear.py [dialect ...]

Prints, per dialect and text, the median of 5 runs and its ratio to the ordinary text.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable

from toolsift._pure.dialects import DIALECTS

SIZE = 1 << 20


def repeat(piece: str) -> str:
    """`piece` repeated to SIZE characters."""
    return (piece * (SIZE // len(piece) + 1))[:SIZE]


ARGUMENTS = (
    '{"path": "C:\\\\tmp\\\\a [1] {2}.txt", "text": "h\\u00e9llo \\"w\\" é 🌍", "n": [1, 2.5]}'
)


def json_call(name: str = "write") -> str:
    """One call object with escapes, braces inside strings and unicode."""
    return f'{{"name": "{name}", "arguments": {ARGUMENTS}}}'


def json_list(calls: int = 2) -> str:
    return "[" + ", ".join(json_call() for _ in range(calls)) + "]"


def json_common(opener: str) -> dict[str, str]:
    """The adversarial texts every JSON-in-text dialect gets."""
    return {
        "unclosed opener": repeat(opener),
        "opener then {": repeat(opener + "{"),
        "opener then [": repeat(opener + "["),
        "a million {": opener + repeat("{"),
        "a million [": opener + repeat("["),
        "backslash run": opener + '{"name": "' + repeat("\\"),
        "unclosed string each opener": repeat(opener + '{"name": "f", "arguments": {"a": "'),
        "unclosed <think>": repeat("<think>"),
        "stray </think>": repeat("x</think>"),
    }


#: (dialect, ordinary text maker, adversarial text makers)
TABLE: list[tuple[str, Callable[[], str], Callable[[], dict[str, str]]]] = [
    (
        "mistral",
        lambda: repeat(f"Let me do it.[TOOL_CALLS]write[ARGS]{ARGUMENTS}\n"),
        lambda: {
            **json_common("[TOOL_CALLS]"),
            "name then [ every byte": "[TOOL_CALLS]f" + repeat("["),
            "[ARGS] every few bytes": repeat("[TOOL_CALLS]f[ARGS]"),
            "unclosed [THINK]": repeat("[THINK]"),
        },
    ),
    (
        "granite",
        lambda: repeat(f"Sure.\n<|tool_call|>{json_list()}\n"),
        lambda: {
            **json_common("<|tool_call|>"),
            "text markers": repeat("<tool_call>["),
            "unclosed list items": repeat("<|tool_call|>[{}, {"),
        },
    ),
    (
        "hermes",
        lambda: repeat(f"Let me check.\n<tool_call>\n{json_call()}\n</tool_call>\n"),
        lambda: {
            **json_common("<tool_call>"),
            "closing tags only": repeat("</tool_call>"),
            "opener then } every few bytes": "<tool_call>{" + repeat('"}"'),
        },
    ),
    (
        "llama3-json",
        lambda: repeat(f"<|python_tag|>{json_call()}; {json_call()}\n"),
        lambda: {
            **json_common("<|python_tag|>"),
            "bare: a million {": repeat("{"),
            "; every few bytes": "<|python_tag|>" + repeat("{};"),
        },
    ),
    (
        "xlam",
        lambda: repeat(f"```json\n{json_list()}\n```\n"),
        lambda: {
            **json_common("```json\n"),
            "bare: a million [": repeat("["),
            "fences only": repeat("```"),
            "fenced lists without names": repeat("```[{}"),
        },
    ),
]


def median_seconds(parse: Callable[[str, None], object], text: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        parse(text, None)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(only: list[str]) -> None:
    for name, ordinary, adversarial in TABLE:
        if only and name not in only:
            continue
        parse = DIALECTS[name].parse
        base = median_seconds(parse, ordinary())
        print(f"{name}: ordinary 1 MB {base * 1e3:.1f} ms")
        for label, text in adversarial().items():
            took = median_seconds(parse, text)
            print(f"  {label:40} {took * 1e3:8.1f} ms  {took / base:5.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
