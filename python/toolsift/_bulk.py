"""The file and table API shared by every parser class: arguments checked once, progress
bars, the Arrow schema, Arrow streams over one source or many files; the chosen backend
does the reading (`parse_file`, and `arrow_batches`, which pushes the record batches of
one source to a sink). pyarrow and tqdm are imported only when used."""

from __future__ import annotations

import collections
import errno
import os
import stat
import struct
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from toolsift._errors import OPENED_BEFORE_FORK
from toolsift._paths import expand_local
from toolsift._table import (
    ROWS,
    FirstBatchTyped,
    by_record,
    carry_names,
    check_rows,
    record_path_keys,
    record_schema,
    require_pyarrow,
    typed_table,
)
from toolsift._types import COLUMNS, AgentResponse

__all__ = [
    "BATCH_ROWS",
    "COLUMNS",
    "ROWS",
    "BatchStream",
    "Files",
    "FirstBatchTyped",
    "ProgressArg",
    "arrow_batches",
    "by_record",
    "carried",
    "carry_names",
    "checked",
    "checks",
    "file_schema",
    "parse_file",
    "record_path_keys",
    "record_schema",
    "require_pyarrow",
    "schema",
    "stream",
    "to_arrow",
]

ProgressArg = bool | Callable[[int, int | None], object]
"""`progress`: False (none), True (a tqdm bar on stderr), or `callback(done, total)`."""


def schema() -> Any:
    """The table's schema: one row per tool call (see `to_arrow`)."""
    pa = require_pyarrow()
    return pa.schema(
        [
            pa.field("record", pa.int64(), nullable=False),
            pa.field("custom_id", pa.string()),
            pa.field("format", pa.string()),
            pa.field("call_index", pa.int32()),
            pa.field("id", pa.string()),
            pa.field("name", pa.string()),
            pa.field("arguments", pa.string()),
            pa.field("raw_arguments", pa.string()),
            pa.field("error", pa.string()),
            pa.field("defect", pa.string()),
            pa.field("repairs", pa.list_(pa.string())),
            pa.field("violations", pa.list_(pa.string())),
            pa.field("model", pa.string()),
            pa.field("response_id", pa.string()),
            pa.field("finish_reason", pa.string()),
            pa.field("choice_index", pa.int32()),
            pa.field("call_type", pa.string()),
            pa.field("error_kind", pa.string()),
            pa.field("http_status", pa.int32()),
            pa.field("turn", pa.int32()),
            pa.field("result", pa.string()),
            pa.field("result_error", pa.bool_()),
        ]
    )


def check_max_line_bytes(max_line_bytes: object) -> None:
    """`max_line_bytes` must be None (the default, 1 GiB) or a positive int."""
    if max_line_bytes is not None and (
        isinstance(max_line_bytes, bool)
        or not isinstance(max_line_bytes, int)
        or max_line_bytes < 1
    ):
        raise ValueError(
            f"max_line_bytes must be a positive int or None (1 GiB), got {max_line_bytes!r}"
        )


