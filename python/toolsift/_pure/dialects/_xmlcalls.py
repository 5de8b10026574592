"""What the XML-style dialects share (the Rust twin: `src/dialects/xmlcalls.rs`): the
split of a text into reasoning, content and call blocks, and the reader of blocks of
`invoke` elements with `parameter` elements (`qwen3-coder`, `seed-oss`, `minimax-m2`,
`deepseek-dsml`; `glm` has its own block reader).

The split (`split`)
===================

* Reasoning: a think block (`<think>...</think>`; `<seed:think>` for Seed-OSS) is
  reasoning, and so is all the text before a closing think marker that no opening one
  precedes (the chat template put the opening marker in the prompt). A think block the
  text ends in (no closing marker) runs to the end. Markers inside reasoning are not
  calls. Each block's text is stripped of surrounding whitespace; the non-empty ones are
  joined with a newline; None when there is none.
* A call block opens at the dialect's block marker and is read by the dialect's reader,
  which says where it ends.
* Content: the text outside the think and call blocks, pieces as written, joined and
  stripped of surrounding whitespace (the newlines the templates write around blocks);
  None when empty. A stray closing marker outside any block stays content.

Invoke blocks (`read_invokes`)
==============================

    block  := OPEN ws (invoke ws)* (CLOSE | end of text)
    invoke := INVOKE_OPEN NAME NAME_END ws (param ws)* INVOKE_CLOSE
    param  := PARAM_OPEN HEAD HEAD_END VALUE PARAM_CLOSE

* ws is JSON whitespace (space, tab, CR, LF). NAME is the text up to NAME_END; it must
  be non-empty and hold no `<`, `>` or newline.
* The dialect reads the parameter's key from HEAD (`key_of`: HEAD itself, or DSML's
  part before its closing quote); a HEAD holding `<`, or an empty key, breaks the invoke.
  The key's schema is `tools.parameter(NAME, key)`.
* A value ends at the first PARAM_CLOSE that is followed (after ws) by PARAM_OPEN,
  INVOKE_CLOSE, CLOSE or the end of the text; a PARAM_CLOSE followed by anything else is
  part of the value (code that writes the markers). The dialect may trim the value (one
  newline on each side for Qwen3-Coder) and types it (`_schema`).
* A complete invoke is a call with `id` None, its arguments the object of its
  parameters in order (`_schema.object_text`: a key written twice keeps the last value,
  at the first one's place). Anything else where an invoke may start,
  or an invoke that does not complete (cut off, a missing close, a broken head), makes
  the rest of the block one malformed call: the name where NAME was read (else `""`),
  arguments `{}`, and in `raw_arguments` the text from that invoke (or that other text)
  up to the first CLOSE after it, or the end of the text; scanning resumes after that
  CLOSE. An empty block gives no call.

Every search moves forward (and remembers where the next marker is), so the scan is
linear in the text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..._types import ToolCall
from ..calls import tool_call
from . import Parsed, Spec, Tools
from ._schema import object_text, typed_value
from ._text import THINK, WHITESPACE, skip_space


class Finder:
    """`text.find(marker, pos)` that remembers each search: a later search from a place
    at or after the one remembered, and not past what it found, has the same answer, so
    forward scans search the text once per marker."""

    __slots__ = ("_last", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._last: dict[str, tuple[int, int]] = {}

    def find(self, marker: str, pos: int) -> int:
        return self.remembered(marker, pos, lambda: self.text.find(marker, pos))

    def remembered(self, key: str, pos: int, search: Callable[[], int]) -> int:
        """The answer of `search` (the first place at or after `pos` where `key` holds,
        or -1), from memory when a search from an earlier place covers `pos`."""
        last = self._last.get(key)
        if last is not None and last[0] <= pos and (last[1] == -1 or last[1] >= pos):
            return last[1]
        found = search()
        self._last[key] = (pos, found)
        return found


#: A block reader: `(finder, index after the opening marker, tools)` ->
#: `(calls, index after the block)`.
Reader = Callable[[Finder, int, Tools | None], tuple[list[ToolCall], int]]


def split(
    text: str, think: tuple[str, str], blocks: list[tuple[str, Reader]], tools: Tools | None
) -> Parsed:
    """The calls, content and reasoning of `text` (see the module docstring)."""
    finder = Finder(text)
    think_open, think_close = think
    calls: list[ToolCall] = []
    content: list[str] = []
    reasoning: list[str] = []
    pos = 0
    first_close = text.find(think_close)
    if first_close != -1 and text.find(think_open, 0, first_close) == -1:
        reasoning.append(text[:first_close])
        pos = first_close + len(think_close)
    while pos < len(text):
        start, opener, reader = len(text), "", None
        for marker, block_reader in blocks:
            found = finder.find(marker, pos)
            if found != -1 and found < start:
                start, opener, reader = found, marker, block_reader
        found = finder.find(think_open, pos)
        if found != -1 and found < start:
            content.append(text[pos:found])
            end = finder.find(think_close, found + len(think_open))
            if end == -1:
                reasoning.append(text[found + len(think_open) :])
                break
            reasoning.append(text[found + len(think_open) : end])
            pos = end + len(think_close)
            continue
        content.append(text[pos:start])
        if reader is None:
            break
        found_calls, pos = reader(finder, start + len(opener), tools)
        calls.extend(found_calls)
    joined = "".join(content).strip(WHITESPACE)
    thoughts = [part.strip(WHITESPACE) for part in reasoning]
    thought = "\n".join(part for part in thoughts if part)
    return Parsed(calls, joined or None, thought or None)


class InvokeSyntax(NamedTuple):
    """The markers of one invoke-style dialect (see the module docstring)."""

    close: str
    invoke_open: str
    name_end: str
    invoke_close: str
    param_open: str
    head_end: str
    param_close: str
    #: `head` -> the parameter's key, or None: a broken head.
    key_of: Callable[[str], str | None]
    #: `(head, value, schema)` -> the value's JSON text, or None: a broken head.
    param: Callable[[str, str, object], str | None]


def plain_key(head: str) -> str | None:
    """The head is the key."""
    return head


def plain_param(head: str, value: str, schema: object) -> str | None:
    """The value typed by the schema."""
    return typed_value(value, schema)


def trimmed_param(head: str, value: str, schema: object) -> str | None:
    """`plain_param` with one newline removed from each side of the value first."""
    return plain_param(head, value.removeprefix("\n").removesuffix("\n"), schema)


def invoke_reader(syntax: InvokeSyntax) -> Reader:
    """The block reader of an invoke-style dialect."""

    def read(finder: Finder, pos: int, tools: Tools | None) -> tuple[list[ToolCall], int]:
        return read_invokes(finder, pos, tools, syntax)

    return read


def read_invokes(
    finder: Finder, pos: int, tools: Tools | None, syntax: InvokeSyntax
) -> tuple[list[ToolCall], int]:
    """The calls of the block whose content starts at `pos`, and where the block ends."""
    text = finder.text
    calls: list[ToolCall] = []
    while True:
        pos = skip_space(text, pos)
        if pos == len(text):
            return calls, pos
        if text.startswith(syntax.close, pos):
            return calls, pos + len(syntax.close)
        name = ""
        if text.startswith(syntax.invoke_open, pos):
            call_start = pos
            name_start = pos + len(syntax.invoke_open)
            name_end = finder.find(syntax.name_end, name_start)
            candidate = text[name_start:name_end] if name_end != -1 else ""
            if candidate and not any(char in candidate for char in "<>\n"):
                name = candidate
                invoke_end = read_params(
                    finder, name_end + len(syntax.name_end), name, tools, syntax
                )
                if isinstance(invoke_end, tuple):
                    arguments, pos = invoke_end
                    calls.append(tool_call(name, None, arguments))
                    continue
        else:
            call_start = pos
        end = finder.find(syntax.close, call_start)
        stop = len(text) if end == -1 else end
        calls.append(ToolCall(name, {}, None, text[call_start:stop]))
        return calls, stop if end == -1 else end + len(syntax.close)


def read_params(
    finder: Finder, pos: int, name: str, tools: Tools | None, syntax: InvokeSyntax
) -> tuple[str, int] | None:
    """The arguments JSON text of the invoke whose parameters start at `pos`, and the
    index after its closing marker; None when it does not complete."""
    text = finder.text
    pairs: list[tuple[str, str]] = []
    while True:
        pos = skip_space(text, pos)
        if text.startswith(syntax.invoke_close, pos):
            return object_text(pairs), pos + len(syntax.invoke_close)
        if not text.startswith(syntax.param_open, pos):
            return None
        head_start = pos + len(syntax.param_open)
        head_end = finder.find(syntax.head_end, head_start)
        if head_end == -1:
            return None
        value_start = head_end + len(syntax.head_end)
        followers = (syntax.param_open, syntax.invoke_close, syntax.close)
        value_end = value_close(finder, value_start, syntax.param_close, followers)
        if value_end == -1:
            return None
        head = text[head_start:head_end]
        key = syntax.key_of(head) if "<" not in head else None
        if not key:
            return None
        schema = tools.parameter(name, key) if tools is not None else None
        value = syntax.param(head, text[value_start:value_end], schema)
        if value is None:
            return None
        pairs.append((key, value))
        pos = value_end + len(syntax.param_close)


def value_close(finder: Finder, pos: int, close: str, followers: tuple[str, ...]) -> int:
    """The first `close` at or after `pos` followed (after whitespace) by one of
    `followers` or by the end of the text; -1 when there is none."""
    text = finder.text

    def search() -> int:
        found = finder.find(close, pos)
        while found != -1:
            after = skip_space(text, found + len(close))
            if after == len(text) or any(text.startswith(marker, after) for marker in followers):
                return found
            found = finder.find(close, found + len(close))
        return -1

    return finder.remembered("value " + close, pos, search)


def stream_spec(syntax: InvokeSyntax, think: tuple[tuple[str, str], ...] = (THINK,)) -> Spec:
    """The `STREAM` of an XML-parameter dialect: calls end at their invoke's close, blocks
    at theirs."""
    return Spec(
        ends=(syntax.close,),
        inner_ends=(syntax.invoke_close,),
        think=think,
        param_close=syntax.param_close,
        call_close=syntax.invoke_close,
    )
