"""Pythonic tool calls (`pythonic`): the pure-Python specification.

Syntax (Llama 3.2 / Llama 4 model cards and chat templates, LFM2's chat template, OLMo 3,
ToolACE; vLLM's `pythonic` and `llama4_pythonic` parsers, SGLang's `pythonic`)::

    [get_weather(city='San Francisco', days=3), get_time(tz="UTC")]
    <|python_start|>[get_weather(city='SF')]<|python_end|>          Llama 4
    <|tool_call_start|>[get_weather(city="SF")]<|tool_call_end|>    LFM2

The calls are read by a grammar of Python literals written here (never `ast` or `eval`,
so the Rust twin reads the same)::

    calls  := "[" (call ("," call)* ","?)? "]"      in a marker block, one bare call too
    call   := NAME "(" (KEY "=" value ("," KEY "=" value)* ","?)? ")"
    value  := STRING | NUMBER | "True" | "False" | "None" | list | dict
    list   := "[" (value ("," value)* ","?)? "]"
    dict   := "{" (STRING ":" value ("," STRING ":" value)* ","?)? "}"
    NAME   := IDENT ("." IDENT)*                  IDENT := [A-Za-z_][A-Za-z0-9_]*
    KEY    := IDENT

* Whitespace (space, tab, CR, LF) may surround every token.
* STRING: `'...'`, `"..."`, `'''...'''`, `\"\"\"...\"\"\"`, with an optional `r`, `R`, `u`
  or `U` prefix. Escapes as Python reads them: `\\\\ \\' \\" \\a \\b \\f \\n \\r \\t \\v`,
  `\\` + newline (nothing), octal `\\ooo` (1-3 digits), `\\xHH`, `\\uHHHH`,
  `\\UHHHHHHHH`; any other `\\c` keeps the backslash (`'C:\\path'` is `C:\\path`). A raw
  string keeps every backslash. A newline in a one-quote string, a surrogate or
  out-of-range code point, `\\N{...}` or a missing closing quote makes the block
  unreadable.
* NUMBER: an optional `-`, then decimal digits (an integer; no leading zero unless it is
  `0`) or a float (`1.5`, `1.`, `.5`, `1e5`, `2.5E-3`). Values are decoded as the
  project's JSON decodes the same number: integers exact at any size, floats as floats.
  Underscores, hex, complex numbers and `inf`/`nan` are not values.
* Positional arguments, repeated keywords (a Python syntax error), nested calls, tuples,
  sets, names, expressions, non-string dict keys, containers nested deeper than
  MAX_DEPTH, or anything after the list make the block unreadable.

Where the calls are:

* Reasoning: `<think>...</think>` blocks (`_text.outside_reasoning`, OLMo 3 Think); markers
  inside them are not calls.
* Marker blocks: the text after `<|python_start|>` or `<|tool_call_start|>` up to
  `<|python_end|>` or `<|tool_call_end|>`, the next start marker or the end of the text
  (`_text.special_token_blocks`). Each block is a list of calls or one bare call; `[]`
  holds none. An unreadable block is kept as one call: the name where the block starts
  with `NAME (` (after an optional `[`), else `""`; `{}`; the block's text (stripped) in
  `raw_arguments`.
* With no marker block, the whole text outside think blocks (stripped) is read as a
  list of calls when it starts with `[`; when it does not read, it is content and there
  are no calls (bare text is never made a call: text with no markers gives none).
* Content: the text outside the blocks and think blocks, stray end markers removed,
  whitespace at both ends stripped; None when empty (or when the bare text was calls).
* No ids.
"""

from __future__ import annotations

from toolsift._pure.calls import tool_call
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import WHITESPACE, joined_content, outside_reasoning, skip_space, special_token_blocks

BEGINS = ("<|python_start|>", "<|tool_call_start|>")
ENDS = ("<|python_end|>", "<|tool_call_end|>")
MAX_DEPTH = 100  # containers nested deeper than this make a block unreadable
IDENT_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
IDENT_CHARS = IDENT_START + "0123456789"
DIGITS = "0123456789"
HEX = "0123456789abcdefABCDEF"
OCTAL = "01234567"
STRING_PREFIXES = "rRuU"
QUOTES = "'\""
STREAM = Spec(ends=ENDS, starts=BEGINS, brackets="[", quotes=QUOTES, seen=BEGINS[0] + ENDS[0])
KEYWORDS = (("True", "true"), ("False", "false"), ("None", "null"))
SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\x07",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\x0b",
    "\n": "",
}


class Unreadable(Exception):
    """The block does not follow the grammar."""


def detect(text: str) -> bool:
    """Whether the text holds a pythonic start marker (a bare list is never guessed)."""
    return any(marker in text for marker in BEGINS)


