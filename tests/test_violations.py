"""Checks against the declared tools (`tools=`, `requests=`, the `violations` column and
`ToolCall.violations`): the shared vectors (tests/vectors/violations.json, also read by
`cargo test`), the requests join, and the file, table and object APIs, on both backends."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from toolsift import _backend
from toolsift._types import ToolCall

VECTORS = json.loads((Path(__file__).parent / "vectors" / "violations.json").read_text())
CASES = VECTORS["cases"]
SHAPES = VECTORS["shapes"]


def checks_of(impl: str, tools: Any, requests: bytes | None = None) -> Any:
    text = None if tools is None else json.dumps(tools)
    return _backend.load(impl).Checks(text, requests, "requests.jsonl")


def arguments_text(arguments: Any) -> str | None:
    return None if arguments is None else json.dumps(arguments)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_each_code(impl: str, case: dict[str, Any]) -> None:
    checks = checks_of(impl, VECTORS["tools"])
    got = checks.violations(None, case["call"], arguments_text(case["arguments"]))
    assert got == case["violations"]


@pytest.mark.parametrize("case", SHAPES, ids=[case["name"] for case in SHAPES])
def test_each_tool_definition_shape(impl: str, case: dict[str, Any]) -> None:
    checks = checks_of(impl, case["tools"])
    got = checks.violations(None, case["call"], arguments_text(case["arguments"]))
    assert got == case["violations"]


TEXTS = VECTORS["texts"]


@pytest.mark.parametrize("case", TEXTS["cases"], ids=[case["name"] for case in TEXTS["cases"]])
def test_each_text(impl: str, case: dict[str, Any]) -> None:
    """Arguments given as JSON text, as written (number spellings, escapes, big numbers)."""
    checks = checks_of(impl, {"f": TEXTS["schemas"][case["schema"]]})
    assert checks.violations(None, "f", case["text"]) == case["violations"]


MAX_DEPTH = 1024  # the nesting both backends decode (`json::MAX_DEPTH`, `_jsontext`)
ITEMS = {"$ref": "#/$defs/list"}


def wrapped(schema: dict[str, Any], times: int) -> dict[str, Any]:
    for _ in range(times):
        schema = {"allOf": [schema]}
    return schema


RECURSIVE = {
    "via items": {"$defs": {"list": {"type": "array", "items": ITEMS}}},
    "via allOf and anyOf": {
        "$defs": {
            "list": {"allOf": [{"anyOf": [{"$ref": "#/$defs/array"}]}]},
            "array": {"type": "array", "items": ITEMS},
        }
    },
    # Past the first deep stack of the pure backend's validator (28 frames a level).
    "via twelve allOf": {
        "$defs": {
            "list": wrapped({"$ref": "#/$defs/array"}, 12),
            "array": {"type": "array", "items": ITEMS},
        }
    },
}


def nested(levels: int, inner: str = "") -> str:
    return "[" * levels + inner + "]" * levels


@pytest.mark.parametrize("levels", [100, 200, MAX_DEPTH - 2])
def test_deep_arguments_are_checked_as_deep_as_they_decode(impl: str, levels: int) -> None:
    """Arguments nested past 128 levels (serde_json's own limit; the Rust backend said
    `undecodable_arguments` there) up to the decoders' 1024 are checked; deeper ones do
    not decode, on both backends."""
    schema = {"properties": {"n": {"type": "integer"}, "d": {"type": "array"}}}
    checks = checks_of(impl, {"f": schema})
    text = '{"n": 1.5, "d": ' + nested(levels) + "}"
    assert checks.violations(None, "f", text) == ["wrong_type:/n"]
    too_deep = '{"n": 1.5, "d": ' + nested(MAX_DEPTH) + "}"
    assert checks.violations(None, "f", too_deep) == ["undecodable_arguments"]


@pytest.mark.parametrize("levels", [300, MAX_DEPTH - 2])
@pytest.mark.parametrize("schema", list(RECURSIVE), ids=list(RECURSIVE))
def test_a_schema_recursing_with_deep_arguments(impl: str, levels: int, schema: str) -> None:
    """A schema that refers to itself a level down is followed as deep as the arguments
    go (the pure backend's validator past Python's recursion limit: on a deep stack)."""
    definitions = {"properties": {"d": ITEMS}, **RECURSIVE[schema]}
    checks = checks_of(impl, {"f": definitions})
    got = checks.violations(None, "f", '{"d": ' + nested(levels, "7") + "}")
    if schema != "via allOf and anyOf":
        assert got == ["wrong_type:/d" + "/0" * levels]
    else:
        assert got == ["no_match:/d"]
    assert checks.violations(None, "f", '{"d": ' + nested(levels) + "}") == []


def test_tools_of_no_shape_are_refused(impl: str) -> None:
    with pytest.raises(ValueError, match="expected a list of tool definitions or an object"):
        checks_of(impl, "get_weather")
    with pytest.raises(ValueError, match='the schema of "f" is not an object'):
        checks_of(impl, {"f": 1})


def test_the_dialects_read_the_same_shapes(make: Any) -> None:
    """One reader: RawTextParser types values by an Anthropic tool's schema too."""

    tools = [{"name": "f", "input_schema": {"properties": {"n": {"type": "integer"}}}}]
    parser = make.RawTextParser("qwen3-coder", tools=tools)
    text = "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
    (call,) = parser.parse(text).tool_calls
    assert call.arguments == {"n": 7}
    assert call.violations is None  # `parse` of RawTextParser checks nothing
    table = parser.to_arrow([text], requests=None, tools=tools)
    assert table.column("violations").to_pylist() == [[]]


SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


def chat(arguments: str, name: str = "f") -> dict[str, Any]:
    call = {"id": "c", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"choices": [{"message": {"tool_calls": [call]}}]}


def test_to_arrow_with_tools(make: Any) -> None:

    records = [
        json.dumps(chat('{"n": 1}')),
        json.dumps(chat('{"n": "1"}')),
        json.dumps(chat("{oops")),
        json.dumps(chat("{}", name="g")),
        "{not json",
    ]
    tools = {"f": SCHEMA}
    table = make.OpenAIResponseParser().to_arrow(records, tools=tools)
    assert "violations" in table.schema.names
    assert table.column("violations").to_pylist() == [
        [],
        ["numeric_string:/n"],
        ["undecodable_arguments"],
        ["unknown_tool"],
        None,  # a record that could not be read
    ]
    # Without checks, a column of nulls; the constructor's tools are the default.
    plain = make.OpenAIResponseParser().to_arrow(records)
    assert plain.column("violations").null_count == len(records)
    by_constructor = make.OpenAIResponseParser(tools=tools).to_arrow(records)
    assert by_constructor.equals(table)
    batches = make.OpenAIResponseParser().arrow_batches(records, tools=tools).read_all()
    assert batches.column("violations").to_pylist() == table.column("violations").to_pylist()


def test_objects_carry_violations_only_when_checked(make: Any) -> None:

    raw = chat('{"n": "x"}')
    (call,) = make.OpenAIResponseParser().parse(raw).tool_calls
    assert call.violations is None and "violations" not in call.model_dump()
    checked = make.OpenAIResponseParser(tools={"f": SCHEMA})
    (call,) = checked.parse(raw).tool_calls
    assert call.violations == ["wrong_type:/n"]
    assert call.model_dump()["violations"] == ["wrong_type:/n"]
    (call,) = checked.parse_many([raw])[0].tool_calls
    assert call.violations == ["wrong_type:/n"]
    assert pickle.loads(pickle.dumps(checked)).parse(raw).tool_calls[0].violations == [
        "wrong_type:/n"
    ]


def test_tool_call_violations_slot() -> None:
    call = ToolCall("f", {"a": 1})
    assert call.violations is None
    checked = ToolCall("f", {"a": 1}, violations=["unknown_tool"])
    assert checked == call  # equality is name and arguments
    assert checked.model_dump()["violations"] == ["unknown_tool"]
    assert "violations=['unknown_tool']" in repr(checked)
    again = pickle.loads(pickle.dumps(checked))
    assert again.violations == ["unknown_tool"]
    assert pickle.loads(pickle.dumps(call)).violations is None


def lines(path: Path, records: list[Any], gzipped: bool = False) -> Path:
    text = "".join(json.dumps(record) + "\n" for record in records).encode()
    path.write_bytes(gzip.compress(text) if gzipped else text)
    return path


OTHER = {"type": "object", "properties": {"n": {"type": "string"}}}


