"""TOOLSIFT_IMPLEMENTATION, read once at import, in fresh interpreters (subprocesses)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import toolsift

PACKAGE = Path(toolsift.__file__).parent
CLASSES = (
    "OpenAIResponseParser",
    "GeminiResponseParser",
    "JsonResponseParser",
    "SdkResponseParser",
)

# Prints, as JSON, what the fresh interpreter chose and which module each class runs on.
REPORT = f"""
import json, sys
import toolsift
from toolsift import parsers
print(json.dumps({{
    "file": toolsift.__file__,
    "impl": toolsift.IMPLEMENTATION,
    "cores": {{name: type(getattr(parsers, name)()._core).__module__ for name in {CLASSES!r}}},
    "calls": [c.name for c in parsers.OpenAIResponseParser().parse(
        b'{{"choices":[{{"message":{{"tool_calls":[{{"function":{{"name":"f"}}}}]}}}}]}}'
    ).tool_calls],
    "native_loaded": "toolsift._native" in sys.modules,
}}))
"""

NATIVE_MODULE = "toolsift._native"
PURE_MODULE = "toolsift._pure.walk"


def run(
    setting: str | None, code: str = REPORT, pythonpath: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("TOOLSIFT_IMPLEMENTATION", None)
    if setting is not None:
        env["TOOLSIFT_IMPLEMENTATION"] = setting
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            [str(pythonpath), *filter(None, [env.get("PYTHONPATH")])]
        )
    return subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def report(setting: str | None, pythonpath: Path | None = None) -> dict[str, object]:
    done = run(setting, pythonpath=pythonpath)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def native_is_built() -> bool:
    return any(PACKAGE.glob("_native*.so")) or any(PACKAGE.glob("_native*.pyd"))


needs_native = pytest.mark.skipif(not native_is_built(), reason="the native module is not built")


@pytest.fixture(scope="module")
def package_without_native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the toolsift package without the compiled module, first on PYTHONPATH."""
    root = tmp_path_factory.mktemp("no_native")
    shutil.copytree(
        PACKAGE,
        root / "toolsift",
        ignore=shutil.ignore_patterns("_native*.so", "_native*.pyd", "__pycache__"),
    )
    return root


@pytest.fixture(scope="module")
def package_with_broken_native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy whose `toolsift._native` exists but fails to import."""
    root = tmp_path_factory.mktemp("broken_native")
    shutil.copytree(
        PACKAGE,
        root / "toolsift",
        ignore=shutil.ignore_patterns("_native*.so", "_native*.pyd", "__pycache__"),
    )
    (root / "toolsift" / "_native.py").write_text(
        'raise ImportError("undefined symbol: PyInit_simulated")\n', encoding="utf-8"
    )
    return root


def test_python_never_imports_the_native_module() -> None:
    got = report("python")
    assert got["impl"] == "python"
    assert got["native_loaded"] is False
    assert got["cores"] == dict.fromkeys(CLASSES, PURE_MODULE)
    assert got["calls"] == ["f"]


@needs_native
def test_rust() -> None:
    got = report("rust")
    assert got["impl"] == "rust"
    assert got["native_loaded"] is True
    assert got["cores"] == dict.fromkeys(CLASSES, NATIVE_MODULE)
    assert got["calls"] == ["f"]


@needs_native
def test_the_native_module_has_the_packages_version() -> None:
    """`_native.__version__` is Cargo.toml's version (`env!("CARGO_PKG_VERSION")`)."""
    from toolsift import _native

    assert _native.__version__ == toolsift.__version__


@needs_native
@pytest.mark.parametrize("setting", [None, "", "  "])
def test_unset_or_empty_prefers_rust(setting: str | None) -> None:
    got = report(setting)
    assert got["impl"] == "rust"
    assert got["cores"] == dict.fromkeys(CLASSES, NATIVE_MODULE)


@needs_native
@pytest.mark.parametrize(("setting", "impl"), [(" Rust ", "rust"), ("PYTHON", "python")])
def test_value_is_stripped_and_case_insensitive(setting: str, impl: str) -> None:
    assert report(setting)["impl"] == impl


