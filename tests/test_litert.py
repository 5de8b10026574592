"""LiteRT-LM / Gemma 4 (SdkResponseParser functions): vectors, behaviour and properties.

Every test takes the backend from the `litert` fixture, which runs it twice: over the
pure-Python module, and over the Rust backend. In the Rust run every function call also
runs the pure specification on the same input, and the two results (or exceptions) must
be identical (`same()`: same JSON types all the way down, ids and raw_arguments too).
"""

from __future__ import annotations

import json
import math
import pathlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import IMPLS, backend_module, bind, same
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import parsers
from toolsift._pure.formats import litert as pure
from toolsift._types import AgentResponse, ToolCall

VECTORS_PATH = pathlib.Path(__file__).parent / "vectors" / "litert.json"
VECTORS = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))

E = '<|"|>'  # the Gemma 4 escape token
OPEN, CLOSE = "<|tool_call>", "<tool_call|>"
FG_OPEN, FG_CLOSE = "<start_function_call>", "<end_function_call>"

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def comparable(value: Any) -> Any:
    """Results as plain values: ToolCalls (and lists of them) as their model_dump()."""
    if isinstance(value, ToolCall):
        return value.model_dump()
    if isinstance(value, AgentResponse):
        return {"tool_calls": comparable(value.tool_calls), "error": value.error}
    if isinstance(value, list) and value and isinstance(value[0], (ToolCall, AgentResponse)):
        return [comparable(item) for item in value]
    return value


def checked(name: str, native: Any, spec: Any) -> Any:
    """`native`, which must give what the pure `spec` gives (or raise what it raises)."""

    def run(*args: Any) -> Any:
        try:
            expected = spec(*args)
        except Exception as exc:
            with pytest.raises(type(exc)) as raised:
                native(*args)
            assert str(raised.value) == str(exc), name
            raise
        got = native(*args)
        assert same(comparable(got), comparable(expected)), (name, args, got, expected)
        return got

    return run


def rust_litert() -> SimpleNamespace:
    """The Rust backend's LiteRT-LM functions, under the pure module's names."""
    native = backend_module("rust")
    sdk = bind(parsers.SdkResponseParser, native)
    parser = native.Parser("litert")
    functions = {
        "extract_tool_calls": native.extract_tool_calls,
        "clean_raw_for_history": native.clean_raw_for_history,
        "parse_sdk": lambda raw: parser.parse(raw).tool_calls,
        # pure Python in both backends, through the public class
        "serialize_tools_for_sdk": sdk.serialize_tools_for_sdk,
        "build_tool_responses_json": sdk.build_tool_responses_json,
        "tool_response_payload": sdk.tool_response_payload,
        "strip_escape_tokens": pure.strip_escape_tokens,  # no native twin
    }
    return SimpleNamespace(
        MAX_DEPTH=native.MAX_DEPTH,
        **{name: checked(name, fn, getattr(pure, name)) for name, fn in functions.items()},
    )


@pytest.fixture(scope="module", params=IMPLS)
def litert(request: pytest.FixtureRequest) -> Any:
    """The backend under test: the pure module, or the Rust functions checked against it."""
    if request.param == "python":
        return pure
    return rust_litert()


# ----------------------------------------------------------------------------- helpers


def strict(value: Any) -> Any:
    """A comparable form that tells int, float and bool apart and keeps key order."""
    if isinstance(value, dict):
        return ("dict", tuple((key, strict(item)) for key, item in value.items()))
    if isinstance(value, list):
        return ("list", tuple(strict(item) for item in value))
    return (type(value).__name__, value)


def dumped(calls: list[ToolCall]) -> Any:
    return strict([call.model_dump() for call in calls])