def file_size(name: str) -> int | None:
    """The size of a regular file (the progress total); None for a pipe or a device."""
    status = os.stat(name)
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def checked_path(path: object) -> str:
    """The file's path as a str; FileNotFoundError / IsADirectoryError raised now, the same
    way for both backends."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    name = os.fsdecode(os.fspath(path))
    mode = os.stat(name).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    return name


class _Progress:
    """`progress` turned into the backend's `callback(done)`, and closed at the end."""

    def __init__(self, progress: object, total: int | None, unit: str, label: str) -> None:
        self._bar: Any = None
        self._user: Callable[[int, int | None], object] | None = None
        self._total = total
        self._last = 0
        if progress is True:
            try:
                from tqdm import tqdm
            except ImportError as exc:
                raise ImportError("progress=True needs tqdm: pip install 'toolsift[cli]'") from exc
            if unit == "B":
                self._bar = tqdm(
                    total=total, unit="B", unit_scale=True, unit_divisor=1024, desc=label
                )
            else:
                self._bar = tqdm(total=total, unit=unit, unit_scale=True, desc=label)
        elif callable(progress):
            self._user = progress
        elif progress is not False and progress is not None:
            raise TypeError(
                f"progress must be True, False or a callable(done, total), got {progress!r}"
            )

    @property
    def callback(self) -> Callable[[int], None] | None:
        return None if self._bar is None and self._user is None else self._update

    def _update(self, done: int) -> None:
        if self._bar is not None:
            self._bar.update(done - self._last)
        if self._user is not None:
            self._user(done, self._total)
        self._last = done

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def parse_file(
    core: Any,
    path: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    max_line_bytes: int | None = None,
    watch: Callable[[AgentResponse], bool] | None = None,
) -> Iterator[AgentResponse]:
    """`core.parse_file`'s responses; `watch` sees each until it returns True."""
    name = checked_path(path)
    keys = record_path_keys(record_path)
    _check_threads(threads)
    check_max_line_bytes(max_line_bytes)
    bar = _Progress(progress, file_size(name), "B", os.path.basename(name))
    try:
        responses = core.parse_file(name, keys, threads, bar.callback, max_line_bytes)
    except BaseException:
        bar.close()
        raise
    return _closing(responses, bar, watch)


def _closing(
    responses: Iterator[AgentResponse],
    bar: _Progress,
    watch: Callable[[AgentResponse], bool] | None,
) -> Iterator[AgentResponse]:
    try:
        if watch is not None:
            for response in responses:
                done = watch(response)
                yield response
                if done:
                    break
        yield from responses
    finally:
        bar.close()


def _check_threads(threads: object) -> None:
    from toolsift._errors import check_threads

    check_threads(threads)


def _records_of(source: Any) -> tuple[Any, int | None, str]:
    """(what the backend reads, the progress total, the progress unit)."""
    if isinstance(source, (str, os.PathLike)):
        name = checked_path(source)
        return name, file_size(name), "B"
    if isinstance(source, (bytes, bytearray, memoryview)):
        raise TypeError(
            "source must be a path, an iterable of str/bytes records or a pyarrow "
            "string/binary array; a single bytes object is none of these (wrap it in a list)"
        )
    module = type(source).__module__ or ""
    if module.startswith("pyarrow"):
        return _text_array(source), len(source), " records"
    if not isinstance(source, Iterable):
        raise TypeError(
            "source must be a path, an iterable of str/bytes records or a pyarrow "
            f"string/binary array, got {type(source).__name__}"
        )
    items = source if isinstance(source, (list, tuple)) else list(source)
    if not all(isinstance(item, _TEXT) for item in items):
        items = [item if isinstance(item, _TEXT) else _as_text(item) for item in items]
    return items, len(items), " records"


_TEXT = (str, bytes, bytearray, memoryview)


def _as_text(record: Any) -> Any:
    """A decoded record (a dict or a list) or an SDK object (a pydantic model: openai,
    google-genai) as the JSON text that holds it, read as the same record given as text
    is; anything else as it is (a record that is not text: its row says so). An SDK
    object is written with every field it has, as `parse` reads it by attribute."""
    if isinstance(record, (dict, list)):
        from toolsift._jsontext import dumps_compact

        return dumps_compact(record)  # never raises: NaN, a set... are not JSON, as text
    dump = getattr(type(record), "model_dump_json", None)
    if dump is not None and record is not None:
        try:
            return dump(record)
        except Exception:  # a model that cannot be written: its row says it is not text
            return record
    return record


def _text_array(array: Any) -> Any:
    """A pyarrow (Chunked)Array of string, large_string, binary or large_binary."""
    pa = require_pyarrow()
    if not isinstance(array, (pa.Array, pa.ChunkedArray)):
        raise TypeError(
            f"a pyarrow source must be an Array or ChunkedArray, got {type(array).__name__}"
        )
    kinds = (pa.string(), pa.large_string(), pa.binary(), pa.large_binary())
    if array.type in kinds:
        return array
    views = {"string_view": pa.large_string(), "binary_view": pa.large_binary()}
    if str(array.type) in views:
        return array.cast(views[str(array.type)])
    raise TypeError(
        "a pyarrow source must hold string, large_string, binary or large_binary "
        f"(or a view of them), got {array.type}"
    )


