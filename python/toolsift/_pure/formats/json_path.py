"""Custom JSON endpoints: calls at a dot path, with configurable key names; the spec
walker of `JsonResponseParser` (the Rust twin is `src/formats/json_path.rs`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolsift._pure.calls import RawCall
from toolsift._pure.nodes import elements, member
from toolsift.formats import described

NAME = "json"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`


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


def walker(
    tool_calls_key: str, name_key: str, arguments_key: str, single: bool
) -> Callable[[Any], list[RawCall]]:
    """The walker for `JsonResponseParser`'s keywords. It reads dicts only (by `member`),
    so it serves documents decoded from text as it is."""
    path = tool_calls_key.split(".")

    def walk(doc: Any) -> list[RawCall]:
        return json_calls(doc, path, name_key, arguments_key, single)

    return walk
