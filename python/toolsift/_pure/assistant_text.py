"""`text_dialect=`: the tool calls a provider response holds as raw text (a vLLM, SGLang,
llama.cpp or Ollama server started without a tool-call parser leaves them in the
assistant message's content). The twin of `src/text_dialect.rs`.

Where a format's assistant text is, is the format's own: its module's `turns(doc)` gives
each assistant message of a response (an OpenAI choice, a Gemini candidate; one for the
formats with one message) as its calls and the values holding its text. The rules:

* a message's text is read for calls only when the message has no structured call
  (structured calls win); the calls read from text are that message's calls, in the
  message's place, with the ids the dialect gives (most give none);
* every message's text is read by the dialect for the response's `content` (the text
  outside the calls, markers removed) and `reasoning` (think blocks); several messages'
  (choices') are joined by a blank line; None where there is none;
* text with no markers gives no call and no error: it is all `content`;
* each call is in its message's choice (`placed`: the message's position, for the
  context columns, `toolsift._pure.context.of_turns`), and a call read from text is of
  the type the dialect's name (`call_type`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from toolsift._pure.bulk import TextCalls
from toolsift._pure.calls import Turn, Verbatim, harvest
from toolsift._pure.context import CUSTOM, FUNCTION, Placed


def text_of(pieces: list[object]) -> str:
    """A message's text: its string pieces joined (a str that is not Unicode text, with a
    lone surrogate, is left out, as the Rust backend cannot hold it)."""
    kept = []
    for piece in pieces:
        if isinstance(piece, str):
            try:
                piece.encode("utf-8")
            except UnicodeEncodeError:
                continue
            kept.append(piece)
    return "".join(kept)


def read(
    turns: Iterable[Turn], format: str, read_text: Callable[[str], TextCalls]
) -> tuple[TextCalls, list[Placed]]:
    """The calls of a response's messages (`turns`), structured or read from the text by
    `read_text` (a dialect's reading), with the content and reasoning of its text; and
    each call's place (its message's position) and type."""
    calls = []
    placed: list[Placed] = []
    contents: list[str] = []
    reasonings: list[str] = []
    for position, (found, pieces) in enumerate(turns):
        text = text_of(pieces)
        read = read_text(text) if text else None
        if read is not None:
            if read.content is not None:
                contents.append(read.content)
            if read.reasoning is not None:
                reasonings.append(read.reasoning)
        if found or read is None:
            calls.extend(harvest(found))
            types = [CUSTOM if isinstance(call[2], Verbatim) else FUNCTION for call in found]
        else:
            calls.extend(read)
            types = [read.format] * len(read)
        placed.extend((position, call_type) for call_type in types)
    return TextCalls(calls, format, joined(contents), joined(reasonings)), placed


def joined(texts: list[str]) -> str | None:
    """Several messages' texts, joined by a blank line; None for none."""
    return "\n\n".join(texts) if texts else None
