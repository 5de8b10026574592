# ruff: noqa: E501  (the table of shapes is README-ready Markdown)
"""Tool definitions: the one reader of what a request declared, in every provider's shape
(the Rust twin: `src/tools.rs`, line by line). The raw-text dialects read it to type
argument values (`RawTextParser(tools=...)`, `--tools`), and the checks against the
declared tools (`tools=`, `requests=`, `violations`) read it to find each tool's schema.

`read_definitions(value)` takes:

| shape | where the schema is |
|---|---|
| a list of OpenAI chat tools `{"type": "function", "function": {"name", "parameters"}}` | `function.parameters` |
| a list of flat tools `{"name", "parameters"}` (OpenAI Responses, Hermes, ...) | `parameters` |
| a list of Anthropic tools `{"name", "input_schema"}` | `input_schema` |
| a list of Bedrock tools `{"toolSpec": {"name", "inputSchema": {"json": ...}}}` | `toolSpec.inputSchema.json` |
| a list of Gemini tools `{"functionDeclarations": [{"name", "parameters"}]}` (or `function_declarations`) | `parametersJsonSchema`, else `parameters` |
| a request body: `{"tools": [...]}` (any of the lists above), Bedrock's `{"toolConfig": {"tools": [...]}}` | as above |
| Gemini's `{"functionDeclarations": [...]}` | as above |
| any other object: a plain `{name: schema}` mapping | the value (an object, or null: unchecked) |

* The first definition of a name wins; items that are not objects, or have no string
  name, are skipped; a definition without a schema has `{}` (any arguments fit).
* A custom tool (`{"type": "custom", ...}`: its input is free text) has no schema
  (None): its calls are not checked.
* Gemini's `parameters` is OpenAPI's subset of JSON Schema: its `type` names are read
  lower-cased (`"STRING"` is `"string"`), and `"nullable": true` adds `"null"` to the
  type, wherever they appear in the schema (`parametersJsonSchema` is JSON Schema as is).
"""

from __future__ import annotations

from typing import Any

from toolsift._jsontext import dumps_compact

__all__ = ["read_definitions"]

Definitions = dict[str, Any]
"""Each declared tool's arguments schema by name (None: a tool whose calls are not checked)."""


def read_definitions(value: Any) -> Definitions:
    """The tools `value` declares (the shapes of the module docstring); ValueError for a
    value of no shape."""
    found: Definitions = {}
    if isinstance(value, list):
        for item in value:
            _read_item(item, found)
        return found
    if not isinstance(value, dict):
        raise ValueError("tools: expected a list of tool definitions or an object")
    tools = value.get("tools")
    config = value.get("toolConfig")
    if isinstance(config, dict) and isinstance(config.get("tools"), list):
        return read_definitions(config["tools"])
    if isinstance(tools, list):
        return read_definitions(tools)
    if _declarations(value) is not None:
        _read_item(value, found)
        return found
    for name, schema in value.items():
        if not isinstance(schema, dict) and schema is not None:
            raise ValueError(f"tools: the schema of {dumps_compact(name)} is not an object")
        found.setdefault(name, schema)
    return found


def _declarations(item: dict[str, Any]) -> list[Any] | None:
    for key in ("functionDeclarations", "function_declarations"):
        declared = item.get(key)
        if isinstance(declared, list):
            return declared
    return None


def _read_item(item: Any, found: Definitions) -> None:
    if not isinstance(item, dict):
        return
    declarations = _declarations(item)
    if declarations is not None:
        for declaration in declarations:
            if isinstance(declaration, dict) and isinstance(declaration.get("name"), str):
                if "parametersJsonSchema" in declaration:
                    schema = declaration["parametersJsonSchema"]
                else:
                    schema = _openapi(declaration.get("parameters", {}))
                found.setdefault(declaration["name"], schema)
        return
    spec = item.get("toolSpec")
    if isinstance(spec, dict):
        schema = spec.get("inputSchema")
        schema = schema.get("json", {}) if isinstance(schema, dict) else {}
        _add(found, spec.get("name"), schema)
        return
    function = item.get("function")
    definition = function if isinstance(function, dict) else item
    if item.get("type") == "custom":
        _add(found, definition.get("name"), None)
        return
    for key in ("parameters", "input_schema"):
        if key in definition:
            _add(found, definition.get("name"), definition[key])
            return
    _add(found, definition.get("name"), {})


def _add(found: Definitions, name: Any, schema: Any) -> None:
    if isinstance(name, str):
        found.setdefault(name, schema)


def _openapi(schema: Any) -> Any:
    """Gemini's OpenAPI schema as JSON Schema: `type` names lower-cased, `nullable: true`
    a `"null"` type, at every level."""
    if isinstance(schema, list):
        return [_openapi(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    read = {key: _openapi(item) for key, item in schema.items()}
    kind = read.get("type")
    if isinstance(kind, str):
        read["type"] = kind = kind.lower()
    if read.get("nullable") is True and isinstance(kind, str):
        read["type"] = [kind, "null"]
    return read
