"""Streams of tool-call events assembled into calls (the twin of `src/stream.rs`).

The machinery every format's stream reader shares, written once: the `Sse` splitter
(server-sent-event text in chunks, lines cut anywhere, even inside a UTF-8 character),
`partial_json` (the complete prefix of a JSON text, closed), the `Accumulator` of
fragments (names and ids set once, arguments appended to one buffer, so feeding costs
linear time), and `Stream`, the object `parser.stream()` returns. How a format's events
map onto the accumulator is the format's own `stream_event` (in `formats/<name>.py`).

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

import base64
import re
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import Any

import orjson

from toolsift._errors import ParseError
from toolsift._jsontext import is_json, loads, loads_or_orjson_error
from toolsift._pure.calls import Verbatim, arguments_of
from toolsift._pure.nodes import field, member
from toolsift._types import AgentResponse, ToolCall

__all__ = ["Accumulator", "Slot", "Sse", "Stream", "partial_json"]

SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")

_WS = " \t\n\r"


def partial_json(text: str) -> str:
    """The longest complete prefix of a JSON text, its open objects and arrays closed:
    what a streaming UI shows of arguments still arriving. A string or number not yet
    ended, a key without its value, and a literal cut short are left out; the text is
    read up to the first character that cannot continue JSON, and no further than the end
    of the first complete value. `""` where no value is complete. One pass, no recursion.
    """
    return PartialJson().read(text)


class PartialJson:
    """`partial_json` of a text that grows: each `read` is given the text of the one
    before with more appended, and reads only what is new (a token cut off by the end of
    the text is read again from its start; a string, from where its check stopped). So
    `partial()` after every fragment of a call costs linear time overall."""

    __slots__ = ("_at", "_checked", "_closers", "_out", "_safe", "_state", "_stopped", "waiting")

    def __init__(self) -> None:
        self._out: list[str] = []  # the text kept, in pieces
        self._closers: list[str] = []  # what closes each open container, innermost last
        # The last point where the kept text plus the closers is complete JSON:
        # (pieces of `_out`, open containers).
        self._safe = (0, 0)
        self._state = _VALUE
        self._at = 0  # where reading goes on: the start of a token not read yet
        self._checked = 0  # in a string starting at `_at`: where its check goes on
        # Nothing more can change the result: the first value is complete, or a character
        # that cannot continue JSON was met.
        self._stopped = False
        # The text ran out inside its first value (or before it): it is not JSON yet.
        self.waiting = True

    def read(self, text: str) -> str:
        """`partial_json(text)`; `text` starts with the text of the last `read`."""
        out, closers = self._out, self._closers
        state, safe = self._state, self._safe
        i, n = self._at, len(text)
        while i < n and not self._stopped:
            c = text[i]
            if c in _WS:
                i += 1
                continue
            if state == _AFTER:
                if not closers:
                    self._stopped = True  # the first value is complete
                    break
                if c == ",":
                    out.append(",")
                    state = _KEY if closers[-1] == "}" else _VALUE
                    i += 1
                    continue
                if c != closers[-1]:
                    self._stopped = True
                    break
            if c in "}]" and state != _KEY and state != _VALUE and closers and c == closers[-1]:
                out.append(closers.pop())
                i += 1
                state = _AFTER
                safe = (len(out), len(closers))
                continue
            if state in (_KEY, _KEY_OR_CLOSE):
                end = self._string_end(text, i) if c == '"' else _INVALID
                if end < 0:
                    self._stopped = end == _INVALID
                    break
                j = end
                while j < n and text[j] in _WS:
                    j += 1
                if j < n and text[j] != ":":
                    self._stopped = True
                if j >= n or text[j] != ":":
                    self._checked = end - 1  # the key is read: only its closing quote again
                    break
                out.append(text[i:end] + ":")
                i = j + 1
                self._checked = 0
                state = _VALUE
                continue
            # A value.
            if c in "{[":
                out.append(c)
                closers.append("}" if c == "{" else "]")
                state = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                i += 1
                safe = (len(out), len(closers))
                continue
            end = self._string_end(text, i) if c == '"' else _scalar_end(text, i)
            if end < 0:
                self._stopped = end == _INVALID
                break
            out.append(text[i:end])
            i = end
            self._checked = 0
            state = _AFTER
            safe = (len(out), len(closers))
        self._at, self._state, self._safe = i, state, safe
        complete = state == _AFTER and not closers
        self.waiting = not (self._stopped or complete)
        kept, depth = safe
        return "".join(out[:kept]) + "".join(reversed(closers[:depth]))

    def _string_end(self, text: str, i: int) -> int:
        """The end of the JSON string starting at `text[i]` (a quote); `_MORE` where the
        text ends first (the check goes on from there next time), `_INVALID` where it
        holds a control character or an invalid escape."""
        j = max(i + 1, self._checked)
        n = len(text)
        while True:
            j = _STRING_PLAIN.match(text, j).end()  # type: ignore[union-attr]
            if j >= n:
                break
            c = text[j]
            if c == '"':
                return j + 1
            if c != "\\":
                return _INVALID  # a control character
            if j + 1 >= n:
                break
            e = text[j + 1]
            if e == "u":
                if j + 6 > n:
                    break
                if not all(h in _HEX for h in text[j + 2 : j + 6]):
                    return _INVALID
                j += 6
            elif e in _ESCAPES:
                j += 2
            else:
                return _INVALID
        self._checked = j
        return _MORE


# What `partial_json` reads next: a value, a key, either of them or the container's end,
# or (after a value) a comma or the container's end.
_VALUE, _KEY, _KEY_OR_CLOSE, _VALUE_OR_CLOSE, _AFTER = range(5)
_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
# Where a token could not be read: it cannot be JSON, or the text ends inside it.
_INVALID, _MORE = -1, -2
# A string's characters that need no check: up to a quote, a backslash or a control one.
_STRING_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')


def _scalar_end(text: str, i: int) -> int:
    """The end of the number or literal at `text[i]`; `_MORE` where the text ends inside
    it (a number that reaches the end: more digits may follow), `_INVALID` where it is
    not one."""
    n = len(text)
    for literal in ("true", "false", "null"):
        if text.startswith(literal, i):
            return i + len(literal)
        if n - i < len(literal) and literal.startswith(text[i:]):
            return _MORE
    j = i
    if j < n and text[j] == "-":
        j += 1
    if j < n and text[j] == "0":
        j += 1
    elif j < n and "1" <= text[j] <= "9":
        while j < n and "0" <= text[j] <= "9":
            j += 1
    else:
        return _MORE if j >= n else _INVALID
    if j < n and text[j] == ".":
        j += 1
        start = j
        while j < n and "0" <= text[j] <= "9":
            j += 1
        if j == start:
            return _MORE if j >= n else _INVALID
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        start = j
        while j < n and "0" <= text[j] <= "9":
            j += 1
        if j == start:
            return _MORE if j >= n else _INVALID
    return _MORE if j >= n else j


def starts_sse(data: bytes) -> bool:
    """Text that starts with a server-sent-event field (or with the start of one: a
    chunk may be cut inside `data:`) begins an SSE stream."""
    data = data.lstrip()
    if data[:1] not in _SSE_FIRST:  # most text is a JSON event: `{` or `[`
        return False
    return any(data.startswith(f) or f.startswith(data) for f in SSE_FIELDS)


_SSE_FIRST = frozenset(field[:1] for field in SSE_FIELDS)


class Slot:
    """One call being assembled."""

    __slots__ = (
        "arrival",
        "done",
        "id",
        "item",
        "key",
        "name",
        "partial",
        "parts",
        "paths",
        "verbatim",
        "whole",
    )

    def __init__(self, key: tuple[int, int], item: str | None, arrival: int) -> None:
        self.key = key
        self.item = item  # the provider's item id, where calls are found by it too
        self.arrival = arrival  # its place among the stream's calls, in order of arrival
        self.name: str | None = None
        self.id: str | None = None
        self.parts: list[str] = []
        self.whole: Any = None
        self.verbatim = False
        self.done = False
        # Arguments streamed as values at JSON paths (Gemini 3 `partial_args`):
        # [path, value, continuing] in order.
        self.paths: list[list[Any]] = []
        # What `partial()` read of the argument text so far (fragments only extend it);
        # None before the first `partial()`, or after the text was replaced.
        self.partial: PartialJson | None = None

    def arguments(self) -> Any:
        """The arguments value as found: the fragments joined, else the object the
        values at paths make, else the whole value."""
        text = "".join(self.parts)
        if text:
            self.parts = [text]
            return text
        if self.paths:
            return object_at_paths(self.paths)
        return self.whole


class Accumulator:
    """The calls of one stream, keyed the provider's way."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self._by_key: dict[tuple[int, int], Slot] = {}
        # Lookups that would otherwise scan every call (a stream may hold thousands): the
        # first call to arrive with each (major, id) and each item id, and the largest
        # minor key of each major.
        self._by_id: dict[tuple[int, str], Slot] = {}
        self._by_item: dict[str, Slot] = {}
        self._last_minor: dict[int, int] = {}
        self.done_now: list[Slot] = []
        self.serial = 0  # for calls that arrive whole
        # For formats to find calls by their own rules: a key to the call it now means,
        # and the latest call of each major key.
        self.routes: dict[tuple[int, int], Slot] = {}
        self.latest: dict[int, Slot] = {}
        # Messages started so far (Anthropic `message_start`, Bedrock `messageStart`): the
        # group of the blocks now arriving, as each message's block indices start at 0.
        self.message = 0
        # A piece of a call whose start was not fed (Gemini 3 `partial_args` without a
        # name, no call going on): it gives no call; where no call came, `FRAGMENT`.
        self.fragment = False
        self.error: str | None = None  # the first error event (`provider_error`)

    def provider_error(self, error: Any, code: str | None = None) -> None:
        """An error event of the provider's: the stream failed there. Where no call came,
        the response's `error` is `stream error: ` and the error's text (`error_text`;
        `code` where the event names the error by its key, as Bedrock does); the first
        one is kept."""
        if self.error is None:
            text = None if error is None else error_text(error, code)
            self.error = f"{STREAM_ERROR}: {'(no message)' if text is None else text}"

    def slot(self, key: tuple[int, int], item: str | None = None) -> Slot:
        """The call at `key` (made if new)."""
        found = self._by_key.get(key)
        if found is None:
            found = Slot(key, item, len(self.slots))
            self.slots.append(found)
            self._by_key[key] = found
            major, minor = key
            last = self._last_minor.get(major)
            if last is None or minor > last:
                self._last_minor[major] = minor
            self._index_item(found)
        elif found.item is None and isinstance(item, str):
            found.item = item
            self._index_item(found)
        return found

    def existing(self, key: tuple[int, int]) -> Slot | None:
        return self._by_key.get(key)

    def set_id(self, slot: Slot, id: Any) -> None:
        """Set once: the first non-empty string (the call is then found by it)."""
        if slot.id is None and isinstance(id, str) and id:
            slot.id = id
            _keep_first(self._by_id, (slot.key[0], id), slot)

    def by_id(self, major: int, id: Any) -> Slot | None:
        """The call of `major` with this id, if one was started (the first to arrive)."""
        return self._by_id.get((major, id)) if isinstance(id, str) else None

    def by_item(self, item: Any) -> Slot | None:
        """The call with this provider item id, if one was started (the first to arrive)."""
        return self._by_item.get(item) if isinstance(item, str) else None

    def _index_item(self, slot: Slot) -> None:
        if isinstance(slot.item, str):
            _keep_first(self._by_item, slot.item, slot)

    def start(self, group: int, index: int | None, item: str | None = None) -> Slot:
        """The call a start event begins at `index` of `group` (without an index: after
        the group's others); it is now the group's latest."""
        slot = self.slot(self.new_key(group) if index is None else (group, index), item)
        self.latest[group] = slot
        return slot

    def started(self, group: int, index: int | None) -> Slot | None:
        """The call started at `index` of `group` (without an index: the group's latest),
        if one was."""
        return self.latest.get(group) if index is None else self.existing((group, index))

    def new_key(self, major: int) -> tuple[int, int]:
        """A key after every other one of `major` (a call with no index of its own)."""
        return major, self._last_minor.get(major, -1) + 1

    def whole_call(self, name: Any, id: Any, arguments: Any, verbatim: bool = False) -> None:
        """A call that arrived whole (Gemini, Ollama): started and completed at once."""
        if isinstance(arguments, Verbatim):
            arguments, verbatim = arguments.value, True
        slot = self.slot((-1, self.serial))
        self.serial += 1
        set_name(slot, name)
        self.set_id(slot, id)
        set_whole(slot, arguments)
        slot.verbatim = verbatim
        self.complete(slot)

    def complete(self, slot: Slot) -> None:
        if not slot.done:
            slot.done = True
            self.done_now.append(slot)

    def complete_all(self, major: int | None = None) -> None:
        """Every call (of `major`, where given) not completed yet, in key order."""
        for slot in self.ordered():
            if major is None or slot.key[0] == major:
                self.complete(slot)

    def ordered(self) -> list[Slot]:
        """The calls in the provider's order: by key (stable: then by arrival). Calls
        that arrived whole keep their arrival order among themselves."""
        return sorted(self.slots, key=lambda slot: slot.key)


