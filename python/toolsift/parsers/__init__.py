"""Drop-in parsers: the class names, keywords and results of `russo.parsers`, faster.

Every class has `parse(raw) -> AgentResponse` and `parse_many(raws, *, threads=None)`,
and pickles (for multiprocessing) as its class and constructor options. Every class
takes the keyword `repair`: None (the default) or `"safe"`, the audited repairs of
argument text that did not decode (README: Argument defects and repairs; the original
text stays in `raw_arguments`, the repairs made are listed in `ToolCall.repairs`).
`raw` may be a dict, an SDK object (read by attribute), or `str` / `bytes` of JSON text.
`SdkResponseParser` (LiteRT-LM / Gemma 4, flutter_gemma's name) also has the helpers
of that SDK as class-level functions.
"""

import inspect as _inspect
import os as _os
import sys as _sys
import warnings as _warnings
from collections.abc import Iterable as _Iterable
from collections.abc import Iterator as _Iterator
from collections.abc import Sequence as _Sequence
from itertools import islice as _islice
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import Any as _Any
from typing import ClassVar as _ClassVar

from toolsift import _backend, _bulk
from toolsift import formats as _formats
from toolsift._backend import Backend as _Backend
from toolsift._errors import FormatMismatchWarning as _FormatMismatchWarning
from toolsift._errors import ParseError as _ParseError
from toolsift._types import AgentResponse as _AgentResponse
from toolsift._types import Stream as _Stream
from toolsift._types import ToolCall as _ToolCall

if _TYPE_CHECKING:  # pyarrow stays optional at run time
    import pyarrow

__all__ = [
    "AnthropicResponseParser",
    "AutoResponseParser",
    "BedrockConverseParser",
    "CohereResponseParser",
    "GeminiInteractionsParser",
    "GeminiResponseParser",
    "JsonResponseParser",
    "MessagesParser",
    "OllamaResponseParser",
    "OpenAIResponseParser",
    "OpenAIResponsesParser",
    "RawTextParser",
    "SdkResponseParser",
]