# ------------------------------------------------------------------ Arrow streams

BATCH_ROWS = 65_536
"""`arrow_batches`' rows per batch by default."""

HEAD_BUFFER_BYTES = 1 << 20
"""Bytes of rows the source being consumed holds at most before its reading thread waits
for the consumer (about one batch: memory stays as bounded as `parse_file`'s)."""

AHEAD_BUFFER_BYTES = 32 << 20
"""The same for a file further on (of `Files`): it is read while the files before it are
consumed, which is what makes several files faster than one, so it may hold more."""

_WAIT = 0.25  # seconds between checks of a reading thread that waits for room


class Files:
    """Several JSONL files (plain, gzip or zstd), read as one source by `to_arrow` and
    `arrow_batches`: up to `threads` files at once, each on threads of its own, rows in
    the order of `paths`, with a `file` column first (the path as given).

    A path may be a directory (its `.jsonl`, `.jsonl.gz` and `.jsonl.zst` files, found
    recursively, sorted, names starting with `_` or `.` skipped) or a glob (`logs/*.gz`:
    its files, sorted), as the Ray and Spark readers take them; the `file` column then
    names each file found.

    A list of `str` is not taken for paths: it stays a list of records, as always.
    `Files` holds the paths only; they are checked when a read starts (a missing one,
    a directory with no JSONL file or a glob matching none raises FileNotFoundError
    naming it then, before any row is read)."""

    __slots__ = ("paths",)

    def __init__(self, paths: Iterable[str | os.PathLike[str]]) -> None:
        if isinstance(paths, (str, bytes, os.PathLike)):
            raise TypeError(
                "Files takes an iterable of paths, not one path "
                f"(Files([{paths!r}]), or the path itself without Files)"
            )
        items = tuple(paths)
        for path in items:
            if not isinstance(path, (str, os.PathLike)):
                raise TypeError(f"a path must be a str or os.PathLike, got {type(path).__name__}")
        self.paths: tuple[str | os.PathLike[str], ...] = items

    def __len__(self) -> int:
        return len(self.paths)

    def __iter__(self) -> Iterator[str | os.PathLike[str]]:
        return iter(self.paths)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Files) and other.paths == self.paths

    def __hash__(self) -> int:
        return hash(self.paths)

    def __repr__(self) -> str:
        return f"Files({list(self.paths)!r})"


def file_schema() -> Any:
    """The schema of rows read from `Files`: `file` (string), then `schema()`'s columns."""
    pa = require_pyarrow()
    return pa.schema([pa.field("file", pa.string(), nullable=False), *schema()])


def column_name(path: str) -> str:
    """A path as the `file` column shows it: as given; bytes of a name that are not
    UTF-8 (kept by `os.fsdecode` as lone surrogates) become U+FFFD."""
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def repeated(text: str, rows: int) -> Any:
    """A string column of `rows` copies of `text`. Built from buffers: pyarrow imports
    pandas (when installed: over half a second) the first time it converts a Python
    value (`pa.array`, `pa.scalar`), which would cost the CLI more than its parsing."""
    pa = require_pyarrow()
    data = text.encode("utf-8")
    offsets = struct.pack("<ii", 0, len(data))
    one = pa.StringArray.from_buffers(1, pa.py_buffer(offsets), pa.py_buffer(data))
    return pa.repeat(one[0], rows)


class _Cancelled(Exception):
    """Raised into a reading thread whose batches no one will take."""


_forks = [0]  # fork() calls between this process and the one that imported toolsift


def _after_fork_in_child() -> None:
    _forks[0] += 1


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


Sink = Callable[[Any], None]


