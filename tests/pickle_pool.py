"""Run by tests/test_pickle.py with TOOLSIFT_IMPLEMENTATION set: every parser class pickles,
and `multiprocessing.Pool.map(parser.parse, lines)` works with fork and with spawn.

A script rather than a test, so that the backend of this process, of its pickles and of the
spawned workers is the one the environment names. Prints "ok <implementation>".
"""

from __future__ import annotations

import multiprocessing
import pickle
import sys
from typing import Any

import toolsift
from toolsift import parsers
from toolsift._types import AgentResponse

OPENAI = (
    '{"choices": [{"message": {"tool_calls": [{"id": "c1", "function": '
    '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}}]}}]}'
)
CUSTOM = '{"result": {"calls": [{"fn": "f", "params": {"a": 1}}, {"fn": "g", "params": "[1]"}]}}'
LINES = [
    OPENAI,
    '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "args": {"x": 1}}}]}}]}',
    CUSTOM,
    '{"tool_calls": [{"name": "h", "arguments": {"b": 2}}]}',
    '{"call": {"name": "one", "arguments": {"c": [3]}}}',
    '<|tool_call>call:lookup{q:<|"|>x<|"|>,n:3}<tool_call|>',
    '{"choices": []}',
]
PARSERS = [
    parsers.OpenAIResponseParser(),
    parsers.GeminiResponseParser(),
    parsers.JsonResponseParser(),
    parsers.JsonResponseParser(
        tool_calls_key="result.calls", name_key="fn", arguments_key="params", single=False
    ),
    parsers.JsonResponseParser(tool_calls_key="call", single=True),
    parsers.SdkResponseParser(),
]


def implementation() -> str:
    """The backend a worker runs (module level: spawn imports this script to find it)."""
    return toolsift.IMPLEMENTATION


def results(responses: list[Any]) -> list[Any]:
    return [([c.model_dump() for c in r.tool_calls], r.raw, r.error) for r in responses]


def parse_or_error(parser: Any, line: str) -> Any:
    try:
        return parser.parse(line)
    except ValueError as exc:  # text that is not JSON (the LiteRT-LM line, for most)
        return f"{type(exc).__name__}: {exc}"


def main() -> None:
    want = sys.argv[1]
    assert toolsift.IMPLEMENTATION == want, toolsift.IMPLEMENTATION
    core = type(parsers.OpenAIResponseParser()._core)
    text_lines = [line for line in LINES if line.startswith("{")]
    for parser in PARSERS:
        copy = pickle.loads(pickle.dumps(parser))
        assert type(copy) is type(parser) and repr(copy) == repr(parser), (copy, parser)
        assert type(copy._core) is core
        for line in LINES:
            a, b = parse_or_error(parser, line), parse_or_error(copy, line)
            assert (results([a]) if isinstance(a, AgentResponse) else a) == (
                results([b]) if isinstance(b, AgentResponse) else b
            ), (parser, line)
    for method in ("fork", "spawn"):
        with multiprocessing.get_context(method).Pool(2) as pool:
            assert pool.apply(implementation) == want, method
            for parser in PARSERS:
                lines = LINES if isinstance(parser, parsers.SdkResponseParser) else text_lines
                got = pool.map(parser.parse, lines, chunksize=1)
                assert results(got) == results([parser.parse(line) for line in lines]), (
                    method,
                    parser,
                )
                assert any(r.tool_calls for r in got), (method, parser)
    print("ok", toolsift.IMPLEMENTATION)


if __name__ == "__main__":
    main()
