"""toolsift._jsontext: the one definition of how JSON text is read (and its errors)."""

from __future__ import annotations

import json
import math
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import mutate, vector_text
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from toolsift._errors import ParseError
from toolsift._jsontext import MAX_DEPTH, _scan, dumps_compact, error_for, loads, loads_if_json

UTF8 = "invalid UTF-8"
BOM = "byte order mark is not allowed"
END = "unexpected end of input"
VALUE = "expected a value"
LITERAL = "invalid literal"
NUMBER = "invalid number"
CONTROL = "control character in string"
ESCAPE = "invalid escape"
U_ESCAPE = "invalid \\u escape"
LONE = "lone surrogate in \\u escape"
KEY = "expected a string key"
COLON = "expected ':'"
ARRAY_SEP = "expected ',' or ']'"
OBJECT_SEP = "expected ',' or '}'"
TRAILING = "trailing data after the document"
TOO_DEEP = "nesting deeper than 1024"

FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fast(max_examples: int = 100) -> settings:
    return settings(FAST, max_examples=max_examples)


# --------------------------------------------------------------------------- helpers


def same(a: Any, b: Any) -> bool:
    """Strict equality: same types (1 is not 1.0), same float bits (-0.0 is not 0.0), same
    key order. Iterative, so it works on 1024 levels."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, float):
            if not (x == y and math.copysign(1, x) == math.copysign(1, y)):
                return False
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y, strict=True))
        elif isinstance(x, dict):
            if list(x) != list(y):
                return False
            todo.extend((x[k], y[k]) for k in x)
        elif x != y:
            return False
    return True


def forms(text: bytes) -> list[Any]:
    """The same text as bytes, bytearray, memoryview and (when it is UTF-8) str."""
    out: list[Any] = [text, bytearray(text), memoryview(text)]
    try:
        out.append(text.decode())
    except UnicodeDecodeError:
        pass
    return out


def described(data: Any) -> tuple[str, int] | None:
    error = error_for(data)
    return None if error is None else (error.msg, error.pos)


def raised(data: Any) -> tuple[str, int]:
    with pytest.raises(ParseError) as info:
        loads(data)
    return info.value.msg, info.value.pos


def orjson_accepts(data: Any) -> tuple[bool, str]:
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return False, str(exc)
    return True, ""


# --------------------------------------------------------------------------- tables

VALID = [
    b"0",
    b"-0",
    b"-0.0",
    b"0.5",
    b"-1.5E3",
    b"1E+2",
    b"1e-2",
    b"1e-400",
    b"5e-324",
    b"1.7976931348623157e308",
    b"123456789012345678",
    b"12345678901234567890",
    b"9007199254740993",
    b" \t\n\r1\r\n\t ",
    b"true",
    b"false",
    b"null",
    b'""',
    b'"\\u0000"',
    b'"\\"\\\\\\/\\b\\f\\n\\r\\t"',
    b'"\x7f"',
    b'"\\u00e9\\u20AC"',
    b'"\\ud83d\\ude00"',
    b'"\\uD83D\\uDE00"',
    b'"\\ud7ff\\ue000"',
    b'"\xf0\x9f\x98\x80"',
    b'"\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf"',  # U+D7FF U+E000 U+FFFF U+10FFFF
    '"\u2028 caf\u00e9 \u6771\u4eac \U0001f680"'.encode(),
    b"[]",
    b"{}",
    b"[ ]",
    b"{ \n}",
    b"[[],[[]],{}]",
    b'{"":""}',
    b'{"a":[1,{"b":null}],"c":true,"d":false,"e":-0.25e-3}',
    b'[1, 2 ,3 , "x", true, null, false, {"k": 1, "l": [2]}]',
    b'{"a": 1, "b": "two", "c": 3.5, "d": true}',
    b'{"a":1,"b":2,"a":3}',
]


@pytest.mark.parametrize("text", VALID)
def test_valid(text: bytes) -> None:
    expected = json.loads(text)
    assert orjson_accepts(text)[0]
    for data in forms(text):
        assert error_for(data) is None
        assert same(loads(data), expected)


INVALID = [
    # empty, BOM, whitespace
    (b"", END, 0),
    (b"   ", END, 3),
    (b"\xef\xbb\xbf{}", BOM, 0),
    (b"\xef\xbb\xbf", BOM, 0),
    (b" \xef\xbb\xbf1", VALUE, 1),
    (b"\x0c1", VALUE, 0),
    (b"\xc2\xa01", VALUE, 0),  # NBSP is not whitespace
    (b"1\x0c", TRAILING, 1),
    (b"[1\x0b]", ARRAY_SEP, 2),
    # not JSON values
    (b"NaN", VALUE, 0),
    (b"Infinity", VALUE, 0),
    (b"-Infinity", NUMBER, 1),
    (b"-NaN", NUMBER, 1),
    (b"'a'", VALUE, 0),
    (b"{'a':1}", KEY, 1),
    (b"// c\n1", VALUE, 0),
    (b"1 // c", TRAILING, 2),
    (b"[1 /* c */]", ARRAY_SEP, 3),
    (b"]", VALUE, 0),
    (b"}", VALUE, 0),
    (b"True", VALUE, 0),
    (b"undefined", VALUE, 0),
    # literals
    (b"tru", END, 3),
    (b"trUe", LITERAL, 2),
    (b"nulL", LITERAL, 3),
    (b"[fals]", LITERAL, 5),
    (b"nullnull", TRAILING, 4),
    (b"[1,truex]", ARRAY_SEP, 7),
    # numbers
    (b"01", NUMBER, 1),
    (b"-01", NUMBER, 2),
    (b"[00]", NUMBER, 2),
    (b"[1,2,3,01]", NUMBER, 8),
    (b'{"a":1,"b":02}', NUMBER, 12),
    (b"1.", END, 2),
    (b"[1.]", NUMBER, 3),
    (b"1.e5", NUMBER, 2),
    (b".5", VALUE, 0),
    (b"+1", VALUE, 0),
    (b"-", END, 1),
    (b"- 1", NUMBER, 1),
    (b"1e", END, 2),
    (b"1e+", END, 3),
    (b"[1e]", NUMBER, 3),
    (b"[1E-]", NUMBER, 4),
    (b"1.5e3.2", TRAILING, 5),
    (b"[1.5.3]", ARRAY_SEP, 4),
    (b"0x10", TRAILING, 1),
    (b"1 2", TRAILING, 2),
    # strings
    (b'"abc', END, 4),
    (b'"a\x00"', CONTROL, 2),
    (b'"a\nb"', CONTROL, 2),
    (b'"\t"', CONTROL, 1),
    (b'"\x1f"', CONTROL, 1),
    (b'"\\x41"', ESCAPE, 2),
    (b'"\\U0041"', ESCAPE, 2),
    (b'"\\\'"', ESCAPE, 2),
    (b'"\\\n"', ESCAPE, 2),
    (b'"\\', END, 2),
    (b'"\\u12"', U_ESCAPE, 5),
    (b'"\\u12G4"', U_ESCAPE, 5),
    (b'"\\u', END, 3),
    (b'"\\u00', END, 5),
    # escaped surrogates: only a high-low pair is valid
    (b'"\\ud800"', LONE, 1),
    (b'"\\udc00"', LONE, 1),
    (b'"\\uDFFF"', LONE, 1),
    (b'"ab\\ud800\\u0041"', LONE, 3),
    (b'"\\ud800\\ud800\\udc00"', LONE, 1),
    (b'"\\ud83d\\ude00\\ude00"', LONE, 13),
    (b'"\\ud800\\n"', LONE, 1),
    (b'"\\ud800x"', LONE, 1),
    (b'"\\ud800', LONE, 1),
    (b'"\\ud800\\u12', LONE, 1),
    (b'"\\ud800\\uZZZZ"', LONE, 1),
    (b'"\\ud8', END, 5),
    (b'{"\\udc00":1}', LONE, 2),
    # arrays and objects
    (b"[1,]", VALUE, 3),
    (b"[1,,2]", VALUE, 3),
    (b"[,1]", VALUE, 1),
    (b'{"a":1,}', KEY, 7),
    (b"{,}", KEY, 1),
    (b'{"a" 1}', COLON, 5),
    (b'{"a"', END, 4),
    (b'{"a":', END, 5),
    (b'{"a":1', END, 6),
    (b'{"a":}', VALUE, 5),
    (b"{1:2}", KEY, 1),
    (b'{"a":1 "b":2}', OBJECT_SEP, 7),
    (b'{"a":1]', OBJECT_SEP, 6),
    (b'{"a":1,"b":2,"c":3x}', OBJECT_SEP, 18),
    (b"[1}", ARRAY_SEP, 2),
    (b"[1 2]", ARRAY_SEP, 3),
    (b"[", END, 1),
    (b"[1,", END, 3),
    (b"{", END, 1),
    (b"{} {}", TRAILING, 3),
    (b"[1]]", TRAILING, 3),
    (b"1\x00", TRAILING, 1),
    # invalid UTF-8 (pos: the first byte of the first ill-formed sequence)
    (b"\xff", UTF8, 0),
    (b"\xff[", UTF8, 0),
    (b'"\xed\xa0\x80"', UTF8, 1),
    (b'["\xc3\xa9", \xff]', UTF8, 7),
    (b"[1 \xff]", UTF8, 3),  # also a syntax error there: invalid UTF-8 wins
    (b"[1]\xff", UTF8, 3),
    (b"[1] \x80", UTF8, 4),
    (b"tr\xff", UTF8, 2),
    (b"[01, \xff]", NUMBER, 2),  # the syntax error comes first
    (b'"\\ud800\xff"', LONE, 1),
    (b'"abc\xe2\x82"', UTF8, 4),
    (b'"\xf0\x9f\x98', UTF8, 1),
    # nesting
    (b"[" * 1025 + b"]" * 1025, TOO_DEEP, 1024),
    (b"[" * 1024, END, 1024),
    (b'{"a":' * 1025 + b"1" + b"}" * 1025, TOO_DEEP, 5 * 1024),
]


@pytest.mark.parametrize(("text", "msg", "pos"), INVALID)
def test_invalid(text: bytes, msg: str, pos: int) -> None:
    assert not orjson_accepts(text)[0]
    for data in forms(text):
        assert described(data) == (msg, pos)
        assert raised(data) == (msg, pos)
    error = error_for(text)
    assert isinstance(error, ParseError)
    assert isinstance(error, ValueError)
    assert str(error) == f"{msg} at byte {pos}"


# --------------------------------------------------------------------------- shared vectors

ERROR_VECTORS = json.loads(
    (Path(__file__).parent / "vectors" / "json_errors.json").read_text("utf-8")
)["cases"]


@pytest.mark.parametrize("case", ERROR_VECTORS, ids=lambda case: case["name"])
def test_error_vectors(case: dict[str, Any], make: Any) -> None:
    """tests/vectors/json_errors.json, which `cargo test` checks the Rust twin on
    (src/json_errors.rs): `error_for` gives each case's error, and each backend reports
    it, made by itself: `parse` raises it, `parse_many` and `to_arrow` record its text."""
    text = vector_text(case["text"])
    data: str | bytes = text.decode("utf-8", "surrogatepass") if case.get("str") else text
    expected = None if case["error"] is None else tuple(case["error"])
    assert described(data) == expected
    if case.get("str"):
        assert described(text) == expected
    if expected is None:
        return
    parser = make.OpenAIResponseParser()
    with pytest.raises(ParseError) as info:
        parser.parse(data)
    assert (info.value.msg, info.value.pos) == expected
    message = "{} at byte {}".format(*expected)
    assert [r.error for r in parser.parse_many([data, data], threads=2)] == [message] * 2
    if text.strip(b" \t\r\n"):  # the bulk APIs skip blank records
        assert parser.to_arrow([data]).column("error").to_pylist() == [message]


def test_loads_raises_without_orjson_context() -> None:
    with pytest.raises(ParseError) as info:
        loads(b"[1,]")
    assert info.value.__cause__ is None
    assert info.value.__suppress_context__


@pytest.mark.parametrize(
    ("text", "msg", "pos"),
    [
        ('"\ud800"', UTF8, 1),
        ('["\u00e9", "\udfff"]', UTF8, 8),
        ('{"\U0001f680": "\udc00"}', UTF8, 10),
        ('"\ud83d\ude00"', UTF8, 1),  # two surrogate *characters* are not a pair in a str
        ("[1, 2\ud800]", UTF8, 5),
        ("[01\ud800]", NUMBER, 2),
    ],
)
def test_str_with_lone_surrogate(text: str, msg: str, pos: int) -> None:
    assert not orjson_accepts(text)[0]
    assert described(text) == (msg, pos)
    assert raised(text) == (msg, pos)
    assert described(text.encode("utf-8", "surrogatepass")) == (msg, pos)


def test_wrong_type() -> None:
    for data in (None, 1, ["[]"], {"a": 1}):
        with pytest.raises(TypeError):
            error_for(data)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            loads(data)  # type: ignore[arg-type]


def test_inputs_orjson_does_not_take() -> None:
    class Text(str):
        pass

    class Blob(bytes):
        pass

    assert loads(Text('{"a": [1]}')) == {"a": [1]}
    assert loads(Blob(b"[18446744073709551616]")) == [18446744073709551616]
    assert loads(memoryview(b"[_1_]")[::2]) == [1]  # not contiguous
    assert raised(Blob(b"[1,]")) == (VALUE, 3)


# --------------------------------------------------------------------------- depth


def test_max_depth_is_orjsons() -> None:
    assert MAX_DEPTH == 1024
    assert orjson_accepts(b"[" * 1024 + b"]" * 1024)[0]
    assert not orjson_accepts(b"[" * 1025 + b"]" * 1025)[0]


@pytest.mark.parametrize("opener", [b"[", b'{"k":', b'[{"k":'])
def test_depth_boundary(opener: bytes) -> None:
    closer = {b"[": b"]", b'{"k":': b"}", b'[{"k":': b"}]"}[opener]
    levels = len(closer)
    n = MAX_DEPTH // levels
    ok = opener * n + b"0" + closer * n
    value = loads(ok)
    for _ in range(MAX_DEPTH):
        value = value[0] if isinstance(value, list) else value["k"]
    assert value == 0
    assert error_for(ok) is None
    assert error_for(ok.decode()) is None
    # one level more: the error is at the bracket that opens level 1025
    extra = b"[" + ok + b"]"
    brackets = [i for i, byte in enumerate(extra) if byte in b"[{"]
    assert described(extra) == (TOO_DEEP, brackets[MAX_DEPTH])
    assert raised(extra) == (TOO_DEEP, brackets[MAX_DEPTH])
    assert not orjson_accepts(extra)[0]


def test_deep_unclosed_input_is_not_recursive() -> None:
    assert described(b"[" * 100_000) == (TOO_DEEP, 1024)
    assert raised("[" * 100_000) == (TOO_DEEP, 1024)
    assert described(b'{"a":' * 100_000) == (TOO_DEEP, 5 * 1024)
    assert described(b"[" * 1024) == (END, 1024)


def test_deep_document_with_big_int_uses_stdlib_fallback() -> None:
    # A 19+ digit run sends loads to json.loads, which recurses (1000 levels by default on
    # 3.10 and 3.11): it must still return the exact value at 1024 levels.
    big = 2**70 + 1
    text = "[" * MAX_DEPTH + str(big) + "]" * MAX_DEPTH
    value = loads(text)
    for _ in range(MAX_DEPTH):
        (value,) = value
    assert value == big
    assert type(value) is int
    limit = sys.getrecursionlimit()
    assert loads(text.encode()) is not None
    assert sys.getrecursionlimit() == limit


# --------------------------------------------------------------------------- numbers


BIG_INTS = [
    sign * (10 ** (digits - 1) + offset)
    for digits in range(19, 26)
    for sign in (1, -1)
    for offset in (0, 7, 10 ** (digits - 1) - 1)  # 1000..0, 1000..7, 1999..9
] + [2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**64 + 1, -(2**63), -(2**63) - 1, 10**30 + 1]


@pytest.mark.parametrize("number", BIG_INTS)
def test_big_ints_are_exact(number: int) -> None:
    text = f'{{"n": {number}, "list": [1, {number}, 2.5]}}'
    for data in forms(text.encode()):
        value = loads(data)
        assert same(value, {"n": number, "list": [1, number, 2.5]})
    assert same(loads(str(number)), number)


def test_orjson_really_loses_big_ints() -> None:
    # The reason loads does not trust orjson with a run of 19+ digits.
    assert isinstance(orjson.loads(b"18446744073709551616"), float)
    assert isinstance(orjson.loads(b"-9223372036854775809"), float)
    assert loads(b"18446744073709551616") == 18446744073709551616
    assert loads(b"-9223372036854775809") == -9223372036854775809


def test_huge_int_beyond_int_str_digit_limit() -> None:
    limits = sys.getrecursionlimit(), getattr(sys, "get_int_max_str_digits", lambda: None)()
    digits = "7" + "0" * 4999 + "3"  # more digits than int() converts by default (4300)
    number = 7 * 10**5000 + 3
    text = f"[{digits}, -{digits}]"
    assert error_for(text) is None
    # Python's rule: not converted (json.loads refuses it), its text kept as it was.
    decoded = loads(text)
    assert [type(n).__name__ for n in decoded] == ["TooLongInt", "TooLongInt"]
    assert [n.text for n in loads(text.encode())] == [digits, "-" + digits]
    assert dumps_compact(decoded) == text.replace(" ", "")
    assert dumps_compact([number, -number]) == text.replace(" ", "")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # no limit: converted
    try:
        assert loads(text) == [number, -number]
    finally:
        sys.set_int_max_str_digits(old)
    # the limits lifted for the slow paths are back
    assert limits == (
        sys.getrecursionlimit(),
        getattr(sys, "get_int_max_str_digits", lambda: None)(),
    )


def test_digits_in_strings_do_not_change_results() -> None:
    text = '{"id": "call_12345678901234567890123", "n": 1, "f": 2.5}'
    assert same(loads(text), json.loads(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1e400", math.inf),
        ("-1e400", -math.inf),
        ("1E+999999999999999999999", math.inf),
        ("[0.5, 1e400]", [0.5, math.inf]),
        ('{"x": -123456789e400}', {"x": -math.inf}),
        ("1" + "0" * 400, 10**400),
        ("1e-400", 0.0),
        ("-1e-400", -0.0),
    ],
)
def test_numbers_beyond_float_range(text: str, expected: Any) -> None:
    # Valid JSON that orjson refuses ("number is infinity"); json.loads gives inf.
    for data in forms(text.encode()):
        assert error_for(data) is None
        assert same(loads(data), expected)
        assert same(loads(data), json.loads(text))


@fast()
@given(st.floats(allow_nan=False, allow_infinity=False))
@example(0.1)
@example(-0.0)
@example(5e-324)
@example(2.2250738585072014e-308)
@example(1.7976931348623157e308)
@example(9.223372036854776e18)
def test_floats_round_trip(x: float) -> None:
    text = json.dumps(x)
    assert same(loads(text), x)
    assert same(loads(text.encode()), x)
    assert same(loads(f"[{text}]"), [x])


@fast()
@given(
    st.integers(min_value=-(10**30), max_value=10**30)
    | st.integers(min_value=-(2**64) - 2, max_value=2**64 + 2)
)
def test_ints_round_trip(n: int) -> None:
    assert same(loads(str(n)), n)
    assert same(loads(f'{{"n":{n}}}'.encode()), {"n": n})


def test_duplicate_keys_last_wins_at_first_position() -> None:
    text = b'{"a": 1, "b": 2, "a": 3, "c": {"x": 1, "x": [2]}}'
    value = loads(text)
    assert value == {"a": 3, "b": 2, "c": {"x": [2]}}
    assert list(value) == ["a", "b", "c"]
    assert same(value, json.loads(text))
    # and through the json.loads fallback (a 19+ digit run)
    value = loads(b'{"a": 1, "b": 12345678901234567890123, "a": 3}')
    assert list(value.items()) == [("a", 3), ("b", 12345678901234567890123)]


def test_surrogate_pairs() -> None:
    assert loads(b'"\\ud83d\\ude00"') == "\U0001f600"
    assert loads('"\\uD83D\\uDE00 \\u00e9"') == "\U0001f600 \u00e9"
    assert loads(b'{"\\ud83d\\ude80": "\\udbff\\udfff"}') == {"\U0001f680": "\U0010ffff"}
    assert loads('"\U0001f600"'.encode()) == "\U0001f600"


# --------------------------------------------------------------------------- UTF-8

BAD_UTF8 = [
    b"\x80",  # a lone continuation byte
    b"\xbf",
    b"\xc0\x80",  # overlong NUL
    b"\xc1\xbf",
    b"\xe0\x80\x80",  # overlong
    b"\xe0\x9f\xbf",
    b"\xed\xa0\x80",  # encoded surrogates
    b"\xed\xbf\xbf",
    b"\xf0\x80\x80\x80",  # overlong
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xfe",
    b"\xff",
    b"\xe2\x82",  # truncated (followed by ASCII, or at the end)
    b"\xf0\x9f\x98",
    b"\xc3",
]

DOCS = [
    '{"name": "get_weather", '
    '"arguments": {"city": "Z\u00fcrich \u6771\u4eac", "days": [1, 2.5, -3e2]}}',
    '[true, false, null, "\\n\\u00e9\\"", {"": []}, 12345]',
    '"caf\u00e9 \U0001f680 plain text"',
]


@pytest.mark.parametrize("bad", BAD_UTF8)
@pytest.mark.parametrize("doc", DOCS)
def test_invalid_utf8_everywhere(doc: str, bad: bytes) -> None:
    # Insert `bad` at every character boundary of a valid document: every prefix of a
    # valid document is a valid start (no surrogate escapes here), so the invalid byte
    # is the first error, reported at its byte offset.
    for cut in range(len(doc) + 1):
        prefix = doc[:cut].encode()
        text = prefix + bad + doc[cut:].encode()
        assert described(text) == (UTF8, len(prefix)), text
        assert not orjson_accepts(text)[0]


@pytest.mark.parametrize("doc", DOCS)
def test_lone_surrogate_char_everywhere(doc: str) -> None:
    for cut in range(0, len(doc) + 1, 3):
        for lone in ("\ud800", "\udfff"):
            text = doc[:cut] + lone + doc[cut:]
            assert described(text) == (UTF8, len(doc[:cut].encode())), text
            assert raised(text) == (UTF8, len(doc[:cut].encode()))


# --------------------------------------------------------------------------- big inputs


def test_long_string_with_error_at_the_end_is_fast() -> None:
    started = time.perf_counter()
    n = 50_000_000
    assert described(b'"' + b"a" * n + b'\x01"') == (CONTROL, n + 1)
    assert described(b'"' + b"\\n" * 1_000_000 + b"\\x") == (ESCAPE, 2_000_002)
    assert described(b'"' + b"\xc3\xa9" * 1_000_000 + b"\\u12") == (END, 2_000_005)
    items = b"[" + b"123, 4.5e6, true, null, " * 100_000
    assert described(items + b"01]") == (NUMBER, len(items) + 1)
    members = b'{"k0":0' + b', "k": "v", "n": 1.5' * 100_000
    assert described(members + b"]") == (OBJECT_SEP, len(members))
    nested = b"[" + b'{"a": [1, {"b": null}], "c": "d"}, ' * 50_000
    assert described(nested + b"]") == (VALUE, len(nested))
    assert time.perf_counter() - started < 10


def test_long_runs_do_not_change_results() -> None:
    # The run regexes (many ", item" at once) stop before anything unusual; the result is
    # the same as reading item by item.
    texts = [
        b"[1, 2, 3, 01]",
        b"[1, 2, 3.0e, 4]",
        b"[1, 2, 3., 4]",
        b"[1, 2, -, 4]",
        b'[1, "a", "b\\n", "c\x01"]',
        b'{"a": 1, "b": 2, "c" 3}',
        b'{"a": 1, "b": 2, "c": tru}',
        b'{"a": 1, "b": 2, "c": 1.5x}',
        b"[1, 2, 3 4]",
        b"[1, 2, 3",
        b"[1, 2, 3,",
        b"[0, -0, 1e5, 1E-5, 0.5,]",
    ]
    for text in texts:
        assert _scan(text, len(text)) == _scan(text, len(text), runs=False)


# --------------------------------------------------------------------------- hypothesis

_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(_TEXT, children, max_size=5),
    max_leaves=25,
)
_WS = [" ", "\t", "\n", "\r", "  ", "\r\n", ""]


def render(value: Any, rng: random.Random, ensure_ascii: bool) -> str:
    """JSON text for `value` with random whitespace between all tokens."""

    def ws() -> str:
        return rng.choice(_WS) if rng.random() < 0.5 else ""

    if isinstance(value, list):
        items = [ws() + render(v, rng, ensure_ascii) + ws() for v in value]
        return "[" + ws() + ",".join(items) + "]"
    if isinstance(value, dict):
        members = [
            ws()
            + json.dumps(k, ensure_ascii=ensure_ascii)
            + ws()
            + ":"
            + ws()
            + render(v, rng, ensure_ascii)
            + ws()
            for k, v in value.items()
        ]
        return "{" + ws() + ",".join(members) + "}"
    return json.dumps(value, ensure_ascii=ensure_ascii)


@fast(300)
@given(JSON_VALUES, st.randoms(use_true_random=False), st.booleans())
def test_loads_matches_json_loads(value: Any, rng: random.Random, ensure_ascii: bool) -> None:
    text = rng.choice(_WS) + render(value, rng, ensure_ascii) + rng.choice(_WS)
    expected = json.loads(text)
    assert error_for(text) is None
    assert same(loads(text), expected)
    assert same(loads(text.encode()), expected)
    assert _scan(text.encode(), len(text.encode()), runs=False) is None


# Pieces that make interesting (mostly invalid) JSON when glued together at random.
# fmt: off
_PIECES = [
    b"[", b"]", b"{", b"}", b",", b":", b'"', b"\\", b"\\u", b"\\ud83d", b"\\ude00", b"\\ud800",
    b"\\n", b"\\x", b"u", b"d8", b"00", b"0", b"1", b"9", b"-", b"+", b".", b"e", b"E", b" ",
    b"\t", b"\n", b"\r", b"\x0c", b"\x00", b"\x1f", b"\x7f", b"true", b"false", b"null",
    b"tru", b"nul", b"a", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xff", b"\x80", b"\xed\xa0\x80",
    b"\xe2\x82", b"\xc0\x80", b"\xef\xbb\xbf", b"/", b"1e400", b"12345678901234567890",
    b'"k":', b'"v"', b"[1,2]", b'{"a":1}', b"NaN", b"Infinity", b"'",
]
# fmt: on
SOUPS = st.lists(st.sampled_from(_PIECES), max_size=16).map(b"".join)


@st.composite
def mutated_json(draw: st.DrawFn) -> bytes:
    value = draw(JSON_VALUES)
    text = bytearray(json.dumps(value, ensure_ascii=draw(st.booleans())).encode())
    return mutate(draw, text, _PIECES, ("insert", "delete", "replace"))


def check_against_orjson(text: bytes) -> None:
    error = error_for(text)
    accepted, why = orjson_accepts(text)
    if error is None and not accepted:
        # The one deliberate difference: a number beyond the float range.
        assert "number is infinity" in why, why
    else:
        assert (error is None) == accepted, (text, error, why)
    end = len(text) if error is None or error.msg != UTF8 else error.pos
    assert _scan(text, end) == _scan(text, end, runs=False)
    if error is None:
        assert same(loads(text), json.loads(text))
    else:
        assert raised(text) == (error.msg, error.pos)
        try:
            as_str = text.decode()
        except UnicodeDecodeError:
            return
        assert described(as_str) == (error.msg, error.pos)


@fast(1500)
@given(SOUPS)
@example(b"[1e400]")
@example(b'"\\ud83d\\ude00"')
def test_agrees_with_orjson_on_soups(text: bytes) -> None:
    check_against_orjson(text)


@fast(1500)
@given(mutated_json())
def test_agrees_with_orjson_on_mutated_json(text: bytes) -> None:
    check_against_orjson(text)


@fast(500)
@given(st.binary(max_size=24))
def test_agrees_with_orjson_on_random_bytes(text: bytes) -> None:
    check_against_orjson(text)


@fast(500)
@given(
    st.text(
        st.sampled_from('[]{},:"\\ud83d0e1-.tn \t\u00e9\U0001f600\ud800\udc00\x00'), max_size=16
    )
)
def test_str_and_bytes_agree(text: str) -> None:
    as_bytes = text.encode("utf-8", "surrogatepass")
    expected = described(as_bytes)
    assert described(text) == expected
    assert described(bytearray(as_bytes)) == expected
    assert described(memoryview(as_bytes)) == expected
    if expected is not None:
        assert raised(text) == expected
        assert raised(as_bytes) == expected


# --------------------------------------------------------------------------- dumps_compact


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"a": [1, 2.5, None, True, False]}, '{"a":[1,2.5,null,true,false]}'),
        ([], "[]"),
        ('caf\u00e9 \U0001f680 "q" \\ \n', '"caf\u00e9 \U0001f680 \\"q\\" \\\\ \\n"'),
        (12345678901234567890123, "12345678901234567890123"),
        (-(2**64), "-18446744073709551616"),
        (0.1, "0.1"),
        (1e16, "1e+16"),
        (-0.0, "-0.0"),
        (float("inf"), "Infinity"),
        (float("nan"), "NaN"),
        ({1: "x", None: 2}, '{"1":"x","null":2}'),
        ((1, 2), "[1,2]"),
    ],
)
def test_dumps_compact(value: Any, text: str) -> None:
    assert dumps_compact(value) == text


@pytest.mark.parametrize(
    "value", [{1, 2}, b"bytes", object(), {(1, 2): "tuple key"}, [1, {"a": {3}}], 1j]
)
def test_dumps_compact_falls_back_to_repr(value: Any) -> None:
    assert dumps_compact(value) == repr(value)


def test_dumps_compact_never_raises() -> None:
    cycle: list[Any] = [1]
    cycle.append(cycle)
    assert dumps_compact(cycle) == "[1, [...]]"

    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    broken = Broken()
    assert dumps_compact(broken) == object.__repr__(broken)
    assert dumps_compact([broken]).startswith("<list object at")

    deep: Any = 0
    for _ in range(MAX_DEPTH):
        deep = [deep]
    assert dumps_compact(deep) == "[" * MAX_DEPTH + "0" + "]" * MAX_DEPTH
    very_deep: Any = 0
    for _ in range(100_000):
        very_deep = [very_deep]
    assert isinstance(dumps_compact(very_deep), str)


@fast()
@given(JSON_VALUES)
def test_dumps_compact_round_trips(value: Any) -> None:
    text = dumps_compact(value)
    assert text == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert same(loads(text), json.loads(text))


def test_parse_error_pickles() -> None:
    error = error_for(b"[1,]")
    assert error is not None
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.msg, copy.pos, str(copy)) == (error.msg, error.pos, str(error))


def _loads_or_not(text: str) -> tuple[bool, Any]:
    try:
        return True, loads(text)
    except ParseError:
        return False, None


@fast(1500)
@given(st.one_of(SOUPS, mutated_json()))
@example(b"[1e400]")
@example(b'{"a": NaN}')
@example(b'["\\ud800"]')
@example(b"[" * 2000 + b"]" * 2000)
@example(b"{" * 100_000)
@example(b'{"a": "' + b"\\" * 100_001)
def test_loads_if_json_is_whether_loads_reads(text: bytes) -> None:
    """`loads_if_json` (json.loads asked before `error_for`) says what `loads` says."""
    for data in (text.decode("utf-8", "replace"), text.decode("utf-8", "surrogateescape")):
        assert repr(loads_if_json(data)) == repr(_loads_or_not(data))
