"""Argument defects and the audited repairs of `repair="safe"` (issue 41, items 5 and 6):
the shared vectors (tests/vectors/defects.json, also read by `cargo test`) through every
door on both backends, the rules' properties (hypothesis), and both backends against
each other on any text."""

from __future__ import annotations

import importlib.util
import json
import pickle
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import VECTORS, bind, both_backends, same
from hypothesis import given, settings
from hypothesis import strategies as st
from toolsift import ToolCall, parsers
from toolsift._pure.defects import DEFECTS, REPAIRS, by_limit, salvage

CASES = json.loads((VECTORS / "defects.json").read_text("utf-8"))["cases"]
for _case in CASES:  # a text given in pieces (make_defects_vectors.py), put together
    if not isinstance(_case["text"], str):
        _case["text"] = "".join(
            p if isinstance(p, str) else p["$repeat"] * p["times"] for p in _case["text"]
        )
IDS = [case["name"] for case in CASES]


def openai(*arguments: Any) -> str:
    """An OpenAI chat completion with a call per arguments value."""
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": f"f{i}", "arguments": value}}
        for i, value in enumerate(arguments)
    ]
    return json.dumps({"choices": [{"message": {"role": "assistant", "tool_calls": calls}}]})


def test_the_vectors_are_the_specification() -> None:
    for case in CASES:
        found = salvage(case["text"])
        assert found.defect == case["defect"], case["name"]
        assert list(found.repairs) == case["repairs"], case["name"]
        assert same(found.arguments, case["arguments"]), case["name"]
    assert {case["defect"] for case in CASES} == set(DEFECTS) - {"truncated_by_limit"}
    assert {code for case in CASES for code in case["repairs"]} == set(REPAIRS)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_vector_through_parse(make: Any, case: dict[str, Any]) -> None:
    text = case["text"]
    plain = make.OpenAIResponseParser().parse(openai(text)).tool_calls[0]
    assert (plain.arguments, plain.raw_arguments) == ({}, text)
    assert plain.defect == case["defect"] and plain.repairs is None
    repaired = make.OpenAIResponseParser(repair="safe").parse(openai(text)).tool_calls[0]
    assert repaired.raw_arguments == text and repaired.defect == case["defect"]
    if case["arguments"] is None:
        assert repaired.arguments == {} and repaired.repairs is None
    else:
        assert same(repaired.arguments, case["arguments"])
        assert repaired.repairs == case["repairs"]
        assert repaired.model_dump()["repairs"] == case["repairs"]


def test_vectors_through_every_bulk_door(make: Any, tmp_path: Path) -> None:
    """parse_many, parse_file, to_arrow (in memory and from a file) and a dict input
    give the same defects and repairs as `parse`."""
    texts = [case["text"] for case in CASES]
    records = [openai(text) for text in texts]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(records) + "\n", "utf-8")
    for repair in (None, "safe"):
        parser = make.OpenAIResponseParser(repair=repair)
        expected = [
            (c.arguments, c.raw_arguments, c.defect, c.repairs)
            for c in (parser.parse(r).tool_calls[0] for r in records)
        ]
        for responses in (
            parser.parse_many(records),
            list(parser.parse_file(path)),
            [parser.parse(json.loads(r)) for r in records],
        ):
            got = [
                (c.arguments, c.raw_arguments, c.defect, c.repairs)
                for c in (r.tool_calls[0] for r in responses)
            ]
            assert got == expected
        for table in (parser.to_arrow(records), parser.to_arrow(str(path))):
            rows = table.select(["arguments", "raw_arguments", "defect", "repairs"]).to_pylist()
            assert [
                (json.loads(r["arguments"]), r["raw_arguments"], r["defect"], r["repairs"])
                for r in rows
            ] == expected


def test_custom_tool_input_is_no_defect(make: Any) -> None:
    chat = json.dumps(
        {
            "choices": [
                {
                    "message": {
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "custom",
                                "custom": {"name": "sh", "input": "ls {x"},
                            }
                        ]
                    }
                }
            ]
        }
    )
    responses = json.dumps(
        {
            "object": "response",
            "output": [
                {"type": "custom_tool_call", "call_id": "c", "name": "sh", "input": "{'a': 1,}"}
            ],
        }
    )
    for parser, record in (
        (make.OpenAIResponseParser(repair="safe"), chat),
        (make.OpenAIResponsesParser(repair="safe"), responses),
    ):
        call = parser.parse(record).tool_calls[0]
        assert call.raw_arguments is not None and call.arguments == {}
        assert call.defect is None and call.repairs is None
        row = parser.to_arrow([record]).to_pylist()[0]
        assert row["raw_arguments"] == call.raw_arguments and row["defect"] is None