@pytest.mark.parametrize("gzipped", [False, True])
def test_requests_joined_by_custom_id(make: Any, tmp_path: Path, gzipped: bool) -> None:
    """OpenAI Batch: each output line's request (same `custom_id`) holds its tools; a line
    without a request is `missing_request` (no `tools=` to fall back on)."""

    def body(schema: Any) -> dict[str, Any]:
        tools = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
        return {"model": "m", "messages": [], "tools": tools}

    requests = lines(
        tmp_path / ("requests.jsonl.gz" if gzipped else "requests.jsonl"),
        [
            {
                "custom_id": "r1",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": body(SCHEMA),
            },
            {
                "custom_id": "r2",
                "method": "POST",
                "url": "/v1/chat/completions",
                "body": body(OTHER),
            },
            {"custom_id": "r3", "body": {"model": "m", "messages": []}},  # no tools
        ],
        gzipped,
    )

    def out(custom_id: str) -> dict[str, Any]:
        response = {"status_code": 200, "body": chat('{"n": 1}')}
        return {"custom_id": custom_id, "response": response, "error": None}

    output = lines(tmp_path / "out.jsonl", [out("r1"), out("r2"), out("r3"), out("r9")])
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(output, requests=requests)
    assert table.column("violations").to_pylist() == [
        [],
        ["wrong_type:/n"],
        ["unknown_tool"],
        ["missing_request"],
    ]
    # `tools=` is the fallback of a record with no request.
    table = parser.to_arrow(output, requests=requests, tools={"f": OTHER})
    assert table.column("violations").to_pylist()[3] == ["wrong_type:/n"]
    responses = list(parser.parse_file(output, requests=requests))
    assert [r.tool_calls[0].violations for r in responses] == [
        [],
        ["wrong_type:/n"],
        ["unknown_tool"],
        ["missing_request"],
    ]


def test_requests_joined_by_record_id_and_key(make: Any, tmp_path: Path) -> None:
    """Bedrock batch (`recordId`, `modelInput.toolConfig`) and Gemini batch (`key`,
    `request.tools[].functionDeclarations`)."""

    spec = {"toolSpec": {"name": "f", "inputSchema": {"json": SCHEMA}}}
    bedrock_requests = lines(
        tmp_path / "bedrock-in.jsonl",
        [{"recordId": "b1", "modelInput": {"messages": [], "toolConfig": {"tools": [spec]}}}],
    )
    use = {"toolUse": {"toolUseId": "t", "name": "f", "input": {"n": "2"}}}
    converse = {"output": {"message": {"role": "assistant", "content": [use]}}}
    bedrock_out = lines(
        tmp_path / "bedrock-out.jsonl",
        [{"recordId": "b1", "modelInput": {}, "modelOutput": converse}],
    )
    table = make.BedrockConverseParser().to_arrow(bedrock_out, requests=bedrock_requests)
    assert table.column("custom_id").to_pylist() == ["b1"]
    assert table.column("violations").to_pylist() == [["numeric_string:/n"]]

    declaration = {"name": "f", "parameters": {"type": "OBJECT", "required": ["n"]}}
    gemini_requests = lines(
        tmp_path / "gemini-in.jsonl",
        [
            {
                "key": "g1",
                "request": {"contents": [], "tools": [{"functionDeclarations": [declaration]}]},
            }
        ],
    )
    part = {"functionCall": {"name": "f", "args": {}}}
    response = {"candidates": [{"content": {"parts": [part]}}]}
    gemini_out = lines(tmp_path / "gemini-out.jsonl", [{"key": "g1", "response": response}])
    table = make.GeminiResponseParser().to_arrow(gemini_out, requests=gemini_requests)
    assert table.column("violations").to_pylist() == [["missing_required:/n"]]


def test_a_bad_request_file_is_refused_naming_its_line(make: Any, tmp_path: Path) -> None:

    requests = tmp_path / "requests.jsonl"
    requests.write_text('{"custom_id": "r1", "body": {}}\n{oops\n')
    with pytest.raises(ValueError, match=r"requests\.jsonl, line 2: not JSON"):
        make.OpenAIResponseParser().to_arrow([json.dumps(chat("{}"))], requests=requests)
    with pytest.raises(FileNotFoundError):
        make.OpenAIResponseParser().to_arrow([], requests=tmp_path / "missing.jsonl")
    with pytest.raises(TypeError, match="tools must be tool definitions"):
        make.OpenAIResponseParser().to_arrow([], tools="f")


def tool_list(*names: str) -> str:
    """The JSON text of OpenAI function tools named `names`, of no schema (any arguments)."""
    return json.dumps([{"type": "function", "function": {"name": n}} for n in names])


def declared(checks: Any, key: str, names: str = "fgh") -> str | None:
    """The names of the tools the request `key` declares (None: there is no request)."""
    if checks.violations(key, "?", "{}") == ["missing_request"]:
        return None
    return "".join(n for n in names if checks.violations(key, n, "{}") == [])


F, G = tool_list("f"), tool_list("g")
CONFIG_H = '{"tools": [{"toolSpec": {"name": "h", "inputSchema": {"json": {}}}}]}'


