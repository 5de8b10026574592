# ruff: noqa: RUF001, RUF002  (DeepSeek's markers are written with full-width bars)
"""DeepSeek V3 / R1 tool calls (`deepseek-v3`): the pure-Python specification.

Syntax (DeepSeek-V3, V3-0324, R1 and R1-0528 `tokenizer_config.json` chat templates;
vLLM's `deepseek_v3` and SGLang's `deepseekv3` parsers)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME
    ```json
    {...}
    ```<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>

The bars are U+FF5C (full width) and the spaces U+2581; the markers are special tokens:
a log must keep them (`skip_special_tokens=False`). `detect` looks for
`<｜tool▁call▁begin｜>function<｜tool▁sep｜>` (V3.1 writes the name there: `deepseek-v3.1`).

Rules:

* Reasoning: R1's `<think>...</think>` blocks (`_text.outside_reasoning`: R1-0528's template
  ends the prompt with `<think>`, so a `</think>` with no `<think>` before it closes a
  block the prompt opened). Markers inside them are not calls; their text is reasoning.
* A call block is the text after `<｜tool▁call▁begin｜>` up to `<｜tool▁call▁end｜>`, or up to
  the next call or section marker or the end of the text (cut off); blocks are read
  wherever they are, inside a section or not (`_text.special_token_blocks`).
* In a block: the type before `<｜tool▁sep｜>` (always `function`; not checked), then
  the name up to the first newline (whitespace at its ends stripped), then the
  arguments: the rest, whitespace at its ends stripped, without an opening fence line
  (```` ``` ```` and a tag such as `json` up to the newline) and a closing ```` ``` ````
  where written. They are the JSON text of an object; else the rest after the name
  (stripped, fences kept) is kept as `raw_arguments` with `{}`. A name with no newline
  after it (cut off) has arguments `{}` and `raw_arguments` `""`. No id.
* A block without `<｜tool▁sep｜>` is unreadable: name `""`, its text (stripped) in
  `raw_arguments`.
* Content: the text outside the blocks and think blocks, section markers and stray
  `<｜tool▁call▁end｜>` removed, other text kept, whitespace at both ends stripped; None
  when empty.
"""

from __future__ import annotations

from toolsift._pure.calls import tool_call
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import WHITESPACE, nameless, parse_special_tokens

PREFIX = "<｜tool▁"
SECTION_MARKERS = ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEPARATOR = "<｜tool▁sep｜>"
STREAM = Spec(ends=(CALL_END, SECTION_MARKERS[1]), starts=(CALL_BEGIN,))
V3_CALL = CALL_BEGIN + "function" + SEPARATOR
FENCE = "```"


def detect(text: str) -> bool:
    """Whether the text holds a V3 call marker followed by the `function` type."""
    return V3_CALL in text


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_special_tokens(
        text, PREFIX, ((CALL_BEGIN,), (CALL_END,), SECTION_MARKERS), block_call
    )


def block_call(block: str) -> ToolCall:
    at = block.find(SEPARATOR)
    if at == -1:
        return nameless(block)
    rest = block[at + len(SEPARATOR) :]
    newline = rest.find("\n")
    if newline == -1:
        return tool_call(rest.strip(WHITESPACE), None, "")
    name = rest[:newline].strip(WHITESPACE)
    body = rest[newline + 1 :].strip(WHITESPACE)
    call = tool_call(name, None, unfenced(body))
    if call.raw_arguments is not None:
        return ToolCall(name, {}, None, body)
    return call


def unfenced(body: str) -> str:
    """`body` without its opening fence line and closing fence, where written."""
    if body.startswith(FENCE):
        newline = body.find("\n")
        body = body[newline + 1 :] if newline != -1 else ""
        if body.endswith(FENCE):
            body = body[: -len(FENCE)]
    return body.strip(WHITESPACE)
