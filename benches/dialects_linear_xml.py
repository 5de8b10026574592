"""Linear time of the raw-text dialects (issue 39): 1 MB of adversarial text per dialect
(unclosed markers, a million `{`, a marker every few bytes, long backslash runs) against
1 MB of ordinary text of that dialect, on the pure backend; the Rust modules are timed by
`cargo test --release --test dialects_linear_xml -- --ignored --nocapture` on the same
texts. Target: adversarial / ordinary <= 5x. Run:

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


def qwen_call(open_: str = "<tool_call>", close: str = "</tool_call>") -> str:
    value = 'print("héllo {world}")\\n' * 8
    return (
        f"Let me run it.\n{open_}\n<function=run>\n<parameter=code>\n{value}\n</parameter>\n"
        f"<parameter=timeout>\n30\n</parameter>\n</function>\n{close}\n"
    )


def glm_call() -> str:
    value = 'print("héllo {world}")\\n' * 8
    return (
        "Let me run it.\n<tool_call>run\n<arg_key>code</arg_key>\n"
        f"<arg_value>{value}</arg_value>\n</tool_call>\n"
    )


def minimax_call() -> str:
    value = 'print("héllo {world}")\\n' * 8
    return (
        f'Running.\n<minimax:tool_call>\n<invoke name="run">\n<parameter name="code">{value}'
        "</parameter>\n</invoke>\n</minimax:tool_call>\n"
    )


def dsml_call() -> str:
    value = 'print("héllo {world}")\\n' * 8
    d = "\uff5cDSML\uff5c"
    return (
        f'Running.\n<{d}function_calls>\n<{d}invoke name="run">\n<{d}parameter name="code" '
        f'string="true">{value}</{d}parameter>\n</{d}invoke>\n</{d}function_calls>\n'
    )


def common(opener: str, param_open: str, param_close: str) -> dict[str, str]:
    """The adversarial texts every invoke-style dialect gets."""
    return {
        "unclosed opener": repeat(opener),
        "a million {": opener + repeat("{"),
        "backslash run": opener + repeat("\\"),
        "unclosed <think>": repeat("<think>"),
        "stray </think>": repeat("x</think>"),
        "unclosed values": repeat(opener + param_open),
        "closes no marker follows": repeat(opener + param_open + param_close + "x"),
        "close every few bytes in one value": opener + param_open + repeat(param_close + "x"),
    }


DSML = "\uff5cDSML\uff5c"
#: (dialect, ordinary text maker, adversarial text makers)
TABLE: list[tuple[str, Callable[[], str], Callable[[], dict[str, str]]]] = [
    (
        "seed-oss",
        lambda: repeat(qwen_call("<seed:tool_call>", "</seed:tool_call>")),
        lambda: common("<seed:tool_call><function=f>", "<parameter=a>", "</parameter>"),
    ),
    (
        "qwen3-coder",
        lambda: repeat(qwen_call()),
        lambda: common("<tool_call><function=f>", "<parameter=a>", "</parameter>"),
    ),
    (
        "glm",
        lambda: repeat(glm_call()),
        lambda: {
            **common("<tool_call>f", "<arg_key>a</arg_key><arg_value>", "</arg_value>"),
            "< every byte": "<tool_call>" + repeat("<"),
        },
    ),
    (
        "minimax-m2",
        lambda: repeat(minimax_call()),
        lambda: common(
            '<minimax:tool_call><invoke name="f">', '<parameter name="a">', "</parameter>"
        ),
    ),
    (
        "deepseek-dsml",
        lambda: repeat(dsml_call()),
        lambda: common(
            f'<{DSML}function_calls><{DSML}invoke name="f">',
            f'<{DSML}parameter name="a" string="true">',
            f"</{DSML}parameter>",
        ),
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
