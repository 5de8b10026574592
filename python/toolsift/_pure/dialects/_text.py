"""Scanning helpers the dialects share (the Rust twin: `src/dialects/text.rs`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from toolsift._errors import ParseError
from toolsift._jsontext import container_end, holds_too_long_int, loads
from toolsift._pure.calls import arguments_of
from toolsift._types import ToolCall

from . import Parsed

WHITESPACE = " \t\n\r"
"""The whitespace skipped and stripped at seams by every dialect (JSON's)."""


THINK = ("<think>", "</think>")
"""The reasoning block of most dialects."""

Scanner = Callable[[str, int, int, list[ToolCall], list[str]], None]
"""`(text, start, end, calls, pieces)`: reads `text[start:end]`, appending the calls found
to `calls` and the text outside them to `pieces`."""


def parse_around_reasoning(text: str, think: tuple[str, str], scan: Scanner) -> Parsed:
    """The calls, content and reasoning of `text`: `scan` reads each range outside the
    reasoning blocks `think` (`outside_reasoning`); the content is the pieces joined
    (`joined_content`)."""
    ranges, reasoning = outside_reasoning(text, *think)
    calls: list[ToolCall] = []
    pieces: list[str] = []
    for start, end in ranges:
        scan(text, start, end, calls, pieces)
    return Parsed(calls, joined_content(pieces), reasoning)


def parse_special_tokens(
    text: str,
    prefix: str,
    markers: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]],
    block_call: Callable[[str], ToolCall],
) -> Parsed:
    """`parse_around_reasoning` (`<think>` blocks) of a special-token dialect: its blocks
    (`special_token_blocks` with the markers `(begins, ends, dropped)`), each read by
    `block_call`."""

    def scan(text: str, start: int, end: int, calls: list[ToolCall], pieces: list[str]) -> None:
        outside, blocks = special_token_blocks(text, (start, end), prefix, *markers)
        pieces.extend(outside)
        calls.extend([block_call(block) for block in blocks])

    return parse_around_reasoning(text, THINK, scan)


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
    search = marker_pattern(prefix, begins, ends, dropped).search
    outside: list[str] = []
    blocks: list[str] = []
    pos = start  # text from here on is not yet in `outside` or `blocks`
    marker = search(text, start, stop)
    while marker is not None:
        at = marker.start()
        if pos < at:  # (no empty pieces: a marker every few bytes makes many)
            outside.append(text[pos:at])
        if marker.lastgroup != "begin":  # an end or dropped marker outside a block
            pos = marker.end()
            marker = search(text, pos, stop)
            continue
        body = marker.end()
        marker = search(text, body, stop)
        if marker is None:
            blocks.append(text[body:stop])
            return outside, blocks
        pos = marker.start()
        blocks.append(text[body:pos])
        if marker.lastgroup == "end":  # consumed (a marker that cut the block off is not)
            pos = marker.end()
            marker = search(text, pos, stop)
    outside.append(text[pos:stop])
    return outside, blocks


@functools.cache
def marker_pattern(
    prefix: str, begins: tuple[str, ...], ends: tuple[str, ...], dropped: tuple[str, ...]
) -> re.Pattern[str]:
    """Any of the markers (each starts with `prefix`), the kind found named by `lastgroup`
    (`begin`, `end`, `dropped`). The prefix is written once, in front: the regex engine
    then looks for it first (as `str.find` would), not for every marker everywhere. No
    marker is the start of another (they are special tokens), so at most one is found
    at any place."""
    markers = begins + ends + dropped
    assert all(marker.startswith(prefix) for marker in markers)
    assert not any(a != b and b.startswith(a) for a in markers for b in markers)

    def one_of(markers: tuple[str, ...]) -> str:
        rests = (marker[len(prefix) :] for marker in markers)
        return "|".join(map(re.escape, rests)) or "(?!)"

    kinds = f"(?P<begin>{one_of(begins)})|(?P<end>{one_of(ends)})|(?P<dropped>{one_of(dropped)})"
    return re.compile(re.escape(prefix) + f"(?:{kinds})")


def joined_content(outside: list[str]) -> str | None:
    """The text outside the calls: its pieces joined, whitespace at both ends stripped
    (the seams inside are kept as written); None when nothing is left."""
    return "".join(outside).strip(WHITESPACE) or None


def skip_space(text: str, i: int) -> int:
    """The first index from `i` that is not JSON whitespace."""
    while i < len(text) and text[i] in WHITESPACE:
        i += 1
    return i


def outside_reasoning(text: str, open: str, close: str) -> tuple[list[tuple[int, int]], str | None]:
    """The `(start, end)` ranges of `text` outside its reasoning blocks `open ... close`,
    and the blocks' text (each trimmed, the non-empty ones joined by a blank line; None
    when there is none). Text before a first `close` that no `open` precedes is reasoning
    (the template opened the block in the prompt); an unclosed block runs to the end.
    Empty ranges are left out, but for the last. (The XML family splits reasoning its own way,
    `_xmlcalls.split`: only between call blocks, joined by one newline.)"""
    ranges: list[tuple[int, int]] = []
    thoughts: list[str] = []
    pos = 0
    first_close = text.find(close)
    if first_close != -1 and text.find(open, 0, first_close) == -1:
        thoughts.append(text[:first_close])
        pos = first_close + len(close)
    while True:
        start = text.find(open, pos)
        if start == -1:
            ranges.append((pos, len(text)))
            break
        if pos < start:  # (empty ranges hold nothing)
            ranges.append((pos, start))
        stop = text.find(close, start + len(open))
        if stop == -1:
            thoughts.append(text[start + len(open) :])
            break
        thoughts.append(text[start + len(open) : stop])
        pos = stop + len(close)
    kept = [thought.strip(WHITESPACE) for thought in thoughts]
    reasoning = "\n\n".join(thought for thought in kept if thought)
    return ranges, reasoning or None


