"""Open-weight models' raw text: one module per tool-call dialect (the specification).

Each module here is the pure-Python specification of one dialect; `src/dialects/<module>.rs`
follows it line by line, and `tests/vectors/dialects/<name>.json` holds both to one truth.
A module has `detect(text) -> bool` (whether the text holds the dialect's own markers;
always False for bare-JSON dialects, which are never guessed; dialects sharing a marker
are told apart by what follows it), `parse(text, tools) -> Parsed`, and `STREAM`: the
`Spec` that tells its text streams (`_stream.py`) when a call is complete.

The rules every dialect keeps:

* text with no markers gives no call;
* a block the dialect's markers open whose content cannot be read (cut off, broken JSON)
  is kept as a call with the name where the dialect can read it (else `""`), arguments
  `{}` and the block's text in `raw_arguments`: never arguments the text does not hold;
* markers inside a reasoning block are not calls;
* values carried as text (XML-style dialects) are typed by the tool's JSON Schema when
  `tools` are given (`Tools`), else kept as strings; never guessed from the text alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType
from typing import Any, NamedTuple

from ..._types import ToolCall
from ..tools import read_definitions


class Parsed(NamedTuple):
    """What a dialect found in one output."""

    tool_calls: list[ToolCall]
    #: The text outside the calls, markers removed; None when there is none.
    content: str | None
    #: The text of the reasoning blocks; None when there is none.
    reasoning: str | None


class Tools:
    """The tools a request declared (OpenAI-style definitions): each tool's parameters
    schema by name, for typing values the text carries as strings."""

    __slots__ = ("_parameters",)

    def __init__(self, definitions: Iterable[Any]) -> None:
        """Reads tool definitions, any shape `toolsift._pure.tools` reads."""
        value = definitions if isinstance(definitions, (list, dict)) else list(definitions)
        self._parameters: dict[str, Any] = read_definitions(value)

    def parameter(self, name: str, key: str) -> Any:
        """The schema of parameter `key` of tool `name`, where declared (else None)."""
        schema = self._parameters.get(name)
        properties = schema.get("properties") if isinstance(schema, dict) else None
        return properties.get(key) if isinstance(properties, dict) else None


from ._text import THINK  # noqa: E402  (it imports Parsed)


class Spec(NamedTuple):
    """How a dialect's text stream (`_stream.py`) tells that a call is complete: each
    dialect module's `STREAM`."""

    #: Markers that close a block: its calls are complete, and reading may resume after.
    ends: tuple[str, ...] = ()
    #: Markers that close one call inside a block (the block goes on).
    inner_ends: tuple[str, ...] = ()
    #: Markers that open a block and so end the one before (a block cannot run past them).
    starts: tuple[str, ...] = ()
    #: Openers of call objects or lists with no end marker: the bracket closing one
    #: (back to depth 0, or 1 for an item of a list) completes its calls.
    brackets: str = ""
    #: The quotes of strings inside those brackets (brackets in strings do not count).
    quotes: str = '"'
    #: The reasoning blocks' markers (open, close).
    think: tuple[tuple[str, str], ...] = (THINK,)
    #: Text that stands for the blocks before the resume point, where the dialect reads
    #: the text differently once a block was seen (pythonic: no bare list then).
    seen: str = ""
    #: XML-parameter dialects: the close of a parameter and of a call, for `partial()`.
    param_close: str = ""
    call_close: str = ""


# The dialect modules use Parsed, Tools and Spec above: imported after them.
from . import (  # noqa: E402
    deepseek_dsml,
    deepseek_v3,
    deepseek_v31,
    glm,
    granite,
    harmony,
    hermes,
    kimi_k2,
    llama3_json,
    minimax_m2,
    mistral,
    pythonic,
    qwen3_coder,
    seed_oss,
    xlam,
)

#: The dialects by name, in auto-detection order (the Rust `dialects!` lists the same).
DIALECTS: dict[str, ModuleType] = {
    "seed-oss": seed_oss,
    "qwen3-coder": qwen3_coder,
    "glm": glm,
    "minimax-m2": minimax_m2,
    "deepseek-dsml": deepseek_dsml,
    "deepseek-v3.1": deepseek_v31,
    "deepseek-v3": deepseek_v3,
    "kimi-k2": kimi_k2,
    "harmony": harmony,
    "pythonic": pythonic,
    "mistral": mistral,
    "granite": granite,
    "hermes": hermes,
    "llama3-json": llama3_json,
    "xlam": xlam,
}


def detected(text: str) -> str | None:
    """The first dialect (registry order) whose markers `text` holds."""
    return next((name for name, module in DIALECTS.items() if module.detect(text)), None)
