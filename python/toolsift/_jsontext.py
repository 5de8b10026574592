"""How toolsift reads JSON text: the one definition, shared by both backends.

`loads` decodes JSON text for the pure-Python backend. `error_for` describes what is wrong
with a text: it is the specification of the Rust backend's twin (src/json_errors.rs), so
both backends raise the same `ParseError(msg, pos)` for the same input (checked on
tests/vectors/json_errors.json by pytest and `cargo test`). `dumps_compact` writes a value back
as compact JSON text (for `raw_arguments`).

What is accepted
----------------
RFC 8259 JSON text, encoded as UTF-8 (`bytes`, `bytearray`, `memoryview`) or given as a
`str`, and nothing else:

* whitespace is space, tab, LF and CR only; a byte order mark is an error;
* no NaN / Infinity, comments, single quotes, trailing commas, leading zeros, ``1.``,
  ``.5``, or data after the document;
* strings hold no raw control characters (U+0000 to U+001F) and only the escapes
  ``\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX``;
* an escaped surrogate must be a high one directly followed by an escaped low one
  (``"\\ud83d\\ude00"``); an escaped lone surrogate is an error (orjson rejects them too);
* the bytes must be valid UTF-8 (no encoded surrogates ``ED A0 80``..``ED BF BF``, no
  overlong forms, no truncated sequences); a `str` holding a lone surrogate character is
  invalid UTF-8 at the byte offset where that character would be encoded;
* arrays and objects nest at most `MAX_DEPTH` (1024) deep, as in orjson: 1024 levels are
  accepted, the 1025th opening bracket is an error.

Valid text decodes as `json.loads` would decode it: integers of any size exactly (also
beyond 64 bits, where orjson alone would return a float, and beyond Python's 4300-digit
``int`` conversion limit), floats correctly rounded, duplicate keys last-wins (at the
position of the first occurrence), escaped surrogate pairs joined. A number too large for
a float, such as ``1e400``, is valid JSON and decodes to ``inf`` (or ``-inf``), as with
`json.loads`; orjson refuses it, this module does not. That is the one deliberate
difference from orjson in what is valid.

Errors
------
`error_for` reports the FIRST error as ``ParseError(msg, pos)``, `pos` being a 0-based
offset in bytes of the UTF-8 text (also for `str` input). The text is read from left to
right and the first problem met wins; a byte that is both out of place and invalid UTF-8
is reported as invalid UTF-8. At the end of the text, `pos` is the length of the text.

``invalid UTF-8``
    pos: the first byte of the first ill-formed UTF-8 sequence (the same offset as
    Rust's ``Utf8Error::valid_up_to``).
``byte order mark is not allowed``
    the text starts with EF BB BF (U+FEFF); pos 0.
``unexpected end of input``
    the text ends where more is needed: empty or blank text, an unclosed string, array
    or object, ``1.``, ``[1,``, ``tru``; pos: the length of the text.
``expected a value``
    a byte that cannot start a value: ``]`` after a comma, ``N`` of NaN, ``'``, ``/``,
    ``+``, ``.``; pos: that byte.
``invalid literal``
    ``t``, ``f`` or ``n`` not followed by the rest of ``true``, ``false``, ``null``;
    pos: the first byte that differs.
``invalid number``
    pos: the byte where the number grammar fails: the byte after ``-``, ``.``, ``e`` or
    ``e+`` that is not a digit, or the digit after a leading ``0``.
``control character in string``
    a raw byte 00..1F inside a string; pos: that byte.
``invalid escape``
    a backslash followed by a byte that makes no escape; pos: the byte after the
    backslash.
``invalid \\u escape``
    pos: the first of the four bytes after ``\\u`` that is not a hex digit.
``lone surrogate in \\u escape``
    an escaped low surrogate not preceded by an escaped high one, or an escaped high
    surrogate not directly followed by an escaped low one (whatever follows instead,
    even the end of the text); pos: the backslash of that escape.
``expected a string key``
    in an object, after ``{`` or ``,``; pos: that byte.
``expected ':'``
    after an object key; pos: that byte.
``expected ',' or ']'``
    after an array item; pos: that byte.
``expected ',' or '}'``
    after an object member; pos: that byte.
``trailing data after the document``
    pos: the first byte after the document that is not whitespace.
``nesting deeper than 1024``
    pos: the opening bracket of level 1025.

Implementation notes
--------------------
`loads` runs orjson and falls back to `json.loads` only when orjson's result may be
wrong: the text has a run of 19 or more ASCII digits (an integer beyond 64 bits may have
been rounded to a float; shorter integers always fit), or orjson refused a text that
`error_for` finds valid (``1e400``). The digit-run check is one ``bytes.translate`` and a
substring search, about 0.9 ns a byte, half of what orjson itself takes on a typical
2 KB response (a regex search for ``[0-9]{19}`` costs four times orjson).

`error_for` does not use orjson: it is a plain iterative validator (an explicit stack, no
recursion) whose inner loops are compiled regular expressions, so long strings, numbers
and runs of simple array items or object members are skipped at C speed (a 50 MB string
takes about half a second, 3 s if it is all escapes). It is meant for the error path:
about 30 MB/s on typical responses.
"""

