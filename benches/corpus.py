"""A seeded generator of realistic *logged* LLM responses, one JSON document per line.

Four corpora, all reproducible from a seed:

* ``openai``: Chat Completions responses (``choices[].message.tool_calls[]``, arguments as
  JSON *text*). About 70% of the lines look like raw HTTP bodies (compact, raw UTF-8,
  ``tool_calls`` omitted when there are none); about 30% look like an openai SDK
  ``model_dump()`` written with ``json.dumps`` (``", "`` separators, ``\\uXXXX`` escapes,
  every field present, ``null`` where empty). About 1% of the argument strings are
  truncated JSON (a model cut off by ``max_tokens``).
* ``gemini``: REST ``generateContent`` responses (camelCase: ``functionCall``, ``args`` as a
  JSON *object*, ``usageMetadata``, ``modelVersion``, ``responseId``). 30% of the
  responses of thinking models (2.5) carry a ``thoughtSignature`` of 1.6-6.4 KB of base64
  on their first call part, or on their last part when they have no call.
* ``gemini_sdk``: the same responses as the google-genai SDK's
  ``model_dump(mode="json", exclude_none=True)`` logs them (snake_case: ``function_call``).
  russo's ``GeminiResponseParser`` reads only this spelling.
* ``litert``: LiteRT-LM (Gemma 4 on device) messages, the records of
  ``litert_corpus.py`` that are one compact JSON document (its ``json`` kind: calls in
  ``tool_calls``, OpenAI-style or flat, and in ``content[]`` items; arguments as an object
  or JSON text, half of them with Gemma's escape token left in), for the per-call
  comparison with what a user writes instead (the rest of that corpus is not JSON).

Each response has 0-3 tool calls. Argument sizes are small (~50 B), medium (~1 KB) and,
rarely, large (~20 KB), with nested objects and lists, CJK, emoji and accented text,
quotes, backslashes and newlines, ints, floats, a few integers beyond 64 bits (OpenAI
only: Gemini's ``Struct`` holds numbers as doubles), booleans and nulls.

Generation is fast: argument blobs are generated once per seed into a pool and reused;
each line is ``json.dumps`` of a small envelope with placeholders that are replaced by the
pre-encoded argument text.

    python benches/corpus.py openai 100000 out.jsonl [--seed 0]
    python benches/corpus.py stats openai 20000 [--seed 0]
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import statistics
import string
import sys
import time
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import litert_corpus

__all__ = [
    "CORPORA",
    "calls_of",
    "corpus_lines",
    "describe",
    "gemini_lines",
    "litert_lines",
    "openai_lines",
]

# --------------------------------------------------------------------------- vocabulary

_WORDS = (
    "the a to of and in for on with is it that this be at by from as are was have not "
    "please can you check schedule meeting report update status order customer invoice "
    "payment shipping address account balance project deadline team review summary draft "
    "email calendar weather forecast flight hotel booking reservation ticket support issue "
    "error database query table record user profile settings password reset notification "
    "tomorrow today morning afternoon evening week month quarter budget revenue forecast "
    "analysis chart dashboard metrics latency throughput deploy release version rollback "
    "server cluster region bucket file folder document spreadsheet slide presentation "
    "agenda notes action items follow-up priority high low medium urgent blocked done"
).split()

_UNICODE_BITS = (
    "café",
    "naïve",
    "Zürich",
    "São Paulo",
    "Kraków",
    "Ångström",
    "façade",
    "résumé",
    "München",
    "Málaga",
    "Øresund",
    "Łódź",
    "crème brûlée",
    "東京都渋谷区",
    "北京市朝阳区",
    "서울특별시 강남구",
    "会議の議事録を送ってください",
    "请帮我预订明天的航班",
    "天気予報",
    "Привет, мир",
    "Ελληνικά",
    "مرحبا",
    "🎉",
    "👍",
    "🚀",
    "😀",
    "🇯🇵",
    "👩\u200d💻",
    "✅",
    "€",
    "°C",
    "½",
)

_ESCAPE_BITS = (
    'He said "hello" twice',
    'the "quoted" part',
    "C:\\Users\\alice\\Documents\\report.docx",
    "\\\\fileserver\\share\\q3",
    "line one\nline two",
    "tab\tseparated\tvalues",
    "regex ^\\d{3}-\\d{4}$",
    "a/b/c \\/ slash",
    "it's 5' 11\"",
    "\r\nwindows line\r\n",
)

_CITIES = (
    "Paris",
    "London",
    "New York, NY",
    "San Francisco, CA",
    "Tokyo",
    "Berlin",
    "Zürich",
    "São Paulo",
    "Kraków",
    "東京",
    "北京",
    "서울",
    "México City",
    "Reykjavík",
    "Bengaluru",
)

_FIRST = ("Alice", "Bob", "Chloé", "Dmitri", "Eun-ji", "François", "Giulia", "Hiro", "Ingrid")
_LAST = ("Martin", "Smith", "Müller", "Tanaka", "Kowalski", "O'Brien", "García", "Nguyen", "李")
_DOMAINS = ("example.com", "acme.io", "contoso.org", "mail.example.co.jp")
_TZ = ("Europe/Paris", "America/New_York", "Asia/Tokyo", "UTC", "Australia/Sydney")
_ALNUM = string.ascii_letters + string.digits
_B64URL = _ALNUM + "-_"

# 2**64 + k: past every 64-bit integer type (orjson turns these into floats)
_BIG_INTS = (18446744073709551617, 123456789012345678901234567890, -9223372036854775809)


def _token(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choices(alphabet, k=n))


def _sentence(rng: random.Random, lo: int = 4, hi: int = 16, spice: float = 0.15) -> str:
    """Mostly ASCII words; with probability `spice` per slot, a unicode or escape-heavy bit."""
    parts = []
    for _ in range(rng.randint(lo, hi)):
        r = rng.random()
        if r < spice * 0.7:
            parts.append(rng.choice(_UNICODE_BITS))
        elif r < spice:
            parts.append(rng.choice(_ESCAPE_BITS))
        else:
            parts.append(rng.choice(_WORDS))
    text = " ".join(parts)
    return text[:1].upper() + text[1:] + rng.choice((".", ".", ".", "?", "!"))


def _paragraphs(rng: random.Random, n_sentences: int, spice: float = 0.15) -> str:
    out = []
    while n_sentences > 0:
        k = min(n_sentences, rng.randint(2, 5))
        out.append(" ".join(_sentence(rng, spice=spice) for _ in range(k)))
        n_sentences -= k
    return "\n\n".join(out)


def _email(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST).lower()}.{_token(rng, 5).lower()}@{rng.choice(_DOMAINS)}"


def _name(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _iso(rng: random.Random) -> str:
    return (
        f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
        f"{rng.randint(0, 23):02d}:{rng.choice((0, 15, 30, 45)):02d}:00"
        f"{rng.choice(('Z', '+02:00', '-05:00', '+09:00'))}"
    )


def _price(rng: random.Random) -> float:
    return round(rng.uniform(0.5, 2000.0), 2)


def _code(rng: random.Random, lines: int) -> str:
    """Python-looking source with quotes, backslashes, tabs and unicode in strings."""
    out = ['"""Generated helper module."""', "import re", "import os", ""]
    for i in range(lines):
        r = rng.random()
        if r < 0.15:
            out.append(f"def step_{i}(path, *, strict=True):")
            out.append(f'    """{_sentence(rng, 3, 8)}"""')
        elif r < 0.3:
            out.append(f'    pattern = re.compile(r"^\\d{{{rng.randint(1, 9)}}}\\s+\\w+$")')
        elif r < 0.45:
            out.append(f"    msg = 'value of \"{rng.choice(_WORDS)}\" is %s\\n' % (x,)")
        elif r < 0.55:
            out.append(f'    path = "C:\\\\data\\\\{rng.choice(_WORDS)}\\\\file_{i}.csv"')
        elif r < 0.65:
            out.append(f"    label = {rng.choice(_UNICODE_BITS)!r}")
        elif r < 0.8:
            out.append(f"    total += {rng.randint(0, 10**6)} * {rng.uniform(0, 10):.6f}")
        else:
            out.append(f"    # {_sentence(rng, 3, 10, spice=0.05)}")
    return "\n".join(out) + "\n"


def _sql(rng: random.Random) -> str:
    return (
        "SELECT c.id, c.name, SUM(o.total) AS revenue\n"
        "FROM customers AS c\n"
        "JOIN orders AS o ON o.customer_id = c.id\n"
        f"WHERE o.created_at >= '{_iso(rng)[:10]}' AND c.country = '{rng.choice(_CITIES)}'\n"
        f"  AND c.name LIKE '%{rng.choice(_LAST)}%' AND o.note <> 'say \"hi\"'\n"
        "GROUP BY c.id, c.name\n"
        f"ORDER BY revenue DESC\nLIMIT {rng.choice((10, 50, 100, 1000))};"
    )


# --------------------------------------------------------------------- argument builders


def _a_weather(rng: random.Random) -> dict[str, Any]:
    return {"location": rng.choice(_CITIES), "unit": rng.choice(("celsius", "fahrenheit"))}


def _a_stock(rng: random.Random) -> dict[str, Any]:
    return {"ticker": rng.choice(("AAPL", "MSFT", "GOOG", "7203.T", "SAP.DE", "NVDA"))}


def _a_time(rng: random.Random) -> dict[str, Any]:
    return {"timezone": rng.choice(_TZ)}


def _a_currency(rng: random.Random) -> dict[str, Any]:
    return {"amount": _price(rng), "from": "USD", "to": rng.choice(("EUR", "JPY", "GBP"))}


def _a_thermostat(rng: random.Random) -> dict[str, Any]:
    return {
        "temperature": rng.choice((19, 20.5, 21, 21.5, 22)),
        "mode": rng.choice(("heat", "cool", "auto")),
        "eco": rng.random() < 0.5,
    }


def _a_search(rng: random.Random) -> dict[str, Any]:
    return {
        "query": _sentence(rng, 2, 7, spice=0.2)[:-1],
        "num_results": rng.choice((3, 5, 10)),
        "safe_search": True,
    }


def _a_user(rng: random.Random) -> dict[str, Any]:
    return {"user_id": rng.randint(1, 10**7), "include_deleted": False}


def _a_lookup_order(rng: random.Random) -> dict[str, Any]:
    # a few order ids beyond 64 bits: big integers that must survive exactly
    oid: Any = rng.choice(_BIG_INTS) if rng.random() < 0.08 else rng.randint(10**8, 10**12)
    return {"order_id": oid, "expand": rng.choice((None, ["items"], ["items", "payments"]))}


def _a_noargs(rng: random.Random) -> dict[str, Any]:
    return {}


def _a_email(rng: random.Random) -> dict[str, Any]:
    return {
        "to": [_email(rng) for _ in range(rng.randint(1, 3))],
        "cc": [_email(rng) for _ in range(rng.randint(0, 2))],
        "subject": _sentence(rng, 3, 9),
        "body": f"Hi {rng.choice(_FIRST)},\n\n{_paragraphs(rng, rng.randint(4, 12))}\n\n"
        f"Best,\n{_name(rng)}",
        "importance": rng.choice(("normal", "high")),
        "attachments": None,
    }


def _a_calendar(rng: random.Random) -> dict[str, Any]:
    return {
        "title": _sentence(rng, 2, 6)[:-1],
        "start": _iso(rng),
        "end": _iso(rng),
        "timezone": rng.choice(_TZ),
        "attendees": [
            {"email": _email(rng), "name": _name(rng), "optional": rng.random() < 0.3}
            for _ in range(rng.randint(1, 6))
        ],
        "location": rng.choice(_CITIES),
        "description": _paragraphs(rng, rng.randint(2, 6)),
        "reminders": [{"method": "popup", "minutes": rng.choice((5, 10, 30))}],
        "recurrence": None,
        "all_day": False,
    }


def _a_sql(rng: random.Random) -> dict[str, Any]:
    return {
        "query": _sql(rng),
        "params": [rng.randint(0, 999), _price(rng), rng.choice(_CITIES), None, True],
        "explain": _paragraphs(rng, rng.randint(1, 3)),
        "timeout_ms": 30000,
        "read_only": True,
    }


def _a_exec(rng: random.Random) -> dict[str, Any]:
    return {"language": "python", "code": _code(rng, rng.randint(8, 30)), "timeout_s": 10.0}


def _address(rng: random.Random) -> dict[str, Any]:
    return {
        "line1": f"{rng.randint(1, 999)} {rng.choice(_LAST)} Street",
        "line2": None,
        "city": rng.choice(_CITIES),
        "postal_code": f"{rng.randint(10000, 99999)}",
        "country": rng.choice(("FR", "US", "JP", "DE", "BR", "PL")),
    }


def _a_order(rng: random.Random) -> dict[str, Any]:
    return {
        "customer": {
            "id": rng.randint(1, 10**9),
            "name": _name(rng),
            "email": _email(rng),
            "address": _address(rng),
        },
        "items": [
            {
                "sku": f"SKU-{_token(rng, 8).upper()}",
                "name": _sentence(rng, 2, 5, spice=0.25)[:-1],
                "quantity": rng.randint(1, 5),
                "unit_price": _price(rng),
                "options": {"gift_wrap": rng.random() < 0.2, "color": rng.choice(("red", "黒"))},
            }
            for _ in range(rng.randint(1, 6))
        ],
        "shipping": {"method": rng.choice(("standard", "express")), "cost": _price(rng)},
        "notes": _sentence(rng, spice=0.3),
        "coupon": None,
    }


def _a_translate(rng: random.Random) -> dict[str, Any]:
    return {
        "text": _paragraphs(rng, rng.randint(3, 12), spice=0.5),
        "source_lang": rng.choice(("ja", "zh", "ko", "fr", "de")),
        "target_lang": "en",
        "formality": None,
    }


def _a_crm(rng: random.Random) -> dict[str, Any]:
    return {
        "record_id": f"0035g00000{_token(rng, 8)}",
        "fields": {
            "FirstName": rng.choice(_FIRST),
            "LastName": rng.choice(_LAST),
            "AnnualRevenue": rng.randint(0, 10**9),
            "Rating": rng.choice(("Hot", "Warm", "Cold")),
            "Score": round(rng.random(), 4),
            "IsActive": rng.random() < 0.8,
            "Description": _paragraphs(rng, rng.randint(2, 8)),
            "MailingAddress": _address(rng),
        },
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 6))],
    }


def _a_write_file(rng: random.Random) -> dict[str, Any]:
    return {
        "path": f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}_{rng.randint(0, 99)}.py",
        "content": _code(rng, rng.randint(280, 520)),
        "overwrite": True,
        "encoding": "utf-8",
    }


def _a_bulk_upsert(rng: random.Random) -> dict[str, Any]:
    return {
        "table": "customers",
        "records": [
            {
                "id": rng.randint(1, 10**9),
                "name": _name(rng),
                "email": _email(rng),
                "score": round(rng.uniform(-1, 1), 6),
                "active": rng.random() < 0.7,
                "tags": [rng.choice(_WORDS) for _ in range(rng.randint(0, 4))],
                "address": _address(rng),
                "notes": _sentence(rng, spice=0.3) if rng.random() < 0.5 else None,
            }
            for _ in range(rng.randint(40, 90))
        ],
        "on_conflict": "update",
    }


def _a_analyze(rng: random.Random) -> dict[str, Any]:
    return {
        "document": _paragraphs(rng, rng.randint(150, 280), spice=0.3),
        "questions": [_sentence(rng, 5, 12) for _ in range(rng.randint(2, 6))],
        "options": {"max_tokens": 2048, "temperature": 0.2, "cite_sources": True},
    }


_Builder = Callable[[random.Random], dict[str, Any]]

# (size class, weight of the class among calls, [(function name, builder)])
_SIZE_CLASSES: tuple[tuple[str, float, tuple[tuple[str, _Builder], ...]], ...] = (
    (
        "small",
        0.62,
        (
            ("get_weather", _a_weather),
            ("get_stock_price", _a_stock),
            ("get_current_time", _a_time),
            ("convert_currency", _a_currency),
            ("set_thermostat", _a_thermostat),
            ("search_web", _a_search),
            ("get_user", _a_user),
            ("lookup_order", _a_lookup_order),
            ("list_calendars", _a_noargs),
        ),
    ),
    (
        "medium",
        0.355,
        (
            ("send_email", _a_email),
            ("create_calendar_event", _a_calendar),
            ("run_sql", _a_sql),
            ("execute_code", _a_exec),
            ("create_order", _a_order),
            ("translate_text", _a_translate),
            ("update_crm_record", _a_crm),
        ),
    ),
    (
        "large",
        0.025,
        (
            ("write_file", _a_write_file),
            ("bulk_upsert_records", _a_bulk_upsert),
            ("analyze_document", _a_analyze),
        ),
    ),
)
_POOL_SIZES = {"small": 900, "medium": 400, "large": 24}


class _Blob:
    """One pre-generated call: its arguments and their encodings, made once, reused often."""

    __slots__ = ("args", "gem", "name", "oa_lit", "oa_text")

    def __init__(self, name: str, args: dict[str, Any], rng: random.Random) -> None:
        self.name = name
        self.args = args
        # the argument text a model emits: mostly compact, sometimes spaced, rarely pretty,
        # now and then with \uXXXX escapes of its own
        r = rng.random()
        if r < 0.72:
            text = json.dumps(args, ensure_ascii=False, separators=(",", ":"))
        elif r < 0.87:
            text = json.dumps(args, ensure_ascii=False)
        elif r < 0.95:
            text = json.dumps(args, ensure_ascii=True, separators=(",", ":"))
        else:
            text = json.dumps(args, ensure_ascii=False, indent=2)
        self.oa_text = text
        # the text as a JSON string literal, per line style (compact UTF-8 / ASCII)
        self.oa_lit = (json.dumps(text, ensure_ascii=False), json.dumps(text))
        g = _gemini_numbers(args)
        self.gem = (
            json.dumps(g, ensure_ascii=False, separators=(",", ":")),
            json.dumps(g),
        )


def _gemini_numbers(value: Any) -> Any:
    """Gemini's Struct keeps numbers as doubles: integers beyond 2**53 come back as floats."""
    if isinstance(value, dict):
        return {k: _gemini_numbers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_gemini_numbers(v) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 2**53:
        return float(value)
    return value


class _Pool:
    def __init__(self, seed: int) -> None:
        rng = random.Random(f"toolsift-pool-{seed}")
        self.classes: list[list[_Blob]] = []
        self.weights: list[float] = []
        for cls, weight, funcs in _SIZE_CLASSES:
            blobs = []
            for i in range(_POOL_SIZES[cls]):
                fname, build = funcs[i % len(funcs)]
                blobs.append(_Blob(fname, build(rng), rng))
            self.classes.append(blobs)
            self.weights.append(weight)
        self.prose = [_paragraphs(rng, rng.randint(1, 6), spice=0.1) for _ in range(300)]
        self.short = [_sentence(rng, 4, 14, spice=0.1) for _ in range(300)]
        # Thought signatures: opaque bytes, base64 in JSON, several KB (issue 43's logs)
        self.signatures = [rng.randbytes(rng.randint(1200, 4800)) for _ in range(64)]

    def blob(self, rng: random.Random) -> _Blob:
        (blobs,) = rng.choices(self.classes, self.weights)
        return rng.choice(blobs)


@lru_cache(maxsize=4)
def _pool(seed: int) -> _Pool:
    return _Pool(seed)


def _n_calls(rng: random.Random) -> int:
    return rng.choices((0, 1, 2, 3), (0.25, 0.5, 0.17, 0.08))[0]


def _fill(line: str, frags: list[str]) -> bytes:
    for i, frag in enumerate(frags):
        line = line.replace(f'"@@{i}@@"', frag, 1)
    return line.encode()


def _dumps(doc: Any, ascii_style: bool) -> str:
    if ascii_style:
        return json.dumps(doc)
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


# ----------------------------------------------------------------------------- OpenAI

_OA_MODELS = (
    "gpt-4o-2024-08-06",
    "gpt-4o-mini-2024-07-18",
    "gpt-4.1-2025-04-14",
    "gpt-4.1-mini-2025-04-14",
)


def _oa_usage(rng: random.Random, completion: int) -> dict[str, Any]:
    prompt = rng.randint(150, 9000)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {
            "cached_tokens": rng.choice((0, 0, 0, 1024, 2048, 4096)),
            "audio_tokens": 0,
        },
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _oa_logprobs(rng: random.Random, text: str) -> dict[str, Any]:
    return {
        "content": [
            {
                "token": tok,
                "logprob": round(-rng.random() * 2, 6),
                "bytes": list(tok.encode()),
                "top_logprobs": [],
            }
            for tok in text.split(" ")[:24]
        ],
        "refusal": None,
    }


def openai_lines(n: int, seed: int = 0) -> list[bytes]:
    """`n` logged OpenAI Chat Completions responses (JSON, no trailing newline), seeded."""
    pool = _pool(seed)
    rng = random.Random(f"toolsift-openai-{seed}")
    out: list[bytes] = []
    for _ in range(n):
        sdk = rng.random() < 0.3  # an SDK model_dump() written by json.dumps
        frags: list[str] = []
        choices = []
        completion = 0
        n_calls = 0
        for index in range(2 if rng.random() < 0.02 else 1):  # n=2 now and then
            k = min(_n_calls(rng), 3 - n_calls)  # at most 3 calls per response
            n_calls += k
            message: dict[str, Any] = {"role": "assistant"}
            logprobs = None
            if k:
                message["content"] = rng.choice(pool.short) if rng.random() < 0.1 else None
                calls = []
                for _ in range(k):
                    blob = pool.blob(rng)
                    if rng.random() < 0.01:  # cut off mid-arguments
                        text = blob.oa_text[: rng.randrange(1, len(blob.oa_text))]
                        lit = json.dumps(text) if sdk else json.dumps(text, ensure_ascii=False)
                    else:
                        text = blob.oa_text
                        lit = blob.oa_lit[sdk]
                    completion += len(text) // 4 + 8
                    calls.append(
                        {
                            "id": "call_" + _token(rng, 24),
                            "type": "function",
                            "function": {"name": blob.name, "arguments": f"@@{len(frags)}@@"},
                        }
                    )
                    frags.append(lit)
                message["tool_calls"] = calls
                finish = "tool_calls"
            elif rng.random() < 0.004:
                message["content"] = None
                message["refusal"] = "I'm sorry, but I can't help with that request."
                finish = "stop"
            else:
                message["content"] = rng.choice(pool.prose)
                completion += len(message["content"]) // 4
                finish = "length" if rng.random() < 0.01 else "stop"
                if rng.random() < 0.02:
                    logprobs = _oa_logprobs(rng, message["content"])
            message.setdefault("refusal", None)
            if sdk:
                message.setdefault("tool_calls", None)
                message["annotations"] = []
                message["audio"] = None
                message["function_call"] = None
            else:
                message["annotations"] = []
            choices.append(
                {"index": index, "message": message, "logprobs": logprobs, "finish_reason": finish}
            )
        doc = {
            "id": "chatcmpl-" + _token(rng, 29),
            "object": "chat.completion",
            "created": 1735689600 + rng.randrange(30_000_000),
            "model": rng.choice(_OA_MODELS),
            "choices": choices,
            "usage": _oa_usage(rng, completion),
            "service_tier": "default",
            "system_fingerprint": "fp_" + _token(rng, 10, "0123456789abcdef"),
        }
        out.append(_fill(_dumps(doc, sdk), frags))
    return out


# ----------------------------------------------------------------------------- Gemini

_GEM_MODELS = (
    ("gemini-2.5-flash", 0.5),
    ("gemini-2.5-pro", 0.15),
    ("gemini-2.0-flash", 0.25),
    ("gemini-1.5-pro-002", 0.10),
)
_HARM = (
    "HARM_CATEGORY_HATE_SPEECH",
    "HARM_CATEGORY_DANGEROUS_CONTENT",
    "HARM_CATEGORY_HARASSMENT",
    "HARM_CATEGORY_SEXUALLY_EXPLICIT",
)
_SNAKE: dict[str, str] = {}


def _snake(key: str) -> str:
    s = _SNAKE.get(key)
    if s is None:
        s = _SNAKE[key] = "".join("_" + c.lower() if c.isupper() else c for c in key)
    return s


def _to_snake(value: Any) -> Any:
    """google-genai's model_dump spelling of a REST envelope (args are placeholders here)."""
    if isinstance(value, dict):
        return {_snake(k): _to_snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_snake(v) for v in value]
    return value


# The share of thinking models' responses that carry a thought signature (issue 43).
_SIGNED = 0.3


def _signature(raw: bytes, case: str) -> str:
    """A signature as JSON holds it: REST's base64; google-genai's `model_dump(mode="json")`
    writes `Part.thought_signature` (bytes) in the URL-safe alphabet."""
    if case == "snake":
        return base64.urlsafe_b64encode(raw).decode()
    return base64.b64encode(raw).decode()


def gemini_lines(n: int, seed: int = 0, *, case: str = "camel") -> list[bytes]:
    """`n` logged Gemini generateContent responses, seeded.

    ``case="camel"``: REST bodies (``functionCall``); ``case="snake"``: google-genai
    ``model_dump(mode="json", exclude_none=True)`` (``function_call``).
    """
    if case not in ("camel", "snake"):
        raise ValueError(f"case must be 'camel' or 'snake', got {case!r}")
    pool = _pool(seed)
    rng = random.Random(f"toolsift-gemini-{seed}-{case}")
    models = [m for m, _ in _GEM_MODELS]
    weights = [w for _, w in _GEM_MODELS]
    out: list[bytes] = []
    for _ in range(n):
        ascii_style = rng.random() < 0.3
        model = rng.choices(models, weights)[0]
        thinking = model.startswith("gemini-2.5")
        k = _n_calls(rng)
        frags: list[str] = []
        parts: list[dict[str, Any]] = []
        completion = 0
        if not k or rng.random() < 0.3:
            text = rng.choice(pool.prose) if not k else rng.choice(pool.short)
            parts.append({"text": text})
            completion += len(text) // 4
        for _ in range(k):
            blob = pool.blob(rng)
            call: dict[str, Any] = {"name": blob.name}
            if blob.args:  # Gemini omits empty args
                call["args"] = f"@@{len(frags)}@@"
                frags.append(blob.gem[ascii_style])
            if rng.random() < 0.2:
                call["id"] = _token(rng, 8, string.ascii_lowercase + string.digits)
            part: dict[str, Any] = {"functionCall": call}
            parts.append(part)
            completion += len(blob.gem[0]) // 4 + 6
        if thinking and rng.random() < _SIGNED:
            # on the first call part (a parallel call's later parts carry none), else on
            # the last part (Gemini API docs, "Thought signatures")
            signed = next((p for p in parts if "functionCall" in p), parts[-1])
            signed["thoughtSignature"] = _signature(rng.choice(pool.signatures), case)
        cand: dict[str, Any] = {
            "content": {"parts": parts, "role": "model"},
            "finishReason": "MAX_TOKENS" if not k and rng.random() < 0.01 else "STOP",
        }
        if model.startswith("gemini-1.5"):
            cand["safetyRatings"] = [{"category": h, "probability": "NEGLIGIBLE"} for h in _HARM]
        if not thinking:
            cand["avgLogprobs"] = round(-rng.random() * 0.5, 12)
        cand["index"] = 0
        prompt = rng.randint(150, 9000)
        usage: dict[str, Any] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        }
        if thinking:
            thoughts = rng.randint(0, 1500)
            usage["thoughtsTokenCount"] = thoughts
            usage["totalTokenCount"] += thoughts
        doc: dict[str, Any] = {
            "candidates": [cand],
            "usageMetadata": usage,
            "modelVersion": model,
            "responseId": _token(rng, 22, _B64URL),
        }
        if case == "snake":
            doc = _to_snake(doc)
            doc["sdk_http_response"] = {
                "headers": {
                    "content-type": "application/json; charset=UTF-8",
                    "vary": "Origin, X-Origin, Referer",
                    "server": "scaffolding on HTTPServer2",
                    "server-timing": f"gfet4t7; dur={rng.randint(300, 9000)}",
                }
            }
            doc["automatic_function_calling_history"] = []
        out.append(_fill(_dumps(doc, ascii_style), frags))
    return out


