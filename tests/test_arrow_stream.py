"""arrow_batches (a pyarrow RecordBatchReader, the Arrow PyCapsule stream protocol) and
several files read as one source (`toolsift.Files`): both backends, and both backends
against each other."""

from __future__ import annotations

import gc
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pytest
from conftest import IMPLS, both_backends
from test_bulk import base, chat, non_blank, openai_lines, rows_of, write
from toolsift import Files, parsers
from toolsift._bulk import COLUMNS as COLUMNS_OF_TO_ARROW
from toolsift._errors import OPENED_BEFORE_FORK

COLUMNS = list(COLUMNS_OF_TO_ARROW)


def bound(name: str, backend: Any) -> Any:
    cls = getattr(parsers, name)
    return type(name, (cls,), {"_backend": backend})()


def numbered_lines(n: int, start: int = 0, pad: int = 0) -> list[bytes]:
    """Chat responses with one call each, `{"i": i}` (and `pad` bytes of padding)."""
    return [
        json.dumps(chat([("f", json.dumps({"i": i, "pad": "x" * pad}))])).encode()
        for i in range(start, start + n)
    ]


def some_files(tmp_path: Path, count: int = 5) -> list[Path]:
    """Files of every kind and size, one empty, one with bad lines."""
    kinds = ["gz", "plain", "zst", "gz", "plain", "gz", "zst"]
    paths = []
    for k in range(count):
        lines = openai_lines(40 + 37 * k, seed=k) if k != 2 else []
        paths.append(write(tmp_path / f"part-{k}.jsonl", lines, kinds[k % len(kinds)]))
    return paths


# ------------------------------------------------------------------ one source


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
@pytest.mark.parametrize("threads", [1, 2])
def test_arrow_batches_is_a_reader_of_the_to_arrow_rows(
    make: Any, tmp_path: Path, kind: str, threads: int
) -> None:
    lines = openai_lines(700)
    path = write(tmp_path / f"in.{kind}", lines, kind)
    parser = make.OpenAIResponseParser()
    reader = parser.arrow_batches(path, threads=threads, batch_rows=100)
    assert isinstance(reader, pa.RecordBatchReader)
    assert reader.schema.names == COLUMNS
    batches = list(reader)
    assert [len(b) for b in batches[:-1]] == [100] * (len(batches) - 1)
    assert 0 < len(batches[-1]) <= 100
    table = pa.Table.from_batches(batches, schema=reader.schema)
    assert table.equals(parser.to_arrow(path, threads=threads))
    responses = list(parser.parse_file(path))
    got = base(table.drop_columns(["custom_id"])).to_pylist()
    assert got == rows_of(responses, non_blank(lines))
    # str and os.PathLike alike; the default batch size holds them all here.
    assert [len(b) for b in parser.arrow_batches(str(path))] == [len(table)]


def test_to_arrow_keeps_the_batches_as_made(make: Any, tmp_path: Path) -> None:
    """`to_arrow` joins the batches as the backend made them (the native backend's hold
    about 1 MiB of records, the python backend's 4,096 records), not copied into
    batches of `batch_rows`."""
    lines = openai_lines(3000) * 10  # about 4.4 MiB, 28,350 rows
    path = write(tmp_path / "in.jsonl", lines, "plain")
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(path)
    assert table.equals(parser.arrow_batches(path).read_all())
    chunks = [len(chunk) for chunk in table.column("record").chunks]
    assert len(chunks) >= 4 and max(chunks) < len(table) / 3, chunks


def test_in_memory_sources(make: Any) -> None:
    lines = openai_lines(300)
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(lines)
    for source in (lines, iter(lines), pa.array(lines, pa.binary())):
        reader = parser.arrow_batches(source, batch_rows=7)
        assert reader.read_all().equals(table)
    assert parser.arrow_batches([]).read_all().num_rows == 0


def test_backends_give_the_same_batches(tmp_path: Path) -> None:
    rust, python = both_backends()
    lines = openai_lines(900, seed=3)
    path = write(tmp_path / "in.gz", lines, "gz")
    files = Files(some_files(tmp_path))
    for source in (path, lines, files):
        for batch_rows in (1, 64, 100_000):
            r = list(
                bound("OpenAIResponseParser", rust).arrow_batches(source, batch_rows=batch_rows)
            )
            p = list(
                bound("OpenAIResponseParser", python).arrow_batches(source, batch_rows=batch_rows)
            )
            assert len(r) == len(p)
            for a, b in zip(r, p, strict=True):
                assert a.equals(b)