def set_name(slot: Slot, name: Any) -> None:
    """Set once: the first non-empty string."""
    if slot.name is None and isinstance(name, str) and name:
        slot.name = name


def _keep_first(index: dict[Any, Slot], key: Any, slot: Slot) -> None:
    """`index[key] = slot`, unless a call that arrived before it is there."""
    there = index.get(key)
    if there is None or slot.arrival < there.arrival:
        index[key] = slot


def append(slot: Slot, fragment: Any) -> None:
    """An argument fragment (a string; anything else is ignored)."""
    if isinstance(fragment, str) and fragment:
        if not slot.parts:  # `partial()` may have read the whole value's text till now
            slot.partial = None
        slot.parts.append(fragment)


def set_whole(slot: Slot, value: Any) -> None:
    """The whole arguments value (an object, or the whole text); fragments, where any
    came, stay ahead of it."""
    if value is not None:
        slot.whole = value
        slot.partial = None


def set_text(slot: Slot, text: Any) -> None:
    """The whole argument text (a `.done` event's): it replaces the fragments."""
    if isinstance(text, str):
        slot.parts = [text]
        slot.partial = None


MAX_PATH_STEPS = 64
"""A JSON path of more steps is ignored (it sets nothing)."""
MAX_PATH_INDEX = 10_000
"""A JSON path with a larger array index is ignored (it sets nothing)."""


