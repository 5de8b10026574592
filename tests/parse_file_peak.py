"""Iterate `parse_file` over a file in this process and print what it took:
`records calls seconds peak_kib_before peak_kib_after`.

    python tests/parse_file_peak.py FILE IMPL        # IMPL: rust | python

Run it in a fresh subprocess: the peaks are this address space's VmHWM (peak RSS), read
after import and after the loop (ru_maxrss would include the parent's peak before exec).
Used by tests/test_cli.py (the memory bound) and benches/bulk_rss.py.
"""

from __future__ import annotations

import sys
import time


def peak_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM in /proc/self/status")


def main(path: str, impl: str) -> None:
    from toolsift import _backend, parsers

    cls = parsers.OpenAIResponseParser
    parser = type(cls.__name__, (cls,), {"_backend": _backend.load(impl)})()
    before = peak_kib()
    start = time.perf_counter()
    records = calls = 0
    for response in parser.parse_file(path):
        records += 1
        calls += len(response.tool_calls)
    seconds = time.perf_counter() - start
    print(records, calls, seconds, before, peak_kib())


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
