"""Ray Data's side of `toolsift.ray` (imported only when Ray is installed and used): a
datasource on Ray's own file-based datasource machinery, so that Ray's filesystems, path
expansion, partitioning, file shuffling and read parallelism apply."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.fs
import ray
from ray.data.datasource import FileBasedDatasource

from toolsift import _engines
from toolsift._engines import Splitting, group_by_size


class ToolCallsDatasource(FileBasedDatasource):  # type: ignore[misc]
    """One row per tool call of every JSONL file under `paths`: `file`, then the columns
    of `to_arrow`. Each read task reads its files one after another through
    `_engines.file_batches`, one Arrow block per batch."""

    def __init__(
        self,
        paths: str | list[str],
        *,
        parser: Any,
        record_path: str | None,
        threads: int | None,
        **file_options: Any,
    ) -> None:
        super().__init__(paths, **file_options)
        self._parser = parser
        self._record_path = record_path
        self._threads = threads

    def resolve_compression(self, path: str, open_args: dict[str, Any]) -> str | None:
        # The raw bytes, whatever the name says: toolsift tells gzip and zstd from plain
        # text by content (a `.gz` name on plain text, or none on gzip, reads all the same).
        return None

    def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
        filesystem = self._filesystem
        while hasattr(filesystem, "unwrap"):  # Ray's retrying wrapper
            inner = filesystem.unwrap()
            if inner is filesystem:
                break
            filesystem = inner
        # A local file is read by path (toolsift's own reader, no copy); any other
        # filesystem's file through the stream Ray opened on its raw bytes.
        source = path if isinstance(filesystem, pyarrow.fs.LocalFileSystem) else f
        for batch in _engines.file_batches(
            self._parser, source, record_path=self._record_path, threads=self._threads, name=path
        ):
            yield pa.Table.from_batches([batch])


def read_task_count(datasource: ToolCallsDatasource) -> int:
    """The read tasks for `datasource` when the caller sets none: as many as Spark's size
    rule (`group_by_size`) makes groups of its files for the cluster's CPUs. Ray's own
    default here is a task per file whose output it then splits into blocks, to reach its
    target of 200 blocks: reading and writing then run as separate stages, which took
    twice as long on the benchmark's 16 files as 2 or 4 tasks did. Ray hands the files
    to the tasks by count, in order (files of one size make equal tasks)."""
    sizes = [int(size or 0) for size in datasource._file_sizes()]
    cpus = max(int(ray.cluster_resources().get("CPU", 1)), 1)
    return max(len(group_by_size(sizes, Splitting(min_partitions=cpus))), 1)
