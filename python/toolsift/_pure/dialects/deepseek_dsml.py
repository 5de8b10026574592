# ruff: noqa: RUF002  (the docstring shows the tokens as the model writes them)
"""DeepSeek V3.2 / V4 DSML tool calls (`deepseek-dsml`): the specification (the Rust
twin: `src/dialects/deepseek_dsml.rs`).

Syntax (DeepSeek-V3.2's `encoding/encoding_dsv32.py` and V4's encoding; vLLM's
`deepseek_v32` / `deepseek_v4` parsers). `｜` is U+FF5C FULLWIDTH VERTICAL LINE::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">杭州</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

* The block is `<｜DSML｜function_calls>` (V3.2) or `<｜DSML｜tool_calls>` (V4), closed by
  the matching `</｜DSML｜function_calls>` / `</｜DSML｜tool_calls>`, holding one or more
  invokes, read by the invoke rules of `_xmlcalls` with INVOKE_OPEN
  `<｜DSML｜invoke name="`, NAME_END `">`, INVOKE_CLOSE `</｜DSML｜invoke>`, PARAM_OPEN
  `<｜DSML｜parameter name="`, HEAD_END `>`, PARAM_CLOSE `</｜DSML｜parameter>`.
* The head is `KEY"` then ` string="true"`, ` string="false"` or nothing; anything else
  makes the invoke malformed. The value is the text as written (not trimmed):
  `string="true"`: a string, as written, whatever the schema; `string="false"`: the text
  as JSON (the project's parser) when it is one JSON value, else the text as a string;
  no `string` attribute: typed by the tool's schema (`_schema`), a string without tools
  (vLLM reads it as JSON when it can: a type is not guessed from the text here).
* Reasoning: `<think>...</think>` blocks, and the text before a `</think>` that no
  `<think>` precedes (thinking mode opens the block in the prompt).
* `detect`: the text holds `<｜DSML｜function_calls>` or `<｜DSML｜tool_calls>`.
"""

from __future__ import annotations

from . import Parsed, Tools
from ._schema import json_or_text, json_string, typed_value
from ._xmlcalls import InvokeSyntax, invoke_reader, split, stream_spec

DSML = "\uff5cDSML\uff5c"  # U+FF5C FULLWIDTH VERTICAL LINE
OPENS = (f"<{DSML}function_calls>", f"<{DSML}tool_calls>")


def key_of(head: str) -> str | None:
    """The key: the head up to its closing quote."""
    key, quote, _ = head.partition('"')
    return key if quote else None


def param(head: str, value: str, schema: object) -> str | None:
    """The value's JSON text, by the head's `string` attribute."""
    attribute = head.partition('"')[2]
    if attribute == ' string="true"':
        return json_string(value)
    if attribute == ' string="false"':
        return json_or_text(value)
    if attribute == "":
        return typed_value(value, schema)
    return None


def syntax(close: str) -> InvokeSyntax:
    return InvokeSyntax(
        close=close,
        invoke_open=f'<{DSML}invoke name="',
        name_end='">',
        invoke_close=f"</{DSML}invoke>",
        param_open=f'<{DSML}parameter name="',
        head_end=">",
        param_close=f"</{DSML}parameter>",
        key_of=key_of,
        param=param,
    )


BLOCKS = [(opener, invoke_reader(syntax("</" + opener[1:]))) for opener in OPENS]
#: Its own invoke's close ends a call, either block's close a block.
STREAM = stream_spec(syntax(""))._replace(ends=tuple("</" + opener[1:] for opener in OPENS))


def detect(text: str) -> bool:
    return any(opener in text for opener in OPENS)


def parse(text: str, tools: Tools | None) -> Parsed:
    return split(text, ("<think>", "</think>"), BLOCKS, tools)
