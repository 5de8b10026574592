"""`toolsift extract`: the tool calls of JSONL files (logs, provider batch output) into a
Parquet, CSV or JSONL table, with a progress bar and a summary.

    toolsift extract INPUT... --format FORMAT [--record-path P]
                     [--tool-calls-key KEY] [--name-key KEY] [--arguments-key KEY]
                     [--single] [-o OUT] [--threads N] [--max-line-bytes N] [--quiet]

FORMAT is a name of the format registry (`toolsift._pure.formats`; `--help` lists them).

The output's kind follows its extension (.parquet, .csv, .jsonl); without `-o`, JSONL goes
to stdout. Columns are those of `to_arrow` (with `file` first when there are several
inputs, as `to_arrow(toolsift.Files(...))` gives them); in JSONL, `arguments` is the JSON
object itself rather than its text. Several inputs are read in parallel, up to `--threads`
files at once (each on `threads // files-at-once` threads), and written in input order.

`--tool-calls-key` (a dot path, default `tool_calls`), `--name-key` (default `name`),
`--arguments-key` (default `arguments`) and `--single` (the path holds one call object
rather than a list) go to `JsonResponseParser`, so they need `--format json`.

The output file is written under a temporary name beside it and put in its place only at
the end of a run that succeeded: a failed or interrupted run leaves what was there before.

Exit status: 0 when the run finished (lines that could not be read are counted, never
fatal), and when the reader of stdout went away (`| head`); 2 for a usage problem (a
missing input, an unknown format or output kind, a `--format json` option with another
format, an output that is also an input) or an output that cannot be written (also when
the disk is full); 1 when an input cannot be read to its end (corrupt compressed data);
130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import collections
import errno
import os
import queue
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn

__all__ = ["main"]


def _formats() -> dict[str, str]:
    """`--format` name -> parser class, from the format registry, and `auto`."""
    from toolsift._pure.formats import AUTO, REGISTRY

    return {**{spec.name: spec.parser_class for spec in REGISTRY}, AUTO: "AutoResponseParser"}


FORMATS = _formats()
OUTPUTS = (".parquet", ".csv", ".jsonl")
# The options passed to JsonResponseParser: its keyword, and the CLI's name for it.
JSON_OPTIONS = {
    "tool_calls_key": "--tool-calls-key",
    "name_key": "--name-key",
    "arguments_key": "--arguments-key",
    "single": "--single",
}


STDIN = "-"
"""The INPUT that names standard input."""


class UsageError(Exception):
    """Exit status 2, with one line on stderr."""


class OutputError(Exception):
    """Writing the output failed: exit status 2 with one line on stderr, or quietly 0 when
    the reader of a pipe went away. Not an OSError, so that it is never taken for a
    failure to read an input."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(f"cannot write {name}: {error.strerror or error}")
        self.error = error
        self.to_stdout = name == _STDOUT


