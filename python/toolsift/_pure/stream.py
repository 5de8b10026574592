"""Streams of tool-call events assembled into calls: `Stream`, the object
`parser.stream()` returns (the twin of `src/stream.rs`), the incremental driver over the
machinery every format's stream reader shares, written once: `framing` (server-sent-event
text in chunks, lines cut anywhere, even inside a UTF-8 character, and JSON values back to
back), `partial` (the complete prefix of a JSON text, closed), `accumulator` (the calls of
a stream: names and ids set once, arguments appended to one buffer, so feeding costs
linear time) and `events` (each event read by its format). How a format's events map onto
the accumulator is the format's own `stream_event` (in `formats/<name>.py`).

Rules, the same in both backends:

* An event is a dict, an SDK object (read by attribute), `str` / `bytes` of JSON text,
  a chunk of SSE text (once text starting with an SSE field, `data:`, `event:`, `id:`,
  `retry:` or a `:` comment, or with the start of one, is fed between JSON values, all
  later text is SSE), or a list / tuple of events (fed in turn; a list in it is no
  event). JSON text may be cut anywhere and hold any number of values (`JsonValues`);
  each value is read once complete, an object as an event, an array as its object
  items (each as it completes). `[DONE]` data is skipped; blank text is no event.
  Other values raise TypeError; text that is not JSON raises ParseError (once its
  value is complete, or at once where it cannot begin one). A Bedrock
  `InvokeModelWithResponseStream` event, `{"chunk": {"bytes": B}}`, is read as the event
  B holds as JSON text: `bytes` (boto3), or base64 text (the wire, JSON logs; text that
  is not base64 is the JSON).
* A call's name and id are the first non-empty strings given; later ones are ignored.
  Its arguments are the argument fragments appended in order; where none came, the
  object made of the values given at JSON paths (Gemini 3 `partial_args`), else the
  whole value given (an object, or a string); where none of these, `{}`.
* `finish()` gives every started call, in the provider's order (by the key the format
  gives, then by arrival); arguments that do not decode are kept in `raw_arguments`.
* Strings are kept as given (a `str` with lone surrogates too); an index is any int.
  A piece of a call whose start was not fed (Gemini 3 `partial_args` without a name)
  gives no call; where no call came, the response's `error` is `FRAGMENT`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from toolsift._errors import ParseError
from toolsift._jsontext import loads
from toolsift._pure import formats
from toolsift._pure.events import Assembler
from toolsift._types import AgentResponse, ToolCall

__all__ = ["Stream", "group_lines"]


class Stream:
    """`parser.stream()`: feed events, read the calls in progress, finish; the events
    are read by `assembler` (`toolsift._pure.events`)."""

    def __init__(self, assembler: Assembler) -> None:
        self._assembler = assembler
        self._events: list[Any] = []

    def feed(self, event: Any) -> list[ToolCall]:
        """Read one event (or chunk of SSE text); the calls it completed, in order."""
        if self._assembler.finished:
            raise ValueError("the stream is finished: feed() after finish()")
        self._events.append(event)
        self._assembler.begin()
        self._assembler.feed(event)
        return self._assembler.completed()

    def partial(self) -> list[ToolCall]:
        """Every call started so far, in the provider's order; arguments still arriving
        are decoded as far as they are complete (`partial_json`). Never raises."""
        return self._assembler.partial()

    def finish(self) -> AgentResponse:
        """Every call, in the provider's order; `raw` is the list of events fed. A call
        cut off keeps its argument text in `raw_arguments`. `error` is `FRAGMENT` where
        the stream held only pieces of calls whose start it did not hold."""
        self._assembler.finish()
        calls = self._assembler.calls()
        return AgentResponse(calls, list(self._events), self._assembler.error(calls))


def group_lines(lines: Iterable[Any], module_of: Callable[[Any], Any]) -> list[Any]:
    """`--stream-lines`: the lines of a file, each one event, grouped into streams, in
    the order of each stream's first line: a list of its lines each. `module_of(event)`
    is the format module whose `stream_id(event, current, items)` says which stream an
    event belongs to: an id (events with the same id are one stream, wherever they are
    in the file), True (a new stream without an id), or None (the stream of the line
    before). A format whose events carry the id only on the first (Anthropic, Cohere,
    Bedrock) can only be grouped when each stream's lines are contiguous: an event
    without an id belongs to the latest stream started. A line that is no event
    (`module_of` gives None: not a JSON object, a whole response) or not bytes (a line
    too long to keep) stands alone, as itself rather than in a list. A Bedrock `chunk`
    line is grouped by the event it wraps."""
    groups: dict[Any, Any] = {}
    items: dict[str, str] = {}
    current: Any = None
    for number, line in enumerate(lines):
        try:
            event = loads(line) if isinstance(line, bytes) else None
            payload = formats.unwrap_event(event)
            if isinstance(payload, bytes):
                event = loads(payload)
        except ParseError:
            event = None
        module = module_of(event) if isinstance(event, dict) else None
        if module is None:
            groups[("line", number)] = line
            continue
        key: Any = module.stream_id(event, current, items)
        if key is True or (key is None and current is None):
            key = ("line", number)
        elif key is None:
            key = current
        groups.setdefault(key, []).append(line)
        ends = getattr(module, "ends_stream", None)
        current = None if ends is not None and ends(event) else key
    return list(groups.values())
