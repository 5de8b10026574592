"""JSONL files for the engine tests (tests/test_engines.py, test_ray.py, test_spark.py):
the bundled OpenAI Batch API sample (calls, provider-reported failures with `custom_id`)
with lines that cannot be read, lines without calls, blank lines and undecodable
arguments mixed in, split over files that are plain, gzip (one named without `.gz`: the
compression is told by content) and zstd."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import zstandard

SAMPLE = Path(__file__).parents[1] / "python/toolsift/samples/openai_batch_output.jsonl"

_ODD_LINES = [
    b"{not json",
    b"",
    json.dumps(
        {
            "custom_id": "no-calls",
            "response": {
                "status_code": 200,
                "body": {"choices": [{"message": {"role": "assistant", "content": "hello"}}]},
            },
        }
    ).encode(),
    json.dumps(
        {
            "custom_id": "bad-args",
            "response": {
                "status_code": 200,
                "body": {
                    "choices": [
                        {
                            "message": {
                                "tool_calls": [
                                    {
                                        "id": "c1",
                                        "type": "function",
                                        "function": {"name": "f", "arguments": "{cut"},
                                    },
                                    {
                                        "id": "c2",
                                        "type": "function",
                                        "function": {"name": "g", "arguments": "{}"},
                                    },
                                ]
                            }
                        }
                    ]
                },
            },
        }
    ).encode(),
    b"[1, 2]",
    "\u00e9t\u00e9 \ud83d\ude00".encode("utf-8", "surrogatepass"),
]


def lines() -> list[bytes]:
    """The sample's lines with the odd ones interleaved (every 40 lines)."""
    out: list[bytes] = []
    for at, line in enumerate(SAMPLE.read_bytes().splitlines()):
        if at % 40 == 7:
            out.append(_ODD_LINES[(at // 40) % len(_ODD_LINES)])
        out.append(line)
    return out


KINDS = ("plain", "gzip", "gzip-unnamed", "zstd")
_NAMES = {
    "plain": "a.jsonl",
    "gzip": "b.jsonl.gz",
    "gzip-unnamed": "c.jsonl",
    "zstd": "d.jsonl.zst",
}


TOOLS = {
    "get_weather": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
    "send_email": {"type": "object", "properties": {"to": {"type": "array"}}},
}
"""Tool definitions (a `{name: schema}` mapping) for the engines' checks: the sample's
other tools are unknown."""

CONTEXT = ("model", "response_id", "finish_reason", "choice_index", "call_type")


def write_files(directory: Path, kinds: tuple[str, ...] = KINDS) -> list[Path]:
    """One file per kind, each with a different part of `lines()` (and the last line
    without its newline); returns their paths in order of name."""
    directory.mkdir(parents=True, exist_ok=True)
    every = lines()
    size = len(every) // len(kinds) + 1
    paths = []
    for index, kind in enumerate(kinds):
        text = b"\n".join(every[index * size : (index + 1) * size])
        if kind.startswith("gzip"):
            data = gzip.compress(text)
        elif kind == "zstd":
            data = zstandard.ZstdCompressor().compress(text)
        else:
            data = text
        path = directory / _NAMES[kind]
        path.write_bytes(data)
        paths.append(path)
    return sorted(paths)


def response_table() -> pa.Table:
    """Rows as an LLM batch stage leaves them: an id, a prompt, the response text."""
    texts: list[str | None] = []
    for line in lines():
        try:
            record = json.loads(line)
            texts.append(json.dumps(record["response"]["body"]))
        except (ValueError, KeyError, TypeError):
            texts.append(line.decode("utf-8", "replace"))
    texts[3] = None
    n = len(texts)
    return pa.table(
        {
            "row_id": pa.array(range(n), pa.int64()),
            "response": pa.array(texts, pa.string()),
            "prompt": [f"prompt {i}" for i in range(n)],
        }
    )


def write_transcripts(directory: Path) -> Path:
    """A gzip JSONL file of the transcripts of tests/vectors/messages.json (one per line,
    each case's input), for reading with `format="messages"`."""
    cases = json.loads((Path(__file__).parent / "vectors/messages.json").read_text("utf-8"))
    path = directory / "transcripts.jsonl.gz"
    with gzip.open(path, "wb") as out:
        for case in cases:
            if "input" in case and "error" not in case:
                out.write(json.dumps(case["input"]).encode() + b"\n")
    return path
