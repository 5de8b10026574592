"""The inputs of a run: the files the INPUTs name, their checks, and what auto-detection
recognizes in them when a run found no call."""

from __future__ import annotations

import collections
import os
import stat
import sys
from collections.abc import Sequence

from toolsift.cli.errors import STDIN, UsageError


def input_files(inputs: Sequence[str]) -> tuple[list[str], bool]:
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


def check_inputs(inputs: Sequence[str]) -> dict[str, int]:
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


def check_output_is_no_input(output: str | None, inputs: Sequence[str]) -> None:
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


SAMPLE_RECORDS = 1000
"""Records looked at to tell what a file holds when its format found no calls."""


def no_calls_note(format: str, inputs: Sequence[str], counts: dict[str, int]) -> str | None:
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
