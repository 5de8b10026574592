"""The pure backend's parser (the twin of `src/python/`): one configured format from the
registry (`toolsift._pure.formats`), reading dicts, SDK objects and JSON text, one
response or many, and files through `toolsift._pure.bulk`. The format walkers are in
`formats/`; the ToolCalls they give are made by `toolsift._pure.calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import orjson

from toolsift import _collector as collector
from toolsift import formats as public
from toolsift._errors import (
    ParseError,
    UnrecognizedShape,
    _unrecognized,
    check_threads,
    record_error,
    record_path_keys,
)
from toolsift._jsontext import dumps_compact, loads, may_hold_big_integer
from toolsift._pure import assistant_text, bulk, dialects, formats
from toolsift._pure import context as contexts
from toolsift._pure.accumulator import response_error
from toolsift._pure.bulk import TextCalls, response
from toolsift._pure.calls import decoded_tool_call, harvest
from toolsift._pure.defects import repair_calls, with_defect
from toolsift._pure.dialects._stream import TextStream
from toolsift._pure.dialects._text import joined_content
from toolsift._pure.events import NOT_JSON, Assembler
from toolsift._pure.formats import litert
from toolsift._pure.framing import starts_sse
from toolsift._pure.nodes import TEXT_TYPES
from toolsift._pure.stream import Stream
from toolsift._types import AgentResponse, ToolCall

__all__ = ["Parser"]

_STR_OR_NONE = (str, type(None))
_Calls = TypeVar("_Calls", bound=list[ToolCall])
_DOC = object()  # `assembled`'s default: the error names the shape of `doc`


def json_in_string(doc: Any) -> Any:
    """The value of a string that is the JSON text of an object or an array (its first
    character, after JSON whitespace, `{` or `[`), decoded; None for anything else (SSE
    text, plain text, text that is not JSON), which stays what it is."""
    if type(doc) is not str or not doc.lstrip(" \t\r\n").startswith(("{", "[")):
        return None
    try:
        return loads(doc)
    except ParseError:
        return None


def holds_stream(doc: Any) -> bool:
    """A record that holds a whole stream: a list (of events), or a string of SSE text."""
    if isinstance(doc, (list, tuple)):
        return True
    return isinstance(doc, str) and starts_sse(doc.encode("utf-8", "surrogatepass"))


def _text_of(record: Any) -> str:
    """A record's text: `str` as it is, bytes as UTF-8 ("" where they are not UTF-8, or a
    str holds a lone surrogate: text without calls, as for LiteRT-LM)."""
    if isinstance(record, str):
        try:
            record.encode("utf-8")
        except UnicodeEncodeError:
            return ""
        return record
    try:
        return bytes(record).decode("utf-8")
    except UnicodeDecodeError:
        return ""


class _LiteRtText:
    """How LiteRT-LM reads text (`litert.parse_sdk`, the specification): a record's text,
    a value inside an envelope and the caller's own objects alike. The twin of the Rust
    `TextReader::LiteRt`."""

    def line(self, text: Any) -> tuple[list[ToolCall], str]:
        """The calls of a record's text (`str` or bytes), and the format."""
        return litert.parse_sdk(text), "litert"

    def value(self, doc: Any) -> tuple[list[ToolCall], str]:
        """The calls of a decoded value inside an envelope (or at a record path)."""
        return litert.parse_sdk(doc), "litert"

    def objects(self, found: Any) -> list[ToolCall]:
        """The calls of the caller's own objects (or what their envelope holds)."""
        return litert.parse_sdk(found)


class _DialectText:
    """How a raw-text dialect reads text (`read`: `Parser._dialect_read`). The twin of the
    Rust `TextReader::Dialect`."""

    def __init__(self, read: Callable[[str], TextCalls]) -> None:
        self._read = read

    def line(self, text: Any) -> tuple[list[ToolCall], str]:
        """A JSONL line that is a JSON string is the text; any other, the text as written."""
        line = _text_of(text)
        if line.lstrip(" \t\r\n").startswith('"'):
            try:
                decoded = loads(line)
            except ParseError:
                decoded = None
            if isinstance(decoded, str):
                line = _text_of(decoded)
        calls = self._read(line)
        return calls, calls.format

    def value(self, doc: Any) -> tuple[list[ToolCall], str]:
        """Inside an envelope: a string is the text, an object or array its JSON text."""
        if isinstance(doc, str):
            text = doc
        elif isinstance(doc, (dict, list)):
            text = dumps_compact(doc)
        else:
            text = ""
        calls = self._read(text)
        return calls, calls.format

    def objects(self, found: Any) -> list[ToolCall]:
        """A string inside an envelope is text; the caller's dicts and lists hold none."""
        return self._read(found) if isinstance(found, str) else []


