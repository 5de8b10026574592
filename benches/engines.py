"""Scaling out, timed: the tool calls of N gzip JSONL files (OpenAI Batch API output) into
Parquet, by Ray Data (`toolsift.ray.read_tool_calls` + `write_parquet`), by Spark (the
`toolsift` data source + `write.parquet`) and by the `toolsift extract` CLI, the entries
taking turns round by round (as `interleaved.py` does), on engines started once.

    python benches/engines.py [--files 16] [--lines 4000] [--rounds 5]

Entries:

* `cli per file, t=1, 2 at a time`: `toolsift extract FILE --threads 1 -o OUT.parquet`,
  one process per file, two processes at a time (each start of Python counts).
* `cli all files, t=1` and `t=2`: one `toolsift extract FILE... --threads N -o
  OUT.parquet` (files read in parallel, up to N at once: `toolsift.Files`).
* `ray read_tool_calls`: a local Ray cluster (`num_cpus=2`), read tasks chosen by size
  (the default: Spark's rule for the cluster's CPUs); and `ray read_tool_calls, a task
  per file` (`override_num_blocks` the number of files).
* `spark data source`: a local Spark session (`local[2]`), files grouped into partitions
  by size (the default: Spark's own rule); and `spark data source, a partition per file`
  (`filesPerPartition` 1); and `spark data source, rows counted (no Parquet)`, the
  default's read alone (`df.count()`: every row still comes over from the Python
  workers), which tells Spark's Parquet writer apart from the read.

MB/s are of the JSON text (decompressed). The ratios are each engine's MB/s over each CLI
entry's, and the CLI's with 2 threads over 1. Prints medians; `--json` writes them too.
Engine start-up is not timed (a cluster is started once for many jobs); each job's own
scheduling is. Bytecode is cached (in the work folder, during the warm-up round) as an
installed package's is, also where the environment says not to write it
(`PYTHONDONTWRITEBYTECODE`): a CLI process that compiled toolsift's sources each time
spent ~70 ms more starting.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

FORMAT = "openai"


def envelope(i: int, line: bytes) -> bytes:
    return (
        b'{"id":"batch_req_%d","custom_id":"request-%d","response":{"status_code":200,'
        b'"request_id":"req_%d","body":%s},"error":null}' % (i, i, i, line)
    )


def write_files(folder: Path, files: int, lines: int, seed: int = 0) -> tuple[list[Path], int]:
    """`files` gzip files of `lines` Batch API lines each; returns them and the bytes of
    JSON text they hold."""
    import corpus

    folder.mkdir(parents=True, exist_ok=True)
    every = corpus.corpus_lines("openai", files * lines, seed)
    paths = []
    text_bytes = 0
    for index in range(files):
        chunk = every[index * lines : (index + 1) * lines]
        data = b"".join(envelope(index * lines + i, line) + b"\n" for i, line in enumerate(chunk))
        text_bytes += len(data)
        path = folder / f"part-{index:04d}.jsonl.gz"
        path.write_bytes(gzip.compress(data, compresslevel=6))
        paths.append(path)
    return paths, text_bytes


class Engines:
    """Ray and Spark, started once, stopped by `close`."""

    def __init__(self) -> None:
        import ray.data

        os.environ["PYSPARK_PYTHON"] = sys.executable
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=512 * 1024 * 1024,
            log_to_driver=False,
            configure_logging=False,
        )
        ray.data.DataContext.get_current().enable_progress_bars = False
        import toolsift.spark
        from pyspark.sql import SparkSession

        self.spark = (
            SparkSession.builder.master("local[2]")
            .appName("toolsift-bench")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", "1g")
            .config("spark.sql.shuffle.partitions", "2")
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("ERROR")
        toolsift.spark.register(self.spark)

    def close(self) -> None:
        import ray.data

        self.spark.stop()
        ray.shutdown()


def cli_per_file(paths: list[Path], out: Path) -> None:
    def one(path: Path) -> None:
        target = out / (path.name.split(".")[0] + ".parquet")
        command = [sys.executable, "-m", "toolsift", "extract", str(path)]
        command += ["--format", FORMAT, "--threads", "1", "--quiet", "-o", str(target)]
        subprocess.run(command, check=True)

    with ThreadPoolExecutor(2) as pool:
        list(pool.map(one, paths))


def cli_all_files(threads: int) -> Callable[[list[Path], Path], None]:
    def run(paths: list[Path], out: Path) -> None:
        command = [sys.executable, "-m", "toolsift", "extract", *map(str, paths)]
        command += ["--format", FORMAT, "--threads", str(threads), "--quiet"]
        subprocess.run([*command, "-o", str(out / "all.parquet")], check=True)

    return run


def ray_read(per_task: int | None) -> Callable[[list[Path], Path], None]:
    def run(paths: list[Path], out: Path) -> None:
        import toolsift.ray

        options = {} if per_task is None else {"override_num_blocks": len(paths) // per_task}
        dataset = toolsift.ray.read_tool_calls(
            [str(path) for path in paths], format=FORMAT, **options
        )
        dataset.write_parquet(str(out))

    return run


# An entry writes the calls of the files as Parquet under its folder, or returns the
# number of rows it read without writing them.
Entry = Callable[[list[Path], Path], int | None]


def spark_read(engines: Engines, per_partition: int | None, write: bool = True) -> Entry:
    def run(paths: list[Path], out: Path) -> int | None:
        reader = engines.spark.read.format("toolsift").option("format", FORMAT)
        if per_partition is not None:
            reader = reader.option("filesPerPartition", str(per_partition))
        df = reader.load([str(path) for path in paths])
        if not write:
            # Every row still comes over from the Python workers (a Python data source
            # prunes no column): the read alone, without Spark's Parquet writer.
            return int(df.count())
        df.write.mode("overwrite").parquet(str(out))
        return None

    return run


def entries(engines: Engines) -> dict[str, Entry]:
    return {
        "cli per file, t=1, 2 at a time": cli_per_file,
        "cli all files, t=1": cli_all_files(1),
        "cli all files, t=2": cli_all_files(2),
        "ray read_tool_calls": ray_read(None),
        "ray read_tool_calls, a task per file": ray_read(1),
        "spark data source": spark_read(engines, None),
        "spark data source, a partition per file": spark_read(engines, 1),
        "spark data source, rows counted (no Parquet)": spark_read(engines, None, write=False),
    }


def rows_written(out: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(path).metadata.num_rows for path in out.rglob("*.parquet"))


def measure(
    paths: list[Path], engines: Engines, rounds: int, work: Path
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Seconds per round of each entry (after one warm-up round), entries taking turns;
    and the rows each wrote."""
    runs = entries(engines)
    seconds: dict[str, list[float]] = {name: [] for name in runs}
    rows: dict[str, int] = {}
    for round_ in range(rounds + 1):
        for index, (name, run) in enumerate(runs.items()):
            out = work / f"out-{index}-{round_}"
            out.mkdir(parents=True)
            started = time.perf_counter()
            counted = run(paths, out)
            took = time.perf_counter() - started
            rows[name] = rows_written(out) if counted is None else counted
            shutil.rmtree(out)
            if round_:
                seconds[name].append(took)
    return seconds, rows


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--files", type=int, default=16)
    options.add_argument("--lines", type=int, default=4000, help="lines per file")
    options.add_argument("--rounds", type=int, default=5)
    options.add_argument("--json", metavar="OUT", help="write the medians as JSON")
    args = options.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="toolsift-engines-"))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # for the processes started from here
    os.environ["PYTHONPYCACHEPREFIX"] = str(work / "bytecode")
    try:
        paths, text_bytes = write_files(work / "in", args.files, args.lines)
        gz_bytes = sum(path.stat().st_size for path in paths)
        engines = Engines()
        try:
            seconds, rows = measure(paths, engines, args.rounds, work)
        finally:
            engines.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    megabytes = text_bytes / 1e6
    print(
        f"{args.files} gzip files, {args.lines} lines each: {megabytes:.1f} MB of JSON text "
        f"({gz_bytes / 1e6:.1f} MB gzip); nproc {os.cpu_count()}, load average "
        f"{os.getloadavg()[0]:.2f}; {args.rounds} rounds after a warm-up"
    )
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    speeds = {name: megabytes / median for name, median in medians.items()}
    for name, median in medians.items():
        spread = f"{min(seconds[name]):.2f}-{max(seconds[name]):.2f}"
        print(
            f"  {name:32} median {median:6.2f} s ({spread})  {speeds[name]:6.1f} MB/s  "
            f"{rows[name]} rows"
        )
    engine_names = [name for name in speeds if name.startswith(("ray", "spark"))]
    for engine in engine_names:
        for cli in ("cli per file, t=1, 2 at a time", "cli all files, t=2"):
            print(f"  {engine} / {cli}: {speeds[engine] / speeds[cli]:.2f}")
    ratio = speeds["cli all files, t=2"] / speeds["cli all files, t=1"]
    print(f"  cli all files, t=2 / t=1: {ratio:.2f}")
    if len(set(rows.values())) != 1:
        print(f"the entries wrote different numbers of rows: {rows}", file=sys.stderr)
        return 1
    if args.json:
        Path(args.json).write_text(
            json.dumps({"seconds": seconds, "mb_per_s": speeds, "text_mb": megabytes}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
