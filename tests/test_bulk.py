"""parse_file and to_arrow: files of every kind, batch envelopes, record_path, in-memory
sources; both backends, and both backends against each other."""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import signal
import socket
import struct
import subprocess
import sys
import threading
import zlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import zstandard
from conftest import both_backends, calls_as_dicts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolsift import AgentResponse, parsers
from toolsift._errors import OPENED_BEFORE_FORK, error_kind
from toolsift._jsontext import (
    dumps_arguments,
    dumps_compact,
    error_for,
    keeping_number_text,
    loads,
)

# ------------------------------------------------------------------ test files


def chat(calls: list[tuple[str, Any]], **extra: Any) -> dict[str, Any]:
    """A Chat Completions response with these (name, arguments) calls."""
    tool_calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
        for i, (n, a) in enumerate(calls)
    ]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {"id": "chatcmpl-1", "choices": [{"index": 0, "message": message}], **extra}


def gemini(calls: list[tuple[str, Any]]) -> dict[str, Any]:
    parts = [{"functionCall": {"name": n, "args": a}} for n, a in calls] or [{"text": "hi"}]
    return {"candidates": [{"content": {"role": "model", "parts": parts}}]}


def openai_envelope(i: int, body: Any = None, status: int = 200, error: Any = None) -> str:
    response = None if error is not None else {"status_code": status, "body": body}
    return json.dumps(
        {"id": f"batch_req_{i}", "custom_id": f"req-{i}", "response": response, "error": error}
    )


def openai_lines(n: int = 60, seed: int = 0) -> list[bytes]:
    """Plain logs and OpenAI Batch output mixed, with every kind of trouble."""
    rng = random.Random(seed)
    lines: list[bytes] = []
    for i in range(n):
        calls = [
            (
                "get_weather",
                json.dumps({"city": rng.choice(["Paris", "東京", 'a"b\\c']), "t": 1.5}),
            ),
            (
                "search",
                json.dumps({"q": "x", "n": 10**30, "f": 1e-7, "z": -0.0}, ensure_ascii=True),
            ),
            ("broken", '{"a": 1'),
            ("list", "[1, 2]"),
            ("dup", '{"a": 1, "b": 2, "a": 3}'),
            ("spaced", '{ "k" : [ 1 , 2.50 , true , null ] }'),
        ][: rng.randint(0, 3)]
        rng.shuffle(calls)
        kind = i % 9
        if kind == 0:
            lines.append(json.dumps(chat(calls)).encode())
        elif kind == 1:
            lines.append(openai_envelope(i, chat(calls)).encode())
        elif kind == 2:
            lines.append(
                openai_envelope(i, {"error": {"message": "Rate limit", "code": None}}, 429).encode()
            )
        elif kind == 3:
            err = {"code": "batch_expired", "message": "too late"}
            lines.append(openai_envelope(i, error=err).encode())
        elif kind == 4:
            lines.append(b"")
        elif kind == 5:
            lines.append(b"  \t ")
        elif kind == 6:
            lines.append(b'{"choices": [1, 2')  # not JSON
        elif kind == 7:
            lines.append(json.dumps(chat(calls), ensure_ascii=False).encode() + b"\r")  # CRLF
        else:
            lines.append(b'{"choices": "\xff\xfe"}')  # invalid UTF-8
    return lines


def gemini_lines(n: int = 40) -> list[bytes]:
    """Vertex AI batch prediction output, Gemini API batch output and plain responses."""
    lines: list[bytes] = []
    for i in range(n):
        calls = [("f", {"i": i, "x": [1.25, "é"]}), ("g", '{"s": "cut')][: i % 3]
        kind = i % 5
        if kind == 0:
            doc: Any = {"status": "", "request": {"contents": []}, "response": gemini(calls)}
        elif kind == 1:
            doc = {"status": "Bad Request: invalid argument", "request": {}}
        elif kind == 2:
            doc = {"key": f"k{i}", "response": gemini(calls)}
        elif kind == 3:
            doc = {"key": f"k{i}", "error": {"code": 400, "message": "bad", "status": "INVALID"}}
        else:
            doc = gemini(calls)
        lines.append(json.dumps(doc, ensure_ascii=False).encode())
    return lines


def write(path: Path, lines: list[bytes], kind: str = "plain", newline: bool = False) -> Path:
    data = b"\n".join(lines) + (b"\n" if newline else b"")
    if kind == "gz":
        # Two gzip members, as `cat a.gz b.gz` makes.
        half = len(data) // 2
        data = gzip.compress(data[:half]) + gzip.compress(data[half:])
    elif kind == "zst":
        cctx = zstandard.ZstdCompressor()
        half = len(data) // 2
        data = cctx.compress(data[:half]) + cctx.compress(data[half:])  # two frames
    path.write_bytes(data)
    return path


ROWS_OF = ("record", "custom_id", "format", "call_index", "id", "name", "arguments")
ROWS_OF += ("raw_arguments", "error", "defect", "repairs", "violations", "error_kind")
ROWS_OF += ("http_status", "turn", "result", "result_error")
"""The columns `rows_of` writes, and the row tests here compare (the context columns
after them: tests/test_context.py)."""


def base(table: pa.Table) -> pa.Table:
    """The columns of `table` that are in `ROWS_OF`."""
    return table.select([name for name in table.column_names if name in ROWS_OF])


def rows_of(
    responses: list[AgentResponse], numbers: list[int], format: str = "openai"
) -> list[dict[str, Any]]:
    """The rows to_arrow must give, from parse_file's responses (custom_id left out)."""
    rows = []
    for number, response in zip(numbers, responses, strict=True):
        if response.error is not None:
            rows.append(
                {
                    "record": number,
                    "format": None,
                    "call_index": None,
                    "id": None,
                    "name": None,
                    "arguments": None,
                    "raw_arguments": None,
                    "error": response.error,
                    "defect": None,
                    "repairs": None,
                    "violations": None,
                    "error_kind": error_kind(response.error)[0],
                    "http_status": error_kind(response.error)[1],
                    "turn": None,
                    "result": None,
                    "result_error": None,
                }
            )
            continue
        for index, call in enumerate(response.tool_calls):
            rows.append(
                {
                    "record": number,
                    "format": format,
                    "call_index": index,
                    "id": call.id,
                    "name": call.name,
                    "arguments": dumps_compact(call.arguments),
                    "raw_arguments": call.raw_arguments,
                    "error": None,
                    "defect": call.defect,
                    "repairs": call.repairs,
                    "violations": None,
                    "error_kind": None,
                    "http_status": None,
                    "turn": call.turn,
                    "result": call.result,
                    "result_error": call.result_error,
                }
            )
    return rows


def non_blank(lines: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip(b" \t\r\n")]