def test_other_formats_and_dialects_have_defects(make: Any) -> None:
    anthropic_stream = [  # a stream cut inside the input
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Pa'},
        },
    ]
    call = make.AnthropicResponseParser().parse(anthropic_stream).tool_calls[0]
    assert (call.raw_arguments, call.defect) == ('{"city": "Pa', "truncated")
    hermes = '<tool_call>\n{"name": "f", "arguments": {"a": 1},}\n</tool_call>'
    call = make.RawTextParser("hermes").parse(hermes).tool_calls[0]
    assert call.defect is not None and call.raw_arguments is not None
    gemini = {
        "candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": "[1]"}}]}}]
    }
    call = make.GeminiResponseParser(repair="safe").parse(gemini).tool_calls[0]
    assert (call.defect, call.repairs) == ("not_an_object", None)
    stream = make.OpenAIResponseParser().stream()
    stream.feed(
        {
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c",
                                "function": {"name": "f", "arguments": '{"a": [1'},
                            }
                        ]
                    },
                }
            ]
        }
    )
    assert [c.defect for c in stream.partial()] == ["truncated"]
    assert [c.defect for c in stream.finish().tool_calls] == ["truncated"]


def test_repair_is_an_option_of_every_parser_class(make: Any) -> None:
    for name in parsers.__all__:
        cls = getattr(make, name)
        args = ("hermes",) if name == "RawTextParser" else ()
        parser = cls(*args, repair="safe")
        assert parser.repair == "safe" and "repair='safe'" in repr(parser)
        copy = pickle.loads(pickle.dumps(parser))
        assert copy.repair == "safe" and repr(copy) == repr(parser)
        assert cls(*args).repair is None and "repair" not in repr(cls(*args))
        with pytest.raises(ValueError, match="repair must be None or 'safe'"):
            cls(*args, repair="aggressive")


def test_defect_and_repairs_of_a_tool_call() -> None:
    plain = ToolCall("f", {}, None, "{oops")
    assert (plain.defect, plain.repairs) == (None, None)
    assert plain.model_dump() == {
        "name": "f",
        "arguments": {},
        "id": None,
        "raw_arguments": "{oops",
    }
    made = ToolCall(
        "f", {"a": 1}, "c", "{'a': 1}", defect="single_quotes", repairs=["single_quotes"]
    )
    assert made == ToolCall("f", {"a": 1})  # equality: name and arguments
    assert made.model_dump()["repairs"] == ["single_quotes"] and "defect" not in made.model_dump()
    assert "defect='single_quotes'" in repr(made) and "repairs=['single_quotes']" in repr(made)
    copy = pickle.loads(pickle.dumps(made))
    assert (copy.defect, copy.repairs, copy.raw_arguments) == (
        "single_quotes",
        ["single_quotes"],
        "{'a': 1}",
    )


def test_truncated_by_the_token_limit() -> None:
    assert by_limit("truncated", "length") == "truncated_by_limit"
    assert by_limit("truncated", "max_tokens") == "truncated_by_limit"
    assert by_limit("truncated", "MAX_TOKENS") == "truncated_by_limit"
    assert by_limit("truncated", "stop") == "truncated"
    assert by_limit("not_json", "length") == "not_json"
    assert by_limit(None, "length") is None


def test_cli_repair_and_defects_line(impl: str, tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(openai("{'a': 1}", '{"b": 2', "{}") + "\n", "utf-8")
    out = tmp_path / "out.jsonl"
    env = {"TOOLSIFT_IMPLEMENTATION": impl, "PYTHONPATH": ":".join(sys.path)}
    for flags, repairs, arguments in (
        ([], None, {}),
        (["--repair", "safe"], ["single_quotes"], {"a": 1}),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "toolsift", "extract", str(path), "-o", str(out), *flags],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=300,
        )
        rows = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
        assert [r["defect"] for r in rows] == ["single_quotes", "truncated", None]
        assert rows[0]["repairs"] == repairs and rows[0]["arguments"] == arguments
        assert "toolsift: argument defects: 1 single_quotes, 1 truncated\n" in done.stderr
    csv = tmp_path / "out.csv"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "toolsift",
            "extract",
            str(path),
            "-o",
            str(csv),
            "--repair",
            "safe",
        ],
        capture_output=True,
        env=env,
        check=True,
        timeout=300,
    )
    # A list column is its JSON text in CSV (`repairs` as `violations`).
    assert '"single_quotes","[""single_quotes""]"' in csv.read_text("utf-8")


