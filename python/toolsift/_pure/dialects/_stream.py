"""`RawTextParser.stream()`: a model's output text fed in deltas as a server or a rollout
engine emits them (cut anywhere: markers, and UTF-8 characters of `bytes` deltas, split
across deltas), each call reported once it is complete. The native backend's text
streams are this driver too (`native_stream`), each piece of text read by its own parser
of the dialect, which gives the same calls: both backends report the same.

What "complete" means, per dialect (each dialect module's `STREAM`, a `Spec`):

* A call is reported when its end marker has arrived: `</tool_call>` (hermes, glm),
  `</function>` or the block's close (qwen3-coder, seed-oss), `</invoke>` or the block's
  close (minimax-m2, deepseek-dsml: its own `invoke`), `<|tool_call_end|>` (kimi-k2),
  DeepSeek's `tool call end` token (deepseek-v3, v3.1), `<|call|>` / `<|end|>` / `<|return|>`
  (harmony), `<|python_end|>` / `<|tool_call_end|>` (pythonic in markers).
* Or when what follows proves it ended: the next block's opening marker (hermes,
  granite, kimi-k2, deepseek-v3, v3.1, mistral, llama3-json: a block cannot run past
  it), or, for calls with no end marker (bare JSON of llama3-json and xlam, granite's
  and mistral's lists and objects, pythonic lists), the bracket that closes the call
  object (or the list).
* A block that cannot be read (broken JSON, an end marker quoted inside an argument
  string) is reported at the next marker that proves it ended, or by `finish()`.
* Text in a reasoning block being streamed (`<think>` not closed yet) holds no calls.

`finish()` is `RawTextParser(dialect, tools).parse(text)` of the whole text (calls,
content, reasoning), `raw` the list of deltas fed: every call reported is in it, in
order, with two exceptions the text cannot tell while it streams: a `</think>` that no
`<think>` precedes arriving after calls were reported (the chat template opened the
reasoning block in the prompt: parse reads the text before it as reasoning), and, for
`"auto"`, a text that holds the markers of an earlier dialect of the table after those
of the dialect first recognized (parse reads it as that earlier dialect). (A whole text
that is one JSON string is read by `parse` as the string it holds: `feed` reads the
text as it is, so it may report less; `finish()` is `parse`'s.)

Cost: each delta is searched for markers only in its own text (and the few characters
before it, for a marker split across deltas); the text is read again by the dialect's
`parse` only from a resume point (the start of the first block not yet complete) to
the marker that arrived (once per marker: a long reasoning block quoting markers is read
once), so feeding a long text costs about linear time in it. Calls without an end marker
resume only at the next block's marker: a bare text (llama3-json without
`<|python_tag|>`, xlam) or one list (mistral before v11, granite) is read again from its
start at each call's closing bracket, quadratic in the number of its calls (a few, in a
real output).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

from toolsift._errors import ParseError
from toolsift._jsontext import loads
from toolsift._pure.partial import partial_json
from toolsift._types import AgentResponse, ToolCall
from toolsift.formats import AUTO_TEXT

from . import DIALECTS, Spec, Tools, detected

__all__ = ["TextStream"]

DETECT_TAIL = 256  # (auto) characters before a delta searched again for a dialect's markers


Read = Callable[[str, Any], AgentResponse]
"""The parser's read of one whole text `(text, raw)`: its AgentResponse, with `raw`."""


