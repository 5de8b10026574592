"""Amazon Bedrock Converse API (`bedrock-runtime` `converse`): the response as boto3
returns it (plain dicts with the wire's camelCase keys).

Calls are the `output.message.content[]` blocks holding a `toolUse` object
(`toolUseId`, `name`, `input`: a JSON document, an object for tools); its id is
`toolUseId` (the one a `toolResult` answers). A `toolUse` of `type: "server_tool_use"`
(a system tool Bedrock runs itself) gives none. Batch inference output lines
(`{"recordId", "modelInput", "modelOutput"}`) are unwrapped by `unwrap_batch`; their
`modelOutput` is the model's own response body (the Converse shape for Converse jobs,
the Anthropic Messages shape for Claude InvokeModel jobs). The Rust twin is
`src/formats/bedrock.rs`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolsift._pure.nodes import elements, field, is_str

NAME = "bedrock"
PARSER_CLASS = "BedrockConverseParser"
WHERE = (
    "`output.message.content[].toolUse.{name, input}` (Converse API);"
    ' a `toolUse` of `type: "server_tool_use"` gives none'
)
ID = "`toolUse.toolUseId`"


def calls(doc: Any) -> Iterator[tuple[Any, Any, Any]]:
    """`output.message.content[].toolUse.{toolUseId, name, input}`."""
    message = field(field(doc, "output"), "message")
    for block in elements(field(message, "content")):
        use = field(block, "toolUse")
        if use is None or is_str(field(use, "type"), "server_tool_use"):
            continue
        yield field(use, "name"), field(use, "toolUseId"), field(use, "input")


def detect(doc: Any) -> bool:
    """An `output` object holding a `message` object with a `content` list."""
    if not isinstance(doc, dict):
        return False
    output = doc.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    return isinstance(message, dict) and isinstance(message.get("content"), list)


def unwrap_batch(doc: dict[str, Any]) -> tuple[Any, str | None, str | None] | None:
    """`(response, custom_id, error)` of a batch inference output line: an object with
    `recordId` or `modelInput`, and `modelOutput` or `error`; None for any other record.

    `recordId` is the custom id. A non-null `error` (`{"errorCode", "errorMessage"}`) is
    `batch error: CODE: MESSAGE` (`MESSAGE` alone without a string or integer code; an
    error without a string message is compact JSON); else the response is `modelOutput`
    (`batch record has no response` when missing).
    """
    if not (
        ("recordId" in doc or "modelInput" in doc) and ("modelOutput" in doc or "error" in doc)
    ):
        return None
    custom_id = doc.get("recordId")
    custom_id = custom_id if isinstance(custom_id, str) else None
    error = doc.get("error")
    if error is not None:
        return None, custom_id, f"batch error: {describe_error(error)}"
    response = doc.get("modelOutput")
    if response is None:
        return None, custom_id, "batch record has no response"
    return response, custom_id, None


def describe_error(error: Any) -> str:
    """`{"errorCode", "errorMessage"}` as `CODE: MESSAGE` (the envelopes' `describe`)."""
    from toolsift._pure.bulk import describe  # bulk reads this module's envelope

    return describe(error, message_key="errorMessage", code_key="errorCode")
