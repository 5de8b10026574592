"""The fuzz targets (fuzz/targets.py) driven by hypothesis: the structure-aware
generators of fuzz/gen.py draw their decisions from hypothesis (so a failing case
shrinks), and raw bytes go through every target as atheris would give them.

Short in the normal suite (TOOLSIFT_FUZZ_EXAMPLES, default 15 examples a test); `make
fuzz` runs them long. Known differences (fuzz/known.py) are tolerated as in the atheris
runs; TOOLSIFT_FUZZ_STRICT=1 makes them fail. Like the regression replay, these need
the native module (see `conftest.fuzz_targets`).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from conftest import fuzz_targets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("TOOLSIFT_FUZZ_EXAMPLES", "15"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture(scope="module")
def targets() -> Any:
    return fuzz_targets()


def source(data: st.DataObject) -> Any:
    from fuzz.source import DrawSource

    return DrawSource(data)


@FUZZ
@given(data=st.data())
def test_parse(targets: Any, data: st.DataObject) -> None:
    """A provider-shaped response or a mutated seed, as text, dicts and SDK-like objects,
    through every parser class."""
    targets.check_parse_case(targets.build_parse_case(source(data)))


@FUZZ
@given(data=st.data())
def test_parse_many(targets: Any, data: st.DataObject) -> None:
    targets.check_many_case(targets.build_many_case(source(data)))


@FUZZ
@given(data=st.data())
def test_to_arrow(targets: Any, data: st.DataObject) -> None:
    targets.check_arrow_case(targets.build_arrow_case(source(data)))


@FUZZ
@given(data=st.data())
def test_litert(targets: Any, data: st.DataObject) -> None:
    text = targets.build_litert_text(source(data))
    for form in targets.litert_forms(text):
        targets.check_litert(form, [text])


@FUZZ
@given(data=st.data())
def test_raw_text(targets: Any, data: st.DataObject) -> None:
    """A dialect vector's text, mutated, through RawTextParser (its dialect, or auto)."""
    targets.check_raw_text(*targets.build_raw_text_case(source(data)))


@FUZZ
@given(raw=st.binary(max_size=300))
@pytest.mark.parametrize(
    "name", ["parse", "parse_structured", "parse_many", "to_arrow", "litert", "raw-text", "repair"]
)
def test_raw_bytes(targets: Any, name: str, raw: bytes) -> None:
    """Any bytes, as atheris would hand them to the target."""
    targets.TARGETS[name](raw)


@FUZZ
@given(data=st.data())
def test_streams(targets: Any, data: st.DataObject) -> None:
    """A format's stream, with issue 37's shapes: providers interleaved, SSE lines ended
    by lone CRs and mixed ends, bytes fed one at a time."""
    targets.check_stream_case(targets.build_stream_case(source(data), shapes=True))


@settings(FUZZ, max_examples=max(1, EXAMPLES // 3))
@given(data=st.data())
def test_stream_cut_at_every_byte(targets: Any, data: st.DataObject) -> None:
    """A stream's text (SSE with mixed line ends, or NDJSON) cut at every byte: fed in
    two pieces, and cut off there."""
    targets.check_cut_everywhere(*targets.build_cut_case(source(data)))


_ARGUMENT_TOKENS = st.sampled_from(
    ["{", "}", "[", "]", ",", ":", '"a"', "'b'", "1", "-2.5e3", "True", "None", "null",
     "// c\n", "/* c */", "```json\n", "\n```", "Note: ", "\n", '"\\"', "'it\\'s'",
     '"x\ny"', "\\", "'", '"', "\u00e9", "\x00"]
)  # fmt: skip


@FUZZ
@given(text=st.lists(_ARGUMENT_TOKENS, max_size=30).map("".join))
def test_repair(targets: Any, text: str) -> None:
    """Argument text made of the pieces the audited repairs read: both backends give the
    same defect and the same repair, or none."""
    targets.check_repair(text)
