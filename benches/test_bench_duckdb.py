"""`to_arrow` against DuckDB, a data engineer's first alternative, on three batch output
files: OpenAI Batch (`custom_id` + `response.body`), Anthropic Message Batches
(`custom_id` + `result.message`) and Gemini Batch (`key` + `response`).

Each DuckDB entry produces the same table as toolsift (the batch key, and each call's
`id`, `name` and `arguments`), reading the file with a typed `read_json` (the schema
written by hand, as a user who knows the format would) and `unnest`:

* ``duckdb_typed_tN``: the arguments as the JSON text the file holds (OpenAI's
  argument strings as they are; Anthropic's `input` and Gemini's `args` as DuckDB's
  `JSON`, which it re-serializes);
* ``duckdb_checked_tN`` (OpenAI): the same, the argument strings checked with
  `json_valid` and normalized with `json()`, as toolsift decodes and re-writes them.

DuckDB's thread count is set to match toolsift's (`SET threads = N`). `read_json` keeps
its default `maximum_object_size` (16 MB): DuckDB sizes its read buffers from it, and a
larger one (128 MB, as this bench first had) leaves a file under ~100 MB in one buffer
read by one thread, which hid DuckDB's two-thread scaling (0.92-1.08x instead of 1.92x).
Groups are ``duckdb-<provider>``; ``python benches/interleaved.py --only duckdb`` runs them
with the entries taking turns (the ratios to quote).

The last run (2026-12-06 21:21, `nproc` 2, load 1.1-1.3, fat LTO, `--lines 40000 --rounds
11`, medians): toolsift `to_arrow` over DuckDB's typed reader, one thread / two threads:
OpenAI 0.67x / 0.81x (1.29x / 1.53x over the checked reader), Anthropic 0.73x / 0.86x,
Gemini 0.87x / 0.93x; toolsift's two threads over one 1.82-1.93x, DuckDB's 1.55-1.78x.
The run before it (7 rounds): OpenAI 0.71x / 0.82x (1.32x / 1.40x), Anthropic 0.84x /
0.94x, Gemini 0.86x / 0.94x; two threads over one 1.86-1.91x. How close `to_arrow` could
come at best: `duckdb_floor.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from test_bench_parse import _backend, _toolsift_parsers

Run = Callable[[], Any]

PROVIDERS = ("openai", "anthropic", "gemini")

# The parser class, and the `read_json` columns and the select that unnest the calls.
PARSER = {
    "openai": "OpenAIResponseParser",
    "anthropic": "AnthropicResponseParser",
    "gemini": "GeminiResponseParser",
}
COLUMNS = {
    "openai": {
        "custom_id": "VARCHAR",
        "response": "STRUCT(body STRUCT(choices STRUCT(message STRUCT(tool_calls "
        "STRUCT(id VARCHAR, function STRUCT(name VARCHAR, arguments VARCHAR))[]))[]))",
    },
    "anthropic": {
        "custom_id": "VARCHAR",
        "result": "STRUCT(message STRUCT(content "
        "STRUCT(type VARCHAR, id VARCHAR, name VARCHAR, input JSON)[]))",
    },
    "gemini": {
        "key": "VARCHAR",
        "response": "STRUCT(candidates STRUCT(content STRUCT(parts "
        "STRUCT(functionCall STRUCT(id VARCHAR, name VARCHAR, args JSON))[]))[])",
    },
}
SELECT = {
    "openai": """
        SELECT custom_id, c.id, c.function.name AS name, {arguments} AS arguments
        FROM (SELECT custom_id, unnest(choice.message.tool_calls) AS c
              FROM (SELECT custom_id, unnest(response.body.choices) AS choice FROM {source}))""",
    "anthropic": """
        SELECT custom_id, b.id, b.name, b.input::VARCHAR AS arguments
        FROM (SELECT custom_id, unnest(result.message.content) AS b FROM {source})
        WHERE b.type = 'tool_use'""",
    "gemini": """
        SELECT key, p.functionCall.id AS id, p.functionCall.name AS name,
               p.functionCall.args::VARCHAR AS arguments
        FROM (SELECT key, unnest(candidate.content.parts) AS p
              FROM (SELECT key, unnest(response.candidates) AS candidate FROM {source}))
        WHERE p.functionCall IS NOT NULL""",
}
CHECKED_ARGUMENTS = "CASE WHEN json_valid(c.function.arguments) THEN json(c.function.arguments) END"


def duckdb_sql(provider: str, path: Path, checked: bool = False) -> str:
    columns = ", ".join(f"{name}: '{kind}'" for name, kind in COLUMNS[provider].items())
    source = f"read_json('{path}', format = 'newline_delimited', columns = {{{columns}}})"
    arguments = CHECKED_ARGUMENTS if checked else "c.function.arguments"
    return SELECT[provider].format(source=source, arguments=arguments)


def batch_lines(provider: str, n: int, seed: int) -> list[bytes]:
    """`n` lines of `provider`'s batch output file, the responses from the bench corpora."""
    import corpus
    import provider_corpus

    if provider == "gemini":
        bodies = corpus.corpus_lines("gemini", n, seed)
    else:
        bodies = provider_corpus.format_lines(provider, n, seed)
    if provider == "openai":
        import test_bench_bulk

        return [test_bench_bulk.envelope(i, body) for i, body in enumerate(bodies)]
    key = "custom_id" if provider == "anthropic" else "key"
    out = []
    for i, body in enumerate(bodies):
        head = json.dumps({key: f"request-{i}"})[:-1].encode()
        if provider == "anthropic":
            out.append(head + b', "result": {"type": "succeeded", "message": %s}}' % body)
        else:
            out.append(head + b', "response": %s}' % body)
    return out