def compact(value: Any) -> str:
    """Reference compact JSON (stdlib), as dumps_compact must write it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def strip_ref(value: Any) -> Any:
    """Reference stripper: `<|"|>` removed from every string value (not key)."""
    if isinstance(value, str):
        return value.replace(E, "")
    if isinstance(value, dict):
        return {key: strip_ref(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_ref(item) for item in value]
    return value


# ----------------------------------------------------------------------------- vectors


def test_vectors_file_shape() -> None:
    assert len(VECTORS) >= 40
    names = [case["name"] for case in VECTORS]
    assert len(names) == len(set(names))
    functions = {"extract_tool_calls", "clean_raw_for_history", "tool_response_payload"}
    for case in VECTORS:
        assert set(case) == {"name", "function", "input", "expect"}
        assert case["function"] in functions
        assert isinstance(case["input"], str)
        if case["function"] == "extract_tool_calls":
            for call in case["expect"]:
                assert set(call) == {"name", "arguments", "id", "raw_arguments"}


@pytest.mark.parametrize("case", VECTORS, ids=[case["name"] for case in VECTORS])
def test_vector(litert: Any, case: dict[str, Any]) -> None:
    function = getattr(litert, case["function"])
    if case["function"] == "extract_tool_calls":
        assert dumped(function(case["input"])) == strict(case["expect"])
        # bytes of the same text give the same calls
        assert dumped(function(case["input"].encode())) == strict(case["expect"])
    else:
        assert strict(function(case["input"])) == strict(case["expect"])


# ------------------------------------------------------------------- extract_tool_calls


def test_calls_are_tool_calls(litert: Any) -> None:
    [call] = litert.extract_tool_calls(OPEN + "call:f{a:1}" + CLOSE)
    assert isinstance(call, ToolCall)
    assert call == ToolCall("f", {"a": 1})


@pytest.mark.parametrize(
    "text",
    [b"\xff\xfe" + OPEN.encode() + b"call:f{}", "\ud800" + OPEN + "call:f{}", None, 42, ["x"]],
    ids=["invalid-utf8", "lone-surrogate", "none", "int", "list"],
)
def test_input_that_is_not_unicode_text_gives_no_calls(litert: Any, text: Any) -> None:
    assert litert.extract_tool_calls(text) == []


def test_bytearray_and_memoryview_are_text(litert: Any) -> None:
    text = (OPEN + "call:f{a:1}" + CLOSE).encode()
    assert litert.extract_tool_calls(bytearray(text)) == [ToolCall("f", {"a": 1})]
    assert litert.extract_tool_calls(memoryview(text)) == [ToolCall("f", {"a": 1})]


def _nested_arrays(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_depth_limit_in_raw_tokens(litert: Any) -> None:
    assert litert.MAX_DEPTH == 1024
    # the call's object is depth 1, so 1023 arrays inside it reach exactly 1024
    [call] = litert.extract_tool_calls(OPEN + "call:f{a:" + _nested_arrays(1023) + "}" + CLOSE)
    assert call.raw_arguments is None
    value = call.arguments["a"]
    for _ in range(1022):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == []
    text = "{a:" + _nested_arrays(1024) + "}"
    [call] = litert.extract_tool_calls(OPEN + "call:f" + text + CLOSE)
    assert (call.name, call.arguments, call.raw_arguments) == ("f", {}, text)


@pytest.mark.parametrize("depth", [1025, 5000, 100_000])
def test_very_deep_input_never_raises(litert: Any, depth: int) -> None:
    text = OPEN + "call:f{a:" + "[" * depth
    [call] = litert.extract_tool_calls(text)
    assert call.name == "f" and call.arguments == {}
    deep_json = '{"tool_calls":[{"name":"f","arguments":{"a":' + _nested_arrays(depth) + "}}]}"
    assert isinstance(litert.extract_tool_calls(deep_json), list)
    assert litert.clean_raw_for_history(deep_json) == deep_json  # compact, or too deep
    assert litert.extract_tool_calls("{" * depth) == []


def test_raw_token_numbers_decode_as_json_does(litert: Any) -> None:
    [call] = litert.extract_tool_calls(OPEN + "call:f{a:1e400,b:-1e400,c:" + "9" * 4300 + "}")
    assert call.arguments["a"] == float("inf") and call.arguments["b"] == float("-inf")
    assert call.arguments["c"] == 10**4300 - 1
    # More digits than Python converts (json.loads refuses them): the block is kept as text.
    [call] = litert.extract_tool_calls(OPEN + "call:f{c:" + "9" * 4301 + "}" + CLOSE)
    assert (call.arguments, call.raw_arguments) == ({}, "{c:" + "9" * 4301 + "}")


def test_closing_token_only_or_opening_token_only(litert: Any) -> None:
    assert litert.extract_tool_calls(CLOSE + CLOSE) == []
    assert litert.extract_tool_calls(OPEN) == []
    assert litert.extract_tool_calls(OPEN + "call:") == []
    assert litert.extract_tool_calls(OPEN + "call:f") == [ToolCall("f", {})]
    [call] = litert.extract_tool_calls(OPEN + "call:f{")
    assert (call.name, call.arguments, call.raw_arguments) == ("f", {}, "{")


# ------------------------------------------------------------------------------ parse_sdk


def test_parse_sdk_dispatch(litert: Any) -> None:
    message = {"tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {}}}]}
    assert litert.parse_sdk(message) == [ToolCall("f", {})]
    assert litert.parse_sdk(json.dumps(message)) == [ToolCall("f", {})]
    assert litert.parse_sdk(json.dumps(message).encode()) == [ToolCall("f", {})]
    assert litert.parse_sdk([message, "x", {"tool_calls": [{"name": "g"}]}]) == [
        ToolCall("f", {}),
        ToolCall("g", {}),
    ]
    for raw in (None, 0, 1.5, True, ("a",), object()):
        assert litert.parse_sdk(raw) == []


def test_parse_sdk_dict_raw_token_fallback(litert: Any) -> None:
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok " + OPEN + "call:f{a:" + E + "x" + E + "}"}],
    }
    assert litert.parse_sdk(message) == [ToolCall("f", {"a": "x"})]
    message["tool_calls"] = [{"name": "g"}]
    assert litert.parse_sdk(message) == [ToolCall("g", {})]


def test_parse_sdk_dict_arguments(litert: Any) -> None:
    arguments = {"k": [E + "v", {"n": E}]}
    [call] = litert.parse_sdk({"tool_calls": [{"name": "f", "arguments": arguments, "id": "i"}]})
    assert call.arguments == {"k": ["v", {"n": ""}]} and call.id == "i"
    assert arguments == {"k": [E + "v", {"n": E}]}  # the caller's dict is not changed
    weird = object()
    [call] = litert.parse_sdk({"tool_calls": [{"name": "f", "arguments": weird}]})
    assert (call.arguments, call.raw_arguments) == ({}, repr(weird))
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(1100):
        node["a"] = {}
        node = node["a"]
    [call] = litert.parse_sdk({"tool_calls": [{"name": "f", "arguments": deep}]})
    assert (call.arguments, call.raw_arguments) == ({}, None)


def test_parse_sdk_cyclic_dict_does_not_hang(litert: Any) -> None:
    cyclic: dict[str, Any] = {"text": "no call"}
    cyclic["self"] = cyclic
    assert litert.parse_sdk(cyclic) == []
    arguments: dict[str, Any] = {}
    arguments["self"] = arguments
    [call] = litert.parse_sdk({"tool_calls": [{"name": "f", "arguments": arguments}]})
    assert call.name == "f" and call.arguments == {}


# The escape token `<|"|>` in every way a JSON string may write it (in the JSON text).
TOKEN_WRITTEN = [
    '<|\\"|>',
    '\\u003c|\\"|>',
    '<\\u007c\\"|>',
    "<|\\u0022|>",
    "\\u003C\\u007C\\u0022\\u007C\\u003E",
]


@pytest.mark.parametrize("written", TOKEN_WRITTEN)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_escape_token_written_any_way_is_stripped(
    litert: Any, written: str, as_bytes: bool
) -> None:
    """Arguments inline and in an argument string, as text and as bytes."""
    arguments_text = '{"k": ["a' + written + 'b", {"n": "' + written + '"}]}'
    inline = '{"tool_calls": [{"name": "f", "arguments": ' + arguments_text + "}]}"
    in_string = json.dumps({"tool_calls": [{"name": "f", "arguments": arguments_text}]})
    for document in (inline, in_string):
        text: Any = document.encode() if as_bytes else document
        assert dumped(litert.extract_tool_calls(text)) == dumped(
            [ToolCall("f", {"k": ["ab", {"n": ""}]})]
        )


@pytest.mark.parametrize("escaped", [False, True], ids=["digits", "escaped digits"])
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_big_integers_in_argument_strings_are_exact(
    litert: Any, escaped: bool, as_bytes: bool
) -> None:
    """An integer beyond 64 bits in an argument string decodes exactly, its digits written
    as they are or as `\\u` escapes in the document (which then holds no run of digits)."""
    big = 12345678901234567890123
    digits = "".join(f"\\u{ord(d):04x}" for d in str(big)) if escaped else str(big)
    document = '{"tool_calls": [{"name": "f", "arguments": "{\\"n\\": ' + digits + '}"}]}'
    text: Any = document.encode() if as_bytes else document
    (call,) = litert.extract_tool_calls(text)
    assert call.arguments == {"n": big} and type(call.arguments["n"]) is int


# ---------------------------------------------------------------------- strip_escape_tokens


def test_strip_escape_tokens(litert: Any) -> None:
    value = {E + "k": [E + "a" + E, {"b": E}, 1, None, True, 2.5], "s": "x" + E}
    assert strict(litert.strip_escape_tokens(value)) == strict(
        {E + "k": ["a", {"b": ""}, 1, None, True, 2.5], "s": "x"}
    )
    assert value["s"] == "x" + E  # not changed in place
    assert litert.strip_escape_tokens(E + E + "z") == "z"
    assert litert.strip_escape_tokens(7) == 7
    assert litert.strip_escape_tokens(("a" + E,)) == ("a" + E,)  # only dicts and lists


def test_strip_escape_tokens_depth_limit(litert: Any) -> None:
    ok: list[Any] = []
    for _ in range(1023):
        ok = [ok]
    stripped = litert.strip_escape_tokens(ok)  # 1024 levels
    for _ in range(1023):  # walked by hand: == on it would exceed Python's recursion limit
        assert isinstance(stripped, list) and len(stripped) == 1
        stripped = stripped[0]
    assert stripped == []
    with pytest.raises(ValueError, match="deeper than 1024"):
        litert.strip_escape_tokens([ok])


# --------------------------------------------------------------------- history and tools


def test_clean_raw_for_history_bytes_and_odd_text(litert: Any) -> None:
    assert litert.clean_raw_for_history(b'{ "a" : "' + b'<|\\"|>' + b'x" }') == '{"a":"x"}'
    assert litert.clean_raw_for_history(b"\xff{}") == "\ufffd{}"
    assert litert.clean_raw_for_history("\ud800 no") == "\ud800 no"


def test_serialize_tools_for_sdk(litert: Any) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}}
    tools = [
        {"name": "a", "description": "Get A.", "parameters": schema},
        {"type": "function", "function": {"name": "b", "description": "B é"}},
        SimpleNamespace(name="c", description=None, parameters=schema),
        SimpleNamespace(name="d"),
    ]
    empty = {"type": "object", "properties": {}}
    expected = [
        {
            "type": "function",
            "function": {"name": "a", "description": "Get A.", "parameters": schema},
        },
        {"type": "function", "function": {"name": "b", "description": "B é", "parameters": empty}},
        {"type": "function", "function": {"name": "c", "description": "", "parameters": schema}},
        {"type": "function", "function": {"name": "d", "description": "", "parameters": empty}},
    ]
    text = litert.serialize_tools_for_sdk(tools)
    assert text == compact(expected)
    assert litert.serialize_tools_for_sdk(iter([])) == "[]"
    for bad in ({"description": "no name"}, SimpleNamespace(name=""), 3):
        with pytest.raises(TypeError, match="tool 0 has no name"):
            litert.serialize_tools_for_sdk([bad])


def test_build_tool_responses_json(litert: Any) -> None:
    text = litert.build_tool_responses_json(
        [
            ("get_weather", {"temp": 21, "sky": "sunny"}),
            {"name": "get_time", "response": '{"time": "07:30"}'},
            ["echo", "plain text"],
            ("count", 3),
            ("items", [1, 2]),
        ]
    )
    assert text == compact(
        {
            "role": "tool",
            "content": [
                {
                    "type": "tool_response",
                    "name": "get_weather",
                    "response": {"temp": 21, "sky": "sunny"},
                },
                # every response as it is, as flutter_gemma's buildToolResponsesJson does
                {"type": "tool_response", "name": "get_time", "response": '{"time": "07:30"}'},
                {"type": "tool_response", "name": "echo", "response": "plain text"},
                {"type": "tool_response", "name": "count", "response": 3},
                {"type": "tool_response", "name": "items", "response": [1, 2]},
            ],
        }
    )
    assert litert.build_tool_responses_json([]) == '{"role":"tool","content":[]}'
    # the wrapping is the caller's choice, through tool_response_payload
    wrapped = litert.build_tool_responses_json(
        [
            ("get_time", litert.tool_response_payload('{"time": "07:30"}')),
            ("echo", litert.tool_response_payload("plain text")),
        ]
    )
    assert json.loads(wrapped)["content"] == [
        {"type": "tool_response", "name": "get_time", "response": {"time": "07:30"}},
        {"type": "tool_response", "name": "echo", "response": {"value": "plain text"}},
    ]
    scalars = json.loads(litert.build_tool_responses_json([("n", None), ("t", True)]))
    assert scalars["content"] == [
        {"type": "tool_response", "name": "n", "response": None},
        {"type": "tool_response", "name": "t", "response": True},
    ]
    for bad in (("only-name",), {"name": "x"}, "xy", (1, {})):
        with pytest.raises(TypeError, match="tool response 0"):
            litert.build_tool_responses_json([bad])


def _cycle() -> dict[str, Any]:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    return looped


def json_error(value: Any) -> tuple[type[Exception], str]:
    """What json.dumps raises for `value` (the helpers must raise the same)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return type(exc), str(exc)
    raise AssertionError(f"json.dumps encoded {value!r}")


