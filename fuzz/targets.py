"""Differential fuzz targets: the Rust backend and the pure-Python backend on the same
input must give the same result, or raise the same exception (type and message).

Each target is `def target(data: bytes) -> None` and raises `Difference` (an
AssertionError) when the backends differ; atheris (`fuzz/run.py`) and pytest
(`tests/test_fuzz_regressions.py`, `tests/test_fuzz_hypothesis.py`) call the same
functions. Results are compared with the test suite's `same()` (equal, and of the same
types all the way down): an AgentResponse by whether `raw` is the input itself, `error`,
and each call's `model_dump()` (name, arguments, id, raw_arguments), `defect` and
`repairs`; a table by its
schema and `to_pylist()`.

Targets (`TARGETS`):

* `parse`: the input is response text; every parser class (`PARSERS`: OpenAI, Gemini,
  JsonResponseParser with several option sets, SdkResponseParser, the second-wave
  formats, AutoResponseParser) parses it as bytes,
  str (invalid UTF-8 as lone surrogates, and replaced) and bytearray, and, when stdlib
  json decodes it, the decoded value.
* `parse_structured`: a response of a provider's shape (or a mutated seed document)
  built from the input bytes, written as JSON text in a random style, maybe edited,
  then parsed by every parser as text, as the decoded dicts and as SDK-like objects.
* `parse_many`: a list of mixed records (str, bytes, blank, invalid, dicts, SDK-like
  objects, bytearray, memoryview, None) as a list, tuple or iterator, threads 1 and 2.
* `to_arrow`: records in memory (lists of bytes / str / mixed items, tuples, iterators,
  pyarrow arrays) or in a small file (plain, gzip, zstd) with a `record_path` variant;
  `to_arrow` with threads 1 and 2, and `parse_file` for files.
* `litert`: `SdkResponseParser.extract_tool_calls`, `clean_raw_for_history` and `parse`
  on LiteRT-LM text (raw bytes, or Gemma 4 tokens and JSON built from the input).
* `repair`: the input as the argument text of an OpenAI call, read with and without
  `repair="safe"` by `parse` and `to_arrow` (the defect, the repair, or none).
* `streams`: `parser.stream()` fed a provider's events (`gen.stream_events`) as dicts or
  objects, as JSON text (whole, or NDJSON and arrays cut anywhere), or as SSE chunks cut
  anywhere; every `feed`, `partial` and `finish` result (or exception) must agree, and
  `parse` of the events as one response.

The first byte of a `parse_many`, `to_arrow` or `litert` input chooses: odd, the case is
built from the rest (structure-aware); even, the rest is raw text (JSON lines for
`parse_many` and `to_arrow`, after a byte of options).

Known differences (fuzz/known.py) are tolerated unless TOOLSIFT_FUZZ_STRICT=1.
"""

from __future__ import annotations

import atexit
import base64
import functools
import gzip
import json
import operator
import shutil
import sys
import tempfile
import types
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "tests") not in sys.path:  # conftest: same() and bind()
    sys.path.insert(0, str(ROOT / "tests"))

from conftest import bind, same  # noqa: E402
from toolsift import AgentResponse, ToolCall, _backend, formats, parsers  # noqa: E402

from fuzz import gen, known  # noqa: E402
from fuzz.source import ByteSource, Source  # noqa: E402

RUST = _backend.load("rust")  # ImportError when the extension is not built
PYTHON = _backend.load("python")
BACKENDS = (("rust", RUST), ("python", PYTHON))


class Difference(AssertionError):
    """The two backends disagree on an input."""


# --------------------------------------------------------------------------- parsers


@dataclass(frozen=True)
class ParserSpec:
    label: str
    cls: str
    options: tuple[tuple[str, Any], ...] = ()
    kind: str = "openai"  # which generator in fuzz/gen.py makes its responses

    def make(self, backend: types.ModuleType) -> Any:
        return _parser(self, backend)

    def bound(self, backend: types.ModuleType) -> type:
        return _bound(self.cls, backend)


@functools.cache
def _bound(cls: str, backend: types.ModuleType) -> type:
    return bind(getattr(parsers, cls), backend)


@functools.cache
def _parser(spec: ParserSpec, backend: types.ModuleType) -> Any:
    return _bound(spec.cls, backend)(**dict(spec.options))


