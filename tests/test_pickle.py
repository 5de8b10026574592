"""Parsers pickle (issue item 12): as their class and constructor options, never the core,
so `multiprocessing.Pool.map(parser.parse, lines)` works on both backends."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolsift import parsers
from toolsift._pure import formats

POOL_SCRIPT = Path(__file__).with_name("pickle_pool.py")
OPTIONS: dict[str, list[dict[str, Any]]] = {
    **{spec.parser_class: [{}] for spec in formats.REGISTRY},
    "AutoResponseParser": [{}],
    "JsonResponseParser": [
        {},
        {"tool_calls_key": "result.calls", "name_key": "fn", "arguments_key": "params"},
        {"tool_calls_key": "call", "single": True},
    ],
    "RawTextParser": [
        {"dialect": "hermes"},
        {"dialect": "auto"},
        {"dialect": "qwen3-coder", "tools": [{"name": "f", "parameters": {}}]},
    ],
}
LINES = [
    '{"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}}]}',
    '{"candidates": [{"content": {"parts": [{"function_call": {"name": "g", "args": {}}}]}}]}',
    '{"result": {"calls": [{"fn": "f", "params": {"a": 1}}]}}',
    '{"tool_calls": [{"name": "h", "arguments": "[1]"}]}',
    '{"call": {"name": "one", "arguments": {"c": 3}}}',
    '{"content": [{"type": "tool_call", "tool_call": {"name": "t", "arguments": {}}}]}',
]


def results(parser: Any) -> list[Any]:
    # parse_many: a line a parser does not recognize (AutoResponseParser) is its error.
    return [([c.model_dump() for c in r.tool_calls], r.error) for r in parser.parse_many(LINES)]


def test_every_class_is_covered() -> None:
    assert set(OPTIONS) == set(parsers.__all__)


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_round_trip(make: Any, name: str) -> None:
    """A parser bound to the backend under test comes back as the public class (bound to
    this process's backend), with its options, giving identical results."""
    for options in OPTIONS[name]:
        parser = getattr(make, name)(**options)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            loaded = pickle.loads(pickle.dumps(parser, protocol))
            assert type(loaded) is getattr(parsers, name)
            assert repr(loaded) == repr(parser)
            assert results(loaded) == results(parser)
        assert any(results(parser)), (name, options)
        assert results(copy.deepcopy(parser)) == results(parser)


class MyParser(parsers.JsonResponseParser):
    """A user's subclass, importable by name: pickled as itself."""


def test_user_subclass_pickles_as_itself() -> None:
    parser = MyParser(name_key="fn", tool_calls_key="result.calls", arguments_key="params")
    loaded = pickle.loads(pickle.dumps(parser))
    assert type(loaded) is MyParser
    assert results(loaded) == results(parser)


def test_russo_classes_pickle_as_themselves() -> None:
    pytest.importorskip("russo")
    from toolsift import russo

    parser = russo.JsonResponseParser(tool_calls_key="call", single=True)
    loaded = pickle.loads(pickle.dumps(parser))
    assert type(loaded) is russo.JsonResponseParser
    assert loaded.parse(LINES[4]) == parser.parse(LINES[4])


def test_pool_map_fork_and_spawn(impl: str) -> None:
    """Every class in a real multiprocessing Pool (2 processes, fork and spawn), in a
    process whose backend (and its workers') is the one under test."""
    done = subprocess.run(
        [sys.executable, str(POOL_SCRIPT), impl],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", impl]