class _Part:
    """One source read by the backend's push-style `arrow_batches` on a thread of its
    own; its batches wait here for the consumer (`HEAD_BUFFER_BYTES` of them at most once
    it is the source being consumed, `AHEAD_BUFFER_BYTES` before)."""

    def __init__(
        self,
        name: str | None,
        run: Callable[[Sink], dict[str, int]],
        head: bool,
        idle: Callable[[], object] | None = None,
    ) -> None:
        self.name = name
        self._idle = idle  # the backend's, called before the reading thread waits
        self.counts: dict[str, int] | None = None
        self._run = run
        self._head = head
        self._ready = threading.Condition()
        # Each batch with the bytes its buffers hold: counted once (`nbytes` walks a
        # string column's offsets, each time it is asked).
        self._batches: collections.deque[tuple[Any, int]] = collections.deque()
        self._bytes = 0
        self._done = False
        self._cancelled = False
        self._error: BaseException | None = None
        self._forks = _forks[0]
        # Not a daemon: a daemon thread in native code when the interpreter ends could
        # be stopped while it holds memory or locks. One waiting for room stops when
        # the main thread ends (see `_put`), so it never holds the process at exit.
        self._thread = threading.Thread(target=self._produce, name="toolsift-arrow")
        self._thread.start()

    def _produce(self) -> None:
        counts = error = None
        try:
            counts = self._run(self._put)
        except _Cancelled:
            pass
        except BaseException as exc:  # handed to the consumer, raised there
            error = exc
        with self._ready:
            self.counts = counts
            self._error = error
            self._done = True
            self._ready.notify_all()

    def _put(self, batch: Any) -> None:
        with self._ready:
            idle = self._idle
            while not self._cancelled and self._full():
                if not threading.main_thread().is_alive():  # the interpreter is ending
                    self._cancelled = True
                    break
                if not self._ready.wait(_WAIT) and idle is not None and self._full():
                    # No room for a while (a reader held mid-file): what this thread
                    # freed goes back now, once per wait (not per batch of a slow consumer).
                    idle()
                    idle = None
            if self._cancelled:
                raise _Cancelled
            size = batch.get_total_buffer_size()
            self._batches.append((batch, size))
            self._bytes += size
            self._ready.notify_all()

    def _full(self) -> bool:
        return self._bytes >= (HEAD_BUFFER_BYTES if self._head else AHEAD_BUFFER_BYTES)

    def batches(self) -> Iterator[Any]:
        """The batches in order; then the error the reading raised, if any."""
        self._head = True  # from now on it keeps little ahead of the consumer
        while True:
            if _forks[0] != self._forks:
                # The reading thread stayed in the parent: waiting for it would never end.
                raise RuntimeError(OPENED_BEFORE_FORK)
            with self._ready:
                while not self._batches and not self._done:
                    self._ready.wait()
                if self._batches:
                    batch, size = self._batches.popleft()
                    self._bytes -= size
                    self._ready.notify_all()
                else:
                    batch = None
            if batch is None:
                if self._error is not None:
                    raise self._error
                return
            yield batch

    def cancel(self) -> None:
        """Drop what is buffered and stop the reading at its next batch."""
        if _forks[0] != self._forks:
            return  # no thread here to stop
        with self._ready:
            self._cancelled = True
            self._batches.clear()
            self._bytes = 0
            self._ready.notify_all()

    def join(self) -> None:
        # (A reader collected by the cyclic collector on this very thread: nothing to wait.)
        if _forks[0] == self._forks and threading.current_thread() is not self._thread:
            self._thread.join()


