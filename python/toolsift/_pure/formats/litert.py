"""LiteRT-LM / Gemma 4 tool calls (SdkResponseParser): the pure-Python specification.

The Rust port in `src/formats/` follows these functions line by line; both give the same
results for every input, and `tests/vectors/litert.json` holds them to one truth.

Where calls are found (`extract_tool_calls`, `parse_sdk`)
==========================================================

The text is first cut into *segments*:

* the whole text, decoded, when it is one JSON document;
* otherwise, when the text is two or more JSON containers glued back to back (`{...}{...}`,
  `[...]`, with or without whitespace between), one segment per container: the container
  decoded, or its text as written when it does not decode (an unterminated last container
  runs to the end of the text). Containers are cut at top-level brace/bracket boundaries,
  ignoring braces inside JSON strings. Anything else between containers (prose, a stray
  `}`) means the text is not glued JSON;
* otherwise the whole text as written.

Structured calls come from every decoded segment (a dict, or the dict items of a list):

1. top-level `tool_calls`: each item OpenAI-style `{"function": {name, arguments}}` (any
   item whose `function` is an object; `type` is not checked) or flat `{name, arguments}`;
2. `content` as a list: items with `"type": "tool_call"` hold an item in `tool_call`.

Within a segment `tool_calls` come before `content`. An item whose name is missing, not a
string or empty is skipped. The item's `id` is kept when it is a string (the OpenAI-style
item's own `id`, not the one inside `function`). Arguments:

* an object: the arguments (a copy, escape tokens stripped);
* a string: decoded as JSON; an object is the arguments (escape tokens stripped),
  anything else (invalid JSON, `""`, a non-object) gives `{}` and the string, as found,
  in `raw_arguments`;
* null or missing: `{}`, `raw_arguments` None;
* anything else (number, list, bool): `{}` and `dumps_compact(value)` in `raw_arguments`
  (which writes `repr(value)` for a caller object that is not a JSON value).

Only when no segment gives a structured call are raw Gemma 4 tokens looked for, in each
segment in order: in the string *values* (not keys) of a decoded segment, each scanned on
its own, depth first in document order; in the text of a segment that is not JSON. So a
token inside a JSON string is read in its decoded form (`<|\\"|>` is `<|"|>` there) and
no text is ever scanned twice. JSON-escaped tokens in text that is not JSON are not
understood (the block is malformed).

`parse_sdk` reads a dict or a list as one decoded segment (so
`parse_sdk(v) == extract_tool_calls(dumps_compact(v))` for JSON values), text as
`extract_tool_calls`, anything else as `[]`. Input text that is not valid Unicode (bytes
that are not UTF-8, a `str` with lone surrogates) gives `[]`. Neither function raises.

The Gemma 4 call syntax (raw tokens)
====================================

A block opens with `<|tool_call>` (Gemma 4) or `<start_function_call>` (FunctionGemma) and
closes with `<tool_call|>` or `<end_function_call>` respectively::

    call   := "call:" NAME object?            no object: arguments {}
    object := "{" (KEY ":" value ("," KEY ":" value)*)? "}"
    array  := "[" (value ("," value)*)? "]"
    value  := STRING | NUMBER | "true" | "false" | "null" | object | array
    STRING := DELIM text DELIM                DELIM is <|"|> or <escape>; the text is
                                              literal (braces, colons, quotes, newlines);
                                              it closes at the same DELIM it opened with
    NUMBER := JSON number syntax              decoded as JSON decodes it: integers exact
                                              at any size, floats as floats
    NAME, KEY := [A-Za-z_][A-Za-z0-9_.-]*     ASCII, bare (never quoted)

* Whitespace (space, tab, CR, LF) is allowed after the opening token, after `call:`,
  after NAME, around every `{ } [ ] : ,`, and before the closing token; not inside
  `call:`, NAME, KEY, NUMBER or a literal.
* A bare word as a value (`{unit:celsius}`), a trailing comma, a quoted key, an
  unterminated string or container, or a container nested deeper than `MAX_DEPTH`
  (1024; the call's own object is depth 1) makes the block malformed.
* After the call (and optional whitespace) must come the closing token, the end of the
  text (the closing token was cut off by the stop token), or the next opening token
  (the closing token is missing between two calls). Anything else is malformed.
* Duplicate keys: the last value wins, at the first key's position (as JSON does).
* Every block is returned, in order. A malformed block is kept: a ToolCall with the
  name, `arguments={}`, and in `raw_arguments` the block's text after the name (exactly
  as written) up to the first closing token or opening token found after the block's own
  opening token (searched as plain text, so possibly inside a string), or the end of the
  text. A malformed block without a readable `call:NAME` is skipped. Scanning resumes
  after that closing token (or at that opening token).

Escape tokens
=============

`<|"|>` is removed from every string value of every call's arguments, at any depth, in
dicts and lists (never from keys, names or `raw_arguments`); `<escape>` is not removed
(it only delimits strings in the call syntax). Arguments nested deeper than MAX_DEPTH
(only possible for caller-built dicts) give `{}` and no `raw_arguments`.

The helpers
===========

* `clean_raw_for_history(text)`: text that is one valid JSON document comes back compact
  (no whitespace), keys and values in their order (duplicate keys kept as written),
  numbers and literals exactly as written, every string value without `<|"|>`, strings
  re-encoded with only the escapes JSON requires (`dumps_compact`; a string written
  without backslashes is copied as is). A string value is one string: JSON text inside
  it (a JSON-string `arguments`) is not decoded, so `<|\\"|>` there stays. Any other
  text, glued documents included, is returned unchanged (glued documents are not one
  JSON document); bytes that are not UTF-8 come back decoded with U+FFFD replacements.
* `serialize_tools_for_sdk(tools)`: `[{"type":"function","function":{"name",
  "description","parameters"}}, ...]` as compact JSON. A tool is a mapping (an OpenAI
  tool `{"type":"function","function":{...}}` is unwrapped) or an object with those
  attributes. Missing or None description: `""`; missing or None parameters:
  `{"type":"object","properties":{}}`. A tool without a non-empty string name raises
  TypeError.
* `build_tool_responses_json(responses)`: one `{"role":"tool","content":[...]}` message,
  each response in it as it is (as flutter_gemma's `buildToolResponsesJson` does): a str
  stays a JSON string, a dict an object. Gemma 4's template formats an object as
  `NAME{key:value,...}`; to send a tool's result text as an object, pass it through
  `tool_response_payload` first. A malformed item raises TypeError.
* Both write JSON as `json.dumps` does and raise as it does for what is not JSON: TypeError
  for a value it cannot encode (a set, bytes), ValueError for a cycle, NaN or an infinity.
* `tool_response_payload(text)`: the text decoded when it is a JSON object, otherwise
  `{"value": text}`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Literal

import orjson

from toolsift._jsontext import (
    container_end,
    dumps_compact,
    dumps_strict,
    holds_too_long_int,
    loads,
    loads_by_orjson,
    too_long_ints_made,
)
from toolsift._pure.defects import with_defect
from toolsift._types import ToolCall
from toolsift._values import TooLongInt
from toolsift.formats import described

NAME = "litert"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`
READS_TEXT = True
"""Responses are read as text (`parse_sdk`), not walked as one JSON document."""

__all__ = [
    "ESCAPE_TOKEN",
    "MAX_DEPTH",
    "build_tool_responses_json",
    "clean_raw_for_history",
    "extract_tool_calls",
    "parse_sdk",
    "serialize_tools_for_sdk",
    "strip_escape_tokens",
    "tool_response_payload",
]

ESCAPE_TOKEN = '<|"|>'  # Gemma 4 string delimiter; stripped from argument strings
MAX_DEPTH = 1024  # containers nested deeper than this make a block malformed

# (opening token, closing token) of a raw call block.
BLOCKS = (
    ("<|tool_call>", "<tool_call|>"),  # Gemma 4
    ("<start_function_call>", "<end_function_call>"),  # FunctionGemma
)
STRING_DELIMITERS = (ESCAPE_TOKEN, "<escape>")
CALL_PREFIX = "call:"
WHITESPACE = " \t\n\r"
NAME_START = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
NAME_CHARS = NAME_START + "0123456789.-"
DIGITS = "0123456789"
LITERALS = (("true", True), ("false", False), ("null", None))
TEXT_TYPES = (str, bytes, bytearray, memoryview)
EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


# --------------------------------------------------------------------------- public API


def extract_tool_calls(text: str | bytes | bytearray | memoryview) -> list[ToolCall]:
    """Every tool call in a LiteRT-LM response text (see the module docstring)."""
    if type(text) is bytes:  # one JSON document read as it is, not made a str first
        try:
            document, by_orjson = loads_by_orjson(text)
        except ValueError:
            pass  # not one JSON document, or not UTF-8: read as text below
        else:
            # (`find`, not `in`: see `may_hold_big_integer`.)
            exact = by_orjson and text.find(b"<|") == -1 and text.find(b"\\u") == -1
            return _calls_from_segments([(True, document)], "exact" if exact else _read_as(text))
    decoded = _as_text(text)
    if decoded is None:
        return []
    return _calls_from_segments(_segments(decoded), _read_as(decoded))


def parse_sdk(raw: Any) -> list[ToolCall]:
    """What `SdkResponseParser.parse(raw)` finds: text as `extract_tool_calls`, a dict or a
    list (of message dicts) read directly, anything else `[]`."""
    if isinstance(raw, TEXT_TYPES):
        return extract_tool_calls(raw)
    if isinstance(raw, (dict, list)):
        return _calls_from_segments([(True, raw)], "callers")
    return []


def strip_escape_tokens(value: Any) -> Any:
    """A copy of `value` with `<|"|>` removed from every string value, at any depth, in
    dicts and lists; keys and other values are kept. Raises ValueError for containers
    nested deeper than MAX_DEPTH (the top container is depth 1)."""
    if isinstance(value, str):
        return value.replace(ESCAPE_TOKEN, "")
    if not isinstance(value, (dict, list)):
        return value
    # An explicit stack instead of recursion, so depth 1024 never hits Python's limit.
    # A container's (empty) copy is put in its parent's copy when met, so keys keep their
    # order, and filled when its turn on the stack comes: a list's with its items as
    # iterated, then each replaced where it changes.
    root = _empty_like(value)
    stack: list[tuple[Any, Any, int]] = [(value, root, 1)]  # (source, copy, depth)
    while stack:
        source, copy, depth = stack.pop()
        if isinstance(source, dict):
            pairs: Iterable[tuple[Any, Any]] = source.items()
        else:
            copy.extend(source)
            pairs = enumerate(copy)
        for key, item in pairs:
            if isinstance(item, str):
                item = item.replace(ESCAPE_TOKEN, "")
            elif isinstance(item, (dict, list)):
                if depth >= MAX_DEPTH:
                    raise ValueError(f"arguments nest deeper than {MAX_DEPTH} levels")
                child = _empty_like(item)
                stack.append((item, child, depth + 1))
                item = child
            copy[key] = item
    return root


def _strip_in_place(value: dict[str, Any]) -> dict[str, Any]:
    """`strip_escape_tokens` of a value decoded here (its containers are ours: plain
    dicts and lists, at most MAX_DEPTH deep), done in place: only the strings that hold
    the token are replaced, nothing is copied."""
    stack: list[Any] = [value]
    while stack:
        container = stack.pop()
        pairs = container.items() if type(container) is dict else enumerate(container)
        for key, item in pairs:
            kind = type(item)
            if kind is str:
                if ESCAPE_TOKEN in item:
                    container[key] = item.replace(ESCAPE_TOKEN, "")  # no key is added
            elif kind is dict or kind is list:
                stack.append(item)
    return value


def _empty_like(container: dict[str, Any] | list[Any]) -> dict[str, Any] | list[Any]:
    return {} if isinstance(container, dict) else []


def clean_raw_for_history(text: str | bytes | bytearray | memoryview) -> str:
    """The response text to keep in the chat history: one JSON document re-written compact
    with `<|"|>` stripped from string values; any other text unchanged."""
    decoded = _as_text(text)
    if decoded is None:  # not UTF-8 (returned decoded, with U+FFFD), or not text at all
        if isinstance(text, (bytes, bytearray, memoryview)):
            return bytes(text).decode("utf-8", "replace")
        return text
    try:
        loads(decoded)  # validation only: the rewrite below works on the text
    except ValueError:
        return decoded
    return _compact_json(decoded)


def serialize_tools_for_sdk(tools: Iterable[Any]) -> str:
    """Tool definitions as the JSON list LiteRT-LM takes:
    `[{"type":"function","function":{"name","description","parameters"}}, ...]`."""
    entries = []
    for index, tool in enumerate(tools):
        if isinstance(tool, Mapping):
            function = tool.get("function")
            spec = function if isinstance(function, Mapping) else tool
            name = spec.get("name")
            description = spec.get("description")
            parameters = spec.get("parameters")
        else:
            name = getattr(tool, "name", None)
            description = getattr(tool, "description", None)
            parameters = getattr(tool, "parameters", None)
        if not isinstance(name, str) or not name:
            raise TypeError(f"tool {index} has no name (a non-empty str)")
        entries.append(
            {
                "type": "function",
                "function": {
                    "name": name,
                    "description": "" if description is None else description,
                    "parameters": EMPTY_PARAMETERS if parameters is None else parameters,
                },
            }
        )
    return dumps_strict(entries)


def build_tool_responses_json(responses: Iterable[Any]) -> str:
    """ONE role-tool message carrying every tool result of a turn:
    `{"role":"tool","content":[{"type":"tool_response","name":N,"response":R}, ...]}`.
    `responses` holds `(name, response)` pairs or mappings with `name` and `response`;
    R is the response as it is (use `tool_response_payload` for result text that should
    be an object)."""
    content = []
    for index, item in enumerate(responses):
        if isinstance(item, Mapping) and "name" in item and "response" in item:
            name, response = item["name"], item["response"]
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            name, response = item
        else:
            raise TypeError(
                f"tool response {index} must be a (name, response) pair "
                "or a mapping with 'name' and 'response'"
            )
        if not isinstance(name, str):
            raise TypeError(f"tool response {index} has a name that is not a str")
        content.append({"type": "tool_response", "name": name, "response": response})
    return dumps_strict({"role": "tool", "content": content})


def tool_response_payload(text: str) -> dict[str, Any]:
    """A tool's result text as an object: the text decoded when it is a JSON object,
    otherwise `{"value": text}`."""
    if isinstance(text, str):
        try:
            decoded = loads(text)
        except ValueError:
            return {"value": text}
        if isinstance(decoded, dict):
            return decoded
    return {"value": text}


# ------------------------------------------------------------------- text and segments

Segment = tuple[bool, Any]  # (True, decoded JSON value) or (False, text to scan as is)

# How the decoded values of segments are read: "plain", decoded here from text that
# cannot hold the escape token (`_may_hold_token`), so arguments are taken as they are;
# "own", decoded here from other text, so the token is stripped from arguments in place
# (the containers are ours); "callers", the caller's own dict or list, so arguments are
# stripped copies; "exact", as "plain", from text without `<|`, `\\u` escapes or a run
# of 19+ digits (`loads_by_orjson`): nor has an argument string decoded from it (a digit
# is written as it is or as a `\\u` escape), so orjson decodes that exactly.
Values = Literal["plain", "exact", "own", "callers"]


def _as_text(text: Any) -> str | None:
    """The input as a str of valid Unicode, or None (not text, not UTF-8, lone surrogates)."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            return bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            return None
    if not isinstance(text, str):
        return None
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return None
    return text


