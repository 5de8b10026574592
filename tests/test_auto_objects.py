"""`auto` on the caller's own Python objects: what auto-detection takes for a response
(detection runs in Rust over the objects on the Rust backend, in the registry on the pure
one; both see the same shapes)."""

from __future__ import annotations

from typing import Any

import pytest

CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def chat(choices: Any) -> dict[str, Any]:
    return {"choices": choices}


def test_list_of_choices_is_detected(make: Any) -> None:
    response = make.AutoResponseParser().parse(chat([{"message": {"tool_calls": [CALL]}}]))
    assert [call.name for call in response.tool_calls] == ["f"]


def test_tuple_is_not_an_array_to_detection(make: Any) -> None:
    # Detection takes only a list for an array (a tuple is no JSON document's shape:
    # not read as a chat completion), while the walk, once the format is known, reads tuples too.
    response = make.AutoResponseParser().parse(chat(({"message": {"tool_calls": [CALL]}},)))
    assert response.tool_calls == []
    response = make.OpenAIResponseParser().parse(chat(({"message": {"tool_calls": (CALL,)}},)))
    assert [call.name for call in response.tool_calls] == ["f"]


def test_dict_subclass_whose_get_raises_raises(make: Any) -> None:
    class Broken(dict[str, Any]):
        def get(self, key: Any, default: Any = None) -> Any:
            raise RuntimeError("no")

    with pytest.raises(RuntimeError, match="no"):
        make.AutoResponseParser().parse(Broken(choices=[]))
