"""The toolkit every format's stream reader builds on (the twin of `src/accumulator.rs`):
the `Accumulator` of a stream's calls (names and ids set once, arguments appended to one
buffer, so feeding costs linear time), values at JSON paths, and the helpers that read an
event. Below the formats: how a format's events map onto the accumulator is its module's
`stream_event`. The rules are in `toolsift._pure.stream`'s docstring."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from toolsift._pure.calls import Verbatim, arguments_of
from toolsift._pure.defects import with_defect
from toolsift._pure.nodes import field
from toolsift._pure.partial import PartialJson
from toolsift._types import ToolCall

__all__ = ["Accumulator", "Slot"]


class Slot:
    """One call being assembled."""

    __slots__ = (
        "arrival",
        "done",
        "id",
        "item",
        "key",
        "name",
        "partial",
        "parts",
        "paths",
        "verbatim",
        "whole",
    )

    def __init__(self, key: tuple[int, int], item: str | None, arrival: int) -> None:
        self.key = key
        self.item = item  # the provider's item id, where calls are found by it too
        self.arrival = arrival  # its place among the stream's calls, in order of arrival
        self.name: str | None = None
        self.id: str | None = None
        self.parts: list[str] = []
        self.whole: Any = None
        self.verbatim = False
        self.done = False
        # Arguments streamed as values at JSON paths (Gemini 3 `partial_args`):
        # [path, value, continuing] in order.
        self.paths: list[list[Any]] = []
        # What `partial()` read of the argument text so far (fragments only extend it);
        # None before the first `partial()`, or after the text was replaced.
        self.partial: PartialJson | None = None

    def arguments(self) -> Any:
        """The arguments value as found: the fragments joined, else the object the
        values at paths make, else the whole value."""
        text = "".join(self.parts)
        if text:
            self.parts = [text]
            return text
        if self.paths:
            return object_at_paths(self.paths)
        return self.whole


class Accumulator:
    """The calls of one stream, keyed the provider's way."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self._by_key: dict[tuple[int, int], Slot] = {}
        # Lookups that would otherwise scan every call (a stream may hold thousands): the
        # first call to arrive with each (major, id) and each item id, and the largest
        # minor key of each major.
        self._by_id: dict[tuple[int, str], Slot] = {}
        self._by_item: dict[str, Slot] = {}
        self._last_minor: dict[int, int] = {}
        self.done_now: list[Slot] = []
        self.serial = 0  # for calls that arrive whole
        # For formats to find calls by their own rules: a key to the call it now means,
        # and the latest call of each major key.
        self.routes: dict[tuple[int, int], Slot] = {}
        self.latest: dict[int, Slot] = {}
        # Messages started so far (Anthropic `message_start`, Bedrock `messageStart`): the
        # group of the blocks now arriving, as each message's block indices start at 0.
        self.message = 0
        # A piece of a call whose start was not fed (Gemini 3 `partial_args` without a
        # name, no call going on): it gives no call; where no call came, `FRAGMENT`.
        self.fragment = False
        self.error: str | None = None  # the first error event (`provider_error`)

    def provider_error(self, error: Any, code: str | None = None) -> None:
        """An error event of the provider's: the stream failed there. Where no call came,
        the response's `error` is `stream error: ` and the error's text (`error_text`;
        `code` where the event names the error by its key, as Bedrock does); the first
        one is kept."""
        if self.error is None:
            text = None if error is None else error_text(error, code)
            self.error = f"{STREAM_ERROR}: {'(no message)' if text is None else text}"

    def slot(self, key: tuple[int, int], item: str | None = None) -> Slot:
        """The call at `key` (made if new)."""
        found = self._by_key.get(key)
        if found is None:
            found = Slot(key, item, len(self.slots))
            self.slots.append(found)
            self._by_key[key] = found
            major, minor = key
            last = self._last_minor.get(major)
            if last is None or minor > last:
                self._last_minor[major] = minor
            self._index_item(found)
        elif found.item is None and isinstance(item, str):
            found.item = item
            self._index_item(found)
        return found

    def existing(self, key: tuple[int, int]) -> Slot | None:
        return self._by_key.get(key)

    def set_id(self, slot: Slot, id: Any) -> None:
        """Set once: the first non-empty string (the call is then found by it)."""
        if slot.id is None and isinstance(id, str) and id:
            slot.id = id
            _keep_first(self._by_id, (slot.key[0], id), slot)

    def by_id(self, major: int, id: Any) -> Slot | None:
        """The call of `major` with this id, if one was started (the first to arrive)."""
        return self._by_id.get((major, id)) if isinstance(id, str) else None

    def by_item(self, item: Any) -> Slot | None:
        """The call with this provider item id, if one was started (the first to arrive)."""
        return self._by_item.get(item) if isinstance(item, str) else None

    def _index_item(self, slot: Slot) -> None:
        if isinstance(slot.item, str):
            _keep_first(self._by_item, slot.item, slot)

    def start(self, group: int, index: int | None, item: str | None = None) -> Slot:
        """The call a start event begins at `index` of `group` (without an index: after
        the group's others); it is now the group's latest."""
        slot = self.slot(self.new_key(group) if index is None else (group, index), item)
        self.latest[group] = slot
        return slot

    def started(self, group: int, index: int | None) -> Slot | None:
        """The call started at `index` of `group` (without an index: the group's latest),
        if one was."""
        return self.latest.get(group) if index is None else self.existing((group, index))

    def new_key(self, major: int) -> tuple[int, int]:
        """A key after every other one of `major` (a call with no index of its own)."""
        return major, self._last_minor.get(major, -1) + 1

    def whole_call(self, name: Any, id: Any, arguments: Any, verbatim: bool = False) -> None:
        """A call that arrived whole (Gemini, Ollama): started and completed at once."""
        if isinstance(arguments, Verbatim):
            arguments, verbatim = arguments.value, True
        slot = self.slot((-1, self.serial))
        self.serial += 1
        set_name(slot, name)
        self.set_id(slot, id)
        set_whole(slot, arguments)
        slot.verbatim = verbatim
        self.complete(slot)

    def complete(self, slot: Slot) -> None:
        if not slot.done:
            slot.done = True
            self.done_now.append(slot)

    def complete_all(self, major: int | None = None) -> None:
        """Every call (of `major`, where given) not completed yet, in key order."""
        for slot in self.ordered():
            if major is None or slot.key[0] == major:
                self.complete(slot)

    def ordered(self) -> list[Slot]:
        """The calls in the provider's order: by key (stable: then by arrival). Calls
        that arrived whole keep their arrival order among themselves."""
        return sorted(self.slots, key=lambda slot: slot.key)


