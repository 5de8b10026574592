"""The numbers `_jsontext.loads` decodes that Python's own types do not hold: a leaf
module (it imports nothing of toolsift), so that `_errors` and `_jsontext` can both name
them without importing each other."""

from __future__ import annotations

__all__ = ["HugeFloat", "TooLongInt"]


class TooLongInt:
    """An integer with more digits than Python converts (`sys.get_int_max_str_digits()`:
    `json.loads` refuses it, and converting it takes quadratic time): its text, never
    converted. Arguments holding one are not decoded (`holds_too_long_int`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class HugeFloat(float):
    """A number beyond the float range (``1e400``): ``inf`` that keeps its text, made only
    inside `keeping_number_text` (for the `arguments` column: `Infinity` is not JSON).
    `text` is spelled as serde_json hands it over (``e``, a ``+`` on a positive exponent),
    so both backends write the same."""

    text: str

    def __new__(cls, value: float, text: str) -> HugeFloat:
        self = super().__new__(cls, value)
        mantissa, e, exponent = text.lower().partition("e")
        if e and exponent[:1] not in ("+", "-"):
            exponent = "+" + exponent
        self.text = mantissa + e + exponent
        return self