from __future__ import annotations

import contextvars
import functools
import json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import orjson

from toolsift._errors import ParseError
from toolsift._values import HugeFloat, TooLongInt

__all__ = [
    "MAX_DEPTH",
    "HugeFloat",
    "TooLongInt",
    "container_end",
    "dumps_arguments",
    "dumps_compact",
    "dumps_strict",
    "error_for",
    "holds_too_long_int",
    "is_json",
    "keeping_number_text",
    "loads",
    "loads_if_json",
    "loads_or_orjson_error",
    "too_long_ints_made",
]

MAX_DEPTH = 1024
"""The deepest nesting of arrays and objects accepted (orjson's own limit)."""

# The messages, one per kind of error (see the module docstring).
_INVALID_UTF8 = "invalid UTF-8"
_BOM = "byte order mark is not allowed"
_END = "unexpected end of input"
_EXPECTED_VALUE = "expected a value"
_INVALID_LITERAL = "invalid literal"
_INVALID_NUMBER = "invalid number"
_CONTROL = "control character in string"
_INVALID_ESCAPE = "invalid escape"
_INVALID_U_ESCAPE = "invalid \\u escape"
_LONE_SURROGATE = "lone surrogate in \\u escape"
_EXPECTED_KEY = "expected a string key"
_EXPECTED_COLON = "expected ':'"
_EXPECTED_ARRAY_SEP = "expected ',' or ']'"
_EXPECTED_OBJECT_SEP = "expected ',' or '}'"
_TRAILING = "trailing data after the document"
_TOO_DEEP = f"nesting deeper than {MAX_DEPTH}"

# --------------------------------------------------------------------------- loads


def loads(data: str | bytes | bytearray | memoryview) -> Any:
    """Decode JSON text as `json.loads` would, or raise `ParseError` (see `error_for`).

    orjson does the work; `json.loads` redoes it in the two cases orjson cannot get right:
    a run of 19+ digits (an integer beyond 64 bits, which orjson turns into a float) and a
    number beyond the float range (``1e400``, which orjson refuses).
    """
    return loads_by_orjson(data)[0]


def loads_by_orjson(data: str | bytes | bytearray | memoryview) -> tuple[Any, bool]:
    """`loads`, and whether orjson's value was kept: the text has no run of 19+ digits
    (nor a number beyond the float range). Then no string decoded from it has such a run
    either, unless it was written with `\\u` escapes (digits are written as they are)."""
    try:
        return _by_orjson(data)
    except orjson.JSONDecodeError:
        error = error_for(data)
        if error is not None:
            raise error from None
        # Valid, but orjson refused it: a number beyond the float range (or an input type
        # orjson does not take, such as a bytes subclass).
        return _stdlib_loads(data), False


def is_json(data: str | bytes | bytearray | memoryview) -> bool:
    """Whether `loads` reads the text."""
    try:
        loads(data)
    except ParseError:
        return False
    return True


