"""The formats toolsift reads, listed once for the public layer: each format's name (the
`--format` choice), its parser class, where its calls are and what its `ToolCall.id` is
(the format table of the README and docs/formats.md). The parser classes, the CLI, the
engines and the tests read this table; so do both backends' registries, which add how a
format is read (the pure `toolsift._pure.formats`, the Rust `formats!` in
`src/formats/mod.rs`), in this order (tests/test_registry.py checks both).

A leaf module: it imports nothing of toolsift, so reading the names loads no backend.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "AUTO",
    "AUTO_PARSER_CLASS",
    "FORMATS",
    "NAMES",
    "WALKED",
    "Format",
    "by_name",
    "described",
    "markdown_table",
    "parser_classes",
]


@dataclass(frozen=True)
class Format:
    """What the public layer knows of one format (how it is read is the backends' part)."""

    name: str
    parser_class: str
    where: str
    """Where the calls are, as Markdown (one line of the format table)."""
    id: str
    """What `ToolCall.id` is, as Markdown."""
    walked: bool
    """Read by walking one JSON document, and so a candidate of auto-detection (`json`
    takes options; `litert` reads text)."""


FORMATS: tuple[Format, ...] = (
    Format(
        name="openai",
        parser_class="OpenAIResponseParser",
        where=(
            "`choices[].message.tool_calls[].function.{name, arguments}`; custom tools "
            "`tool_calls[].custom.{name, input}` (the `input` text in `raw_arguments`, "
            "arguments `{}`); legacy `message.function_call.{name, arguments}`"
        ),
        id="`tool_calls[].id` (none for `function_call`)",
        walked=True,
    ),
    Format(
        name="openai-responses",
        parser_class="OpenAIResponsesParser",
        where=(
            '`output[]` items of `type: "function_call"` (`name`, `arguments`) and '
            '`"custom_tool_call"` (`name`, `input` text: in `raw_arguments`, arguments '
            "`{}`); the items of built-in tools (server-run, and `computer_call`, "
            "`local_shell_call`, `shell_call`, `apply_patch_call`) give none; an item's "
            "`namespace` (of a namespace tool) is not kept"
        ),
        id="the item's `call_id` (not its `id`)",
        walked=True,
    ),
    Format(
        name="anthropic",
        parser_class="AnthropicResponseParser",
        where=(
            '`content[]` blocks of `type: "tool_use"` (`name`, `input`); `server_tool_use` '
            "and other blocks give none"
        ),
        id="the block's `id`",
        walked=True,
    ),
    Format(
        name="gemini",
        parser_class="GeminiResponseParser",
        where=(
            "`candidates[].content.parts[].function_call.{name, args}`, or REST "
            "`functionCall`; a Live API message's `tool_call.function_calls[]` (REST "
            "`toolCall.functionCalls`)"
        ),
        id="`function_call.id`",
        walked=True,
    ),
    Format(
        name="gemini-interactions",
        parser_class="GeminiInteractionsParser",
        where=(
            '`steps[]` of `type: "function_call"` (`name`, `arguments`; `outputs[]` before '
            "the May 2026 schema); the steps of built-in and remote tools give none"
        ),
        id="the step's `id`",
        walked=True,
    ),
    Format(
        name="bedrock",
        parser_class="BedrockConverseParser",
        where=(
            "`output.message.content[].toolUse.{name, input}` (Converse API); a `toolUse` of "
            '`type: "server_tool_use"` gives none'
        ),
        id="`toolUse.toolUseId`",
        walked=True,
    ),
    Format(
        name="ollama",
        parser_class="OllamaResponseParser",
        where=(
            "`message.tool_calls[].function.{name, arguments}` (`/api/chat`; `arguments` an "
            "object, or a JSON string)"
        ),
        id="`tool_calls[].id` where present",
        walked=True,
    ),
    Format(
        name="cohere",
        parser_class="CohereResponseParser",
        where=(
            "`message.tool_calls[].function.{name, arguments}` (Chat API v2); v1: the "
            "response's `tool_calls[].{name, parameters}`"
        ),
        id="`tool_calls[].id` (v2; v1 calls have none)",
        walked=True,
    ),
    Format(
        name="json",
        parser_class="JsonResponseParser",
        where=(
            'the dot path `tool_calls_key` (keywords: `tool_calls_key="tool_calls"`, '
            '`name_key="name"`, `arguments_key="arguments"`, `single=False`); `single` for '
            "one object; a list input is searched item by item, first hit wins; entries "
            "without a (non-empty string) name are skipped; a key that is not a `str` is a "
            "`TypeError`"
        ),
        id="the entry's `id`",
        walked=False,
    ),
    Format(
        name="litert",
        parser_class="SdkResponseParser",
        where=(
            "LiteRT-LM / Gemma 4: top-level `tool_calls`, `content[]` items of type "
            "`tool_call`, glued JSON documents, raw Gemma 4 tool-call tokens (see below)"
        ),
        id="the item's `id`",
        walked=False,
    ),
)
"""Every format, in registry order: the walked ones (auto-detection order), then `json`
and `litert`."""

NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS)

WALKED: tuple[str, ...] = tuple(f.name for f in FORMATS if f.walked)
"""The names of the formats auto-detection tries, in its order."""

AUTO = "auto"
"""`--format auto` (`AutoResponseParser`): each response read as the first of `WALKED`
that recognizes it."""

AUTO_PARSER_CLASS = "AutoResponseParser"


def by_name(name: str) -> Format:
    """The format called `name`, or a ValueError that lists the valid names."""
    for format in FORMATS:
        if format.name == name:
            return format
    raise ValueError(f"unknown format {name!r}; expected one of: {', '.join((*NAMES, AUTO))}")


def described(name: str) -> tuple[str, str, str]:
    """`(parser_class, where, id)` of the format called `name` (the pure format modules'
    `PARSER_CLASS`, `WHERE` and `ID`)."""
    format = by_name(name)
    return format.parser_class, format.where, format.id


def parser_classes() -> dict[str, str]:
    """Format name -> parser class name, for every format and `auto` (the CLI's and the
    engines' choices)."""
    return {**{f.name: f.parser_class for f in FORMATS}, AUTO: AUTO_PARSER_CLASS}


def markdown_table() -> str:
    """The format table of the README and docs/formats.md (tests/test_registry.py checks both)."""
    rows = ["| `--format` | parser | where the calls are | `ToolCall.id` |", "|---|---|---|---|"]
    rows += [f"| `{f.name}` | `{f.parser_class}` | {f.where} | {f.id} |" for f in FORMATS]
    return "\n".join(rows)