class BatchStream:
    """Record batches of one or more sources, in order; `counts` sums what the backend
    counted in the sources read to their end. The sources are read on threads of their
    own, up to `in_flight` at once (memory: see `_Part`).
    Iterate it once; closing the iterator (or dropping it) stops the reading."""

    def __init__(
        self,
        parts: Sequence[tuple[str | None, Callable[[Sink], dict[str, int]]]],
        in_flight: int,
        schema: Any,
        batch_rows: int | None,
        bar: _Progress,
        idle: Callable[[], object] | None = None,
    ) -> None:
        self.schema = schema
        self._idle = idle
        self.counts: dict[str, int] = {}
        self.current: str | None = None  # the name of the source being consumed
        self._parts = list(parts)
        self._in_flight = max(1, in_flight)
        self._batch_rows = batch_rows
        self._bar = bar

    def __iter__(self) -> Iterator[Any]:
        batches = self._batches()
        return batches if self._batch_rows is None else _rebatched(batches, self._batch_rows)

    def _batches(self) -> Iterator[Any]:
        pa = require_pyarrow()
        started: collections.deque[_Part] = collections.deque()
        waiting = collections.deque(self._parts)
        join = True
        try:
            while started or waiting:
                while waiting and len(started) < self._in_flight:
                    started.append(_Part(*waiting.popleft(), not started, self._idle))
                part = started[0]
                self.current = part.name
                for batch in part.batches():
                    if part.name is not None:
                        file = repeated(column_name(part.name), len(batch))
                        batch = pa.RecordBatch.from_arrays(
                            [file, *batch.columns], schema=self.schema
                        )
                    yield batch
                started.popleft()
                for key, value in (part.counts or {}).items():
                    self.counts[key] = self.counts.get(key, 0) + value
            self.current = None
        except KeyboardInterrupt:
            # Ctrl-C (or a signal the CLI raises as one) must end the wait at once: a
            # reading thread blocked in a read of a pipe or FIFO whose writer is idle is
            # told to stop (it ends at its next batch), not waited for.
            join = False
            raise
        finally:
            for part in started:
                part.cancel()
            if join:
                for part in started:
                    part.join()
            self._bar.close()


def _rebatched(batches: Iterator[Any], rows: int) -> Iterator[Any]:
    """The same rows in batches of `rows` rows (the last one may have fewer)."""
    pa = require_pyarrow()
    pending: list[Any] = []
    count = 0
    try:
        while True:
            try:
                batch = next(batches, None)
            except Exception:
                if pending:  # the rows read before a failure come out first
                    yield _combined(pa, pending)
                raise
            if batch is None:
                break
            at = 0
            while at < len(batch):
                take = min(rows - count, len(batch) - at)
                pending.append(batch.slice(at, take))
                count += take
                at += take
                if count == rows:
                    yield _combined(pa, pending)
                    pending, count = [], 0
        if pending:
            yield _combined(pa, pending)
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()


def _combined(pa: Any, pieces: list[Any]) -> Any:
    if len(pieces) == 1:
        return pieces[0]
    return pa.Table.from_batches(pieces).combine_chunks().to_batches()[0]


