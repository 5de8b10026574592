"""The engine-independent part of the Ray Data and Spark integrations (`toolsift.ray`,
`toolsift.spark`): what one engine task does with one file, or with one batch of texts.
The engine modules call only this, so that how a file is read changes in one place.

* `file_batches(parser, path_or_file)`: the `to_arrow` rows of one JSONL file, streamed (plain,
  gzip or zstd, told apart by content), as Arrow record batches, with a `file` column
  first. Reads on `threads=1` by default: an engine runs one task per core already.
* `extract_table(parser, table, column)`: the call rows of a column of response texts,
  each row carrying the columns of the record it came from.

pyarrow is imported when used; neither Ray nor Spark is imported here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from typing import IO, Any, NamedTuple

from toolsift import _bulk, formats

__all__ = [
    "CALL_COLUMNS",
    "FILE_COLUMN",
    "Splitting",
    "extract_schema",
    "extract_table",
    "file_batches",
    "file_schema",
    "group_by_size",
    "parser_for",
]

FILE_COLUMN = "file"
"""The column naming the file each row came from (as the engine named it)."""

CALL_COLUMNS = tuple(name for name in _bulk.COLUMNS if name != "record")
"""The columns `extract_table` adds after the carried ones: those of `to_arrow` without
`record`, which would be the row's position in whatever batch the engine handed over
(the carried columns say which record a call came from)."""

_COPY_CHUNK = 1 << 20


class Splitting(NamedTuple):
    """How files are grouped into tasks by size: Spark's rule for its own file sources
    (`spark.sql.files.maxPartitionBytes`, `openCostInBytes`, `minPartitionNum`, which
    defaults to the default parallelism), used by the Spark data source and, for the
    number of read tasks, by `toolsift.ray.read_tool_calls`."""

    max_partition_bytes: int = 128 * 1024 * 1024
    open_cost_bytes: int = 4 * 1024 * 1024
    min_partitions: int = 1


def group_by_size(sizes: Sequence[int], splitting: Splitting) -> list[range]:
    """The files (by position) of each task: Spark's FilePartition packing, each
    file costing its size plus the open cost, a task closed before it would pass
    min(max_partition_bytes, max(open cost, total cost / min_partitions)). Files keep
    their input order (Spark sorts them by size first), so rows come out in that order."""
    open_cost = splitting.open_cost_bytes
    total = sum(size + open_cost for size in sizes)
    per_core = total // max(splitting.min_partitions, 1)
    limit = min(splitting.max_partition_bytes, max(open_cost, per_core))
    groups: list[range] = []
    start, filled = 0, 0
    for index, size in enumerate(sizes):
        if index > start and filled + size > limit:
            groups.append(range(start, index))
            start, filled = index, 0
        filled += size + open_cost
    if start < len(sizes):
        groups.append(range(start, len(sizes)))
    return groups


def parser_for(format: Any, **options: Any) -> Any:
    """A parser from a format name of the registry (`"openai"`, `"gemini"`, `"auto"`,
    ...; `options` go to its class, e.g. `JsonResponseParser`'s keys), or the parser
    instance itself (then `options` must be empty). It pickles as its class and options,
    so each engine worker builds its own with that worker's backend."""
    from toolsift import parsers

    if isinstance(format, parsers._ResponseParser):
        if options:
            raise TypeError(
                "parser options go with a format name, not with a parser instance: "
                f"got {sorted(options)}"
            )
        return format
    if not isinstance(format, str):
        raise TypeError(
            f"format must be a format name or a toolsift parser, got {type(format).__name__}"
        )
    classes = formats.parser_classes()
    if format not in classes:
        raise ValueError(f"unknown format {format!r}; expected one of: {', '.join(classes)}")
    return getattr(parsers, classes[format])(**options)


def file_schema() -> Any:
    """`file` (string), then the columns of `to_arrow`."""
    pa = _bulk.require_pyarrow()
    return pa.schema([pa.field(FILE_COLUMN, pa.string()), *_bulk.schema()])


def file_batches(
    parser: Any,
    path_or_file: str | os.PathLike[str] | IO[bytes],
    *,
    record_path: str | None = None,
    threads: int | None = 1,
    name: str | None = None,
) -> Iterator[Any]:
    """The rows of `parser.to_arrow(path)` as `pyarrow.RecordBatch`es of `file_schema()`:
    `file` (`name`, by default the path as given), then the `to_arrow` columns, `record`
    counting the file's lines from 0.

    `path_or_file`: a local path, or a binary file object opened on the file's raw bytes
    (e.g. from a pyarrow filesystem with `compression=None`: gzip and zstd are told apart
    by content here, as everywhere in toolsift). A file object is copied into a temporary
    local file first (toolsift's readers take a path), which is removed at the end.
    Errors are those of `to_arrow`: a line that cannot be read is a row with `error`;
    corrupt compressed data raises OSError.
    """
    pa = _bulk.require_pyarrow()
    if isinstance(path_or_file, (str, os.PathLike)):
        label = os.fsdecode(os.fspath(path_or_file)) if name is None else name
        yield from _with_file(_read(parser, path_or_file, record_path, threads), label, pa)
        return
    if not hasattr(path_or_file, "read"):
        raise TypeError(
            "path_or_file must be a path or a binary file object, "
            f"got {type(path_or_file).__name__}"
        )
    label = name if name is not None else str(getattr(path_or_file, "name", ""))
    with tempfile.NamedTemporaryFile(prefix="toolsift-", suffix=".part") as local:
        shutil.copyfileobj(path_or_file, local, _COPY_CHUNK)
        local.flush()
        yield from _with_file(_read(parser, local.name, record_path, threads), label, pa)


def _read(
    parser: Any, path: str | os.PathLike[str], record_path: str | None, threads: int | None
) -> Iterator[Any]:
    """The record batches of `to_arrow` over one local file, as the file is read (a
    `RecordBatchReader`, memory bounded as `parse_file`'s): the one place that reads."""
    yield from parser.arrow_batches(path, record_path=record_path, threads=threads)


def _with_file(batches: Iterator[Any], label: str, pa: Any) -> Iterator[Any]:
    schema = file_schema()
    for batch in batches:
        column = _bulk.repeated(label, batch.num_rows)
        yield pa.RecordBatch.from_arrays([column, *batch.columns], schema=schema)


def extract_schema(input_schema: Any, column: str) -> Any:
    """The schema of `extract_table`'s result for input of `input_schema`: every input
    column but `column`, in order, then `CALL_COLUMNS`. Raises KeyError for a missing
    `column`, TypeError for one that is not text, and ValueError when a carried column
    has the name of a call column (rename it first)."""
    pa = _bulk.require_pyarrow()
    names = list(input_schema.names)
    if column not in names:
        raise KeyError(f"no column {column!r} (columns: {', '.join(names)})")
    if names.count(column) > 1:
        raise ValueError(f"the column name {column!r} appears more than once")
    kind = input_schema.field(column).type
    texts = (pa.string(), pa.large_string(), pa.binary(), pa.large_binary())
    if kind not in texts and str(kind) not in ("string_view", "binary_view"):
        if not _decoded(pa, kind):
            raise TypeError(
                f"column {column!r} must hold response texts (string or binary) or "
                f"decoded JSON (structs, as `spark.read.json` gives), not {kind}"
            )
    calls = _bulk.schema()
    carried = [field for field in input_schema if field.name != column]
    clash = [field.name for field in carried if field.name in CALL_COLUMNS]
    if clash:
        raise ValueError(
            f"the input's column(s) {', '.join(clash)} would clash with the call columns "
            f"({', '.join(CALL_COLUMNS)}): rename them first"
        )
    return pa.schema([*carried, *(calls.field(name) for name in CALL_COLUMNS)])


def extract_table(
    parser: Any,
    table: Any,
    column: str,
    *,
    record_path: str | None = None,
    threads: int | None = 1,
) -> Any:
    """The tool calls in `table[column]` (a text column: one response per row, e.g. the
    output of an LLM batch-inference stage) as a `pyarrow.Table` of
    `extract_schema(table.schema, column)`: one row per call, in order, carrying the other
    columns of the row it came from (the text column itself is left out: the calls came
    out of it). As in `to_arrow`: a row whose text cannot be read (not JSON, a
    provider-reported failure; a null is `no response (null)`) gives one row with `error`
    set; a row without calls gives no row. A column of structs (or maps, or lists), as
    `spark.read.json` and `ray.data.read_json` make of JSON lines, is read as the JSON
    text `json_texts` writes of each row. `table` may also be a `pyarrow.RecordBatch`."""
    pa = _bulk.require_pyarrow()
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    schema = extract_schema(table.schema, column)
    responses = table.column(column)
    if _decoded(pa, responses.type):
        responses = json_texts(responses)
    calls = parser.to_arrow(responses, record_path=record_path, threads=threads)
    carried = table.drop_columns([column]).take(calls.column("record"))
    arrays = [*carried.columns, *(calls.column(name) for name in CALL_COLUMNS)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _decoded(pa: Any, kind: Any) -> bool:
    """Whether an Arrow type holds decoded JSON (structs, maps, lists) rather than text."""
    types = pa.types
    return bool(
        types.is_struct(kind)
        or types.is_map(kind)
        or types.is_list(kind)
        or types.is_large_list(kind)
    )


def json_texts(column: Any) -> Any:
    """A column of decoded JSON (structs, maps, lists) as a string column of compact JSON
    text, a null row staying null. A null member is left out of its object, as Spark's
    `to_json` leaves it: a struct column has every member any row had, null in the rows
    without it, so the text is the record as it was (a member that was null in the input
    is gone too, which changes no call)."""
    pa = _bulk.require_pyarrow()
    from toolsift._jsontext import dumps_compact

    texts = [
        None if row is None else dumps_compact(_without_nulls(row)) for row in column.to_pylist()
    ]
    return pa.array(texts, pa.string())


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        if value and all(type(item) is tuple and len(item) == 2 for item in value):
            # A map's rows come as (key, value) pairs.
            return {str(key): _without_nulls(item) for key, item in value if item is not None}
        return [_without_nulls(item) for item in value]
    return value
