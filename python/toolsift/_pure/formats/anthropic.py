"""Anthropic Messages API (`client.messages.create`): the `Message` object; also the
body Bedrock's InvokeModel returns for Claude models.

Calls are the `content[]` blocks of type `tool_use` (`name`, `input`: an object); their
id is the block's `id` (the one a `tool_result` answers). `server_tool_use` blocks (web
search, code execution, ... run by Anthropic), `mcp_tool_use` blocks and text/thinking
blocks give none. Message Batches results (`.jsonl`, one `MessageBatchIndividualResponse`
a line) are unwrapped by `unwrap_batch`. The Rust twin is `src/formats/anthropic.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._jsontext import dumps_compact
from toolsift._pure.accumulator import (
    ERROR_TYPE,
    Accumulator,
    Slot,
    append,
    index_of,
    set_name,
    set_whole,
    typed_event,
)
from toolsift._pure.calls import Turn
from toolsift._pure.nodes import elements, field, is_str
from toolsift.formats import described

NAME = "anthropic"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`content[]` blocks `tool_use`: `{id, name, input}`."""
    for block in elements(field(doc, "content")):
        if is_str(field(block, "type"), "tool_use"):
            yield field(block, "name"), field(block, "id"), field(block, "input")


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the `tool_use` blocks, and the `text` of the `text` blocks."""
    texts = [
        field(b, "text")
        for b in elements(field(doc, "content"))
        if is_str(field(b, "type"), "text")
    ]
    yield list(calls(doc)), texts


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """`model`, `id`, `stop_reason` (`toolsift._pure.context`)."""
    return field(doc, "model"), field(doc, "id"), field(doc, "stop_reason"), None


def detect(doc: Any) -> bool:
    """`"type": "message"`, `"role": "assistant"` and a `content` list."""
    return (
        isinstance(doc, dict)
        and is_str(doc.get("type"), "message")
        and is_str(doc.get("role"), "assistant")
        and isinstance(doc.get("content"), list)
    )


def unwrap_batch(doc: dict[str, Any]) -> tuple[Any, str | None, str | None] | None:
    """`(response, custom_id, error)` of a Message Batches result line: an object with
    `custom_id` and `result`; None for any other record.

    `result.type` says what happened: `succeeded` gives `result.message`; `errored`
    gives `batch error: TYPE: MESSAGE` from `result.error`, an ErrorResponse
    (`{"type": "error", "error": {"type", "message"}}`; a bare `{"type", "message"}`
    is read too, and anything else is described as the other envelopes' errors are);
    `canceled` and `expired` give `batch canceled` / `batch expired`; anything else is
    `unknown batch result type: T` (T as compact JSON), and a `result` that is not an
    object is `batch record has no response`.
    """
    if not ("custom_id" in doc and "result" in doc):
        return None
    custom_id = doc.get("custom_id")
    custom_id = custom_id if isinstance(custom_id, str) else None
    result = doc.get("result")
    if not isinstance(result, dict):
        return None, custom_id, "batch record has no response"
    kind = result.get("type")
    if is_str(kind, "succeeded"):
        message = result.get("message")
        if message is None:
            return None, custom_id, "batch record has no response"
        return message, custom_id, None
    if is_str(kind, "errored"):
        return None, custom_id, f"batch error: {_describe(result.get('error'))}"
    if is_str(kind, "canceled"):
        return None, custom_id, "batch canceled"
    if is_str(kind, "expired"):
        return None, custom_id, "batch expired"
    return None, custom_id, f"unknown batch result type: {dumps_compact(kind)}"


def _describe(error: Any) -> str:
    """An ErrorResponse as `TYPE: MESSAGE` (or `MESSAGE`); else as `bulk.describe`."""
    inner = error.get("error") if isinstance(error, dict) else None
    detail = inner if isinstance(inner, dict) else error
    if isinstance(detail, dict):
        message = detail.get("message")
        if isinstance(message, str):
            kind = detail.get("type")
            return f"{kind}: {message}" if isinstance(kind, str) else message
    if isinstance(error, str):
        return error
    return dumps_compact(error)


# The stream reader: Messages streaming events.

STREAM_WHERE = (
    "`content_block_start` `tool_use` blocks (`id`, `name`), `content_block_delta` "
    "`input_json_delta.partial_json`, keyed by the block's `index`; a call completes at "
    "its `content_block_stop`"
)

STREAM_TYPES = frozenset(
    (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    )
)


def stream_detect(event: Any) -> bool:
    """A Messages streaming event: its `type` is one of `STREAM_TYPES`."""
    return typed_event(event, STREAM_TYPES)


def is_stream_piece(doc: Any) -> bool:
    """An event of the stream given alone (a log that keeps only some events, or an
    `error` event): `parse` reads it as a stream of that one event. A `Message`'s `type`
    is `message`, no event's."""
    return stream_detect(doc) or typed_event(doc, ERROR_TYPE)


def stream_event(event: Any, acc: Accumulator) -> None:
    """`tool_use` blocks: started by `content_block_start` (its `input`, `{}`, stands
    where no fragment comes), `input_json_delta.partial_json` appended, completed by
    `content_block_stop`; `message_stop` completes every call of its message. A
    `message_start` begins a message whose block indices start again at 0: its blocks are
    a new group, so the calls of the messages before it stay as they are. An `error`
    event (`overloaded_error`, ...) is the stream's error."""
    slot: Slot | None  # started here, or looked up (None: not started)
    kind = field(event, "type")
    index = index_of(field(event, "index"))
    if is_str(kind, "message_start"):
        acc.message += 1
    elif is_str(kind, "content_block_start"):
        block = field(event, "content_block")
        if is_str(field(block, "type"), "tool_use"):
            slot = acc.start(acc.message, index)
            set_name(slot, field(block, "name"))
            acc.set_id(slot, field(block, "id"))
            set_whole(slot, field(block, "input"))
    elif is_str(kind, "content_block_delta"):
        delta = field(event, "delta")
        slot = acc.started(acc.message, index)
        if slot is not None and is_str(field(delta, "type"), "input_json_delta"):
            append(slot, field(delta, "partial_json"))
    elif is_str(kind, "content_block_stop"):
        slot = acc.started(acc.message, index)
        if slot is not None:
            acc.complete(slot)
    elif is_str(kind, "message_stop"):
        acc.complete_all(acc.message)
    elif is_str(kind, "error"):  # {"type": "error", "error": {"type", "message"}}
        acc.provider_error(field(event, "error"))


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: `message_start`'s `message.id`; later events carry none."""
    if is_str(field(event, "type"), "message_start"):
        id = field(field(event, "message"), "id")
        return id if isinstance(id, str) and id else True
    return None
