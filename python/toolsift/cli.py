"""`toolsift extract`: the tool calls of JSONL files (logs, provider batch output) into a
Parquet, CSV or JSONL table, with a progress bar and a summary.

    toolsift extract INPUT... --format {openai,gemini,json,litert} [--record-path P]
                     [--tool-calls-key KEY] [--name-key KEY] [--arguments-key KEY]
                     [--single] [-o OUT] [--threads N] [--quiet]

The output's kind follows its extension (.parquet, .csv, .jsonl); without `-o`, JSONL goes
to stdout. Columns are those of `to_arrow` (with `file` first when there are several
inputs); in JSONL, `arguments` is the JSON object itself rather than its text.

`--tool-calls-key` (a dot path, default `tool_calls`), `--name-key` (default `name`),
`--arguments-key` (default `arguments`) and `--single` (the path holds one call object
rather than a list) go to `JsonResponseParser`, so they need `--format json`.

Exit status: 0 when the run finished (lines that could not be read are counted, never
fatal), 2 for a usage problem (a missing input, an unknown format or output kind, a
`--format json` option with another format, an output that cannot be written), 1 when an
input cannot be read to its end (corrupt compressed data).
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn

__all__ = ["main"]

FORMATS = {
    "openai": "OpenAIResponseParser",
    "gemini": "GeminiResponseParser",
    "json": "JsonResponseParser",
    "litert": "SdkResponseParser",
}
OUTPUTS = (".parquet", ".csv", ".jsonl")
# The options passed to JsonResponseParser: its keyword, and the CLI's name for it.
JSON_OPTIONS = {
    "tool_calls_key": "--tool-calls-key",
    "name_key": "--name-key",
    "arguments_key": "--arguments-key",
    "single": "--single",
}


class UsageError(Exception):
    """Exit status 2, with one line on stderr."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line rather than argparse's usage block.
        raise UsageError(f"{message} (see `toolsift {self.prog.split()[-1]} --help`)")


def _arguments() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="toolsift", description="Normalize LLM tool calls, in bulk.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    extract = commands.add_parser(
        "extract",
        help="the tool calls of JSONL files as a table",
        description=(
            "Write one row per tool call found in each line of the INPUT files (JSONL, "
            "plain, .gz or .zst; OpenAI Batch API, Vertex AI and Gemini API batch output "
            "are unwrapped on their own)."
        ),
    )
    extract.add_argument("inputs", nargs="+", metavar="INPUT", help="JSONL files")
    extract.add_argument(
        "--format", required=True, choices=tuple(FORMATS), help="the responses' provider format"
    )
    extract.add_argument(
        "--record-path",
        metavar="P",
        help='dot path to the response inside each line (e.g. "response.body"); '
        "default: unwrap known batch envelopes",
    )
    json_keys = extract.add_argument_group(
        "--format json", "where the calls are in each response (JsonResponseParser's keywords)"
    )
    # Left unset (None) unless given, so that the class's own defaults apply.
    json_keys.add_argument(
        "--tool-calls-key",
        metavar="KEY",
        help='dot path to the calls (e.g. "result.calls"); default: tool_calls',
    )
    json_keys.add_argument("--name-key", metavar="KEY", help="key of a call's name; default: name")
    json_keys.add_argument(
        "--arguments-key", metavar="KEY", help="key of a call's arguments; default: arguments"
    )
    json_keys.add_argument(
        "--single",
        action="store_true",
        default=None,
        help="the path holds one call object, not a list of calls",
    )
    extract.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file: .parquet, .csv or .jsonl (default: JSONL on stdout)",
    )
    extract.add_argument(
        "--threads", type=_positive_int, metavar="N", help="parsing threads (default: all cores)"
    )
    extract.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = _arguments().parse_args(argv)
        return _extract(args)
    except UsageError as exc:
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toolsift: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): stop quietly.
        _silence_stdout()
        return 0


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _parser_class(name: str) -> Any:
    from toolsift import parsers

    cls = getattr(parsers, FORMATS[name], None)
    if cls is None:
        raise UsageError(f"format {name!r} is not available in this build of toolsift")
    return cls


def _parser_options(args: argparse.Namespace) -> dict[str, Any]:
    """The JsonResponseParser keywords given on the command line (only those)."""
    given = {key: getattr(args, key) for key in JSON_OPTIONS if getattr(args, key) is not None}
    if given and args.format != "json":
        flags = ", ".join(JSON_OPTIONS[key] for key in given)
        raise UsageError(
            f"{flags} can only be used with --format json (got --format {args.format})"
        )
    return given


def _check_inputs(inputs: Sequence[str]) -> int:
    total = 0
    for path in inputs:
        if not os.path.exists(path):
            raise UsageError(f"no such file: {path}")
        if os.path.isdir(path):
            raise UsageError(f"is a directory, not a file: {path}")
        if not os.access(path, os.R_OK):
            raise UsageError(f"cannot read {path}: permission denied")
        total += os.path.getsize(path)
    return total