def loads_if_json(data: str) -> tuple[bool, Any]:
    """`(True, loads(data))` where `loads` reads the text, else `(False, None)`: for a
    caller that only needs to know. Where orjson refuses the text, `json.loads` (C, and
    more lenient than this module: NaN, any nesting) is asked before `error_for`'s scan
    for the reason (Python, and the whole text of a long string cut off): text that both
    refuse is not JSON."""
    try:
        return True, _by_orjson(data)[0]
    except orjson.JSONDecodeError:
        pass
    try:
        json.loads(data, parse_int=str, parse_float=str)
    except RecursionError:
        pass  # nesting deeper than json's C scanner goes: `loads` decides
    except ValueError:
        return False, None
    try:
        return True, loads(data)
    except ParseError:
        return False, None


def loads_or_orjson_error(data: str | bytes | bytearray | memoryview) -> Any:
    """`loads` of text orjson reads; orjson's JSONDecodeError where it does not (text
    that is not JSON, or a number beyond the float range), without `error_for`'s scan
    for the reason: for a caller that has another way with such text."""
    return _by_orjson(data)[0]


def _by_orjson(data: str | bytes | bytearray | memoryview) -> tuple[Any, bool]:
    value = orjson.loads(data)
    if may_hold_big_integer(data):
        return _stdlib_loads(data), False
    return value, True


# bytes.translate maps every ASCII digit to "1" and every other byte to NUL; a run of 19
# digits is then a plain substring search. This is several times faster than a regex
# search for [0-9]{19}, whose cost is dominated by trying a match at every digit.
_DIGIT_FLAGS = bytes(0x31 if 0x30 <= byte <= 0x39 else 0 for byte in range(256))
_DIGIT_RUN = b"1" * 19  # 2**63 has 19 digits: shorter integers are exact in orjson


def may_hold_big_integer(data: str | bytes | bytearray | memoryview) -> bool:
    """Whether the text has a run of 19+ digits: an integer orjson may have rounded."""
    if len(data) < 19:
        return False
    if isinstance(data, str):
        data = data.encode()  # valid: orjson has just read it
    elif isinstance(data, memoryview):
        data = data.tobytes()
    # `find`, not `in`: `bytes.__contains__` first tries its operand as an integer, and
    # raises and clears a TypeError each time (a fifth of this check's cost).
    return data.translate(_DIGIT_FLAGS).find(_DIGIT_RUN) != -1


def _stdlib_loads(data: str | bytes | bytearray | memoryview) -> Any:
    """`json.loads` of text already known to be valid, with room for 1024 levels of nesting
    and integers of any length."""
    text = data if isinstance(data, str) else bytes(data).decode()
    get_limit = getattr(sys, "get_int_max_str_digits", None)
    to_int = functools.partial(_int, get_limit() if get_limit is not None else 0)
    try:
        return json.loads(text, parse_float=_float, parse_int=to_int)
    except RecursionError:
        # json's C scanner recurses (1000 levels by default on 3.10/3.11); the text is
        # valid, so retry with the limit lifted.
        with _generous_limits():
            return json.loads(text, parse_float=_float, parse_int=to_int)


_TOO_LONG_INTS_MADE = [0]  # none made: nothing to look for
_MADE_HERE = threading.local()  # those made by this thread


def _int(limit: int, text: str) -> int | TooLongInt:
    if limit and len(text) > limit and len(text.lstrip("-")) > limit:
        _TOO_LONG_INTS_MADE[0] += 1
        _MADE_HERE.count = too_long_ints_made() + 1
        return TooLongInt(text)
    return int(text)


def too_long_ints_made() -> int:
    """How many `TooLongInt`s this thread's `loads` made: text that made one is not
    decodable by Python's rule (`json.loads` refuses it, even where a duplicate key's
    later value replaces the integer)."""
    return getattr(_MADE_HERE, "count", 0)


