"""The format registry: both backends list the same formats, and the parser classes, the
CLI's choices and the format tables of the README and the docs all come from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import backend_module
from toolsift import cli, parsers
from toolsift._pure import formats

ROOT = Path(__file__).resolve().parent.parent
TABLES = (ROOT / "README.md", ROOT / "docs" / "formats.md")


def test_both_registries_list_the_same_formats_in_the_same_order() -> None:
    native = backend_module("rust")
    assert tuple(native.FORMATS) == formats.NAMES


def test_both_registries_list_the_same_batch_envelopes() -> None:
    """The formats marked `+ batch` in Rust's `formats!` are those whose pure module
    brings a batch envelope along (`unwrap_batch`), in the same order."""
    source = (ROOT / "src" / "formats" / "mod.rs").read_text()
    listed = source[source.index("formats! {") :].split("}", 1)[0]
    marked = [
        line.split('"')[1] for line in listed.splitlines() if line.rstrip(",").endswith("+ batch")
    ]
    pure = [
        spec.name
        for spec in formats.WALKED
        if getattr(spec.module, "unwrap_batch", None) in formats.BATCH_ENVELOPES
    ]
    assert marked == pure == ["anthropic", "bedrock"]


def test_every_format_has_its_parser_class() -> None:
    classes = {spec.parser_class: spec.name for spec in formats.REGISTRY}
    assert set(classes) <= set(parsers.__all__)
    for class_name, name in classes.items():
        cls = getattr(parsers, class_name)
        assert cls._format == name
        assert cls.__module__ == "toolsift.parsers" and cls.__qualname__ == class_name


def test_cli_choices_come_from_the_registry() -> None:
    assert tuple(cli.FORMATS) == (*formats.NAMES, formats.AUTO)
    assert all(getattr(parsers, cls) for cls in cli.FORMATS.values())


@pytest.mark.parametrize("page", TABLES, ids=lambda page: page.name)
def test_the_docs_hold_the_registry_table(page: Path) -> None:
    assert formats.markdown_table() in page.read_text()


@pytest.mark.parametrize("name", formats.NAMES)
def test_unknown_format_lists_every_name(backend: object, name: str) -> None:
    with pytest.raises(ValueError) as raised:
        backend.Parser("no-such-format")  # type: ignore[attr-defined]
    for listed in formats.NAMES:
        assert listed in str(raised.value)
    backend.Parser(name)  # type: ignore[attr-defined]


def test_the_public_table_lists_the_backends_formats() -> None:
    """`toolsift.formats` (the public layer's table) and the pure registry agree on the
    names, their order, the auto-detection order and each format's metadata."""
    from toolsift import formats as public

    assert public.NAMES == formats.NAMES
    assert public.WALKED == tuple(spec.name for spec in formats.WALKED)
    for spec in formats.REGISTRY:
        row = public.by_name(spec.name)
        assert (row.parser_class, row.where, row.id) == (
            spec.module.PARSER_CLASS,
            spec.module.WHERE,
            spec.module.ID,
        )
    assert public.markdown_table() == formats.markdown_table()
    assert public.parser_classes() == cli.FORMATS


def test_the_public_layer_loads_no_pure_backend_to_learn_the_names() -> None:
    """With the Rust backend, importing the parser classes and the CLI loads nothing of
    `toolsift._pure` (the names come from `toolsift.formats`)."""
    import subprocess
    import sys

    code = (
        "import sys, toolsift.parsers, toolsift.cli, toolsift._engines\n"
        "print(sorted(m for m in sys.modules if m.startswith('toolsift._pure')))"
    )
    env = {**__import__("os").environ, "TOOLSIFT_IMPLEMENTATION": "rust"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
