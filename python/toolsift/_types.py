"""The normalized shape every parser returns. One definition, used by both backends."""

from __future__ import annotations

from typing import Any, Protocol

from toolsift._jsontext import _generous_limits, _safe_repr

__all__ = ["CALL_LEVEL_COLUMNS", "COLUMNS", "AgentResponse", "Stream", "ToolCall"]

COLUMNS = (
    "record",
    "custom_id",
    "format",
    "call_index",
    "id",
    "name",
    "arguments",
    "raw_arguments",
    "error",
    "defect",
    "repairs",
    "violations",
    "model",
    "response_id",
    "finish_reason",
    "choice_index",
    "call_type",
    "error_kind",
    "http_status",
    "turn",
    "result",
    "result_error",
)
"""The columns of a table of calls (`to_arrow`, `toolsift extract`), in order: one row
per call, or one per record that could not be read."""

CALL_LEVEL_COLUMNS: tuple[str, ...] = (
    "call_index",
    "id",
    "name",
    "arguments",
    "raw_arguments",
    "defect",
)
CALL_LEVEL_COLUMNS += ("repairs", "violations", "finish_reason", "choice_index", "call_type")
CALL_LEVEL_COLUMNS += ("turn", "result", "result_error")
"""The columns of `COLUMNS` that describe one call; every other one describes its record.
With `rows="records"` (one row per record) these go into the list-of-struct column
`tool_calls`, and the record's own columns stay columns (`toolsift._bulk.by_record`)."""


_NESTED = (dict, list, tuple)


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a decoded JSON value, equal where the values are equal.

    Dicts become frozensets of (key, value) pairs, lists and tuples tuples, sets
    frozensets. Iterative (an explicit stack), so arguments nested 1024 deep, which
    both backends decode, hash without hitting Python's recursion limit.
    """
    if not isinstance(value, _NESTED):
        return frozenset(value) if isinstance(value, (set, frozenset)) else value
    # Each frame: (the container, its items iterator, its frozen items so far, its key
    # in the parent dict).
    stack: list[tuple[Any, Any, list[Any], Any]] = []
    open_ids: set[int] = set()  # the containers on the stack: a cycle has no stand-in

    def enter(container: Any, key: Any) -> None:
        if id(container) in open_ids:
            raise ValueError("arguments contain a reference cycle")
        open_ids.add(id(container))
        items = container.items() if isinstance(container, dict) else container
        stack.append((container, iter(items), [], key))

    enter(value, None)
    while True:
        container, items, frozen, _ = stack[-1]
        is_dict = isinstance(container, dict)
        for item in items:
            key, child = item if is_dict else (None, item)
            if isinstance(child, _NESTED):
                enter(child, key)
                break
            if isinstance(child, (set, frozenset)):
                child = frozenset(child)
            frozen.append((key, child) if is_dict else child)
        else:
            _, _, _, key = stack.pop()
            open_ids.discard(id(container))
            result = frozenset(frozen) if is_dict else tuple(frozen)
            if not stack:
                return result
            parent = stack[-1]
            parent[2].append((key, result) if isinstance(parent[0], dict) else result)


def _equal(a: Any, b: Any) -> bool:
    """`a == b`, also for values nested as deep as the backends decode (1024 levels),
    beyond the recursion limit of Python's own comparison."""
    try:
        return bool(a == b)
    except RecursionError:
        with _generous_limits():
            return bool(a == b)


