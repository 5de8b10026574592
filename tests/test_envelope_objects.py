"""Batch envelopes of the caller's own Python objects (dicts, SDK models): unwrapped in
Rust over the objects on the Rust backend (`bulk::envelope::unwrap` over `PyNode`), by
`locate_object` on the pure one; the same responses and the same error texts."""

from __future__ import annotations

import enum
from typing import Any

import pydantic

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CHAT = {"choices": [{"message": {"tool_calls": [CALL]}}]}


class Status(enum.IntEnum):
    OK = 200


def names(response: Any) -> list[str]:
    return [call.name for call in response.tool_calls]


def test_dict_envelopes_are_unwrapped(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    ok = {"custom_id": "r1", "response": {"status_code": 200, "body": CHAT}, "error": None}
    assert names(parser.parse(ok)) == ["f"]
    failed = {"custom_id": "r2", "response": {"status_code": 429, "body": {"error": "slow"}}}
    assert parser.parse(failed).error == "HTTP 429: slow"
    # The status 200 is the int 200 (`type(status) is int`): a bool or a subclass is not.
    for status in (True, Status.OK, 200.0):
        envelope = {"custom_id": "r", "response": {"status_code": status, "body": CHAT}}
        assert parser.parse(envelope).error is not None
    vertex = {"request": {}, "status": {"code": 3, "message": "bad"}, "response": None}
    assert parser.parse(vertex).error == "batch error: 3: bad"
    inlined = {"metadata": {"key": "k"}, "response": CHAT}
    assert names(parser.parse(inlined)) == ["f"]
    assert parser.parse({"a": {"b": CHAT}}, record_path="a.c").error == (
        "nothing at record_path a.c"
    )


def test_error_texts_keep_lone_surrogates(make: Any) -> None:
    # No Rust string holds a lone surrogate: the error text is the pure twin's own.
    parser = make.AnthropicResponseParser()
    errored = {"custom_id": "a", "result": {"type": "errored", "error": "bad \ud800"}}
    assert parser.parse(errored).error == "batch error: bad \ud800"
    unknown = {"custom_id": "a", "result": {"type": "\udc00"}}
    assert parser.parse(unknown).error == 'unknown batch result type: "\udc00"'
    bedrock = make.BedrockConverseParser()
    error = {"recordId": "r", "error": {"errorCode": 400, "errorMessage": "no \ud800"}}
    assert bedrock.parse(error).error == "batch error: 400: no \ud800"


def test_dict_subclass_envelope_is_read_through_its_methods(make: Any) -> None:
    class Aliased(dict[str, Any]):
        def get(self, key: Any, default: Any = None) -> Any:
            return super().get({"body": "payload"}.get(key, key), default)

    envelope = {"custom_id": "r", "response": Aliased(status_code=200, payload=CHAT)}
    assert names(make.OpenAIResponseParser().parse(envelope)) == ["f"]


class Inlined(pydantic.BaseModel):
    metadata: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Message(pydantic.BaseModel):
    role: str = "assistant"
    content: list[dict[str, Any]] = []


class Logged(pydantic.BaseModel):
    body: dict[str, Any]


def test_sdk_envelope_is_read_as_its_model_dump(make: Any) -> None:
    candidate = {"content": {"parts": [{"functionCall": {"name": "g", "args": {}}}]}}
    answer = Inlined(metadata={"key": "k"}, response={"candidates": [candidate]})
    assert names(make.GeminiResponseParser().parse(answer)) == ["g"]
    failed = Inlined(metadata={"key": "k"}, error={"code": 5, "message": "gone"})
    assert make.GeminiResponseParser().parse(failed).error == "batch error: 5: gone"
    # Not an envelope: the model is its own response, walked by attribute.
    message = Message(content=[{"type": "tool_use", "name": "h", "id": "t", "input": {}}])
    assert names(make.AnthropicResponseParser().parse(message)) == ["h"]
    # At a record path, any model is read as its model_dump().
    logged = Logged(body={"role": "assistant", "content": message.model_dump()["content"]})
    assert names(make.AnthropicResponseParser().parse(logged, record_path="body")) == ["h"]
