"""`granite`: IBM Granite 3.x tool calls, a JSON list after a marker: the specification
(the Rust twin: `src/dialects/granite.rs`).

Syntax (Granite 3.0 / 3.1 chat templates; vLLM's `granite` parser)::

    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "SF"}}]     Granite 3.0
    <tool_call>[{"name": "get_weather", "arguments": {"city": "SF"}}]       Granite 3.1

* At each `<|tool_call|>` or `<tool_call>` (the next of either), after whitespace, a JSON
  list of call objects: each item's string `name` and `arguments` (an object or a string
  holding one); an item that cannot be read is kept with its text, and what follows the
  last readable item up to the list's end is one more such item (`_text.array_items`).
  A single call object there is read the same way. The list cannot run past the next
  marker; cut off, it runs to it (or to the end).
* There is no closing marker (the `]` ends the list); a `</tool_call>` right after it
  (after whitespace) is dropped.
* A marker followed by anything else opens a block that runs to the next marker (or the
  end): kept as a call with name "", arguments `{}` and its trimmed text.
* Reasoning: `<think> ... </think>` (Granite 3.3's reasoning mode); text before a first
  `</think>` that no `<think>` precedes is reasoning too. Markers inside are not calls.
* `content`: the text outside the calls and reasoning, markers removed, the pieces joined
  as they are and the whole trimmed of whitespace; None when empty.
* `detect`: `<|tool_call|>` or `<tool_call>` followed (after whitespace) by `[`.
* `<|tool_call|>` is a special token: a Granite 3.0 log decoded with
  `skip_special_tokens=True` has lost it, and then holds no call this dialect reads.
"""

from __future__ import annotations

from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import (
    THINK,
    json_calls,
    marker_then,
    nameless,
    parse_around_reasoning,
    skip_space,
)

MARKERS = ("<|tool_call|>", "<tool_call>")
CLOSE = "</tool_call>"
STREAM = Spec(starts=MARKERS, brackets="[{")
KEYS = ("arguments",)


def detect(text: str) -> bool:
    """`<|tool_call|>` or `<tool_call>` followed (after whitespace) by `[`."""
    return any(marker_then(text, marker, "[") for marker in MARKERS)


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_around_reasoning(text, THINK, scan_markers)


def scan_markers(text: str, pos: int, end: int, calls: list[ToolCall], pieces: list[str]) -> None:
    """The calls in `text[pos:end]` appended to `calls`, the text outside to `pieces`."""
    found = [-1, -1]  # the next place of each marker at or after `pos`; `end` when none
    while True:
        for k, marker in enumerate(MARKERS):
            if found[k] < pos:
                place = text.find(marker, pos, end)
                found[k] = end if place == -1 else place
        at = min(found)
        if at == end:
            pieces.append(text[pos:end])
            return
        pieces.append(text[pos:at])
        body = at + len(MARKERS[0 if found[0] == at else 1])
        for k, marker in enumerate(MARKERS):
            if found[k] < body:
                place = text.find(marker, body, end)
                found[k] = end if place == -1 else place
        limit = min(found)
        i = skip_space(text, body)
        stop = json_calls(text, i, limit, KEYS, False, calls)
        if stop is None:
            calls.append(nameless(text[i:limit]))
            pos = limit
            continue
        after = skip_space(text, stop)
        pos = after + len(CLOSE) if text.startswith(CLOSE, after, limit) else stop
