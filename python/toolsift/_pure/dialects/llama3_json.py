"""`llama3-json`: Llama 3.1-3.3 JSON tool calls: the specification (the Rust twin:
`src/dialects/llama3_json.rs`).

Syntax (Llama 3.1 / 3.2 / 3.3 chat templates and model cards, "JSON based tool calling";
vLLM's `llama3_json` parser)::

    {"name": "get_weather", "parameters": {"city": "Paris"}}
    <|python_tag|>{"name": "a", "parameters": {...}}; {"name": "b", "parameters": {...}}

* After `<|python_tag|>` (and whitespace): call objects joined by `;` (whitespace around
  it). Each is read as `_text.object_call` reads it: its string `name`, and `arguments`
  or else `parameters` (the first that is present and not null) as an object or a string
  holding one. A JSON list of call objects is read too (`_text.json_calls`). A call
  cannot run past the next `<|python_tag|>`; cut off, it runs to it (or to the end). A
  tag followed by anything else (the built-in tools' Python, `brave_search.call(...)`)
  opens a block up to the next tag or the end: kept as a call with name "", arguments
  `{}` and its trimmed text.
* Bare: an output that starts (after whitespace) with `{` is read the same way, as long
  as its first object is a call with a readable name; otherwise (a JSON answer, say)
  the whole output is content. Only the start of the output is read so: a `{` after
  prose is prose.
* After the last call (a `;` not followed by `{` or `[` is dropped), the text up to the
  next tag is content: the pieces outside the calls joined as they are, tags removed,
  the whole trimmed of whitespace; None when empty. There is no reasoning.
* `detect`: `<|python_tag|>` (bare JSON is never guessed). It is a special token: a log
  decoded with `skip_special_tokens=True` has lost it, and the bare form is what is left.
"""

from __future__ import annotations

import re

from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import joined_content, json_calls, nameless, skip_space

TAG = "<|python_tag|>"
STREAM = Spec(starts=(TAG,), brackets="{[", think=())
KEYS = ("arguments", "parameters")
SEPARATOR = re.compile(r"[ \t\n\r]*+(;)[ \t\n\r]*+")
"""The `;` between two calls, whitespace around it (one match per call: a text of many
`{};` makes 333K calls per MB)."""
STRINGLESS = re.compile(r'\{[^"{}\[\]]*+\}')
"""An object holding no string (nor a container): no call can be read from it."""
STRINGLESS_RUN = re.compile(f"(?:{STRINGLESS.pattern}[ \t\n\r]*+;[ \t\n\r]*+)++")
"""A run of such objects, each followed by a `;`."""


def detect(text: str) -> bool:
    """`<|python_tag|>`."""
    return TAG in text


def parse(text: str, tools: Tools | None) -> Parsed:
    calls: list[ToolCall] = []
    pieces: list[str] = []
    pos = 0
    first_tag = text.find(TAG)
    limit = len(text) if first_tag == -1 else first_tag
    start = skip_space(text, 0)
    if text.startswith("{", start, limit):
        bare: list[ToolCall] = []
        stop = read_calls(text, start, limit, bare)
        if bare[0].name:
            calls.extend(bare)
            pos = stop
    while True:
        at = text.find(TAG, pos)
        if at == -1:
            pieces.append(text[pos:])
            break
        pieces.append(text[pos:at])
        body = at + len(TAG)
        following = text.find(TAG, body)
        limit = len(text) if following == -1 else following
        stop = read_calls(text, skip_space(text, body), limit, calls)
        pieces.append(text[stop:limit])
        pos = limit
    return Parsed(calls, joined_content(pieces), None)


def read_calls(text: str, i: int, limit: int, calls: list[ToolCall]) -> int:
    """The calls joined by `;` from `i`, read no further than `limit`, appended to
    `calls`; the index where they end."""
    while True:
        run = STRINGLESS_RUN.match(text, i, limit)
        if run is not None:
            # Objects without a string name nothing: each is a nameless call of its text
            # (as `object_call` reads it), the whole run read in two matches.
            blocks = STRINGLESS.findall(text, i, run.end())
            calls.extend([ToolCall("", {}, None, block) for block in blocks])
            i = run.end()
            if not text.startswith(("{", "["), i, limit):
                return text.rindex(";", 0, i) + 1
        stop = json_calls(text, i, limit, KEYS, False, calls)
        if stop is None:
            calls.append(nameless(text[i:limit]))
            return limit
        separator = SEPARATOR.match(text, stop, limit)
        if separator is None:
            return stop
        i = separator.end()
        if not text.startswith(("{", "["), i, limit):
            return separator.end(1)
