"""The calls every format yields, made into ToolCalls (the twin of `src/calls.rs`): a
walker finds `(name, id, arguments)` as they are; these turn them into a `ToolCall`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from toolsift._jsontext import (
    dumps_compact,
    holds_too_long_int,
    loads_if_json,
    may_hold_big_integer,
    too_long_ints_made,
)
from toolsift._pure.defects import with_defect
from toolsift._types import ToolCall

__all__ = [
    "RawCall",
    "Turn",
    "Verbatim",
    "arguments_of",
    "decoded_tool_call",
    "harvest",
    "tool_call",
]

RawCall = tuple[Any, Any, Any]  # (name, id, arguments) as found, None where missing
Turn = tuple[list[RawCall], list[Any]]
"""One assistant message of a response (a choice, a candidate): its calls, and the values
holding its text (the strings among them are the text, in order), which `text_dialect`
reads where the message has no call (a format's `turns`)."""


class Verbatim:
    """Arguments found as free text, not JSON (a custom tool's `input`): a string is
    kept in `raw_arguments` as it is, with `arguments={}`; any other value is read as
    arguments are."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def arguments_of(value: Any) -> tuple[dict[str, Any], str | None]:
    """`(arguments, raw_arguments)` from the arguments value as found.

    An object (a dict, or any other mapping such as an older SDK's proto map) is the
    arguments (copied); a string is decoded as JSON and must give an object; anything
    else gives `{}` and keeps the value as text, so nothing is lost. Missing or null
    means no arguments.
    """
    if isinstance(value, Verbatim):
        if isinstance(value.value, str):
            return {}, value.value
        value = value.value
    if value is None:
        return {}, None
    if isinstance(value, dict):
        if holds_too_long_int(value):  # decoded here from text: kept as that text
            return {}, dumps_compact(value)
        return dict(value), None
    if isinstance(value, str):
        made = too_long_ints_made()
        ok, decoded = loads_if_json(value)  # only whether: not `loads`' reason why not
        if ok and isinstance(decoded, dict) and too_long_ints_made() == made:
            return decoded, None
        return {}, value
    if isinstance(value, Mapping):
        return dict(value), None
    return {}, dumps_compact(value)


def tool_call(name: Any, id: Any, arguments: Any) -> ToolCall:
    """A ToolCall from the raw values: a name or id that is not a string counts as
    missing; arguments that do not decode have their defect (a custom tool's text has
    none)."""
    decoded, raw = arguments_of(arguments)
    call = ToolCall(
        name if isinstance(name, str) else "",
        decoded,
        id if isinstance(id, str) else None,
        raw,
    )
    if raw is None or (isinstance(arguments, Verbatim) and isinstance(arguments.value, str)):
        return call
    return with_defect(call)


def decoded_tool_call(name: Any, id: Any, arguments: Any) -> ToolCall:
    """`tool_call` for values from a document decoded here: its dicts are our own, so
    inline arguments are not copied; an argument string that plain orjson decodes into
    an object, with no run of digits it may have rounded, is that object (what `loads`
    gives, without its bookkeeping); any other goes `tool_call`'s way."""
    if type(arguments) is str:
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            decoded = None
        if type(decoded) is dict and not may_hold_big_integer(arguments):
            arguments = decoded
        else:
            return tool_call(name, id, arguments)
    if type(arguments) is dict:
        name = name if type(name) is str else ""
        return ToolCall(name, arguments, id if type(id) is str else None, None)
    return tool_call(name, id, arguments)


def harvest(calls: Iterable[RawCall]) -> list[ToolCall]:
    return [tool_call(name, id, arguments) for name, id, arguments in calls]