# ------------------------------------------------------------------ properties

_PLAIN = string.ascii_letters + string.digits + " _-"
_scalars = st.one_of(
    st.text(_PLAIN, max_size=8),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(_PLAIN, min_size=1, max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_objects = st.dictionaries(st.text(_PLAIN, min_size=1, max_size=6), _values, max_size=4)


def _python_repr(value: Any) -> str:
    """`value` as Python writes it (single quotes, True/False/None)."""
    return repr(value)


def _damaged(value: dict[str, Any], how: list[str]) -> str:
    """JSON text of `value` damaged the ways the safe repairs undo."""
    text = _python_repr(value) if "python" in how else json.dumps(value)
    if "trailing" in how:
        text = text[:-1] + ",}" if value else text
    if "comment" in how:
        text = "/* args */ " + text + " // end"
    if "fence" in how:
        text = f"```json\n{text}\n```"
    if "prose" in how:
        text = f"Calling the tool: {text} Thanks."
    if "double" in how:
        text = json.dumps(text)
    return text


@settings(max_examples=150, deadline=None)
@given(
    _objects,
    st.lists(
        st.sampled_from(["python", "trailing", "comment", "fence", "prose", "double"]),
        min_size=1,
        unique=True,
    ),
)
def test_a_repair_gives_back_the_object_damaged(value: dict[str, Any], how: list[str]) -> None:
    text = _damaged(value, how)
    try:
        if isinstance(json.loads(text), dict):
            return  # not damaged after all (`{}` has no quotes or commas to damage)
    except ValueError:
        pass
    found = salvage(text)
    assert found.arguments is not None, (text, found)
    assert same(found.arguments, value), (text, found)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [*value, *(leaf for v in value.values() for leaf in _leaves(v))]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _appears(leaf: Any, text: str) -> bool:
    """Whether a key or scalar of a repaired object is written in `text`."""
    if leaf is None:
        return "null" in text or "None" in text
    if isinstance(leaf, bool):
        return str(leaf).lower() in text or str(leaf) in text
    if isinstance(leaf, str):
        return leaf in text or json.dumps(leaf)[1:-1] in text or "\\" in text
    return str(leaf) in text or "e" in text.lower() or "." in text


_TOKENS = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        '"a"',
        "'b'",
        '"c d"',
        "1",
        "-2.5",
        "True",
        "None",
        "null",
        "false",
        "// x\n",
        "/* y */",
        "```json\n",
        "\n```",
        "Sure: ",
        "\n",
        "\t",
        '"\\"',
        "'it\\'s'",
        '"x\ny"',
        "\\",
        "'",
        '"',
    ]
)
_texts = st.one_of(st.text(max_size=40), st.lists(_TOKENS, max_size=24).map("".join))


@settings(max_examples=400, deadline=None)
@given(_texts)
def test_a_repair_invents_nothing_and_is_idempotent(text: str) -> None:
    found = salvage(text)
    assert found.defect in DEFECTS
    if found.arguments is None:
        assert found.repairs == ()
        return
    assert found.repairs and found.defect == found.repairs[0]
    for leaf in _leaves(found.arguments):
        assert _appears(leaf, text), (leaf, text)
    # The repaired text decodes by the normal path; repairing it again changes nothing.
    assert found.text is not None and same(json.loads(found.text), found.arguments)
    assert salvage(json.dumps(found.arguments)).arguments is None


@settings(max_examples=100, deadline=None)
@given(_objects)
def test_a_decodable_object_is_never_repaired(value: dict[str, Any]) -> None:
    record = openai(json.dumps(value))
    for backend in both_backends():
        parser = bind(parsers.OpenAIResponseParser, backend)(repair="safe")
        call = parser.parse(record).tool_calls[0]
        assert same(call.arguments, value)
        assert (call.raw_arguments, call.defect, call.repairs) == (None, None, None)


