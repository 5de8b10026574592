"""Auto-detection of the XML-style dialects on the pure twin (the same table runs on the
Rust core: `detection_tells_the_tool_call_dialects_apart` in src/dialects/xmlcalls.rs)."""

from __future__ import annotations

import pytest
from toolsift._pure import dialects

D = "\uff5cDSML\uff5c"
DETECTED = [
    ("<seed:tool_call>\n<function=f>\n</function>\n</seed:tool_call>", "seed-oss"),
    ("x <tool_call>\n  <function=f>\n</function>\n</tool_call>", "qwen3-coder"),
    ("<tool_call>get_weather\n<arg_key>city</arg_key>", "glm"),
    ("<tool_call>get_time</tool_call>", "glm"),
    ('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>', None),
    ("<tool_call>\n[1]</tool_call>", None),
    ("<tool_call>\n</tool_call>", None),
    ('<minimax:tool_call>\n<invoke name="f">', "minimax-m2"),
    (f'<{D}function_calls>\n<{D}invoke name="f">', "deepseek-dsml"),
    (f"<{D}tool_calls>", "deepseek-dsml"),
    ("no markers at all", None),
]


@pytest.mark.parametrize(("text", "dialect"), DETECTED)
def test_detected(text: str, dialect: str | None) -> None:
    mine = {"seed-oss", "qwen3-coder", "glm", "minimax-m2", "deepseek-dsml"}
    found = next((name for name in dialects.DIALECTS if dialects.DIALECTS[name].detect(text)), None)
    assert (found if found in mine else None) == dialect
