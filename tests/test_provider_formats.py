"""The provider formats beyond openai and gemini (tests/vectors/<format>.json and
<format>.batch.json) on their pure-Python modules: the walkers, `detect`, the batch
envelopes, and the real SDK response objects (anthropic, openai, google-genai, cohere,
ollama) read by attribute."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import both_backends, calls_as_dicts, same
from toolsift import ParseError
from toolsift._pure import formats
from toolsift._pure.calls import harvest

VECTOR_DIR = Path(__file__).parent / "vectors"
# The walked formats of the registry but the first two (`openai`, `gemini`), whose vectors
# follow the parsers' schema (test_parsers.py).
MODULES: dict[str, ModuleType] = {
    spec.name: spec.module for spec in formats.WALKED if spec.name not in ("openai", "gemini")
}


def load(name: str) -> list[dict[str, Any]]:
    return json.loads((VECTOR_DIR / name).read_text("utf-8"))


VECTORS = [case for name in MODULES for case in load(f"{name}.json")]
BATCH = [
    case
    for name in MODULES
    if (VECTOR_DIR / f"{name}.batch.json").exists()
    for case in load(f"{name}.batch.json")
]
OTHER_INPUTS = [
    case["input"]
    for name in ("openai", "gemini", "json")
    for case in load(f"{name}.json")
    if "input" in case
]


def expected(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": c["name"],
            "arguments": c["arguments"],
            "id": c["id"],
            "raw_arguments": c["raw_arguments"],
        }
        for c in calls
    ]


def walked(module: ModuleType, doc: Any) -> list[dict[str, Any]]:
    return [call.model_dump() for call in harvest(module.calls(doc))]


def test_every_format_has_vectors_and_the_module_attributes() -> None:
    for name, module in MODULES.items():
        assert sum(case["parser"] == name for case in VECTORS) >= 12, name
        assert isinstance(module.PARSER_CLASS, str) and module.PARSER_CLASS.endswith("Parser")
        assert isinstance(module.WHERE, str) and "\n" not in module.WHERE
        assert isinstance(module.ID, str) and "\n" not in module.ID


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_walker(case: dict[str, Any]) -> None:
    module = MODULES[case["parser"]]
    before = copy.deepcopy(case["input"])
    got = walked(module, case["input"])
    assert same(got, expected(case["calls"])), got
    assert same(case["input"], before)  # the input is not changed


@pytest.mark.parametrize("case", VECTORS, ids=[c["name"] for c in VECTORS])
def test_detect(case: dict[str, Any]) -> None:
    for name, module in MODULES.items():
        assert module.detect(case["input"]) is (name == case["parser"]), name
    # Gemini's detection (a candidates list, or a blocked prompt's promptFeedback) too.
    assert formats.by_name("gemini").detect(case["input"]) is False


@pytest.mark.parametrize("name", list(MODULES))
def test_detect_refuses_other_shapes(name: str) -> None:
    detect = MODULES[name].detect
    for doc in OTHER_INPUTS:  # OpenAI chat completions, Gemini, custom JSON
        assert detect(doc) is False, doc
    for case in BATCH:  # batch envelopes are unwrapped first
        if case["envelope"]:
            assert detect(case["input"]) is False, case["name"]
    for doc in (None, "text", 1, [], {}, [{"object": "response", "output": []}]):
        assert detect(doc) is False


@pytest.mark.parametrize("case", BATCH, ids=[c["name"] for c in BATCH])
def test_batch_envelope(case: dict[str, Any]) -> None:
    module = MODULES[case["parser"]]
    found = module.unwrap_batch(case["input"])
    if not case["envelope"]:
        assert found is None
        return
    assert found is not None
    response, custom_id, error = found
    assert (custom_id, error) == (case["custom_id"], case["error"])
    if error is not None:
        assert response is None
        return
    walker = MODULES[case.get("walk", case["parser"])]
    assert walker.detect(response)
    assert same(walked(walker, response), expected(case["calls"]))


def test_batch_envelopes_do_not_overlap() -> None:
    """Each envelope is claimed by its own format only."""
    for case in BATCH:
        for name, module in MODULES.items():
            unwrap = getattr(module, "unwrap_batch", None)
            if unwrap is not None and name != case["parser"]:
                assert unwrap(case["input"]) is None, (name, case["name"])


# --------------------------------------------------------------------------- SDK objects


def sdk_models() -> dict[str, Any]:
    """The SDK's response model per format, for those installed (Bedrock's boto3 returns
    plain dicts: the dict vectors are its SDK shape)."""
    models: dict[str, Any] = {}
    try:
        from openai.types.responses import Response

        models["openai-responses"] = Response
    except ImportError:
        pass
    try:
        from anthropic.types import Message

        models["anthropic"] = Message
    except ImportError:
        pass
    try:
        from cohere.v2.types.v2chat_response import V2ChatResponse

        models["cohere"] = V2ChatResponse
    except ImportError:
        pass
    try:
        from google.genai.interactions import Interaction

        models["gemini-interactions"] = Interaction
    except ImportError:
        pass
    try:
        from ollama import ChatResponse

        models["ollama"] = ChatResponse
    except ImportError:
        pass
    return models


SDK_MODELS = sdk_models()
SDK_CASES = [c for c in VECTORS if c["parser"] in SDK_MODELS and c.get("sdk", True)]


def sdk_model(case: dict[str, Any]) -> Any:
    """The SDK model of a vector's response: Cohere's v1 responses (no `message`) are the
    v1 client's `NonStreamedChatResponse`."""
    if case["parser"] == "cohere" and "message" not in case["input"]:
        from cohere import NonStreamedChatResponse

        return NonStreamedChatResponse
    return SDK_MODELS[case["parser"]]


