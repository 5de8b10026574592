"""Writes `json_errors.json`: JSON texts and the error `toolsift._jsontext.error_for` gives
each (the specification: `[msg, pos]`, or null for a valid text). Run it after editing the
cases below; pytest (tests/test_jsontext.py) checks the file against `error_for`, and
`cargo test` (src/json_errors.rs) checks the Rust twin, `json_errors::describe`, on it.

A case: `{"name", "text", "error"}`, and `"str": true` where the text is also checked as a
Python `str` (bytes that are a `str` holding lone surrogates, encoded with
"surrogatepass"). `text` is a string (its UTF-8 bytes), or a list of pieces put end to
end: a string, `{"$hex": "..."}` (bytes), or `{"$repeat": "...", "times": N}`.

Every kind of error `error_for` reports has cases: empty and blank text, a byte order
mark, invalid UTF-8 (with its position, before and after a syntax error), truncated
values of every kind, bad escapes and lone surrogates, bad numbers and literals, missing
separators, trailing data, nesting at and beyond the limit; and valid texts the Rust
parser reads its own way (integers beyond 64 bits and beyond Python's digit limit,
numbers beyond the float range).

`kinds`: a failed record's `error` text and its `error_kind` and `http_status`
(`toolsift._errors.error_kind`, the twin of `json_errors::error_kind`), given here by hand
(the spec) and checked against `error_kind`. Where a case has a `record` (one line, read
by the parser of `format`, with `record_path` where given), both backends' `to_arrow`
and the Rust `bulk::rows` give that error for it (pytest: tests/test_jsontext.py).
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import os

os.environ["TOOLSIFT_IMPLEMENTATION"] = "python"  # the spec reads the records

from conftest import vector_text
from toolsift import parsers
from toolsift._errors import error_kind
from toolsift._jsontext import MAX_DEPTH, error_for


def hexed(data: bytes) -> dict:
    return {"$hex": data.hex()}


def repeat(text: str, times: int) -> dict:
    return {"$repeat": text, "times": times}


# (name, text): `text` as in a case; bytes are written as pieces.
CASES = [
    # empty, blank, BOM, whitespace
    ("empty", ""),
    ("blank", "   "),
    ("blank lines", "\n\r\n\t"),
    ("BOM before an object", [hexed(b"\xef\xbb\xbf"), "{}"]),
    ("BOM alone", [hexed(b"\xef\xbb\xbf")]),
    ("BOM after a space", [" ", hexed(b"\xef\xbb\xbf"), "1"]),
    ("BOM cut short", [hexed(b"\xef\xbb")]),
    ("form feed is not whitespace", "\x0c1"),
    ("NBSP is not whitespace", "\u00a01"),
    ("form feed after a value", "1\x0c"),
    ("vertical tab in an array", "[1\x0b]"),
    # not JSON values
    ("NaN", "NaN"),
    ("Infinity", "Infinity"),
    ("-Infinity", "-Infinity"),
    ("single quotes", "'a'"),
    ("single-quoted key", "{'a':1}"),
    ("comment before", "// c\n1"),
    ("comment after", "1 // c"),
    ("block comment", "[1 /* c */]"),
    ("closing bracket", "]"),
    ("closing brace", "}"),
    ("Python True", "True"),
    ("undefined", "undefined"),
    # literals
    ("truncated true", "tru"),
    ("truncated false", "[fa"),
    ("truncated null", '{"a":n'),
    ("bad true", "trUe"),
    ("bad null", "nulL"),
    ("bad false", "[fals]"),
    ("two literals", "nullnull"),
    ("literal and more", "[1,truex]"),
    # numbers
    ("leading zero", "01"),
    ("negative leading zero", "-01"),
    ("double zero", "[00]"),
    ("leading zero in a run", "[1,2,3,01]"),
    ("leading zero in an object", '{"a":1,"b":02}'),
    ("truncated fraction", "1."),
    ("empty fraction", "[1.]"),
    ("fraction before exponent", "1.e5"),
    ("no integer part", ".5"),
    ("plus sign", "+1"),
    ("lone minus", "-"),
    ("minus and space", "- 1"),
    ("truncated exponent", "1e"),
    ("truncated exponent sign", "1e+"),
    ("empty exponent", "[1e]"),
    ("empty signed exponent", "[1E-]"),
    ("exponent then fraction", "1e5."),
    ("exponent then fraction in an array", "[1e5.5]"),
    ("second fraction", "1.5e3.2"),
    ("two dots", "[1.5.3]"),
    ("hex number", "0x10"),
    ("two numbers", "1 2"),
    ("truncated after a number", '{"a":12'),
    # strings
    ("unclosed string", '"abc'),
    ("truncated key", '{"ab'),
    ("truncated member string", '{"a":"b'),
    ("NUL in a string", '"a\x00"'),
    ("newline in a string", '"a\nb"'),
    ("tab in a string", '"\t"'),
    ("unit separator in a string", '"\x1f"'),
    ("\\x escape", '"\\x41"'),
    ("\\U escape", '"\\U0041"'),
    ("escaped quote", '"\\\'"'),
    ("escaped newline", '"\\\n"'),
    ("truncated escape", '"\\'),
    ("short \\u escape", '"\\u12"'),
    ("bad \\u digit", '"\\u12G4"'),
    ("truncated \\u", '"\\u'),
    ("truncated \\u digits", '"\\u00'),
    # escaped surrogates: only a high-low pair is valid
    ("lone high surrogate", '"\\ud800"'),
    ("lone low surrogate", '"\\udc00"'),
    ("lone low surrogate, upper case", '"\\uDFFF"'),
    ("high surrogate and a letter escape", '"ab\\ud800\\u0041"'),
    ("two high surrogates", '"\\ud800\\ud800\\udc00"'),
    ("pair then a low surrogate", '"\\ud83d\\ude00\\ude00"'),
    ("high surrogate then \\n", '"\\ud800\\n"'),
    ("high surrogate then a letter", '"\\ud800x"'),
    ("high surrogate at the end", '"\\ud800'),
    ("high surrogate then a cut escape", '"\\ud800\\u12'),
    ("high surrogate then a bad escape", '"\\ud800\\uZZZZ"'),
    ("cut surrogate", '"\\ud8'),
    ("lone surrogate in a key", '{"\\udc00":1}'),
    # arrays and objects
    ("trailing comma in an array", "[1,]"),
    ("two commas", "[1,,2]"),
    ("leading comma", "[,1]"),
    ("trailing comma in an object", '{"a":1,}'),
    ("comma alone in an object", "{,}"),
    ("missing colon", '{"a" 1}'),
    ("key at the end", '{"a"'),
    ("colon at the end", '{"a":'),
    ("member at the end", '{"a":1'),
    ("missing value", '{"a":}'),
    ("number key", "{1:2}"),
    ("missing comma between members", '{"a":1 "b":2}'),
    ("bracket closing an object", '{"a":1]'),
    ("bad member in a run", '{"a":1,"b":2,"c":3x}'),
    ("brace closing an array", "[1}"),
    ("missing comma between items", "[1 2]"),
    ("open bracket", "["),
    ("open array after a comma", "[1,"),
    ("open brace", "{"),
    ("two documents", "{} {}"),
    ("extra bracket", "[1]]"),
    ("NUL after a value", "1\x00"),
    # invalid UTF-8 (pos: the first byte of the first ill-formed sequence)
    ("invalid byte", [hexed(b"\xff")]),
    ("invalid byte then a bracket", [hexed(b"\xff"), "["]),
    ("encoded surrogate", ['"', hexed(b"\xed\xa0\x80"), '"']),
    ("invalid byte after valid UTF-8", ['["\u00e9", ', hexed(b"\xff"), "]"]),
    ("invalid UTF-8 where a comma is wanted", ["[1 ", hexed(b"\xff"), "]"]),
    ("invalid UTF-8 after the document", ["[1]", hexed(b"\xff")]),
    ("continuation byte after the document", ["[1] ", hexed(b"\x80")]),
    ("invalid UTF-8 in a literal", ["tr", hexed(b"\xff")]),
    ("syntax error before invalid UTF-8", ["[01, ", hexed(b"\xff"), "]"]),
    ("lone surrogate escape before invalid UTF-8", ['"\\ud800', hexed(b"\xff"), '"']),
    ("truncated sequence at the end", ['"abc', hexed(b"\xe2\x82"), '"']),
    ("truncated emoji", ['"', hexed(b"\xf0\x9f\x98")]),
    ("overlong encoding", ['{"a":"', hexed(b"\xc0\xaf"), '"}']),
    ("invalid UTF-8 in a truncated record", ['{"choices": "', hexed(b"\xff\xfe"), '"}']),
    # nesting
    ("too deep", [repeat("[", MAX_DEPTH + 1), repeat("]", MAX_DEPTH + 1)]),
    ("deep and open", [repeat("[", MAX_DEPTH)]),
    ("deep and open beyond the limit", [repeat("[", 100_000)]),
    ("too deep in objects", [repeat('{"a":', MAX_DEPTH + 1), "1", repeat("}", MAX_DEPTH + 1)]),
    ("deepest accepted", [repeat("[", MAX_DEPTH), repeat("]", MAX_DEPTH)]),
    ("deepest accepted, objects", [repeat('{"k":', MAX_DEPTH), "0", repeat("}", MAX_DEPTH)]),
    # valid texts
    ("plain object", '{"a":[1,{"b":null}],"c":true,"d":false,"e":-0.25e-3}'),
    ("duplicate keys", '{"a":1,"b":2,"a":3}'),
    ("escapes", '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"'),
    ("integer beyond 64 bits", "[18446744073709551616, -99999999999999999999999]"),
    ("integer beyond the digit limit", ['{"n":', repeat("7", 5000), "}"]),
    ("negative integer beyond the digit limit", ["[-", repeat("1", 4301), "]"]),
    ("number beyond the float range", "[1e400, -1E+400, 1.5e-400]"),
    ("surrounded by whitespace", " \t\n\r1\r\n\t "),
    ("non-ASCII text", '"\u2028 caf\u00e9 \u6771\u4eac \U0001f680"'),
    # a record cut short (a truncated line of a log)
    ("truncated record", '{"choices": [1, 2'),
    (
        "truncated OpenAI response",
        '{"id":"c1","choices":[{"message":{"tool_calls":[{"function":'
        '{"name":"f","arguments":"{\\"a\\": 1',
    ),
]

# Python `str`s holding lone surrogates: checked as bytes (encoded with "surrogatepass")
# and as the `str` itself.
STR_CASES = [
    ("str: lone surrogate", '"\ud800"'),
    ("str: lone surrogate in an array", '["\u00e9", "\udfff"]'),
    ("str: lone surrogate after an emoji key", '{"\U0001f680": "\udc00"}'),
    ("str: two surrogate characters", '"\ud83d\ude00"'),
    ("str: surrogate where a comma is wanted", "[1, 2\ud800]"),
    ("str: syntax error before a surrogate", "[01\ud800]"),
]


def batch(response: object = None, error: object = None) -> str:
    return json.dumps({"custom_id": "r1", "response": response, "error": error})


# (name, the record or the error text, kind, http_status, format, record_path): a record
# is read with `format`'s parser; None for format: the text is the error itself.
KIND_CASES = [
    ("not JSON", "{nope", "json", None, "openai", None),
    ("truncated JSON", '{"choices": [', "json", None, "openai", None),
    (
        "HTTP status with an error",
        batch({"status_code": 429, "body": {"error": {"message": "slow"}}}),
        "provider",
        429,
        "openai",
        None,
    ),
    ("HTTP status alone", batch({"status_code": 500}), "provider", 500, "openai", None),
    (
        "HTTP status that is a string",
        batch({"status_code": "503", "body": "down"}),
        "provider",
        None,
        "openai",
        None,
    ),
    (
        "HTTP status beyond int32",
        batch({"status_code": 4294967296, "body": "x"}),
        "provider",
        None,
        "openai",
        None,
    ),
    (
        "batch error",
        batch(error={"code": "batch_expired", "message": "late"}),
        "provider",
        None,
        "openai",
        None,
    ),
    ("batch record without a response", batch(), "provider", None, "openai", None),
    (
        "Gemini batch error",
        json.dumps({"key": "k", "error": {"code": 400, "message": "bad"}}),
        "provider",
        None,
        "gemini",
        None,
    ),
    (
        "Anthropic batch canceled",
        json.dumps({"custom_id": "a", "result": {"type": "canceled"}}),
        "provider",
        None,
        "anthropic",
        None,
    ),
    (
        "stream error event",
        '[{"error": {"message": "overloaded"}}]',
        "provider",
        None,
        "auto",
        None,
    ),
    (
        "a piece of a stream",
        json.dumps(
            {
                "candidates": [
                    {
                        "content": {
                            "parts": [
                                {
                                    "functionCall": {
                                        "partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}]
                                    }
                                }
                            ]
                        }
                    }
                ]
            }
        ),
        "stream",
        None,
        "gemini",
        None,
    ),
    ("unrecognized shape", '{"a": 1}', "shape", None, "auto", None),
    ("nothing at record_path", '{"a": {"b": null}}', "record_path", None, "openai", "a.b"),
    ("line too long", "line longer than 10 bytes", "line_too_long", None, None, None),
    ("not text", "TypeError: a record must be str or bytes, not int", "json", None, None, None),
    ("no response", "no response (null)", "json", None, None, None),
    ("stream event not JSON", "a stream event is not JSON", "stream", None, None, None),
]


def kind_cases() -> list[dict]:
    cases = []
    for name, text, kind, status, format, record_path in KIND_CASES:
        case: dict = {"name": f"kind: {name}"}
        if format is None:
            error = text
        else:
            parser = getattr(parsers, FORMAT_CLASSES[format])()
            row = parser.to_arrow([text], record_path=record_path).to_pylist()[0]
            error = row["error"]
            case.update(record=text, format=format)
            if record_path is not None:
                case["record_path"] = record_path
        assert error_kind(error) == (kind, status), (name, error, error_kind(error))
        case.update(error=error, kind=kind, http_status=status)
        cases.append(case)
    return cases


FORMAT_CLASSES = {
    "openai": "OpenAIResponseParser",
    "gemini": "GeminiResponseParser",
    "anthropic": "AnthropicResponseParser",
    "auto": "AutoResponseParser",
}


def main() -> None:
    cases = []
    for name, text in CASES:
        error = error_for(vector_text(text))
        cases.append(
            {"name": name, "text": text, "error": None if error is None else [error.msg, error.pos]}
        )
    for name, text in STR_CASES:
        error = error_for(text)
        assert error is not None
        data = text.encode("utf-8", "surrogatepass")
        cases.append(
            {"name": name, "text": [hexed(data)], "str": True, "error": [error.msg, error.pos]}
        )
    names = [case["name"] for case in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    out = Path(__file__).with_name("json_errors.json")
    lines = ",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in cases)
    about = "JSON texts and their first error (see make_json_errors_vectors.py)"
    kinds = ",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in kind_cases())
    out.write_text(
        f'{{\n "about": {json.dumps(about)},\n "cases": [\n{lines}\n ],\n'
        f' "kinds": [\n{kinds}\n ]\n}}\n'
    )
    print(f"{out}: {len(cases)} cases")


if __name__ == "__main__":
    main()
