"""Drop-in parsers: the class names, keywords and results of `russo.parsers`, faster.

Every class has `parse(raw) -> AgentResponse` and `parse_many(raws, *, threads=None)`,
and pickles (for multiprocessing) as its class and constructor options.
`raw` may be a dict, an SDK object (read by attribute), or `str` / `bytes` of JSON text.
`SdkResponseParser` (LiteRT-LM / Gemma 4, flutter_gemma's name) also has the helpers
of that SDK as class-level functions.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any, ClassVar

from toolsift import _backend, _bulk
from toolsift._pure import formats
from toolsift._types import AgentResponse, ToolCall

__all__ = [
    "AnthropicResponseParser",
    "AutoResponseParser",
    "BedrockConverseParser",
    "CohereResponseParser",
    "GeminiInteractionsParser",
    "GeminiResponseParser",
    "JsonResponseParser",
    "OllamaResponseParser",
    "OpenAIResponseParser",
    "OpenAIResponsesParser",
    "SdkResponseParser",
]


class _ResponseParser:
    # The backend module is read when an instance is made; tests bind subclasses to each.
    _backend: ClassVar[ModuleType] = _backend.core
    _format: ClassVar[str]

    def __init__(self, **options: Any) -> None:
        self._options = options
        self._core = self._backend.Parser(self._format, **options)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as the class and its options, never the core (a compiled object, or a
        # closure): the copy is made anew where it is loaded, with that process's backend
        # (a worker process inherits TOOLSIFT_IMPLEMENTATION), and gives the same results.
        return _rebuild, (_named_class(type(self)), self._options)

    def parse(self, raw: Any) -> AgentResponse:
        """The tool calls in one response. Raises ParseError for text that is not JSON."""
        return self._core.parse(raw)

    def parse_many(self, raws: Iterable[Any], *, threads: int | None = None) -> list[AgentResponse]:
        """`parse` over many responses, in order; text is parsed on `threads` cores
        (None: all) with the GIL released. A record that cannot be read never raises:
        its AgentResponse has no calls and `error` set."""
        return self._core.parse_many(raws, threads)

    def stream(self) -> Any:
        """An accumulator of this provider's stream events (README: Streaming):
        `feed(event)` returns the ToolCalls that event completed, `partial()` the calls
        so far with arguments decoded as far as they arrived, `finish()` the
        AgentResponse of every call. An event is a dict, an SDK event object, `str` /
        `bytes` of one JSON event, or a chunk of SSE text."""
        return self._core.stream()

    def parse_file(
        self,
        path: Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        progress: _bulk.ProgressArg = False,
        max_line_bytes: int | None = None,
    ) -> Iterator[AgentResponse]:
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
        """
        return _bulk.parse_file(self._core, path, record_path, threads, progress, max_line_bytes)

    def to_arrow(
        self,
        source: Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        progress: _bulk.ProgressArg = False,
        max_line_bytes: int | None = None,
    ) -> Any:
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
        `raw_arguments` (the text that did not decode, else null) and `error`. A record
        that could not be read gives one row with `error` set (and `custom_id` where
        known), nulls elsewhere; a record with no calls gives no row. `record_path`,
        `threads` and `progress` as for `parse_file` (for in-memory records, `progress`
        counts records). `max_line_bytes` as for `parse_file` (files only): a longer line
        gives one row with that error. Records may also be dicts or SDK objects (read as
        their JSON text). Compressed data cut short raises OSError, whose `table` holds
        the rows of the lines before the fault.
        """
        return _bulk.to_arrow(self._core, source, record_path, threads, progress, max_line_bytes)

    def arrow_batches(
        self,
        source: Any,
        *,
        record_path: str | None = None,
        threads: int | None = None,
        batch_rows: int = _bulk.BATCH_ROWS,
        max_line_bytes: int | None = None,
        progress: _bulk.ProgressArg = False,
    ) -> Any:
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
        with a `file` column first.
        """
        return _bulk.arrow_batches(
            self._core, source, record_path, threads, progress, max_line_bytes, batch_rows
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _rebuild(cls: type[_ResponseParser], options: dict[str, Any]) -> _ResponseParser:
    return cls(**options)


def _named_class(cls: type) -> type:
    """`cls`, or its nearest base pickle can find by name (a class made at run time, as
    the tests' backend-bound subclasses, is pickled as the public class it extends)."""
    for klass in cls.__mro__:
        found: Any = sys.modules.get(klass.__module__)
        for part in klass.__qualname__.split("."):
            found = getattr(found, part, None)
        if found is klass:
            return klass
    return cls


def _walked_parser(name: str) -> type[_ResponseParser]:
    """The parser class of a format of the registry that takes no options."""
    spec = formats.by_name(name)

    def __init__(self: _ResponseParser) -> None:
        _ResponseParser.__init__(self)

    return type(
        spec.parser_class,
        (_ResponseParser,),
        {
            "__doc__": f"`{name}` responses: calls at {spec.module.WHERE}; id: {spec.module.ID}.",
            "__module__": __name__,
            "__qualname__": spec.parser_class,
            "__init__": __init__,
            "_format": name,
        },
    )


# One line per format of the registry (tests/test_registry.py checks they agree).
OpenAIResponseParser = _walked_parser("openai")
OpenAIResponsesParser = _walked_parser("openai-responses")
AnthropicResponseParser = _walked_parser("anthropic")
GeminiResponseParser = _walked_parser("gemini")
GeminiInteractionsParser = _walked_parser("gemini-interactions")
BedrockConverseParser = _walked_parser("bedrock")
OllamaResponseParser = _walked_parser("ollama")
CohereResponseParser = _walked_parser("cohere")


class AutoResponseParser(_ResponseParser):
    """Any provider's responses, each recognized on its own by its shape (so one file may
    mix providers): read as the first format of the registry's detection order whose
    distinctive structure it has (README: Auto-detection). A response no format
    recognizes is `UnrecognizedShape` (a ParseError) from `parse`, and the error
    `unrecognized response shape (keys: a, b, c)` in batches. `to_arrow`'s `format`
    column says which format each record was read as."""

    _format = "auto"

    def __init__(self) -> None:
        super().__init__()


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
        )

    def __repr__(self) -> str:
        return (
            f"JsonResponseParser(tool_calls_key={self.tool_calls_key!r}, "
            f"name_key={self.name_key!r}, arguments_key={self.arguments_key!r}, "
            f"single={self.single!r})"
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

    def __init__(self) -> None:
        super().__init__()

    @classmethod
    def extract_tool_calls(cls, text: str | bytes | bytearray | memoryview) -> list[ToolCall]:
        """Every tool call in a LiteRT-LM response text (`[]` for anything else)."""
        return cls._backend.extract_tool_calls(text)

    @classmethod
    def clean_raw_for_history(cls, text: str | bytes | bytearray | memoryview) -> str:
        """The response text to keep in the chat history: one JSON document re-written
        compact with `<|"|>` stripped from string values; any other text unchanged."""
        return cls._backend.clean_raw_for_history(text)

    @staticmethod
    def serialize_tools_for_sdk(tools: Iterable[Any]) -> str:
        """Tool definitions as the compact JSON list LiteRT-LM takes. Raises TypeError or
        ValueError, as `json.dumps` does, for parameters that are not JSON (a set, NaN)."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.serialize_tools_for_sdk(tools)

    @staticmethod
    def build_tool_responses_json(responses: Iterable[Any]) -> str:
        """One role-tool message carrying every `(name, response)` of a turn, each response
        as it is (a str stays a JSON string; `tool_response_payload` makes result text an
        object). Raises TypeError or ValueError, as `json.dumps` does, for what is not JSON."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.build_tool_responses_json(responses)

    @staticmethod
    def tool_response_payload(text: str) -> dict[str, Any]:
        """A tool's result text as an object: decoded when it is a JSON object, otherwise
        `{"value": text}`."""
        from toolsift._pure.formats import litert  # pure in both backends; when used

        return litert.tool_response_payload(text)
