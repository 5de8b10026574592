"""OpenAI Responses API (`client.responses.create`): the `Response` object.

Calls are the `output[]` items of type `function_call` (`name`, `arguments`: a JSON
string) and `custom_tool_call` (`name`, `input`: free text, kept in `raw_arguments`);
their id is the item's `call_id` (the one a `function_call_output` answers), not the
item's own `id`. Items the server runs itself (`web_search_call`, `file_search_call`,
`code_interpreter_call`, `mcp_call`, `image_generation_call`, `computer_call`, ...) and
messages and reasoning give none. Batch API output for `/v1/responses` is the OpenAI
batch envelope, which `bulk.locate` unwraps already. The Rust twin is
`src/formats/openai_responses.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.calls import Verbatim
from toolsift._pure.nodes import elements, field, is_str

NAME = "openai-responses"
PARSER_CLASS = "OpenAIResponsesParser"
WHERE = (
    '`output[]` items of `type: "function_call"` (`name`, `arguments`) and'
    ' `"custom_tool_call"` (`name`, `input` text: in `raw_arguments`, arguments `{}`);'
    " server-run items give none"
)
ID = "the item's `call_id` (not its `id`)"


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`output[]` items `function_call` and `custom_tool_call`, by `call_id`."""
    for item in elements(field(doc, "output")):
        kind = field(item, "type")
        if is_str(kind, "function_call"):
            yield field(item, "name"), field(item, "call_id"), field(item, "arguments")
        elif is_str(kind, "custom_tool_call"):
            yield field(item, "name"), field(item, "call_id"), Verbatim(field(item, "input"))


def detect(doc: Any) -> bool:
    """`"object": "response"` with an `output` list."""
    return (
        isinstance(doc, dict)
        and is_str(doc.get("object"), "response")
        and isinstance(doc.get("output"), list)
    )
