"""The context columns of a table of calls (the twin of `Context` in `src/calls.rs` and
`context_of` in `src/record.rs`): `model`, `response_id`, `finish_reason`,
`choice_index` and `call_type`.

Each walked format's module says where its response holds them: `context(doc)` gives
`(model, response_id, finish_reason, choices)` as found, where `choices` is None, or,
for a format whose calls are in choices (OpenAI `choices[]`, Gemini `candidates[]`),
`(choice, finish_reason, calls)` for each choice in order: the choice, its finish reason
as found, and how many calls the walker finds in it (they come first among the
response's calls, in order). Values that are not strings are null. A call's
`finish_reason` is its choice's, else the response's; its `choice_index` is its
choice's `index` (an integer of 32 bits; else the choice's position), null outside a
choice. `call_type` is `custom` for free-text input (`Verbatim`: an OpenAI custom tool,
a Responses `custom_tool_call`), the reader's name for calls read from text (a raw-text
dialect, `litert`), else `function`. A record holding a stream, and the `json` format,
have only the call types.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsift._pure.calls import RawCall, Verbatim
from toolsift._types import ToolCall

__all__ = ["CUSTOM", "FUNCTION", "Context", "Found", "of_response", "of_types"]

FUNCTION = "function"
CUSTOM = "custom"
_INT32 = range(-(2**31), 2**31)

CallContext = tuple[str | None, int | None, str]  # (finish_reason, choice_index, call_type)


class Context:
    """A response's model and id, and each call's `CallContext` (in order)."""

    __slots__ = ("call_type", "calls", "model", "response_id")

    def __init__(
        self,
        model: str | None = None,
        response_id: str | None = None,
        calls: Sequence[CallContext] = (),
        call_type: str = FUNCTION,
    ) -> None:
        self.model = model
        self.response_id = response_id
        self.calls = calls
        self.call_type = call_type  # of a call `calls` does not cover

    def call(self, index: int) -> CallContext:
        if index < len(self.calls):
            return self.calls[index]
        return None, None, self.call_type


class Found(list[ToolCall]):
    """Calls, with the context of the response they were found in."""

    def __init__(self, calls: list[ToolCall], context: Context) -> None:
        super().__init__(calls)
        self.context = context


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _type(arguments: Any) -> str:
    return CUSTOM if isinstance(arguments, Verbatim) else FUNCTION


def of_types(custom: Sequence[bool]) -> Context:
    """The context of calls of which only the types are known (a stream's)."""
    return Context(calls=[(None, None, CUSTOM if c else FUNCTION) for c in custom])


def of_response(module: Any, doc: Any, raw_calls: Sequence[RawCall]) -> Context:
    """The context of a response `doc` read by the format `module`, whose walker found
    `raw_calls` in it."""
    read = getattr(module, "context", None)
    if read is None or not raw_calls:
        return of_types([isinstance(call[2], Verbatim) for call in raw_calls])
    model, response_id, finish_reason, choices = read(doc)
    per_call: list[CallContext] = []
    for position, (choice, finish, count) in enumerate(choices or ()):
        index = choice.get("index") if isinstance(choice, dict) else None
        if type(index) is not int or index not in _INT32:
            index = position
        per_call.extend((_text(finish), index, FUNCTION) for _ in range(count))
    finish_reason = _text(finish_reason)
    per_call.extend((finish_reason, None, FUNCTION) for _ in raw_calls[len(per_call) :])
    return Context(
        _text(model),
        _text(response_id),
        [(f, i, _type(call[2])) for (f, i, _), call in zip(per_call, raw_calls, strict=False)],
    )
