"""Structure-aware generators: JSON-ish responses of every provider's shape, batch
envelopes, LiteRT-LM / Gemma 4 call tokens, and mutations of valid seed documents.

Values are built as a small tree (`Obj` keeps duplicate keys and their order, `Raw` is
a literal written as is, e.g. the number `1e400` or `-0`), then written as JSON text by
`Writer`, which picks its own spacing and string escapes. Every decision comes from a
`fuzz.source.Source`, so the same generators serve atheris (bytes) and hypothesis.
"""

from __future__ import annotations

import functools
import itertools
import json
import types
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from fuzz.seeds import format_vectors
from fuzz.source import Source

ROOT = Path(__file__).resolve().parents[1]


class Raw(str):
    """A literal written into the JSON text verbatim (a number, or anything at all)."""


class Obj:
    """A JSON object as written: its (key, value) pairs in order, duplicates allowed."""

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs

    def __repr__(self) -> str:
        return f"Obj({self.pairs!r})"


MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""A field left out of the object it was made for."""

# --------------------------------------------------------------------------- palettes

# Number literals where decoders differ: signed zero, subnormals, the float range's
# edges, halfway cases, integers beyond 64 bits, exponents of every spelling.
NUMBERS = [
    "0",
    "-0",
    "-0.0",
    "0.0",
    "0e0",
    "1",
    "-1",
    "1.5",
    "1e2",
    "1E+2",
    "1e-7",
    "0.1",
    "1e22",
    "1e16",
    "5e-324",
    "-5e-324",
    "2.2250738585072014e-308",
    "1.7976931348623157e308",
    "-1.7976931348623157e308",
    "9007199254740993",
    "9007199254740993.0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "12345678901234567890123456789",
    "1.00000000000000011102230246251565404236316680908203125",
    "2.4703282292062328e-324",
    "2.4703282292062327e-324",
    "562949953421312.25",
    "123456.789",
    "1e-400",
    "179769313486231580793728971405301e276",
    "1" * 400,
    "1." + "9" * 40,
]
# Literals behind the known differences (fuzz/known.py): drawn rarely, so that most
# cases stay free of them and can show any other difference.
KNOWN_NUMBERS = ["1e400", "-1e400", "1" + "0" * 400 + ".5", "7" * 4301]
FLOATS = [-0.0, 0.0, 5e-324, 1e-7, 0.1, 1.5, 1e16, 1e22, 1.7976931348623157e308, 123456.789]
NAMES = ["get_weather", "f", "search", "a.b", "x-y", "_", "", " ", "é", "東京", "\u2028"]
# Characters JSON writers and readers get wrong, and the pieces of Gemma's tokens.
SPECIAL = list('"\\/\n\r\t\b\f\x00\x1f\x7f\u2028\u2029é東\ufeff\uffff🚀\U0010ffff<|>{}[]:,')
TOKENS = [
    '<|"|>',
    "<|tool_call>",
    "<tool_call|>",
    "call:",
    "<escape>",
    "<start_function_call>",
    "<end_function_call>",
    "<|",
    "|>",
]
SURROGATES = ["\ud800", "\udfff", "\ud83d", "\ude00"]
ASCII = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:"
IDENT_START = "abcxyzABCXYZ_"
IDENT_REST = "abcxyz019_.-"

# Byte pieces for edits of written text (as in tests/test_parity.py).
PIECES = [
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b":",
    b'"',
    b"\\",
    b"\\u",
    b"\\ud83d",
    b"\\ude00",
    b"\\ud800",
    b"\\n",
    b"\\x",
    b"0",
    b"1",
    b"-",
    b".",
    b"e",
    b" ",
    b"\t",
    b"\n",
    b"\r",
    b"\x0c",
    b"\x00",
    b"\x1f",
    b"true",
    b"nul",
    b"\xc3\xa9",
    b"\xf0\x9f\x98\x80",
    b"\xff",
    b"\x80",
    b"\xed\xa0\x80",
    b"\xe2\x82",
    b"\xef\xbb\xbf",
    b"12345678901234567890",
    b"NaN",
    b"'",
    b'"choices"',
    b'"tool_calls"',
    b'"function"',
    b'"name"',
    b'"arguments"',
    b'"candidates"',
    b'"functionCall"',
    b'<|"|>',
    b"<|tool_call>",
    b"<tool_call|>",
    b"call:",
]


# --------------------------------------------------------------------------- scalars


def text(src: Source, max_len: int = 8, surrogates: bool = True) -> str:
    """A short string mixing ASCII, JSON's troublesome characters, Gemma token pieces,
    any code point, and (rarely) a lone surrogate."""
    out = []
    for _ in range(src.int(0, max_len)):
        kind = src.int(0, 15)
        if kind <= 6:
            out.append(src.pick(ASCII))
        elif kind <= 9:
            out.append(src.pick(SPECIAL))
        elif kind == 10:
            out.append(src.pick(TOKENS))
        elif kind == 11:
            code = src.int(0x80, 0xFFFF)
            out.append(chr(code) if not 0xD800 <= code <= 0xDFFF else "\ufffd")
        elif kind == 12:
            out.append(chr(src.int(0x10000, 0x10FFFF)))
        elif kind == 13 and surrogates and src.one_in(6):
            out.append(src.pick(SURROGATES))
        else:
            out.append(src.pick(NAMES))
    return "".join(out)


def name(src: Source) -> Any:
    """A call's name: usually a plain one, sometimes empty, odd, or not a string."""
    kind = src.int(0, 11)
    if kind <= 6:
        return src.pick(NAMES[:5])
    if kind <= 8:
        return text(src, 6)
    return src.pick([None, "", 7, True, [], Obj([]), Raw("1e2")])