@dataclass
class BatchFile:
    provider: str
    path: Path
    megabytes: float
    records: int


@pytest.fixture(scope="session")
def batch_files(tmp_path_factory: pytest.TempPathFactory, bench_settings: Any) -> dict:
    folder = tmp_path_factory.mktemp("duckdb")
    files = {}
    for provider in PROVIDERS:
        lines = batch_lines(provider, bench_settings.lines, bench_settings.seed)
        path = folder / f"{provider}_batch_output.jsonl"
        data = b"\n".join(lines) + b"\n"
        path.write_bytes(data)
        files[provider] = BatchFile(provider, path, len(data) / 1e6, len(lines))
    return files


def _to_arrow(threads: int) -> Callable[[BatchFile], Run]:
    def make(f: BatchFile) -> Run:
        parser = getattr(_toolsift_parsers(), PARSER[f.provider])()
        return lambda: parser.to_arrow(f.path, threads=threads).num_rows

    return make


def _duckdb(threads: int, checked: bool = False) -> Callable[[BatchFile], Run]:
    def make(f: BatchFile) -> Run:
        duckdb = pytest.importorskip("duckdb")
        con = duckdb.connect()
        con.execute(f"SET threads = {threads}")
        sql = duckdb_sql(f.provider, f.path, checked)
        # `to_arrow_table` since DuckDB 1.4; `fetch_arrow_table` before it.
        table = (
            "to_arrow_table"
            if hasattr(con.sql("SELECT 1"), "to_arrow_table")
            else "fetch_arrow_table"
        )
        return lambda: getattr(con.sql(sql), table)().num_rows

    return make


@dataclass(frozen=True)
class Entry:
    key: str
    label: str
    impl: str
    threads: int
    make: Callable[[BatchFile], Run]
    providers: tuple[str, ...] = PROVIDERS


ENTRIES = (
    Entry("rust_to_arrow_t1", "rust to_arrow t=1", "rust", 1, _to_arrow(1)),
    Entry("rust_to_arrow_t2", "rust to_arrow t=2", "rust", 2, _to_arrow(2)),
    Entry("duckdb_typed_t1", "duckdb typed read_json + unnest t=1", "duckdb", 1, _duckdb(1)),
    Entry("duckdb_typed_t2", "duckdb typed read_json + unnest t=2", "duckdb", 2, _duckdb(2)),
    Entry("duckdb_checked_t1", "duckdb typed + json_valid/json() t=1", "duckdb", 1,
          _duckdb(1, checked=True), providers=("openai",)),
    Entry("duckdb_checked_t2", "duckdb typed + json_valid/json() t=2", "duckdb", 2,
          _duckdb(2, checked=True), providers=("openai",)),
)  # fmt: skip

CASES = [(p, e) for p in PROVIDERS for e in ENTRIES if p in e.providers]


@pytest.mark.parametrize(
    ("provider", "entry"), CASES, ids=[f"duckdb-{p}-{e.key}" for p, e in CASES]
)
def test_duckdb(
    benchmark: Any, batch_files: dict, bench_settings: Any, provider: str, entry: Entry
) -> None:
    from conftest import run_on_fresh_heap

    if entry.impl == "rust":
        _backend("rust")
    pytest.importorskip("pyarrow")
    f = batch_files[provider]
    run = entry.make(f)
    benchmark.group = f"duckdb-{provider}"
    benchmark.extra_info.update(
        key=entry.key,
        order=ENTRIES.index(entry),
        label=entry.label,
        impl=entry.impl,
        op="to_arrow",
        input="bytes",
        threads=entry.threads,
        corpus=f"{provider} batch output",
        MB=f.megabytes,
        file_MB=f.megabytes,
        records=f.records,
    )
    run_on_fresh_heap(benchmark, run, bench_settings)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_duckdb_finds_the_same_calls(batch_files: dict, provider: str) -> None:
    """The DuckDB query reads the calls toolsift reads: the same names, ids and
    arguments, in the same order (the comparison is fair)."""
    duckdb = pytest.importorskip("duckdb")
    pytest.importorskip("pyarrow")
    f = batch_files[provider]
    table = getattr(_toolsift_parsers(), PARSER[provider])().to_arrow(f.path)
    table = table.filter(table.column("name").is_valid())
    ours = [
        (name, id_, json.loads(args))
        for name, id_, args in zip(
            table.column("name").to_pylist(),
            table.column("id").to_pylist(),
            table.column("arguments").to_pylist(),
            strict=True,
        )
    ]
    rows = duckdb.sql(duckdb_sql(provider, f.path, checked=provider == "openai")).fetchall()
    theirs = [(name, id_, json.loads(args) if args else {}) for _, id_, name, args in rows]
    assert theirs == ours
