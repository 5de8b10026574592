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


WHITESPACE = " \t\n\r"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def think_split(text: str) -> tuple[list[tuple[int, int]], str | None]:
    """The spans of `text` outside `<think>...</think>` blocks (empty ones before a block
    left out), and the reasoning: each block's text (whitespace at its ends stripped), the
    non-empty ones joined by a blank line, or None. A `</think>` before any `<think>`
    closes a block the prompt opened (the chat template ends the prompt with `<think>`),
    so the text before it is reasoning; an unclosed `<think>` runs to the end of the text.
    Other `</think>` stay as text."""
    spans: list[tuple[int, int]] = []
    blocks: list[str] = []
    pos = 0
    first_close = text.find(THINK_CLOSE)
    first_open = text.find(THINK_OPEN)
    if first_close != -1 and (first_open == -1 or first_close < first_open):
        blocks.append(text[:first_close])
        pos = first_close + len(THINK_CLOSE)
    while True:
        open_at = text.find(THINK_OPEN, pos)
        if open_at == -1:
            spans.append((pos, len(text)))
            break
        if pos < open_at:  # (empty spans hold nothing)
            spans.append((pos, open_at))
        body = open_at + len(THINK_OPEN)
        close_at = text.find(THINK_CLOSE, body)
        if close_at == -1:
            blocks.append(text[body:])
            break
        blocks.append(text[body:close_at])
        pos = close_at + len(THINK_CLOSE)
    reasoning = "\n\n".join(kept for block in blocks if (kept := block.strip(WHITESPACE)))
    return spans, reasoning or None


def special_token_blocks(
    text: str,
    span: tuple[int, int],
    prefix: str,
    begins: tuple[str, ...],
    ends: tuple[str, ...],
    dropped: tuple[str, ...],
) -> tuple[list[str], list[str]]:
    """The call blocks in `text[span[0]:span[1]]` of a dialect whose markers are special
    tokens sharing `prefix`, and the text outside them. A block is the text after a
    `begins` marker up to an `ends` marker (consumed), the next `begins` or `dropped`
    marker (not consumed: the block was cut off), or the end of the span. Outside blocks,
    `dropped` markers (a section's own markers) and stray `ends` markers are removed; any
    other text is kept. Markers are special tokens, so they are never inside a block's
    arguments: the first one ends it."""
    start, stop = span
    stops = begins + dropped  # what cuts a block off
    removed = ends + dropped  # what is removed outside blocks
    outside: list[str] = []
    blocks: list[str] = []
    pos = start  # text from here on is not yet in `outside` or `blocks`
    at = text.find(prefix, start, stop)
    while at != -1:
        # (`startswith` with a tuple first: most hits of `prefix` are no marker at all)
        if text.startswith(begins, at):
            outside.append(text[pos:at])
            body = at + len(marker_at(text, at, begins) or "")
            at = text.find(prefix, body, stop)
            while at != -1 and not text.startswith(ends, at) and not text.startswith(stops, at):
                at = text.find(prefix, at + len(prefix), stop)
            if at == -1:
                blocks.append(text[body:stop])
                return outside, blocks
            blocks.append(text[body:at])
            end = marker_at(text, at, ends)
            pos = at if end is None else at + len(end)
            at = text.find(prefix, pos, stop)
        elif text.startswith(removed, at):
            outside.append(text[pos:at])
            pos = at + len(marker_at(text, at, removed) or "")
            at = text.find(prefix, pos, stop)
        else:
            at = text.find(prefix, at + len(prefix), stop)
    outside.append(text[pos:stop])
    return outside, blocks


def marker_at(text: str, at: int, markers: tuple[str, ...]) -> str | None:
    """The one of `markers` that `text` holds at `at`, if any."""
    for marker in markers:  # (a loop, not a generator: this runs once per marker found)
        if text.startswith(marker, at):
            return marker
    return None


def joined_content(outside: list[str]) -> str | None:
    """The text outside the calls: its pieces joined, whitespace at both ends stripped
    (the seams inside are kept as written); None when nothing is left."""
    return "".join(outside).strip(WHITESPACE) or None
