"""Which backend runs: read TOOLSIFT_IMPLEMENTATION once, at import.

* unset or empty: the Rust extension if it imports, else the pure-Python twin;
* ``rust``: the Rust extension, and an ImportError if it is missing;
* ``python``: the pure-Python twin; the extension is never imported.
"""

from __future__ import annotations

import os
from types import ModuleType

__all__ = ["IMPLEMENTATION", "core", "load"]

_CHOICES = ("rust", "python")


def load(name: str) -> ModuleType:
    """The backend module called `name` ("rust" or "python"); tests use both side by side."""
    if name == "python":
        from toolsift import _pure

        return _pure
    if name == "rust":
        try:
            from toolsift import _native
        except ImportError as exc:
            raise ImportError(
                "TOOLSIFT_IMPLEMENTATION=rust, but the native module toolsift._native is "
                "missing; build it with `maturin develop --release` or `pip install .`"
            ) from exc
        return _native
    raise ImportError(
        f"TOOLSIFT_IMPLEMENTATION must be one of {', '.join(_CHOICES)} (or unset), got {name!r}"
    )


def _choose() -> tuple[str, ModuleType]:
    wanted = os.environ.get("TOOLSIFT_IMPLEMENTATION", "").strip().lower()
    if wanted:
        return wanted if wanted in _CHOICES else "", load(wanted)
    try:
        return "rust", load("rust")
    except ImportError:
        return "python", load("python")


IMPLEMENTATION, core = _choose()