PARSERS = [
    ParserSpec("openai", "OpenAIResponseParser", (), "openai"),
    ParserSpec("gemini", "GeminiResponseParser", (), "gemini"),
    ParserSpec("gemini-interactions", "GeminiInteractionsParser", (), "gemini-interactions"),
    ParserSpec("json", "JsonResponseParser", (), "json"),
    ParserSpec(
        "json(result.calls, fn, params)",
        "JsonResponseParser",
        (("tool_calls_key", "result.calls"), ("name_key", "fn"), ("arguments_key", "params")),
        "json",
    ),
    ParserSpec(
        "json(toolCall, single)",
        "JsonResponseParser",
        (("tool_calls_key", "toolCall"), ("single", True)),
        "json",
    ),
    ParserSpec("json(a.b)", "JsonResponseParser", (("tool_calls_key", "a.b"),), "json"),
    ParserSpec("sdk", "SdkResponseParser", (), "sdk"),
    # The second-wave formats: an event of their stream given alone, or any response.
    ParserSpec("openai-responses", "OpenAIResponsesParser", (), "event"),
    ParserSpec("anthropic", "AnthropicResponseParser", (), "event"),
    ParserSpec("bedrock", "BedrockConverseParser", (), "event"),
    ParserSpec("cohere", "CohereResponseParser", (), "event"),
    # Conversation transcripts, their turns of raw text read as Hermes or not at all.
    ParserSpec("messages", "MessagesParser", (), "messages"),
    ParserSpec("messages(hermes)", "MessagesParser", (("text_dialect", "hermes"),), "messages"),
    # Auto: any response, or an event given alone (read as a stream of that one event).
    ParserSpec("auto", "AutoResponseParser", (), "event"),
]

# --------------------------------------------------------------------------- comparing

Outcome = tuple[Any, ...]  # ("ok", view) or ("raise", exception type, message)

_CURRENT: list[Any] = ["", b""]  # the target and input being run
TOLERATED: Counter[str] = Counter()  # known differences seen, by issue
TOLERATED_INPUTS: dict[str, tuple[str, bytes]] = {}  # the first input of each issue


def show(value: Any, limit: int = 800) -> str:
    """repr() for reports: cut in the middle when long; integers of any size."""
    try:
        text = repr(value)
    except ValueError:  # an integer beyond the int/str digit limit
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            text = repr(value)
        finally:
            sys.set_int_max_str_digits(old)
    if len(text) > limit:
        text = f"{text[: limit // 2]} ...({len(text)} chars)... {text[-limit // 2 :]}"
    return text


def outcome(call: Callable[[], Any], view: Callable[[Any], Any]) -> Outcome:
    try:
        return ("ok", view(call()))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic is a BaseException
        return ("raise", type(exc), str(exc))


def agree(a: Outcome, b: Outcome) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "raise":
        return a[1] is b[1] and a[2] == b[2]
    return same(a[1], b[1])


def _describe(got: Outcome) -> str:
    if got[0] == "raise":
        return f"raised {got[1].__module__}.{got[1].__qualname__}: {show(got[2])}"
    return f"gave {show(got[1], 3000)}"


def differential(
    what: str,
    call: Callable[[str, types.ModuleType], Any],
    view: Callable[[Any], Any],
    about: Any,
    inputs: Iterable[Any] = (),
    record_path: Any = None,
) -> None:
    """`call(label, backend)` on both backends, viewed by `view`, must agree. `about`
    describes the input; `inputs` and `record_path` are checked for the features of
    known differences."""
    (_, rust), (_, python) = (
        (label, outcome(lambda b=b, label=label: call(label, b), view)) for label, b in BACKENDS
    )
    if not agree(rust, python):
        # Features of fixed issues are still named in the failure note, not tolerated.
        issues = known.features(inputs, record_path, what)
        open_issues = issues & known.ISSUES.keys()
        if open_issues and not known.STRICT:
            for issue in sorted(open_issues):
                TOLERATED[issue] += 1
            if len(open_issues) == 1:  # an input that shows this issue alone
                TOLERATED_INPUTS.setdefault(open_issues.pop(), (_CURRENT[0], _CURRENT[1]))
            return
        note = f"\n  known issue(s): {', '.join(sorted(issues))}" if issues else ""
        raise Difference(
            f"{what}: the backends differ\n  input: {show(about, 3000)}\n"
            f"  rust: {_describe(rust)}\n  python: {_describe(python)}{note}"
        )


def call_dicts(calls: Any) -> Any:
    """A list of ToolCalls as a list of model_dump() dicts, with each call's `defect` and
    `repairs` (anything else as is, typed)."""
    if type(calls) is not list:
        return ["not a list", type(calls).__name__]
    out = []
    for call in calls:
        if type(call) is not ToolCall:
            out.append(["not a ToolCall", type(call).__name__])
        else:
            out.append({**call.model_dump(), "defect": call.defect, "repairs": call.repairs})
    return out


def response_view(response: Any, raw: Any, identical: bool = True) -> Any:
    """[raw is the input (or equal to it), error, calls] of an AgentResponse."""
    if type(response) is not AgentResponse:
        return ["not an AgentResponse", type(response).__name__]
    raw_ok = response.raw is raw if identical else same(response.raw, raw)
    return [raw_ok, response.error, call_dicts(response.tool_calls)]


# --------------------------------------------------------------------------- targets

TARGETS: dict[str, Callable[[bytes], None]] = {}


def target(name: str) -> Callable[[Callable[[bytes], None]], Callable[[bytes], None]]:
    def register(fn: Callable[[bytes], None]) -> Callable[[bytes], None]:
        @functools.wraps(fn)
        def run(data: bytes) -> None:
            _CURRENT[:] = [name, bytes(data)]
            fn(bytes(data))

        TARGETS[name] = run
        return run

    return register


_INVALID = object()


