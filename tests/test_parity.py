"""Rust == Python, and both == a tiny reference built on stdlib `json.loads` (hypothesis).

Random OpenAI, Gemini and custom-JSON responses, given as dicts, as SDK-like objects and
as str / bytes of their JSON text, must give the same calls (id and raw_arguments too)
on both backends and in the reference below: the third opinion, which decodes JSON with
`json.loads` (made strict: no NaN, no lone surrogates, at most 1024 levels) and walks
the documented paths itself. Random and mutated text must give the same ParseError
(msg, pos) on both backends, or the same result.
"""

from __future__ import annotations

import json
import math
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest
from conftest import both_backends, calls_as_dicts, mutate, same
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from toolsift import AgentResponse, ParseError
from toolsift._jsontext import MAX_DEPTH, error_for

SETTINGS = settings(deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)


def examples(n: int) -> settings:
    return settings(SETTINGS, max_examples=n)


# --------------------------------------------------------------------------- the reference

INVALID = object()  # what ref_loads returns for text that is not JSON


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def ref_loads(text: str | bytes) -> Any:
    """The value of JSON text per stdlib json, or INVALID (toolsift's stricter rules:
    UTF-8 only, no BOM, no NaN/Infinity, no lone surrogates, at most 1024 levels)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            return INVALID
    else:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return INVALID
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return INVALID
    return INVALID if _lone_surrogates_or_too_deep(value) else value


def _lone_surrogates_or_too_deep(value: Any) -> bool:
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, str):
            if any("\ud800" <= ch <= "\udfff" for ch in item):
                return True
        elif isinstance(item, (dict, list)):
            if depth + 1 > MAX_DEPTH:
                return True
            if isinstance(item, dict):
                todo.extend((k, depth) for k in item)
                todo.extend((v, depth + 1) for v in item.values())
            else:
                todo.extend((v, depth + 1) for v in item)
    return False


def ref_field(obj: Any, key: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, types.SimpleNamespace):
        return getattr(obj, key, None)
    return None


def ref_elements(obj: Any) -> list[Any]:
    return list(obj) if isinstance(obj, (list, tuple)) else []


def ref_call(name: Any, id: Any, arguments: Any) -> dict[str, Any]:
    if arguments is None:
        decoded, raw = {}, None
    elif isinstance(arguments, dict):
        decoded, raw = dict(arguments), None
    elif isinstance(arguments, str):
        value = ref_loads(arguments)
        decoded, raw = (value, None) if isinstance(value, dict) else ({}, arguments)
    else:
        decoded = {}
        raw = json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)
    return {
        "name": name if isinstance(name, str) else "",
        "arguments": decoded,
        "id": id if isinstance(id, str) else None,
        "raw_arguments": raw,
    }


def ref_openai(doc: Any) -> list[dict[str, Any]]:
    out = []
    for choice in ref_elements(ref_field(doc, "choices")):
        for call in ref_elements(ref_field(ref_field(choice, "message"), "tool_calls")):
            function = ref_field(call, "function")
            if function is not None:
                out.append(
                    ref_call(
                        ref_field(function, "name"),
                        ref_field(call, "id"),
                        ref_field(function, "arguments"),
                    )
                )
    return out


def ref_gemini(doc: Any) -> list[dict[str, Any]]:
    out = []
    for candidate in ref_elements(ref_field(doc, "candidates")):
        for part in ref_elements(ref_field(ref_field(candidate, "content"), "parts")):
            call = ref_field(part, "function_call")
            if call is None:
                call = ref_field(part, "functionCall")
            if call is not None:
                out.append(
                    ref_call(
                        ref_field(call, "name"), ref_field(call, "id"), ref_field(call, "args")
                    )
                )
    return out


def ref_json(doc: Any, options: dict[str, Any]) -> list[dict[str, Any]]:
    path = options.get("tool_calls_key", "tool_calls").split(".")
    name_key = options.get("name_key", "name")
    arguments_key = options.get("arguments_key", "arguments")
    single = options.get("single", False)

    def at(item: Any) -> list[dict[str, Any]]:
        for key in path:
            if not isinstance(item, dict) or key not in item:
                return []
            item = item[key]
        out = []
        for entry in [item] if single else ref_elements(item):
            if isinstance(entry, dict):
                name = entry.get(name_key)
                if isinstance(name, str) and name:
                    out.append(ref_call(name, entry.get("id"), entry.get(arguments_key)))
        return out

    if isinstance(doc, list):
        for item in doc:
            found = at(item)
            if found:
                return found
        return []
    return at(doc)


# --------------------------------------------------------------------------- strategies

MISSING: Any = object()  # a key left out of the response

# Characters JSON writers and readers get wrong: quotes, escapes, controls, DEL, the
# line separators, BMP and astral characters, the Gemma escape token's pieces.
SPECIAL = list('"\\/\n\r\t\b\f\x00\x1f\x7f\u2028\u2029é東\ufeff\uffff🚀\U0010ffff<|>')
TEXT = st.text(
    st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from(SPECIAL)), max_size=10
)
LONE_SURROGATE_TEXT = st.sampled_from(["\ud800", "a\udfffb", "\ud83d", '{"a": "\udc00"}'])
EDGE_FLOATS = [
    -0.0,
    0.0,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    -1.7976931348623157e308,
    1e22,
    1e-7,
    0.1,
    1e16,
    9007199254740993.0,
    123456.789,
]
EDGE_INTS = [
    0,
    -1,
    2**53 + 1,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64 - 1,
    2**64,
    -(2**64),
    10**30,
    -(10**40),
    10**100,
]
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from(EDGE_INTS)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(EDGE_FLOATS)
    | TEXT
)
TREES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=16,
)
OBJECTS = st.dictionaries(TEXT, TREES, max_size=5)
NON_OBJECTS = TREES.filter(lambda v: not isinstance(v, (dict, str)))


@st.composite
def json_text_of(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> str:
    return json.dumps(draw(values), ensure_ascii=draw(st.booleans()))


@st.composite
def broken_json_text(draw: st.DrawFn) -> str:
    """Almost JSON: a valid text cut short or with a piece inserted."""
    text = json.dumps(draw(OBJECTS), ensure_ascii=draw(st.booleans()))
    at = draw(st.integers(0, len(text)))
    if draw(st.booleans()):
        return text[:at]
    return (
        text[:at]
        + draw(st.sampled_from(["NaN", ",", "}", "'", "\\x", "\\ud800", "\x01"]))
        + text[at:]
    )


ARGUMENTS = st.one_of(
    OBJECTS,  # already an object
    json_text_of(OBJECTS),  # the usual: JSON text of an object
    json_text_of(OBJECTS),
    json_text_of(TREES),  # JSON text of anything
    broken_json_text(),
    TEXT,  # a string that is rarely JSON
    st.sampled_from(["", " ", "{}", "[]", "null", '"x"', "1e400", '{"a": NaN}', '{"a":1} x']),
    LONE_SURROGATE_TEXT,
    NON_OBJECTS,  # number, list, bool
    st.none(),
)


def weighted(main: st.SearchStrategy[Any], other: st.SearchStrategy[Any], tenths: int) -> Any:
    """`main` in `tenths` draws out of ten, else `other` (one_of would flatten nested
    one_ofs and weigh every branch alike)."""
    return st.integers(0, 9).flatmap(lambda i: main if i < tenths else other)


NAMES = weighted(
    st.one_of(TEXT, st.sampled_from(["get_weather", "f"])),
    st.one_of(
        st.just(""), st.none(), st.integers(), st.lists(TEXT, max_size=1), LONE_SURROGATE_TEXT
    ),
    7,
)
IDS = weighted(
    st.one_of(TEXT, st.sampled_from(["call_1", "fc-1"])),
    st.one_of(st.none(), st.integers(), LONE_SURROGATE_TEXT),
    7,
)
JUNK = st.one_of(st.none(), st.booleans(), st.integers(), TEXT, st.lists(st.integers(), max_size=2))


def fields(**strategies: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict where every key may be missing (in 1 draw out of 10), plus (sometimes) an
    unrelated key."""
    return st.fixed_dictionaries(
        {key: weighted(value, st.just(MISSING), 9) for key, value in strategies.items()},
        optional={"extra": TREES},
    ).map(lambda d: {k: v for k, v in d.items() if v is not MISSING})