class _ResponseParser:
    # The backend module is read when an instance is made; tests bind subclasses to each.
    _backend: _ClassVar[_Backend] = _backend.core
    _format: _ClassVar[str]

    _tools: _Any = None  # the constructor's `tools=` (its calls are checked against them)
    _checks: _Any = None  # the backend's `Checks` of `_tools`

    def __init__(self, *, repair: str | None = None, **options: _Any) -> None:
        if repair is not None and repair not in _REPAIR_MODES:
            raise ValueError(f"repair must be None or 'safe', got {repair!r}")
        if repair is not None:
            options["repair"] = repair
        self.repair = repair
        self._options = options
        self._core_options = options  # the core's (`_options` are the class's, for pickling)
        self._core = self._backend.Parser(self._format, **options)
        self._core.set_owner(self)  # pickled as this parser's (see `_parse_directly`)
        # Responses without calls still to compare with auto-detection (FormatMismatchWarning).
        self._checks_left = 0 if self._format == _formats.AUTO else _FORMAT_CHECKS
        self._parse_directly()

    def _parse_directly(self) -> None:
        """Once nothing is left to do after the core's `parse` (no checks, no format
        check), `parse` is the core's own (the same signature): no Python frame per call."""
        if self._checks is None and self._checks_left <= 0:
            self.parse = self._core.parse  # type: ignore[method-assign,assignment]

    def _check_against(self, tools: _Any) -> None:
        """Calls are checked against `tools` (None: not checked); kept for pickling."""
        if tools is not None:
            self._checks = _bulk.checks(self._backend, tools, None)
            self._tools = tools
            self._options = {**self._options, "tools": tools}
            self.__dict__.pop("parse", None)  # checked by `parse`

    def _checks_of(self, tools: _Any, requests: _Any) -> _Any:
        """The checks of a call of the file and table API: its own `tools=` /
        `requests=`, else the constructor's tools."""
        if tools is None and requests is None:
            return self._checks
        return _bulk.checks(self._backend, self._tools if tools is None else tools, requests)

    def __reduce__(self) -> tuple[_Any, ...]:
        # Pickled as the class and its options, never the core (a compiled object, or a
        # closure): the copy is made anew where it is loaded, with that process's backend
        # (a worker process inherits TOOLSIFT_IMPLEMENTATION), and gives the same results.
        return _rebuild, (_named_class(type(self)), self._options)

    def parse(self, raw: _Any, *, record_path: str | None = None) -> _AgentResponse:
        """The tool calls in one response. Raises ParseError for text that is not JSON.

        A batch envelope (a line of OpenAI Batch, Vertex AI, Gemini API, Anthropic
        Message Batches or Bedrock batch output, as text, a dict, or the SDK's object) is
        unwrapped as `parse_file` unwraps it, and a failure it reports is the response's
        `error`; `record_path` (a dot path, e.g. "response.body") takes the response at
        that path instead, as in `parse_file`. The envelope's custom id is not kept
        (AgentResponse has no field for it; `to_arrow` has a `custom_id` column)."""
        response = self._core.parse(raw, record_path=record_path)
        if not response.tool_calls and self._checks_left and response.error is None:
            self._check_format(response, _bulk.record_path_keys(record_path))
        if self._checks is not None:
            _bulk.check_calls(self._checks, response, None)
        return response

    def parse_many(
        self,
        raws: _Iterable[_Any],
        *,
        threads: int | None = None,
        record_path: str | None = None,
    ) -> list[_AgentResponse]:
        """`parse` over many responses, in order; text is parsed on `threads` cores
        (None: all) with the GIL released. A record that cannot be read never raises:
        its AgentResponse has no calls and `error` set. Batch envelopes and `record_path`
        as for `parse`."""
        if record_path is None:
            keys = None
            responses = self._core.parse_many(raws, threads)
        else:
            keys = _bulk.record_path_keys(record_path)
            responses = self._core.parse_many(raws, threads, keys)
        if self._checks_left:
            for response in responses:
                if (
                    not response.tool_calls
                    and response.error is None
                    and self._check_format(response, keys)
                ):
                    break
        if self._checks is not None:
            for response in responses:
                _bulk.check_calls(self._checks, response, None)
        return responses

    def _check_format(self, response: _AgentResponse, keys: list[str] | None) -> bool:
        """For a response this format found no call in: warn (once) if auto-detection
        reads it as another format. True when the check is over: the first of at most
        `_FORMAT_CHECKS` responses without calls that auto-detection recognizes decides."""
        if self._checks_left <= 0:
            return True
        self._checks_left -= 1
        found = _auto_format(response.raw, keys)
        if found is not None:
            self._checks_left = 0
            if found.name != self._format:
                _warnings.warn(
                    f"{type(self).__name__} found no tool call in a response that "
                    f"auto-detection reads as the {found.name!r} format: use "
                    f"{found.parser_class} (or AutoResponseParser) to read it",
                    _FormatMismatchWarning,
                    stacklevel=3,
                )
        if self._checks_left > 0:
            return False
        self._parse_directly()
        return True

    def stream(self) -> _Stream:
        """An accumulator of this provider's stream events (docs: Streaming):
        `feed(event)` returns the ToolCalls that event completed, `partial()` the calls
        so far with arguments decoded as far as they arrived, `finish()` the
        AgentResponse of every call. An event is a dict, an SDK event object, `str` /
        `bytes` of one JSON event, or a chunk of SSE text."""
        return self._core.stream()

    def parse_file(
        self,
        path: _Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        progress: _bulk.ProgressArg = False,
        max_line_bytes: int | None = None,
        tools: _Any = None,
        requests: _Any = None,
        carry: _Sequence[str] | None = None,
    ) -> _Iterator[_AgentResponse]:
        """The AgentResponse of every line of a JSONL file (plain, gzip or zstd), in order,
        with bounded memory; lines are parsed on `threads` cores (None: all) with the GIL
        released. Blank lines are skipped. `raw` is the line as bytes, without its line
        terminator. A line that cannot be read never raises: its `error` is set.

        `record_path`: a dot path to the response inside each line (e.g. "response.body");
        None: OpenAI Batch API, Vertex AI and Gemini API batch output lines are unwrapped
        on their own, and a provider-reported failure becomes the line's `error`.
        `progress`: True shows a tqdm bar on stderr; a callable gets `(bytes_done, total)`.
        `max_line_bytes` (None: 1 GiB): a longer line is not kept; its AgentResponse
        has `raw=b""` and the error `line longer than N bytes`, and reading goes on after
        it. The file is opened now: a missing file raises FileNotFoundError here, not on
        the first iteration; corrupt or cut-off compressed data raises OSError after the
        complete lines before the fault. FIFOs and pipes (`/dev/stdin`) can be read.
        `tools` / `requests`: each call's `violations`, as `to_arrow` says.
        `carry`: dot paths into each line (a batch file's envelope line), as `to_arrow`
        says; each response's `carried` is `{path: value}`, the value as decoded from
        the line (None where the path leads nowhere or the line is not JSON).
        """
        keys = None if record_path is None else _bulk.record_path_keys(record_path)
        checks = self._checks_of(tools, requests)
        names = _bulk.carry_names(carry)

        def watch(response: _AgentResponse) -> bool:
            if response.tool_calls or response.error is not None:
                return self._checks_left <= 0
            return self._check_format(response, keys)

        responses = _bulk.parse_file(
            self._core,
            path,
            record_path,
            threads,
            progress,
            max_line_bytes,
            watch if self._checks_left else None,
        )
        if names:
            responses = _bulk.carried(responses, names)
        if checks is None:
            return responses
        return _bulk.checked(responses, checks, requests is not None)

    def to_arrow(
        self,
        source: _Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        progress: _bulk.ProgressArg = False,
        max_line_bytes: int | None = None,
        tools: _Any = None,
        requests: _Any = None,
        rows: str = "calls",
        carry: _Sequence[str] | None = None,
    ) -> "pyarrow.Table":
        """A `pyarrow.Table` with one row per tool call (needs `toolsift[arrow]`): the
        rows of `arrow_batches(source, ...)`, in chunks as they were made (about 1 MiB
        of records each, with the native backend), not copied into bigger ones.

        `source`: a path (a JSONL file, plain, gzip or zstd), `toolsift.Files([...])`
        (several files, read in parallel, with a `file` column), an iterable of `str` /
        `bytes` records, or a pyarrow string/binary array. Columns: `record` (int64, the
        0-based line number or position; in `Files`, the line number in its own file),
        `custom_id` (from a batch envelope), `format`, `call_index` (int32), `id`,
        `name`, `arguments` (compact JSON of the decoded object, as
        `json.dumps(..., separators=(",", ":"), ensure_ascii=False)` writes it),
        `raw_arguments` (the text that did not decode, else null), `error`, `defect`
        (why `raw_arguments` did not decode: README, Argument defects), `repairs`
        (a list of the repairs `repair="safe"` made, else null) and `violations`; then
        the context columns `model`, `response_id`, `finish_reason`, `choice_index`
        (int32) and `call_type` (`function`, `custom`, or a raw-text dialect's name), each
        from the format's own fields (the README's table), null where it has none. A record
        that could not be read gives one row with `error` set (and `custom_id` where
        known), nulls elsewhere; a record with no calls gives no row. `record_path`,
        `threads` and `progress` as for `parse_file` (for in-memory records, `progress`
        counts records). `max_line_bytes` as for `parse_file` (files only): a longer line
        gives one row with that error. Records may also be dicts or SDK objects (read as
        their JSON text). Compressed data cut short raises OSError, whose `table` holds
        the rows of the lines before the fault. A table without a single call from a path,
        a list or a pyarrow array has its first records compared with auto-detection
        (`FormatMismatchWarning`, as `parse` gives).

        `violations` (a list of strings per call; null when not checked): how each call
        fails the declared tools, by the codes of the README (`unknown_tool`,
        `missing_required:/city`, ...; empty when it fits). `tools`: the tool definitions
        (OpenAI, Anthropic, Bedrock `toolConfig`, Gemini `functionDeclarations`, or a
        `{name: schema}` dict; default: the constructor's); `requests`: the path of the
        batch input file or a request log (JSONL), whose request with the record's
        `custom_id` (`recordId`, `key`) holds the tools of its calls.

        A failed record's `error_kind` says what kind of failure it is: `json` (not JSON
        text), `shape` (no format recognized the response), `record_path`, `provider`
        (the provider's own: a batch error, an HTTP status, a stream's error event; with
        `http_status` (int32) where there is one), `stream` or `line_too_long`.

        `rows="records"`: one row per record instead (failed ones and ones without calls
        too): the record's columns (a record without calls has its `model` and
        `response_id` too), `calls` (int32, how many), and `tool_calls`: a list of
        structs of the call columns (`toolsift._types.CALL_LEVEL_COLUMNS`), in order.

        `carry=["request_id", "meta.user"]`: fields of each record (the line itself: a
        batch file's envelope, not the response inside it), by dot path, a column each
        after all the others, named by its path, on every row of the record (failed
        ones too); null where the path leads nowhere. A column is typed when every
        record agrees (string, bool, int64, or float64), else it is each value's compact
        JSON text.
        """
        checks = self._checks_of(tools, requests)
        args = (record_path, threads, progress, max_line_bytes, checks, rows, carry)
        table = _bulk.to_arrow(self._core, source, *args)
        if self._checks_left and _no_call(table):
            self._check_first_records(source, record_path)  # no call at all: why?
        return table

    def _check_first_records(self, source: _Any, record_path: str | None) -> None:
        """`_check_format` on the first records of a path, a list or a pyarrow array."""
        responses: _Iterator[_AgentResponse]
        if isinstance(source, (str, _os.PathLike)):
            responses = _islice(self.parse_file(source, record_path=record_path), _FORMAT_CHECKS)
        elif isinstance(source, (list, tuple)):
            responses = iter(self.parse_many(source[:_FORMAT_CHECKS], record_path=record_path))
        elif type(source).__module__.startswith("pyarrow"):
            first = source.slice(0, _FORMAT_CHECKS).to_pylist()
            responses = iter(self.parse_many(first, record_path=record_path))
        else:
            return  # read once (an iterator), or several files
        for _ in responses:  # parse_file and parse_many check as they go
            if self._checks_left <= 0:
                break

    def arrow_batches(
        self,
        source: _Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        batch_rows: int = _bulk.BATCH_ROWS,
        max_line_bytes: int | None = None,
        progress: _bulk.ProgressArg = False,
        tools: _Any = None,
        requests: _Any = None,
        rows: str = "calls",
        carry: _Sequence[str] | None = None,
    ) -> "pyarrow.RecordBatchReader":
        """A `pyarrow.RecordBatchReader` over the rows `to_arrow` gives for `source`,
        produced while the input is read, in batches of `batch_rows` rows (the last may
        have fewer; the same batches on both backends, whatever `threads`). It has
        `__arrow_c_stream__`, so `polars.from_arrow`, `duckdb` and `pyarrow.dataset`
        read it without a copy.

        Reading starts at the first batch asked for, on threads of its own (the GIL is
        not held while parsing); memory stays bounded: the file being consumed is read
        about a batch (1 MiB of rows) ahead of you, a file of `Files` further on at most
        32 MiB of rows ahead. Arguments and paths are checked now (a missing file raises
        FileNotFoundError here); an error while reading (corrupt compressed data) is
        raised by the batch after the rows read before it. A reader dropped or closed
        before its end stops the reading. `progress` callbacks are called on a reading
        thread. `toolsift.Files([...])`: the files are read up to `threads` at once (None:
        all cores), each with `threads // files-at-once` threads, rows in input order,
        with a `file` column first. `tools` / `requests` as for `to_arrow`.
        `rows="records"`: one row per record, as for `to_arrow` (`batch_rows` then counts
        records). `carry` as for `to_arrow`, but
        typed by the first batch, which is read now (a stream cannot know that every
        record agrees, and every batch has one schema): a field whose values there are
        all strings is a string column (a later value that is not one is its JSON text);
        any other is JSON text.
        """
        checks = self._checks_of(tools, requests)
        return _bulk.arrow_batches(
            self._core,
            source,
            record_path,
            threads,
            progress,
            max_line_bytes,
            batch_rows,
            checks,
            rows,
            carry,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_repair_repr(self.repair, first=True)})"


