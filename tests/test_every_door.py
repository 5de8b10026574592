"""The same record, the same answer through every door: `parse` and `parse_many` (of
text, dicts and SDK objects), `parse_file` and `to_arrow` unwrap batch envelopes alike,
take `record_path` alike, and a named parser given another provider's response says so
(`FormatMismatchWarning`), on both backends."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import toolsift
from toolsift import FormatMismatchWarning, parsers

SAMPLES = Path(toolsift.__file__).parent / "samples"


def calls_of(response: Any) -> list[tuple[str, Any, Any, Any]]:
    return [(c.name, c.arguments, c.id, c.raw_arguments) for c in response.tool_calls]


def answers(responses: list[Any]) -> list[tuple[Any, Any]]:
    return [(calls_of(r), r.error) for r in responses]


def records(path: Path) -> list[bytes]:
    return [line for line in path.read_bytes().splitlines() if line.strip()]


def decodable(lines: list[bytes]) -> list[bytes]:
    found = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            continue
        found.append(line)
    return found


@pytest.mark.parametrize("sample", ["openai_batch_output.jsonl", "gemini_batch_output.jsonl"])
@pytest.mark.parametrize("parser", ["OpenAIResponseParser", "GeminiResponseParser", "auto"])
def test_batch_output_same_through_every_door(make: Any, sample: str, parser: str) -> None:
    path = SAMPLES / sample
    if parser == "auto":
        parser = "AutoResponseParser"
    elif sample.startswith("gemini") != (parser == "GeminiResponseParser"):
        pytest.skip("another provider's output: no calls either way")
    p = getattr(make, parser)()
    lines = records(path)
    from_file = answers(list(p.parse_file(path)))
    assert sum(len(calls) for calls, _ in from_file) > 100
    assert answers(p.parse_many(lines)) == from_file
    assert answers(p.parse_many([line.decode() for line in lines], threads=1)) == from_file
    good = decodable(lines)
    by_line = dict(zip(lines, from_file, strict=True))
    want = [by_line[line] for line in good]
    assert answers([p.parse(line) for line in good]) == want
    assert answers([p.parse(json.loads(line)) for line in good]) == want
    assert answers(p.parse_many([json.loads(line) for line in good])) == want
    # to_arrow's rows: the same calls and the same errors, with the custom ids
    table = p.to_arrow(path).to_pylist()
    assert sum(row["name"] is not None for row in table) == sum(len(c) for c, _ in from_file)
    assert {row["error"] for row in table} - {None} == {e for _, e in from_file} - {None}
    # a stream of in-memory records: the same rows as the file's
    assert p.to_arrow(line for line in path.read_bytes().splitlines()).to_pylist() == table


def test_the_issue_numbers(make: Any) -> None:
    """OpenAIResponseParser().parse_many of the bundled OpenAI Batch output found 0
    calls where parse_file found 336, and auto failed 300 records."""
    lines = records(SAMPLES / "openai_batch_output.jsonl")
    found = make.OpenAIResponseParser().parse_many(lines)
    assert sum(len(r.tool_calls) for r in found) == 336
    auto = make.AutoResponseParser().parse_many(lines)
    assert sum(len(r.tool_calls) for r in auto) == 336
    assert not any("unrecognized" in (r.error or "") for r in auto)


CALL = {"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}}
CHAT = {"choices": [{"message": {"tool_calls": [CALL]}}]}
GEMINI = {"candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "args": {}}}]}}]}
CLAUDE = {
    "type": "message",
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t", "name": "h", "input": {}}],
}

ENVELOPES = {
    "openai-batch": {"custom_id": "r1", "response": {"status_code": 200, "body": CHAT}},
    "openai-batch-http-error": {
        "custom_id": "r2",
        "response": {"status_code": 429, "body": {"error": {"message": "slow"}}},
        "error": None,
    },
    "openai-batch-expired": {
        "custom_id": "r3",
        "response": None,
        "error": {"code": "batch_expired", "message": "late"},
    },
    "vertex": {"request": {}, "status": "", "response": GEMINI},
    "vertex-failed": {"request": {}, "status": "Bad Request: no"},
    "gemini-batch": {"key": "k1", "response": GEMINI},
    "gemini-batch-failed": {"key": "k2", "error": {"code": 400, "message": "bad"}},
    "gemini-inlined": {"metadata": {"key": "k3"}, "response": GEMINI},
    "anthropic-batch": {"custom_id": "a1", "result": {"type": "succeeded", "message": CLAUDE}},
    "anthropic-batch-expired": {"custom_id": "a2", "result": {"type": "expired"}},
    "bedrock-batch": {
        "recordId": "b1",
        "modelInput": {},
        "modelOutput": {"output": {"message": {"content": [{"toolUse": {"name": "k"}}]}}},
    },
    "bedrock-batch-failed": {"recordId": "b2", "error": {"errorCode": 400, "errorMessage": "no"}},
    "openai-batch-of-a-stream": {
        "custom_id": "r4",
        "response": {
            "status_code": 200,
            "body": [
                {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c9", **CALL}]}}]},
                {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
            ],
        },
    },
}


@pytest.mark.parametrize("name", list(ENVELOPES))
def test_envelopes_unwrapped_by_parse_and_parse_many(make: Any, name: str, tmp_path: Path) -> None:
    record = ENVELOPES[name]
    text = json.dumps(record)
    path = tmp_path / "one.jsonl"
    path.write_text(text + "\n")
    p = make.AutoResponseParser()
    (want,) = answers(list(p.parse_file(path)))
    assert want[0] or want[1]  # calls or a provider's failure: never nothing
    assert answers([p.parse(text), p.parse(text.encode()), p.parse(record)]) == [want] * 3
    assert answers(p.parse_many([text, record])) == [want] * 2
    parsed = p.parse(record)
    assert parsed.raw is record


def test_envelope_errors_are_the_bulk_errors(make: Any) -> None:
    p = make.OpenAIResponseParser()
    assert p.parse(ENVELOPES["openai-batch-http-error"]).error == "HTTP 429: slow"
    assert p.parse(json.dumps(ENVELOPES["openai-batch-expired"])).error == (
        "batch error: batch_expired: late"
    )
    assert make.GeminiResponseParser().parse(ENVELOPES["gemini-batch-failed"]).error == (
        "batch error: 400: bad"
    )


def test_sdk_envelope_objects(make: Any) -> None:
    genai = pytest.importorskip("google.genai.types")
    batches = pytest.importorskip("anthropic.types.messages")
    inlined = genai.InlinedResponse.model_validate({"response": GEMINI, "metadata": {"key": "k1"}})
    failed = genai.InlinedResponse(error=genai.JobError(code=3, message="bad"))
    result = batches.MessageBatchIndividualResponse.model_validate(
        {
            "custom_id": "c1",
            "result": {
                "type": "succeeded",
                "message": {
                    **CLAUDE,
                    "id": "m",
                    "role": "assistant",
                    "model": "x",
                    "stop_reason": "tool_use",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            },
        }
    )
    auto = make.AutoResponseParser()
    got = auto.parse_many([inlined, failed, result])
    assert [r.raw for r in got] == [inlined, failed, result]
    assert answers(got) == [
        ([("g", {}, None, None)], None),
        ([], "batch error: 3: bad"),
        ([("h", {}, "t", None)], None),
    ]
    assert answers([make.GeminiResponseParser().parse(inlined)]) == answers(got[:1])
    assert answers([make.AnthropicResponseParser().parse(result)]) == answers(got[2:])


def test_record_path_in_parse_and_parse_many(make: Any) -> None:
    record = {"meta": {"n": 1}, "log": {"body": CHAT}}
    p = make.OpenAIResponseParser()
    want = [("f", {"a": 1}, "c1", None)]
    assert calls_of(p.parse(record, record_path="log.body")) == want
    assert calls_of(p.parse(json.dumps(record), record_path="log.body")) == want
    got = p.parse_many([record, json.dumps(record).encode()], record_path="log.body")
    assert [calls_of(r) for r in got] == [want, want]
    # an explicit path: the envelope is not looked for
    missing = p.parse(ENVELOPES["openai-batch"], record_path="log.body")
    assert (missing.tool_calls, missing.error) == ([], "nothing at record_path log.body")
    assert p.parse_many(["{}"], record_path="a.b")[0].error == "nothing at record_path a.b"
    # the checks of parse_file
    with pytest.raises(ValueError, match="must not be empty"):
        p.parse(record, record_path="")
    with pytest.raises(TypeError, match="record_path must be a str"):
        p.parse_many([record], record_path=["log", "body"])
    with pytest.raises(TypeError):
        p.parse(record, "log.body")  # keyword-only


def test_record_path_on_litert(make: Any) -> None:
    p = make.SdkResponseParser()
    record = {"out": {"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}}
    assert calls_of(p.parse(json.dumps(record), record_path="out")) == [("f", {"a": 1}, None, None)]
    assert calls_of(p.parse(record, record_path="out")) == [("f", {"a": 1}, None, None)]
    not_json = p.parse("call:f{}", record_path="out")  # never raises: the error says it
    assert not_json.tool_calls == [] and not_json.error is not None
    assert p.parse_many(["call:f{}"], record_path="out")[0].error == not_json.error


# --------------------------------------------------------------------------- FormatMismatchWarning

MISMATCH = (
    "OpenAIResponseParser found no tool call in a response that auto-detection reads as "
    "the 'gemini' format: use GeminiResponseParser (or AutoResponseParser) to read it"
)


def test_format_mismatch_warning_is_ours() -> None:
    assert issubclass(FormatMismatchWarning, UserWarning)
    assert "FormatMismatchWarning" in toolsift.__all__


@pytest.mark.parametrize("given", ["dict", "text", "bytes", "envelope"])
def test_named_parser_on_another_format_warns_once(make: Any, given: str) -> None:
    raw = {
        "dict": GEMINI,
        "text": json.dumps(GEMINI),
        "bytes": json.dumps(GEMINI).encode(),
        "envelope": json.dumps(ENVELOPES["gemini-batch"]),
    }[given]
    p = make.OpenAIResponseParser()
    with pytest.warns(FormatMismatchWarning) as caught:
        assert p.parse(raw).tool_calls == []
    assert [str(w.message) for w in caught] == [MISMATCH]
    assert caught[0].filename == __file__  # points at the caller
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p.parse(raw)  # once per parser
        p.parse_many([raw, raw])
    with pytest.warns(FormatMismatchWarning, match="'gemini' format"):
        make.OpenAIResponseParser().parse(raw)  # a new parser: again


def test_mismatch_in_batches(make: Any, tmp_path: Path) -> None:
    lines = [json.dumps(CHAT), json.dumps(GEMINI)]
    with pytest.warns(FormatMismatchWarning) as caught:
        make.OpenAIResponseParser().parse_many(lines)
    assert [str(w.message) for w in caught] == [MISMATCH]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    p = make.OpenAIResponseParser()
    with pytest.warns(FormatMismatchWarning) as caught:
        assert sum(len(r.tool_calls) for r in p.parse_file(path)) == 1
    assert [str(w.message) for w in caught] == [MISMATCH]


def test_no_mismatch_warning_where_there_is_none(make: Any) -> None:
    plain = {"choices": [{"message": {"content": "hi"}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make.OpenAIResponseParser().parse(plain)  # its own format, no call
        make.OpenAIResponseParser().parse(json.dumps(CHAT))
        make.OpenAIResponseParser().parse("{}")  # no format recognizes it
        make.OpenAIResponseParser().parse_many(["[1]", "not json", None])
        make.AutoResponseParser().parse(GEMINI)
        make.GeminiResponseParser().parse(GEMINI)


def test_mismatch_check_is_off_the_hot_path(make: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Responses with calls never start the check; a response of the parser's own format
    without calls ends it for that parser."""

    def refuse(*args: Any) -> Any:
        raise AssertionError("format check on the hot path")

    p = make.OpenAIResponseParser()
    checked = make.OpenAIResponseParser()
    checked.parse({"choices": [{"message": {"content": "hi"}}]})
    monkeypatch.setattr(parsers, "_auto_format", refuse)
    p.parse(CHAT)
    p.parse_many([CHAT, json.dumps(CHAT)] * 10)
    checked.parse(GEMINI)
    checked.parse_many([GEMINI] * 10)


@pytest.mark.parametrize("kind", ["path", "list", "array"])
def test_mismatch_in_to_arrow(make: Any, tmp_path: Path, kind: str) -> None:
    """A table without a single call: its first records are compared with auto."""
    pa = pytest.importorskip("pyarrow")
    lines = [json.dumps(GEMINI)] * 3
    path = tmp_path / "gemini.jsonl"
    path.write_text("\n".join(lines) + "\n")
    source = {"path": path, "list": lines, "array": pa.array(lines)}[kind]
    p = make.OpenAIResponseParser()
    with pytest.warns(FormatMismatchWarning) as caught:
        assert p.to_arrow(source).num_rows == 0
    assert [str(w.message) for w in caught] == [MISMATCH]


def test_to_arrow_with_calls_does_not_check(make: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any) -> Any:
        raise AssertionError("format check on the hot path")

    monkeypatch.setattr(parsers, "_auto_format", refuse)
    assert make.OpenAIResponseParser().to_arrow([json.dumps(CHAT), json.dumps(GEMINI)]).num_rows
