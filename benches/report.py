"""Throughput and ratio tables from a pytest-benchmark JSON file.

    pytest benches --benchmark-enable --benchmark-json=bench.json
    python benches/report.py bench.json [--markdown]

One table per group (corpus). Columns: median seconds per pass over the corpus, MB/s and
records/s (from ``extra_info``), and "x faster" ratios, each ``baseline median / entry
median`` from the same run:

* ``vs orjson``: against ``orjson.loads + walk`` (the fastest thing a user writes today);
  for dict input, against the same plain walk over the dicts;
* ``vs msgspec``: against msgspec typed structs + the same walk (what a user who wants
  speed would pick instead); entries that drop each result (``, dropped``: a streaming
  consumer) are compared with the baselines that drop theirs;
* ``vs russo``: against ``json.loads + russo`` (what drop-in users run today); for dict
  input, against russo's ``parse(dict)``;
* ``vs python``: a rust entry against the python backend doing the same operation
  (parse(dict), parse(bytes), parse_many);
* ``vs t=1``: parse_many, to_arrow, parse_file, extract or to_arrow(Files) with more
  threads against the same backend's threads=1.

The bulk groups (``benches/test_bench_bulk.py``: ``bulk-arrow``, ``bulk-parse_file``,
``bulk-arrow-gz``, ``bulk-files-gz``) read one OpenAI Batch API output file (or its lines
in 16 gzip files); their ``vs orjson`` baseline is
orjson + a Python walk doing the same job (into a pyarrow table, or into AgentResponses),
and MB/s counts the decompressed JSON text for the ``.gz`` group.

Entries with dict input (``parse(dict)``) skip JSON decoding; their MB/s counts the JSON
text the dicts were decoded from, so they are marked ``*`` and are not like for like with
the bytes entries.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

# the baselines of an entry, by its input kind (and whether each result is dropped)
ORJSON = {"bytes": "orjson_walk", "dict": "walk_dict", "bytes, dropped": "orjson_walk_drop"}
MSGSPEC = {"bytes": "msgspec_walk", "bytes, dropped": "msgspec_walk_drop"}
RUSSO = {"bytes": "json_russo", "dict": "russo_dict"}


def _fmt_ratio(base: float | None, value: float) -> str:
    if base is None or value <= 0:
        return ""
    return f"{base / value:.2f}x"


def _fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.3f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


def _fmt_rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.0f}"


def _key(b: dict[str, Any]) -> str:
    """The entry key: `extra_info["key"]`, else the last part of the test id."""
    key = b["extra_info"].get("key")
    if key:
        return key
    return b["name"].rstrip("]").rsplit("-", 1)[-1]


def rows_of(group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per benchmark of a group, with throughput and ratios computed."""
    by_key = {_key(b): b for b in group}

    def median(key: str) -> float | None:
        b = by_key.get(key)
        return b["stats"]["median"] if b else None

    def same_op(impl: str, op: str, threads: int | None) -> float | None:
        for b in group:
            info = b["extra_info"]
            if info.get("impl") == impl and info.get("op") == op and info.get("threads") == threads:
                return b["stats"]["median"]
        return None

    rows = []
    for b in sorted(group, key=lambda b: b["extra_info"].get("order", 0)):
        info = b["extra_info"]
        med = b["stats"]["median"]
        impl, op, threads = info.get("impl"), info.get("op"), info.get("threads")
        is_parse = impl not in ("floor", None)
        kind = "dict" if info.get("input") == "dict" else "bytes"
        kind += ", dropped" if info.get("dropped") else ""
        threaded = op in ("parse_many", "to_arrow", "parse_file", "extract", "to_arrow_files")
        vs_python = None
        if impl == "rust":
            vs_python = same_op("python", op, 1 if threaded else threads)
        vs_t1 = None
        if threaded and threads not in (None, 1):
            vs_t1 = same_op(impl, op, 1)
        rows.append(
            {
                "label": info.get("label", b["name"])
                + ("*" if info.get("input") == "dict" else ""),
                "median": med,
                "mb_s": info.get("MB", 0.0) / med if med else 0.0,
                "rec_s": info.get("records", 0) / med if med else 0.0,
                "call_s": info.get("calls", 0) / med if med and is_parse else 0.0,
                "rounds": b["stats"]["rounds"],
                "iqr_pct": 100 * b["stats"]["iqr"] / med if med else 0.0,
                "vs_orjson": _fmt_ratio(median(ORJSON[kind]), med) if is_parse else "",
                "vs_msgspec": _fmt_ratio(median(MSGSPEC.get(kind, "")), med) if is_parse else "",
                "vs_russo": _fmt_ratio(median(RUSSO.get(kind, "")), med) if is_parse else "",
                "vs_python": _fmt_ratio(vs_python, med),
                "vs_t1": _fmt_ratio(vs_t1, med),
            }
        )
    return rows


