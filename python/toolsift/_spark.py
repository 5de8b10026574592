"""Spark's side of `toolsift.spark` (imported only when PySpark is installed and used): a
Python Data Source (Spark 4's `pyspark.sql.datasource` API) named `toolsift`, which
reads Arrow batches, files grouped into partitions by size as Spark groups the files of
its own file sources (or `filesPerPartition` files to a partition)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow.fs
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.pandas.types import from_arrow_schema
from pyspark.sql.types import StructType

from toolsift import _engines
from toolsift import _paths as paths_of
from toolsift._engines import Splitting, group_by_size

# Hadoop's names: s3a:// and s3n:// are S3 to pyarrow.
_SCHEMES = {"s3a": "s3", "s3n": "s3"}
_JSON_OPTIONS = ("tool_calls_key", "name_key", "arguments_key", "single")


SPARK_DEFAULTS = Splitting(min_partitions=os.cpu_count() or 1)


def session_splitting(spark: Any) -> Splitting:
    """The session's settings of `Splitting` (Spark's defaults where it has none)."""
    defaults = SPARK_DEFAULTS

    def setting(key: str, default: int) -> int:
        try:
            value = spark.conf.get(key)
        except Exception:  # not a setting this Spark knows
            value = None
        return default if value is None else byte_count(str(value))

    try:
        parallelism = int(spark.sparkContext.defaultParallelism)
    except Exception:  # Spark Connect: no SparkContext on the client
        parallelism = defaults.min_partitions
    return Splitting(
        setting("spark.sql.files.maxPartitionBytes", defaults.max_partition_bytes),
        setting("spark.sql.files.openCostInBytes", defaults.open_cost_bytes),
        setting("spark.sql.files.minPartitionNum", parallelism),
    )


_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
_BYTES = re.compile(r"\s*([0-9]+)\s*([bkmgtp]?)b?\s*", re.IGNORECASE)


def byte_count(text: str) -> int:
    """A size as Spark writes it in its settings (`134217728b`, `4m`, `128MB`, `1024`)."""
    match = _BYTES.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size in bytes: {text!r}")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


class ToolsiftDataSource(DataSource):  # type: ignore[misc]
    """`spark.read.format("toolsift").option("format", "openai").load(path)`: one row per
    tool call of the JSONL files (plain, gzip or zstd) at `path` (a file, a directory or
    a glob; `load([a, b])` for several). Options: `format` (a format name, by default
    `auto`, as in the CLI), `recordPath`, `threads` (toolsift's threads per task, default 1),
    `filesPerPartition` (default: files grouped by size, `Splitting`), and for `format`
    `json` `tool_calls_key`, `name_key`, `arguments_key`, `single` (`true`/`false`)."""

    # Registered through `toolsift.spark.register`, a subclass holds the session's own.
    splitting = SPARK_DEFAULTS

    @classmethod
    def for_session(cls, spark: Any) -> type:
        """This class with the file-grouping settings of `spark` (pickled by value when
        registered, so the settings reach the planner's Python worker)."""
        return type(cls.__name__, (cls,), {"splitting": session_splitting(spark)})

    @classmethod
    def name(cls) -> str:
        return "toolsift"

    def schema(self) -> StructType:
        return from_arrow_schema(_engines.file_schema())

    def reader(self, schema: StructType) -> DataSourceReader:
        return _Reader(self.options, self.splitting)


class _Files(InputPartition):  # type: ignore[misc]
    def __init__(self, files: list[str]) -> None:
        super().__init__(files)
        self.files = files


class _Reader(DataSourceReader):  # type: ignore[misc]
    def __init__(self, options: Any, splitting: Splitting = SPARK_DEFAULTS) -> None:
        # Checked here, on the driver, so that a bad option fails before any task runs.
        format = options.get("format")
        repair = options.get("repair")  # "safe": the parser's audited repairs
        self.parser = _engines.parser_for(
            "auto" if format is None else str(format),
            **_json_options(options),
            **({} if repair is None else {"repair": str(repair)}),
            **_tools_option(options),
        )
        self.record_path = options.get("recordPath")
        self.threads = _positive(options, "threads") or 1
        self.per_partition = _positive(options, "filesPerPartition")
        self.splitting = splitting
        found = expand(_paths(options))
        self.files = [name for name, _ in found]
        self.sizes = [size for _, size in found]

    def partitions(self) -> Sequence[InputPartition]:
        if self.per_partition is None:
            groups = group_by_size(self.sizes, self.splitting)
        else:
            step = self.per_partition
            groups = [range(at, at + step) for at in range(0, len(self.files), step)]
        return [_Files(self.files[group.start : group.stop]) for group in groups]

    def read(self, partition: InputPartition) -> Iterator[Any]:
        assert isinstance(partition, _Files)
        for uri in partition.files:
            filesystem, path = _filesystem(uri)
            if isinstance(filesystem, pyarrow.fs.LocalFileSystem):
                yield from _engines.file_batches(
                    self.parser,
                    path,
                    record_path=self.record_path,
                    threads=self.threads,
                    name=uri,
                )
                continue
            with filesystem.open_input_stream(path, compression=None) as stream:
                yield from _engines.file_batches(
                    self.parser,
                    stream,
                    record_path=self.record_path,
                    threads=self.threads,
                    name=uri,
                )


def _option(options: Any, key: str) -> str:
    value = options.get(key)
    if value is None:
        raise ValueError(f'the toolsift data source needs the option "{key}"')
    return str(value)


def _json_options(options: Any) -> dict[str, Any]:
    given: dict[str, Any] = {}
    for key in _JSON_OPTIONS:
        value = options.get(key)
        if value is None:
            continue
        if key == "single":
            if value.lower() not in ("true", "false"):
                raise ValueError(f'option "single" must be true or false, got {value!r}')
            given[key] = value.lower() == "true"
        else:
            given[key] = value
    return given


def _tools_option(options: Any) -> dict[str, Any]:
    """The option `tools`: the JSON text of the tool definitions (any shape `tools=`
    takes), each call checked against them (the `violations` column)."""
    text = options.get("tools")
    if text is None:
        return {}
    try:
        return {"tools": json.loads(text)}
    except ValueError:
        raise ValueError(
            f'option "tools" must be the JSON text of tool definitions, got {text!r}'
        ) from None


def _positive(options: Any, key: str) -> int | None:
    value = options.get(key)
    if value is None:
        return None
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ValueError(f'option "{key}" must be a positive integer, got {value!r}')
    return number


def _paths(options: Any) -> list[str]:
    if options.get("paths") is not None:
        paths = json.loads(options["paths"])
        if options.get("path") is not None:
            paths.insert(0, options["path"])
        return [str(path) for path in paths]
    return [_option(options, "path")]


def _filesystem(uri: str) -> tuple[Any, str]:
    """(pyarrow filesystem, its path) of a local path or a URI."""
    scheme, sep, rest = uri.partition("://")
    if not sep:
        return pyarrow.fs.LocalFileSystem(), os.path.abspath(uri)
    if scheme in _SCHEMES:
        uri = f"{_SCHEMES[scheme]}://{rest}"
    return pyarrow.fs.FileSystem.from_uri(uri)


def expand(paths: Sequence[str]) -> list[tuple[str, int]]:
    """The files of `paths` and their sizes in bytes (each a file, a directory, read
    recursively, or a glob whose `*`, `?` and `[...]` match within one path component),
    in order, named as given (same scheme). Names starting with `_` or `.` under a
    directory or a glob are skipped. Raises FileNotFoundError for a path that names nothing."""
    files: list[tuple[str, int]] = []
    for given in paths:
        filesystem, path = _filesystem(given)
        scheme, sep, _ = given.partition("://")
        prefix = f"{scheme}://" if sep else ""
        found = _expand_one(filesystem, path)
        if not found:
            raise FileNotFoundError(f"toolsift: no file at {given}")
        files += [(prefix + name, size) for name, size in found]
    return files


def _expand_one(filesystem: Any, path: str) -> list[tuple[str, int]]:
    parts = path.split("/")
    glob_at = next((i for i, part in enumerate(parts) if paths_of.is_glob(part)), None)
    if glob_at is None:
        info = filesystem.get_file_info(path)
        if info.type == pyarrow.fs.FileType.File:
            return [(path, info.size)]
        if info.type == pyarrow.fs.FileType.Directory:
            return _listed(filesystem, path, None)
        return []
    base = "/".join(parts[:glob_at]) or "/"
    if filesystem.get_file_info(base).type != pyarrow.fs.FileType.Directory:
        return []
    return _listed(filesystem, base, parts)


def _listed(filesystem: Any, base: str, pattern: list[str] | None) -> list[tuple[str, int]]:
    selector = pyarrow.fs.FileSelector(base, recursive=True)
    names = []
    depth = len(base.rstrip("/").split("/"))
    for info in filesystem.get_file_info(selector):
        if info.type != pyarrow.fs.FileType.File:
            continue
        if not paths_of.selected(info.path.split("/"), depth, pattern):
            continue
        names.append((info.path, info.size))
    return sorted(names)