def stripped(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


# ------------------------------------------------------------------ files


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
@pytest.mark.parametrize("newline", [False, True])
@pytest.mark.parametrize("threads", [1, 2])
def test_parse_file_round_trip(
    make: Any, tmp_path: Path, kind: str, newline: bool, threads: int
) -> None:
    lines = openai_lines(200)
    path = write(tmp_path / f"in.{kind}", lines, kind, newline)
    parser = make.OpenAIResponseParser()
    responses = list(parser.parse_file(path, threads=threads))
    numbers = non_blank(lines)
    assert len(responses) == len(numbers)
    for number, response in zip(numbers, responses, strict=True):
        assert response.raw == stripped(lines[number])  # the line, without its terminator
        assert type(response.raw) is bytes
    # Lines that are not envelopes read as parse_many reads them.
    plain = [i for i, n in enumerate(numbers) if b"custom_id" not in lines[n]]
    expected = parser.parse_many([responses[i].raw for i in plain])
    for i, want in zip(plain, expected, strict=True):
        assert calls_as_dicts(responses[i]) == calls_as_dicts(want)
        assert responses[i].error == want.error
    # Every kind of record is there.
    errors = [r.error for r in responses if r.error]
    assert "HTTP 429: Rate limit" in errors
    assert "batch error: batch_expired: too late" in errors
    assert str(error_for(b'{"choices": [1, 2')) in errors
    assert str(error_for(b'{"choices": "\xff\xfe"}')) in errors
    assert any(c.raw_arguments == '{"a": 1' for r in responses for c in r.tool_calls)

    table = parser.to_arrow(path, threads=threads)
    assert table.schema.names == [
        "record",
        "custom_id",
        "format",
        "call_index",
        "id",
        "name",
        "arguments",
        "raw_arguments",
        "error",
        "defect",
        "repairs",
        "violations",
        "model",
        "response_id",
        "finish_reason",
        "choice_index",
        "call_type",
        "error_kind",
        "http_status",
        "turn",
        "result",
        "result_error",
    ]
    got = base(table.drop_columns(["custom_id"])).to_pylist()
    assert got == rows_of(responses, numbers)  # call for call
    custom = {row["record"]: row["custom_id"] for row in table.to_pylist()}
    for number, custom_id in custom.items():
        if b"custom_id" in lines[number]:
            assert custom_id == json.loads(lines[number])["custom_id"]
        else:
            assert custom_id is None


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
def test_backends_agree_on_files(tmp_path: Path, kind: str) -> None:
    rust, python = both_backends()
    lines = openai_lines(300, seed=1) + gemini_lines()
    path = write(tmp_path / "in", lines, kind)
    for name in ("OpenAIResponseParser", "GeminiResponseParser"):
        cls = getattr(parsers, name)
        r = type(name, (cls,), {"_backend": rust})()
        p = type(name, (cls,), {"_backend": python})()
        assert list(r.parse_file(path)) == list(p.parse_file(path))
        assert r.to_arrow(path).equals(p.to_arrow(path))
        for record_path in ("response.body", "response"):
            assert r.to_arrow(path, record_path=record_path).equals(
                p.to_arrow(path, record_path=record_path)
            )


def test_gemini_envelopes(make: Any, tmp_path: Path) -> None:
    lines = gemini_lines(10)
    path = write(tmp_path / "g.jsonl", lines)
    rows = base(make.GeminiResponseParser().to_arrow(path)).to_pylist()
    by_record: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        by_record.setdefault(row["record"], []).append(row)
    assert by_record[1] == [
        {
            "record": 1,
            "custom_id": None,
            "format": None,
            "call_index": None,
            "id": None,
            "name": None,
            "arguments": None,
            "raw_arguments": None,
            "error": "batch error: Bad Request: invalid argument",
            "defect": None,
            "repairs": None,
            "violations": None,
            "error_kind": "provider",
            "http_status": None,
            "turn": None,
            "result": None,
            "result_error": None,
        }
    ]
    assert by_record[3][0]["error"] == "batch error: 400: bad"
    assert by_record[3][0]["custom_id"] == "k3"
    assert [r["name"] for r in by_record[2]] == ["f", "g"]
    assert by_record[2][0]["arguments"] == '{"i":2,"x":[1.25,"é"]}'
    assert by_record[2][1]["raw_arguments"] == '{"s": "cut'
    assert by_record[2][0]["custom_id"] == "k2"
    assert 0 not in by_record  # no calls, no rows
    assert [r["name"] for r in by_record[5]] == ["f", "g"]  # Vertex, status ""


def test_more_batch_lines(make: Any, tmp_path: Path) -> None:
    """Vertex AI batch output of Claude models (`custom_id`, `request`, `response`,
    `status`), Gemini API lines that failed with a `status`, and an inline batch's
    `InlinedResponse` lines, in REST and SDK-dump spelling; a Responses API object, which
    has `metadata` and `error` members of its own, is not taken for one."""
    claude = {
        "id": "msg_vrtx_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4",
        "content": [
            {"type": "tool_use", "id": "toolu_vrtx_1", "name": "w", "input": {"c": "Oslo"}}
        ],
        "stop_reason": "tool_use",
    }
    request = {
        "messages": [{"role": "user", "content": "hi"}],
        "anthropic_version": "vertex-2023-10-16",
    }
    snake = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"function_call": {"name": "g", "args": {}}}]}}
        ]
    }
    failed_response = {
        "id": "resp_1",
        "object": "response",
        "status": "failed",
        "error": {"code": "server_error", "message": "boom"},
        "metadata": {"key": "m"},
        "output": [],
    }
    docs: list[Any] = [
        {"custom_id": "request-1", "request": request, "response": claude, "status": ""},
        {
            "custom_id": "request-2",
            "request": request,
            "response": None,
            "status": "Bad Request: no",
        },
        {"key": "req-3", "status": {"code": 13, "message": "Internal error"}},
        {"response": gemini([("f", {"a": 1})]), "metadata": {"key": "req-4"}},
        {"metadata": {"key": "req-5"}, "error": {"code": 3, "message": "boom"}},
        {"metadata": None, "response": snake, "error": None},
        failed_response,
    ]
    path = write(tmp_path / "b.jsonl", [json.dumps(doc).encode() for doc in docs])
    rows = make.AutoResponseParser().to_arrow(path).to_pylist()
    seen = [
        (r["record"], r["custom_id"], r["format"], r["name"], r["arguments"], r["error"])
        for r in rows
    ]
    assert seen == [
        (0, "request-1", "anthropic", "w", '{"c":"Oslo"}', None),
        (1, "request-2", None, None, None, "batch error: Bad Request: no"),
        (2, "req-3", None, None, None, "batch error: 13: Internal error"),
        (3, "req-4", "gemini", "f", '{"a":1}', None),
        (4, "req-5", None, None, None, "batch error: 3: boom"),
        (5, None, "gemini", "g", "{}", None),
    ]
    assert make.AutoResponseParser().to_arrow(path).num_rows == 6  # the last: no calls
    failed = list(make.OpenAIResponsesParser().parse_file(path))[6]
    assert (failed.tool_calls, failed.error) == ([], None)
    # The same with the provider's own parser.
    rows = make.GeminiResponseParser().to_arrow(path).to_pylist()
    assert [(r["record"], r["custom_id"], r["name"]) for r in rows if r["error"] is None] == [
        (3, "req-4", "f"),
        (5, None, "g"),
    ]