NOT_JSON = {
    "set": {1, 2},
    "bytes": b"x",
    "object": object(),
    "cycle": _cycle(),
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "nested nan": {"a": [1.5, math.nan]},
}


@pytest.mark.parametrize("kind", list(NOT_JSON))
def test_helpers_raise_as_json_dumps_for_what_is_not_json(litert: Any, kind: str) -> None:
    """Never Python's repr as text for the model: json.dumps's own error (issue item 10)."""
    value = NOT_JSON[kind]
    error, message = json_error(value)
    assert error is (TypeError if kind in ("set", "bytes", "object") else ValueError)
    if kind == "cycle":
        assert message == "Circular reference detected"
    with pytest.raises(error) as raised:
        litert.build_tool_responses_json([("f", value)])
    assert str(raised.value) == message
    with pytest.raises(error) as raised:
        litert.serialize_tools_for_sdk([{"name": "f", "parameters": {"p": value}}])
    assert str(raised.value) == message


def test_helpers_write_big_and_deep_values(litert: Any) -> None:
    """The limits json.dumps has by default are not the helpers' (as dumps_compact)."""
    deep: Any = 1
    for _ in range(litert.MAX_DEPTH - 4):
        deep = [deep]
    big, digits = 10**5000, "1" + "0" * 5000  # beyond int's default 4300-digit limit
    text = litert.build_tool_responses_json([("f", {"deep": deep, "big": big})])
    assert text.endswith("]" * (litert.MAX_DEPTH - 4) + ',"big":' + digits + "}}]}")
    assert litert.build_tool_responses_json([("f", 1e308)]).endswith('"response":1e+308}]}')


