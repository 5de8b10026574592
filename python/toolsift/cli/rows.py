"""Rows without pyarrow: `toolsift extract` to JSONL or CSV after a plain
`pip install toolsift`.

The Rust backend hands its rows over as Arrow arrays, which need pyarrow; without it the
rows are read by the pure backend's row reader (`toolsift._pure.bulk.column_batches`, the
reader of the pure `to_arrow`), as Python lists: the same columns (`_bulk.COLUMNS`) and
values as the Arrow path, at the pure backend's speed. `pip install 'toolsift[cli]'`
brings pyarrow, the Rust rows and Parquet.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from toolsift import _bulk

FILE_COLUMN = "file"

PYARROW_MISSING = "writing Parquet needs pyarrow: pip install 'toolsift[cli]'"


def have_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


class PlainBatch:
    """Rows as Python lists, one per column, in the order of `names`."""

    def __init__(self, names: Sequence[str], columns: dict[str, list[Any]]) -> None:
        self.names = tuple(names)
        self.columns = columns
        self.num_rows = len(columns["record"])


def column_values(batch: Any, name: str) -> list[Any]:
    """A column of a batch (a pyarrow RecordBatch or a `PlainBatch`) as a Python list."""
    if isinstance(batch, PlainBatch):
        return batch.columns[name]
    return batch.column(name).to_pylist()  # type: ignore[no-any-return]


def count_violations(batch: Any, violations: collections.Counter[tuple[str, str]]) -> None:
    """Adds the batch's violations to `violations`, by (code without its path, tool)
    (none counted in rows per record, whose calls are a list column)."""
    if not isinstance(batch, PlainBatch) and "violations" not in batch.schema.names:
        return
    values = batch.column("violations") if hasattr(batch, "column") else None
    if values is not None and values.null_count == len(values):
        return  # not checked: nothing to count
    codes = column_values(batch, "violations")
    names = column_values(batch, "name")
    for found, name in zip(codes, names, strict=True):
        for code in found or ():
            violations[code.split(":", 1)[0], name] += 1


def count_errors(
    batch: Any, errors: collections.Counter[str], kinds: collections.Counter[str] | None = None
) -> None:
    """Add the batch's errors (one row per failed record) to `errors`, and their kinds
    (`error_kind`) to `kinds`."""
    counters = [("error", errors)] if kinds is None else [("error", errors), ("error_kind", kinds)]
    for name, counter in counters:
        if isinstance(batch, PlainBatch):
            counter.update(value for value in batch.columns[name] if value is not None)
            continue
        column = batch.column(batch.schema.get_field_index(name))
        if column.null_count == len(column):
            continue
        import pyarrow.compute as pc

        for item in pc.value_counts(column.drop_null()).to_pylist():
            counter[item["values"]] += item["counts"]


def count_defects(batch: Any, defects: collections.Counter[str]) -> None:
    """Add the batch's argument defects (by code; a custom tool's text has none) to
    `defects` (none counted in rows per record, whose calls are a list column)."""
    if not isinstance(batch, PlainBatch) and "defect" not in batch.schema.names:
        return
    if isinstance(batch, PlainBatch):
        defects.update(code for code in batch.columns["defect"] if code is not None)
        return
    column = batch.column(batch.schema.get_field_index("defect"))
    if column.null_count == len(column):
        return
    import pyarrow.compute as pc

    for item in pc.value_counts(column.drop_null()).to_pylist():
        defects[item["values"]] += item["counts"]


def pure_reader(parser: Any) -> Any:
    """The pure backend's twin of the core of `parser` (a public parser class's instance):
    what `column_batches` reads with."""
    from toolsift._backend import load

    return load("python").Parser(parser._format, **parser._core_options)


def plain_batches(
    reading: Any,
    source: Any,
    keys: list[str] | None,
    threads: int | None,
    progress: Callable[[int], None] | None,
    max_line_bytes: int | None,
    counts: dict[str, int],
    checks: Any = None,
) -> Iterator[PlainBatch]:
    """The rows of `source` (a path, or in-memory records) as `PlainBatch`es; what was
    counted is added to `counts` once `source` is read to its end. `checks` (the pure
    backend's) fill the `violations` column."""
    from toolsift._pure import bulk

    limit = bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    columns = bulk.ArrowColumns(checks)
    for batch in bulk.column_batches(reading, source, keys, threads, progress, columns, limit):
        yield PlainBatch(_bulk.COLUMNS, batch)
    for key, value in columns.summary().items():
        counts[key] = counts.get(key, 0) + value


class PlainRows:
    """The rows of the inputs, one file after another, as `PlainBatch`es, with what the
    CLI reads of a `_bulk.BatchStream`: `schema` (here the column names), `counts`, `current`.
    With `names` (several inputs, a directory or a glob), a `file` column comes first."""

    def __init__(
        self,
        reading: Any,
        paths: Sequence[str],
        names: Sequence[str] | None,
        record_path: str | None,
        threads: int | None,
        progress: Callable[[int, int | None], None] | bool,
        max_line_bytes: int | None,
        checks: Any = None,
    ) -> None:
        self._reading = reading
        self._checks = checks
        self._paths = [_bulk.checked_path(path) for path in paths]  # FileNotFoundError now
        self._names = names
        self._keys = _bulk.record_path_keys(record_path)
        self._threads = threads
        self._progress = progress if callable(progress) else None
        self._max_line_bytes = max_line_bytes
        self.schema = (FILE_COLUMN, *_bulk.COLUMNS) if names is not None else _bulk.COLUMNS
        self.counts: dict[str, int] = {}
        self.current: str | None = None

    def __iter__(self) -> Iterator[PlainBatch]:
        read_before = 0  # bytes of the files read to their end (the progress bar's)
        for at, path in enumerate(self._paths):
            self.current = path
            batches = plain_batches(
                self._reading,
                path,
                self._keys,
                self._threads,
                self._reporter(read_before),
                self._max_line_bytes,
                self.counts,
                self._checks,
            )
            for batch in batches:
                if self._names is not None:
                    file = [_bulk.column_name(self._names[at])] * batch.num_rows
                    batch = PlainBatch(self.schema, {FILE_COLUMN: file, **batch.columns})
                yield batch
            read_before += _bulk.file_size(path) or 0
        self.current = None

    def _reporter(self, read_before: int) -> Callable[[int], None] | None:
        update = self._progress
        if update is None:
            return None
        return lambda done: update(read_before + done, None)


def csv_field(value: Any) -> str:
    """A value as pyarrow's CSV writer writes it: a string quoted (a `"` doubled), an
    integer as it is, a boolean as `true` / `false`, a null as nothing, a list as its
    JSON text (a string)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):  # `repairs`, `violations`: as its JSON text
        value = list_text(value)
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    return str(value)


def list_text(value: list[Any]) -> str:
    """A list column's value as CSV holds it: compact JSON text."""
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def csv_lines(names: Sequence[str], batch: Any) -> Iterator[bytes]:
    """The CSV lines of a batch's rows (`\\n` ends, UTF-8), as pyarrow writes them."""
    columns = [column_values(batch, name) for name in names]
    for row in zip(*columns, strict=True):
        yield (",".join(map(csv_field, row)) + "\n").encode("utf-8")
