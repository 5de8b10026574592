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
from toolsift._types import AgentResponse

try:
    from russo import AgentResponse as RussoAgentResponse
    from russo import ToolCall as RussoToolCall
except ImportError as exc:  # pragma: no cover - exercised only without russo
    raise ImportError(
        "toolsift.russo needs the russo package (pip install russo); "
        "use toolsift.parsers for toolsift's own types"
    ) from exc

__all__ = ["GeminiResponseParser", "JsonResponseParser", "OpenAIResponseParser", "to_russo"]


def to_russo(response: AgentResponse) -> RussoAgentResponse:
    """russo's AgentResponse with the same calls and raw response."""
    calls = [
        RussoToolCall.model_construct(name=call.name, arguments=call.arguments)
        for call in response.tool_calls
    ]
    return RussoAgentResponse.model_construct(tool_calls=calls, raw=response.raw)


class _RussoResults:
    def parse(self, raw: Any) -> RussoAgentResponse:  # type: ignore[override]
        return to_russo(super().parse(raw))  # type: ignore[misc]

    def parse_many(  # type: ignore[override]
        self, raws: Iterable[Any], *, threads: int | None = None
    ) -> list[RussoAgentResponse]:
        return [to_russo(r) for r in super().parse_many(raws, threads=threads)]  # type: ignore[misc]


class OpenAIResponseParser(_RussoResults, parsers.OpenAIResponseParser):
    """`toolsift.parsers.OpenAIResponseParser`, returning russo's models."""


class GeminiResponseParser(_RussoResults, parsers.GeminiResponseParser):
    """`toolsift.parsers.GeminiResponseParser`, returning russo's models."""


class JsonResponseParser(_RussoResults, parsers.JsonResponseParser):
    """`toolsift.parsers.JsonResponseParser`, returning russo's models."""