def one_or_junk(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return weighted(strategy, JUNK, 9)


def list_or_junk(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return weighted(
        st.lists(strategy, max_size=3),
        st.one_of(JUNK, st.dictionaries(TEXT, strategy, max_size=1)),
        8,
    )


OPENAI_FUNCTION = fields(name=NAMES, arguments=ARGUMENTS)
OPENAI_CALL = one_or_junk(
    fields(
        id=IDS, type=st.sampled_from(["function", "custom"]), function=one_or_junk(OPENAI_FUNCTION)
    )
)
OPENAI_MESSAGE = fields(
    role=st.just("assistant"), content=JUNK, tool_calls=list_or_junk(OPENAI_CALL)
)
OPENAI = one_or_junk(
    fields(
        id=TEXT,
        choices=list_or_junk(
            one_or_junk(fields(index=st.integers(), message=one_or_junk(OPENAI_MESSAGE)))
        ),
    )
)

# Well-formed responses, where only the values vary: most examples then hold calls.
OPENAI_CALLS = st.fixed_dictionaries(
    {
        "choices": st.lists(
            st.fixed_dictionaries(
                {
                    "message": st.fixed_dictionaries(
                        {
                            "tool_calls": st.lists(
                                st.fixed_dictionaries(
                                    {
                                        "id": IDS,
                                        "type": st.just("function"),
                                        "function": st.fixed_dictionaries(
                                            {"name": NAMES, "arguments": ARGUMENTS}
                                        ),
                                    }
                                ),
                                min_size=1,
                                max_size=3,
                            )
                        }
                    )
                }
            ),
            min_size=1,
            max_size=2,
        )
    }
)
OPENAI = weighted(OPENAI, OPENAI_CALLS, 5)

GEMINI_CALL = fields(name=NAMES, id=IDS, args=ARGUMENTS)
GEMINI_PART = one_or_junk(
    fields(text=TEXT, function_call=one_or_junk(GEMINI_CALL), functionCall=one_or_junk(GEMINI_CALL))
)
GEMINI = one_or_junk(
    fields(
        candidates=list_or_junk(
            one_or_junk(
                fields(
                    content=one_or_junk(
                        fields(role=st.just("model"), parts=list_or_junk(GEMINI_PART))
                    )
                )
            )
        )
    )
)

GEMINI_CALLS = st.fixed_dictionaries(
    {
        "candidates": st.lists(
            st.fixed_dictionaries(
                {
                    "content": st.fixed_dictionaries(
                        {
                            "parts": st.lists(
                                st.dictionaries(
                                    st.sampled_from(["function_call", "functionCall", "text"]),
                                    st.fixed_dictionaries(
                                        {"name": NAMES}, optional={"id": IDS, "args": ARGUMENTS}
                                    ),
                                    min_size=1,
                                ),
                                min_size=1,
                                max_size=3,
                            )
                        }
                    )
                }
            ),
            min_size=1,
            max_size=2,
        )
    }
)
GEMINI = weighted(GEMINI, GEMINI_CALLS, 5)

JSON_OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "tool_calls_key": st.sampled_from(["tool_calls", "calls", "result.calls", "a.b.c"]),
        "name_key": st.sampled_from(["name", "fn"]),
        "arguments_key": st.sampled_from(["arguments", "params"]),
        "single": st.booleans(),
    },
)
KEYS = ["tool_calls", "calls", "result", "a", "b", "c", "name", "fn", "arguments", "params", "id"]


