"""Ollama `/api/chat` (non-streamed, or the final chunk of a stream): `ChatResponse`.

Calls are `message.tool_calls[].function.{name, arguments}`; `arguments` is an object
(a JSON string is decoded too, as OpenAI's are). Ollama's native API gives calls an
`id` only in recent versions: the call's `id` where present, else none. The Rust twin
is `src/formats/ollama.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.accumulator import Accumulator
from toolsift._pure.calls import Turn
from toolsift._pure.formats import openai
from toolsift._pure.nodes import field, member
from toolsift.formats import described

NAME = "ollama"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`: an OpenAI
    chat message's calls."""
    return openai.message_calls(field(doc, "message"))


def turns(doc: Any) -> Iterator[Turn]:
    """One turn: the message's calls, and its `content` (the assistant text)."""
    message = field(doc, "message")
    yield list(openai.message_calls(message)), openai.content_texts(field(message, "content"))


def context(doc: Any) -> tuple[Any, Any, Any, None]:
    """`model`, `done_reason`; a response has no id (`toolsift._pure.context`)."""
    return field(doc, "model"), None, field(doc, "done_reason"), None


def detect(doc: Any) -> bool:
    """A `message` object, a string `model` and a boolean `done`."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("message"), dict)
        and isinstance(doc.get("model"), str)
        and isinstance(doc.get("done"), bool)
    )


# The stream reader: NDJSON chunks of `/api/chat` with `stream: true`.

STREAM_WHERE = "each chunk's `message.tool_calls[]`, whole calls (complete as they come)"


def stream_detect(event: Any) -> bool:
    """A chat chunk: a `message` and a `done` flag."""
    return field(event, "message") is not None and isinstance(field(event, "done"), bool)


def stream_event(event: Any, acc: Accumulator) -> None:
    """Every call of the chunk, whole; an `{"error": "..."}` line is the stream's error
    (a dict: the SDK raises it instead)."""
    for name, id, arguments in calls(event):
        acc.whole_call(name, id, arguments)
    error = member(event, "error")
    if error is not None:
        acc.provider_error(error)


def stream_id(event: Any, current: Any, items: dict[str, Any]) -> Any:
    """`--stream-lines`: chunks carry no id; one ends its stream with `done: true`, so
    the chunk after it starts the next (the grouping asks `ends_stream`)."""
    return None


def ends_stream(event: Any) -> bool:
    return field(event, "done") is True
