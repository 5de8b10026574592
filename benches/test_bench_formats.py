"""Every walked format's throughput, and auto-detection against the named format: the
OpenAI corpus rewritten in each provider's shape (`provider_corpus.py`), so the formats
compare on the same turns. Groups `formats-<format>`: Rust `to_arrow` (one thread) named
and auto, Rust and pure `parse_many` (one thread). Without --benchmark-enable each entry
runs once over the smoke lines, and the named and auto results must agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import provider_corpus
import pytest
from conftest import run_on_fresh_heap
from toolsift import _backend, parsers
from toolsift._pure import formats

CLASSES = {spec.name: spec.parser_class for spec in formats.REGISTRY}
ENTRIES = (
    ("rust_to_arrow", "rust to_arrow t=1", "rust", "to_arrow"),
    ("rust_to_arrow_auto", "rust to_arrow t=1 (auto)", "rust", "to_arrow_auto"),
    ("rust_parse_many", "rust parse_many t=1", "rust", "parse_many"),
    ("python_parse_many", "python parse_many t=1", "python", "parse_many"),
)
_LINES: dict[str, list[bytes]] = {}


def lines_of(name: str, settings: Any) -> list[bytes]:
    if name not in _LINES:
        _LINES[name] = provider_corpus.format_lines(name, settings.lines, settings.seed)
    return _LINES[name]


def parser(impl: str, class_name: str) -> Any:
    try:
        backend = _backend.load(impl)
    except ImportError:
        pytest.skip(f"the {impl} backend is not available")
    cls = getattr(parsers, class_name)
    return type(class_name, (cls,), {"_backend": backend})()


def runner(impl: str, op: str, name: str, lines: list[bytes]) -> Callable[[], Any]:
    if op == "to_arrow_auto":
        auto = parser(impl, "AutoResponseParser")
        return lambda: auto.to_arrow(lines, threads=1)
    named = parser(impl, CLASSES[name])
    if op == "to_arrow":
        return lambda: named.to_arrow(lines, threads=1)
    return lambda: named.parse_many(lines, threads=1)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e[0] for e in ENTRIES])
@pytest.mark.parametrize("name", provider_corpus.FORMATS)
def test_format(benchmark: Any, bench_settings: Any, name: str, entry: tuple[str, ...]) -> None:
    key, label, impl, op = entry
    lines = lines_of(name, bench_settings)
    run = runner(impl, op, name, lines)
    benchmark.group = f"formats-{name}"
    benchmark.extra_info.update(
        key=key,
        order=[e[0] for e in ENTRIES].index(key),
        label=label,
        impl=impl,
        op=op.removesuffix("_auto"),
        threads=1,
        corpus=name,
        MB=sum(len(line) + 1 for line in lines) / 1e6,
        records=len(lines),
    )
    result = run_on_fresh_heap(benchmark, run, bench_settings)
    if op.startswith("to_arrow"):
        assert set(result.column("format").to_pylist()) <= {name, None}
        assert result.num_rows > 0


@pytest.mark.parametrize("name", provider_corpus.FORMATS)
def test_auto_finds_what_the_named_format_finds(bench_settings: Any, name: str) -> None:
    lines = lines_of(name, bench_settings)
    named = runner("rust", "to_arrow", name, lines)()
    auto = runner("rust", "to_arrow_auto", name, lines)()
    assert auto.equals(named)
