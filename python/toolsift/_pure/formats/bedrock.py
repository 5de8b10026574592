"""Amazon Bedrock Converse API (`bedrock-runtime` `converse`): the response as boto3
returns it (plain dicts with the wire's camelCase keys).

Calls are the `output.message.content[]` blocks holding a `toolUse` object
(`toolUseId`, `name`, `input`: a JSON document, an object for tools); its id is
`toolUseId` (the one a `toolResult` answers). A `toolUse` of `type: "server_tool_use"`
(a system tool Bedrock runs itself) gives none. Batch inference output lines
(`{"recordId", "modelInput", "modelOutput"}`) are unwrapped by `unwrap_batch`; their
`modelOutput` is the model's own response body (the Converse shape for Converse jobs,
the Anthropic Messages shape for Claude InvokeModel jobs). The Rust twin is
`src/formats/bedrock.rs`.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import Accumulator, Slot, append, index_of, set_name
from toolsift._pure.calls import Turn
from toolsift._pure.nodes import describe, elements, field, is_str, member
from toolsift.formats import described

NAME = "bedrock"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`output.message.content[].toolUse.{toolUseId, name, input}`."""
    message = field(field(doc, "output"), "message")
    for block in elements(field(message, "content")):
        use = field(block, "toolUse")
        if use is None or is_str(field(use, "type"), "server_tool_use"):
            continue
        yield field(use, "name"), field(use, "toolUseId"), field(use, "input")


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the `toolUse` blocks, and the `text` blocks of `output.message.content`."""
    message = field(field(doc, "output"), "message")
    yield list(calls(doc)), [field(block, "text") for block in elements(field(message, "content"))]


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """`stopReason`; a Converse response names no model and has no id
    (`toolsift._pure.context`)."""
    return None, None, field(doc, "stopReason"), None


def detect(doc: Any) -> bool:
    """An `output` object holding a `message` object with a `content` list."""
    if not isinstance(doc, dict):
        return False
    output = doc.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    return isinstance(message, dict) and isinstance(message.get("content"), list)


def unwrap_batch(doc: dict[str, Any]) -> tuple[Any, str | None, str | None] | None:
    """`(response, custom_id, error)` of a batch inference output line: an object with
    `recordId` or `modelInput`, and `modelOutput` or `error`; None for any other record.

    `recordId` is the custom id. A non-null `error` (`{"errorCode", "errorMessage"}`) is
    `batch error: CODE: MESSAGE` (`MESSAGE` alone without a string or integer code; an
    error without a string message is compact JSON); else the response is `modelOutput`
    (`batch record has no response` when missing).
    """
    if not (
        ("recordId" in doc or "modelInput" in doc) and ("modelOutput" in doc or "error" in doc)
    ):
        return None
    custom_id = doc.get("recordId")
    custom_id = custom_id if isinstance(custom_id, str) else None
    error = doc.get("error")
    if error is not None:
        return None, custom_id, f"batch error: {describe_error(error)}"
    response = doc.get("modelOutput")
    if response is None:
        return None, custom_id, "batch record has no response"
    return response, custom_id, None


def describe_error(error: Any) -> str:
    """`{"errorCode", "errorMessage"}` as `CODE: MESSAGE` (the envelopes' `describe`)."""
    return describe(error, message_key="errorMessage", code_key="errorCode")


# The stream reader: ConverseStream events.

STREAM_WHERE = (
    "`contentBlockStart.start.toolUse {toolUseId, name}` (a `server_tool_use` gives none),"
    " `contentBlockDelta.delta.toolUse.input` text, keyed by `contentBlockIndex`; a call"
    " completes at its `contentBlockStop`"
)

STREAM_KEYS = (
    "messageStart",
    "contentBlockStart",
    "contentBlockDelta",
    "contentBlockStop",
    "messageStop",
    "metadata",
)


def stream_detect(event: Any) -> bool:
    """A ConverseStream event: an object with one of `STREAM_KEYS`."""
    return any(field(event, key) is not None for key in STREAM_KEYS)


def is_stream_piece(doc: Any) -> bool:
    """An event of the stream given alone (a log that keeps only some events, or the
    runtime exception a stream ended with): `parse` reads it as a stream of that one
    event. A `Converse` response has none of `STREAM_KEYS`, and more than one member."""
    return stream_detect(doc) or bedrock_exception(doc) is not None


def stream_event(event: Any, acc: Accumulator) -> None:
    """`toolUse` blocks: started by `contentBlockStart`, `input` text appended by
    `contentBlockDelta`, completed by `contentBlockStop`; `messageStop` completes those of
    its message. A `toolUse` of `type: "server_tool_use"` starts no call (as in `calls`):
    its deltas find no block at its index. A `messageStart` begins a message whose block
    indices start again at 0: its blocks are a new group, so the calls before it stay as
    they are."""
    slot: Slot | None  # started here, or looked up (None: not started)
    if field(event, "messageStart") is not None:
        acc.message += 1
    start = field(event, "contentBlockStart")
    if start is not None:
        use = field(field(start, "start"), "toolUse")
        server = is_str(field(use, "type"), "server_tool_use")
        if use is not None and not server:
            index = index_of(field(start, "contentBlockIndex"))
            slot = acc.start(acc.message, index)
            set_name(slot, field(use, "name"))
            acc.set_id(slot, field(use, "toolUseId"))
    delta = field(event, "contentBlockDelta")
    if delta is not None:
        use = field(field(delta, "delta"), "toolUse")
        slot = acc.started(acc.message, index_of(field(delta, "contentBlockIndex")))
        if use is not None and slot is not None:
            append(slot, field(use, "input"))
    stop = field(event, "contentBlockStop")
    if stop is not None:
        slot = acc.started(acc.message, index_of(field(stop, "contentBlockIndex")))
        if slot is not None:
            acc.complete(slot)
    if field(event, "messageStop") is not None:
        acc.complete_all(acc.message)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: events carry no id; `messageStart` starts a stream."""
    return True if field(event, "messageStart") is not None else None


def unwrap_event(event: Any) -> bytes | tuple[str, Any] | None:
    """Events that wrap (or end) a stream of any format, read before its format reads them
    (the registry's `unwrap_event`): an `InvokeModelWithResponseStream` `chunk` is the
    event it wraps, as JSON text (`chunk_payload`); a runtime exception
    (`bedrock_exception`) ends the stream with that error: its name and its value."""
    # Both are dicts; any other event is told by a key lookup and its length, no call.
    if not isinstance(event, dict):
        return None
    payload = chunk_payload(event) if "chunk" in event else None
    if payload is not None:
        return payload
    return bedrock_exception(event) if len(event) == 1 else None


BEDROCK_EXCEPTIONS = (
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "modelTimeoutException",
    "serviceUnavailableException",
)
"""The exceptions a Bedrock runtime stream (ConverseStream, InvokeModelWithResponseStream)
may end with, each an event of its own: `{"throttlingException": {"message": ...}}`."""


def bedrock_exception(event: Any) -> tuple[str, Any] | None:
    """A Bedrock runtime stream's exception event, a dict of that one key (as boto3 gives
    it): its name and its value. None for any other event."""
    if not (isinstance(event, dict) and len(event) == 1):
        return None
    for name in BEDROCK_EXCEPTIONS:
        error = member(event, name)
        if error is not None:
            return name, error
    return None


def chunk_payload(event: Any) -> bytes | None:
    """The event a Bedrock `InvokeModelWithResponseStream` event wraps, `{"chunk":
    {"bytes": B}}`, as JSON text: B as boto3 gives it (`bytes`), or decoded from base64
    (the wire, JSON logs), or, where not base64, the text itself (a log that decoded the
    bytes). None for any other event."""
    data = member(member(event, "chunk"), "bytes")  # dicts only, as in the Rust backend
    if isinstance(data, (bytes, bytearray)):
        return bytes(data)
    if not isinstance(data, str):
        return None
    try:  # as the Rust backend: padding required, bits after the last byte ignored
        return base64.b64decode(data, validate=True)
    except ValueError:  # binascii.Error, or text that is not ASCII
        return data.encode("utf-8", "surrogatepass")
