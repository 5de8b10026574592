"""`--stream` and `--stream-lines`: records made of an input's lines, read through the
bulk path a chunk at a time."""

from __future__ import annotations

import argparse
import struct
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from toolsift import formats
from toolsift.cli.rows import PlainBatch, plain_batches

STREAM_CHUNK_RECORDS = 4096
"""`--stream` / `--stream-lines`: records handed to the bulk path at once (memory holds
one such chunk, not the file)..."""

STREAM_CHUNK_BYTES = 32 << 20
"""... or fewer, when they hold this many bytes."""


class StreamRows:
    """`--stream` / `--stream-lines`: the rows of the records made of the input's lines,
    read through the bulk path a chunk of records at a time, each numbered as given
    (`--stream`: its line's number; `--stream-lines`: its stream's, in the order of
    first lines). A line longer than `--max-line-bytes` is a failed record saying so.
    Has what the CLI reads of a `_bulk.BatchStream`: `schema`, `counts`, `current`. With
    `plain` (the pure backend's parser: pyarrow is missing), the rows are `PlainBatch`es
    read by it."""

    def __init__(
        self,
        core: Any,
        path: str,
        args: argparse.Namespace,
        progress: Callable[..., None] | bool,
        plain: Any = None,
    ) -> None:
        from toolsift import _bulk
        from toolsift._pure import bulk

        self._plain = plain
        self.schema: Any = _bulk.COLUMNS if plain is not None else _bulk.schema()
        self.counts: dict[str, int] = {}
        self.current = path
        self._core = core
        self._args = args
        self._limit = bulk.MAX_LINE_BYTES if args.max_line_bytes is None else args.max_line_bytes
        self._text_bytes = [0]
        report = None
        if callable(progress):
            update = progress

            def report(done: int) -> None:
                update(done, None)

        lines = bulk.open_records(path, report, self._limit, self._text_bytes)
        if args.stream_lines:
            self._records = _stream_lines(lines, args.format)
        else:
            self._records = _whole_streams(lines, args.record_path is None)

    def __iter__(self) -> Iterator[Any]:
        from toolsift._pure.bulk import TOO_LONG

        chunk: list[bytes] = []
        first = size = 0
        for number, record in self._records:
            if chunk and (number - first >= STREAM_CHUNK_RECORDS or size >= STREAM_CHUNK_BYTES):
                yield from self._rows(chunk, first)
                chunk, size = [], 0
            if record is TOO_LONG:
                yield from self._rows(chunk, first)
                chunk, size = [], 0
                yield self._failed(number, f"line longer than {self._limit} bytes")
                continue
            if not chunk:
                first = number
            chunk.extend([b""] * (number - first - len(chunk)))  # blank lines: no record
            chunk.append(record)
            size += len(record)
        yield from self._rows(chunk, first)
        self.counts["text_bytes"] = self._text_bytes[0]

    def _rows(self, chunk: list[bytes], first: int) -> Iterator[Any]:
        if not chunk:
            return
        from toolsift import _bulk

        args = self._args
        if self._plain is not None:
            keys = _bulk.record_path_keys(args.record_path)
            for batch in plain_batches(
                self._plain, chunk, keys, args.threads, None, None, self.counts
            ):
                batch.columns["record"] = [number + first for number in batch.columns["record"]]
                yield batch
            return
        rows = _bulk.stream(self._core, chunk, args.record_path, args.threads, False)
        for batch in rows:
            yield _renumbered(batch, first)
        for key, value in rows.counts.items():
            self.counts[key] = self.counts.get(key, 0) + value

    def _failed(self, number: int, error: str) -> Any:
        from toolsift import _bulk
        from toolsift._errors import error_kind

        for key in ("records", "failed"):
            self.counts[key] = self.counts.get(key, 0) + 1
        if self._plain is not None:
            values: dict[str, list[Any]] = {name: [None] for name in _bulk.COLUMNS}
            values["record"], values["error"] = [number], [error]
            values["error_kind"], values["http_status"] = ([value] for value in error_kind(error))
            return PlainBatch(_bulk.COLUMNS, values)
        import pyarrow as pa

        # (A line too long: no HTTP status.)
        columns = [
            _int64s([number])
            if field.name == "record"
            else _bulk.repeated(error, 1)
            if field.name == "error"
            else _bulk.repeated(error_kind(error)[0], 1)
            if field.name == "error_kind"
            else pa.nulls(1, field.type)
            for field in self.schema
        ]
        return pa.RecordBatch.from_arrays(columns, schema=self.schema)


def _int64s(values: Sequence[int]) -> Any:
    """An int64 array built from its buffer: converting Python values would import pandas
    (see `_bulk.repeated`)."""
    import pyarrow as pa

    data = struct.pack(f"<{len(values)}q", *values)
    return pa.Array.from_buffers(pa.int64(), len(values), [None, pa.py_buffer(data)])


def _renumbered(batch: Any, first: int) -> Any:
    """The batch of a chunk whose records start at `first`, `record` counted from there."""
    if first == 0:
        return batch
    import pyarrow as pa
    import pyarrow.compute as pc

    at = batch.schema.get_field_index("record")
    columns = list(batch.columns)
    columns[at] = pc.add(columns[at], _int64s([first])[0])
    return pa.RecordBatch.from_arrays(columns, schema=batch.schema)


def _whole_streams(lines: Iterable[tuple[int, Any]], wrap: bool) -> Iterator[tuple[int, Any]]:
    """`--stream`: each line one whole stream; a line holding one event object is read
    as a stream of that one event (a list and an SSE string are streams already). With
    `--record-path` (`wrap` False), the path is applied to the line as written, and what
    is there is read: a list of events or an SSE string is a stream."""
    for number, line in lines:
        if wrap and isinstance(line, bytes) and line.lstrip().startswith(b"{"):
            line = b"[" + line + b"]"
        yield number, line


def _stream_lines(lines: Iterable[tuple[int, Any]], format: str) -> Iterator[tuple[int, Any]]:
    """`--stream-lines`: the file's lines grouped into streams, each stream one record
    (the JSON array of its events), numbered in the order of their first lines. A line
    that is no event of the format's streams (a whole response, a line that is not JSON,
    one too long to keep) is a record of its own, as written. The grouping needs every
    line: the file is held in memory."""
    from toolsift._pure import formats as registry
    from toolsift._pure.stream import group_lines

    auto = format == formats.AUTO
    walked = registry.WALKED if auto else (registry.by_name(format),)

    def module_of(event: Any) -> Any:
        spec = registry.detect_or_none(event) if auto else walked[0]
        if spec is not None and spec.is_response(event):
            return None  # a whole response: read as one
        for spec in walked:
            if spec.module.stream_detect(event):
                return spec.module
        return None

    groups = group_lines((line for _, line in lines), module_of)
    for number, group in enumerate(groups):
        yield number, group if not isinstance(group, list) else b"[" + b",".join(group) + b"]"
