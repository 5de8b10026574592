# ruff: noqa: E501  (the table of codes is README-ready Markdown)
"""Checks against the declared tools: the `violations` of each call (the Rust twin:
`src/violations.rs`, line by line; this docstring is the specification).

With `tools=` (or `requests=`), each call gets a list of violation codes, sorted, each
once; empty when the call fits its tool. A code is `kind` or `kind:<path>`, the path a
JSON pointer into the arguments (RFC 6901: `/address/zip`, `/items/0`; `~` and `/` in a
key written `~0` and `~1`). The schemas are checked by a maintained JSON Schema
validator (`jsonschema` on PyPI here, the `jsonschema` crate in Rust; each distinct
schema compiled once per run), whose errors map to codes by this table:

| code | when |
|---|---|
| `missing_request` | `requests=` was given and holds no request for the record's `custom_id` (and there is no `tools=` to fall back on) |
| `unknown_tool` | the call's name is not a declared tool |
| `undecodable_arguments` | the arguments did not decode as a JSON object (`raw_arguments` holds them): nothing to check |
| `invalid_schema` | the tool's schema is not a valid JSON Schema (or a `$ref` in it does not resolve in it) |
| `missing_required:<path>` | `required` (and `dependentRequired`): the path of the missing property |
| `unexpected_property:<path>` | `additionalProperties: false`: the path of each property it forbids |
| `unevaluated_property:<path>` | `unevaluatedProperties`: the path of the object |
| `numeric_string:<path>` | `type` wants an `integer` or a `number` and the value is a string holding a JSON number (`"42"`) |
| `wrong_type:<path>` | `type`, otherwise (an integer is a number; `1.0` is an integer, as JSON Schema says) |
| `not_in_enum:<path>` | `enum`, `const` |
| `pattern:<path>` | `pattern` |
| `length:<path>` | `minLength`, `maxLength` |
| `range:<path>` | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf` |
| `items:<path>` | `minItems`, `maxItems`, `uniqueItems`, `contains` (and its bounds), `items` / `additionalItems: false`, `unevaluatedItems` |
| `properties:<path>` | `minProperties`, `maxProperties`, `propertyNames` |
| `no_match:<path>` | `anyOf`, `oneOf` (none, or for `oneOf` more than one, of the options fits) |
| `not:<path>` | `not`, and a `false` schema |
| `other:<path>` | any other keyword |

* `format` is not checked (both validators leave it an annotation). A schema's draft is
  its `$schema` (default: 2020-12). No `$ref` is fetched from the network or a file.
* A tool declared without a schema fits any arguments (`{}`); a custom tool (free-text
  input) is not checked (its list is empty).
* The call's tools: the request's (by the record's `custom_id`, which batch files fill
  from `custom_id`, `recordId` or `key`) when `requests=` is given and holds it, else
  `tools=`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

from toolsift._jsontext import _generous_limits, dumps_compact, loads
from toolsift._pure.tools import Definitions, read_definitions

T = TypeVar("T")

__all__ = ["Checks", "read_requests"]

#: A JSON number, whole (a string holding one is a `numeric_string`).
NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

#: The code of each keyword (those not here are `other`).
CODES = {
    "required": "missing_required",
    "dependentRequired": "missing_required",
    "additionalProperties": "unexpected_property",
    "unevaluatedProperties": "unevaluated_property",
    "type": "wrong_type",
    "enum": "not_in_enum",
    "const": "not_in_enum",
    "pattern": "pattern",
    "minLength": "length",
    "maxLength": "length",
    "minimum": "range",
    "maximum": "range",
    "exclusiveMinimum": "range",
    "exclusiveMaximum": "range",
    "multipleOf": "range",
    "minItems": "items",
    "maxItems": "items",
    "uniqueItems": "items",
    "contains": "items",
    "minContains": "items",
    "maxContains": "items",
    "items": "items",
    "additionalItems": "items",
    "unevaluatedItems": "items",
    "minProperties": "properties",
    "maxProperties": "properties",
    "propertyNames": "properties",
    "anyOf": "no_match",
    "oneOf": "no_match",
    "not": "not",
    None: "not",  # a `false` schema
}

#: The keys of a request line that name it, in order (batch input files).
REQUEST_KEYS = ("custom_id", "recordId", "key")
#: The keys of a request line that hold its body, in order (OpenAI, Anthropic, Gemini,
#: Bedrock batch input files); a line with none of them is the body itself (a log).
BODY_KEYS = ("body", "params", "request", "modelInput")


def pointer(parts: Any) -> str:
    """The JSON pointer of a path (keys and indexes)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


