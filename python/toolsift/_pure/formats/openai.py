"""OpenAI Chat Completions: the spec walker of `OpenAIResponseParser` (the Rust twin is
`src/formats/openai.rs`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.calls import RawCall, Verbatim
from toolsift._pure.nodes import elements, field

NAME = "openai"
PARSER_CLASS = "OpenAIResponseParser"
WHERE = (
    "`choices[].message.tool_calls[].function.{name, arguments}`; custom tools "
    "`tool_calls[].custom.{name, input}` (the `input` text in `raw_arguments`, arguments "
    "`{}`); legacy `message.function_call.{name, arguments}`"
)
ID = "`tool_calls[].id` (none for `function_call`)"


def detect(doc: Any) -> bool:
    """A chat completion: a `choices` list."""
    return isinstance(doc, dict) and isinstance(doc.get("choices"), list)


def calls(doc: Any) -> Iterator[RawCall]:
    """`choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`."""
    for choice in elements(field(doc, "choices")):
        yield from message_calls(field(choice, "message"))


def message_calls(message: Any) -> Iterator[RawCall]:
    """A chat message's `tool_calls[]`: `function.{name, arguments}`, or a custom tool's
    `custom.{name, input}` (free text), with `tool_calls[].id`; then a legacy
    `function_call.{name, arguments}` (no id). Ollama's and Cohere v2's messages have the
    same `tool_calls` shape."""
    for call in elements(field(message, "tool_calls")):
        function = field(call, "function")
        if function is not None:
            yield field(function, "name"), field(call, "id"), field(function, "arguments")
            continue
        custom = field(call, "custom")
        if custom is not None:
            yield field(custom, "name"), field(call, "id"), Verbatim(field(custom, "input"))
    function = field(message, "function_call")
    if function is not None:
        yield field(function, "name"), None, field(function, "arguments")
