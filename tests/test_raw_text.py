"""`RawTextParser`: the raw-text dialects through the public API, on both backends (every
dialect vector through `parse`, which makes this the Rust-vs-pure differential of the
dialects too), the batch, file and Arrow paths on JSONL of texts, auto and pickling."""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import both_backends, calls_as_dicts, same
from toolsift import formats
from toolsift._types import AgentResponse
from toolsift.parsers import RawTextParser

VECTORS = Path(__file__).parent / "vectors" / "dialects"


def vectors(name: str) -> list[dict[str, Any]]:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def cases() -> list[Any]:
    return [
        pytest.param(name, case, id=f"{name}: {case['name']}")
        for name in formats.DIALECT_NAMES
        for case in vectors(name)
    ]


def dumped(response: AgentResponse) -> dict[str, Any]:
    return {
        "tool_calls": calls_as_dicts(response),
        "content": response.content,
        "reasoning": response.reasoning,
    }


@pytest.mark.parametrize(("dialect", "case"), cases())
def test_every_vector_through_parse(make: Any, dialect: str, case: dict[str, Any]) -> None:
    parser = make.RawTextParser(dialect, tools=case.get("tools"))
    response = parser.parse(case["input"])
    assert same(dumped(response), case["expect"]), f"got {dumped(response)!r}"
    assert response.error is None and response.raw == case["input"]
    # bytes are read as UTF-8
    assert dumped(parser.parse(case["input"].encode())) == dumped(response)


def test_the_public_names_are_the_backends_dialects() -> None:
    from toolsift._pure import dialects

    assert formats.DIALECT_NAMES == tuple(dialects.DIALECTS)


def jsonl_lines(dialect: str) -> list[tuple[bytes, dict[str, Any]]]:
    """Each vector's text as a JSON-string line, and as a plain line where it is one line
    (not blank, not itself JSON): (line, the case)."""
    lines = []
    for case in vectors(dialect):
        text = case["input"]
        lines.append((json.dumps(text).encode(), case))
        plain = text.strip() and "\n" not in text and "\r" not in text
        if plain and not text.lstrip().startswith(("{", "[", '"')):
            lines.append((text.encode(), case))
    return lines


@pytest.mark.parametrize("dialect", formats.DIALECT_NAMES)
def test_parse_many_and_parse_file_read_jsonl_lines(
    make: Any, dialect: str, tmp_path: Path
) -> None:
    lines = jsonl_lines(dialect)
    parser = make.RawTextParser(
        dialect, tools=next((c["tools"] for c in vectors(dialect) if "tools" in c), None)
    )
    expected = [dumped(parser.parse(case["input"])) for _, case in lines]
    many = parser.parse_many([line for line, _ in lines])
    assert [dumped(r) for r in many] == expected
    path = tmp_path / "texts.jsonl"
    path.write_bytes(b"\n".join(line for line, _ in lines) + b"\n")
    from_file = list(parser.parse_file(str(path)))
    assert [dumped(r) for r in from_file] == expected
    assert all(r.error is None for r in from_file)


@pytest.mark.parametrize("dialect", formats.DIALECT_NAMES)
def test_to_arrow_gives_the_calls_in_rows(make: Any, dialect: str, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    lines = jsonl_lines(dialect)
    parser = make.RawTextParser(dialect)
    path = tmp_path / "texts.jsonl"
    path.write_bytes(b"\n".join(line for line, _ in lines) + b"\n")
    rows = parser.to_arrow(str(path)).to_pylist()
    expected = [
        (number, index, call.name, call.raw_arguments)
        for number, (_, case) in enumerate(lines)
        for index, call in enumerate(parser.parse(case["input"]).tool_calls)
    ]
    assert [(r["record"], r["call_index"], r["name"], r["raw_arguments"]) for r in rows] == expected
    assert {r["format"] for r in rows} <= {dialect}
    assert all(r["error"] is None for r in rows)
    batches = list(parser.arrow_batches(str(path), batch_rows=3))
    assert sum(b.num_rows for b in batches) == len(rows)


def test_auto_reads_each_text_by_its_markers(make: Any) -> None:
    auto = make.RawTextParser("auto")
    hermes = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.g:0"
        '<|tool_call_argument_begin|>{"b": 2}<|tool_call_end|><|tool_calls_section_end|>'
    )
    assert calls_as_dicts(auto.parse(hermes)) == calls_as_dicts(
        make.RawTextParser("hermes").parse(hermes)
    )
    assert calls_as_dicts(auto.parse(kimi)) == calls_as_dicts(
        make.RawTextParser("kimi-k2").parse(kimi)
    )
    # Bare JSON is never guessed; text no dialect recognizes is all content, no error.
    bare = '{"name": "f", "parameters": {"a": 1}}'
    for text in (bare, "just prose"):
        response = auto.parse(text)
        assert response.tool_calls == [] and response.error is None
        assert response.content == text


def test_auto_format_column_names_the_dialect(make: Any) -> None:
    pytest.importorskip("pyarrow")
    texts = ['<tool_call>{"name": "f", "arguments": {}}</tool_call>', "prose"]
    rows = make.RawTextParser("auto").to_arrow(texts).to_pylist()
    assert [(r["record"], r["format"], r["name"]) for r in rows] == [(0, "hermes", "f")]