class _Unchecked:
    """A schema that could not be compiled."""


class Checks:
    """The tools calls are checked against: `tools` (the JSON text of definitions, any
    shape `read_definitions` takes) and `requests` (a JSONL request file's bytes, or a
    binary file object to read them from, read by `read_requests`; `name` names it in
    errors). ValueError for tools of no shape; what the file object raises, as it raised
    it."""

    def __init__(
        self,
        tools: str | None = None,
        requests: bytes | IO[bytes] | None = None,
        name: str = "requests",
    ) -> None:
        self._tools = None if tools is None else read_definitions(loads(tools))
        if requests is None:
            self._requests = None
        elif isinstance(requests, bytes):
            self._requests = read_requests(requests.split(b"\n"), name)
        else:
            self._requests = read_requests(lines_of(requests), name)
        self._compiled: dict[str, Any] = {}  # by the schema's JSON text: compiled once

    def violations(self, custom_id: str | None, name: str, arguments: str | None) -> list[str]:
        """The codes of a call whose arguments are the JSON object text `arguments` (None:
        they did not decode)."""
        try:
            decoded = None if arguments is None else loads(arguments)
        except ValueError:
            decoded = None
        return self.of_call(custom_id, name, decoded)

    def of_call(self, custom_id: str | None, name: str, arguments: Any) -> list[str]:
        """The codes of a call; `arguments` is its decoded object (None: it did not
        decode)."""
        tools = self._tools
        if self._requests is not None:
            found = None if custom_id is None else self._requests.get(custom_id)
            tools = tools if found is None else found
            if tools is None:
                return ["missing_request"]
        if tools is None:
            return []
        if name not in tools:
            return ["unknown_tool"]
        schema = tools[name]
        if schema is None:
            return []
        if arguments is None:
            return ["undecodable_arguments"]
        validator = self._validator(schema)
        if isinstance(validator, _Unchecked):
            return ["invalid_schema"]
        from referencing.exceptions import Unresolvable

        try:
            try:
                codes = _all_codes(validator, arguments)
            except RecursionError as hit:  # a schema recursing, arguments nested deep
                codes = _deep(hit, _all_codes, validator, arguments)
        except Unresolvable:
            return ["invalid_schema"]
        return sorted(codes)

    def _validator(self, schema: Any) -> Any:
        key = dumps_compact(schema)
        validator = self._compiled.get(key)
        if validator is None:
            validator = self._compiled[key] = _compile(schema)
        return validator


def _compile(schema: Any) -> Any:
    try:
        import jsonschema  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise ImportError(
            "the pure backend checks calls with jsonschema: pip install 'toolsift[checks]'"
        ) from exc
    if not isinstance(schema, (dict, bool)):
        return _Unchecked()
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        return _Unchecked()
    return cls(schema)


def _all_codes(validator: Any, arguments: Any) -> set[str]:
    codes: set[str] = set()
    for error in validator.iter_errors(arguments):
        codes.update(_codes(error))
    return codes


DEEP_LIMITS = ((16, 64 << 20), (128, 1 << 30))
"""The Python frames the validator may take for each level of arguments nested
`MAX_DEPTH` deep, and the stack of the thread that checks them (room for that many
frames: each nested generator the validator resumes takes C stack too), tried in turn: 4
frames a level for a schema whose `items` refer to itself, 10 through an `allOf` and an
`anyOf`, about two more for each `allOf` wrapped around a level's schema. The second
stack is only reserved: its pages are used as deep as the check goes. The Rust validator
checks any such schema; past about 60 wrappers a level on arguments 1,000 deep, this one
still raises `RecursionError`."""


def _deep(hit: RecursionError, check: Callable[..., T], *args: Any) -> T:
    """`check(*args)`, which hit the recursion limit (`hit`), on a thread of its own with
    a deep stack and the recursion limit lifted, by each of `DEEP_LIMITS` while it is hit
    again; its exception raised here (the last `RecursionError` where each is hit, or no
    thread of the next stack can start)."""
    last = hit
    for frames_per_level, stack_bytes in DEEP_LIMITS:
        try:
            return _on_deep_stack(frames_per_level, stack_bytes, check, *args)
        except RecursionError as exc:
            last = exc
        except _NoThread:
            break
    raise last


