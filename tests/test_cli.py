"""`toolsift extract` in subprocesses (both backends), and parse_file's memory bound."""

from __future__ import annotations

import argparse
import collections
import errno
import gzip
import inspect
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from toolsift import parsers

SAMPLES = Path(parsers.__file__).resolve().parent.parent / "samples"
OPENAI = SAMPLES / "openai_batch_output.jsonl"
GEMINI = SAMPLES / "gemini_batch_output.jsonl"


def run(impl: str, *args: Any, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    return subprocess.run(
        [sys.executable, "-m", "toolsift", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )


SUMMARY = re.compile(
    r"toolsift: (\d+) records, (\d+) with calls, (\d+) calls, (\d+) undecodable arguments, "
    r"(\d+) failed records; [\d.]+ MB( \([\d.]+ MB of JSON\))? in [\d.]+ s, "
    r"[\d.]+ MB/s( of JSON)?$",
    re.MULTILINE,
)


def summary(stderr: str) -> tuple[int, ...]:
    found = SUMMARY.search(stderr)
    assert found, stderr
    return tuple(int(x) for x in found.groups()[:5])


def expected_summary(make: Any, parser: str, path: Path) -> tuple[int, ...]:
    responses = list(getattr(make, parser)().parse_file(path))
    calls = [c for r in responses for c in r.tool_calls]
    return (
        len(responses),
        sum(1 for r in responses if r.tool_calls),
        len(calls),
        sum(1 for c in calls if c.raw_arguments is not None),
        sum(1 for r in responses if r.error is not None),
    )


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_extract_samples(impl: str, make: Any, tmp_path: Path, suffix: str) -> None:
    for sample, fmt, parser in (
        (OPENAI, "openai", "OpenAIResponseParser"),
        (GEMINI, "gemini", "GeminiResponseParser"),
    ):
        out = tmp_path / f"calls{suffix}"
        done = run(impl, "extract", sample, "--format", fmt, "-o", out)
        assert done.returncode == 0, done.stderr
        assert done.stdout == ""
        assert summary(done.stderr) == expected_summary(make, parser, sample)
        table = getattr(make, parser)().to_arrow(sample)
        if suffix == ".parquet":
            got = pq.read_table(out)
            assert got.equals(table)
        elif suffix == ".csv":
            got = pcsv.read_csv(
                out,
                convert_options=pcsv.ConvertOptions(
                    column_types=table.schema, strings_can_be_null=True
                ),
            )
            assert got.column("record").to_pylist() == table.column("record").to_pylist()
            assert got.column("arguments").to_pylist() == table.column("arguments").to_pylist()
            assert got.column("error").to_pylist() == table.column("error").to_pylist()
        else:
            rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
            want = table.to_pylist()
            for row in want:
                if row["arguments"] is not None:
                    row["arguments"] = json.loads(row["arguments"])
            assert rows == want
        # The sample has everything the issue asks of it.
        counts = summary(done.stderr)
        assert counts[3] > 0 and counts[4] > 0  # malformed arguments, failed records


def test_extract_to_stdout_and_several_inputs(impl: str, make: Any, tmp_path: Path) -> None:
    done = run(impl, "extract", OPENAI, GEMINI, "--format", "openai", "--quiet", "--threads", "1")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # --quiet: no summary
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert {row["file"] for row in rows} == {str(OPENAI), str(GEMINI)}
    openai_rows = [r for r in rows if r["file"] == str(OPENAI)]
    assert len(openai_rows) == make.OpenAIResponseParser().to_arrow(OPENAI).num_rows


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_several_inputs_in_parallel_keep_their_order(
    impl: str, make: Any, tmp_path: Path, threads: str
) -> None:
    """Gzip inputs read up to --threads at once: the rows of `to_arrow(Files(...))`, in
    the order of the inputs, the same whatever the threads; the summary counts all."""
    import pyarrow.parquet as pq
    from toolsift import Files

    inputs = []
    for k in range(5):
        src = tmp_path / f"in-{k}.jsonl.gz"
        src.write_bytes(gzip.compress(OPENAI.read_bytes() * (k + 1)))
        inputs.append(src)
    inputs.append(GEMINI)
    out = tmp_path / "o.parquet"
    done = run(impl, "extract", *inputs, "--format", "openai", "-o", out, "--threads", threads)
    assert done.returncode == 0, done.stderr
    expected = make.OpenAIResponseParser().to_arrow(Files(inputs))
    assert pq.read_table(out).equals(expected)
    # Batches (one or more per input) are gathered into row groups: these rows make one.
    assert pq.ParquetFile(out).metadata.num_row_groups == 1
    assert summary(done.stderr)[:3] == (
        sum(expected_summary(make, "OpenAIResponseParser", p)[0] for p in inputs),
        sum(expected_summary(make, "OpenAIResponseParser", p)[1] for p in inputs),
        expected.column("error").null_count,  # a row per call, and one per failure
    )


def test_a_corrupt_input_among_several_exits_1_naming_it(impl: str, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl.gz"
    good.write_bytes(gzip.compress(OPENAI.read_bytes()))
    cut = tmp_path / "cut.jsonl.gz"
    data = gzip.compress(OPENAI.read_bytes() * 50)
    cut.write_bytes(data[: len(data) // 2])
    out = tmp_path / "o.jsonl"
    done = run(impl, "extract", good, cut, good, "--format", "openai", "-o", out, "--threads", "2")
    assert done.returncode == 1
    one_error_line(done.stderr, f"cannot read {cut}: corrupt or truncated gzip data")
    assert not out.exists()  # a failed run writes nothing


def test_extract_record_path(impl: str, tmp_path: Path) -> None:
    out = tmp_path / "x.parquet"
    done = run(
        impl, "extract", OPENAI, "--format", "openai", "--record-path", "response.body", "-o", out
    )
    assert done.returncode == 0, done.stderr
    table = pq.read_table(out)
    assert table.column("custom_id").null_count == table.num_rows
    assert "nothing at record_path response.body" in table.column("error").to_pylist()


USAGE_ERRORS = pytest.mark.parametrize(
    ("args", "message"),
    [
        (["extract", "missing.jsonl", "--format", "openai"], "no such file: missing.jsonl"),
        (["extract", OPENAI, "--format", "nope"], "choose from 'openai', 'openai-responses'"),
        (["extract", OPENAI, "--format"], "expected one argument"),
        (["extract", OPENAI, "--format", "openai", "-o", "x.txt"], ".parquet, .csv, .jsonl"),
        (["extract", OPENAI, "--format", "openai", "-o", "/no/such/dir/x.csv"], "cannot write"),
        (["extract", OPENAI, "--format", "openai", "--threads", "0"], "positive integer"),
        (["extract", OPENAI, "--format", "openai", "--record-path", ""], "record_path"),
        (["extract", "."], "no .jsonl, .jsonl.gz, .jsonl.zst file in directory: "),
        (["extract", "nothing-*.jsonl"], "no file matches: nothing-*.jsonl"),
        (["extract", "-", "-"], "standard input is named twice (-, -)"),
        (["extract", "-", "/dev/stdin"], "standard input is named twice (-, /dev/stdin)"),
        (["extract", OPENAI, "--max-error-rate", "1.5"], "must be a number from 0 to 1"),
        (["extract", OPENAI, "--max-error-rate", "x"], "must be a number from 0 to 1"),
        (
            ["extract", OPENAI, "--format", "openai", "--name-key", "fn"],
            "--name-key can only be used with --format json (got --format openai)",
        ),
        (
            ["extract", GEMINI, "--format", "gemini", "--tool-calls-key", "a.b", "--single"],
            "--tool-calls-key, --single can only be used with --format json (got --format gemini)",
        ),
        (["extract", OPENAI, "--format", "litert", "--arguments-key", "x"], "--arguments-key"),
        (["extract", OPENAI, "--format", "json", "--name-key"], "expected one argument"),
        # the usage line names the command that was run (not `toolsift toolsift --help`)
        ([], "required: command (see `toolsift --help`)"),
        (["nope"], "invalid choice: 'nope' (choose from 'extract') (see `toolsift --help`)"),
        (["extract"], "(see `toolsift extract --help`)"),
        (["extract", OPENAI, "--format", "nope"], "(see `toolsift extract --help`)"),
    ],
)


@USAGE_ERRORS
def test_usage_errors_exit_2(impl: str, tmp_path: Path, args: list[Any], message: str) -> None:
    if args == ["extract", "."]:
        args = ["extract", str(tmp_path), "--format", "openai"]
    done = run(impl, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("toolsift: error: ")
    assert message in lines[0]


@USAGE_ERRORS
def test_usage_errors_from_main(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, args: list[Any], message: str
) -> None:
    """The same through `main([...])`, whose prog is "toolsift" too."""
    from toolsift.cli import main

    monkeypatch.chdir(tmp_path)
    if args == ["extract", "."]:
        args = ["extract", str(tmp_path), "--format", "openai"]
    assert main([str(arg) for arg in args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("toolsift: error: ")
    assert message in captured.err


CUSTOM_LINES = [
    {
        "result": {
            "calls": [
                {"fn": "f", "params": {"a": 1}},
                {"fn": "g", "params": '{"b": [1, 2]}', "id": "c1"},
            ]
        }
    },
    {"result": {"calls": []}},
    {"result": {}},
    {"tool_calls": [{"name": "f", "arguments": {}}]},  # the default shape: not found here
    {
        "result": {
            "calls": [
                {"name": "nameless", "params": {}},
                {"fn": "h", "params": {"x": "é", "y": None}},
            ]
        }
    },
    {"result": {"calls": [{"fn": "bad", "params": "{not json"}]}},
]
CUSTOM_KEYS = ("--tool-calls-key", "result.calls", "--name-key", "fn", "--arguments-key", "params")


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


def jsonl_rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_extract_json_custom_keys(impl: str, make: Any, tmp_path: Path, suffix: str) -> None:
    src = write_jsonl(tmp_path / "custom.jsonl", CUSTOM_LINES)
    out = tmp_path / f"calls{suffix}"
    done = run(impl, "extract", src, "--format", "json", *CUSTOM_KEYS, "-o", out)
    assert done.returncode == 0, done.stderr
    assert summary(done.stderr) == (6, 3, 4, 1, 0)
    if suffix == ".parquet":
        rows = pq.read_table(out).to_pylist()
        arguments = [row["arguments"] for row in rows]
        # Compact JSON text, as to_arrow writes it.
        assert arguments == ['{"a":1}', '{"b":[1,2]}', '{"x":"é","y":null}', "{}"]
        parser = make.JsonResponseParser(
            tool_calls_key="result.calls", name_key="fn", arguments_key="params"
        )
        assert pq.read_table(out).equals(parser.to_arrow(src))
    else:
        rows = jsonl_rows(out.read_text("utf-8"))
        assert [row["arguments"] for row in rows] == [
            {"a": 1},
            {"b": [1, 2]},
            {"x": "é", "y": None},
            {},
        ]
    assert [(r["record"], r["call_index"], r["name"], r["id"]) for r in rows] == [
        (0, 0, "f", None),
        (0, 1, "g", "c1"),
        (4, 0, "h", None),
        (5, 0, "bad", None),
    ]
    assert [r["raw_arguments"] for r in rows] == [None, None, None, "{not json"]
    assert all(r["error"] is None for r in rows)


def test_extract_json_single(impl: str, tmp_path: Path) -> None:
    src = write_jsonl(
        tmp_path / "single.jsonl",
        [
            {"toolCall": {"fn": "f", "params": {"a": 1}, "id": "x"}},
            {"toolCall": [{"fn": "listed", "params": {}}]},  # a list is not one call object
            {"other": 1},
        ],
    )
    keys = ("--tool-calls-key", "toolCall", "--name-key", "fn", "--arguments-key", "params")
    done = run(impl, "extract", src, "--format", "json", *keys, "--single", "--quiet")
    assert done.returncode == 0, done.stderr
    rows = jsonl_rows(done.stdout)
    assert [(r["record"], r["call_index"], r["name"], r["id"], r["arguments"]) for r in rows] == [
        (0, 0, "f", "x", {"a": 1})
    ]
    # Without --single the path must hold a list.
    done = run(impl, "extract", src, "--format", "json", *keys, "--quiet")
    assert done.returncode == 0, done.stderr
    assert [(r["record"], r["name"]) for r in jsonl_rows(done.stdout)] == [(1, "listed")]


def test_extract_json_defaults_unchanged(impl: str, make: Any, tmp_path: Path) -> None:
    src = write_jsonl(tmp_path / "custom.jsonl", CUSTOM_LINES)
    plain = run(impl, "extract", src, "--format", "json", "-o", tmp_path / "plain.parquet")
    assert plain.returncode == 0, plain.stderr
    table = pq.read_table(tmp_path / "plain.parquet")
    assert table.equals(make.JsonResponseParser().to_arrow(src))
    assert table.column("record").to_pylist() == [3]  # only the default-shaped line
    defaults = inspect.signature(parsers.JsonResponseParser).parameters
    spelled = run(
        impl,
        "extract",
        src,
        "--format",
        "json",
        "--tool-calls-key",
        defaults["tool_calls_key"].default,
        "--name-key",
        defaults["name_key"].default,
        "--arguments-key",
        defaults["arguments_key"].default,
        "-o",
        tmp_path / "spelled.parquet",
    )
    assert spelled.returncode == 0, spelled.stderr
    assert pq.read_table(tmp_path / "spelled.parquet").equals(table)


def test_json_options_default_to_the_class() -> None:
    """The options are not passed unless given, and --help names the class's defaults."""
    from toolsift import cli

    extract = cli._arguments().parse_args(["extract", "x.jsonl", "--format", "json"])
    assert cli._parser_options(extract) == {}
    defaults = inspect.signature(parsers.JsonResponseParser).parameters
    assert set(cli.JSON_OPTIONS) == set(defaults)
    assert defaults["single"].default is False
    subparsers = next(
        a for a in cli._arguments()._actions if isinstance(a, argparse._SubParsersAction)
    )
    helps = {a.dest: a.help for a in subparsers.choices["extract"]._actions}
    for key in ("tool_calls_key", "name_key", "arguments_key"):
        assert f"default: {defaults[key].default}" in str(helps[key])
    given = cli._arguments().parse_args(
        ["extract", "x.jsonl", "--format", "json", "--single", "--name-key", "fn"]
    )
    assert cli._parser_options(given) == {"name_key": "fn", "single": True}


def test_unwritable_output_exits_2(impl: str, tmp_path: Path) -> None:
    if os.geteuid() == 0:
        target = tmp_path / "dir.parquet"
        target.mkdir()  # even root cannot write a file over a directory
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = locked / "x.parquet"
    done = run(impl, "extract", OPENAI, "--format", "openai", "-o", target)
    assert done.returncode == 2
    assert done.stderr.startswith("toolsift: error: cannot write")
    assert len(done.stderr.strip().splitlines()) == 1


def test_one_bad_line_never_stops_the_run(impl: str, tmp_path: Path) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_bytes(b'{"choices": [\n\xff\xfe\n\n{"choices": []}\n' + OPENAI.read_bytes())
    out = tmp_path / "out.parquet"
    done = run(impl, "extract", src, "--format", "openai", "-o", out)
    assert done.returncode == 0, done.stderr
    table = pq.read_table(out)
    assert table.column("record").to_pylist()[:2] == [0, 1]
    assert table.column("error").to_pylist()[0].startswith("unexpected end of input")


def test_corrupt_compressed_input_exits_1(impl: str, tmp_path: Path) -> None:
    import gzip

    src = tmp_path / "cut.jsonl.gz"
    data = gzip.compress(OPENAI.read_bytes())
    src.write_bytes(data[: len(data) // 2])
    done = run(impl, "extract", src, "--format", "openai", "-o", tmp_path / "o.csv")
    assert done.returncode == 1
    assert "cannot read" in done.stderr


# ------------------------------------------------------------------ the output file


def one_error_line(stderr: str, text: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("toolsift: error: ") and text in lines[0], stderr
    assert "Traceback" not in stderr


def leftovers(directory: Path, *keep: Path) -> list[str]:
    """Files in `directory` other than `keep`: temporary files a run left behind."""
    return sorted(p.name for p in directory.iterdir() if p not in keep)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_output_that_is_an_input_is_refused(impl: str, tmp_path: Path, suffix: str) -> None:
    """Nothing is opened for writing: the input is still there, whole (the run used to
    truncate it first, then report 0 records and exit 0)."""
    src = tmp_path / f"in{suffix}"
    src.write_bytes(OPENAI.read_bytes())
    (tmp_path / f"link{suffix}").symlink_to(src.name)
    os.link(src, tmp_path / f"hard{suffix}")
    sub = tmp_path / "sub"
    sub.mkdir()
    for out in (src.name, f"./{src.name}", f"sub/../{src.name}", str(src), f"link{suffix}"):
        for args in ([src.name], [GEMINI, src.name]):
            done = run(impl, "extract", *args, "--format", "openai", "-o", out, cwd=tmp_path)
            assert done.returncode == 2, (out, done.stderr)
            one_error_line(done.stderr, f"the output {out} is also an input ({src.name})")
    done = run(impl, "extract", str(src), "--format", "openai", "-o", f"hard{suffix}", cwd=tmp_path)
    assert done.returncode == 2
    one_error_line(done.stderr, f"the output hard{suffix} is also an input")
    assert src.read_bytes() == OPENAI.read_bytes()
    assert leftovers(tmp_path) == sorted(["hard" + suffix, "in" + suffix, "link" + suffix, "sub"])


def test_stdout_that_is_an_input_is_refused(impl: str, tmp_path: Path) -> None:
    """`>> in.jsonl` would read what it writes, without end."""
    src = tmp_path / "in.jsonl"
    src.write_bytes(OPENAI.read_bytes())
    with src.open("ab") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "toolsift", "extract", str(src), "--format", "openai"],
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
            timeout=300,
            check=False,
        )
    assert done.returncode == 2
    one_error_line(done.stderr, "the output stdout is also an input")
    assert src.read_bytes() == OPENAI.read_bytes()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_failed_run_keeps_the_previous_output(impl: str, tmp_path: Path, suffix: str) -> None:
    """Corrupt input (exit 1) after rows were written: the output from before is left as it
    was, and the temporary file is gone."""
    import gzip

    src = tmp_path / "cut.jsonl.gz"
    data = gzip.compress(OPENAI.read_bytes() * 20)
    src.write_bytes(data[: len(data) * 3 // 4])
    out = tmp_path / f"calls{suffix}"
    out.write_bytes(b"the previous output\n")
    done = run(impl, "extract", src, "--format", "openai", "-o", out, "--threads", "1")
    assert done.returncode == 1, done.stderr
    one_error_line(done.stderr, f"cannot read {src}")
    assert out.read_bytes() == b"the previous output\n"
    assert leftovers(tmp_path, src, out) == []
    # Nor is a new output made.
    fresh = tmp_path / f"new{suffix}"
    done = run(impl, "extract", src, "--format", "openai", "-o", fresh)
    assert done.returncode == 1
    assert leftovers(tmp_path, src, out) == []


def test_output_modes_and_links(impl: str, tmp_path: Path) -> None:
    """A new file gets 0o666 less the umask (as `open` gives); a file replaced keeps its
    mode; a symlink stays a symlink, and the file it names gets the output."""
    umask = os.umask(0)
    os.umask(umask)
    new = tmp_path / "new.jsonl"
    assert run(impl, "extract", OPENAI, "--format", "openai", "-o", new).returncode == 0
    assert new.stat().st_mode & 0o777 == 0o666 & ~umask
    kept = tmp_path / "kept.csv"
    kept.write_bytes(b"old")
    kept.chmod(0o640)
    assert run(impl, "extract", OPENAI, "--format", "openai", "-o", kept).returncode == 0
    assert kept.stat().st_mode & 0o777 == 0o640 and kept.read_bytes() != b"old"
    target = tmp_path / "target.parquet"
    link = tmp_path / "link.parquet"
    link.symlink_to(target.name)  # dangling: the file is made where it points
    assert run(impl, "extract", OPENAI, "--format", "openai", "-o", link).returncode == 0
    assert link.is_symlink() and pq.read_table(target).num_rows > 0
    assert leftovers(tmp_path, new, kept, target, link) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_read_only_output_is_not_replaced(impl: str, tmp_path: Path) -> None:
    """A file that `open` could not write is not replaced either (the directory could)."""
    out = tmp_path / "calls.jsonl"
    out.write_bytes(b"keep")
    out.chmod(0o444)
    done = run(impl, "extract", OPENAI, "--format", "openai", "-o", out)
    assert done.returncode == 2
    one_error_line(done.stderr, f"cannot write {out}: {os.strerror(errno.EACCES)}")
    assert out.read_bytes() == b"keep"
    assert leftovers(tmp_path, out) == []


def test_full_disk_on_stdout_exits_2(impl: str) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "toolsift", "extract", str(OPENAI), "--format", "openai"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
            timeout=300,
            check=False,
        )
    assert done.returncode == 2
    one_error_line(done.stderr, f"cannot write to stdout: {os.strerror(errno.ENOSPC)}")


def _file_size_limit(limit: int) -> Callable[[], None]:
    def set_limit() -> None:  # in the child, before it runs
        import resource

        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return set_limit


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_output_file_that_cannot_grow_exits_2(impl: str, tmp_path: Path, suffix: str) -> None:
    """Writes that fail part way (here: beyond RLIMIT_FSIZE, as on a full disk) end in one
    line and exit 2, the previous output kept and the temporary file removed."""
    src = tmp_path / "big.jsonl"
    src.write_bytes(OPENAI.read_bytes() * 5)
    out = tmp_path / f"calls{suffix}"
    out.write_bytes(b"the previous output\n")
    done = subprocess.run(
        [sys.executable, "-m", "toolsift", "extract", str(src), "--format", "openai", "-o", out],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        preexec_fn=_file_size_limit(8192),
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    one_error_line(done.stderr, f"cannot write {out}")
    assert out.read_bytes() == b"the previous output\n"
    assert leftovers(tmp_path, src, out) == []


def test_broken_pipe_exits_quietly(impl: str, tmp_path: Path) -> None:
    """`toolsift extract ... | head -1`: no message (it was `cannot read INPUT: Broken
    pipe`), exit 0, with and without --quiet."""
    src = tmp_path / "big.jsonl"
    src.write_bytes(OPENAI.read_bytes() * 30)  # far more output than a pipe holds
    for extra in ([], ["--quiet"], ["--threads", "1"]):
        child = subprocess.Popen(
            [sys.executable, "-m", "toolsift", "extract", str(src), "--format", "openai", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        )
        assert child.stdout is not None and child.stderr is not None
        assert json.loads(child.stdout.readline())["record"] == 0
        child.stdout.close()
        stderr = child.stderr.read()
        assert child.wait(timeout=300) == 0, stderr
        assert stderr == b"", stderr


# In-process, through main(): failures injected where the output is written.


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Runs main() in tmp_path, with an output from before."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "calls.jsonl"
    out.write_bytes(b"the previous output\n")
    return out


def failing_write(error: BaseException) -> Callable[..., None]:
    def write(self: Any, batch: Any) -> None:
        raise error

    return write


@pytest.mark.parametrize("threads", ["1", "2"])
def test_full_disk_through_main(
    in_process: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, threads: str
) -> None:
    from toolsift import cli

    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(cli._JsonlWriter, "write", failing_write(full))
    args = ["extract", str(OPENAI), "--format", "openai", "--threads", threads]
    assert cli.main([*args, "-o", in_process.name]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"toolsift: error: cannot write calls.jsonl: {full.strerror}\n"
    assert in_process.read_bytes() == b"the previous output\n"
    assert leftovers(in_process.parent, in_process) == []
    # Closing the file writes its last bytes: a failure there is the same error.
    monkeypatch.undo()
    monkeypatch.chdir(in_process.parent)

    def close(self: Any) -> None:
        raise full

    monkeypatch.setattr(cli._JsonlWriter, "close", close)
    assert cli.main([*args, "-o", in_process.name]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert in_process.read_bytes() == b"the previous output\n"


@pytest.mark.parametrize("threads", ["1", "2"])
def test_broken_pipe_in_the_writer_thread_through_main(
    monkeypatch: pytest.MonkeyPatch, capsys: Any, tmp_path: Path, threads: str
) -> None:
    """The writer thread's BrokenPipeError ends the run as the main thread's does, also
    when it is seen while the input is still being read (it was `cannot read INPUT`)."""
    from toolsift import cli

    src = tmp_path / "big.jsonl"
    src.write_bytes(OPENAI.read_bytes() * 40)  # many batches: the error comes mid-run
    silenced = []
    monkeypatch.setattr(cli.run, "_silence_stdout", lambda: silenced.append(True))
    monkeypatch.setattr(cli._JsonlWriter, "write", failing_write(BrokenPipeError(32, "x")))
    assert cli.main(["extract", str(src), "--format", "openai", "--threads", threads]) == 0
    assert capsys.readouterr().err == ""
    assert silenced == [True]


@pytest.mark.parametrize("limit", ["ROW_GROUP_ROWS", "ROW_GROUP_BYTES"])
def test_parquet_row_groups_gather_batches(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, limit: str
) -> None:
    """Batches are gathered into row groups until one reaches `ROW_GROUP_ROWS` rows or
    `ROW_GROUP_BYTES` bytes: every row kept, in order, and no group past the limit by
    more than the batch that reached it."""
    from toolsift import _bulk, cli

    src = tmp_path / "big.jsonl"
    src.write_bytes(OPENAI.read_bytes() * 40)
    batches = list(_bulk.stream(parsers.OpenAIResponseParser()._core, str(src), None, None, False))
    largest = max(batch.num_rows for batch in batches)
    # Past any one batch: a group holds two or more.
    if limit == "ROW_GROUP_ROWS":
        size = largest + 1
    else:
        size = max(batch.nbytes for batch in batches) + 1
    monkeypatch.setattr(cli.writers, limit, size)
    out = tmp_path / "o.parquet"
    assert cli.main(["extract", str(src), "--format", "openai", "--quiet", "-o", str(out)]) == 0
    assert pq.read_table(out).equals(parsers.OpenAIResponseParser().to_arrow(src))
    meta = pq.ParquetFile(out).metadata
    groups = [meta.row_group(k).num_rows for k in range(meta.num_row_groups)]
    assert 1 < len(groups) < len(batches)
    if limit == "ROW_GROUP_ROWS":
        for rows in groups[:-1]:  # the last holds what was left
            assert size <= rows < size + largest


def test_interrupted_run_keeps_the_previous_output(
    in_process: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    """Ctrl-C after some rows were written: exit 130, the output from before kept."""
    from toolsift import _bulk, cli

    batches = _bulk.BatchStream._batches

    def interrupted(self: Any) -> Any:
        for batch in batches(self):
            yield batch
            raise KeyboardInterrupt

    monkeypatch.setattr(_bulk.BatchStream, "_batches", interrupted)
    for out in (in_process.name, "new.parquet"):
        assert cli.main(["extract", str(OPENAI), "--format", "openai", "-o", out]) == 130
        assert capsys.readouterr().err == "toolsift: interrupted\n"
    assert in_process.read_bytes() == b"the previous output\n"
    assert leftovers(in_process.parent, in_process) == []
    # Not waited for, the writing and reading threads still end (the writer's waited
    # for a batch forever, and held the interpreter at exit).
    for thread in threading.enumerate():
        if thread.name in ("toolsift-writer", "toolsift-arrow"):
            thread.join(timeout=60)
            assert not thread.is_alive(), thread.name


def test_summary_line() -> None:
    from toolsift.cli import _summary

    counts = {
        "records": 3,
        "records_with_calls": 2,
        "calls": 5,
        "undecodable_arguments": 1,
        "failed": 0,
    }
    head = "toolsift: 3 records, 2 with calls, 5 calls, 1 undecodable arguments, 0 failed records"
    assert _summary(counts, 12_300_000, 12_300_000, 0.5) == f"{head}; 12.3 MB in 0.50 s, 24.6 MB/s"
    assert (
        _summary(counts, 12_300_000, 41_000_000, 0.5)
        == f"{head}; 12.3 MB (41.0 MB of JSON) in 0.50 s, 82.0 MB/s of JSON"
    )


def test_summary_of_compressed_input(impl: str, make: Any, tmp_path: Path) -> None:
    """MB of the files, and for compressed input the MB of JSON text they held (where the
    backend counts it; else the file size alone, as before)."""
    import gzip

    from toolsift import _bulk

    text = OPENAI.read_bytes() * 10
    src = tmp_path / "in.jsonl.gz"
    src.write_bytes(gzip.compress(text))
    done = run(impl, "extract", src, OPENAI, "--format", "openai", "-o", tmp_path / "o.parquet")
    assert done.returncode == 0, done.stderr
    line = done.stderr.strip()
    files_mb = (src.stat().st_size + OPENAI.stat().st_size) / 1e6
    rows = _bulk.stream(make.OpenAIResponseParser()._core, src, None, 1, False)
    for _ in rows:
        pass
    found = rows.counts
    if "text_bytes" in found:
        json_mb = (len(text) + OPENAI.stat().st_size) / 1e6
        assert f"; {files_mb:.1f} MB ({json_mb:.1f} MB of JSON) in " in line
        assert line.endswith(" MB/s of JSON")
    else:
        assert impl == "rust"  # the pure backend counts it
        assert f"; {files_mb:.1f} MB in " in line and line.endswith(" MB/s")
    plain = run(impl, "extract", OPENAI, "--format", "openai", "-o", tmp_path / "p.parquet")
    assert f"; {OPENAI.stat().st_size / 1e6:.1f} MB in " in plain.stderr
    assert "of JSON" not in plain.stderr


def test_main_module_and_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolsift", "extract", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "--record-path" in done.stdout
    for option in ("--tool-calls-key", "--name-key", "--arguments-key", "--single"):
        assert option in done.stdout


# ------------------------------------------------------------------ memory

PEAK_SCRIPT = Path(__file__).with_name("parse_file_peak.py")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux /proc")
def test_parse_file_memory_is_bounded(impl: str, tmp_path: Path) -> None:
    """Peak RSS while iterating over a 256 MB file grows by far less than the file."""
    lines = OPENAI.read_bytes().splitlines(keepends=True)
    block = b"".join(lines[:200])
    path = tmp_path / "big.jsonl"
    size = 256 << 20
    with path.open("wb") as f:
        written = 0
        while written < size:
            f.write(block)
            written += len(block)
    done = subprocess.run(
        [sys.executable, str(PEAK_SCRIPT), str(path), impl],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    fields = done.stdout.split()  # records calls seconds peak_kib_before peak_kib_after
    n, calls, before_kb, after_kb = (int(fields[i]) for i in (0, 1, 3, 4))
    assert n > 200_000 and calls > 0
    growth = (after_kb - before_kb) * 1024
    assert growth < 150 << 20, f"peak RSS grew by {growth >> 20} MiB over a {size >> 20} MiB file"


NO_PYARROW = r"""
import sys
sys.modules["pyarrow"] = None  # as if it were not installed
import toolsift
from toolsift.parsers import OpenAIResponseParser
parser = OpenAIResponseParser()
assert parser.parse('{"choices": []}').tool_calls == []
assert len(list(parser.parse_file(sys.argv[1]))) > 0
try:
    parser.to_arrow(['{"choices": []}'])
except ImportError as exc:
    print(exc)
"""


def test_pyarrow_is_optional(impl: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", NO_PYARROW, str(OPENAI)],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'toolsift[arrow]'" in done.stdout
    cli = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['pyarrow'] = None; "
         "from toolsift.cli import main; sys.exit(main(sys.argv[1:]))",
         "extract", str(OPENAI), "--format", "openai", "-o", str(tmp_path / "o.parquet")],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        check=False,
    )  # fmt: skip
    assert cli.returncode == 2
    assert "toolsift[cli]" in cli.stderr


def test_standard_input_and_max_line_bytes(impl: str, tmp_path: Path) -> None:
    """`-` reads standard input (gzip detected by content, as for files); a line longer
    than --max-line-bytes is one failed record."""
    data = OPENAI.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "toolsift", "extract", "-", "--format", "openai"],
        input=gzip.compress(data),
        capture_output=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    from_file = run(impl, "extract", OPENAI, "--format", "openai", "--quiet")
    assert done.stdout.decode() == from_file.stdout
    longest = max(len(line) for line in data.splitlines())
    done = run(impl, "extract", OPENAI, "--format", "openai", "--max-line-bytes", longest - 1)
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert f"line longer than {longest - 1} bytes" in {row["error"] for row in rows}
    assert run(impl, "extract", OPENAI, "--format", "openai", "--max-line-bytes", 0).returncode == 2


def test_events_given_alone_are_recognized_by_auto(impl: str, tmp_path: Path) -> None:
    """A log of `response.completed` events alone: auto reads each as a stream of that one
    event, and a named format that finds no calls says what the lines look like."""
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    lines = []
    for i in range(3):
        response = {"id": f"resp_{i}", "object": "response", "status": "completed"}
        response["output"] = [{**item, "arguments": json.dumps({"city": f"c{i}"})}]
        lines.append(json.dumps({"type": "response.completed", "response": response}))
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    rows = [json.loads(line) for line in run(impl, "extract", path, "--quiet").stdout.splitlines()]
    assert [(r["format"], r["arguments"]) for r in rows] == [
        ("openai-responses", {"city": f"c{i}"}) for i in range(3)
    ]
    done = run(impl, "extract", path, "--format", "gemini", "--quiet")
    assert done.stderr == (
        "toolsift: warning: --format gemini found no calls in 3 records; "
        "they look like openai-responses (use --format auto)\n"
    )


def test_responses_inside_strings_are_recognized(impl: str, tmp_path: Path) -> None:
    """Lines that are JSON strings holding responses: read by auto, and named in the note
    of a named format that finds no calls."""
    body = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"index": 0,
            "message": {"role": "assistant", "tool_calls": [{"id": "call_1", "type":
            "function", "function": {"name": "f", "arguments": "{}"}}]}}]}  # fmt: skip
    path = tmp_path / "strings.jsonl"
    path.write_text(json.dumps(json.dumps(body)) + "\n")
    rows = [json.loads(line) for line in run(impl, "extract", path, "--quiet").stdout.splitlines()]
    assert [(r["format"], r["name"]) for r in rows] == [("openai", "f")]
    done = run(impl, "extract", path, "--format", "gemini", "--quiet")
    assert done.stderr == (
        "toolsift: warning: --format gemini found no calls in 1 records; "
        "they look like openai (use --format auto)\n"
    )


def test_a_named_format_that_finds_nothing_says_so(impl: str) -> None:
    """`--format gemini` on OpenAI Batch output: one line saying what the lines look like;
    the default (auto) reads them."""
    done = run(impl, "extract", OPENAI, "--format", "gemini", "--quiet")
    assert done.returncode == 0
    records = len([line for line in OPENAI.read_text().splitlines() if line.strip()])
    failed = summary(run(impl, "extract", OPENAI, "--format", "openai").stderr)[4]
    assert done.stderr == (
        f"toolsift: warning: --format gemini found no calls in {records - failed} records; "
        "they look like openai (use --format auto)\n"
    )
    auto = run(impl, "extract", OPENAI, "--quiet")
    assert (
        auto.stderr == ""
        and auto.stdout == run(impl, "extract", OPENAI, "--format", "openai", "--quiet").stdout
    )


# ------------------------------------------------------------------ issue 37: the CLI

VECTORS = Path(__file__).with_name("vectors")


def vector(name: str, index: int = 0) -> dict[str, Any]:
    cases: list[dict[str, Any]] = json.loads((VECTORS / f"{name}.json").read_text("utf-8"))
    return cases[index]


def run_with(impl: str, *args: Any, **popen: Any) -> subprocess.CompletedProcess[str]:
    """`toolsift ARGS` with standard input (and more) as given."""
    return subprocess.run(
        [sys.executable, "-m", "toolsift", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        timeout=300,
        check=False,
        **popen,
    )


def test_standard_input_that_is_the_output_is_refused(impl: str, tmp_path: Path) -> None:
    """`extract - -o x.jsonl < x.jsonl` truncated its input and exited 0; `- < x.jsonl
    >> x.jsonl` would read what it writes."""
    src = tmp_path / "x.jsonl"
    src.write_bytes(OPENAI.read_bytes())
    with src.open("rb") as stdin:
        done = run_with(impl, "extract", "-", "-o", src, stdin=stdin)
    assert done.returncode == 2
    one_error_line(done.stderr, f"the output {src} is also an input (-)")
    with src.open("rb") as stdin, src.open("ab") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "toolsift", "extract", "-"],
            stdin=stdin,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
            timeout=300,
            check=False,
        )
    assert done.returncode == 2
    one_error_line(done.stderr, "the output stdout is also an input (-)")
    assert src.read_bytes() == OPENAI.read_bytes()
    assert leftovers(tmp_path, src) == []


def test_one_pipe_named_twice_is_refused(impl: str, tmp_path: Path) -> None:
    """Two readers of one pipe tear its lines: standard input or a FIFO named twice is a
    usage error (a regular file named twice is read twice)."""
    for args in (["-", "-"], ["-", "/dev/stdin"], ["/dev/stdin", "-"]):
        done = run_with(impl, "extract", *args, input="")
        assert done.returncode == 2
        one_error_line(done.stderr, "standard input is named twice")
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    done = run_with(impl, "extract", fifo, fifo, "--quiet")
    assert done.returncode == 2
    one_error_line(done.stderr, f"{fifo} and {fifo} are one pipe or FIFO")
    done = run_with(impl, "extract", OPENAI, OPENAI, "--quiet")
    assert done.returncode == 0 and done.stderr == ""


def stream_lines_of(case: dict[str, Any]) -> list[str]:
    return [json.dumps(event) for event in case["events"]]


@pytest.mark.parametrize("mode", ["--stream", "--stream-lines"])
def test_a_line_too_long_in_stream_modes_is_a_failed_record(
    impl: str, tmp_path: Path, mode: str
) -> None:
    """It disappeared ("0 records, 0 failed"); now its record says why, as without the
    flag."""
    events = vector("openai.stream")["events"]
    short = json.dumps(events[:1])
    long = json.dumps(events)
    if mode == "--stream":
        lines = [short, long, short]
    else:
        lines = [json.dumps(events[0]), json.dumps({**events[1], "id": "x" * 4000})]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    limit = len(short) + 10 if mode == "--stream" else 1000
    done = run(impl, "extract", path, mode, "--max-line-bytes", limit)
    assert done.returncode == 0, done.stderr
    rows = jsonl_rows(done.stdout)
    error = f"line longer than {limit} bytes"
    assert [(row["record"], row["error"]) for row in rows if row["error"]] == [(1, error)]
    assert summary(done.stderr)[0] == (3 if mode == "--stream" else 2)
    assert summary(done.stderr)[4] == 1


WHOLE_RESPONSES = [("openai", 0), ("anthropic", 0), ("openai-responses", 0), ("bedrock", 0)]


def test_stream_lines_reads_a_whole_response_as_one(impl: str, tmp_path: Path) -> None:
    """An OpenAI chat.completion, an Anthropic message, a Responses API response and a
    Bedrock response among stream lines: each a record of its own with its calls (it was
    read as a stream of one event: no row, or `unrecognized response shape`)."""
    stream = vector("openai.stream")
    responses = [vector(name, index) for name, index in WHOLE_RESPONSES]
    lines = [json.dumps(case["input"]) for case in responses] + stream_lines_of(stream)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    for flags in ([], ["--format", "openai"]):
        done = run(impl, "extract", path, "--stream-lines", "--quiet", *flags)
        assert done.returncode == 0, done.stderr
        rows = jsonl_rows(done.stdout)
        if flags:  # a named format: only its own responses hold calls it reads
            responses_read = [(0, responses[0])]
        else:
            responses_read = list(enumerate(responses))
        want = [
            (record, case["parser"], call["name"], call["arguments"])
            for record, case in responses_read
            for call in case["calls"]
        ]
        want += [(len(responses), "openai", c["name"], c["arguments"]) for c in stream["calls"]]
        got = [(r["record"], r["format"], r["name"], r["arguments"]) for r in rows if r["name"]]
        assert got == want
        assert not [row for row in rows if row["error"]] or flags


@pytest.mark.parametrize("mode", [[], ["--stream"], ["--stream-lines"]])
def test_closed_stdout_is_one_error_line(impl: str, mode: list[str]) -> None:
    """`toolsift extract f.jsonl >&-` ended in a traceback ('NoneType' object has no
    attribute 'buffer'): one line and exit 2, as for a full disk."""
    assert run(impl, "extract", OPENAI, *mode, "--quiet").returncode == 0  # stdout open
    closed = subprocess.run(
        [sys.executable, "-m", "toolsift", "extract", str(OPENAI), *mode],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        preexec_fn=lambda: os.close(1),  # the child starts with no stdout
        timeout=300,
        check=False,
    )
    assert closed.returncode == 2
    one_error_line(closed.stderr, "cannot write to stdout: Bad file descriptor")


def started_on_idle_fifo(
    impl: str, tmp_path: Path, *args: Any
) -> tuple[subprocess.Popen[bytes], int]:
    """`toolsift extract FIFO ARGS`, its FIFO's writer open (this process) and idle after
    one line: the run waits in a read."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    child = subprocess.Popen(
        [sys.executable, "-m", "toolsift", "extract", str(fifo), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        cwd=tmp_path,
    )
    writer = os.open(fifo, os.O_WRONLY)  # waits for the child to open it
    os.write(writer, OPENAI.read_bytes().splitlines(keepends=True)[0])
    return child, writer


@pytest.mark.parametrize("mode", [[], ["--stream"], ["--threads", "1"]])
def test_ctrl_c_while_waiting_on_an_idle_fifo(impl: str, tmp_path: Path, mode: list[str]) -> None:
    """SIGINT was held until data or EOF came (the reading thread was joined while it
    waited in a read): now 130 at once. (The timeout only catches the hang.)"""
    import signal
    import time

    child, writer = started_on_idle_fifo(impl, tmp_path, *mode)
    try:
        time.sleep(1)  # let it reach the read
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=60)
    finally:
        os.close(writer)
        child.kill()
    assert child.returncode == 130
    assert stderr.decode() == "toolsift: interrupted\n"


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_removes_the_temporary_output(impl: str, tmp_path: Path, signame: str) -> None:
    """SIGTERM and SIGHUP left `.o.parquet.XXXX.tmp` beside the output: now they end the
    run as Ctrl-C does (the previous output stays, the temporary file goes), with exit
    status 128 + the signal's number."""
    import signal
    import time

    out = tmp_path / "o.parquet"
    out.write_bytes(b"the previous output")
    child, writer = started_on_idle_fifo(impl, tmp_path, "-o", out, "--quiet")
    try:
        while not [p for p in tmp_path.iterdir() if p.name.startswith(".o.parquet.")]:
            assert child.poll() is None
            time.sleep(0.05)
        time.sleep(0.5)  # let it reach the read
        signum = getattr(signal, signame)
        child.send_signal(signum)
        _, stderr = child.communicate(timeout=60)
    finally:
        os.close(writer)
        child.kill()
    assert child.returncode == 128 + signum
    if signame == "SIGINT":
        assert stderr.decode() == "toolsift: interrupted\n"
    else:
        assert stderr.decode() == f"toolsift: stopped by {signame}\n"
    assert out.read_bytes() == b"the previous output"
    assert leftovers(tmp_path, out) == ["in.fifo"]


def test_stream_records_are_line_numbers(impl: str, tmp_path: Path) -> None:
    """`--stream`: stream, blank, blank, stream gave records 0 and 1; `record` is the
    line number, as everywhere."""
    case = vector("openai.stream")
    line = json.dumps(case["events"])
    path = tmp_path / "s.jsonl"
    path.write_text(f"{line}\n\n  \n{line}\n")
    rows = jsonl_rows(run(impl, "extract", path, "--stream", "--quiet").stdout)
    assert [row["record"] for row in rows] == [0] * len(case["calls"]) + [3] * len(case["calls"])
    assert [row["record"] for row in jsonl_rows(run(impl, "extract", path, "--quiet").stdout)] == [
        row["record"] for row in rows
    ]


def test_stream_with_a_record_path(impl: str, tmp_path: Path) -> None:
    """`--stream --record-path events` failed every record (`nothing at record_path
    events`): the path is applied to the line as written."""
    case = vector("openai.stream")
    transcript = "".join(f"data: {json.dumps(e)}\n\n" for e in case["events"])
    path = write_jsonl(
        tmp_path / "s.jsonl",
        [{"events": case["events"]}, {"events": transcript}, {"other": 1}],
    )
    done = run(impl, "extract", path, "--stream", "--record-path", "events", "--quiet")
    rows = jsonl_rows(done.stdout)
    names = [c["name"] for c in case["calls"]]
    assert [(r["record"], r["name"]) for r in rows] == [
        *[(0, n) for n in names],
        *[(1, n) for n in names],
        (2, None),
    ]
    assert rows[-1]["error"] == "nothing at record_path events"


def test_most_records_failed_is_said_and_can_fail_the_run(impl: str, tmp_path: Path) -> None:
    """A wrong --record-path failed every record and exited 0 without a word: a warning
    (even with --quiet) naming the most common error; --fail-on-error and
    --max-error-rate make such a run exit 1 (the output written all the same)."""
    records = len([line for line in OPENAI.read_text().splitlines() if line.strip()])
    done = run(impl, "extract", OPENAI, "--record-path", "nope", "--quiet")
    assert done.returncode == 0
    errors = collections.Counter(row["error"] for row in jsonl_rows(done.stdout))
    assert sum(errors.values()) == records  # one line is no JSON: another error
    assert done.stderr == (
        f"toolsift: warning: {records} of {records} records failed; the most common error "
        f"({errors['nothing at record_path nope']} records): nothing at record_path nope\n"
    )
    out = tmp_path / "o.jsonl"
    done = run(impl, "extract", OPENAI, "--record-path", "nope", "--fail-on-error", "-o", out)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        f"toolsift: error: {records} of {records} records failed (--fail-on-error)"
    )
    assert len(out.read_text().splitlines()) == records
    # The sample: a few failed records, far fewer than half.
    failed = summary(run(impl, "extract", OPENAI).stderr)[4]
    assert 0 < failed * 2 < records
    assert run(impl, "extract", OPENAI, "--quiet").stderr == ""
    assert run(impl, "extract", OPENAI, "--quiet", "--fail-on-error").returncode == 1
    rate = failed / records
    for limit, status in ((rate, 0), (rate * 0.99, 1), (1, 0), (0, 1)):
        done = run(impl, "extract", OPENAI, "--quiet", "--max-error-rate", limit)
        assert done.returncode == status, (limit, done.stderr)
        if status:
            assert done.stderr == (
                f"toolsift: error: {failed} of {records} records failed, more than "
                f"--max-error-rate {limit:g}\n"
            )
    clean = write_jsonl(tmp_path / "clean.jsonl", [vector("openai")["input"]])
    assert run(impl, "extract", clean, "--fail-on-error", "--max-error-rate", 0).returncode == 0


def test_directories_and_globs_as_inputs(impl: str, make: Any, tmp_path: Path) -> None:
    """A directory: its .jsonl, .jsonl.gz and .jsonl.zst files (sorted, recursively);
    a glob: its files (sorted); the rows of `to_arrow(Files(...))`, `file` naming each."""
    from toolsift import Files

    data = tmp_path / "data"
    (data / "sub").mkdir(parents=True)
    (data / "b.jsonl.gz").write_bytes(gzip.compress(OPENAI.read_bytes()))
    (data / "a.jsonl").write_bytes(OPENAI.read_bytes())
    (data / "sub" / "c.jsonl").write_bytes(GEMINI.read_bytes())
    (data / "README.txt").write_text("not data")
    files = [str(data / "a.jsonl"), str(data / "b.jsonl.gz"), str(data / "sub" / "c.jsonl")]
    expected = make.AutoResponseParser().to_arrow(Files(files))
    for given, want in (([data], files), ([f"{data}/*.jsonl*"], files[:2])):
        out = tmp_path / "o.parquet"
        done = run(impl, "extract", *given, "-o", out)
        assert done.returncode == 0, done.stderr
        table = pq.read_table(out)
        assert table.equals(make.AutoResponseParser().to_arrow(Files(want)))
    assert pq.read_table(out).num_rows < expected.num_rows
    # One directory of one file still names it.
    one = tmp_path / "one"
    one.mkdir()
    (one / "x.jsonl").write_bytes(OPENAI.read_bytes())
    rows = jsonl_rows(run(impl, "extract", one, "--quiet").stdout)
    assert {row["file"] for row in rows} == {str(one / "x.jsonl")}


def test_version_and_help_examples() -> None:
    """`toolsift --version`: the version and the active backend; `extract --help` ends
    with three examples and the output columns (the exit statuses before them)."""
    import toolsift
    from toolsift import _bulk, cli

    for impl in ("rust", "python"):
        done = run(impl, "--version")
        assert done.returncode == 0
        assert done.stdout == f"toolsift {toolsift.__version__} ({impl})\n"
    assert tuple(cli.COLUMN_HELP) == ("file", *_bulk.COLUMNS)
    done = run("python", "extract", "--help")
    assert done.returncode == 0
    tail = done.stdout[done.stdout.index("examples:") :]
    examples = tail.split("\n\n")[0].splitlines()[1:]
    assert len(examples) == 3 and all("toolsift extract " in line for line in examples)
    for name in cli.COLUMN_HELP:
        assert f"\n  {name} " in tail
    assert f"  error          {cli.COLUMN_HELP['error']}\n" in tail
    last = list(cli.COLUMN_HELP)[-1]
    assert tail.endswith(f"  {last:<14} {cli.COLUMN_HELP[last]}\n")
    assert "128+N ended by signal N" in done.stdout
