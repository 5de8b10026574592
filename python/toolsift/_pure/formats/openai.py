"""OpenAI Chat Completions: the spec walker of `OpenAIResponseParser` (the Rust twin is
`src/formats/openai.rs`)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import Accumulator, Slot, append, index_of, set_name
from toolsift._pure.calls import RawCall, Turn, Verbatim
from toolsift._pure.nodes import elements, field, is_str, member
from toolsift.formats import described

NAME = "openai"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


def context(doc: Any) -> tuple[Any, Any, Any, list[tuple[Any, Any, int]]]:
    """`model`, `id`; a call's finish reason is its choice's `finish_reason`
    (`toolsift._pure.context`)."""
    choices = [
        (choice, field(choice, "finish_reason"), len(list(message_calls(field(choice, "message")))))
        for choice in elements(field(doc, "choices"))
    ]
    return field(doc, "model"), field(doc, "id"), None, choices


def detect(doc: Any) -> bool:
    """A chat completion: a `choices` list."""
    return isinstance(doc, dict) and isinstance(doc.get("choices"), list)


def calls(doc: Any) -> Iterator[RawCall]:
    """`choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`."""
    for choice in elements(field(doc, "choices")):
        yield from message_calls(field(choice, "message"))


def message_calls(message: Any) -> Iterator[RawCall]:
    """A chat message's `tool_calls[]`: `function.{name, arguments}`, or a custom tool's
    `custom.{name, input}` (free text), with `tool_calls[].id`; then a legacy
    `function_call.{name, arguments}` (no id). Ollama's and Cohere v2's messages have the
    same `tool_calls` shape."""
    for call in elements(field(message, "tool_calls")):
        function = field(call, "function")
        if function is not None:
            yield field(function, "name"), field(call, "id"), field(function, "arguments")
            continue
        custom = field(call, "custom")
        if custom is not None:
            yield field(custom, "name"), field(call, "id"), Verbatim(field(custom, "input"))
    function = field(message, "function_call")
    if function is not None:
        yield field(function, "name"), None, field(function, "arguments")


def turns(doc: Any) -> Iterator[Turn]:
    """Each choice: its message's calls, and its assistant text for `text_dialect`: the
    message's `content` (a string, or a list of `{type: text, text}` parts), or a
    `/v1/completions` (`text_completion`) choice's `text`."""
    for choice in elements(field(doc, "choices")):
        message = field(choice, "message")
        yield list(message_calls(message)), [*content_texts(field(message, "content")),
                                             field(choice, "text")]  # fmt: skip


def content_texts(content: Any) -> list[Any]:
    """A chat message's `content` as text pieces: a string, or the `text` of its parts
    of type `text` (Ollama's and Cohere v2's messages have the same shape)."""
    if isinstance(content, str):
        return [content]
    return [
        field(part, "text") for part in elements(content) if is_str(field(part, "type"), "text")
    ]


# The stream reader: chat completion chunks (`chat.completion.chunk`).

STREAM_WHERE = (
    "chunks' `choices[].delta.tool_calls[] {index, id, function{name, arguments}}` (or a "
    "custom tool's `custom{name, input}`), keyed by (choice `index`, call `index`); a "
    "choice's calls complete at its `finish_reason`"
)

LEGACY = 1 << 31
"""The call index of a legacy `delta.function_call` (after the choice's tool calls)."""


def is_response(doc: Any) -> bool:
    """A whole chat completion, not a chunk of its stream (both have `choices`): its
    `object` is `chat.completion`, or a choice has a `message` (a chunk's have `delta`)."""
    if is_str(field(doc, "object"), "chat.completion"):
        return True
    return any(field(choice, "message") is not None for choice in elements(field(doc, "choices")))


def stream_detect(event: Any) -> bool:
    """A chat completion chunk: a `choices` list."""
    return isinstance(field(event, "choices"), (list, tuple))


def stream_event(event: Any, acc: Accumulator) -> None:
    """`choices[].delta.tool_calls[]` fragments: name and id set once, `arguments` (a
    custom tool's `input`) appended; the calls of a choice complete when its
    `finish_reason` is set."""
    for position, choice in enumerate(elements(field(event, "choices"))):
        number = index_of(field(choice, "index"))
        number = position if number is None else number
        delta = field(choice, "delta")
        for call in elements(field(delta, "tool_calls")):
            slot = _call_slot(acc, number, call)
            # A function's `arguments` (JSON), or a custom tool's `input` (free text).
            part, text_key = field(call, "function"), "arguments"
            if part is None:
                part, text_key = field(call, "custom"), "input"
            slot.verbatim = slot.verbatim or (part is not None and text_key == "input")
            set_name(slot, field(part, "name"))
            acc.set_id(slot, field(call, "id"))
            append(slot, field(part, text_key))
        function = field(delta, "function_call")
        if function is not None:
            slot = acc.slot((number, LEGACY))
            set_name(slot, field(function, "name"))
            append(slot, field(function, "arguments"))
        if field(choice, "finish_reason") is not None:
            acc.complete_all(number)
    # An error sent in the stream (`{"error": {"message", "type", "code"}}`; a dict: the
    # SDK raises it instead).
    error = member(event, "error")
    if error is not None:
        acc.provider_error(error)


def _call_slot(acc: Accumulator, choice: int, call: Any) -> Slot:
    """The call a `delta.tool_calls[]` fragment belongs to. By its `index`; where a new
    id comes at an index whose call has another id (servers that give every call index
    0), a new call after the others, which later fragments at that index go on. Without
    an index: the call with its id, a new call for a new id, else the latest call."""
    index = index_of(field(call, "index"))
    id = field(call, "id")
    new_id = isinstance(id, str) and id != ""
    if index is None:
        slot = acc.by_id(choice, id) if new_id else acc.latest.get(choice)
        if slot is None:
            slot = acc.slot(acc.new_key(choice))
    else:
        slot = acc.routes.get((choice, index)) or acc.slot((choice, index))
        if new_id and slot.id is not None and slot.id != id:
            slot = acc.by_id(choice, id) or acc.slot(acc.new_key(choice))
        acc.routes[(choice, index)] = slot
    acc.latest[choice] = slot
    return slot


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: a chunk's stream is its `id`."""
    id = field(event, "id")
    return id if isinstance(id, str) and id else None
