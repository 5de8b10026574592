"""Which files a path names, for every reader that takes several (`toolsift.Files`, the
CLI, the Spark data source): a file; a directory, read recursively; a glob whose `*`, `?`
and `[...]` match within one path component. Under a directory or a glob, names starting
with `_` or `.` are skipped (Spark's and Hadoop's convention: `_SUCCESS`, `.crc` files).
Only the standard library: the CLI uses it before pyarrow is imported."""

from __future__ import annotations

import errno
import fnmatch
import os
from collections.abc import Iterable, Sequence

__all__ = ["GLOB_CHARS", "JSONL_SUFFIXES", "expand_local", "hidden", "is_glob", "selected"]

GLOB_CHARS = frozenset("*?[")

JSONL_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.zst")
"""The files of a directory that `Files` and the CLI read (a glob says what it wants)."""


def is_glob(part: str) -> bool:
    return not GLOB_CHARS.isdisjoint(part)


def hidden(name: str) -> bool:
    return name.startswith(("_", "."))


def selected(parts: Sequence[str], depth: int, pattern: Sequence[str] | None) -> bool:
    """Whether a file found under a directory of `depth` path components (`parts`: its
    path split at `/`) is read: no hidden name below the directory and, for a glob
    (`pattern`: the glob split at `/`), every component matching the glob's."""
    if any(hidden(part) for part in parts[depth:]):
        return False
    return pattern is None or (
        len(parts) == len(pattern)
        and all(fnmatch.fnmatchcase(p, q) for p, q in zip(parts, pattern, strict=True))
    )


def expand_local(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The local files `paths` name, in order, each group sorted: a file as given (a name
    that exists is never read as a glob); a directory's `JSONL_SUFFIXES` files; a glob's
    files. FileNotFoundError naming a path that names nothing, a directory with no JSONL
    file, or a glob that matches no file."""
    files: list[str] = []
    for given in paths:
        path = os.fsdecode(os.fspath(given))
        if os.path.isdir(path):
            found = [name for name in _walk(path, None) if name.endswith(JSONL_SUFFIXES)]
            if not found:
                raise _not_found(f"no {', '.join(JSONL_SUFFIXES)} file in directory", path)
            files += found
        elif os.path.lexists(path) or not is_glob(path):
            files.append(path)  # opened later: a missing one raises there, naming it
        else:
            found = _globbed(path)
            if not found:
                raise _not_found("no file matches", path)
            files += found
    return files


def _not_found(what: str, path: str) -> FileNotFoundError:
    return FileNotFoundError(errno.ENOENT, what, path)


def _globbed(path: str) -> list[str]:
    parts = path.split("/")
    at = next(i for i, part in enumerate(parts) if is_glob(part))
    base = "/".join(parts[:at]) or ("/" if at else "")  # "/*.jsonl": the root
    if not os.path.isdir(base or "."):
        return []
    return _walk(base, parts)


def _walk(base: str, pattern: list[str] | None) -> list[str]:
    """The files under `base`, named `base/...` (`...` alone for an empty base), sorted,
    that `selected` keeps."""
    depth = len(base.rstrip("/").split("/")) if base else 0
    names = []
    for directory, subdirectories, files in os.walk(base or "."):
        subdirectories[:] = [name for name in subdirectories if not hidden(name)]
        for name in files:
            full = os.path.join(directory, name)
            if not base:
                full = os.path.relpath(full)
            parts = full.split("/")
            if os.path.isfile(full) and selected(parts, depth, pattern):
                names.append(full)
    return sorted(names)