def _segments(text: str) -> list[Segment]:
    """One JSON document, else glued JSON containers, else the text as written."""
    try:
        return [(True, loads(text))]
    except ValueError:
        pass
    chunks = _split_glued(text)
    if chunks is None:
        return [(False, text)]
    segments: list[Segment] = []
    for chunk in chunks:
        try:
            segments.append((True, loads(chunk)))
        except ValueError:
            segments.append((False, chunk))
    return segments


def _split_glued(text: str) -> list[str] | None:
    """The text cut into two or more top-level `{...}` / `[...]` containers separated only
    by whitespace, or None when it is not that."""
    chunks = []
    i = _skip_whitespace(text, 0)
    while i < len(text):
        if text[i] not in "{[":
            return None
        end = container_end(text, i, len(text))
        end = len(text) if end is None else end
        chunks.append(text[i:end])
        i = _skip_whitespace(text, end)
    return chunks if len(chunks) >= 2 else None


def _skip_whitespace(text: str, i: int) -> int:
    while i < len(text) and text[i] in WHITESPACE:
        i += 1
    return i


def _calls_from_segments(segments: list[Segment], values: Values) -> list[ToolCall]:
    """The calls of the segments, whose decoded values are read as `values` says."""
    calls: list[ToolCall] = []
    for decoded, value in segments:
        if decoded:
            calls.extend(_structured_calls(value, values))
    if calls:
        return calls
    for decoded, value in segments:
        if decoded:
            for string in _string_values(value):
                calls.extend(_raw_calls(string))
        else:
            calls.extend(_raw_calls(value))
    return calls


