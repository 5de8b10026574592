"""The pure-Python backend: the readable specification the Rust backend is held to.

Its parts load when first used, so that the format registry (`toolsift._pure.formats`),
which the public layer reads whatever the backend, does not load the backend itself.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["Checks", "Parser", "clean_raw_for_history", "extract_tool_calls"]

_WHERE = {
    "Checks": "toolsift._pure.violations",
    "Parser": "toolsift._pure.walk",
    "clean_raw_for_history": "toolsift._pure.formats.litert",
    "extract_tool_calls": "toolsift._pure.formats.litert",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