def parse(text: str, tools: Tools | None) -> Parsed:
    spans, reasoning = outside_reasoning(text, "<think>", "</think>")
    outside: list[str] = []
    calls: list[ToolCall] = []
    blocks_seen = False
    for span in spans:
        pieces, blocks = special_token_blocks(text, span, "<|", BEGINS, ENDS, ())
        outside.extend(pieces)
        blocks_seen = blocks_seen or bool(blocks)
        for block in blocks:
            calls.extend(block_calls(block))
    if not blocks_seen:
        bare = "".join(outside).strip(WHITESPACE)
        if bare.startswith("["):
            try:
                found = read_calls(bare, False)
            except Unreadable:
                pass
            else:
                return Parsed([tool_call(n, None, a) for n, a in found], None, reasoning)
    return Parsed(calls, joined_content(outside), reasoning)


def block_calls(block: str) -> list[ToolCall]:
    """The calls of a marker block, or one unreadable call keeping its text."""
    text = block.strip(WHITESPACE)
    try:
        return [tool_call(name, None, arguments) for name, arguments in read_calls(text, True)]
    except Unreadable:
        return [ToolCall(leading_name(text), {}, None, text)]


def leading_name(text: str) -> str:
    """The NAME the block starts with (after an optional `[`) when `(` follows it."""
    i = skip_space(text, 0)
    if text.startswith("[", i):
        i = skip_space(text, i + 1)
    end = name_end(text, i, True)
    return text[i:end] if end > i and text.startswith("(", skip_space(text, end)) else ""


def read_calls(text: str, bare_call: bool) -> list[tuple[str, str]]:
    """(name, arguments as JSON text) of each call in `text`, the whole of it."""
    calls: list[tuple[str, str]] = []
    i = skip_space(text, 0)
    if text.startswith("[", i):
        i = skip_space(text, i + 1)
        while not text.startswith("]", i):
            name, arguments, i = read_call(text, i)
            calls.append((name, arguments))
            i = skip_space(text, i)
            if text.startswith(",", i):
                i = skip_space(text, i + 1)
            elif not text.startswith("]", i):
                raise Unreadable
        i += 1
    elif bare_call:
        name, arguments, i = read_call(text, i)
        calls.append((name, arguments))
    else:
        raise Unreadable
    if skip_space(text, i) != len(text):
        raise Unreadable
    return calls


def read_call(text: str, i: int) -> tuple[str, str, int]:
    """`NAME(KEY=value, ...)` at `i`: the name, the arguments as JSON text, the end."""
    end = name_end(text, i, True)
    if end == i:
        raise Unreadable
    name = text[i:end]
    i = skip_space(text, end)
    if not text.startswith("(", i):
        raise Unreadable
    i = skip_space(text, i + 1)
    keys: set[str] = set()
    out = ["{"]  # the arguments' JSON text, in pieces (each value written once)
    while not text.startswith(")", i):
        key_end = name_end(text, i, False)
        if key_end == i:
            raise Unreadable
        key = text[i:key_end]
        if key in keys:
            raise Unreadable  # a repeated keyword is a syntax error in Python
        keys.add(key)
        i = skip_space(text, key_end)
        if not text.startswith("=", i):
            raise Unreadable
        if len(out) > 1:
            out.append(",")
        out += (json_string(key), ":")
        i = skip_space(text, read_value(text, skip_space(text, i + 1), 1, out))
        if text.startswith(",", i):
            i = skip_space(text, i + 1)
        elif not text.startswith(")", i):
            raise Unreadable
    out.append("}")
    return name, "".join(out), i + 1


def read_value(text: str, i: int, depth: int, out: list[str]) -> int:
    """The value at `i` written to `out` as JSON text; returns the index just after it."""
    char = text[i] if i < len(text) else ""
    if char in ("[", "{"):
        if depth >= MAX_DEPTH:
            raise Unreadable
        return read_container(text, i, depth + 1, out)
    if string_start(text, i):
        value, i = read_string(text, i)
        out.append(json_string(value))
        return i
    if char == "-" or char in DIGITS or (char == "." and text[i + 1 : i + 2] in tuple(DIGITS)):
        number, i = read_number(text, i)
        out.append(number)
        return i
    for word, json in KEYWORDS:
        if text.startswith(word, i) and name_end(text, i, False) == i + len(word):
            out.append(json)
            return i + len(word)
    raise Unreadable