def test_tool_response_payload_other_types(litert: Any) -> None:
    assert litert.tool_response_payload("\ud800") == {"value": "\ud800"}
    assert litert.tool_response_payload(" {} ") == {}


# ------------------------------------------------------------------------- properties

# Strings that often hold the escape token and JSON / Gemma punctuation. No "<" other
# than in the escape token, so a string never spells a block token by accident.
PIECES = st.sampled_from([E, ",", ":", "{", "}", "[", "]", '"', "}{", " ", "\\", "é", "😀", "\n"])
STRINGS = st.lists(
    st.one_of(
        st.text(st.characters(exclude_characters="<", exclude_categories=("Cs",)), max_size=4),
        PIECES,
    ),
    max_size=6,
).map("".join)
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.\-]{0,8}", fullmatch=True)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    STRINGS,
)


def trees(keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        SCALARS,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4)
        ),
        max_leaves=16,
    )


JSON_ARGUMENTS = st.dictionaries(STRINGS, trees(STRINGS), max_size=5)
GEMMA_ARGUMENTS = st.dictionaries(NAMES, trees(NAMES), max_size=5)
CALL_IDS = st.one_of(st.none(), st.text(max_size=5))
STYLES = st.sampled_from(["openai", "flat", "content-flat", "content-openai"])
JSON_CALLS = st.lists(
    st.tuples(NAMES, JSON_ARGUMENTS, CALL_IDS, STYLES, st.booleans()), min_size=1, max_size=4
)


