"""`make oracle`: toolsift's RawTextParser against vLLM's and SGLang's own tool parsers.

Runs in the venv setup.sh builds (torch-free: import-time stand-ins for torch, triton and
vllm.config's package, a tokenizer where each dialect marker is one token and every other
character one token). For every vector in tests/vectors/dialects/<dialect>.json, the calls
and content toolsift reads are compared with each engine's; prints a per-dialect table and
one line per difference. A report, not a gate: exits 0.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import logging
import os
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("ORACLE_VENV", sys.prefix))
os.environ["TOOLSIFT_IMPLEMENTATION"] = "python"
sys.path.insert(0, str(ROOT / "python"))

# dialect -> (vLLM --tool-call-parser, SGLang detector)
ENGINES = {
    "hermes": ("hermes", "hermes"),
    "qwen3-coder": ("qwen3_coder", "qwen3_coder"),
    "seed-oss": ("seed_oss", None),
    "glm": ("glm45", "glm45"),
    "kimi-k2": ("kimi_k2", "kimi_k2"),
    "deepseek-v3": ("deepseek_v3", "deepseekv3"),
    "deepseek-v3.1": ("deepseek_v31", "deepseekv31"),
    "deepseek-dsml": ("deepseek_v32", "deepseekv32"),
    "mistral": ("mistral", "mistral"),
    "llama3-json": ("llama3_json", "llama3"),
    "pythonic": ("pythonic", "pythonic"),
    "granite": ("granite", None),
    "xlam": ("xlam", None),
    "minimax-m2": ("minimax_m2", "minimax-m2"),
    "harmony": ("openai-harmony", "gpt-oss"),
}
MARKERS = """<tool_call> </tool_call> <think> </think> <|im_start|> <|im_end|> <|endoftext|>
<|python_tag|> <|eom_id|> <|eot_id|> <|python_start|> <|python_end|> [TOOL_CALLS] [CALL_ID]
[ARGS] [THINK] [/THINK]
<\uff5ctool▁calls▁begin\uff5c> <\uff5ctool▁calls▁end\uff5c> <\uff5ctool▁call▁begin\uff5c>
<\uff5ctool▁call▁end\uff5c> <\uff5ctool▁sep\uff5c> <\uff5cend▁of▁sentence\uff5c>
<|tool_calls_section_begin|>
<|tool_calls_section_end|> <|tool_call_begin|> <|tool_call_end|> <|tool_call_argument_begin|>
<arg_key> </arg_key> <arg_value> </arg_value> <|observation|> <|user|> <minimax:tool_call>
</minimax:tool_call> <seed:tool_call> </seed:tool_call> <seed:think> </seed:think>
<|tool_call|> <tool_calls> </tool_calls>""".split()


class Tokenizer:
    """Each marker is one token (ids from 0x200000), any other character one (its code)."""

    def __init__(self) -> None:
        import regex

        self.vocab = {m: 0x200000 + i for i, m in enumerate(MARKERS)}
        self._names = {i: m for m, i in self.vocab.items()}
        alts = sorted(MARKERS, key=len, reverse=True)
        self._cut = regex.compile("(" + "|".join(map(regex.escape, alts)) + ")")
        self.all_special_tokens: list[str] = []
        self.all_special_ids: list[int] = []
        self.eos_token_id = self.bos_token_id = None
        self.name_or_path = "toolsift-oracle"

    def get_vocab(self) -> dict[str, int]:
        return dict(self.vocab)

    def __len__(self) -> int:
        return 0x200000 + len(self.vocab)

    vocab_size = property(__len__)

    def encode(self, text: str, **_: object) -> list[int]:
        ids: list[int] = []
        for piece in self._cut.split(text):
            ids.extend([self.vocab[piece]] if piece in self.vocab else map(ord, piece))
        return ids

    def decode(self, ids: object, **_: object) -> str:
        seq = [ids] if isinstance(ids, int) else ids
        return "".join(self._names.get(i) or chr(i) for i in seq)  # type: ignore[union-attr]

    def tokenize(self, text: str, **_: object) -> list[str]:
        return [self.decode(i) for i in self.encode(text)]

    def convert_tokens_to_ids(self, tokens: object) -> object:
        if isinstance(tokens, str):
            return ord(tokens) if len(tokens) == 1 else self.vocab.get(tokens)
        return [self.convert_tokens_to_ids(t) for t in tokens]  # type: ignore[union-attr]

    def convert_ids_to_tokens(self, ids: object, **_: object) -> object:
        return self.decode(ids) if isinstance(ids, int) else [self.decode(i) for i in ids]  # type: ignore[union-attr]

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        return "".join(tokens)


class _Anything(type):
    """A class standing for any name of a stubbed module: callable, subclassable, indexable."""

    def __getattr__(cls, name: str) -> type:
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(f"{cls.__name__}.{name}")

    def __getitem__(cls, _: object) -> type:
        return cls

    def __iter__(cls):  # type: ignore[no-untyped-def]
        return iter(())

    def __or__(cls, _: object) -> type:
        return cls

    __ror__ = __or__

    def __call__(cls, *args: object, **kw: object) -> object:
        if len(args) == 1 and not kw and callable(args[0]):
            return args[0]  # used as a decorator
        return type.__call__(cls)


def _instance_attr(self: object, name: str) -> type:
    if name.startswith("__"):
        raise AttributeError(name)
    return _stand_in(name)


def _stand_in(name: str) -> type:
    body = {"__getattr__": _instance_attr, "__call__": lambda self, *a, **k: self}
    body.update(__init__=lambda self, *a, **k: None, __iter__=lambda self: iter(()))
    body.update(__enter__=lambda self: self, __exit__=lambda self, *a: None)
    return _Anything(name, (), body)


class _StubModule(types.ModuleType):
    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        value = _stand_in(f"{self.__name__}.{name}")
        setattr(self, name, value)
        return value


class _Stubs(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, roots: list[str], attrs: dict[str, dict[str, object]]) -> None:
        self.roots, self.attrs = roots, attrs

    def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
        if name.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):  # type: ignore[no-untyped-def]
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__dict__.update(self.attrs.get(spec.name, {}))
        return module

    def exec_module(self, module):  # type: ignore[no-untyped-def]
        pass


def boot() -> None:
    stubs = VENV / "oracle_stubs"
    os.environ.update(TVM_FFI_DISABLE_TORCH_C_DLPACK="1", VLLM_LOGGING_LEVEL="ERROR")
    os.environ.update(SGLANG_FORWARD_UNKNOWN_TOOLS="1")
    os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(stubs / "harmony_vocab")
    sys.path[1:1] = [str(stubs), str(VENV.parent / "sglang_src")]
    version = {"__version__": "2.14.0"}
    sys.meta_path.insert(0, _Stubs(
        ["torch"],
        {"torch": version, "torch.version": {**version, "cuda": None, "hip": None},
         "torch.library": {"infer_schema": lambda *a, **k: "() -> ()"}},
    ))  # fmt: skip
    sys.modules["vllm.env_override"] = types.ModuleType("vllm.env_override")
    import vllm

    config = _StubModule("vllm.config")
    config.__path__ = [str(Path(vllm.__file__).parent / "config")]
    sys.modules["vllm.config"] = config
    import vllm.tool_parsers  # registers the parsers

    # SGLang's imports, after vLLM's (transformers reads torchvision's version at import).
    gpu = ["triton", "sgl_kernel", "flashinfer", "torchvision", "torchaudio"]
    sys.meta_path.insert(0, _Stubs(gpu, {"triton": {"__version__": "3.4.0"}}))
    logging.disable(logging.CRITICAL)


def _value(arguments: object) -> object:
    if isinstance(arguments, str):
        try:
            return json.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def vllm_parse(parser: str, text: str, tools: list | None) -> tuple[list, object]:
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionRequest,
        ChatCompletionToolsParam,
    )

    kw = {"model": "oracle", "messages": [{"role": "user", "content": "hi"}]}
    request = ChatCompletionRequest(**kw, **({"tools": tools} if tools else {}))
    if parser == "openai-harmony":
        from vllm.entrypoints.openai.parser.harmony_utils import get_encoding
        from vllm.parser.harmony import HarmonyParser
        from vllm.reasoning.gptoss_reasoning_parser import GptOssReasoningParser
        from vllm.tool_parsers.gptoss_tool_parser import GptOssToolParser

        HarmonyParser.reasoning_parser_cls = GptOssReasoningParser
        HarmonyParser.tool_parser_cls = GptOssToolParser
        text = text.removeprefix("<|start|>assistant")
        ids = get_encoding().encode(text, allowed_special="all")
        _, content, calls = HarmonyParser(Tokenizer(), None).parse(
            text, request, enable_auto_tools=True, model_output_token_ids=ids
        )
        return [(c.name, _value(c.arguments)) for c in calls or []], content
    from vllm.tool_parsers import ToolParserManager

    if parser == "pythonic" and "<|python_start|>" in text:
        parser = "llama4_pythonic"
    schemas = [ChatCompletionToolsParam.model_validate(t) for t in tools or []] or None
    info = ToolParserManager.get_tool_parser(parser)(Tokenizer(), schemas).extract_tool_calls(
        text, request
    )
    return [
        (c.function.name, _value(c.function.arguments)) for c in info.tool_calls or []
    ], info.content


def sglang_parse(detector: str, text: str, tools: list | None) -> tuple[list, object]:
    from sglang.srt.entrypoints.openai.protocol import Tool
    from sglang.srt.function_call.function_call_parser import FunctionCallParser

    # SGLang runs no parser on a request without tools: one placeholder (names forwarded).
    placeholder = {"name": "_oracle", "parameters": {"type": "object", "properties": {}}}
    schemas = [
        Tool.model_validate(t) for t in tools or [{"type": "function", "function": placeholder}]
    ]
    normal, calls = FunctionCallParser(schemas, detector).parse_non_stream(text)
    return [(c.name, _value(c.parameters)) for c in calls], normal


# The engines' tool parsers leave reasoning in the content (it is a separate parser's job
# there); toolsift splits it off. Content is compared without reasoning and whitespace.
THINK = r"(?s)(<think>|<seed:think>|\[THINK\]).*?(</think>|</seed:think>|\[/THINK\]|$)|^.*?</think>"


def _blank(content: object) -> object:
    import regex

    return "".join(regex.sub(THINK, "", str(content or "")).split()) or None


def compare(ours, engine, text: str, tools: list | None, run) -> str | None:  # type: ignore[no-untyped-def]
    """None when the engine agrees with toolsift, else a one-line summary."""
    try:
        calls, content = run(engine, text, tools)
    except Exception as exc:  # the oracle reports, never raises
        return f"engine error ({type(exc).__name__}: {str(exc)[:60]})"
    mine = [
        (c.name, c.arguments if c.raw_arguments is None else c.raw_arguments)
        for c in ours.tool_calls
    ]
    if mine != calls:
        names, theirs = [n for n, _ in mine], [n for n, _ in calls]
        if names == theirs:
            return f"calls differ (arguments): {names}"
        return f"calls differ: toolsift {names}, engine {theirs}"
    if _blank(ours.content) != _blank(content):
        return "content differs"
    return None


def main() -> int:
    from toolsift.parsers import RawTextParser

    boot()
    engines = {"vLLM": vllm_parse, "SGLang": sglang_parse}
    rows, notes = [], []
    for dialect, names in ENGINES.items():
        cases = json.loads((ROOT / "tests/vectors/dialects" / f"{dialect}.json").read_text())
        row = [dialect, str(len(cases))]
        for (label, run), engine in zip(engines.items(), names, strict=True):
            if engine is None:
                row.append("-")
                continue
            differ = 0
            for case in cases:
                tools = case.get("tools")
                ours = RawTextParser(dialect, tools=tools).parse(case["input"])
                note = compare(ours, engine, case["input"], tools, run)
                if note:
                    differ += 1
                    notes.append(f"{dialect} / {label} / {case['name']}: {note}")
            row.append(f"{len(cases) - differ} / {differ}")
        rows.append(row)
    print("| dialect | cases | vLLM agree / differ | SGLang agree / differ |")
    print("|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("\n".join(notes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