def set_name(slot: Slot, name: Any) -> None:
    """Set once: the first non-empty string."""
    if slot.name is None and isinstance(name, str) and name:
        slot.name = name


def _keep_first(index: dict[Any, Slot], key: Any, slot: Slot) -> None:
    """`index[key] = slot`, unless a call that arrived before it is there."""
    there = index.get(key)
    if there is None or slot.arrival < there.arrival:
        index[key] = slot


def append(slot: Slot, fragment: Any) -> None:
    """An argument fragment (a string; anything else is ignored)."""
    if isinstance(fragment, str) and fragment:
        if not slot.parts:  # `partial()` may have read the whole value's text till now
            slot.partial = None
        slot.parts.append(fragment)


def set_whole(slot: Slot, value: Any) -> None:
    """The whole arguments value (an object, or the whole text); fragments, where any
    came, stay ahead of it."""
    if value is not None:
        slot.whole = value
        slot.partial = None


def set_text(slot: Slot, text: Any) -> None:
    """The whole argument text (a `.done` event's): it replaces the fragments."""
    if isinstance(text, str):
        slot.parts = [text]
        slot.partial = None


MAX_PATH_STEPS = 64
"""A JSON path of more steps is ignored (it sets nothing)."""
MAX_PATH_INDEX = 10_000
"""A JSON path with a larger array index is ignored (it sets nothing)."""


def add_path_value(slot: Slot, path: str, value: Any, continuing: bool) -> None:
    """A value at a JSON path; a string continues the one before at the same path
    where that one said it would go on."""
    last = slot.paths[-1] if slot.paths else None
    if last is not None and last[0] == path and last[2] and isinstance(value, str):
        if isinstance(last[1], str):
            last[1] += value
            last[2] = continuing
            return
    slot.paths.append([path, value, continuing])


def path_steps(path: str) -> list[str | int] | None:
    """`$.a.b[0]['c d']` as `["a", "b", 0, "c d"]`; None for what is not such a path
    (or has more than `MAX_PATH_STEPS` steps, or none)."""
    if not path.startswith("$"):
        return None
    steps: list[str | int] = []
    i, n = 1, len(path)
    while i < n:
        if path[i] == ".":
            j = i + 1
            while j < n and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return None
            steps.append(path[i + 1 : j])
            i = j
        elif path.startswith("['", i) or path.startswith('["', i):
            end = path.find(path[i + 1] + "]", i + 2)
            if end < 0:
                return None
            steps.append(path[i + 2 : end])
            i = end + 2
        elif path[i] == "[":
            end = path.find("]", i)
            digits = path[i + 1 : end] if end > 0 else ""
            if not (digits.isascii() and digits.isdigit()) or int(digits) > MAX_PATH_INDEX:
                return None
            steps.append(int(digits))
            i = end + 1
        else:
            return None
    return steps if 0 < len(steps) <= MAX_PATH_STEPS else None


