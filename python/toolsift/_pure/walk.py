"""Format walkers for OpenAI, Gemini and custom JSON responses (pure Python); the
LiteRT-LM format (`litert`) is read by `toolsift._pure.litert.parse_sdk`.

Each walker reads a decoded response (dicts and lists from JSON text, or the caller's
own dicts and SDK objects read by attribute) and yields `(name, id, arguments)` for
every call; `_tool_call` then turns those three raw values into a ToolCall. The Rust
walkers in `src/formats/` follow these functions line by line.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from toolsift._errors import ParseError, check_threads, record_error
from toolsift._jsontext import dumps_compact, holds_too_long_int, loads, may_hold_big_integer
from toolsift._pure import bulk, litert
from toolsift._types import AgentResponse, ToolCall

__all__ = ["Parser", "Verbatim", "arguments_of", "harvest"]

TEXT_TYPES = (str, bytes, bytearray, memoryview)
# Values that are never read by attribute: only dicts are looked into, and other
# objects (SDK models) by attribute.
_PLAIN = (str, bytes, bytearray, memoryview, int, float, list, tuple, type(None))

RawCall = tuple[Any, Any, Any]  # (name, id, arguments) as found, None where missing
Walker = Callable[[Any], Iterable[RawCall]]
DecodedWalker = Callable[[Any], list[RawCall]]  # for documents decoded from JSON text
_STR_OR_NONE = (str, type(None))


def field(obj: Any, key: str) -> Any:
    """`obj[key]` for a dict, `obj.key` for an SDK object; None where missing."""
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, _PLAIN):
        return None
    return getattr(obj, key, None)


def member(obj: Any, key: str) -> Any:
    """`obj[key]` for a dict only (custom JSON paths do not read attributes)."""
    return obj.get(key) if isinstance(obj, dict) else None


def elements(obj: Any) -> Sequence[Any]:
    """The items of a list or tuple; nothing for anything else."""
    return obj if isinstance(obj, (list, tuple)) else ()


def openai_calls(doc: Any) -> Iterator[RawCall]:
    """`choices[].message.tool_calls[].function.{name, arguments}`, `tool_calls[].id`."""
    for choice in elements(field(doc, "choices")):
        for call in elements(field(field(choice, "message"), "tool_calls")):
            function = field(call, "function")
            if function is None:
                continue
            yield field(function, "name"), field(call, "id"), field(function, "arguments")


def gemini_calls(doc: Any) -> Iterator[RawCall]:
    """`candidates[].content.parts[].function_call` (or REST `functionCall`)."""
    for candidate in elements(field(doc, "candidates")):
        for part in elements(field(field(candidate, "content"), "parts")):
            call = field(part, "function_call")
            if call is None:
                call = field(part, "functionCall")
            if call is None:
                continue
            yield field(call, "name"), field(call, "id"), field(call, "args")


# The same two walks over a document decoded from JSON text, which holds only dicts,
# lists and scalars: `dict.get` in place of `field` (a Python call per step), for the
# text fast path. The parity tests hold them to the walkers above.


def decoded_openai_calls(doc: Any) -> list[RawCall]:
    """`openai_calls` of a document decoded from JSON text."""
    found: list[RawCall] = []
    choices = doc.get("choices") if type(doc) is dict else None
    if type(choices) is not list:
        return found
    for choice in choices:
        message = choice.get("message") if type(choice) is dict else None
        tool_calls = message.get("tool_calls") if type(message) is dict else None
        if type(tool_calls) is not list:
            continue
        for call in tool_calls:
            function = call.get("function") if type(call) is dict else None
            if function is None:
                continue
            if type(function) is dict:
                found.append((function.get("name"), call.get("id"), function.get("arguments")))
            else:
                found.append((None, call.get("id"), None))
    return found


def decoded_gemini_calls(doc: Any) -> list[RawCall]:
    """`gemini_calls` of a document decoded from JSON text."""
    found: list[RawCall] = []
    candidates = doc.get("candidates") if type(doc) is dict else None
    if type(candidates) is not list:
        return found
    for candidate in candidates:
        content = candidate.get("content") if type(candidate) is dict else None
        parts = content.get("parts") if type(content) is dict else None
        if type(parts) is not list:
            continue
        for part in parts:
            if type(part) is not dict:
                continue
            call = part.get("function_call")
            if call is None:
                call = part.get("functionCall")
                if call is None:
                    continue
            if type(call) is dict:
                found.append((call.get("name"), call.get("id"), call.get("args")))
            else:
                found.append((None, None, None))
    return found


def json_calls(
    doc: Any, path: Sequence[str], name_key: str, arguments_key: str, single: bool
) -> list[RawCall]:
    """Calls at a dot path of dict keys; a list is searched item by item, first hit wins."""
    if isinstance(doc, (list, tuple)):
        for item in doc:
            found = _json_calls_at(item, path, name_key, arguments_key, single)
            if found:
                return found
        return []
    return _json_calls_at(doc, path, name_key, arguments_key, single)


def _json_calls_at(
    doc: Any, path: Sequence[str], name_key: str, arguments_key: str, single: bool
) -> list[RawCall]:
    found_at = doc
    for key in path:
        found_at = member(found_at, key)
        if found_at is None:
            return []  # missing, or null (russo then finds no list in it)
    found: list[RawCall] = []
    for call in [found_at] if single else elements(found_at):
        if not isinstance(call, dict):
            continue
        name = call.get(name_key)
        if not isinstance(name, str) or not name:
            continue  # entries without a name are skipped, as russo does
        found.append((name, call.get("id"), call.get(arguments_key)))
    return found


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
        try:
            decoded = loads(value)
        except ParseError:
            return {}, value
        if isinstance(decoded, dict) and not holds_too_long_int(decoded):
            return decoded, None
        return {}, value
    if isinstance(value, Mapping):
        return dict(value), None
    return {}, dumps_compact(value)


def tool_call(name: Any, id: Any, arguments: Any) -> ToolCall:
    """A ToolCall from the raw values: a name or id that is not a string counts as missing."""
    decoded, raw = arguments_of(arguments)
    return ToolCall(
        name if isinstance(name, str) else "",
        decoded,
        id if isinstance(id, str) else None,
        raw,
    )


def decoded_tool_call(name: Any, id: Any, arguments: Any) -> ToolCall:
    """`tool_call` for values from a document decoded here: its dicts are our own, so
    inline arguments are not copied."""
    if type(arguments) is dict:
        name = name if type(name) is str else ""
        return ToolCall(name, arguments, id if type(id) is str else None, None)
    return tool_call(name, id, arguments)


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic collector off while a batch builds its (fresh, acyclic) results:
    collecting meanwhile would only re-scan them again and again. Restored after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def harvest(calls: Iterable[RawCall]) -> list[ToolCall]:
    return [tool_call(name, id, arguments) for name, id, arguments in calls]


class Parser:
    """One configured walker; the public parser classes delegate to it."""

    def __init__(
        self,
        format: str,
        tool_calls_key: str = "tool_calls",
        name_key: str = "name",
        arguments_key: str = "arguments",
        single: bool = False,
    ) -> None:
        walkers: dict[str, tuple[Walker, DecodedWalker]] = {
            "openai": (openai_calls, decoded_openai_calls),
            "gemini": (gemini_calls, decoded_gemini_calls),
        }
        self._litert = format == "litert"
        if format == "json":
            path = tool_calls_key.split(".")

            def walk(doc: Any) -> list[RawCall]:
                return json_calls(doc, path, name_key, arguments_key, single)

            # It reads dicts only (by `member`), so it serves decoded documents as is.
            self._walk: Walker = walk
            self._decoded_walk: DecodedWalker = walk
        elif format in walkers:
            self._walk, self._decoded_walk = walkers[format]
        elif not self._litert:
            raise ValueError(
                f"unknown format {format!r}; expected one of: openai, gemini, json, litert"
            )

    def parse(self, raw: Any) -> AgentResponse:
        if self._litert:  # never raises: text without calls (or not Unicode) has none
            return AgentResponse(litert.parse_sdk(raw), raw)
        if not isinstance(raw, TEXT_TYPES):
            return AgentResponse(harvest(self._walk(raw)), raw)
        text = raw.tobytes() if isinstance(raw, memoryview) else raw  # as the Rust backend
        # Fast path: plain orjson. Only the calls are returned from the document, so
        # orjson's one inexactness (integers beyond 64 bits become floats) matters only
        # inside argument values given inline (argument strings are decoded by `loads`,
        # which is exact); where one may be affected, or where orjson refuses the text,
        # `loads` decodes it exactly (or raises ParseError).
        try:
            calls = self.decoded_calls(orjson.loads(text), text)
        except orjson.JSONDecodeError:
            calls = None
        if calls is None:
            calls = self.calls_in(loads(text))
        return AgentResponse(calls, raw)

    def parse_many(self, raws: Iterable[Any], threads: int | None = None) -> list[AgentResponse]:
        check_threads(threads)
        with gc_paused():
            return [self._parse_recorded(raw) for raw in raws]

    def calls_in(self, doc: Any) -> list[ToolCall]:
        """The calls in a decoded response (a str is not decoded here; LiteRT-LM reads
        it as text, as `parse_sdk` does)."""
        if self._litert:
            return litert.parse_sdk(doc)
        return harvest(self._walk(doc))

    def decoded_calls(self, doc: Any, text: Any) -> list[ToolCall] | None:
        """The calls in `doc` (not LiteRT-LM), a response plain orjson decoded from JSON
        text `text` (all of it, or the record it is part of); None where orjson may have
        rounded an integer in arguments given inline and `text` has a run of 19 digits:
        then decode `text` with `loads` and use `calls_in`."""
        found = self._decoded_walk(doc)
        inline = any(type(arguments) not in _STR_OR_NONE for _, _, arguments in found)
        if inline and may_hold_big_integer(text):
            return None
        return [decoded_tool_call(*call) for call in found]

    def _fast_calls(self) -> bulk.DecodedCalls | None:
        """For the bulk readers: `decoded_calls`, where the format has it."""
        return None if self._litert else self.decoded_calls

    def _text_calls(self) -> Callable[[Any], list[ToolCall]] | None:
        """For LiteRT-LM, which reads text: how `parse` finds the calls in a record."""
        return litert.parse_sdk if self._litert else None

    def parse_file(
        self,
        path: str,
        record_path: Sequence[str] | None = None,
        threads: int | None = None,
        progress: Callable[[int], None] | None = None,
        max_line_bytes: int | None = None,
    ) -> Iterator[AgentResponse]:
        return bulk.parse_file(
            self.calls_in,
            path,
            record_path,
            threads,
            progress,
            self._text_calls(),
            self._fast_calls(),
            bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        )

    def arrow_batches(
        self,
        source: Any,
        record_path: Sequence[str] | None,
        threads: int | None,
        progress: Callable[[int], None] | None,
        sink: Callable[[Any], None],
        schema: Any,
        max_line_bytes: int | None = None,
    ) -> dict[str, int]:
        return bulk.arrow_batches(
            self.calls_in,
            source,
            record_path,
            threads,
            progress,
            sink,
            schema,
            self._text_calls(),
            self._fast_calls(),
            bulk.MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes,
        )

    def _parse_recorded(self, raw: Any) -> AgentResponse:
        try:
            return self.parse(raw)
        except Exception as exc:  # one bad record is recorded, never raised
            return AgentResponse([], raw, record_error(exc))
