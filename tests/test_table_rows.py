"""The table's failure kinds (`error_kind`, `http_status`) and its row per record
(`rows="records"`), on both backends."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from toolsift import Files
from toolsift._bulk import by_record, record_schema, schema
from toolsift._errors import ERROR_KINDS, error_kind
from toolsift._types import CALL_LEVEL_COLUMNS, COLUMNS

VECTORS = Path(__file__).parent / "vectors"
KIND_CASES = json.loads((VECTORS / "json_errors.json").read_text("utf-8"))["kinds"]
SAMPLES = Path(__file__).parents[1] / "python" / "toolsift" / "samples"

CLASSES = {
    "openai": "OpenAIResponseParser",
    "gemini": "GeminiResponseParser",
    "anthropic": "AnthropicResponseParser",
    "auto": "AutoResponseParser",
}


@pytest.mark.parametrize("case", KIND_CASES, ids=lambda case: case["name"])
def test_kind_vectors(case: dict[str, Any], make: Any) -> None:
    """tests/vectors/json_errors.json "kinds" (`cargo test` reads them too): the kind and
    HTTP status of each error text, and the row each backend gives for a case's record."""
    assert error_kind(case["error"]) == (case["kind"], case["http_status"])
    assert case["kind"] in ERROR_KINDS
    if "record" not in case:
        return
    parser = getattr(make, CLASSES[case["format"]])()
    table = parser.to_arrow([case["record"]], record_path=case.get("record_path"))
    row = table.select(["error", "error_kind", "http_status"]).to_pylist()
    assert row == [
        {"error": case["error"], "error_kind": case["kind"], "http_status": case["http_status"]}
    ]
    records = parser.to_arrow([case["record"]], record_path=case.get("record_path"), rows="records")
    assert records.select(["error", "error_kind", "http_status", "calls"]).to_pylist() == [
        {**row[0], "calls": 0}
    ]


def test_a_line_too_long_is_its_kind(make: Any, tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(b'{"choices": []}\n' + b"x" * 100 + b"\n")
    table = make.OpenAIResponseParser().to_arrow(path, max_line_bytes=50)
    assert table.select(["record", "error_kind"]).to_pylist() == [
        {"record": 1, "error_kind": "line_too_long"}
    ]


def test_call_rows_have_no_kind(make: Any) -> None:
    line = json.dumps(
        {"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{"}}]}}]}
    )
    table = make.OpenAIResponseParser().to_arrow([line])
    assert table.select(["error", "error_kind", "http_status"]).to_pylist() == [
        {"error": None, "error_kind": None, "http_status": None}
    ]


# ------------------------------------------------------------------ rows="records"


def chat(*names: str, raw: str = "{}") -> str:
    calls = [{"id": f"c_{name}", "function": {"name": name, "arguments": raw}} for name in names]
    message = {"tool_calls": calls} if calls else {"content": "hi"}
    return json.dumps({"choices": [{"message": message}]})


RECORDS = [
    chat("f", "g", raw='{"a": 1}'),
    "{nope",
    "",
    chat(),
    chat("h", raw="{oops"),
    json.dumps({"custom_id": "r5", "response": {"status_code": 429}}),
    chat("i", "j", "k"),
]


def expected_records(calls: pa.Table) -> list[dict[str, Any]]:
    """One row per record, made from the rows of one per call by hand: a record with no
    call and no error (which has no row there) is put back from RECORDS."""
    by_number: dict[int, dict[str, Any]] = {}
    for row in calls.to_pylist():
        record = by_number.setdefault(
            row["record"],
            {k: v for k, v in row.items() if k not in CALL_LEVEL_COLUMNS}
            | {"calls": 0, "tool_calls": []},
        )
        if row["call_index"] is not None:
            record["calls"] += 1
            record["tool_calls"].append({k: row[k] for k in CALL_LEVEL_COLUMNS})
    by_number[3] = {
        **{name: None for name in COLUMNS if name not in CALL_LEVEL_COLUMNS},
        "record": 3,
        "format": "openai",
        "calls": 0,
        "tool_calls": [],
    }
    return [by_number[n] for n in sorted(by_number)]