def stdlib_loads(text: str | bytes) -> Any:
    """The value stdlib json decodes (lone surrogates, 1e400 and all), or _INVALID."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError, TypeError):
        return _INVALID


def check_parse(spec: ParserSpec, raw: Any, form: str, inputs: list[Any]) -> None:
    differential(
        f"{spec.label}.parse({form})",
        lambda _, backend: spec.make(backend).parse(raw),
        lambda response: response_view(response, raw),
        raw,
        inputs,
    )


def text_forms(data: bytes) -> list[tuple[str, Any]]:
    """bytes, str (invalid UTF-8 as lone surrogates, and as U+FFFD), bytearray."""
    forms: list[tuple[str, Any]] = [("bytes", data)]
    try:
        forms.append(("str", data.decode("utf-8")))
    except UnicodeDecodeError:
        forms.append(("str with lone surrogates", data.decode("utf-8", "surrogateescape")))
        forms.append(("str", data.decode("utf-8", "replace")))
    forms.append(("bytearray", bytearray(data)))
    return forms


@target("parse")
def parse_text(data: bytes) -> None:
    """Raw bytes as response text, through every parser in every form."""
    forms = text_forms(data)
    decoded = stdlib_loads(data)
    if decoded is not _INVALID:
        forms.append(("decoded", decoded))
    for spec in PARSERS:
        for form, raw in forms:
            check_parse(spec, raw, form, [data])


@dataclass
class ParseCase:
    texts: list[bytes] = field(default_factory=list)
    objects: list[Any] = field(default_factory=list)


def build_parse_case(src: Source) -> ParseCase:
    """A response of a provider's shape, or a mutated seed, as text and as objects."""
    how = src.int(0, 5)
    if how <= 2:
        tree = gen.response(src)
    elif how <= 4:
        tree = gen.mutated_seed(src)
    else:
        tree = gen.value(src)
    text = gen.Writer(src).write(tree).encode("utf-8", "surrogatepass")
    case = ParseCase([text])
    if src.one_in(4):
        case.texts.append(gen.edit_text(src, text))
    decoded = stdlib_loads(text)
    if decoded is not _INVALID:
        case.objects.append(decoded)
        case.objects.append(gen.objects(src, decoded, by_attribute=True))
    return case


def check_parse_case(case: ParseCase) -> None:
    for spec in PARSERS:
        for text in case.texts:
            for form, raw in text_forms(text):
                check_parse(spec, raw, form, [text])
        for item in case.objects:
            check_parse(spec, item, type(item).__name__, [item, *case.texts])


@target("parse_structured")
def parse_structured(data: bytes) -> None:
    check_parse_case(build_parse_case(ByteSource(data)))


# ------------------------------------------------------------------ parse_many


class _Released:
    """A released memoryview, made anew for each backend."""


@dataclass
class ManyCase:
    spec: ParserSpec
    records: list[Any]
    container: str = "list"  # list, tuple or iter


def _record(src: Source, spec: ParserSpec) -> Any:
    kind = src.int(0, 14)
    if kind <= 4:
        tree = gen.response(src, spec.kind if src.bool() else None)
        text = gen.Writer(src, single_line=src.bool()).write(tree).encode("utf-8", "surrogatepass")
        if src.one_in(5):
            text = gen.edit_text(src, text)
        if kind <= 2:
            return text
        return text.decode("utf-8", "surrogateescape") if kind == 3 else bytearray(text)
    if kind == 5:
        return src.pick([b"", "", b"  \t\r\n", " ", "\n", b"\r"])
    if kind == 6:
        return src.bytes(10)
    if kind <= 8:
        tree = gen.response(src, spec.kind)
        decoded = stdlib_loads(gen.Writer(src).write(tree))
        if decoded is _INVALID:
            return None
        return gen.objects(src, decoded, by_attribute=kind == 8)
    if kind == 9:
        return memoryview(
            gen.Writer(src).write(gen.response(src, spec.kind)).encode("utf-8", "surrogatepass")
        )
    if kind == 10:
        return src.pick([None, 42, 1.5, True, [], (), [{"name": "f"}], object()])
    if kind == 11:
        return _Released() if src.one_in(30) else memoryview(b'{"tool_calls": []}')
    if kind == 12:
        return gen.text(src, 6)
    return gen.litert_text(src).encode("utf-8", "surrogatepass")


def build_many_case(src: Source) -> ManyCase:
    spec = src.pick(PARSERS)
    records = [_record(src, spec) for _ in range(src.int(0, 12))]
    return ManyCase(spec, records, src.pick(["list", "list", "tuple", "iter"]))


def _materialize(records: list[Any]) -> list[Any]:
    """The records for one run: a released memoryview made anew."""
    out = []
    for record in records:
        if isinstance(record, _Released):
            view = memoryview(b'{"tool_calls": [{"name": "f"}]}')
            view.release()
            out.append(view)
        else:
            out.append(record)
    return out


def check_many_case(case: ManyCase) -> None:
    about = [case.spec.label, case.container, case.records]
    for threads in (1, 2):
        differential(
            f"{case.spec.label}.parse_many({case.container}, threads={threads})",
            functools.partial(_parse_many, case, threads),
            _many_view,
            about,
            _materialize(case.records),
        )


