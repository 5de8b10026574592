"""tools/layers.py, the architecture check, on small made-up trees: it finds an import
cycle, a layer violation, a module no layer holds, a file or function too long, and
passes a clean tree (Rust and Python alike). `make lint` runs it on the real tree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def load_layers() -> Any:
    spec = importlib.util.spec_from_file_location("layers", ROOT / "tools" / "layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["layers"] = module
    spec.loader.exec_module(module)
    return module


layers = load_layers()


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


CLEAN_RUST = {
    "src/lib.rs": "pub mod json;\npub mod node;\npub mod formats;\nmod python;\n",
    "src/json.rs": (
        "//! Not a use: crate::python::Glue in a comment.\n"
        'pub fn parse() -> &\'static str { "crate::formats::openai in a string" }\n'
        "pub fn brace() -> char { '{' }\n"
        "#[cfg(test)]\nmod tests {\n    use crate::python::Glue;\n}\n"
    ),
    "src/node.rs": "use crate::json::{self, parse};\npub struct Node;\n",
    "src/calls.rs": "pub struct Call;\n",
    "src/stream/accumulator.rs": "use crate::calls::Call;\npub struct Accumulator;\n",
    "src/stream/mod.rs": "pub mod accumulator;\nuse crate::route::respond;\n",
    "src/formats/mod.rs": "pub mod openai;\npub struct Registry;\nuse self::openai::walk;\n",
    "src/formats/openai.rs": (
        "use super::Registry;\nuse crate::{node::Node, stream::accumulator::Accumulator};\n"
        "pub fn walk() {}\n"
    ),
    "src/route.rs": "pub fn respond() { crate::formats::openai::walk(); }\n",
    "src/python/mod.rs": "use crate::stream::accumulator;\nuse crate::route;\npub struct Glue;\n",
}


def test_a_clean_rust_tree_passes(tmp_path: Path) -> None:
    root = tree(tmp_path, CLEAN_RUST)
    assert layers.check(root, "rust") == []
    assert layers.main(["--root", str(root), "rust"]) == 0


def test_a_rust_cycle_is_found(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            **CLEAN_RUST,
            # Two drivers of one layer that use each other.
            "src/bulk/mod.rs": "pub mod rows;\n",
            "src/bulk/rows.rs": "use crate::stream::Reader;\n",
            "src/stream/mod.rs": (
                "pub mod accumulator;\npub struct Reader;\nuse crate::bulk::rows;\n"
            ),
        },
    )
    assert layers.check(root, "rust") == ["cycle: bulk::rows <-> stream"]
    assert layers.main(["--root", str(root), "rust"]) == 1


def test_a_rust_layer_violation_is_found(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            **CLEAN_RUST,
            "src/formats/openai.rs": "use crate::bulk::Rows;\npub fn walk() {}\n",
            "src/bulk/mod.rs": "pub struct Rows;\n",
            "src/node.rs": "pub struct Node;\nfn f() { let _ = super::route::respond; }\n",
        },
    )
    assert layers.check(root, "rust") == [
        "layer: formats::openai (layer 4: formats) uses bulk (layer 6: stream, higher)",
        "layer: node (layer 1: node) uses route (layer 5: route, higher)",
    ]


def test_a_rust_module_in_no_layer_is_found(tmp_path: Path) -> None:
    root = tree(tmp_path, {**CLEAN_RUST, "src/formats_new.rs": "pub fn x() {}\n"})
    assert layers.check(root, "rust") == [
        "layer: formats_new: in no layer (add it to the layer table)"
    ]


def rust_fn(name: str, lines: int) -> str:
    """A function of `lines` lines, braces in strings and characters included."""
    body = "".join("    let _ = \"}\"; let _ = '{';\n" for _ in range(lines - 2))
    return f"pub fn {name}() {{\n{body}}}\n"


def test_long_rust_functions_and_files_are_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = rust_fn("fits", 80) + rust_fn("too_long", 81) + rust_fn("scan", 200)
    root = tree(tmp_path, {**CLEAN_RUST, "src/calls.rs": code})
    assert layers.check(root, "rust") == [
        "length: src/calls.rs:81: fn too_long: 81 lines (> 80)",
        "length: src/calls.rs:162: fn scan: 200 lines (> 80)",
    ]
    monkeypatch.setattr(layers, "LONG_FUNCTIONS", frozenset({"src/calls.rs::scan"}))
    assert layers.check(root, "rust") == [
        "length: src/calls.rs:81: fn too_long: 81 lines (> 80)",
    ]
    big = "".join(rust_fn(f"f{n}", 10) for n in range(71))  # 710 lines
    root = tree(tmp_path, {"src/calls.rs": big + "// comments are not code\n" * 50})
    assert layers.check(root, "rust") == ["length: src/calls.rs: 710 lines of code (> 700)"]


CLEAN_PYTHON = {
    "python/toolsift/__init__.py": "from toolsift.parsers import Parser\n",
    "python/toolsift/formats.py": '"""The table."""\nNAMES = ("a",)\n',
    "python/toolsift/_types.py": "from toolsift import formats\n",
    "python/toolsift/_errors.py": "from toolsift._types import ToolCall\n",
    "python/toolsift/_pure/__init__.py": "",
    "python/toolsift/_pure/walk.py": (
        "from typing import TYPE_CHECKING\nfrom toolsift._errors import ParseError\n"
        "from . import bulk\n"
        "if TYPE_CHECKING:\n    from toolsift.parsers import Parser\n"
    ),
    "python/toolsift/_pure/bulk.py": "from toolsift._types import COLUMNS\n",
    "python/toolsift/_native.pyi": "class Parser: ...\n",
    "python/toolsift/_backend.py": "from toolsift import _native, _pure\n",
    "python/toolsift/parsers/__init__.py": (
        "from toolsift import _backend, formats\n"
        "def f():\n    from toolsift._pure import walk  # lazy: still a use\n"
    ),
    "python/toolsift/cli/__init__.py": "from toolsift.cli import run\n",
    "python/toolsift/cli/run.py": (
        "from toolsift import parsers\nfrom toolsift.cli import writers\n"
    ),
    "python/toolsift/cli/writers.py": "from .. import _types\n",
}


def test_a_clean_python_tree_passes(tmp_path: Path) -> None:
    assert layers.check(tree(tmp_path, CLEAN_PYTHON), "python") == []


def test_python_cycles_and_layer_violations_are_found(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            **CLEAN_PYTHON,
            # A cycle through a lazy import, and the pure backend reaching up.
            "python/toolsift/_types.py": "def f():\n    from toolsift._errors import X\n",
            "python/toolsift/_pure/bulk.py": "from toolsift._bulk import COLUMNS\n",
            "python/toolsift/_bulk.py": "",
            "python/toolsift/cli/writers.py": "from toolsift.cli.run import x\n",
            "python/toolsift/extra.py": "",
        },
    )
    assert layers.check(root, "python") == [
        "cycle: toolsift._errors <-> toolsift._types",
        "cycle: toolsift.cli.run <-> toolsift.cli.writers",
        "layer: toolsift._pure.bulk (layer 1: toolsift._pure) uses toolsift._bulk "
        "(layer 3: toolsift._bulk, higher)",
        "layer: toolsift.extra: in no layer (add it to the layer table)",
    ]


def test_long_python_functions_are_found(tmp_path: Path) -> None:
    body = "".join(f"    x{n} = {n}\n" for n in range(80))
    code = f'def long():\n    """Docstring."""\n{body}\n\ndef short():\n    pass\n'
    root = tree(tmp_path, {**CLEAN_PYTHON, "python/toolsift/formats.py": code})
    assert layers.check(root, "python") == [
        "length: python/toolsift/formats.py:1: fn long: 82 lines (> 80)"
    ]
