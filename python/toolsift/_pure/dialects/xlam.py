"""`xlam`: Salesforce xLAM-2 tool calls, a bare JSON list: the specification (the Rust
twin: `src/dialects/xlam.rs`).

Syntax (xLAM-2 model cards and chat template; vLLM's `xlam` parser)::

    [{"name": "get_weather", "arguments": {"city": "Paris"}}, ...]
    ```json
    [{"name": "get_weather", "arguments": {"city": "Paris"}}]
    ```
    <think>...</think>[{"name": ..., "arguments": {...}}]

* A JSON list of call objects, read as `_text.json_calls` reads it (each item's string
  `name` and `arguments` as an object or a string holding one; an item that cannot be
  read is kept with its text, and what follows the last readable item up to the list's
  end is one more such item), where it stands:
  - bare: at the start of the output, or right after a reasoning block (whitespace
    aside); the text after the list is content;
  - in a fenced code block: a "```" or "```json" fence whose text (after whitespace) is a
    list; the fences are removed, and the text outside is content.
  A list counts as calls only when its first item is a call with a readable name (else
  it is content: a JSON answer, say; a fenced block that is not a list is content too,
  up to its closing fence). A list never closed (cut off) runs to the end of the text
  outside reasoning.
* Reasoning: `<think> ... </think>`; text before a first `</think>` that no `<think>`
  precedes is reasoning too. Lists inside reasoning are not calls.
* `content`: the text outside the calls and reasoning, the pieces joined as they are and
  the whole trimmed of whitespace; None when empty.
* `detect`: never (bare JSON is never guessed). The dialect needs no special tokens.
"""

from __future__ import annotations

from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import THINK, json_calls, parse_around_reasoning, skip_space

FENCE = "```"
FENCE_LANGUAGE = "json"
STREAM = Spec(brackets="[")
KEYS = ("arguments",)


def detect(text: str) -> bool:
    """Never: a bare JSON list is not guessed."""
    return False


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_around_reasoning(text, THINK, scan)


def scan(text: str, pos: int, end: int, calls: list[ToolCall], pieces: list[str]) -> None:
    """The lists in `text[pos:end]` appended to `calls`, the text outside to `pieces`."""
    start = skip_space(text, pos)
    stop = read_list(text, start, end, calls)
    if stop is not None:
        pos = stop
    while True:
        fence = text.find(FENCE, pos, end)
        if fence == -1:
            pieces.append(text[pos:end])
            return
        body = fence + len(FENCE)
        if text.startswith(FENCE_LANGUAGE, body, end):
            body += len(FENCE_LANGUAGE)
        close = text.find(FENCE, body, end)
        limit = end if close == -1 else close
        stop = read_list(text, skip_space(text, body), limit, calls)
        if stop is None:  # not a list of calls: content up to its closing fence
            stop = end if close == -1 else close + len(FENCE)
            pieces.append(text[pos:stop])
            pos = stop
            continue
        pieces.append(text[pos:fence])
        after = skip_space(text, stop)
        pos = after + len(FENCE) if text.startswith(FENCE, after, end) else stop


def read_list(text: str, i: int, end: int, calls: list[ToolCall]) -> int | None:
    """The calls of the list at `i` appended when its first item is a call with a name:
    the index after the list; else None, and nothing appended."""
    if not text.startswith("[", i, end):
        return None
    found: list[ToolCall] = []
    stop = json_calls(text, i, end, KEYS, False, found)
    if stop is None or not found or not found[0].name:
        return None
    calls.extend(found)
    return stop
