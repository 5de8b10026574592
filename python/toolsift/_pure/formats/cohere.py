"""Cohere Chat API v2 (`client.v2.chat`): `V2ChatResponse`.

Calls are `message.tool_calls[]` (`{id, type: "function", function: {name,
arguments}}`, `arguments` a JSON string); their id is the call's `id`. The Rust twin is
`src/formats/cohere.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.formats import openai
from toolsift._pure.nodes import field, is_str
from toolsift._pure.stream import Accumulator, append, index_of, set_id, set_name, typed_event

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


# The stream reader: v2 chat stream events.

STREAM_WHERE = (
    "`tool-call-start` (`delta.message.tool_calls {id, function{name, arguments}}`), "
    "`tool-call-delta` (`...function.arguments`), keyed by `index`; a call completes at "
    "its `tool-call-end`"
)

STREAM_TYPES = frozenset(
    (
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    )
)


def stream_detect(event: Any) -> bool:
    """A v2 chat stream event: its `type` is one of `STREAM_TYPES`."""
    return typed_event(event, STREAM_TYPES)


def stream_event(event: Any, acc: Accumulator) -> None:
    """`tool-call-start` starts a call (name, id, any first arguments), `tool-call-delta`
    appends `arguments`, `tool-call-end` completes it; `message-end` completes all."""
    kind = field(event, "type")
    index = index_of(field(event, "index"))
    if is_str(kind, "tool-call-start"):
        slot = acc.slot(acc.new_key(0) if index is None else (0, index))
        acc.latest[0] = slot
    elif is_str(kind, "tool-call-delta") or is_str(kind, "tool-call-end"):
        found = acc.latest.get(0) if index is None else acc.existing((0, index))
        if found is None:
            return
        slot = found
    else:
        if is_str(kind, "message-end"):
            acc.complete_all()
        return
    call = field(field(field(event, "delta"), "message"), "tool_calls")
    function = field(call, "function")
    set_name(slot, field(function, "name"))
    set_id(slot, field(call, "id"))
    append(slot, field(function, "arguments"))
    if is_str(kind, "tool-call-end"):
        acc.complete(slot)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: `message-start`'s `id`; later events carry none."""
    if is_str(field(event, "type"), "message-start"):
        id = field(event, "id")
        return id if isinstance(id, str) and id else True
    return None