_STDOUT = "to stdout"


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line rather than argparse's usage block. `prog` is "toolsift" or
        # "toolsift extract".
        raise UsageError(f"{message} (see `{self.prog} --help`)")


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
    extract.add_argument(
        "inputs", nargs="+", metavar="INPUT", help="JSONL files (- for standard input)"
    )
    extract.add_argument(
        "--format",
        default="auto",
        choices=tuple(FORMATS),
        help="the responses' provider format (default: auto, each line recognized on its own)",
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
    extract.add_argument(
        "--max-line-bytes",
        type=_positive_int,
        metavar="N",
        help="a longer line is one failed record (default: 1 GiB)",
    )
    extract.add_argument(
        "--stream",
        action="store_true",
        help="each line holds one whole stream: a JSON array of its events, its SSE "
        "transcript as a JSON string, or one event object (a stream of one event)",
    )
    extract.add_argument(
        "--stream-lines",
        action="store_true",
        help="each line is one event of a stream: lines are grouped by their stream's id "
        "(README: Streaming) and each stream is one record (numbered in the order of its "
        "first line)",
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
    except OutputError as exc:
        if exc.to_stdout:
            _silence_stdout()  # what stays buffered must not fail again at exit
        if _broken_pipe(exc.error):
            return 0  # the reader went away (`| head`): stop quietly, as Unix tools do
        print(f"toolsift: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toolsift: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _broken_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError) or getattr(error, "errno", None) == errno.EPIPE


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


def _check_inputs(inputs: Sequence[str]) -> dict[str, int]:
    """The size of every input file."""
    sizes = {}
    for path in inputs:
        if path == STDIN:
            sizes[path] = 0  # unknown
            continue
        if not os.path.exists(path):
            raise UsageError(f"no such file: {path}")
        if os.path.isdir(path):
            raise UsageError(f"is a directory, not a file: {path}")
        if not os.access(path, os.R_OK):
            raise UsageError(f"cannot read {path}: permission denied")
        sizes[path] = os.path.getsize(path)
    return sizes


def _output_kind(output: str | None) -> str:
    if output is None:
        return ".jsonl"
    kind = os.path.splitext(output)[1].lower()
    if kind not in OUTPUTS:
        raise UsageError(
            f"cannot tell the output's kind from {output!r}; "
            f"its name must end in one of: {', '.join(OUTPUTS)}"
        )
    return kind


def _check_output_is_no_input(output: str | None, inputs: Sequence[str]) -> None:
    """Refuse an output that is one of the inputs (the same file, also through a link):
    writing it would destroy what is to be read. Without `-o`, stdout redirected to an
    input (`>> x.jsonl`) would be read while it grows."""
    if output is None:
        try:
            out = os.fstat(sys.stdout.fileno())
        except (AttributeError, OSError, ValueError):
            return
        if not stat.S_ISREG(out.st_mode):
            return
        name = "stdout"
    else:
        try:
            out = os.stat(output)
        except OSError:
            out = None  # not there yet: compared by the path it resolves to
        name = output
    for path in inputs:
        if path == STDIN:
            continue
        if out is not None:
            same = os.path.samestat(out, os.stat(path))
        else:
            same = output is not None and os.path.realpath(output) == os.path.realpath(path)
        if same:
            raise UsageError(f"the output {name} is also an input ({path}); write it elsewhere")


def _extract(args: argparse.Namespace) -> int:
    options = _parser_options(args)
    for flag, given in (("--stream", args.stream), ("--stream-lines", args.stream_lines)):
        if given and args.format in ("json", "litert"):
            raise UsageError(f"{flag} reads the streams of a provider format, not {args.format}")
    if args.stream and args.stream_lines:
        raise UsageError("--stream and --stream-lines cannot be used together")
    sizes = _check_inputs(args.inputs)
    cls = _parser_class(args.format)
    kind = _output_kind(args.output)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise UsageError("toolsift extract needs pyarrow: pip install 'toolsift[cli]'") from None
    from toolsift import _bulk

    try:  # checked now, so that an error while reading is always about the input
        _bulk.record_path_keys(args.record_path)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    parser = cls(**options)
    _check_output_is_no_input(args.output, args.inputs)
    opened = ["/dev/stdin" if path == STDIN else path for path in args.inputs]
    source: Any
    if args.stream or args.stream_lines:
        if len(opened) > 1:
            flag = "--stream" if args.stream else "--stream-lines"
            raise UsageError(f"{flag} reads one input at a time (run it once per file)")
        try:  # the input's lines, grouped into whole streams
            if args.stream_lines:
                source = _stream_records(opened[0], args.format, args.max_line_bytes)
            else:
                source = _whole_streams(opened[0], args.max_line_bytes)
        except OSError as exc:
            message = str(exc).removeprefix(f"{opened[0]}: ")  # it may name the file already
            print(f"toolsift: error: cannot read {args.inputs[0]}: {message}", file=sys.stderr)
            return 1
    else:
        # Several inputs are read in parallel (up to --threads files at once), in order.
        source = _bulk.Files(opened) if len(opened) > 1 else opened[0]
    started = time.perf_counter()
    bar = _bar(sum(sizes.values()), args.quiet)
    try:
        rows = _bulk.stream(
            parser._core,
            source,
            args.record_path,
            args.threads,
            _progress_into(bar),
            max_line_bytes=args.max_line_bytes,
            names=args.inputs,
        )
    except OSError as exc:  # an input gone since it was checked
        if bar is not None:
            bar.close()
        raise UsageError(f"cannot read {exc.filename or exc}: {exc.strerror or exc}") from None
    output = None if args.output is None else _Output(args.output)
    try:
        writer = _open_writer(kind, output, rows.schema)
    except BaseException:
        if output is not None:
            output.discard()
        if bar is not None:
            bar.close()
        raise
    done = False
    batches = iter(rows)
    try:
        try:
            for batch in batches:
                writer.put(batch)
        except OSError as exc:  # writing raises OutputError, never OSError
            path = rows.current or args.inputs[0]
            message = str(exc).removeprefix(f"{path}: ")  # it may name the file already
            if output is None:  # the rows read before the fault go out on stdout
                writer.finish()
                done = True
            print(f"toolsift: error: cannot read {path}: {message}", file=sys.stderr)
            return 1
        writer.finish()
        if output is not None:
            output.commit()
        done = True
    finally:
        close = getattr(batches, "close", None)
        if close is not None:
            close()  # stops the reading threads (after a failure)
        if bar is not None:
            bar.close()
        if not done:
            writer.abort()
            if output is not None:
                output.discard()
    counts = {
        key: rows.counts.get(key, 0)
        for key in ("records", "records_with_calls", "calls", "undecodable_arguments", "failed")
    }
    # The decompressed text read, where the backend counts it; else the files' size.
    text_bytes = rows.counts.get("text_bytes", sum(sizes.values()))
    seconds = time.perf_counter() - started
    if not args.quiet:
        print(_summary(counts, sum(sizes.values()), text_bytes, seconds), file=sys.stderr)
    note = _no_calls_note(args.format, args.inputs, counts)
    if note is not None:  # finding nothing is said, even with --quiet
        print(f"toolsift: warning: {note}", file=sys.stderr)
    return 0


def _stream_records(path: str, format: str, max_line_bytes: int | None) -> list[bytes]:
    """`--stream-lines`: the file's lines grouped into streams, each stream one record
    (the JSON array of its events); a line that is no event of the format stays a
    record of its own (in the order of the streams' first lines)."""
    from toolsift._jsontext import is_json
    from toolsift._pure import bulk, formats
    from toolsift._pure.stream import group_lines

    walked = formats.WALKED if format == formats.AUTO else (formats.by_name(format),)

    def module_of(event: Any) -> Any:
        for spec in walked:
            if spec.module.stream_detect(event):
                return spec.module
        return None

    limit = bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    lines = [
        line if isinstance(line, bytes) else b""
        for _, line in bulk.open_records(path, max_line_bytes=limit)
    ]
    records = []
    for group in group_lines(lines, module_of):
        if len(group) == 1 and not is_json(group[0]):
            records.append(group[0])  # kept as it is: its record's error says why
        else:
            records.append(b"[" + b",".join(group) + b"]")
    return records


def _whole_streams(path: str, max_line_bytes: int | None) -> list[bytes]:
    """`--stream`: each line one whole stream; a line holding one event object is read
    as a stream of that one event (a list and an SSE string are streams already)."""
    from toolsift._pure import bulk

    limit = bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    records = []
    for _, line in bulk.open_records(path, max_line_bytes=limit):
        if not isinstance(line, bytes):
            line = b""  # longer than the limit: not kept
        records.append(b"[" + line + b"]" if line.lstrip().startswith(b"{") else line)
    return records


SAMPLE_RECORDS = 1000
"""Records looked at to tell what a file holds when its format found no calls."""


def _no_calls_note(format: str, inputs: Sequence[str], counts: dict[str, int]) -> str | None:
    """One line when records were read but no call was found: with a named format, and
    what auto-detection recognizes in the first records, if it is another format."""
    readable = counts["records"] - counts["failed"]
    if counts["calls"] or not readable:
        return None
    note = f"--format {format} found no calls in {readable} records"
    seen = _recognized(inputs)
    others = [name for name, _ in seen.most_common() if name != format]
    if format != "auto" and others:
        return f"{note}; they look like {', '.join(others)} (use --format auto)"
    return note


def _recognized(inputs: Sequence[str]) -> collections.Counter[str]:
    """The formats auto-detection recognizes in the first `SAMPLE_RECORDS` records of
    the inputs (batch envelopes unwrapped), as responses or as events of their streams."""
    import orjson

    from toolsift._pure import bulk, formats
    from toolsift._pure.walk import json_in_string

    seen: collections.Counter[str] = collections.Counter()
    looked = 0
    for path in inputs:
        if path == STDIN:
            continue  # read already
        try:
            for _, line in bulk.open_records(path):
                looked += 1
                if looked > SAMPLE_RECORDS:
                    return seen
                try:
                    response, _, error = bulk.locate(orjson.loads(line), None)
                except (orjson.JSONDecodeError, TypeError):
                    continue
                if error is not None:
                    continue
                decoded = json_in_string(response)  # JSON text inside a string
                if decoded is not None:
                    response = decoded
                spec = formats.detect_or_none(response)
                if spec is not None:
                    seen[spec.name] += 1
                elif (event := formats.stream_detect(response)) is not None:
                    seen[event[0]] += 1  # an event of a stream given alone
        except (OSError, ImportError):
            continue  # reported by the run already
    return seen


def _summary(counts: dict[str, int], file_bytes: int, text_bytes: int, seconds: float) -> str:
    """The last line: counts, then MB of the files read and the rate; for compressed input
    also the MB of JSON text they held, and the rate in JSON."""
    seconds = max(seconds, 1e-9)
    megabytes = file_bytes / 1e6
    size = f"{megabytes:.1f} MB in {seconds:.2f} s, {megabytes / seconds:.1f} MB/s"
    if text_bytes != file_bytes:
        json_mb = text_bytes / 1e6
        size = (
            f"{megabytes:.1f} MB ({json_mb:.1f} MB of JSON) in {seconds:.2f} s, "
            f"{json_mb / seconds:.1f} MB/s of JSON"
        )
    return (
        f"toolsift: {counts['records']} records, {counts['records_with_calls']} with calls, "
        f"{counts['calls']} calls, {counts['undecodable_arguments']} undecodable arguments, "
        f"{counts['failed']} failed records; {size}"
    )


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


class _Output:
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


class _Writer:
    """Writes record batches to the output.

    Batches are written on a thread of their own (pyarrow releases the GIL while it
    encodes and writes), so that reading the next ones goes on meanwhile; at most a few
    batches wait in between. An OSError while writing (a full disk, a closed pipe) is
    raised in the reading thread as an OutputError, at the next batch or at `finish`.
    """

    def __init__(self, name: str, schema: Any) -> None:
        self.name = name
        self.schema = schema
        self.columns = tuple(schema.names)
        self._failed: list[BaseException] = []
        self._stopped = False

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
            if batch is None:
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

    def abort(self) -> None:
        """After a failure: stop writing, and close the output, whatever it raises."""
        self._stopped = True
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


class _ParquetWriter(_Writer):
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


class _CsvWriter(_Writer):
    def __init__(self, name: str, path: str, schema: Any) -> None:
        import pyarrow.csv as pcsv

        super().__init__(name, schema)
        self._writer = pcsv.CSVWriter(path, self.schema)

    def write(self, batch: Any) -> None:
        self._writer.write_batch(batch)

    def close(self) -> None:
        self._writer.close()


class _JsonlWriter(_Writer):
    """One JSON object per row; `arguments` is spliced in as the object it encodes."""

    def __init__(self, name: str, out: IO[bytes], owned: bool, schema: Any) -> None:
        super().__init__(name, schema)
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


def _open_writer(kind: str, output: _Output | None, schema: Any) -> _Writer:
    if output is None:
        return _JsonlWriter(_STDOUT, sys.stdout.buffer, False, schema)
    try:
        if kind == ".jsonl":
            return _JsonlWriter(output.name, open(output.path, "wb"), True, schema)
        if kind == ".csv":
            return _CsvWriter(output.name, output.path, schema)
        return _ParquetWriter(output.name, output.path, schema)
    except OSError as exc:
        raise UsageError(f"cannot write {output.name}: {exc.strerror or exc}") from None
