"""Run one differential fuzz target with atheris (libFuzzer), for a fixed time.

    python fuzz/run.py TARGET --seconds N [--max-len BYTES] [-- LIBFUZZER_ARGS...]
    python fuzz/run.py --list

The run starts from the seed corpus `fuzz/corpus/TARGET/` (written by `fuzz/seeds.py`
from tests/vectors/*.json and the bundled samples) and the regression corpus
`tests/fuzz_regressions/TARGET/`; inputs libFuzzer finds interesting go to
`fuzz/.work/TARGET/corpus/` (git-ignored), which the next run starts from too.

When the backends differ (or a target raises anything), the input is written to
`tests/fuzz_regressions/TARGET/<sha1 of the input>` (or `--failures DIR`) and the run
exits non-zero; `tests/test_fuzz_regressions.py` then replays it on every test run.
Known differences (fuzz/known.py) are tolerated and counted, and the first input of
each is kept in `fuzz/.work/TARGET/known/`; TOOLSIFT_FUZZ_STRICT=1 turns them into
failures. One process, one target: no -fork, no -jobs.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="the target to run (see --list)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz")
    parser.add_argument("--max-len", type=int, default=8192, help="longest input (bytes)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds one input may take")
    parser.add_argument("--failures", type=Path, help="where a failing input is written")
    parser.add_argument("--work", type=Path, help="the run's own corpus and findings")
    parser.add_argument("--list", action="store_true", help="list the targets and exit")
    parser.add_argument("--no-instrument", action="store_true", help="no coverage feedback")
    args, libfuzzer_args = parser.parse_known_args(argv)
    libfuzzer_args = [a for a in libfuzzer_args if a != "--"]

    # `python fuzz/run.py` puts fuzz/ first on sys.path: its modules (gen, known, source,
    # ...) must not shadow others; they are imported as the package `fuzz`.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import atheris

    if args.no_instrument:
        from fuzz import known, targets
    else:
        # Coverage feedback from the pure backend (the Rust one is not instrumented)
        # and from the generators (new shapes of cases are new coverage there).
        with atheris.instrument_imports(include=["toolsift", "fuzz"]):
            from fuzz import known, targets

    if args.list or not args.target:
        print("\n".join(sorted(targets.TARGETS)))
        return 0 if args.list else 2
    if args.target not in targets.TARGETS:
        parser.error(
            f"unknown target {args.target!r}; one of: {', '.join(sorted(targets.TARGETS))}"
        )
    name = args.target
    run_target = targets.TARGETS[name]
    failures = args.failures or ROOT / "tests" / "fuzz_regressions" / name
    work = args.work or ROOT / "fuzz" / ".work" / name
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    seeds = [d for d in (ROOT / "fuzz" / "corpus" / name, failures) if d.is_dir()]

    started = time.monotonic()
    deadline = started + args.seconds
    count = [0]

    def summary() -> str:
        took = time.monotonic() - started
        tolerated = ", ".join(f"{k}: {v}" for k, v in sorted(targets.TOLERATED.items()))
        return (
            f"fuzz/run.py {name}: {count[0]} inputs in {took:.0f} s "
            f"({count[0] / max(took, 1e-9):.0f}/s); known differences tolerated: "
            f"{tolerated or 'none'}{' (strict)' if known.STRICT else ''}"
        )

    def keep_known() -> None:
        for issue, (_, data) in targets.TOLERATED_INPUTS.items():
            directory = work / "known"
            directory.mkdir(exist_ok=True)
            (directory / f"{issue}-{hashlib.sha1(data).hexdigest()}").write_bytes(data)

    def one_input(data: bytes) -> None:
        if time.monotonic() >= deadline:
            keep_known()
            print(summary(), file=sys.stderr, flush=True)
            sys.stdout.flush()
            targets.cleanup()
            os._exit(0)  # libFuzzer has no way to stop cleanly from the target
        count[0] += 1
        try:
            run_target(data)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            failures.mkdir(parents=True, exist_ok=True)
            saved = failures / hashlib.sha1(data).hexdigest()
            saved.write_bytes(data)
            keep_known()
            print(
                f"\n=== {name}: {type(exc).__name__} on input {saved} ===\n"
                + "".join(traceback.format_exception(exc))
                + f"\n{summary()}\nthe input is saved: {saved}"
                + (
                    f"\nbase64 of the input: {base64.b64encode(data).decode()}"
                    if len(data) <= 1 << 14
                    else ""
                ),
                file=sys.stderr,
                flush=True,
            )
            targets.cleanup()
            os._exit(1)

    libfuzzer = [
        sys.argv[0],
        f"-max_total_time={int(args.seconds) + 60}",  # a backstop: one_input stops first
        f"-timeout={args.timeout}",
        f"-max_len={args.max_len}",
        "-rss_limit_mb=4096",
        f"-artifact_prefix={work}/",
        *libfuzzer_args,
        str(work / "corpus"),
        *map(str, seeds),
    ]
    print(f"fuzz/run.py {name}: {args.seconds:.0f} s, seeds from {', '.join(map(str, seeds))}")
    sys.stdout.flush()
    atheris.Setup(libfuzzer, one_input)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main())
