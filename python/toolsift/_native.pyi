"""Stubs of the compiled module (src/python/)."""

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import IO, Any, Final, final

from toolsift._pure.dialects._stream import TextStream as _TextStream
from toolsift._types import AgentResponse, ToolCall

__all__ = [
    "BUILD_PROFILE",
    "FORMATS",
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "Checks",
    "FileResponses",
    "Parser",
    "Stream",
    "__version__",
    "clean_raw_for_history",
    "extract_tool_calls",
    "release_memory",
]

__version__: Final[str]  # Cargo.toml's version, which is the package's

FORMATS: Final[tuple[str, ...]]
MAX_DEPTH: Final[int]
MAX_LINE_BYTES: Final[int]
BUILD_PROFILE: Final[str]

@final
class Parser:
    def __new__(
        cls,
        format: str,
        tool_calls_key: str = "tool_calls",
        name_key: str = "name",
        arguments_key: str = "arguments",
        single: object = None,
        tools: str | None = None,
        text_dialect: str | None = None,
        repair: str | None = None,
    ) -> Parser: ...
    def set_owner(self, owner: Any) -> None: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    def parse(self, raw: Any, /, *, record_path: str | None = None) -> AgentResponse: ...
    def stream(self) -> Stream | _TextStream: ...
    def text_calls(self, text: str) -> list[ToolCall]: ...
    def parse_many(
        self,
        raws: Iterable[Any],
        threads: int | None = None,
        record_path: Sequence[str] | None = None,
    ) -> list[AgentResponse]: ...
    def parse_file(
        self,
        path: str,
        record_path: Sequence[str] | None = None,
        threads: int | None = None,
        progress: Callable[[int], object] | None = None,
        max_line_bytes: int | None = None,
    ) -> FileResponses: ...
    def arrow_batches(
        self,
        source: Any,
        record_path: Sequence[str] | None,
        threads: int | None,
        progress: Callable[[int], object] | None,
        sink: Callable[[Any], object],
        schema: Any = None,
        max_line_bytes: int | None = None,
        checks: Checks | None = None,
        every_record: bool = False,
        carry: Sequence[str] | None = None,
    ) -> dict[str, int]: ...

@final
class Checks:
    """The tools calls are checked against (`toolsift._pure.violations.Checks`'s twin)."""

    def __new__(
        cls,
        tools: str | None = None,
        requests: bytes | IO[bytes] | None = None,
        name: str = "requests",
    ) -> Checks: ...
    def violations(self, custom_id: str | None, name: str, arguments: str | None) -> list[str]: ...

@final
class Stream:
    """The accumulator `Parser.stream` returns (`toolsift._pure.stream.Stream`'s twin)."""

    def feed(self, event: Any) -> list[ToolCall]: ...
    def partial(self) -> list[ToolCall]: ...
    def finish(self) -> AgentResponse: ...

@final
class FileResponses(Iterator[AgentResponse]):
    """The iterator `Parser.parse_file` returns."""

    def __iter__(self) -> FileResponses: ...
    def __next__(self) -> AgentResponse: ...

def release_memory() -> None:
    """Give what this thread freed back to the system now (a reading thread that waits)."""

def extract_tool_calls(text: str | bytes | bytearray | memoryview | Any) -> list[ToolCall]: ...
def clean_raw_for_history(text: str | bytes | bytearray | memoryview | Any) -> Any: ...