def json_message(calls: list[tuple[Any, ...]], text: str) -> tuple[dict[str, Any], list[ToolCall]]:
    """A LiteRT-LM message holding the calls, and the calls it must give, in order."""
    message: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    first: list[ToolCall] = []
    then: list[ToolCall] = []
    for name, arguments, call_id, style, as_string in calls:
        body = {"name": name, "arguments": compact(arguments) if as_string else arguments}
        item = {"type": "function", "function": body} if style.endswith("openai") else dict(body)
        if call_id is not None:
            item["id"] = call_id
        if style.startswith("content"):
            message["content"].append({"type": "tool_call", "tool_call": item})
            then.append(ToolCall(name, strip_ref(arguments), call_id))
        else:
            message.setdefault("tool_calls", []).append(item)
            first.append(ToolCall(name, strip_ref(arguments), call_id))
    return message, first + then


def with_ids(calls: list[ToolCall]) -> Any:
    return dumped(calls)


def render_json(value: Any, how: str) -> str:
    if how == "compact":
        return compact(value)
    if how == "ascii":
        return json.dumps(value)
    return json.dumps(value, indent=2, ensure_ascii=False)


RENDERINGS = st.sampled_from(["compact", "ascii", "indent"])


@SETTINGS
@given(calls=JSON_CALLS, text=STRINGS, how=RENDERINGS)
def test_property_json_documents(
    litert: Any, calls: list[tuple[Any, ...]], text: str, how: str
) -> None:
    message, expected = json_message(calls, text)
    rendered = render_json(message, how)
    assert with_ids(litert.extract_tool_calls(rendered)) == with_ids(expected)
    assert with_ids(litert.parse_sdk(message)) == with_ids(expected)
    assert litert.clean_raw_for_history(rendered) == compact(strip_ref(message))


