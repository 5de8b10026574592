"""Smoke test of `engines.py` (scaling out on Ray Data and Spark, timed by that script):
every entry runs once over a few small gzip files, and all of them write the same rows
as `to_arrow` finds. Timing: `python benches/engines.py` (see benches/README.md)."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest


def require(module: str, extra: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):  # CI installs every extra: a missing engine fails there
            raise
        pytest.skip(f"{module} is not installed (pip install 'toolsift[{extra}]')")


def test_engine_entries_agree(tmp_path: Path) -> None:
    require("ray.data", "ray")
    require("pyspark.sql.datasource", "spark")
    import engines
    from toolsift.parsers import OpenAIResponseParser

    paths, _ = engines.write_files(tmp_path / "in", files=3, lines=40)
    want = sum(OpenAIResponseParser().to_arrow(path).num_rows for path in paths)
    started = engines.Engines()
    try:
        seconds, rows = engines.measure(paths, started, rounds=0, work=tmp_path)
        names = list(engines.entries(started))
    finally:
        started.close()
    assert list(rows) == names  # every entry ran
    assert seconds == {name: [] for name in rows}
    assert rows == dict.fromkeys(rows, want)
