"""The architecture check (issue 38): imports read one way, files and functions stay short.

    python tools/layers.py [--root DIR] [rust] [python]

For the Rust crate (`src/**/*.rs`: the `crate::` and `super::` paths of its code) and the
Python package (`python/toolsift/**/*.py`: its `import` statements), it reports

* every import cycle between modules (a parent module and its own children, which it
  declares and which use its shared types, are one unit: links between them are not
  counted);
* every import of a module from a higher layer (`RUST_LAYERS`, `PYTHON_LAYERS`, lowest
  first: a module may use its own layer and those below), and every module no layer
  holds (the tables must name each new module);
* every file over `MAX_FILE_LINES` lines of code (blank and comment lines, and the
  in-file tests of a Rust module, not counted; `tests/` is not read), and every function
  over `MAX_FUNCTION_LINES` lines, outside the hand-written scanners of `LONG_FUNCTIONS`.

Code under `#[cfg(test)]` and imports under `if TYPE_CHECKING:` are not dependencies.
Exit status 1 when anything is reported, 0 otherwise. `make lint` runs it.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 80

RUST_LAYERS: tuple[tuple[str, ...], ...] = (
    # JSON text, and the leaves every layer may use (the mutex policy, the compact writer).
    ("json", "json_errors", "compact", "sync"),
    ("node",),
    # and the declared tools, the checks against them, the defects of argument text
    ("calls", "tools", "violations", "defects"),
    # The toolkit the formats build their stream readers on, below them (in `stream/`
    # or beside it).
    (
        "accumulator",
        "framing",
        "partial",
        "stream::accumulator",
        "stream::framing",
        "stream::partial",
    ),
    ("formats", "dialects"),  # provider formats and raw-text dialects
    # The one response route (record.rs until it is route.rs), and the events of a whole
    # stream read through the registry for it.
    # `text_dialect`: a provider response's assistant text read by a dialect.
    ("route", "record", "events", "stream::events", "text_dialect"),
    ("stream", "bulk"),  # the drivers above the formats: stream, files, envelopes, rows
    ("pipeline",),
    ("python",),  # the PyO3 binding
    ("lib",),  # the crate root
)
"""The Rust crate's layers, lowest first (DEVELOPMENT.md draws them)."""

PYTHON_LAYERS: tuple[tuple[str, ...], ...] = (
    # Leaves both backends and the public layer share.
    (
        "toolsift.formats",
        "toolsift._types",
        "toolsift._values",
        "toolsift._errors",
        "toolsift._jsontext",
        "toolsift._paths",
        "toolsift._collector",
    ),
    ("toolsift._pure", "toolsift._native"),  # the backends
    # which backend runs; the table shapes the public API makes (rows per record, carry)
    ("toolsift._backend", "toolsift._table"),
    ("toolsift._bulk", "toolsift.parsers", "toolsift._engines"),  # the public API
    (
        "toolsift",
        "toolsift.__main__",
        "toolsift.cli",
        "toolsift._ray",
        "toolsift._spark",
        "toolsift.ray",
        "toolsift.spark",
        "toolsift.russo",
        "toolsift.samples",  # the script that makes the bundled samples
    ),  # the front ends
)
"""The Python package's layers, lowest first."""

ROOTS = frozenset({"lib", "toolsift"})
"""The roots (the crate's `lib.rs`, the package's `__init__.py`): a layer that names one
holds it alone, not the modules below it."""

LONG_FUNCTIONS: frozenset[str] = frozenset(
    {
        "src/json/scan.rs::scan_plain",
        "src/framing.rs::scan",
        "src/partial.rs::read",
        "src/defects.rs::value",  # the repair reader (checked against the pure twin)
    }
)
"""Hand-written scanners (one state machine each, checked against serde_json) allowed past
`MAX_FUNCTION_LINES`, as `file::name`."""


@dataclass
class Module:
    name: str
    path: Path
    uses: set[str] = field(default_factory=set)
    code_lines: int = 0
    functions: list[tuple[str, int, int]] = field(default_factory=list)  # name, line, length


# ------------------------------------------------------------------ Rust


def rust_module_name(src: Path, path: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod":
        parts.pop()
    return "::".join(parts) or "lib"


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'b?r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"', re.S)
_CHAR = re.compile(r"b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'")