@SETTINGS
@given(
    groups=st.lists(st.tuples(JSON_CALLS, STRINGS), min_size=2, max_size=4),
    separators=st.lists(st.sampled_from(["", " ", "\n", "\r\n\t "]), min_size=4, max_size=4),
    how=RENDERINGS,
)
def test_property_glued_documents(
    litert: Any, groups: list[tuple[Any, str]], separators: list[str], how: str
) -> None:
    texts = []
    expected: list[ToolCall] = []
    for calls, text in groups:
        message, calls_of_message = json_message(calls, text)
        texts.append(render_json(message, how))
        expected.extend(calls_of_message)
    glued = separators[0] + "".join(
        text + separators[i % len(separators)] for i, text in enumerate(texts, 1)
    )
    assert with_ids(litert.extract_tool_calls(glued)) == with_ids(expected)
    assert litert.clean_raw_for_history(glued) == glued


def render_gemma(value: Any, ws: str, native: str) -> str:
    """A value in the Gemma 4 call syntax; strings use `native` as delimiter unless they
    hold it, then the other one."""
    if isinstance(value, dict):
        items = [
            key + ws + ":" + ws + render_gemma(item, ws, native) for key, item in value.items()
        ]
        return "{" + ws + ("," + ws).join(items) + ws + "}"
    if isinstance(value, list):
        return (
            "[" + ws + ("," + ws).join(render_gemma(item, ws, native) for item in value) + ws + "]"
        )
    if isinstance(value, str):
        delimiter = native if native not in value else ({E, "<escape>"} - {native}).pop()
        return delimiter + value + delimiter
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return repr(value)  # int, or a float in JSON number syntax (no nan/inf here)


GEMMA_CALLS = st.lists(
    st.tuples(NAMES, GEMMA_ARGUMENTS, st.booleans(), st.booleans()), min_size=1, max_size=4
)
PROSE = st.text(st.characters(exclude_characters="<", exclude_categories=("Cs",)), max_size=10)


@SETTINGS
@given(
    calls=GEMMA_CALLS,
    prose=PROSE,
    ws=st.sampled_from(["", " ", "\n  "]),
    cut_last_close=st.booleans(),
)
def test_property_gemma_tokens(
    litert: Any,
    calls: list[tuple[str, dict[str, Any], bool, bool]],
    prose: str,
    ws: str,
    cut_last_close: bool,
) -> None:
    parts = [prose]
    expected = []
    for name, arguments, function_gemma, omit_empty_object in calls:
        opener, closer, native = (
            (FG_OPEN, FG_CLOSE, "<escape>") if function_gemma else (OPEN, CLOSE, E)
        )
        # no arguments may be written as no object at all
        body = (
            "" if omit_empty_object and not arguments else ws + render_gemma(arguments, ws, native)
        )
        parts.append(opener + ws + "call:" + ws + name + body + ws + closer + prose)
        expected.append(ToolCall(name, strip_ref(arguments)))
    text = "".join(parts)
    if cut_last_close:
        text = text[: text.rindex(closer)]
    assert with_ids(litert.extract_tool_calls(text)) == with_ids(expected)
    # the same text inside a JSON string: read in its decoded form, found once
    wrapped = compact({"role": "assistant", "content": [{"type": "text", "text": text}]})
    assert with_ids(litert.extract_tool_calls(wrapped)) == with_ids(expected)
    assert with_ids(litert.parse_sdk(json.loads(wrapped))) == with_ids(expected)


SOUP_PIECES = [OPEN, CLOSE, FG_OPEN, FG_CLOSE, "call:", E, "<escape>", *'{}[]:,"\\ -.e1f']
SOUP_PIECES += ["ab", "true", "null", "tool_calls", '{"']
SOUP = st.lists(st.sampled_from(SOUP_PIECES), max_size=40).map("".join)


@SETTINGS
@given(text=st.one_of(st.text(), SOUP))
def test_property_never_raises_on_text(litert: Any, text: str) -> None:
    for candidate in (text, compact({"content": text}), compact([text, text])):
        calls = litert.extract_tool_calls(candidate)
        assert isinstance(calls, list)
        for call in calls:
            assert isinstance(call.name, str) and isinstance(call.arguments, dict)
    assert isinstance(litert.clean_raw_for_history(text), str)
    assert isinstance(litert.tool_response_payload(text), dict)
    assert isinstance(litert.parse_sdk(text), list)


# A caller's own message of any shape: items flat or OpenAI-style, names of any type,
# arguments of every kind (objects holding the escape token, JSON text, bad text, other
# values), and string values that may hold raw Gemma 4 blocks.
ANY_ARGUMENTS = st.one_of(
    trees(STRINGS), JSON_ARGUMENTS.map(compact), st.sampled_from(["", "{", "[1]", '"x"'])
)
ANY_ITEMS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"name": st.one_of(NAMES, st.just(""), st.integers()), "arguments": ANY_ARGUMENTS},
            optional={"id": st.one_of(st.text(max_size=3), st.integers())},
        ),
        st.fixed_dictionaries({"function": st.fixed_dictionaries({"name": NAMES})}),
        trees(STRINGS),
    ),
    max_size=3,
)
ANY_MESSAGES = st.one_of(
    st.fixed_dictionaries({}, optional={"tool_calls": ANY_ITEMS, "content": trees(SOUP)}),
    st.lists(st.fixed_dictionaries({"content": st.lists(SOUP | trees(SOUP), max_size=3)})),
    trees(SOUP),
)