def object_at_paths(paths: list[list[Any]]) -> dict[str, Any]:
    """The object the values at their paths make, in order (a later value at a path
    replaces an earlier one); a path through a value that is not the container it needs
    sets nothing."""
    root: dict[str, Any] = {}
    for path, value, _ in paths:
        steps = path_steps(path)
        if steps is None or not isinstance(steps[0], str):
            continue
        node: Any = root
        for step, following in pairwise(steps):
            node = _child(node, step, following)
            if node is None:
                break
        else:
            _set(node, steps[-1], value)
    return root


def _child(node: Any, step: str | int, following: str | int) -> Any:
    """The container at `step` of `node` (made where missing), or None on a conflict."""
    empty: Any = {} if isinstance(following, str) else []
    if isinstance(step, str) and isinstance(node, dict):
        child = node.get(step)
        if child is None:
            child = node[step] = empty
    elif isinstance(step, int) and isinstance(node, list):
        node.extend([None] * (step + 1 - len(node)))
        child = node[step]
        if child is None:
            child = node[step] = empty
    else:
        return None
    wanted = dict if isinstance(following, str) else list
    return child if isinstance(child, wanted) else None


def _set(node: Any, step: str | int, value: Any) -> None:
    if isinstance(step, str) and isinstance(node, dict):
        node[step] = value
    elif isinstance(step, int) and isinstance(node, list):
        node.extend([None] * (step + 1 - len(node)))
        node[step] = value


def typed_event(event: Any, types: frozenset[str]) -> bool:
    """Whether an event's `type` is one of `types` (a provider's stream event names)."""
    kind = field(event, "type")
    return isinstance(kind, str) and kind in types


ERROR_TYPE = frozenset(("error",))
"""The `type` of an error event (Anthropic's, the Responses API's), for `typed_event`."""


def index_of(value: Any) -> int | None:
    """An index: an int (not a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def tool_call(slot: Slot) -> ToolCall:
    """The call as assembled so far (arguments decoded as `parse` decodes them)."""
    value = slot.arguments()
    if slot.verbatim:
        value = Verbatim(value)
    if isinstance(value, str) and value == "":
        value = None  # a tool with no arguments
    decoded, raw = arguments_of(value)
    call = ToolCall(slot.name or "", decoded, slot.id, raw)
    if isinstance(value, Verbatim) and isinstance(value.value, str):
        return call  # a custom tool's input is text by design: no defect
    return with_defect(call)


def partial_call(slot: Slot) -> ToolCall:
    """`tool_call`, with arguments still arriving decoded as far as they are complete."""
    value = slot.arguments()
    if slot.done or slot.verbatim or not isinstance(value, str) or not value:
        return tool_call(slot)
    if slot.partial is None:
        slot.partial = PartialJson()
    closed = slot.partial.read(value)
    if not slot.partial.waiting:  # (where it is, the text ends inside its value: no JSON)
        call = tool_call(slot)
        if call.raw_arguments is None:
            return call
    decoded, _ = arguments_of(closed or "{}")  # as `parse` decodes text
    return with_defect(ToolCall(slot.name or "", decoded, slot.id, value))


FRAGMENT = (
    "a functionCall with partialArgs but no name: a piece of a stream; "
    "read the whole stream (parser.stream(), --stream)"
)
"""The `error` of a response, or a stream, holding only pieces of calls whose start it
does not hold (Gemini 3 `partial_args` without a name): no call is made of them."""


STREAM_ERROR = "stream error"
"""How the `error` of a stream that failed (an error event of the provider's) and gave no
call begins."""


def response_error(message: str) -> bool:
    """Whether a stream's `error` says its response is still one (no call, and why), not
    a record that could not be read: `FRAGMENT`, or the provider's error event."""
    return message == FRAGMENT or message.startswith(STREAM_ERROR)


def error_text(error: Any, code: str | None = None) -> str | None:
    """A provider's error value as one line: a string as it is; an object's `message` (a
    string) after its code: `code` where given, else its own `code` (a string, or an
    integer of 64 bits), `type` or `status` (a string); the code alone where there is no
    message (the Realtime API's `{type, code}`). None with neither."""
    if isinstance(error, str):
        return error
    message = field(error, "message")
    if code is None:
        code = _error_code(error)
    if not isinstance(message, str):
        return code
    return message if code is None else f"{code}: {message}"


def _error_code(error: Any) -> str | None:
    code = field(error, "code")
    if isinstance(code, str):
        return code
    if type(code) is int and -(2**63) <= code < 2**63:
        return str(code)
    for key in ("type", "status"):
        text = field(error, key)
        if isinstance(text, str):
            return text
    return None


def stream_error(acc: Accumulator, calls: list[ToolCall]) -> str | None:
    """Where the stream gave no call: the provider's error event (`provider_error`),
    else `FRAGMENT` where it held pieces of calls."""
    if calls:
        return None
    if acc.error is not None:
        return acc.error
    return FRAGMENT if acc.fragment else None


EventHandler = Callable[[Any, Accumulator], None]
"""How a format's stream events add to an `Accumulator`: its module's `stream_event`."""