class Parser:
    """One configured walker; the public parser classes delegate to it."""

    def __init__(
        self,
        format: str,
        tool_calls_key: str = "tool_calls",
        name_key: str = "name",
        arguments_key: str = "arguments",
        single: object = None,
        tools: str | None = None,
        text_dialect: str | None = None,
        repair: str | None = None,
    ) -> None:
        self._format = format
        self._repair = repair == "safe"  # (the public classes check the value)
        self._options = {
            "tool_calls_key": tool_calls_key,
            "name_key": name_key,
            "arguments_key": arguments_key,
            "single": single,
        }
        self._auto = format == formats.AUTO
        # A raw-text dialect (None: `auto-text`, the dialect whose markers a text holds).
        self._text = format in public.DIALECT_NAMES or format == public.AUTO_TEXT
        # `text_dialect`: a walked format's (or auto's) assistant text, or a transcript's
        # turns of raw text, read by a dialect.
        self._in_text = text_dialect is not None
        self._messages = format == formats.MESSAGES.name
        walked = self._auto or self._messages or format in (f.name for f in formats.WALKED)
        if self._in_text and not walked:
            raise ValueError(f"the {format!r} format has no assistant text for text_dialect")
        if self._in_text and text_dialect != public.AUTO and text_dialect not in dialects.DIALECTS:
            names = ", ".join((*public.DIALECT_NAMES, public.AUTO))
            raise ValueError(f"unknown dialect {text_dialect!r}; expected one of: {names}")
        # The dialect text is read as (None: the one whose markers a text holds).
        text_name = text_dialect if self._in_text else format
        self._dialect_name = text_name if text_name in dialects.DIALECTS else None
        self._turn_text = self._turn_calls if self._in_text else None
        if tools is not None and not (self._text or self._in_text):
            raise ValueError("tools are read by the raw-text dialects only")
        self._tools = None if tools is None else dialects.Tools(loads(tools))
        spec = None if self._auto or self._text else formats.by_name(format)
        self._spec = spec
        # How a format that reads text (a raw-text dialect; LiteRT-LM, whose registry
        # entry says it `reads_text`) reads it; None for the formats read from one JSON
        # document. The one place the parser asks whether a format reads text.
        self._text_reader: _LiteRtText | _DialectText | None = None
        if self._text:
            self._text_reader = _DialectText(self._dialect_read)
        elif spec is not None and spec.reads_text:
            self._text_reader = _LiteRtText()
        # A record that is a list (of events) or a string (an SSE transcript) holds a
        # whole stream, for the walked formats and auto (`json` reads lists its own way).
        self._streams = self._auto or spec in formats.WALKED
        if spec is not None and self._text_reader is None and not self._messages:
            self._walk, self._decoded_walk = spec.walkers(
                tool_calls_key=tool_calls_key,
                name_key=name_key,
                arguments_key=arguments_key,
                single=single,
            )

    _owner: Any = None

    def set_owner(self, owner: Any) -> None:
        """`owner`, the public parser that holds this core as `_core`, is what the core
        pickles as (the native core's rule: `parser.parse` may be the core's own). Set
        once; later calls change nothing."""
        if self._owner is None:
            self._owner = owner

    def __reduce__(self) -> tuple[Any, ...]:
        if self._owner is None:
            raise TypeError("cannot pickle a core Parser without its public parser")
        return getattr, (self._owner, "_core")

    def parse(self, raw: Any, /, *, record_path: str | None = None) -> AgentResponse:
        """`raw`'s calls; a batch envelope is unwrapped (or the response is taken at
        `record_path`, a dot path), as `bulk.locate` says, and a failure it reports is the
        error. The public `parse`'s signature (a parser with nothing to do after it calls
        this directly)."""
        return self.parse_at(raw, record_path_keys(record_path))

    def parse_at(self, raw: Any, record_path: Sequence[str] | None) -> AgentResponse:
        """`parse` of the response at the keys `record_path`."""
        if self._text_reader is not None:  # never raises: text without calls has none
            return self._parse_text(self._text_reader, raw, record_path)
        try:
            return self._parse(raw, record_path)
        except UnrecognizedShape as exc:
            if response_error(exc.msg):  # a piece of a stream, or a stream that failed:
                return AgentResponse([], raw, exc.msg)  # no call, and the response says so
            raise

    def _parse(self, raw: Any, path: Sequence[str] | None) -> AgentResponse:
        if not isinstance(raw, TEXT_TYPES):
            response, _, error = bulk.locate_object(raw, path)
            if error is not None:
                return AgentResponse([], raw, error)
            return bulk.response(self.read(response)[0], raw)
        text = raw.tobytes() if isinstance(raw, memoryview) else raw  # as the Rust backend
        # Fast path: plain orjson. Only the calls are returned from the document, so
        # orjson's one inexactness (integers beyond 64 bits become floats) matters only
        # inside argument values given inline (argument strings are decoded by `loads`,
        # which is exact); where one may be affected, where orjson refuses the text, or
        # for an envelope's failure (its text may quote such a number), `loads` decodes
        # it exactly (or raises ParseError).
        try:
            response, _, error = bulk.locate(orjson.loads(text), path)
            read = None if error is not None else self.decoded_read(response, text)
        except orjson.JSONDecodeError:
            read = None
        if read is None:
            response, _, error = bulk.locate(loads(text), path)
            if error is not None:
                return AgentResponse([], raw, error)
            read = self.read(response)
        return bulk.response(read[0], raw)

    def _parse_text(
        self, reader: _LiteRtText | _DialectText, raw: Any, path: Sequence[str] | None
    ) -> AgentResponse:
        """A format that reads text: a record that is not an envelope (or not JSON) as it
        is, an envelope's response (or the value at `path`) as the bulk APIs read it, the
        caller's own objects as `reader` reads them."""
        if isinstance(raw, TEXT_TYPES):
            calls, _, error, _ = bulk.read_record(self, raw, path)
            return response(calls, raw, error)
        found, _, error = bulk.locate_object(raw, path)
        if error is not None:
            return AgentResponse([], raw, error)
        return response(self._repaired(reader.objects(found)), raw)

    def _text_response(self, text: str, raw: Any) -> AgentResponse:
        """`parse` of one output text, with `raw` (a text stream's deltas)."""
        whole = self.parse(text)
        return AgentResponse(whole.tool_calls, raw, whole.error, whole.content, whole.reasoning)

    def _dialect_read(self, text: str) -> TextCalls:
        """The calls, content and reasoning of one output text (`auto-text`: read by the
        dialect whose markers it holds; none: no calls, the text is the content)."""
        name = self._dialect_name or dialects.detected(text)
        if name is None:
            return TextCalls([], public.AUTO_TEXT, joined_content([text]))
        parsed = dialects.DIALECTS[name].parse(text, self._tools)
        for call in parsed.tool_calls:
            with_defect(call)
        return TextCalls(parsed.tool_calls, name, parsed.content, parsed.reasoning)

    def _repaired(self, calls: _Calls) -> _Calls:
        """`calls`, repaired where `repair="safe"` says so (`defects.repair_calls`)."""
        if self._repair:
            repair_calls(calls)
        return calls

    def _turn_calls(self, text: str) -> list[ToolCall]:
        """The calls of a transcript's turn of raw text (`text_dialect`)."""
        return list(self._dialect_read(text))

    def stream(self) -> Stream | TextStream:
        """An accumulator of this format's stream events (`toolsift._pure.stream`); a
        raw-text dialect's: of text deltas (`dialects._stream`)."""
        if self._text:
            name = self._dialect_name
            return TextStream(name, self._tools, self._text_response)
        return Stream(self._events())

    def _events(self, spec: formats.Format | None = None) -> Assembler:
        """The reader of a stream's events (`toolsift._pure.events`): `spec`'s, where given,
        else this parser's format's (auto: the first format that recognizes an event)."""
        if spec is None and self._auto:
            return Assembler(None, formats.stream_detect)
        spec = spec or formats.by_name(self._format)
        return Assembler(spec.stream_handler(**self._options), format=spec.name)

    def assembled(
        self,
        doc: Any,
        spec: formats.Format | None = None,
        shown: Any = _DOC,
        context: bool = False,
    ) -> tuple[list[ToolCall], str]:
        """A record holding a whole stream (a list of events, or SSE text): its calls,
        and the format that read them (`spec`'s reader, where given: a chunk recognized
        as that format). UnrecognizedShape where an event is not JSON, or (auto) no event
        is of any format's stream (naming `shown`'s shape, by default `doc`'s), or it
        held only pieces of calls (`FRAGMENT`)."""
        events = self._events(spec)
        try:
            events.feed_record(doc)
        except ParseError:
            raise _unrecognized(NOT_JSON) from None
        events.finish()
        calls = events.calls()
        # The stream's error first: a Bedrock exception may end a stream no event of
        # which was recognized (auto).
        error = events.error(calls)
        if error is not None:
            raise _unrecognized(error)
        if events.format is None:
            raise UnrecognizedShape(doc if shown is _DOC else shown)
        if context:
            return contexts.Found(calls, contexts.of_types(events.custom())), events.format
        return calls, events.format

    def parse_many(
        self,
        raws: Iterable[Any],
        threads: int | None = None,
        record_path: Sequence[str] | None = None,
    ) -> list[AgentResponse]:
        """`parse` over many responses, in order; a record that cannot be read gives an
        AgentResponse with `error` set (`threads` checked, one thread here)."""
        check_threads(threads)
        release = collector.hold()  # the results are fresh and acyclic: see `_collector`
        try:
            return [self._parse_recorded(raw, record_path) for raw in raws]
        finally:
            release()

    def read(self, doc: Any, context: bool = False) -> tuple[list[ToolCall], str]:
        """The calls in a decoded response, and the format that read them (the `format`
        column). A str is not decoded here, except JSON text inside a string; LiteRT-LM
        reads it as text, as `parse_sdk` does. Auto-detection that recognizes no shape
        raises `UnrecognizedShape`. With `context`, the calls are a `context.Found`
        (the context columns)."""
        calls, format = self._read(doc, context)
        return self._repaired(calls), format

    def _read(self, doc: Any, context: bool) -> tuple[list[ToolCall], str]:
        if self._text_reader is not None:  # a value inside an envelope
            return self._text_reader.value(doc)
        decoded = json_in_string(doc)
        if decoded is not None:
            # A response given as JSON text inside a string (a log that stored the body,
            # or `model_dump_json()`, as a string): the value the text holds is the record.
            return self._read(decoded, context)
        if self._messages or (
            self._auto and isinstance(doc, list) and formats.MESSAGES.detect(doc)
        ):
            # A transcript (auto: a list of messages, not of stream events).
            return self._transcript(doc, context), formats.MESSAGES.name
        if self._streams and holds_stream(doc):
            return self.assembled(doc, context=context)
        spec = formats.detect_or_none(doc) if self._auto else self._spec
        if spec is None:
            # Auto recognizes no response: an event of a stream given alone, read as a
            # stream of that one event (as a list of events is read).
            if isinstance(doc, TEXT_TYPES):
                raise UnrecognizedShape(doc)
            return self.assembled([doc], shown=doc, context=context)
        if self._streams and spec.is_stream_piece(doc):
            # a piece of a stream: read as one
            return self.assembled([doc], spec, context=context)
        if spec is formats.MESSAGES:
            return self._transcript(doc, context), spec.name
        if self._in_text:  # each message's calls, or those its text holds
            turns = spec.module.turns(doc)
            calls, placed = assistant_text.read(turns, spec.name, self._dialect_read)
            if context:
                return contexts.Found(calls, contexts.of_turns(spec.module, doc, placed)), spec.name
            return calls, spec.name
        walk = spec.module.calls if self._auto else self._walk
        name = spec.name if self._auto else self._format
        if context:
            found = list(walk(doc))
            return self._found(harvest(found), spec, doc, found), name
        return harvest(walk(doc)), name

    def _transcript(self, doc: Any, context: bool) -> Any:
        """The calls of the transcript `doc`, each with its turn and result; its context:
        the record's `model` (a rollout's, a request log's) where it names one."""
        calls = formats.messages.read(doc, self._turn_text)
        if not context:
            return calls
        model = doc.get("model") if isinstance(doc, dict) else None
        return contexts.Found(calls, contexts.Context(model if isinstance(model, str) else None))

    @staticmethod
    def _found(calls: list[ToolCall], spec: formats.Format, doc: Any, found: Any) -> Any:
        """`calls` with the context of the response `doc` they were `found` in."""
        return contexts.Found(calls, contexts.of_response(spec.module, doc, found))

    def decoded_read(
        self, doc: Any, text: Any, context: bool = False
    ) -> tuple[list[ToolCall], str] | None:
        """`read` of `doc` (not LiteRT-LM), a response plain orjson decoded from JSON
        text `text` (all of it, or the record it is part of); None where orjson may have
        rounded an integer in arguments given inline and `text` has a run of 19 digits
        (then decode `text` with `loads` and use `read`), and for LiteRT-LM and for
        shapes auto-detection does not recognize."""
        if self._text_reader is not None or self._in_text or self._messages or type(doc) is str:
            # SSE text, JSON text inside a string, assistant text, transcripts: by `read`
            return None
        if type(doc) is not dict and self._streams and holds_stream(doc):
            return None  # a stream: decoded exactly, by `read`
        spec = formats.detect_or_none(doc) if self._auto else self._spec
        if spec is None or spec is formats.MESSAGES:
            return None  # unrecognized (`read` says so), or a transcript
        if self._auto:
            walk = spec.walkers()[1]
        else:
            walk = self._decoded_walk
        found = walk(doc)
        if found is None:
            return None  # a chunk of a stream: read by `read`
        for _, _, arguments in found:
            if type(arguments) not in _STR_OR_NONE:  # given inline: orjson's numbers
                if may_hold_big_integer(text):
                    return None
                break
        calls = self._repaired([decoded_tool_call(*call) for call in found])
        if context:
            return self._found(calls, spec, doc, found), spec.name
        return calls, spec.name

    def text_read(self, text: Any) -> tuple[list[ToolCall], str] | None:
        """For a format that reads text (LiteRT-LM, a raw-text dialect): the calls `parse`
        finds in a record, and the format. None for the other formats."""
        if self._text_reader is None:
            return None
        calls, format = self._text_reader.line(text)
        return self._repaired(calls), format

    def parse_file(
        self,
        path: str,
        record_path: Sequence[str] | None = None,
        threads: int | None = None,
        progress: Callable[[int], None] | None = None,
        max_line_bytes: int | None = None,
    ) -> Iterator[AgentResponse]:
        """The AgentResponses of a JSONL file, streamed (`toolsift._bulk.parse_file`)."""
        return bulk.parse_file(
            self,
            path,
            record_path,
            threads,
            progress,
            bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        )

    def arrow_batches(
        self,
        source: Any,
        record_path: Sequence[str] | None,
        threads: int | None,
        progress: Callable[[int], None] | None,
        sink: Callable[[Any], None],
        schema: Any = None,
        max_line_bytes: int | None = None,
        checks: Any = None,
        every_record: bool = False,
        carry: Sequence[str] | None = None,
    ) -> dict[str, int]:
        """Rows of the calls in `source` (a path, or records) handed to `sink` as pyarrow
        record batches of `schema`; the counts (`toolsift._pure.bulk.arrow_batches`).
        `checks` (a `Checks`) fills the `violations` column."""
        return bulk.arrow_batches(
            self,
            source,
            record_path,
            threads,
            progress,
            sink,
            schema,
            bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
            checks,
            every_record,
            carry,
        )

    def _parse_recorded(self, raw: Any, record_path: Sequence[str] | None) -> AgentResponse:
        try:
            return self.parse_at(raw, record_path)
        except Exception as exc:  # one bad record is recorded, never raised
            return AgentResponse([], raw, record_error(exc))
