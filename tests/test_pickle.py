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


# A parser with nothing to add after its core's `parse` (no `tools` to check, no format
# check left) hands out the core's own `parse`: it must behave as the class's method.
DIRECT = [
    (
        "RawTextParser",
        {"dialect": "hermes"},
        '<tool_call>{"name": "f", "arguments": {}}</tool_call>',
    ),
    ("AutoResponseParser", {}, LINES[0]),
]


@pytest.mark.parametrize(("name", "options", "text"), DIRECT)
def test_direct_parse_is_the_method(make: Any, name: str, options: Any, text: str) -> None:
    parser = getattr(make, name)(**options)
    assert parser.parse is not type(parser).parse  # the core's own
    want = getattr(parsers, name).parse(parser, text)  # the class's method
    assert parser.parse(text) == want
    assert parser.parse(text, record_path=None) == want
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        loaded = pickle.loads(pickle.dumps(parser.parse, protocol))
        assert loaded(text) == want
        assert type(loaded.__self__) is type(parser._core)
    with pytest.raises(TypeError):
        parser.parse(text, "response")  # record_path stays keyword-only
    errors = [(TypeError, 1), (ValueError, ""), (ValueError, "a\ud800")]
    for error, path in errors:
        with pytest.raises(error) as direct:
            parser.parse(text, record_path=path)
        with pytest.raises(error) as method:
            getattr(parsers, name).parse(parser, text, record_path=path)
        assert str(direct.value) == str(method.value)


def test_direct_parse_only_with_nothing_to_add(make: Any) -> None:
    """Checks (`tools=`) keep the class's `parse`; so does a format check still open, until
    it is over."""
    tools = [{"name": "f", "parameters": {}}]
    assert "parse" not in vars(make.SdkResponseParser(tools=tools))
    assert "parse" not in vars(make.OpenAIResponseParser(tools=tools))
    parser = make.OpenAIResponseParser()
    assert "parse" not in vars(parser)
    with pytest.warns(Warning):
        parser.parse(LINES[1])  # a Gemini response: the format check is over
    assert "parse" in vars(parser)


def test_direct_parse_is_collected(make: Any) -> None:
    """The core refers back to its parser (for pickling): the cycle is collected."""
    import gc
    import weakref

    parser = make.RawTextParser("hermes")
    gone = weakref.ref(parser)
    del parser
    gc.collect()
    assert gone() is None