def _string_values(value: Any) -> Iterator[str]:
    """Every string value (not key) in dicts and lists, depth first in document order;
    containers deeper than MAX_DEPTH are not looked into."""
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, str):
            yield item
        elif isinstance(item, dict) and len(stack) <= MAX_DEPTH:
            stack.append(iter(item.values()))
        elif isinstance(item, list) and len(stack) <= MAX_DEPTH:
            stack.append(iter(item))


_END = object()


# -------------------------------------------------------------------- structured calls


def _structured_calls(value: Any, values: Values) -> list[ToolCall]:
    """The calls of one decoded document: a message dict, or the dict items of a list."""
    if isinstance(value, dict):
        return _message_calls(value, values)
    calls: list[ToolCall] = []
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                calls.extend(_message_calls(item, values))
    return calls


def _message_calls(message: dict[str, Any], values: Values) -> list[ToolCall]:
    calls: list[ToolCall] = []
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, list):
        for item in tool_calls:
            _append_call(calls, item, values)
    content = message.get("content")
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") == "tool_call":
                _append_call(calls, part.get("tool_call"), values)
    return calls


def _append_call(calls: list[ToolCall], item: Any, values: Values) -> None:
    """Append the call in an OpenAI-style or flat item; items without a name are skipped."""
    if not isinstance(item, dict):
        return
    function = item.get("function")
    body = function if isinstance(function, dict) else item
    name = body.get("name")
    if not isinstance(name, str) or not name:
        return
    call_id = item.get("id")
    arguments, raw_arguments = _decode_arguments(body.get("arguments"), values)
    call_id = call_id if isinstance(call_id, str) else None
    calls.append(with_defect(ToolCall(name, arguments, call_id, raw_arguments)))


