"""A run of `toolsift extract`: signals, exit statuses, reading, writing, the summary."""

from __future__ import annotations

import argparse
import collections
import errno
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from toolsift import _bulk, formats
from toolsift.cli.arguments import build_parser, output_kind, parser_class, parser_options
from toolsift.cli.errors import STDIN, STDOUT_NAME, OutputError, UsageError
from toolsift.cli.inputs import check_inputs, check_output_is_no_input, input_files, no_calls_note
from toolsift.cli.rows import (
    PYARROW_MISSING,
    PlainRows,
    count_defects,
    count_errors,
    count_violations,
    have_pyarrow,
    pure_reader,
)
from toolsift.cli.streams import StreamRows
from toolsift.cli.writers import Output, open_writer


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
        args = build_parser().parse_args(argv)
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


class _Run(NamedTuple):
    """What a run reads and writes, its arguments checked."""

    args: argparse.Namespace
    inputs: list[str]  # as named (`-` for standard input)
    opened: list[str]  # as opened (`/dev/stdin`)
    listed: bool  # an INPUT was a directory or a glob
    sizes: dict[str, int]
    kind: str  # the output's kind
    parser: Any
    checks: Any  # of --tools and --requests, read (None: neither given)


def _extract(args: argparse.Namespace) -> int:
    run = _checked(args)
    started = time.perf_counter()
    bar = progress_bar(sum(run.sizes.values()), args.quiet)
    try:
        rows = _rows(run, bar)
    except BaseException:
        if bar is not None:
            bar.close()
        raise
    errors: collections.Counter[str] = collections.Counter()
    defects: collections.Counter[str] = collections.Counter()
    violations: collections.Counter[tuple[str, str]] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    failed = _write(run, rows, bar, errors, defects, violations, kinds)
    if failed is not None:
        return failed
    counts = {
        key: rows.counts.get(key, 0)
        for key in ("records", "records_with_calls", "calls", "undecodable_arguments", "failed")
    }
    # The decompressed text read, where the backend counts it; else the files' size.
    text_bytes = rows.counts.get("text_bytes", sum(run.sizes.values()))
    seconds = time.perf_counter() - started
    if not args.quiet:
        if defects:
            print(defects_line(defects), file=sys.stderr)
        if kinds:
            print(failed_by_kind(kinds), file=sys.stderr)
        print(summary(counts, sum(run.sizes.values()), text_bytes, seconds), file=sys.stderr)
        if violations:
            print(violations_summary(violations), file=sys.stderr)
    note = no_calls_note(args.format, run.inputs, counts)
    if note is not None:  # finding nothing is said, even with --quiet
        print(f"toolsift: warning: {note}", file=sys.stderr)
    return _error_status(args, counts, errors)


def _checked(args: argparse.Namespace) -> _Run:
    """The run's arguments checked (a UsageError or OutputError for what is wrong), its
    inputs found and its parser made, before anything is read."""
    options = parser_options(args)
    for flag, given in (("--stream", args.stream), ("--stream-lines", args.stream_lines)):
        if given and (args.format in ("json", "litert") or args.format in formats.DIALECT_NAMES):
            raise UsageError(f"{flag} reads the streams of a provider format, not {args.format}")
    if args.stream and args.stream_lines:
        raise UsageError("--stream and --stream-lines cannot be used together")
    if args.output is None and sys.stdout is None:  # started with stdout closed (`>&-`)
        raise OutputError(STDOUT_NAME, OSError(errno.EBADF, os.strerror(errno.EBADF)))
    inputs, listed = input_files(args.inputs)
    sizes = check_inputs(inputs)
    cls = parser_class(args.format)
    kind = output_kind(args.output)
    if kind == ".parquet" and not have_pyarrow():
        raise UsageError(PYARROW_MISSING)
    try:  # checked now, so that an error while reading is always about the input
        _bulk.record_path_keys(args.record_path)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from None
    parser = cls(**options)
    checks = None
    if args.requests is not None or parser._tools is not None:
        # With rows made without pyarrow, the pure backend reads (`cli.rows`): its checks.
        backend = parser._backend if have_pyarrow() else _pure_backend()
        try:
            checks = _bulk.checks(backend, parser._tools, args.requests)
        except (OSError, ValueError) as exc:
            raise UsageError(f"--requests {args.requests}: {exc}") from None
    check_output_is_no_input(args.output, inputs)
    if args.rows == "records" or args.keep:
        _check_arrow_rows(args, kind)
    if (args.stream or args.stream_lines) and len(inputs) > 1:
        flag = "--stream" if args.stream else "--stream-lines"
        raise UsageError(f"{flag} reads one input at a time (run it once per file)")
    opened = ["/dev/stdin" if path == STDIN else path for path in inputs]
    return _Run(args, inputs, opened, listed, sizes, kind, parser, checks)


def _pure_backend() -> Any:
    from toolsift._backend import load

    return load("python")


def _check_arrow_rows(args: argparse.Namespace, kind: str) -> None:
    """`--rows records` and `--keep` are made by the Arrow path (`_bulk.stream`);
    `--rows records` is written to JSONL or Parquet."""
    option = "--rows records" if args.rows == "records" else "--keep"
    if args.stream or args.stream_lines:
        flag = "--stream" if args.stream else "--stream-lines"
        raise UsageError(f"{option} cannot be used with {flag}")
    if kind == ".csv" and args.rows == "records":
        raise UsageError("--rows records writes JSONL or Parquet (CSV has no list column)")
    if not have_pyarrow():
        raise UsageError(f"{option} needs pyarrow: pip install 'toolsift[cli]'")