def nameless(block: str) -> ToolCall:
    """A call whose block names nothing readable: name "", the block's text (stripped)
    kept in raw_arguments."""
    return ToolCall("", {}, None, block.strip(WHITESPACE))


def marker_then(text: str, marker: str, next: str) -> bool:
    """Whether some `marker` in `text` is followed (after whitespace) by `next`."""
    at = text.find(marker)
    while at != -1:
        after = skip_space(text, at + len(marker))
        if text.startswith(next, after):
            return True
        at = text.find(marker, after)
    return False


def leading_name(block: str) -> str:
    """The name of a call object that does not decode (cut off, broken JSON), where it
    opens with `{"name": "..."`: that string, decoded; else ""."""
    i = skip_space(block, 0)
    if not block.startswith("{", i):
        return ""
    i = skip_space(block, i + 1)
    if not block.startswith('"name"', i):
        return ""
    i = skip_space(block, i + 6)
    if not block.startswith(":", i):
        return ""
    i = skip_space(block, i + 1)
    if not block.startswith('"', i):
        return ""
    end = i + 1
    while end < len(block) and block[end] != '"':
        end += 2 if block[end] == "\\" else 1
    try:
        name = loads(block[i : end + 1])
    except ParseError:
        return ""
    return name if isinstance(name, str) else ""


def object_call(block: str, keys: tuple[str, ...], with_id: bool) -> ToolCall:
    """The call in the text of one JSON object: its string `name`, the first of `keys`
    present (not null) as arguments (an object, or a string holding one), its string `id`
    when `with_id`. Arguments that are neither keep the block's text (a string: that
    string) in raw_arguments; a block that does not decode to an object with a string
    name gives the leading name (else "") and the block's text."""
    if '"' not in block:
        # No string, so no name (nor a leading one): no parse, no lookup (a text of many
        # `{}` makes one call each).
        return ToolCall("", {}, None, block)
    value = None
    if block.endswith("}"):  # else no object: spares the parser
        try:
            value = loads(block)
        except ParseError:
            pass
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return ToolCall(leading_name(block), {}, None, block)
    name = value["name"]
    id = value.get("id") if with_id else None
    id = id if isinstance(id, str) else None
    arguments = next((value[key] for key in keys if value.get(key) is not None), None)
    if arguments is None:
        return ToolCall(name, {}, id, None)
    if isinstance(arguments, str):
        decoded, raw = arguments_of(arguments)
        return ToolCall(name, decoded, id, raw)
    if isinstance(arguments, dict) and not holds_too_long_int(arguments):
        return ToolCall(name, arguments, id, None)
    return ToolCall(name, {}, id, block)


def array_items(text: str, start: int, end: int) -> tuple[list[str], int]:
    """The texts of the items of the JSON array opening at `start` (items are objects;
    what follows the last readable one, up to the array's end, is one more item), and
    the index just after the array (`end` when it does not close before `end`)."""
    array_end = container_end(text, start, end)
    stop = end if array_end is None else array_end
    inner_end = stop if array_end is None else stop - 1  # before the closing bracket
    items: list[str] = []
    i = skip_space(text, start + 1)
    while i < inner_end:
        if text[i] != "{":
            items.append(text[i:inner_end].rstrip(WHITESPACE))
            break
        item_end = container_end(text, i, inner_end)
        if item_end is None:
            items.append(text[i:inner_end].rstrip(WHITESPACE))
            break
        items.append(text[i:item_end])
        i = skip_space(text, item_end)
        if i < inner_end and text[i] == ",":
            i = skip_space(text, i + 1)
        elif i < inner_end:
            items.append(text[i:inner_end].rstrip(WHITESPACE))
            break
    return items, stop


def json_calls(
    text: str, i: int, limit: int, keys: tuple[str, ...], with_id: bool, calls: list[ToolCall]
) -> int | None:
    """The calls of the JSON list (`array_items`, each item an `object_call`) or the one
    call object opening at `i`, read no further than `limit`, appended to `calls`; the
    index where they end (`limit` when cut off). None, and nothing read, when neither
    `[` nor `{` opens at `i`."""
    if text.startswith("[", i, limit):
        items, stop = array_items(text, i, limit)
        calls.extend(object_call(item, keys, with_id) for item in items)
        return stop
    if text.startswith("{", i, limit):
        end = container_end(text, i, limit)
        block = text[i:limit].rstrip(WHITESPACE) if end is None else text[i:end]
        calls.append(object_call(block, keys, with_id))
        return limit if end is None else end
    return None
