"""The docs stay true: every ```python block of README.md and docs/*.md runs, on each
backend, in a fresh interpreter (a page's blocks one after the other, as a reader would
run them, from an empty directory).

A block that needs an engine, a provider's client or the network is marked on the line
before it with `<!-- docs-test: skip: REASON -->`; every other block runs, so examples are
written against the bundled samples (`importlib.resources.files("toolsift") / "samples"`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
SKIP = re.compile(r"<!-- docs-test: skip: (?P<reason>\S.*?) -->\n\Z")
MARKER = re.compile(r"^<!-- docs-test:", re.MULTILINE)


def examples(page: Path) -> list[tuple[int, str, str | None]]:
    """The page's python blocks: (line, code, the reason to skip it or None)."""
    text = page.read_text("utf-8")
    found = []
    for block in FENCE.finditer(text):
        before = text[: block.start()]
        previous_line = before[before.rstrip("\n").rfind("\n") + 1 :]
        skip = SKIP.match(previous_line)
        line = before.count("\n") + 1
        found.append((line, block.group(1), skip.group("reason") if skip else None))
    return found


def runnable(page: Path) -> str:
    """The page's blocks that run, as one script (each block after a comment naming its
    line, so a traceback points at the page)."""
    return "".join(
        f"# {page.name}:{line}\n{code}\n" for line, code, skip in examples(page) if skip is None
    )


PAGES_WITH_EXAMPLES = [page for page in PAGES if runnable(page)]


def test_the_docs_have_examples_that_run() -> None:
    assert ROOT / "README.md" in PAGES_WITH_EXAMPLES
    assert len(PAGES_WITH_EXAMPLES) >= 3


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_skip_marker_stands_before_a_python_block(page: Path) -> None:
    """A marker that no longer stands right before a block (moved, mistyped, its block
    gone) would skip nothing, or the wrong block."""
    text = page.read_text("utf-8")
    marked = sum(skip is not None for _, _, skip in examples(page))
    assert len(MARKER.findall(text)) == marked


@pytest.mark.parametrize("page", PAGES_WITH_EXAMPLES, ids=lambda page: str(page.relative_to(ROOT)))
def test_examples_run(page: Path, impl: str, tmp_path: Path) -> None:
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    result = subprocess.run(
        [sys.executable, "-c", runnable(page)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