def number(src: Source) -> Any:
    kind = src.int(0, 40)
    if kind == 0:
        return Raw(src.pick(KNOWN_NUMBERS))
    if kind <= 16:
        return Raw(src.pick(NUMBERS))
    if kind <= 24:
        return src.int(-1000, 1000)
    if kind <= 30:
        return src.pick(FLOATS)
    if kind <= 34:  # an integer of any size
        return int.from_bytes(src.bytes(12), "big") * src.pick([1, -1])
    # a random decimal literal
    digits = "".join(src.pick("0123456789") for _ in range(src.int(1, 22)))
    literal = digits.lstrip("0") or "0"
    if src.bool():
        literal += "." + "".join(src.pick("0123456789") for _ in range(src.int(1, 20)))
    if src.bool():
        literal += src.pick(["e", "E", "e+", "e-", "E-"]) + str(src.int(0, 330))
    return Raw(src.pick(["", "-"]) + literal)


def scalar(src: Source) -> Any:
    kind = src.int(0, 9)
    if kind == 0:
        return None
    if kind == 1:
        return src.bool()
    if kind <= 4:
        return number(src)
    return text(src)


def value(src: Source, depth: int = 0) -> Any:
    """Any JSON value (as a tree for `Writer`), at most a few levels deep."""
    kind = src.int(0, 12 if depth < 3 else 6)
    if kind <= 6:
        return scalar(src)
    if kind <= 8:
        return Obj([(key(src), value(src, depth + 1)) for _ in range(src.int(0, 3))])
    if kind <= 10:
        return [value(src, depth + 1) for _ in range(src.int(0, 3))]
    if kind == 11:
        found = arguments(src, depth + 1)
        return None if found is MISSING else found
    return gemma_text(src)


def key(src: Source) -> str:
    kind = src.int(0, 7)
    if kind <= 4:
        return src.pick(["a", "b", "city", "n", "name", "arguments", "id", "", "é", "k"])
    return text(src, 5)


def ident(src: Source) -> str:
    return src.pick(IDENT_START) + "".join(src.pick(IDENT_REST) for _ in range(src.int(0, 6)))


