"""The complete prefix of a JSON text still arriving, closed (the twin of `src/partial.rs`):
what `partial()` shows of arguments not complete yet. A leaf: it imports nothing of the
package."""

from __future__ import annotations

import re

__all__ = ["PartialJson", "partial_json"]

_WS = " \t\n\r"


def partial_json(text: str) -> str:
    """The longest complete prefix of a JSON text, its open objects and arrays closed:
    what a streaming UI shows of arguments still arriving. A string or number not yet
    ended, a key without its value, and a literal cut short are left out; the text is
    read up to the first character that cannot continue JSON, and no further than the end
    of the first complete value. `""` where no value is complete. One pass, no recursion.
    """
    return PartialJson().read(text)


class PartialJson:
    """`partial_json` of a text that grows: each `read` is given the text of the one
    before with more appended, and reads only what is new (a token cut off by the end of
    the text is read again from its start; a string, from where its check stopped). So
    `partial()` after every fragment of a call costs linear time overall."""

    __slots__ = ("_at", "_checked", "_closers", "_out", "_safe", "_state", "_stopped", "waiting")

    def __init__(self) -> None:
        self._out: list[str] = []  # the text kept, in pieces
        self._closers: list[str] = []  # what closes each open container, innermost last
        # The last point where the kept text plus the closers is complete JSON:
        # (pieces of `_out`, open containers).
        self._safe = (0, 0)
        self._state = _VALUE
        self._at = 0  # where reading goes on: the start of a token not read yet
        self._checked = 0  # in a string starting at `_at`: where its check goes on
        # Nothing more can change the result: the first value is complete, or a character
        # that cannot continue JSON was met.
        self._stopped = False
        # The text ran out inside its first value (or before it): it is not JSON yet.
        self.waiting = True

    def read(self, text: str) -> str:
        """`partial_json(text)`; `text` starts with the text of the last `read`."""
        out, closers = self._out, self._closers
        state, safe = self._state, self._safe
        i, n = self._at, len(text)
        while i < n and not self._stopped:
            c = text[i]
            if c in _WS:
                i += 1
                continue
            if state == _AFTER:
                if not closers:
                    self._stopped = True  # the first value is complete
                    break
                if c == ",":
                    out.append(",")
                    state = _KEY if closers[-1] == "}" else _VALUE
                    i += 1
                    continue
                if c != closers[-1]:
                    self._stopped = True
                    break
            if c in "}]" and state != _KEY and state != _VALUE and closers and c == closers[-1]:
                out.append(closers.pop())
                i += 1
                state = _AFTER
                safe = (len(out), len(closers))
                continue
            if state in (_KEY, _KEY_OR_CLOSE):
                end = self._string_end(text, i) if c == '"' else _INVALID
                if end < 0:
                    self._stopped = end == _INVALID
                    break
                j = end
                while j < n and text[j] in _WS:
                    j += 1
                if j < n and text[j] != ":":
                    self._stopped = True
                if j >= n or text[j] != ":":
                    self._checked = end - 1  # the key is read: only its closing quote again
                    break
                out.append(text[i:end] + ":")
                i = j + 1
                self._checked = 0
                state = _VALUE
                continue
            # A value.
            if c in "{[":
                out.append(c)
                closers.append("}" if c == "{" else "]")
                state = _KEY_OR_CLOSE if c == "{" else _VALUE_OR_CLOSE
                i += 1
                safe = (len(out), len(closers))
                continue
            end = self._string_end(text, i) if c == '"' else _scalar_end(text, i)
            if end < 0:
                self._stopped = end == _INVALID
                break
            out.append(text[i:end])
            i = end
            self._checked = 0
            state = _AFTER
            safe = (len(out), len(closers))
        self._at, self._state, self._safe = i, state, safe
        complete = state == _AFTER and not closers
        self.waiting = not (self._stopped or complete)
        kept, depth = safe
        return "".join(out[:kept]) + "".join(reversed(closers[:depth]))

    def _string_end(self, text: str, i: int) -> int:
        """The end of the JSON string starting at `text[i]` (a quote); `_MORE` where the
        text ends first (the check goes on from there next time), `_INVALID` where it
        holds a control character or an invalid escape."""
        j = max(i + 1, self._checked)
        n = len(text)
        while True:
            j = _STRING_PLAIN.match(text, j).end()  # type: ignore[union-attr]
            if j >= n:
                break
            c = text[j]
            if c == '"':
                return j + 1
            if c != "\\":
                return _INVALID  # a control character
            if j + 1 >= n:
                break
            e = text[j + 1]
            if e == "u":
                if j + 6 > n:
                    break
                if not all(h in _HEX for h in text[j + 2 : j + 6]):
                    return _INVALID
                j += 6
            elif e in _ESCAPES:
                j += 2
            else:
                return _INVALID
        self._checked = j
        return _MORE


# What `partial_json` reads next: a value, a key, either of them or the container's end,
# or (after a value) a comma or the container's end.
_VALUE, _KEY, _KEY_OR_CLOSE, _VALUE_OR_CLOSE, _AFTER = range(5)
_ESCAPES = frozenset('"\\/bfnrt')
_HEX = frozenset("0123456789abcdefABCDEF")
# Where a token could not be read: it cannot be JSON, or the text ends inside it.
_INVALID, _MORE = -1, -2
# A string's characters that need no check: up to a quote, a backslash or a control one.
_STRING_PLAIN = re.compile(r'[^"\\\x00-\x1f]*')


def _scalar_end(text: str, i: int) -> int:
    """The end of the number or literal at `text[i]`; `_MORE` where the text ends inside
    it (a number that reaches the end: more digits may follow), `_INVALID` where it is
    not one."""
    n = len(text)
    for literal in ("true", "false", "null"):
        if text.startswith(literal, i):
            return i + len(literal)
        if n - i < len(literal) and literal.startswith(text[i:]):
            return _MORE
    j = i
    if j < n and text[j] == "-":
        j += 1
    if j < n and text[j] == "0":
        j += 1
    elif j < n and "1" <= text[j] <= "9":
        while j < n and "0" <= text[j] <= "9":
            j += 1
    else:
        return _MORE if j >= n else _INVALID
    if j < n and text[j] == ".":
        j += 1
        start = j
        while j < n and "0" <= text[j] <= "9":
            j += 1
        if j == start:
            return _MORE if j >= n else _INVALID
    if j < n and text[j] in "eE":
        j += 1
        if j < n and text[j] in "+-":
            j += 1
        start = j
        while j < n and "0" <= text[j] <= "9":
            j += 1
        if j == start:
            return _MORE if j >= n else _INVALID
    return _MORE if j >= n else j