def test_big_numbers_in_files_are_exact(make: Any, tmp_path: Path) -> None:
    """Integers beyond 64 bits (which orjson rounds) and numbers beyond the float range
    (which orjson refuses), inline, in argument strings and in an envelope's error."""
    big = 2**70 + 1
    part = {"functionCall": {"name": "f", "args": {"n": big, "m": [-big]}}}
    lines = [
        json.dumps({"key": "a", "response": {"candidates": [{"content": {"parts": [part]}}]}}),
        '{"key": "b", "response": {"candidates": [{"content": {"parts": '
        '[{"functionCall": {"name": "g", "args": {"x": 1e400}}}]}}]}}',
        json.dumps({"key": "c", "error": {"code": big, "message": 7}}),
        json.dumps(chat([("h", json.dumps({"n": big}))]), ensure_ascii=True),
    ]
    path = write(tmp_path / "big.jsonl", [line.encode() for line in lines])
    gemini = list(make.GeminiResponseParser().parse_file(path))
    assert gemini[0].tool_calls[0].arguments == {"n": big, "m": [-big]}
    assert gemini[1].tool_calls[0].arguments == {"x": math.inf}
    assert gemini[2].error == f'batch error: {{"code":{big},"message":7}}'
    rows = make.OpenAIResponseParser().to_arrow(path).to_pylist()
    assert [row["arguments"] for row in rows if row["name"] == "h"] == [f'{{"n":{big}}}']
    assert make.GeminiResponseParser().to_arrow(path).column("arguments").to_pylist()[:2] == [
        f'{{"n":{big},"m":[-{big}]}}',
        '{"x":1e+400}',
    ]


def test_record_path(make: Any, tmp_path: Path) -> None:
    lines = [
        json.dumps({"meta": {"x": 1}, "out": {"resp": chat([("f", "{}")])}}).encode(),
        json.dumps({"out": {"resp": None}}).encode(),
        json.dumps({"out": []}).encode(),
        openai_envelope(3, chat([("g", "{}")])).encode(),
    ]
    path = write(tmp_path / "p.jsonl", lines)
    parser = make.OpenAIResponseParser()
    responses = list(parser.parse_file(path, record_path="out.resp"))
    assert [c.name for c in responses[0].tool_calls] == ["f"]
    assert responses[1].error == "nothing at record_path out.resp"
    assert responses[2].error == "nothing at record_path out.resp"
    assert responses[3].error == "nothing at record_path out.resp"  # no unwrapping
    table = parser.to_arrow(path, record_path="response.body")
    assert table.column("name").to_pylist() == [None, None, None, "g"]
    assert table.column("custom_id").to_pylist() == [None] * 4  # explicit path: not kept
    with pytest.raises(ValueError, match="record_path"):
        parser.to_arrow(path, record_path="")
    with pytest.raises(TypeError, match="record_path"):
        list(parser.parse_file(path, record_path=["out"]))


def test_responses_given_as_json_text_inside_strings(make: Any, tmp_path: Path) -> None:
    """A log that stored each body (or `model_dump_json()`) as a string: the string's JSON
    text is the response, at a record_path, as a whole line, and inside an envelope; a
    string that is not the JSON text of an object or array stays a string."""
    body = chat([("f", '{"a": 1}')])
    call = {"index": 0, "id": "call_0", "type": "function"}
    call["function"] = {"name": "f", "arguments": '{"a": 1}'}
    chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}}]}
    chunk["choices"][0]["delta"]["tool_calls"] = [call]
    lines = [
        json.dumps({"id": 0, "body": json.dumps(body)}).encode(),
        json.dumps({"id": 1, "body": " \n" + json.dumps(body, indent=2)}).encode(),
        json.dumps({"id": 2, "body": json.dumps([chunk])}).encode(),  # a stream's events
        json.dumps({"id": 3, "body": json.dumps(body)[:-1]}).encode(),  # cut: not JSON
        json.dumps({"id": 4, "body": "plain text"}).encode(),
    ]
    path = write(tmp_path / "s.jsonl", lines)
    for parser in (make.OpenAIResponseParser(), make.AutoResponseParser()):
        rows = parser.to_arrow(path, record_path="body").to_pylist()
        assert [(r["record"], r["format"], r["name"], r["arguments"]) for r in rows[:3]] == [
            (i, "openai", "f", '{"a":1}') for i in range(3)
        ]
        responses = list(parser.parse_file(path, record_path="body"))
        assert [[c.name for c in r.tool_calls] for r in responses] == [["f"]] * 3 + [[]] * 2
    # Named: the strings that hold no JSON give no calls; auto says what they are.
    assert len(make.OpenAIResponseParser().to_arrow(path, record_path="body")) == 3
    errors = make.AutoResponseParser().to_arrow(path, record_path="body").column("error")
    assert errors.to_pylist()[3:] == ["unrecognized response shape (a string)"] * 2
    # A whole line that is the JSON string, and an OpenAI Batch body given as a string.
    texts = [json.dumps(json.dumps(body)), openai_envelope(1, json.dumps(body))]
    whole = write(tmp_path / "w.jsonl", [text.encode() for text in texts])
    rows = make.AutoResponseParser().to_arrow(whole).to_pylist()
    assert [(r["custom_id"], r["name"]) for r in rows] == [(None, "f"), ("req-1", "f")]


def test_json_parser_with_envelope(make: Any, tmp_path: Path) -> None:
    body = {"result": {"calls": [{"name": "f", "args": {"a": 1}}, {"args": {}}]}}
    path = write(tmp_path / "j.jsonl", [openai_envelope(0, body).encode()])
    parser = make.JsonResponseParser(tool_calls_key="result.calls", arguments_key="args")
    rows = parser.to_arrow(path).to_pylist()
    assert [(r["custom_id"], r["name"], r["arguments"]) for r in rows] == [
        ("req-0", "f", '{"a":1}')
    ]


