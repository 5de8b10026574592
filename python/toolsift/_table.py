"""The shapes of a table of calls beyond one row per call: one row per record
(`rows="records"`, `by_record`), and the carried fields (`carry=`, typed by
`carried_type`; `FirstBatchTyped` for streams). Below `toolsift._bulk`, which reads."""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from toolsift._errors import record_path_keys
from toolsift._types import CALL_LEVEL_COLUMNS, COLUMNS

__all__ = [
    "ROWS",
    "FirstBatchTyped",
    "by_record",
    "carried_type",
    "carry_names",
    "check_rows",
    "record_path_keys",
    "record_schema",
    "require_pyarrow",
    "typed_carried",
    "typed_table",
]


def require_pyarrow() -> Any:
    try:
        import pyarrow
    except ImportError as exc:
        raise ImportError(
            "toolsift's Arrow output needs pyarrow: pip install 'toolsift[arrow]'"
        ) from exc
    return pyarrow


ROWS = ("calls", "records")
"""The values of `rows`: one row per call (the default), or one per record."""


def check_rows(rows: object) -> None:
    if rows not in ROWS:
        raise ValueError(f"rows must be 'calls' or 'records', got {rows!r}")


def record_schema(call_schema: Any) -> Any:
    """The schema of `rows="records"` made from the one of one row per call: the columns
    of the record (all but `CALL_LEVEL_COLUMNS`), in order, then `calls` (int32, how many) and
    `tool_calls` (a list of structs of the `CALL_LEVEL_COLUMNS`, in the calls' order)."""
    pa = require_pyarrow()
    call = pa.struct([call_schema.field(name) for name in CALL_LEVEL_COLUMNS])
    return pa.schema(
        [
            *(field for field in call_schema if field.name not in CALL_LEVEL_COLUMNS),
            pa.field("calls", pa.int32(), nullable=False),
            pa.field("tool_calls", pa.list_(call), nullable=False),
        ]
    )


def by_record(batch: Any, schema: Any) -> Any:
    """The rows of a batch of one row per call as one row per record, of `schema`
    (`record_schema`). The backends make the batch with `every_record`: the rows of the
    calls first, a record's next to each other, in record order; then a row for each
    record without a call (failed, or without calls), its call columns null. So the
    calls are the list's values as they are (no copy of the arguments); only the
    record's columns are taken, in record order."""
    pa = require_pyarrow()
    import pyarrow.compute as pc

    rows = batch.num_rows
    others = batch.column("call_index").null_count
    calls = batch.slice(0, rows - others)
    if others:
        without = batch.slice(rows - others)
        nothing = pc.subtract(without.column("record"), without.column("record"))
    record = calls.column("record")
    if len(calls):
        # Each record's calls start where the number changes.
        changed = pc.not_equal(record.slice(1), record.slice(0, len(calls) - 1))
        starts = pc.add(pc.indices_nonzero(changed), _int(pa.uint64(), 1)[0])
        starts = pa.concat_arrays([_int(pa.uint64(), 0), starts]).cast(pa.int64())
        ends = pa.concat_arrays([starts.slice(1), _int(pa.int64(), len(calls))])
        sizes = pc.subtract(ends, starts)
    else:
        starts = sizes = calls.column("record")  # (empty int64)

    def records_of(column: Any, others_column: Any) -> Any:
        firsts = pc.take(column, starts)
        return firsts if not others else pa.concat_arrays([firsts, others_column])

    if others:
        order = pc.sort_indices(records_of(record, without.column("record")))
        sizes = pc.take(pa.concat_arrays([sizes, nothing]), order)
    offsets = pa.concat_arrays([_int(pa.int64(), 0), pc.cumulative_sum(sizes)]).cast(pa.int32())
    columns = []
    for field in schema:
        if field.name in ("calls", "tool_calls"):
            continue
        column = records_of(calls.column(field.name), others and without.column(field.name))
        columns.append(pc.take(column, order) if others else column)
    struct_type = schema.field("tool_calls").type.value_type
    members = [calls.column(name) for name in CALL_LEVEL_COLUMNS]
    values = pa.StructArray.from_arrays(members, fields=list(struct_type))
    listed = pa.ListArray.from_arrays(offsets, values, type=schema.field("tool_calls").type)
    counts = sizes.cast(pa.int32())
    return pa.RecordBatch.from_arrays([*columns, counts, listed], schema=schema)


def _int(kind: Any, value: int) -> Any:
    """An array of one int64, uint64 or int32, made from a buffer (see `repeated`)."""
    pa = require_pyarrow()
    data = struct.pack({"int64": "<q", "uint64": "<Q", "int32": "<i"}[str(kind)], value)
    return pa.Array.from_buffers(kind, 1, [None, pa.py_buffer(data)])


def carry_names(carry: object) -> tuple[str, ...]:
    """`carry` checked: None, or an iterable of dot paths (str), each a column."""
    if carry is None:
        return ()
    if isinstance(carry, str) or not isinstance(carry, Iterable):
        raise TypeError(f"carry must be a list of dot paths (str) or None, got {carry!r}")
    names = tuple(carry)
    taken = {*COLUMNS, "file", "calls", "tool_calls"}
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"carry must be a list of dot paths (str), got {name!r} in it")
        if not name or "" in name.split("."):
            raise ValueError(f"a carry path must be keys joined by dots, got {name!r}")
        record_path_keys(name)  # valid Unicode
        if name in taken:
            raise ValueError(f"carry {name!r} is the name of a column of the table already")
    if len(set(names)) != len(names):
        raise ValueError(f"carry names a field twice: {list(names)!r}")
    return names


