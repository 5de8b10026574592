"""Cohere's Chat API, v2 (`client.v2.chat`: `V2ChatResponse`) and v1 (`client.chat`:
`NonStreamedChatResponse`).

v2 calls are `message.tool_calls[]` (`{id, type: "function", function: {name,
arguments}}`, `arguments` a JSON string); their id is the call's `id`. v1 calls are the
response's own `tool_calls[]` (`{name, parameters}`, `parameters` an object, read as
arguments are); they have no id. A v1 response has no `message` and a v2 one no
top-level `tool_calls`, so the walker reads both places. v1 responses also hold
`chat_history`, whose messages may carry earlier turns' `tool_calls`: those are not the
response's calls and are not read. The Rust twin is `src/formats/cohere.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import Accumulator, append, index_of, set_name, typed_event
from toolsift._pure.calls import RawCall, Turn
from toolsift._pure.formats import openai
from toolsift._pure.nodes import elements, field, is_str
from toolsift.formats import described

NAME = "cohere"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`

# `ChatFinishReason` of the v2 API.
FINISH_REASONS = frozenset(
    {"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"}
)

# `FinishReason` of the v1 API (cohere-python `types/finish_reason.py`).
V1_FINISH_REASONS = frozenset(
    {
        "COMPLETE",
        "STOP_SEQUENCE",
        "ERROR",
        "ERROR_TOXIC",
        "ERROR_LIMIT",
        "USER_CANCEL",
        "MAX_TOKENS",
        "TIMEOUT",
    }
)


def calls(doc: Any) -> Iterator[RawCall]:
    """v2: `message.tool_calls[].function.{name, arguments}`, `tool_calls[].id` (an
    OpenAI chat message's calls); then v1: the response's `tool_calls[]`."""
    yield from openai.message_calls(field(doc, "message"))
    yield from v1_calls(field(doc, "tool_calls"))


def v1_calls(tool_calls: Any) -> Iterator[RawCall]:
    """v1 `tool_calls[].{name, parameters}` (no id); an entry with neither is skipped."""
    for call in elements(tool_calls):
        name = field(call, "name")
        parameters = field(call, "parameters")
        if name is not None or parameters is not None:
            yield name, None, parameters


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the calls, and the text: v2 `message.content` (text parts), v1 `text`."""
    texts = openai.content_texts(field(field(doc, "message"), "content"))
    yield list(calls(doc)), [*texts, field(doc, "text")]


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """The id (v2 `id`; v1 `response_id`, else `generation_id`), `finish_reason`; a
    response names no model (`toolsift._pure.context`)."""
    id = field(doc, "id")
    for key in ("response_id", "generation_id"):
        if id is None:
            id = field(doc, key)
    return None, id, field(doc, "finish_reason"), None


def detect(doc: Any) -> bool:
    """v2: a `message` object with a `tool_calls`, `content` or `tool_plan` member, and a
    `finish_reason` of the v2 API's enum. v1: a `tool_calls` list or a `text` string,
    with a `generation_id` string or a `finish_reason` of the v1 API's enum (no other
    provider's response has these members)."""
    if not isinstance(doc, dict):
        return False
    message = doc.get("message")
    reason = doc.get("finish_reason")
    if (
        isinstance(message, dict)
        and any(key in message for key in ("tool_calls", "content", "tool_plan"))
        and isinstance(reason, str)
        and reason in FINISH_REASONS
    ):
        return True
    return (isinstance(doc.get("tool_calls"), list) or isinstance(doc.get("text"), str)) and (
        isinstance(doc.get("generation_id"), str)
        or (isinstance(reason, str) and reason in V1_FINISH_REASONS)
    )


# The stream reader: v2 chat stream events (`type`), and v1 ones (`event_type`).
#
# v1 streams give each call twice, whole: in `tool-calls-generation` (`tool_calls`, as
# the response has them) and in `stream-end`'s `response` (the whole
# `NonStreamedChatResponse`). The calls are taken from the first; from `stream-end`
# only where no `tool-calls-generation` gave any since the response's `stream-start`
# (a stream logged with only its last event). `tool-calls-chunk` events, the text of the
# calls as it is generated (`tool_call_delta {index, name, parameters, text}`), are not
# read: which call of `tool-calls-generation` an `index` (a float in the SDK's types)
# stands for is not documented, so calls assembled from them could not be matched with
# the whole ones for certain; the whole calls follow them in the same stream.

STREAM_WHERE = (
    "v2: `tool-call-start` (`delta.message.tool_calls {id, function{name, arguments}}`), "
    "`tool-call-delta` (`...function.arguments`), keyed by `index`; a call completes at "
    "its `tool-call-end`. v1: `tool-calls-generation`'s `tool_calls`, whole calls "
    "(complete as they come); `stream-end`'s `response.tool_calls` only where no "
    "`tool-calls-generation` gave calls; `tool-calls-chunk` is not read"
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


V1_STREAM_TYPES = frozenset(
    (
        "stream-start",
        "search-queries-generation",
        "search-results",
        "text-generation",
        "citation-generation",
        "tool-calls-chunk",
        "tool-calls-generation",
        "stream-end",
        "debug",
    )
)

GENERATED = -1
"""The group of calls given whole (`Accumulator.whole_call`'s keys): its `latest` call is
the last one a v1 `tool-calls-generation` gave in the response being streamed."""


def stream_detect(event: Any) -> bool:
    """A v2 chat stream event: its `type` is one of `STREAM_TYPES`; or a v1 one: its
    `event_type` is one of `V1_STREAM_TYPES`."""
    if typed_event(event, STREAM_TYPES):
        return True
    kind = field(event, "event_type")
    return isinstance(kind, str) and kind in V1_STREAM_TYPES


def is_stream_piece(doc: Any) -> bool:
    """An event of the stream given alone (a log that keeps only v1's `stream-end`, say):
    `parse` reads it as a stream of that one event. Neither API's response has a `type`
    or an `event_type`."""
    return stream_detect(doc)


def stream_event(event: Any, acc: Accumulator) -> None:
    """v2: `tool-call-start` starts a call (name, id, any first arguments),
    `tool-call-delta` appends `arguments`, `tool-call-end` completes it; `message-end`
    completes all, and says whether the generation failed (`_failed`). Any other event
    is read as a v1 one (`v1_stream_event`)."""
    kind = field(event, "type")
    index = index_of(field(event, "index"))
    if is_str(kind, "tool-call-start"):
        slot = acc.start(0, index)
    elif is_str(kind, "tool-call-delta") or is_str(kind, "tool-call-end"):
        found = acc.started(0, index)
        if found is None:
            return
        slot = found
    else:
        if is_str(kind, "message-end"):
            delta = field(event, "delta")
            _failed(field(delta, "error"), field(delta, "finish_reason"), acc)
            acc.complete_all()
        else:
            v1_stream_event(event, acc)
        return
    call = field(field(field(event, "delta"), "message"), "tool_calls")
    function = field(call, "function")
    set_name(slot, field(function, "name"))
    acc.set_id(slot, field(call, "id"))
    append(slot, field(function, "arguments"))
    if is_str(kind, "tool-call-end"):
        acc.complete(slot)


_FAILED = ("ERROR", "TIMEOUT", "ERROR_TOXIC", "ERROR_LIMIT")
"""The finish reasons of a generation that failed: v2's `ERROR` and `TIMEOUT`, v1's
`ERROR`, `ERROR_TOXIC` (stopped by the content filters) and `ERROR_LIMIT` (the context
window filled)."""


def _failed(message: Any, finish: Any, acc: Accumulator) -> None:
    """A generation that failed is the stream's error: its error message where one is
    given (v2's `message-end` `delta.error`), else its finish reason."""
    if isinstance(message, str) and message:
        acc.provider_error(message)
    elif isinstance(finish, str) and finish in _FAILED:
        acc.provider_error(finish)


def v1_stream_event(event: Any, acc: Accumulator) -> None:
    """v1: `tool-calls-generation` gives its `tool_calls`, whole; `stream-end` its
    `response`'s, where no `tool-calls-generation` gave calls since the response's
    `stream-start` (they are the same calls), and its `finish_reason` whether the
    generation failed (`_failed`)."""
    kind = field(event, "event_type")
    if is_str(kind, "tool-calls-generation"):
        for name, id, arguments in v1_calls(field(event, "tool_calls")):
            acc.whole_call(name, id, arguments)
            acc.latest[GENERATED] = acc.slots[-1]
    elif is_str(kind, "stream-end"):
        _failed(None, field(event, "finish_reason"), acc)
        given = acc.latest.pop(GENERATED, None) is not None
        if not given:
            for name, id, arguments in v1_calls(field(field(event, "response"), "tool_calls")):
                acc.whole_call(name, id, arguments)
    elif is_str(kind, "stream-start"):
        acc.latest.pop(GENERATED, None)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: v2 `message-start`'s `id`, v1 `stream-start`'s `generation_id`;
    later events carry none."""
    if is_str(field(event, "type"), "message-start"):
        id = field(event, "id")
        return id if isinstance(id, str) and id else True
    if is_str(field(event, "event_type"), "stream-start"):
        id = field(event, "generation_id")
        return id if isinstance(id, str) and id else True
    return None
