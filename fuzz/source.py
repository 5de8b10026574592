"""Where the generators' decisions come from: the fuzzer's input bytes, or hypothesis.

Every generator in `fuzz/gen.py` takes a `Source` and asks it for integers, choices and
bytes. `ByteSource` reads them from the front of a fuzz input (so one input always
builds the same case, and atheris' mutations of the bytes become mutations of the
case); `DrawSource` draws them with hypothesis, which then shrinks a failing case.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class Source:
    """The decisions a generator can ask for."""

    def int(self, lo: int, hi: int) -> int:  # pragma: no cover - interface
        """An integer in [lo, hi]."""
        raise NotImplementedError

    def bytes(self, max_len: int) -> bytes:  # pragma: no cover - interface
        """Up to `max_len` arbitrary bytes."""
        raise NotImplementedError

    def bool(self) -> bool:
        return self.int(0, 1) == 1

    def one_in(self, n: int) -> bool:
        """True about once in `n` draws (never for the smallest choice, so an input
        that has run out keeps to the common paths)."""
        return self.int(0, n - 1) == n - 1

    def pick(self, seq: Sequence[T]) -> T:
        return seq[self.int(0, len(seq) - 1)]


class ByteSource(Source):
    """Decisions read from the front of `data`; once it runs out, every draw is the
    smallest choice (so any input, even empty, builds a case)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        value = self.data[self.pos]
        self.pos += 1
        return value

    def int(self, lo: int, hi: int) -> int:
        span = hi - lo
        if span <= 0:
            return lo
        value = 0
        for _ in range((span.bit_length() + 7) // 8):
            value = (value << 8) | self.byte()
        return lo + value % (span + 1)

    def bytes(self, max_len: int) -> bytes:
        n = self.int(0, max_len)
        chunk = self.data[self.pos : self.pos + n]
        self.pos += len(chunk)
        return chunk

    def rest(self) -> bytes:
        """Every byte not read yet."""
        chunk = self.data[self.pos :]
        self.pos = len(self.data)
        return chunk


class DrawSource(Source):
    """Decisions drawn with hypothesis (`st.data()`)."""

    def __init__(self, data: Any) -> None:
        from hypothesis import strategies as st

        self._st = st
        self._data = data

    def int(self, lo: int, hi: int) -> int:
        if hi <= lo:
            return lo
        return self._data.draw(self._st.integers(lo, hi))

    def bytes(self, max_len: int) -> bytes:
        return self._data.draw(self._st.binary(max_size=max_len))