def holds_too_long_int(value: Any) -> bool:
    """Whether a decoded value holds a `TooLongInt` (free until one was ever made)."""
    if not _TOO_LONG_INTS_MADE[0]:
        return False
    stack = [value]
    seen: set[int] = set()  # a caller's value may hold itself
    while stack:
        item = stack.pop()
        if isinstance(item, TooLongInt):
            return True
        if isinstance(item, (dict, list)) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


_KEEP_NUMBER_TEXT = contextvars.ContextVar("toolsift_keep_number_text", default=False)


@contextmanager
def keeping_number_text() -> Iterator[None]:
    """Within it, `loads` gives numbers beyond the float range as `HugeFloat`."""
    token = _KEEP_NUMBER_TEXT.set(True)
    try:
        yield
    finally:
        _KEEP_NUMBER_TEXT.reset(token)


def _float(text: str) -> float:
    value = float(text)
    if math.isinf(value) and _KEEP_NUMBER_TEXT.get():
        return HugeFloat(value, text)
    return value


_LIMITS_LOCK = threading.RLock()  # re-entrant: repr() in _safe_repr runs arbitrary code


@contextmanager
def _generous_limits(frames_per_level: int = 1) -> Iterator[None]:
    """Lift the recursion limit by enough for `MAX_DEPTH` levels (of `frames_per_level`
    frames each) and the int<->str digit limit, for the rare slow paths that need it;
    both are restored on exit.

    Both settings are process-wide: other threads briefly see the higher limits, which
    only makes them more permissive. The lock keeps this module's own users from
    restoring each other's limits too early.
    """
    with _LIMITS_LOCK:
        old_recursion = sys.getrecursionlimit()
        get_digits = getattr(sys, "get_int_max_str_digits", None)
        old_digits = get_digits() if get_digits is not None else None
        sys.setrecursionlimit(old_recursion + frames_per_level * MAX_DEPTH + 100)
        if old_digits is not None:
            sys.set_int_max_str_digits(0)
        try:
            yield
        finally:
            sys.setrecursionlimit(old_recursion)
            if old_digits is not None:
                sys.set_int_max_str_digits(old_digits)


# --------------------------------------------------------------------------- dumps_compact

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# For text made for a consumer (a model's prompt): NaN and infinities are not JSON there.
_STRICT_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps_compact(value: Any) -> str:
    """`json.dumps(value, separators=(",", ":"), ensure_ascii=False)`, never raising.

    Integers of any size are written exactly (a `TooLongInt` as its text), floats as
    `json` writes them (``repr``; NaN and infinities as ``NaN`` / ``Infinity``, as `json`
    does). A value `json` cannot encode (a set, bytes, a non-string key it cannot
    convert, a cycle) gives `repr(value)`.
    """
    try:
        return _encode(_ENCODER, value)
    except TypeError:
        if holds_too_long_int(value):
            return _dumps_marked(value, huge_as_text=False)
        return _safe_repr(value)
    except Exception:
        return _safe_repr(value)


def dumps_arguments(value: Any) -> str:
    """`dumps_compact` for the `arguments` column: a `HugeFloat` is written as its text
    (`Infinity` is not JSON)."""
    text = dumps_compact(value)
    if "Infinity" not in text:
        return text
    return _dumps_marked(value, huge_as_text=True)


def _dumps_marked(value: Any, huge_as_text: bool) -> str:
    """`dumps_compact` writing each `TooLongInt` (and, if `huge_as_text`, each
    `HugeFloat`) as its text: each becomes a string the value does not hold, replaced
    after encoding."""
    import secrets  # here, not at the top: it imports hashlib (~13 ms of every start)

    texts: list[str] = []
    tag = secrets.token_hex(8)

    def marked(item: Any) -> Any:
        if isinstance(item, TooLongInt) or (huge_as_text and isinstance(item, HugeFloat)):
            texts.append(item.text)
            return f"\x00{tag}{len(texts) - 1}\x00"
        if isinstance(item, dict):
            return {key: marked(v) for key, v in item.items()}
        if isinstance(item, list):
            return [marked(v) for v in item]
        return item

    with _generous_limits():  # as deep as the value is
        text = dumps_compact(marked(value))
    for n, number in enumerate(texts):
        text = text.replace(f'"\\u0000{tag}{n}\\u0000"', number, 1)
    return text