@st.composite
def custom_json(draw: st.DrawFn, options: dict[str, Any]) -> Any:
    """A response for JsonResponseParser(**options): calls at (or near) its path."""
    name_key = options.get("name_key", "name")
    arguments_key = options.get("arguments_key", "arguments")
    entry_keys = st.sampled_from([name_key, arguments_key, "id", *KEYS])
    entry = weighted(
        st.fixed_dictionaries({name_key: NAMES}, optional={arguments_key: ARGUMENTS, "id": IDS}),
        st.dictionaries(entry_keys, st.one_of(NAMES, ARGUMENTS, IDS), max_size=4),
        8,
    )
    found = weighted(st.lists(entry, max_size=3), weighted(entry, JUNK, 7), 6)
    value = draw(found)
    path = options.get("tool_calls_key", "tool_calls").split(".")
    if draw(st.integers(0, 4)) == 0:  # a path that misses
        path = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3))
    for key in reversed(path):
        value = {**draw(st.dictionaries(st.sampled_from(KEYS), JUNK, max_size=1)), key: value}
    if draw(st.booleans()):
        return value
    others = draw(st.lists(st.one_of(JUNK, st.just({}), st.just(value)), max_size=3))
    at = draw(st.integers(0, len(others)))
    return [*others[:at], value, *others[at:]]


