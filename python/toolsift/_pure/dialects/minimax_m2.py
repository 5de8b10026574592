"""MiniMax-M2 tool calls (`minimax-m2`): the specification (the Rust twin:
`src/dialects/minimax_m2.rs`).

Syntax (MiniMaxAI/MiniMax-M2's chat template; vLLM's `minimax_m2` parser, SGLang's
`minimax-m2` detector)::

    <think>...reasoning...</think>
    <minimax:tool_call>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    </invoke>
    <invoke name="get_time">
    </invoke>
    </minimax:tool_call>

* One `<minimax:tool_call>` block holds one or more invokes, read by the invoke rules of
  `_xmlcalls` with INVOKE_OPEN `<invoke name="`, NAME_END `">`, INVOKE_CLOSE
  `</invoke>`, PARAM_OPEN `<parameter name="`, HEAD_END `">` (the head is the key),
  PARAM_CLOSE `</parameter>`, CLOSE `</minimax:tool_call>`. Only the template's double
  quotes are read (vLLM also takes single quotes and bare names).
* A value is the text as written (the template writes it inline; not trimmed), typed by
  the tool's schema (`_schema`; the template writes non-string values as JSON).
* Reasoning: `<think>...</think>` blocks (MiniMax-M2 thinks between calls, so there may
  be several), and the text before a `</think>` that no `<think>` precedes.
* `detect`: the text holds `<minimax:tool_call>`.
"""

from __future__ import annotations

from . import Parsed, Tools
from ._xmlcalls import (
    InvokeSyntax,
    invoke_reader,
    plain_key,
    plain_param,
    split,
    stream_spec,
)

OPEN = "<minimax:tool_call>"

SYNTAX = InvokeSyntax(
    close="</minimax:tool_call>",
    invoke_open='<invoke name="',
    name_end='">',
    invoke_close="</invoke>",
    param_open='<parameter name="',
    head_end='">',
    param_close="</parameter>",
    key_of=plain_key,
    param=plain_param,
)
STREAM = stream_spec(SYNTAX)


def detect(text: str) -> bool:
    return OPEN in text


def parse(text: str, tools: Tools | None) -> Parsed:
    return split(text, ("<think>", "</think>"), [(OPEN, invoke_reader(SYNTAX))], tools)
