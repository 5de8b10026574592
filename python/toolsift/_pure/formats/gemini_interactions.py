"""Gemini Interactions API (`client.interactions.create`, `POST /v1beta/interactions`):
the `Interaction` resource, `"object": "interaction"`.

Calls are the `steps[]` of type `function_call` (flat `id`, `name`, `arguments`: an
object); their id is the step's `id` (the `call_id` a `function_result` answers).
Responses from before the May 2026 schema hold `outputs[]` in place of `steps[]`, with
the same `function_call` items. The steps of built-in and remote tools
(`google_search_call`, `code_execution_call`, `url_context_call`, `file_search_call`,
`mcp_server_tool_call`, ...: run by the server), and user input, thoughts and model
output give none. The Rust twin is `src/formats/gemini_interactions.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import (
    Accumulator,
    Slot,
    append,
    index_of,
    set_name,
    set_whole,
)
from toolsift._pure.calls import Turn
from toolsift._pure.nodes import elements, field, is_str
from toolsift.formats import described

NAME = "gemini-interactions"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`

# `Interaction.status` (the SDK's `InteractionStatus`).
STATUSES = frozenset(
    (
        "in_progress",
        "requires_action",
        "completed",
        "failed",
        "cancelled",
        "incomplete",
        "budget_exceeded",
        "queued",
    )
)


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`steps[]` (or legacy `outputs[]`) of type `function_call`: `{id, name, arguments}`."""
    for key in ("steps", "outputs"):
        for step in elements(field(doc, key)):
            if is_str(field(step, "type"), "function_call"):
                yield field(step, "name"), field(step, "id"), field(step, "arguments")


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the calls, and the text of `model_output` steps (legacy: `text` outputs)."""
    texts = [
        field(part, "text")
        for step in elements(field(doc, "steps"))
        if is_str(field(step, "type"), "model_output")
        for part in elements(field(step, "content"))
        if is_str(field(part, "type"), "text")
    ]
    outputs = elements(field(doc, "outputs"))
    texts += [field(o, "text") for o in outputs if is_str(field(o, "type"), "text")]
    yield list(calls(doc)), texts


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """`model`, `id`; the finish reason is the interaction's `status`
    (`toolsift._pure.context`)."""
    return field(doc, "model"), field(doc, "id"), field(doc, "status"), None


def detect(doc: Any) -> bool:
    """`"object": "interaction"` with a `steps` (or legacy `outputs`) list; or, as an SDK
    object's dump has no `object` where the server's did not, a `steps` list with a
    `status` of the API's."""
    if not isinstance(doc, dict):
        return False
    steps = isinstance(doc.get("steps"), list)
    if is_str(doc.get("object"), "interaction"):
        return steps or isinstance(doc.get("outputs"), list)
    status = doc.get("status")
    return steps and isinstance(status, str) and status in STATUSES


# The stream reader: Interactions API server-sent events, named by `event_type`.

STREAM_WHERE = (
    "`step.start` `function_call` steps (`id`, `name`, `arguments`), `step.delta`"
    " `arguments_delta` text appended, keyed by the step's `index`; a call completes at its"
    " `step.stop`; `interaction.completed` completes every call (and adds the"
    " `function_call` steps its interaction holds)"
)

STREAM_TYPES = frozenset(
    (
        "interaction.created",
        "interaction.status_update",
        "step.start",
        "step.delta",
        "step.stop",
        "interaction.completed",
        "interaction.cancelled",
    )
)


def _event_type(event: Any) -> Any:
    return field(event, "event_type")


def stream_detect(event: Any) -> bool:
    """An Interactions streaming event: its `event_type` is one of `STREAM_TYPES`."""
    kind = _event_type(event)
    return isinstance(kind, str) and kind in STREAM_TYPES


def is_stream_piece(doc: Any) -> bool:
    """An event of the stream given alone (a log that keeps only `interaction.completed`,
    or an `error` event): `parse` reads it as a stream of that one event. No `Interaction`
    has an `event_type`."""
    return stream_detect(doc) or is_str(_event_type(doc), "error")


def stream_event(event: Any, acc: Accumulator) -> None:
    """`function_call` steps: started by `step.start` (its `arguments`, `{}` at the start,
    stand where no fragment comes), `arguments_delta` text appended, completed by
    `step.stop`. `interaction.completed` completes every call, and a `function_call` step
    of its interaction that the stream did not start is a call of its own. An `error`
    event (`{code, message}`) is the stream's error."""
    slot: Slot | None  # started here, or looked up (None: not started)
    kind = _event_type(event)
    index = index_of(field(event, "index"))
    if is_str(kind, "step.start"):
        step = field(event, "step")
        if is_str(field(step, "type"), "function_call"):
            id = field(step, "id")
            slot = acc.start(0, index, id if isinstance(id, str) else None)
            set_name(slot, field(step, "name"))
            acc.set_id(slot, id)
            set_whole(slot, field(step, "arguments"))
    elif is_str(kind, "step.delta"):
        delta = field(event, "delta")
        slot = acc.started(0, index)
        if slot is not None and is_str(field(delta, "type"), "arguments_delta"):
            append(slot, field(delta, "arguments"))
    elif is_str(kind, "step.stop"):
        slot = acc.started(0, index)
        if slot is not None:
            acc.complete(slot)
    elif is_str(kind, "interaction.completed"):
        for name, id, arguments in calls(field(event, "interaction")):
            slot = acc.by_item(id)
            if slot is None:
                acc.whole_call(name, id, arguments)
            else:
                set_whole(slot, arguments)
        acc.complete_all()
    elif is_str(kind, "error"):
        acc.provider_error(field(event, "error"))


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: the `interaction.id` of `interaction.created` and
    `interaction.completed` (the `interaction_id` of a status update); step events carry
    none (they belong to the stream of the line before)."""
    id = field(field(event, "interaction"), "id")
    if not isinstance(id, str):
        id = field(event, "interaction_id")
    return id if isinstance(id, str) and id else None


def ends_stream(event: Any) -> bool:
    return is_str(_event_type(event), "interaction.completed")
