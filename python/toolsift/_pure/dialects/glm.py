"""GLM-4.5 / 4.6 / 4.7 tool calls (`glm`): the specification (the Rust twin:
`src/dialects/glm.rs`).

Syntax (the GLM-4.5, GLM-4.6 and GLM-4.7 chat templates; vLLM's `glm45` / `glm47`
parsers, SGLang's `glm45` / `glm47` detectors)::

    <tool_call>get_weather
    <arg_key>city</arg_key>
    <arg_value>Paris</arg_value>
    </tool_call>

    <tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>

The first is GLM-4.5/4.6's (a newline after the name and after each value), the second
GLM-4.7's (none). The grammar::

    block := "<tool_call>" NAME ws (arg ws)* "</tool_call>"
    arg   := "<arg_key>" KEY "</arg_key>" ws "<arg_value>" VALUE "</arg_value>"

* NAME is the text up to the first `<`, stripped of whitespace; KEY the text between its
  markers, stripped (as vLLM does). An empty NAME and no argument: an empty block, no
  call.
* VALUE is the text as written (not trimmed: the templates write it inline), ending at
  the first `</arg_value>` followed (after whitespace) by `<arg_key>`, `</tool_call>` or
  the end of the text; it is typed by the tool's schema (`_schema`; the templates write
  non-string values as JSON), a string without tools.
* A block that does not follow the grammar (a missing `</tool_call>` at the end of the
  text included: without it a cut-off call cannot be told from a whole one, as GLM has
  no end-of-call marker of its own) is one malformed call: NAME where it was read (else
  `""`), arguments `{}`, in `raw_arguments` the text after `<tool_call>` up to the first
  `</tool_call>` (or the end of the text); scanning resumes after it.
* Reasoning: `<think>...</think>` blocks, and the text before a `</think>` that no
  `<think>` precedes (GLM's templates open the think block in the prompt). Content and
  reasoning as `_xmlcalls` says.
* `detect`: a `<tool_call>` followed (after whitespace) by a name (not starting with `{`,
  `[` or `<`) that runs to `<arg_key>` or `</tool_call>`: so Hermes' JSON and
  Qwen3-Coder's `<function=` are never taken for GLM.
"""

from __future__ import annotations

from ..._types import ToolCall
from ..calls import tool_call
from . import Parsed, Spec, Tools
from ._schema import object_text, typed_value
from ._text import WHITESPACE, skip_space
from ._xmlcalls import Finder, split, value_close

OPEN = "<tool_call>"
CLOSE = "</tool_call>"
KEY_OPEN = "<arg_key>"
KEY_CLOSE = "</arg_key>"
VALUE_OPEN = "<arg_value>"
VALUE_CLOSE = "</arg_value>"
STREAM = Spec(ends=(CLOSE,), param_close=VALUE_CLOSE, call_close=CLOSE)


def detect(text: str) -> bool:
    """Whether a `<tool_call>` is followed by a name that runs to `<arg_key>` or
    `</tool_call>`."""
    found = text.find(OPEN)
    while found != -1:
        start = skip_space(text, found + len(OPEN))
        name_end = text.find("<", start)
        if (
            name_end > start
            and text[start] not in "{["
            and text.startswith((KEY_OPEN, CLOSE), name_end)
        ):
            return True
        found = text.find(OPEN, max(name_end, start))
    return False


def read_block(finder: Finder, pos: int, tools: Tools | None) -> tuple[list[ToolCall], int]:
    """The call of the block whose content starts at `pos`, and where the block ends."""
    text = finder.text
    start = pos
    name_end = finder.find("<", pos)
    name_end = len(text) if name_end == -1 else name_end
    name = text[pos:name_end].strip(WHITESPACE)
    pairs: list[tuple[str, str]] = []
    pos = name_end
    while name and ">" not in name:
        pos = skip_space(text, pos)
        if text.startswith(CLOSE, pos):
            return [tool_call(name, None, object_text(pairs))], pos + len(CLOSE)
        if not text.startswith(KEY_OPEN, pos):
            break
        key_end = finder.find(KEY_CLOSE, pos + len(KEY_OPEN))
        if key_end == -1:
            break
        key = text[pos + len(KEY_OPEN) : key_end].strip(WHITESPACE)
        value_start = skip_space(text, key_end + len(KEY_CLOSE))
        if not key or not text.startswith(VALUE_OPEN, value_start):
            break
        value_start += len(VALUE_OPEN)
        value_end = value_close(finder, value_start, VALUE_CLOSE, (KEY_OPEN, CLOSE))
        if value_end == -1:
            break
        schema = tools.parameter(name, key) if tools is not None else None
        pairs.append((key, typed_value(text[value_start:value_end], schema)))
        pos = value_end + len(VALUE_CLOSE)
    if not name and text.startswith(CLOSE, name_end):
        return [], name_end + len(CLOSE)
    end = finder.find(CLOSE, start)
    stop = len(text) if end == -1 else end
    malformed = ToolCall(name if ">" not in name else "", {}, None, text[start:stop])
    return [malformed], stop if end == -1 else end + len(CLOSE)


def parse(text: str, tools: Tools | None) -> Parsed:
    return split(text, ("<think>", "</think>"), [(OPEN, read_block)], tools)
