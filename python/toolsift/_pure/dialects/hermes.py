"""`hermes`: Hermes-style JSON in `<tool_call>` tags (Qwen2.5, Qwen3, Hermes 2/3, Granite 4,
most fine-tunes): the specification (the Rust twin: `src/dialects/hermes.rs`).

Syntax (Qwen3's and Hermes 3's chat templates, `tokenizer_config.json`; vLLM's and SGLang's
`hermes` / `qwen25` parsers)::

    <tool_call>
    {"name": "get_weather", "arguments": {"city": "Paris"}}
    </tool_call>

repeated once per call, with any text before, between and after.

* A block opens at `<tool_call>` followed (after whitespace) by `{`: the JSON object runs
  to its matching brace (braces inside strings do not count; it cannot run past the
  next `<tool_call>`), then whitespace and `</tool_call>` close it. A block whose object
  closes and whose closing tag is cut off at the end of the text (or where a reasoning
  block opens) is complete too.
* A call is the object's string `name` and its `arguments`: an object, or a string holding
  the JSON text of one (decoded as every format decodes it); missing or null: `{}`;
  anything else keeps the block's text (a string: that string) in `raw_arguments`.
* Any other block (the object does not decode or has no string name, something other
  than an object after `<tool_call>`, an object never closed, text before `</tool_call>`)
  is kept: the name where the block starts `{"name": "..."` (else ""), arguments `{}`,
  `raw_arguments` the block's text between the tags, trimmed. It ends at the first
  `</tool_call>` after its opening tag, or at the next `<tool_call>`, or at the end.
* Reasoning: `<think> ... </think>` blocks (Qwen3, Hermes reasoning); text before a first
  `</think>` that no `<think>` precedes is reasoning too (Qwen3's template opens the block
  in the prompt). Tags inside reasoning are not calls. `reasoning` is the blocks' text.
* `content` is the text outside the calls and reasoning blocks, tags removed, the pieces
  joined as they are and the whole trimmed of whitespace; None when empty.
* `detect`: `<tool_call>` followed (after whitespace) by `{` (a `[` is granite's).
* The tags are plain text in Qwen's and Hermes's vocabularies (or special tokens that
  decode to the same text): a log decoded with `skip_special_tokens=True` keeps them.
"""

from __future__ import annotations

from toolsift._jsontext import container_end
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import (
    THINK,
    WHITESPACE,
    leading_name,
    marker_then,
    object_call,
    parse_around_reasoning,
    skip_space,
)

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
STREAM = Spec(ends=(CLOSE,), starts=(OPEN,))
KEYS = ("arguments",)


def detect(text: str) -> bool:
    """`<tool_call>` followed (after whitespace) by `{`."""
    return marker_then(text, OPEN, "{")


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_around_reasoning(text, THINK, scan_tags)


def scan_tags(text: str, pos: int, end: int, calls: list[ToolCall], pieces: list[str]) -> None:
    """The blocks in `text[pos:end]` appended to `calls`, the text between to `pieces`.
    Each search for the next tag starts where the previous one ended, or reuses it."""
    next_close = -1  # the first `</tool_call>` at or after the block; `end` when none
    limit = -1  # the first `<tool_call>` after the block's own; `end` when none
    while True:
        at = limit if limit >= pos else text.find(OPEN, pos, end)
        if at in (-1, end):
            pieces.append(text[pos:end])
            return
        pieces.append(text[pos:at])
        body = at + len(OPEN)
        next_open = text.find(OPEN, body, end)
        limit = end if next_open == -1 else next_open
        if next_close < body:
            found = text.find(CLOSE, body, end)
            next_close = end if found == -1 else found
        start = skip_space(text, body)
        if text.startswith("{", start, end):
            object_end = container_end(text, start, limit)
            if object_end is not None:
                after = skip_space(text, object_end)
                if after == end or text.startswith(CLOSE, after, end):
                    calls.append(object_call(text[start:object_end], KEYS, False))
                    pos = min(after + len(CLOSE), end)
                    continue
        stop = min(next_close, limit)
        block = text[body:stop].strip(WHITESPACE)
        calls.append(ToolCall(leading_name(block), {}, None, block))
        pos = stop + len(CLOSE) if stop == next_close < end else stop
