"""parse_many: order, every input kind, threads, one bad record, big batches, Ctrl-C."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import backend_module, both_backends, calls_as_dicts, same
from toolsift import AgentResponse, ParseError, _collector
from toolsift._jsontext import error_for


def openai_text(name: str, arguments: str = "{}", id: str = "c") -> str:
    return json.dumps(
        {
            "choices": [
                {
                    "message": {
                        "tool_calls": [
                            {"id": id, "function": {"name": name, "arguments": arguments}}
                        ]
                    }
                }
            ]
        }
    )


def openai_dict(name: str) -> dict[str, Any]:
    return {"choices": [{"message": {"tool_calls": [{"function": {"name": name}}]}}]}


def sdk_object(name: str) -> Any:
    ns = SimpleNamespace
    return ns(
        choices=[
            ns(message=ns(tool_calls=[ns(id="s", function=ns(name=name, arguments='{"k": 1}'))]))
        ]
    )


def chat_completion(name: str) -> Any:
    chat = pytest.importorskip("openai.types.chat")
    return chat.ChatCompletion.model_validate(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "o",
                                "type": "function",
                                "function": {"name": name, "arguments": "{}"},
                            }
                        ],
                    },
                }
            ],
        }
    )


def mixed_inputs() -> list[Any]:
    """Every kind of input, each with a distinguishable result."""
    return [
        openai_dict("from_dict"),
        openai_text("from_str"),
        openai_text("from_bytes").encode(),
        bytearray(openai_text("from_bytearray").encode()),
        memoryview(openai_text("from_memoryview").encode()),
        sdk_object("from_object"),
        chat_completion("from_sdk"),
        None,
        42,
        3.5,
        b'{"choices": [',  # invalid text
        "not json",
        '{"choices": []}\ud800',  # a str with a lone surrogate: never UTF-8
        b"\xff",
        "",
        openai_text("ünïcödé 🚀", '{"q": "東京"}'),
        {"choices": "junk"},
        [openai_dict("in_a_list")],  # a list is not an OpenAI response
        openai_text("last"),
    ]


def expected_for(parser: Any, raw: Any) -> tuple[list[dict[str, Any]], str | None]:
    """What parse_many must give for `raw`: parse's calls, or the ParseError's text."""
    try:
        return calls_as_dicts(parser.parse(raw)), None
    except ParseError as exc:
        return [], str(exc)


@pytest.mark.parametrize("threads", [1, 2, None])
def test_order_and_every_input_kind(make: Any, threads: int | None) -> None:
    raws = mixed_inputs()
    parser = make.OpenAIResponseParser()
    results = parser.parse_many(raws, threads=threads)
    assert len(results) == len(raws)
    for raw, result in zip(raws, results, strict=True):
        assert type(result) is AgentResponse
        assert result.raw is raw
        calls, error = expected_for(parser, raw)
        assert same(calls_as_dicts(result), calls)
        assert result.error == error
        if isinstance(raw, (str, bytes, bytearray, memoryview)) and error is not None:
            assert error == str(error_for(raw))
    names = [[c.name for c in r.tool_calls] for r in results]
    assert names == [
        ["from_dict"],
        ["from_str"],
        ["from_bytes"],
        ["from_bytearray"],
        ["from_memoryview"],
        ["from_object"],
        ["from_sdk"],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        [],
        ["ünïcödé 🚀"],
        [],
        [],
        ["last"],
    ]
    assert [r.error is not None for r in results] == [
        False,
        False,
        False,
        False,
        False,
        False,
        False,
        False,
        False,
        False,
        True,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]
    assert results[12].error == "invalid UTF-8 at byte 15"


def test_same_on_both_backends() -> None:
    raws = mixed_inputs() * 3
    rust, python = (b.Parser("openai") for b in both_backends())
    for threads in (1, 2):
        a, b = rust.parse_many(raws, threads), python.parse_many(raws, threads)
        assert [r.error for r in a] == [r.error for r in b]
        assert [calls_as_dicts(r) for r in a] == [calls_as_dicts(r) for r in b]
        assert all(x.raw is y.raw for x, y in zip(a, b, strict=True))


class CountingIterable:
    """An iterable that counts how often it is iterated and how many items it gave."""

    def __init__(self, items: list[Any]) -> None:
        self.items = items
        self.iterations = 0
        self.given = 0

    def __iter__(self) -> Iterator[Any]:
        self.iterations += 1
        for item in self.items:
            self.given += 1
            yield item


@pytest.mark.parametrize("threads", [1, 2, None])
def test_generators_are_consumed_once(make: Any, threads: int | None) -> None:
    items = [openai_text(f"g{i}").encode() for i in range(1500)] + [openai_dict("d"), b"{"]
    parser = make.OpenAIResponseParser()
    generator = (item for item in items)
    results = parser.parse_many(generator, threads=threads)
    assert [r.raw for r in results] == items
    assert [c.name for r in results for c in r.tool_calls] == [f"g{i}" for i in range(1500)] + ["d"]
    assert results[-1].error == "unexpected end of input at byte 1"
    assert next(generator, "exhausted") == "exhausted"
    counting = CountingIterable(items)
    assert len(parser.parse_many(counting, threads=threads)) == len(items)
    assert (counting.iterations, counting.given) == (1, len(items))


@pytest.mark.parametrize("raws", [[], (), iter([]), (x for x in [])])
def test_empty(make: Any, raws: Any) -> None:
    assert make.OpenAIResponseParser().parse_many(raws) == []


def test_tuples_sets_and_dict_views(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    texts = (openai_text("a"), openai_text("b"))
    assert [r.tool_calls[0].name for r in parser.parse_many(texts)] == ["a", "b"]
    assert [r.tool_calls[0].name for r in parser.parse_many({"k": texts[0]}.values())] == ["a"]


def test_not_iterable() -> None:
    messages = []
    for backend in both_backends():
        with pytest.raises(TypeError) as caught:
            backend.Parser("openai").parse_many(5)
        messages.append(str(caught.value))
    assert messages[0] == messages[1] == "'int' object is not iterable"


def test_an_iterator_that_raises() -> None:
    def failing() -> Iterator[Any]:
        yield openai_text("a")
        raise RuntimeError("source broke")

    for backend in both_backends():
        with pytest.raises(RuntimeError, match="source broke"):
            backend.Parser("openai").parse_many(failing())


# --------------------------------------------------------------------------- threads

INVALID_THREADS = [0, -1, -(2**70), 1.5, 2.0, "2", True, False, [2], object()]


@pytest.mark.parametrize("threads", INVALID_THREADS, ids=repr)
def test_invalid_threads(make: Any, threads: Any) -> None:
    expected = f"threads must be a positive int or None (all cores), got {threads!r}"
    generator = (x for x in [openai_text("a")])
    with pytest.raises(ValueError) as caught:
        make.OpenAIResponseParser().parse_many(generator, threads=threads)
    assert str(caught.value) == expected
    assert next(generator, None) is not None  # checked before the input is read


@pytest.mark.parametrize("threads", INVALID_THREADS, ids=repr)
def test_invalid_threads_same_message_on_both(threads: Any) -> None:
    messages = []
    for backend in both_backends():
        with pytest.raises(ValueError) as caught:
            backend.Parser("gemini").parse_many([], threads)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("threads", [1, 2, 3, 8, None])
def test_valid_threads(make: Any, threads: int | None) -> None:
    raws = [openai_text(str(i)).encode() for i in range(2000)]
    results = make.OpenAIResponseParser().parse_many(raws, threads=threads)
    assert [r.tool_calls[0].name for r in results] == [str(i) for i in range(2000)]


def test_huge_thread_count_python() -> None:
    """The specification: any positive int (check_threads)."""
    assert len(both_backends()[1].Parser("openai").parse_many([b"{}"], 2**64)) == 1


def test_huge_thread_count() -> None:
    outcomes = []
    for backend in both_backends():
        try:
            outcomes.append(len(backend.Parser("openai").parse_many([b"{}"], 2**64)))
        except Exception as exc:
            outcomes.append(f"{type(exc).__name__}: {exc}")
    assert outcomes[0] == outcomes[1]


def test_threads_is_keyword_only(make: Any) -> None:
    with pytest.raises(TypeError):
        make.OpenAIResponseParser().parse_many([], 2)


# --------------------------------------------------------------------------- big batches


def batch(n: int) -> list[Any]:
    """`n` records: calls with varied arguments, a few bad ones, some objects."""
    raws: list[Any] = []
    for i in range(n):
        kind = i % 50
        if kind == 0:
            raws.append(b'{"choices": [{"message": ')  # truncated
        elif kind == 1:
            raws.append(openai_dict(f"d{i}"))
        elif kind == 2:
            raws.append(openai_text(f"s{i}", '{"a": [1, 2', f"id{i}"))  # undecodable args
        elif kind == 3:
            raws.append(b"\xff" + openai_text("x").encode())  # invalid UTF-8
        else:
            arguments = json.dumps({"i": i, "big": 10**20 + i, "f": i / 7, "s": "é" * (i % 5)})
            raws.append(openai_text(f"f{i % 97}", arguments, f"c{i}").encode())
    return raws


def test_50000_records_same_for_1_and_2_threads(make: Any) -> None:
    raws = batch(50_000)
    parser = make.OpenAIResponseParser()
    one = parser.parse_many(raws, threads=1)
    two = parser.parse_many(raws, threads=2)
    assert len(one) == len(two) == len(raws)
    for i, (a, b) in enumerate(zip(one, two, strict=True)):
        assert a.raw is raws[i] and b.raw is raws[i]
        assert a.error == b.error
        assert a.tool_calls == b.tool_calls
    # spot checks against parse
    for i in (0, 1, 2, 3, 4, 12_345, 49_999):
        calls, error = expected_for(parser, raws[i])
        assert same(calls_as_dicts(one[i]), calls)
        assert one[i].error == error
    assert sum(r.error is not None for r in one) == 2000
    assert one[4].tool_calls[0].arguments["big"] == 10**20 + 4


def test_50000_records_same_on_both_backends() -> None:
    raws = batch(50_000)
    rust, python = (b.Parser("openai") for b in both_backends())
    a, b = rust.parse_many(raws, 2), python.parse_many(raws, 2)
    assert [r.error for r in a] == [r.error for r in b]
    for x, y in zip(a, b, strict=True):
        assert same(calls_as_dicts(x), calls_as_dicts(y))


# --------------------------------------------------------------------------- one bad record


@pytest.mark.parametrize(
    "bad",
    [
        b"",
        b"   ",
        b"{",
        b'{"choices": [1,]}',
        b"\xef\xbb\xbf{}",
        b'"\\ud800"',
        b"[" * 2000,
        b'{"a": NaN}',
        "\ud83d",
        "{} {}",
        bytearray(b"nul"),
        memoryview(b"\x80"),
    ],
    ids=repr,
)
def test_one_bad_record_never_raises(make: Any, bad: Any) -> None:
    good = openai_text("ok").encode()
    parser = make.OpenAIResponseParser()
    results = parser.parse_many([good, bad, good], threads=2)
    assert results[0].raw is good
    assert results[1].raw is bad
    assert results[1].tool_calls == []
    expected = error_for(bad)
    assert expected is not None
    assert results[1].error == str(expected)
    with pytest.raises(ParseError) as caught:
        parser.parse(bad)
    assert str(caught.value) == results[1].error
    assert [r.error for r in (results[0], results[2])] == [None, None]
    assert [c.name for c in results[2].tool_calls] == ["ok"]


# --------------------------------------------------------------------------- the collector's hold


@pytest.fixture
def collector_state() -> Iterator[None]:
    """The collector as it was, whatever a test does to it."""
    was, thresholds = gc.isenabled(), gc.get_threshold()
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.enable() if was else gc.disable()


def held_state() -> tuple[bool, int]:
    """What a batch holding the collector shows: enabled, and the full collections'
    threshold raised past reach (Python 3.14's incremental collector: paused)."""
    if _collector._INCREMENTAL:
        return False, gc.get_threshold()[2]
    return True, _collector._HELD


@pytest.mark.parametrize("enabled", [True, False])
def test_garbage_collector_state_is_restored(make: Any, enabled: bool, collector_state: None):
    class Interrupting:
        @property
        def choices(self) -> Any:
            raise KeyboardInterrupt

    gc.enable() if enabled else gc.disable()
    thresholds = gc.get_threshold()
    make.OpenAIResponseParser().parse_many([openai_text("a")] * 600, threads=2)
    assert (gc.isenabled(), gc.get_threshold()) == (enabled, thresholds)
    with pytest.raises(KeyboardInterrupt):
        make.OpenAIResponseParser().parse_many([openai_text("a"), Interrupting()])
    assert (gc.isenabled(), gc.get_threshold()) == (enabled, thresholds)


def test_a_batch_holds_off_full_collections_only(make: Any, collector_state: None):
    """While a batch builds its results, the full collections are held off (young ones
    go on), a batch started meanwhile leaves the collector to the first, and the first
    restores it, whatever was held off before."""
    gc.enable()
    gc.set_threshold(500, 7, 9)
    seen: list[tuple[bool, int]] = []
    parser = make.OpenAIResponseParser()

    class Observing:
        @property
        def choices(self) -> Any:
            seen.append((gc.isenabled(), gc.get_threshold()[2]))
            parser.parse_many([openai_text("inner")])  # a batch within the batch
            seen.append((gc.isenabled(), gc.get_threshold()[2]))
            return []

    results = parser.parse_many([openai_text("a"), Observing(), openai_text("b")])
    assert [len(r.tool_calls) for r in results] == [1, 0, 1]
    assert seen == [held_state()] * 2
    assert (gc.isenabled(), gc.get_threshold()) == (True, (500, 7, 9))


# --------------------------------------------------------------------------- Ctrl-C

CHILD = """
import sys, time
from toolsift.parsers import OpenAIResponseParser
import toolsift
assert toolsift.IMPLEMENTATION == "rust", toolsift.IMPLEMENTATION
record = b'{"choices":[{"message":{"tool_calls":[{"function":{"name":"f","arguments":"{}"}}]}}]}'
records = [record] * 2_000_000
parser = OpenAIResponseParser()
print("ready", flush=True)
start = time.monotonic()
try:
    parser.parse_many(records, threads=THREADS)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(0)
print("finished after", time.monotonic() - start, flush=True)
sys.exit(3)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT")
@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_interrupts_a_long_batch(threads: int) -> None:
    backend_module("rust")  # skipped when the native module is not built (unforced)
    env = {**os.environ, "TOOLSIFT_IMPLEMENTATION": "rust"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.replace("THREADS", str(threads))],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, (out, err)
    assert out.strip() == "interrupted"
    assert took < 3, took


# --------------------------------------------------------------------------- concurrency


def test_concurrent_batches_from_several_python_threads(make: Any) -> None:
    from concurrent.futures import ThreadPoolExecutor

    raws = batch(3000)
    parser = make.OpenAIResponseParser()
    expected = [(r.error, calls_as_dicts(r)) for r in parser.parse_many(raws, threads=1)]

    def run(threads: int | None) -> list[Any]:
        return [(r.error, calls_as_dicts(r)) for r in parser.parse_many(raws, threads=threads)]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(run, [1, 2, None, 2, 1, 2]))
    for result in results:
        assert result == expected


def test_reentrant_parse_from_an_sdk_attribute(make: Any) -> None:
    """An SDK object whose attribute itself parses with toolsift (same parser class)."""
    parser = make.OpenAIResponseParser()

    class Lazy:
        @property
        def choices(self) -> Any:
            inner = parser.parse(openai_text("inner", '{"k": [1]}').encode())
            inner_many = parser.parse_many([openai_text("inner_many")] * 600, threads=2)
            names = [inner.tool_calls[0].name, inner_many[-1].tool_calls[0].name]
            return [{"message": {"tool_calls": [{"function": {"name": n}} for n in names]}}]

    obj = Lazy()
    assert [c.name for c in parser.parse(obj).tool_calls] == ["inner", "inner_many"]
    results = parser.parse_many([openai_text("a"), obj, openai_text("b")] * 300, threads=2)
    assert [[c.name for c in r.tool_calls] for r in results[:3]] == [
        ["a"],
        ["inner", "inner_many"],
        ["b"],
    ]
    assert all(r.error is None for r in results)


def test_a_released_memoryview_is_one_records_error(make: Any) -> None:
    parser = make.OpenAIResponseParser()
    released = memoryview(b"{}")
    released.release()
    responses = parser.parse_many([b"{}", released, b"{}"], threads=1)
    assert [r.error for r in responses] == [
        None,
        "ValueError: operation forbidden on released memoryview object",
        None,
    ]
    assert responses[1].raw is released
    with pytest.raises(ValueError, match="released memoryview"):
        parser.parse(released)


class Reversed(list):  # type: ignore[type-arg]
    """A list subclass that iterates its own way."""

    def __iter__(self) -> Any:
        return iter(list.__getitem__(self, slice(None, None, -1)))


def test_list_subclasses_are_iterated_as_python_iterates_them(make: Any) -> None:
    calls = Reversed([{"function": {"name": n, "arguments": "{}"}} for n in ("first", "second")])
    response = {"choices": Reversed([{"message": {"tool_calls": calls}}])}
    got = make.OpenAIResponseParser().parse(response)
    assert [c.name for c in got.tool_calls] == ["second", "first"]


def test_integers_longer_than_python_converts_are_not_decoded(make: Any) -> None:
    """Python's rule (`sys.get_int_max_str_digits()`, 4300 by default; json.loads refuses
    more): arguments holding such an integer are `{}` with their text kept, on every path,
    without the quadratic conversion (a megabyte of digits used to take 13 s)."""
    limit = sys.get_int_max_str_digits()
    digits = "7" * (limit + 1)
    args = '{"n": ' + digits + ', "ok": 1}'
    openai = json.dumps(
        {"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": args}}]}}]}
    )
    gemini = (
        '{"candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "args": '
        + args
        + "}}]}}]}"
    )
    litert = "<|tool_call>call:h{n:" + digits + "}<tool_call|>"
    compact = '{"n":' + digits + ',"ok":1}'
    signal.alarm(60)  # quadratic conversion of the megabyte below would take far longer
    try:
        for parser, text, raw in (
            (make.OpenAIResponseParser(), openai, args),
            (make.GeminiResponseParser(), gemini, compact),
            (make.SdkResponseParser(), litert, "{n:" + digits + "}"),
        ):
            for response in (parser.parse(text), *parser.parse_many([text, text.encode()])):
                call = response.tool_calls[0]
                assert (call.arguments, call.raw_arguments) == ({}, raw)
            if not isinstance(parser, make.SdkResponseParser):
                rows = parser.to_arrow([text]).to_pylist()
                assert [(r["arguments"], r["raw_arguments"]) for r in rows] == [("{}", raw)]
        exact = '{"n": ' + "9" * limit + "}"
        parser = make.OpenAIResponseParser()
        call = parser.parse(openai.replace(json.dumps(args)[1:-1], json.dumps(exact)[1:-1]))
        assert call.tool_calls[0].arguments == {"n": int("9" * limit)}
        huge = openai.replace(digits, "1" * 1_000_000)
        assert parser.parse(huge).tool_calls[0].arguments == {}
    finally:
        signal.alarm(0)