# ------------------------------------------------------------------------- the corpora


def litert_lines(n: int, seed: int = 0) -> list[bytes]:
    """`n` LiteRT-LM messages: the one-document JSON records of `litert_corpus`."""
    drawn = 3 * n + 16  # about a third of the records are of the `json` kind
    while True:
        found = [
            t.encode() for kind, t in litert_corpus.litert_texts(drawn, seed) if kind == "json"
        ]
        if len(found) >= n:
            return found[:n]
        drawn *= 2


CORPORA: dict[str, Callable[[int, int], list[bytes]]] = {
    "openai": openai_lines,
    "gemini": lambda n, seed=0: gemini_lines(n, seed, case="camel"),
    "gemini_sdk": lambda n, seed=0: gemini_lines(n, seed, case="snake"),
    "litert": litert_lines,
}


def corpus_lines(name: str, n: int, seed: int = 0) -> list[bytes]:
    """The corpus called `name` (a key of CORPORA)."""
    try:
        make = CORPORA[name]
    except KeyError:
        raise ValueError(f"corpus must be one of {', '.join(CORPORA)}, got {name!r}") from None
    return make(n, seed)


def calls_of(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, arguments as logged) of every call in a decoded line, any corpus."""
    found = []
    # LiteRT-LM: top-level `tool_calls` (OpenAI-style or flat), then `content[]` items.
    for item in litert_corpus.call_items(doc):
        body = item.get("function") or item
        found.append((body["name"], body.get("arguments")))
    for choice in doc.get("choices") or ():
        for tc in (choice.get("message") or {}).get("tool_calls") or ():
            found.append((tc["function"]["name"], tc["function"]["arguments"]))
    for cand in doc.get("candidates") or ():
        for part in (cand.get("content") or {}).get("parts") or ():
            fc = part.get("functionCall") or part.get("function_call")
            if fc is not None:
                found.append((fc["name"], fc.get("args", {})))
    return found


def describe(lines: list[bytes]) -> dict[str, Any]:
    """Statistics of a corpus; every line is decoded with json.loads (so every line checks)."""
    sizes = [len(line) for line in lines]
    per_line = Counter()
    arg_sizes: list[int] = []
    malformed = 0
    calls = 0
    non_ascii = 0
    for line in lines:
        doc = json.loads(line)
        if not line.isascii():
            non_ascii += 1
        found = calls_of(doc)
        per_line[len(found)] += 1
        for _name, args in found:
            calls += 1
            if isinstance(args, str):
                arg_sizes.append(len(args.encode()))
                try:
                    ok = isinstance(json.loads(args), dict)
                except ValueError:
                    ok = False
                malformed += not ok
            else:
                arg_sizes.append(len(json.dumps(args, ensure_ascii=False).encode()))
    arg_sizes.sort()
    return {
        "lines": len(lines),
        "bytes": sum(sizes),
        "mean_line": statistics.fmean(sizes) if sizes else 0.0,
        "median_line": statistics.median(sizes) if sizes else 0,
        "p99_line": sorted(sizes)[int(len(sizes) * 0.99)] if sizes else 0,
        "max_line": max(sizes, default=0),
        "calls": calls,
        "calls_per_line": dict(sorted(per_line.items())),
        "median_args": arg_sizes[len(arg_sizes) // 2] if arg_sizes else 0,
        "args_over_10k": sum(s > 10_000 for s in arg_sizes),
        "malformed_args": malformed,
        "malformed_fraction": malformed / calls if calls else 0.0,
        "non_ascii_lines": non_ascii,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in CORPORA:
        p = sub.add_parser(name, help=f"write a {name} JSONL corpus")
        p.add_argument("n", type=int)
        p.add_argument("out", help="output file ('-' for stdout)")
        p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("stats", help="generate a corpus in memory and print its statistics")
    p.add_argument("corpus", choices=list(CORPORA))
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    if args.cmd == "stats":
        t0 = time.perf_counter()
        lines = corpus_lines(args.corpus, args.n, args.seed)
        dt = time.perf_counter() - t0
        stats = describe(lines)
        print(f"{args.corpus}: generated {args.n} lines in {dt:.2f}s")
        for key, value in stats.items():
            print(f"  {key:20} {value:.3f}" if isinstance(value, float) else f"  {key:20} {value}")
        return 0

    lines = corpus_lines(args.cmd, args.n, args.seed)
    data = b"\n".join(lines) + b"\n"
    if args.out == "-":
        sys.stdout.buffer.write(data)
    else:
        with open(args.out, "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