@pytest.mark.parametrize("setting", ["cpp", "native", "pure", "rust,python", "0"])
def test_invalid_value_lists_the_choices(setting: str) -> None:
    done = run(setting, "import toolsift")
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: TOOLSIFT_IMPLEMENTATION must be one of rust, python")
    assert repr(setting.strip().lower()) in last


def test_forcing_rust_without_the_native_module_fails_loudly(
    package_without_native: Path,
) -> None:
    done = run("rust", "import toolsift", pythonpath=package_without_native)
    assert done.returncode != 0
    # the cause is chained, not hidden
    assert "The above exception was the direct cause" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: TOOLSIFT_IMPLEMENTATION=rust, but the native module")
    assert "toolsift._native is missing" in last


def test_forcing_rust_with_a_broken_native_module_fails_loudly(
    package_with_broken_native: Path,
) -> None:
    done = run("rust", "import toolsift", pythonpath=package_with_broken_native)
    assert done.returncode != 0
    assert "undefined symbol: PyInit_simulated" in done.stderr
    assert "toolsift._native is missing" in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("setting", [None, "python"])
def test_without_the_native_module_python_is_used(
    package_without_native: Path, setting: str | None
) -> None:
    got = report(setting, pythonpath=package_without_native)
    assert Path(str(got["file"])).parent == package_without_native / "toolsift"
    assert got["impl"] == "python"
    assert got["native_loaded"] is False
    assert got["cores"] == dict.fromkeys(CLASSES, PURE_MODULE)
    assert got["calls"] == ["f"]


def test_unset_with_a_broken_native_module_falls_back(package_with_broken_native: Path) -> None:
    got = report(None, pythonpath=package_with_broken_native)
    assert got["impl"] == "python"
    assert got["cores"] == dict.fromkeys(CLASSES, PURE_MODULE)


@needs_native
def test_read_once_at_import() -> None:
    """Changing the variable after import changes nothing."""
    code = (
        "import os, toolsift\n"
        "from toolsift import parsers\n"
        "os.environ['TOOLSIFT_IMPLEMENTATION'] = 'python'\n"
        "print(toolsift.IMPLEMENTATION, type(parsers.OpenAIResponseParser()._core).__module__)\n"
    )
    done = run("rust", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["rust", NATIVE_MODULE]


def test_this_process_matches_its_setting() -> None:
    from toolsift import _backend, parsers

    setting = os.environ.get("TOOLSIFT_IMPLEMENTATION", "").strip().lower()
    if setting:
        assert toolsift.IMPLEMENTATION == setting
    assert _backend.core is _backend.load(toolsift.IMPLEMENTATION)
    module = NATIVE_MODULE if toolsift.IMPLEMENTATION == "rust" else PURE_MODULE
    assert type(parsers.OpenAIResponseParser()._core).__module__ == module


def _parameters(function: object) -> list[tuple[str, object]]:
    """Parameter names and defaults (annotations and the positional-only marker of a
    compiled method's `self` apart)."""
    import inspect

    return [
        (p.name, p.default)
        for p in inspect.signature(function).parameters.values()  # type: ignore[arg-type]
    ]


def test_both_backends_have_the_backend_surface() -> None:
    """The `Backend` protocol (`toolsift._backend`): both backends have its functions and
    their parser its methods, with the same parameters (names, order, defaults), each
    with a docstring. (mypy checks the types: `_backend.py` assigns both to it.)"""
    from toolsift import _backend

    native, pure = _backend.load("rust"), _backend.load("python")
    assert _parameters(native.Parser) == _parameters(pure.Parser)
    pairs = [(getattr(native, n), getattr(pure, n)) for n in _backend.BACKEND_FUNCTIONS]
    pairs += [(getattr(native.Parser, n), getattr(pure.Parser, n)) for n in _backend.PARSER_METHODS]
    for compiled, twin in pairs:
        assert _parameters(compiled) == _parameters(twin), twin.__qualname__
        assert compiled.__doc__ and twin.__doc__, twin.__qualname__