def fill(line: str) -> str:
    """`line` with `<F>`, `<G>` (tool lists), `<FH>` and `<H>` (a Bedrock `toolConfig`)
    filled in."""
    texts = {"<FH>": tool_list("h", "f"), "<F>": F, "<G>": G, "<H>": CONFIG_H}
    for name, text in texts.items():
        line = line.replace(name, text)
    return line


#: Request lines, and the tools each key declares: most of them repeat one tools text (the
#: reader's fast path), each around the places where a search for the key may mislead.
REQUEST_LINES = [
    ("a", r'{"custom_id": "a", "body": {"messages": [{"c": "\"tools\": 1"}], "tools": <F>}}', "f"),
    ("b", '{"custom_id": "b", "body": {"messages": [], "tools": <F>}}', "f"),
    ("c", '{"custom_id": "c", "body": {"m": [{"tools": [{"name": "h"}]}], "tools": <G>}}', "g"),
    ("d", '{"custom_id": "d", "body": {"tools": <F>, "tools": <G>}}', "g"),  # the last wins
    ("e2", '{"custom_id": "e", "custom_id": "e2", "body": {"tools": <F>}}', "f"),
    ("a", '{"custom_id": "a", "body": {"tools": <G>}}', "f"),  # a key's first request wins
    ("n", '{"custom_id": "n", "body": {"messages": []}}', ""),
    ("o", '{"custom_id": "o", "body": {"tools": {"f": {}}}}', ""),  # not a list: none
    ("y", '{"custom_id": "y", "body": {"tools": null}}', ""),
    ("s", r'{"custom_id": "s", "body": {"tool\u0073": <G>}}', "g"),
    ("x", '["custom_id", "x", {"tools": <F>}]', None),  # not an object: skipped
    ("k", '{"body": {"tools": <F>}, "k": "k"}', None),  # no key: skipped
    ("r", '{"recordId": "r", "modelInput": {"toolConfig": <H>}}', "h"),
    ("t", '{"custom_id": "t", "body": {"tools" :<F> , "toolConfig": <H>}}', "h"),
    ("u", '{"custom_id": "u", "body": {"toolConfig": <H>, "tools": <G>}}', "h"),
    ("w", '{"custom_id": "w", "request": {"tools": <G>}}\r', "g"),
    ("z", '{"custom_id": "z", "tools": <G>, "body": {"tools": <F>}}', "f"),
    ("z2", '{"custom_id": "z2", "body": {"tools": <F>}, "tools": <G>}', "f"),
    ("l", '{"key": "l", "tools": <G>}', "g"),  # a log line: the line is the body
    ("deep", '{"custom_id": "deep", "body": {"tools": <F>, "x": %s}}' % ("[" * 99 + "]" * 99), "f"),
    ("m", '{"custom_id": "m", "body": {"tools": <FH>}}', "fh"),
    ("m2", '{"custom_id": "m2", "body": {"tools": <F>}}', "f"),
]  # fmt: skip


@pytest.mark.parametrize("gzipped", [False, True])
def test_request_files_are_read_line_by_line(
    make: Any, backend: Any, tmp_path: Path, gzipped: bool
) -> None:
    """Each request's tools, whatever surrounds them on its line (the lines above), read
    from a request file plain or gzip, and by `Checks` directly."""
    text = "\n".join(fill(line) for _, line, _ in REQUEST_LINES).encode() + b"\n\n"
    checks = backend.Checks(None, text, "requests.jsonl")
    expected = {key: names for key, _, names in reversed(REQUEST_LINES)}
    assert {key: declared(checks, key) for key in expected} == expected
    path = tmp_path / ("requests.jsonl.gz" if gzipped else "requests.jsonl")
    path.write_bytes(gzip.compress(text) if gzipped else text)
    output = [{"custom_id": key, "response": {"body": chat("{}")}} for key in expected]
    table = make.OpenAIResponseParser().to_arrow(
        [json.dumps(line) for line in output], requests=path
    )
    got = table.column("violations").to_pylist()
    assert got == [["missing_request"] if n is None else [] if "f" in n else ["unknown_tool"]
                   for n in expected.values()]  # fmt: skip


