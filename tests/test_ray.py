"""toolsift.ray on a real local Ray cluster (`ray.init(num_cpus=2)`), started once per
backend: the workers run the backend under test (TOOLSIFT_IMPLEMENTATION in the job's
runtime_env, checked), and the rows that Ray Data gives equal `to_arrow` over the same
files, row for row."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.fs
import pytest
from conftest import IMPLS, backend_module, bind, require_engine
from engine_files import CONTEXT, TOOLS, lines, response_table, write_files, write_transcripts
from toolsift import _engines, parsers

require_engine("ray.data", "ray")
import ray  # noqa: E402
import toolsift.ray  # noqa: E402

ORDER = ["file", "record", "call_index"]


@pytest.fixture(scope="session", params=IMPLS)
def cluster(request: pytest.FixtureRequest) -> Iterator[str]:
    """A local Ray cluster whose workers run the backend `request.param`."""
    impl = request.param
    backend_module(impl)
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=256 * 1024 * 1024,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"TOOLSIFT_IMPLEMENTATION": impl}},
    )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    try:
        yield impl
    finally:
        ray.shutdown()


@pytest.fixture(scope="session")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    return write_files(tmp_path_factory.mktemp("ray-files"))


def parser(impl: str) -> Any:
    return bind(parsers.OpenAIResponseParser, backend_module(impl))()


def expected(impl: str, paths: list[Path], names: list[str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for path, name in zip(paths, names or [str(p) for p in paths], strict=True):
        rows += [{"file": name, **row} for row in parser(impl).to_arrow(path).to_pylist()]
    return rows


def table_of(dataset: Any) -> pa.Table:
    return pa.concat_tables([ray.get(ref) for ref in dataset.to_arrow_refs()])


def rows_of(dataset: Any) -> list[dict[str, Any]]:
    table = table_of(dataset)
    assert table.schema == _engines.file_schema()
    return table.sort_by([(key, "ascending") for key in ORDER]).to_pylist()


def backends_seen(dataset: Any) -> set[str]:
    """toolsift.IMPLEMENTATION in the Ray workers that ran the read (the map is fused
    into the read tasks)."""

    def tag(batch: pa.Table) -> pa.Table:
        import toolsift

        return pa.table({"impl": [toolsift.IMPLEMENTATION] * max(batch.num_rows, 1)})

    return set(
        table_of(dataset.map_batches(tag, batch_format="pyarrow")).column("impl").to_pylist()
    )


@pytest.mark.parametrize("tasks", [2, 4], ids=["2-files-per-task", "1-file-per-task"])
def test_read_equals_to_arrow(cluster: str, files: list[Path], tasks: int) -> None:
    dataset = toolsift.ray.read_tool_calls(
        str(files[0].parent), format="openai", override_num_blocks=tasks
    )
    rows = rows_of(dataset)
    assert rows == expected(cluster, files)
    assert {row["file"] for row in rows} == {str(path) for path in files}
    assert sum(1 for row in rows if row["error"]) > 10
    assert sum(1 for row in rows if row["custom_id"] and row["error"]) > 10
    assert backends_seen(dataset) == {cluster}


def datasource_of(files: list[Path]) -> Any:
    """The datasource `read_tool_calls` makes of the folder of `files`."""
    from toolsift import _ray

    return _ray.ToolCallsDatasource(
        str(files[0].parent),
        parser=parsers.OpenAIResponseParser(),
        record_path=None,
        threads=1,
        schema=_engines.file_schema(),
    )


def test_read_tasks_group_files(cluster: str, files: list[Path]) -> None:
    """What `override_num_blocks=2` above asks of the datasource: 2 read tasks, 2 files each."""
    source = datasource_of(files)
    tasks = source.get_read_tasks(2)
    assert [len(task.metadata.input_files) for task in tasks] == [2, 2]
    assert sorted(f for task in tasks for f in task.metadata.input_files) == [
        str(path) for path in files
    ]


def test_default_read_tasks_follow_size(cluster: str, files: list[Path]) -> None:
    """Without `override_num_blocks`: the files grouped by size for the cluster's 2 CPUs
    (4 small files: 2 tasks), and Ray does not split the tasks' output further (its own
    default made 200 blocks of these 4 files, in a stage of their own)."""
    from toolsift import _ray

    assert _ray.read_task_count(datasource_of(files)) == 2
    dataset = toolsift.ray.read_tool_calls(str(files[0].parent), format="openai")
    assert dataset.materialize().num_blocks() <= len(files)
    assert rows_of(dataset) == expected(cluster, files)


def test_read_a_list_of_files_with_a_parser(cluster: str, files: list[Path]) -> None:
    chosen = [str(files[1]), str(files[2])]  # gzip, gzip named without .gz
    dataset = toolsift.ray.read_tool_calls(
        chosen, format=parsers.OpenAIResponseParser(), override_num_blocks=1
    )
    assert rows_of(dataset) == expected(cluster, files[1:3])


def test_read_through_a_non_local_filesystem(cluster: str, files: list[Path]) -> None:
    # A filesystem whose paths are not local paths: the read task copies the raw bytes.
    filesystem = pyarrow.fs.SubTreeFileSystem(str(files[0].parent), pyarrow.fs.LocalFileSystem())
    names = [path.name for path in files]
    dataset = toolsift.ray.read_tool_calls(
        names, format="openai", filesystem=filesystem, override_num_blocks=2
    )
    assert rows_of(dataset) == expected(cluster, files, names)


def test_read_record_path_and_auto(cluster: str, files: list[Path]) -> None:
    dataset = toolsift.ray.read_tool_calls(
        [str(files[0])], format="auto", record_path="response.body"
    )
    auto = bind(parsers.AutoResponseParser, backend_module(cluster))()
    want = [
        {"file": str(files[0]), **row}
        for row in auto.to_arrow(files[0], record_path="response.body").to_pylist()
    ]
    assert rows_of(dataset) == want


def test_read_corrupt_gzip_fails_the_dataset(cluster: str, tmp_path: Path) -> None:
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b"\n".join(lines()))[:-300])
    dataset = toolsift.ray.read_tool_calls(str(path), format="openai")
    with pytest.raises(Exception, match="corrupt or truncated gzip data"):
        dataset.materialize()


def test_read_refuses_bad_options(cluster: str, files: list[Path]) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        toolsift.ray.read_tool_calls(str(files[0]), format="openia")
    with pytest.raises(ValueError, match="must not set compression"):
        toolsift.ray.read_tool_calls(
            str(files[0]), format="openai", open_stream_args={"compression": "gzip"}
        )


def test_extract_over_map_batches(cluster: str) -> None:
    table = response_table()
    dataset = ray.data.from_arrow(table).repartition(3)
    calls = dataset.map_batches(
        toolsift.ray.extract("response", format="openai"), batch_format="pyarrow", batch_size=16
    )
    got = table_of(calls)
    want = _engines.extract_table(parser(cluster), table, "response")
    assert got.schema == want.schema
    order = [("row_id", "ascending"), ("call_index", "ascending")]
    assert got.sort_by(order).to_pylist() == want.sort_by(order).to_pylist()
    assert any(row["error"] for row in want.to_pylist())
    assert backends_seen(calls) == {cluster}


def test_extract_struct_column_null_and_default_format(cluster: str, tmp_path: Path) -> None:
    """What `ray.data.read_json` gives (a struct column), with a null response, and
    `format` left to its default, `auto`: as Spark's extract gives."""
    import json

    part = {"functionCall": {"name": "f", "args": {"city": "LA"}}}
    rows = [
        {"row_id": 0, "response": {"candidates": [{"content": {"parts": [part]}}]}},
        {"row_id": 1, "response": None},
    ]
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    dataset = ray.data.read_json(str(path))
    calls = dataset.map_batches(toolsift.ray.extract("response"), batch_format="pyarrow")
    got = table_of(calls).sort_by([("row_id", "ascending")]).to_pylist()
    assert [(r["row_id"], r["format"], r["arguments"], r["error"]) for r in got] == [
        (0, "gemini", '{"city":"LA"}', None),
        (1, None, None, "no response (null)"),
    ]


