"""Stubs of the compiled module (src/python/)."""

from collections.abc import Iterable
from typing import Any, Final, final

from toolsift._types import AgentResponse, ToolCall

__all__ = [
    "BUILD_PROFILE",
    "MAX_DEPTH",
    "Parser",
    "clean_raw_for_history",
    "extract_tool_calls",
]

MAX_DEPTH: Final[int]
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
    ) -> Parser: ...
    def parse(self, raw: Any) -> AgentResponse: ...
    def parse_many(
        self, raws: Iterable[Any], threads: int | None = None
    ) -> list[AgentResponse]: ...

def extract_tool_calls(text: str | bytes | bytearray | memoryview | Any) -> list[ToolCall]: ...
def clean_raw_for_history(text: str | bytes | bytearray | memoryview | Any) -> Any: ...
