"""toolsift: LLM tool calls from every provider's shape into one, at the speed of the disk."""

from toolsift._backend import IMPLEMENTATION
from toolsift._bulk import Files
from toolsift._errors import FormatMismatchWarning, ParseError
from toolsift._types import AgentResponse, Stream, ToolCall

__version__ = "0.1.0"

__all__ = [
    "IMPLEMENTATION",
    "AgentResponse",
    "Files",
    "FormatMismatchWarning",
    "ParseError",
    "Stream",
    "ToolCall",
    "__version__",
]
