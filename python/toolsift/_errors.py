"""The one exception toolsift raises for input it cannot read."""

from __future__ import annotations

from toolsift._values import TooLongInt

__all__ = [
    "ERROR_KINDS",
    "OPENED_BEFORE_FORK",
    "FormatMismatchWarning",
    "ParseError",
    "UnrecognizedShape",
    "check_threads",
    "error_kind",
    "record_error",
    "record_path_keys",
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


ERROR_KINDS = ("json", "shape", "record_path", "provider", "stream", "line_too_long", "io")
"""The values of the `error_kind` column (`error_kind`); `io` is the CLI's, for an input
file that could not be read to its end."""

_KIND_STARTS = (
    ("line longer than ", "line_too_long"),
    ("nothing at record_path ", "record_path"),
    ("unrecognized response shape", "shape"),
    ("batch ", "provider"),
    ("unknown batch result type", "provider"),
    ("stream error", "provider"),
    ("a functionCall with partialArgs but no name", "stream"),  # accumulator.FRAGMENT
    ("a stream event is not JSON", "stream"),
)


def error_kind(error: str) -> tuple[str, int | None]:
    """What kind of failure a record's `error` text is (the `error_kind` column), and the
    HTTP status it names (`http_status`). The texts are made from fixed beginnings, so the
    beginning tells (the spec of `json_errors::error_kind`; the cases are in
    tests/vectors/json_errors.json, "kinds"):

    * ``json``: the record is not JSON text (``str(ParseError)``), or not text at all;
    * ``shape``: no format recognized the response (``unrecognized response shape``);
    * ``record_path``: ``nothing at record_path P``;
    * ``provider``: the provider's own failure: a batch envelope's error (``batch ...``),
      an HTTP status (``HTTP S: D``, with `http_status` S where S is an integer), a
      stream's error event (``stream error: ...``);
    * ``stream``: a record holding a stream that could not be read (an event that is not
      JSON, or only pieces of calls);
    * ``line_too_long``: ``line longer than N bytes``.
    """
    if error.startswith("HTTP "):
        digits = error[5:].split(":", 1)[0]
        status = int(digits) if digits.isascii() and digits.isdigit() else None
        return "provider", status if status is not None and status < 1 << 31 else None
    for start, kind in _KIND_STARTS:
        if error.startswith(start):
            return kind, None
    return "json", None


def check_threads(threads: object) -> None:
    """`threads` must be None (all cores) or a positive int (both backends)."""
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise ValueError(f"threads must be a positive int or None (all cores), got {threads!r}")


def record_path_keys(record_path: object) -> list[str] | None:
    """The keys of a dot path (`record_path=`), None for None; an error for anything
    else that is not a non-empty str of valid Unicode (both backends, and the API)."""
    if record_path is None:
        return None
    if not isinstance(record_path, str):
        raise TypeError(f"record_path must be a str or None, got {type(record_path).__name__}")
    if not record_path:
        raise ValueError("record_path must not be empty (None: find the response on its own)")
    if not record_path.isascii():
        try:
            record_path.encode("utf-8")
        except UnicodeEncodeError:  # no key of JSON text can hold a lone surrogate
            raise ValueError(
                f"record_path must be valid Unicode (it has a lone surrogate): {record_path!r}"
            ) from None
    return record_path.split(".")