def add_path_value(slot: Slot, path: str, value: Any, continuing: bool) -> None:
    """A value at a JSON path; a string continues the one before at the same path
    where that one said it would go on."""
    last = slot.paths[-1] if slot.paths else None
    if last is not None and last[0] == path and last[2] and isinstance(value, str):
        if isinstance(last[1], str):
            last[1] += value
            last[2] = continuing
            return
    slot.paths.append([path, value, continuing])


def path_steps(path: str) -> list[str | int] | None:
    """`$.a.b[0]['c d']` as `["a", "b", 0, "c d"]`; None for what is not such a path
    (or has more than `MAX_PATH_STEPS` steps, or none)."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    i, n = 1, len(path)
    while i < n:
        if path[i] == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return None
            steps.append(path[i + 1 : j])
            i = j
        elif path.startswith("['", i) or path.startswith('["', i):
            end = path.find(path[i + 1] + "]", i + 2)
            if end < 0:
                return None
            steps.append(path[i + 2 : end])
            i = end + 2
        elif path[i] == "[":
            end = path.find("]", i)
            digits = path[i + 1 : end] if end > 0 else ""
            if not (digits.isascii() and digits.isdigit()) or int(digits) > MAX_PATH_INDEX:
                return None
            steps.append(int(digits))
            i = end + 1
        else:
            return None
    return steps if 0 < len(steps) <= MAX_PATH_STEPS else None


def object_at_paths(paths: list[list[Any]]) -> dict[str, Any]:
    """The object the values at their paths make, in order (a later value at a path
    replaces an earlier one); a path through a value that is not the container it needs
    sets nothing."""
    root: dict[str, Any] = {}
    for path, value, _ in paths:
        steps = path_steps(path)
        if steps is None or not isinstance(steps[0], str):
            continue
        node: Any = root
        for step, following in pairwise(steps):
            node = _child(node, step, following)
            if node is None:
                break
        else:
            _set(node, steps[-1], value)
    return root


def _child(node: Any, step: str | int, following: str | int) -> Any:
    """The container at `step` of `node` (made where missing), or None on a conflict."""
    empty: Any = {} if isinstance(following, str) else []
    if isinstance(step, str) and isinstance(node, dict):
        child = node.get(step)
        if child is None:
            child = node[step] = empty
    elif isinstance(step, int) and isinstance(node, list):
        node.extend([None] * (step + 1 - len(node)))
        child = node[step]
        if child is None:
            child = node[step] = empty
    else:
        return None
    wanted = dict if isinstance(following, str) else list
    return child if isinstance(child, wanted) else None


def _set(node: Any, step: str | int, value: Any) -> None:
    if isinstance(step, str) and isinstance(node, dict):
        node[step] = value
    elif isinstance(step, int) and isinstance(node, list):
        node.extend([None] * (step + 1 - len(node)))
        node[step] = value


def typed_event(event: Any, types: frozenset[str]) -> bool:
    """Whether an event's `type` is one of `types` (a provider's stream event names)."""
    kind = field(event, "type")
    return isinstance(kind, str) and kind in types


ERROR_TYPE = frozenset(("error",))
"""The `type` of an error event (Anthropic's, the Responses API's), for `typed_event`."""


def index_of(value: Any) -> int | None:
    """An index: an int (not a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def tool_call(slot: Slot) -> ToolCall:
    """The call as assembled so far (arguments decoded as `parse` decodes them)."""
    value = slot.arguments()
    if slot.verbatim:
        value = Verbatim(value)
    if isinstance(value, str) and value == "":
        value = None  # a tool with no arguments
    decoded, raw = arguments_of(value)
    return ToolCall(slot.name or "", decoded, slot.id, raw)


def partial_call(slot: Slot) -> ToolCall:
    """`tool_call`, with arguments still arriving decoded as far as they are complete."""
    value = slot.arguments()
    if slot.done or slot.verbatim or not isinstance(value, str) or not value:
        return tool_call(slot)
    if slot.partial is None:
        slot.partial = PartialJson()
    closed = slot.partial.read(value)
    if not slot.partial.waiting:  # (where it is, the text ends inside its value: no JSON)
        call = tool_call(slot)
        if call.raw_arguments is None:
            return call
    decoded, _ = arguments_of(closed or "{}")  # as `parse` decodes text
    return ToolCall(slot.name or "", decoded, slot.id, value)


class Sse:
    """Server-sent-event text, fed in chunks cut anywhere: the `data` of each complete
    event. Lines end at CRLF, LF or CR (the SSE grammar's three), also where a chunk ends
    with the CR of a CRLF and the next begins with its LF; an event ends at an empty
    line; its `data:` lines are joined with `\\n`. Bytes are kept until their line is
    complete, so a UTF-8 character cut between two chunks is whole when read; the pieces
    of a line are joined once, when it ends."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []  # the pieces of a line whose end has not come
        self._after_cr = False  # the last chunk ended with a CR: an LF next ends no line
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[bytes]:
        if self._after_cr and chunk[:1] == b"\n":
            chunk = chunk[1:]
            self._after_cr = False
        if chunk:
            self._after_cr = chunk.endswith(b"\r")
        events: list[bytes] = []
        lines = _LINE_END.split(chunk)
        last = lines.pop()
        for line in lines:
            if self._pending:
                self._pending.append(line)
                line = b"".join(self._pending)
                self._pending = []
            self._line(line, events)
        if last:
            self._pending.append(last)
        return events

    def end(self) -> list[bytes]:
        """The last event, where the text ended without its empty line."""
        events: list[bytes] = []
        if self._pending:
            self._line(b"".join(self._pending), events)
            self._pending = []
        self._line(b"", events)
        return events

    def _line(self, line: bytes, events: list[bytes]) -> None:
        if not line:
            if self._data:
                data = b"\n".join(self._data)
                self._data = []
                if data.strip() != b"[DONE]":
                    events.append(data)
            return
        if line.startswith(b"data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(b" ") else value)
        # `event:`, `id:`, `retry:` and `:` comments: the event's type is in its data.


_LINE_END = re.compile(rb"\r\n|\r|\n")
_NOT_WHITESPACE = re.compile(rb"[^ \t\n\r]")
_WHITESPACE = re.compile(rb"[ \t\n\r]")
_BRACKET_OR_QUOTE = re.compile(rb'["{}\[\]]')
# A string's characters up to its closing quote, to the end of the text, or to a `\`
# that ends the text (its escape not fed yet).
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.DOTALL)
_VALUE_FIRST = frozenset(b'{["-0123456789tfn')
BOM = b"\xef\xbb\xbf"
"""A UTF-8 byte order mark: not JSON (`parse` says so by name)."""


class JsonValues:
    """JSON text that is not SSE, fed in chunks cut anywhere (an Ollama NDJSON body as
    it comes off the socket, a Gemini REST stream's JSON array of pretty-printed
    objects): the text of each value once it is complete. Values follow each other,
    with or without whitespace between them; an object or array is complete at its
    closing bracket (counted outside strings), a string at its closing quote, any other
    value at the whitespace after it (or at `end`). A byte that cannot begin a value is
    given at once, alone (a byte order mark, its three bytes), so that reading it raises
    then. So the values given do not
    depend on where the text was cut.

    An array that begins where a value may (a Gemini REST stream) gives each object
    directly in it as that object completes; then itself only where it is not JSON (so
    that reading it raises), as its objects were given."""

    def __init__(self) -> None:
        self._text = bytearray()
        self._start = 0  # where the open value begins (or, with none open, the next)
        self._scanned = 0  # how far the open value was read
        self._depth = 0  # the open value's brackets not yet closed
        self._in_string = False
        self._open = False  # a value has begun (its first byte, at `_start`, tells its kind)
        # Where the open array's open object begins (-1: none open): an array's objects
        # are given as they come.
        self._item = -1

    def idle(self) -> bool:
        """No value begun, and no text kept."""
        return not self._open and self._start == len(self._text)

    def feed(self, chunk: bytes) -> None:
        if self._start:  # drop what was given already: once a chunk, not once a value
            del self._text[: self._start]
            self._scanned -= self._start
            if self._item >= 0:
                self._item -= self._start
            self._start = 0
        self._text += chunk

    def next_value(self) -> bytes | None:
        """The next complete value's text, or None where none is complete yet."""
        while (found := self._scan()) is not None:
            value, objects_given = found
            if not objects_given or not is_json(value):
                return value
        return None

    def end(self) -> bytes | None:
        """The value left open where the text ended (a number, or a value cut off; not
        an array, whose objects were given)."""
        if not self._open:  # where text is kept, a byte order mark cut short
            rest = bytes(self._text[self._start :])
            self._start = self._scanned = len(self._text)
            return rest or None
        value, objects_given = self._take(len(self._text))
        return None if objects_given else value

    def _scan(self) -> tuple[bytes, bool] | None:
        """The next complete value or object in an array (`next_value`), and whether it
        is an array whose objects were given."""
        text = self._text
        if not self._open:
            found = _NOT_WHITESPACE.search(text, self._start)
            if found is None:
                self._start = self._scanned = len(text)
                return None
            self._start = self._scanned = found.start()
            byte = text[self._start]
            if byte not in _VALUE_FIRST:
                # Not JSON, whatever follows: given now, alone; a byte order mark whole
                # (so that reading it says what it is, as `parse` does).
                mark = bytes(text[self._start : self._start + len(BOM)])
                if mark != BOM and BOM.startswith(mark):
                    self._scanned = self._start
                    return None  # the rest of it may come
                return self._take(self._start + (len(BOM) if mark == BOM else 1))
            self._open, self._scanned = True, self._start + 1
            self._in_string = byte == 0x22
            self._depth = 1 if byte in b"{[" else 0
        first = text[self._start]
        scalar = first not in b'{["'  # a number or a literal: neither container nor string
        array = first == 0x5B
        at = self._scanned
        while True:
            if self._in_string:
                body = _STRING_BODY.match(text, at)
                at = at if body is None else body.end()  # it matches, if only no text
                if at == len(text) or text[at] != 0x22:
                    self._scanned = at  # the end, or a `\` whose escape is still to come
                    return None
                at += 1
                self._in_string = False
                if self._depth == 0:
                    return self._take(at)
            elif scalar:
                end = _WHITESPACE.search(text, at)
                if end is None:
                    self._scanned = len(text)
                    return None
                return self._take(end.start())
            else:
                found = _BRACKET_OR_QUOTE.search(text, at)
                if found is None:
                    self._scanned = len(text)
                    return None
                at = found.end()
                byte = text[at - 1]
                if byte == 0x22:
                    self._in_string = True
                elif byte in b"{[":
                    self._depth += 1
                    if array and self._depth == 2 and byte == 0x7B:
                        self._item = at - 1
                else:
                    self._depth -= 1
                    if self._depth == 1 and self._item >= 0:  # an object in the array
                        item = bytes(text[self._item : at])
                        self._item, self._scanned = -1, at
                        return item, False
                    if self._depth == 0:
                        return self._take(at)

    def _take(self, end: int) -> tuple[bytes, bool]:
        value = bytes(self._text[self._start : end]), self._text[self._start] == 0x5B
        self._start = self._scanned = end
        self._open = self._in_string = False
        self._depth, self._item = 0, -1
        return value


EventHandler = Callable[[Any, Accumulator], None]


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
            payload = chunk_payload(event)
            if payload is not None:
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


NOT_JSON = "a stream event is not JSON"
"""The error of a record holding a stream with an event that is not JSON text."""

FRAGMENT = (
    "a functionCall with partialArgs but no name: a piece of a stream; "
    "read the whole stream (parser.stream(), --stream)"
)
"""The `error` of a response, or a stream, holding only pieces of calls whose start it
does not hold (Gemini 3 `partial_args` without a name): no call is made of them."""


STREAM_ERROR = "stream error"
"""How the `error` of a stream that failed (an error event of the provider's) and gave no
call begins."""


def response_error(message: str) -> bool:
    """Whether a stream's `error` says its response is still one (no call, and why), not
    a record that could not be read: `FRAGMENT`, or the provider's error event."""
    return message == FRAGMENT or message.startswith(STREAM_ERROR)


def error_text(error: Any, code: str | None = None) -> str | None:
    """A provider's error value as one line: a string as it is; an object's `message` (a
    string) after its code: `code` where given, else its own `code` (a string, or an
    integer of 64 bits), `type` or `status` (a string); the code alone where there is no
    message (the Realtime API's `{type, code}`). None with neither."""
    if isinstance(error, str):
        return error
    message = field(error, "message")
    if code is None:
        code = _error_code(error)
    if not isinstance(message, str):
        return code
    return message if code is None else f"{code}: {message}"


def _error_code(error: Any) -> str | None:
    code = field(error, "code")
    if isinstance(code, str):
        return code
    if type(code) is int and -(2**63) <= code < 2**63:
        return str(code)
    for key in ("type", "status"):
        text = field(error, key)
        if isinstance(text, str):
            return text
    return None


def stream_error(acc: Accumulator, calls: list[ToolCall]) -> str | None:
    """Where the stream gave no call: the provider's error event (`provider_error`),
    else `FRAGMENT` where it held pieces of calls."""
    if calls:
        return None
    if acc.error is not None:
        return acc.error
    return FRAGMENT if acc.fragment else None


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


class Stream:
    """`parser.stream()`: feed events, read the calls in progress, finish.

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
        self._events: list[Any] = []
        self._finished = False

    def feed(self, event: Any) -> list[ToolCall]:
        """Read one event (or chunk of SSE text); the calls it completed, in order."""
        if self._finished:
            raise ValueError("the stream is finished: feed() after finish()")
        self._events.append(event)
        self._acc.done_now = []
        self._read(event)
        done = self._acc.done_now
        self._acc.done_now = []
        return [tool_call(slot) for slot in done]

    def feed_record(self, record: Any) -> None:
        """A record holding a whole stream: SSE text, or a list whose items are its events
        (an item that is no event, such as a number or a list, has no calls)."""
        self._events.append(record)
        if isinstance(record, (list, tuple)):
            for item in record:
                self._event(item)
        else:
            self._read(record)

    def partial(self) -> list[ToolCall]:
        """Every call started so far, in the provider's order; arguments still arriving
        are decoded as far as they are complete (`partial_json`). Never raises."""
        return [partial_call(slot) for slot in self._acc.ordered()]

    def finish(self) -> AgentResponse:
        """Every call, in the provider's order; `raw` is the list of events fed. A call
        cut off keeps its argument text in `raw_arguments`. `error` is `FRAGMENT` where
        the stream held only pieces of calls whose start it did not hold."""
        if not self._finished:
            self._finished = True
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
        calls = [tool_call(slot) for slot in self._acc.ordered()]
        return AgentResponse(calls, list(self._events), stream_error(self._acc, calls))

    def _read(self, event: Any) -> None:
        if isinstance(event, (list, tuple)):
            for item in event:
                if isinstance(item, (list, tuple)):
                    raise TypeError("a stream event is a dict, an SDK object or text, not a list")
                self._read(item)
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
        payload = chunk_payload(event)
        if payload is not None:
            self._json_event(payload)
            return
        exception = bedrock_exception(event)
        if exception is not None:
            self._acc.provider_error(exception[1], exception[0])
            return
        if self._handler is None and self._detect is not None:
            detected = self._detect(event)
            if detected is not None:
                self.format, self._handler = detected
        if self._handler is not None:
            self._handler(event, self._acc)
        elif self._detect is not None:
            undetected_error(event, self._acc)