_INTEGER = r"^-?(0|[1-9][0-9]*)$"
_NUMBER = r"^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$"


def carried_type(column: Any) -> Any:
    """The type a carried column (compact JSON text per value, as the backends give it)
    takes when every value agrees: string (every value a JSON string), bool, int64 (every
    value an integer that fits), float64 (every value a number, one at least not an
    integer; none beyond the float range, no integer beyond 2**53); else None: the column
    stays JSON text. Nulls (a missing field, or null) agree with every type."""
    pa = require_pyarrow()
    import pyarrow.compute as pc

    values = column.drop_null()
    if len(values) == 0:
        return None
    if pc.all(pc.starts_with(values, '"')).as_py():
        return pa.string()
    if pc.all(pc.is_in(values, value_set=pa.array(["true", "false"]))).as_py():
        return pa.bool_()
    integers = pc.match_substring_regex(values, _INTEGER)
    if pc.all(integers).as_py():
        try:
            pc.cast(values, pa.int64())
        except pa.ArrowInvalid:  # beyond int64
            return None
        return pa.int64()
    if pc.all(pc.match_substring_regex(values, _NUMBER)).as_py():
        big = pc.filter(values, integers)
        if len(big) and pc.max(pc.utf8_length(big)).as_py() > 15:
            return None  # an integer a float64 may not hold exactly
        if not pc.all(pc.is_finite(pc.cast(values, pa.float64()))).as_py():
            return None
        return pa.float64()
    return None


def typed_carried(column: Any, kind: Any) -> Any:
    """A carried column (JSON text) as `kind` (`carried_type`; None: as it is). As a
    string: a value that is not a JSON string stays its JSON text (`arrow_batches`)."""
    pa = require_pyarrow()
    import pyarrow.compute as pc

    if kind is None:
        return column
    if kind == pa.bool_():
        return pc.equal(column, "true")
    if kind != pa.string():
        return pc.cast(column, kind)
    quoted = pc.fill_null(pc.starts_with(column, '"'), False)
    if not pc.any(pc.fill_null(pc.match_substring(column, "\\"), False)).as_py():
        inner = pc.utf8_slice_codeunits(column, 1, -1)
    else:  # escapes: decoded one by one
        import json

        inner = pa.array(
            [None if v is None or v[:1] != '"' else json.loads(v) for v in column.to_pylist()],
            pa.string(),
        )
    return pc.if_else(quoted, inner, column)


def typed_table(table: Any, carry: Sequence[str]) -> Any:
    """`table` with each carried column typed by all of its values (`to_arrow`)."""
    for name in carry:
        at = table.schema.get_field_index(name)
        kind = carried_type(table.column(at))
        if kind is not None:
            table = table.set_column(at, name, typed_carried(table.column(at), kind))
    return table


class FirstBatchTyped:
    """The batches of a `BatchStream` whose carried fields are typed by its first batch,
    read when the schema is first asked for: a stream cannot know whether every record
    agrees, and every batch has one schema. A field whose values in the first batch are
    all JSON strings is a string column (a later value that is not a string stays its
    JSON text); any other stays JSON text. With what the CLI reads of a `BatchStream`:
    `schema`, `counts`, `current`."""

    def __init__(self, read: Any, carry: Sequence[str]) -> None:  # a `_bulk.BatchStream`
        self._read = read
        self._carry = carry
        self._batches: Iterator[Any] | None = None
        self._first: list[Any] = []
        self._error: OSError | None = None
        self._schema: Any = None
        self._strings: set[str] = set()  # the fields typed as strings

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = self._read.counts
        return counts

    @property
    def current(self) -> str | None:
        current: str | None = self._read.current
        return current

    @property
    def schema(self) -> Any:
        if self._schema is None:
            pa = require_pyarrow()
            self._batches = iter(self._read)
            try:
                self._first = [batch for batch in itertools.islice(self._batches, 1)]
            except OSError as exc:  # raised again where the batches are read
                self._error = exc
            schema = self._read.schema
            for name in self._carry:
                first = self._first[0].column(name) if self._first else None
                if first is not None and carried_type(first) == pa.string():
                    self._strings.add(name)
            self._schema = schema  # (JSON text and strings: both string columns)
        return self._schema

    def __iter__(self) -> Iterator[Any]:
        pa = require_pyarrow()
        schema = self.schema
        batches = self._batches
        try:
            if self._error is not None:
                raise self._error
            for batch in itertools.chain(self._first, batches or ()):
                columns = [
                    typed_carried(column, pa.string() if field.name in self._strings else None)
                    for field, column in zip(schema, batch.columns, strict=True)
                ]
                yield pa.RecordBatch.from_arrays(columns, schema=schema)
        except KeyboardInterrupt as exc:  # the reading threads are told, not waited for
            throw = getattr(batches, "throw", None)
            if throw is not None:
                try:
                    throw(exc)
                except (KeyboardInterrupt, StopIteration):
                    pass
            raise
        finally:
            close = getattr(batches, "close", None)
            if close is not None:
                close()

    def reader(self) -> Any:
        """A `pyarrow.RecordBatchReader` over the batches (the first one read now)."""
        pa = require_pyarrow()
        return pa.RecordBatchReader.from_batches(self.schema, iter(self))