def _decode_arguments(value: Any, values: Values) -> tuple[dict[str, Any], str | None]:
    """`(arguments, raw_arguments)` from the arguments value as found (read as `values`
    says)."""
    if value is None:
        return {}, None
    if values == "exact" and type(value) is str:
        try:
            decoded = orjson.loads(value)
        except orjson.JSONDecodeError:
            pass  # read below, which says why (or reads a number beyond the float range)
        else:
            return (decoded, None) if type(decoded) is dict else ({}, value)
    if isinstance(value, str):
        made = too_long_ints_made()
        try:
            decoded = loads(value)
        except ValueError:
            return {}, value
        if not isinstance(decoded, dict) or too_long_ints_made() != made:
            return {}, value
        values = _read_as(value)
        value = decoded
    elif holds_too_long_int(value):  # an integer Python would refuse: kept as JSON text
        return {}, dumps_compact(value)
    if isinstance(value, dict):
        if values == "plain" or values == "exact":
            return value, None
        if values == "own":
            return _strip_in_place(value), None
        try:
            return strip_escape_tokens(value), None
        except ValueError:  # deeper than MAX_DEPTH: only caller-built dicts get here
            return {}, None
    return {}, dumps_compact(value)  # (`repr` for a caller object that is not JSON)


def _read_as(text: str | bytes) -> Values:
    """How the values decoded from JSON text `text` are read."""
    return "own" if _may_hold_token(text) else "plain"


