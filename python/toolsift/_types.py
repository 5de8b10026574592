"""The normalized shape every parser returns. One definition, used by both backends."""

from __future__ import annotations

from typing import Any

__all__ = ["AgentResponse", "ToolCall"]


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a decoded JSON value, equal where the values are equal."""
    if isinstance(value, dict):
        return frozenset((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


class ToolCall:
    """One tool call: its name and its arguments as a dict.

    `id` is the provider's call id where it gives one. `raw_arguments` keeps the original
    argument text whenever it could not be decoded into a JSON object (then `arguments`
    is `{}`), so nothing is lost. Equality and hash use `name` and `arguments` only.
    """

    __slots__ = ("arguments", "id", "name", "raw_arguments")

    name: str
    arguments: dict[str, Any]
    id: str | None
    raw_arguments: str | None

    def __init__(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        id: str | None = None,
        raw_arguments: str | None = None,
    ) -> None:
        self.name = name
        self.arguments = {} if arguments is None else arguments
        self.id = id
        self.raw_arguments = raw_arguments

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self.name == other.name and self.arguments == other.arguments

    def __hash__(self) -> int:
        return hash((self.name, _freeze(self.arguments)))

    def __repr__(self) -> str:
        extra = ""
        if self.id is not None:
            extra += f", id={self.id!r}"
        if self.raw_arguments is not None:
            extra += f", raw_arguments={self.raw_arguments!r}"
        return f"ToolCall(name={self.name!r}, arguments={self.arguments!r}{extra})"

    def model_dump(self) -> dict[str, Any]:
        """A plain dict of all four fields (pydantic-style name, for russo users)."""
        return {
            "name": self.name,
            "arguments": self.arguments,
            "id": self.id,
            "raw_arguments": self.raw_arguments,
        }

    to_dict = model_dump

    def __reduce__(self) -> tuple[Any, ...]:
        return (ToolCall, (self.name, self.arguments, self.id, self.raw_arguments))


class AgentResponse:
    """The tool calls found in one response.

    `raw` is the caller's input object itself. `error` is set only by the batch and file
    APIs, for a record that could not be read at all (then `tool_calls` is empty).
    """

    __slots__ = ("error", "raw", "tool_calls")

    tool_calls: list[ToolCall]
    raw: Any
    error: str | None

    def __init__(
        self,
        tool_calls: list[ToolCall] | None = None,
        raw: Any = None,
        error: str | None = None,
    ) -> None:
        self.tool_calls = [] if tool_calls is None else tool_calls
        self.raw = raw
        self.error = error

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentResponse):
            return NotImplemented
        return (
            self.tool_calls == other.tool_calls
            and self.raw == other.raw
            and self.error == other.error
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like a pydantic model

    def __repr__(self) -> str:
        error = "" if self.error is None else f", error={self.error!r}"
        return f"AgentResponse(tool_calls={self.tool_calls!r}, raw={self.raw!r}{error})"

    def model_dump(self) -> dict[str, Any]:
        """A plain dict; tool calls become dicts too."""
        return {
            "tool_calls": [call.model_dump() for call in self.tool_calls],
            "raw": self.raw,
            "error": self.error,
        }

    to_dict = model_dump

    def __reduce__(self) -> tuple[Any, ...]:
        return (AgentResponse, (self.tool_calls, self.raw, self.error))
