"""The fuzz regression corpus, replayed on every test run.

`tests/fuzz_regressions/<target>/<sha1 of the input>` holds raw inputs of the fuzz
targets in `fuzz/targets.py` (inputs that once made the backends differ, and edge
inputs worth keeping); each goes through its target again, which runs it on the Rust
and the pure-Python backend and fails on any difference (type-exact results, or the
same exception type and message). Known differences are not tolerated here.

The targets compare both backends, so these tests need the native module whatever
TOOLSIFT_IMPLEMENTATION says: they run in both passes of `make test` when it imports,
are skipped when it is not built, and fail when TOOLSIFT_IMPLEMENTATION=rust and it is
missing (see `conftest.fuzz_targets`).

`fuzz/pending/<target>/` holds inputs of differences found but not fixed yet
(fuzz/pending/README.md); they are replayed too, as expected failures: one that
passes (XPASS) is fixed and belongs in the regression corpus.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from conftest import fuzz_targets

ROOT = Path(__file__).resolve().parents[1]
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"
PENDING = ROOT / "fuzz" / "pending"


def corpus(directory: Path) -> list[tuple[str, str]]:
    """(target, file name) of every input under `directory`/<target>/."""
    if not directory.is_dir():
        return []
    return [
        (target.name, path.name)
        for target in sorted(directory.iterdir())
        if target.is_dir()
        for path in sorted(target.iterdir())
        if path.is_file() and not path.name.startswith(".")
    ]


def replay(directory: Path, target: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    targets = fuzz_targets()
    from fuzz import known

    monkeypatch.setattr(known, "STRICT", True)
    assert target in targets.TARGETS, f"{directory.name}/{target}: no such fuzz target"
    targets.TARGETS[target]((directory / target / name).read_bytes())


@pytest.mark.parametrize(("target", "name"), corpus(REGRESSIONS))
def test_regression(target: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    replay(REGRESSIONS, target, name, monkeypatch)


@pytest.mark.xfail(strict=False, reason="a pending difference (fuzz/pending/README.md)")
@pytest.mark.parametrize(("target", "name"), corpus(PENDING))
def test_pending(target: str, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    replay(PENDING, target, name, monkeypatch)


def test_corpus_layout() -> None:
    """Every input is named by its SHA-1 and sits under the name of a target."""
    targets = fuzz_targets()
    for directory in (REGRESSIONS, PENDING):
        for target, name in corpus(directory):
            assert target in targets.TARGETS, f"{directory}/{target}: not a fuzz target"
            if name.endswith(".md"):
                continue
            data = (directory / target / name).read_bytes()
            assert name == hashlib.sha1(data).hexdigest(), f"{directory}/{target}/{name}"
    assert corpus(REGRESSIONS), "the regression corpus is empty"
