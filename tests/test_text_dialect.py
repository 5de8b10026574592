"""`text_dialect=`: provider responses whose assistant text holds tool calls as raw text
(a vLLM, SGLang, llama.cpp or Ollama server started without a tool-call parser), on both
backends: tests/vectors/text-dialect.json (which `cargo test` reads too) through `parse`
(dicts, JSON text), `parse_many`, `parse_file`, `to_arrow`, batch envelopes, pickling."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from conftest import calls_as_dicts, same
from toolsift import formats
from toolsift._types import AgentResponse

CASES = json.loads((Path(__file__).parent / "vectors" / "text-dialect.json").read_text("utf-8"))


def parser_of(make: Any, case: dict[str, Any], **options: Any) -> Any:
    name = case["parser"]
    cls = formats.AUTO_PARSER_CLASS if name == formats.AUTO else formats.by_name(name).parser_class
    return getattr(make, cls)(**options)


def text_parser(make: Any, case: dict[str, Any]) -> Any:
    return parser_of(make, case, text_dialect=case["text_dialect"], tools=case.get("tools"))


def dumped(response: AgentResponse) -> dict[str, Any]:
    return {
        "tool_calls": calls_as_dicts(response),
        "content": response.content,
        "reasoning": response.reasoning,
    }


def structured(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls the response's structure holds (the vectors' structured calls have
    OpenAI-style ids `call_...`; no dialect gives such ids)."""
    return [c for c in case["expect"]["tool_calls"] if (c["id"] or "").startswith("call_")]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_vector_through_parse(make: Any, case: dict[str, Any]) -> None:
    parser = text_parser(make, case)
    text = json.dumps(case["input"], ensure_ascii=False)
    for raw in (case["input"], text, text.encode()):
        response = parser.parse(raw)
        assert same(dumped(response), case["expect"]), f"got {dumped(response)!r}"
        assert response.error is None and response.raw is raw


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_without_text_dialect_nothing_changes(make: Any, case: dict[str, Any]) -> None:
    response = parser_of(make, case).parse(case["input"])
    assert calls_as_dicts(response) == structured(case)
    assert response.content is None and response.reasoning is None
    assert "content" not in response.model_dump()


def test_bulk_paths(make: Any, tmp_path: Path) -> None:
    """parse_many, parse_file and to_arrow give what parse gives, line by line; an
    OpenAI Batch API line is unwrapped."""
    openai = [c for c in CASES if c["parser"] == "openai" and "tools" not in c]
    for dialect in sorted({c["text_dialect"] for c in openai}):
        cases = [c for c in openai if c["text_dialect"] == dialect]
        parser = make.OpenAIResponseParser(text_dialect=dialect)
        lines = [json.dumps(c["input"]) for c in cases]
        lines.append(
            json.dumps(
                {"custom_id": "r1", "response": {"status_code": 200, "body": cases[0]["input"]}}
            )
        )
        expected = [c["expect"] for c in cases] + [cases[0]["expect"]]
        got = [dumped(r) for r in parser.parse_many(lines)]
        assert got == expected
        path = tmp_path / f"{dialect}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        assert [dumped(r) for r in parser.parse_file(path)] == expected
        table = parser.to_arrow(str(path)).to_pylist()
        rows = [(row["record"], row["name"], row["format"]) for row in table]
        want = [
            (number, call["name"], "openai")
            for number, case in enumerate(expected)
            for call in case["tool_calls"]
        ]
        assert rows == want
        if cases[0]["expect"]["tool_calls"]:
            assert table[-1]["custom_id"] == "r1"
        batches = parser.arrow_batches(str(path)).read_all().to_pylist()
        assert batches == table


def test_auto_parser_and_pickling(make: Any) -> None:
    case = next(c for c in CASES if c["parser"] == "auto")
    parser = make.AutoResponseParser(text_dialect="auto")
    assert dumped(parser.parse(case["input"])) == case["expect"]
    copy = pickle.loads(pickle.dumps(parser))
    assert dumped(copy.parse(case["input"])) == case["expect"]
    assert repr(copy) == "AutoResponseParser(text_dialect='auto')"
    tools = [{"name": "f", "parameters": {}}]
    typed = make.OllamaResponseParser(text_dialect="qwen3-coder", tools=tools)
    assert repr(pickle.loads(pickle.dumps(typed))) == (
        "OllamaResponseParser(text_dialect='qwen3-coder', tools=[...1])"
    )
    assert repr(make.OpenAIResponseParser()) == "OpenAIResponseParser()"