def dumps_strict(value: Any) -> str:
    """`json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)`.

    Raises as `json.dumps` does: TypeError for a value it cannot encode (a set, bytes),
    ValueError for a cycle and for NaN or an infinity. Integers of any size and nesting
    up to `MAX_DEPTH` are written, as by `dumps_compact`.
    """
    return _encode(_STRICT_ENCODER, value)


def _encode(encoder: json.JSONEncoder, value: Any) -> str:
    try:
        return encoder.encode(value)
    except (RecursionError, ValueError):
        # Too deep for the default recursion limit, or an int over the 4300-digit limit:
        # retried with both lifted (a cycle or NaN fails again, with json's own error).
        with _generous_limits():
            return encoder.encode(value)


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except (RecursionError, ValueError):
        try:
            with _generous_limits():
                return repr(value)
        except Exception:
            pass
    except Exception:
        pass
    return object.__repr__(value)


# --------------------------------------------------------------------------- error_for


def error_for(data: str | bytes | bytearray | memoryview) -> ParseError | None:
    """The first error in JSON text as a `ParseError`, or None when the text is valid.

    `pos` is a byte offset in the UTF-8 text (a `str` is encoded first; a lone surrogate
    in it is invalid UTF-8 at its offset). See the module docstring for every message.
    """
    text, bad_utf8 = _utf8(data)
    if text.startswith(_BOM_BYTES):
        return ParseError(_BOM, 0)
    # Only the valid UTF-8 prefix is read: an error found in it comes first; reaching
    # its end means the invalid UTF-8 is the first error.
    end = len(text) if bad_utf8 is None else bad_utf8
    found = _scan(text, end)
    if bad_utf8 is not None and (found is None or found[1] >= bad_utf8):
        return ParseError(_INVALID_UTF8, bad_utf8)
    if found is None:
        return None
    return ParseError(*found)


_BOM_BYTES = b"\xef\xbb\xbf"


def _utf8(data: str | bytes | bytearray | memoryview) -> tuple[bytes, int | None]:
    """The text as bytes, and the offset of its first invalid UTF-8 byte (or None)."""
    if isinstance(data, str):
        try:
            return data.encode(), None
        except UnicodeEncodeError:
            text = data.encode("utf-8", "surrogatepass")  # lone surrogates: ED A0 80 etc.
    elif isinstance(data, bytes):
        text = data
    elif isinstance(data, (bytearray, memoryview)):
        text = bytes(data)
    else:
        raise TypeError(
            f"JSON text must be str, bytes, bytearray or memoryview, not {type(data).__name__}"
        )
    try:
        text.decode()
    except UnicodeDecodeError as exc:
        return text, exc.start
    return text, None


# Regular expressions over bytes. Each is used with match(text, pos, end), so `end` acts
# as the end of the text.
_WS = re.compile(rb"[ \t\n\r]*")

_HEX = rb"[0-9a-fA-F]"
_NOT_SURROGATE = rb"(?:[0-9a-cA-Ce-fE-F]" + _HEX + rb"{3}|[dD][0-7]" + _HEX + rb"{2})"
_SURROGATE_PAIR = rb"[dD][89abAB]" + _HEX + rb"{2}\\u[dD][c-fC-F]" + _HEX + rb"{2}"
_ESCAPE = rb'\\(?:["\\/bfnrt]|u(?:' + _NOT_SURROGATE + rb"|" + _SURROGATE_PAIR + rb"))"
_PLAIN = rb'[^"\\\x00-\x1f]'  # any byte a string holds as is (UTF-8 is checked apart)
# A stretch of string body: plain runs and valid escapes. The repeat is bounded because
# Python's re keeps state for every iteration of a group; the caller loops.
_STRING_BODY = re.compile(rb"(?:" + _PLAIN + rb"+|" + _ESCAPE + rb"){0,4096}")