_REPAIR_MODES = ("safe",)
"""The values of `repair=` besides None (README: Argument defects and repairs)."""


def _repair_repr(repair: str | None, first: bool = False) -> str:
    """`repair=...` for a parser's repr, where it is set."""
    if repair is None:
        return ""
    return f"{'' if first else ', '}repair={repair!r}"


def _no_call(table: "pyarrow.Table") -> bool:
    """Whether a table of `to_arrow` (either `rows`) holds no call at all."""
    if "tool_calls" in table.column_names:
        return table.num_rows == 0 or not any(table.column("calls").to_pylist())
    return bool(table.column("name").null_count == table.num_rows)


_FORMAT_CHECKS = 16
"""Responses without calls a named parser compares with auto-detection, at most."""


def _auto_format(raw: _Any, keys: list[str] | None) -> _formats.Format | None:
    """The format auto-detection reads the response in the record `raw` as (inside its
    batch envelope, or at `keys`), if any."""
    from toolsift._jsontext import loads
    from toolsift._pure import bulk
    from toolsift._pure.formats import detect_or_none

    if isinstance(raw, (str, bytes, bytearray, memoryview)):
        try:
            response, _, error = bulk.locate(loads(raw), keys)
        except (_ParseError, TypeError, ValueError):
            return None
    else:
        response, _, error = bulk.locate_object(raw, keys)
    found = None if error is not None else detect_or_none(response)
    return None if found is None else _formats.by_name(found.name)


