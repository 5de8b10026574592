"""ToolCall, AgentResponse and ParseError: the types both backends return and raise."""

from __future__ import annotations

import copy
import gc
import pickle
import sys
from typing import Any

import pytest
import toolsift
from conftest import same
from toolsift import AgentResponse, ParseError, ToolCall
from toolsift._jsontext import MAX_DEPTH, loads

# --------------------------------------------------------------------------- ToolCall


def test_public_names() -> None:
    assert toolsift.ToolCall is ToolCall
    assert toolsift.AgentResponse is AgentResponse
    assert toolsift.ParseError is ParseError
    assert "Stream" in toolsift.__all__ and "FormatMismatchWarning" in toolsift.__all__
    assert toolsift.IMPLEMENTATION in ("rust", "python")
    assert isinstance(toolsift.__version__, str)


def test_tool_call_defaults() -> None:
    call = ToolCall("f")
    assert call.name == "f"
    assert call.arguments == {}
    assert call.id is None
    assert call.raw_arguments is None
    assert ToolCall("f", None).arguments == {}
    # a fresh dict each time, never a shared default
    a, b = ToolCall("f"), ToolCall("f")
    a.arguments["x"] = 1
    assert b.arguments == {}


def test_tool_call_keywords() -> None:
    call = ToolCall(name="f", arguments={"a": 1}, id="c1", raw_arguments="x")
    assert (call.name, call.arguments, call.id, call.raw_arguments) == ("f", {"a": 1}, "c1", "x")


def test_tool_call_keeps_the_arguments_object() -> None:
    arguments = {"a": [1]}
    assert ToolCall("f", arguments).arguments is arguments


def test_tool_call_has_slots() -> None:
    call = ToolCall("f")
    with pytest.raises(AttributeError):
        call.other = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (ToolCall("f", {"a": 1}), ToolCall("f", {"a": 1})),
        (ToolCall("f", {"a": 1}, id="c1"), ToolCall("f", {"a": 1}, id="c2")),
        (ToolCall("f", {}, raw_arguments="[1]"), ToolCall("f", {}, raw_arguments=None)),
        (ToolCall("f", {"a": 1, "b": 2}), ToolCall("f", {"b": 2, "a": 1})),  # key order
        (ToolCall("f", {"a": [1, {"b": None}]}), ToolCall("f", {"a": [1, {"b": None}]})),
        (ToolCall("f"), ToolCall("f", {})),
    ],
)
def test_equal_on_name_and_arguments_only(a: ToolCall, b: ToolCall) -> None:
    assert a == b
    assert not (a != b)
    assert hash(a) == hash(b)
    assert len({a, b}) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (ToolCall("f", {"a": 1}), ToolCall("g", {"a": 1})),
        (ToolCall("f", {"a": 1}), ToolCall("f", {"a": 2})),
        (ToolCall("f", {"a": 1}), ToolCall("f", {"a": 1, "b": 1})),
        (ToolCall("f", {"a": [1, 2]}), ToolCall("f", {"a": [2, 1]})),
        (ToolCall("f", {"a": {"b": 1}}), ToolCall("f", {"a": {"b": 2}})),
        (ToolCall("f"), ToolCall("")),
    ],
)
def test_not_equal(a: ToolCall, b: ToolCall) -> None:
    assert a != b
    assert not (a == b)
    assert len({a, b}) == 2  # (hashes may collide in theory; these do not)


def test_not_equal_to_other_types() -> None:
    call = ToolCall("f", {"a": 1})
    assert call != ("f", {"a": 1})
    assert call != {"name": "f", "arguments": {"a": 1}}
    assert call != "f"
    assert call.__eq__(object()) is NotImplemented


def test_hash_of_nested_and_unhashable_values() -> None:
    """Lists and dicts (unhashable) at any depth hash; equal calls hash equal."""
    arguments: dict[str, Any] = {
        "list": [1, [2, [3, {"k": [4]}]]],
        "dict": {"x": {"y": {"z": []}}},
        "empty": {},
        "mixed": [{"a": 1}, {"a": 1}],
        "scalars": [None, True, 1.5, -0.0, 10**30, "ü🚀"],
    }
    a = ToolCall("f", arguments)
    b = ToolCall("f", copy.deepcopy(arguments), id="other")
    assert hash(a) == hash(b)
    assert a in {b}
    # dicts with the same items in another order hash the same
    assert hash(ToolCall("f", {"a": {"x": 1, "y": 2}})) == hash(
        ToolCall("f", {"a": {"y": 2, "x": 1}})
    )
    # tuples (caller-built arguments) hash as well
    assert hash(ToolCall("f", {"t": (1, [2])}))
    # sets (caller-built arguments) hash too, equal to the same frozenset
    assert hash(ToolCall("f", {"s": {1, 2}})) == hash(ToolCall("f", {"s": frozenset({2, 1})}))
    # the same list twice is not a cycle
    shared = [1, 2]
    assert hash(ToolCall("f", {"a": shared, "b": shared})) == hash(
        ToolCall("f", {"a": [1, 2], "b": [1, 2]})
    )


