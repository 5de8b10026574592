"""Writes `defects.json`: argument texts that do not decode as a JSON object, the defect
of each and its audited repair (the specification: `toolsift._pure.defects.salvage`).
Run it after editing the cases below: each case's `defect` and `repairs` are written by
hand here and checked against the specification, which fills in `arguments` (the
repaired object, or null). pytest (tests/test_defects.py) reads the file on both
backends; `cargo test` (src/defects.rs) checks the Rust twin on it.

A case: `{"name", "text", "defect", "repairs", "arguments"}`; `text` is a string, or a
list of pieces put end to end: a string or `{"$repeat": "...", "times": N}` (a long
text stays short in the file, and out of the texts other tests collect from it). The cases that are left as
they are include the repairs other tools make that lose or change data (json_repair,
jsonrepair issues): an apostrophe in a single-quoted string, a double quote inside one,
an unescaped quote in a string, two objects, text cut off.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

from toolsift._pure.defects import salvage

CASES = [
    # (name, text, defect, repairs)
    ("empty", "", "empty", []),
    ("blank", " \n\t", "empty", []),
    ("cut inside a string", '{"city": "Par', "truncated", []),
    ("cut after a key", '{"city"', "truncated", []),
    ("cut after a comma", '{"a": 1,', "truncated", []),
    ("cut inside a number", '{"a": 1.', "truncated", []),
    ("cut inside a nested list", '{"a": [1, 2', "truncated", []),
    ("cut inside an escape", '{"a": "x\\', "truncated", []),
    ("cut inside a block comment", '{"a": 1 /* note', "truncated", []),
    ("cut with single quotes", "{'a': 'b", "truncated", []),
    ("cut after prose", 'Calling: {"a": 1', "truncated", []),
    ("cut inside a fence", '```json\n{"a": 1', "truncated", []),
    ("cut JSON string", '"{\\"a\\": 1', "truncated", []),
    ("cut list", "[1, 2", "truncated", []),
    ("cut, apostrophe in a string", '{"message": "This test isn\'t', "truncated", []),
    ("prose", "I cannot call that tool.", "not_json", []),
    ("a bare word", "Paris", "not_json", []),
    ("missing colon", '{"a" 1}', "not_json", []),
    ("missing comma", '{"a": 1 "b": 2}', "not_json", []),
    ("NaN", '{"a": NaN}', "not_json", []),
    ("extra closing brace", '{"a": 1}}', "not_json", []),
    ("two objects", '{"a": 1} {"b": 2}', "not_json", []),
    ("two objects in prose", 'Either {"a": 1} or {"b": 2}', "not_json", []),
    ("prose with brackets", 'See [docs]: {"a": 1}', "not_json", []),
    ("two commas", '{"a": 1,,}', "not_json", []),
    ("comma after a brace", '{,"a": 1}', "not_json", []),
    ("unescaped quote in a string", '{"text": "a 65" television"}', "not_json", []),
    (
        "apostrophe ends a single-quoted string",
        "{'name': 'Jack O'Sullivan', 'id': '5'}",
        "not_json",
        [],
    ),
    ("apostrophe in a number string", "{'amount': '13'08.45', 'net': 'NA'}", "not_json", []),
    ("double quote inside single quotes", "{'id': None, 'name': '12\"34\"'}", "not_json", []),
    ("single-quoted key holding a double quote", "{'a\"': 1}", "not_json", []),
    ("backslash-quote in a JSON string", '{"a": "it\\\'s"}', "not_json", []),
    ("comment merging two numbers", '{"a": 1/**/2}', "not_json", []),
    ("slash alone", '{"a": 1 / 2}', "not_json", []),
    ("hash comment", '{"a": 1 # note\n}', "not_json", []),
    ("control character outside a string", '{"a":\x011}', "not_json", []),
    ("unknown word", '{"a": undefined}', "not_json", []),
    ("lowercase python", '{"a": none}', "not_json", []),
    ("python tuple", "{'a': (1, 2)}", "not_json", []),
    ("invalid escape stays invalid", "{'a': '\\x41'}", "not_json", []),
    ("list of objects, cut comma", '[{"a": 1},]', "not_json", []),
    ("fence around a list", "```json\n[1, 2]\n```", "not_json", []),
    ("empty fence", "```json\n\n```", "not_json", []),
    (
        "fence with text after the tag",
        '```json please\n{"a": 1}\n```',
        "surrounding_text",
        ["surrounding_text"],
    ),
    ("a list", "[1, 2]", "not_an_object", []),
    ("a number", "42", "not_an_object", []),
    ("null text", "null", "not_an_object", []),
    ("true", "true", "not_an_object", []),
    ("a string", '"Paris"', "not_an_object", []),
    ("a string holding a list", '"[1, 2]"', "not_an_object", []),
    ("a string holding a cut object", '"{\\"a\\": 1"', "not_an_object", []),
    ("too long an integer", ['{"n": ', {"$repeat": "9", "times": 5000}, "}"], "too_long_int", []),
    ("double encoded", '"{\\"city\\": \\"Paris\\"}"', "double_encoded", ["double_encoded"]),
    ("triple encoded", '"\\"{\\\\\\"a\\\\\\": 1}\\""', "double_encoded", ["double_encoded"]),
    ("double encoded, spaces around", ' "{\\"a\\": 1}" ', "double_encoded", ["double_encoded"]),
    (
        "double encoded python dict",
        "\"{'a': True}\"",
        "double_encoded",
        ["double_encoded", "single_quotes", "python_literals"],
    ),
    ("code fence", '```json\n{"city": "Paris"}\n```', "code_fence", ["code_fence"]),
    ("code fence without a tag", '```\n{"a": 1}\n```', "code_fence", ["code_fence"]),
    ("code fence, closing on the last line", '```json\n{"a": 1}```', "code_fence", ["code_fence"]),
    (
        "fence holding a fence in a string",
        '```json\n{"a": "```"}\n```',
        "surrounding_text",
        ["surrounding_text"],
    ),
    (
        "prose before",
        'Here is the call: {"city": "Paris"}',
        "surrounding_text",
        ["surrounding_text"],
    ),
    ("prose after", '{"city": "Paris"} Let me know!', "surrounding_text", ["surrounding_text"]),
    (
        "prose around a fence",
        'Sure:\n```json\n{"a": 1}\n```\nDone.',
        "surrounding_text",
        ["surrounding_text"],
    ),
    (
        "prose with an apostrophe",
        'Here\'s the call: {"a": "it\'s"}',
        "surrounding_text",
        ["surrounding_text"],
    ),
    ("line comment", '{"a": 1, // the count\n "b": 2}', "comments", ["comments"]),
    ("line comment at the end", '{"a": 1} // done', "comments", ["comments"]),
    ("block comment", '{/* args */ "a": 1}', "comments", ["comments"]),
    ("comment markers in a string stay", '{"url": "http://x.io/*"} // c', "comments", ["comments"]),
    ("trailing comma", '{"a": 1, "b": [1, 2,],}', "trailing_comma", ["trailing_comma"]),
    (
        "trailing comma before a comment",
        '{"a": 1, // end\n}',
        "comments",
        ["comments", "trailing_comma"],
    ),
    ("single quotes", "{'city': 'Paris'}", "single_quotes", ["single_quotes"]),
    (
        "single quotes with an escaped apostrophe",
        "{'a': 'it\\'s'}",
        "single_quotes",
        ["single_quotes"],
    ),
    ("apostrophe in a double-quoted string", "{'a': \"it's\"}", "single_quotes", ["single_quotes"]),
    ("single quotes, unicode escape kept", "{'a': '\\u00e9'}", "single_quotes", ["single_quotes"]),
    (
        "python literals",
        '{"a": True, "b": False, "c": None}',
        "python_literals",
        ["python_literals"],
    ),
    (
        "python dict repr",
        "{'q': 'x', 'n': 1, 'ok': True, 'v': None}",
        "single_quotes",
        ["single_quotes", "python_literals"],
    ),
    (
        "python words in strings stay",
        "{'a': 'True', 'b': False}",
        "single_quotes",
        ["single_quotes", "python_literals"],
    ),
    ("raw newline in a string", '{"code": "x\nrollback();"}', "control_chars", ["control_chars"]),
    ("raw tab and NUL", '{"a": "\t\x00"}', "control_chars", ["control_chars"]),
    (
        "everything at once",
        "```python\n{'a': True, // c\n 'b': 'x\ny',}\n```",
        "code_fence",
        [
            "code_fence",
            "comments",
            "trailing_comma",
            "single_quotes",
            "python_literals",
            "control_chars",
        ],
    ),
    ("non-ASCII kept", "{'ville': 'Zürich ☃'}", "single_quotes", ["single_quotes"]),
    # Issue 39's adversarial texts (benches/dialects_linear.py): runs of one token, read
    # as runs, with the same result as one at a time (shorter where the repaired object,
    # written out below, holds the run).
    ("brackets deeper than JSON nests, cut", "[[[[{{{{", "truncated", []),
    ("a hundred thousand {", [{"$repeat": "{", "times": 100_000}], "truncated", []),
    ("{ with spaces, cut", ["Calling ", {"$repeat": "{ ", "times": 50_000}], "truncated", []),
    (
        "a list nested deeper than JSON allows",
        [{"$repeat": "[", "times": 50_000}, {"$repeat": "]", "times": 50_000}],
        "not_json",
        [],
    ),
    (
        "an object nested deeper than JSON allows",
        [{"$repeat": '{"a": ', "times": 2_000}, "1", {"$repeat": "} ", "times": 2_000}],
        "not_json",
        [],
    ),
    ("odd backslash run, cut", '{"a": "\\\\\\', "truncated", []),
    ("backslash run, cut", ['{"a": "', {"$repeat": "\\", "times": 100_000}], "truncated", []),
    (
        "odd long backslash run, cut",
        ['{"a": "', {"$repeat": "\\", "times": 100_001}],
        "truncated",
        [],
    ),
    ("escaped quotes, cut", ['{"a": "', {"$repeat": '\\"', "times": 50_000}], "truncated", []),
    (
        "backslash run in single quotes",
        ["{'a': '", {"$repeat": "\\", "times": 500}, "'}"],
        "single_quotes",
        ["single_quotes"],
    ),
    ("escaped apostrophes", "{'a': '\\'\\'\\\\\\''}", "single_quotes", ["single_quotes"]),
    (
        "a run of escaped apostrophes",
        ["{'a': '", {"$repeat": "\\'", "times": 300}, "'}"],
        "single_quotes",
        ["single_quotes"],
    ),
    (
        "a run of raw control characters",
        ['{"a": "', {"$repeat": "\x01\t", "times": 300}, '"}'],
        "control_chars",
        ["control_chars"],
    ),
    ("plain items, cut", '{"a": [1, 2.5, true, "x", {"b": null}, [', "truncated", []),
    ("many items, cut", ['{"a": [', {"$repeat": "1, ", "times": 100_000}], "truncated", []),
    (
        "many items, trailing comma",
        ['{"a": [', {"$repeat": "1, ", "times": 500}, "]}"],
        "trailing_comma",
        ["trailing_comma"],
    ),
    (
        "many lists, then prose",
        ['{"a": [', {"$repeat": '["x", {"k": "]"}], ', "times": 500}, "[1]]} Done."],
        "surrounding_text",
        ["surrounding_text"],
    ),
    ("an object closed among plain items", '{"a": [1, {"b": 2}]}, [3]', "not_json", []),
    (
        "many items, two objects",
        ['{"a": [', {"$repeat": "1,", "times": 50_000}, "1]} {}"],
        "not_json",
        [],
    ),
    ("commas after commas", ['{"a": [1', {"$repeat": ", ", "times": 50_000}, "]}"], "not_json", []),
    (
        "many comments",
        ['{"a": 1, ', {"$repeat": "/* c */ // d\n", "times": 20_000}, '"b": 2}'],
        "comments",
        ["comments"],
    ),
    (
        "unclosed block comment",
        ['{"a": 1, /*', {"$repeat": "x", "times": 100_000}],
        "truncated",
        [],
    ),
    (
        "many Python words",
        ["{'a': [", {"$repeat": "True, ", "times": 500}, "None]}"],
        "single_quotes",
        ["single_quotes", "python_literals"],
    ),
    (
        "a closing brace in quotes every few bytes",
        ["{", {"$repeat": '"}"', "times": 30_000}],
        "not_json",
        [],
    ),
    (
        "plain JSON then a lenient value",
        '{"k": "v", "n": [1, -2.5e3, true, null, {"x": "y\\n"}], "s": \'single\'}',
        "single_quotes",
        ["single_quotes"],
    ),
]


def text_of(pieces: str | list) -> str:
    if isinstance(pieces, str):
        return pieces
    return "".join(p if isinstance(p, str) else p["$repeat"] * p["times"] for p in pieces)


def main() -> None:
    cases = []
    for name, pieces, defect, repairs in CASES:
        found = salvage(text_of(pieces))
        assert found.defect == defect, (name, found)
        assert list(found.repairs) == repairs, (name, found)
        assert (found.arguments is not None) == bool(repairs), (name, found)
        cases.append(
            {
                "name": name,
                "text": pieces,
                "defect": defect,
                "repairs": repairs,
                "arguments": found.arguments,
            }
        )
    out = Path(__file__).with_name("defects.json")
    lines = ",\n".join("  " + json.dumps(case, ensure_ascii=False) for case in cases)
    about = "argument texts, their defect and audited repair (see make_defects_vectors.py)"
    out.write_text(f'{{\n "about": "{about}",\n "cases": [\n{lines}\n ]\n}}\n', "utf-8")


if __name__ == "__main__":
    main()
