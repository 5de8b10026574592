"""`to_arrow` on conversation transcripts against `to_arrow` on the OpenAI Batch file, in
one interleaved run (`interleaved.take_turns`: each round runs every entry once).

The transcripts are `--lines` rollouts (default 20000) of about ten messages each, one
JSON line each (`{"rollout_id", "model", "reward", "messages": [...]}`): a system and a
user message, then assistant turns with one to three OpenAI `tool_calls` (the arguments of
the `openai` corpus's pool, `benches/corpus.py`) each answered by `role: tool` messages,
and a final answer. The Batch file is `test_bench_bulk`'s (the `openai` corpus in Batch
envelopes). Both are read by the native backend with one thread; the ratio is of MB/s.

    python benches/transcripts.py [--lines 20000] [--rounds 7] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from interleaved import take_turns  # noqa: E402
from test_bench_bulk import envelope  # noqa: E402


def rollout(i: int, rng: random.Random, pool: Any) -> dict[str, Any]:
    """One rollout of about ten messages (see the module's docstring)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": rng.choice(pool.prose)},
        {"role": "user", "content": rng.choice(pool.short)},
    ]
    for turn in range(rng.choice((2, 3, 3, 4))):
        blobs = [pool.blob(rng) for _ in range(rng.choice((1, 1, 2, 3)))]
        calls = [
            {
                "id": f"call_{i}_{turn}_{k}",
                "type": "function",
                "function": {"name": blob.name, "arguments": blob.oa_text},
            }
            for k, blob in enumerate(blobs)
        ]
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        for call in calls:
            result = rng.choice(pool.short) if rng.random() < 0.7 else {"ok": True, "rows": 3}
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    messages.append({"role": "assistant", "content": rng.choice(pool.prose)})
    return {"rollout_id": f"r-{i}", "model": "policy-7b", "reward": rng.random(),
            "messages": messages}  # fmt: skip


def transcripts(n: int, seed: int) -> bytes:
    rng = random.Random(f"toolsift-transcripts-{seed}")
    pool = corpus._pool(seed)
    lines = (json.dumps(rollout(i, rng, pool), ensure_ascii=False) for i in range(n))
    return "".join(line + "\n" for line in lines).encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    os.environ.setdefault("TOOLSIFT_IMPLEMENTATION", "rust")
    from toolsift.parsers import MessagesParser, OpenAIResponseParser

    folder = Path(tempfile.mkdtemp(prefix="toolsift-transcripts-"))
    batch = folder / "openai_batch_output.jsonl"
    lines = corpus.corpus_lines("openai", args.lines, args.seed)
    batch.write_bytes(b"".join(envelope(i, line) + b"\n" for i, line in enumerate(lines)))
    rollouts = folder / "rollouts.jsonl"
    rollouts.write_bytes(transcripts(args.lines, args.seed))
    sizes = {"batch": batch.stat().st_size / 1e6, "rollouts": rollouts.stat().st_size / 1e6}

    messages, openai = MessagesParser(), OpenAIResponseParser()
    rows = {"batch": len(openai.to_arrow(batch)), "rollouts": len(messages.to_arrow(rollouts))}
    entries = {
        "batch": lambda: openai.to_arrow(batch, threads=1),
        "rollouts": lambda: messages.to_arrow(rollouts, threads=1),
    }
    load = os.getloadavg()
    medians = take_turns(entries, args.rounds)
    print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")  # fmt: skip
    speed = {key: sizes[key] / seconds for key, seconds in medians.items()}
    for key, seconds in medians.items():
        print(f"  to_arrow {key:9s} {sizes[key]:7.1f} MB {rows[key]:7d} rows "
              f"{seconds * 1e3:8.1f} ms {speed[key]:7.1f} MB/s")  # fmt: skip
    print(f"  rollouts / batch MB/s: {speed['rollouts'] / speed['batch']:.2f} (target >= 0.80)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
