"""Seed-OSS tool calls (`seed-oss`): the specification (the Rust twin:
`src/dialects/seed_oss.rs`).

Syntax (ByteDance-Seed/Seed-OSS-36B-Instruct's chat template; vLLM's `seed_oss`
parser, which shares the Qwen3-Coder grammar with other wrapper markers)::

    <seed:think>...reasoning...</seed:think>
    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    </function>
    </seed:tool_call>

* The blocks are `qwen3_coder`'s with CLOSE `</seed:tool_call>` inside
  `<seed:tool_call>`: the same invoke rules, values trimmed of one newline on each side
  and typed by the schema.
* Reasoning: `<seed:think>...</seed:think>` blocks (the budget reflections inside, such
  as `<seed:cot_budget_reflect>`, are part of the reasoning text), and the text before a
  `</seed:think>` that no `<seed:think>` precedes.
* `detect`: the text holds `<seed:tool_call>`.
"""

from __future__ import annotations

from . import Parsed, Tools
from ._xmlcalls import invoke_reader, split, stream_spec
from .qwen3_coder import SYNTAX as QWEN3_CODER

OPEN = "<seed:tool_call>"
SYNTAX = QWEN3_CODER._replace(close="</seed:tool_call>")
THINK = ("<seed:think>", "</seed:think>")
STREAM = stream_spec(SYNTAX, (THINK,))


def detect(text: str) -> bool:
    return OPEN in text


def parse(text: str, tools: Tools | None) -> Parsed:
    return split(text, THINK, [(OPEN, invoke_reader(SYNTAX))], tools)
