"""The pure backend's format registry: one module per format, with how to find its
calls, how to recognize one of its responses, and its walker, in the order of the public
table `toolsift.formats` (names, parser classes, the format table), which the parser
classes, the CLI and the tests read. The Rust registry (`formats!` in `src/formats/mod.rs`)
lists the same formats in the same order, and a test says so.

A format module has `NAME`, with `PARSER_CLASS`, `WHERE` and `ID` from the public table,
and either `calls(doc)` (the spec walker: `(name, id, arguments)` of every call, read
with `toolsift._pure.nodes`) with `detect(doc)` (whether a decoded document has the
format's distinctive structure), or `walker(**options)` (`json`), or `READS_TEXT`
(`litert`: responses are read as text by `parse_sdk`). Optional hooks, read through the
registry where a module has them: `unwrap_event` (`unwrap_event` below).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from toolsift import formats as public
from toolsift._errors import UnrecognizedShape
from toolsift._pure.calls import RawCall
from toolsift._pure.formats import (
    anthropic,
    bedrock,
    cohere,
    gemini,
    gemini_interactions,
    json_path,
    litert,
    messages,
    ollama,
    openai,
    openai_responses,
)

__all__ = [
    "AUTO",
    "BATCH_ENVELOPES",
    "MESSAGES",
    "NAMES",
    "REGISTRY",
    "WALKED",
    "Format",
    "by_name",
    "detect",
    "detect_or_none",
    "markdown_table",
    "sdk_document",
    "unwrap_event",
]

Walker = Callable[[Any], Any]  # a response -> its RawCalls (an iterable)


@dataclass(frozen=True)
class Format:
    """One format of the registry (`module` holds all there is to it)."""

    module: ModuleType

    @property
    def name(self) -> str:
        return str(self.module.NAME)

    @property
    def parser_class(self) -> str:
        return str(self.module.PARSER_CLASS)

    @property
    def reads_text(self) -> bool:
        return bool(getattr(self.module, "READS_TEXT", False))

    def detect(self, doc: Any) -> bool:
        detect = getattr(self.module, "detect", None)
        return detect is not None and bool(detect(doc))

    def is_stream_piece(self, doc: Any) -> bool:
        """Whether a document read as a response is a piece of a stream (an event of the
        stream alone, a Gemini 3 chunk with `partial_args`), which `parse` reads as a
        stream of one event: the module's `is_stream_piece`, where it has one."""
        piece = getattr(self.module, "is_stream_piece", None)
        return piece is not None and bool(piece(doc))

    def is_response(self, doc: Any) -> bool:
        """Whether a decoded document of this format (`detect`) is a whole response, not
        an event or a piece of its stream (`--stream-lines` reads it as a record of its
        own): no piece (`is_stream_piece`) and no event of its stream (`stream_detect`),
        or, where a response has the keys an event has, what the module's
        `is_response` says (an OpenAI `chat.completion`: a chunk has `choices` too).
        A Gemini or Ollama response is a chunk of a stream as well: never one here."""
        if not self.detect(doc) or self.is_stream_piece(doc):
            return False
        tells = getattr(self.module, "is_response", None)
        if tells is not None:
            return bool(tells(doc))
        event = getattr(self.module, "stream_detect", None)
        return event is None or not event(doc)

    def walkers(self, **options: Any) -> tuple[Walker, Callable[[Any], list[RawCall] | None]]:
        """(the walker of any response, the one of documents decoded from JSON text, which
        returns None for a chunk of a stream, `is_stream_piece`); `options`
        (`JsonResponseParser`'s keywords) go to a format that takes them."""
        make = getattr(self.module, "walker", None)
        if make is not None:
            walk = make(**options)
            return walk, walk
        from toolsift._pure.fast import DECODED_WALKERS

        calls = self.module.calls
        decoded = DECODED_WALKERS.get(self.name)
        if decoded is not None:
            return calls, decoded
        holds = getattr(self.module, "is_stream_piece", None)
        if holds is None:
            return calls, lambda doc: list(calls(doc))
        return calls, lambda doc: None if holds(doc) else list(calls(doc))

    def stream_handler(self, **options: Any) -> Callable[[Any, Any], None]:
        """How this format's stream events add to an `Accumulator`: the module's
        `stream_event`; for a format whose events are whole responses (`json`), each
        event's calls, complete at once. ValueError for a format with no stream reader."""
        handler = getattr(self.module, "stream_event", None)
        if handler is not None:
            return handler  # type: ignore[no-any-return]
        make = getattr(self.module, "walker", None)
        if make is None:
            raise ValueError(f"the {self.name!r} format has no stream reader")
        walk = make(**options)

        def whole_calls(event: Any, acc: Any) -> None:
            for name, id, arguments in walk(event):
                acc.whole_call(name, id, arguments)

        return whole_calls


