"""OpenAI Responses API (`client.responses.create`): the `Response` object.

Calls are the `output[]` items of type `function_call` (`name`, `arguments`: a JSON
string) and `custom_tool_call` (`name`, `input`: free text, kept in `raw_arguments`);
their id is the item's `call_id` (the one a `function_call_output` answers), not the
item's own `id`. The items of built-in tools give none: those the server runs itself
(`web_search_call`, `file_search_call`, `code_interpreter_call`, `mcp_call`,
`image_generation_call`, ...) and those the caller's code runs (`computer_call`,
`local_shell_call`, `shell_call`, `apply_patch_call`: they have no name or arguments
of a function, so they are left to the caller to read from `output[]`); nor do messages
and reasoning. Batch API output for `/v1/responses` is the OpenAI
batch envelope, which `bulk.locate` unwraps already. The Rust twin is
`src/formats/openai_responses.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import (
    ERROR_TYPE,
    Accumulator,
    Slot,
    append,
    index_of,
    set_name,
    set_text,
    set_whole,
    typed_event,
)
from toolsift._pure.calls import Turn, Verbatim
from toolsift._pure.nodes import elements, field, is_str
from toolsift.formats import described

NAME = "openai-responses"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`output[]` items `function_call` and `custom_tool_call`, by `call_id`."""
    for item in elements(field(doc, "output")):
        kind = field(item, "type")
        if is_str(kind, "function_call"):
            yield field(item, "name"), field(item, "call_id"), field(item, "arguments")
        elif is_str(kind, "custom_tool_call"):
            yield field(item, "name"), field(item, "call_id"), Verbatim(field(item, "input"))


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the calls, and the `output_text` parts of the `message` items."""
    texts = [
        field(part, "text")
        for item in elements(field(doc, "output"))
        if is_str(field(item, "type"), "message")
        for part in elements(field(item, "content"))
        if is_str(field(part, "type"), "output_text")
    ]
    yield list(calls(doc)), texts


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """`model`, `id`; the finish reason is `incomplete_details.reason` where the response
    is incomplete, else its `status` (`toolsift._pure.context`)."""
    finish = field(field(doc, "incomplete_details"), "reason")
    if finish is None:
        finish = field(doc, "status")
    return field(doc, "model"), field(doc, "id"), finish, None


def detect(doc: Any) -> bool:
    """`"object": "response"` with an `output` list."""
    return (
        isinstance(doc, dict)
        and is_str(doc.get("object"), "response")
        and isinstance(doc.get("output"), list)
    )


# The stream reader: Responses API streaming events.

STREAM_WHERE = (
    "`response.output_item.added` `function_call` / `custom_tool_call` items, "
    "`response.function_call_arguments.delta` and `response.custom_tool_call_input.delta`, "
    "keyed by `output_index` (or `item_id`); a call completes at its `.done` event, "
    "`response.output_item.done`, or `response.completed`, which holds the whole response"
)

_ITEM_EVENTS = ("response.output_item.added", "response.output_item.done")
_DELTAS = ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta")
_DONES = ("response.function_call_arguments.done", "response.custom_tool_call_input.done")
# The events that hold the whole response: the Responses API's three, and the Realtime
# API's `response.done` (any `status`).
_ENDS = ("response.completed", "response.incomplete", "response.failed", "response.done")


def stream_detect(event: Any) -> bool:
    """A Responses streaming event: its `type` starts with `response.`."""
    kind = field(event, "type")
    return isinstance(kind, str) and kind.startswith("response.")


def is_stream_piece(doc: Any) -> bool:
    """An event of the stream given alone (a log that keeps only `response.completed`, the
    Realtime API's `response.done`, or an `error` event): `parse` reads it as a stream of
    that one event. No response has a `type`."""
    return stream_detect(doc) or typed_event(doc, ERROR_TYPE)


def stream_event(event: Any, acc: Accumulator) -> None:
    """Items started by `output_item.added`, argument (or custom input) deltas appended,
    the whole text of `.done` and `output_item.done` kept; `response.completed` (and
    `.incomplete`, `.failed`, the Realtime API's `.done`) holds the response itself: its
    items complete every call. `response.failed`, a Realtime `response.done` whose
    `status` is `failed`, and `error` events are the stream's error."""
    kind = field(event, "type")
    if not isinstance(kind, str):
        return
    if kind in _ITEM_EVENTS:
        _item(
            acc, field(event, "item"), index_of(field(event, "output_index")), kind.endswith("done")
        )
    elif kind in _DELTAS:
        slot = _slot(acc, event, field(event, "item_id"))
        slot.verbatim = slot.verbatim or kind == _DELTAS[1]
        append(slot, field(event, "delta"))
    elif kind in _DONES:
        slot = _slot(acc, event, field(event, "item_id"))
        custom = kind == _DONES[1]
        slot.verbatim = slot.verbatim or custom
        set_name(slot, field(event, "name"))
        set_text(slot, field(event, "input" if custom else "arguments"))
        acc.complete(slot)
    elif kind in _ENDS:
        response = field(event, "response")
        for position, item in enumerate(elements(field(response, "output"))):
            _item(acc, item, position, True)
        acc.complete_all()
        if kind == "response.failed":  # its `response.error {code, message}`
            acc.provider_error(field(response, "error"))
        elif kind == "response.done" and is_str(field(response, "status"), "failed"):
            # Realtime: `status_details.error {type, code}`.
            acc.provider_error(field(field(response, "status_details"), "error"))
    elif kind == "error":  # the event's own `code` and `message`
        acc.provider_error(event)


def _item(acc: Accumulator, item: Any, output_index: int | None, done: bool) -> None:
    """A `function_call` or `custom_tool_call` item: its name, `call_id`, and its
    arguments (or input): the whole text where the item is done."""
    kind = field(item, "type")
    custom = is_str(kind, "custom_tool_call")
    if not (custom or is_str(kind, "function_call")):
        return
    item_id = field(item, "id")
    slot = acc.by_item(item_id)
    if slot is None:
        key = acc.new_key(0) if output_index is None else (0, output_index)
        slot = acc.slot(key, item_id if isinstance(item_id, str) else None)
    slot.verbatim = custom
    set_name(slot, field(item, "name"))
    acc.set_id(slot, field(item, "call_id"))
    arguments = field(item, "input" if custom else "arguments")
    if done:
        set_text(slot, arguments)
        acc.complete(slot)
    else:
        set_whole(slot, arguments)


def _slot(acc: Accumulator, event: Any, item_id: Any) -> Slot:
    """The call an argument event is about: by its `item_id`, else its `output_index`."""
    slot = acc.by_item(item_id)
    if slot is not None:
        return slot
    output_index = index_of(field(event, "output_index"))
    key = acc.new_key(0) if output_index is None else (0, output_index)
    return acc.slot(key, item_id if isinstance(item_id, str) else None)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: `response.id` (`response.created` and the end events); an
    event about an item, the stream that item was added in (`item_id`, `item.id`).
    `response.output_item.added` tells no stream: its item joins `current`, the stream
    of the line before (wrong where another stream's line comes just before it)."""
    id = field(field(event, "response"), "id")
    if isinstance(id, str) and id:
        return id
    item = field(event, "item_id")
    if not isinstance(item, str):
        item = field(field(event, "item"), "id")
    if not isinstance(item, str):
        return None
    if item not in items and current is not None:
        items[item] = current
    return items.get(item)