def test_hash_distinguishes_structure() -> None:
    """Not a requirement of hash, but a sign that the stand-in keeps the structure."""
    calls = [
        ToolCall("f", {"a": [1, 2]}),
        ToolCall("f", {"a": [[1, 2]]}),
        ToolCall("f", {"a": {"1": 2}}),
        ToolCall("f", {"a": [2, 1]}),
        ToolCall("f", {"a": {}}),
        ToolCall("f", {"a": []}),
    ]
    assert len({hash(c) for c in calls}) == len(calls)


def test_hash_of_a_cycle_raises() -> None:
    cyclic: list[Any] = [1]
    cyclic.append(cyclic)
    with pytest.raises(ValueError, match="cycle"):
        hash(ToolCall("f", {"a": cyclic}))


def test_hash_equality_and_repr_of_arguments_1024_deep() -> None:
    """Arguments as deep as both backends decode hash, compare and print."""
    depth = MAX_DEPTH - 2  # objects, then a list and an object inside it
    text = '{"a":' * depth + '[1,{"b":2}]' + "}" * depth
    a, b = ToolCall("f", loads(text)), ToolCall("f", loads(text))
    assert hash(a) == hash(b)
    assert a == b
    assert a != ToolCall("f", loads(text.replace("2", "3")))
    assert AgentResponse([a], raw=loads(text)) == AgentResponse([b], raw=loads(text))
    assert repr(a).startswith("ToolCall(name='f', arguments={'a': {'a': ")
    assert repr(AgentResponse([a], raw=loads(text))).startswith("AgentResponse(tool_calls=[")


def test_tool_call_repr() -> None:
    assert repr(ToolCall("f", {"a": 1})) == "ToolCall(name='f', arguments={'a': 1})"
    assert (
        repr(ToolCall("f", {}, id="c1", raw_arguments="[1]"))
        == "ToolCall(name='f', arguments={}, id='c1', raw_arguments='[1]')"
    )
    assert repr(ToolCall("f", id="c1")) == "ToolCall(name='f', arguments={}, id='c1')"
    assert (
        repr(ToolCall("f", raw_arguments=""))
        == "ToolCall(name='f', arguments={}, raw_arguments='')"
    )
    assert repr(ToolCall('q"\n', {"ü": "🚀"})) == "ToolCall(name='q\"\\n', arguments={'ü': '🚀'})"
    # the repr is valid Python that builds an equal call
    call = ToolCall("f", {"a": [1, None, True]}, id="c1", raw_arguments="x")
    rebuilt = eval(repr(call), {"ToolCall": ToolCall})
    assert rebuilt == call
    assert (rebuilt.id, rebuilt.raw_arguments) == ("c1", "x")


def test_tool_call_model_dump_and_to_dict() -> None:
    call = ToolCall("f", {"a": {"b": [1]}}, id="c1", raw_arguments=None)
    dumped = call.model_dump()
    assert dumped == {
        "name": "f",
        "arguments": {"a": {"b": [1]}},
        "id": "c1",
        "raw_arguments": None,
    }
    assert list(dumped) == ["name", "arguments", "id", "raw_arguments"]
    assert type(dumped) is dict
    assert call.to_dict() == dumped
    assert ToolCall.to_dict is ToolCall.model_dump
    assert ToolCall("g").model_dump() == {
        "name": "g",
        "arguments": {},
        "id": None,
        "raw_arguments": None,
    }


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_tool_call_pickle_round_trip(protocol: int) -> None:
    call = ToolCall("f", {"a": [1, {"b": 10**40}], "z": -0.0}, id="c1", raw_arguments="x")
    back = pickle.loads(pickle.dumps(call, protocol))
    assert type(back) is ToolCall
    assert same(back.model_dump(), call.model_dump())
    assert hash(back) == hash(call)


def test_tool_call_copy() -> None:
    call = ToolCall("f", {"a": [1]}, id="c1", raw_arguments="r")
    for other in (copy.copy(call), copy.deepcopy(call)):
        assert other.model_dump() == call.model_dump()
    assert copy.deepcopy(call).arguments is not call.arguments


