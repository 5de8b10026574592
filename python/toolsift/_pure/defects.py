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

import re
from collections.abc import Callable
from itertools import accumulate, compress, count, islice
from operator import not_
from typing import Any, NamedTuple, cast

from toolsift._jsontext import loads_if_json, too_long_ints_made
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
_PYTHON = {"True": "true", "False": "false", "None": "null"}
_LITERALS = frozenset(_PYTHON.values())
_VALUE_ENDS = frozenset('"wn}]')  # `last` after a string, word, number, object or list
_FENCE = "```"
_FENCE_TAG = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_+-")
_BRACKETS = frozenset("{}[]")
_Matcher = Callable[[str, int], "re.Match[str]"]


def _matcher(pattern: str, flags: int = 0) -> _Matcher:
    """The `match` of `pattern`, which matches wherever the reader uses it (a run whose
    first character it saw, or a pattern that matches nothing)."""
    return cast(_Matcher, re.compile(pattern, flags).match)


# The reader takes each run below in one step (a regex match, in C), never a character
# at a time. The patterns are possessive (nothing backtracks), and each character is
# read a bounded number of times: once, but the blanks after a comma (`closes_next`
# looks past them too) and a string that `_PLAIN` stops in at a raw control character
# (`_Reader.string` reads it again).
_SPACES = _matcher(r"[ \t\n\r]++")
# Brackets with the whitespace between them (a group repeated per bracket is slow in re:
# a plain run of brackets is one class repeated).
_OPENERS = _matcher(r"[{\[]++(?:[ \t\n\r]++[{\[]++)*+")
_CLOSERS = _matcher(r"[}\]]++(?:[ \t\n\r]++[}\]]++)*+")
_CLOSER = re.compile(r"[}\]]")
_WORD_RUN = _matcher(r"[A-Za-z0-9_]++")
_NUMBER_RUN = _matcher(r"[0-9A-Za-z.+\-]++")
# A string's body up to its end, a raw control character or the end of the text, in runs
# of plain characters between escapes (written as they are); in '...', up to `\'` too.
_STRING_BODY = {
    '"': _matcher(r'[^"\\\x00-\x1f]*+(?:\\[\s\S][^"\\\x00-\x1f]*+)*+'),
    "'": _matcher(r"""[^'"\\\x00-\x1f]*+(?:\\[^'][^'"\\\x00-\x1f]*+)*+"""),
}
_ESCAPED_APOSTROPHES = _matcher(r"(?:\\')++")
_CONTROLS = _matcher(r"[\x00-\x1f]++")
_CONTROL_ESCAPES = {
    code: {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(chr(code))
    or f"\\u{code:04x}"
    for code in range(0x20)
}
_LINE_COMMENT = _matcher(r"//[^\n\r]*+")
# Whitespace and comments (a block comment only where it closes).
_BLANK = _matcher(r"(?:[ \t\n\r]++|//[^\n\r]*+|/\*(?:[^*]++|\*(?!/))*+\*/)*+")
# A double-quoted string without a raw control character; or one cut off by the end of
# the text (then the stretch ends there, and the reader finds the string cut).
_STRING = r'"[^"\\\x00-\x1f]*+(?:\\[\s\S][^"\\\x00-\x1f]*+)*+(?:"|\\?\Z)'
# A stretch of plain tokens after a token: strict JSON the rules write as it is, taken
# at once. Each step is whitespace and a token; which step may come next is told by the
# character before it (the last token's last): a bracket or a value after `,` `:` `{`
# `[`; a closer or `:` anywhere; `,` after `,` `:` `{` `[`, or after a value (a string,
# number, literal, closer) where a token other than a closer (or a comment, which may hide
# one) follows it. A trailing comma, a value after a value, anything lenient (single
# quotes, Python words, comments, raw control characters) ends the stretch, and the
# reader goes on.
_PLAIN = _matcher(
    r"""(?:
        (?<=[,:{\[])[ \t\n\r]*+(?:
            [{\[]
            |[0-9\-][0-9A-Za-z.+\-]*+
            |(?:true|false|null)(?![A-Za-z0-9_])
            |"""
    + _STRING
    + r"""
        )
        |[ \t\n\r]*+[}\]:]
        |(?<=[,:{\[])[ \t\n\r]*+,
        |(?<![,:{\[])[ \t\n\r]*+,(?=[ \t\n\r]*+[^ \t\n\r}\]/])
    )*+""",
    re.VERBOSE,
)
_STRINGS = re.compile(_STRING)
_NOT_BRACKETS = re.compile(r"[^{}\[\]]++")
_DEPTH_CHANGE = {"{": 1, "[": 1, "}": -1, "]": -1}
_TO_BRACKET = re.compile(r"(?:[^\"{}\[\]]++|" + _STRING + r")*+[{}\[\]]")  # outside strings
_AFTER = {"{": "{", "[": "[", ",": ",", ":": ":"}  # `last` after a stretch (else a value)
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
    decoded, value = loads_if_json(body)
    if not decoded:
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
    decoded, value = loads_if_json(text)
    return value if decoded and isinstance(value, dict) and too_long_ints_made() == made else None


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
    the value, `_Unread` where the rules do not read it. Each step reads a run of one
    kind (see `_SPACES` and the patterns after it)."""

    def __init__(self, text: str, start: int, codes: set[str]) -> None:
        self.text = text
        self.start = start
        self.codes = codes
        self.out: list[str] = []

    def value(self) -> int:
        """Reads the value (a string, or brackets to the one that closes the first);
        the index just past it."""
        text, out, codes = self.text, self.out, self.codes
        size = len(text)
        at = self.start
        depth = 0
        last = ""  # the last token written: a trailing comma follows a value
        while True:
            if at >= size:
                raise _Cut
            c = text[at]
            if c in _WHITESPACE:
                run = _SPACES(text, at)
                out.append(run.group())
                at = run.end()
                continue
            if last in _VALUE_ENDS and (c in "\"'{[-" or c in _WORD):
                raise _Unread  # a value right after a value: a separator is missing
            if c == '"' or c == "'":
                at = self.string(at, c)
                if depth <= 0:
                    return at  # the value is a string
                last = '"'
            elif c == "/":
                at = self.comment(at)
                out.append(" ")
                continue
            elif c in "{[":
                run = _OPENERS(text, at)
                brackets = run.group()
                depth += brackets.count("{") + brackets.count("[")
                out.append(brackets)
                at = run.end()
                last = c  # `{` or `[`: the same to every rule
            elif c in "}]":
                run = _CLOSERS(text, at)
                brackets = run.group()
                closers = brackets.count("}") + brackets.count("]")
                if closers >= depth:  # the one that closes the first value ends it
                    length = next(islice(_CLOSER.finditer(brackets), depth - 1, None)).end()
                    out.append(brackets[:length])
                    return at + length
                depth -= closers
                out.append(brackets)
                at = run.end()
                last = c  # `}` or `]`: the same to every rule
            elif c == ",":
                at += 1
                if last not in ("", "{", "[", ",", ":") and self.closes_next(at):
                    codes.add("trailing_comma")
                    continue
                out.append(c)
                last = c
            elif c == ":":
                out.append(c)
                at += 1
                last = c
            elif c in _WORD and c not in _DIGITS:
                run = _WORD_RUN(text, at)
                word = run.group()
                if word in _PYTHON:
                    codes.add("python_literals")
                    word = _PYTHON[word]
                elif word not in _LITERALS:
                    raise _Unread
                out.append(word)
                at = run.end()
                last = "w"
            elif c in _DIGITS or c == "-":
                run = _NUMBER_RUN(text, at)
                out.append(run.group())
                at = run.end()
                last = "n"
            else:
                raise _Unread
            at, depth, after = self.stretch(at, depth, last)
            if after is None:
                return at
            last = after

    def stretch(self, at: int, depth: int, last: str) -> tuple[int, int, str | None]:
        """After a token, at `depth`: the plain stretch that follows it, written at once.
        (The index after it, the depth there, the last token); the last token None where
        the first value closes in it, at the index just past the value."""
        text = self.text
        run = _PLAIN(text, at)
        if run.end() == at:
            return at, depth, last
        stretch = run.group()
        brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", stretch) if '"' in stretch else stretch)
        closers = len(brackets) - brackets.count("{") - brackets.count("[")
        if closers >= depth:  # the first value may close in the stretch
            depths = accumulate(map(_DEPTH_CHANGE.__getitem__, brackets), initial=depth)
            # (the index of the bracket after which the depth is 0, if one is)
            closing = next(compress(count(-1), map(not_, depths)), None)
            if closing is not None:  # the value ends there
                length = next(islice(_TO_BRACKET.finditer(stretch), closing, None)).end()
                self.out.append(stretch[:length])
                return at + length, 0, None
        self.out.append(stretch)
        at = run.end()
        return at, depth + len(brackets) - 2 * closers, _AFTER.get(text[at - 1], "n")

    def string(self, at: int, quote: str) -> int:
        """A string in `quote`s from `at`, written in double quotes; the index just
        past it."""
        text, out = self.text, self.out
        if quote == "'":
            self.codes.add("single_quotes")
        out.append('"')
        body = _STRING_BODY[quote]
        size = len(text)
        at += 1
        while True:
            run = body(text, at)
            out.append(run.group())
            at = run.end()
            if at >= size:
                raise _Cut
            c = text[at]
            if c == quote:
                out.append('"')
                return at + 1
            if c == "\\":
                if at + 1 >= size:
                    raise _Cut  # a backslash at the end
                run = _ESCAPED_APOSTROPHES(text, at)  # `\'` in '...'
                out.append("'" * ((run.end() - at) // 2))
                at = run.end()
            elif c == '"':  # inside '...': the end of a string read the other way?
                raise _Unread
            else:
                run = _CONTROLS(text, at)
                self.codes.add("control_chars")
                out.append(run.group().translate(_CONTROL_ESCAPES))
                at = run.end()

    def comment(self, at: int) -> int:
        """A `//` or `/* */` comment from `at`, skipped; the index just past it."""
        text = self.text
        if text.startswith("//", at):
            at = _LINE_COMMENT(text, at).end()
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            if close < 0:
                raise _Cut
            at = close + 2
        else:
            raise _Unread
        self.codes.add("comments")
        return at

    def closes_next(self, at: int) -> bool:
        """Whether `}` or `]` comes next from `at`, after whitespace and comments."""
        at = self.blank_end(at)
        return at < len(self.text) and self.text[at] in "}]"

    def blank_end(self, at: int) -> int:
        """Where the whitespace and comments from `at` end (read without moving on, or
        recording them); at a block comment never closed, that comment's start."""
        return _BLANK(self.text, at).end()


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