def test_request_files_are_read_a_piece_at_a_time(backend: Any) -> None:
    """A file object of request lines (read in pieces: lines straddle the pieces, the
    last one without its newline) gives the checks its bytes give; what the file object
    raises comes out as it was raised."""
    import io

    lines = [fill(line) for _, line, _ in REQUEST_LINES]
    padding = [f'{{"custom_id": "p{n}", "body": {{"tools": {G}}}}}' for n in range(30_000)]
    text = "\n".join(padding + lines).encode()  # over 2 MiB, no final newline
    assert len(text) > 2 << 20
    expected = {key: names for key, _, names in reversed(REQUEST_LINES)}
    for requests in (text, io.BytesIO(text)):
        checks = backend.Checks(None, requests, "requests.jsonl")
        assert {key: declared(checks, key) for key in expected} == expected
        assert declared(checks, "p29999") == "g"

    class Failing(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            if self.tell() > 1 << 20:
                raise EOFError("cut short")
            return super().read(size)

        def readline(self, size: int | None = -1) -> bytes:
            if self.tell() > 1 << 20:
                raise EOFError("cut short")
            return super().readline(size)

    with pytest.raises(EOFError, match="cut short"):
        backend.Checks(None, Failing(text), "requests.jsonl")


def test_a_cut_gzip_request_file_is_an_error(make: Any, tmp_path: Path) -> None:
    """A gzip request file cut short: gzip's own error, on both backends."""
    text = "\n".join(fill(line) for _, line, _ in REQUEST_LINES).encode()
    path = tmp_path / "requests.jsonl.gz"
    path.write_bytes(gzip.compress(text * 50)[:-40])
    with pytest.raises(EOFError):
        make.OpenAIResponseParser().to_arrow([json.dumps({"custom_id": "a"})], requests=path)


BAD_REQUESTS = [
    '{"custom_id": "q", "body": {"messages": [,], "tools": <F>}}',
    '{"custom_id": "q", "body": {"tools": <F>]}}',
    '{"custom_id": "q", "body": {"tools": <F>',
    '{"custom_id": "q", "body": {"tools": <F>}} x',
    '{"custom_id": "q", "body": {"tools": [{"a": 1,}]}}',
    '{"custom_id": "a", "body": {"tools": <F>}',  # a duplicate key is still read
    '{"custom_id": "q", "body": {"tools": ' + "[" * 2000 + "]" * 2000 + "}}",
    '{"custom_id": "q", "body": {"tools": [<F>, "\xff"]}}',  # not UTF-8
]


@pytest.mark.parametrize("bad", BAD_REQUESTS, ids=range(len(BAD_REQUESTS)))
def test_a_request_line_that_is_not_json_is_refused(backend: Any, bad: str) -> None:
    """After lines of the same tools (read by their text): a line that is not JSON, in
    its tools or elsewhere, is an error naming it."""
    good = fill('{"custom_id": "a", "body": {"messages": [], "tools": <F>}}')
    text = "\n".join([good, good, fill(bad), good]).encode("latin-1")
    with pytest.raises(ValueError, match=r"^requests\.jsonl, line 3: not JSON"):
        backend.Checks(None, text, "requests.jsonl")


@pytest.mark.parametrize("output", ["jsonl", "csv", "parquet"])
def test_cli_requests(impl: str, tmp_path: Path, output: str) -> None:
    """`--requests FILE`: the violations column, and the summary's counts by violation
    and tool; a bad request file is a usage error (exit 2)."""
    from test_cli import run

    tools = [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]
    requests = lines(
        tmp_path / "in.jsonl",
        [{"custom_id": key, "body": {"tools": tools}} for key in ("r1", "r2", "r3")],
    )

    def out(custom_id: str, arguments: str) -> dict[str, Any]:
        response = {"status_code": 200, "body": chat(arguments)}
        return {"custom_id": custom_id, "response": response, "error": None}

    batch = lines(
        tmp_path / "out.jsonl",
        [out("r1", '{"n": 1}'), out("r2", '{"n": "1"}'), out("r3", '{"n": "x"}')],
    )
    target = tmp_path / f"calls.{output}"
    done = run(impl, "extract", batch, "--requests", requests, "-o", target)
    assert done.returncode == 0, done.stderr
    assert (
        "toolsift: 2 violations (by violation and tool): numeric_string f: 1, wrong_type f: 1"
        in done.stderr
    )
    if output == "jsonl":
        rows = [json.loads(line) for line in target.read_text().splitlines()]
        assert [row["violations"] for row in rows] == [[], ["numeric_string:/n"], ["wrong_type:/n"]]
    elif output == "csv":
        import pyarrow.csv as pcsv

        table = pcsv.read_csv(target)  # a list column is its JSON text in CSV
        assert table.column("violations").to_pylist()[1] == '["numeric_string:/n"]'
    else:
        import pyarrow.parquet as pq

        assert pq.read_table(target).column("violations").to_pylist()[2] == ["wrong_type:/n"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    done = run(impl, "extract", batch, "--requests", bad)
    assert done.returncode == 2 and "bad.jsonl, line 1: not JSON" in done.stderr
