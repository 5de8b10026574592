"""The engine-independent seam of the Ray Data and Spark integrations (toolsift._engines),
on both backends, and the engine modules without their engines (ImportError naming the
extra; `import toolsift` imports neither). The engines themselves: test_ray.py and
test_spark.py."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from engine_files import lines, response_table, write_files
from toolsift import _bulk, _engines, parsers


def expected_file_rows(parser: Any, path: Path, name: str) -> list[dict[str, Any]]:
    return [{"file": name, **row} for row in parser.to_arrow(path).to_pylist()]


def test_file_batches_are_to_arrow_with_file(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    for path in write_files(tmp_path):
        batches = list(_engines.file_batches(parser, path))
        assert all(batch.schema == _engines.file_schema() for batch in batches)
        rows = pa.Table.from_batches(batches, _engines.file_schema()).to_pylist()
        assert rows == expected_file_rows(parser, path, str(path))
        assert any(row["error"] for row in rows) and any(row["custom_id"] for row in rows)
        assert any(row["name"] for row in rows)


def test_file_batches_from_a_stream_tell_compression_by_content(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    for path in write_files(tmp_path):
        with path.open("rb") as stream:
            rows = [
                row
                for batch in _engines.file_batches(parser, stream, name="s3://b/k")
                for row in batch.to_pylist()
            ]
        assert rows == expected_file_rows(parser, path, "s3://b/k")


def test_file_batches_corrupt_gzip_raises(make: Any, tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines()))[:-300])
    with pytest.raises(OSError, match="corrupt or truncated gzip data"):
        list(_engines.file_batches(make.OpenAIResponseParser(), path))


def test_file_batches_missing_file(make: Any, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        list(_engines.file_batches(make.OpenAIResponseParser(), tmp_path / "none.jsonl"))
    with pytest.raises(TypeError, match="path or a binary file object"):
        list(_engines.file_batches(make.OpenAIResponseParser(), 3))  # type: ignore[arg-type]


def test_extract_table_carries_the_row(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    table = response_table()
    got = _engines.extract_table(parser, table, "response")
    assert got.schema.names == ["row_id", "prompt", *_engines.CALL_COLUMNS]
    calls = parser.to_arrow(table.column("response")).to_pylist()
    expected = [
        {
            "row_id": call["record"],
            "prompt": f"prompt {call['record']}",
            **{key: call[key] for key in _engines.CALL_COLUMNS},
        }
        for call in calls
    ]
    assert got.to_pylist() == expected
    errors = [row for row in expected if row["error"]]
    assert {row["row_id"] for row in errors} >= {3}  # the null text
    # In slices, as an engine hands them over, the same rows.
    pieces = [
        _engines.extract_table(parser, batch, "response")
        for batch in table.to_batches(max_chunksize=7)
    ]
    assert pa.concat_tables(pieces).to_pylist() == expected


def test_extract_table_binary_and_empty(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    table = response_table()
    binary = table.set_column(1, "response", table.column("response").cast(pa.binary()))
    assert (
        _engines.extract_table(parser, binary, "response").to_pylist()
        == _engines.extract_table(parser, table, "response").to_pylist()
    )
    empty = _engines.extract_table(parser, table.slice(0, 0), "response")
    assert empty.num_rows == 0
    assert empty.schema == _engines.extract_schema(table.schema, "response")


def test_extract_schema_refuses(make: Any) -> None:
    table = response_table()
    with pytest.raises(KeyError, match="no column 'text'"):
        _engines.extract_table(make.OpenAIResponseParser(), table, "text")
    with pytest.raises(TypeError, match="must hold response texts"):
        _engines.extract_schema(table.schema, "row_id")
    clashing = table.append_column("name", pa.array(["x"] * table.num_rows))
    with pytest.raises(ValueError, match=r"column\(s\) name would clash"):
        _engines.extract_schema(clashing.schema, "response")


def test_parser_for() -> None:
    assert type(_engines.parser_for("openai")) is parsers.OpenAIResponseParser
    assert type(_engines.parser_for("auto")) is parsers.AutoResponseParser
    json_parser = _engines.parser_for("json", tool_calls_key="calls")
    assert json_parser.tool_calls_key == "calls"
    given = parsers.GeminiResponseParser()
    assert _engines.parser_for(given) is given
    with pytest.raises(ValueError, match="unknown format 'openia'; expected one of: "):
        _engines.parser_for("openia")
    with pytest.raises(TypeError, match="parser options go with a format name"):
        _engines.parser_for(given, single=True)
    with pytest.raises(TypeError, match="format must be a format name or a toolsift parser"):
        _engines.parser_for(3)


def test_file_schema_is_file_then_to_arrow() -> None:
    schema = _engines.file_schema()
    assert schema.names == ["file", *_bulk.COLUMNS]
    assert schema.remove(0) == _bulk.schema()


# A fresh interpreter in which `ray` and `pyspark` cannot be imported, as if the extras
# were not installed (nothing is uninstalled).
BLOCKED = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("ray", "pyspark"):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None
sys.meta_path.insert(0, Block())
"""