def _may_hold_token(text: str | bytes) -> bool:
    """Whether a string decoded from JSON text `text` may hold the escape token. In JSON
    text `<` and `|` are written as they are or as `\\u` escapes (`\\u003c`, `\\u007C`,
    ...); text with neither `<|` nor such an escape decodes to strings without `<|`
    (other escapes, `\\u00e9` say, are common: `json.dumps` writes them)."""
    if isinstance(text, bytes):
        # (`find`, not `in`: see `may_hold_big_integer`.)
        if text.find(b"<|") != -1:
            return True
        return text.find(b"\\u00") != -1 and _ESCAPED_BYTES.search(text) is not None
    return "<|" in text or ("\\u00" in text and _ESCAPED.search(text) is not None)


_ESCAPED = re.compile(r"\\u00(?:3[cC]|7[cC])")
_ESCAPED_BYTES = re.compile(rb"\\u00(?:3[cC]|7[cC])")


def _put(container: dict[str, Any] | list[Any], key: Any, item: Any) -> None:
    if isinstance(container, dict):
        container[key] = item
    else:
        container.append(item)


# ------------------------------------------------------------------ raw Gemma 4 tokens


class _Malformed(Exception):
    """A raw call block that does not follow the grammar (internal, never escapes)."""


def _raw_calls(text: str) -> list[ToolCall]:
    """Every `<|tool_call>...` / `<start_function_call>...` block in `text`, in order."""
    calls: list[ToolCall] = []
    finder = _Finder(text)
    start, opener, closer = _next_opener(finder, 0)
    while start >= 0:
        body = start + len(opener)
        name, name_end, arguments, end = _parse_call(text, body)
        if name is not None and arguments is not None:
            end = _skip_whitespace(text, end)
            if text.startswith(closer, end):
                calls.append(ToolCall(name, strip_escape_tokens(arguments)))
                start, opener, closer = _next_opener(finder, end + len(closer))
                continue
            # The closing token may be missing at the end or before the next block.
            if end == len(text) or _next_opener(finder, end)[0] == end:
                calls.append(ToolCall(name, strip_escape_tokens(arguments)))
                start, opener, closer = _next_opener(finder, end)
                continue
        # Malformed: the block runs from its opening token to its closing token, the next
        # opening token, or the end of the text, whichever comes first.
        next_start, next_opener, next_closer = _next_opener(finder, body)
        close_at = finder.find(closer, body)
        if close_at >= 0 and (next_start < 0 or close_at < next_start):
            block_end = close_at
            next_start, next_opener, next_closer = _next_opener(finder, close_at + len(closer))
        elif next_start >= 0:
            block_end = next_start
        else:
            block_end = len(text)
        if name is not None:
            calls.append(with_defect(ToolCall(name, {}, None, text[name_end:block_end])))
        start, opener, closer = next_start, next_opener, next_closer
    return calls


