"""Gemini `generateContent` responses: the spec walker of `GeminiResponseParser` (the Rust
twin is `src/formats/gemini.rs`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.calls import RawCall
from toolsift._pure.nodes import elements, field
from toolsift._pure.stream import Accumulator

NAME = "gemini"
PARSER_CLASS = "GeminiResponseParser"
WHERE = "`candidates[].content.parts[].function_call.{name, args}`, or REST `functionCall`"
ID = "`function_call.id`"


def detect(doc: Any) -> bool:
    """A `GenerateContentResponse`: a `candidates` list."""
    return isinstance(doc, dict) and isinstance(doc.get("candidates"), list)


def calls(doc: Any) -> Iterator[RawCall]:
    """`candidates[].content.parts[].function_call` (or REST `functionCall`)."""
    for candidate in elements(field(doc, "candidates")):
        for part in elements(field(field(candidate, "content"), "parts")):
            call = field(part, "function_call")
            if call is None:
                call = field(part, "functionCall")
            if call is None:
                continue
            yield field(call, "name"), field(call, "id"), field(call, "args")


# The stream reader: `streamGenerateContent` chunks.

STREAM_WHERE = "each chunk's `function_call` parts, whole calls (complete as they come)"


def stream_detect(event: Any) -> bool:
    """A `GenerateContentResponse` chunk: a `candidates` list."""
    return isinstance(field(event, "candidates"), (list, tuple))


def stream_event(event: Any, acc: Accumulator) -> None:
    """Every call of the chunk, whole."""
    for name, id, arguments in calls(event):
        acc.whole_call(name, id, arguments)
