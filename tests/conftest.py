"""Every behaviour test runs on both backends through the `impl` fixture.

With TOOLSIFT_IMPLEMENTATION set (as CI does, once per backend) only that backend runs,
and a missing native module is an error; unset, both run, and the Rust one is skipped
if the extension was not built.
"""

from __future__ import annotations

import json
import os
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from toolsift import _backend, parsers
from toolsift._pure import formats

FORCED = os.environ.get("TOOLSIFT_IMPLEMENTATION", "").strip().lower()
IMPLS = [FORCED] if FORCED else ["rust", "python"]


VECTORS = Path(__file__).parent / "vectors"


def format_vectors() -> list[dict[str, Any]]:
    """The shared vectors of every walked format of the registry (tests/vectors/<name>.json;
    LiteRT-LM's, which reads text, have a schema of their own)."""
    cases: list[dict[str, Any]] = []
    for spec in formats.REGISTRY:
        if not spec.reads_text:
            cases += json.loads((VECTORS / f"{spec.name}.json").read_text("utf-8"))
    return cases


def vector_text(text: Any) -> bytes:
    """A case's text: a string, or pieces (a string, `$hex` bytes, `$repeat`)."""
    if isinstance(text, str):
        return text.encode()
    out = b""
    for piece in text:
        if isinstance(piece, str):
            out += piece.encode()
        elif "$hex" in piece:
            out += bytes.fromhex(piece["$hex"])
        else:
            out += piece["$repeat"].encode() * piece["times"]
    return out


def backend_module(name: str) -> types.ModuleType:
    try:
        return _backend.load(name)
    except ImportError:
        if FORCED:
            raise
        pytest.skip("the native module is not built")


def bind(cls: type, backend: types.ModuleType) -> type:
    """`cls` with its backend fixed, whatever TOOLSIFT_IMPLEMENTATION says."""
    return type(cls.__name__, (cls,), {"_backend": backend})


@pytest.fixture(params=IMPLS)
def impl(request: pytest.FixtureRequest) -> str:
    backend_module(request.param)
    return request.param


@pytest.fixture
def backend(impl: str) -> types.ModuleType:
    return backend_module(impl)


@pytest.fixture
def make(backend: types.ModuleType) -> Any:
    """`make.OpenAIResponseParser()` etc., bound to the backend under test."""
    return types.SimpleNamespace(
        **{name: bind(getattr(parsers, name), backend) for name in parsers.__all__}
    )


def both_backends() -> tuple[types.ModuleType, types.ModuleType]:
    """The Rust and Python backends side by side, for parity tests."""
    return backend_module("rust"), backend_module("python")


def same(a: Any, b: Any) -> bool:
    """Equal, and of the same JSON types all the way down (1 is not 1.0, nor True).

    Iterative, so values nested 1024 deep (the depth limit) compare too."""
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, dict):
            if list(a) != list(b):
                return False
            stack.extend((a[k], b[k]) for k in a)
        elif isinstance(a, list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif isinstance(a, float) and a != a:
            if b == b:
                return False
        elif isinstance(a, float):
            if not (a == b and str(a) == str(b)):  # tells -0.0 from 0.0
                return False
        elif a != b:
            return False
    return True


def calls_as_dicts(response: Any) -> list[dict[str, Any]]:
    return [call.model_dump() for call in response.tool_calls]


def mutate(draw: Any, text: bytearray, pieces: list[bytes], edits: tuple[str, ...]) -> bytes:
    """1 to 3 random `edits` of `text` (hypothesis `draw`): "insert" one of `pieces`,
    "delete" or "replace" a byte, "cut" the rest off."""
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(edits))
        if how == "insert":
            text[at:at] = draw(st.sampled_from(pieces))
        elif how == "cut":
            del text[at:]
        elif text:
            at = min(at, len(text) - 1)
            if how == "delete":
                del text[at]
            else:
                text[at] = draw(st.integers(0, 255))
    return bytes(text)


def fuzz_targets() -> types.ModuleType:
    """`fuzz/targets.py`, whose targets compare the Rust and the pure-Python backends.

    They need both backends whatever TOOLSIFT_IMPLEMENTATION says (as the parity tests
    do), so with the native module importable they run in every pass (also under
    TOOLSIFT_IMPLEMENTATION=python). Without it they are skipped, unless
    TOOLSIFT_IMPLEMENTATION=rust, where its absence is an error."""
    try:
        _backend.load("rust")
    except ImportError:
        if FORCED == "rust":
            raise
        pytest.skip("the fuzz targets compare both backends; the native module is not built")
    root = str(Path(__file__).resolve().parents[1])
    if root not in sys.path:
        sys.path.insert(0, root)
    from fuzz import targets

    return targets


def require_engine(module: str, extra: str) -> types.ModuleType:
    """`module` (an engine: ray, pyspark), imported. Without it the engine's tests skip,
    except under CI (CI set), which installs every extra: there its absence fails."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (pip install 'toolsift[{extra}]')")
