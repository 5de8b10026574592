"""The pure-Python backend: the readable specification the Rust backend is held to."""

from toolsift._pure.walk import Parser

__all__ = ["Parser"]
