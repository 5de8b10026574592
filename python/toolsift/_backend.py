"""Which backend runs: read TOOLSIFT_IMPLEMENTATION once, at import.

* unset or empty: the Rust extension if it imports, else the pure-Python twin;
* ``rust``: the Rust extension, and an ImportError if it is missing;
* ``python``: the pure-Python twin; the extension is never imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

if TYPE_CHECKING:
    from toolsift._types import AgentResponse, Stream, ToolCall

__all__ = ["IMPLEMENTATION", "Backend", "CoreParser", "core", "load"]


class CoreParser(Protocol):
    """A backend's parser of one format (`Backend.Parser(format, **options)`): what the
    public parser classes delegate to."""

    def set_owner(self, owner: Any) -> None: ...

    def parse(self, raw: Any, /, *, record_path: str | None = None) -> AgentResponse: ...

    def stream(self) -> Stream: ...

    def parse_many(
        self,
        raws: Iterable[Any],
        threads: int | None = None,
        record_path: Sequence[str] | None = None,
    ) -> list[AgentResponse]: ...

    def parse_file(
        self,
        path: str,
        record_path: Sequence[str] | None = None,
        threads: int | None = None,
        progress: Callable[[int], None] | None = None,
        max_line_bytes: int | None = None,
    ) -> Iterator[AgentResponse]: ...

    def arrow_batches(
        self,
        source: Any,
        record_path: Sequence[str] | None,
        threads: int | None,
        progress: Callable[[int], None] | None,
        sink: Callable[[Any], None],
        schema: Any = None,
        max_line_bytes: int | None = None,
    ) -> dict[str, int]: ...


class Backend(Protocol):
    """What a backend module gives the public layer: the Rust extension
    (`toolsift._native`) and the pure twin (`toolsift._pure`) both (tests/
    test_backend_select.py checks their names, parameters and docstrings)."""

    @property
    def Parser(self) -> Callable[..., CoreParser]: ...

    def extract_tool_calls(self, text: Any) -> list[ToolCall]: ...

    def clean_raw_for_history(self, text: Any) -> Any: ...


if TYPE_CHECKING:  # mypy checks that both backends have the protocols' shape
    from toolsift import _native
    from toolsift._pure import formats as _pure_formats
    from toolsift._pure import walk as _pure_walk

    _NATIVE: Backend = _native
    _PURE_PARSER: Callable[..., CoreParser] = _pure_walk.Parser
    _PURE_FUNCTIONS: tuple[Callable[[Any], list[ToolCall]], Callable[[Any], Any]] = (
        _pure_formats.litert.extract_tool_calls,
        _pure_formats.litert.clean_raw_for_history,
    )

BACKEND_FUNCTIONS = ("extract_tool_calls", "clean_raw_for_history")
PARSER_METHODS = ("parse", "stream", "parse_many", "parse_file", "arrow_batches")
"""The members of `Backend` and `CoreParser` (the surface tests compare)."""

_CHOICES = ("rust", "python")


def load(name: str) -> Backend:
    """The backend module called `name` ("rust" or "python"); tests use both side by side."""
    if name == "python":
        from toolsift import _pure

        return cast(Backend, _pure)
    if name == "rust":
        try:
            from toolsift import _native
        except ImportError as exc:
            raise ImportError(
                "TOOLSIFT_IMPLEMENTATION=rust, but the native module toolsift._native is "
                "missing; build it with `maturin develop --release` or `pip install .`"
            ) from exc
        return cast(Backend, _native)
    raise ImportError(
        f"TOOLSIFT_IMPLEMENTATION must be one of {', '.join(_CHOICES)} (or unset), got {name!r}"
    )


def _choose() -> tuple[str, Backend]:
    wanted = os.environ.get("TOOLSIFT_IMPLEMENTATION", "").strip().lower()
    if wanted:
        return wanted if wanted in _CHOICES else "", load(wanted)
    try:
        return "rust", load("rust")
    except ImportError:
        return "python", load("python")


IMPLEMENTATION, core = _choose()