class Buffer:
    """The text fed so far, in pieces, joined from the resume point on only when read: a
    delta costs about its own length, not the text's."""

    __slots__ = ("base", "length", "pieces", "seen", "tail")

    TAIL = 512  # the last characters kept joined (markers and detection look back less)

    def __init__(self) -> None:
        self.seen: list[str] = []  # every piece, for the whole text
        self.pieces: list[str] = []  # the pieces from `base` on
        self.base = 0  # where `pieces` start in the text
        self.length = 0  # of the whole text
        self.tail = ""  # its last `TAIL` characters

    def append(self, piece: str) -> None:
        self.seen.append(piece)
        self.pieces.append(piece)
        self.length += len(piece)
        self.tail = (self.tail + piece)[-self.TAIL :]

    def since(self, pos: int) -> str:
        """The text from `pos` (at or after `base`) to the end."""
        if len(self.pieces) > 1:
            self.pieces = ["".join(self.pieces)]
        joined = self.pieces[0] if self.pieces else ""
        return joined[pos - self.base :]

    def drop_before(self, pos: int) -> None:
        self.pieces, self.base = [self.since(pos)], pos

    def last(self, count: int) -> str:
        """The last `count` characters (fewer where the text from `base` is shorter)."""
        if count <= len(self.tail):
            return self.tail[len(self.tail) - count :]
        taken: list[str] = []
        size = 0
        for piece in reversed(self.pieces):
            if size >= count:
                break
            taken.append(piece)
            size += len(piece)
        text = "".join(reversed(taken))
        return text[max(0, len(text) - count) :]

    def whole(self) -> str:
        if len(self.seen) > 1:
            self.seen = ["".join(self.seen)]
        return self.seen[0] if self.seen else ""


