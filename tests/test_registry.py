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
