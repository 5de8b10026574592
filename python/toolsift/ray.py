"""toolsift on Ray Data (`pip install 'toolsift[ray]'`).

* `read_tool_calls(paths, format=...)`: a `ray.data.Dataset` of the tool calls in JSONL
  files (plain, gzip or zstd; local or on any filesystem Ray reads), one row per call.
* `extract(column, format=...)`: a function for `Dataset.map_batches(...,
  batch_format="pyarrow")` turning a column of response texts into call rows.

`import toolsift.ray` does not import Ray; the functions raise ImportError naming the
extra when Ray is not installed. Inside an engine's task toolsift reads on one thread
(`threads=1`): Ray already runs one task per core.
"""

from __future__ import annotations

import inspect
from typing import Any

from toolsift import _engines

__all__ = ["extract", "read_tool_calls"]


def _require_ray() -> Any:
    try:
        import ray.data
    except ImportError as exc:
        raise ImportError("toolsift.ray needs Ray Data: pip install 'toolsift[ray]'") from exc
    return ray


def read_tool_calls(
    paths: str | list[str],
    *,
    format: Any = "auto",
    record_path: str | None = None,
    threads: int | None = 1,
    **ray_options: Any,
) -> Any:
    """A `ray.data.Dataset` with one row per tool call in the JSONL files at `paths` (a
    file, a directory, a list of them; local paths or any URI Ray reads, e.g. `s3://`):
    `file` (the path as Ray names it), then the columns of `to_arrow` (`record` counts
    each file's lines from 0). A line that cannot be read is a row with `error` set.

    `format`: a format name (`"openai"`, `"gemini"`, ...; default `"auto"`, as in the
    CLI and `toolsift.spark`) or a toolsift parser
    (e.g. `JsonResponseParser(tool_calls_key=...)`; one made with `tools=` checks each
    call: `violations`). `record_path` as for `to_arrow`.
    `threads`: toolsift's threads within each read task (default 1: Ray runs a task per
    core). `ray_options`: the options of Ray's file-based datasources (`filesystem`,
    `partitioning`, `partition_filter`, `ignore_missing_paths`, `shuffle`,
    `include_paths`, `file_extensions`, `open_stream_args` without `compression`) and
    of `ray.data.read_datasource` (`override_num_blocks`, `concurrency`,
    `ray_remote_args`, ...). `override_num_blocks` sets the number of read tasks; by
    default it is the number of groups Spark's rule makes of the files by size for the
    cluster's CPUs (at most 128 MiB a task, at least a task per CPU when the files are
    that many), and Ray hands the files to the tasks in order.

    Compression is told by content, never by the name. A local file is read by path; a
    file on another filesystem is copied to a local temporary file by its read task
    first (toolsift's readers take a path).
    """
    ray = _require_ray()
    from toolsift import _ray

    parser = _engines.parser_for(format)
    accepted = inspect.signature(_ray.FileBasedDatasource.__init__).parameters
    file_options = {key: ray_options.pop(key) for key in list(ray_options) if key in accepted}
    for key in ("paths", "schema"):
        if key in file_options:
            raise TypeError(f"read_tool_calls() sets {key!r} itself")
    stream_options = dict(file_options.get("open_stream_args") or {})
    if stream_options.pop("compression", None) is not None:
        raise ValueError("open_stream_args must not set compression: toolsift tells it by content")
    file_options["open_stream_args"] = stream_options
    _engines.file_schema()  # pyarrow is there (Ray Data needs it too)
    datasource = _ray.ToolCallsDatasource(
        paths,
        parser=parser,
        record_path=record_path,
        threads=threads,
        schema=_engines.file_schema(),
        **file_options,
    )
    if ray_options.get("override_num_blocks") is None and ray_options.get("parallelism", -1) == -1:
        ray_options["override_num_blocks"] = _ray.read_task_count(datasource)
    return ray.data.read_datasource(datasource, **ray_options)


class _Extract:
    """The callable `extract` returns: `pyarrow.Table` -> `pyarrow.Table`."""

    def __init__(
        self, column: str, parser: Any, record_path: str | None, threads: int | None
    ) -> None:
        self.column = column
        self.parser = parser
        self.record_path = record_path
        self.threads = threads

    def __call__(self, batch: Any) -> Any:
        return _engines.extract_table(
            self.parser, batch, self.column, record_path=self.record_path, threads=self.threads
        )

    def __repr__(self) -> str:
        return f"toolsift.ray.extract({self.column!r}, format={self.parser!r})"


def extract(
    column: str = "response",
    *,
    format: Any = "auto",
    record_path: str | None = None,
    threads: int | None = 1,
) -> Any:
    """A function for `Dataset.map_batches(fn, batch_format="pyarrow")` that turns the
    responses in `column` (string or binary texts, one response per row, e.g. what a Ray
    Data LLM batch-inference stage generated; or structs, as `ray.data.read_json` gives,
    read as the JSON text of each row) into one row per tool call. Each call row
    carries the other columns of its row; then come the columns of `to_arrow` without
    `record` (a position in an arbitrary batch): `custom_id`, `format`, `call_index`,
    `id`, `name`, `arguments`, `raw_arguments`, `error`, `defect`, `repairs`,
    `violations`, the context columns (`model`, `response_id`, `finish_reason`,
    `choice_index`, `call_type`), `error_kind`, `http_status`. A row
    whose text cannot be read
    (not JSON; a null is `no response (null)`) gives one row with `error`; a row without
    calls gives none. A carried column named like a call column is an error (rename it
    first).

    `format`, `record_path` and `threads` as for `read_tool_calls`."""
    _require_ray()
    if not isinstance(column, str):
        raise TypeError(f"column must be a str, got {type(column).__name__}")
    return _Extract(column, _engines.parser_for(format), record_path, threads)
