"""toolsift's fuzz suite: differential targets (Rust backend vs pure-Python backend).

`fuzz/targets.py` holds the targets, `fuzz/run.py` drives them with atheris; the tests
in `tests/test_fuzz_*.py` replay the regression corpus and drive the same generators
with hypothesis. See `fuzz/README.md`.
"""
