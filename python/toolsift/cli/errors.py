"""The CLI's two errors (each an exit status) and the names of its standard streams."""

from __future__ import annotations

STDIN = "-"
"""The INPUT that names standard input."""


class UsageError(Exception):
    """Exit status 2, with one line on stderr."""


class OutputError(Exception):
    """Writing the output failed: exit status 2 with one line on stderr, or quietly 0 when
    the reader of a pipe went away. Not an OSError, so that it is never taken for a
    failure to read an input."""

    def __init__(self, name: str, error: OSError) -> None:
        super().__init__(f"cannot write {name}: {error.strerror or error}")
        self.error = error
        self.to_stdout = name == STDOUT_NAME


STDOUT_NAME = "to stdout"
