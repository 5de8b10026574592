"""OpenAI Chat Completions: the spec walker of `OpenAIResponseParser` (the Rust twin is
`src/formats/openai.rs`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.calls import RawCall
from toolsift._pure.nodes import elements, field

NAME = "openai"
PARSER_CLASS = "OpenAIResponseParser"
WHERE = "`choices[].message.tool_calls[].function.{name, arguments}`"
ID = "`tool_calls[].id`"


def detect(doc: Any) -> bool:
    """A chat completion: a `choices` list."""
    return isinstance(doc, dict) and isinstance(doc.get("choices"), list)


def calls(doc: Any) -> Iterator[RawCall]:
    """`choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`."""
    for choice in elements(field(doc, "choices")):
        for call in elements(field(field(choice, "message"), "tool_calls")):
            function = field(call, "function")
            if function is None:
                continue
            yield field(function, "name"), field(call, "id"), field(function, "arguments")
