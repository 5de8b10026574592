"""Write the bundled samples: provider batch output with tool calls, seeded, reproducible.

    python python/toolsift/samples/make_samples.py      # rewrites the two files beside it

* `openai_batch_output.jsonl`: OpenAI Batch API output (`custom_id`, `response.status_code`,
  `response.body` a Chat Completions response, `error`), 300 lines.
* `gemini_batch_output.jsonl`: Vertex AI batch prediction output for Gemini (`status`,
  `processed_time`, `request`, `response` a REST `generateContent` response), 300 lines.

Both hold, on purpose: provider failures (non-200 status codes, `error` objects, a Vertex
`status`), malformed arguments (cut-off JSON, a JSON array, not JSON at all), responses
with no calls, a blank line and one line that is not JSON (cut off in the middle).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LINES = 300
SEED = 4

CITIES = ("Paris", "Tokyo", "São Paulo", "Zürich", "Reykjavík", "New York", "Kraków", "東京")
TOOLS = ("get_weather", "search_flights", "lookup_order", "send_email", "convert_currency")


def arguments(rng: random.Random, tool: str) -> dict[str, Any]:
    if tool == "get_weather":
        return {"city": rng.choice(CITIES), "unit": rng.choice(["celsius", "fahrenheit"])}
    if tool == "search_flights":
        return {
            "from": rng.choice(CITIES),
            "to": rng.choice(CITIES),
            "passengers": rng.randint(1, 4),
            "max_price": round(rng.uniform(80, 2000), 2),
            "flexible": rng.random() < 0.5,
        }
    if tool == "lookup_order":
        return {"order_id": f"ORD-{rng.randint(10000, 99999)}", "include_items": True}
    if tool == "send_email":
        return {
            "to": [f"user{rng.randint(1, 99)}@example.com"],
            "subject": 'Re: "quarterly" report',
            "body": "Hi,\nsee the figures below.\n\tTotal: 1e-07 €\nThanks",
        }
    return {"amount": rng.randint(1, 10**6) / 100, "from": "EUR", "to": rng.choice(["USD", "JPY"])}


def openai_line(rng: random.Random, n: int) -> str:
    custom_id = f"request-{n}"
    envelope: dict[str, Any] = {
        "id": f"batch_req_{rng.getrandbits(64):016x}",
        "custom_id": custom_id,
        "response": None,
        "error": None,
    }
    roll = rng.random()
    if roll < 0.04:
        envelope["error"] = {
            "code": "batch_expired",
            "message": "This request could not be executed before the completion window expired.",
        }
        return json.dumps(envelope)
    if roll < 0.08:
        status = rng.choice([429, 500])
        envelope["response"] = {
            "status_code": status,
            "request_id": f"{rng.getrandbits(64):016x}",
            "body": {
                "error": {
                    "message": "Rate limit reached for requests"
                    if status == 429
                    else "The server had an error while processing your request.",
                    "type": "requests" if status == 429 else "server_error",
                    "param": None,
                    "code": None,
                }
            },
        }
        return json.dumps(envelope)
    calls = []
    for k in range(rng.choice([0, 1, 1, 1, 2, 3])):
        tool = rng.choice(TOOLS)
        text = json.dumps(arguments(rng, tool), ensure_ascii=rng.random() < 0.5)
        bad = rng.random()
        if bad < 0.05:
            text = text[: len(text) // 2]  # cut off: the model hit max_tokens
        elif bad < 0.07:
            text = "[1, 2, 3]"  # JSON, but not an object
        elif bad < 0.09:
            text = "city=Paris"  # not JSON
        calls.append(
            {
                "id": f"call_{rng.getrandbits(48):012x}{k}",
                "type": "function",
                "function": {"name": tool, "arguments": text},
            }
        )
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else "Sure."}
    if calls:
        message["tool_calls"] = calls
    envelope["response"] = {
        "status_code": 200,
        "request_id": f"{rng.getrandbits(64):016x}",
        "body": {
            "id": f"chatcmpl-{rng.getrandbits(64):016x}",
            "object": "chat.completion",
            "created": 1730000000 + n,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": 120 + n % 50, "completion_tokens": 20, "total_tokens": 150},
        },
    }
    return json.dumps(envelope, ensure_ascii=False)


def gemini_line(rng: random.Random, n: int) -> str:
    request = {
        "contents": [{"role": "user", "parts": [{"text": f"Question {n}"}]}],
        "tools": [{"functionDeclarations": [{"name": name} for name in TOOLS]}],
    }
    line: dict[str, Any] = {
        "status": "",
        "processed_time": f"2024-11-01T18:{n // 60 % 60:02d}:{n % 60:02d}.000+00:00",
        "request": request,
    }
    if rng.random() < 0.06:
        line["status"] = (
            'Bad Request: {"error": {"code": 400, "message": "Request contains an invalid '
            'argument.", "status": "INVALID_ARGUMENT"}}'
        )
        return json.dumps(line)
    parts: list[dict[str, Any]] = []
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        tool = rng.choice(TOOLS)
        args: Any = arguments(rng, tool)
        if rng.random() < 0.05:
            args = json.dumps(args)[:-3]  # a string of cut-off JSON
        parts.append({"functionCall": {"name": tool, "args": args}})
    if not parts:
        parts.append({"text": "I can answer that directly."})
    line["response"] = {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts},
                "finishReason": "STOP",
                "avgLogprobs": -0.01 * rng.random(),
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 40,
            "candidatesTokenCount": 12,
            "totalTokenCount": 52,
        },
        "modelVersion": "gemini-2.0-flash-001",
    }
    return json.dumps(line, ensure_ascii=False)


def write(name: str, make: Any) -> None:
    rng = random.Random(f"{SEED}-{name}")
    lines = [make(rng, n) for n in range(LINES)]
    lines[17] = ""  # a blank line
    lines[42] = lines[42][: len(lines[42]) // 3]  # a line that is not JSON: cut off
    (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> None:
    write("openai_batch_output.jsonl", openai_line)
    write("gemini_batch_output.jsonl", gemini_line)


if __name__ == "__main__":
    main()