class _Finder:
    """`text.find(token, i)` that remembers its last answer for each token, so scanning a
    text with many blocks searches it about once per token (linear, not quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.last: dict[str, tuple[int, int]] = {}  # token -> (searched from, found at)

    def find(self, token: str, i: int) -> int:
        if token in self.last:
            searched_from, found_at = self.last[token]
            # still the first occurrence at or after i (or still none)
            if searched_from <= i and (found_at < 0 or found_at >= i):
                return found_at
        found_at = self.text.find(token, i)
        self.last[token] = (i, found_at)
        return found_at


def _next_opener(finder: _Finder, i: int) -> tuple[int, str, str]:
    """`(index, opening token, its closing token)` of the first block opening at or after
    `i`; index -1 when there is none."""
    best = (-1, "", "")
    for opener, closer in BLOCKS:
        found = finder.find(opener, i)
        if found >= 0 and (best[0] < 0 or found < best[0]):
            best = (found, opener, closer)
    return best


def _parse_call(text: str, i: int) -> tuple[str | None, int, dict[str, Any] | None, int]:
    """`call:NAME object?` at `i` (after the opening token).

    Returns `(name, name_end, arguments, end)`: name None when `call:NAME` cannot be
    read; arguments None when the object is malformed; `end` is just after the call.
    """
    i = _skip_whitespace(text, i)
    if not text.startswith(CALL_PREFIX, i):
        return None, i, None, i
    i = _skip_whitespace(text, i + len(CALL_PREFIX))
    name_end = _name_end(text, i)
    if name_end == i:
        return None, i, None, i
    name = text[i:name_end]
    i = _skip_whitespace(text, name_end)
    if i == len(text) or text[i] != "{":
        return name, name_end, {}, name_end
    try:
        arguments, end = _parse_value(text, i)
    except _Malformed:
        return name, name_end, None, name_end
    return name, name_end, arguments, end


def _name_end(text: str, i: int) -> int:
    """The end of the NAME / KEY at `i`; `i` itself when there is none."""
    if i == len(text) or text[i] not in NAME_START:
        return i
    i += 1
    while i < len(text) and text[i] in NAME_CHARS:
        i += 1
    return i


def _parse_value(text: str, i: int) -> tuple[Any, int]:
    """The value at `i` and the index just after it; raises _Malformed.

    Recursive descent written with an explicit stack of open containers (so depth 1024
    needs no Python recursion). Each frame is `[container, key]`: the key under which the
    value being read will go (None in a list). A container is added to its parent when
    it closes.
    """
    stack: list[list[Any]] = []
    while True:
        # Read one value at i; a container that opens with content pushes a frame and
        # goes back to read its first value.
        i = _skip_whitespace(text, i)
        char = text[i] if i < len(text) else ""
        if char in ("{", "["):
            if len(stack) >= MAX_DEPTH:
                raise _Malformed
            container: Any = {} if char == "{" else []
            i = _skip_whitespace(text, i + 1)
            if text.startswith("}" if char == "{" else "]", i):
                value: Any = container
                i += 1
            else:
                key = None
                if char == "{":
                    key, i = _parse_key(text, i)
                stack.append([container, key])
                continue
        elif _delimiter_at(text, i):
            value, i = _parse_string(text, i)
        elif char == "-" or (char != "" and char in DIGITS):
            value, i = _parse_number(text, i)
        else:
            value, i = _parse_literal(text, i)
        # A value is complete: put it into the open container, then read "," (next
        # value) or the closing bracket (the container is complete: repeat one level up).
        while True:
            if not stack:
                return value, i
            frame = stack[-1]
            _put(frame[0], frame[1], value)
            i = _skip_whitespace(text, i)
            is_object = isinstance(frame[0], dict)
            if text.startswith(",", i):
                i += 1
                if is_object:
                    frame[1], i = _parse_key(text, _skip_whitespace(text, i))
                break
            if text.startswith("}" if is_object else "]", i):
                value = stack.pop()[0]
                i += 1
                continue
            raise _Malformed


def _parse_key(text: str, i: int) -> tuple[str, int]:
    """`KEY :` at `i` (whitespace skipped before it); returns the key and the index after
    the colon."""
    end = _name_end(text, i)
    if end == i:
        raise _Malformed
    colon = _skip_whitespace(text, end)
    if not text.startswith(":", colon):
        raise _Malformed
    return text[i:end], colon + 1


def _delimiter_at(text: str, i: int) -> str:
    for delimiter in STRING_DELIMITERS:
        if text.startswith(delimiter, i):
            return delimiter
    return ""


def _parse_string(text: str, i: int) -> tuple[str, int]:
    """`DELIM text DELIM` at `i`: the literal text between the two delimiters."""
    delimiter = _delimiter_at(text, i)
    start = i + len(delimiter)
    end = text.find(delimiter, start)
    if end < 0:
        raise _Malformed
    return text[start:end], end + len(delimiter)


def _parse_number(text: str, i: int) -> tuple[Any, int]:
    """A JSON number at `i`, decoded as JSON decodes it (`loads` of its text)."""
    end = i
    if text.startswith("-", end):
        end += 1
    if text.startswith("0", end):
        end += 1
    elif end < len(text) and text[end] in DIGITS:
        end = _digits_end(text, end)
    else:
        raise _Malformed
    if text.startswith(".", end):
        end = _digits_end(text, end + 1, required=True)
    if end < len(text) and text[end] in "eE":
        end += 1
        if end < len(text) and text[end] in "+-":
            end += 1
        end = _digits_end(text, end, required=True)
    try:
        number = loads(text[i:end])
    except ValueError:  # a number JSON itself refuses (e.g. out of range)
        raise _Malformed from None
    if isinstance(number, TooLongInt):  # Python would refuse to convert it
        raise _Malformed
    return number, end


def _digits_end(text: str, i: int, required: bool = False) -> int:
    start = i
    while i < len(text) and text[i] in DIGITS:
        i += 1
    if required and i == start:
        raise _Malformed
    return i


def _parse_literal(text: str, i: int) -> tuple[Any, int]:
    for word, value in LITERALS:
        if text.startswith(word, i):
            return value, i + len(word)
    raise _Malformed  # a bare word, a quoted string, or nothing at all


# ------------------------------------------------------------------ compact JSON text


def _compact_json(text: str) -> str:
    """Valid JSON text without whitespace, `<|"|>` stripped from string values, strings
    re-encoded minimally; numbers, literals and punctuation copied as written."""
    out = []
    i = 0
    while i < len(text):
        char = text[i]
        if char in WHITESPACE:
            i += 1
        elif char == '"':
            end = _string_end(text, i)
            is_key = text.startswith(":", _skip_whitespace(text, end))
            out.append(_clean_string_token(text[i:end], is_key))
            i = end
        else:  # punctuation, a number or a literal: copy up to whitespace or a string
            end = i + 1
            while end < len(text) and text[end] not in WHITESPACE and text[end] != '"':
                end += 1
            out.append(text[i:end])
            i = end
    return "".join(out)


def _string_end(text: str, i: int) -> int:
    """The index just after the JSON string token opening at `i` (the text is valid)."""
    i += 1
    while text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _clean_string_token(token: str, is_key: bool) -> str:
    if "\\" not in token:
        return token  # no escapes: already minimal, and `<|"|>` cannot occur unescaped
    value = loads(token)
    if not is_key:
        value = value.replace(ESCAPE_TOKEN, "")
    return dumps_compact(value)