@settings(max_examples=300, deadline=None)
@given(_texts)
def test_both_backends_repair_alike(text: str) -> None:
    """The differential check: the same defect and the same repair (or none) on both."""
    record = openai(text)
    got = []
    for backend in both_backends():
        parser = bind(parsers.OpenAIResponseParser, backend)(repair="safe")
        call = parser.parse(record).tool_calls[0]
        row = parser.to_arrow([record]).to_pylist()[0]
        got.append((call.arguments, call.raw_arguments, call.defect, call.repairs, row))
    assert same(got[0][:4], got[1][:4]), (text, got)
    assert got[0][4] == got[1][4], (text, got)


def test_truncated_by_limit_in_the_table(make: Any) -> None:
    """Cut text in a choice that ended at the token limit: `truncated_by_limit` in the
    `defect` column (which has the finish reason); the call's own `defect` stays
    `truncated` (a ToolCall has no finish reason)."""
    cut = {"id": "c1", "function": {"name": "f", "arguments": '{"a": "hel'}}
    choices = [
        {"index": 0, "finish_reason": "length", "message": {"tool_calls": [cut]}},
        {"index": 1, "finish_reason": "tool_calls", "message": {"tool_calls": [cut]}},
    ]
    record = json.dumps({"choices": choices})
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow([record])
    assert table.column("defect").to_pylist() == ["truncated_by_limit", "truncated"]
    assert [c.defect for c in parser.parse(record).tool_calls] == ["truncated", "truncated"]


# Issue 39's linear-time check (benches/dialects_linear.py): adversarial argument texts
# after each dialect's marker of JSON arguments. The reader takes them as runs, not a
# character at a time; the result stays one call, its text kept (stripped), cut.
_ARGUMENT_MARKERS = {
    "kimi-k2": "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>",
    "deepseek-v3.1": "<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>",
    "deepseek-v3": "<\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>f\n",
    "harmony": "<|channel|>commentary to=functions.f<|message|>",
}
_ADVERSARIAL_ARGUMENTS = {
    "a million {": "{" * 1_000_000,
    "a million [": "[" * 1_000_000,
    "{ and spaces": "{ " * 500_000 + "{",
    "backslash run": '{"a": "' + "\\" * 1_000_000,
    "odd backslash run": '{"a": "' + "\\" * 999_999,
    "escaped quotes": '{"a": "' + '\\"' * 500_000,
    "many items": '{"a": [' + "1, " * 300_000 + "1",
    "many keys": '{"a": ' * 200_000 + "1",
}


@pytest.mark.parametrize("dialect", sorted(_ARGUMENT_MARKERS))
@pytest.mark.parametrize("case", sorted(_ADVERSARIAL_ARGUMENTS))
def test_adversarial_arguments_are_one_cut_call(make: Any, dialect: str, case: str) -> None:
    arguments = _ADVERSARIAL_ARGUMENTS[case]
    for repair in (None, "safe"):
        parser = make.RawTextParser(dialect, repair=repair)
        calls = parser.parse(_ARGUMENT_MARKERS[dialect] + arguments).tool_calls
        assert [(c.name, c.arguments, c.defect, c.repairs) for c in calls] == [
            ("f", {}, "truncated", None)
        ]
        assert calls[0].raw_arguments == arguments


def _linear_bench() -> Any:
    path = Path(__file__).resolve().parents[1] / "benches" / "dialects_linear.py"
    spec = importlib.util.spec_from_file_location("dialects_linear", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    path_before = list(sys.path)
    try:
        spec.loader.exec_module(module)
    finally:  # the bench puts the tree's python/ first; tests of an installed wheel do not
        sys.path[:] = path_before
    return module


def test_the_linear_bench_texts_read_alike_on_both_backends() -> None:
    """Every text of benches/dialects_linear.py (ordinary and adversarial, 20 KB each):
    the same calls (defects and repairs too), content, reasoning and error on both."""
    bench = _linear_bench()
    for dialect, case, text in bench.texts(None, 20_000):
        got = []
        for backend in both_backends():
            parser = bind(parsers.RawTextParser, backend)(dialect, repair="safe")
            response = parser.parse(text)
            got.append(
                (
                    [call.model_dump() for call in response.tool_calls],
                    response.content,
                    response.reasoning,
                    response.error,
                )
            )
        assert same(got[0], got[1]), (dialect, case)