def read_container(text: str, i: int, depth: int, out: list[str]) -> int:
    """The list or dict at `i` written to `out` as JSON text; returns the index after it."""
    is_dict = text[i] == "{"
    close = "}" if is_dict else "]"
    out.append(text[i])
    first = True
    i = skip_space(text, i + 1)
    while not text.startswith(close, i):
        if not first:
            out.append(",")
        first = False
        if is_dict:
            if not string_start(text, i):
                raise Unreadable  # JSON keys are strings
            key, i = read_string(text, i)
            i = skip_space(text, i)
            if not text.startswith(":", i):
                raise Unreadable
            out += (json_string(key), ":")
            i = read_value(text, skip_space(text, i + 1), depth, out)
        else:
            i = read_value(text, i, depth, out)
        i = skip_space(text, i)
        if text.startswith(",", i):
            i = skip_space(text, i + 1)
        elif not text.startswith(close, i):
            raise Unreadable
    out.append(close)
    return i + 1


def string_start(text: str, i: int) -> bool:
    """Whether a string literal (with an optional prefix) opens at `i`."""
    if text[i : i + 1] in tuple(STRING_PREFIXES):
        i += 1
    return text[i : i + 1] in tuple(QUOTES)


def read_string(text: str, i: int) -> tuple[str, int]:
    """The string literal at `i` (see `string_start`): its value, the index after it."""
    raw = text[i] in ("r", "R")
    if text[i] in STRING_PREFIXES:
        i += 1
    quote = text[i]
    delimiter = quote * 3 if text.startswith(quote * 3, i) else quote
    i += len(delimiter)
    out: list[str] = []
    while True:
        if i >= len(text):
            raise Unreadable
        char = text[i]
        if text.startswith(delimiter, i):
            return "".join(out), i + len(delimiter)
        if char == "\n" and len(delimiter) == 1:
            raise Unreadable
        if char != "\\":
            out.append(char)
            i += 1
        elif i + 1 >= len(text):
            raise Unreadable
        elif raw:
            out.append(text[i : i + 2])  # the backslash is kept, the quote does not close
            i += 2
        else:
            decoded, i = read_escape(text, i + 1)
            out.append(decoded)


def read_escape(text: str, i: int) -> tuple[str, int]:
    """The escape whose letter is at `i` (after the backslash): its text, the end."""
    char = text[i]
    if char in SIMPLE_ESCAPES:
        return SIMPLE_ESCAPES[char], i + 1
    if char in OCTAL:
        end = i + 1
        while end < len(text) and end < i + 3 and text[end] in OCTAL:
            end += 1
        return chr(int(text[i:end], 8)), end
    width = {"x": 2, "u": 4, "U": 8}.get(char)
    if width is None:
        if char == "N":
            raise Unreadable  # \N{NAME} needs the Unicode name table
        return "\\" + char, i + 1  # not an escape: the backslash stays
    digits = text[i + 1 : i + 1 + width]
    if len(digits) != width or any(digit not in HEX for digit in digits):
        raise Unreadable
    code = int(digits, 16)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        raise Unreadable
    return chr(code), i + 1 + width


def read_number(text: str, i: int) -> tuple[str, int]:
    """The number at `i` as JSON number text, and the index just after it."""
    sign = ""
    if text.startswith("-", i):
        sign, i = "-", i + 1
    integer_end = digits_end(text, i)
    integer = text[i:integer_end]
    i = integer_end
    fraction = None
    if text.startswith(".", i):
        fraction_end = digits_end(text, i + 1)
        fraction, i = text[i + 1 : fraction_end], fraction_end
    exponent = ""
    if text[i : i + 1] in ("e", "E"):
        j = i + 1
        if text[j : j + 1] in ("+", "-"):
            j += 1
        exponent_end = digits_end(text, j)
        if exponent_end == j:
            raise Unreadable
        exponent, i = text[i:exponent_end], exponent_end
    if not integer and not fraction:
        raise Unreadable  # "-", ".", "-."
    if i < len(text) and (text[i] in IDENT_CHARS or text[i] == "."):
        raise Unreadable  # 1j, 1_000, 0x1, 1.2.3
    if fraction is None and not exponent:
        if len(integer) > 1 and integer[0] == "0":
            raise Unreadable  # 007 is a syntax error in Python
        return sign + integer, i
    return sign + (integer.lstrip("0") or "0") + "." + (fraction or "0") + exponent, i


def digits_end(text: str, i: int) -> int:
    while i < len(text) and text[i] in DIGITS:
        i += 1
    return i


def name_end(text: str, i: int, dotted: bool) -> int:
    """The end of the IDENT (or, `dotted`, the NAME) at `i`; `i` when there is none."""
    while i < len(text) and text[i] in IDENT_START:
        i += 1
        while i < len(text) and text[i] in IDENT_CHARS:
            i += 1
        if not (dotted and text.startswith(".", i) and text[i + 1 : i + 2] in tuple(IDENT_START)):
            return i
        i += 1
    return i


def json_string(value: str) -> str:
    """`value` as a JSON string (`"`, `\\` and control characters escaped)."""
    out = ['"']
    for char in value:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char < " ":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)
