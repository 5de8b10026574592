"""Bulk reading (pure Python): files of JSON lines, provider batch envelopes, Arrow rows.

This is the readable specification of `parse_file` and `to_arrow`; the Rust backend
(`src/bulk/`, `src/python/files.rs`, `src/python/arrow.rs`) gives the same results, and
the tests say so.

Records
-------
A *record* is one line of a file (the terminator, ``\\n`` or ``\\r\\n``, removed; the last
line may lack it), or one item of an in-memory source. Records are numbered from 0 in
input order; a *blank* record (empty, or only spaces, tabs, CRs and LFs) is skipped: it
yields no AgentResponse and no row, but keeps its number. Files may be plain, gzip or
zstd; the kind is told by the first bytes (the magic numbers), not by the name.

Where the response is (`locate`)
--------------------------------
Each record is decoded as JSON (an error is the record's ``error``: ``str(ParseError)``).
With a `record_path` (keys, from the dot path), the response is the value at that path
of objects (the last of duplicate keys wins); a missing key, a null or a non-object on
the way is the error ``nothing at record_path P``. Without one, a record that is a known
batch envelope is unwrapped, checked in this order:

* Vertex AI batch prediction output: an object with ``request`` and ``status`` (lines of
  Claude models keep the request's ``custom_id``). A ``status`` other than null or ``""``
  is ``batch error: D``; else the response is ``response`` (``batch record has no
  response`` when missing).
* OpenAI Batch API output: an object with ``custom_id`` and ``response`` or ``error``.
  ``custom_id`` is kept; a non-null ``error`` is ``batch error: D``; a ``response``
  that is not an object is ``batch record has no response``; a ``response.status_code``
  that is present and not the integer 200 is ``HTTP S: D`` (D from ``body.error``, else
  the body; ``HTTP S`` alone without a body); else the response is ``response.body``
  (``batch record has no response body`` when missing).
* Gemini API batch output: an object with ``key`` and ``response``, ``error`` or
  ``status``; and an inline batch's ``InlinedResponse``: an object with ``metadata`` and
  ``response`` or ``error``, and no other member (its custom id is ``metadata.key``). A
  non-null ``error``, else a ``status`` other than null or ``""``, is ``batch error: D``;
  else the response is ``response``.

* Anthropic Message Batches results (``custom_id`` and ``result``) and Bedrock batch
  inference output (``recordId`` or ``modelInput``, and ``modelOutput`` or ``error``):
  see ``unwrap_batch`` in `toolsift._pure.formats.anthropic` and `.bedrock`.

``key`` (Vertex, Gemini API; else ``custom_id`` on Vertex) is kept as the custom id too.
D describes the provider's error value: a string as is; an object with a string
``message`` as ``CODE: MESSAGE`` (when ``code`` is a string or an integer) or
``MESSAGE``; anything else as compact JSON.
Anything else is the response itself. The response is then walked like a decoded
`parse` input (a response that is not an object simply has no calls).
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any, Protocol, cast

import orjson

from toolsift._errors import (
    OPENED_BEFORE_FORK,
    ParseError,
    check_threads,
    error_kind,
    record_error,
)
from toolsift._jsontext import (
    dumps_arguments,
    dumps_compact,
    keeping_number_text,
    loads,
)
from toolsift._pure.context import Context
from toolsift._pure.defects import by_limit
from toolsift._pure.formats import BATCH_ENVELOPES
from toolsift._pure.nodes import PLAIN, describe
from toolsift._pure.violations import Checks
from toolsift._types import COLUMNS, AgentResponse, ToolCall

__all__ = [
    "BATCH_ROWS",
    "ArrowColumns",
    "TextCalls",
    "blank",
    "describe",
    "locate",
    "locate_object",
    "open_records",
    "read_record",
    "response",
    "text_error",
]

Progress = Callable[[int], None] | None
Sink = Callable[[Any], None]


class Reading(Protocol):
    """How a parser reads a record's response (`toolsift._pure.walk.Parser`)."""

    def read(self, doc: Any, context: bool = False) -> tuple[list[ToolCall], str]:
        """The calls in a decoded response, and the format that read them (the `format`
        column); `ParseError` where none did. With `context`, the calls carry it."""

    def decoded_read(
        self, doc: Any, text: Any, context: bool = False
    ) -> tuple[list[ToolCall], str] | None:
        """The same for a response plain orjson decoded from the record `text`, or None
        where the record must be decoded exactly."""

    def text_read(self, text: Any) -> tuple[list[ToolCall], str] | None:
        """For a format that reads text (LiteRT-LM): the calls `parse` finds in a record
        (never an error), and the format. None for the others."""