def test_the_pycapsule_stream_protocol(make: Any, tmp_path: Path) -> None:
    """polars, duckdb and pyarrow.dataset read the reader through `__arrow_c_stream__`."""
    import duckdb
    import polars as pl

    path = write(tmp_path / "in.gz", openai_lines(500), "gz")
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(path)
    reader = parser.arrow_batches(path, batch_rows=50)
    assert hasattr(reader, "__arrow_c_stream__")
    assert pa.RecordBatchReader.from_stream(reader).read_all().equals(table)

    frame = pl.from_arrow(parser.arrow_batches(path, batch_rows=50))
    assert isinstance(frame, pl.DataFrame)
    assert frame.to_arrow().cast(table.schema).equals(table)

    stream = parser.arrow_batches(Files([path, path]), batch_rows=50)
    got = duckdb.sql("select file, record, call_index, name from stream").arrow()
    if hasattr(got, "read_all"):  # duckdb 1.4+ gives a reader
        got = got.read_all()
    rows = table.select(["record", "call_index", "name"]).to_pylist()
    assert got.to_pylist() == [{"file": str(path), **row} for row in rows] * 2
    del stream

    dataset = ds.dataset(parser.arrow_batches(path, batch_rows=50))
    assert dataset.to_table().equals(table)


def test_reading_is_lazy_and_bounded(
    make: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is read before the first batch is asked for; then the reading thread stays
    a bounded amount ahead of the consumer (here, one batch: the bound set to 1 byte)."""
    from toolsift import _bulk

    monkeypatch.setattr(_bulk, "HEAD_BUFFER_BYTES", 1)
    path = write(tmp_path / "big.jsonl", numbered_lines(40_000, pad=200), newline=True)
    size = path.stat().st_size
    seen: list[int] = []
    parser = make.OpenAIResponseParser()
    reader = parser.arrow_batches(
        path, threads=1, batch_rows=100, progress=lambda done, total: seen.append(done)
    )
    time.sleep(0.2)
    assert seen == []  # not started
    first = reader.read_next_batch()
    assert first.column("arguments")[0].as_py() == json.dumps(
        {"i": 0, "pad": "x" * 200}, separators=(",", ":")
    )
    time.sleep(0.5)
    assert max(seen, default=0) < size // 2  # waiting for the consumer, far from the end
    rest = reader.read_all()
    assert len(first) + len(rest) == 40_000
    assert seen[-1] == size


def test_reader_errors(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    with pytest.raises(FileNotFoundError):
        parser.arrow_batches(tmp_path / "missing.jsonl")  # now, not at the first batch
    with pytest.raises(IsADirectoryError):
        parser.arrow_batches(tmp_path)
    path = write(tmp_path / "x.jsonl", [b"{}"])
    for rows in (0, -1, True, 1.5, None, "9"):
        with pytest.raises(ValueError, match="batch_rows must be a positive int"):
            parser.arrow_batches(path, batch_rows=rows)
    with pytest.raises(ValueError, match="threads"):
        parser.arrow_batches(path, threads=0)
    with pytest.raises(TypeError, match="single bytes"):
        parser.arrow_batches(b"{}")
    # Corrupt compressed data: the rows of the lines before it, then OSError.
    lines = numbered_lines(30_000)
    broken = write(tmp_path / "c.gz", lines, "gz")
    data = broken.read_bytes()
    broken.write_bytes(data[: len(data) * 3 // 4])
    reader = parser.arrow_batches(broken, batch_rows=1000)
    got = []
    with pytest.raises(OSError, match="corrupt or truncated gzip data") as raised:
        for batch in reader:
            got.append(batch)
    assert str(raised.value).startswith(str(broken))
    records = [n for batch in got for n in batch.column("record").to_pylist()]
    assert 0 < len(records) < len(lines)
    assert records == list(range(len(records)))


def test_backends_agree_on_read_errors(tmp_path: Path) -> None:
    rust, python = both_backends()
    lines = numbered_lines(30_000)
    broken = write(tmp_path / "c.gz", lines, "gz")
    data = broken.read_bytes()
    broken.write_bytes(data[: len(data) * 3 // 4])
    errors = []
    for backend in (rust, python):
        with pytest.raises(OSError) as raised:
            bound("OpenAIResponseParser", backend).to_arrow(Files([broken]))
        errors.append((type(raised.value), str(raised.value)))
    assert errors[0] == errors[1]


# ------------------------------------------------------------------ several files


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_files_are_read_in_order_with_a_file_column(
    make: Any, tmp_path: Path, threads: int
) -> None:
    paths = some_files(tmp_path, 7)
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(Files(paths), threads=threads)
    assert table.schema.names == ["file", *COLUMNS]
    assert not table.schema.field("file").nullable
    # Each file's rows, as to_arrow reads it alone (records numbered in their own file).
    expected = []
    for path in paths:
        alone = parser.to_arrow(path).to_pylist()
        expected += [{"file": str(path), **row} for row in alone]
    assert table.to_pylist() == expected
    assert parser.to_arrow(Files(p for p in paths), threads=threads).equals(table)
    names = [str(p) for p in paths]
    assert parser.arrow_batches(Files(names), batch_rows=13).read_all().equals(table)


@pytest.mark.parametrize("impl", IMPLS)
def test_reading_files_does_not_import_pandas(tmp_path: Path, impl: str) -> None:
    """pyarrow imports pandas (over half a second) at its first conversion of a Python
    value; the Rust backend's columns come through the C data interface and the `file`
    column is built without one, so reading files never pays it. (The python backend
    builds its columns from Python values: it pays it, as any pyarrow user does.)"""
    pytest.importorskip("pandas")
    if impl == "python":
        pytest.skip("the python backend converts Python values with pyarrow")
    paths = [str(path) for path in some_files(tmp_path, 2)]
    script = (
        "import sys, toolsift, toolsift.parsers as p\n"
        f"t = p.OpenAIResponseParser().to_arrow(toolsift.Files({paths!r}), threads=2)\n"
        "assert t.num_rows and t.column('file')[0].as_py()\n"
        "print(toolsift.IMPLEMENTATION, 'pandas' in sys.modules)\n"
    )
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert done.stdout.split() == [impl, "False"], done.stderr


def test_files_of_one_or_none(make: Any, tmp_path: Path) -> None:
    """The schema follows the source's kind, never the number of files."""
    parser = make.OpenAIResponseParser()
    (path,) = some_files(tmp_path, 1)
    one = parser.to_arrow(Files([path]))
    assert one.schema.names == ["file", *COLUMNS]
    assert one.drop_columns(["file"]).equals(parser.to_arrow(path))
    none = parser.to_arrow(Files([]))
    assert none.num_rows == 0
    assert none.schema.names == ["file", *COLUMNS]


def test_a_list_of_str_is_still_records(make: Any, tmp_path: Path) -> None:
    """Only `Files` reads paths: a list of str is a list of records, as it always was."""
    (path,) = some_files(tmp_path, 1)
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow([str(path)])
    assert table.schema.names == COLUMNS
    assert table.column("error").to_pylist()[0].startswith("expected")  # not JSON


def test_files_errors(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    paths = some_files(tmp_path, 3)
    missing = tmp_path / "gone.jsonl.gz"
    with pytest.raises(FileNotFoundError) as raised:
        parser.arrow_batches(Files([paths[0], missing, paths[1]]))
    assert raised.value.filename == str(missing)
    empty = tmp_path / "empty"
    empty.mkdir()
    no_jsonl = r"no \.jsonl, \.jsonl\.gz, \.jsonl\.zst file"
    with pytest.raises(FileNotFoundError, match=no_jsonl) as raised:
        parser.to_arrow(Files([paths[0], empty]))  # a directory is read: see below
    assert raised.value.filename == str(empty)
    with pytest.raises(FileNotFoundError, match="no file matches") as raised:
        parser.to_arrow(Files([paths[0], tmp_path / "nothing-*.jsonl"]))
    assert raised.value.filename == str(tmp_path / "nothing-*.jsonl")
    with pytest.raises(TypeError, match="not one path"):
        Files(str(paths[0]))
    with pytest.raises(TypeError, match="not one path"):
        Files(paths[0])
    with pytest.raises(TypeError, match=r"str or os\.PathLike, got int"):
        Files([paths[0], 3])
    assert Files(paths) == Files(list(paths))
    assert len(Files(paths)) == 3
    assert repr(Files(["a"])) == "Files(['a'])"


@pytest.mark.parametrize("threads", [1, 2])
def test_a_corrupt_file_among_many(make: Any, tmp_path: Path, threads: int) -> None:
    """The rows of the files before it and of its lines before the fault come out, then
    an OSError naming it; nothing after it is taken for complete."""
    parser = make.OpenAIResponseParser()
    good = write(tmp_path / "a.jsonl", numbered_lines(500), "gz")
    broken = write(tmp_path / "b.jsonl.gz", numbered_lines(30_000), "gz")
    data = broken.read_bytes()
    broken.write_bytes(data[: len(data) // 2])
    after = write(tmp_path / "c.jsonl", numbered_lines(10))
    got = []
    with pytest.raises(OSError) as raised:
        for batch in parser.arrow_batches(Files([good, broken, after]), threads=threads):
            got.append(batch)
    assert str(raised.value) == f"{broken}: corrupt or truncated gzip data"
    files = [f for batch in got for f in batch.column("file").to_pylist()]
    assert files[:500] == [str(good)] * 500
    assert set(files[500:]) <= {str(broken)}


def test_progress_of_files(make: Any, tmp_path: Path) -> None:
    paths = some_files(tmp_path, 4)
    total = sum(p.stat().st_size for p in paths)
    seen: list[tuple[int, int | None]] = []
    make.OpenAIResponseParser().to_arrow(
        Files(paths), threads=2, progress=lambda done, of: seen.append((done, of))
    )
    assert seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_files_in_flight_are_bounded_by_threads(
    make: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With threads=2, at most two files are being read at any time."""
    from toolsift import _bulk

    opened: list[int] = []
    live = [0]
    lock = threading.Lock()
    original = _bulk._Part._produce

    def counted(self: Any) -> None:
        with lock:
            live[0] += 1
            opened.append(live[0])
        try:
            original(self)
        finally:
            with lock:
                live[0] -= 1

    monkeypatch.setattr(_bulk._Part, "_produce", counted)
    paths = [write(tmp_path / f"{k}.gz", numbered_lines(300, k * 300), "gz") for k in range(8)]
    table = make.OpenAIResponseParser().to_arrow(Files(paths), threads=2)
    assert len(opened) == 8
    assert max(opened) <= 2
    got = [json.loads(a)["i"] for a in table.column("arguments").to_pylist()]
    assert got == list(range(2400))


# ------------------------------------------------------------------ threads and processes


def test_abandoned_readers_stop_their_threads(impl: str, tmp_path: Path) -> None:
    """300 readers (one file, and three files at once) each read for one batch and
    dropped: their reading threads end and the process stays small (~110 MiB after
    1,000 or 3,000 such readers on the Rust backend). In a fresh subprocess (the pure
    backend, which parses 4096 records before its first batch, drops 40)."""
    line = json.dumps(chat([("f", json.dumps({"x": "y" * 500}))])).encode()
    path = write(tmp_path / "many.jsonl", [line] * 8000)
    script = (
        "import gc, sys, threading, time\n"
        "from toolsift import Files\n"
        "from toolsift.parsers import OpenAIResponseParser\n"
        "parser = OpenAIResponseParser()\n"
        "for k in range(int(sys.argv[2])):\n"
        "    source = sys.argv[1] if k % 2 else Files([sys.argv[1]] * 3)\n"
        "    reader = parser.arrow_batches(source, threads=2, batch_rows=10)\n"
        "    reader.read_next_batch()\n"
        "    del reader\n"
        "gc.collect()\n"
        "time.sleep(0.5)\n"
        "rss = int(open('/proc/self/statm').read().split()[1]) * 4096 // 2**20\n"
        "print(threading.active_count(), rss)\n"
    )
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path), "300" if impl == "rust" else "40"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    threads, rss = map(int, done.stdout.split())
    assert threads == 1
    assert rss < 250, f"{rss} MiB after the abandoned readers"


def test_readers_held_mid_file_hold_little(impl: str, tmp_path: Path) -> None:
    """30 readers each held after one batch, mid-file: each holds about a batch ahead and
    its reading state, a few MiB (issue 37: 26 MiB each on Rust, 41 on the pure backend;
    13 and 8 now, on 2 cores). A generous bound on the RSS they add, in a fresh
    subprocess."""
    line = json.dumps(chat([("f", json.dumps({"x": "y" * 800}))])).encode()
    path = write(tmp_path / "many.jsonl", [line] * 12_000)  # ~11 MB: a batch is ~1 MB
    script = (
        "import gc, sys, time\n"
        "from toolsift.parsers import OpenAIResponseParser\n"
        "def rss():\n"
        "    return int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20\n"
        "parser = OpenAIResponseParser()\n"
        "parser.to_arrow([b'{}'])\n"
        "before = rss()\n"
        "readers = []\n"
        "for _ in range(30):\n"
        "    reader = parser.arrow_batches(sys.argv[1], threads=2, batch_rows=1000)\n"
        "    reader.read_next_batch()\n"
        "    readers.append(reader)\n"
        "gc.collect()\n"
        "time.sleep(1.5)\n"
        "print((rss() - before) / len(readers))\n"
    )
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert float(done.stdout) < 20, f"{float(done.stdout):.1f} MiB per held reader"


def test_a_reader_dropped_unread_starts_nothing(make: Any, tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", numbered_lines(10))
    before = threading.active_count()
    reader = make.OpenAIResponseParser().arrow_batches(Files([path, path]))
    assert threading.active_count() == before
    del reader
    gc.collect()
    assert threading.active_count() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX only")
def test_a_reader_opened_before_fork(make: Any, tmp_path: Path) -> None:
    """A child made by fork() has none of the reading threads: a reader started in the
    parent says so there rather than wait forever; new readers work in the child."""
    path = write(tmp_path / "f.jsonl", numbered_lines(3000), newline=True)
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(Files([path, path]), threads=2)
    reader = parser.arrow_batches(Files([path, path]), threads=2, batch_rows=10)
    first = reader.read_next_batch()
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            signal.alarm(60)
            code = 0 if parser.to_arrow(Files([path, path]), threads=2).equals(table) else 1
            try:
                reader.read_all()
                code = 2
            except RuntimeError as exc:
                code = code if OPENED_BEFORE_FORK in str(exc) else 4
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status), f"child killed by signal {os.WTERMSIG(status)}"
    assert os.WEXITSTATUS(status) == 0
    assert len(first) + len(reader.read_all()) == len(table)


def test_gzip_files_parallel_rows_equal_serial(tmp_path: Path) -> None:
    """Many gzip files, both backends, 1 and 2 threads: the same table."""
    rust, python = both_backends()
    paths = []
    for k in range(6):
        path = tmp_path / f"{k}.jsonl.gz"
        path.write_bytes(gzip.compress(b"\n".join(openai_lines(150, seed=10 + k))))
        paths.append(path)
    tables = [
        bound("OpenAIResponseParser", backend).to_arrow(Files(paths), threads=threads)
        for backend in (rust, python)
        for threads in (1, 2)
    ]
    for table in tables[1:]:
        assert table.equals(tables[0])


def test_file_names_that_are_not_utf8(make: Any, tmp_path: Path) -> None:
    """A name's bytes that are not UTF-8 are read (`os.fsencode`) and shown as U+FFFD."""
    name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.jsonl")
    with open(name, "wb") as f:
        f.write(b"\n".join(numbered_lines(3)))
    path = os.fsdecode(name)
    write(tmp_path / "empty.jsonl", [])
    table = make.OpenAIResponseParser().to_arrow(Files([path, tmp_path / "empty.jsonl"]))
    assert table.column("file").to_pylist() == [str(tmp_path / "caf\ufffd.jsonl")] * 3


def test_files_takes_directories_and_globs(make: Any, tmp_path: Path) -> None:
    """A directory: its .jsonl, .jsonl.gz and .jsonl.zst files, recursively, sorted,
    hidden (`.`, `_`) names skipped; a glob: its files, sorted; a name that exists is a
    file, even with glob characters. The `file` column names each file found."""
    lines = openai_lines(30)
    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / ".hidden").mkdir()
    found = [
        write(data / "b.jsonl.gz", lines, "gz"),
        write(data / "a.jsonl", lines),
        write(data / "sub" / "c.jsonl.zst", lines, "zst"),
        write(data / "a[1].jsonl", lines),
    ]
    write(data / "notes.txt", lines)
    write(data / "_SUCCESS.jsonl", lines)
    write(data / ".hidden" / "d.jsonl", lines)
    parser = make.OpenAIResponseParser()
    in_order = sorted(str(path) for path in found)
    table = parser.to_arrow(Files([data]))
    assert table.equals(parser.to_arrow(Files(in_order)))
    assert sorted(set(table.column("file").to_pylist())) == in_order
    globbed = parser.to_arrow(Files([f"{data}/*.jsonl*"]))
    assert globbed.equals(parser.to_arrow(Files(sorted(in_order[:3]))))
    literal = parser.to_arrow(Files([data / "a[1].jsonl"]))
    assert set(literal.column("file").to_pylist()) == {str(data / "a[1].jsonl")}
