"""gpt-oss Harmony text (`harmony`): the pure-Python specification.

Syntax (the Harmony response format: openai/harmony `docs/format.md`, the `openai-harmony`
package, gpt-oss's chat template; vLLM's `openai` tool parser reads the same)::

    <|channel|>analysis<|message|>reasoning...<|end|>
    <|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{}<|call|>
    <|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>{...}<|call|>
    <|start|>assistant<|channel|>final<|message|>answer<|return|>

The markers are special tokens: a log must keep them (`skip_special_tokens=False`). An
output begins after the prompt's `<|start|>assistant`, so its first message has no
`<|start|>` and role.

Messages: the text is read as special tokens (`<|start|>`, `<|channel|>`,
`<|constrain|>`, `<|message|>`, `<|end|>`, `<|call|>`, `<|return|>`; any other `<|` is
text) and the text between them, in one pass:

* A message's header runs from its start (the beginning of the text, just after a
  `<|start|>`, or just after the previous message) to `<|message|>`; its body from there
  to `<|end|>`, `<|call|>` or `<|return|>` (consumed) or to the end of the text (cut
  off). In a body every other token is text, `<|start|>` included (as `openai-harmony`
  reads it: a message whose end token is missing runs on).
* In a header, a `<|start|>` begins a new header: the text before it is outside text. An
  end token in a header ends it without a message: its text is outside text.
* The header's words (split on ASCII whitespace; `<|constrain|>` counts as a space):
  before `<|channel|>` the role (first word; none is the assistant) and, after
  `<|channel|>`, the channel (first word not starting with `to=`). The recipient is the
  word starting with `to=`, before or after `<|channel|>` (the first one); other words
  (`json`, the content type) are ignored.

What each message is:

* a call: the assistant's message with a recipient (other than `assistant`). The name
  is the recipient without a leading `functions.` (built-in tools such as
  `browser.search` or `python` keep their name); the arguments are the body (whitespace
  at its ends stripped): the JSON text of an object, else kept as `raw_arguments` with
  `{}` (so `python` code is kept). No id. A header cut off before `<|message|>` that has
  a recipient is a call with `{}` and `raw_arguments` `""`;
* reasoning: the assistant's `analysis` messages without a recipient;
* content: every other message's body (`final`, a `commentary` preamble, another role's
  message) and the outside text (a text with no tokens is all content), in order. A
  header cut off before `<|message|>` without a recipient holds no text: dropped.

Reasoning and content: each piece stripped of whitespace at its ends, the non-empty ones
joined by a blank line; None when there are none.
"""

from __future__ import annotations

import re

from toolsift._pure.calls import tool_call
from toolsift._types import ToolCall

from . import Parsed, Spec, Tools
from ._text import WHITESPACE

START = "<|start|>"
CHANNEL = "<|channel|>"
CONSTRAIN = "<|constrain|>"
MESSAGE = "<|message|>"
ENDS = ("<|end|>", "<|call|>", "<|return|>")
STREAM = Spec(ends=ENDS, think=())
TOKENS = (START, CHANNEL, CONSTRAIN, MESSAGE, *ENDS)
RECIPIENT = "to="
NAME_PREFIX = "functions."
ASSISTANT = ("", "assistant")  # the roles of the model's own messages


def detect(text: str) -> bool:
    """Whether the text holds Harmony's `<|channel|>` token."""
    return CHANNEL in text


def parse(text: str, tools: Tools | None) -> Parsed:
    calls: list[ToolCall] = []
    reasoning: list[str] = []
    content: list[str] = []
    header = 0  # where the current header begins
    header_end = -1  # where its `<|message|>` is; -1: still in the header
    at = text.find("<|")
    while at != -1:
        if not text.startswith(TOKENS, at):  # (most `<|` are no token at all)
            at = text.find("<|", at + 2)
            continue
        token = next(token for token in TOKENS if text.startswith(token, at))
        after = at + len(token)
        if header_end != -1:  # in a body: only an end token ends it
            if token in ENDS:
                body = text[header_end + len(MESSAGE) : at]
                filed(text[header:header_end], body, calls, reasoning, content)
                header, header_end = after, -1
        elif token == START or token in ENDS:  # a header without a message
            content.append(text[header:at])
            header = after
        elif token == MESSAGE:
            header_end = at
        at = text.find("<|", after)
    if header_end != -1:  # cut off in a body
        body = text[header_end + len(MESSAGE) :]
        filed(text[header:header_end], body, calls, reasoning, content)
    elif CHANNEL in text[header:]:  # cut off in a header: a call where it names one
        role, _, recipient = header_words(text[header:])
        if is_call(role, recipient):
            calls.append(ToolCall(name_of(recipient or ""), {}, None, ""))
    else:
        content.append(text[header:])
    return Parsed(calls, joined(content), joined(reasoning))


def filed(
    header: str, body: str, calls: list[ToolCall], reasoning: list[str], content: list[str]
) -> None:
    """Files one message by its header: a call, reasoning or content."""
    role, channel, recipient = header_words(header)
    if is_call(role, recipient):
        calls.append(tool_call(name_of(recipient or ""), None, body.strip(WHITESPACE)))
    elif role in ASSISTANT and recipient is None and channel == "analysis":
        reasoning.append(body)
    else:
        content.append(body)


def is_call(role: str, recipient: str | None) -> bool:
    """Whether a message is the assistant's call: it has a recipient other than itself."""
    return role in ASSISTANT and recipient is not None and recipient != "assistant"


def header_words(header: str) -> tuple[str, str, str | None]:
    """(role, channel, recipient) of a header: "" where missing, recipient None."""
    cut = header.find(CHANNEL)
    if cut == -1:
        role_words, channel_words = words(header), []
    else:
        role_words, channel_words = words(header[:cut]), words(header[cut + len(CHANNEL) :])
    recipients = (w for w in role_words + channel_words if w.startswith(RECIPIENT))
    recipient = next((w[len(RECIPIENT) :] for w in recipients), None)
    role = role_words[0] if role_words and not role_words[0].startswith(RECIPIENT) else ""
    channel = next((w for w in channel_words if not w.startswith(RECIPIENT)), "")
    return role, channel, recipient


def words(text: str) -> list[str]:
    """The words of a header part, split on ASCII whitespace (`<|constrain|>` is a space)."""
    return [word for word in re.split("[ \t\n\r]+", text.replace(CONSTRAIN, " ")) if word]


def name_of(recipient: str) -> str:
    return recipient.removeprefix(NAME_PREFIX)


def joined(pieces: list[str]) -> str | None:
    """The pieces stripped, the non-empty ones joined by a blank line; None if none."""
    return "\n\n".join(kept for piece in pieces if (kept := piece.strip(WHITESPACE))) or None