COLUMNS = (
    ("entry", "label", "<"),
    ("median", "median", ">"),
    ("MB/s", "mb_s", ">"),
    ("records/s", "rec_s", ">"),
    ("calls/s", "call_s", ">"),
    ("IQR", "iqr_pct", ">"),
    ("vs orjson", "vs_orjson", ">"),
    ("vs msgspec", "vs_msgspec", ">"),
    ("vs russo", "vs_russo", ">"),
    ("vs python", "vs_python", ">"),
    ("vs t=1", "vs_t1", ">"),
)


def _cell(key: str, row: dict[str, Any]) -> str:
    value = row[key]
    if key == "median":
        return _fmt_seconds(value)
    if key == "mb_s":
        return f"{value:,.1f}"
    if key in ("rec_s", "call_s"):
        return _fmt_rate(value) if value else ""
    if key == "iqr_pct":
        return f"{value:.1f}%"
    return str(value)


def render(group_name: str, group: list[dict[str, Any]], markdown: bool) -> str:
    rows = rows_of(group)
    info = group[0]["extra_info"]
    head = (
        f"{group_name}: {info.get('records', '?')} records, {info.get('MB', 0):.2f} MB, "
        f"{info.get('calls', '?')} tool calls per pass"
    )
    table = [[title for title, _, _ in COLUMNS]]
    table += [[_cell(key, row) for _, key, _ in COLUMNS] for row in rows]
    if markdown:
        out = [f"### {head}", ""]
        out.append("| " + " | ".join(table[0]) + " |")
        out.append("|" + "|".join(":--" if a == "<" else "--:" for _, _, a in COLUMNS) + "|")
        out += ["| " + " | ".join(r) + " |" for r in table[1:]]
        return "\n".join(out)
    widths = [max(len(r[i]) for r in table) for i in range(len(COLUMNS))]
    lines = [head, "-" * len(head)]
    for r in table:
        lines.append(
            "  ".join(
                cell.ljust(w) if align == "<" else cell.rjust(w)
                for cell, w, (_, _, align) in zip(r, widths, COLUMNS, strict=True)
            ).rstrip()
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json_file", help="output of pytest --benchmark-json")
    ap.add_argument("--markdown", action="store_true", help="markdown tables")
    args = ap.parse_args(argv)
    with open(args.json_file, encoding="utf-8") as f:
        data = json.load(f)

    groups: dict[str, list[dict[str, Any]]] = {}
    for b in data.get("benchmarks", []):
        groups.setdefault(b.get("group") or "(no group)", []).append(b)
    if not groups:
        print("no benchmarks in this file (was it run with --benchmark-enable?)", file=sys.stderr)
        return 1

    m = data.get("machine_info", {})
    cpu = m.get("cpu", {})
    print(
        f"{data.get('datetime', '')}  Python {m.get('python_version', '?')} "
        f"({m.get('python_implementation', '?')})  {cpu.get('brand_raw', m.get('processor', ''))}"
        f"  {cpu.get('count', '?')} logical CPUs"
    )
    print(
        "ratios: baseline median / entry median (>1 = faster). * = dict input (no decoding):\n"
        "its MB/s counts the JSON the dicts came from, and its baselines are the dict-input\n"
        "ones (vs orjson -> plain walk(dict), vs russo -> russo parse(dict))\n"
    )
    builds = {b["extra_info"].get("build") for b in data["benchmarks"]} - {None}
    if builds:
        print(f"toolsift._native build profile: {', '.join(sorted(builds))}")
        if builds - {"release"}:
            print("WARNING: the rust entries did not run a release build; do not quote them")
        print()
    for name in sorted(groups):
        print(render(name, groups[name], args.markdown))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
