"""Gemini `generateContent` responses: the spec walker of `GeminiResponseParser` (the Rust
twin is `src/formats/gemini.rs`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from toolsift._pure.accumulator import (
    Accumulator,
    Slot,
    add_path_value,
    index_of,
    set_name,
    set_whole,
)
from toolsift._pure.calls import RawCall, Turn
from toolsift._pure.nodes import elements, field, member
from toolsift.formats import described

NAME = "gemini"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


_BLOCKED = (
    ("promptFeedback", "usageMetadata", "modelVersion", "responseId"),
    ("prompt_feedback", "usage_metadata", "model_version", "response_id"),
)
"""The members of a response whose prompt was blocked (no `candidates`): `promptFeedback`
with `usageMetadata`, `modelVersion` or `responseId`, as REST and as SDK dumps spell them."""


def detect(doc: Any) -> bool:
    """A `GenerateContentResponse`: a `candidates` list; or, for a prompt blocked, a
    `promptFeedback` object with a `usageMetadata` object, a `modelVersion` or a
    `responseId` string (snake_case in SDK dumps): members no other provider's has. Or a
    Live API `LiveServerMessage` with its `toolCall` (`tool_call`): an object holding a
    `functionCalls` (`function_calls`) list."""
    if not isinstance(doc, dict):
        return False
    if isinstance(doc.get("candidates"), list):
        return True
    if any(
        isinstance(tool_call := doc.get(key), dict) and isinstance(tool_call.get(calls), list)
        for key, calls in _LIVE
    ):
        return True
    return any(
        isinstance(doc.get(feedback), dict)
        and (
            isinstance(doc.get(usage), dict)
            or isinstance(doc.get(version), str)
            or isinstance(doc.get(id), str)
        )
        for feedback, usage, version, id in _BLOCKED
    )


_LIVE = (("tool_call", "function_calls"), ("toolCall", "functionCalls"))
"""Where a Live API server message holds its calls: the SDK's snake_case, then REST's."""


def calls(doc: Any) -> Iterator[RawCall]:
    """`candidates[].content.parts[].function_call` (or REST `functionCall`), then a Live
    API message's `tool_call.function_calls[]` (or REST `toolCall.functionCalls`)."""
    for candidate in elements(field(doc, "candidates")):
        yield from candidate_calls(candidate)
    for call in live_calls(doc):
        yield field(call, "name"), field(call, "id"), field(call, "args")


def candidate_calls(candidate: Any) -> Iterator[RawCall]:
    """A candidate's `content.parts[].function_call` (or REST `functionCall`)."""
    for part in elements(field(field(candidate, "content"), "parts")):
        call = field(part, "function_call")
        if call is None:
            call = field(part, "functionCall")
        if call is not None:
            yield field(call, "name"), field(call, "id"), field(call, "args")


def turns(doc: Any) -> Iterator[Turn]:
    """Each candidate: its calls, and the `text` of its parts that are not thoughts
    (`thought: true`: reasoning, never read for calls); then a Live API message's calls."""
    for candidate in elements(field(doc, "candidates")):
        parts = elements(field(field(candidate, "content"), "parts"))
        texts = [field(part, "text") for part in parts if field(part, "thought") is not True]
        yield list(candidate_calls(candidate)), texts
    live = live_calls(doc)
    if live:
        yield [(field(c, "name"), field(c, "id"), field(c, "args")) for c in live], []


def context(doc: Any) -> tuple[Any, Any, Any, list[tuple[Any, Any, int]]]:
    """The model version and response id (the SDK's snake_case, then REST's camelCase);
    a call's finish reason is its candidate's (`toolsift._pure.context`)."""
    candidates = [
        (
            candidate,
            _either(candidate, "finish_reason", "finishReason"),
            _candidate_calls(candidate),
        )
        for candidate in elements(field(doc, "candidates"))
    ]
    return (
        _either(doc, "model_version", "modelVersion"),
        _either(doc, "response_id", "responseId"),
        None,
        candidates,
    )


def _candidate_calls(candidate: Any) -> int:
    """How many calls `calls` finds in a candidate."""
    parts = elements(field(field(candidate, "content"), "parts"))
    return sum(1 for part in parts if _either(part, "function_call", "functionCall") is not None)


def live_calls(doc: Any) -> Sequence[Any]:
    """A Live API message's `tool_call.function_calls` (or REST `toolCall.functionCalls`)."""
    tool_call = _either(doc, "tool_call", "toolCall")
    return elements(_either(tool_call, "function_calls", "functionCalls"))