def _parse_many(case: ManyCase, threads: int, label: str, backend: types.ModuleType) -> Any:
    records = _materialize(case.records)
    raws: Iterable[Any] = records
    if case.container == "tuple":
        raws = tuple(records)
    elif case.container == "iter":
        raws = iter(records)
    return records, case.spec.make(backend).parse_many(raws, threads=threads)


def _many_view(result: Any) -> Any:
    records, responses = result
    if type(responses) is not list or len(responses) != len(records):
        return ["not a list of len(records)", type(responses).__name__]
    return [response_view(r, raw) for r, raw in zip(responses, records, strict=True)]


@target("parse_many")
def parse_many(data: bytes) -> None:
    src = ByteSource(data)
    if src.byte() & 1:
        case = build_many_case(src)
    else:
        spec = PARSERS[src.byte() % len(PARSERS)]
        as_str = src.byte()
        lines = src.rest().split(b"\n")
        records: list[Any] = [
            line.decode("utf-8", "surrogateescape") if as_str >> (i % 8) & 1 else line
            for i, line in enumerate(lines)
        ]
        case = ManyCase(spec, records)
    check_many_case(case)


# ------------------------------------------------------------------ to_arrow / parse_file

RECORD_PATHS: list[Any] = [
    None,
    None,
    None,
    None,
    "response.body",
    "response",
    "a.b",
    "a",
    "choices",
    "tool_calls",
    "a..b",
    "",
    "a.\ud800",  # a known difference (fuzz/known.py): the structure-aware mode draws it rarely
]
SOURCES = [
    "list-bytes",
    "list-str",
    "mixed",
    "tuple",
    "iter",
    "pa-binary",
    "pa-string",
    "pa-chunked",
    "file",
    "file-gz",
    "file-zst",
]


@dataclass
class ArrowCase:
    spec: ParserSpec
    lines: list[bytes]
    source: str = "list-bytes"
    record_path: Any = None
    newline: bytes = b"\n"
    final_newline: bool = False
    forms: list[int] = field(default_factory=list)  # for "mixed": a form per line


_tmpdir: list[str] = []


def _scratch() -> Path:
    """This process's directory for the target's files (removed at exit)."""
    if not _tmpdir:
        _tmpdir.append(tempfile.mkdtemp(prefix="toolsift-fuzz-"))
        atexit.register(shutil.rmtree, _tmpdir[0], True)
    return Path(_tmpdir[0])


def cleanup() -> None:
    if _tmpdir:
        shutil.rmtree(_tmpdir[0], ignore_errors=True)


def build_arrow_case(src: Source) -> ArrowCase:
    spec = src.pick(PARSERS)
    lines = [gen.record_line(src, spec.kind) for _ in range(src.int(0, 10))]
    record_path = src.pick(RECORD_PATHS[:-1]) if not src.one_in(12) else gen.text(src, 4)
    if src.one_in(60):
        record_path = RECORD_PATHS[-1]
    case = ArrowCase(spec, lines, src.pick(SOURCES), record_path)
    case.newline = src.pick([b"\n", b"\n", b"\r\n"])
    case.final_newline = src.bool()
    case.forms = [src.int(0, 9) for _ in lines]
    return case


def _mixed(line: bytes, form: int) -> Any:
    if form <= 3:
        return line
    if form <= 5:
        return line.decode("utf-8", "surrogateescape")
    if form == 6:
        return bytearray(line)
    if form == 7:
        return memoryview(line)
    if form == 8:
        decoded = stdlib_loads(line)
        return None if decoded is _INVALID else decoded
    return None


def _file_data(case: ArrowCase) -> bytes:
    data = case.newline.join(case.lines) + (case.newline if case.final_newline else b"")
    if case.source == "file-gz":
        half = len(data) // 2
        return gzip.compress(data[:half], mtime=0) + gzip.compress(data[half:], mtime=0)
    if case.source == "file-zst":
        import zstandard

        cctx = zstandard.ZstdCompressor()
        half = len(data) // 2
        return cctx.compress(data[:half]) + cctx.compress(data[half:])
    return data


def arrow_source(case: ArrowCase) -> Callable[[], Any]:
    """A maker of the to_arrow source (called once per run: iterators are used up)."""
    lines = case.lines
    if case.source == "list-bytes":
        return lambda: lines
    if case.source == "list-str":
        texts = [line.decode("utf-8", "surrogateescape") for line in lines]
        return lambda: texts
    if case.source == "mixed":
        forms = case.forms or [0] * len(lines)
        items = [_mixed(line, form) for line, form in zip(lines, forms, strict=False)]
        return lambda: items
    if case.source == "tuple":
        return lambda: tuple(lines)
    if case.source == "iter":
        return lambda: iter(lines)
    import pyarrow as pa

    if case.source == "pa-binary":
        return lambda: pa.array(lines, pa.binary())
    if case.source == "pa-string":
        texts = [line.decode("utf-8", "replace") for line in lines]
        return lambda: pa.array(texts, pa.large_string())
    if case.source == "pa-chunked":
        half = len(lines) // 2
        return lambda: pa.chunked_array(
            [pa.array(lines[:half]), pa.array(lines[half:])], pa.binary()
        )
    path = _scratch() / {"file": "records.jsonl", "file-gz": "records.jsonl.gz"}.get(
        case.source, "records.jsonl.zst"
    )
    path.write_bytes(_file_data(case))
    return lambda: str(path)