@st.composite
def custom_json_case(draw: st.DrawFn) -> tuple[dict[str, Any], Any]:
    options = draw(JSON_OPTIONS)
    return options, draw(custom_json(options))


def namespaces(value: Any, keep: frozenset[str]) -> Any:
    """`value` with its dicts turned into SDK-like objects read by attribute (the values
    of the keys in `keep`, the arguments, stay dicts)."""
    if isinstance(value, list):
        return [namespaces(v, keep) for v in value]
    if isinstance(value, dict):
        return types.SimpleNamespace(
            **{k: v if k in keep else namespaces(v, keep) for k, v in value.items()}
        )
    return value


# --------------------------------------------------------------------------- checks

FORMATS: dict[str, tuple[str, Callable[[Any], list[dict[str, Any]]]]] = {
    "openai": ("openai", ref_openai),
    "gemini": ("gemini", ref_gemini),
}


def outcome(parser: Any, raw: Any) -> tuple[str, Any]:
    try:
        response = parser.parse(raw)
    except ParseError as exc:
        return "error", (exc.msg, exc.pos)
    assert type(response) is AgentResponse
    assert response.raw is raw
    assert response.error is None
    return "ok", calls_as_dicts(response)


def text_forms(doc: Any, ensure_ascii: bool) -> list[Any]:
    text = json.dumps(doc, ensure_ascii=ensure_ascii)
    return [text, text.encode("utf-8", "surrogatepass")]


def check_parity(
    make_parser: Callable[[Any], Any],
    reference: Callable[[Any], list[dict[str, Any]]],
    doc: Any,
    ensure_ascii: bool,
) -> None:
    """Both backends on the dict and on its text: equal to each other and the reference."""
    rust, python = (make_parser(b) for b in both_backends())
    # the object itself (a str at the top is JSON text: that is the next step)
    if not isinstance(doc, str):
        got_rust, got_python = outcome(rust, doc), outcome(python, doc)
        assert got_rust[0] == got_python[0] == "ok"
        assert same(got_rust[1], got_python[1]), (got_rust, got_python)
        expected = reference(doc)
        assert same(got_python[1], expected), (got_python, expected)
    # its JSON text, as str and as bytes
    for raw in text_forms(doc, ensure_ascii):
        got_rust, got_python = outcome(rust, raw), outcome(python, raw)
        assert got_rust[0] == got_python[0], (raw, got_rust, got_python)
        assert same(got_rust[1], got_python[1]), (raw, got_rust, got_python)
        decoded = ref_loads(raw)
        if decoded is INVALID:
            assert got_python[0] == "error", (raw, got_python)
            error = error_for(raw)
            assert error is not None
            assert got_python[1] == (error.msg, error.pos)
        else:
            assert got_python[0] == "ok", (raw, got_python)
            expected = reference(decoded)
            assert same(got_python[1], expected), (raw, got_python, expected)


@examples(300)
@given(st.one_of(OPENAI, GEMINI))
@example(
    {
        "choices": [
            {"message": {"tool_calls": [{"function": "s", "id": "i"}, 3, {"function": None}]}},
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]}},
            5,
            {"message": 4},
        ]
    }
)
@example(
    {
        "candidates": [
            {"content": {"parts": [{"function_call": 5}, {"functionCall": "x"}, 7]}},
            {"content": {"parts": [{"function_call": None, "functionCall": {"name": "f"}}]}},
            {"content": []},
        ]
    }
)
@example(
    {
        "candidates": [
            {"content": {"parts": [{"functionCall": {"name": "f", "args": {}}}]}},
            {"content": {"parts": [{"functionCall": {"partialArgs": [], "name": ""}}]}},
        ]
    }
)
@example({"candidates": [{"content": {"parts": [{"function_call": {"partial_args": None}}]}}]})
def test_decoded_walkers_follow_the_walkers(doc: Any) -> None:
    """The pure backend's walkers for documents it decoded itself (dicts and lists only)
    find what its walkers for any object find; None for a chunk of a stream."""
    from toolsift._pure import fast, formats

    decoded = json.loads(json.dumps(doc))  # JSON's own types: dicts, lists, scalars
    for name, decoded_walker in fast.DECODED_WALKERS.items():
        spec = formats.by_name(name)
        expected = None if spec.is_stream_piece(decoded) else list(spec.module.calls(decoded))
        assert decoded_walker(decoded) == expected


