"""Why argument text did not decode as a JSON object (its defect), and the audited
repairs of `repair="safe"`: the specification, twin of `src/defects.rs` (both read
tests/vectors/defects.json).

Used only where the normal decoding failed (a call with `raw_arguments`, other than a
custom tool's input, which is free text by design): the clean path never comes here.

Defects (`ToolCall.defect`, the `defect` column): one code per call.

``empty``
    the text is empty or only whitespace.
``truncated``
    the text ends inside a value (an open string, object, array or comment).
``truncated_by_limit``
    truncated, and the response's finish reason says it hit the token limit
    (`length`, `max_tokens`, `MAX_TOKENS`: `by_limit`).
``not_an_object``
    valid JSON that is not an object (an array, a number, a string not holding one).
``too_long_int``
    a JSON object holding an integer longer than Python converts.
``double_encoded``, ``code_fence``, ``surrounding_text``, ``comments``,
``trailing_comma``, ``single_quotes``, ``python_literals``, ``control_chars``
    the text is an object once these repairs are made (the first in `REPAIRS` order).
``not_json``
    anything else.

Repairs (`ToolCall.repairs`, the `repairs` column, in `REPAIRS` order), each of which
cannot change what the text means:

``double_encoded``
    the whole text is a JSON string whose content is an object (or repairs to one).
``code_fence``
    the text is a Markdown fence (```` ``` ```` and an optional language tag on the
    first line, ```` ``` ```` at the end, no other fence inside).
``surrounding_text``
    prose before and after exactly one object: text with no bracket (``{}[]``) in it.
``comments``
    ``// ...`` to the end of the line and ``/* ... */`` outside strings, each read as
    one space.
``trailing_comma``
    one comma after a value and before ``}`` or ``]``.
``single_quotes``
    a string in ``'...'`` (``\\'`` inside it is ``'``); one holding a ``"`` is
    ambiguous and left alone.
``python_literals``
    the words ``True``, ``False``, ``None`` outside strings.
``control_chars``
    raw characters U+0000..U+001F inside strings, escaped.

Text is read from left to right, strings before anything else (a ``//`` inside a
string is string content), and the result must then decode as an object by the
normal path (`loads`), the arbiter: anything the rules do not read (a missing colon,
``NaN``, two objects) leaves the text as it is. Truncated text is never completed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from toolsift._errors import ParseError
from toolsift._jsontext import loads, too_long_ints_made
from toolsift._types import ToolCall

__all__ = [
    "DEFECTS",
    "LIMIT_REASONS",
    "REPAIRS",
    "Salvage",
    "by_limit",
    "repair_calls",
    "salvage",
    "with_defect",
]

REPAIRS = (
    "double_encoded",
    "code_fence",
    "surrounding_text",
    "comments",
    "trailing_comma",
    "single_quotes",
    "python_literals",
    "control_chars",
)
"""The repair codes, in the order a call lists them."""

DEFECTS = (
    "empty",
    "truncated",
    "truncated_by_limit",
    "not_json",
    "not_an_object",
    "too_long_int",
    *REPAIRS,
)
"""Every defect code."""

LIMIT_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS"})
"""Finish reasons that say a response hit its token limit (OpenAI and most others,
Anthropic and Bedrock, Gemini)."""

_WHITESPACE = " \t\n\r"
_DIGITS = frozenset("0123456789")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_NUMBER = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+-")
_PYTHON = {"True": "true", "False": "false", "None": "null"}
_LITERALS = frozenset(_PYTHON.values())
_VALUE_ENDS = frozenset('"wn}]')  # `last` after a string, word, number, object or list
_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_FENCE = "```"
_FENCE_TAG = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-")
_BRACKETS = frozenset("{}[]")
_MAX_UNWRAP = 4  # JSON strings inside JSON strings: unwrapped at most this deep


class Salvage(NamedTuple):
    """What a text that did not decode as an object is: its `defect`; where the
    repairs make it one, `arguments` (the object, decoded by the normal path from
    `text`, the repaired text) and `repairs` (their codes)."""

    defect: str
    arguments: dict[str, Any] | None = None
    repairs: tuple[str, ...] = ()
    text: str | None = None


def by_limit(defect: str | None, finish_reason: object) -> str | None:
    """`truncated_by_limit` for text `truncated` in a response whose finish reason says
    it hit the token limit; any other defect as it is."""
    if defect == "truncated" and finish_reason in LIMIT_REASONS:
        return "truncated_by_limit"
    return defect


def salvage(text: str, unwrap: int = _MAX_UNWRAP) -> Salvage:
    """The defect of argument text that did not decode as an object, and its repair."""
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate: no JSON text (nor Rust string) holds it
        return Salvage("not_json")
    body = text.strip(_WHITESPACE)
    if not body:
        return Salvage("empty")
    try:
        value = loads(body)
    except ParseError:
        return _lenient(body)
    if isinstance(value, dict):
        return Salvage("too_long_int")  # valid, yet not decoded: see `_object`
    if isinstance(value, str) and unwrap > 0:
        inner = _object(value)
        if inner is not None:
            return Salvage("double_encoded", inner, ("double_encoded",), value)
        repaired = salvage(value, unwrap - 1)
        if repaired.arguments is not None:
            repairs = _ordered({"double_encoded", *repaired.repairs})
            return Salvage("double_encoded", repaired.arguments, repairs, repaired.text)
    return Salvage("not_an_object")


def _object(text: str) -> dict[str, Any] | None:
    """The object `text` is the JSON text of, as arguments are decoded (no integer
    longer than Python converts), else None."""
    made = too_long_ints_made()
    try:
        value = loads(text)
    except ParseError:
        return None
    return value if isinstance(value, dict) and too_long_ints_made() == made else None


def _ordered(codes: set[str]) -> tuple[str, ...]:
    return tuple(code for code in REPAIRS if code in codes)


class _Cut(Exception):
    """The text ends inside a value."""


class _Unread(Exception):
    """Something the rules do not read (or read two ways)."""


def _lenient(body: str) -> Salvage:
    """`body` (stripped, not JSON): read by the rules of the module docstring."""
    codes: set[str] = set()
    fenced = _unfenced(body)
    if fenced is not None:
        codes.add("code_fence")
        body = fenced
    starts = [at for at in (body.find("{"), body.find("[")) if at >= 0]
    if body.startswith('"'):
        starts = [0]  # a JSON string: only its end matters (cut, or not JSON)
    if not starts:
        return Salvage("not_json")
    start = min(starts)
    reader = _Reader(body, start, codes)
    try:
        end = reader.value()
    except _Cut:
        return Salvage("truncated")
    except _Unread:
        return Salvage("not_json")
    if body[start] != "{":
        return Salvage("not_json")
    if end < len(body) and reader.blank_end(end) == len(body):
        if body[end:].strip(_WHITESPACE):
            codes.add("comments")  # comments after the object
        end = len(body)
    around = body[:start] + body[end:]
    if around.strip(_WHITESPACE):
        if _BRACKETS.intersection(around):
            return Salvage("not_json")
        codes.add("surrounding_text")
    repaired = "".join(reader.out)
    arguments = _object(repaired) if codes else None
    if arguments is None:
        return Salvage("not_json")
    repairs = _ordered(codes)
    return Salvage(repairs[0], arguments, repairs, repaired)


def _unfenced(body: str) -> str | None:
    """The text inside a Markdown code fence that is all of `body`, stripped; None
    where `body` is not one."""
    line_end = body.find("\n")
    if not body.startswith(_FENCE) or line_end < 0 or not body.endswith(_FENCE):
        return None
    if not set(body[len(_FENCE) : line_end].strip(" \t\r")) <= _FENCE_TAG:
        return None
    inner = body[line_end + 1 : len(body) - len(_FENCE)]
    if line_end + 1 > len(body) - len(_FENCE) or _FENCE in inner:
        return None
    return inner.strip(_WHITESPACE)


class _Reader:
    """Reads one value from `start` by the lenient rules, writing strict JSON text to
    `out` and the repairs made to `codes`; raises `_Cut` at the end of the text inside
    the value, `_Unread` where the rules do not read it."""

    def __init__(self, text: str, start: int, codes: set[str]) -> None:
        self.text = text
        self.at = start
        self.codes = codes
        self.out: list[str] = []

    def value(self) -> int:
        """Reads the value (a string, or brackets to the one that closes the first);
        the index just past it."""
        text, out = self.text, self.out
        depth = 0
        last = ""  # the last token written: a trailing comma follows a value
        while True:
            if self.at >= len(text):
                raise _Cut
            c = text[self.at]
            if c in _WHITESPACE:
                out.append(c)
                self.at += 1
                continue
            if last in _VALUE_ENDS and (c in "\"'{[-" or c in _WORD):
                raise _Unread  # a value right after a value: a separator is missing
            if c == '"' or c == "'":
                self.string(c)
                last = '"'
            elif c == "/":
                self.comment()
                out.append(" ")
                continue
            elif c in "{[":
                depth += 1
                out.append(c)
                self.at += 1
                last = c
            elif c in "}]":
                depth -= 1
                out.append(c)
                self.at += 1
                last = c
            elif c == ",":
                self.at += 1
                if last not in ("", "{", "[", ",", ":") and self.closes_next():
                    self.codes.add("trailing_comma")
                    continue
                out.append(c)
                last = c
            elif c == ":":
                out.append(c)
                self.at += 1
                last = c
            elif c in _WORD and c not in _DIGITS:
                word = self.run(_WORD)
                if word in _PYTHON:
                    self.codes.add("python_literals")
                    word = _PYTHON[word]
                elif word not in _LITERALS:
                    raise _Unread
                out.append(word)
                last = "w"
            elif c in _DIGITS or c == "-":
                out.append(self.run(_NUMBER))
                last = "n"
            else:
                raise _Unread
            if depth <= 0:
                return self.at

    def run(self, chars: frozenset[str]) -> str:
        start, text = self.at, self.text
        while self.at < len(text) and text[self.at] in chars:
            self.at += 1
        return text[start : self.at]

    def string(self, quote: str) -> None:
        """A string in `quote`s, written in double quotes."""
        text, out = self.text, self.out
        if quote == "'":
            self.codes.add("single_quotes")
        out.append('"')
        self.at += 1
        while True:
            if self.at >= len(text):
                raise _Cut
            c = text[self.at]
            if c == quote:
                out.append('"')
                self.at += 1
                return
            if c == "\\":
                if self.at + 1 >= len(text):
                    raise _Cut
                escaped = text[self.at + 1]
                out.append("'" if quote == "'" and escaped == "'" else c + escaped)
                self.at += 2
                continue
            if c == '"':  # inside '...': the end of a string read the other way?
                raise _Unread
            if c < " ":
                self.codes.add("control_chars")
                out.append(_ESCAPES.get(c) or f"\\u{ord(c):04x}")
            else:
                out.append(c)
            self.at += 1

    def comment(self) -> None:
        """A `//` or `/* */` comment, skipped."""
        text, at = self.text, self.at
        if text.startswith("//", at):
            while at < len(text) and text[at] not in "\n\r":
                at += 1
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0:
                raise _Cut
            at = close + 2
        else:
            raise _Unread
        self.codes.add("comments")
        self.at = at

    def closes_next(self) -> bool:
        """Whether `}` or `]` comes next, after whitespace and comments."""
        at = self.blank_end(self.at)
        return at < len(self.text) and self.text[at] in "}]"

    def blank_end(self, at: int) -> int:
        """Where the whitespace and comments from `at` end (read without moving on, or
        recording them); at a block comment never closed, that comment's start."""
        text = self.text
        while at < len(text):
            if text[at] in _WHITESPACE:
                at += 1
            elif text.startswith("//", at):
                while at < len(text) and text[at] not in "\n\r":
                    at += 1
            elif text.startswith("/*", at) and text.find("*/", at + 2) >= 0:
                at = text.find("*/", at + 2) + 2
            else:
                break
        return at


def with_defect(call: ToolCall) -> ToolCall:
    """`call`, its defect set where its `raw_arguments` did not decode (every call made
    with them, except a custom tool's input, goes through here)."""
    if call.raw_arguments is not None:
        call._defect = salvage(call.raw_arguments).defect
    return call


def repair_calls(calls: list[ToolCall]) -> None:
    """`repair="safe"`: each call with a defect its repairs make an object gets that
    object as `arguments` and their codes as `repairs` (`raw_arguments` kept)."""
    for call in calls:
        if call.defect is not None and call.repairs is None and call.raw_arguments is not None:
            found = salvage(call.raw_arguments)
            if found.arguments is not None:
                call.arguments = found.arguments
                call._repairs = list(found.repairs)
