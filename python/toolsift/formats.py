# ruff: noqa: RUF001  (DeepSeek's markers are written with U+FF5C, the full-width bar)
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
    "AUTO_TEXT",
    "DIALECTS",
    "DIALECT_NAMES",
    "FORMATS",
    "NAMES",
    "RAW_TEXT_PARSER_CLASS",
    "WALKED",
    "Dialect",
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
    Format(
        name="messages",
        parser_class="MessagesParser",
        where=(
            "a conversation: a list of chat messages (or a record's `messages`, or Gemini "
            "`contents`, list; or one assistant message): every assistant turn's OpenAI "
            "`tool_calls`, Anthropic `tool_use` blocks, Gemini `functionCall` parts (raw "
            "text with `text_dialect=`), each with its `turn` and its tool's `result`"
        ),
        id="the call's id (`tool_call_id` / `tool_use_id` pair it with its result)",
        walked=False,
    ),
)
"""Every format, in registry order: the walked ones (auto-detection order), then `json`,
`litert` and `messages` (auto-detection tries `messages` after the walked ones)."""


@dataclass(frozen=True)
class Dialect:
    """What the public layer knows of one raw-text tool-call dialect (how it is read is the
    backends' part: `toolsift._pure.dialects`, the Rust `dialects!`)."""

    name: str
    syntax: str
    """The syntax in brief, as Markdown."""
    models: str
    needs: str
    """What a text needs to be read fully: its special tokens kept (a log decoded with
    `skip_special_tokens=False`), `tools` for schema typing; as Markdown."""


_TOKENS = "special tokens kept"
_SCHEMA = "`tools` to type values (else strings)"

DIALECTS: tuple[Dialect, ...] = (
    Dialect(
        "seed-oss",
        "`<seed:tool_call><function=NAME><parameter=KEY>value</parameter></function>"
        "</seed:tool_call>`, after a `<seed:think>` block",
        "Seed-OSS",
        _SCHEMA,
    ),
    Dialect(
        "qwen3-coder",
        "`<tool_call><function=NAME><parameter=KEY>value</parameter>...</function></tool_call>`",
        "Qwen3-Coder, Qwen3.5 coder-style",
        _SCHEMA,
    ),
    Dialect(
        "glm",
        "`<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>...</tool_call>`",
        "GLM-4.5, 4.6, 4.7",
        _SCHEMA,
    ),
    Dialect(
        "minimax-m2",
        '`<minimax:tool_call><invoke name="..."><parameter name="...">v</parameter></invoke>'
        "</minimax:tool_call>`",
        "MiniMax-M2",
        _SCHEMA,
    ),
    Dialect(
        "deepseek-dsml",
        '`<｜DSML｜invoke name="...">` / `<｜DSML｜parameter name="..." string="true|false">`',
        "DeepSeek V3.2, V4",
        _SCHEMA,
    ),
    Dialect(
        "deepseek-v3.1",
        "`<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>`",
        "DeepSeek V3.1, V3.2-Exp",
        _TOKENS,
    ),
    Dialect(
        "deepseek-v3",
        "`<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` and a ```` ```json ```` fenced object",
        "DeepSeek V3, R1",
        _TOKENS,
    ),
    Dialect(
        "kimi-k2",
        "`<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX"
        "<|tool_call_argument_begin|>{...}<|tool_call_end|>` (id `functions.NAME:IDX`)",
        "Kimi K2",
        _TOKENS,
    ),
    Dialect(
        "harmony",
        "`<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>`",
        "gpt-oss",
        _TOKENS,
    ),
    Dialect(
        "pythonic",
        "`[get_weather(city='SF', days=3), ...]`, also in `<|python_start|>...` or "
        "`<|tool_call_start|>...`",
        "Llama 3.2 small / 4, OLMo 3, LFM2, ToolACE",
        "-",
    ),
    Dialect(
        "mistral",
        "`[TOOL_CALLS] [{...}, ...]` (before tokenizer v11), `[TOOL_CALLS]NAME{...}` per call "
        "(v11+, `[ARGS]` / `[CALL_ID]`)",
        "Mistral, Magistral, Devstral, Codestral",
        _TOKENS,
    ),
    Dialect(
        "granite",
        '`<|tool_call|>[{"name", "arguments"}]` (3.1: `<tool_call>[...]`)',
        "Granite 3.x",
        _TOKENS + " (3.0)",
    ),
    Dialect(
        "hermes",
        '`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, repeated',
        "Qwen2.5 / Qwen3, Hermes 2/3, Granite 4, most fine-tunes",
        "-",
    ),
    Dialect(
        "llama3-json",
        '`{"name": ..., "parameters": {...}}`, bare or after `<|python_tag|>`, joined by `;`',
        "Llama 3.1-3.3",
        "- (never auto-detected bare)",
    ),
    Dialect(
        "xlam",
        "a JSON array of `{name, arguments}`, bare, fenced or after `</think>`",
        "xLAM-2",
        "- (never auto-detected)",
    ),
)
"""The raw-text dialects (`RawTextParser`), in auto-detection order."""

DIALECT_NAMES: tuple[str, ...] = tuple(d.name for d in DIALECTS)

NAMES: tuple[str, ...] = tuple(f.name for f in FORMATS) + DIALECT_NAMES
"""Every `--format` name: the formats, then the raw-text dialects."""

AUTO_TEXT = "auto-text"
"""`RawTextParser("auto")`'s core format: each text read as the dialect whose markers it
holds."""

RAW_TEXT_PARSER_CLASS = "RawTextParser"

WALKED: tuple[str, ...] = tuple(f.name for f in FORMATS if f.walked)
"""The names of the formats auto-detection tries, in its order."""

AUTO = "auto"
"""`--format auto` (`AutoResponseParser`): each response read as the first of `WALKED`
that recognizes it."""

AUTO_PARSER_CLASS = "AutoResponseParser"


def dialect_table() -> str:
    """The dialect table of the README and docs/formats.md (tests/test_raw_text.py checks
    both)."""
    rows = ["| `--format` | syntax | models | needs |", "|---|---|---|---|"]
    for d in DIALECTS:
        cells = (f"`{d.name}`", d.syntax, d.models, d.needs)
        # A `|` inside a cell (in markers such as `<|call|>`) is escaped for the table.
        rows.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(rows)


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
    return {
        **{f.name: f.parser_class for f in FORMATS},
        **{name: RAW_TEXT_PARSER_CLASS for name in DIALECT_NAMES},
        AUTO: AUTO_PARSER_CLASS,
    }


def markdown_table() -> str:
    """The format table of the README and docs/formats.md (tests/test_registry.py checks both)."""
    rows = ["| `--format` | parser | where the calls are | `ToolCall.id` |", "|---|---|---|---|"]
    rows += [f"| `{f.name}` | `{f.parser_class}` | {f.where} | {f.id} |" for f in FORMATS]
    return "\n".join(rows)
