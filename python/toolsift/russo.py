"""The parsers for use inside russo itself: they return russo's own models.

russo's pipeline and evaluators validate `ToolCall` as russo's pydantic model, so
toolsift's own types would be rejected there. These classes parse with toolsift and
hand back `russo.ToolCall` / `russo.AgentResponse`, built with `model_construct` (no
re-validation: toolsift already checked the values)::

    from toolsift.russo import OpenAIResponseParser
    agent = HttpAgent(url=..., parser=OpenAIResponseParser())

russo's models have no `id` or `raw_arguments`: those are dropped here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolsift import parsers
from toolsift._types import AgentResponse, Stream, ToolCall

try:
    from russo import AgentResponse as RussoAgentResponse
    from russo import ToolCall as RussoToolCall
except ImportError as exc:  # pragma: no cover - exercised only without russo
    raise ImportError(
        "toolsift.russo needs the russo package (pip install russo); "
        "use toolsift.parsers for toolsift's own types"
    ) from exc

__all__ = [
    "GeminiResponseParser",
    "JsonResponseParser",
    "OpenAIResponseParser",
    "RussoStream",
    "to_russo",
]


def to_russo(response: AgentResponse) -> RussoAgentResponse:
    """russo's AgentResponse with the same calls and raw response."""
    calls = _russo_calls(response.tool_calls)
    return RussoAgentResponse.model_construct(tool_calls=calls, raw=response.raw)


def _russo_calls(calls: Iterable[ToolCall]) -> list[RussoToolCall]:
    return [RussoToolCall.model_construct(name=c.name, arguments=c.arguments) for c in calls]


class RussoStream:
    """`parser.stream()` of these classes: toolsift's accumulator, giving russo's models
    (`feed` and `partial` a list of `russo.ToolCall`, `finish` a `russo.AgentResponse`)."""

    def __init__(self, stream: Stream) -> None:
        self._stream = stream

    def feed(self, event: Any) -> list[RussoToolCall]:
        """Read one event (or chunk of SSE text); the calls it completed, in order."""
        return _russo_calls(self._stream.feed(event))

    def partial(self) -> list[RussoToolCall]:
        """Every call started so far, arguments decoded as far as they arrived."""
        return _russo_calls(self._stream.partial())

    def finish(self) -> RussoAgentResponse:
        """Every call; `raw` is the list of events fed."""
        return to_russo(self._stream.finish())


class _RussoResults:
    def parse(self, raw: Any, *, record_path: str | None = None) -> RussoAgentResponse:
        return to_russo(super().parse(raw, record_path=record_path))  # type: ignore[misc]

    def parse_many(
        self, raws: Iterable[Any], *, threads: int | None = None, record_path: str | None = None
    ) -> list[RussoAgentResponse]:
        found = super().parse_many(raws, threads=threads, record_path=record_path)  # type: ignore[misc]
        return [to_russo(r) for r in found]

    def stream(self) -> RussoStream:
        return RussoStream(super().stream())  # type: ignore[misc]


class OpenAIResponseParser(_RussoResults, parsers.OpenAIResponseParser):  # type: ignore[misc]
    """`toolsift.parsers.OpenAIResponseParser`, returning russo's models."""


class GeminiResponseParser(_RussoResults, parsers.GeminiResponseParser):  # type: ignore[misc]
    """`toolsift.parsers.GeminiResponseParser`, returning russo's models."""


class JsonResponseParser(_RussoResults, parsers.JsonResponseParser):  # type: ignore[misc]
    """`toolsift.parsers.JsonResponseParser`, returning russo's models."""
