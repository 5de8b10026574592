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

# The parts, and the names the CLI's module had before it was a package (tests and tools
# read them, and patch the parts).
from toolsift.cli import arguments as arguments
from toolsift.cli import errors as errors
from toolsift.cli import inputs as inputs
from toolsift.cli import run as run
from toolsift.cli import streams as streams
from toolsift.cli import writers as writers
from toolsift.cli.arguments import COLUMN_HELP as COLUMN_HELP
from toolsift.cli.arguments import FORMATS as FORMATS
from toolsift.cli.arguments import JSON_OPTIONS as JSON_OPTIONS
from toolsift.cli.run import main

__all__ = ["main"]

_arguments = arguments.build_parser
_parser_options = arguments.parser_options
_summary = run.summary
_JsonlWriter = writers.JsonlWriter