def test_empty_and_blank_files(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    for data in (b"", b"\n\n", b"  \r\n\t\n"):
        path = tmp_path / "e.jsonl"
        path.write_bytes(data)
        assert list(parser.parse_file(path)) == []
        table = parser.to_arrow(path)
        assert table.num_rows == 0
        assert table.schema.field("record").type == pa.int64()


def test_long_lines_and_many_blocks(make: Any, tmp_path: Path) -> None:
    """Lines longer than a block, and files of many blocks, keep their numbers."""
    big = json.dumps({"x": "y" * 3_000_000, **chat([("f", json.dumps({"k": "v" * 100}))])})
    lines = [json.dumps(chat([("g", "{}")])).encode()] * 3000 + [big.encode()] * 2
    lines += [json.dumps(chat([("h", f'{{"n": {i}}}')])).encode() for i in range(3000)]
    path = write(tmp_path / "l.jsonl", lines, newline=True)
    table = make.OpenAIResponseParser().to_arrow(path)
    assert table.num_rows == len(lines)
    assert table.column("record").to_pylist() == list(range(len(lines)))
    assert table.column("arguments").to_pylist()[-1] == '{"n":2999}'
    assert table.column("name").to_pylist()[3000:3002] == ["f", "f"]
    names = ["g"] * 3000 + ["f", "f"] + ["h"] * 3000
    parser = make.OpenAIResponseParser()
    for threads in (1, 2, 3):
        responses = list(parser.parse_file(path, threads=threads))
        assert [r.tool_calls[0].name for r in responses] == names
        assert responses[-1].tool_calls[0].arguments == {"n": 2999}
    # Two files read at once, one of them left half-read: each keeps its own order.
    first, second = parser.parse_file(path, threads=2), parser.parse_file(path, threads=3)
    for number in range(4000):
        a, b = next(first), next(second)
        assert a == b
        assert a.tool_calls[0].name == names[number]
    del first
    assert [r.tool_calls[0].name for r in second] == names[4000:]


@pytest.mark.parametrize("kind", ["plain", "gz"])
def test_line_numbers_over_many_blocks(make: Any, tmp_path: Path, kind: str) -> None:
    """Blank lines count in the numbering, whichever block and thread they fall to."""
    rng = random.Random(5)

    def line(i: int) -> bytes:
        arguments = json.dumps({"i": i, "pad": "x" * rng.randrange(900)})
        return b"" if rng.random() < 0.1 else json.dumps(chat([("f", arguments)])).encode()

    lines = [line(i) for i in range(8000)]
    path = write(tmp_path / f"n.{kind}", lines, kind, newline=True)
    numbers = non_blank(lines)
    parser = make.OpenAIResponseParser()
    for threads in (1, 2, 3):
        table = parser.to_arrow(path, threads=threads)
        assert table.column("record").to_pylist() == numbers
        got = [json.loads(text)["i"] for text in table.column("arguments").to_pylist()]
        assert got == numbers  # line i holds the call with {"i": i}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX only")
def test_in_a_child_made_by_fork(make: Any, tmp_path: Path) -> None:
    """multiprocessing makes its workers with fork() on Linux: a child inherits what the
    parent set up (thread pools among it) but none of its threads. Work on threads must
    still finish there, and an iterator opened before the fork must say it cannot go on
    rather than wait for a reading thread left in the parent."""
    lines = openai_lines(600)
    path = write(tmp_path / "f.jsonl", lines, newline=True)
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(path, threads=2)  # the pools are started here, in the parent
    responses = list(parser.parse_file(path, threads=2))
    many = parser.parse_many(lines, threads=2)
    opened = parser.parse_file(path, threads=2)
    next(opened)
    pid = os.fork()
    if pid == 0:  # the child: its exit code is the test's verdict
        code = 3
        try:
            signal.alarm(60)  # a hang fails the test (SIGALRM) rather than stalling it
            same = (
                parser.to_arrow(path, threads=2).equals(table)
                and parser.to_arrow(lines, threads=2).equals(parser.to_arrow(lines, threads=1))
                and list(parser.parse_file(path, threads=2)) == responses
                and parser.parse_many(lines, threads=2) == many
            )
            code = 0 if same else 1
            try:
                next(opened)
                code = 2
            except RuntimeError as exc:
                code = code if str(exc) == OPENED_BEFORE_FORK else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status), f"child killed by signal {os.WTERMSIG(status)}"
    assert os.WEXITSTATUS(status) == 0
    assert sum(1 for _ in opened) == len(responses) - 1  # the parent's still reads on


def test_progress(make: Any, tmp_path: Path) -> None:
    lines = openai_lines(500)
    seen: list[tuple[int, int | None]] = []

    def record(done: int, total: int | None) -> None:
        seen.append((done, total))

    for kind in ("plain", "gz"):
        path = write(tmp_path / f"p.{kind}", lines, kind)
        size = path.stat().st_size
        seen.clear()
        parser = make.OpenAIResponseParser()
        list(parser.parse_file(path, progress=record))
        assert seen and seen[-1] == (size, size)
        assert [d for d, _ in seen] == sorted(d for d, _ in seen)
        seen.clear()
        parser.to_arrow(path, progress=record)
        assert seen[-1] == (size, size)
    seen.clear()
    make.OpenAIResponseParser().to_arrow(lines, progress=record)
    assert seen[-1] == (len(lines), len(lines))
    with pytest.raises(TypeError, match="progress"):
        make.OpenAIResponseParser().to_arrow(lines, progress="yes")


def test_file_errors(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    with pytest.raises(FileNotFoundError):
        parser.parse_file(tmp_path / "missing.jsonl")  # raised now, not when iterated
    with pytest.raises(FileNotFoundError):
        parser.to_arrow(str(tmp_path / "missing.jsonl"))
    with pytest.raises(IsADirectoryError):
        parser.to_arrow(tmp_path)
    with pytest.raises(ValueError, match="threads"):
        parser.parse_file(write(tmp_path / "x", [b"{}"]), threads=0)
    with pytest.raises(TypeError, match="single bytes"):
        parser.to_arrow(b'{"choices": []}')
    # Corrupt or cut-off compressed data: the lines before it, then OSError.
    lines = [json.dumps(chat([("f", "{}")])).encode()] * 20000
    for kind in ("gz", "zst"):
        path = write(tmp_path / f"c.{kind}", lines, kind)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) * 3 // 4])
        got = []
        with pytest.raises(OSError):
            for response in parser.parse_file(path):
                got.append(response)
        assert 0 < len(got) < len(lines)
        with pytest.raises(OSError):
            parser.to_arrow(path)


# ------------------------------------------------------------------ in-memory sources