_INT = rb"-?(?:0|[1-9][0-9]*)"
_FRACTION = rb"\.[0-9]+"
_EXPONENT = rb"[eE][+-]?[0-9]+"
_NUMBER = re.compile(_INT + rb"(" + _FRACTION + rb")?(" + _EXPONENT + rb")?")

# Runs of ", scalar" items (arrays) and ", "key": scalar" members (objects), skipped in
# one match. A number must be followed by a byte that can follow a complete number, so
# that a run never swallows the start of an invalid number ("[1,01]") and reports the
# error somewhere else than the item-by-item path would.
_NUMBER_DONE = rb"(?=[ \t\n\r,\]}]|\Z)"  # what may follow a complete number
_FAST_STRING = rb'"' + _PLAIN + rb'*"'  # a string without escapes
_FAST_SCALAR = (
    rb"(?:"
    + (_INT + rb"(?:" + _FRACTION + rb")?(?:" + _EXPONENT + rb")?" + _NUMBER_DONE)
    + (rb"|" + _FAST_STRING)
    + rb"|true|false|null)"
)
_WSR = rb"[ \t\n\r]*"
_FAST_MEMBER = _FAST_STRING + _WSR + rb":" + _WSR + _FAST_SCALAR
_ARRAY_RUN = re.compile(rb"(?:," + _WSR + _FAST_SCALAR + _WSR + rb"){0,4096}")
_OBJECT_RUN = re.compile(rb"(?:," + _WSR + _FAST_MEMBER + _WSR + rb"){0,4096}")

_Matcher = Callable[[bytes, int, int], "re.Match[bytes]"]


def _matcher(pattern: re.Pattern[bytes]) -> _Matcher:
    """`pattern.match`, for a pattern that matches everywhere (maybe nothing)."""
    return cast(_Matcher, pattern.match)


_skip_ws = _matcher(_WS)
_string_body = _matcher(_STRING_BODY)
_array_run = _matcher(_ARRAY_RUN)
_object_run = _matcher(_OBJECT_RUN)

_OPEN_ARRAY, _CLOSE_ARRAY = 0x5B, 0x5D  # [ ]
_OPEN_OBJECT, _CLOSE_OBJECT = 0x7B, 0x7D  # { }
_CLOSER = {_OPEN_ARRAY: _CLOSE_ARRAY, _OPEN_OBJECT: _CLOSE_OBJECT}
_QUOTE, _BACKSLASH, _COMMA, _COLON = 0x22, 0x5C, 0x2C, 0x3A
_NUMBER_START = frozenset(b"-0123456789")
_DIGITS = frozenset(b"0123456789")
_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")
_LITERALS = {0x74: b"true", 0x66: b"false", 0x6E: b"null"}


def _scan(text: bytes, end: int, runs: bool = True) -> tuple[str, int] | None:
    """The first syntax error in text[:end] as (msg, pos), or None.

    `runs=False` reads every array item and object member one by one (the tests check
    that the result never depends on it).
    """
    ws = _skip_ws
    stack: list[int] = []  # the opening brackets of the open containers
    i = ws(text, 0, end).end()
    while True:
        # ---- a value starts at i (whitespace skipped)
        if i >= end:
            return _END, end
        c = text[i]
        if c == _QUOTE:
            i, error = _string(text, i, end)
            if error is not None:
                return error
        elif c in _NUMBER_START:
            i, error = _number(text, i, end)
            if error is not None:
                return error
        elif c == _OPEN_ARRAY or c == _OPEN_OBJECT:
            if len(stack) == MAX_DEPTH:
                return _TOO_DEEP, i
            stack.append(c)
            i = ws(text, i + 1, end).end()
            if i < end and text[i] == _CLOSER[c]:
                stack.pop()
                i += 1
            elif c == _OPEN_ARRAY:
                continue  # the first item
            else:
                i, error = _key(text, i, end)
                if error is not None:
                    return error
                continue  # the first member's value
        elif c in _LITERALS:
            literal = _LITERALS[c]
            if not text.startswith(literal, i, end):
                for k, expected in enumerate(literal, i):
                    if k >= end:
                        return _END, end
                    if text[k] != expected:
                        return _INVALID_LITERAL, k
            i += len(literal)
        else:
            return _EXPECTED_VALUE, i

        # ---- a value ended at i: close containers until one wants another item
        while True:
            i = ws(text, i, end).end()
            if not stack:
                return None if i >= end else (_TRAILING, i)
            if i >= end:
                return _END, end
            c = text[i]
            top = stack[-1]
            if c == _COMMA:
                if runs:
                    # many ", item" (or ", "key": item") at once, when they are simple
                    run = _array_run if top == _OPEN_ARRAY else _object_run
                    run_end = run(text, i, end).end()
                    if run_end > i:
                        i = run_end
                        continue
                i = ws(text, i + 1, end).end()
                if top == _OPEN_OBJECT:
                    i, error = _key(text, i, end)
                    if error is not None:
                        return error
                break  # the next value
            if c == _CLOSER[top]:
                stack.pop()
                i += 1
                continue
            return (_EXPECTED_ARRAY_SEP if top == _OPEN_ARRAY else _EXPECTED_OBJECT_SEP), i


