"""`toolsift extract`'s command line: its options, their checks, and `--help`."""

from __future__ import annotations

import argparse
import os
from typing import Any, NoReturn

from toolsift import formats
from toolsift.cli.errors import UsageError

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


class ArgumentParser(argparse.ArgumentParser):
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
    "defect": "why raw_arguments did not decode (a code: README, Argument defects)",
    "repairs": "the audited repairs made (--repair safe); in CSV, JSON text",
    "violations": "how the call fails its declared tools (--tools, --requests); [] if it fits",
    "model": "the model the response names (OpenAI `model`, Gemini `modelVersion`, ...)",
    "response_id": "the response's id (OpenAI/Anthropic `id`, Gemini `responseId`, ...)",
    "finish_reason": "why the model stopped, as the provider spells it (stop, tool_calls, ...)",
    "choice_index": "the index of the choice (candidate) the call is in",
    "call_type": "function, custom (free-text input), or the raw-text dialect's name",
    "error_kind": "what kind of failure: json, shape, record_path, provider, stream, line_too_long",
    "http_status": "the HTTP status of a provider's failure, where there is one",
    "turn": "a transcript's call: the index of the message that made it",
    "result": "a transcript's call: its tool's result (text, or JSON text)",
    "result_error": "a transcript's call: whether its result says it failed",
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


def build_parser() -> argparse.ArgumentParser:
    from toolsift import IMPLEMENTATION, __version__

    parser = ArgumentParser(prog="toolsift", description="Normalize LLM tool calls, in bulk.")
    parser.add_argument(
        "--version", action="version", version=f"toolsift {__version__} ({IMPLEMENTATION})"
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
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
    _what_to_read(extract)
    _how_to_run(extract)
    return parser


def _what_to_read(extract: argparse.ArgumentParser) -> None:
    """`extract`'s inputs and where the calls are in them."""
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
        help="the responses' provider format, or the raw-text dialect of open models' "
        "output text (default: auto, each line recognized on its own)",
    )
    extract.add_argument(
        "--tools",
        metavar="FILE",
        help="a JSON list of the request's tool definitions (OpenAI-style), for a raw-text "
        "dialect: the values XML-style dialects write as text are typed by their schema",
    )
    extract.add_argument(
        "--record-path",
        metavar="P",
        help='dot path to the response inside each line (e.g. "response.body"); '
        "default: unwrap known batch envelopes",
    )
    extract.add_argument(
        "--text-dialect",
        metavar="NAME",
        choices=(*formats.DIALECT_NAMES, formats.AUTO),
        help="read tool calls the assistant text of provider responses holds as raw text "
        "(a server without a tool-call parser), in this dialect (auto: by its markers), "
        "where a message has no structured call; with --tools, values typed by schema",
    )
    extract.add_argument(
        "--repair",
        choices=("safe",),
        help="safe: make the audited repairs of argument text that did not decode "
        "(README: Argument defects); the original text stays in raw_arguments",
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


def _how_to_run(extract: argparse.ArgumentParser) -> None:
    """`extract`'s output, threads, limits, stream modes and exit conditions."""
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
    extract.add_argument(
        "--requests",
        metavar="FILE",
        help="the batch input file or a request log (JSONL), joined to each record by "
        "custom_id / recordId / key: each call is checked against its request's tools "
        "(the violations column; the summary counts them by violation and tool)",
    )
    extract.add_argument(
        "--rows",
        choices=("calls", "records"),
        default="calls",
        help="one row per call (default), or per record: the record's columns, `calls` "
        "(how many) and `tool_calls` (a list of the calls' columns); JSONL or Parquet",
    )
    extract.add_argument(
        "--keep",
        metavar="PATHS",
        type=_paths,
        help="fields of each line to keep as columns, by dot path, comma-separated (e.g. "
        "request_id,meta.user): typed where every line agrees, else JSON text",
    )


def _paths(text: str) -> list[str]:
    from toolsift import _bulk

    paths = text.split(",")
    try:
        _bulk.carry_names(paths)
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return paths


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


def parser_class(name: str) -> Any:
    from toolsift import parsers

    cls = getattr(parsers, FORMATS[name], None)
    if cls is None:
        raise UsageError(f"format {name!r} is not available in this build of toolsift")
    return cls


def parser_options(args: argparse.Namespace) -> dict[str, Any]:
    """The JsonResponseParser keywords given on the command line (only those), or a
    raw-text dialect's (`RawTextParser(dialect, tools)`, the tools file read here, once),
    or `text_dialect` and `tools` for a provider format's (or auto's) parser; and `repair`."""
    repair = {} if args.repair is None else {"repair": args.repair}
    if args.text_dialect is not None and args.format not in _TEXT_DIALECT_FORMATS:
        raise UsageError(f"--text-dialect reads provider responses (got --format {args.format})")
    if args.format in formats.DIALECT_NAMES:
        return {"dialect": args.format, "tools": _tools(args.tools), **repair}
    if args.tools is not None and args.text_dialect is None:
        raise UsageError(
            f"--tools can only be used with a raw-text dialect or --text-dialect "
            f"(got --format {args.format})"
        )
    given = {key: getattr(args, key) for key in JSON_OPTIONS if getattr(args, key) is not None}
    if given and args.format != "json":
        flags = ", ".join(JSON_OPTIONS[key] for key in given)
        raise UsageError(
            f"{flags} can only be used with --format json (got --format {args.format})"
        )
    if args.text_dialect is not None:
        return {"text_dialect": args.text_dialect, "tools": _tools(args.tools), **repair}
    return {**given, **repair}


_TEXT_DIALECT_FORMATS = (*formats.WALKED, formats.AUTO)
"""The formats whose parser classes take `text_dialect` (the provider formats, auto)."""


def _tools(path: str | None) -> list[Any] | None:
    """The tool definitions in the `--tools` file (a JSON list), or a UsageError."""
    if path is None:
        return None
    import json

    try:
        with open(path, encoding="utf-8") as file:
            tools = json.load(file)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"--tools {path}: cannot read a JSON list of tools: {exc}") from None
    if not isinstance(tools, list):
        raise UsageError(f"--tools {path}: expected a JSON list of tool definitions")
    return tools


def output_kind(output: str | None) -> str:
    if output is None:
        return ".jsonl"
    kind = os.path.splitext(output)[1].lower()
    if kind not in OUTPUTS:
        raise UsageError(
            f"cannot tell the output's kind from {output!r}; "
            f"its name must end in one of: {', '.join(OUTPUTS)}"
        )
    return kind