def test_in_memory_sources(make: Any) -> None:
    lines = openai_lines(120)
    parser = make.OpenAIResponseParser()
    expected = parser.to_arrow(lines)
    numbers = non_blank(lines)
    responses = parser.parse_many([stripped(lines[n]) for n in numbers])
    assert expected.drop_columns(["custom_id"]).to_pylist()[:0] == []
    texts = [line.decode("utf-8", "surrogateescape") for line in lines]
    assert parser.to_arrow(iter(lines)).equals(expected)
    assert parser.to_arrow(tuple(lines)).equals(expected)
    assert parser.to_arrow(pa.array(lines, pa.binary())).equals(expected)
    assert parser.to_arrow(pa.array(lines, pa.large_binary())).equals(expected)
    chunked = pa.chunked_array([pa.array(lines[:50]), pa.array(lines[50:])])
    assert parser.to_arrow(chunked).equals(expected)
    valid = [t for t, line in zip(texts, lines, strict=True) if b"\xff" not in line]
    assert parser.to_arrow(valid).equals(parser.to_arrow(pa.array(valid, pa.string())))
    assert parser.to_arrow(valid).equals(parser.to_arrow(pa.array(valid, pa.large_string())))
    # Plain (non-envelope) records: the calls parse_many finds.
    plain = [
        (n, r) for n, r in zip(numbers, responses, strict=True) if b"custom_id" not in lines[n]
    ]
    table_rows = [
        row for row in base(expected).to_pylist() if b"custom_id" not in lines[row["record"]]
    ]
    want = rows_of([r for _, r in plain], [n for n, _ in plain])
    assert [{k: v for k, v in row.items() if k != "custom_id"} for row in table_rows] == want


def test_in_memory_odd_items(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    good = json.dumps(chat([("f", '{"a": 1}')]))
    items = [good, None, {"choices": []}, "", "\ud800", bytearray(good.encode()), memoryview(b"[")]
    items.append(42)
    rows = parser.to_arrow(items).to_pylist()
    assert [(r["record"], r["name"], r["error"]) for r in rows] == [
        (0, "f", None),
        (1, None, "no response (null)"),
        # (2: a decoded response with no calls, read as its text would be: no row)
        (4, None, str(error_for("\ud800"))),
        (5, "f", None),
        (6, None, str(error_for(b"["))),
        (7, None, "TypeError: a record must be str or bytes, not int"),
    ]
    nulls = parser.to_arrow(pa.array([good, None])).to_pylist()
    assert nulls[1]["error"] == "no response (null)"  # a null in a column of responses
    with pytest.raises(TypeError, match="string, large_string"):
        parser.to_arrow(pa.array([1, 2]))
    with pytest.raises(TypeError, match="iterable"):
        parser.to_arrow(42)


def test_backends_agree_in_memory() -> None:
    rust, python = both_backends()
    lines = openai_lines(400, seed=3) * 3  # several chunks
    cls = parsers.OpenAIResponseParser
    r = type(cls.__name__, (cls,), {"_backend": rust})()
    p = type(cls.__name__, (cls,), {"_backend": python})()
    for threads in (1, 2):
        assert r.to_arrow(lines, threads=threads).equals(p.to_arrow(lines))


# ------------------------------------------------------------------ arguments column

FAST = settings(
    deadline=None,
    max_examples=int(os.environ.get("TOOLSIFT_HYPOTHESIS_EXAMPLES", "150")),
    suppress_health_check=list(HealthCheck),
)

KEYS = st.text(st.characters(codec="utf-8"), max_size=6) | st.sampled_from(["a", "b", "é"])
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**200), max_value=2**200)
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec="utf-8"), max_size=12)
)


def _json_text(value: Any, rng: random.Random) -> str:
    """JSON text of `value` with random spacing, escapes and duplicate keys."""
    if isinstance(value, dict):
        members = [
            f"{json.dumps(k, ensure_ascii=rng.random() < 0.5)} : {_json_text(v, rng)}"
            for k, v in value.items()
        ]
        if members and rng.random() < 0.3:  # a duplicate key, overwritten later or not
            k = rng.choice(list(value))
            members.insert(rng.randint(0, len(members)), f"{json.dumps(k)}:{rng.randint(0, 9)}")
        return "{" + " ,".join(members) + "}"
    if isinstance(value, list):
        return "[ " + ",".join(_json_text(v, rng) for v in value) + "]"
    if isinstance(value, float):
        if math.isinf(value):
            return "1e400" if value > 0 else "-1e400"
        return rng.choice([repr(value), f"{value:.17e}", f"{value:.17g}"]).replace("inf", "1e400")
    return json.dumps(value, ensure_ascii=rng.random() < 0.5)


JSON_OBJECTS = st.dictionaries(
    KEYS,
    st.recursive(
        SCALARS,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
        max_leaves=12,
    ),
    max_size=5,
)


@FAST
@given(JSON_OBJECTS, st.randoms(use_true_random=False))
def test_arguments_column_is_dumps_compact(value: dict[str, Any], rng: Any) -> None:
    """Rust writes compact JSON exactly as Python's json.dumps does, from any JSON text."""
    rust, python = both_backends()
    text = _json_text(value, rng)
    line = json.dumps(chat([("f", text)]))
    # The arguments as an object, and inside a list (not an object: raw_arguments).
    inline, other = (
        json.dumps(chat([("g", "?")])).replace('"?"', arguments)
        for arguments in (text, f"[{text}]")
    )
    cls = parsers.OpenAIResponseParser
    tables = [
        type(cls.__name__, (cls,), {"_backend": b})().to_arrow([line, inline, other])
        for b in (rust, python)
    ]
    assert tables[0].equals(tables[1]), (tables[0].to_pylist(), tables[1].to_pylist())
    args = tables[0].column("arguments").to_pylist()
    expected = dumps_compact(json.loads(text))
    with keeping_number_text():  # the column writes 1e400 as it was, not as Infinity
        column = dumps_arguments(loads(text))
    assert args[:2] == [column, column]
    assert tables[0].column("raw_arguments").to_pylist()[2] == f"[{expected}]"


def test_floats_in_arguments_column_as_python_writes_them(make: Any) -> None:
    """Floats halfway between two shortest digit strings take the even one, as repr does
    (8796093022208.0625 is written 8796093022208.062), and random doubles round-trip."""
    rng = random.Random(3)
    values = [2.0**49 + k + half for k in range(50) for half in (0.25, 0.75)]
    values += [2.0**e * (1 + f * 2.0**-46) for e in range(-30, 60) for f in (0.25, 0.5, 0.75)]
    doubles = (struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(500))
    values += [v for v in doubles if math.isfinite(v)]
    line = json.dumps(chat([("f", json.dumps({"v": values}))]))
    table = make.OpenAIResponseParser().to_arrow([line])
    assert table.column("arguments").to_pylist() == [dumps_compact({"v": values})]


