"""`mistral`: Mistral's `[TOOL_CALLS]` (Mistral, Mixtral, Magistral, Devstral, Codestral):
the specification (the Rust twin: `src/dialects/mistral.rs`).

Syntax (mistral-common's tokenizers, the models' chat templates, vLLM's mistral parser)::

    [TOOL_CALLS] [{"name": "f", "arguments": {...}, "id": "a1b2c3d4e"}, ...]   before v11
    [TOOL_CALLS]f[ARGS]{...}[TOOL_CALLS]g[ARGS]{...}                           v11+
    [TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{...}                                 v13 (id kept)
    [TOOL_CALLS]f{...}                                                         no [ARGS]

* A block runs from `[TOOL_CALLS]` to the next `[TOOL_CALLS]` (or the end of the text).
* After the marker (and whitespace), `[` opens the pre-v11 JSON list: each item is a call
  (its string `name`, `arguments` as an object or a string holding one, its string `id`);
  an item that cannot be read is kept with its text (see `_text.object_call`), and what
  follows the last readable item up to the list's end is one more such item. `{` opens a
  single call object, read the same way.
* Anything else is the v11 form: NAME up to the first `[CALL_ID]`, `[ARGS]` or `{`, trimmed;
  after `[CALL_ID]` the id up to `[ARGS]` or `{`, trimmed; after `[ARGS]` (optional),
  whitespace and the arguments object, which runs to its matching brace (braces inside
  strings do not count) and is decoded as every format decodes arguments text. A block
  with none of the three separators is kept with name "" and its trimmed text as
  `raw_arguments`; arguments that never close (cut off) or are not an object keep their
  trimmed text, up to the block's end, as `raw_arguments`, the name kept.
* The text after a list, an object or a v11 call, up to the next marker, is content.
* Reasoning: `[THINK] ... [/THINK]` (Magistral, v13 special tokens) when the text holds
  either token, else `<think> ... </think>` (Magistral Small 2506 writes them as text);
  text before a first closing token that no opening one precedes is reasoning too.
  Markers inside reasoning are not calls.
* `content`: the text outside the calls and reasoning, markers removed, the pieces joined
  as they are and the whole trimmed of whitespace; None when empty.
* `detect`: `[TOOL_CALLS]`. It is a special token: a log decoded with
  `skip_special_tokens=True` has lost it (and `[ARGS]`, `[CALL_ID]`), and then holds no
  call this dialect reads.
"""

from __future__ import annotations

from toolsift._jsontext import container_end
from toolsift._pure.calls import arguments_of
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import WHITESPACE, json_calls, parse_around_reasoning, skip_space

MARKER = "[TOOL_CALLS]"
ARGS = "[ARGS]"
CALL_ID = "[CALL_ID]"
THINK = ("[THINK]", "[/THINK]")
TEXT_THINK = ("<think>", "</think>")
STREAM = Spec(starts=(MARKER,), brackets="{[", think=(THINK, TEXT_THINK))
KEYS = ("arguments",)


def detect(text: str) -> bool:
    """`[TOOL_CALLS]`."""
    return MARKER in text


def parse(text: str, tools: Tools | None) -> Parsed:
    uses_tokens = THINK[0] in text or THINK[1] in text
    return parse_around_reasoning(text, THINK if uses_tokens else TEXT_THINK, scan_blocks)


def scan_blocks(text: str, pos: int, end: int, calls: list[ToolCall], pieces: list[str]) -> None:
    """The blocks in `text[pos:end]` appended to `calls`, the text outside to `pieces`."""
    at = text.find(MARKER, pos, end)
    if at == -1:
        pieces.append(text[pos:end])
        return
    pieces.append(text[pos:at])
    while at != -1:
        body = at + len(MARKER)
        following = text.find(MARKER, body, end)
        limit = end if following == -1 else following
        rest = read_block(text, body, limit, calls)
        pieces.append(text[rest:limit])
        at = following


def read_block(text: str, body: int, limit: int, calls: list[ToolCall]) -> int:
    """The calls of the block `text[body:limit]` appended; the index where its calls end."""
    i = skip_space(text, body)
    stop = json_calls(text, i, limit, KEYS, True, calls)
    if stop is not None:
        return stop
    name_end, separator = next_separator(text, i, limit)
    if separator is None:
        calls.append(ToolCall("", {}, None, text[i:limit].strip(WHITESPACE)))
        return limit
    name = text[i:name_end].strip(WHITESPACE)
    id = None
    i = name_end
    if separator == CALL_ID:
        id_end, separator = next_separator(text, i + len(CALL_ID), limit)
        id = text[i + len(CALL_ID) : id_end].strip(WHITESPACE)
        i = id_end
    if separator == ARGS:
        i += len(ARGS)
    start = skip_space(text, i)
    stop = container_end(text, start, limit) if text.startswith("{", start, limit) else None
    if stop is None:
        calls.append(ToolCall(name, {}, id, text[start:limit].strip(WHITESPACE)))
        return limit
    arguments, raw = arguments_of(text[start:stop])
    calls.append(ToolCall(name, arguments, id, raw))
    return stop


def next_separator(text: str, i: int, limit: int) -> tuple[int, str | None]:
    """The first `[CALL_ID]`, `[ARGS]` or `{` from `i`: its index and which (None: none,
    at `limit`)."""
    while i < limit:
        char = text[i]
        if char == "{":
            return i, "{"
        if char == "[":
            for separator in (ARGS, CALL_ID):
                if text.startswith(separator, i, limit):
                    return i, separator
        i += 1
    return limit, None
