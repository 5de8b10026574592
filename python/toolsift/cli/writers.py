"""The output: a file written under a temporary name and put in place at the end, and
the writers of its kinds (Parquet, CSV, JSONL), each on a thread of its own."""

from __future__ import annotations

import errno
import os
import queue
import stat
import sys
import tempfile
import threading
from typing import IO, Any, NoReturn

from toolsift.cli.errors import STDOUT_NAME, OutputError, UsageError
from toolsift.cli.rows import column_values, csv_field, csv_lines, list_text


class Output:
    """An output file, written under a temporary name beside it (same directory, so same
    file system) and put in its place by `commit`: a run that fails leaves what was there.

    A symlink is followed (the file it names is replaced, the link kept). An existing
    output that is not a regular file (a FIFO, a device) is written to directly.
    """

    def __init__(self, out: str) -> None:
        self.name = out
        self.final = os.path.realpath(out)
        directory = os.path.dirname(self.final)
        if not os.path.isdir(directory):
            raise UsageError(f"cannot write {out}: no such directory: {directory}")
        try:
            existing: os.stat_result | None = os.stat(self.final)
        except FileNotFoundError:
            existing = None
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
        if existing is not None and stat.S_ISDIR(existing.st_mode):
            raise UsageError(f"cannot write {out}: {os.strerror(errno.EISDIR)}")
        if existing is not None and not os.access(self.final, os.W_OK):
            # Replacing it would succeed in a writable directory; opening it would not.
            raise UsageError(f"cannot write {out}: {os.strerror(errno.EACCES)}")
        self.temporary: str | None = None
        self.path = self.final
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            return
        # The mode `open` would give: the existing file's, else 0o666 less the umask.
        if existing is not None:
            mode = stat.S_IMODE(existing.st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        try:
            fd, self.temporary = tempfile.mkstemp(
                prefix=f".{os.path.basename(self.final)}.", suffix=".tmp", dir=directory
            )
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
        self.path = self.temporary
        try:
            os.fchmod(fd, mode)
        finally:
            os.close(fd)

    def commit(self) -> None:
        if self.temporary is None:
            return
        try:
            os.replace(self.temporary, self.final)
        except OSError as exc:
            raise OutputError(self.name, exc) from exc
        self.temporary = None

    def discard(self) -> None:
        """Remove the temporary file (after a failure)."""
        if self.temporary is not None:
            try:
                os.unlink(self.temporary)
            except OSError:
                pass
            self.temporary = None


class Writer:
    """Writes record batches to the output.

    Batches are written on a thread of their own (pyarrow releases the GIL while it
    encodes and writes), so that reading the next ones goes on meanwhile; at most a few
    batches wait in between. An OSError while writing (a full disk, a closed pipe) is
    raised in the reading thread as an OutputError, at the next batch or at `finish`.
    """

    def __init__(self, name: str, schema: Any) -> None:
        self.name = name
        self.schema = schema
        # A pyarrow schema, or (rows without pyarrow) the column names.
        self.columns = tuple(schema if isinstance(schema, tuple) else schema.names)
        self._failed: list[BaseException] = []
        self._stopped = False
        self._abandoned = False  # after an interrupt: the thread ends at its next batch

    def put(self, batch: Any) -> None:
        if not hasattr(self, "_queue"):
            self._queue: queue.Queue[Any] = queue.Queue(maxsize=4)
            self._thread = threading.Thread(target=self._drain, name="toolsift-writer")
            self._thread.start()
        self._raise_failure()
        self._queue.put(batch)

    def _drain(self) -> None:
        while True:
            batch = self._queue.get()
            if batch is None or self._abandoned:
                return
            if self._failed or self._stopped:
                continue  # keep taking batches so that the reader is never stuck
            try:
                self.write(batch)
            except BaseException as exc:
                self._failed.append(exc)

    def _raise_failure(self) -> None:
        if self._failed:
            self._raise(self._failed[0])

    def _raise(self, exc: BaseException) -> NoReturn:
        if isinstance(exc, OSError):
            raise OutputError(self.name, exc) from exc
        raise exc

    def _join(self) -> None:
        """Let the thread write (or, stopped, skip) what waits, and end."""
        if hasattr(self, "_queue") and self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()

    def finish(self) -> None:
        """Write what waits, then close the output; raise what writing raised."""
        self._join()
        self._raise_failure()
        try:
            self.close()
        except OSError as exc:  # the last bytes are written when the output is closed
            self._raise(exc)

    def abort(self, wait: bool = True) -> None:
        """After a failure: stop writing, and close the output, whatever it raises. After
        an interrupt (`wait` False) the writing thread is not waited for: it may be
        blocked writing to a pipe whose reader is idle."""
        self._stopped = True
        if not wait:
            self._abandoned = True
            if hasattr(self, "_queue"):
                try:  # wakes the thread if it waits for a batch; if full, it is writing
                    self._queue.put_nowait(None)
                except queue.Full:
                    pass
            return
        self._join()
        try:
            self.close()
        except Exception:
            pass

    def write(self, batch: Any) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


ROW_GROUP_ROWS = 65_536
ROW_GROUP_BYTES = 64 * 1024 * 1024


class ParquetWriter(Writer):
    """Row groups of about `ROW_GROUP_ROWS` rows, or `ROW_GROUP_BYTES` where fewer rows
    are that large: batches come as small as the reader cuts them (a few hundred rows),
    and a row group each made files of hundreds of tiny groups, which took 3-4x the CPU
    to write (taken from the reading threads) and are slow to read."""

    def __init__(self, name: str, path: str, schema: Any) -> None:
        import pyarrow.parquet as pq

        super().__init__(name, schema)
        self._writer = pq.ParquetWriter(path, self.schema)
        self._waiting: list[Any] = []
        self._rows = 0
        self._bytes = 0

    def write(self, batch: Any) -> None:
        self._waiting.append(batch)
        self._rows += batch.num_rows
        self._bytes += batch.nbytes
        if self._rows >= ROW_GROUP_ROWS or self._bytes >= ROW_GROUP_BYTES:
            self._write_group()

    def _write_group(self) -> None:
        import pyarrow as pa

        table = pa.Table.from_batches(self._waiting, self.schema)
        self._waiting, self._rows, self._bytes = [], 0, 0
        self._writer.write_table(table, row_group_size=table.num_rows or None)

    def close(self) -> None:
        try:
            if self._waiting and not (self._stopped or self._failed):
                self._write_group()
        finally:
            self._writer.close()


class CsvWriter(Writer):
    """CSV by pyarrow; a list column (`repairs`, `violations`) as its JSON text, as
    `csv_field`."""

    def __init__(self, name: str, path: str, schema: Any) -> None:
        import pyarrow as pa
        import pyarrow.csv as pcsv

        super().__init__(name, schema)
        self._lists = [i for i, field in enumerate(schema) if pa.types.is_list(field.type)]
        for i in self._lists:
            schema = schema.set(i, pa.field(schema.field(i).name, pa.string()))
        self._writer = pcsv.CSVWriter(path, schema)

    def write(self, batch: Any) -> None:
        import pyarrow as pa

        for i in self._lists:
            values = batch.column(i)
            if values.null_count == len(values):
                text = pa.nulls(len(values), pa.string())
            else:
                text = pa.array(
                    [None if v is None else list_text(v) for v in values.to_pylist()], pa.string()
                )
            batch = batch.set_column(i, batch.schema.field(i).name, text)
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class PlainCsvWriter(Writer):
    """CSV without pyarrow: the bytes pyarrow's CSV writer writes for the same rows."""

    def __init__(self, name: str, out: IO[bytes], schema: Any) -> None:
        super().__init__(name, schema)
        self._out = out
        self._out.write((",".join(map(csv_field, self.columns)) + "\n").encode("utf-8"))

    def write(self, batch: Any) -> None:
        self._out.writelines(csv_lines(self.columns, batch))

    def close(self) -> None:
        self._out.close()


class JsonlWriter(Writer):
    """One JSON object per row; `arguments` (of each call in `tool_calls`, for a row per
    record) is spliced in as the object it encodes."""

    def __init__(self, name: str, out: IO[bytes], owned: bool, schema: Any) -> None:
        super().__init__(name, schema)
        self._out = out
        self._owned = owned

    def write(self, batch: Any) -> None:
        import orjson

        names = self.columns
        columns = [column_values(batch, name) for name in names]
        fragment = orjson.Fragment
        # The arguments are compact JSON already: spliced in as they are.
        if "arguments" in names:
            at = names.index("arguments")
            columns[at] = [None if a is None else fragment(a) for a in columns[at]]
        else:  # a row per record: in each of its calls
            at = names.index("tool_calls")
            for calls in columns[at]:
                for call in calls:
                    if call["arguments"] is not None:
                        call["arguments"] = fragment(call["arguments"])
        dumps = orjson.dumps
        newline = orjson.OPT_APPEND_NEWLINE
        # Written line by line: joined, a line of 150 MB was copied twice more.
        self._out.writelines(
            dumps(dict(zip(names, row, strict=True)), option=newline)
            for row in zip(*columns, strict=True)
        )

    def close(self) -> None:
        if self._owned:
            self._out.close()
        else:
            self._out.flush()


def open_writer(kind: str, output: Output | None, schema: Any) -> Writer:
    if output is None:
        return JsonlWriter(STDOUT_NAME, sys.stdout.buffer, False, schema)
    try:
        if kind == ".jsonl":
            return JsonlWriter(output.name, open(output.path, "wb"), True, schema)
        if kind == ".csv" and isinstance(schema, tuple):  # rows without pyarrow
            return PlainCsvWriter(output.name, open(output.path, "wb"), schema)
        if kind == ".csv":
            return CsvWriter(output.name, output.path, schema)
        return ParquetWriter(output.name, output.path, schema)
    except OSError as exc:
        raise UsageError(f"cannot write {output.name}: {exc.strerror or exc}") from None