def test_arguments_of_mutated_text_agree() -> None:
    """Argument texts cut, spliced and corrupted at random: both backends say the same
    about which decode (the Rust one decides that in one pass, without a tape)."""
    rust, python = both_backends()
    rng = random.Random(7)
    seeds = [
        '{"a": [1, -0, 2.5e-3, 1E400, true, null], "b": {"c": "d\\n\\u00e9\\ud83d\\ude00"}}',
        '{"q": "say \\"hi\\"\\\\", "n": 123456789012345678901234567890, "e": {}, "l": []}',
        '{"k": "\\u0000\\u001f\\/\\b\\f\\r\\t", "x": 0.1, "y": -12, "z": [[[{}]]]}',
    ]
    alphabet = [*'{}[]":,.-+eE0123456789 tnrufals', "\\", "\\u", "\\ud800", "\\udc00"]
    alphabet += ["\\ud83d", "\\ude00", "\\n", "\\/", "\x01", "é", "\t"]
    texts = []
    for _ in range(3000):
        text = rng.choice(seeds)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            op = rng.random()
            if op < 0.4:
                text = text[:at] + rng.choice(alphabet) + text[at:]
            elif op < 0.8:
                text = text[:at] + text[at + rng.randint(1, 3) :]
            else:
                text = text[:at]
        texts.append(text)
    lines = [json.dumps(chat([("f", text)])) for text in texts]
    cls = parsers.OpenAIResponseParser
    tables = [
        type(cls.__name__, (cls,), {"_backend": b})().to_arrow(lines, threads=1)
        for b in (rust, python)
    ]
    assert tables[0].equals(tables[1])
    decoded = tables[0].column("raw_arguments").null_count
    assert 0 < decoded < len(texts)  # both kinds are there


def test_parts_never_read_are_still_checked(make: Any) -> None:
    """The Rust backend skips the parts of a line no walker reads; they must still be
    valid JSON, with the same rules (lone surrogates, nesting limit) as a full parse."""
    parser = make.OpenAIResponseParser()
    good = chat([("f", '{"a": 1}')])
    deep = "[" * 1025 + "]" * 1025
    lines = [
        json.dumps({**good, "usage": "\ud800"}),  # lone surrogate, escaped by json.dumps
        json.dumps({**good, "usage": "\udc00x"}),
        json.dumps(good)[:-1] + ', "usage": ' + deep + "}",
        json.dumps(good)[:-1] + ', "usage": ' + "[" * 1023 + "]" * 1023 + "}",
        json.dumps(good)[:-1] + ', "choices": null}',  # duplicate key: the last one wins
        json.dumps(good)[:-1] + ', "usage": [1,]}',
        json.dumps(good)[:-1] + ', "usage": "\x01"}',
        openai_envelope(7, {**good, "x": "\ud83d\ude00"}),
        # Surrogate pairs are read in part; a lone half anywhere is an error.
        json.dumps({**good, "usage": "\\ud83d\udc00"}),  # `\\` then a lone low half
        json.dumps({**good, "usage": "\udc00\ud800"}),  # low, then high
        json.dumps(good)[:-1] + ', "usage": "\\ud800\\u0041"}',  # high, then no low
        json.dumps({**good, "usage": "\ud83d\ude00 \\ud800 \\\ud83d\ude00"}),
    ]
    rows = parser.to_arrow(lines).to_pylist()
    got = [(r["record"], r["name"], r["error"]) for r in rows]
    assert got == [
        (0, None, str(error_for(lines[0]))),
        (1, None, str(error_for(lines[1]))),
        (2, None, str(error_for(lines[2]))),
        (3, "f", None),
        (5, None, str(error_for(lines[5]))),
        (6, None, str(error_for(lines[6]))),
        (7, "f", None),
        (8, None, str(error_for(lines[8]))),
        (9, None, str(error_for(lines[9]))),
        (10, None, str(error_for(lines[10]))),
        (11, "f", None),
    ]
    responses = list(parser.parse_many(lines))
    assert [r.error for r in responses[:3]] == [str(error_for(line)) for line in lines[:3]]


LITERT = json.loads((Path(__file__).parent / "vectors" / "litert.json").read_text("utf-8"))


def litert_lines() -> list[bytes]:
    """Every LiteRT-LM vector text as a line (newlines escaped away), plain and wrapped
    in batch envelopes, with text that is not JSON and not UTF-8."""
    texts = [
        case["input"]
        for case in LITERT
        if case["function"] == "extract_tool_calls" and isinstance(case["input"], str)
    ]
    lines = []
    for i, text in enumerate(texts):
        lines.append(text.replace("\n", " ").replace("\r", " ").encode())
        lines.append(openai_envelope(i, text).encode())  # a string response
        try:
            decoded = json.loads(text)
        except ValueError:
            continue
        lines.append(json.dumps({"key": f"k{i}", "response": decoded}).encode())
    lines += [b"\xff<|tool_call>call:f{}<tool_call|>", b"not json at all", b"[1, 2"]
    return lines


def test_litert_files_agree(tmp_path: Path) -> None:
    rust, python = both_backends()
    lines = litert_lines()
    path = write(tmp_path / "litert.jsonl", lines)
    cls = parsers.SdkResponseParser
    r = type(cls.__name__, (cls,), {"_backend": rust})()
    p = type(cls.__name__, (cls,), {"_backend": python})()
    got = list(r.parse_file(path))
    assert got == list(p.parse_file(path))
    # A plain line reads as parse reads it, and never fails.
    for response in got:
        line = response.raw
        if b"custom_id" not in line and b'"key"' not in line:
            assert calls_as_dicts(response) == calls_as_dicts(r.parse(line))
            assert response.error is None
    assert sum(len(g.tool_calls) for g in got) > 50
    for record_path in (None, "response.body", "response"):
        assert r.to_arrow(path, record_path=record_path).equals(
            p.to_arrow(path, record_path=record_path)
        )
    texts = [line.decode("utf-8", "replace") for line in lines] + ["\ud800 <|tool_call>"]
    assert r.to_arrow(texts).equals(p.to_arrow(texts))


# ------------------------------------------------------------------ reading faults