class ToolCall:
    """One tool call: its name and its arguments as a dict.

    `id` is the provider's call id where it gives one. `raw_arguments` keeps the original
    argument text whenever it could not be decoded into a JSON object (then `arguments`
    is `{}`), so nothing is lost. Equality and hash use `name` and `arguments` only.

    `defect` says why `raw_arguments` did not decode (a code of the README's table;
    None where it decoded, and for a custom tool's input, free text by design). With
    `repair="safe"`, a call whose text the audited repairs make an object has that
    object as `arguments`, the original text still in `raw_arguments`, and the codes
    of the repairs in `repairs` (None where none was made; in `model_dump()` where
    set).

    `violations` lists how the call fails the declared tools (checked with `tools=` or
    `requests=`: the codes of `toolsift._pure.violations`), None when not checked.

    A call read from a conversation transcript (`MessagesParser`) also has `turn` (the
    index of the assistant message that made it), `result` (its tool's answer: a string
    as given, any other value as compact JSON text; None where no result was found, or
    the result had no value) and `result_error` (True when the result says the call
    failed, False when it does not say so, None when no result was found); None for
    every other parser, and absent from `model_dump()` then.
    """

    # The optional fields' slots (`_defect` ... `_violations`) stay unset (read as None).
    __slots__ = (
        "_defect",
        "_repairs",
        "_result",
        "_result_error",
        "_turn",
        "_violations",
        "arguments",
        "id",
        "name",
        "raw_arguments",
    )

    name: str
    arguments: dict[str, Any]
    id: str | None
    raw_arguments: str | None
    _violations: list[str] | None
    _turn: int | None
    _result: str | None
    _result_error: bool | None

    def __init__(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        id: str | None = None,
        raw_arguments: str | None = None,
        *,
        defect: str | None = None,
        repairs: list[str] | None = None,
        violations: list[str] | None = None,
        turn: int | None = None,
        result: str | None = None,
        result_error: bool | None = None,
    ) -> None:
        self.name = name
        self.arguments = {} if arguments is None else arguments
        self.id = id
        self.raw_arguments = raw_arguments
        if defect is not None:
            self._defect = defect
        if repairs is not None:
            self._repairs = repairs
        if violations is not None:
            self._violations = violations
        if turn is not None:
            self._turn = turn
        if result is not None:
            self._result = result
        if result_error is not None:
            self._result_error = result_error

    @property
    def defect(self) -> str | None:
        """Why `raw_arguments` did not decode as a JSON object (one code), or None."""
        try:
            return self._defect
        except AttributeError:
            return None

    @property
    def repairs(self) -> list[str] | None:
        """The codes of the audited repairs that made `arguments` (`repair="safe"`), or
        None."""
        try:
            return self._repairs
        except AttributeError:
            return None

    @property
    def violations(self) -> list[str] | None:
        """The violation codes of the call (empty: it fits), None when not checked."""
        try:
            return self._violations
        except AttributeError:
            return None

    @violations.setter
    def violations(self, value: list[str] | None) -> None:
        self._violations = value

    @property
    def turn(self) -> int | None:
        """A transcript's call: the index of the message that made it; else None."""
        try:
            return self._turn
        except AttributeError:
            return None

    @turn.setter
    def turn(self, value: int | None) -> None:
        self._turn = value

    @property
    def result(self) -> str | None:
        """A transcript's call: its tool's answer (compact JSON text where it was not a
        string); None where no result was found or it had no value."""
        try:
            return self._result
        except AttributeError:
            return None

    @result.setter
    def result(self, value: str | None) -> None:
        self._result = value

    @property
    def result_error(self) -> bool | None:
        """A transcript's call: whether its result says it failed; None: no result."""
        try:
            return self._result_error
        except AttributeError:
            return None

    @result_error.setter
    def result_error(self, value: bool | None) -> None:
        self._result_error = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolCall):
            return NotImplemented
        return self.name == other.name and _equal(self.arguments, other.arguments)

    def __hash__(self) -> int:
        return hash((self.name, _freeze(self.arguments)))

    def __repr__(self) -> str:
        extra = ""
        if self.id is not None:
            extra += f", id={self.id!r}"
        if self.raw_arguments is not None:
            extra += f", raw_arguments={self.raw_arguments!r}"
        if self.defect is not None:
            extra += f", defect={self.defect!r}"
        if self.repairs is not None:
            extra += f", repairs={self.repairs!r}"
        if self.violations is not None:
            extra += f", violations={self.violations!r}"
        for name in _TRANSCRIPT:
            if getattr(self, name) is not None:
                extra += f", {name}={getattr(self, name)!r}"
        # _safe_repr: arguments nested 1024 deep are beyond repr's own recursion limit.
        return f"ToolCall(name={self.name!r}, arguments={_safe_repr(self.arguments)}{extra})"

    def model_dump(self) -> dict[str, Any]:
        """A plain dict of the four fields (pydantic-style name, for russo users), and
        `repairs` where it is set (`repair="safe"` changed `arguments`), `violations`
        where it is not None, and a transcript's `turn`, `result` and `result_error`
        where they are not None (russo's ToolCall has none of them). `defect` is left
        out: it is read from `raw_arguments`, and dumps stay russo's."""
        dumped: dict[str, Any] = {
            "name": self.name,
            "arguments": self.arguments,
            "id": self.id,
            "raw_arguments": self.raw_arguments,
        }
        if self.repairs is not None:
            dumped["repairs"] = self.repairs
        if self.violations is not None:
            dumped["violations"] = self.violations
        for name in _TRANSCRIPT:
            if getattr(self, name) is not None:
                dumped[name] = getattr(self, name)
        return dumped

    to_dict = model_dump

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (self.name, self.arguments, self.id, self.raw_arguments)
        optional = (self.defect, self.repairs, self.violations, *self._transcript())
        if all(value is None for value in optional):
            return (ToolCall, fields)
        return (_tool_call, (*fields, *optional))

    def _transcript(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _TRANSCRIPT)


_TRANSCRIPT = ("turn", "result", "result_error")
"""ToolCall's fields that only a transcript's calls have (`MessagesParser`)."""


