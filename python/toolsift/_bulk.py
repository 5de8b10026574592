"""The file and table API shared by every parser class: arguments checked once, progress
bars, the Arrow schema; the chosen backend does the reading (`parse_file`,
`arrow_batches`). pyarrow and tqdm are imported only when used."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolsift._types import AgentResponse

__all__ = [
    "COLUMNS",
    "ProgressArg",
    "arrow_batches",
    "parse_file",
    "require_pyarrow",
    "schema",
    "to_arrow",
]

ProgressArg = bool | Callable[[int, int | None], object]
"""`progress`: False (none), True (a tqdm bar on stderr), or `callback(done, total)`."""

COLUMNS = (
    "record",
    "custom_id",
    "format",
    "call_index",
    "id",
    "name",
    "arguments",
    "raw_arguments",
    "error",
)


def require_pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as exc:
        raise ImportError(
            "toolsift's Arrow output needs pyarrow: pip install 'toolsift[arrow]'"
        ) from exc
    return pyarrow


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
        ]
    )


def record_path_keys(record_path: object) -> list[str] | None:
    if record_path is None:
        return None
    if not isinstance(record_path, str):
        raise TypeError(f"record_path must be a str or None, got {type(record_path).__name__}")
    if not record_path:
        raise ValueError("record_path must not be empty (None: find the response on its own)")
    if not record_path.isascii():
        try:
            record_path.encode("utf-8")
        except UnicodeEncodeError:  # no key of JSON text can hold a lone surrogate
            raise ValueError(
                f"record_path must be valid Unicode (it has a lone surrogate): {record_path!r}"
            ) from None
    return record_path.split(".")


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
) -> Iterator[AgentResponse]:
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
    return _closing(responses, bar)


def _closing(responses: Iterator[AgentResponse], bar: _Progress) -> Iterator[AgentResponse]:
    try:
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
    return items, len(items), " records"


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


def arrow_batches(
    core: Any,
    source: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    sink: Callable[[Any], None],
    max_line_bytes: int | None = None,
) -> dict[str, int]:
    """Rows of the calls in `source`, handed to `sink` as pyarrow RecordBatches; returns
    the counts (records, records_with_calls, calls, undecodable_arguments, failed, and,
    where the backend counts it, text_bytes: the bytes of decompressed text read)."""
    require_pyarrow()
    keys = record_path_keys(record_path)
    _check_threads(threads)
    check_max_line_bytes(max_line_bytes)
    records, total, unit = _records_of(source)
    label = os.path.basename(records) if isinstance(records, str) else ""
    bar = _Progress(progress, total, unit, label)
    try:
        counts = core.arrow_batches(
            records, keys, threads, bar.callback, sink, schema(), max_line_bytes
        )
        return dict(counts)
    finally:
        bar.close()


def to_arrow(
    core: Any,
    source: Any,
    record_path: object,
    threads: int | None,
    progress: ProgressArg,
    max_line_bytes: int | None = None,
) -> Any:
    pa = require_pyarrow()
    batches: list[Any] = []
    arrow_batches(core, source, record_path, threads, progress, batches.append, max_line_bytes)
    return pa.Table.from_batches(batches, schema=schema())
