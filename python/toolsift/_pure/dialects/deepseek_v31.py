# ruff: noqa: RUF002  (DeepSeek's markers are written with full-width bars)
"""DeepSeek V3.1 / V3.2-Exp tool calls (`deepseek-v3.1`): the pure-Python specification.

Syntax (DeepSeek-V3.1 and V3.2-Exp `tokenizer_config.json` chat template; vLLM's
`deepseek_v31` and SGLang's `deepseekv31` parsers)::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>...<｜tool▁calls▁end｜>

The bars are U+FF5C (full width) and the spaces U+2581; the markers are special tokens:
a log must keep them (`skip_special_tokens=False`). DeepSeek V3 / R1 write
`function<｜tool▁sep｜>NAME` and a fenced object instead (`deepseek-v3`); `detect` tells
them apart by that `function<｜tool▁sep｜>` right after the call marker.

Rules:

* Reasoning: `<think>...</think>` blocks (`_text.outside_reasoning`: in thinking mode the
  prompt ends with `<think>`, so a `</think>` with no `<think>` before it closes a block
  the prompt opened). Markers inside them are not calls; their text is the reasoning.
* A call block is the text after `<｜tool▁call▁begin｜>` up to `<｜tool▁call▁end｜>`, or up to
  the next call or section marker or the end of the text (cut off); blocks are read
  wherever they are, inside a section or not (`_text.special_token_blocks`).
* In a block, the text before `<｜tool▁sep｜>` (whitespace at its ends stripped) is the
  name, the text after it (stripped) the arguments: the JSON text of an object, else
  kept as `raw_arguments` with `{}`. No id.
* A block without `<｜tool▁sep｜>` is unreadable: name `""`, its text (stripped) in
  `raw_arguments`.
* Content: the text outside the blocks and think blocks, section markers and stray
  `<｜tool▁call▁end｜>` removed, other text kept, whitespace at both ends stripped; None
  when empty.
"""

from __future__ import annotations

from toolsift._pure.calls import tool_call
from toolsift._types import ToolCall

from . import Parsed, Tools
from ._text import WHITESPACE, nameless, parse_special_tokens
from .deepseek_v3 import (
    CALL_BEGIN,
    CALL_END,
    PREFIX,
    SECTION_MARKERS,
    SEPARATOR,
    V3_CALL,
)
from .deepseek_v3 import STREAM as STREAM  # V3's markers end its calls too


def detect(text: str) -> bool:
    """Whether the text holds DeepSeek's call markers without V3's `function` type."""
    return (SECTION_MARKERS[0] in text or CALL_BEGIN in text) and V3_CALL not in text


def parse(text: str, tools: Tools | None) -> Parsed:
    return parse_special_tokens(
        text, PREFIX, ((CALL_BEGIN,), (CALL_END,), SECTION_MARKERS), block_call
    )


def block_call(block: str) -> ToolCall:
    at = block.find(SEPARATOR)
    if at == -1:
        return nameless(block)
    name = block[:at].strip(WHITESPACE)
    return tool_call(name, None, block[at + len(SEPARATOR) :].strip(WHITESPACE))
