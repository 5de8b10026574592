"""A seeded generator of LiteRT-LM (Gemma 4 on device) responses as an app logs them.

Each record is one response *text* (a ``str``; many hold newlines, so this is not JSONL),
of one of these kinds, mixed in fixed proportions:

* ``json`` (35%): a LiteRT-LM message ``{"role":"assistant","content":[...],"tool_calls":[...]}``
  written compact; calls OpenAI-style or flat, arguments as an object or a JSON string,
  some in ``content[]`` items of type ``tool_call``. About half the argument strings carry
  Gemma 4's escape token ``<|"|>`` that the runtime left in (``"<|\\"|>Paris<|\\"|>"``).
* ``json_indent`` (10%): the same, pretty-printed (``indent=2``, ``\\uXXXX`` escapes), as a
  debug log writes it: the most work for ``clean_raw_for_history``.
* ``glued`` (10%): two or three such messages back to back (``{...}{...}``), as a stream
  that was not split.
* ``gemma`` (25%): model text with raw Gemma 4 call tokens,
  ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3,...}<tool_call|>``, in prose; 1 in 10 has
  its last closing token cut off by the stop token.
* ``function_gemma`` (5%): FunctionGemma's ``<start_function_call>call:NAME{...}
  <end_function_call>`` with ``<escape>`` string delimiters.
* ``prose`` (15%): an answer without any call.

    python benches/litert_corpus.py stats 2000 [--seed 0]
    python benches/litert_corpus.py sample 5 [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from typing import Any

__all__ = [
    "KINDS",
    "call_items",
    "litert_texts",
    "plain_clean",
    "plain_extract",
    "strip_escape_tokens",
]

E = '<|"|>'

KINDS = (
    ("json", 35),
    ("json_indent", 10),
    ("glued", 10),
    ("gemma", 25),
    ("function_gemma", 5),
    ("prose", 15),
)

_WORDS = (
    "the a to of and in for on with is it that please check schedule meeting report "
    "update status order customer invoice payment shipping address account weather "
    "forecast flight hotel booking reservation ticket reminder alarm timer music volume "
    "light thermostat message contact photo note list tomorrow today morning evening"
).split()
_UNICODE = ("café", "Zürich", "São Paulo", "東京都渋谷区", "서울", "crème brûlée", "😀", "naïve")
_TOOLS = (
    "get_weather",
    "set_alarm",
    "send_message",
    "search_web",
    "create_event",
    "play_music",
    "set_thermostat",
    "add_to_list",
    "lookup_contact",
    "turn_on_light",
)


def _phrase(rng: random.Random, words: int) -> str:
    parts = [rng.choice(_WORDS) for _ in range(words)]
    if rng.random() < 0.3:
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(_UNICODE))
    if rng.random() < 0.1:
        parts.append('with "quotes" and a \\ backslash\n')
    return " ".join(parts)


def _value(rng: random.Random, depth: int, escaped: bool) -> Any:
    roll = rng.random()
    if depth < 2 and roll < 0.12:
        return {f"k{i}": _value(rng, depth + 1, escaped) for i in range(rng.randint(1, 4))}
    if depth < 2 and roll < 0.22:
        return [_value(rng, depth + 1, escaped) for _ in range(rng.randint(1, 5))]
    if roll < 0.35:
        return rng.randint(-1000, 100000)
    if roll < 0.42:
        return round(rng.uniform(-100, 100), rng.randint(1, 4))
    if roll < 0.47:
        return rng.random() < 0.5
    if roll < 0.5:
        return None
    text = _phrase(rng, rng.randint(1, 8))
    return E + text + E if escaped and rng.random() < 0.6 else text


def _arguments(rng: random.Random, escaped: bool) -> dict[str, Any]:
    keys = ("city", "query", "text", "time", "date", "to", "title", "items", "level", "units")
    return {key: _value(rng, 0, escaped) for key in rng.sample(keys, rng.randint(1, 6))}


def _message(rng: random.Random) -> dict[str, Any]:
    escaped = rng.random() < 0.5
    content: list[Any] = [{"type": "text", "text": _phrase(rng, rng.randint(3, 30))}]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    tool_calls = []
    for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
        arguments: Any = _arguments(rng, escaped)
        if rng.random() < 0.3:
            arguments = json.dumps(arguments, ensure_ascii=False)
        body = {"name": rng.choice(_TOOLS), "arguments": arguments}
        style = rng.random()
        if style < 0.5:
            tool_calls.append(
                {"id": f"call_{rng.randrange(10**6)}", "type": "function", "function": body}
            )
        elif style < 0.8:
            tool_calls.append(body)
        else:
            content.append({"type": "tool_call", "tool_call": body})
    if tool_calls:
        message["tool_calls"] = tool_calls
    return message


def _gemma_value(value: Any, delimiter: str) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v, delimiter)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v, delimiter) for v in value) + "]"
    if isinstance(value, str):
        return delimiter + value.replace(E, "") + delimiter
    return json.dumps(value)


def _raw_calls(rng: random.Random, function_gemma: bool) -> str:
    opener, closer, delimiter = (
        ("<start_function_call>", "<end_function_call>", "<escape>")
        if function_gemma
        else ("<|tool_call>", "<tool_call|>", E)
    )
    parts = [_phrase(rng, rng.randint(0, 20))]
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        arguments = _gemma_value(_arguments(rng, False), delimiter)
        parts.append(f"{opener}call:{rng.choice(_TOOLS)}{arguments}{closer}")
    text = "".join(parts)
    if rng.random() < 0.1:
        text = text[: text.rindex(closer)]  # cut off by the stop token
    return text


def _record(rng: random.Random, kind: str) -> str:
    if kind == "json":
        return json.dumps(_message(rng), ensure_ascii=False, separators=(",", ":"))
    if kind == "json_indent":
        return json.dumps(_message(rng), indent=2)
    if kind == "glued":
        return "\n".join(
            json.dumps(_message(rng), ensure_ascii=False) for _ in range(rng.randint(2, 3))
        )
    if kind == "gemma":
        return _raw_calls(rng, False)
    if kind == "function_gemma":
        return _raw_calls(rng, True)
    return _phrase(rng, rng.randint(5, 60))


def litert_texts(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """`n` records as `(kind, text)`, reproducible from `seed`."""
    rng = random.Random(f"litert-{seed}")
    names = [name for name, _ in KINDS]
    weights = [weight for _, weight in KINDS]
    return [(kind, _record(rng, kind)) for kind in rng.choices(names, weights, k=n)]


# ------------------------------------------------- what a user would write instead


def strip_escape_tokens(value: Any) -> Any:
    """`value` without Gemma's escape token in any string of it, at any depth."""
    if isinstance(value, str):
        return value.replace(E, "")
    if isinstance(value, dict):
        return {key: strip_escape_tokens(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_escape_tokens(item) for item in value]
    return value


def plain_clean(text: str) -> str:
    """`json.loads` + a recursive strip + `json.dumps`: the history text most apps write
    (numbers re-written by Python, duplicate keys merged: close to, not exactly, toolsift's)."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(strip_escape_tokens(value), ensure_ascii=False, separators=(",", ":"))


def call_items(message: dict[str, Any]) -> list[Any]:
    """The call items of a decoded message: `tool_calls[]`, then the `tool_call` of each
    `content[]` item of type `tool_call`."""
    items = list(message.get("tool_calls") or ())
    content = message.get("content")
    if isinstance(content, list):
        items += [
            part.get("tool_call")
            for part in content
            if isinstance(part, dict) and part.get("type") == "tool_call"
        ]
    return items


def plain_extract(text: str) -> list[tuple[str, Any]]:
    """`json.loads` + a walk of `tool_calls` and `content[]` + a recursive strip. It reads
    only one JSON document: glued documents and raw Gemma tokens give nothing."""
    try:
        message = json.loads(text)
    except ValueError:
        return []
    if not isinstance(message, dict):
        return []
    calls = []
    for item in call_items(message):
        if not isinstance(item, dict):
            continue
        body = item.get("function") if isinstance(item.get("function"), dict) else item
        arguments = body.get("arguments")
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                arguments = {}
        calls.append(
            (
                body.get("name"),
                strip_escape_tokens(arguments if isinstance(arguments, dict) else {}),
            )
        )
    return calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("stats", "sample"))
    ap.add_argument("n", type=int)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    records = litert_texts(args.n, args.seed)
    if args.what == "sample":
        for kind, text in records:
            print(f"--- {kind}\n{text}")
        return
    sizes = Counter()
    for kind, text in records:
        sizes[kind] += len(text.encode())
    total = sum(sizes.values())
    print(f"{len(records)} records, {total / 1e6:.2f} MB, {total / len(records):.0f} B/record")
    for kind, size in sizes.most_common():
        print(f"  {kind:15} {size / total:6.1%} of the bytes")


if __name__ == "__main__":
    main()
