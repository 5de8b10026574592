"""`toolsift extract`: the tool calls of JSONL files (logs, provider batch output) into a
Parquet, CSV or JSONL table, with a progress bar and a summary.

    toolsift extract INPUT... [--format FORMAT] [--record-path P]
                     [--tool-calls-key KEY] [--name-key KEY] [--arguments-key KEY]
                     [--single] [-o OUT] [--threads N] [--max-line-bytes N]
                     [--stream | --stream-lines] [--fail-on-error] [--max-error-rate R]
                     [--quiet]
    toolsift --version

FORMAT is a name of the format registry (`toolsift.formats`; `--help` lists them),
or `auto` (the default). An INPUT is a file, `-` (standard input, once), a directory (its
`.jsonl`, `.jsonl.gz` and `.jsonl.zst` files, recursively, sorted) or a glob (its files,
sorted), as `toolsift.Files` takes them.

The output's kind follows its extension (.parquet, .csv, .jsonl); without `-o`, JSONL goes
to stdout. Columns are those of `to_arrow` (with `file` first when there are several
inputs, or a directory or a glob, as `to_arrow(toolsift.Files(...))` gives them); in
JSONL, `arguments` is the JSON object itself rather than its text. Several inputs are read
in parallel, up to `--threads` files at once (each on `threads // files-at-once` threads),
and written in input order.

`--tool-calls-key` (a dot path, default `tool_calls`), `--name-key` (default `name`),
`--arguments-key` (default `arguments`) and `--single` (the path holds one call object
rather than a list) go to `JsonResponseParser`, so they need `--format json`.

The output file is written under a temporary name beside it and put in its place only at
the end of a run that succeeded: a failed or interrupted run (Ctrl-C, SIGTERM, SIGHUP)
leaves what was there before, and no temporary file.

A run where more than half the records failed says so on stderr (with the most common
error), even with `--quiet`.

Exit status:
  0    the run finished (lines that could not be read are counted, not fatal, unless
       `--fail-on-error` or `--max-error-rate` says otherwise), also when the reader of
       stdout went away (`| head`);
  1    an input could not be read to its end (corrupt compressed data), or more records
       failed than `--fail-on-error` (none) or `--max-error-rate R` (a share, 0..1) allow
       (the output is written all the same);
  2    a usage problem (a missing input, an unknown format or output kind, a
       `--format json` option with another format, an output that is also an input,
       standard input named twice) or an output that cannot be written (a full disk, a
       closed stdout);
  128+N  ended by signal N: 130 on Ctrl-C (SIGINT), 143 on SIGTERM, 129 on SIGHUP, at
       once, also while waiting for a pipe or FIFO whose writer is idle.
"""

from __future__ import annotations

import argparse
import collections
import errno
import os
import queue
import signal
import stat
import struct
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any, NoReturn

from toolsift import formats

__all__ = ["main"]


FORMATS = formats.parser_classes()
"""`--format` name -> parser class, from the format registry, and `auto`."""
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


COLUMN_HELP = {
    "file": "the input file (with several inputs, a directory or a glob)",
    "record": "the line's number in its file, from 0 (blank lines counted)",
    "custom_id": "the batch envelope's custom_id (OpenAI Batch, Vertex, Gemini)",
    "format": "the format the response was read as",
    "call_index": "the call's position in its response",
    "id": "the call's id, where the provider gives one",
    "name": "the tool's name",
    "arguments": "the arguments, as JSON text (in JSONL, the object itself)",
    "raw_arguments": "the argument text, where it was not a JSON object",
    "error": "why the record could not be read (then its one row has no call)",
}
"""`extract --help`'s output columns (tests check they are `file` and `_bulk.COLUMNS`)."""

EXAMPLES = """\
examples:
  toolsift extract batch_output.jsonl -o calls.parquet
  toolsift extract logs/ --format openai --record-path response.body -o calls.csv
  zcat day.jsonl.gz | toolsift extract - --fail-on-error | head
"""