BATCH_ROWS = 4096
"""Records per Arrow record batch at most (the pure backend's; the Rust one cuts per block)."""

BATCH_BYTES = 1 << 20
"""Bytes of records per Arrow record batch at most, as the Rust backend's blocks: a batch
of 4,096 long records held tens of MiB (issue 37: readers held mid-file)."""

_GZIP_MAGIC = b"\x1f\x8b"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_BLANK = b" \t\r\n"
_PROGRESS_EVERY = 1 << 20  # report progress about once a MiB


# ------------------------------------------------------------------ records of a file


class _Prefixed(io.RawIOBase):
    """`head`, then the rest of `raw`, counting the bytes of the file read (the magic
    number is read before the decompressor is chosen: pipes cannot seek back). At the
    end of a regular file whose size the system reports (not 0 as for files in /proc),
    raises `_Shrank` if it is now shorter than what was read of it: the bytes read past
    its new end are not in it any more, and the last line read of them may be cut."""

    def __init__(self, head: bytes, raw: IO[bytes]) -> None:
        self._head = head
        self._raw = raw
        self.consumed = len(head)
        status = os.fstat(raw.fileno())
        self._sized = stat.S_ISREG(status.st_mode) and status.st_size > 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._raw.read(len(buffer))
        n = len(data)
        if n == 0 and len(buffer) and self._sized:
            if os.fstat(self._raw.fileno()).st_size < self.consumed:
                raise _Shrank
        buffer[:n] = data
        self.consumed += n
        return n


class _Shrank(Exception):
    """The file shrank while it was read (`_Prefixed`); the decompressors pass it on."""


def _is_zstd(magic: bytes) -> bool:
    """A zstd frame, or a skippable one (`50..5F 2A 4D 18`, how every pzstd file starts)."""
    return magic == _ZSTD_MAGIC or (
        len(magic) == 4 and 0x50 <= magic[0] <= 0x5F and magic[1:] == b"\x2a\x4d\x18"
    )


