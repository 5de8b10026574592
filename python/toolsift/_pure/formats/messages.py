"""Conversation transcripts (`messages`, `MessagesParser`): every assistant turn's calls
in a list of chat messages, each with its turn and its tool's result. The Rust twin is
`src/formats/messages.rs`.

The transcript is the record itself when it is a list; else the record's `messages`
list, or (Gemini) its `contents` list; else one assistant message (`role` `assistant`,
or Gemini's `model`) is a transcript of one turn. Anything else has no calls.

* Calls: in every message whose `role` is `assistant` or `model`, OpenAI's
  `tool_calls[]` (and legacy `function_call`), Anthropic's `content[]` `tool_use`
  blocks, Gemini's `parts[]` `functionCall` (`function_call`). A turn with none of
  those whose `content` is a string is read as raw text of `text_dialect` (when given).
  `turn` is the message's index in the list.
* Results, in any message: OpenAI's `role: tool` message (`tool_call_id`, `content`;
  legacy `role: function`, no id), Anthropic's `content[]` `tool_result` blocks
  (`tool_use_id`, `content`, `is_error`), Gemini's `parts[]` `functionResponse`
  (`function_response`: `id`, `response`).
* Pairing: each call with an id takes the first result not taken yet, after its turn,
  with that id (an id may be reused in a later turn). Then each call left, in order,
  takes the first result not taken yet after its turn and before the next assistant
  message whose id is missing or the id of no call.
* `result`: the result's value (`content`, Gemini's `response`): a string as given, any
  other value as compact JSON text, None where it has none. `result_error`: True when
  the result says the call failed (Anthropic `is_error: true`; a Gemini `response` with
  a non-null `error` member), else False (an OpenAI tool message cannot say); both None
  where the call has no result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from toolsift._jsontext import dumps_compact
from toolsift._pure.calls import RawCall, harvest
from toolsift._pure.formats import anthropic, openai
from toolsift._pure.nodes import elements, field, is_str, member
from toolsift._types import ToolCall
from toolsift.formats import described

NAME = "messages"
PARSER_CLASS, WHERE, ID = described(NAME)  # the table of `toolsift.formats`

ASSISTANT = ("assistant", "model")
"""The roles of the messages that make calls (Gemini's is `model`)."""

ROLES = ("system", "developer", "user", "assistant", "tool", "function", "model")
"""The roles auto-detection knows a transcript by."""

TextReader = Callable[[str], list[ToolCall]]
"""The calls of an assistant turn's raw text (`text_dialect=`)."""


class Result(NamedTuple):
    """A tool result as found: the index of its message, the id it answers, its value
    and whether it says the call failed."""

    position: int
    id: str | None
    value: Any
    error: bool


def transcript(doc: Any) -> Sequence[Any] | None:
    """The messages of a transcript (see the module's docstring), or None."""
    if isinstance(doc, (list, tuple)):
        return doc
    for key in ("messages", "contents"):
        messages = member(doc, key)
        if isinstance(messages, (list, tuple)):
            return messages
    return (doc,) if _role(doc) in ASSISTANT else None


def detect(doc: Any) -> bool:
    """For auto-detection, after every response format: a list of messages (each an
    object with a string `role`, or a Gemini `Content` with a `parts` list, at least one
    role a chat role, `ROLES`), a record whose `messages` (or `contents`) member is one,
    or one assistant message (`role` `assistant` with a non-null `content` or `tool_calls`,
    or `model` with a `parts` list)."""
    if isinstance(doc, (list, tuple)):
        return is_message_list(doc)
    if not isinstance(doc, dict):
        return False
    for key in ("messages", "contents"):
        messages = doc.get(key)
        if isinstance(messages, (list, tuple)):
            return is_message_list(messages)
    role = doc.get("role")
    if role == "assistant":
        return doc.get("content") is not None or doc.get("tool_calls") is not None
    return role == "model" and isinstance(doc.get("parts"), (list, tuple))


def is_message_list(items: Sequence[Any]) -> bool:
    """Every item an object with a string `role` or a `parts` list, one role a chat role."""
    known = False
    for item in items:
        if not isinstance(item, dict):
            return False
        role = item.get("role")
        if isinstance(role, str):
            known = known or role in ROLES
        elif not isinstance(item.get("parts"), (list, tuple)):
            return False
    return known


def read(doc: Any, text: TextReader | None = None) -> list[ToolCall]:
    """The calls of the transcript in `doc`, each with its `turn`, `result` and
    `result_error` (see the module's docstring); `text` reads a turn's raw text."""
    messages = transcript(doc)
    if messages is None:
        return []
    calls: list[ToolCall] = []
    turns: list[int] = []
    results: list[Result] = []
    assistants: list[int] = []
    for position, message in enumerate(messages):
        if _role(message) in ASSISTANT:
            assistants.append(position)
            found = harvest(structured_calls(message))
            content = field(message, "content")
            if not found and text is not None and isinstance(content, str):
                found = text(content)
            calls += found
            turns += [position] * len(found)
        results += results_of(message, position)
    paired = pair([call.id for call in calls], turns, results, assistants)
    for call, turn, at in zip(calls, turns, paired, strict=True):
        call.turn = turn
        if at is not None:
            result = results[at]
            value = result.value
            call.result = value if isinstance(value, str) or value is None else dumps_compact(value)
            call.result_error = result.error
    return calls


def _role(message: Any) -> Any:
    role = field(message, "role")
    return role if isinstance(role, str) else None


def structured_calls(message: Any) -> Iterator[RawCall]:
    """An assistant message's calls: OpenAI `tool_calls` (and `function_call`), Anthropic
    `tool_use` blocks, Gemini `functionCall` parts."""
    yield from openai.message_calls(message)
    yield from anthropic.calls(message)
    for part in elements(field(message, "parts")):
        call = _either(part, "functionCall", "function_call")
        if call is not None:
            yield field(call, "name"), field(call, "id"), field(call, "args")


def results_of(message: Any, position: int) -> Iterator[Result]:
    """The tool results a message holds."""
    role = _role(message)
    if role in ("tool", "function"):
        yield Result(position, _text(field(message, "tool_call_id")), field(message, "content"),
                     False)  # fmt: skip
        return
    for block in elements(field(message, "content")):
        if is_str(field(block, "type"), "tool_result"):
            error = field(block, "is_error") is True
            yield Result(position, _text(field(block, "tool_use_id")), field(block, "content"),
                         error)  # fmt: skip
    for part in elements(field(message, "parts")):
        response = _either(part, "functionResponse", "function_response")
        if response is not None:
            value = field(response, "response")
            error = field(value, "error") is not None
            yield Result(position, _text(field(response, "id")), value, error)


def pair(
    ids: Sequence[str | None],
    turns: Sequence[int],
    results: Sequence[Result],
    assistants: Sequence[int],
) -> list[int | None]:
    """The result (its index) each call takes, by id, else by order (the module's
    docstring). `turns` and `assistants` are ascending; linear in calls and results."""
    paired: list[int | None] = [None] * len(ids)
    taken = [False] * len(results)
    by_id: dict[str, list[int]] = {}
    for at, result in enumerate(results):
        if result.id is not None:
            by_id.setdefault(result.id, []).append(at)
    cursors: dict[str, int] = {}
    for call, id in enumerate(ids):
        queue = by_id.get(id) if id is not None else None
        if not queue:
            continue
        cursor = cursors.get(id, 0)  # type: ignore[arg-type]
        while cursor < len(queue) and results[queue[cursor]].position <= turns[call]:
            cursor += 1
        if cursor < len(queue):
            paired[call] = queue[cursor]
            taken[queue[cursor]] = True
            cursor += 1
        cursors[id] = cursor  # type: ignore[index]
    known = {id for id in ids if id is not None}
    loose = [
        at
        for at, result in enumerate(results)
        if not taken[at] and (result.id is None or result.id not in known)
    ]
    next_assistant = _next_assistant(turns, assistants)
    cursor = 0
    for call, turn in enumerate(turns):
        if paired[call] is not None:
            continue
        while cursor < len(loose) and results[loose[cursor]].position <= turn:
            cursor += 1
        if cursor < len(loose) and results[loose[cursor]].position < next_assistant[call]:
            paired[call] = loose[cursor]
            cursor += 1
    return paired


def _next_assistant(turns: Sequence[int], assistants: Sequence[int]) -> list[int]:
    """For each call, the index of the next assistant message after its turn (or no end)."""
    ends: list[int] = []
    at = 0
    for turn in turns:
        while at < len(assistants) and assistants[at] <= turn:
            at += 1
        ends.append(assistants[at] if at < len(assistants) else 1 << 62)
    return ends


def _either(obj: Any, camel: str, snake: str) -> Any:
    value = field(obj, camel)
    return field(obj, snake) if value is None else value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
