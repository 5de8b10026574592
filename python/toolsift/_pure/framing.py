"""Text of a stream cut anywhere, split into the JSON text of its events (the twin of
`src/framing.rs`): server-sent events (`Sse`) and JSON values back to back
(`JsonValues`). A leaf over `toolsift._jsontext`."""

from __future__ import annotations

import re

from toolsift._jsontext import is_json

__all__ = ["BOM", "SSE_FIELDS", "JsonValues", "Sse", "starts_sse"]

SSE_FIELDS = (b"data:", b"event:", b"id:", b"retry:", b":")


def starts_sse(data: bytes) -> bool:
    """Text that starts with a server-sent-event field (or with the start of one: a
    chunk may be cut inside `data:`) begins an SSE stream."""
    data = data.lstrip()
    if data[:1] not in _SSE_FIRST:  # most text is a JSON event: `{` or `[`
        return False
    return any(data.startswith(f) or f.startswith(data) for f in SSE_FIELDS)


_SSE_FIRST = frozenset(field[:1] for field in SSE_FIELDS)


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
