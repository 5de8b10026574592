"""Spark's side of `toolsift.spark` (imported only when PySpark is installed and used): a
Python Data Source (Spark 4's `pyspark.sql.datasource` API) named `toolsift`, which
reads Arrow batches, one partition per file (or per `filesPerPartition` files)."""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow.fs
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition
from pyspark.sql.pandas.types import from_arrow_schema
from pyspark.sql.types import StructType

from toolsift import _engines

_GLOB = frozenset("*?[")
# Hadoop's names: s3a:// and s3n:// are S3 to pyarrow.
_SCHEMES = {"s3a": "s3", "s3n": "s3"}
_JSON_OPTIONS = ("tool_calls_key", "name_key", "arguments_key", "single")


class ToolsiftDataSource(DataSource):  # type: ignore[misc]
    """`spark.read.format("toolsift").option("format", "openai").load(path)`: one row per
    tool call of the JSONL files (plain, gzip or zstd) at `path` (a file, a directory or
    a glob; `load([a, b])` for several). Options: `format` (required: a format name,
    `auto` included), `recordPath`, `threads` (toolsift's threads per task, default 1),
    `filesPerPartition` (default 1), and for `format` `json` `tool_calls_key`,
    `name_key`, `arguments_key`, `single` (`true`/`false`)."""

    @classmethod
    def name(cls) -> str:
        return "toolsift"

    def schema(self) -> StructType:
        return from_arrow_schema(_engines.file_schema())

    def reader(self, schema: StructType) -> DataSourceReader:
        return _Reader(self.options)


class _Files(InputPartition):  # type: ignore[misc]
    def __init__(self, files: list[str]) -> None:
        super().__init__(files)
        self.files = files


class _Reader(DataSourceReader):  # type: ignore[misc]
    def __init__(self, options: Any) -> None:
        # Checked here, on the driver, so that a bad option fails before any task runs.
        self.parser = _engines.parser_for(_option(options, "format"), **_json_options(options))
        self.record_path = options.get("recordPath")
        self.threads = _positive(options, "threads", 1)
        self.per_partition = _positive(options, "filesPerPartition", 1)
        self.files = expand(_paths(options))

    def partitions(self) -> Sequence[InputPartition]:
        step = self.per_partition
        return [_Files(self.files[at : at + step]) for at in range(0, len(self.files), step)]

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


def _positive(options: Any, key: str, default: int) -> int:
    value = options.get(key)
    if value is None:
        return default
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


def _hidden(name: str) -> bool:
    # Spark's and Hadoop's convention: _SUCCESS, .crc files and the like are not data.
    return name.startswith(("_", "."))


def expand(paths: Sequence[str]) -> list[str]:
    """The files of `paths` (each a file, a directory, read recursively, or a glob whose
    `*`, `?` and `[...]` match within one path component), in order, named as given
    (same scheme). Names starting with `_` or `.` under a directory or a glob are
    skipped. Raises FileNotFoundError for a path that names nothing."""
    files: list[str] = []
    for given in paths:
        filesystem, path = _filesystem(given)
        scheme, sep, _ = given.partition("://")
        prefix = f"{scheme}://" if sep else ""
        found = _expand_one(filesystem, path)
        if not found:
            raise FileNotFoundError(f"toolsift: no file at {given}")
        files += [prefix + name for name in found]
    return files


def _expand_one(filesystem: Any, path: str) -> list[str]:
    parts = path.split("/")
    glob_at = next((i for i, part in enumerate(parts) if _GLOB & set(part)), None)
    if glob_at is None:
        info = filesystem.get_file_info(path)
        if info.type == pyarrow.fs.FileType.File:
            return [path]
        if info.type == pyarrow.fs.FileType.Directory:
            return _listed(filesystem, path, None)
        return []
    base = "/".join(parts[:glob_at]) or "/"
    if filesystem.get_file_info(base).type != pyarrow.fs.FileType.Directory:
        return []
    return _listed(filesystem, base, parts)


def _listed(filesystem: Any, base: str, pattern: list[str] | None) -> list[str]:
    selector = pyarrow.fs.FileSelector(base, recursive=True)
    names = []
    depth = len(base.rstrip("/").split("/"))
    for info in filesystem.get_file_info(selector):
        if info.type != pyarrow.fs.FileType.File:
            continue
        parts = info.path.split("/")
        if any(_hidden(part) for part in parts[depth:]):
            continue
        if pattern is not None and not (
            len(parts) == len(pattern)
            and all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pattern, strict=True))
        ):
            continue
        names.append(info.path)
    return sorted(names)