def table_view(table: Any) -> Any:
    return [table.num_rows, str(table.schema), table.to_pylist()]


def check_arrow_case(case: ArrowCase) -> None:
    make_source = arrow_source(case)
    about = [case.spec.label, case.source, case.record_path, case.lines]
    inputs = [*case.lines]
    for threads in (1, 2):

        def to_arrow(label: str, backend: types.ModuleType, threads: int = threads) -> Any:
            return case.spec.make(backend).to_arrow(
                make_source(), record_path=case.record_path, threads=threads
            )

        differential(
            f"{case.spec.label}.to_arrow({case.source}, record_path={case.record_path!r}, "
            f"threads={threads})",
            to_arrow,
            table_view,
            about,
            inputs,
            case.record_path,
        )
    if not case.source.startswith("file"):
        return
    for threads in (1, 2):

        def parse_file(label: str, backend: types.ModuleType, threads: int = threads) -> Any:
            return list(
                case.spec.make(backend).parse_file(
                    make_source(), record_path=case.record_path, threads=threads
                )
            )

        def view(responses: list[Any]) -> Any:
            return [[*response_view(r, r.raw, identical=False), r.raw] for r in responses]

        differential(
            f"{case.spec.label}.parse_file({case.source}, record_path={case.record_path!r}, "
            f"threads={threads})",
            parse_file,
            view,
            about,
            inputs,
            case.record_path,
        )


@target("to_arrow")
def to_arrow(data: bytes) -> None:
    src = ByteSource(data)
    if src.byte() & 1:
        case = build_arrow_case(src)
    else:
        options = src.byte()
        spec = PARSERS[(options & 7) % len(PARSERS)]
        record_path = RECORD_PATHS[(options >> 3) % len(RECORD_PATHS)]
        source = SOURCES[src.byte() % len(SOURCES)]
        case = ArrowCase(spec, src.rest().split(b"\n"), source, record_path)
    check_arrow_case(case)


# ------------------------------------------------------------------ LiteRT-LM helpers

SDK = "SdkResponseParser"


def check_litert(text: Any, inputs: list[Any]) -> None:
    for name, fn in (
        ("extract_tool_calls", lambda cls, t: call_dicts(cls.extract_tool_calls(t))),
        ("clean_raw_for_history", lambda cls, t: cls.clean_raw_for_history(t)),
        ("parse", lambda cls, t: response_view(cls().parse(t), t)),
    ):
        differential(
            f"SdkResponseParser.{name}({type(text).__name__})",
            lambda _, backend, fn=fn: fn(_bound(SDK, backend), text),
            lambda value: value,
            text,
            inputs,
        )


def litert_forms(data: bytes) -> list[Any]:
    return [form for _, form in text_forms(data)] + [memoryview(data)]


@target("litert")
def litert(data: bytes) -> None:
    src = ByteSource(data)
    if src.byte() & 1:
        text = gen.litert_text(src).encode("utf-8", "surrogatepass")
        if src.one_in(4):
            text = gen.edit_text(src, text)
    else:
        text = src.rest()
    for form in litert_forms(text):
        check_litert(form, [text])
    if not text:
        for other in (None, 5, {"tool_calls": [{"name": "f"}]}, ["x"]):
            check_litert(other, [])


def build_litert_text(src: Source) -> bytes:
    text = gen.litert_text(src).encode("utf-8", "surrogatepass")
    return gen.edit_text(src, text) if src.one_in(4) else text


# ------------------------------------------------------------------------- streams

STREAM_PARSERS = {
    "openai": "OpenAIResponseParser",
    "openai-responses": "OpenAIResponsesParser",
    "anthropic": "AnthropicResponseParser",
    "bedrock": "BedrockConverseParser",
    "cohere": "CohereResponseParser",
    "gemini": "GeminiResponseParser",
    "gemini-interactions": "GeminiInteractionsParser",
    "ollama": "OllamaResponseParser",
    "json": "JsonResponseParser",
}
"""The parser class of each format's stream events (`fuzz.gen.STREAMS`)."""

JSON_TEXT_EXTRAS = ["\n12\n", " nul", "x", "]", "}", '"s ]"', "\\", "\n[]", "{}", "1e400 ", "tru"]
SSE_EXTRAS = [": ping\n", "event: message\n", "id: 7\n", "retry: 10\n", "data: [DONE]\n\n"]


@dataclass
class StreamCase:
    cls: str
    steps: list[tuple[str, Any]]  # ("feed", event) or ("partial", None)
    texts: list[bytes]  # the events' JSON text (for reports and known issues)
    events: list[Any] | None = None  # the dict events, for `parse` of the whole list


