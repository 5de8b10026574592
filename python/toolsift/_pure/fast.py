"""Speed paths of the pure backend, apart from the plain walkers in `formats/`: walks of
documents decoded from JSON text, which hold only dicts, lists and scalars, using
`dict.get` in place of `field` (a Python call per step). The parity tests hold each to
its format's walker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolsift._pure.calls import RawCall
from toolsift._pure.formats import openai

__all__ = ["DECODED_WALKERS"]


def decoded_openai_calls(doc: Any) -> list[RawCall]:
    """`formats.openai.calls` of a document decoded from JSON text (the rare custom tool
    calls and legacy `function_call` go the spec walker's way)."""
    found: list[RawCall] = []
    choices = doc.get("choices") if type(doc) is dict else None
    if type(choices) is not list:
        return found
    for choice in choices:
        message = choice.get("message") if type(choice) is dict else None
        if type(message) is not dict:
            continue
        if message.get("function_call") is not None:
            return list(openai.calls(doc))
        tool_calls = message.get("tool_calls")
        if type(tool_calls) is not list:
            continue
        for call in tool_calls:
            function = call.get("function") if type(call) is dict else None
            if function is None:
                if type(call) is dict and call.get("custom") is not None:
                    return list(openai.calls(doc))
                continue
            if type(function) is dict:
                found.append((function.get("name"), call.get("id"), function.get("arguments")))
            else:
                found.append((None, call.get("id"), None))
    return found


def decoded_gemini_calls(doc: Any) -> list[RawCall] | None:
    """`formats.gemini.calls` of a document decoded from JSON text; None when a call has
    `partial_args` (`formats.gemini.is_stream_piece`: a chunk of a stream), found in the
    same pass."""
    found: list[RawCall] = []
    if type(doc) is not dict:
        return found
    candidates = doc.get("candidates")
    for candidate in candidates if type(candidates) is list else ():
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
                partial = call.get("partial_args")
                if partial is None:
                    partial = call.get("partialArgs")
                if partial is not None:
                    return None
                found.append((call.get("name"), call.get("id"), call.get("args")))
            else:
                found.append((None, None, None))
    # A Live API message's calls (`gemini.live_calls`).
    tool_call = doc.get("tool_call")
    if tool_call is None:
        tool_call = doc.get("toolCall")
    live = None
    if type(tool_call) is dict:
        live = tool_call.get("function_calls")
        if live is None:
            live = tool_call.get("functionCalls")
    for call in live if type(live) is list else ():
        if type(call) is dict:
            found.append((call.get("name"), call.get("id"), call.get("args")))
        else:
            found.append((None, None, None))
    return found


DECODED_WALKERS: dict[str, Callable[[Any], list[RawCall] | None]] = {
    "openai": decoded_openai_calls,
    "gemini": decoded_gemini_calls,
}
"""The formats with a walker of their own for decoded documents (by name). Like every
decoded walker (`Spec.walkers`), each returns None for a chunk of a stream."""