def _key(text: bytes, i: int, end: int) -> tuple[int, tuple[str, int] | None]:
    """Read `"key" :` at i; return where the value starts (whitespace skipped)."""
    if i >= end:
        return i, (_END, end)
    if text[i] != _QUOTE:
        return i, (_EXPECTED_KEY, i)
    i, error = _string(text, i, end)
    if error is not None:
        return i, error
    i = _skip_ws(text, i, end).end()
    if i >= end:
        return i, (_END, end)
    if text[i] != _COLON:
        return i, (_EXPECTED_COLON, i)
    return _skip_ws(text, i + 1, end).end(), None


def _string(text: bytes, i: int, end: int) -> tuple[int, tuple[str, int] | None]:
    """Read the string whose opening quote is at i; return the offset after it."""
    j = i + 1
    while True:
        k = _string_body(text, j, end).end()
        if k < end and text[k] == _QUOTE:
            return k + 1, None
        if k == j:
            break
        j = k  # the repeat bound was reached, or an error follows: go on from there
    if j >= end:
        return j, (_END, end)
    if text[j] != _BACKSLASH:
        return j, (_CONTROL, j)
    # An escape the body pattern did not take: find out what is wrong with it.
    if j + 1 >= end:
        return j, (_END, end)
    if text[j + 1] != 0x75:  # not "u": a valid one-byte escape would have been taken
        return j, (_INVALID_ESCAPE, j + 1)
    for k in range(j + 2, j + 6):
        if k >= end:
            return j, (_END, end)
        if text[k] not in _HEX_DIGITS:
            return j, (_INVALID_U_ESCAPE, k)
    # Four hex digits, not taken: a surrogate that is not part of a high-low pair.
    return j, (_LONE_SURROGATE, j)


def _number(text: bytes, i: int, end: int) -> tuple[int, tuple[str, int] | None]:
    """Read the number starting at i ("-" or a digit); return the offset after it."""
    match = _NUMBER.match(text, i, end)
    if match is None:  # "-" not followed by a digit
        k = i + 1
    else:
        k = match.end()
        if k >= end:
            return k, None
        c = text[k]
        if c in _DIGITS:  # only after a leading "0"
            return k, (_INVALID_NUMBER, k)
        if c == 0x2E and match.group(1) is None:  # "." without digits after it
            k += 1
        elif c in b"eE" and match.group(2) is None:  # "e" without digits after it
            k += 1
            if k < end and text[k] in b"+-":
                k += 1
        else:
            return k, None  # a complete number; what follows is the caller's business
    if k >= end:
        return k, (_END, end)
    return k, (_INVALID_NUMBER, k)


def container_end(text: str, start: int, end: int) -> int | None:
    """The index just after the JSON container opening at `start` (a `{` or `[`) when it
    closes before `end` (braces inside JSON strings do not count), else None."""
    depth = 0
    in_string = False
    i = start
    while i < end:
        char = text[i]
        if in_string:
            if char == "\\":
                i += 1  # the escaped character is skipped too
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None