def build_stream_case(src: Source, shapes: bool = False) -> StreamCase:
    """A format's stream events (`gen.stream_events`) fed as dicts or SDK-like objects,
    as JSON text (str or bytes, one event or a list), or as an SSE transcript or JSON
    text (NDJSON, an array) cut into chunks anywhere (bytes: inside a UTF-8 character or
    a `\\u` escape too; str: between characters); `partial()` now and then.

    With `shapes` (the `stream_shapes` target; without, the decisions are those the
    `streams` target's corpus and regressions were found with), also the shapes of
    issue 37: another provider's events interleaved, SSE lines ended by a lone CR, by
    CRLF and LF mixed, and bytes fed one at a time."""
    kind = src.pick(list(gen.STREAMS))
    cls = STREAM_PARSERS[kind]
    if kind != "json" and src.one_in(4):
        cls = "AutoResponseParser"
    writer = gen.Writer(src, single_line=True)
    trees = gen.stream_events(src, kind)
    if shapes and src.one_in(4):  # providers mixed in one stream: another's interleaved
        trees = interleaved(src, trees, gen.stream_events(src, src.pick(list(gen.STREAMS))))
    if src.one_in(6):  # a provider's error event, somewhere
        trees.insert(src.int(0, len(trees)), gen.error_event(src))
    texts = [writer.write(tree) for tree in trees]
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    case = StreamCase(cls, [], encoded)
    how = src.int(0, 4)
    if how == 0:  # an SSE transcript, in chunks
        lines = []
        for text in texts:
            if src.one_in(6):
                lines.append(src.pick(SSE_EXTRAS))
            if shapes:  # each event's own line end, or two mixed (one event in 4)
                end = src.pick(SSE_ENDS)
                ends = [end, end] if src.bool() or src.bool() else [src.pick(SSE_ENDS), end]
            else:
                ends = ["\n", src.pick(["\n", "\r\n", "\n"])]
            lines.append(f"data: {text}{ends[0]}{ends[1]}")
        transcript = "".join(lines)
        if src.one_in(4):  # cut off
            transcript = transcript[: src.int(0, len(transcript))]
        case.steps = [("feed", chunk) for chunk in _chunks(src, transcript, shapes)]
    elif how == 1:  # JSON text, one event each (or a list of them)
        for text, data in zip(texts, encoded, strict=True):
            event: Any = src.pick([text, data, bytearray(data)])
            case.steps.append(("feed", [event] if src.one_in(8) else event))
    elif how == 4:  # JSON text, cut anywhere: NDJSON, values run together, or an array
        if src.one_in(3):
            body = "[" + src.pick([",", ",\r\n", ", "]).join(texts) + "]"
        else:
            body = src.pick(["\n", "\r\n", " ", ""]).join(texts) + src.pick(["\n", ""])
        if src.one_in(5):  # a value that is no event, or text that is not JSON
            at = src.int(0, len(body))
            body = body[:at] + src.pick(JSON_TEXT_EXTRAS) + body[at:]
        case.steps = [("feed", chunk) for chunk in _chunks(src, body, shapes)]
    else:  # the decoded events: dicts, or objects read by attribute
        case.events = []
        for text in texts:
            decoded = stdlib_loads(text)
            if decoded is _INVALID:
                decoded = text
            case.events.append(decoded)
            event = gen.objects(src, decoded, by_attribute=src.bool()) if how == 3 else decoded
            if src.one_in(6):  # wrapped as a Bedrock chunk (InvokeModelWithResponseStream)
                event = {"chunk": {"bytes": _chunk_bytes(src, text)}}
            case.steps.append(("feed", event))
    if src.one_in(10):
        case.steps.insert(src.int(0, len(case.steps)), ("feed", src.pick([None, 5, [[]], b""])))
    for _ in range(src.int(0, 3)):
        case.steps.insert(src.int(0, len(case.steps)), ("partial", None))
    return case


SSE_ENDS = ["\n", "\r\n", "\r"]
"""The line ends of the SSE grammar."""


def interleaved(src: Source, first: list[Any], second: list[Any]) -> list[Any]:
    """The events of two streams merged at random, each keeping its own order."""
    merged: list[Any] = []
    while first and second:
        merged.append((first if src.bool() else second).pop(0))
    return merged + first + second


def _chunks(src: Source, text: str, shapes: bool) -> list[Any]:
    """Text fed in chunks: str cut at random, bytes cut at random (with `shapes`, or at
    every byte)."""
    if src.one_in(4):
        return gen.cut(src, text, 8)
    data = text.encode("utf-8", "surrogatepass")
    if shapes and src.one_in(4):  # every byte a chunk of its own
        return [data[at : at + 1] for at in range(len(data))]
    return gen.cut(src, data, 8)


def _chunk_bytes(src: Source, text: str) -> Any:
    """A Bedrock chunk's `bytes` holding `text`: as boto3 gives it, as base64 text (now
    and then with a character dropped or added), or as the text itself."""
    data = text.encode("utf-8", "surrogatepass")
    encoded = base64.b64encode(data).decode()
    if src.one_in(4) and encoded:
        at = src.int(0, len(encoded) - 1)
        encoded = encoded[:at] + src.pick(["", "=", "A", "\n", "-"]) + encoded[at + 1 :]
    return src.pick([data, bytearray(data), encoded, text])