def run_blocked(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", BLOCKED + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("module", "call", "extra"),
    [
        ("toolsift.ray", "read_tool_calls('x.jsonl', format='openai')", "toolsift[ray]"),
        ("toolsift.ray", "extract('response', format='openai')", "toolsift[ray]"),
        ("toolsift.spark", "data_source()", "toolsift[spark]"),
        ("toolsift.spark", "register(None)", "toolsift[spark]"),
        ("toolsift.spark", "extract(None, 'response', format='openai')", "toolsift[spark]"),
    ],
)
def test_without_the_extra_an_import_error_names_it(module: str, call: str, extra: str) -> None:
    done = run_blocked(
        f"""
        import {module} as engine
        try:
            engine.{call}
        except ImportError as exc:
            print(repr(str(exc)))
        else:
            print("no error")
        """
    )
    assert done.returncode == 0, done.stderr
    assert f"pip install '{extra}'" in done.stdout


def test_import_toolsift_imports_no_engine() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, toolsift, toolsift.parsers, toolsift.ray, toolsift.spark, "
            "toolsift._engines\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'pyspark')))",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


MiB = 1 << 20


@pytest.mark.parametrize(
    ("sizes", "splitting", "groups"),
    [
        # 16 files of 1.5 MiB on 2 cores: each costs 5.5 MiB, 44 MiB a core: 2 partitions
        ([3 * MiB // 2] * 16, _engines.Splitting(128 * MiB, 4 * MiB, 2), [range(8), range(8, 16)]),
        # big files: at most max_partition_bytes a partition, a bigger file alone
        (
            [100 * MiB, 100 * MiB, 300 * MiB, 1],
            _engines.Splitting(128 * MiB, 4 * MiB, 2),
            [range(1), range(1, 2), range(2, 3), range(3, 4)],
        ),
        # many small files on 4 cores: packed to a quarter of the cost each
        (
            [MiB] * 10,
            _engines.Splitting(128 * MiB, 4 * MiB, 4),
            [range(3), range(3, 6), range(6, 9), range(9, 10)],
        ),
        ([], _engines.Splitting(), []),
        ([0], _engines.Splitting(1, 0, 1), [range(1)]),
    ],
)
def test_group_by_size(sizes: list[int], splitting: Any, groups: list[range]) -> None:
    assert _engines.group_by_size(sizes, splitting) == groups


def test_extract_table_reads_a_struct_column_as_its_json(make: Any) -> None:
    """What `ray.data.read_json` / `spark.read.json` give: the responses decoded into a
    struct column (members of any row in every row, null where absent), read as the JSON
    of each row without those nulls; a null response is `no response (null)`."""

    def gemini(args: dict[str, Any]) -> dict[str, Any]:
        part = {"functionCall": {"name": "f", "args": args}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}

    responses = [gemini({"city": "LA"}), None, gemini({"n": 2, "on": True})]
    decoded = pa.table({"row_id": [0, 1, 2], "response": responses})
    assert pa.types.is_struct(decoded.schema.field("response").type)
    texts = pa.table(
        {"row_id": [0, 1, 2], "response": [None if r is None else json.dumps(r) for r in responses]}
    )
    parser = make.AutoResponseParser()
    got = _engines.extract_table(parser, decoded, "response")
    assert got.to_pylist() == _engines.extract_table(parser, texts, "response").to_pylist()
    assert [(r["row_id"], r["arguments"], r["error"]) for r in got.to_pylist()] == [
        (0, '{"city":"LA"}', None),
        (1, None, "no response (null)"),
        (2, '{"n":2,"on":true}', None),
    ]
