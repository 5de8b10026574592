"""How the pure walkers read a response (the twin of `src/node.rs`): decoded JSON's dicts
and lists, or the caller's own dicts and SDK objects, read by attribute."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsift._jsontext import TooLongInt, dumps_compact

__all__ = ["PLAIN", "TEXT_TYPES", "describe", "elements", "field", "is_str", "member"]

TEXT_TYPES = (str, bytes, bytearray, memoryview)
# Values that are never read by attribute: only dicts are looked into, and other
# objects (SDK models) by attribute.
PLAIN = (str, bytes, bytearray, memoryview, int, float, list, tuple, type(None))


def field(obj: Any, key: str) -> Any:
    """`obj[key]` for a dict, `obj.key` for an SDK object; None where missing."""
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, PLAIN):
        return None
    return getattr(obj, key, None)


def member(obj: Any, key: str) -> Any:
    """`obj[key]` for a dict only (custom JSON paths do not read attributes)."""
    return obj.get(key) if isinstance(obj, dict) else None


def elements(obj: Any) -> Sequence[Any]:
    """The items of a list or tuple; nothing for anything else."""
    return obj if isinstance(obj, (list, tuple)) else ()


def is_str(value: Any, text: str) -> bool:
    """A string equal to `text` (a block's `type`, say)."""
    return isinstance(value, str) and value == text


def describe(value: Any, message_key: str = "message", code_key: str = "code") -> str:
    """A provider's error value as one line of text (`message_key`, `code_key`: where an
    error object holds them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        message = value.get(message_key)
        if isinstance(message, str):
            code = value.get(code_key)
            if isinstance(code, TooLongInt):  # as written (never converted)
                code = code.text
            if isinstance(code, str) or type(code) is int:
                return f"{code}: {message}"
            return message
    return dumps_compact(value)