def _outcome_view(got: Outcome) -> Any:
    if got[0] == "raise":
        return ["raise", f"{got[1].__module__}.{got[1].__qualname__}", got[2]]
    return ["ok", got[1]]


def _run_stream(case: StreamCase, backend: types.ModuleType) -> list[Any]:
    """Every step's result (or exception), then `finish()`'s and a feed after it."""
    stream = _bound(case.cls, backend)().stream()
    fed: list[Any] = []
    results = []
    for step, event in case.steps:
        if step == "feed":
            fed.append(event)
            got = outcome(lambda event=event: stream.feed(event), call_dicts)
        else:
            got = outcome(stream.partial, call_dicts)
        results.append(_outcome_view(got))

    def finished(response: Any) -> Any:
        raw = response.raw if type(response) is AgentResponse else None
        kept = type(raw) is list and len(raw) == len(fed) and all(map(operator.is_, raw, fed))
        return [kept, *response_view(response, raw)[1:]]

    results.append(_outcome_view(outcome(stream.finish, finished)))
    results.append(_outcome_view(outcome(lambda: stream.feed({}), call_dicts)))
    return results


def check_stream_case(case: StreamCase) -> None:
    about = [case.cls, case.steps]
    differential(
        f"{case.cls}.stream()",
        lambda _, backend: _run_stream(case, backend),
        lambda results: results,
        about,
        case.texts,
    )
    if case.events is None:
        return
    events = case.events
    records = [json.dumps(events)]
    differential(
        f"{case.cls}.parse(a list of events)",
        lambda _, backend: _bound(case.cls, backend)().parse(events),
        lambda response: response_view(response, events),
        about,
        case.texts,
    )
    differential(
        f"{case.cls}.parse_many([a list of events as JSON text])",
        lambda _, backend: _bound(case.cls, backend)().parse_many(records),
        lambda responses: [response_view(r, records[0]) for r in responses],
        about,
        case.texts,
    )


def build_cut_case(src: Source) -> tuple[str, bytes]:
    """A stream's text for `check_cut_everywhere`: a format's events (now and then
    interleaved with another's) as an SSE transcript with lines ended by LF, CRLF or a
    lone CR, mixed, or as NDJSON; the parser class to read it."""
    case = build_stream_case(src, shapes=True)
    texts = [text.decode("utf-8", "surrogatepass") for text in case.texts]
    if src.bool():
        body = "".join(f"data: {t}{src.pick(SSE_ENDS)}{src.pick(SSE_ENDS)}" for t in texts)
    else:
        body = "".join(f"{t}{src.pick(SSE_ENDS)}" for t in texts)
    return case.cls, body.encode("utf-8", "surrogatepass")[:MAX_CUT_TEXT]


MAX_CUT_TEXT = 1500
"""The longest text `check_cut_everywhere` cuts (it runs two streams per byte)."""


def check_cut_everywhere(cls: str, data: bytes) -> None:
    """The text cut at every byte: fed in two pieces, and cut off there; both backends
    alike, step by step."""
    for at in range(len(data) + 1):
        for steps in ([data[:at], data[at:]], [data[:at]]):
            case = StreamCase(cls, [("feed", piece) for piece in steps], [data])
            case.steps.insert(1, ("partial", None))
            differential(
                f"{cls}.stream() cut at byte {at}",
                lambda _, backend, case=case: _run_stream(case, backend),
                lambda results: results,
                [cls, steps],
                [data],
            )


@target("streams")
def streams(data: bytes) -> None:
    """`parser.stream()` of a format's events (`build_stream_case`) on both backends."""
    check_stream_case(build_stream_case(ByteSource(data)))


@target("stream_shapes")
def stream_shapes(data: bytes) -> None:
    """`streams` with issue 37's shapes (`build_stream_case(shapes=True)`): providers
    interleaved, SSE lines ended by lone CRs and mixed ends, bytes fed one at a time; one
    input in 8, a stream's text cut at every byte (`check_cut_everywhere`)."""
    src = ByteSource(data)
    if src.one_in(8):
        check_cut_everywhere(*build_cut_case(src))
    else:
        check_stream_case(build_stream_case(src, shapes=True))


def run_input(name: str, data: bytes) -> None:
    """Run target `name` on `data` (the regression test's entry point)."""
    TARGETS[name](data)


def iter_corpus(directory: Path) -> Iterator[tuple[str, bytes]]:
    if directory.is_dir():
        for path in sorted(directory.iterdir()):
            if path.is_file() and not path.name.startswith(".") and path.suffix != ".md":
                yield path.name, path.read_bytes()


# ------------------------------------------------------------------------- raw text

DIALECT_VECTORS = [
    (name, case)
    for name in formats.DIALECT_NAMES
    for case in json.loads(
        (ROOT / "tests" / "vectors" / "dialects" / f"{name}.json").read_text("utf-8")
    )
]
"""Every dialect vector: (dialect, case), the texts `raw-text` mutates."""


def text_response_view(response: Any, raw: Any) -> Any:
    """`response_view` with the two fields only raw text fills."""
    return [*response_view(response, raw, identical=False), response.content, response.reasoning]