@SETTINGS
@given(message=ANY_MESSAGES)
def test_property_parse_sdk_any_object(litert: Any, message: Any) -> None:
    """On the Rust backend the caller's objects are walked in Rust: the fixture checks each
    result against the pure walker's."""
    calls = litert.parse_sdk(message)
    assert all(isinstance(call, ToolCall) for call in calls)


class Reversed(list):  # type: ignore[type-arg]
    """A list that iterates backwards: read as Python iterates it, not from its storage."""

    def __iter__(self) -> Iterator[Any]:
        return iter(list(list.__iter__(self))[::-1])


class Shorter(list):  # type: ignore[type-arg]
    """A list that iterates over fewer items than it holds (its second only)."""

    def __iter__(self) -> Iterator[Any]:
        return iter(list(list.__iter__(self))[1:2])


class Aliased(dict):  # type: ignore[type-arg]
    """A dict whose `get`, `items` and `values` answer for other keys than its storage."""

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get({"tool_calls": "calls"}.get(key, key), default)

    def items(self) -> Any:
        return [(key, value) for key, value in super().items() if key != "hidden"]

    def values(self) -> Any:
        return [value for key, value in super().items() if key != "hidden"]


def test_parse_sdk_reads_containers_as_python_iterates_them(litert: Any) -> None:
    """The caller's list and dict subclasses are read through their own methods on both
    backends (the pure walker's `for` and `.get`), not from their storage."""
    message = Aliased(
        calls=Reversed([{"name": "first", "arguments": "{}"}, {"name": "second"}]),
        tool_calls=[{"name": "storage_only"}],
    )
    assert [call.name for call in litert.parse_sdk(message)] == ["second", "first"]
    arguments = Aliased(kept='a<|"|>b', hidden="x", items=Reversed(['1<|"|>', "2"]))
    arguments["short"] = Shorter(["a", 'b<|"|>', "c"])
    [call] = litert.parse_sdk({"tool_calls": [{"name": "f", "arguments": arguments}]})
    assert call.arguments == {"kept": "ab", "items": ["2", "1"], "short": ["b"]}
    block = "<|tool_call>call:{name}{{}}<tool_call|>"
    texts = Aliased(a=block.format(name="shown"), hidden=block.format(name="hidden"))
    strings = Reversed([block.format(name="one"), texts, block.format(name="two")])
    assert [call.name for call in litert.parse_sdk(strings)] == ["two", "shown", "one"]


@SETTINGS
@given(data=st.binary())
def test_property_never_raises_on_bytes(litert: Any, data: bytes) -> None:
    assert isinstance(litert.extract_tool_calls(data), list)
    assert isinstance(litert.clean_raw_for_history(data), str)


@SETTINGS
@given(value=trees(STRINGS))
def test_property_strip_matches_reference(litert: Any, value: Any) -> None:
    assert strict(litert.strip_escape_tokens(value)) == strict(strip_ref(value))
    assert litert.clean_raw_for_history(json.dumps(value, indent=1)) == compact(strip_ref(value))


@SETTINGS
@given(
    calls=GEMMA_CALLS,
    prose=PROSE,
    ws=st.sampled_from(["", " ", "\n  "]),
    cut=st.integers(min_value=0),
    noise=st.lists(st.tuples(st.integers(min_value=0), st.sampled_from(SOUP_PIECES)), max_size=3),
)
def test_property_cut_and_mutated_gemma_text(
    litert: Any,
    calls: list[tuple[str, dict[str, Any], bool, bool]],
    prose: str,
    ws: str,
    cut: int,
    noise: list[tuple[int, str]],
) -> None:
    """Valid blocks cut short and with pieces of the grammar inserted: the malformed-block
    paths. Never raises; in the Rust run, identical to the pure specification."""
    parts = [prose]
    for name, arguments, function_gemma, _ in calls:
        opener, closer, native = (
            (FG_OPEN, FG_CLOSE, "<escape>") if function_gemma else (OPEN, CLOSE, E)
        )
        parts.append(opener + "call:" + name + ws + render_gemma(arguments, ws, native) + closer)
        parts.append(prose)
    text = "".join(parts)
    for at, piece in noise:
        at %= len(text) + 1
        text = text[:at] + piece + text[at:]
    text = text[: cut % (len(text) + 1)]
    for candidate in (text, compact({"content": [{"type": "text", "text": text}]})):
        calls_found = litert.extract_tool_calls(candidate)
        assert all(isinstance(call, ToolCall) for call in calls_found)
    litert.parse_sdk(text.encode())
    litert.clean_raw_for_history(compact({"a": text, text: [text]}))