# --------------------------------------------------------------------------- AgentResponse


def test_agent_response_defaults() -> None:
    response = AgentResponse()
    assert response.tool_calls == []
    assert response.raw is None
    assert response.error is None
    a, b = AgentResponse(), AgentResponse()
    a.tool_calls.append(ToolCall("f"))
    assert b.tool_calls == []
    assert AgentResponse(None).tool_calls == []


def test_agent_response_keeps_raw_itself() -> None:
    raw = {"choices": []}
    assert AgentResponse([], raw).raw is raw
    assert AgentResponse(raw=raw).raw is raw


def test_agent_response_equality() -> None:
    calls = [ToolCall("f", {"a": 1}, id="c1")]
    same_calls = [ToolCall("f", {"a": 1}, id="other")]
    assert AgentResponse(calls, {"x": 1}) == AgentResponse(same_calls, {"x": 1})
    assert AgentResponse(calls, {"x": 1}) != AgentResponse(calls, {"x": 2})
    assert AgentResponse(calls, None) != AgentResponse([], None)
    assert AgentResponse([], b"x", error="e") != AgentResponse([], b"x")
    assert AgentResponse([], b"x", error="e") == AgentResponse([], b"x", error="e")
    # order of calls matters
    two = [ToolCall("f"), ToolCall("g")]
    assert AgentResponse(two) != AgentResponse(list(reversed(two)))
    assert AgentResponse() != ([], None)
    assert AgentResponse().__eq__(object()) is NotImplemented


def test_agent_response_is_unhashable() -> None:
    with pytest.raises(TypeError):
        hash(AgentResponse())


def test_agent_response_repr() -> None:
    response = AgentResponse([ToolCall("f", {"a": 1})], raw={"k": "v"})
    assert repr(response) == (
        "AgentResponse(tool_calls=[ToolCall(name='f', arguments={'a': 1})], raw={'k': 'v'})"
    )
    failed = AgentResponse([], b"{", error="unexpected end of input at byte 1")
    assert repr(failed) == (
        "AgentResponse(tool_calls=[], raw=b'{', error='unexpected end of input at byte 1')"
    )


def test_agent_response_model_dump() -> None:
    raw = {"choices": []}
    response = AgentResponse([ToolCall("f", {"a": 1}, id="c1")], raw)
    dumped = response.model_dump()
    assert dumped == {
        "tool_calls": [{"name": "f", "arguments": {"a": 1}, "id": "c1", "raw_arguments": None}],
        "raw": raw,
        "error": None,
    }
    assert dumped["raw"] is raw
    assert type(dumped["tool_calls"][0]) is dict
    assert response.to_dict() == dumped
    assert AgentResponse([], "x", "bad").to_dict() == {"tool_calls": [], "raw": "x", "error": "bad"}


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_agent_response_pickle_round_trip(protocol: int) -> None:
    response = AgentResponse(
        [ToolCall("f", {"a": 1}, id="c1"), ToolCall("g", {}, raw_arguments="[1]")],
        raw={"choices": [1.5, None]},
        error=None,
    )
    back = pickle.loads(pickle.dumps(response, protocol))
    assert type(back) is AgentResponse
    assert back == response
    assert back.model_dump() == response.model_dump()
    failed = pickle.loads(pickle.dumps(AgentResponse([], b"{", "oops"), protocol))
    assert (failed.tool_calls, failed.raw, failed.error) == ([], b"{", "oops")


def test_results_of_both_backends_are_these_types(make: Any) -> None:
    """The objects a backend returns are those `__init__` makes (the Rust backend makes
    them without running it): the same type, fields, repr, pickling, and tracked by the
    collector like any other instance; each holds one reference to its type and fields."""
    text = b'{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"f"}}]}}]}'
    parser = make.OpenAIResponseParser()
    parser.parse(text)  # first-call set-up
    gc.collect()  # (instances earlier tests left to the collector hold the types too)
    before = (sys.getrefcount(AgentResponse), sys.getrefcount(ToolCall), sys.getrefcount(text))
    responses = [parser.parse(text) for _ in range(100)]
    response = responses[0]
    assert type(response) is AgentResponse
    assert [type(c) for c in response.tool_calls] == [ToolCall]
    made = AgentResponse([ToolCall("f", {}, "c")], text)
    assert response == made and repr(response) == repr(made)
    call = response.tool_calls[0]
    assert (call.name, call.arguments, call.id, call.raw_arguments) == ("f", {}, "c", None)
    assert (response.tool_calls, response.raw, response.error) == ([call], text, None)
    assert sys.getrefcount(text) == before[2] + 101  # one for each response, and `made`
    assert gc.is_tracked(response) and gc.is_tracked(call)
    assert not hasattr(call, "__dict__") and not hasattr(response, "__dict__")
    back = pickle.loads(pickle.dumps(response))
    assert back == response
    assert back.tool_calls[0].id == "c"
    del responses, response, call, back, made
    gc.collect()
    after = (sys.getrefcount(AgentResponse), sys.getrefcount(ToolCall), sys.getrefcount(text))
    assert after == before  # the types, and `raw` each response held, released once