def build_raw_text_case(src: Source) -> tuple[str, Any, bytes]:
    """(dialect or "auto", the vector's tools, a dialect vector's text edited, or not)."""
    name, case = src.pick(DIALECT_VECTORS)
    text = case["input"].encode("utf-8")
    if not src.one_in(4):
        text = gen.edit_text(src, text)
    return ("auto" if src.one_in(3) else name), case.get("tools"), text


def check_raw_text(dialect: str, tools: Any, text: bytes) -> None:
    """`RawTextParser(dialect, tools)` on the text in every form, and on it as a JSONL
    record (a JSON string, and as written) through `parse_many`."""
    label = f"RawTextParser({dialect!r})"

    def parser(backend: types.ModuleType) -> Any:
        return _bound("RawTextParser", backend)(dialect, tools=tools)

    for form, raw in text_forms(text):
        differential(
            f"{label}.parse({form})",
            lambda _, backend, raw=raw: parser(backend).parse(raw),
            lambda response, raw=raw: text_response_view(response, raw),
            raw,
            [text],
        )
    lines = [json.dumps(text.decode("utf-8", "replace")).encode(), text]
    differential(
        f"{label}.parse_many(JSONL records)",
        lambda _, backend: parser(backend).parse_many(lines),
        lambda responses: [text_response_view(r, r.raw) for r in responses],
        lines,
        lines,
    )
    check_text_dialect(dialect, tools, text.decode("utf-8", "replace"))
    check_text_stream(dialect, tools, text)


def check_text_dialect(dialect: str, tools: Any, content: str) -> None:
    """`text_dialect=`: the text as an OpenAI chat message's content and a completions
    choice's text (a dict, and its JSON text), through `OpenAIResponseParser`."""
    label = f"OpenAIResponseParser(text_dialect={dialect!r})"
    doc = {"choices": [{"message": {"content": content}}, {"index": 1, "text": content}]}
    line = json.dumps(doc).encode()

    def parser(backend: types.ModuleType) -> Any:
        return _bound("OpenAIResponseParser", backend)(text_dialect=dialect, tools=tools)

    for raw in (doc, line):
        differential(
            f"{label}.parse({type(raw).__name__})",
            lambda _, backend, raw=raw: parser(backend).parse(raw),
            lambda response, raw=raw: text_response_view(response, raw),
            raw,
            [line],
        )


TEXT_DELTAS = (1, 5, 2, 13, 3, 1, 8)
"""The sizes `check_text_stream` cuts a text into, in turn (markers and UTF-8 characters
end up split across deltas)."""


def check_text_stream(dialect: str, tools: Any, text: bytes) -> None:
    """`RawTextParser(dialect, tools).stream()` fed the text in deltas (`TEXT_DELTAS`):
    on each backend, `finish()` is `parse` of the whole text."""
    deltas, at = [], 0
    while at < len(text):
        size = TEXT_DELTAS[len(deltas) % len(TEXT_DELTAS)]
        deltas.append(text[at : at + size])
        at += size
    for label, backend in BACKENDS:
        parser = _bound("RawTextParser", backend)(dialect, tools=tools)
        stream = parser.stream()
        for delta in deltas:
            stream.feed(delta)
        got, whole = stream.finish(), parser.parse(text)
        views = [[call_dicts(r.tool_calls), r.content, r.reasoning, r.error] for r in (got, whole)]
        if views[0] != views[1]:
            raise Difference(
                f"RawTextParser({dialect!r}).stream() on {label}: finish() is not parse\n"
                f"  input: {show(text, 3000)}\n  stream: {views[0]}\n  parse: {views[1]}"
            )


def check_repair(text: str) -> None:
    """`text` as the arguments of an OpenAI call, read with and without
    `repair="safe"` by `parse` and `to_arrow`: both backends give the same defect and
    the same repair, or none (`toolsift._pure.defects` is the specification)."""
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": text}}
    record = json.dumps({"choices": [{"message": {"tool_calls": [call]}}]})
    for repair in (None, "safe"):
        label = f"OpenAIResponseParser(repair={repair!r})"

        def parser(backend: types.ModuleType, repair: Any = repair) -> Any:
            return _bound("OpenAIResponseParser", backend)(repair=repair)

        differential(
            f"{label}.parse",
            lambda _, backend, parser=parser: parser(backend).parse(record),
            lambda response: response_view(response, record),
            text,
        )
        differential(
            f"{label}.to_arrow",
            lambda _, backend, parser=parser: parser(backend).to_arrow([record]),
            lambda table: [str(table.schema), table.to_pylist()],
            text,
        )


@target("repair")
def repair_target(data: bytes) -> None:
    """The bytes as argument text (invalid UTF-8 replaced): defects and repairs agree."""
    check_repair(data.decode("utf-8", "replace"))


@target("raw-text")
def raw_text(data: bytes) -> None:
    """A dialect vector's text, mutated, through `RawTextParser` on both backends: the
    calls, content and reasoning agree."""
    check_raw_text(*build_raw_text_case(ByteSource(data)))