def parser_factory(format: str, **options: Any) -> Callable[[Any], Any]:
    return lambda backend: backend.Parser(format, **options)


# --------------------------------------------------------------------------- parity


@examples(250)
@given(OPENAI, st.booleans())
@example(
    {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {
                            "id": "c",
                            "function": {"name": "f", "arguments": '{"a": -0.0, "b": 1e400}'},
                        }
                    ]
                }
            }
        ]
    },
    False,
)
@example(
    {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "\ud800", "arguments": "\ud800"}}]}}
        ]
    },
    False,
)
@example(
    {
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {
                            "function": {
                                "name": "f",
                                # serde_json's number hand-over key, written as a real key;
                                # integers beyond 64 bits; -0; a duplicate key
                                "arguments": '{"$serde_json::private::Number": "1.5", '
                                '"big": 18446744073709551616, "neg": -9223372036854775809, '
                                '"z": -0, "d": {"k": 1, "k": [2]}, '
                                '"$serde_json::private::Number": 3}',
                            }
                        }
                    ]
                }
            }
        ]
    },
    True,
)
def test_openai(doc: Any, ensure_ascii: bool) -> None:
    check_parity(parser_factory("openai"), ref_openai, doc, ensure_ascii)


@examples(200)
@given(GEMINI, st.booleans())
@example(
    {
        "candidates": [
            {
                "content": {
                    "parts": [{"function_call": None, "functionCall": {"name": "f", "args": "[1]"}}]
                }
            }
        ]
    },
    True,
)
def test_gemini(doc: Any, ensure_ascii: bool) -> None:
    check_parity(parser_factory("gemini"), ref_gemini, doc, ensure_ascii)


@examples(250)
@given(custom_json_case(), st.booleans())
def test_custom_json(case: tuple[dict[str, Any], Any], ensure_ascii: bool) -> None:
    options, doc = case
    check_parity(
        parser_factory("json", **options), lambda d: ref_json(d, options), doc, ensure_ascii
    )


@examples(150)
@given(st.sampled_from(["openai", "gemini"]), st.data())
def test_sdk_like_objects(format: str, data: st.DataObject) -> None:
    """The same responses as objects read by attribute (arguments stay dicts or text)."""
    doc = data.draw(
        (OPENAI if format == "openai" else GEMINI).filter(lambda d: not isinstance(d, str))
    )
    keep = frozenset({"arguments", "args"})
    objects = namespaces(doc, keep)
    reference = FORMATS[format][1]
    rust, python = (b.Parser(format) for b in both_backends())
    got_rust, got_python = outcome(rust, objects), outcome(python, objects)
    assert same(got_rust[1], got_python[1]), (got_rust, got_python)
    assert same(got_python[1], reference(objects))
    # and the same calls as the dicts they were made from
    assert same(got_python[1], outcome(python, doc)[1])


NUMBER_TEXT = st.from_regex(
    r"-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,4})?", fullmatch=True
)


