"""toolsift.spark on a real local Spark session (`local[2]`), started once per backend:
the Python workers run the backend under test (TOOLSIFT_IMPLEMENTATION through
`spark.executorEnv`, checked), and the rows Spark gives equal `to_arrow` over the same
files, row for row."""

from __future__ import annotations

import gzip
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs
import pytest
from conftest import IMPLS, backend_module, bind, require_engine
from engine_files import CONTEXT, TOOLS, lines, response_table, write_files, write_transcripts
from toolsift import _engines, parsers

require_engine("pyspark.sql.datasource", "spark")
import toolsift.spark  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from toolsift import _spark  # noqa: E402

ORDER = ["file", "record", "call_index"]


@pytest.fixture(scope="session", params=IMPLS)
def spark(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A local Spark session whose Python workers run the backend `request.param`."""
    impl = request.param
    backend_module(impl)
    # The workers' Python: this one (toolsift is installed in it).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("toolsift-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.executorEnv.TOOLSIFT_IMPLEMENTATION", impl)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    toolsift.spark.register(session)
    session.impl = impl
    try:
        yield session
    finally:
        session.stop()


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_files(tmp_path_factory.mktemp("spark-files"))


def parser(impl: str) -> Any:
    return bind(parsers.OpenAIResponseParser, backend_module(impl))()


def expected(impl: str, paths: list[Path]) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        rows += [{"file": str(path), **row} for row in parser(impl).to_arrow(path).to_pylist()]
    return rows


def rows_of(df: Any) -> list[dict[str, Any]]:
    table = df.toArrow()
    assert table.schema.names == _engines.file_schema().names
    return table.sort_by([(key, "ascending") for key in ORDER]).to_pylist()


def backends_seen(df: Any) -> set[str]:
    """toolsift.IMPLEMENTATION in the Python workers."""

    def tag(batches: Any) -> Any:
        import toolsift

        for batch in batches:
            yield pa.record_batch({"impl": [toolsift.IMPLEMENTATION] * batch.num_rows})

    return {row.impl for row in df.mapInArrow(tag, "impl string").distinct().collect()}


def read(spark: Any, path: Any, **options: str) -> Any:
    reader = spark.read.format("toolsift").option("format", "openai")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load(path)


@pytest.mark.parametrize("per_partition", [1, 2, None], ids=["1-file", "2-files", "by-size"])
def test_read_directory_equals_to_arrow(
    spark: Any, files: list[Path], per_partition: int | None
) -> None:
    if per_partition is None:  # the default: grouped by size with the session's settings
        df = read(spark, str(files[0].parent))
        sizes = [path.stat().st_size for path in files]
        groups = _spark.group_by_size(sizes, _spark.session_splitting(spark))
        assert 1 < len(groups) < len(files)
        assert df.rdd.getNumPartitions() == len(groups)
    else:
        df = read(spark, str(files[0].parent), filesPerPartition=str(per_partition))
        assert df.rdd.getNumPartitions() == len(files) // per_partition
    rows = rows_of(df)
    assert rows == expected(spark.impl, files)
    assert sum(1 for row in rows if row["custom_id"] and row["error"]) > 10
    assert backends_seen(df) == {spark.impl}


def test_register_takes_the_sessions_file_settings(spark: Any, files: list[Path]) -> None:
    """Registered again after the session's settings change, the source groups by them:
    a 1-byte partition limit puts every file in a partition of its own."""
    key = "spark.sql.files.maxPartitionBytes"
    spark.conf.set(key, "1b")
    try:
        toolsift.spark.register(spark)
        df = read(spark, str(files[0].parent))
        assert df.rdd.getNumPartitions() == len(files)
        assert rows_of(df) == expected(spark.impl, files)
    finally:
        spark.conf.unset(key)
        toolsift.spark.register(spark)
    assert read(spark, str(files[0].parent)).rdd.getNumPartitions() < len(files)


MiB = 1 << 20


def test_byte_count() -> None:
    assert _spark.byte_count("134217728b") == 128 * MiB
    assert _spark.byte_count("4m") == _spark.byte_count("4MB") == 4 * MiB
    assert _spark.byte_count("1024") == 1024
    assert _spark.byte_count(" 2g ") == 2 << 30
    with pytest.raises(ValueError, match="not a size"):
        _spark.byte_count("lots")


def test_read_glob_and_list(spark: Any, files: list[Path]) -> None:
    gz = read(spark, str(files[0].parent / "*.gz"))
    assert rows_of(gz) == expected(spark.impl, [files[1]])
    chosen = read(spark, [str(files[0]), str(files[2])])
    assert rows_of(chosen) == expected(spark.impl, [files[0], files[2]])


def test_read_record_path_and_auto(spark: Any, files: list[Path]) -> None:
    df = (
        spark.read.format("toolsift")
        .option("format", "auto")
        .option("recordPath", "response.body")
        .load(str(files[3]))
    )
    auto = bind(parsers.AutoResponseParser, backend_module(spark.impl))()
    want = [
        {"file": str(files[3]), **row}
        for row in auto.to_arrow(files[3], record_path="response.body").to_pylist()
    ]
    assert rows_of(df) == want


def test_read_format_defaults_to_auto(spark: Any, files: list[Path]) -> None:
    df = spark.read.format("toolsift").load(str(files[0]))
    auto = bind(parsers.AutoResponseParser, backend_module(spark.impl))()
    want = [{"file": str(files[0]), **row} for row in auto.to_arrow(files[0]).to_pylist()]
    assert rows_of(df) == want
    assert any(row["name"] for row in want)


def test_read_errors(spark: Any, files: list[Path], tmp_path: Path) -> None:
    with pytest.raises(Exception, match="unknown format 'openia'"):
        spark.read.format("toolsift").option("format", "openia").load(str(files[0])).collect()
    with pytest.raises(Exception, match="no file at"):
        read(spark, str(tmp_path / "none-*.jsonl")).collect()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(b"\n".join(lines()))[:-300])
    with pytest.raises(Exception, match="corrupt or truncated gzip data"):
        read(spark, str(cut)).collect()


def test_extract_over_map_in_arrow(spark: Any) -> None:
    table = response_table()
    df = spark.createDataFrame(table).repartition(3)
    calls = toolsift.spark.extract(df, "response", format="openai")
    want = _engines.extract_table(parser(spark.impl), table, "response")
    got = calls.toArrow()
    assert got.schema.names == want.schema.names
    order = [("row_id", "ascending"), ("call_index", "ascending")]
    assert got.sort_by(order).to_pylist() == want.sort_by(order).to_pylist()
    assert any(row["error"] for row in want.to_pylist())
    assert backends_seen(calls) == {spark.impl}


def test_extract_struct_column_null_and_default_format(spark: Any, tmp_path: Path) -> None:
    """What `spark.read.json` gives: a struct column (members of every row, null where a
    row had none), read as each row's JSON; a null response is a record without one."""
    import json

    def gemini(args: dict[str, Any]) -> dict[str, Any]:
        part = {"functionCall": {"name": "f", "args": args}}
        return {"candidates": [{"content": {"role": "model", "parts": [part]}}]}

    rows = [
        {"row_id": 0, "response": gemini({"city": "LA"})},
        {"row_id": 1, "response": gemini({"date": "today", "n": 2})},
        {"row_id": 2, "response": None},
        {"row_id": 3, "response": {"choices": [{"message": {"content": "no call"}}]}},
    ]
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    df = spark.read.json(str(path))
    assert df.schema["response"].dataType.typeName() == "struct"
    got = toolsift.spark.extract(df, "response").toArrow()
    order = [("row_id", "ascending"), ("call_index", "ascending")]
    found = [
        (row["row_id"], row["format"], row["name"], row["arguments"], row["error"])
        for row in got.sort_by(order).to_pylist()
    ]
    assert found == [
        (0, "gemini", "f", '{"city":"LA"}', None),
        (1, "gemini", "f", '{"date":"today","n":2}', None),
        (2, None, None, None, "no response (null)"),
    ]
    # the same as the text column of those rows
    texts = df.selectExpr("row_id", "to_json(response) AS response")
    again = toolsift.spark.extract(texts, "response", format="auto").toArrow()
    assert again.sort_by(order).to_pylist() == got.sort_by(order).to_pylist()


def test_reader_through_a_non_local_filesystem(
    files: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader's own code (no Spark session) on a filesystem whose paths are not local
    paths: each file's raw bytes are streamed to toolsift."""
    from toolsift import _spark

    base = str(files[0].parent)
    subtree = pyarrow.fs.SubTreeFileSystem(base, pyarrow.fs.LocalFileSystem())

    def filesystem(uri: str) -> tuple[Any, str]:
        assert uri.startswith("test://")
        return subtree, uri.removeprefix("test://")

    monkeypatch.setattr(_spark, "_filesystem", filesystem)
    reader = _spark._Reader({"format": "openai", "path": "test:///", "filesPerPartition": "3"})
    assert reader.files == [f"test://{path.name}" for path in files]
    partitions = reader.partitions()
    assert [len(part.files) for part in partitions] == [3, 1]
    impl = toolsift.IMPLEMENTATION
    rows = [row for part in partitions for batch in reader.read(part) for row in batch.to_pylist()]
    want = [
        {"file": f"test://{path.name}", **row}
        for path in files
        for row in parser(impl).to_arrow(path).to_pylist()
    ]
    assert rows == want


def test_read_transcripts(spark: Any, tmp_path: Path) -> None:
    """`format` `messages` reads conversation transcripts as `to_arrow` does, with
    their `turn`, `result` and `result_error`."""
    path = write_transcripts(tmp_path)
    df = spark.read.format("toolsift").option("format", "messages").load(str(path))
    transcripts = bind(parsers.MessagesParser, backend_module(spark.impl))()
    want = [{"file": str(path), **row} for row in transcripts.to_arrow(path).to_pylist()]
    assert any(row["result"] is not None for row in want)
    assert rows_of(df) == want


def test_context_columns_and_the_tools_option(spark: Any, files: list[Path]) -> None:
    """The context columns reach Spark; the option `tools` (JSON text) checks each call:
    the rows of `to_arrow` with those tools. `extract` with a parser made with `tools=`."""
    import json

    checked = bind(parsers.OpenAIResponseParser, backend_module(spark.impl))(tools=TOOLS)
    rows = rows_of(read(spark, str(files[0]), tools=json.dumps(TOOLS)))
    want = [{"file": str(files[0]), **row} for row in checked.to_arrow(files[0]).to_pylist()]
    assert rows == want
    calls = [row for row in rows if row["call_index"] is not None]
    assert all(row["model"] == "gpt-4o-mini-2024-07-18" for row in calls)
    assert all(row["finish_reason"] and row["call_type"] == "function" for row in calls)
    assert any(row["violations"] == ["unknown_tool"] for row in calls)
    assert any(row["violations"] == [] for row in calls)
    with pytest.raises(Exception, match='option "tools" must be the JSON text'):
        read(spark, str(files[0]), tools="{nope").collect()
    table = response_table()
    df = spark.createDataFrame(table).repartition(2)
    got = toolsift.spark.extract(df, "response", format=checked).toArrow()
    got = got.select(["row_id", "call_index", "violations", *CONTEXT])
    want_table = _engines.extract_table(checked, table, "response").select(got.column_names)
    order = [("row_id", "ascending"), ("call_index", "ascending")]
    assert got.sort_by(order).to_pylist() == want_table.sort_by(order).to_pylist()