def _rebuild(cls: type[_ResponseParser], options: dict[str, _Any]) -> _ResponseParser:
    return cls(**options)


def _named_class(cls: type) -> type:
    """`cls`, or its nearest base pickle can find by name (a class made at run time, as
    the tests' backend-bound subclasses, is pickled as the public class it extends)."""
    for klass in cls.__mro__:
        found: object = _sys.modules.get(klass.__module__)
        for part in klass.__qualname__.split("."):
            found = getattr(found, part, None)
        if found is klass:
            return klass
    return cls


class _TextDialectParser(_ResponseParser):
    """Servers started without a tool-call parser leave the calls as raw text in the
    assistant text: `text_dialect` (a dialect name of `toolsift.formats.DIALECT_NAMES`, or
    `"auto"`: the dialect whose markers the text holds) reads the calls from the text of
    each message (choice) that has no structured call (structured calls win); `tools`
    type the values, as `RawTextParser`'s. With `text_dialect`, the AgentResponse's
    `content` and `reasoning` are the dialect's reading of the assistant text (the text
    outside the calls, markers removed; several choices' joined by a blank line).
    `repair="safe"`: the audited repairs of argument text (README: Argument defects).
    Without `text_dialect`, `tools` (any shape `to_arrow`'s `tools` takes) check each call
    (`violations`); with it, `parse` types by them and `to_arrow` checks by them."""

    def __init__(
        self,
        *,
        text_dialect: str | None = None,
        tools: _Iterable[_Any] | None = None,
        repair: str | None = None,
    ) -> None:
        if text_dialect is None:
            super().__init__(repair=repair)
        else:
            listed = _checked_text_options(text_dialect, tools)
            core_tools = None if listed is None else _json_text(listed)
            super().__init__(text_dialect=text_dialect, tools=core_tools, repair=repair)
            self._options = {"text_dialect": text_dialect, "tools": listed}
            if repair is not None:
                self._options["repair"] = repair
            # As RawTextParser's: the values typed by `parse`, the calls checked where
            # asked (`to_arrow`, the CLI).
            self._tools = listed
            return
        self._check_against(tools)

    def __repr__(self) -> str:
        text_dialect = self._options.get("text_dialect")
        if text_dialect is None:
            return f"{type(self).__name__}({_repair_repr(self.repair, first=True)})"
        tools = self._options.get("tools")
        tools_repr = "" if tools is None else f", tools=[...{len(tools)}]"
        return (
            f"{type(self).__name__}(text_dialect={text_dialect!r}{tools_repr}"
            f"{_repair_repr(self.repair)})"
        )