def test_completions_and_sdk_objects(make: Any) -> None:
    """Auto-detection reads a `/v1/completions` response as `openai`; the openai SDK's
    ChatCompletion (read by attribute) gives what its dict gives."""
    completions = next(c for c in CASES if c["input"].get("object") == "text_completion")
    auto = make.AutoResponseParser(text_dialect=completions["text_dialect"])
    assert dumped(auto.parse(completions["input"])) == completions["expect"]
    openai_chat = pytest.importorskip("openai.types.chat")
    for case in CASES:
        doc = case["input"]
        chat = case["parser"] == "openai" and doc.get("object") == "chat.completion"
        # The SDK's message content is a str (or None).
        if not chat or any(isinstance(c["message"]["content"], list) for c in doc["choices"]):
            continue
        doc = {"created": 0, **copy.deepcopy(doc)}
        for choice in doc["choices"]:
            choice.setdefault("finish_reason", "stop")
        sdk = openai_chat.ChatCompletion.model_validate(doc)
        parser = text_parser(make, case)
        assert dumped(parser.parse(sdk)) == case["expect"], case["name"]


def test_wrong_options(make: Any) -> None:
    with pytest.raises(ValueError, match=r"unknown dialect 'nope'; expected one of: .*hermes"):
        make.OpenAIResponseParser(text_dialect="nope")
    # Without text_dialect, `tools` check the calls (issue 41: `violations`), not an error.
    assert make.OpenAIResponseParser(tools=[]).parse({"choices": []}).tool_calls == []
    with pytest.raises(TypeError, match="tools must be a list"):
        make.OpenAIResponseParser(text_dialect="hermes", tools="[]")
    with pytest.raises(TypeError):
        make.JsonResponseParser(text_dialect="hermes")  # no assistant text: no option


def test_stream_reads_structured_calls(make: Any) -> None:
    """A stream with `text_dialect` reads the provider's stream events (structured calls)."""
    stream = make.OpenAIResponseParser(text_dialect="hermes").stream()
    call = {"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{}"}}
    delta = {"tool_calls": [call]}
    stream.feed({"choices": [{"index": 0, "delta": delta, "finish_reason": "tool_calls"}]})
    assert [c.name for c in stream.finish().tool_calls] == ["f"]


def test_cli_text_dialect(impl: str, tmp_path: Path) -> None:
    """`--text-dialect NAME` (with `--tools FILE`) on provider formats and auto; refused
    for the formats without assistant text."""
    from test_cli import run

    cases = [c for c in CASES if c["parser"] == "ollama"]
    lines = tmp_path / "ollama.jsonl"
    lines.write_text("".join(json.dumps(c["input"]) + "\n" for c in cases))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(cases[0]["tools"]))
    for format in ("ollama", "auto"):
        options = ("--format", format, "--text-dialect", "qwen3-coder", "--tools", tools)
        done = run(impl, "extract", lines, *options)
        assert done.returncode == 0, done.stderr
        rows = [json.loads(line) for line in done.stdout.splitlines()]
        got = [(r["record"], r["format"], r["name"], r["arguments"]) for r in rows]
        assert got == [
            (number, "ollama", call["name"], call["arguments"])
            for number, case in enumerate(cases)
            for call in (case["expect"]["tool_calls"] if number == 0 else [])
        ] + [(1, "ollama", "book", {"people": 4})]
    for format in ("json", "hermes"):
        done = run(impl, "extract", lines, "--format", format, "--text-dialect", "hermes")
        assert done.returncode == 2 and "--text-dialect reads provider responses" in done.stderr
    done = run(impl, "extract", lines, "--text-dialect", "nope")
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_engines_take_text_dialect(make: Any) -> None:
    """Ray and Spark make their parser by `parser_for` (a format name and options, or an
    instance pickled as its class and options): `text_dialect` goes with them."""
    from toolsift import _engines

    case = next(c for c in CASES if c["parser"] == "openai")
    parser = _engines.parser_for("openai", text_dialect="hermes")
    assert dumped(parser.parse(case["input"])) == case["expect"]
    shipped = pickle.loads(pickle.dumps(make.OpenAIResponseParser(text_dialect="hermes")))
    assert dumped(_engines.parser_for(shipped).parse(case["input"])) == case["expect"]