WALKED: tuple[Format, ...] = tuple(
    Format(module)
    for module in (
        openai,
        openai_responses,
        anthropic,
        gemini,
        gemini_interactions,
        bedrock,
        ollama,
        cohere,
    )
)
"""The formats read by walking one document, in auto-detection order."""

Located = tuple[Any, str | None, str | None]  # (response, custom_id, error)
BATCH_ENVELOPES: tuple[Callable[[dict[str, Any]], Located | None], ...] = tuple(
    f.module.unwrap_batch for f in WALKED if getattr(f.module, "unwrap_batch", None) is not None
)
"""The batch envelopes formats bring along (a module's `unwrap_batch`: `(response,
custom_id, error)` of such a record, None for any other), in registry order: `bulk.locate`
tries them after the envelopes every format shares (`formats!`'s `+ batch` in Rust)."""

MESSAGES = Format(messages)
"""Conversation transcripts (`messages.read`, with options of its own): auto-detection
tries it after the walked formats (`detect_or_none`)."""

REGISTRY: tuple[Format, ...] = (*WALKED, Format(json_path), Format(litert), MESSAGES)
"""Every format, in registry order: the walked ones, then `json`, `litert` and
`messages`."""

NAMES: tuple[str, ...] = tuple(f.name for f in REGISTRY) + public.DIALECT_NAMES
"""Every `--format` name: the formats, then the raw-text dialects (`toolsift._pure.dialects`,
read by `toolsift._pure.walk.Parser` as text)."""


AUTO = public.AUTO
"""`--format auto` (`AutoResponseParser`): each response read as the first of `WALKED`
whose `detect` recognizes it."""


def by_name(name: str) -> Format:
    """The format called `name`, or a ValueError that lists the valid names."""
    for format in REGISTRY:
        if format.name == name:
            return format
    raise ValueError(f"unknown format {name!r}; expected one of: {', '.join((*NAMES, AUTO))}")


def detect_or_none(doc: Any) -> Format | None:
    """The first walked format (in registry order) that recognizes `doc`, else `messages`
    where it is a transcript (`messages.detect`), if any. An SDK
    object (a pydantic model: openai, anthropic, google-genai, ollama, cohere) is
    recognized by its `model_dump(mode="json")`, the document its logs hold; it is still
    walked by attribute."""
    if not isinstance(doc, dict):
        doc = sdk_document(doc)
        if doc is None:
            return None
    for format in WALKED:
        if format.detect(doc):
            return format
    return MESSAGES if MESSAGES.detect(doc) else None


def sdk_document(obj: Any) -> dict[str, Any] | None:
    """The JSON document of an SDK response object (`model_dump(mode="json")`); None for
    anything else (plain values, lists, objects without it, or a dump that fails)."""
    dump = getattr(type(obj), "model_dump", None)
    if not callable(dump):
        return None
    try:
        document = dump(obj, mode="json", warnings=False)
    except Exception:  # not a pydantic v2 model after all: not recognized
        return None
    return document if isinstance(document, dict) else None


def detect(doc: Any) -> Format:
    """`detect_or_none`, or `UnrecognizedShape` naming the response's keys."""
    format = detect_or_none(doc)
    if format is None:
        raise UnrecognizedShape(doc)
    return format


def stream_detect(event: Any) -> tuple[str, Callable[[Any, Any], None]] | None:
    """For `AutoResponseParser.stream()`: the name and stream reader of the first walked
    format (in registry order) whose `stream_detect` recognizes `event`, if any."""
    for format in WALKED:
        detect = getattr(format.module, "stream_detect", None)
        if detect is not None and detect(event):
            return format.name, format.stream_handler()
    return None


_UNWRAP_EVENT = tuple(
    format.module.unwrap_event for format in WALKED if hasattr(format.module, "unwrap_event")
)


def unwrap_event(event: Any) -> bytes | tuple[str, Any] | None:
    """An event that wraps another one (the JSON text of the event it wraps), or ends the
    stream with an error (the error's code and value), in a stream of any format
    (Bedrock's `chunk` and runtime exceptions): read so before the stream's format reads
    it. The first found by the modules that have an `unwrap_event`; None for most."""
    for unwrap in _UNWRAP_EVENT:
        found = unwrap(event)
        if found is not None:
            return found  # type: ignore[no-any-return]
    return None


def markdown_table() -> str:
    """The format table of the README and docs/formats.md (`toolsift.formats` makes it)."""
    return public.markdown_table()