class TextStream:
    """`RawTextParser(...).stream()`: `feed(delta)` returns the calls that delta completed,
    `partial()` every call so far (the open one with its arguments so far), `finish()`
    the AgentResponse of the whole text (see the module's docstring)."""

    def __init__(
        self,
        dialect: str | None,
        tools: Tools | None,
        read: Read,
        calls_in: Callable[[str, str], list[ToolCall]] | None = None,
    ) -> None:
        self._tools = tools
        self._read = read  # the parser's own read of a whole text, for `finish()`
        # The calls a dialect reads in a text (None: the dialect modules here); the native
        # backend's own parse, where it hands its streams to this one.
        self._calls_in = calls_in
        self._deltas: list[Any] = []
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._text = Buffer()
        self._broken = False  # not UTF-8 (or a lone surrogate): the text has no call
        self._finished = False
        self._reported: list[ToolCall] = []
        self._name: str | None = None
        self._spec: Spec | None = None
        self._auto = dialect is None
        if dialect is not None:
            self._choose(dialect)
        self._restart()
        self._lengths: dict[str, int] = {}  # calls `parse` reads in a start marker alone

    def _restart(self) -> None:
        """Read from the start of the text (again: auto chose another dialect)."""
        self._resume = 0  # the start of the first block not known to be complete
        self._skip = 0  # the calls of the text from `_resume` already reported
        self._context = ""  # empty think blocks: a close came before `_resume`
        self._depth = 0  # brackets: depth of the open call objects or lists
        self._quote = ""  # brackets: the quote of the string being read, if any
        self._escaped = False
        self._thinking = -1  # where the reasoning block still open began; -1: none
        self._parsed_to = -1  # where the last window read ended

    def _choose(self, name: str) -> None:
        self._name = name
        self._spec = DIALECTS[name].STREAM
        self._markers = (*self._spec.ends, *self._spec.inner_ends, *self._spec.starts)
        thinks = [marker for pair in self._spec.think for marker in pair]
        self._longest = max((len(m) for m in (*self._markers, *thinks)), default=1)

    def _parse(self, text: str) -> list[ToolCall]:
        """The calls the chosen dialect reads in `text`."""
        assert self._name is not None
        if self._calls_in is not None:
            return self._calls_in(self._name, text)
        return DIALECTS[self._name].parse(text, self._tools).tool_calls  # type: ignore[no-any-return]

    def feed(self, delta: str | bytes | bytearray | memoryview) -> list[ToolCall]:
        """Read one delta of the text (`str`, or `bytes` of UTF-8, cut anywhere); the calls
        it completed, in order."""
        if self._finished:
            raise ValueError("the stream is finished: feed() after finish()")
        if isinstance(delta, str):
            text = delta
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                self._broken = True
        elif isinstance(delta, (bytes, bytearray, memoryview)):
            try:
                text = self._decoder.decode(bytes(delta))
            except UnicodeDecodeError:
                self._broken, text = True, ""
        else:
            raise TypeError(f"a text delta is str or bytes, not {type(delta).__name__}")
        self._deltas.append(delta)
        if self._broken or not text:
            return []
        self._text.append(text)
        if self._spec is None:  # auto: not recognized yet
            name = detected(self._text.last(DETECT_TAIL + len(text)))
            if name is None:
                return []
            self._choose(name)
            return self._read_to(self._trigger(self._text.length))
        return self._read_to(self._trigger(len(text)))

    def _trigger(self, new: int) -> tuple[int, int, bool] | None:
        """The last marker (or closing bracket) ending in the `new` characters at the end
        of the text: `(its start, its end, whether it opens a block)`; None when none."""
        spec = self._spec
        assert spec is not None
        length = self._text.length
        recent = self._text.last(new + self._longest - 1)
        offset = length - len(recent)
        found: tuple[int, int, bool] | None = None
        for marker in self._markers:
            at = recent.rfind(marker)
            if at != -1 and offset + at >= self._resume and (found is None or at > found[0]):
                found = (at, at + len(marker), marker in spec.starts)
        if found is not None:
            found = (offset + found[0], offset + found[1], found[2])
        for open, close in spec.think:  # a reasoning block opened, or closed
            opened, closed_at = recent.rfind(open), recent.rfind(close)
            if opened > closed_at and self._thinking == -1:
                self._thinking = offset + opened
            elif closed_at > opened:
                self._thinking = -1
        if spec.brackets:
            closed = self._bracket_close(recent[len(recent) - min(new, len(recent)) :])
            if closed is not None:
                closed += length - min(new, len(recent))
                if found is None or closed > found[1]:
                    found = (closed - 1, closed, False)
        return found

    def _bracket_close(self, text: str) -> int | None:
        """Brackets of calls with no end marker, read on from where the last read stopped
        (`text`: what is new): the end of the last bracket bringing the depth back to 0 or
        1, in `text`."""
        spec = self._spec
        assert spec is not None
        depth, quote, escaped = self._depth, self._quote, self._escaped
        closed = None
        for i, c in enumerate(text):
            if quote:
                if escaped:
                    escaped = False
                elif c == "\\":
                    escaped = True
                elif c == quote:
                    quote = ""
            elif depth == 0:
                if c in spec.brackets:
                    depth = 1
            elif c in "{[(":
                depth += 1
            elif c in "}])":
                depth -= 1
                if depth <= 1:
                    closed = i + 1
            elif c in spec.quotes:
                quote = c
        self._depth, self._quote, self._escaped = depth, quote, escaped
        return closed

    def _read_to(self, trigger: tuple[int, int, bool] | None) -> list[ToolCall]:
        """The calls the text up to `trigger` completes (and the resume point moved on)."""
        if trigger is None:
            return []
        spec = self._spec
        assert spec is not None
        at, end, opens = trigger
        if self._resume <= self._thinking < end:
            # Markers in a reasoning block still open are no calls: read only up to it
            # (once), where the blocks before it end.
            at = end = self._thinking
            opens = False
        if end == self._parsed_to:
            return []
        self._parsed_to = end
        since = self._text.since(self._resume)
        marker = since[at - self._resume : end - self._resume]
        window = self._context + since[: end - self._resume]
        calls = self._parse(window)
        if opens:  # the blocks before the marker ended; the marker's own are not done
            done = len(calls) - self._calls_of(marker)
            stop = len(self._context) + at - self._resume
        else:  # a block that cannot be read may be cut off: kept for a later marker
            done = len(calls)
            if done > self._skip and calls[-1].raw_arguments is not None:
                done -= 1
            stop = len(window)
        new = calls[self._skip : done]
        if new and self._auto and not self._reported:
            # (auto) The first calls commit the stream to a dialect: the one the whole text
            # so far is recognized as (a later marker may tell dialects that share one
            # apart, deepseek-v3 from v3.1).
            name = detected(self._text.whole())
            if name != self._name:
                assert name is not None
                self._choose(name)
                self._text.pieces, self._text.base = [self._text.whole()], 0
                self._restart()
                return self._read_to(self._trigger(self._text.length))
        self._reported.extend(new)
        self._skip = max(self._skip, done)
        restart = opens or (marker in spec.ends and done == len(calls))
        if restart and not in_reasoning(window[:stop], spec.think):
            self._move_to(at if opens else end)
        return new

    def _calls_of(self, marker: str) -> int:
        """How many calls `parse` reads in `marker` alone (a block just opened)."""
        count = self._lengths.get(marker)
        if count is None:
            count = self._lengths[marker] = len(self._parse(marker))
        return count

    def _move_to(self, pos: int) -> None:
        """Resume reading at `pos` (every call before it reported)."""
        assert self._spec is not None
        passed = self._text.since(self._resume)[: pos - self._resume]
        spec = self._spec
        for open, close in spec.think:
            if close in passed and open + close not in self._context:
                self._context += open + close
        blocks = any(marker in passed for marker in spec.starts)
        if spec.seen and blocks and spec.seen not in self._context:
            self._context += spec.seen
        self._text.drop_before(pos)
        self._resume = pos
        # (the calls the context itself reads: pythonic's empty block is one)
        self._skip = len(self._parse(self._context)) if self._context else 0

    def partial(self) -> list[ToolCall]:
        """Every call so far, in order: those reported, then those not complete yet, the
        open one with its arguments as far as they arrived (JSON arguments: their complete
        prefix, closed, as `partial_json` reads it; XML parameters: those complete so
        far, typed as `parse` types them). Never raises."""
        calls = list(self._reported)
        if self._spec is None or self._broken:
            return calls
        window = self._context + self._text.since(self._resume)
        found = self._parse(window)
        rest = found[self._skip :]
        if rest and rest[-1].raw_arguments is not None:
            rest[-1] = self._opened(rest[-1], window, len(found))
        return calls + rest

    def _opened(self, call: ToolCall, window: str, count: int) -> ToolCall:
        """The open call `call` (not readable yet) with its arguments so far, where they
        can be read."""
        spec = self._spec
        assert spec is not None and call.raw_arguments is not None
        if spec.param_close:
            cut = window.rfind(spec.param_close)
            if cut != -1:
                cut += len(spec.param_close)
                so_far = self._parse(window[:cut] + spec.call_close)
                if len(so_far) == count and so_far[-1].name == call.name:
                    if so_far[-1].raw_arguments is None:
                        return so_far[-1]
            return call
        raw = call.raw_arguments
        brace = raw.find("{")
        text = partial_json(raw[brace:]) if brace != -1 else ""
        try:
            value = loads(text) if text else None
        except ParseError:
            value = None
        if not isinstance(value, dict):
            return call
        if call.name and value.get("name") == call.name:  # the call object, not arguments
            inner: Any = next((value[k] for k in ("arguments", "parameters") if k in value), {})
            value = inner if isinstance(inner, dict) else {}
        return ToolCall(call.name, value, call.id, None)

    def finish(self) -> AgentResponse:
        """The AgentResponse of the whole text, as `parse` reads it; `raw` is the list of
        deltas fed."""
        self._finished = True
        # Not UTF-8, or cut inside a character: text without calls, as `parse` reads it.
        cut = bool(self._decoder.getstate()[0])
        text = "" if self._broken or cut else self._text.whole()
        return self._read(text, list(self._deltas))


def native_stream(dialect: str, tools: str | None) -> TextStream:
    """The native backend's text stream (`src/python/stream.rs`): this one, each text read
    by the native parser of its dialect (`dialect`: a dialect or `auto-text`; `tools`:
    their JSON text), which gives the same calls as the dialect modules here."""
    from toolsift import _native

    parsers: dict[str, Any] = {}

    def parser(name: str) -> Any:
        found = parsers.get(name)
        if found is None:
            found = parsers[name] = _native.Parser(name, tools=tools)
        return found

    def read(text: str, raw: Any) -> AgentResponse:
        whole = parser(dialect).parse(text)
        return AgentResponse(whole.tool_calls, raw, whole.error, whole.content, whole.reasoning)

    def calls_in(name: str, text: str) -> list[ToolCall]:
        return parser(name).text_calls(text)  # type: ignore[no-any-return]

    name = None if dialect == AUTO_TEXT else dialect
    return TextStream(name, None, read, calls_in)


def in_reasoning(text: str, think: tuple[tuple[str, str], ...]) -> bool:
    """Whether `text` ends inside a reasoning block (its last open marker not closed)."""
    return any(text.rfind(open) > text.rfind(close) for open, close in think)