def lines_and_errors(parser: Any, path: Any, **options: Any) -> tuple[list[Any], str | None]:
    """(raw and error of every response read, the text of the OSError that ended it)."""
    got: list[Any] = []
    try:
        for response in parser.parse_file(path, **options):
            got.append((response.raw, response.error))
    except OSError as exc:
        return got, str(exc)
    return got, None


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
def test_lines_longer_than_max_line_bytes(make: Any, tmp_path: Path, kind: str) -> None:
    parser = make.OpenAIResponseParser()
    short = json.dumps(chat([("f", "{}")]), separators=(",", ":")).encode()
    assert len(short) < 200
    long = json.dumps(chat([("g", json.dumps({"x": "y" * 5000}))])).encode()
    exact = b'{"a":' + b" " * (200 - 7) + b"1}"
    assert len(exact) == 200
    lines = [short, long, b"", long + b"\r", exact, exact + b" ", short]
    path = write(tmp_path / f"long.{kind}", lines, kind)
    got = [(r.raw, r.error) for r in parser.parse_file(path, max_line_bytes=200)]
    too_long = (b"", "line longer than 200 bytes")
    assert got == [(short, None), too_long, too_long, (exact, None), too_long, (short, None)]
    table = parser.to_arrow(path, max_line_bytes=200)
    assert table.column("record").to_pylist() == [0, 1, 3, 5, 6]
    assert table.column("error").to_pylist() == [None, *[too_long[1]] * 3, None]
    # The default is 1 GiB; a line of its own with no newline at all ends the file.
    assert [r.error for r in parser.parse_file(path)] == [None] * 6
    endless = tmp_path / "endless"
    endless.write_bytes(b"x" * 300_000)
    assert lines_and_errors(parser, endless, max_line_bytes=1000) == (
        [(b"", "line longer than 1000 bytes")],
        None,
    )
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="max_line_bytes"):
            parser.parse_file(path, max_line_bytes=bad)
        with pytest.raises(ValueError, match="max_line_bytes"):
            parser.to_arrow(path, max_line_bytes=bad)


