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
have only the call types; a record without calls has its model and id.

With `text_dialect` (`of_turns`), a call is in the choice of the message it was found in:
the format's `turns(doc)` gives one message per choice, in the order of `context`'s
choices (then any outside them), and a call read from a message's text is of the
dialect's type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsift._pure.calls import RawCall, Verbatim
from toolsift._types import ToolCall

__all__ = [
    "CUSTOM",
    "FUNCTION",
    "Context",
    "Found",
    "Placed",
    "of_response",
    "of_turns",
    "of_types",
]

FUNCTION = "function"
CUSTOM = "custom"
_INT32 = range(-(2**31), 2**31)

CallContext = tuple[str | None, int | None, str]  # (finish_reason, choice_index, call_type)
Placed = tuple[int | None, str]  # a call's choice (its position; None: none) and type


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
    if read is None:
        return of_types([isinstance(call[2], Verbatim) for call in raw_calls])
    found = read(doc)
    placed: list[Placed] = []
    for position, (_, _, count) in enumerate(found[3] or ()):
        placed.extend((position, FUNCTION) for _ in range(count))
    placed.extend((None, FUNCTION) for _ in raw_calls[len(placed) :])
    types = [(choice, _type(call[2])) for (choice, _), call in zip(placed, raw_calls, strict=False)]
    return _placed(found, types)


def of_turns(module: Any, doc: Any, placed: Sequence[Placed]) -> Context:
    """The context of a response `doc` read by the format `module` with `text_dialect`:
    `placed` gives each call's message (the position of its turn) and its type."""
    return _placed(module.context(doc), placed)


def _placed(found: tuple[Any, Any, Any, Any], placed: Sequence[Placed]) -> Context:
    """The context of a response whose format's `context` `found` these values, with
    calls in these choices, of these types."""
    model, response_id, finish_reason, choices = found
    choices = choices or ()
    finish_reason = _text(finish_reason)
    per_call: list[CallContext] = []
    for position, call_type in placed:
        if position is None or position >= len(choices):
            per_call.append((finish_reason, None, call_type))
            continue
        choice, finish, _ = choices[position]
        index = choice.get("index") if isinstance(choice, dict) else None
        if type(index) is not int or index not in _INT32:
            index = position
        per_call.append((_text(finish), index, call_type))
    return Context(_text(model), _text(response_id), per_call)
