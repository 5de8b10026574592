"""`toolsift extract` in subprocesses (both backends), and parse_file's memory bound."""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import subprocess
import sys
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
    r"(\d+) failed records; [\d.]+ MB in [\d.]+ s, [\d.]+ MB/s"
)


def summary(stderr: str) -> tuple[int, ...]:
    found = SUMMARY.search(stderr)
    assert found, stderr
    return tuple(int(x) for x in found.groups())


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


def test_extract_record_path(impl: str, tmp_path: Path) -> None:
    out = tmp_path / "x.parquet"
    done = run(
        impl, "extract", OPENAI, "--format", "openai", "--record-path", "response.body", "-o", out
    )
    assert done.returncode == 0, done.stderr
    table = pq.read_table(out)
    assert table.column("custom_id").null_count == table.num_rows
    assert "nothing at record_path response.body" in table.column("error").to_pylist()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["extract", "missing.jsonl", "--format", "openai"], "no such file: missing.jsonl"),
        (["extract", OPENAI, "--format", "nope"], "choose from 'openai', 'gemini', 'json'"),
        (["extract", OPENAI], "--format"),
        (["extract", OPENAI, "--format", "openai", "-o", "x.txt"], ".parquet, .csv, .jsonl"),
        (["extract", OPENAI, "--format", "openai", "-o", "/no/such/dir/x.csv"], "cannot write"),
        (["extract", OPENAI, "--format", "openai", "--threads", "0"], "positive integer"),
        (["extract", OPENAI, "--format", "openai", "--record-path", ""], "record_path"),
        (["extract", "."], "is a directory"),
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
    ],
)
def test_usage_errors_exit_2(impl: str, tmp_path: Path, args: list[Any], message: str) -> None:
    if args == ["extract", "."]:
        args = ["extract", str(tmp_path), "--format", "openai"]
    done = run(impl, *args, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("toolsift: error: ")
    assert message in lines[0]


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


def test_pyarrow_is_optional(impl: str) -> None:
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
         "extract", str(OPENAI), "--format", "openai"],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
        check=False,
    )  # fmt: skip
    assert cli.returncode == 2
    assert "toolsift[cli]" in cli.stderr
