"""Instruction counts for the benches' scripts (`valgrind --tool=callgrind`): a script run
under callgrind once with one pass and once with two, the difference being one pass
without the start-up both share."""

from __future__ import annotations

import os
import re
import subprocess
import sys

# A fixed hash seed, and numpy's BLAS (imported with pyarrow) without its idle threads,
# whose spinning otherwise adds a few million instructions to one run and not the other.
QUIET = {"PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}


def instructions(script: str, args: list[str], env: dict[str, str] | None = None) -> int:
    """Instructions of one pass: `script --run *args PASSES` under callgrind, PASSES 2 less
    PASSES 1 (`QUIET` and `env` added to the environment)."""
    valgrind = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")
    counts = []
    for passes in (1, 2):
        done = subprocess.run(
            [*valgrind, sys.executable, script, "--run", *args, str(passes)],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **QUIET, **(env or {})},
        )
        found = re.search(r"Collected : (\d+)", done.stderr)
        if found is None:
            raise RuntimeError(f"callgrind printed no count: {done.stderr[-500:]}")
        counts.append(int(found.group(1)))
    return counts[1] - counts[0]
