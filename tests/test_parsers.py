"""The shared vectors (tests/vectors/<format>.json) on both backends, every input form."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest
from conftest import calls_as_dicts, format_vectors, same
from toolsift import ParseError
from toolsift._jsontext import error_for
from toolsift._pure import formats

VECTORS = format_vectors()
CLASSES = {spec.name: spec.parser_class for spec in formats.REGISTRY}


def parser_for(make: Any, case: dict[str, Any]) -> Any:
    return getattr(make, CLASSES[case["parser"]])(**case.get("options", {}))


def inputs_of(case: dict[str, Any]) -> list[Any]:
    """Every form the case's input can take: the object itself, str and bytes of JSON,
    and (a response or a stream) JSON text inside a JSON string, as a log that stored the
    body as a string holds it."""
    if "text" in case:
        return [case["text"], case["text"].encode("utf-8")]
    text = json.dumps(case["input"], ensure_ascii=False)
    forms = [case["input"], text, text.encode("utf-8"), json.dumps(case["input"]).encode()]
    if isinstance(case["input"], (dict, list)):
        forms.append(json.dumps(text))
    return forms


def expected_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's calls as `model_dump` gives them (a transcript's with `turn`, and
    `result` and `result_error` where it has a result)."""
    transcript = ("turn", "result", "result_error")
    return [
        {
            "name": c["name"],
            "arguments": c["arguments"],
            "id": c["id"],
            "raw_arguments": c["raw_arguments"],
            **{key: c[key] for key in transcript if key in c},
        }
        for c in case["calls"]
    ]


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_vector(make: Any, case: dict[str, Any]) -> None:
    parser = parser_for(make, case)
    for raw in inputs_of(case):
        if case.get("error"):
            with pytest.raises(ParseError) as caught:
                parser.parse(raw)
            expected = error_for(raw)
            assert expected is not None
            assert (caught.value.msg, caught.value.pos) == (expected.msg, expected.pos)
            continue
        response = parser.parse(raw)
        assert response.raw is raw
        assert response.error is None
        got = calls_as_dicts(response)
        assert same(got, expected_calls(case)), (type(raw).__name__, got)
        if case.get("auto"):  # auto-detected as the case's format
            got = calls_as_dicts(make.AutoResponseParser().parse(raw))
            assert same(got, expected_calls(case)), (type(raw).__name__, got)


@pytest.mark.parametrize("threads", [1, 2, None])
def test_parse_many_matches_parse(make: Any, threads: int | None) -> None:
    """One batch holding every vector in every form: same results as parse, in order."""
    raws: list[Any] = []
    expected: list[dict[str, Any]] = []
    for case in VECTORS:
        if case["parser"] != "openai":
            continue
        for raw in inputs_of(case):
            raws.append(raw)
            expected.append(case)
    parser = make.OpenAIResponseParser()
    # Repeat so that the batch spans several chunks of the native backend.
    results = parser.parse_many(raws * 25, threads=threads)
    assert len(results) == len(raws) * 25
    for i, result in enumerate(results):
        raw, case = raws[i % len(raws)], expected[i % len(raws)]
        assert result.raw is raw
        if case.get("error"):
            assert result.tool_calls == []
            assert result.error == str(error_for(raw))
        else:
            assert result.error is None
            assert same(calls_as_dicts(result), expected_calls(case))


@pytest.mark.parametrize("key", ["tool_calls_key", "name_key", "arguments_key"])
@pytest.mark.parametrize("value", [None, 1, b"name", ["name"]])
def test_json_keys_must_be_str(make: Any, key: str, value: Any) -> None:
    """The same TypeError on both backends, when the parser is made (Rust raised its own
    message; Python found nothing, or failed on the first parse)."""
    with pytest.raises(TypeError) as raised:
        make.JsonResponseParser(**{key: value})
    assert str(raised.value) == f"{key} must be a str, got {type(value).__name__}"


@pytest.mark.parametrize(("single", "found"), [(None, 1), (0, 1), ("", 1), ("yes", 0), (1, 0)])
def test_json_single_is_read_for_its_truth(make: Any, single: Any, found: int) -> None:
    parser = make.JsonResponseParser(single=single)
    assert len(parser.parse({"tool_calls": [{"name": "f"}]}).tool_calls) == found


STRINGS = [
    "", "a", "ab", "plain ascii " * 40, "\x00\x1f\x7f", "é", "ÿ", "€", "😀",
    "naïve", "\x80\xff", "ÿ" * 300, "€uro", "ĀĂ", "\u0100é", "\uffffé", "ab\u07ff",
    "😀 x", "x 😀 é €", "\U0010ffff\x00", "ЖЖЖ" * 100 + "😀",
    # runs of ASCII longer than a word between wider characters, at every width
    "café au lait, s'il vous plaît, à emporter", "東京 is the capital, 北京 is not, 1234567",
    "ascii first, then 😀, then ascii again: 0123456789", "é" + "x" * 17 + "ÿ" + "y" * 7,
    # sixteen ASCII bytes at a time, a wider character inside, after, or at the end
    "é" + "x" * 15, "x" * 16 + "é", "ÿ" + "q" * 16, "x" * 15 + "€" + "y" * 16 + "😀",
    "€" + "a" * 40 + "€" + "b" * 15, "😀" * 5 + "z" * 33, "東" + "k" * 31 + "京" * 9,
]  # fmt: skip


@pytest.mark.parametrize("ensure_ascii", [False, True])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_strings_are_pythons_own(make: Any, as_bytes: bool, ensure_ascii: bool) -> None:
    """Names, ids, keys and argument strings are the strings Python itself would make:
    equal, with the same hash, width (`isascii`, and the size that shows one, two or four
    bytes a character): the Rust backend copies ASCII text straight into new string objects."""
    args = {s: [s, {s: s}] for s in STRINGS}
    calls = [
        {
            "id": s,
            "type": "function",
            "function": {"name": s, "arguments": json.dumps(args, ensure_ascii=ensure_ascii)},
        }
        for s in STRINGS
    ]
    text = json.dumps({"choices": [{"message": {"tool_calls": calls}}]}, ensure_ascii=ensure_ascii)
    response = make.OpenAIResponseParser().parse(text.encode() if as_bytes else text)
    got: list[str] = []
    for call, s in zip(response.tool_calls, STRINGS, strict=True):
        assert call.name == s and call.id == s
        assert call.arguments == args
        got += [call.name, call.id]
        for key, (item, inner) in call.arguments.items():
            got += [key, item, *inner.keys(), *inner.values()]
    for s in got:
        twin = "".join(list(s))  # made by Python
        assert s == twin and hash(s) == hash(twin)
        assert s.isascii() == twin.isascii()
        if len(s) > 1:  # (one character: Python's shared string, which may hold a
            # cached UTF-8 copy by now, one that `twin` would be as well)
            assert sys.getsizeof(s) == sys.getsizeof(twin), repr(s)