def _rows(run: _Run, bar: Any) -> Any:
    """The rows of the inputs (with what the CLI reads of a `_bulk.BatchStream`): Arrow record
    batches, or, without pyarrow, `PlainBatch`es. An input gone since it was checked is
    a UsageError."""
    args, opened = run.args, run.opened
    # Without pyarrow, the pure backend reads the rows (`cli.rows`).
    plain = None if have_pyarrow() else pure_reader(run.parser)
    try:
        if args.stream or args.stream_lines:
            return StreamRows(run.parser._core, opened[0], args, progress_into(bar), plain)
        several = len(opened) > 1 or run.listed
        if plain is not None:
            names = run.inputs if several else None
            return PlainRows(
                plain,
                opened,
                names,
                args.record_path,
                args.threads,
                progress_into(bar),
                args.max_line_bytes,
                run.checks,
            )
        # Several inputs are read in parallel (up to --threads files at once), in order.
        carry = _bulk.carry_names(args.keep)
        read = _bulk.stream(
            run.parser._core,
            _bulk.Files(opened) if several else opened[0],
            args.record_path,
            args.threads,
            progress_into(bar),
            max_line_bytes=args.max_line_bytes,
            names=run.inputs,
            checks=run.checks,
            rows=args.rows,
            carry=carry,
        )
        return _bulk.FirstBatchTyped(read, carry) if carry else read
    except OSError as exc:
        name = run.inputs[0] if args.stream or args.stream_lines else exc.filename or exc
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None


def _write(
    run: _Run,
    rows: Any,
    bar: Any,
    errors: collections.Counter[str],
    defects: collections.Counter[str],
    violations: collections.Counter[tuple[str, str]],
    kinds: collections.Counter[str],
) -> int | None:
    """Write the rows (counting their errors into `errors`, their kinds into `kinds`,
    their argument defects into `defects`, their violations into `violations`); the exit
    status when an input could not be read to its end (1), else None."""
    output = None if run.args.output is None else Output(run.args.output)
    try:
        writer = open_writer(run.kind, output, rows.schema)
    except BaseException:
        if output is not None:
            output.discard()
        if bar is not None:
            bar.close()
        raise
    done = interrupted = False
    batches = iter(rows)
    try:
        try:
            for batch in batches:
                writer.put(batch)
                count_errors(batch, errors, kinds)
                count_defects(batch, defects)
                count_violations(batch, violations)
        except OSError as exc:  # writing raises OutputError, never OSError
            if output is None:  # the rows read before the fault go out on stdout
                writer.finish()
                done = True
            _cannot_read(run, rows.current or run.opened[0], exc)
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
    return None


def _cannot_read(run: _Run, path: str, exc: OSError) -> None:
    message = str(exc).removeprefix(f"{path}: ")  # it may name the file already
    shown = run.inputs[run.opened.index(path)] if path in run.opened else path
    print(f"toolsift: error: cannot read {shown}: {message}", file=sys.stderr)


def _stop(batches: Any, interrupted: bool) -> None:
    """Stop the reading threads (after a failure, or an interrupt). Interrupted, they
    are not waited for: one may be blocked in a read of a pipe whose writer is idle
    (the KeyboardInterrupt thrown in tells `BatchStream` so)."""
    if interrupted and hasattr(batches, "throw"):
        try:
            batches.throw(KeyboardInterrupt())
        except (KeyboardInterrupt, StopIteration):
            pass
        return
    close = getattr(batches, "close", None)
    if close is not None:
        close()


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


def defects_line(defects: collections.Counter[str]) -> str:
    """The line before the summary where arguments did not decode: their defects by code
    (README: Argument defects), the most frequent first."""
    counted = ", ".join(f"{count} {code}" for code, count in defects.most_common())
    return f"toolsift: argument defects: {counted}"


def summary(counts: dict[str, int], file_bytes: int, text_bytes: int, seconds: float) -> str:
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


def violations_summary(violations: collections.Counter[tuple[str, str]]) -> str:
    """The counts of violations by violation and tool, most first."""
    counts = ", ".join(
        f"{code} {tool}: {count}"
        for (code, tool), count in sorted(violations.items(), key=lambda item: (-item[1], item[0]))
    )
    return f"toolsift: {sum(violations.values())} violations (by violation and tool): {counts}"


def failed_by_kind(kinds: collections.Counter[str]) -> str:
    """The line before the summary where records failed: how many of each `error_kind`,
    most first (`toolsift: failed records by kind: json 3, provider 1`)."""
    counted = ", ".join(f"{kind} {count}" for kind, count in kinds.most_common())
    return f"toolsift: failed records by kind: {counted}"


def progress_bar(total: int, quiet: bool) -> Any:
    """A tqdm bar on stderr, when it is a terminal (and tqdm is installed)."""
    if quiet or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, desc="extract")


def progress_into(bar: Any) -> Callable[[int, int | None], None] | bool:
    if bar is None:
        return False
    last = [0]

    def update(done: int, _total: int | None) -> None:
        bar.update(done - last[0])
        last[0] = done

    return update
