# ruff: noqa: E501  (the table of conversions is README-ready Markdown)
"""Schema typing: the values XML-style dialects carry as text, typed by the tool's JSON
Schema (the Rust twin: `src/dialects/schema.rs`, line by line).

`qwen3-coder`, `seed-oss`, `glm`, `minimax-m2` and `deepseek-dsml` write each argument
value as bare text (`<parameter=zip>03106</parameter>`). With `tools`, the value of a
declared parameter gets the conversion of its schema's type; without `tools`, or for a
parameter the tool does not declare, it stays a string. A type is never guessed from the
text alone: `03106` of type `string` stays `"03106"`.

| schema type | the value becomes | otherwise (stays the text) |
|---|---|---|
| `string` (or no `type`, an unknown type, `$ref`, `enum` alone) | the text as it is | - |
| `integer` | the text as a JSON integer (`-12`, `18446744073709551616`: any size up to Python's 4300 digits) | `03106` (a leading zero is not JSON), `140.0`, `1e3`, `0x1F`, `+5` |
| `number` | the text as a JSON number (`3`, `-0.5`, `1e-3`), integers kept exact | `NaN`, `Infinity`, `1e400` (beyond the float range), `.5`, `1.` |
| `boolean` | `true` / `false`, and `True` / `False` (the Python spelling the Qwen3-Coder / Qwen3.5 templates write with the `string` filter) | `yes`, `1`, `TRUE` |
| `null` | `null`, and `None` (the Python spelling) | `""`, `nil` |
| `object` | the text as a JSON object, by the project's JSON parser | `{'a': 1}`, a cut-off object |
| `array` | the text as a JSON array | `(1, 2)`, `1, 2` |

* JSON texts may have JSON whitespace around them (`" 42 "` is `42` for `integer`).
* `type: [T1, T2, ...]`, `anyOf` and `oneOf` (their items' types, in order, flattened):
  the types are tried in order and the first that fits wins; `string` always fits, so
  `["string", "integer"]` keeps the text. One exception: where the schema allows `null`,
  `null` / `None` is null whatever comes first (`["string", "null"]` is how schemas say
  "optional", and the templates write a None argument as `null` or `None`; vLLM and
  SGLang read it so too).
* A value that fits no type stays the text it was, and the call is kept.
* A number or object holding an integer beyond 4300 digits does not fit (Python refuses
  to make it), nor does a number beyond the float range.

The arguments object is written as JSON text, each key a JSON string, each value the
JSON text it fits or the text as a JSON string, and decoded by the project's JSON
parser, so both backends agree on every edge. A parameter written twice: the last value
wins, at the first one's position (as JSON decoding does).
"""

from __future__ import annotations

import math
from typing import Any

from toolsift._errors import ParseError
from toolsift._jsontext import dumps_compact, loads, too_long_ints_made

__all__ = ["json_or_text", "json_string", "object_text", "schema_types", "typed_value"]

#: The types a value can be converted to (anything else is read as `string`).
KNOWN_TYPES = ("string", "integer", "number", "boolean", "null", "object", "array")
#: The Python spellings of literals the Qwen3-Coder / Qwen3.5 templates write (`| string`).
PYTHON_LITERALS = {"True": "true", "False": "false", "None": "null"}


def schema_types(schema: Any) -> list[str]:
    """The types `schema` allows, in order: its `type` (a name or a list of names), else
    the types of its `anyOf` / `oneOf` items in order; unknown names are dropped."""
    if not isinstance(schema, dict):
        return []
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared] if declared in KNOWN_TYPES else []
    if isinstance(declared, list):
        return [name for name in declared if isinstance(name, str) and name in KNOWN_TYPES]
    types: list[str] = []
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                types.extend(schema_types(option))
    return types


def typed_value(text: str, schema: Any) -> str:
    """The JSON text of the value `text` typed by `schema` (None: undeclared)."""
    types = schema_types(schema)
    if "null" in types and fitted_json(text, "null") is not None:
        return "null"  # a nullable parameter's null, whatever comes first
    for kind in types:
        if kind == "string":
            break
        fitted = fitted_json(text, kind)
        if fitted is not None:
            return fitted
    return json_string(text)


def fitted_json(text: str, kind: str) -> str | None:
    """The JSON text of `text` as a value of type `kind`, or None when it does not fit."""
    literal = PYTHON_LITERALS.get(text)
    if literal is not None:
        text = literal
    ok, value = decoded(text)
    if not ok:
        return None
    fits = {
        "null": value is None,
        "integer": type(value) is int,
        "number": type(value) is int or (type(value) is float and math.isfinite(value)),
        "boolean": type(value) is bool,
        "object": type(value) is dict,
        "array": type(value) is list,
    }
    return text if fits.get(kind, False) else None


def decoded(text: str) -> tuple[bool, Any]:
    """`(True, value)`: `text` decoded by the project's JSON parser; `(False, None)` when
    it is not JSON, or holds an integer Python refuses to make."""
    made = too_long_ints_made()
    try:
        value = loads(text)
    except ParseError:
        return False, None
    return (True, value) if too_long_ints_made() == made else (False, None)


def json_or_text(text: str) -> str:
    """The JSON text of `text` when it is one JSON value (any type), else `text` as a
    JSON string."""
    if decoded(text)[0]:
        return text
    return json_string(text)


def json_string(text: str) -> str:
    """`text` as a JSON string."""
    return dumps_compact(text)


def object_text(pairs: list[tuple[str, str]]) -> str:
    """The JSON object text of `(key, value JSON text)` pairs, in order."""
    return "{" + ",".join(json_string(key) + ":" + value for key, value in pairs) + "}"