def sdk_expected(case: dict[str, Any]) -> list[dict[str, Any]]:
    calls = expected(case["calls"])
    if case["parser"] == "ollama":
        # ollama-python's ToolCall has no `id` field and ignores unknown keys.
        from ollama import Message

        if "id" not in Message.ToolCall.model_fields:
            calls = [{**c, "id": None} for c in calls]
    return calls


@pytest.mark.parametrize("case", SDK_CASES, ids=[c["name"] for c in SDK_CASES])
def test_sdk_object(case: dict[str, Any]) -> None:
    module = MODULES[case["parser"]]
    model = sdk_model(case).model_validate(copy.deepcopy(case["input"]))
    want = sdk_expected(case)
    assert same(walked(module, model), want)
    # Its model_dump (what logs of SDK objects hold) is walked the same way.
    dumped = model.model_dump()
    assert same(walked(module, dumped), want)
    assert module.detect(json.loads(model.model_dump_json()))


@pytest.mark.parametrize("case", SDK_CASES, ids=[c["name"] for c in SDK_CASES])
def test_sdk_object_auto_detected(case: dict[str, Any]) -> None:
    """AutoResponseParser recognizes the SDK object (by its JSON dump) and reads it by
    attribute as the named parser does, on both backends."""
    model = sdk_model(case).model_validate(copy.deepcopy(case["input"]))
    for backend in both_backends():
        auto = backend.Parser("auto").parse(model)
        named = backend.Parser(case["parser"]).parse(model)
        assert auto.raw is model
        assert same(calls_as_dicts(auto), calls_as_dicts(named)), backend.__name__


def test_objects_that_are_no_sdk_model_are_unrecognized() -> None:
    class Dumps:  # a model_dump that is not pydantic's
        def model_dump(self) -> dict[str, Any]:
            return {"choices": []}

    for backend in both_backends():
        # (a list holding an OpenAI chunk is a stream of events: see test_stream.py)
        for raw in (Dumps(), object(), 5, None, [{"a": 1}]):
            with pytest.raises(ParseError, match="unrecognized response shape"):
                backend.Parser("auto").parse(raw)


@pytest.mark.parametrize("name", sorted(SDK_MODELS))
def test_sdk_cases_exist(name: str) -> None:
    assert sum(c["parser"] == name for c in SDK_CASES) >= 8


def test_anthropic_batch_line_as_sdk_object() -> None:
    sdk = pytest.importorskip("anthropic.types.messages")
    module = MODULES["anthropic"]
    for case in BATCH:
        if case["parser"] != "anthropic" or not case["envelope"] or case["error"] is not None:
            continue
        line = sdk.MessageBatchIndividualResponse.model_validate(case["input"])
        assert same(walked(module, line.result.message), expected(case["calls"]))  # type: ignore[union-attr]


