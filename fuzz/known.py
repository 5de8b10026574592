"""Backend differences that are known and being fixed: tolerated by the targets unless
TOOLSIFT_FUZZ_STRICT=1, so a fuzz run can go on to find the others.

A difference is tolerated when its input has the feature of a known issue (a case with
the feature may hide another difference: run with TOOLSIFT_FUZZ_STRICT=1 to see every
one). Inputs that show them are kept in fuzz/pending/<target>/ (fuzz/pending/README.md).
When an issue is fixed, delete its entry here: from then on its inputs fail the run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from typing import Any

STRICT = os.environ.get("TOOLSIFT_FUZZ_STRICT", "") not in ("", "0")

ISSUES: dict[str, str] = {
    # None open: every difference found so far is fixed, and its inputs are replayed from
    # tests/fuzz_regressions/. Add one here (name: what) with its feature below to go on
    # fuzzing past a difference that is known and being fixed.
}

_DIGIT_RUN = re.compile(rb"[0-9]{4301,}")
_FLOAT_LITERAL = re.compile(rb"[0-9]+(?:\.[0-9]+)?[eE][+-]?[0-9]+|[0-9]{300,}\.[0-9]+")
_BIG_INT_BITS = 14280  # about 4300 decimal digits


def _text_features(text: str | bytes | bytearray | memoryview) -> set[str]:
    if isinstance(text, str):
        data = text.encode("utf-8", "surrogatepass")
    else:
        try:
            data = bytes(text)
        except ValueError:  # a released memoryview
            return {"released-memoryview"}
    found = set()
    if _has_duplicate_key(data):
        found.add("litert-duplicate-key-tokens")
    if _DIGIT_RUN.search(data):
        found.add("big-int")
    for match in _FLOAT_LITERAL.finditer(data):
        if float(match.group()) in (float("inf"), float("-inf")):
            found.add("inf")
            break
    return found


class _Duplicate(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    if len({k for k, _ in pairs}) != len(pairs):
        raise _Duplicate
    return dict(pairs)


def _has_duplicate_key(data: bytes) -> bool:
    """Whether the text, or one of the JSON documents glued in it, has an object with a
    key twice (stdlib json, which reads what toolsift reads and more)."""
    try:
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return False
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)
    at = 0
    while at < len(text):
        at = text.find("{", at) if text[at] not in "[{" else at
        if at < 0:
            return False
        try:
            _, at = decoder.raw_decode(text, at)
        except _Duplicate:
            return True
        except (ValueError, RecursionError):
            at += 1
    return False


def _object_features(value: Any) -> set[str]:
    found: set[str] = set()
    todo = [value]
    seen = 0
    while todo and seen < 100_000:
        seen += 1
        item = todo.pop()
        if isinstance(item, (str, bytes, bytearray, memoryview)):
            found |= _text_features(item)
        elif isinstance(item, float):
            if item in (float("inf"), float("-inf")):
                found.add("inf")
        elif isinstance(item, int):
            if item.bit_length() > _BIG_INT_BITS:
                found.add("big-int")
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            if isinstance(item, list) and type(item).__iter__ is not list.__iter__:
                found.add("list-own-iter")
            todo.extend(list.__iter__(item) if isinstance(item, list) else item)
        elif hasattr(item, "__dict__"):
            todo.extend(vars(item).values())
        elif hasattr(item, "items") and hasattr(item, "keys"):  # a Mapping
            todo.extend(dict(item).values())
    return found


# Issues that only concern some calls (by the start of the call's description).
SCOPES = {"litert-duplicate-key-tokens": ("sdk.", "SdkResponseParser.")}


def features(values: Iterable[Any] = (), record_path: Any = None, what: str = "") -> set[str]:
    """The known issues whose feature the input has (for the call `what`)."""
    found = _object_features(list(values))
    found = {i for i in found if what.startswith(SCOPES.get(i, ("",)))}
    if isinstance(record_path, str) and any("\ud800" <= ch <= "\udfff" for ch in record_path):
        found.add("surrogate-record-path")
    return found