def test_tools_type_the_xml_values(make: Any) -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"properties": {"n": {"type": "integer"}, "zip": {"type": "string"}}},
            },
        }
    ]
    text = (
        "<tool_call><function=f><parameter=n>42</parameter>"
        "<parameter=zip>03106</parameter></function></tool_call>"
    )
    assert make.RawTextParser("qwen3-coder", tools=tools).parse(text).tool_calls[0].arguments == {
        "n": 42,
        "zip": "03106",
    }
    assert make.RawTextParser("qwen3-coder").parse(text).tool_calls[0].arguments == {
        "n": "42",
        "zip": "03106",
    }


def test_bad_arguments_are_refused(make: Any) -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        make.RawTextParser("no-such-dialect")
    with pytest.raises(TypeError, match="tools must be a list"):
        make.RawTextParser("hermes", tools="[]")


def test_pickles_as_class_and_options(make: Any) -> None:
    tools = [{"name": "f", "parameters": {}}]
    parser = pickle.loads(pickle.dumps(RawTextParser("glm", tools=tools)))
    assert type(parser) is RawTextParser
    assert (parser.dialect, parser.tools) == ("glm", tools)
    assert repr(make.RawTextParser("auto")) == "RawTextParser('auto')"


def test_the_new_response_fields() -> None:
    response = AgentResponse([], "t", None, "c", "r")
    assert (response.content, response.reasoning) == ("c", "r")
    assert response != AgentResponse([], "t")
    assert pickle.loads(pickle.dumps(response)) == response
    assert repr(response) == "AgentResponse(tool_calls=[], raw='t', content='c', reasoning='r')"
    assert response.model_dump()["content"] == "c"
    assert AgentResponse().content is None and AgentResponse().reasoning is None


def test_other_parsers_leave_them_none(make: Any) -> None:
    body = {"choices": [{"message": {"content": "hi", "tool_calls": []}}]}
    response = make.OpenAIResponseParser().parse(json.dumps(body))
    assert (response.content, response.reasoning) == (None, None)


def test_cli_extract_with_a_dialect_and_tools(impl: str, tmp_path: Path) -> None:
    from test_cli import run

    texts = tmp_path / "texts.jsonl"
    call = "<tool_call><function=f><parameter=n>7</parameter></function></tool_call>"
    texts.write_text(json.dumps(call) + "\nprose\n" + "before " + call + "\n")
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps([{"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}])
    )
    done = run(impl, "extract", texts, "--format", "qwen3-coder", "--tools", tools)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["record"], r["format"], r["name"], r["arguments"]) for r in rows] == [
        (0, "qwen3-coder", "f", {"n": 7}),
        (2, "qwen3-coder", "f", {"n": 7}),
    ]
    hermes = tmp_path / "hermes.jsonl"
    hermes.write_text('<tool_call>{"name": "g", "arguments": {"a": 1}}</tool_call>\n')
    done = run(impl, "extract", hermes, "--format", "hermes", "--tools", tools)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["arguments"] == {"a": 1}


@pytest.mark.parametrize(
    ("tools_text", "message"),
    [(None, "cannot read"), ("{not json", "cannot read"), ('{"a": 1}', "expected a JSON list")],
)
def test_cli_refuses_a_bad_tools_file(
    impl: str, tmp_path: Path, tools_text: str | None, message: str
) -> None:
    from test_cli import run

    texts = tmp_path / "texts.jsonl"
    texts.write_text("prose\n")
    tools = tmp_path / "tools.json"
    if tools_text is not None:
        tools.write_text(tools_text)
    done = run(impl, "extract", texts, "--format", "hermes", "--tools", tools)
    assert done.returncode == 2 and message in done.stderr
    done = run(impl, "extract", texts, "--format", "openai", "--tools", tools)
    assert (
        done.returncode == 2 and "--tools can only be used with a raw-text dialect" in done.stderr
    )


DOCS = Path(__file__).resolve().parent.parent
PAGES = (DOCS / "README.md", DOCS / "docs" / "formats.md")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_the_docs_hold_the_dialect_and_schema_tables(page: Path) -> None:
    from toolsift._pure.dialects import _schema

    text = page.read_text("utf-8")
    assert formats.dialect_table() in text
    schema_table = "\n".join(
        line for line in (_schema.__doc__ or "").splitlines() if line.startswith("|")
    )
    assert schema_table in text


# Pieces of Python string literals: quotes inside, every escape kind, raw text, newlines,
# control characters, non-ASCII.
_LITERAL_PIECES = ["a", " ", '"', "'", "\\", "\n", "\t", "\x01", "\x1f", "é", "😀", "{", "}"]
_LITERAL_PIECES += ["\\n", "\\x41", "\\u00e9", "\\N", "\\777", "\\0", '"""', "'''"]


def test_pythonic_string_literals_read_alike_on_both_backends() -> None:
    """The native scanner copies a literal's plain runs at once: it must still read every
    quote, escape and prefix as the pure spec does (seeded, 3,000 texts)."""
    rust, pure = (backend.Parser("pythonic") for backend in both_backends())
    rng = random.Random(0)

    def literal() -> str:
        quote = rng.choice(['"', "'", '"""', "'''"])
        body = "".join(rng.choice(_LITERAL_PIECES) for _ in range(rng.randint(0, 12)))
        return rng.choice(["", "r", "u", "R"]) + quote + body + quote

    for _ in range(3000):
        text = f"<|python_start|>[f(a={literal()}, b={literal()})]<|python_end|>"
        got, want = rust.parse(text), pure.parse(text)
        assert same(calls_as_dicts(got), calls_as_dicts(want)), text
        assert got.content == want.content, text
