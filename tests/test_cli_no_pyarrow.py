"""`toolsift extract` after a plain `pip install toolsift` (issue 42 item 4): JSONL and CSV
without pyarrow, byte for byte what the run with pyarrow writes; Parquet refused with an
error naming the `[cli]` extra.

pyarrow is installed in the test environment, so each run without it is a child process
whose `sitecustomize` puts a finder first on `sys.meta_path` that refuses `pyarrow` and
its submodules (ModuleNotFoundError, as when it is not installed): the child runs the
real `python -m toolsift`, and anything that would import pyarrow, directly or through
another package, fails as it would without it. (A fresh venv without pyarrow would need
a built wheel, which a test run does not have: building one takes minutes of Rust.)
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from toolsift import parsers

SAMPLES = Path(parsers.__file__).resolve().parent.parent / "samples"
OPENAI = SAMPLES / "openai_batch_output.jsonl"
GEMINI = SAMPLES / "gemini_batch_output.jsonl"
VECTORS = Path(__file__).with_name("vectors")

BLOCKER = """
import importlib.abc, sys

class _NoPyarrow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, _NoPyarrow())
"""


@pytest.fixture(scope="module")
def blocker(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("no_pyarrow")
    (where / "sitecustomize.py").write_text(BLOCKER)
    return where


def run(impl: str, args: list[Any], blocked: Path | None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    if blocked is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(blocked), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "toolsift", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


COUNTS = re.compile(r"toolsift: (\d+) records, .* failed records;")


def test_the_blocker_blocks(impl: str, blocker: Path) -> None:
    code = "import toolsift\ntry:\n    import pyarrow\nexcept ImportError:\n    print('blocked')"
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl, "PYTHONPATH": str(blocker)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == "blocked\n"


def stream_files(tmp_path: Path) -> dict[str, Path]:
    """A file of whole streams (`--stream`) and one of stream lines (`--stream-lines`),
    with a line too long for `--max-line-bytes 2000`."""
    cases = json.loads((VECTORS / "openai.stream.json").read_text("utf-8"))
    events = [case["events"] for case in cases if case.get("events")]
    whole = tmp_path / "whole.jsonl"
    whole.write_text("".join(json.dumps(e) + "\n" for e in events) + json.dumps(["x" * 3000]))
    lines = tmp_path / "lines.jsonl"
    lines.write_text("".join(json.dumps(event) + "\n" for e in events for event in e))
    return {"--stream": whole, "--stream-lines": lines}


def runs(tmp_path: Path) -> list[list[Any]]:
    """The inputs and flags of each compared run (before `-o`)."""
    gz = tmp_path / "openai.jsonl.gz"
    gz.write_bytes(gzip.compress(OPENAI.read_bytes()))
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(GEMINI.read_bytes())
    streams = stream_files(tmp_path)
    return [
        [OPENAI],
        [GEMINI, "--format", "gemini", "--threads", "1"],
        [OPENAI, gz],  # several inputs: a `file` column
        [folder, "--record-path", "response"],
        [OPENAI, "--max-line-bytes", "500"],
        [streams["--stream"], "--stream", "--max-line-bytes", "2000"],
        [streams["--stream-lines"], "--stream-lines", "--format", "openai"],
    ]


@pytest.mark.parametrize("kind", [".jsonl", ".csv"])
def test_jsonl_and_csv_without_pyarrow_equal_the_arrow_path(
    impl: str, blocker: Path, tmp_path: Path, kind: str
) -> None:
    """The same bytes with and without pyarrow, the same counts in the summary."""
    for number, args in enumerate(runs(tmp_path)):
        outputs = []
        for blocked in (None, blocker):
            out = tmp_path / f"{number}-{blocked is None}{kind}"
            done = run(impl, ["extract", *args, "-o", out], blocked)
            assert done.returncode == 0, (args, done.stderr)
            counts = COUNTS.search(done.stderr)
            assert counts is not None, done.stderr
            outputs.append((out.read_bytes(), counts.group(0)))
        assert outputs[0][0], args  # rows were written
        assert outputs[0] == outputs[1], args


def test_jsonl_to_stdout_without_pyarrow(impl: str, blocker: Path) -> None:
    with_arrow = run(impl, ["extract", OPENAI, "--quiet"], None)
    without = run(impl, ["extract", OPENAI, "--quiet"], blocker)
    assert without.returncode == 0, without.stderr
    assert without.stdout == with_arrow.stdout and without.stdout


def test_parquet_without_pyarrow_names_the_cli_extra(
    impl: str, blocker: Path, tmp_path: Path
) -> None:
    out = tmp_path / "calls.parquet"
    done = run(impl, ["extract", OPENAI, "-o", out], blocker)
    assert done.returncode == 2
    assert done.stderr == (
        "toolsift: error: writing Parquet needs pyarrow: pip install 'toolsift[cli]'\n"
    )
    assert list(tmp_path.iterdir()) == []