def _thread_total(threads: int | None) -> int:
    if threads is not None:
        return threads
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def stream(
    core: Any,
    source: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    max_line_bytes: int | None = None,
    batch_rows: int | None = None,
    names: Sequence[str] | None = None,
    checks: Any = None,
    rows: str = "calls",
    carry: Sequence[str] = (),
) -> BatchStream:
    """The rows of `source` (a path, in-memory records, or `Files`) as a `BatchStream` of
    record batches (`batch_rows` each; None: as the backend cuts them). Arguments are
    checked, and every file is looked up, now. `names`: the `file` column's values for
    `Files` (default: the paths, directories and globs expanded). `rows`: one row per
    call, or per record (`by_record`, on the reading threads). `carry`: the checked
    `carry_names`, a column each (JSON text; typed by `to_arrow` and `arrow_batches`)."""
    pa = require_pyarrow()
    check_rows(rows)
    keys = record_path_keys(record_path)
    _check_threads(threads)
    check_max_line_bytes(max_line_bytes)
    if batch_rows is not None and (
        isinstance(batch_rows, bool) or not isinstance(batch_rows, int) or batch_rows < 1
    ):
        raise ValueError(f"batch_rows must be a positive int, got {batch_rows!r}")
    rows_schema = call_schema = pa.schema(
        [*schema(), *(pa.field(name, pa.string()) for name in carry)]
    )
    every_record = rows == "records"
    if every_record:
        rows_schema = record_schema(call_schema)
    idle = _releasing(getattr(sys.modules.get(type(core).__module__), "release_memory", None))

    def reading(records: Any, threads: int | None, callback: Any, size: int | None) -> Any:
        def run(sink: Sink) -> dict[str, int]:
            if every_record:
                sink = _grouping(sink, rows_schema)
            counts = core.arrow_batches(
                records, keys, threads, callback, sink, call_schema, max_line_bytes,
                checks=checks, every_record=every_record, carry=list(carry) or None,
            )  # fmt: skip
            if callback is not None and size is not None:
                callback(size)  # read to its end (a file of no lines reports nothing)
            return dict(counts)

        return run

    if not isinstance(source, Files):
        records, total, unit = _records_of(source)
        label = os.path.basename(records) if isinstance(records, str) else ""
        bar = _Progress(progress, total, unit, label)
        size = total if isinstance(records, str) else None
        part = (None, reading(records, threads, bar.callback, size))
        return BatchStream([part], 1, rows_schema, batch_rows, bar, idle)
    paths = [checked_path(path) for path in expand_local(source)]
    if names is None:
        names = paths
    sizes = [file_size(path) for path in paths]
    total = None if None in sizes else sum(size or 0 for size in sizes)
    bar = _Progress(progress, total, "B", f"{len(paths)} files")
    in_flight = max(1, min(_thread_total(threads), len(paths)))
    each = max(1, _thread_total(threads) // in_flight)
    callbacks = _shared_progress(bar.callback, len(paths))
    parts = [
        (name, reading(path, each, callback, size))
        for name, path, callback, size in zip(names, paths, callbacks, sizes, strict=True)
    ]
    files_schema = pa.schema([pa.field("file", pa.string(), nullable=False), *rows_schema])
    return BatchStream(parts, in_flight, files_schema, batch_rows, bar, idle)


def _grouping(sink: Sink, schema: Any) -> Sink:
    """`sink` given each batch as one row per record (`by_record`)."""
    return lambda batch: sink(by_record(batch, schema))


def _releasing(native: Callable[[], object] | None) -> Callable[[], None]:
    """What a reading thread about to wait for its consumer calls: the allocators (of
    pyarrow, and of the native backend) give back what this thread freed, and what other
    threads freed of what it allocated (the batches consumed), now. Else a reader held
    mid-file keeps it for as long as it waits (they purge only when the thread allocates
    again): many MiB per reader."""
    pool = require_pyarrow().default_memory_pool()

    def release() -> None:
        pool.release_unused()
        if native is not None:
            native()

    return release


def _shared_progress(callback: Callable[[int], None] | None, count: int) -> list[Any]:
    """A progress callback per source, each reporting the sum over all of them."""
    if callback is None:
        return [None] * count
    done = [0] * count
    lock = threading.Lock()

    def of(index: int) -> Callable[[int], None]:
        def report(value: int) -> None:
            with lock:
                done[index] = value
                callback(sum(done))

        return report

    return [of(index) for index in range(count)]


def arrow_batches(
    core: Any,
    source: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    max_line_bytes: int | None = None,
    batch_rows: int = BATCH_ROWS,
    checks: Any = None,
    rows: str = "calls",
    carry: object = None,
) -> Any:
    """A `pyarrow.RecordBatchReader` over the rows of `source`. Carried fields are typed
    by the first batch (`FirstBatchTyped`)."""
    if batch_rows is None:
        raise ValueError("batch_rows must be a positive int, got None")
    names = carry_names(carry)
    read = stream(
        core,
        source,
        record_path,
        threads,
        progress,
        max_line_bytes,
        batch_rows,
        checks=checks,
        rows=rows,
        carry=names,
    )
    if names:
        return FirstBatchTyped(read, names).reader()
    return _reader(read)


def to_arrow(
    core: Any,
    source: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    max_line_bytes: int | None = None,
    checks: Any = None,
    rows: str = "calls",
    carry: object = None,
) -> Any:
    """The rows of `source` as one `pyarrow.Table`, whose chunks are the batches as the
    backend cuts them: joined as they are (as pyarrow's own readers join theirs), since
    cutting them to `batch_rows` would copy every column once more. An OSError while
    reading (compressed data cut short) carries the rows read before it as `table`.
    Carried fields are typed by all of their values (`carried_type`)."""
    pa = require_pyarrow()
    names = carry_names(carry)
    read = stream(
        core,
        source,
        record_path,
        threads,
        progress,
        max_line_bytes,
        checks=checks,
        rows=rows,
        carry=names,
    )
    batches: list[Any] = []
    try:
        for batch in read:
            batches.append(batch)
    except OSError as exc:
        table = pa.Table.from_batches(batches, read.schema)
        exc.table = typed_table(table, names)  # type: ignore[attr-defined]
        raise
    return typed_table(pa.Table.from_batches(batches, read.schema), names)


def _reader(rows: BatchStream) -> Any:
    pa = require_pyarrow()
    return pa.RecordBatchReader.from_batches(rows.schema, iter(rows))


# ------------------------------------------------------------------ checks against tools


def checks(backend: Any, tools: Any, requests: Any) -> Any:
    """The backend's `Checks` of `tools` (definitions: a list or a dict, any shape
    `toolsift._pure.tools` reads) and `requests` (the path of a JSONL request file, plain
    or gzip); None when both are None. Both are read, and checked, now."""
    if tools is None and requests is None:
        return None
    text = None
    if tools is not None:
        if not isinstance(tools, (list, tuple, dict)):
            raise TypeError(
                f"tools must be tool definitions (a list or a dict), got {type(tools).__name__}"
            )
        from toolsift._jsontext import dumps_strict

        text = dumps_strict(list(tools) if isinstance(tools, tuple) else tools)
    if requests is None:
        return backend.Checks(text, None, "requests")
    name = checked_path(requests)
    # Read a piece at a time, not whole: a request file is often larger than the output.
    with open(name, "rb") as file:
        if file.peek(2)[:2] == b"\x1f\x8b":
            import gzip

            with gzip.GzipFile(fileobj=file, mode="rb") as unzipped:
                return backend.Checks(text, unzipped, name)
        return backend.Checks(text, file, name)


_REQUEST_KEYS = ("custom_id", "recordId", "key")


def checked(
    responses: Iterator[AgentResponse], checks: Any, by_request: bool
) -> Iterator[AgentResponse]:
    """`responses` with each call's `violations` set by `checks`; `by_request`: each
    record's key (`custom_id`, `recordId` or `key` of its line) picks its request."""
    from toolsift._jsontext import loads

    for response in responses:
        custom_id = None
        if by_request and response.tool_calls:
            try:
                line = loads(response.raw)
            except ValueError:
                line = None
            if isinstance(line, dict):
                found = (line.get(key) for key in _REQUEST_KEYS)
                custom_id = next((key for key in found if isinstance(key, str)), None)
        check_calls(checks, response, custom_id)
        yield response


def carried(responses: Iterator[AgentResponse], carry: Sequence[str]) -> Iterator[AgentResponse]:
    """`responses` with their `carried` fields set: for each of `carry` (checked dot
    paths) the value at that path of the line (`raw`), decoded; None where the path leads
    nowhere (a missing key, a null, a value that is not an object on the way) or the line
    is not JSON: the values whose JSON text `carried_values` gives the table."""
    from toolsift._jsontext import loads

    paths = [name.split(".") for name in carry]
    for response in responses:
        try:
            line = loads(response.raw)
        except ValueError:  # not JSON (a ParseError), or a line too long (`raw` empty)
            line = None
        values = {}
        for name, keys in zip(carry, paths, strict=True):
            node = line
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            values[name] = node
        response.carried = values
        yield response


def check_calls(checks: Any, response: AgentResponse, custom_id: str | None) -> None:
    """Sets the `violations` of each call of `response`."""
    from toolsift._jsontext import dumps_compact

    for call in response.tool_calls:
        text = None if call.raw_arguments is not None else dumps_compact(call.arguments)
        call.violations = checks.violations(custom_id, call.name, text)