# The stream reader: `streamGenerateContent` chunks.

STREAM_WHERE = (
    "each chunk's `function_call` parts, whole calls (complete as they come); Gemini 3 "
    "streamed arguments: a call with `will_continue` goes on in the next parts without a "
    "name, each `partial_args[] {json_path, string_value | number_value | bool_value | "
    "null_value, will_continue}` setting (or, for a string continued, extending) the "
    "value at its path; the call completes at a part without `will_continue`. A Live "
    "API session's `tool_call` messages: whole calls"
)

STREAMING = -1
"""The route key (candidate, STREAMING) of a candidate's call whose arguments go on."""

_VALUES = (
    ("string_value", "stringValue"),
    ("number_value", "numberValue"),
    ("bool_value", "boolValue"),
    ("null_value", "nullValue"),
)


def stream_detect(event: Any) -> bool:
    """A `GenerateContentResponse` chunk: a `candidates` list; or a Live API message with
    its calls (`tool_call.function_calls`, REST `toolCall.functionCalls`)."""
    return isinstance(field(event, "candidates"), (list, tuple)) or bool(live_calls(event))


def stream_event(event: Any, acc: Accumulator) -> None:
    """Every call part of the chunk: a whole call, or the start or next part of a call
    whose arguments are streamed (`partial_args`); a Live API message's whole calls."""
    for position, candidate in enumerate(elements(field(event, "candidates"))):
        number = index_of(field(candidate, "index"))
        number = position if number is None else number
        for part in elements(field(field(candidate, "content"), "parts")):
            call = _either(part, "function_call", "functionCall")
            if call is not None:
                _call_part(acc, number, call)
    for call in live_calls(event):
        acc.whole_call(field(call, "name"), field(call, "id"), field(call, "args"))
    # An error sent in the stream (`{"error": {"code", "message", "status"}}`; a dict:
    # the SDK raises it instead).
    error = member(event, "error")
    if error is not None:
        acc.provider_error(error)


def _either(obj: Any, snake: str, camel: str) -> Any:
    """The SDK's snake_case field, else the REST camelCase one."""
    value = field(obj, snake)
    return field(obj, camel) if value is None else value


def _fragment(call: Any, named: bool) -> bool:
    """A part with `partial_args` but no name: the next piece of a streamed call."""
    return not named and _either(call, "partial_args", "partialArgs") is not None


def is_stream_piece(doc: Any) -> bool:
    """Whether a response holds a piece of a stream (a part with `partial_args`): `parse`
    reads such a chunk as a stream of one event."""
    for candidate in elements(field(doc, "candidates")):
        for part in elements(field(field(candidate, "content"), "parts")):
            call = _either(part, "function_call", "functionCall")
            if call is not None and _either(call, "partial_args", "partialArgs") is not None:
                return True
    return False


def _call_part(acc: Accumulator, candidate: int, call: Any) -> None:
    name = field(call, "name")
    named = isinstance(name, str) and bool(name)
    streaming = acc.routes.get((candidate, STREAMING))
    if streaming is None and _fragment(call, named):
        acc.fragment = True  # the rest of a call whose start is not in the stream
        return
    if streaming is not None and not named:
        slot = streaming  # the next part of the call being streamed
    else:
        if streaming is not None:
            acc.complete(streaming)  # a new call ends the one before
        slot = acc.slot((-1, acc.serial))
        acc.serial += 1
        set_whole(slot, field(call, "args"))
    set_name(slot, name)
    acc.set_id(slot, field(call, "id"))
    for arg in elements(_either(call, "partial_args", "partialArgs")):
        _partial_arg(slot, arg)
    if _either(call, "will_continue", "willContinue") is True:
        acc.routes[(candidate, STREAMING)] = slot
    else:
        acc.routes.pop((candidate, STREAMING), None)
        acc.complete(slot)


def _partial_arg(slot: Slot, arg: Any) -> None:
    """One `PartialArg`: its value at its path (a string continued: appended to)."""
    path = _either(arg, "json_path", "jsonPath")
    if not isinstance(path, str):
        return
    for snake, camel in _VALUES:
        value = _either(arg, snake, camel)
        if value is not None:
            break
    else:
        return  # no value
    if snake == "null_value":
        value = None
    continuing = _either(arg, "will_continue", "willContinue") is True
    add_path_value(slot, path, value, continuing)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: a chunk's `responseId` (REST) or `response_id` (SDK)."""
    id = _either(event, "response_id", "responseId")
    return id if isinstance(id, str) and id else None
