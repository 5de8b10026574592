"""Write the seed corpus `fuzz/corpus/<target>/` from tests/vectors/*.json and the
bundled samples (python/toolsift/samples/), plus a few random inputs for the
structure-aware modes. Deterministic: run it again after the vectors change.

    python fuzz/seeds.py            # rewrites fuzz/corpus/
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "fuzz" / "corpus"
MAX_LEN = 8192  # fuzz/run.py's default --max-len: longer seeds would be cut

# Index of each parser in fuzz.targets.PARSERS (kept here so that this script needs
# neither toolsift nor the extension).
OPENAI, GEMINI, JSON, SDK = 0, 1, 2, 6
# Indexes into fuzz.targets.RECORD_PATHS and SOURCES for the to_arrow raw mode.
NO_RECORD_PATH, RESPONSE_BODY, RESPONSE = 0, 4, 5
LIST_BYTES, LIST_STR, MIXED, PA_BINARY, FILE, FILE_GZ, FILE_ZST = 0, 1, 2, 5, 8, 9, 10


def format_vectors() -> list[dict]:
    """The vectors of every walked format of the registry (tests/vectors/<format>.json)."""
    from toolsift._pure import formats

    cases: list[dict] = []
    for spec in formats.REGISTRY:
        if not spec.reads_text:
            cases += json.loads((ROOT / f"tests/vectors/{spec.name}.json").read_text())
    return cases


def vector_texts() -> tuple[list[str], list[str]]:
    """(response texts of every walked format's vectors, texts of tests/vectors/litert.json)"""
    texts = []
    for vector in format_vectors():
        if "input" in vector:
            texts.append(json.dumps(vector["input"], ensure_ascii=False))
        else:
            texts.append(vector["text"])
    litert = [
        vector["input"]
        for vector in json.loads((ROOT / "tests/vectors/litert.json").read_text())
        if isinstance(vector.get("input"), str)
    ]
    return texts, litert


def sample_lines(name: str) -> list[bytes]:
    return (ROOT / "python/toolsift/samples" / name).read_bytes().split(b"\n")


def seeds() -> dict[str, list[bytes]]:
    rng = random.Random(20240601)
    texts, litert = vector_texts()
    openai = sample_lines("openai_batch_output.jsonl")
    gemini = sample_lines("gemini_batch_output.jsonl")
    out: dict[str, list[bytes]] = {name: [] for name in ("parse", "parse_structured")}
    out.update({name: [] for name in ("parse_many", "to_arrow", "litert")})

    def structured(n: int, size: int) -> list[bytes]:
        """Random inputs with an odd first byte: the targets' structure-aware mode."""
        return [bytes([1]) + rng.randbytes(rng.randint(8, size)) for _ in range(n)]

    # parse: response texts as they are
    out["parse"] += [t.encode("utf-8", "surrogatepass") for t in texts + litert]
    out["parse"] += [line for line in openai[:300:15] + gemini[:300:15] if line]
    out["parse_structured"] += [rng.randbytes(rng.randint(8, 300)) for _ in range(24)]
    # parse_many: a byte of mode (even: raw), a parser, the str/bytes mask, JSON lines
    for i in range(12):
        lines = openai[i * 20 : i * 20 + 8] if i % 2 else gemini[i * 20 : i * 20 + 8]
        parser = [OPENAI, GEMINI, JSON, SDK][i % 4]
        out["parse_many"].append(bytes([0, parser, rng.randrange(256)]) + b"\n".join(lines))
    out["parse_many"].append(bytes([0, JSON, 0x55]) + "\n".join(texts[:12]).encode())
    out["parse_many"] += structured(12, 300)
    # to_arrow: a byte of mode (even: raw), options (parser, record_path), a source
    combos = [
        (OPENAI, NO_RECORD_PATH, FILE, openai),
        (OPENAI, NO_RECORD_PATH, FILE_GZ, openai),
        (OPENAI, RESPONSE_BODY, FILE_ZST, openai),
        (OPENAI, NO_RECORD_PATH, LIST_BYTES, openai),
        (OPENAI, RESPONSE_BODY, MIXED, openai),
        (GEMINI, NO_RECORD_PATH, FILE, gemini),
        (GEMINI, RESPONSE, LIST_STR, gemini),
        (GEMINI, NO_RECORD_PATH, PA_BINARY, gemini),
        (SDK, NO_RECORD_PATH, LIST_BYTES, openai),
        (JSON, RESPONSE_BODY, FILE, openai),
    ]
    for i, (parser, record_path, source, lines) in enumerate(combos):
        chunk = lines[i * 25 : i * 25 + 6]
        options = parser | record_path << 3
        out["to_arrow"].append(bytes([0, options, source]) + b"\n".join(chunk))
    out["to_arrow"] += structured(12, 300)
    # litert: a byte of mode (even: raw) and the text
    out["litert"] += [b"\x00" + t.encode("utf-8", "surrogatepass") for t in litert]
    out["litert"] += structured(12, 200)
    # streams: decisions only (the format, its events, how they are fed)
    out["streams"] = [rng.randbytes(rng.randint(8, 400)) for _ in range(24)]
    out["stream_shapes"] = [rng.randbytes(rng.randint(8, 400)) for _ in range(24)]
    # repair: argument texts, those of the defect vectors
    defects = json.loads((ROOT / "tests/vectors/defects.json").read_text("utf-8"))["cases"]
    out["repair"] = [case["text"].encode() for case in defects if isinstance(case["text"], str)]
    return out


def main() -> int:
    if CORPUS.exists():
        for directory in CORPUS.iterdir():
            if directory.is_dir():
                shutil.rmtree(directory)
    total = 0
    for target, inputs in seeds().items():
        directory = CORPUS / target
        directory.mkdir(parents=True, exist_ok=True)
        inputs = [data for data in inputs if len(data) <= MAX_LEN]
        for data in inputs:
            (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)
        total += len({hashlib.sha1(d).hexdigest() for d in inputs})
        print(f"{directory.relative_to(ROOT)}: {len(list(directory.iterdir()))} seeds")
    print(f"{total} seeds", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
