"""Kimi K2 tool calls (`kimi-k2`): the pure-Python specification.

Syntax (Kimi-K2-Instruct / K2-Thinking `tokenizer_config.json` special tokens and chat
template; vLLM's and SGLang's `kimi_k2` parsers)::

    <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>
    ...
    <|tool_calls_section_end|>

The markers are special tokens: a log must keep them (`skip_special_tokens=False`).
The singular section markers `<|tool_call_section_begin|>` / `<|tool_call_section_end|>`
(listed as variants by earlier vLLM kimi_k2 parsers) are read the same way.

Rules:

* Reasoning: `<think>...</think>` blocks (`_text.outside_reasoning`: a `</think>` with no
  `<think>` before it closes a block the prompt opened). Markers inside them are not
  calls; their text is the reasoning.
* A call block is the text after `<|tool_call_begin|>` up to `<|tool_call_end|>`, or up
  to the next call or section marker or the end of the text (cut off); blocks are read
  wherever they are, inside a section or not (`_text.special_token_blocks`).
* In a block, the header before `<|tool_call_argument_begin|>` (whitespace at its ends
  stripped) is the call id (None when empty); the name is the id without a leading
  `functions.` and a trailing `:IDX` (ASCII digits): `functions.ns.tool:3` is `ns.tool`.
  The text after the marker (whitespace at its ends stripped) is the arguments: the JSON
  text of an object, else kept as `raw_arguments` with `{}`.
* A block without `<|tool_call_argument_begin|>` is unreadable: name `""`, no id, its
  text (stripped) in `raw_arguments`.
* Content: the text outside the blocks and think blocks, section markers and stray
  `<|tool_call_end|>` removed, other text kept (text between calls included), whitespace
  at both ends stripped; None when empty.
"""

from __future__ import annotations

from toolsift._pure.calls import tool_call
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import WHITESPACE, nameless, parse_special_tokens

PREFIX = "<|tool_call"
SECTION_MARKERS = (
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
)
CALL_BEGIN = "<|tool_call_begin|>"
CALL_END = "<|tool_call_end|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
STREAM = Spec(ends=(CALL_END, *SECTION_MARKERS[1::2]), starts=(CALL_BEGIN,))
NAME_PREFIX = "functions."
DIGITS = "0123456789"


def detect(text: str) -> bool:
    """Whether the text holds a section or call marker of Kimi K2."""
    return any(marker in text for marker in (*SECTION_MARKERS[::2], CALL_BEGIN))


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_special_tokens(
        text, PREFIX, ((CALL_BEGIN,), (CALL_END,), SECTION_MARKERS), block_call
    )


def block_call(block: str) -> ToolCall:
    at = block.find(ARGUMENT_BEGIN)
    if at == -1:
        return nameless(block)
    header = block[:at].strip(WHITESPACE)
    arguments = block[at + len(ARGUMENT_BEGIN) :].strip(WHITESPACE)
    return tool_call(name_of(header), header or None, arguments)


def name_of(header: str) -> str:
    """`functions.NAME:IDX` -> NAME (each part removed only where present)."""
    name = header.removeprefix(NAME_PREFIX)
    colon = name.rfind(":")
    index = name[colon + 1 :]
    if colon != -1 and index and all(char in DIGITS for char in index):
        name = name[:colon]
    return name