def _checked_text_options(dialect: str, tools: _Iterable[_Any] | None) -> list[_Any] | None:
    """A dialect name (or "auto") checked, and `tools` as a list (None stays None)."""
    if dialect != _formats.AUTO and dialect not in _formats.DIALECT_NAMES:
        names = ", ".join((*_formats.DIALECT_NAMES, _formats.AUTO))
        raise ValueError(f"unknown dialect {dialect!r}; expected one of: {names}")
    if tools is None:
        return None
    if isinstance(tools, (str, bytes, dict)) or not isinstance(tools, _Iterable):
        raise TypeError("tools must be a list of tool definitions, or None")
    return list(tools)


class _WalkedParser(_TextDialectParser):
    """A format of the registry: a subclass names its format, and its docstring comes
    from the registry (`toolsift.formats`)."""

    def __init_subclass__(cls, **kwargs: _Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("__doc__") is None:
            spec = _formats.by_name(cls._format)
            cls.__doc__ = (
                f"`{spec.name}` responses: calls at {spec.where}; id: {spec.id}.\n\n"
                f"{_inspect.cleandoc(_TextDialectParser.__doc__ or '')}"
            )


# One class per format of the registry (tests/test_registry.py checks they agree).
class OpenAIResponseParser(_WalkedParser):
    _format = "openai"


class OpenAIResponsesParser(_WalkedParser):
    _format = "openai-responses"


class AnthropicResponseParser(_WalkedParser):
    _format = "anthropic"


class GeminiResponseParser(_WalkedParser):
    _format = "gemini"


class GeminiInteractionsParser(_WalkedParser):
    _format = "gemini-interactions"


class BedrockConverseParser(_WalkedParser):
    _format = "bedrock"


class OllamaResponseParser(_WalkedParser):
    _format = "ollama"


class CohereResponseParser(_WalkedParser):
    _format = "cohere"


class AutoResponseParser(_TextDialectParser):
    """Any provider's responses, each recognized on its own by its shape (so one file may
    mix providers): read as the first format of the registry's detection order whose
    distinctive structure it has (docs: Formats and auto-detection). A response no format
    recognizes is `UnrecognizedShape` (a ParseError) from `parse`, and the error
    `unrecognized response shape (keys: a, b, c)` in batches. `to_arrow`'s `format`
    column says which format each record was read as. `text_dialect` and `tools` as for
    the provider parsers (`OpenAIResponseParser(text_dialect="hermes")`)."""

    _format = "auto"


class JsonResponseParser(_ResponseParser):
    """Custom JSON endpoints: calls at a dot path, with configurable key names."""

    _format = "json"

    def __init__(
        self,
        *,
        tool_calls_key: str = "tool_calls",
        name_key: str = "name",
        arguments_key: str = "arguments",
        single: bool = False,
        repair: str | None = None,
    ) -> None:
        # Checked here, once, so both backends refuse alike (a non-str key would find
        # nothing in JSON, whose keys are all strings). `single` is read for its truth.
        for key, value in (
            ("tool_calls_key", tool_calls_key),
            ("name_key", name_key),
            ("arguments_key", arguments_key),
        ):
            if not isinstance(value, str):
                raise TypeError(f"{key} must be a str, got {type(value).__name__}")
        self.tool_calls_key = tool_calls_key
        self.name_key = name_key
        self.arguments_key = arguments_key
        self.single = single
        super().__init__(
            tool_calls_key=tool_calls_key,
            name_key=name_key,
            arguments_key=arguments_key,
            single=single,
            repair=repair,
        )

    def __repr__(self) -> str:
        return (
            f"JsonResponseParser(tool_calls_key={self.tool_calls_key!r}, "
            f"name_key={self.name_key!r}, arguments_key={self.arguments_key!r}, "
            f"single={self.single!r}{_repair_repr(self.repair)})"
        )


class SdkResponseParser(_ResponseParser):
    """LiteRT-LM / Gemma 4 responses: top-level `tool_calls` (OpenAI-style or flat),
    `content[]` items of type `tool_call`, JSON documents glued back to back, and, when
    none of those holds a call, raw `<|tool_call>call:NAME{...}<tool_call|>` tokens (and
    FunctionGemma's `<start_function_call>...`). The escape token `<|"|>` is stripped
    from argument string values.

    `parse` never raises: text without calls, or that is not valid Unicode, has none.
    The helpers are called on the class (`SdkResponseParser.extract_tool_calls(text)`);
    the two that are hot run in the class's backend.
    """

    _format = "litert"

    def __init__(self, *, tools: _Any = None, repair: str | None = None) -> None:
        super().__init__(repair=repair)
        self._check_against(tools)

    @classmethod
    def extract_tool_calls(cls, text: str | bytes | bytearray | memoryview) -> list[_ToolCall]:
        """Every tool call in a LiteRT-LM response text (`[]` for anything else)."""
        return cls._backend.extract_tool_calls(text)

    @classmethod
    def clean_raw_for_history(cls, text: str | bytes | bytearray | memoryview) -> str:
        """The response text to keep in the chat history: one JSON document re-written
        compact with `<|"|>` stripped from string values; any other text unchanged."""
        cleaned: str = cls._backend.clean_raw_for_history(text)
        return cleaned

    @staticmethod
    def serialize_tools_for_sdk(tools: _Iterable[_Any]) -> str:
        """Tool definitions as the compact JSON list LiteRT-LM takes. Raises TypeError or
        ValueError, as `json.dumps` does, for parameters that are not JSON (a set, NaN)."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.serialize_tools_for_sdk(tools)

    @staticmethod
    def build_tool_responses_json(responses: _Iterable[_Any]) -> str:
        """One role-tool message carrying every `(name, response)` of a turn, each response
        as it is (a str stays a JSON string; `tool_response_payload` makes result text an
        object). Raises TypeError or ValueError, as `json.dumps` does, for what is not JSON."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.build_tool_responses_json(responses)

    @staticmethod
    def tool_response_payload(text: str) -> dict[str, _Any]:
        """A tool's result text as an object: decoded when it is a JSON object, otherwise
        `{"value": text}`."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.tool_response_payload(text)


class RawTextParser(_ResponseParser):
    """Open-weight models' raw output text: the tool calls of one dialect (`"hermes"`,
    `"qwen3-coder"`, ... : `toolsift.formats.DIALECT_NAMES`, the README's dialect table),
    or `"auto"`: each text read as the dialect whose markers it holds (bare-JSON dialects,
    `llama3-json` and `xlam`, are never guessed; text no dialect recognizes has no calls
    and is all `content`).

    `tools`: the request's tool definitions (OpenAI-style `{"type": "function",
    "function": {"name", "parameters"}}` or flat `{"name", "parameters"}`, or any shape
    `to_arrow`'s `tools` takes), or None; the XML-style dialects type the values they
    carry as text by each parameter's JSON Schema (without `tools`, values are strings);
    `to_arrow(..., tools=...)` checks calls against them (`violations`). `parse` takes
    `str` (or UTF-8 `bytes`) and never raises: the AgentResponse has the calls,
    `content` (the text outside the calls, markers removed) and `reasoning` (think /
    analysis blocks), None where there is none. In the batch, file and Arrow APIs a
    record (a JSONL line) that is a JSON string is the text; any other line is the text
    as written.
    """

    def __init__(
        self, dialect: str, tools: _Iterable[_Any] | None = None, *, repair: str | None = None
    ) -> None:
        tools = _checked_text_options(dialect, tools)
        self.dialect = dialect
        self.tools = tools
        self._format = _formats.AUTO_TEXT if dialect == _formats.AUTO else dialect  # type: ignore[misc]
        core_tools = None if tools is None else _json_text(tools)
        super().__init__(tools=core_tools, repair=repair)
        self._options = {"dialect": dialect, "tools": tools}
        if repair is not None:
            self._options["repair"] = repair
        # Checked against them where asked (`to_arrow(requests=...)`, the CLI), not by
        # `parse`: its calls are as they were before checks existed.
        self._tools = tools
        self._checks_left = 0  # auto-detection reads JSON responses, not raw text
        self._parse_directly()

    def __repr__(self) -> str:
        tools = "" if self.tools is None else f", tools=[...{len(self.tools)}]"
        return f"RawTextParser({self.dialect!r}{tools}{_repair_repr(self.repair)})"

    def stream(self) -> _Stream:
        """A stream of the output text in deltas as a server or a rollout engine emits
        them (`str`, or UTF-8 `bytes`, cut anywhere: markers and characters split across
        deltas): `feed(delta)` returns the calls that delta completed, `partial()` every
        call so far (the open one with its JSON arguments, or its XML parameters typed by
        `tools`, complete so far), `finish()` the AgentResponse of `parse` of the whole
        text (`raw`: the list of deltas). A call is complete when its end marker arrives,
        or the next block's marker, or (no end marker: bare JSON, pythonic lists, Mistral)
        the bracket that closes it; a `<think>` block still open holds none. The rules per
        dialect, and the two cases where `finish()` differs from what `feed` reported
        (a `</think>` the prompt opened, arriving after calls; `"auto"` recognizing an
        earlier dialect later), are in `toolsift._pure.dialects._stream`."""
        return self._core.stream()


class MessagesParser(_TextDialectParser):
    """Conversation transcripts (RL rollouts, SFT data, agent traces): a list of chat
    messages in OpenAI's, Anthropic's or Gemini's shape, given as the record, as a
    record's `messages` (or Gemini `contents`) member, at `record_path="messages"`, or
    one assistant message (a transcript of one turn). Every assistant turn's calls, in
    order, each with `turn` (the message's index), `result` (its tool's answer, paired by
    id, else by order: a string as given, any other value as compact JSON text) and
    `result_error` (True where the result says the call failed: Anthropic `is_error`, a
    Gemini `response.error`); `to_arrow` has the same columns. `stream()` is not offered.

    `text_dialect`: the raw-text dialect (`toolsift.formats.DIALECT_NAMES`, or `"auto"`)
    an assistant turn with no structured call is read in when its `content` is a string
    (an open model's raw output); None: such turns have no calls. `tools` and `repair`
    as for the provider parsers (`OpenAIResponseParser`).
    """

    _format = "messages"

    def stream(self) -> _Stream:
        raise ValueError("the 'messages' format has no stream reader")


def _json_text(value: _Any) -> str:
    """`value` as JSON text (for the core, which reads the tools itself)."""
    import json

    return json.dumps(value, ensure_ascii=False)


def __dir__() -> list[str]:
    return sorted(__all__)