class _NoThread(Exception):
    """A thread with that stack could not start (its memory refused)."""


def _on_deep_stack(
    frames_per_level: int, stack_bytes: int, check: Callable[..., T], *args: Any
) -> T:
    found: list[T] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            found.append(check(*args))
        except BaseException as exc:  # raised on the caller's thread
            failed.append(exc)

    with _generous_limits(frames_per_level):
        with _DEEP_LOCK:  # the stack size is read by each thread started, process-wide
            previous = threading.stack_size(stack_bytes)
            try:
                thread = threading.Thread(target=run, name="toolsift-deep-check")
                thread.start()
            except (RuntimeError, MemoryError) as exc:
                raise _NoThread from exc
            finally:
                threading.stack_size(previous)
        thread.join()
    if failed:
        raise failed[0]
    return found[0]


_DEEP_LOCK = threading.Lock()


def _codes(error: Any) -> list[str]:
    """The codes of one error of the validator."""
    path = pointer(error.absolute_path)
    if "propertyNames" in error.absolute_schema_path:
        return [f"properties:{path}"]
    keyword = error.validator
    instance = error.instance
    if keyword in ("required", "dependentRequired"):
        wanted = error.validator_value
        if keyword == "dependentRequired":
            wanted = [need for key, needs in wanted.items() if key in instance for need in needs]
        return [f"missing_required:{path}{pointer([key])}" for key in wanted if key not in instance]
    if keyword == "additionalProperties":
        return [f"unexpected_property:{path}{pointer([key])}" for key in _extra(error)]
    if keyword == "type":
        wanted = error.validator_value
        wanted = [wanted] if isinstance(wanted, str) else wanted
        numeric = isinstance(instance, str) and NUMBER.fullmatch(instance) is not None
        if numeric and ("integer" in wanted or "number" in wanted):
            return [f"numeric_string:{path}"]
    return [f"{CODES.get(keyword, 'other')}:{path}"]


def _extra(error: Any) -> list[str]:
    """The properties `additionalProperties: false` forbids in the error's object."""
    schema = error.schema
    properties = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    return [
        key
        for key in error.instance
        if key not in properties and not any(re.search(pattern, key) for pattern in patterns)
    ]


def lines_of(file: IO[bytes], piece_size: int = 1 << 20) -> Iterator[bytes]:
    """The lines of a binary file object (without their `\\n`), read a piece at a time
    with `read(n)` as the Rust core reads it."""
    pending: list[bytes] = []  # the pieces of the line not yet ended
    while piece := file.read(piece_size):
        start = 0
        while (end := piece.find(b"\n", start)) >= 0:
            pending.append(piece[start:end])
            yield b"".join(pending)
            pending.clear()
            start = end + 1
        pending.append(piece[start:])
    yield b"".join(pending)


def read_requests(lines: Iterable[bytes], name: str) -> dict[str, Definitions]:
    """Each request's tools by its key (`REQUEST_KEYS`), from the `lines` of a JSONL file
    (a batch input file or a request log; lines end at `\\n` only); the first request of a
    key wins, a line without a key is skipped, a request without tools declares none.
    ValueError names a line that is not JSON, or whose tools are of no shape."""
    requests: dict[str, Definitions] = {}
    seen: dict[str, Definitions] = {}  # the same tools, read once
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            request = loads(line)
        except ValueError as exc:
            raise ValueError(f"{name}, line {number}: not JSON: {exc}") from None
        if not isinstance(request, dict):
            continue
        key = next((request[k] for k in REQUEST_KEYS if isinstance(request.get(k), str)), None)
        if key is None or key in requests:
            continue
        body = next((request[k] for k in BODY_KEYS if isinstance(request.get(k), dict)), request)
        declared = {
            key: body[key]
            for key, kind in (("tools", list), ("toolConfig", dict))
            if isinstance(body.get(key), kind)
        }
        text_of = dumps_compact(declared)
        tools = seen.get(text_of)
        if tools is None:
            try:
                tools = seen[text_of] = read_definitions(declared) if declared else {}
            except ValueError as exc:
                raise ValueError(f"{name}, line {number}: {exc}") from None
        requests[key] = tools
    return requests
