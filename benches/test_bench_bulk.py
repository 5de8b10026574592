"""Bulk throughput, side by side in one run: `to_arrow` and `parse_file` on an OpenAI Batch
API output file, against what a user writes today (orjson + a Python walk).

Groups:

* ``bulk-arrow``: the file to a pyarrow Table with one row per call (the `to_arrow`
  columns); the baseline reads lines, ``orjson.loads`` each, unwraps the envelope, walks
  the calls into Python lists, and calls ``pyarrow.table``.
* ``bulk-parse_file``: the file to AgentResponses, iterated; the baseline builds the same
  objects with orjson and the plain walk of ``baselines.py``.
* ``bulk-arrow-gz``: the same file gzip-compressed, to a Table.
* ``bulk-files-gz``: the same lines cut into 16 gzip files, read as one source: the
  multi-file CLI (``toolsift extract`` in this process, to Parquet) and
  ``to_arrow(toolsift.Files(...))``, each with 1 and 2 threads (files read in parallel).

Run with timing:  pytest benches/test_bench_bulk.py --benchmark-enable --benchmark-json=b.json
                  python benches/report.py b.json
Smoke test:       pytest benches     (each entry once, over a small file)

The file is ``TOOLSIFT_BENCH_LINES`` responses (default 20000, about 40 MB) of the
``openai`` corpus, each wrapped in a Batch API envelope, written once per session.
Peak RSS of `parse_file` over a large file is measured by ``benches/bulk_rss.py``.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from conftest import run_on_fresh_heap
from test_bench_parse import _backend, _baselines, _toolsift_parsers

Run = Callable[[], Any]


@dataclass
class BatchFile:
    path: Path
    gz: Path
    megabytes: float
    gz_megabytes: float
    records: int
    calls: int
    parts: list[Path] = field(default_factory=list)  # the lines in PARTS gzip files


PARTS = 16


def write_parts(data: bytes, folder: Path, count: int = PARTS) -> list[Path]:
    """The lines of `data` cut into `count` gzip files of (about) as many lines each."""
    lines = data.splitlines(keepends=True)
    step = -(-len(lines) // count)
    parts = []
    for k in range(count):
        part = folder / f"part-{k:02d}.jsonl.gz"
        part.write_bytes(gzip.compress(b"".join(lines[k * step : (k + 1) * step]), 6))
        parts.append(part)
    return parts


def envelope(i: int, line: bytes) -> bytes:
    return (
        b'{"id":"batch_req_%d","custom_id":"request-%d","response":{"status_code":200,'
        b'"request_id":"req_%d","body":%s},"error":null}' % (i, i, i, line)
    )


@pytest.fixture(scope="session")
def batch_file(tmp_path_factory: pytest.TempPathFactory, bench_settings: Any) -> BatchFile:
    import corpus

    lines = corpus.corpus_lines("openai", bench_settings.lines, bench_settings.seed)
    data = b"".join(envelope(i, line) + b"\n" for i, line in enumerate(lines))
    folder = tmp_path_factory.mktemp("bulk")
    path = folder / "openai_batch_output.jsonl"
    path.write_bytes(data)
    gz = folder / "openai_batch_output.jsonl.gz"
    gz.write_bytes(gzip.compress(data, compresslevel=6))
    import json

    calls = sum(len(corpus.calls_of(json.loads(line))) for line in lines)
    parts = write_parts(data, folder)
    return BatchFile(path, gz, len(data) / 1e6, gz.stat().st_size / 1e6, len(lines), calls, parts)


_PARSERS: dict[str, Any] = {}


def parser(impl: str) -> Any:
    if impl not in _PARSERS:
        cls = _toolsift_parsers().OpenAIResponseParser
        _PARSERS[impl] = type(cls.__name__, (cls,), {"_backend": _backend(impl)})()
    return _PARSERS[impl]


# ------------------------------------------------------------------ baselines

COLUMNS = ("record", "custom_id", "call_index", "id", "name", "arguments", "raw_arguments")


def orjson_arrow(path: Path) -> Any:
    """What a user writes today: orjson, a walk into lists, pyarrow.table."""
    import orjson
    import pyarrow as pa

    loads, dumps = orjson.loads, orjson.dumps
    cols: dict[str, list[Any]] = {name: [] for name in (*COLUMNS, "error")}
    record, custom, index, ids, names, arguments, raws, errors = cols.values()
    with open(path, "rb") as f:
        for number, line in enumerate(f):
            try:
                doc = loads(line)
            except orjson.JSONDecodeError as exc:
                row = (number, *[None] * 6, str(exc))
                for column, value in zip(cols.values(), row, strict=True):
                    column.append(value)
                continue
            response = doc.get("response") or {}
            body = response.get("body") or {}
            k = 0
            for choice in body.get("choices") or ():
                for call in (choice.get("message") or {}).get("tool_calls") or ():
                    function = call.get("function")
                    if function is None:
                        continue
                    text = function.get("arguments")
                    raw = None
                    try:
                        value = loads(text)
                        if not isinstance(value, dict):
                            raise ValueError
                        args = dumps(value).decode()
                    except (ValueError, TypeError):
                        args, raw = "{}", text
                    record.append(number)
                    custom.append(doc.get("custom_id"))
                    index.append(k)
                    ids.append(call.get("id"))
                    names.append(function.get("name", ""))
                    arguments.append(args)
                    raws.append(raw)
                    errors.append(None)
                    k += 1
    return pa.table(cols)


def orjson_parse_file(path: Path) -> int:
    import orjson

    walk = _baselines().openai_walk
    loads = orjson.loads
    n = 0
    with open(path, "rb") as f:
        for line in f:
            line = line.rstrip(b"\n")
            response = walk(loads(line)["response"]["body"], line, loads)
            n += len(response.tool_calls)
    return n


def read_floor(path: Path) -> int:
    n = 0
    with open(path, "rb") as f:
        for line in f:
            n += len(line)
    return n


# ------------------------------------------------------------------ entries


@dataclass(frozen=True)
class Entry:
    group: str
    key: str
    label: str
    impl: str
    op: str
    threads: int | None
    make: Callable[[BatchFile], Run]
    finds_calls: bool = True


def _to_arrow(impl: str, threads: int, gz: bool = False) -> Callable[[BatchFile], Run]:
    def make(f: BatchFile) -> Run:
        p = parser(impl)
        path = f.gz if gz else f.path
        return lambda: p.to_arrow(path, threads=threads).num_rows

    return make


def _to_arrow_files(impl: str, threads: int) -> Callable[[BatchFile], Run]:
    def make(f: BatchFile) -> Run:
        from toolsift import Files

        p = parser(impl)
        return lambda: p.to_arrow(Files(f.parts), threads=threads).column("error").null_count

    return make


def _extract(threads: int) -> Callable[[BatchFile], Run]:
    """`toolsift extract PART... -o out.parquet --threads N`, in this process (the CLI's
    own backend: the entry skips unless it is the Rust one)."""

    def make(f: BatchFile) -> Run:
        import toolsift
        from toolsift import cli

        _backend("rust")
        if toolsift.IMPLEMENTATION != "rust":
            pytest.skip("the CLI runs on the python backend here")
        out = f.parts[0].parent / f"extract-t{threads}.parquet"
        args = ["extract", *map(str, f.parts), "--format", "openai", "-o", str(out)]
        args += ["--quiet", "--threads", str(threads)]

        def run() -> int:
            if cli.main(args) != 0:
                raise RuntimeError("toolsift extract failed")
            return 0

        return run

    return make


def _parse_file(impl: str, threads: int) -> Callable[[BatchFile], Run]:
    def make(f: BatchFile) -> Run:
        p = parser(impl)

        def run() -> int:
            return sum(len(r.tool_calls) for r in p.parse_file(f.path, threads=threads))

        return run

    return make


ENTRIES = (
    Entry("bulk-arrow", "floor_iter", "read floor: iterate lines", "floor", "read", None,
          lambda f: lambda: read_floor(f.path), finds_calls=False),
    Entry("bulk-arrow", "rust_to_arrow_t1", "rust to_arrow t=1", "rust", "to_arrow", 1,
          _to_arrow("rust", 1)),
    Entry("bulk-arrow", "rust_to_arrow_t2", "rust to_arrow t=2", "rust", "to_arrow", 2,
          _to_arrow("rust", 2)),
    Entry("bulk-arrow", "python_to_arrow_t1", "python to_arrow", "python", "to_arrow", 1,
          _to_arrow("python", 1)),
    Entry("bulk-arrow", "orjson_walk", "orjson + walk + pyarrow.table", "baseline", "orjson",
          None, lambda f: lambda: orjson_arrow(f.path).num_rows),
    Entry("bulk-parse_file", "rust_parse_file_t1", "rust parse_file t=1", "rust", "parse_file",
          1, _parse_file("rust", 1)),
    Entry("bulk-parse_file", "rust_parse_file_t2", "rust parse_file t=2", "rust", "parse_file",
          2, _parse_file("rust", 2)),
    Entry("bulk-parse_file", "python_parse_file_t1", "python parse_file", "python",
          "parse_file", 1, _parse_file("python", 1)),
    Entry("bulk-parse_file", "orjson_walk", "orjson.loads + walk", "baseline", "orjson", None,
          lambda f: lambda: orjson_parse_file(f.path)),
    Entry("bulk-arrow-gz", "rust_to_arrow_t1", "rust to_arrow .gz t=1", "rust", "to_arrow", 1,
          _to_arrow("rust", 1, gz=True)),
    Entry("bulk-arrow-gz", "rust_to_arrow_t2", "rust to_arrow .gz t=2", "rust", "to_arrow", 2,
          _to_arrow("rust", 2, gz=True)),
    Entry("bulk-files-gz", "rust_extract_t1", f"rust extract {PARTS} .gz t=1", "rust",
          "extract", 1, _extract(1), finds_calls=False),
    Entry("bulk-files-gz", "rust_extract_t2", f"rust extract {PARTS} .gz t=2", "rust",
          "extract", 2, _extract(2), finds_calls=False),
    Entry("bulk-files-gz", "rust_files_t1", f"rust to_arrow(Files) {PARTS} .gz t=1", "rust",
          "to_arrow_files", 1, _to_arrow_files("rust", 1)),
    Entry("bulk-files-gz", "rust_files_t2", f"rust to_arrow(Files) {PARTS} .gz t=2", "rust",
          "to_arrow_files", 2, _to_arrow_files("rust", 2)),
)  # fmt: skip


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.group}-{e.key}" for e in ENTRIES])
def test_bulk(benchmark: Any, batch_file: BatchFile, bench_settings: Any, entry: Entry) -> None:
    if entry.impl in ("rust", "python"):
        _backend(entry.impl)  # skips when the backend is missing
    pytest.importorskip("pyarrow")
    run = entry.make(batch_file)
    gz = entry.group.endswith("-gz")
    benchmark.group = entry.group
    benchmark.extra_info.update(
        key=entry.key,
        order=ENTRIES.index(entry),
        label=entry.label,
        impl=entry.impl,
        op=entry.op,
        input="bytes",
        threads=entry.threads,
        corpus="openai batch output"
        + (f" ({PARTS} gzip files)" if entry.group == "bulk-files-gz" else " (gzip)" if gz else ""),
        # MB of JSON text (decompressed for .gz), so that MB/s compare across groups.
        MB=batch_file.megabytes,
        file_MB=(
            sum(p.stat().st_size for p in batch_file.parts) / 1e6
            if entry.group == "bulk-files-gz"
            else batch_file.gz_megabytes
            if gz
            else batch_file.megabytes
        ),
        records=batch_file.records,
        calls=batch_file.calls,
    )
    if entry.impl == "rust":
        benchmark.extra_info["build"] = getattr(_backend("rust"), "BUILD_PROFILE", "unknown")
    found = run_on_fresh_heap(benchmark, run, bench_settings)
    if entry.finds_calls:  # the whole job was done
        assert found == batch_file.calls


def test_bulk_entries_agree(batch_file: BatchFile) -> None:
    """The Rust and Python tables are equal; the baseline finds the same calls."""
    pytest.importorskip("pyarrow")
    tables = {}
    for impl in ("rust", "python"):
        try:
            _backend(impl)
        except pytest.skip.Exception:
            continue
        tables[impl] = parser(impl).to_arrow(batch_file.path)
    if len(tables) == 2:
        assert tables["rust"].equals(tables["python"])
    baseline = orjson_arrow(batch_file.path)
    for impl, table in tables.items():  # the 16 files hold the same rows, numbered anew
        from toolsift import Files

        files = parser(impl).to_arrow(Files(batch_file.parts), threads=2)
        assert files.column("name").to_pylist() == table.column("name").to_pylist()
        assert files.column("custom_id").to_pylist() == table.column("custom_id").to_pylist()
    for table in tables.values():
        assert table.column("name").to_pylist() == baseline.column("name").to_pylist()
        assert table.column("id").to_pylist() == baseline.column("id").to_pylist()