@examples(300)
@given(NUMBER_TEXT)
@example("1e400")
@example("-1e400")
@example("1e-400")
@example("-0")
@example("-0.0")
@example("2.4703282292062328e-324")  # halfway to the smallest subnormal: rounds up
@example("2.4703282292062327e-324")  # just below: rounds to 0.0
@example("9007199254740993")
@example("9007199254740993.0")
@example("1.00000000000000011102230246251565404236316680908203125")
@example("179769313486231580793728971405301e276")
@example("123456789012345678901234567890")
def test_numbers_in_arguments(number: str) -> None:
    """Every JSON number decodes as `json.loads` decodes it, on both backends, whether it
    is inside an arguments string or inline in the response text."""
    expected = json.loads(number)
    arguments = '{"n": ' + number + ', "l": [' + number + "]}"
    doc = {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}}
        ]
    }
    inline = call_with(arguments)
    for backend in both_backends():
        parser = backend.Parser("openai")
        for raw in (doc, json.dumps(doc), json.dumps(doc).encode(), inline, inline.encode()):
            (call,) = parser.parse(raw).tool_calls
            assert same(call.arguments, {"n": expected, "l": [expected]}), (backend, raw)
            assert call.raw_arguments is None
    # a bare number as the arguments: kept as text, the same on both backends
    bare = call_with(number)
    rust, python = (b.Parser("openai").parse(bare).tool_calls[0] for b in both_backends())
    assert rust.raw_arguments == python.raw_arguments
    assert python.raw_arguments == json.dumps(expected)


# --------------------------------------------------------------------------- invalid text

# fmt: off
PIECES = [
    b"[", b"]", b"{", b"}", b",", b":", b'"', b"\\", b"\\u", b"\\ud83d", b"\\ude00", b"\\ud800",
    b"\\n", b"\\x", b"0", b"1", b"-", b".", b"e", b" ", b"\t", b"\n", b"\x0c", b"\x00", b"\x1f",
    b"true", b"nul", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xff", b"\x80", b"\xed\xa0\x80",
    b"\xe2\x82", b"\xef\xbb\xbf", b"1e400", b"12345678901234567890", b"NaN", b"'",
    b'"choices"', b'"message"', b'"tool_calls"', b'"function"', b'"name"', b'"arguments"',
]
# fmt: on