def arguments(src: Source, depth: int = 0) -> Any:
    """An arguments value: mostly JSON text of an object, or the object itself; else
    broken text, another JSON value, Gemma tokens, or nothing."""
    kind = src.int(0, 15)
    if kind <= 5:  # JSON text of an object, written in a style of its own
        return Writer(src, single_line=src.bool()).write(args_object(src, depth))
    if kind <= 8:
        return args_object(src, depth)
    if kind == 9:  # broken text
        written = Writer(src, single_line=True).write(args_object(src, depth))
        return edit_text(src, written.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")
    if kind == 10:
        return Writer(src, single_line=True).write(value(src, depth + 1))
    if kind == 11:
        return src.pick(["", " ", "{}", "[]", "null", '"x"', "[1, 2]", "5", '{"a": NaN}'])
    if kind == 12:
        return value(src, depth + 1)
    if kind == 13:
        return gemma_text(src)
    return src.pick([None, MISSING])


def args_object(src: Source, depth: int = 0) -> Obj:
    pairs = [(key(src), value(src, depth + 1)) for _ in range(src.int(0, 4))]
    if pairs and src.one_in(6):  # a duplicate key: the last one wins
        pairs.append((pairs[0][0], value(src, depth + 1)))
    return Obj(pairs)


# --------------------------------------------------------------------------- writer

_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SHORT_ESCAPES.update({"\b": "\\b", "\f": "\\f"})


class Writer:
    """JSON text of a value tree, with its own spacing and string escapes: compact or
    spaced, raw Unicode or `\\u` escapes (astral characters as surrogate pairs), `\\/`."""

    def __init__(self, src: Source, single_line: bool = False) -> None:
        self.src = src
        spaces = ["", "", " ", "\t", "  "] if single_line else ["", " ", "\n", "\n  ", "\t"]
        self.after_comma = src.pick(spaces)
        self.after_colon = src.pick(["", " ", " "])
        self.inner = src.pick(["", "", " "])
        self.escapes = src.int(0, 3)  # 0: raw, 1: ensure_ascii, 2: some escaped, 3: mixed

    def write(self, item: Any) -> str:
        if item is MISSING:  # a document deleted whole: no text
            return ""
        out: list[str] = []
        self._write(item, out)
        return "".join(out)

    def _write(self, item: Any, out: list[str]) -> None:
        if isinstance(item, Raw):
            out.append(item)
        elif isinstance(item, str):
            out.append(self.quote(item))
        elif item is None:
            out.append("null")
        elif isinstance(item, bool):
            out.append("true" if item else "false")
        elif isinstance(item, int):
            out.append(str(item))
        elif isinstance(item, float):
            out.append(repr(item))
        elif isinstance(item, Obj):
            pairs = [(k, v) for k, v in item.pairs if v is not MISSING]
            out.append("{" + self.inner)
            for i, (k, v) in enumerate(pairs):
                if i:
                    out.append("," + self.after_comma)
                out.append(self.quote(k) + ":" + self.after_colon)
                self._write(v, out)
            out.append(self.inner + "}")
        elif isinstance(item, (list, tuple)):
            items = [v for v in item if v is not MISSING]
            out.append("[" + self.inner)
            for i, v in enumerate(items):
                if i:
                    out.append("," + self.after_comma)
                self._write(v, out)
            out.append(self.inner + "]")
        else:
            raise TypeError(f"cannot write {type(item).__name__}")

    def quote(self, s: str) -> str:
        out = ['"']
        for ch in s:
            code = ord(ch)
            if ch in _SHORT_ESCAPES:
                out.append(_SHORT_ESCAPES[ch])
            elif code < 0x20:
                out.append(f"\\u{code:04x}")
            elif (self.escapes == 1 and code > 0x7E) or (self.escapes >= 2 and self.src.one_in(5)):
                out.append(self._u_escape(code))
            elif ch == "/" and self.escapes == 3 and self.src.bool():
                out.append("\\/")
            else:
                out.append(ch)
        out.append('"')
        return "".join(out)

    def _u_escape(self, code: int) -> str:
        spell = "\\u{:04X}" if self.escapes == 3 else "\\u{:04x}"
        if code > 0xFFFF:
            code -= 0x10000
            return spell.format(0xD800 + (code >> 10)) + spell.format(0xDC00 + (code & 0x3FF))
        return spell.format(code)


def edit_text(src: Source, text: bytes) -> bytes:
    """1 to 3 edits of written text: a piece inserted, a byte deleted or replaced, the
    rest cut off."""
    data = bytearray(text)
    for _ in range(src.int(1, 3)):
        at = src.int(0, len(data))
        how = src.int(0, 3)
        if how == 0:
            data[at:at] = src.pick(PIECES)
        elif how == 1:
            del data[at:]
        elif data:
            at = min(at, len(data) - 1)
            if how == 2:
                del data[at]
            else:
                data[at] = src.int(0, 255)
    return bytes(data)


# --------------------------------------------------------------------------- shapes


def slot(src: Source, good: Any) -> Any:
    """`good`, or (one time in eight) something of the wrong kind, or nothing."""
    if not src.one_in(8):
        return good
    return src.pick([MISSING, None, 0, "x", [], Obj([]), [good], value(src, 3)])


def obj(src: Source, fields: list[tuple[str, Any]]) -> Obj:
    """An object of these fields; sometimes an unrelated key, or a field twice (the
    first with a value of the wrong kind: the last one wins)."""
    pairs = [(k, v) for k, v in fields if v is not MISSING]
    if src.one_in(6):
        pairs.insert(src.int(0, len(pairs)), (key(src), value(src, 2)))
    if pairs and src.one_in(10):
        at = src.int(0, len(pairs) - 1)
        pairs.insert(at, (pairs[at][0], value(src, 3)))
    return Obj(pairs)


def some(src: Source, make: Any, most: int = 3) -> list[Any]:
    return [make(src) for _ in range(src.int(0, most))]


def openai_call(src: Source) -> Any:
    function = obj(src, [("name", slot(src, name(src))), ("arguments", arguments(src))])
    return obj(
        src,
        [
            ("id", slot(src, src.pick(["call_1", "call_2", ""]))),
            ("type", "function"),
            ("function", slot(src, function)),
        ],
    )


def openai_response(src: Source) -> Obj:
    message = obj(
        src,
        [
            ("role", "assistant"),
            ("content", src.pick([None, "", "Sure."])),
            ("tool_calls", slot(src, some(src, openai_call))),
        ],
    )
    choices = [
        obj(src, [("index", i), ("message", slot(src, message)), ("finish_reason", "tool_calls")])
        for i in range(src.int(1, 2))
    ]
    return obj(src, [("id", "chatcmpl-1"), ("object", "chat.completion"), ("choices", choices)])


def gemini_call(src: Source) -> Obj:
    fields = [("name", slot(src, name(src))), ("args", arguments(src))]
    if src.bool():
        fields.append(("id", slot(src, "fc-1")))
    return obj(src, fields)


def gemini_part(src: Source) -> Any:
    kind = src.int(0, 5)
    if kind <= 2:
        return Obj([(src.pick(["functionCall", "function_call"]), slot(src, gemini_call(src)))])
    if kind == 3:
        return Obj([("function_call", slot(src, None)), ("functionCall", gemini_call(src))])
    if kind == 4:
        return Obj([("text", text(src))])
    return slot(src, Obj([]))


def gemini_live_message(src: Source) -> Obj:
    """A Live API server message holding calls (REST or SDK spelling)."""
    key, calls = src.pick([("toolCall", "functionCalls"), ("tool_call", "function_calls")])
    return obj(src, [(key, slot(src, obj(src, [(calls, slot(src, some(src, gemini_call)))])))])


def gemini_response(src: Source) -> Obj:
    if src.one_in(5):
        return gemini_live_message(src)
    candidates = [
        obj(
            src,
            [
                (
                    "content",
                    slot(src, obj(src, [("role", "model"), ("parts", some(src, gemini_part))])),
                ),
                ("finishReason", "STOP"),
            ],
        )
        for _ in range(src.int(1, 2))
    ]
    return obj(src, [("candidates", slot(src, candidates))])


# The JsonResponseParser option sets the targets use (see fuzz/targets.py PARSERS).
JSON_SHAPES = [
    (["tool_calls"], "name", "arguments"),
    (["result", "calls"], "fn", "params"),
    (["toolCall"], "name", "arguments"),
    (["a", "b"], "name", "arguments"),
]


def json_response(src: Source) -> Any:
    path, name_key, arguments_key = src.pick(JSON_SHAPES)
    if src.one_in(5):  # the other keys
        name_key, arguments_key = src.pick([("name", "arguments"), ("fn", "params")])

    def entry(src: Source) -> Any:
        fields = [(name_key, slot(src, name(src))), (arguments_key, arguments(src))]
        if src.bool():
            fields.append(("id", slot(src, "c1")))
        return slot(src, obj(src, fields))

    found: Any = entry(src) if src.one_in(3) else some(src, entry)
    for k in reversed(path):
        found = obj(src, [(k, slot(src, found))])
    if src.one_in(4):  # a list of documents: the first with calls wins
        items = [slot(src, Obj([])) for _ in range(src.int(0, 2))]
        items.insert(src.int(0, len(items)), found)
        return items
    return found


def sdk_item(src: Source) -> Any:
    function = obj(src, [("name", slot(src, name(src))), ("arguments", arguments(src))])
    if src.bool():  # OpenAI-style
        return obj(src, [("id", slot(src, "call_1")), ("type", "function"), ("function", function)])
    return function


def sdk_response(src: Source) -> Any:
    fields: list[tuple[str, Any]] = [("role", "assistant")]
    if src.bool():
        fields.append(("tool_calls", slot(src, some(src, sdk_item))))
    if src.bool():
        content = [
            src.pick(
                [
                    Obj([("type", "tool_call"), ("tool_call", sdk_item(src))]),
                    Obj([("type", "text"), ("text", gemma_text(src))]),
                    Obj([("type", "tool_call")]),
                ]
            )
            for _ in range(src.int(0, 3))
        ]
        fields.append(("content", slot(src, content)))
    elif src.bool():
        fields.append(("content", gemma_text(src)))
    return obj(src, fields)


def lone_event(src: Source) -> Any:
    """One event of a provider's stream, given where a response is read (a log that kept
    only some events): now and then a provider's error event."""
    if src.one_in(5):
        return error_event(src)
    events = STREAMS[src.pick([kind for kind in STREAMS if kind != "json"])](src)
    return src.pick(events) if events else error_event(src)


def interaction_step(src: Source) -> Obj:
    """A step of a Gemini Interactions response: mostly a `function_call`."""
    kind = slot(src, src.pick(["function_call", "function_call", "thought", "model_output",
                               "google_search_call", "function_result"]))  # fmt: skip
    return obj(
        src,
        [
            ("type", kind),
            ("id", slot(src, src.pick(["c1", "c2", ""]))),
            ("name", slot(src, name(src))),
            ("arguments", arguments(src)),
        ],
    )


def interactions_response(src: Source) -> Obj:
    """A Gemini Interactions API `Interaction`: `steps` (or legacy `outputs`)."""
    fields: list[tuple[str, Any]] = [("id", "v1_1")]
    if src.bool():
        fields.append(("object", slot(src, "interaction")))
    fields.append(("status", slot(src, src.pick(["requires_action", "completed", "x"]))))
    fields.append((src.pick(["steps", "steps", "outputs"]), slot(src, some(src, interaction_step))))
    return obj(src, fields)


def _message_id(src: Source) -> Any:
    """A call's or a result's id: few, so that they are reused and mismatched."""
    return slot(src, src.pick(["c1", "c2", "c1", "", MISSING]))


def _assistant_message(src: Source) -> Obj:
    """An assistant turn in OpenAI's, Anthropic's or Gemini's shape, or raw Hermes text."""
    style = src.int(0, 3)
    if style == 0:
        calls = [
            obj(
                src,
                [
                    ("id", _message_id(src)),
                    ("type", "function"),
                    (
                        "function",
                        slot(
                            src,
                            obj(
                                src, [("name", slot(src, name(src))), ("arguments", arguments(src))]
                            ),
                        ),
                    ),
                ],
            )
            for _ in range(src.int(0, 3))
        ]
        return obj(
            src,
            [
                ("role", "assistant"),
                ("content", src.pick([None, "", "ok"])),
                ("tool_calls", slot(src, calls)),
            ],
        )
    if style == 1:
        blocks = [
            obj(
                src,
                [
                    ("type", "tool_use"),
                    ("id", _message_id(src)),
                    ("name", slot(src, name(src))),
                    ("input", arguments(src)),
                ],
            )
            for _ in range(src.int(0, 3))
        ]
        return obj(src, [("role", "assistant"), ("content", slot(src, blocks))])
    if style == 2:
        return obj(src, [("role", "model"), ("parts", slot(src, some(src, gemini_part)))])
    call = json.dumps({"name": src.pick(["f", "g"]), "arguments": {"a": src.int(0, 9)}})
    return obj(src, [("role", "assistant"), ("content", f"<tool_call>{call}</tool_call>")])


def _result_message(src: Source) -> Obj:
    """A tool result in OpenAI's, Anthropic's or Gemini's shape."""
    style = src.int(0, 2)
    content = src.pick(["done", "", None, Obj([("x", 1)]), [Obj([("type", "text")])]])
    if style == 0:
        return obj(
            src,
            [
                ("role", src.pick(["tool", "tool", "function"])),
                ("tool_call_id", _message_id(src)),
                ("content", content),
            ],
        )
    if style == 1:
        block = obj(
            src,
            [
                ("type", "tool_result"),
                ("tool_use_id", _message_id(src)),
                ("content", content),
                ("is_error", src.pick([MISSING, True, False, 1])),
            ],
        )
        return obj(src, [("role", "user"), ("content", [block])])
    response = src.pick([Obj([("ok", True)]), Obj([("error", "no")]), Obj([("error", None)]), "x"])
    part = obj(src, [("id", _message_id(src)), ("name", "f"), ("response", response)])
    key = src.pick(["functionResponse", "function_response"])
    return obj(src, [("role", "user"), ("parts", [Obj([(key, part)])])])


def messages_transcript(src: Source) -> Any:
    """A conversation: messages with calls and results in any provider's shape (the list
    itself, a rollout's `messages`, Gemini's `contents`, or one assistant message)."""
    messages: list[Any] = [obj(src, [("role", "user"), ("content", text(src))])]
    for _ in range(src.int(0, 4)):
        messages.append(_assistant_message(src) if src.bool() else _result_message(src))
    shape = src.int(0, 3)
    if shape == 0:
        return messages
    if shape == 1:
        return obj(src, [("model", "m"), ("reward", 1.0), ("messages", slot(src, messages))])
    if shape == 2:
        return obj(src, [("contents", slot(src, messages))])
    return _assistant_message(src)


RESPONSES = {
    "openai": openai_response,
    "gemini": gemini_response,
    "gemini-interactions": interactions_response,
    "json": json_response,
    "sdk": sdk_response,
    "event": lone_event,
    "messages": messages_transcript,
}


def response(src: Source, kind: str | None = None) -> Any:
    """A response of `kind` (or of a random kind) as a value tree."""
    if kind is None:
        kind = src.pick(list(RESPONSES))
    return RESPONSES[kind](src)


# --------------------------------------------------------------------------- stream events


def stream_index(src: Source) -> Any:
    """An index: mostly small, sometimes missing, of the wrong kind, or beyond 64 bits."""
    kind = src.int(0, 15)
    if kind <= 10:
        return src.int(0, 2)
    return src.pick([MISSING, None, -1, 2**63 - 1, 2**64, -(2**70), True, "0", 1.0])


def cut(src: Source, text: Any, most: int = 4) -> list[Any]:
    """Text (str or bytes) cut at up to `most` random places (anywhere: inside a UTF-8
    character or a `\\u` escape too)."""
    cuts = sorted({src.int(0, len(text)) for _ in range(src.int(0, most))})
    return [text[a:b] for a, b in itertools.pairwise([0, *cuts, len(text)])]


def pieces(src: Source, text: Any) -> list[Any]:
    """Argument text cut into fragments at random places (anything else: one piece)."""
    if not isinstance(text, str) or not text:
        return [text]
    return cut(src, text)


def _call_fragments(src: Source) -> tuple[Any, Any, list[Any]]:
    """A call's name, id and argument fragments."""
    found = arguments(src)
    return name(src), slot(src, src.pick(["call_1", "call_2", "", "fc_1"])), pieces(src, found)


def _openai_events(src: Source) -> list[Any]:
    events: list[Any] = []
    for _ in range(src.int(1, 3)):
        call_name, id, fragments = _call_fragments(src)
        index, choice = stream_index(src), src.pick([0, 0, 1, MISSING])
        for n, fragment in enumerate(fragments):
            function = [("arguments", fragment)]
            if n == 0 or src.one_in(4):
                function.insert(0, ("name", call_name))
            fields = [("index", index), ("function", obj(src, function))]
            if n == 0 or src.one_in(3):
                fields.append(("id", id))
            delta = Obj([("tool_calls", [obj(src, fields)])])
            if src.one_in(10):
                delta = Obj([("function_call", obj(src, function))])
            finish = src.pick([MISSING, MISSING, MISSING, None, "tool_calls"])
            choice_obj = obj(src, [("index", choice), ("delta", delta), ("finish_reason", finish)])
            events.append(obj(src, [("id", "chatcmpl-1"), ("choices", [choice_obj])]))
    return events


def _responses_events(src: Source) -> list[Any]:
    events: list[Any] = []
    items = []
    for position in range(src.int(1, 2)):
        call_name, id, fragments = _call_fragments(src)
        custom = src.one_in(4)
        item_id = slot(src, f"fc_{position}")
        kind = "custom_tool_call" if custom else "function_call"
        key = "input" if custom else "arguments"
        item = [("type", kind), ("id", item_id), ("call_id", id), ("name", call_name)]
        added = Obj([*item, (key, "")])
        index = stream_index(src)
        events.append(
            Obj([("type", "response.output_item.added"), ("output_index", index), ("item", added)])
        )
        delta = (
            "response.custom_tool_call_input.delta"
            if custom
            else ("response.function_call_arguments.delta")
        )
        for fragment in fragments:
            fields = [("type", delta), ("item_id", item_id), ("output_index", index)]
            events.append(obj(src, [*fields, ("delta", fragment)]))
        whole = "".join(f for f in fragments if isinstance(f, str))
        if src.bool():
            done = (
                "response.custom_tool_call_input.done"
                if custom
                else ("response.function_call_arguments.done")
            )
            events.append(obj(src, [("type", done), ("item_id", item_id), (key, whole)]))
        items.append(Obj([*item, (key, whole)]))
        if src.bool():
            events.append(Obj([("type", "response.output_item.done"), ("item", items[-1])]))
    if src.bool():
        response = Obj([("id", "resp_1"), ("output", items)])
        events.append(
            Obj(
                [
                    ("type", src.pick(["response.completed", "response.failed"])),
                    ("response", response),
                ]
            )
        )
    return events


def _anthropic_events(src: Source) -> list[Any]:
    events: list[Any] = [Obj([("type", "message_start"), ("message", Obj([("id", "msg_1")]))])]
    for _ in range(src.int(1, 3)):
        call_name, id, fragments = _call_fragments(src)
        index = stream_index(src)
        block = obj(
            src, [("type", "tool_use"), ("id", id), ("name", call_name), ("input", Obj([]))]
        )
        events.append(
            obj(src, [("type", "content_block_start"), ("index", index), ("content_block", block)])
        )
        for fragment in fragments:
            delta = Obj([("type", "input_json_delta"), ("partial_json", fragment)])
            events.append(
                obj(src, [("type", "content_block_delta"), ("index", index), ("delta", delta)])
            )
        if src.bool():
            events.append(obj(src, [("type", "content_block_stop"), ("index", index)]))
    if src.bool():
        events.append(Obj([("type", "message_stop")]))
    return events


def _bedrock_events(src: Source) -> list[Any]:
    events: list[Any] = [Obj([("messageStart", Obj([("role", "assistant")]))])]
    for _ in range(src.int(1, 3)):
        call_name, id, fragments = _call_fragments(src)
        index = stream_index(src)
        use = obj(src, [("toolUseId", id), ("name", call_name)])
        start = Obj([("contentBlockIndex", index), ("start", Obj([("toolUse", use)]))])
        events.append(Obj([("contentBlockStart", start)]))
        for fragment in fragments:
            delta = Obj([("toolUse", Obj([("input", fragment)]))])
            block = obj(src, [("contentBlockIndex", index), ("delta", delta)])
            events.append(Obj([("contentBlockDelta", block)]))
        if src.bool():
            events.append(Obj([("contentBlockStop", Obj([("contentBlockIndex", index)]))]))
    if src.bool():
        events.append(Obj([("messageStop", Obj([("stopReason", "tool_use")]))]))
    return events


def _cohere_events(src: Source) -> list[Any]:
    events: list[Any] = [Obj([("type", "message-start"), ("id", "m1")])]
    for _ in range(src.int(1, 3)):
        call_name, id, fragments = _call_fragments(src)
        index = stream_index(src)
        for n, fragment in enumerate(fragments):
            function = [("arguments", fragment)]
            call = [("function", Obj(function))]
            if n == 0:
                function.insert(0, ("name", call_name))
                call += [("id", id), ("type", "function")]
            delta = Obj([("message", Obj([("tool_calls", obj(src, call))]))])
            kind = "tool-call-start" if n == 0 else "tool-call-delta"
            events.append(obj(src, [("type", kind), ("index", index), ("delta", delta)]))
        if src.bool():
            events.append(obj(src, [("type", "tool-call-end"), ("index", index)]))
    if src.bool():
        events.append(Obj([("type", "message-end")]))
    return events


def _partial_arg(src: Source) -> Any:
    path = src.pick(["$.a", "$.b[1]", "$['c d']", "$.a.b", "$", "a", "$.x[99999]", "$.é"])
    kind = src.pick(["stringValue", "numberValue", "boolValue", "nullValue", "string_value"])
    made = {"stringValue": text(src, 4), "numberValue": number(src), "boolValue": src.bool()}
    fields = [("jsonPath", path), (kind, made.get(kind, "NULL_VALUE"))]
    if src.bool():
        fields.append(("willContinue", src.pick([True, True, False, 1])))
    return obj(src, fields)


def _gemini_events(src: Source) -> list[Any]:
    events: list[Any] = []
    for _ in range(src.int(1, 4)):
        fields: list[tuple[str, Any]] = []
        if src.bool():
            fields.append(("name", name(src)))
        if src.one_in(3):
            fields.append(("id", slot(src, "fc_1")))
        if src.one_in(3):
            fields.append(("args", arguments(src)))
        if src.bool():
            fields.append((src.pick(["partialArgs", "partial_args"]), some(src, _partial_arg)))
        if src.bool():
            fields.append((src.pick(["willContinue", "will_continue"]), src.pick([True, False])))
        part = Obj([(src.pick(["functionCall", "function_call"]), obj(src, fields))])
        content = Obj([("role", "model"), ("parts", [part])])
        candidate = obj(src, [("content", content), ("index", stream_index(src))])
        events.append(Obj([("candidates", [candidate]), ("responseId", "r1")]))
        if src.one_in(5):
            events.append(gemini_live_message(src))
    return events


def error_event(src: Source) -> Obj:
    """A provider's stream error event (each format's and Bedrock's), its error of any
    shape now and then."""
    detail = obj(
        src,
        [
            ("message", slot(src, text(src))),
            (src.pick(["code", "type", "status"]), slot(src, src.pick(["c", 503, 2**64]))),
        ],
    )
    if src.one_in(4):
        detail = value(src, 2)
    kind = src.int(0, 6)
    if kind == 0:
        return Obj([("type", "error"), ("error", detail)])
    if kind == 1:
        return Obj([("error", detail)])
    if kind == 2:
        return Obj([("type", "response.failed"), ("response", Obj([("error", detail)]))])
    if kind == 3:  # Realtime: `{type, code}`, no message
        status = Obj([("status", "failed"), ("status_details", Obj([("error", detail)]))])
        return Obj([("type", "response.done"), ("response", status)])
    reason = slot(src, src.pick(["ERROR", "TIMEOUT", "ERROR_TOXIC", "COMPLETE"]))
    if kind == 4:  # Cohere v2
        delta = obj(src, [("error", slot(src, text(src))), ("finish_reason", reason)])
        return Obj([("type", "message-end"), ("delta", delta)])
    if kind == 5:  # Cohere v1
        return Obj([("event_type", "stream-end"), ("finish_reason", reason)])
    return Obj([(src.pick(["throttlingException", "modelStreamErrorException"]), detail)])


def _ollama_events(src: Source) -> list[Any]:
    events = []
    for _ in range(src.int(1, 3)):
        function = obj(src, [("name", name(src)), ("arguments", arguments(src))])
        message = Obj([("role", "assistant"), ("tool_calls", [Obj([("function", function)])])])
        events.append(Obj([("message", message), ("done", src.bool())]))
    return events


def _interactions_events(src: Source) -> list[Any]:
    """Interactions API events (`event_type`): a `function_call` step started (its
    arguments `{}`, or whole), `arguments_delta` fragments, `step.stop`; now and then an
    `interaction.completed` holding steps, or an `error` event."""
    events: list[Any] = [Obj([("event_type", "interaction.created")])]
    for _ in range(src.int(1, 3)):
        call_name, id, fragments = _call_fragments(src)
        index = stream_index(src)
        whole = Obj([]) if src.bool() else arguments(src)
        step = obj(
            src,
            [("type", "function_call"), ("id", id), ("name", call_name), ("arguments", whole)],
        )
        events.append(obj(src, [("event_type", "step.start"), ("index", index), ("step", step)]))
        for fragment in fragments:
            delta = obj(src, [("type", "arguments_delta"), ("arguments", fragment)])
            events.append(
                obj(src, [("event_type", "step.delta"), ("index", index), ("delta", delta)])
            )
        if src.bool():
            events.append(obj(src, [("event_type", "step.stop"), ("index", index)]))
    if src.bool():
        interaction = interactions_response(src) if src.bool() else Obj([("id", "v1_1")])
        events.append(Obj([("event_type", "interaction.completed"), ("interaction", interaction)]))
    if src.one_in(5):
        error = obj(src, [("code", slot(src, "RESOURCE_EXHAUSTED")), ("message", text(src))])
        events.append(Obj([("event_type", "error"), ("error", error)]))
    return events


def _json_events(src: Source) -> list[Any]:
    return [json_response(src) for _ in range(src.int(1, 3))]


STREAMS = {
    "openai": _openai_events,
    "openai-responses": _responses_events,
    "anthropic": _anthropic_events,
    "bedrock": _bedrock_events,
    "cohere": _cohere_events,
    "gemini": _gemini_events,
    "gemini-interactions": _interactions_events,
    "ollama": _ollama_events,
    "json": _json_events,
}
"""The stream events of each format, as value trees."""


def stream_events(src: Source, kind: str) -> list[Any]:
    """A stream of `kind`'s events (value trees), sometimes with an unrelated event."""
    events = STREAMS[kind](src)
    if src.one_in(6):
        events.insert(src.int(0, len(events)), value(src, 2))
    return events


# --------------------------------------------------------------------------- Gemma 4 tokens

_GEMMA_STYLES = [
    ("<|tool_call>", "<tool_call|>", '<|"|>'),
    ("<start_function_call>", "<end_function_call>", "<escape>"),
]


def gemma_value(src: Source, delim: str, depth: int) -> str:
    kind = src.int(0, 9 if depth < 3 else 5)
    if kind <= 2:
        return delim + text(src, 6, surrogates=False) + delim
    if kind == 3:
        item = number(src)
        return item if isinstance(item, Raw) else json.dumps(item)
    if kind == 4:
        return src.pick(["true", "false", "null", "True", "nul", "-", "1.", "0x1"])
    if kind == 5:
        return src.pick(['"plain"', "bare", "", '<|"|>', "<escape>"])  # not the grammar
    if kind <= 7:
        return gemma_object(src, delim, depth + 1)
    items = [gemma_value(src, delim, depth + 1) for _ in range(src.int(0, 3))]
    return "[" + src.pick([",", ", ", " ,"]).join(items) + "]"


def gemma_object(src: Source, delim: str, depth: int = 0) -> str:
    members = []
    for _ in range(src.int(0, 3)):
        k = ident(src) if not src.one_in(10) else src.pick(["", "1a", "a b", delim + "k" + delim])
        members.append(k + src.pick([":", " : ", ":"]) + gemma_value(src, delim, depth))
    return "{" + src.pick([",", ", ", ","]).join(members) + "}"


def gemma_call(src: Source) -> str:
    opener, closer, delim = src.pick(_GEMMA_STYLES)
    if src.one_in(8):  # the other style's delimiter
        delim = src.pick(['<|"|>', "<escape>"])
    call = opener + src.pick(["call:", "call:", "call: ", "cal:"])
    call += ident(src) if not src.one_in(8) else src.pick(["", "1f", "f g"])
    if not src.one_in(5):
        call += src.pick(["", "", " "]) + gemma_object(src, delim)
    if not src.one_in(4):  # the closing token may be missing
        call += closer
    return call


def gemma_text(src: Source) -> str:
    """Text with raw Gemma 4 / FunctionGemma call tokens among prose."""
    pieces = []
    for _ in range(src.int(1, 3)):
        if src.one_in(3):
            pieces.append(text(src, 6, surrogates=False))
        pieces.append(gemma_call(src))
    return src.pick(["", "\n", " "]).join(pieces)


def litert_text(src: Source) -> str:
    """What a LiteRT-LM SDK returns: JSON (maybe several documents glued), raw tokens,
    tokens inside JSON strings, or prose."""
    kind = src.int(0, 6)
    if kind <= 1:
        return gemma_text(src)
    if kind <= 3:
        return Writer(src).write(sdk_response(src))
    if kind == 4:  # glued documents
        docs = [Writer(src).write(sdk_response(src)) for _ in range(src.int(2, 3))]
        return src.pick(["", "\n", " "]).join(docs)
    if kind == 5:  # tokens inside a JSON string
        return Writer(src).write(Obj([("role", "assistant"), ("content", gemma_text(src))]))
    return Writer(src).write(value(src))


# --------------------------------------------------------------------------- envelopes


def envelope(src: Source, body: Any) -> Any:
    """A batch-output line around a response: OpenAI Batch API, Vertex AI, Gemini API
    (some failed), or a record_path nesting, or the response itself."""
    kind = src.int(0, 9)
    error = Obj([("code", src.pick(["batch_expired", 400, None, "x"])), ("message", text(src))])
    if kind == 0:
        status = src.pick([200, 200, 429, 500, "200", None, 200.0])
        http = obj(src, [("status_code", status), ("request_id", "r1"), ("body", slot(src, body))])
        return obj(
            src,
            [
                ("id", "batch_req_1"),
                ("custom_id", slot(src, "req-1")),
                ("response", slot(src, http)),
                ("error", None),
            ],
        )
    if kind == 1:
        return obj(
            src,
            [
                ("id", "batch_req_2"),
                ("custom_id", "req-2"),
                ("response", None),
                ("error", slot(src, error)),
            ],
        )
    if kind == 2:
        return obj(
            src,
            [
                ("status", src.pick(["", "", "Bad Request: x", None, error])),
                ("request", Obj([])),
                ("response", slot(src, body)),
            ],
        )
    if kind == 3:
        return obj(src, [("key", slot(src, "k1")), ("response", slot(src, body))])
    if kind == 4:
        return obj(src, [("key", "k2"), ("error", slot(src, error))])
    if kind == 5:
        return Obj([("a", slot(src, Obj([("b", body)])))])
    if kind == 6:
        return format_envelope(src, body, error)
    return body


def format_envelope(src: Source, body: Any, error: Any) -> Any:
    """The envelopes the formats bring along (Anthropic Message Batches, Bedrock batch
    inference) and Gemini's inline answers (`metadata.key`), their members sometimes of
    an odd type (`slot`); else the response itself."""
    kind = src.int(0, 3)
    if kind == 0:
        result_type = slot(src, src.pick(["succeeded", "errored", "canceled", "expired", "x"]))
        result = obj(
            src,
            [
                ("type", result_type),
                ("message", slot(src, body)),
                ("error", slot(src, Obj([("type", "error"), ("error", error)]))),
            ],
        )
        return obj(src, [("custom_id", slot(src, "req-3")), ("result", slot(src, result))])
    if kind == 1:
        return obj(
            src,
            [
                ("recordId", slot(src, "rec-1")),
                ("modelInput", slot(src, Obj([]))),
                ("modelOutput", slot(src, body)),
                ("error", src.pick([MISSING, None, error, Obj([("errorCode", 400)])])),
            ],
        )
    if kind == 2:
        metadata = slot(src, Obj([("key", slot(src, "k3"))]))
        return obj(src, [("metadata", metadata), ("response", slot(src, body))])
    return body


def logged_stream(src: Source, kind: str | None) -> Any:
    """A whole stream as a log keeps it: the JSON array of its events, or its SSE
    transcript as a JSON string (events of `kind`'s format where it streams, else any)."""
    if kind not in STREAMS:
        kind = src.pick(list(STREAMS))
    events = stream_events(src, kind)
    if src.one_in(2):
        return events
    end = src.pick(["\n\n", "\r\n\r\n", "\r\r"])
    return "".join(f"data: {Writer(src, single_line=True).write(event)}{end}" for event in events)


def record_line(src: Source, kind: str | None = None) -> bytes:
    """One line of a JSONL file: a response (or a logged stream) in an envelope, blank,
    or broken."""
    choice = src.int(0, 15)
    if choice == 0:
        return src.pick([b"", b" ", b"\t", b"\r", b" \t\r"])
    if choice == 1:
        return src.bytes(12)
    if choice == 2 and kind == "sdk":
        return gemma_text(src).encode()
    body = logged_stream(src, kind) if choice == 5 else response(src, kind)
    line = Writer(src, single_line=True).write(envelope(src, body))
    data = line.encode("utf-8", "surrogatepass")
    if choice == 3:
        data = edit_text(src, data)
    if choice == 4:
        data += b"\r"
    return data


# --------------------------------------------------------------------------- seeds


def to_tree(item: Any) -> Any:
    """A decoded JSON value as a tree for `Writer` (dicts become `Obj`)."""
    if isinstance(item, dict):
        return Obj([(k, to_tree(v)) for k, v in item.items()])
    if isinstance(item, list):
        return [to_tree(v) for v in item]
    return item


def _decoded(text: str | bytes) -> Any:
    """The value of a seed text, or None for one that is not JSON, long or deep (the
    writer and the mutations recurse)."""
    if len(text) > 20_000:
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return None
    depth, todo = 0, [(doc, 0)]
    while todo:
        item, level = todo.pop()
        depth = max(depth, level)
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
    return doc if depth <= 60 else None


@functools.lru_cache(maxsize=1)
def seed_documents() -> tuple[Any, ...]:
    """Valid documents to mutate: the inputs of tests/vectors/*.json and some lines of
    the bundled samples."""
    texts: list[str | bytes] = []
    for vector in format_vectors():
        texts.append(json.dumps(vector["input"]) if "input" in vector else vector["text"])
    for vector in json.loads((ROOT / "tests/vectors/litert.json").read_text()):
        if isinstance(vector.get("input"), str):
            texts.append(vector["input"])
    for sample in sorted((ROOT / "python/toolsift/samples").glob("*.jsonl")):
        texts.extend(sample.read_bytes().splitlines()[:40])
    docs = [_decoded(text) for text in texts]
    return tuple(to_tree(doc) for doc in docs if doc is not None)


def mutate(src: Source, node: Any, depth: int = 0) -> Any:
    """`node` with one part (found by walking down from it) changed."""
    if isinstance(node, Obj) and node.pairs and not src.one_in(3 if depth else 10):
        at = src.int(0, len(node.pairs) - 1)
        pairs = list(node.pairs)
        k, v = pairs[at]
        pairs[at] = (k, mutate(src, v, depth + 1))
        return Obj(pairs)
    if isinstance(node, list) and node and not src.one_in(3 if depth else 10):
        at = src.int(0, len(node) - 1)
        items = list(node)
        items[at] = mutate(src, items[at], depth + 1)
        return items
    how = src.int(0, 9)
    if how == 0:
        return value(src, 2)
    if how == 1:
        return MISSING
    if how == 2 and isinstance(node, Obj):  # a key twice, or a new one
        pairs = list(node.pairs)
        k = pairs[src.int(0, len(pairs) - 1)][0] if pairs and src.bool() else key(src)
        pairs.insert(src.int(0, len(pairs)), (k, value(src, 2)))
        return Obj(pairs)
    if how == 3:
        return [node]
    if how == 4:
        return number(src)
    if how == 5:  # the value as JSON text (arguments often are)
        return Writer(src, single_line=True).write(node)
    if how == 6:
        return text(src)
    if how == 7:
        return arguments(src)
    if how == 8 and isinstance(node, (Obj, list)):
        return (Obj if isinstance(node, Obj) else list)([])
    return gemma_text(src)


def mutated_seed(src: Source) -> Any:
    seeds = seed_documents()
    doc = seeds[src.int(0, len(seeds) - 1)]
    for _ in range(src.int(1, 4)):
        doc = mutate(src, doc)
    return doc


# --------------------------------------------------------------------------- Python objects


class Attribute:
    """An attribute of an SDK-like object that raises when read."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            return self
        raise self.exc

    def __set__(self, obj: Any, value: Any) -> None:
        raise AttributeError("read-only")


class ArgsMapping(Mapping[str, Any]):
    """Arguments as a Mapping that is not a dict (an older SDK's proto map)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, k: str) -> Any:
        return self._data[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


class SubDict(dict):  # type: ignore[type-arg]
    """A dict subclass that changes nothing."""


class SubList(list):  # type: ignore[type-arg]
    """A list subclass that changes nothing."""


class OwnIterList(list):  # type: ignore[type-arg]
    """A list subclass with its own __iter__ (a known difference: fuzz/known.py)."""

    def __iter__(self) -> Iterator[Any]:
        return iter(list(list.__iter__(self))[::-1])


def objects(src: Source, item: Any, by_attribute: bool) -> Any:
    """A decoded value in other Python forms callers pass: SDK-like objects read by
    attribute (when `by_attribute`), tuples, dict and list subclasses, a Mapping for
    arguments, an attribute that raises."""
    if isinstance(item, dict):
        fields = {
            k: (v if k in ("arguments", "args") and src.bool() else objects(src, v, by_attribute))
            for k, v in item.items()
        }
        if k_args := [k for k in ("arguments", "args") if isinstance(fields.get(k), dict)]:
            if src.one_in(4):
                fields[k_args[0]] = ArgsMapping(fields[k_args[0]])
        if by_attribute and src.bool():
            if src.one_in(12):
                bad = src.pick(["choices", "message", "function", "candidates", "content", "name"])
                exc = src.pick([ValueError("boom"), AttributeError("gone"), KeyError("k")])
                broken = type("Broken", (types.SimpleNamespace,), {bad: Attribute(exc)})
                return broken(**{k: v for k, v in fields.items() if k != bad})
            return types.SimpleNamespace(**fields)
        return SubDict(fields) if src.one_in(8) else fields
    if isinstance(item, list):
        items = [objects(src, v, by_attribute) for v in item]
        kind = src.int(0, 40)
        if kind <= 3:
            return tuple(items)
        if kind == 4:
            return SubList(items)
        if kind == 5:
            return OwnIterList(items)
        return items
    return item
