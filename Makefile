# Two commands for a newcomer: `make sample` (the main job on the bundled sample) and
# `make test` (every check, both backends). Both set up .venv and build the extension.

VENV := .venv
PY := $(VENV)/bin/python
export VIRTUAL_ENV := $(abspath $(VENV))
export PATH := $(VIRTUAL_ENV)/bin:$(PATH)

.PHONY: build java sample test test-rust test-python lint bench fuzz

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip maturin

# The release build of the extension, installed in editable mode with the test extras.
# russo (the package toolsift replaces) declares Python >= 3.12 but runs on 3.11.
build: $(PY) java
	$(VENV)/bin/maturin develop --release --quiet --extras test,arrow,cli,zstd,dev,fuzz,ray,spark
	$(PY) -m pip install --quiet --no-deps --ignore-requires-python "russo==0.3.3"

# Spark (the `spark` extra, tested by `make test`) needs a Java runtime: installed from
# Debian's packages when `java` is missing (as root, or through sudo).
JAVA_PACKAGE := openjdk-17-jre-headless
java:
	@command -v java >/dev/null 2>&1 || { \
		sudo=$$( [ "$$(id -u)" -eq 0 ] || echo sudo ); \
		$$sudo apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq $(JAVA_PACKAGE); }

sample: build
	$(PY) -m toolsift extract python/toolsift/samples/openai_batch_output.jsonl --format openai -o sample_calls.csv
	$(PY) -m toolsift extract python/toolsift/samples/gemini_batch_output.jsonl --format gemini -o sample_calls.parquet

# pytest exits 5 when it collected no tests: that is a failure here, not a pass.
PYTEST = $(PY) -m pytest -q -p no:cacheprovider tests; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

test: build lint
	cargo test --quiet
	$(MAKE) --no-print-directory test-rust test-python
	$(PY) -m pytest -q -p no:cacheprovider benches

test-rust:
	TOOLSIFT_IMPLEMENTATION=rust $(PYTEST)

test-python:
	TOOLSIFT_IMPLEMENTATION=python $(PYTEST)

lint: build
	cargo fmt --check
	cargo clippy --quiet --all-targets -- -D warnings
	cargo clippy --quiet --all-targets --features python -- -D warnings
	$(VENV)/bin/ruff check python tests benches fuzz
	$(VENV)/bin/ruff format --check python tests benches fuzz
	$(PY) -m mypy.stubtest toolsift._native

bench: build
	$(PY) -m pytest benches --benchmark-enable --benchmark-json=bench.json -p no:cacheprovider
	$(PY) benches/report.py bench.json

# Differential fuzzing (fuzz/README.md): each atheris target for FUZZ_SECONDS, one process
# after another, then the hypothesis-driven targets with FUZZ_EXAMPLES examples each. An
# input on which the backends differ is written to tests/fuzz_regressions/<target>/ and
# the run fails (after the other targets ran).
FUZZ_SECONDS ?= 60
FUZZ_EXAMPLES ?= 150
FUZZ_TARGETS := parse parse_structured parse_many to_arrow litert streams stream_shapes

fuzz: build
	@failed=""; for target in $(FUZZ_TARGETS); do \
		$(PY) fuzz/run.py $$target --seconds $(FUZZ_SECONDS) || failed="$$failed $$target"; \
	done; \
	TOOLSIFT_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(PY) -m pytest -q -p no:cacheprovider \
		tests/test_fuzz_hypothesis.py || failed="$$failed hypothesis"; \
	if [ -n "$$failed" ]; then echo "fuzz: failed:$$failed" >&2; exit 1; fi