def test_gzip_zero_padding_and_zstd_skippable_frames(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    lines = [json.dumps(chat([("f", json.dumps({"i": i}))])).encode() for i in range(50)]
    text = b"\n".join(lines) + b"\n"
    want = [(line, None) for line in lines]
    padded = tmp_path / "padded.gz"
    padded.write_bytes(gzip.compress(text[:100]) + gzip.compress(text[100:]) + bytes(4096))
    assert lines_and_errors(parser, padded) == (want, None)
    skippable = struct.pack("<II", 0x184D2A50, 5) + b"12345"
    cctx = zstandard.ZstdCompressor()
    pzstd = tmp_path / "pzstd.zst"
    pzstd.write_bytes(skippable + cctx.compress(text[:999]) + skippable + cctx.compress(text[999:]))
    assert lines_and_errors(parser, pzstd) == (want, None)
    assert parser.to_arrow(pzstd).num_rows == 50


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_cut_off_compressed_data_keeps_every_complete_line(
    make: Any, tmp_path: Path, kind: str
) -> None:
    """A small file cut anywhere: every complete line before the cut, then one OSError
    naming the file (the Rust backend used to drop the block it was reading)."""
    parser = make.OpenAIResponseParser()
    lines = [json.dumps(chat([("f", json.dumps({"i": i}))])).encode() for i in range(40)]
    text = b"\n".join(lines) + b"\n"
    whole = gzip.compress(text) if kind == "gz" else zstandard.ZstdCompressor().compress(text)
    kind_name = "gzip" if kind == "gz" else "zstd"
    path = tmp_path / f"cut.{kind}"
    for cut in range(len(whole) // 3, len(whole), 7):
        path.write_bytes(whole[:cut])
        got, error = lines_and_errors(parser, path)
        assert error == f"{path}: corrupt or truncated {kind_name} data"
        decoder = zlib.decompressobj(31) if kind == "gz" else None
        out = (
            decoder.decompress(whole[:cut])
            if decoder is not None
            else zstandard.ZstdDecompressor().decompressobj().decompress(whole[:cut])
        )
        complete = out[: out.rfind(b"\n") + 1].split(b"\n")[:-1]
        assert got == [(line, None) for line in complete], cut
        with pytest.raises(OSError, match="corrupt or truncated"):
            parser.to_arrow(path)


def test_fifo_and_stdin(make: Any, impl: str, tmp_path: Path) -> None:
    """A FIFO is opened with the GIL released (a writer in the same process can open it),
    and read from its start only (no seeking)."""
    parser = make.OpenAIResponseParser()
    lines = [json.dumps(chat([("f", json.dumps({"i": i}))])).encode() for i in range(1000)]
    data = gzip.compress(b"\n".join(lines))
    fifo = tmp_path / "fifo"
    for read in (
        lambda: [r.raw for r in parser.parse_file(fifo)],
        lambda: parser.to_arrow(fifo).column("record").to_pylist(),
    ):
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_bytes, args=(data,))
        signal.alarm(60)  # a hang fails the test rather than the run
        try:
            writer.start()
            got = read()
        finally:
            signal.alarm(0)
            writer.join()
            fifo.unlink()
        assert got in (lines, list(range(1000)))
    script = (
        "import sys; from toolsift.parsers import OpenAIResponseParser as P; "
        "print(sum(1 for r in P().parse_file('/dev/stdin') if r.tool_calls))"
    )
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    done = subprocess.run(
        [sys.executable, "-c", script], input=data, capture_output=True, timeout=60, env=env
    )
    assert done.stdout.strip() == b"1000", done.stderr


def test_file_names_that_are_not_utf8(make: Any, tmp_path: Path) -> None:
    parser = make.OpenAIResponseParser()
    name = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.jsonl")
    Path(name).write_bytes(json.dumps(chat([("f", "{}")])).encode())
    assert [len(r.tool_calls) for r in parser.parse_file(name)] == [1]
    assert parser.to_arrow(name).num_rows == 1
    Path(name).write_bytes(gzip.compress(b"{}\n")[:-3])
    with pytest.raises(OSError) as raised:
        list(parser.parse_file(name))
    assert str(raised.value) == f"{name}: corrupt or truncated gzip data"


def test_open_errors_when_called_with_one_text(make: Any, tmp_path: Path) -> None:
    """A file that cannot be opened raises when parse_file is called (not at the first
    next()), with Python's own OSError text on both backends. (A Unix socket: it can be
    stat'ed but not opened, even by root.)"""
    path = tmp_path / "socket.jsonl"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        for call in (make.OpenAIResponseParser().parse_file, make.OpenAIResponseParser().to_arrow):
            with pytest.raises(OSError) as raised:
                call(path)
            assert str(raised.value) == f"[Errno 6] No such device or address: '{path}'"


# ------------------------------------------------------------------ counts


def counts_of(parser: Any, source: Any, threads: int = 1) -> dict[str, int]:
    from toolsift import _bulk

    rows = _bulk.stream(parser._core, source, None, threads, False)
    for _ in rows:
        pass
    return rows.counts


def need_text_bytes(impl: str, found: dict[str, int]) -> None:
    if impl == "rust" and "text_bytes" not in found:
        pytest.skip("this build of the Rust core does not count text_bytes yet")


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
@pytest.mark.parametrize("threads", [1, 2])
def test_counts_and_text_bytes_of_files(
    impl: str, make: Any, tmp_path: Path, kind: str, threads: int
) -> None:
    """text_bytes: every decompressed byte of the file's lines, terminators (CRLF too) and
    blank lines included, whatever the file's size on disk (the CLI's MB of JSON)."""
    lines = [*openai_lines(150), b"", b"  \r", json.dumps(chat([("f", "{}")])).encode() + b"\r"]
    for newline in (False, True):
        path = write(tmp_path / f"in.{kind}", lines, kind, newline)
        text = b"\n".join(lines) + (b"\n" if newline else b"")
        parser = make.OpenAIResponseParser()
        found = counts_of(parser, path, threads)
        responses = list(parser.parse_file(path))
        calls = [c for r in responses for c in r.tool_calls]
        assert {k: v for k, v in found.items() if k != "text_bytes"} == {
            "records": len(responses),
            "records_with_calls": sum(1 for r in responses if r.tool_calls),
            "calls": len(calls),
            "undecodable_arguments": sum(1 for c in calls if c.raw_arguments is not None),
            "failed": sum(1 for r in responses if r.error is not None),
        }
        need_text_bytes(impl, found)
        assert found["text_bytes"] == len(text)
        if kind != "plain":
            assert found["text_bytes"] != path.stat().st_size


def test_text_bytes_of_records(impl: str, make: Any) -> None:
    """In memory: the records' lengths in bytes (UTF-8 for a str), blank ones included."""
    records = ['{"choices": []}', "é", b"  ", bytearray(b"[1]"), memoryview(b"{}"), None, {}]
    found = counts_of(make.OpenAIResponseParser(), records)
    assert found["records"] == 6
    need_text_bytes(impl, found)
    assert found["text_bytes"] == 15 + 2 + 2 + 3 + 2 + 2  # the dict as its text, "{}"
    assert counts_of(make.OpenAIResponseParser(), pa.array(["ab", None, "é"]))["text_bytes"] == 4


def test_numbers_beyond_the_float_range_stay_json(make: Any) -> None:
    """`1e400` decodes to inf (as json.loads), but the arguments column writes it as it
    was (with serde_json's spelling of the exponent), so the column is always JSON."""
    args = '{"a": 1E400, "b": [-1.5e0400, 1e-400], "c": "1e400"}'
    records = [
        json.dumps(chat([("f", args)])),
        '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "h", "args": '
        + args
        + "}}]}}]}",
    ]
    want = '{"a":1e+400,"b":[-1.5e+0400,0.0],"c":"1e400"}'
    table = make.OpenAIResponseParser().to_arrow(records[:1])
    assert table.column("arguments").to_pylist() == [want]
    gemini_table = make.GeminiResponseParser().to_arrow(records[1:])
    assert gemini_table.column("arguments").to_pylist() == [want]
    decoded = json.loads(want)
    assert decoded["a"] == math.inf and decoded["b"][0] == -math.inf
    response = make.OpenAIResponseParser().parse(records[0])
    assert response.tool_calls[0].arguments == {"a": math.inf, "b": [-math.inf, 0.0], "c": "1e400"}
    # Inline arguments that are not an object keep their text as json.dumps writes it.
    other = json.dumps(chat([("f", [0])])).replace("[0]", "[1e400]")
    assert make.OpenAIResponseParser().parse(other).tool_calls[0].raw_arguments == "[Infinity]"
    assert make.OpenAIResponseParser().to_arrow([other]).column("raw_arguments").to_pylist() == [
        "[Infinity]"
    ]


def test_abandoned_iterators_give_their_memory_back(impl: str, tmp_path: Path) -> None:
    """3,000 parse_file iterators each read once and dropped (with a worker thread reading
    ahead): the blocks queued for them are taken back and the reading threads reused, so
    the process stays small (before, the Rust backend held 291 MiB after 3,000 and 510 MiB
    after 4,000; now ~60 MiB). In a fresh subprocess."""
    line = json.dumps(chat([("f", json.dumps({"x": "y" * 500}))])).encode()
    path = write(tmp_path / "many.jsonl", [line] * 8000)
    script = (
        "import sys\n"
        "from toolsift.parsers import OpenAIResponseParser\n"
        "parser = OpenAIResponseParser()\n"
        "for _ in range(3000):\n"
        "    responses = parser.parse_file(sys.argv[1], threads=2)\n"
        "    next(responses)\n"
        "    del responses\n"
        "print(int(open('/proc/self/statm').read().split()[1]) * 4096 // 2**20)\n"
    )
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 200, f"{done.stdout.strip()} MiB after 3,000 abandoned iterators"


def test_in_memory_dicts_and_sdk_objects_read_as_their_json_text(make: Any) -> None:
    """to_arrow and arrow_batches take decoded records and SDK objects, as parse_many
    does (issue 37): the rows of each are those of the same record given as JSON text."""
    chat_completion = pytest.importorskip("openai.types.chat").ChatCompletion
    genai = pytest.importorskip("google.genai.types")
    openai_doc = chat([("f", '{"a": 1, "n": 123456789012345678901}'), ("g", "{bad")])
    gemini_doc = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"function_call": {"name": "h", "args": {"x": [1.5, None]}}}],
                }
            }
        ]
    }
    envelope = {"custom_id": "r1", "response": {"status_code": 200, "body": openai_doc}}
    docs = [openai_doc, envelope, {"choices": []}, [openai_doc], {"x": float("nan")}]
    parser = make.OpenAIResponseParser()
    texts = [json.dumps(doc, separators=(",", ":"), ensure_ascii=False) for doc in docs]
    want = parser.to_arrow(texts)
    assert want.num_rows >= 5
    assert parser.to_arrow(docs).equals(want)
    assert parser.to_arrow(iter(docs)).equals(want)
    assert parser.arrow_batches(docs, batch_rows=2).read_all().equals(want)
    choice = {**openai_doc["choices"][0], "finish_reason": "tool_calls"}
    completion = chat_completion.model_validate(
        {"object": "chat.completion", "created": 1, "model": "m", **openai_doc, "choices": [choice]}
    )
    sdk = [completion, genai.GenerateContentResponse.model_validate(gemini_doc)]
    auto = make.AutoResponseParser()
    rows = auto.to_arrow(sdk)
    assert rows.equals(auto.to_arrow([obj.model_dump_json() for obj in sdk]))
    calls = [call for response in auto.parse_many(sdk) for call in response.tool_calls]
    assert rows.column("name").to_pylist() == [call.name for call in calls] == ["f", "g", "h"]