def test_read_transcripts(cluster: str, tmp_path: Path) -> None:
    """`format="messages"` reads conversation transcripts as `to_arrow` does, with
    their `turn`, `result` and `result_error`."""
    path = write_transcripts(tmp_path)
    dataset = toolsift.ray.read_tool_calls(str(path), format="messages")
    transcripts = bind(parsers.MessagesParser, backend_module(cluster))()
    want = [{"file": str(path), **row} for row in transcripts.to_arrow(path).to_pylist()]
    assert any(row["result"] is not None for row in want)
    assert rows_of(dataset) == want


def test_context_columns_and_tools(cluster: str, files: list[Path]) -> None:
    """The context columns reach Ray; a parser made with `tools=` (pickled with them to
    the workers) checks each call: the rows of `to_arrow` with those tools."""
    checked = bind(parsers.OpenAIResponseParser, backend_module(cluster))(tools=TOOLS)
    dataset = toolsift.ray.read_tool_calls(str(files[0]), format=checked)
    rows = rows_of(dataset)
    want = [{"file": str(files[0]), **row} for row in checked.to_arrow(files[0]).to_pylist()]
    assert rows == want
    calls = [row for row in rows if row["call_index"] is not None]
    assert all(row["model"] == "gpt-4o-mini-2024-07-18" for row in calls)
    assert all(row["finish_reason"] and row["call_type"] == "function" for row in calls)
    assert {row["name"] for row in calls if row["violations"] == []} <= set(TOOLS)
    assert any(row["violations"] == ["unknown_tool"] for row in calls)
    table = response_table()
    extracted = ray.data.from_arrow(table).map_batches(
        toolsift.ray.extract("response", format=checked), batch_format="pyarrow"
    )
    got = table_of(extracted).select(["row_id", "call_index", "violations", *CONTEXT])
    want_table = _engines.extract_table(checked, table, "response")
    order = [("row_id", "ascending"), ("call_index", "ascending")]
    assert got.sort_by(order).to_pylist() == (
        want_table.select(got.column_names).sort_by(order).to_pylist()
    )
    assert any(row["violations"] == [] for row in got.to_pylist())