# ------------------------------------------------------------------- SdkResponseParser

GEMMA_TEXT = "Sure. " + OPEN + "call:get_weather{city:" + E + "Paris" + E + ",days:3}" + CLOSE
GLUED = '{"tool_calls":[{"name":"a"}]} {"content":[{"type":"tool_call","tool_call":{"name":"b"}}]}'


def test_sdk_response_parser_parse(make: Any) -> None:
    parser = make.SdkResponseParser()
    weather = ToolCall("get_weather", {"city": "Paris", "days": 3})
    for raw in (GEMMA_TEXT, GEMMA_TEXT.encode(), bytearray(GEMMA_TEXT.encode())):
        response = parser.parse(raw)
        assert response.tool_calls == [weather] and response.raw is raw
        assert response.error is None
    message = {"role": "assistant", "content": [{"type": "text", "text": GEMMA_TEXT}]}
    assert parser.parse(message).tool_calls == [weather]
    assert parser.parse([message, {"tool_calls": [{"name": "g"}]}]).tool_calls == [
        ToolCall("g", {})
    ]
    assert parser.parse(GLUED).tool_calls == [ToolCall("a", {}), ToolCall("b", {})]
    for raw in (None, "", "plain prose", b"\xff\xfe", "\ud800", 3, object()):
        response = parser.parse(raw)  # never raises
        assert response.tool_calls == [] and response.raw is raw and response.error is None
    assert repr(parser) == "SdkResponseParser()"


def test_sdk_response_parser_parse_many(make: Any) -> None:
    parser = make.SdkResponseParser()
    raws: list[Any] = [GEMMA_TEXT, None, GLUED.encode(), {"tool_calls": [{"name": "d"}]}, "x"]
    raws += ["\ud800", b"\xff", [{"tool_calls": [{"name": "e"}]}]]
    expected = [parser.parse(raw) for raw in raws]
    for threads in (None, 1, 2):
        got = parser.parse_many(iter(raws), threads=threads)
        assert [r.raw for r in got] == raws
        assert same(comparable(got), comparable(expected))
    # more records than one chunk of work, on several threads, in order
    many = [
        OPEN + f"call:f{{n:{i}}}" + CLOSE if i % 3 else f'{{"tool_calls":[{{"name":"g{i}"}}]}}'
        for i in range(2000)
    ]
    got = parser.parse_many(many, threads=2)
    assert [r.tool_calls[0] for r in got] == [
        ToolCall("f", {"n": i}) if i % 3 else ToolCall(f"g{i}", {}) for i in range(2000)
    ]
    with pytest.raises(ValueError):
        parser.parse_many([], threads=0)


def test_sdk_response_parser_helpers(make: Any, backend: Any) -> None:
    cls = make.SdkResponseParser
    # the two hot helpers run in the class's backend; called on the class or an instance
    assert cls.extract_tool_calls(GEMMA_TEXT) == backend.extract_tool_calls(GEMMA_TEXT)
    assert cls().extract_tool_calls(GEMMA_TEXT.encode())[0].arguments == {
        "city": "Paris",
        "days": 3,
    }
    assert cls.clean_raw_for_history('{ "a": "' + '<|\\"|>' + 'x" }') == '{"a":"x"}'
    assert cls.clean_raw_for_history("not json ") == "not json "
    assert cls.serialize_tools_for_sdk([{"name": "f"}]) == pure.serialize_tools_for_sdk(
        [{"name": "f"}]
    )
    assert cls.build_tool_responses_json([("f", "ok")]) == pure.build_tool_responses_json(
        [("f", "ok")]
    )
    assert cls.tool_response_payload('{"a": 1}') == {"a": 1}
    assert "SdkResponseParser" in parsers.__all__


def test_sdk_helpers_use_the_bound_backend() -> None:
    """The hot helpers go to the class's `_backend` (a classmethod sees the subclass that
    tests and benchmarks bind); both backends have them under the same names."""
    import toolsift._pure

    fake = SimpleNamespace(
        extract_tool_calls=lambda text: ["fake", text],
        clean_raw_for_history=lambda text: "clean " + text,
    )
    sdk = bind(parsers.SdkResponseParser, fake)
    assert sdk.extract_tool_calls("t") == ["fake", "t"]
    assert sdk.clean_raw_for_history("t") == "clean t"
    assert {"extract_tool_calls", "clean_raw_for_history"} <= set(toolsift._pure.__all__)