def _extract(args: argparse.Namespace) -> int:
    options = _parser_options(args)
    total = _check_inputs(args.inputs)
    cls = _parser_class(args.format)
    kind = ".jsonl"
    if args.output is not None:
        kind = os.path.splitext(args.output)[1].lower()
        if kind not in OUTPUTS:
            raise UsageError(
                f"cannot tell the output's kind from {args.output!r}; "
                f"its name must end in one of: {', '.join(OUTPUTS)}"
            )
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError("toolsift extract needs pyarrow: pip install 'toolsift[cli]'") from None
    from toolsift import _bulk

    columns = ("file", *_bulk.COLUMNS) if len(args.inputs) > 1 else _bulk.COLUMNS
    writer = _open_writer(kind, args.output, columns, _bulk.schema())
    bar = _bar(total, args.quiet)
    counts = dict.fromkeys(
        ("records", "records_with_calls", "calls", "undecodable_arguments", "failed"), 0
    )
    parser = cls(**options)
    started = time.perf_counter()
    try:
        for path in args.inputs:
            sink = writer.sink(path if len(args.inputs) > 1 else None)
            try:
                found = _bulk.arrow_batches(
                    parser._core,
                    path,
                    args.record_path,
                    args.threads,
                    _progress_into(bar),
                    sink,
                )
            except (ValueError, TypeError) as exc:  # a bad --record-path
                raise UsageError(str(exc)) from None
            except OSError as exc:
                print(f"toolsift: error: cannot read {path}: {exc}", file=sys.stderr)
                return 1
            for key in counts:
                counts[key] += found[key]
    finally:
        if bar is not None:
            bar.close()
        writer.finish()
    seconds = time.perf_counter() - started
    if not args.quiet:
        megabytes = total / 1e6
        print(
            f"toolsift: {counts['records']} records, {counts['records_with_calls']} with calls, "
            f"{counts['calls']} calls, {counts['undecodable_arguments']} undecodable arguments, "
            f"{counts['failed']} failed records; {megabytes:.1f} MB in {seconds:.2f} s, "
            f"{megabytes / max(seconds, 1e-9):.1f} MB/s",
            file=sys.stderr,
        )
    return 0


def _bar(total: int, quiet: bool) -> Any:
    """A tqdm bar on stderr, when it is a terminal (and tqdm is installed)."""
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="extract")


def _progress_into(bar: Any) -> Callable[[int, int | None], None] | bool:
    if bar is None:
        return False
    last = [0]

    def update(done: int, _total: int | None) -> None:
        bar.update(done - last[0])
        last[0] = done

    return update


class _Writer:
    """Writes record batches to the output, adding the `file` column when asked.

    Batches are written on a thread of their own (pyarrow releases the GIL while it
    encodes and writes), so that reading the next ones goes on meanwhile; at most a few
    batches wait in between.
    """

    def __init__(self, columns: Sequence[str], schema: Any) -> None:
        import pyarrow as pa

        self.columns = tuple(columns)
        self.schema = schema
        if columns[0] == "file":
            self.schema = pa.schema([pa.field("file", pa.string()), *schema])

    def sink(self, file: str | None) -> Callable[[Any], None]:
        import pyarrow as pa

        def write(batch: Any) -> None:
            if file is not None:
                column = pa.array([file] * batch.num_rows, pa.string())
                batch = pa.RecordBatch.from_arrays([column, *batch.columns], schema=self.schema)
            self._put(batch)

        return write

    def _put(self, batch: Any) -> None:
        if not hasattr(self, "_queue"):
            self._queue: queue.Queue[Any] = queue.Queue(maxsize=4)
            self._failed: list[BaseException] = []
            self._thread = threading.Thread(target=self._drain, name="toolsift-writer")
            self._thread.start()
        if self._failed:
            raise self._failed[0]
        self._queue.put(batch)

    def _drain(self) -> None:
        while True:
            batch = self._queue.get()
            if batch is None:
                return
            if self._failed:
                continue  # keep taking batches so that the reader is never stuck
            try:
                self.write(batch)
            except BaseException as exc:
                self._failed.append(exc)

    def finish(self) -> None:
        """Write what waits, then close the output; raise what writing raised."""
        try:
            if hasattr(self, "_queue"):
                self._queue.put(None)
                self._thread.join()
                if self._failed:
                    raise self._failed[0]
        finally:
            self.close()

    def write(self, batch: Any) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class _ParquetWriter(_Writer):
    def __init__(self, out: str, columns: Sequence[str], schema: Any) -> None:
        import pyarrow.parquet as pq

        super().__init__(columns, schema)
        self._writer = pq.ParquetWriter(out, self.schema)

    def write(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class _CsvWriter(_Writer):
    def __init__(self, out: str, columns: Sequence[str], schema: Any) -> None:
        import pyarrow.csv as pcsv

        super().__init__(columns, schema)
        self._writer = pcsv.CSVWriter(out, self.schema)

    def write(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class _JsonlWriter(_Writer):
    """One JSON object per row; `arguments` is spliced in as the object it encodes."""

    def __init__(self, out: IO[bytes], owned: bool, columns: Sequence[str], schema: Any) -> None:
        super().__init__(columns, schema)
        self._out = out
        self._owned = owned

    def write(self, batch: Any) -> None:
        import orjson

        names = self.columns
        columns = [batch.column(name).to_pylist() for name in names]
        at = names.index("arguments")
        fragment = orjson.Fragment
        # The arguments are compact JSON already: spliced in as they are.
        columns[at] = [None if a is None else fragment(a) for a in columns[at]]
        dumps = orjson.dumps
        lines = [dumps(dict(zip(names, row, strict=True))) for row in zip(*columns, strict=True)]
        if lines:
            self._out.write(b"\n".join(lines) + b"\n")

    def close(self) -> None:
        if self._owned:
            self._out.close()
        else:
            self._out.flush()


def _open_writer(kind: str, out: str | None, columns: Sequence[str], schema: Any) -> _Writer:
    if out is None:
        return _JsonlWriter(sys.stdout.buffer, False, columns, schema)
    directory = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(directory):
        raise UsageError(f"cannot write {out}: no such directory: {directory}")
    try:
        if kind == ".jsonl":
            return _JsonlWriter(open(out, "wb"), True, columns, schema)
        if kind == ".csv":
            return _CsvWriter(out, columns, schema)
        return _ParquetWriter(out, columns, schema)
    except OSError as exc:
        raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
