"""Scanning helpers the dialects share (the Rust twin: `src/dialects/text.rs`)."""

from __future__ import annotations


def container_end(text: str, start: int) -> int:
    """The index just after the JSON container opening at `start` (braces inside JSON
    strings do not count), or the end of the text when it never closes."""
    depth = 0
    in_string = False
    i = start
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                i += 1  # the escaped character is skipped too
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth = max(depth - 1, 0)
            if depth == 0:
                return i + 1
        i += 1
    return len(text)
