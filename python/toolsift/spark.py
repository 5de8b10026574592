"""toolsift on Spark 4 (`pip install 'toolsift[spark]'`).

* `register(spark)`, then `spark.read.format("toolsift").option("format", "openai")
  .load("s3a://bucket/logs/*.jsonl.gz")`: one row per tool call of JSONL files (plain,
  gzip or zstd), files grouped into partitions by size as Spark's own file sources
  group them, read as Arrow batches by a Python Data Source.
* `extract(df, column, format=...)`: the tool calls in a DataFrame's column of response
  texts, through `mapInArrow`.

`import toolsift.spark` does not import PySpark; the functions raise ImportError naming
the extra when it is not installed. The executors' Python must have toolsift installed
(the same one as the driver's: `spark.pyspark.python`). Inside a task toolsift reads on
one thread unless told otherwise (`threads`): Spark already runs one task per core.
"""

from __future__ import annotations

from typing import Any

from toolsift import _engines

__all__ = ["data_source", "extract", "register"]


def _require_pyspark() -> Any:
    try:
        import pyspark.sql.datasource
    except ImportError as exc:
        raise ImportError(
            "toolsift.spark needs PySpark 4 or later: pip install 'toolsift[spark]'"
        ) from exc
    import pyspark

    return pyspark


def data_source() -> type:
    """The Python Data Source class (`pyspark.sql.datasource.DataSource`), named
    `toolsift`. Options: `format` (default `auto`), `recordPath`, `threads` (default 1),
    `filesPerPartition` (default: grouped by size, see `register`), `repair`, `tools`
    (the JSON text of tool definitions, any shape `to_arrow`'s `tools` takes: each call
    checked against them in `violations`), and with format
    `json` the keys of
    `JsonResponseParser` (`tool_calls_key`, `name_key`, `arguments_key`, `single`).
    Columns: `file` (the path as given, or the file found under a directory or glob),
    then those of `to_arrow`. Compression is told by content. Local paths are read by
    path; a file on another filesystem (`s3a://`, `gs://`, `hdfs://`: pyarrow's
    filesystems) is copied to a local temporary file by its task first."""
    _require_pyspark()
    from toolsift._spark import ToolsiftDataSource

    return ToolsiftDataSource


def register(spark: Any) -> None:
    """Register the `toolsift` data source with a SparkSession (once per session). Its
    files are grouped into partitions by the session's own settings, as Spark's file
    sources do: `spark.sql.files.maxPartitionBytes` (128 MiB), `openCostInBytes` (4 MiB,
    what opening a file is counted as) and `minPartitionNum` (the default parallelism),
    in input order; the option `filesPerPartition` sets a count instead."""
    source: Any = data_source()
    spark.dataSource.register(source.for_session(spark))


def extract(
    df: Any,
    column: str,
    *,
    format: Any = "auto",
    record_path: str | None = None,
    threads: int | None = 1,
) -> Any:
    """A DataFrame with one row per tool call in the responses of `df[column]` (string
    or binary texts, or a struct column as `spark.read.json` gives, read as the JSON text
    of each row): the other columns of the call's row, then `custom_id`, `format`,
    `call_index`, `id`, `name`, `arguments`, `raw_arguments`, `error`, `defect`,
    `repairs`, `violations`, the context columns (`model`, `response_id`,
    `finish_reason`, `choice_index`, `call_type`), `error_kind`, `http_status`
    (`to_arrow`'s columns without `record`, a position in an arbitrary Arrow batch). A
    row whose text cannot be read gives one row with `error` (a null: `no response
    (null)`); a row without calls gives none. A carried column named like a call column is an error
    (rename it first).

    `format`: a format name (default `auto`, as in the CLI) or a toolsift parser (one
    made with `tools=` checks each call: `violations`); `record_path` as for `to_arrow`;
    `threads`: toolsift's threads per task (default 1)."""
    _require_pyspark()
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

    parser = _engines.parser_for(format)
    schema = _engines.extract_schema(to_arrow_schema(df.schema), column)

    def calls(batches: Any) -> Any:
        for batch in batches:
            yield from _engines.extract_table(
                parser, batch, column, record_path=record_path, threads=threads
            ).to_batches()

    return df.mapInArrow(calls, from_arrow_schema(schema))