def _tool_call(
    name: str,
    arguments: dict[str, Any],
    id: str | None,
    raw_arguments: str | None,
    defect: str | None,
    repairs: list[str] | None,
    violations: list[str] | None = None,
    turn: int | None = None,
    result: str | None = None,
    result_error: bool | None = None,
) -> ToolCall:
    """A ToolCall with its optional fields (unpickling)."""
    return ToolCall(
        name,
        arguments,
        id,
        raw_arguments,
        defect=defect,
        repairs=repairs,
        violations=violations,
        turn=turn,
        result=result,
        result_error=result_error,
    )


class AgentResponse:
    """The tool calls found in one response.

    `raw` is the caller's input object itself. `error` says why there are no calls where
    something went wrong: a record the batch and file APIs could not read at all, or a
    stream that failed or held only pieces of calls (then `tool_calls` is empty).
    `content` and `reasoning` are what `RawTextParser` reads around the calls of a
    model's raw text: the text outside the calls (markers removed) and the text of its
    reasoning blocks; None where there is none, and for every other parser.

    `carried` holds the fields `parse_file(carry=[...])` names, `{dot path: value}` (the
    value as decoded from the line, None where the path leads nowhere); None without
    `carry`, and absent from `model_dump()` then.
    """

    # `_carried` stays unset (read as None) without `carry=`.
    __slots__ = ("_carried", "content", "error", "raw", "reasoning", "tool_calls")

    tool_calls: list[ToolCall]
    raw: Any
    error: str | None
    content: str | None
    reasoning: str | None
    _carried: dict[str, Any] | None

    def __init__(
        self,
        tool_calls: list[ToolCall] | None = None,
        raw: Any = None,
        error: str | None = None,
        content: str | None = None,
        reasoning: str | None = None,
        *,
        carried: dict[str, Any] | None = None,
    ) -> None:
        self.tool_calls = [] if tool_calls is None else tool_calls
        self.raw = raw
        self.error = error
        self.content = content
        self.reasoning = reasoning
        if carried is not None:
            self._carried = carried

    @property
    def carried(self) -> dict[str, Any] | None:
        """The carried fields (`parse_file(carry=...)`), `{dot path: value}`, or None."""
        try:
            return self._carried
        except AttributeError:
            return None

    @carried.setter
    def carried(self, value: dict[str, Any] | None) -> None:
        self._carried = value

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentResponse):
            return NotImplemented
        return (
            _equal(self.tool_calls, other.tool_calls)
            and _equal(self.raw, other.raw)
            and self.error == other.error
            and self.content == other.content
            and self.reasoning == other.reasoning
            and _equal(self.carried, other.carried)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like a pydantic model

    def __repr__(self) -> str:
        extra = "" if self.error is None else f", error={self.error!r}"
        if self.content is not None:
            extra += f", content={self.content!r}"
        if self.reasoning is not None:
            extra += f", reasoning={self.reasoning!r}"
        if self.carried is not None:
            extra += f", carried={_safe_repr(self.carried)}"
        calls, raw = _safe_repr(self.tool_calls), _safe_repr(self.raw)
        return f"AgentResponse(tool_calls={calls}, raw={raw}{extra})"

    def model_dump(self) -> dict[str, Any]:
        """A plain dict; tool calls become dicts too. `content`, `reasoning` and
        `carried` are in it where they are not None (russo's AgentResponse has none)."""
        dumped: dict[str, Any] = {
            "tool_calls": [call.model_dump() for call in self.tool_calls],
            "raw": self.raw,
            "error": self.error,
        }
        if self.content is not None:
            dumped["content"] = self.content
        if self.reasoning is not None:
            dumped["reasoning"] = self.reasoning
        if self.carried is not None:
            dumped["carried"] = self.carried
        return dumped

    to_dict = model_dump

    def __reduce__(self) -> tuple[Any, ...]:
        fields = (self.tool_calls, self.raw, self.error, self.content, self.reasoning)
        if self.carried is None:
            return (AgentResponse, fields)
        return (_agent_response, (*fields, self.carried))


def _agent_response(
    tool_calls: list[ToolCall],
    raw: Any,
    error: str | None,
    content: str | None,
    reasoning: str | None,
    carried: dict[str, Any] | None,
) -> AgentResponse:
    """An AgentResponse with its carried fields (unpickling)."""
    return AgentResponse(tool_calls, raw, error, content, reasoning, carried=carried)


class Stream(Protocol):
    """What `parser.stream()` returns: an accumulator of one provider's stream events
    (docs: Streaming). Both backends' accumulators have these methods."""

    def feed(self, event: Any) -> list[ToolCall]:
        """Read one event (a dict, an SDK event object, `str` / `bytes` of one JSON
        event, or a chunk of SSE text); the calls it completed, in order."""
        ...

    def partial(self) -> list[ToolCall]:
        """Every call started so far, arguments decoded as far as they arrived."""
        ...

    def finish(self) -> AgentResponse:
        """Every call, in the provider's order; `raw` is the list of events fed."""
        ...
