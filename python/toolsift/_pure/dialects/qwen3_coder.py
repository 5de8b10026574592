"""Qwen3-Coder tool calls (`qwen3-coder`): the specification (the Rust twin:
`src/dialects/qwen3_coder.rs`).

Syntax (Qwen3-Coder's `chat_template.jinja`; vLLM's `qwen3_coder` / `qwen3_xml` parsers,
SGLang's `qwen3_coder` detector)::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

* One `<tool_call>` block per call (several `<function=...>` in one block are read in
  turn). The block is read by the invoke rules of `_xmlcalls` with INVOKE_OPEN
  `<function=`, NAME_END `>`, INVOKE_CLOSE `</function>`, PARAM_OPEN `<parameter=`,
  HEAD_END `>` (the head is the key), PARAM_CLOSE `</parameter>`, CLOSE `</tool_call>`.
* A value is the text between `<parameter=KEY>` and its `</parameter>` with one `\\n`
  removed from its start and one from its end (the template writes the value between
  two newlines; vLLM and SGLang remove exactly these), then typed by the tool's schema
  (`_schema`); without tools it is a string. The template writes objects and lists
  with `tojson` and every other value with `| string` (so `True`, `None`: Python's
  spelling, which `_schema` reads for `boolean` and `null`).
* Reasoning: `<think>...</think>` blocks (Qwen3.5 / thinking fine-tunes), and the text
  before a `</think>` that no `<think>` precedes. Content and reasoning as `_xmlcalls`
  says.
* `detect`: a `<tool_call>` followed (after whitespace) by `<function=`.
"""

from __future__ import annotations

from . import Parsed, Tools
from ._text import WHITESPACE
from ._xmlcalls import (
    InvokeSyntax,
    invoke_reader,
    plain_key,
    split,
    stream_spec,
    trimmed_param,
)

OPEN = "<tool_call>"
FUNCTION = "<function="

SYNTAX = InvokeSyntax(
    close="</tool_call>",
    invoke_open=FUNCTION,
    name_end=">",
    invoke_close="</function>",
    param_open="<parameter=",
    head_end=">",
    param_close="</parameter>",
    key_of=plain_key,
    param=trimmed_param,
)
STREAM = stream_spec(SYNTAX)


def detect(text: str) -> bool:
    """Whether a `<tool_call>` is followed (after whitespace) by `<function=`."""
    found = text.find(OPEN)
    while found != -1:
        after = found + len(OPEN)
        while after < len(text) and text[after] in WHITESPACE:
            after += 1
        if text.startswith(FUNCTION, after):
            return True
        found = text.find(OPEN, after)
    return False


def parse(text: str, tools: Tools | None) -> Parsed:
    return split(text, ("<think>", "</think>"), [(OPEN, invoke_reader(SYNTAX))], tools)
