"""The events of one stream, read into its calls (the twin of `src/events.rs`): a record
that holds a whole stream (a list of events, or SSE text) and a response that is a piece
of one are read here for the route (`toolsift._pure.walk`), and `parser.stream()`
(`toolsift._pure.stream`) feeds the same `Assembler`. Above the formats (each event is
read by its format's `stream_event`, and through the registry's `unwrap_event`), below
the route. The rules are in `toolsift._pure.stream`'s docstring."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import orjson

from toolsift._errors import ParseError
from toolsift._jsontext import loads, loads_or_orjson_error
from toolsift._pure import formats
from toolsift._pure.accumulator import (
    ERROR_TYPE,
    Accumulator,
    EventHandler,
    partial_call,
    stream_error,
    tool_call,
    typed_event,
)
from toolsift._pure.framing import JsonValues, Sse, starts_sse
from toolsift._pure.nodes import field
from toolsift._types import ToolCall

__all__ = ["NOT_JSON", "Assembler"]

NOT_JSON = "a stream event is not JSON"
"""The error of a record holding a stream with an event that is not JSON text."""


def undetected_error(event: Any, acc: Accumulator) -> None:
    """An error event `auto` reads before any event told it the stream's format (a stream
    that failed at once): `{"error": E}` (OpenAI, Gemini, Ollama, and Anthropic's `{"type":
    "error", "error": E}`) is the stream's error E, and `{"type": "error", ...}` (the
    Responses API's `code` and `message`) the event itself. Other events are no error."""
    error = field(event, "error")  # an SDK's event object too
    if error is not None:
        acc.provider_error(error)
    elif typed_event(event, ERROR_TYPE):
        acc.provider_error(event)


class Assembler:
    """The calls of a stream's events being assembled: each event read by the stream's
    format (auto: the first format that recognizes an event), text cut into events
    (`toolsift._pure.framing`).

    `handler` is the format's `stream_event`; `detect` (auto) picks a format from the
    first event one recognizes (events before it have no calls)."""

    def __init__(
        self,
        handler: EventHandler | None,
        detect: Callable[[Any], tuple[str, EventHandler] | None] | None = None,
        format: str | None = None,
    ) -> None:
        self._handler = handler
        self._detect = detect
        self.format = format  # the format whose reader reads the events (auto: once known)
        self._acc = Accumulator()
        self._sse: Sse | None = None
        self._values = JsonValues()  # text that is not SSE
        self.finished = False

    def begin(self) -> None:
        """Start reading one event (the calls it completes gather till `completed`)."""
        self._acc.done_now = []

    def completed(self) -> list[ToolCall]:
        """The calls completed since `begin`, in order."""
        done = self._acc.done_now
        self._acc.done_now = []
        return [tool_call(slot) for slot in done]

    def feed_record(self, record: Any) -> None:
        """A record holding a whole stream: SSE text, or a list whose items are its events
        (an item that is no event, such as a number or a list, has no calls)."""
        if isinstance(record, (list, tuple)):
            for item in record:
                self._event(item)
        else:
            self.feed(record)

    def finish(self) -> None:
        """The end of the stream: an SSE event left without its empty line is read (where
        it is not JSON, the stream was cut inside it)."""
        if not self.finished:
            self.finished = True
            if self._sse is not None:
                ends = self._sse.end()
            else:
                last = self._values.end()
                ends = [] if last is None else [last]
            for data in ends:
                try:
                    self._json_event(data)
                except ParseError:
                    pass  # the stream was cut inside its last event

    def calls(self) -> list[ToolCall]:
        """Every call, in the provider's order."""
        return [tool_call(slot) for slot in self._acc.ordered()]

    def custom(self) -> list[bool]:
        """Of every call (`calls`' order), whether its input is free text."""
        return [slot.verbatim for slot in self._acc.ordered()]

    def partial(self) -> list[ToolCall]:
        """Every call started so far, in the provider's order; arguments still arriving
        are decoded as far as they are complete (`partial_json`). Never raises."""
        return [partial_call(slot) for slot in self._acc.ordered()]

    def error(self, calls: list[ToolCall]) -> str | None:
        """Where the stream gave no call (`calls`), why (`stream_error`)."""
        return stream_error(self._acc, calls)

    def feed(self, event: Any) -> None:
        """One event (or chunk of SSE text), or a list of events (each in turn)."""
        if isinstance(event, (list, tuple)):
            for item in event:
                if isinstance(item, (list, tuple)):
                    raise TypeError("a stream event is a dict, an SDK object or text, not a list")
                self.feed(item)
            return
        if isinstance(event, (str, bytes, bytearray, memoryview)):
            data = (
                event.encode("utf-8", "surrogatepass") if isinstance(event, str) else bytes(event)
            )
            if self._sse is None and self._values.idle() and starts_sse(data):
                self._sse = Sse()
            if self._sse is not None:
                self._read_texts(self._sse.feed(data))
            else:
                self._json_text(data)
            return
        if event is None or isinstance(event, (bool, int, float)):
            raise TypeError(
                f"a stream event is a dict, an SDK object or text, not {type(event).__name__}"
            )
        self._event(event)

    def _json_text(self, data: bytes) -> None:
        """JSON text that is not SSE: most often one whole event, read as it is; else
        cut into values (`JsonValues`), each read once it is complete."""
        values = self._values
        if values.idle() and data.lstrip()[:1] in (b"{", b"["):
            try:
                event = loads_or_orjson_error(data)
            except orjson.JSONDecodeError:
                pass  # a piece of a value, several values, or not JSON: split
            else:
                self._read_decoded(event)
                return
        values.feed(data)
        self._read_texts(iter(values.next_value, None))

    def _read_texts(self, texts: Iterable[bytes]) -> None:
        """Each JSON text in turn; the first one that is not JSON raises once the others
        were read."""
        error = None
        for text in texts:
            try:
                self._json_event(text)
            except ParseError as exc:
                error = error or exc
        if error is not None:
            raise error

    def _json_event(self, data: bytes) -> None:
        self._read_decoded(loads(data))

    def _read_decoded(self, event: Any) -> None:
        # An object, or a list of them; other JSON values (a number, a string, a list in
        # the list) are no event of any provider.
        for item in event if isinstance(event, list) else (event,):
            if isinstance(item, dict):
                self._event(item)

    def _event(self, event: Any) -> None:
        # An event that wraps another (a Bedrock `chunk`) is read as the event it wraps,
        # one that ends the stream with an error (a Bedrock exception) as the provider's
        # error, whatever the stream's format (the registry's `unwrap_event`).
        unwrapped = formats.unwrap_event(event)
        if isinstance(unwrapped, bytes):
            self._json_event(unwrapped)
            return
        if unwrapped is not None:
            self._acc.provider_error(unwrapped[1], unwrapped[0])
            return
        if self._handler is None and self._detect is not None:
            detected = self._detect(event)
            if detected is not None:
                self.format, self._handler = detected
        if self._handler is not None:
            self._handler(event, self._acc)
        elif self._detect is not None:
            undetected_error(event, self._acc)