# --------------------------------------------------------------------------- ParseError


def test_parse_error_fields_and_text() -> None:
    error = ParseError("unexpected end of input", 7)
    assert isinstance(error, ValueError)
    assert (error.msg, error.pos) == ("unexpected end of input", 7)
    assert str(error) == "unexpected end of input at byte 7"
    assert error.args == ("unexpected end of input at byte 7",)
    with pytest.raises(ValueError, match="at byte 7"):
        raise error


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_parse_error_pickle(protocol: int) -> None:
    error = ParseError("invalid \\u escape", 12)
    back = pickle.loads(pickle.dumps(error, protocol))
    assert type(back) is ParseError
    assert (back.msg, back.pos, str(back)) == (error.msg, error.pos, str(error))


def test_parse_error_from_both_backends(make: Any) -> None:
    with pytest.raises(ParseError) as caught:
        make.JsonResponseParser().parse('{"a": tru}')
    error = caught.value
    assert (error.msg, error.pos, str(error)) == ("invalid literal", 9, "invalid literal at byte 9")
    assert isinstance(error, ValueError)
    back = pickle.loads(pickle.dumps(error))
    assert (back.msg, back.pos) == (error.msg, error.pos)


# --------------------------------------------------------------------------- annotations


def test_parser_methods_are_typed() -> None:
    """`stream()` is a `Stream`, `to_arrow` a `pyarrow.Table`, `arrow_batches` a
    `pyarrow.RecordBatchReader` (named under TYPE_CHECKING: pyarrow stays optional)."""
    import typing

    from toolsift import parsers

    pa = pytest.importorskip("pyarrow")
    cls = parsers.OpenAIResponseParser
    names = {"pyarrow": pa, **vars(parsers)}
    hints = {
        name: typing.get_type_hints(getattr(cls, name), globalns=names)["return"]
        for name in ("stream", "to_arrow", "arrow_batches", "parse")
    }
    assert hints == {
        "stream": toolsift.Stream,
        "to_arrow": pa.Table,
        "arrow_batches": pa.RecordBatchReader,
        "parse": AgentResponse,
    }
    assert "pyarrow" not in vars(parsers)


def test_parsers_module_exports_only_its_classes() -> None:
    from toolsift import parsers

    public = {name for name in vars(parsers) if not name.startswith("_")}
    assert public == set(parsers.__all__)
    assert dir(parsers) == sorted(parsers.__all__)
    for name in ("formats", "sys", "Any", "AgentResponse", "annotations"):
        assert not hasattr(parsers, name), name


def test_mypy_sees_the_stream_type(tmp_path: Any) -> None:
    """A typo on a stream fails mypy; its methods are typed (run on a snippet, the
    library's own modules followed silently)."""
    import os
    import subprocess
    import sysconfig
    from pathlib import Path

    pytest.importorskip("mypy")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from toolsift.parsers import OpenAIResponseParser\n"
        "stream = OpenAIResponseParser().stream()\n"
        "stream.fedd({})\n"
        "reveal_type(stream.feed({}))\n"
        "reveal_type(stream.partial())\n"
        "reveal_type(stream.finish())\n"
    )
    env = dict(os.environ)
    source = str(Path(toolsift.__file__).parent.parent)
    if source not in sysconfig.get_paths().values():  # the tree, not an installed wheel
        env["MYPYPATH"] = source  # (mypy refuses a site-packages directory there)
    run = subprocess.run(
        [
            *(sys.executable, "-m", "mypy", "--follow-imports=silent", "--no-error-summary"),
            *("--cache-dir", str(tmp_path / "cache"), str(snippet)),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    lines = [line.split(": ", 1)[1] for line in run.stdout.splitlines()]
    assert lines == [
        'error: "Stream" has no attribute "fedd"  [attr-defined]',
        'note: Revealed type is "list[toolsift._types.ToolCall]"',
        'note: Revealed type is "list[toolsift._types.ToolCall]"',
        'note: Revealed type is "toolsift._types.AgentResponse"',
    ], run.stdout + run.stderr