def rust_code(text: str) -> str:
    """The code of a Rust file with comments, strings and characters blanked (their
    newlines kept, so line numbers hold) and its `#[cfg(test)]` items cut off."""

    def blank(match: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", match.group(0))

    pattern = re.compile(f"{_COMMENT.pattern}|{_STRING.pattern}|{_CHAR.pattern}", re.S)
    code = pattern.sub(blank, text)
    cut = re.search(r"^\s*#\[cfg\(test\)\]\s*\n\s*(pub(\(crate\))?\s+)?mod\s", code, re.M)
    return code if cut is None else code[: cut.start()]


_PATH = re.compile(r"\b(crate|super)((?:::\w+)+)")
_GROUP = re.compile(r"\buse\s+(crate|super)((?:::\w+)*)::\{([^;]*)\}", re.S)


def rust_paths(code: str, module: str) -> Iterator[str]:
    """The module paths (from the crate root) that the code names."""
    here = [] if module == "lib" else module.split("::")
    for match in _GROUP.finditer(code):
        base = _absolute(match.group(1), match.group(2), here)
        for item in re.split(r"[,{}]", match.group(3)):
            item = item.strip().split(" as ")[0].strip()
            if item and item != "self":
                yield "::".join([*base, *item.split("::")])
            elif item == "self":
                yield "::".join(base)
    for match in _PATH.finditer(code):
        yield "::".join(_absolute(match.group(1), match.group(2), here))


def _absolute(root: str, rest: str, here: list[str]) -> list[str]:
    parts = [p for p in rest.split("::") if p]
    if root == "crate":
        return parts
    base = here[:-1]
    while parts and parts[0] == "super":
        parts.pop(0)
        base = base[:-1]
    return [*base, *parts]


def rust_functions(code: str) -> Iterator[tuple[str, int, int]]:
    """`(name, first line, lines)` of every `fn` with a body."""
    for match in re.finditer(r"\bfn\s+(\w+)", code):
        open_at = _body_start(code, match.end())
        if open_at is None:
            continue
        depth = 0
        for at in range(open_at, len(code)):
            if code[at] == "{":
                depth += 1
            elif code[at] == "}":
                depth -= 1
                if depth == 0:
                    first = code.count("\n", 0, match.start()) + 1
                    last = code.count("\n", 0, at) + 1
                    yield match.group(1), first, last - first + 1
                    break


def _body_start(code: str, at: int) -> int | None:
    """Where the body of the `fn` whose signature starts at `at` opens (None: no body)."""
    depth = 0  # of (), [] and <> in the signature
    for index in range(at, len(code)):
        char = code[index]
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == ";" and depth <= 0:
            return None
        elif char == "{" and depth <= 0:
            return index
    return None


def read_rust(root: Path) -> dict[str, Module]:
    src = root / "src"
    modules: dict[str, Module] = {}
    for path in sorted(src.rglob("*.rs")):
        name = rust_module_name(src, path)
        code = rust_code(path.read_text("utf-8"))
        module = Module(name, path)
        module.uses = set(rust_paths(code, name))
        module.code_lines = sum(1 for line in code.splitlines() if line.strip())
        module.functions = list(rust_functions(code))
        modules[name] = module
    for module in modules.values():
        module.uses = {_known(use, modules, "::") for use in module.uses} - {None, module.name}  # type: ignore[assignment]
    return modules


def _known(path: str, modules: dict[str, Module], sep: str) -> str | None:
    """The longest module of `modules` that `path` names (a module, or an item in one)."""
    parts = path.split(sep)
    for end in range(len(parts), 0, -1):
        name = sep.join(parts[:end])
        if name in modules:
            return name
    return None


# ------------------------------------------------------------------ Python


def python_module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_imports(tree: ast.Module, name: str, is_package: bool) -> Iterator[str]:
    """The modules a module imports (`from P import M`, M a submodule: M alone; `from P
    import x`, x a name of P: P), as `module.name` candidates for `_known`, outside
    `if TYPE_CHECKING:`."""
    for node in _walk_runtime(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                origin = ".".join([*base, *([node.module] if node.module else [])])
            else:
                origin = node.module or ""
            yield from (f"{origin}.{alias.name}" for alias in node.names)


def _walk_runtime(tree: ast.AST) -> Iterator[ast.AST]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_walk_runtime(child)])
            continue
        yield node
        yield from _walk_runtime(node)


