"""The one exception toolsift raises for input it cannot read."""

from __future__ import annotations

from toolsift._values import TooLongInt

__all__ = [
    "OPENED_BEFORE_FORK",
    "FormatMismatchWarning",
    "ParseError",
    "UnrecognizedShape",
    "check_threads",
    "record_error",
]


class ParseError(ValueError):
    """JSON text that is not valid JSON (or nests deeper than the limit).

    `msg` says what is wrong, `pos` is the 0-based byte offset in the UTF-8 text where it
    was found. Both backends give the same `msg` and `pos` for the same input.
    """

    msg: str
    pos: int

    def __init__(self, msg: str, pos: int) -> None:
        super().__init__(f"{msg} at byte {pos}")
        self.msg = msg
        self.pos = pos

    def __reduce__(self) -> tuple[object, ...]:
        return (ParseError, (self.msg, self.pos))


class FormatMismatchWarning(UserWarning):
    """A named parser found no tool call in a response that auto-detection reads as
    another format (`OpenAIResponseParser().parse(a Gemini response)`): the message names
    that format and its parser. Given once per parser instance."""


class UnrecognizedShape(ParseError):
    """A response auto-detection does not recognize: `str(e)` is
    ``unrecognized response shape (keys: a, b, c)`` (the keys of the response, or of
    what it is), which is also the record's `error` in batches; `pos` is 0."""

    def __init__(self, doc: object) -> None:
        super().__init__(f"unrecognized response shape ({describe_shape(doc)})", 0)

    def __str__(self) -> str:
        return self.msg

    def __reduce__(self) -> tuple[object, ...]:
        return (_unrecognized, (self.msg,))


def _unrecognized(msg: str) -> UnrecognizedShape:
    error = UnrecognizedShape.__new__(UnrecognizedShape)
    ParseError.__init__(error, msg, 0)
    return error


MAX_KEYS_SHOWN = 10


def describe_shape(doc: object) -> str:
    """`keys: a, b, c` for an object (the first `MAX_KEYS_SHOWN`, then `...`); else what
    the value is (`a list`, `a str`, `a Message object`)."""
    if isinstance(doc, dict):
        keys = [str(key) for key in doc]
        shown = ", ".join(keys[:MAX_KEYS_SHOWN])
        return f"keys: {shown}{', ...' if len(keys) > MAX_KEYS_SHOWN else ''}"
    kinds = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    for kind, text in kinds.items():
        if isinstance(doc, kind):
            return text
    if isinstance(doc, (int, float, TooLongInt)):
        return "a number"
    return f"a {type(doc).__name__} object"


OPENED_BEFORE_FORK = (
    "this parse_file iterator was opened before fork(), in the parent process; "
    "call parse_file again in this process"
)
"""The RuntimeError of a `parse_file` iterator used in a child made by fork() (as
multiprocessing makes its workers on Linux): its reading went on in the parent."""


def record_error(exc: BaseException) -> str:
    """The `error` text of a batch record that could not be read (both backends)."""
    if isinstance(exc, ParseError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def check_threads(threads: object) -> None:
    """`threads` must be None (all cores) or a positive int (both backends)."""
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads must be a positive int or None (all cores), got {threads!r}")