def test_a_row_per_record(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(RECORDS, rows="records")
    assert table.schema == record_schema(schema())
    assert table.schema.names == [
        *(name for name in COLUMNS if name not in CALL_LEVEL_COLUMNS),
        "calls",
        "tool_calls",
    ]
    got = table.to_pylist()
    assert got == expected_records(parser.to_arrow(RECORDS))
    assert [row["record"] for row in got] == [0, 1, 3, 4, 5, 6]  # blank records skipped
    assert [row["calls"] for row in got] == [2, 0, 0, 1, 0, 3]
    [call] = got[3]["tool_calls"]
    assert {k: call[k] for k in ("call_index", "id", "name", "arguments", "raw_arguments")} == {
        "call_index": 0,
        "id": "c_h",
        "name": "h",
        "arguments": "{}",
        "raw_arguments": "{oops",
    }
    assert call["defect"] == "not_json"  # every call column is in the struct
    assert got[4]["http_status"] == 429 and got[4]["custom_id"] == "r5"


@pytest.mark.parametrize("batch_rows", [1, 2, 5, 100])
def test_arrow_batches_by_record(make: Any, batch_rows: int) -> None:
    """`batch_rows` counts records; the same rows as `to_arrow`, one schema."""
    parser = make.OpenAIResponseParser()
    want = parser.to_arrow(RECORDS, rows="records")
    reader = parser.arrow_batches(RECORDS, rows="records", batch_rows=batch_rows)
    assert reader.schema == want.schema
    batches = list(reader)
    assert all(batch.schema == want.schema for batch in batches)
    assert [len(b) for b in batches][:-1] == [batch_rows] * (len(batches) - 1)
    assert pa.Table.from_batches(batches).to_pylist() == want.to_pylist()


def test_files_by_record(make: Any, tmp_path: Path) -> None:
    """Several files: a `file` column first; a record is numbered in its own file."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz"
    first.write_text("\n".join(RECORDS[:4]) + "\n")
    second.write_bytes(gzip.compress(("\n".join(RECORDS[4:]) + "\n").encode()))
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(Files([first, second]), rows="records", threads=2)
    assert table.schema.names[0] == "file"
    assert table.schema.names[1:] == record_schema(schema()).names
    rows = table.select(["file", "record", "calls"]).to_pylist()
    assert [(Path(r["file"]).name, r["record"], r["calls"]) for r in rows] == [
        ("a.jsonl", 0, 2),
        ("a.jsonl", 1, 0),
        ("a.jsonl", 3, 0),
        ("b.jsonl.gz", 0, 1),
        ("b.jsonl.gz", 1, 0),
        ("b.jsonl.gz", 2, 3),
    ]


@pytest.mark.parametrize("threads", [1, 2])
def test_the_batch_file_by_record(make: Any, threads: int) -> None:
    """The OpenAI Batch sample: a row per non-blank line; its calls are the call rows."""
    path = SAMPLES / "openai_batch_output.jsonl"
    parser = make.OpenAIResponseParser()
    calls = parser.to_arrow(path, threads=threads)
    records = parser.to_arrow(path, threads=threads, rows="records")
    lines = [line for line in path.read_bytes().splitlines() if line.strip()]
    assert records.num_rows == len(lines)
    assert (
        sum(records.column("calls").to_pylist())
        == len(calls) - calls.column("call_index").null_count
    )
    flat = [call for row in records.column("tool_calls").to_pylist() for call in row]
    assert (
        flat
        == calls.filter(calls.column("call_index").is_valid())
        .select(list(CALL_LEVEL_COLUMNS))
        .to_pylist()
    )


def test_rows_is_checked(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    for bad in ("call", None, 1):
        with pytest.raises(ValueError, match="rows must be 'calls' or 'records'"):
            parser.to_arrow(RECORDS, rows=bad)
        with pytest.raises(ValueError, match="rows must be 'calls' or 'records'"):
            parser.arrow_batches(RECORDS, rows=bad)


def test_by_record_of_an_empty_batch() -> None:
    calls = schema()
    empty = pa.RecordBatch.from_pylist([], schema=calls)
    assert by_record(empty, record_schema(calls)).num_rows == 0


# ------------------------------------------------------------------ carry=

CARRY = json.loads((VECTORS / "carry.json").read_text("utf-8"))


@pytest.mark.parametrize("case", CARRY["cases"], ids=lambda case: case["name"])
def test_carry_vectors(case: dict[str, Any], make: Any) -> None:
    """tests/vectors/carry.json (`cargo test` reads it too): each record's carried
    fields, as JSON text (a column of one record of JSON text stays JSON text but for
    strings, bools and numbers, typed; so the texts are compared through `json`)."""
    from toolsift._pure.bulk import carried_values

    paths = [path.split(".") for path in CARRY["paths"]]
    from toolsift._jsontext import keeping_number_text

    with keeping_number_text():
        assert carried_values(case["record"], paths) == case["values"]
    parser = make.AutoResponseParser()
    table = parser.to_arrow([case["record"]], carry=CARRY["paths"], rows="records")
    row = table.select(CARRY["paths"]).to_pylist()[0]
    for name, text in zip(CARRY["paths"], case["values"], strict=True):
        got = row[name]
        if text is None:
            assert got is None
        elif isinstance(got, str) and not text.startswith('"'):
            assert got == text  # JSON text (not a scalar)
        else:
            assert got == json.loads(text), name


def carry_records() -> list[str]:
    def line(i: int, **fields: Any) -> str:
        calls = [{"function": {"name": f"f{j}", "arguments": "{}"}} for j in range(i % 3)]
        return json.dumps({**fields, "choices": [{"message": {"tool_calls": calls}}]})

    return [
        line(0, request_id="r0", meta={"user": 5, "ok": True, "t": 0.5, "v": 1}),
        line(1, request_id="r1", meta={"user": 6, "ok": False, "t": 2, "v": "x"}),
        "{nope",
        json.dumps({"custom_id": "c", "request_id": 'q"', "response": {"status_code": 429}}),
        line(2, request_id="r4", meta={"user": None, "ok": None, "t": 1e3, "v": [1]}),
    ]


CARRIED = ["request_id", "meta.user", "meta.ok", "meta.t", "meta.v", "meta.none"]


def test_carry_to_arrow(make: Any) -> None:
    """A column per path after all the others, on every row of its record (failed
    ones too), typed where every record agrees."""
    parser = make.OpenAIResponseParser()
    table = parser.to_arrow(carry_records(), carry=CARRIED)
    assert table.schema.names == [*COLUMNS, *CARRIED]
    assert [str(t) for t in table.schema.types[len(COLUMNS) :]] == [
        "string",
        "int64",
        "bool",
        "double",
        "string",
        "string",
    ]
    rows = table.select(["record", *CARRIED]).to_pylist()
    assert rows == [
        {"record": 1, "request_id": "r1", "meta.user": 6, "meta.ok": False, "meta.t": 2.0,
         "meta.v": '"x"', "meta.none": None},
        {"record": 2, "request_id": None, "meta.user": None, "meta.ok": None, "meta.t": None,
         "meta.v": None, "meta.none": None},
        {"record": 3, "request_id": 'q"', "meta.user": None, "meta.ok": None, "meta.t": None,
         "meta.v": None, "meta.none": None},
        *[{"record": 4, "request_id": "r4", "meta.user": None, "meta.ok": None,
           "meta.t": 1000.0, "meta.v": "[1]", "meta.none": None}] * 2,
    ]  # fmt: skip
    records = parser.to_arrow(carry_records(), carry=CARRIED, rows="records")
    assert records.column("record").to_pylist() == [0, 1, 2, 3, 4]
    assert records.column("meta.v").to_pylist() == ["1", '"x"', None, None, "[1]"]
    assert records.column("meta.user").type == pa.int64()


def test_carry_arrow_batches_types_by_the_first_batch(make: Any) -> None:
    """The first batch fixes the types: strings there make a string column (a later
    value that is not a string stays its JSON text); any other field is JSON text."""
    parser = make.OpenAIResponseParser()
    later = json.dumps({"request_id": 42, "choices": []})
    records = [*carry_records(), later]
    reader = parser.arrow_batches(records, carry=CARRIED, rows="records", batch_rows=2)
    assert [str(t) for t in reader.schema.types[-len(CARRIED) - 2 : -2]] == ["string"] * 6
    table = reader.read_all()
    assert table.column("request_id").to_pylist() == ["r0", "r1", None, 'q"', "r4", "42"]
    assert table.column("meta.user").to_pylist() == ["5", "6", None, None, None, None]
    assert table.column("meta.ok").to_pylist() == ["true", "false", None, None, None, None]
    # A row per call: the same rule (a failed record's row carries too).
    reader = parser.arrow_batches(records[3:], carry=["request_id"])
    assert reader.read_all().column("request_id").to_pylist() == ['q"', "r4", "r4"]


def test_carry_files(make: Any, tmp_path: Path) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    lines = carry_records()
    first.write_text("\n".join(lines[:2]) + "\n")
    second.write_text("\n".join(lines[2:]) + "\n")
    table = make.OpenAIResponseParser().to_arrow(
        Files([first, second]), carry=["request_id", "meta.user"], rows="records"
    )
    assert table.schema.names[0] == "file"
    assert table.column("request_id").to_pylist() == ["r0", "r1", None, 'q"', "r4"]
    assert table.column("meta.user").to_pylist() == [5, 6, None, None, None]


def test_carry_parse_file(make: Any, tmp_path: Path) -> None:
    """`parse_file(carry=...)`: each response's `carried`, `{path: value}` decoded from
    its line (None where the path leads nowhere, or the line is not JSON); in
    `model_dump()` and equality, kept by pickle; absent without `carry`."""
    import pickle

    path = tmp_path / "carry.jsonl"
    path.write_text("\n".join(carry_records()) + "\n\n")
    parser = make.OpenAIResponseParser()
    responses = list(parser.parse_file(path, carry=CARRIED, threads=2))
    assert [r.carried for r in responses] == [
        {"request_id": "r0", "meta.user": 5, "meta.ok": True, "meta.t": 0.5, "meta.v": 1,
         "meta.none": None},
        {"request_id": "r1", "meta.user": 6, "meta.ok": False, "meta.t": 2, "meta.v": "x",
         "meta.none": None},
        dict.fromkeys(CARRIED),
        {"request_id": 'q"', **dict.fromkeys(CARRIED[1:])},
        {"request_id": "r4", "meta.user": None, "meta.ok": None, "meta.t": 1e3, "meta.v": [1],
         "meta.none": None},
    ]  # fmt: skip
    assert responses[3].error is not None  # a failed record carries its fields too
    dumped = responses[0].model_dump()
    assert dumped["carried"] == responses[0].carried
    assert list(dumped) == ["tool_calls", "raw", "error", "carried"]
    assert pickle.loads(pickle.dumps(responses[0])) == responses[0]
    assert "carried={'request_id': 'r0'" in repr(responses[0])
    plain = list(parser.parse_file(path))
    assert all(r.carried is None and "carried" not in r.model_dump() for r in plain)
    assert plain[0] != responses[0]  # the carried fields count in equality
    assert [r.tool_calls for r in plain] == [r.tool_calls for r in responses]


@pytest.mark.parametrize("case", CARRY["cases"], ids=lambda case: case["name"])
def test_carry_parse_file_vectors(case: dict[str, Any], make: Any, tmp_path: Path) -> None:
    """tests/vectors/carry.json through `parse_file`: the values whose JSON text the
    table carries, decoded."""
    from toolsift._jsontext import loads

    path = tmp_path / "one.jsonl"
    path.write_text(case["record"] + "\n", "utf-8")
    [response] = make.AutoResponseParser().parse_file(path, carry=CARRY["paths"])
    want = [None if text is None else loads(text) for text in case["values"]]
    assert response.carried == dict(zip(CARRY["paths"], want, strict=True))


@pytest.mark.parametrize(
    ("carry", "error", "message"),
    [
        ("request_id", TypeError, "carry must be a list of dot paths"),
        ([1], TypeError, "carry must be a list of dot paths"),
        ([""], ValueError, "a carry path must be keys joined by dots"),
        (["a..b"], ValueError, "a carry path must be keys joined by dots"),
        (["name"], ValueError, "is the name of a column of the table already"),
        (["calls"], ValueError, "is the name of a column of the table already"),
        (["a", "a"], ValueError, "carry names a field twice"),
    ],
)
def test_carry_is_checked(make: Any, carry: Any, error: type, message: str) -> None:
    parser = make.OpenAIResponseParser()
    with pytest.raises(error, match=message):
        parser.to_arrow(["{}"], carry=carry)
    with pytest.raises(error, match=message):
        parser.parse_file(SAMPLES / "openai_batch_output.jsonl", carry=carry)
    with pytest.raises(error, match=message):
        parser.arrow_batches(["{}"], carry=carry)
