"""Cohere Chat API v2 (`client.v2.chat`): `V2ChatResponse`.

Calls are `message.tool_calls[]` (`{id, type: "function", function: {name,
arguments}}`, `arguments` a JSON string); their id is the call's `id`. The Rust twin is
`src/formats/cohere.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.formats import openai
from toolsift._pure.nodes import field

NAME = "cohere"
PARSER_CLASS = "CohereResponseParser"
WHERE = "`message.tool_calls[].function.{name, arguments}` (Chat API v2)"
ID = "`tool_calls[].id`"

# `ChatFinishReason` of the v2 API.
FINISH_REASONS = frozenset(
    {"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"}
)


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`: an OpenAI
    chat message's calls."""
    return openai.message_calls(field(doc, "message"))


def detect(doc: Any) -> bool:
    """A `message` object with a `tool_calls`, `content` or `tool_plan` member, and a
    `finish_reason` of the v2 API's enum."""
    if not isinstance(doc, dict):
        return False
    message = doc.get("message")
    reason = doc.get("finish_reason")
    return (
        isinstance(message, dict)
        and any(key in message for key in ("tool_calls", "content", "tool_plan"))
        and isinstance(reason, str)
        and reason in FINISH_REASONS
    )
