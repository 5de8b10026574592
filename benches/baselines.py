"""What a user would write instead of toolsift, for the benchmarks to compare against.

Each baseline turns a list of JSON lines (bytes) into a list of toolsift ``AgentResponse``
objects holding ``ToolCall`` objects with the arguments decoded into dicts, with
toolsift's rules: arguments that do not decode into a JSON object become ``{}`` and
their text is kept in ``raw_arguments``; Gemini reads ``functionCall`` and
``function_call``; LiteRT-LM reads top-level ``tool_calls`` (OpenAI-style or flat) and
``content[]`` items of type ``tool_call``, and strips Gemma's escape token ``<|"|>`` from
the arguments' strings (raw Gemma call tokens in text are not looked for). ``raw`` is
the line itself, as toolsift's ``parse(bytes)`` gives it, so the decoded document is
dropped after the walk (keeping it alive as ``raw``, as russo does, costs much more
than one may think: the collector walks it again and again).

* ``json_walk_*``: ``json.loads`` the line, then a plain Python walk.
* ``orjson_walk_*``: the same walk with ``orjson.loads`` (both for the line and for the
  OpenAI argument strings). orjson turns integers beyond 64 bits into floats, so on the
  few calls that carry such numbers its result differs from ``json.loads``'s.
* ``msgspec_walk_*``: msgspec typed structs (`msgspec.Struct` classes of just the fields
  the walk reads, the rest of the response skipped while decoding), then the same walk
  over the structs; argument strings decoded with ``msgspec.json.decode``. msgspec refuses
  numbers beyond the float range (``1e400``: those arguments stay in ``raw_arguments``).
* ``*_one_*``: the same for one line (for per-call timing, each result dropped).
* ``russo_*``: ``json.loads`` the line, then russo's own parser, which builds russo's
  pydantic ``ToolCall``/``AgentResponse`` (``russo_parsers()`` is None when russo is not
  importable).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import orjson
from litert_corpus import call_items, strip_escape_tokens
from toolsift._types import AgentResponse, ToolCall

__all__ = [
    "gemini_walk",
    "json_walk_gemini",
    "json_walk_litert",
    "json_walk_openai",
    "litert_walk",
    "msgspec_one_gemini",
    "msgspec_one_litert",
    "msgspec_one_openai",
    "msgspec_walk_gemini",
    "msgspec_walk_litert",
    "msgspec_walk_openai",
    "openai_walk",
    "orjson_one_gemini",
    "orjson_one_litert",
    "orjson_one_openai",
    "orjson_walk_gemini",
    "orjson_walk_litert",
    "orjson_walk_openai",
    "russo_bytes",
    "russo_import_error",
    "russo_parsers",
]

Loads = Callable[[Any], Any]


def _decode_args(text: str, loads: Loads) -> tuple[dict[str, Any], str | None]:
    try:
        value = loads(text)
    except ValueError:  # json.JSONDecodeError and orjson.JSONDecodeError both are
        return {}, text
    if isinstance(value, dict):
        return value, None
    return {}, text


def openai_walk(doc: Any, raw: Any = None, loads: Loads = json.loads) -> AgentResponse:
    """`choices[].message.tool_calls[].function.{name, arguments}` of a decoded response.

    `raw` is what the caller passed (the line); None means `doc` itself.
    """
    calls = []
    for choice in doc.get("choices") or ():
        message = choice.get("message")
        if not message:
            continue
        for tc in message.get("tool_calls") or ():
            function = tc.get("function")
            if function is None:
                continue
            args = function.get("arguments", "{}")
            raw_args = None
            if isinstance(args, str):
                args, raw_args = _decode_args(args, loads)
            elif not isinstance(args, dict):
                args, raw_args = {}, json.dumps(args)
            calls.append(ToolCall(function.get("name", ""), args, tc.get("id"), raw_args))
    return AgentResponse(calls, doc if raw is None else raw)


def gemini_walk(doc: Any, raw: Any = None, loads: Loads = json.loads) -> AgentResponse:
    """`candidates[].content.parts[].functionCall|function_call.{name, args, id}`.

    `raw` is what the caller passed (the line); None means `doc` itself.
    """
    calls = []
    for cand in doc.get("candidates") or ():
        content = cand.get("content")
        if not content:
            continue
        for part in content.get("parts") or ():
            fc = part.get("functionCall")
            if fc is None:
                fc = part.get("function_call")
                if fc is None:
                    continue
            args = fc.get("args") or {}
            raw_args = None
            if isinstance(args, str):
                args, raw_args = _decode_args(args, loads)
            elif not isinstance(args, dict):
                args, raw_args = {}, json.dumps(args)
            calls.append(ToolCall(fc.get("name", ""), args, fc.get("id"), raw_args))
    return AgentResponse(calls, doc if raw is None else raw)


def litert_walk(doc: Any, raw: Any = None, loads: Loads = json.loads) -> AgentResponse:
    """The calls of a LiteRT-LM message: `tool_calls[]` (`{id, function: {name,
    arguments}}` or flat `{name, arguments}`), then `content[]` items of type `tool_call`.

    `raw` is what the caller passed (the line); None means `doc` itself.
    """
    calls = []
    for item in call_items(doc) if isinstance(doc, dict) else ():
        if not isinstance(item, dict):
            continue
        function = item.get("function")
        body = function if isinstance(function, dict) else item
        name = body.get("name")
        if not isinstance(name, str) or not name:
            continue
        args = body.get("arguments")
        raw_args = None
        if isinstance(args, str):
            args, raw_args = _decode_args(args, loads)
        elif args is None:
            args = {}
        elif not isinstance(args, dict):
            args, raw_args = {}, json.dumps(args)
        calls.append(ToolCall(name, strip_escape_tokens(args), item.get("id"), raw_args))
    return AgentResponse(calls, doc if raw is None else raw)


Walk = Callable[[Any, Any, Loads], AgentResponse]


def _each_line(walk: Walk, loads: Loads) -> Callable[[list[bytes]], list[AgentResponse]]:
    """`walk` over each line decoded with `loads` (also the argument strings' decoder)."""

    def run(lines: list[bytes]) -> list[AgentResponse]:
        return [walk(loads(line), line, loads) for line in lines]

    return run


json_walk_openai = _each_line(openai_walk, json.loads)
orjson_walk_openai = _each_line(openai_walk, orjson.loads)
json_walk_gemini = _each_line(gemini_walk, json.loads)
orjson_walk_gemini = _each_line(gemini_walk, orjson.loads)
json_walk_litert = _each_line(litert_walk, json.loads)
orjson_walk_litert = _each_line(litert_walk, orjson.loads)


def orjson_one_litert(line: bytes) -> AgentResponse:
    return litert_walk(orjson.loads(line), line, orjson.loads)


def orjson_one_openai(line: bytes) -> AgentResponse:
    return openai_walk(orjson.loads(line), line, orjson.loads)


def orjson_one_gemini(line: bytes) -> AgentResponse:
    return gemini_walk(orjson.loads(line), line, orjson.loads)


# ------------------------------------------------------------------ msgspec typed structs


class _Function(msgspec.Struct):
    name: str = ""
    arguments: Any = "{}"


class _OpenAIToolCall(msgspec.Struct):
    function: _Function | None = None
    id: str | None = None


class _Message(msgspec.Struct):
    tool_calls: list[_OpenAIToolCall] | None = None


class _Choice(msgspec.Struct):
    message: _Message | None = None


class _Completion(msgspec.Struct):
    choices: list[_Choice] | None = None


class _FunctionCall(msgspec.Struct):
    name: str = ""
    args: Any = None
    id: str | None = None


class _Part(msgspec.Struct):
    functionCall: _FunctionCall | None = None  # the REST spelling
    function_call: _FunctionCall | None = None


class _Content(msgspec.Struct):
    parts: list[_Part] | None = None


class _Candidate(msgspec.Struct):
    content: _Content | None = None


class _GenerateContentResponse(msgspec.Struct):
    candidates: list[_Candidate] | None = None


class _LiteRtFunction(msgspec.Struct):
    name: str | None = None
    arguments: Any = None


class _LiteRtCall(msgspec.Struct):
    function: _LiteRtFunction | None = None
    name: str | None = None  # a flat call
    arguments: Any = None
    id: str | None = None


class _LiteRtPart(msgspec.Struct):
    type: str | None = None
    tool_call: _LiteRtCall | None = None


class _LiteRtMessage(msgspec.Struct):
    tool_calls: list[_LiteRtCall] | None = None
    content: list[_LiteRtPart] | str | None = None


_decode_completion = msgspec.json.Decoder(_Completion).decode
_decode_gemini = msgspec.json.Decoder(_GenerateContentResponse).decode
_decode_litert = msgspec.json.Decoder(_LiteRtMessage).decode
_decode_any = msgspec.json.Decoder().decode


def _msgspec_args(args: Any) -> tuple[dict[str, Any], str | None]:
    if isinstance(args, str):
        try:
            value = _decode_any(args)
        except msgspec.DecodeError:
            return {}, args
        return (value, None) if isinstance(value, dict) else ({}, args)
    if isinstance(args, dict):
        return args, None
    return {}, json.dumps(args)


def msgspec_one_openai(line: bytes) -> AgentResponse:
    calls = []
    for choice in _decode_completion(line).choices or ():
        message = choice.message
        if message is None:
            continue
        for tc in message.tool_calls or ():
            function = tc.function
            if function is None:
                continue
            args, raw_args = _msgspec_args(function.arguments)
            calls.append(ToolCall(function.name, args, tc.id, raw_args))
    return AgentResponse(calls, line)


def msgspec_one_gemini(line: bytes) -> AgentResponse:
    calls = []
    for candidate in _decode_gemini(line).candidates or ():
        content = candidate.content
        if content is None:
            continue
        for part in content.parts or ():
            fc = part.functionCall or part.function_call
            if fc is None:
                continue
            args, raw_args = _msgspec_args(fc.args or {})
            calls.append(ToolCall(fc.name, args, fc.id, raw_args))
    return AgentResponse(calls, line)


def msgspec_one_litert(line: bytes) -> AgentResponse:
    message = _decode_litert(line)
    items = list(message.tool_calls or ())
    if isinstance(message.content, list):
        items += [p.tool_call for p in message.content if p.type == "tool_call" and p.tool_call]
    calls = []
    for item in items:
        body = item.function or item
        if not body.name:
            continue
        args, raw_args = _msgspec_args({} if body.arguments is None else body.arguments)
        calls.append(ToolCall(body.name, strip_escape_tokens(args), item.id, raw_args))
    return AgentResponse(calls, line)


def msgspec_walk_litert(lines: list[bytes]) -> list[AgentResponse]:
    return [msgspec_one_litert(line) for line in lines]


def msgspec_walk_openai(lines: list[bytes]) -> list[AgentResponse]:
    return [msgspec_one_openai(line) for line in lines]


def msgspec_walk_gemini(lines: list[bytes]) -> list[AgentResponse]:
    return [msgspec_one_gemini(line) for line in lines]


russo_import_error: str | None = None
try:
    import russo.parsers as _russo_parsers
except Exception as exc:  # russo needs Python >= 3.12 officially; any failure means "skip"
    _russo_parsers = None
    russo_import_error = f"russo.parsers is not importable: {type(exc).__name__}: {exc}"


def russo_parsers() -> Any:
    """The `russo.parsers` module, or None (then `russo_import_error` says why)."""
    return _russo_parsers


def russo_bytes(parser: Any) -> Callable[[list[bytes]], list[Any]]:
    """`json.loads` + russo's `parser.parse`, over lines."""

    def run(lines: list[bytes]) -> list[Any]:
        loads = json.loads
        parse = parser.parse
        return [parse(loads(line)) for line in lines]

    return run
