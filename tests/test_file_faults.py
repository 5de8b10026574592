"""Files that go wrong while they are read: compressed data cut short or corrupt, zstd
skippable frames, gzip zero padding, FIFOs and pipes, files that grow, shrink or are
deleted under the reader, special files. Both backends (the `make` fixture).

How each should behave (the reliability issue's spec):

* Compressed data cut short or corrupt: `parse_file` yields every complete line that was
  decompressed before the fault, then raises OSError naming the file; `to_arrow` raises
  that OSError. "Decompressed before the fault" is what a reference decoder gets out of
  the same bytes: Python's zlib (gzip members one after another, zero padding after a
  member skipped, as the gzip module does; output taken one byte at a time, so that
  nothing decoded before the error is lost) and zstandard's streaming decompressor (fed
  one byte at a time). Where the reference reads the corrupt bytes without an error,
  the backends must read them too, giving the same lines.
* gzip followed by zero padding reads cleanly (as `gzip -d` and Python's gzip module).
* zstd skippable frames (magic 0x184D2A50..0x184D2A5F, a 4-byte little-endian size and
  that many bytes) are skipped: at the start of the file (which is then still zstd) and
  between or after frames.
* A FIFO and a pipe (`/dev/fd/N`, `/dev/stdin`) written by another process are read to
  their end, plain or compressed (they cannot seek back after reading the magic bytes).
* A file that grows while read gives at least the lines it had, each whole, in order; one
  that shrinks (at a line end) gives a prefix of its lines, then, where it had been read
  past its new end, an OSError naming the file; one deleted after
  `parse_file` was called gives all its lines (it was opened by the call).
* /dev/null has no records; a file whose size stat() reports as 0 (/proc) is read to
  its end.

Tests that fail today are marked xfail (strict=False) with the issue item; the marks go
when the fixes land. Every test is bounded in time: the reading runs on a thread joined
with a timeout, or, for FIFOs and pipes (an open() can block forever, maybe holding the
GIL), in a child process killed after a timeout.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import toolsift
import zstandard
from toolsift import Files

TIMEOUT = 60  # seconds any one reading may take (a 2-core machine shared with others)


# ------------------------------------------------------------------ data


def lines(n: int = 40, width: int = 0) -> list[bytes]:
    """JSON lines with one call each (padded to about `width` bytes)."""
    out = []
    for i in range(n):
        doc = {
            "id": f"chatcmpl-{i}",
            "choices": [
                {
                    "message": {
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "function": {"name": "f", "arguments": json.dumps({"i": i})},
                            }
                        ]
                    }
                }
            ],
        }
        line = json.dumps(doc)
        if width > len(line):
            doc["pad"] = "x" * (width - len(line) - 10)
            line = json.dumps(doc)
        out.append(line.encode())
    return out


LINES = lines()
TEXT = b"\n".join(LINES) + b"\n"


def gz(text: bytes, members: int = 2) -> bytes:
    step = -(-len(text) // members)
    return b"".join(gzip.compress(text[i : i + step], mtime=0) for i in range(0, len(text), step))


def zst(text: bytes, frames: int = 2, block_every: int = 600) -> bytes:
    """zstd frames with a block flushed every `block_every` bytes (so a cut or a corrupt
    block loses only part of a frame's lines)."""
    step = -(-len(text) // frames)
    out = []
    for i in range(0, len(text), step):
        piece = text[i : i + step]
        cobj = zstandard.ZstdCompressor(write_checksum=True).compressobj()
        chunks = []
        for j in range(0, len(piece), block_every):
            chunks.append(cobj.compress(piece[j : j + block_every]))
            chunks.append(cobj.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK))
        chunks.append(cobj.flush(zstandard.COMPRESSOBJ_FLUSH_FINISH))
        out.append(b"".join(chunks))
    return b"".join(out)


def skippable(nibble: int = 0, payload: bytes = b"skip me") -> bytes:
    return struct.pack("<II", 0x184D2A50 | nibble, len(payload)) + payload


ENCODE: dict[str, Callable[[bytes], bytes]] = {"plain": lambda t: t, "gz": gz, "zst": zst}

# ------------------------------------------------------------------ reference decoders


class _Fault(Exception):
    pass


def _gzip_header_end(data: bytes) -> int:
    """Where a gzip member's deflate data starts (RFC 1952, checked as zlib checks it)."""
    if len(data) < 10:
        raise _Fault("cut short in the header")
    if data[:3] != b"\x1f\x8b\x08" or data[3] & 0xE0:
        raise _Fault("not a gzip member (magic, method or reserved flags)")
    flags, at = data[3], 10
    if flags & 4:  # FEXTRA
        if len(data) < at + 2:
            raise _Fault("cut short in the header")
        at += 2 + int.from_bytes(data[at : at + 2], "little")
    for flag in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & flag:
            end = data.find(b"\0", at)
            if end < 0:
                raise _Fault("cut short in the header")
            at = end + 1
    if flags & 2:  # FHCRC
        if len(data) < at + 2:
            raise _Fault("cut short in the header")
        if int.from_bytes(data[at : at + 2], "little") != zlib.crc32(data[:at]) & 0xFFFF:
            raise _Fault("header checksum")
        at += 2
    if at > len(data):
        raise _Fault("cut short in the header")
    return at


def gzip_reference(data: bytes) -> tuple[bytes, bool]:
    """(what zlib decompresses before the fault, whether the data is whole and valid).

    Members follow one another; zero bytes after a member are padding (as the gzip
    module reads them). The deflate data is inflated raw, one byte of output at a time
    (inflate stops after it, so an error raised later loses nothing decoded before it),
    and the member's trailer (CRC-32, size) is checked after its data."""
    out = bytearray()
    rest = data
    while True:
        try:
            rest = rest[_gzip_header_end(rest) :]
        except _Fault:
            return bytes(out), False
        d = zlib.decompressobj(-zlib.MAX_WBITS)
        member = bytearray()
        pending = rest
        while not d.eof:
            try:
                chunk = d.decompress(pending, 1)
            except zlib.error:
                return bytes(out + member), False
            member += chunk
            if not chunk and len(d.unconsumed_tail) >= len(pending):
                return bytes(out + member), False  # cut short: needs more input
            pending = d.unconsumed_tail
        out += member
        trailer, rest = d.unused_data[:8], d.unused_data[8:]
        if len(trailer) < 8 or trailer != struct.pack(
            "<II", zlib.crc32(member), len(member) & 0xFFFFFFFF
        ):
            return bytes(out), False
        rest = rest.lstrip(b"\0")
        if not rest:
            return bytes(out), True


def zstd_reference(data: bytes) -> tuple[bytes, bool]:
    """(what zstandard's streaming decompressor gets out before the fault, whether the
    data is whole and valid). Fed one byte at a time; frames follow one another."""
    out = bytearray()
    rest = data
    dctx = zstandard.ZstdDecompressor()
    while rest:
        d = dctx.decompressobj()
        at = 0
        while not d.eof and at < len(rest):
            try:
                out += d.decompress(rest[at : at + 1])
            except zstandard.ZstdError:
                return bytes(out), False
            at += 1
        if not d.eof:
            return bytes(out), False
        rest = d.unused_data + rest[at:]
    return bytes(out), True


REFERENCE = {"gz": gzip_reference, "zst": zstd_reference}
MAGIC = {"gz": 2, "zst": 4}  # bytes needed to tell the kind


def records(text: bytes, whole: bool) -> list[bytes]:
    """The records parse_file yields for decompressed `text`: its lines without the
    terminator, blank ones skipped; when the data is not whole, only complete lines."""
    pieces = text.split(b"\n")
    last = pieces.pop()
    if whole and last:
        pieces.append(last)
    out = [p[:-1] if p.endswith(b"\r") else p for p in pieces]
    return [p for p in out if p.strip(b" \t\r\n")]


# ------------------------------------------------------------------ bounded running


def bounded(body: Callable[[], Any], unblock: Callable[[], None] | None = None) -> Any:
    """`body()` on a thread, joined with a timeout: its result, or its exception raised
    here; a test failure (after `unblock()`) when it does not finish in time."""
    result: list[Any] = []
    error: list[BaseException] = []

    def run() -> None:
        try:
            result.append(body())
        except BaseException as exc:
            error.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(TIMEOUT)
    if thread.is_alive():
        if unblock is not None:
            unblock()
            thread.join(5)
        pytest.fail(f"no result in {TIMEOUT} s: the reading hangs")
    if error:
        raise error[0]
    return result[0]


def read_file(parser: Any, path: Any, **options: Any) -> tuple[list[bytes], BaseException | None]:
    """(the raw lines parse_file yielded, the exception that ended it or None)."""
    got: list[bytes] = []
    try:
        for response in parser.parse_file(path, **options):
            got.append(response.raw)
    except Exception as exc:
        return got, exc
    return got, None


def names_file(exc: BaseException | None, path: Path) -> str | None:
    """Why `exc` is not an OSError naming the file (None when it is)."""
    if not isinstance(exc, OSError):
        return f"expected OSError, got {exc!r}"
    if str(path) not in str(exc):
        return f"the OSError does not name the file: {exc}"
    return None


def against_reference(parser: Any, path: Path, data: bytes, kind: str, slack: int = 0) -> list[str]:
    """What parse_file and to_arrow on `data` (written to `path`) do otherwise than the
    reference says (nothing when they do it). With `slack`, up to that many bytes of
    text before a fault may be missing (inside corrupt data, the decoders lose what they
    decompressed from the piece in which they met the fault: README, Faults)."""
    path.write_bytes(data)
    text, whole = REFERENCE[kind](data)
    expected = records(text, whole)

    def run() -> tuple[Any, ...]:
        got, exc = read_file(parser, path)
        try:
            parser.to_arrow(path)
            table_exc = None
        except Exception as table_error:
            table_exc = table_error
        return got, exc, table_exc

    got, exc, table_exc = bounded(run)
    problems = []
    if whole:
        if exc is not None:
            problems.append(f"the reference reads it whole; parse_file raised {exc!r}")
        if table_exc is not None:
            problems.append(f"the reference reads it whole; to_arrow raised {table_exc!r}")
    else:
        problems += [
            f"{api}: {why}"
            for api, why in (
                ("parse_file", names_file(exc, path)),
                ("to_arrow", names_file(table_exc, path)),
            )
            if why
        ]
    short = expected[: len(got)]
    lost = sum(len(line) + 1 for line in expected[len(got) :])
    if got != expected and not (got == short and lost <= slack):
        other = "" if got == short else " (and other lines)"
        problems.append(
            f"parse_file yielded {len(got)} lines, the reference decoded {len(expected)} "
            f"complete lines before the fault{other}"
        )
    return problems


def check_offsets(
    parser: Any, tmp_path: Path, kind: str, size: int, cases: dict[int, bytes], slack: int = 0
) -> None:
    """`against_reference` for each case (data changed at an offset of `size` bytes); one
    failure listing every offset that fails."""
    failures = []
    for at, data in cases.items():
        path = tmp_path / f"at{at}.{kind}"
        for problem in against_reference(parser, path, data, kind, slack):
            failures.append(f"offset {at} of {size}: {problem}")
    assert not failures, f"{len(failures)} problems:\n" + "\n".join(failures[:40])


def spread(n: int, start: int, count: int = 48) -> list[int]:
    """About `count` offsets in [start, n), the first and last few among them."""
    if n <= start:
        return []
    step = max(1, (n - start) // count)
    picked = set(range(start, n, step)) | set(range(start, min(n, start + 6)))
    picked |= set(range(max(start, n - 6), n))
    return sorted(picked)


# ------------------------------------------------------------------ cut short, corrupt


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_cut_short(make: Any, tmp_path: Path, kind: str) -> None:
    data = ENCODE[kind](TEXT)
    cases = {cut: data[:cut] for cut in spread(len(data), MAGIC[kind])}
    check_offsets(make.OpenAIResponseParser(), tmp_path, kind, len(data), cases)


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_corrupt(make: Any, tmp_path: Path, kind: str) -> None:
    """Inside corrupt data, what the decoder decompressed from the piece it met the fault
    in may be lost (README, Faults): at most one zstd block or deflate read, 128 KiB."""
    data = ENCODE[kind](TEXT)
    cases = {}
    for at in spread(len(data), MAGIC[kind]):
        bad = bytearray(data)
        bad[at] ^= 0x55
        cases[at] = bytes(bad)
    check_offsets(make.OpenAIResponseParser(), tmp_path, kind, len(data), cases, 128 << 10)


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_garbage_after_the_last_member(make: Any, tmp_path: Path, kind: str) -> None:
    """Bytes after the compressed data that are not another member / frame: the lines,
    then OSError."""
    data = ENCODE[kind](TEXT) + b"garbage\n"
    check_offsets(make.OpenAIResponseParser(), tmp_path, kind, len(data), {len(data): data})


def test_reference_decoders() -> None:
    """The references themselves: whole data reads whole; a cut gives a prefix."""
    for kind in ("gz", "zst"):
        data = ENCODE[kind](TEXT)
        assert REFERENCE[kind](data) == (TEXT, True)
        text, whole = REFERENCE[kind](data[: len(data) // 2])
        assert not whole
        assert TEXT.startswith(text)
        assert 0 < len(text) < len(TEXT)
    assert gzip_reference(gz(TEXT) + b"\0" * 100) == (TEXT, True)


# ------------------------------------------------------------------ gzip padding


@pytest.mark.parametrize("padding", [1, 7, 4096])
def test_gzip_trailing_zero_padding(make: Any, tmp_path: Path, padding: int) -> None:
    path = tmp_path / "padded.gz"
    path.write_bytes(gz(TEXT) + b"\0" * padding)
    parser = make.OpenAIResponseParser()
    got, exc = bounded(lambda: read_file(parser, path))
    assert exc is None, exc
    assert got == LINES
    assert bounded(lambda: parser.to_arrow(path)).num_rows == len(LINES)


# ------------------------------------------------------------------ zstd skippable frames


@pytest.mark.parametrize("nibble", [0x0, 0x7, 0xF])
@pytest.mark.parametrize("payload", [b"", b"skip me\n{}\n"])
def test_zstd_starting_with_a_skippable_frame(
    make: Any, tmp_path: Path, nibble: int, payload: bytes
) -> None:
    path = tmp_path / "skip-first.zst"
    path.write_bytes(skippable(nibble, payload) + zst(TEXT))
    parser = make.OpenAIResponseParser()
    got, exc = bounded(lambda: read_file(parser, path))
    assert exc is None, exc
    assert got == LINES
    assert bounded(lambda: parser.to_arrow(path)).num_rows == len(LINES)


def test_zstd_only_a_skippable_frame(make: Any, tmp_path: Path) -> None:
    path = tmp_path / "only-skip.zst"
    path.write_bytes(skippable(0x3, b'{"choices": []}\n'))
    got, exc = bounded(lambda: read_file(make.OpenAIResponseParser(), path))
    assert (got, exc) == ([], None)


@pytest.mark.parametrize("where", ["between", "after", "both"])
def test_zstd_skippable_frames_between_frames(make: Any, tmp_path: Path, where: str) -> None:
    half = len(LINES) // 2
    first = zst(b"\n".join(LINES[:half]) + b"\n", frames=1)
    second = zst(b"\n".join(LINES[half:]) + b"\n", frames=1)
    skip = skippable(0xA, b"\x00" * 9) + skippable(0x0, b"")
    if where == "between":
        data = first + skip + second
    elif where == "after":
        data = first + second + skip
    else:
        data = first + skip + second + skip
    path = tmp_path / "skip.zst"
    path.write_bytes(data)
    assert zstd_reference(data) == (TEXT, True)
    parser = make.OpenAIResponseParser()
    got, exc = bounded(lambda: read_file(parser, path))
    assert exc is None, exc
    assert got == LINES
    assert bounded(lambda: parser.to_arrow(path)).num_rows == len(LINES)


# ------------------------------------------------------------------ FIFOs and pipes
#
# The reading runs in a child process, killed after PIPE_TIMEOUT: a reader that holds
# the GIL while it blocks (in open() of a FIFO, say) cannot be stopped from a thread of
# its own process. The writers are other processes too, as a shell's would be.

PIPE_TIMEOUT = 30
PACKAGE_ROOT = Path(toolsift.__file__).resolve().parents[1]  # this toolsift, in the child

READER = """
import pickle, sys
from toolsift.parsers import OpenAIResponseParser
path, api = sys.argv[1], sys.argv[2]
if len(sys.argv) > 3:  # a writer thread in this process, as the issue's spec has it
    import threading
    data = open(sys.argv[3], "rb").read()
    def write():
        with open(path, "wb") as fifo:
            fifo.write(data)
    threading.Thread(target=write, daemon=True).start()
parser = OpenAIResponseParser()
got, error = [], None
try:
    if api == "parse_file":
        for response in parser.parse_file(path):
            got.append(response.raw)
    else:
        got = parser.to_arrow(path).column("record").to_pylist()
except Exception as exc:
    error = f"{type(exc).__name__}: {exc}"
sys.stdout.buffer.write(pickle.dumps((got, error)))
"""

WRITER = """
import sys
data = open(sys.argv[2], "rb").read()
with open(sys.argv[1], "wb") as fifo:  # blocks until a reader opens it
    fifo.write(data)
"""


def child_env(impl: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(PACKAGE_ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "TOOLSIFT_IMPLEMENTATION": impl, "PYTHONPATH": path}


def read_in_child(
    impl: str,
    path: str,
    api: str,
    *args: str,
    timeout: float = PIPE_TIMEOUT,
    **popen: Any,
) -> tuple[list[Any], str | None]:
    """(what `api` gave for `path` in a child process, its error or None)."""
    stdin = popen.pop("input", None)
    proc = subprocess.Popen(
        [sys.executable, "-c", READER, path, api, *args],
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(impl),
        **popen,
    )
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{api}({path}) gave no result in {timeout} s: the reading hangs")
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    return pickle.loads(out)


@pytest.mark.parametrize("kind", ["plain", "gz", "zst"])
@pytest.mark.parametrize("api", ["parse_file", "to_arrow"])
def test_fifo(impl: str, tmp_path: Path, kind: str, api: str) -> None:
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    source = tmp_path / "data"
    source.write_bytes(ENCODE[kind](TEXT))
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(source)])
    try:
        got, error = read_in_child(impl, str(path), api)
    finally:
        try:
            writer.wait(PIPE_TIMEOUT)
        except subprocess.TimeoutExpired:
            writer.kill()  # the reader never opened the FIFO
            writer.wait()
    assert error is None, error
    assert got == (LINES if api == "parse_file" else list(range(len(LINES))))


@pytest.mark.parametrize("api", ["parse_file", "to_arrow"])
def test_fifo_written_by_a_thread(impl: str, tmp_path: Path, api: str) -> None:
    """The FIFO's writer is a thread of the reading process."""
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    source = tmp_path / "data"
    source.write_bytes(TEXT)
    try:
        got, error = read_in_child(impl, str(path), api, str(source), timeout=15)
    finally:
        _unblock_fifo(path)
    assert error is None, error
    assert got == (LINES if api == "parse_file" else list(range(len(LINES))))


def _unblock_fifo(path: Path) -> None:
    """Release whoever still waits to open the FIFO (nobody, when the test went well)."""
    for flags in (os.O_RDONLY | os.O_NONBLOCK, os.O_WRONLY | os.O_NONBLOCK):
        try:
            os.close(os.open(path, flags))
        except OSError:
            pass


@pytest.mark.parametrize("kind", ["plain", "gz"])
def test_dev_fd_pipe(impl: str, kind: str) -> None:
    """A pipe by its /dev/fd/N name, as a shell's `<(...)` gives it."""
    read_end, write_end = os.pipe()
    data = ENCODE[kind](TEXT)

    def write() -> None:
        try:
            os.write(write_end, data)  # a pipe holds 64 KiB: the data fits
        finally:
            os.close(write_end)

    try:
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        got, error = read_in_child(impl, f"/dev/fd/{read_end}", "parse_file", pass_fds=(read_end,))
        writer.join(PIPE_TIMEOUT)
    finally:
        os.close(read_end)
    assert error is None, error
    assert got == LINES


@pytest.mark.parametrize("kind", ["plain", "zst"])
@pytest.mark.parametrize("api", ["parse_file", "to_arrow"])
def test_dev_stdin(impl: str, kind: str, api: str) -> None:
    """`parse_file("/dev/stdin")` in a process whose stdin is a pipe."""
    got, error = read_in_child(impl, "/dev/stdin", api, input=ENCODE[kind](TEXT))
    assert error is None, error
    assert got == (LINES if api == "parse_file" else list(range(len(LINES))))


# ------------------------------------------------------------------ changing files

BIG = lines(60_000, width=160)  # ~9.6 MB: more than the Rust reader's read-ahead
BIG_SET = frozenset(BIG)


def _write_lines(path: Path, items: Iterable[bytes]) -> None:
    path.write_bytes(b"".join(line + b"\n" for line in items))


@pytest.mark.parametrize("threads", [1, 2])
def test_file_grows_while_read(make: Any, tmp_path: Path, threads: int) -> None:
    path = tmp_path / "grows.jsonl"
    first, more = BIG[:40_000], BIG[40_000:]
    _write_lines(path, first)
    parser = make.OpenAIResponseParser()

    def run() -> list[bytes]:
        responses = parser.parse_file(path, threads=threads)
        got = [next(responses).raw]
        with open(path, "ab") as f:
            f.write(b"".join(line + b"\n" for line in more))
        got += [r.raw for r in responses]
        return got

    got = bounded(run)
    assert got[: len(first)] == first
    assert got == BIG[: len(got)]  # later lines, if any, whole and in order


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("keep", [10, 1000])
def test_file_shrinks_while_read(make: Any, tmp_path: Path, threads: int, keep: int) -> None:
    """Cut at a line end (10 lines: before where either backend has read to; 1000 lines:
    behind the Python reader, before the Rust one's read-ahead): a prefix of the lines,
    each whole, maybe ended by an OSError naming the file."""
    path = tmp_path / "shrinks.jsonl"
    _write_lines(path, BIG)
    size = sum(len(line) + 1 for line in BIG[:keep])
    parser = make.OpenAIResponseParser()

    def run() -> tuple[list[bytes], BaseException | None]:
        responses = parser.parse_file(path, threads=threads)
        got = [next(responses).raw]
        os.truncate(path, size)
        try:
            got += [r.raw for r in responses]
        except Exception as exc:
            return got, exc
        return got, None

    got, exc = bounded(run)
    if keep == 10:  # read past by both backends: the shrink is seen
        assert names_file(exc, path) is None and "the file shrank" in str(exc), exc
    assert exc is None or names_file(exc, path) is None, exc
    whole = [line for line in got if line in BIG_SET]
    assert whole == got, f"{len(got) - len(whole)} records are not whole lines: {got[-1][:80]!r}"
    assert got == BIG[: len(got)]


@pytest.mark.parametrize("kind", ["plain", "gz"])
def test_file_deleted_while_read(make: Any, tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"deleted.{kind}"
    path.write_bytes(ENCODE[kind](b"".join(line + b"\n" for line in BIG[:20_000])))
    parser = make.OpenAIResponseParser()

    def run() -> list[bytes]:
        responses = parser.parse_file(path)
        got = [next(responses).raw]
        path.unlink()
        return got + [r.raw for r in responses]

    assert bounded(run) == BIG[:20_000]


def test_file_deleted_before_the_first_response(make: Any, tmp_path: Path) -> None:
    """parse_file opens the file when called (a missing file raises then), so deleting it
    afterwards changes nothing."""
    path = tmp_path / "deleted-early.jsonl"
    _write_lines(path, LINES)
    parser = make.OpenAIResponseParser()

    def run() -> list[bytes]:
        responses = parser.parse_file(path)
        path.unlink()
        return [r.raw for r in responses]

    assert bounded(run) == LINES


# ------------------------------------------------------------------ special files


def test_dev_null(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    assert bounded(lambda: read_file(parser, "/dev/null")) == ([], None)
    table = bounded(lambda: parser.to_arrow("/dev/null"))
    assert table.num_rows == 0
    assert table.schema.names[0] == "record"


@pytest.mark.skipif(not os.path.exists("/proc/version"), reason="no /proc")
def test_file_whose_stat_size_is_zero(make: Any) -> None:
    """/proc files report size 0 and still have lines: read to the end."""
    assert os.stat("/proc/version").st_size == 0
    with open("/proc/version", "rb") as f:
        expected = records(f.read(), whole=True)
    assert expected
    got, exc = bounded(lambda: read_file(make.OpenAIResponseParser(), "/proc/version"))
    assert exc is None, exc
    assert got == expected


# ------------------------------------------------------------------ rows before a cut


BIG_TEXT = b"\n".join(lines(10_000)) + b"\n"  # more lines than a batch of either backend


def complete_lines(data: bytes, kind: str) -> list[int]:
    """The numbers of the lines the reference decodes whole before the cut (each line
    has one call: one row)."""
    text, whole = REFERENCE[kind](data)
    assert not whole
    return list(range(text.count(b"\n")))


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_rows_before_a_cut_come_out_in_every_table_api(
    impl: str, make: Any, tmp_path: Path, kind: str
) -> None:
    """arrow_batches (of a path and of Files, whatever `threads`), to_arrow (its OSError
    carries them as `table`) and the CLI's JSONL on stdout give the row of every
    complete line before the cut, then the OSError (issue 37: the pure backend lost its
    pending batch, the CLI what waited to be written)."""
    parser = make.OpenAIResponseParser()
    data = ENCODE[kind](BIG_TEXT)
    path = tmp_path / f"cut.{kind}"
    for cut in (len(data) // 7, len(data) // 2, len(data) - 9):
        path.write_bytes(data[:cut])
        want = complete_lines(data[:cut], kind)
        for threads in (1, 2):
            for source in (path, Files([path])):
                got: list[int] = []
                with pytest.raises(OSError, match="corrupt or truncated") as raised:
                    for batch in parser.arrow_batches(source, threads=threads, batch_rows=999):
                        got += batch.column("record").to_pylist()
                assert names_file(raised.value, path) is None
                assert got == want, (cut, threads, source)
            with pytest.raises(OSError, match="corrupt or truncated") as raised:
                parser.to_arrow(path, threads=threads)
            table = raised.value.table  # type: ignore[attr-defined]
            assert table.schema == parser.to_arrow([]).schema
            assert table.column("record").to_pylist() == want
        done = subprocess.run(
            [sys.executable, "-m", "toolsift", "extract", str(path), "--format", "openai"],
            capture_output=True,
            env={**os.environ, "TOOLSIFT_IMPLEMENTATION": impl},
            timeout=TIMEOUT,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert b"corrupt or truncated" in done.stderr
        rows = [json.loads(line)["record"] for line in done.stdout.splitlines()]
        assert rows == want