# ------------------------------------------------------------------ both backends


@pytest.mark.parametrize("case", BATCH, ids=[c["name"] for c in BATCH])
def test_batch_lines_in_files_and_tables(make: Any, tmp_path: Path, case: dict[str, Any]) -> None:
    """Every batch vector line read by to_arrow and parse_file on the backend under test,
    with the format that walks its response (and with auto-detection)."""
    if not case["envelope"]:
        return
    walk = case.get("walk", case["parser"])
    line = json.dumps(case["input"], ensure_ascii=False)
    path = tmp_path / "batch.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    parsers_to_try = [getattr(make, CLASSES[walk])()]
    if case["error"] is None and case["calls"]:
        parsers_to_try.append(make.AutoResponseParser())
    for parser in parsers_to_try:
        rows = parser.to_arrow(path).to_pylist()
        if case["error"] is not None:
            assert [(r["custom_id"], r["error"]) for r in rows] == [
                (case["custom_id"], case["error"])
            ]
            continue
        assert all(r["custom_id"] == case["custom_id"] and r["format"] == walk for r in rows)
        got = [
            {
                "name": r["name"],
                "arguments": json.loads(r["arguments"]),
                "id": r["id"],
                "raw_arguments": r["raw_arguments"],
            }
            for r in rows
        ]
        assert same(got, expected(case["calls"]))
        (response,) = parser.parse_file(path)
        assert same([c.model_dump() for c in response.tool_calls], expected(case["calls"]))


CLASSES = {spec.name: spec.parser_class for spec in formats.REGISTRY}


def test_auto_detection_reads_every_format(make: Any) -> None:
    """A file mixing every walked format line by line, read with auto-detection, gives the
    same rows as each format's lines read with its named parser (both backends)."""
    lines, named_rows = [], []
    for case in VECTORS + [c for c in load("openai.json") + load("gemini.json") if "input" in c]:
        spec = formats.by_name(case["parser"])
        if not spec.detect(case["input"]):
            continue
        line = json.dumps(case["input"], ensure_ascii=False)
        number = len(lines)
        lines.append(line)
        for row in getattr(make, spec.parser_class)().to_arrow([line]).to_pylist():
            named_rows.append({**row, "record": number})
    assert len({json.loads(line).get("object") for line in lines}) > 1
    auto = make.AutoResponseParser().to_arrow(lines).to_pylist()
    assert auto == named_rows
    formats_seen = {row["format"] for row in auto}
    assert formats_seen == {spec.name for spec in formats.WALKED}


def test_unrecognized_shapes(make: Any) -> None:
    parser = make.AutoResponseParser()
    with pytest.raises(ParseError) as raised:
        parser.parse('{"b": 1, "a": [], "b": 2}')
    assert str(raised.value) == "unrecognized response shape (keys: b, a)"
    with pytest.raises(ParseError, match=r"\(an array\)"):
        parser.parse("[1]")
    with pytest.raises(ParseError, match=r"\(keys: x\)"):
        parser.parse({"x": 1})
    keys = {f"k{i}": i for i in range(12)}
    (response,) = parser.parse_many([json.dumps(keys)])
    assert (
        response.error
        == "unrecognized response shape (keys: " + ", ".join(f"k{i}" for i in range(10)) + ", ...)"
    )
    rows = parser.to_arrow([json.dumps(keys), "{}", "not json"]).to_pylist()
    assert [r["error"] for r in rows][:2] == [
        response.error,
        "unrecognized response shape (keys: )",
    ]


def test_batch_error_codes_of_any_size(make: Any) -> None:
    """A Bedrock error code longer than Python converts is written as it was (as the
    envelopes' shared `describe` writes every provider's code)."""
    code = "7" * 4301
    line = '{"recordId": "r", "modelInput": {}, "error": {"errorCode": %s, "errorMessage": "m"}}'
    rows = make.BedrockConverseParser().to_arrow([line % code]).to_pylist()
    assert [(r["custom_id"], r["error"]) for r in rows] == [("r", f"batch error: {code}: m")]