def _open(path: str) -> tuple[IO[bytes], _Prefixed, IO[bytes], str | None]:
    """(the file, its bytes counted, a reader of its decompressed bytes, the kind of
    compression). Reads the file from its start only, so that pipes and FIFOs work."""
    raw = open(path, "rb", buffering=0)  # closed by the caller
    try:
        magic = b""
        while len(magic) < 4:
            more = raw.read(4 - len(magic))
            if not more:
                break
            magic += more
        counted = _Prefixed(magic, raw)
        if magic.startswith(_GZIP_MAGIC):
            unzipped = cast(IO[bytes], gzip.GzipFile(fileobj=counted, mode="rb"))
            return raw, counted, unzipped, "gzip"
        if _is_zstd(magic):
            try:
                import zstandard
            except ImportError as exc:
                raise ImportError(
                    "reading .zst files with the pure-Python backend needs the zstandard "
                    "package: pip install 'toolsift[zstd]'"
                ) from exc
            frames = io.BufferedReader(_ZstdFrames(counted, zstandard), 1 << 16)
            return raw, counted, frames, "zstd"
        return raw, counted, io.BufferedReader(counted, 1 << 20), None
    except BaseException:
        raw.close()
        raise


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of one or more zstd frames (skippable ones give none); data
    cut off inside a frame is an error (zstandard's stream_reader would end quietly)."""

    def __init__(self, raw: io.RawIOBase, zstandard: Any) -> None:
        self._raw = raw
        self._zstd = zstandard
        self._context = zstandard.ZstdDecompressor()
        self._frame = self._context.decompressobj()
        self._in_frame = False
        self._out = b""
        self._error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out:
            if self._error is not None:
                raise self._error
            # Small pieces: what a corrupt piece decompressed to is lost with it.
            data = self._raw.read(1 << 14)
            if not data:
                if self._in_frame:
                    raise self._zstd.ZstdError("zstd data ends inside a frame")
                return 0
            pieces = []
            try:
                while data:
                    self._in_frame = True
                    pieces.append(self._frame.decompress(data))
                    data = b""
                    if self._frame.eof:  # a frame ended: the next one may follow
                        data = self._frame.unused_data
                        self._frame = self._context.decompressobj()
                        self._in_frame = False
            except self._zstd.ZstdError as exc:
                # The frames that ended before the fault come out first.
                self._error = exc
            self._out = b"".join(pieces)
        n = min(len(buffer), len(self._out))
        buffer[:n] = self._out[:n]
        self._out = self._out[n:]
        return n


class _TooLong:
    def __repr__(self) -> str:
        return "TOO_LONG"


TOO_LONG: Any = _TooLong()
"""What `open_records` gives for a line longer than `max_line_bytes` (not kept)."""

MAX_LINE_BYTES = 1 << 30
"""The longest line read by default; a longer one is the error `too_long_message`."""


def too_long_message(max_line_bytes: int) -> str:
    return f"line longer than {max_line_bytes} bytes"


def open_records(
    path: str,
    progress: Progress = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    text_bytes: list[int] | None = None,
) -> Iterator[tuple[int, bytes]]:
    """`(number, line)` for every line of the file that is not blank, in order; `line`
    is `TOO_LONG` for a line of more than `max_line_bytes` bytes (its `\\n` not
    counted), which is not kept.

    The file is opened now (errors such as PermissionError come from this call);
    `progress(done)` is called with the number of (compressed) bytes of the file read so
    far, about once a MiB and at the end. Compressed data that is corrupt or cut short
    raises `OSError("PATH: corrupt or truncated gzip data")` (or zstd) after the complete
    lines decompressed before the fault. `text_bytes[0]`, when given, grows by the
    decompressed bytes read: every line with its terminator, blank and too long ones
    included.
    """
    raw, counted, reader, kind = _open(path)
    return _records(path, raw, counted, reader, kind, progress, max_line_bytes, text_bytes)


def _records(
    path: str,
    raw: IO[bytes],
    counted: _Prefixed,
    reader: IO[bytes],
    kind: str | None,
    progress: Progress,
    limit: int,
    text_bytes: list[int] | None,
) -> Iterator[tuple[int, bytes]]:
    with raw, reader:
        reported = 0
        number = -1
        size = 0
        try:
            while True:
                line = reader.readline(limit + 1)
                if not line:
                    break
                size += len(line)
                number += 1
                if progress is not None:
                    done = counted.consumed
                    if done - reported >= _PROGRESS_EVERY:
                        reported = done
                        progress(done)
                if not line.endswith(b"\n"):  # the last line, or one too long to end here
                    if len(line) > limit:
                        while line and not line.endswith(b"\n"):  # drop the rest
                            line = reader.readline(1 << 20)
                            size += len(line)
                        yield number, TOO_LONG
                        continue
                else:
                    line = line[:-1]
                    if len(line) > limit:
                        yield number, TOO_LONG
                        continue
                if line.endswith(b"\r"):
                    line = line[:-1]
                if not blank(line):
                    yield number, line
        except _Shrank:
            raise OSError(f"{path}: the file shrank while it was read") from None
        except _corrupt_errors() as exc:
            raise OSError(f"{path}: corrupt or truncated {kind} data") from exc
        finally:
            if text_bytes is not None:
                text_bytes[0] += size
        if progress is not None:
            progress(counted.consumed)


def _corrupt_errors() -> tuple[type[BaseException], ...]:
    """What gzip, zlib and zstandard raise for corrupt or truncated data."""
    errors: list[type[BaseException]] = [EOFError, gzip.BadGzipFile, zlib.error]
    zstandard = sys.modules.get("zstandard")
    if zstandard is not None:
        errors.append(zstandard.ZstdError)
    return tuple(errors)


def blank(record: str | bytes | bytearray | memoryview) -> bool:
    """Empty, or only JSON whitespace: skipped by the bulk APIs."""
    if isinstance(record, str):
        return not record.strip(" \t\r\n")
    return not bytes(record).strip(_BLANK)


NO_RESPONSE = "no response (null)"
"""The error of an in-memory record that is None (a null in a column of responses)."""


class TextCalls(list[ToolCall]):
    """The calls a raw-text dialect read in one text, with the dialect's name (the
    `format` column) and the text around the calls (the Rust `Record`'s `content` and
    `reasoning`), carried to the AgentResponse."""

    def __init__(
        self,
        calls: list[ToolCall],
        format: str,
        content: str | None = None,
        reasoning: str | None = None,
    ) -> None:
        super().__init__(calls)
        self.format = format
        self.content = content
        self.reasoning = reasoning

    @property
    def context(self) -> Context:
        """The context columns: calls of the dialect's type, nothing else known."""
        return Context(call_type=self.format)


def response(calls: list[ToolCall], raw: Any, error: str | None = None) -> AgentResponse:
    """The AgentResponse of `calls` read in `raw` (a dialect's content and reasoning kept)."""
    if isinstance(calls, TextCalls):
        return AgentResponse(list(calls), raw, error, calls.content, calls.reasoning)
    return AgentResponse(calls, raw, error)


def text_error(record: Any) -> str | None:
    """Why an in-memory record is not text (None when it is)."""
    if isinstance(record, (str, bytes, bytearray, memoryview)):
        return None
    if record is None:
        return NO_RESPONSE
    return record_error(TypeError(f"a record must be str or bytes, not {type(record).__name__}"))


def _byte_length(record: str | bytes | bytearray | memoryview) -> int:
    if isinstance(record, memoryview):
        return record.nbytes
    if isinstance(record, str) and not record.isascii():
        # surrogatepass: a lone surrogate (not UTF-8) counts the 3 bytes it is written as
        return len(record.encode("utf-8", "surrogatepass"))
    return len(record)


# ------------------------------------------------------------------ envelopes


_INLINED_RESPONSE = {"metadata", "response", "error"}


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def locate(doc: Any, path: Sequence[str] | None) -> tuple[Any, str | None, str | None]:
    """`(response, custom_id, error)` of a decoded record (see the module docstring)."""
    if path is not None:
        node = doc
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
            if node is None:
                return None, None, f"nothing at record_path {'.'.join(path)}"
        return node, None, None
    if not isinstance(doc, dict):
        return doc, None, None
    # Vertex first: its lines of Claude models keep the request's `custom_id` too.
    if "request" in doc and "status" in doc:
        return _vertex_batch(doc)
    if "custom_id" in doc and ("response" in doc or "error" in doc):
        return _openai_batch(doc)
    answered = "response" in doc or "error" in doc
    if "key" in doc and (answered or "status" in doc):
        return _gemini_batch(doc, _string(doc.get("key")))
    # An inline batch's answer (`InlinedResponse`, as the REST API and google-genai give it).
    if "metadata" in doc and answered and doc.keys() <= _INLINED_RESPONSE:
        metadata = doc.get("metadata")
        inline_key = metadata.get("key") if isinstance(metadata, dict) else None
        return _gemini_batch(doc, _string(inline_key))
    # The envelopes a format brings along (its module's `unwrap_batch`).
    for unwrap in BATCH_ENVELOPES:
        located = unwrap(doc)
        if located is not None:
            return located
    return doc, None, None


ENVELOPE_MARKS = ("custom_id", "key", "metadata", "modelInput", "recordId", "request")
"""Every envelope `locate` unwraps has one of these members: a dict with none of them is
its own response (the Rust backend looks for them before asking `locate_object`)."""

_SDK_ENVELOPES: dict[type, bool] = {}  # an SDK class -> whether it is a batch envelope


def locate_object(raw: Any, path: Sequence[str] | None) -> tuple[Any, str | None, str | None]:
    """`locate` of a caller's in-memory record (`parse`, `parse_many`): a dict as decoded
    JSON is; an SDK object (a pydantic model) that is a batch envelope (google-genai's
    `InlinedResponse`, anthropic's `MessageBatchIndividualResponse`), or any with a
    `record_path`, as its `model_dump()`; any other object is its own response."""
    if path is None and (isinstance(raw, dict) and not raw.keys() & ENVELOPE_MARKS):
        return raw, None, None
    if not isinstance(raw, (dict, *PLAIN)) and (path is not None or _sdk_envelope(type(raw))):
        dump = getattr(raw, "model_dump", None)
        if callable(dump):
            return locate(dump(), path)
    return locate(raw, path)


def _sdk_envelope(cls: type) -> bool:
    """Whether the pydantic model `cls` has the members of a batch envelope."""
    found = _SDK_ENVELOPES.get(cls)
    if found is None:
        fields = getattr(cls, "model_fields", None)
        probe = dict.fromkeys(fields) if isinstance(fields, dict) else {}
        found = locate(probe, None)[0] is not probe
        _SDK_ENVELOPES[cls] = found
    return found


def _openai_batch(doc: dict[str, Any]) -> tuple[Any, str | None, str | None]:
    custom_id = _string(doc.get("custom_id"))
    error = doc.get("error")
    if error is not None:
        return None, custom_id, f"batch error: {describe(error)}"
    response = doc.get("response")
    if not isinstance(response, dict):
        return None, custom_id, "batch record has no response"
    status = response.get("status_code")
    body = response.get("body")
    if status is not None and not (type(status) is int and status == 200):
        head = f"HTTP {dumps_compact(status)}"
        if body is None:
            return None, custom_id, head
        detail = body.get("error") if isinstance(body, dict) else None
        return None, custom_id, f"{head}: {describe(body if detail is None else detail)}"
    if body is None:
        return None, custom_id, "batch record has no response body"
    return body, custom_id, None


def _vertex_batch(doc: dict[str, Any]) -> tuple[Any, str | None, str | None]:
    custom_id = _string(doc.get("key"))
    if custom_id is None:
        custom_id = _string(doc.get("custom_id"))
    status = doc.get("status")
    if status is not None and status != "":
        return None, custom_id, f"batch error: {describe(status)}"
    response = doc.get("response")
    if response is None:
        return None, custom_id, "batch record has no response"
    return response, custom_id, None


def _gemini_batch(doc: dict[str, Any], custom_id: str | None) -> tuple[Any, str | None, str | None]:
    # A failed request's line holds an `error`, or a `status` (google.rpc.Status).
    error = doc.get("error")
    if error is None and doc.get("status") != "":
        error = doc.get("status")
    if error is not None:
        return None, custom_id, f"batch error: {describe(error)}"
    response = doc.get("response")
    if response is None:
        return None, custom_id, "batch record has no response"
    return response, custom_id, None


def read_record(
    reading: Reading, record: Any, path: Sequence[str] | None, context: bool = False
) -> tuple[list[ToolCall], str | None, str | None, str | None]:
    """`(calls, custom_id, error, format)` of one non-blank record.

    A format that reads text (LiteRT-LM): without a `record_path`, a record that is not
    JSON, or that is not an envelope, is read as `parse` reads it, and is never an
    error. `format` is the format the response was read as (None for a failure). With
    `context`, the calls of a walked response are a `context.Found`.
    """
    not_text = text_error(record)
    if not_text is not None:
        return [], None, not_text, None
    read = _read_with_orjson(reading, record, path, context)
    if read is not None:
        return read
    try:
        doc = loads(record)
    except ParseError as exc:
        if path is None and (text := reading.text_read(record)) is not None:
            return text[0], None, None, text[1]
        return [], None, str(exc), None
    response, custom_id, error = locate(doc, path)
    if error is not None:
        return [], custom_id, error, None
    if response is doc and (text := reading.text_read(record)) is not None:
        return text[0], None, None, text[1]
    try:
        calls, format = reading.read(response, context)
    except ParseError as exc:  # auto-detection recognized no shape
        return [], custom_id, str(exc), None
    return calls, custom_id, None, format


def _read_with_orjson(
    reading: Reading, record: Any, path: Sequence[str] | None, context: bool
) -> tuple[list[ToolCall], str | None, str | None, str | None] | None:
    """`read_record` of a record decoded with plain orjson; None where that may differ
    from decoding it exactly: orjson refused it (an error, or a number beyond the float
    range), the record is a failure (its text may quote a number orjson rounded), or
    inline arguments may hold an integer orjson rounded (or the format has no fast way)."""
    try:
        doc = orjson.loads(record)
    except orjson.JSONDecodeError:
        return None
    response, custom_id, error = locate(doc, path)
    if error is not None:
        return None
    read = reading.decoded_read(response, record, context)
    return None if read is None else (read[0], custom_id, None, read[1])


# ------------------------------------------------------------------ the two APIs


def parse_file(
    reading: Reading,
    path: str,
    record_path: Sequence[str] | None,
    threads: int | None,
    progress: Progress,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[AgentResponse]:
    """An AgentResponse per non-blank line; `raw` is the line as bytes (no terminator),
    `b""` for a line too long to keep. The file is opened now, not at the first `next`."""
    check_threads(threads)
    records = open_records(path, progress, max_line_bytes)
    return _responses(records, reading, record_path, max_line_bytes)


def _responses(
    records: Iterator[tuple[int, bytes]],
    reading: Reading,
    record_path: Sequence[str] | None,
    max_line_bytes: int,
) -> Iterator[AgentResponse]:
    opened_in = _forks[0]
    for _, line in records:
        if _forks[0] != opened_in:
            raise RuntimeError(OPENED_BEFORE_FORK)  # as the Rust backend, whose threads stay behind
        if line is TOO_LONG:
            yield AgentResponse([], b"", too_long_message(max_line_bytes))
            continue
        calls, _, error, _ = read_record(reading, line, record_path)
        yield response(calls, line, error)


_forks = [0]  # fork() calls between this process and the one that imported toolsift


def _after_fork_in_child() -> None:
    _forks[0] += 1


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


def carried_values(record: Any, paths: Sequence[Sequence[str]]) -> list[str | None]:
    """The fields `carry=` names in a record (the record itself: a batch file's envelope
    line), each as compact JSON text; None where its path (keys) leads nowhere (a missing
    key, a null, or a value that is not an object on the way), or where the record is
    not JSON text."""
    if text_error(record) is not None:
        return [None] * len(paths)
    try:
        doc = loads(record)
    except ParseError:
        return [None] * len(paths)
    values: list[str | None] = []
    for keys in paths:
        node = doc
        for key in keys:
            node = node.get(key) if isinstance(node, dict) else None
        values.append(None if node is None else dumps_compact(node))
    return values


class ArrowColumns:
    """The table's columns as Python lists, a record at a time; counts for the summary.
    `checks` fill the `violations` column (None: nulls). `carry`: the dot paths of the
    carried fields, a column each after `COLUMNS`, whose values for the next record
    added are set in `carried`."""

    def __init__(
        self, checks: Checks | None = None, every_record: bool = False, carry: Sequence[str] = ()
    ) -> None:
        self.checks = checks  # the `violations` column's (None: a column of nulls)
        self.records = self.with_calls = self.calls = self.undecodable = self.failed = 0
        self.text_bytes = [0]  # bytes of text read (a list: the reader adds to it)
        # A row for each record without calls too (its call columns null): the rows
        # `rows="records"` groups by record. Then every row without a call comes after
        # those with calls (`deferred`): the calls are one slice of the columns.
        self.every_record = every_record
        self.deferred: list[tuple[Any, ...]] = []
        self.carry = tuple(carry)
        self.carried: list[str | None] = [None] * len(self.carry)
        self._clear()

    def _clear(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in (*COLUMNS, *self.carry)}
        self.pending = 0

    def add(
        self,
        number: int,
        calls: list[ToolCall],
        custom_id: str | None,
        error: str | None,
        format: str | None,
    ) -> None:
        self.records += 1
        self.pending += 1
        c = self.columns
        if error is not None:
            self.failed += 1
            self._add_row(number, custom_id, None, error)
            return
        context = getattr(calls, "context", None)
        if context is None:  # LiteRT-LM
            context = Context(call_type=format or "function")
        if calls:
            self.with_calls += 1
        elif self.every_record:
            self._add_row(number, custom_id, format, None, context)
        for index, call in enumerate(calls):
            self.calls += 1
            if call.raw_arguments is not None:
                self.undecodable += 1
            c["record"].append(number)
            c["custom_id"].append(custom_id)
            c["format"].append(format)
            c["call_index"].append(index)
            c["id"].append(call.id)
            c["name"].append(call.name)
            c["arguments"].append(dumps_arguments(call.arguments))
            c["raw_arguments"].append(call.raw_arguments)
            c["error"].append(None)
            finish_reason, choice_index, call_type = context.call(index)
            c["model"].append(context.model)
            c["response_id"].append(context.response_id)
            c["finish_reason"].append(finish_reason)
            c["choice_index"].append(choice_index)
            c["call_type"].append(call_type)
            c["defect"].append(by_limit(call.defect, finish_reason))
            c["repairs"].append(call.repairs)
            c["violations"].append(self._violations(custom_id, call))
            c["error_kind"].append(None)
            c["http_status"].append(None)
            c["turn"].append(call.turn)
            c["result"].append(call.result)
            c["result_error"].append(call.result_error)
            self._add_carried()

    def _violations(self, custom_id: str | None, call: ToolCall) -> list[str] | None:
        if self.checks is None:
            return None
        arguments = None if call.raw_arguments is not None else call.arguments
        return self.checks.of_call(custom_id, call.name, arguments)

    def _add_carried(self) -> None:
        for name, value in zip(self.carry, self.carried, strict=True):
            self.columns[name].append(value)

    def _add_row(
        self,
        number: int,
        custom_id: str | None,
        format: str | None,
        error: str | None,
        context: Context | None = None,
    ) -> None:
        """A row without a call: a failed record's (`error`), or a record without calls
        (with its `context`'s model and response id; deferred to the end of the batch
        with `every_record`)."""
        if self.every_record:
            self.deferred.append((number, custom_id, format, error, context, self.carried))
            return
        self._write_row(number, custom_id, format, error, context)

    def _write_row(
        self,
        number: int,
        custom_id: str | None,
        format: str | None,
        error: str | None,
        context: Context | None,
    ) -> None:
        kind, status = (None, None) if error is None else error_kind(error)
        for name in COLUMNS:
            self.columns[name].append(None)
        for name, value in (("record", number), ("custom_id", custom_id), ("format", format)):
            self.columns[name][-1] = value
        for name, value in (("error", error), ("error_kind", kind), ("http_status", status)):
            self.columns[name][-1] = value
        if context is not None:
            self.columns["model"][-1] = context.model
            self.columns["response_id"][-1] = context.response_id
        self._add_carried()

    def take(self) -> Iterator[dict[str, list[Any]]]:
        """The rows so far (none if there are none), then none kept."""
        for number, custom_id, format, error, context, carried in self.deferred:
            self.carried = carried
            self._write_row(number, custom_id, format, error, context)
        self.deferred.clear()
        columns, pending = self.columns, self.pending
        self._clear()
        if pending:
            yield columns

    def summary(self) -> dict[str, int]:
        return {
            "records": self.records,
            "records_with_calls": self.with_calls,
            "calls": self.calls,
            "undecodable_arguments": self.undecodable,
            "failed": self.failed,
            "text_bytes": self.text_bytes[0],
        }


def arrow_batches(
    reading: Reading,
    source: str | Iterable[Any],
    record_path: Sequence[str] | None,
    threads: int | None,
    progress: Progress,
    sink: Sink,
    schema: Any,
    max_line_bytes: int = MAX_LINE_BYTES,
    checks: Checks | None = None,
    every_record: bool = False,
    carry: Sequence[str] | None = None,
) -> dict[str, int]:
    """Rows of the calls in `source` (a path, or records), handed to `sink` batch by batch
    (`every_record`: a row for each record without calls too, see `ArrowColumns`).

    Returns the counts: records (not blank), records_with_calls, calls,
    undecodable_arguments, failed, and text_bytes: the bytes of text read (of a file: every
    line decompressed, with its terminator; of records: their UTF-8 lengths), blank ones
    included. `checks`: the `violations` column's (None: nulls).
    """
    import pyarrow as pa

    columns = ArrowColumns(checks, every_record, carry or ())
    for batch in column_batches(reading, source, record_path, threads, progress, columns,
                                max_line_bytes):  # fmt: skip
        sink(pa.record_batch(batch, schema=schema))
    return columns.summary()


def column_batches(
    reading: Reading,
    source: str | Iterable[Any],
    record_path: Sequence[str] | None,
    threads: int | None,
    progress: Progress,
    columns: ArrowColumns,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[dict[str, list[Any]]]:
    """The rows of `arrow_batches`, as Python lists (a dict of `COLUMNS`, one batch at a
    time; no pyarrow needed); `columns.summary()` has the counts once it is read through.
    Compressed data cut short: the rows of the lines before the fault, then the OSError."""
    check_threads(threads)
    records: Iterable[tuple[int, Any]]
    if isinstance(source, str):
        records = open_records(source, progress, max_line_bytes, columns.text_bytes)
    else:
        if hasattr(source, "to_pylist"):  # a pyarrow Array or ChunkedArray
            source = source.to_pylist()
        records = _numbered(source, progress, columns.text_bytes)
    text = 0  # bytes of the records of the rows not taken yet (about)
    paths = [name.split(".") for name in columns.carry]
    try:
        for number, record in records:
            if record is TOO_LONG:
                columns.carried = [None] * len(paths)
                columns.add(number, [], None, too_long_message(max_line_bytes), None)
                continue
            with keeping_number_text():  # the arguments column writes `1e400` as it was
                calls, custom_id, error, format = read_record(
                    reading, record, record_path, context=True
                )
                if paths:
                    columns.carried = carried_values(record, paths)
            columns.add(number, calls, custom_id, error, format)
            text += len(record) if isinstance(record, (str, bytes, bytearray)) else 0
            if columns.pending >= BATCH_ROWS or text >= BATCH_BYTES:
                yield from columns.take()
                text = 0
    except OSError:
        yield from columns.take()  # the rows of the lines read before the fault first
        raise
    yield from columns.take()


def _numbered(
    items: Iterable[Any], progress: Progress, text_bytes: list[int]
) -> Iterator[tuple[int, Any]]:
    """In-memory records that are not blank, numbered; progress counts records, and
    `text_bytes[0]` grows by each text record's length in bytes (UTF-8 for a str)."""
    count = 0
    for number, item in enumerate(items):
        if progress is not None and number and number % BATCH_ROWS == 0:
            progress(number)
        count = number + 1
        if isinstance(item, (str, bytes, bytearray, memoryview)):
            text_bytes[0] += _byte_length(item)
            if blank(item):
                continue
        yield number, item
    if progress is not None:
        progress(count)