def read_python(root: Path) -> dict[str, Module]:
    package = root / "python" / "toolsift"
    modules: dict[str, Module] = {}
    trees = {}
    for path in sorted(package.rglob("*.py")):
        name = python_module_name(package, path)
        text = path.read_text("utf-8")
        tree = ast.parse(text)
        trees[name] = (tree, path.name == "__init__.py")
        module = Module(name, path)
        module.code_lines = _python_code_lines(text, tree)
        module.functions = [
            (node.name, node.lineno, (node.end_lineno or node.lineno) - node.lineno + 1)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        modules[name] = module
    for stub in sorted(package.rglob("*.pyi")):  # the compiled module, as its stub says
        name = python_module_name(package, stub)
        modules.setdefault(name, Module(name, stub))
    for name, (tree, is_package) in trees.items():
        used = {_known(use, modules, ".") for use in python_imports(tree, name, is_package)}
        modules[name].uses = {use for use in used if use is not None} - {name}
    return modules


def _python_code_lines(text: str, tree: ast.Module) -> int:
    """Lines that are not blank, comments or docstrings."""
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docstrings.update(range(body[0].lineno, (body[0].end_lineno or 0) + 1))
    return sum(
        1
        for number, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in docstrings
    )


# ------------------------------------------------------------------ the checks


def _parent_of(a: str, b: str, sep: str) -> bool:
    return b.startswith(a + sep) or a.startswith(b + sep)


def cycles(modules: dict[str, Module], sep: str) -> list[list[str]]:
    """The import cycles (strongly connected sets of two or more modules), each sorted."""
    graph = {
        name: sorted(u for u in module.uses if not _parent_of(name, u, sep))
        for name, module in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:  # Tarjan's, iterative (no recursion limit)
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for succ in edges:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(graph[succ])))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found)


def layer_of(name: str, layers: Sequence[tuple[str, ...]], sep: str) -> int | None:
    """The layer of the longest prefix of `name` that a layer names."""
    best: tuple[int, int] | None = None
    for number, prefixes in enumerate(layers):
        for prefix in prefixes:
            if name == prefix or (prefix not in ROOTS and name.startswith(prefix + sep)):
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), number)
    return None if best is None else best[1]


def layer_problems(
    modules: dict[str, Module], layers: Sequence[tuple[str, ...]], sep: str
) -> list[str]:
    problems = []
    for name in sorted(modules):
        layer = layer_of(name, layers, sep)
        if layer is None:
            problems.append(f"{name}: in no layer (add it to the layer table)")
            continue
        for use in sorted(modules[name].uses):
            used = layer_of(use, layers, sep)
            if used is not None and used > layer and not _parent_of(name, use, sep):
                problems.append(
                    f"{name} (layer {layer}: {layers[layer][0]}) uses {use} "
                    f"(layer {used}: {layers[used][0]}, higher)"
                )
    return problems


def length_problems(modules: dict[str, Module], root: Path, long_ok: Iterable[str]) -> list[str]:
    allowed = set(long_ok)
    problems = []
    for module in sorted(modules.values(), key=lambda m: m.name):
        where = module.path.relative_to(root)
        if module.code_lines > MAX_FILE_LINES:
            problems.append(f"{where}: {module.code_lines} lines of code (> {MAX_FILE_LINES})")
        for name, line, length in module.functions:
            if length > MAX_FUNCTION_LINES and f"{where}::{name}" not in allowed:
                problems.append(
                    f"{where}:{line}: fn {name}: {length} lines (> {MAX_FUNCTION_LINES})"
                )
    return problems


def check(root: Path, language: str) -> list[str]:
    """Every problem of one language's tree, one line each."""
    if language == "rust":
        modules, layers, sep = read_rust(root), RUST_LAYERS, "::"
    else:
        modules, layers, sep = read_python(root), PYTHON_LAYERS, "."
    problems = [f"cycle: {' <-> '.join(cycle)}" for cycle in cycles(modules, sep)]
    problems += [f"layer: {problem}" for problem in layer_problems(modules, layers, sep)]
    problems += [f"length: {problem}" for problem in length_problems(modules, root, LONG_FUNCTIONS)]
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("languages", nargs="*", metavar="rust|python")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    unknown = set(args.languages) - {"rust", "python"}
    if unknown:
        parser.error(f"unknown language: {', '.join(sorted(unknown))}")
    failed = False
    for language in args.languages or ("rust", "python"):
        problems = check(args.root, language)
        for problem in problems:
            print(f"{language}: {problem}")
        print(f"{language}: {len(problems)} problems", file=sys.stderr)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