@st.composite
def mutated_response(draw: st.DrawFn) -> bytes:
    doc = draw(st.one_of(OPENAI, GEMINI))
    text = bytearray(
        json.dumps(doc, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    )
    return mutate(draw, text, PIECES, ("insert", "delete", "replace", "cut"))


RANDOM_TEXT = st.one_of(
    st.binary(max_size=40),
    st.lists(st.sampled_from(PIECES), max_size=16).map(b"".join),
    mutated_response(),
)


def check_text(raw: Any, format: str) -> None:
    rust, python = (b.Parser(format) for b in both_backends())
    got_rust, got_python = outcome(rust, raw), outcome(python, raw)
    assert got_rust == got_python or (
        got_rust[0] == got_python[0] == "ok" and same(got_rust[1], got_python[1])
    ), (raw, got_rust, got_python)
    if got_rust[0] == "error":
        error = error_for(raw)
        assert error is not None
        assert got_rust[1] == (error.msg, error.pos)
    decoded = ref_loads(bytes(raw) if isinstance(raw, (bytearray, memoryview)) else raw)
    assert (decoded is INVALID) == (got_python[0] == "error"), (raw, got_python)
    if decoded is not INVALID:
        expected = ref_openai(decoded) if format == "openai" else ref_gemini(decoded)
        assert same(got_python[1], expected)


@examples(600)
@given(RANDOM_TEXT, st.sampled_from(["openai", "gemini"]))
@example(b'{"choices": [1e400]}', "openai")
@example(b'"\\ud800"', "openai")
@example(b"\xef\xbb\xbf{}", "gemini")
def test_random_text(raw: bytes, format: str) -> None:
    check_text(raw, format)
    try:
        as_str = raw.decode("utf-8")
    except UnicodeDecodeError:
        as_str = raw.decode("utf-8", "surrogateescape")  # lone surrogates: never UTF-8
    check_text(as_str, format)
    check_text(bytearray(raw), format)


@examples(100)
@given(st.lists(RANDOM_TEXT, max_size=12), st.sampled_from([1, 2, None]))
def test_parse_many_random_text(raws: list[bytes], threads: int | None) -> None:
    """parse_many never raises: each bad record has the same error text on both."""
    rust, python = (b.Parser("openai") for b in both_backends())
    got_rust = rust.parse_many(raws, threads)
    got_python = python.parse_many(raws, threads)
    assert len(got_rust) == len(got_python) == len(raws)
    for raw, a, b in zip(raws, got_rust, got_python, strict=True):
        assert a.raw is raw and b.raw is raw
        assert a.error == b.error
        assert same(calls_as_dicts(a), calls_as_dicts(b))
        error = error_for(raw)
        assert a.error == (None if error is None else str(error))


# --------------------------------------------------------------------------- depth


def deep_same(a: Any, b: Any) -> bool:
    """`same`, iteratively (for values 1024 levels deep)."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if list(x) != list(y):
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif isinstance(x, float):
            if not (x == y and math.copysign(1, x) == math.copysign(1, y)):
                return False
        elif x != y:
            return False
    return True


def nested(depth: int, leaf: str = "1") -> str:
    """`depth` levels: objects and arrays in turn, the outermost an object."""
    opening = "".join('{"a":' if i % 2 == 0 else "[" for i in range(depth))
    closing = "".join("}" if i % 2 == 0 else "]" for i in reversed(range(depth)))
    return opening + leaf + closing


def call_with(arguments_json: str) -> str:
    """A response text whose one call has `arguments_json` as its arguments value."""
    return (
        '{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":'
        + arguments_json
        + "}}]}}]}"
    )


# The arguments value of `call_with` sits at depth 8 (its own container included).
INLINE_DEPTH = 7


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_100000_open_brackets(opener: str) -> None:
    text = opener * 100_000
    expected = error_for(text)
    assert expected is not None
    assert expected.msg == f"nesting deeper than {MAX_DEPTH}"
    assert expected.pos == len(opener) * MAX_DEPTH
    for backend in both_backends():
        for format in ("openai", "gemini", "json"):
            parser = backend.Parser(format)
            for raw in (text, text.encode()):
                with pytest.raises(ParseError) as caught:
                    parser.parse(raw)
                assert (caught.value.msg, caught.value.pos) == (expected.msg, expected.pos)
            (recorded,) = parser.parse_many([text.encode()])
            assert recorded.error == str(expected)


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_100000_open_brackets_closed(opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    text = opener * 100_000 + "1" + closer * 100_000
    for backend in both_backends():
        with pytest.raises(ParseError) as caught:
            backend.Parser("openai").parse(text)
        assert caught.value.pos == len(opener) * MAX_DEPTH


def test_100000_open_brackets_as_arguments() -> None:
    """Arguments text that nests too deep is kept, not decoded, and never crashes."""
    arguments = "[" * 100_000
    doc = {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}}
        ]
    }
    for backend in both_backends():
        parser = backend.Parser("openai")
        for raw in (doc, json.dumps(doc), json.dumps(doc).encode()):
            (call,) = parser.parse(raw).tool_calls
            assert call.arguments == {}
            assert call.raw_arguments == arguments


@pytest.mark.parametrize("depth", [MAX_DEPTH, MAX_DEPTH + 1])
def test_arguments_text_1024_deep(depth: int) -> None:
    """A JSON-string arguments value is a document of its own: 1024 levels decode."""
    arguments = nested(depth)
    doc = {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": arguments}}]}}
        ]
    }
    results = []
    for backend in both_backends():
        parser = backend.Parser("openai")
        for raw in (doc, json.dumps(doc), json.dumps(doc).encode()):
            (call,) = parser.parse(raw).tool_calls
            results.append(call)
    if depth <= MAX_DEPTH:
        expected = json.loads(arguments) if depth < 900 else None
        for call in results:
            assert call.raw_arguments is None
            assert deep_same(call.arguments, results[0].arguments)
            if expected is not None:
                assert deep_same(call.arguments, expected)
        # walk down to the leaf: every level is there
        value: Any = results[0].arguments
        for i in range(depth):
            value = value["a"] if i % 2 == 0 else value[0]
        assert value == 1
    else:
        for call in results:
            assert (call.arguments, call.raw_arguments) == ({}, arguments)


@pytest.mark.parametrize("extra", [0, 1])
def test_inline_arguments_at_the_depth_limit(extra: int) -> None:
    """Arguments inline in the response text count towards the document's 1024 levels."""
    depth = MAX_DEPTH - INLINE_DEPTH + extra
    text = call_with(nested(depth))
    expected_error = error_for(text)
    assert (expected_error is None) == (extra == 0)
    outcomes = []
    for backend in both_backends():
        parser = backend.Parser("openai")
        for raw in (text, text.encode()):
            if expected_error is not None:
                with pytest.raises(ParseError) as caught:
                    parser.parse(raw)
                assert str(caught.value) == str(expected_error)
            else:
                (call,) = parser.parse(raw).tool_calls
                outcomes.append(call.arguments)
    for arguments in outcomes:
        assert deep_same(arguments, outcomes[0])


# --------------------------------------------------------------------------- known differences


HUGE = 7 * (10**5000 - 1) // 9  # 5000 sevens (int("7" * 5000) is over the str limit)
HUGE_ARGUMENTS = '{"n": %s}' % ("7" * 5000)


def huge_input(form: str) -> Any:
    doc = {
        "choices": [
            {"message": {"tool_calls": [{"function": {"name": "f", "arguments": HUGE_ARGUMENTS}}]}}
        ]
    }
    return {
        "dict": doc,
        "str": json.dumps(doc),
        "bytes": json.dumps(doc).encode(),
        "inline": call_with(HUGE_ARGUMENTS).encode(),
        "parse_many": json.dumps(doc).encode(),
    }[form]


def huge_call(backend: Any, form: str) -> Any:
    parser = backend.Parser("openai")
    raw = huge_input(form)
    if form == "parse_many":
        (response,) = parser.parse_many([raw])
        assert response.error is None, response.error
    else:
        response = parser.parse(raw)
    return response.tool_calls[0]


HUGE_FORMS = ["dict", "str", "bytes", "inline", "parse_many"]


@pytest.mark.parametrize("form", HUGE_FORMS)
def test_integer_beyond_the_int_str_digit_limit(form: str) -> None:
    """Python's rule: an integer with more digits than `sys.get_int_max_str_digits()` is
    not decodable (json.loads refuses it), so the arguments are `{}` and their text is
    kept; with the limit lifted (0), it is exact, on both backends."""
    raw = '{"n":' + "7" * 5000 + "}" if form == "inline" else HUGE_ARGUMENTS
    for backend in both_backends():
        call = huge_call(backend, form)
        assert (call.arguments, call.raw_arguments) == ({}, raw)
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for backend in both_backends():
            value = huge_call(backend, form).arguments["n"]
            assert type(value) is int
            assert value == HUGE
    finally:
        sys.set_int_max_str_digits(old)


@pytest.mark.parametrize(("single", "names"), [(1, ["f"]), ("yes", ["f"]), (0, []), (None, [])])
def test_single_option_that_is_not_a_bool_python(single: Any, names: list[str]) -> None:
    """The specification (and russo): `single` is read for its truth value."""
    raw = {"toolCall": [{"name": "f"}]} if not names else {"toolCall": {"name": "f"}}
    parser = both_backends()[1].Parser("json", tool_calls_key="toolCall", single=single)
    assert [c.name for c in parser.parse(raw).tool_calls] == (names or ["f"])


@pytest.mark.parametrize("single", [1, 0, None, "yes"])
def test_single_option_that_is_not_a_bool(single: Any) -> None:
    raw = {"toolCall": {"name": "f"}}
    outcomes = []
    for backend in both_backends():
        try:
            parser = backend.Parser("json", tool_calls_key="toolCall", single=single)
            outcomes.append([c.name for c in parser.parse(raw).tool_calls])
        except Exception as exc:
            outcomes.append(f"{type(exc).__name__}: {exc}")
    assert outcomes[0] == outcomes[1]


class UpperDict(dict):  # type: ignore[type-arg]
    """A dict subclass whose lookups go to the upper-case key."""

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(key.upper(), default)

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(key.upper())

    def __contains__(self, key: object) -> bool:
        return super().__contains__(str(key).upper())


@pytest.mark.parametrize("format", ["openai", "json"])
def test_dict_subclass_with_its_own_lookup(format: str) -> None:
    if format == "openai":
        raw = UpperDict(
            CHOICES=[{"message": {"tool_calls": [{"function": {"name": "f"}}]}}], choices=[]
        )
    else:
        raw = UpperDict(TOOL_CALLS=[{"name": "f"}], tool_calls=[])
    rust, python = (b.Parser(format).parse(raw) for b in both_backends())
    assert calls_as_dicts(rust) == calls_as_dicts(python)
