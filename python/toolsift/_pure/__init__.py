"""The pure-Python backend: the readable specification the Rust backend is held to."""

from toolsift._pure.litert import clean_raw_for_history, extract_tool_calls
from toolsift._pure.walk import Parser

__all__ = ["Parser", "clean_raw_for_history", "extract_tool_calls"]