def _epilog() -> str:
    width = max(map(len, COLUMN_HELP))
    columns = "".join(f"  {name:<{width}}  {text}\n" for name, text in COLUMN_HELP.items())
    return (
        "exit status: 0 done; 1 an input not readable to its end, or more failed records\n"
        "than --fail-on-error or --max-error-rate allow; 2 a usage or output problem;\n"
        f"128+N ended by signal N (130: Ctrl-C)\n\n{EXAMPLES}\noutput columns (one row "
        f"per call; a record with no call and no error has none):\n{columns}"
    )


def _arguments() -> argparse.ArgumentParser:
    from toolsift import IMPLEMENTATION, __version__

    parser = _ArgumentParser(prog="toolsift", description="Normalize LLM tool calls, in bulk.")
    parser.add_argument(
        "--version", action="version", version=f"toolsift {__version__} ({IMPLEMENTATION})"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_ArgumentParser)
    extract = commands.add_parser(
        "extract",
        help="the tool calls of JSONL files as a table",
        description=(  # lines as written (RawDescriptionHelpFormatter: the epilog's table)
            "Write one row per tool call found in each line of the INPUT files (JSONL,\n"
            "plain, .gz or .zst; OpenAI Batch API, Vertex AI and Gemini API batch output\n"
            "are unwrapped on their own)."
        ),
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    extract.add_argument(
        "inputs",
        nargs="+",
        metavar="INPUT",
        help="JSONL files, directories (their .jsonl, .jsonl.gz and .jsonl.zst files) or "
        "globs; - for standard input",
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
        "(docs: Streaming) and each stream is one record (numbered in the order of its "
        "first line)",
    )
    extract.add_argument("--fail-on-error", action="store_true", help="exit 1 if any record failed")
    extract.add_argument(
        "--max-error-rate",
        type=_rate,
        metavar="R",
        help="exit 1 if more than this share of the records failed (0..1)",
    )
    extract.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    return parser


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


class Signalled(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread as Ctrl-C's KeyboardInterrupt is, so
    that a run ends the same way (its temporary output removed)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


ENDING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def _raise_signalled(signum: int, _frame: Any) -> None:
    raise Signalled(signum)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line: `argv` (default: `sys.argv[1:]`) run, its exit status returned.
    Run as the program (`argv` None), an interrupted run whose reading or writing
    threads are blocked (on a pipe whose writer or reader is idle) ends the process at
    once, rather than at the next byte."""
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for signum in ENDING_SIGNALS:
            previous[signum] = signal.signal(signum, _raise_signalled)
    try:
        return _main(argv)
    except KeyboardInterrupt as exc:  # raised outside `_main`'s own handling
        status = _interrupted(exc)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if argv is None and _threads_left():
        sys.stderr.flush()
        os._exit(status)  # the threads left are blocked in a read or a write
    return status


def _main(argv: Sequence[str] | None) -> int:
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
    except BrokenPipeError:
        _silence_stdout()
        return 0


def _interrupted(exc: KeyboardInterrupt) -> int:
    """One line on stderr; the exit status, 128 + the signal's number."""
    if isinstance(exc, Signalled):
        print(f"toolsift: stopped by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return 128 + exc.signum
    print("toolsift: interrupted", file=sys.stderr)
    return 128 + signal.SIGINT


def _threads_left() -> bool:
    main_thread = threading.main_thread()
    return any(t is not main_thread and not t.daemon for t in threading.enumerate())


def _broken_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError) or getattr(error, "errno", None) == errno.EPIPE


def _silence_stdout() -> None:
    if sys.stdout is None:  # closed when the program started (`>&-`): nothing buffered
        return
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


def _input_files(inputs: Sequence[str]) -> tuple[list[str], bool]:
    """The files the INPUTs name (directories and globs expanded, as `Files` expands
    them), and whether an INPUT was a directory or a glob."""
    from toolsift._paths import expand_local

    files: list[str] = []
    listed = False
    for given in inputs:
        if given == STDIN:
            files.append(given)
            continue
        try:
            found = expand_local([given])
        except FileNotFoundError as exc:
            raise UsageError(f"{exc.strerror}: {exc.filename}") from None
        listed = listed or found != [given]
        files += found
    return files, listed


STDIN_NAMES = frozenset((STDIN, "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"))
"""Names of standard input."""


def _check_inputs(inputs: Sequence[str]) -> dict[str, int]:
    """The size of every input file (0 when unknown). Refused: standard input named twice,
    or one pipe or FIFO named twice; two readers would share it, each taking pieces of
    the other's lines."""
    sizes = {}
    seen: dict[tuple[int, int], str] = {}
    stdin = [path for path in inputs if path in STDIN_NAMES]
    if len(stdin) > 1:
        raise UsageError(f"standard input is named twice ({', '.join(stdin)}); name it once")
    for path in inputs:
        if path == STDIN:
            try:
                status = os.fstat(0)
            except OSError:
                raise UsageError("cannot read standard input: it is closed") from None
            sizes[path] = 0  # unknown
        else:
            if not os.path.exists(path):
                raise UsageError(f"no such file: {path}")
            if os.path.isdir(path):
                raise UsageError(f"is a directory, not a file: {path}")
            if not os.access(path, os.R_OK):
                raise UsageError(f"cannot read {path}: permission denied")
            status = os.stat(path)
            sizes[path] = status.st_size if stat.S_ISREG(status.st_mode) else 0
        if not stat.S_ISREG(status.st_mode):
            key = (status.st_dev, status.st_ino)
            if key in seen:
                raise UsageError(
                    f"{seen[key]} and {path} are one pipe or FIFO; two readers would tear "
                    "its lines: name it once"
                )
            seen[key] = path
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
    """Refuse an output that is one of the inputs (the same file, also through a link, or
    the file standard input reads): writing it would destroy what is to be read. Without
    `-o`, stdout redirected to an input (`>> x.jsonl`) would be read while it grows."""
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
        if out is not None:
            same = os.path.samestat(out, os.fstat(0) if path == STDIN else os.stat(path))
        else:
            same = path != STDIN and os.path.realpath(output or "") == os.path.realpath(path)
        if same:
            raise UsageError(f"the output {name} is also an input ({path}); write it elsewhere")


def _extract(args: argparse.Namespace) -> int:
    options = _parser_options(args)
    for flag, given in (("--stream", args.stream), ("--stream-lines", args.stream_lines)):
        if given and args.format in ("json", "litert"):
            raise UsageError(f"{flag} reads the streams of a provider format, not {args.format}")
    if args.stream and args.stream_lines:
        raise UsageError("--stream and --stream-lines cannot be used together")
    if args.output is None and sys.stdout is None:  # started with stdout closed (`>&-`)
        raise OutputError(_STDOUT, OSError(errno.EBADF, os.strerror(errno.EBADF)))
    inputs, listed = _input_files(args.inputs)
    sizes = _check_inputs(inputs)
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
    _check_output_is_no_input(args.output, inputs)
    opened = ["/dev/stdin" if path == STDIN else path for path in inputs]
    started = time.perf_counter()
    bar = _bar(sum(sizes.values()), args.quiet)
    rows: Any
    if args.stream or args.stream_lines:
        if len(opened) > 1:
            flag = "--stream" if args.stream else "--stream-lines"
            raise UsageError(f"{flag} reads one input at a time (run it once per file)")
        try:
            rows = _StreamRows(parser._core, opened[0], args, _progress_into(bar))
        except OSError as exc:  # opened now: a file gone since it was checked
            if bar is not None:
                bar.close()
            raise UsageError(f"cannot read {inputs[0]}: {exc.strerror or exc}") from None
    else:
        # Several inputs are read in parallel (up to --threads files at once), in order.
        source = _bulk.Files(opened) if len(opened) > 1 or listed else opened[0]
        try:
            rows = _bulk.stream(
                parser._core,
                source,
                args.record_path,
                args.threads,
                _progress_into(bar),
                max_line_bytes=args.max_line_bytes,
                names=inputs,
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
    done = interrupted = False
    errors: collections.Counter[str] = collections.Counter()
    batches = iter(rows)
    try:
        try:
            for batch in batches:
                writer.put(batch)
                _count_errors(batch, errors)
        except OSError as exc:  # writing raises OutputError, never OSError
            path = rows.current or opened[0]
            message = str(exc).removeprefix(f"{path}: ")  # it may name the file already
            if output is None:  # the rows read before the fault go out on stdout
                writer.finish()
                done = True
            shown = inputs[opened.index(path)] if path in opened else path
            print(f"toolsift: error: cannot read {shown}: {message}", file=sys.stderr)
            return 1
        writer.finish()
        if output is not None:
            output.commit()
        done = True
    except KeyboardInterrupt:
        interrupted = True
        raise
    finally:
        _stop(batches, interrupted)
        if bar is not None:
            bar.close()
        if not done:
            writer.abort(wait=not interrupted)
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
    note = _no_calls_note(args.format, inputs, counts)
    if note is not None:  # finding nothing is said, even with --quiet
        print(f"toolsift: warning: {note}", file=sys.stderr)
    return _error_status(args, counts, errors)


def _stop(batches: Any, interrupted: bool) -> None:
    """Stop the reading threads (after a failure, or an interrupt). Interrupted, they
    are not waited for: one may be blocked in a read of a pipe whose writer is idle
    (the KeyboardInterrupt thrown in tells `Stream` so)."""
    if interrupted and hasattr(batches, "throw"):
        try:
            batches.throw(KeyboardInterrupt())
        except (KeyboardInterrupt, StopIteration):
            pass
        return
    close = getattr(batches, "close", None)
    if close is not None:
        close()


def _count_errors(batch: Any, errors: collections.Counter[str]) -> None:
    """Add the batch's errors (one row per failed record) to `errors`."""
    column = batch.column(batch.schema.get_field_index("error"))
    if column.null_count == len(column):
        return
    import pyarrow.compute as pc

    for item in pc.value_counts(column.drop_null()).to_pylist():
        errors[item["values"]] += item["counts"]


def _error_status(
    args: argparse.Namespace, counts: dict[str, int], errors: collections.Counter[str]
) -> int:
    """Say so when more than half the records failed (even with --quiet); 1 when more
    failed than --fail-on-error or --max-error-rate allow, else 0."""
    failed, records = counts["failed"], counts["records"]
    if not failed:
        return 0
    if failed * 2 > records:
        error, times = errors.most_common(1)[0] if errors else ("?", failed)
        print(
            f"toolsift: warning: {failed} of {records} records failed; the most common "
            f"error ({times} records): {error}",
            file=sys.stderr,
        )
    if args.fail_on_error:
        print(
            f"toolsift: error: {failed} of {records} records failed (--fail-on-error)",
            file=sys.stderr,
        )
        return 1
    if args.max_error_rate is not None and failed > args.max_error_rate * records:
        print(
            f"toolsift: error: {failed} of {records} records failed, more than "
            f"--max-error-rate {args.max_error_rate:g}",
            file=sys.stderr,
        )
        return 1
    return 0


STREAM_CHUNK_RECORDS = 4096
"""`--stream` / `--stream-lines`: records handed to the bulk path at once (memory holds
one such chunk, not the file)..."""

STREAM_CHUNK_BYTES = 32 << 20
"""... or fewer, when they hold this many bytes."""


class _StreamRows:
    """`--stream` / `--stream-lines`: the rows of the records made of the input's lines,
    read through the bulk path a chunk of records at a time, each numbered as given
    (`--stream`: its line's number; `--stream-lines`: its stream's, in the order of
    first lines). A line longer than `--max-line-bytes` is a failed record saying so.
    Has what the CLI reads of a `_bulk.Stream`: `schema`, `counts`, `current`."""

    def __init__(
        self, core: Any, path: str, args: argparse.Namespace, progress: Callable[..., None] | bool
    ) -> None:
        from toolsift import _bulk
        from toolsift._pure import bulk

        self.schema = _bulk.schema()
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
        rows = _bulk.stream(self._core, chunk, args.record_path, args.threads, False)
        for batch in rows:
            yield _renumbered(batch, first)
        for key, value in rows.counts.items():
            self.counts[key] = self.counts.get(key, 0) + value

    def _failed(self, number: int, error: str) -> Any:
        import pyarrow as pa

        from toolsift import _bulk

        for key in ("records", "failed"):
            self.counts[key] = self.counts.get(key, 0) + 1
        columns = [
            _int64s([number])
            if field.name == "record"
            else _bulk.repeated(error, 1)
            if field.name == "error"
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

    from toolsift._pure import bulk
    from toolsift._pure import formats as registry
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
                spec = registry.detect_or_none(response)
                if spec is not None:
                    seen[spec.name] += 1
                elif (event := registry.stream_detect(response)) is not None:
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
