"""agentloop's log entries as Python values: ``Entry``, every payload type, ``Usage`` and the
values inside them; the types of the first stage (bytes -> entries), read by every later one.

Every type here mirrors the Go type of the same name in agentloop (``Entry`` and every
``*Entry`` payload, ``Message``, ``Part``, ``Usage``, ``Outcome``, ``ModelError``;
docs/reading.md, "The log format"), with the JSON names as field names and two changes: times
are integer Unix nanoseconds (``*_unix_nano``), and Go's zero time, which means "not set", is
``None``.

Values are frozen. Raw JSON that Go keeps as ``json.RawMessage`` (a tool call's ``input``, a
provider's ``native.data``) is the parsed JSON value; treat it as read-only. ``NIL`` and
``NIL_MAP`` are Go's nil slices and maps, which an exact read keeps apart from empty ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias

from .._fast import fast_maker

__all__ = [
    "NIL",
    "NIL_MAP",
    "CallStartedEntry",
    "DecisionEntry",
    "Display",
    "Entry",
    "LabelsEntry",
    "Message",
    "MessageEntry",
    "ModelError",
    "ModelErrorEntry",
    "ModelUsage",
    "Native",
    "Outcome",
    "Part",
    "Payload",
    "PinsEntry",
    "Refusal",
    "RunStartedEntry",
    "Source",
    "ToolCall",
    "ToolResult",
    "ToolResultEntry",
    "UnknownEntry",
    "Usage",
]


#: A parsed JSON value: what Go keeps as ``json.RawMessage``.
JSONValue: TypeAlias = Any


def _same_value(a: JSONValue, b: JSONValue) -> bool:
    """``a == b`` for parsed JSON values, also for values nested deeper than Python's
    recursion limit (Go reads 10,000 levels), which ``==`` refuses with ``RecursionError``."""
    try:
        return bool(a == b)
    except RecursionError:
        pass
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if x is y:
            continue
        if isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif (isinstance(x, list) and isinstance(y, list)) or (
            isinstance(x, tuple) and isinstance(y, tuple)
        ):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


class _Nil(tuple):  # type: ignore[type-arg]
    """Go's nil slice: empty, equal to ``()``, but written as ``null`` where Go writes
    ``null`` (a slice field that is not ``omitempty``)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NIL"

    def __reduce__(self) -> str:
        return "NIL"


#: Go's nil slice, for the fields Go writes as ``null`` when nil (``Message.parts``,
#: ``LabelsEntry.labels``, ``Display.labels`` and ``sources``, ``Refusal.labels``): an empty
#: tuple that the writer writes as ``null`` where ``()`` is written ``[]``. The reader gives
#: ``NIL`` for such a field that is ``null`` or absent. It equals ``()``.
NIL: tuple[Any, ...] = _Nil()


#: Go's nil map, for ``PinsEntry.pins``: empty, written as ``null``.
NIL_MAP: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one or more model calls counted: agentloop's ``Usage``.

    Four disjoint counts (docs/reading.md, "The log format"): ``input_tokens`` is the *uncached*
    input; ``cache_read_tokens`` were served from the provider's cache and ``cache_write_tokens``
    written to it. ``total_tokens`` is their sum with the output, as Go's ``Usage.Total``.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Every token the provider counted (Go's ``Usage.Total``)."""
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    def __add__(self, other: Usage) -> Usage:
        return _new_usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    def __bool__(self) -> bool:
        return bool(
            self.input_tokens
            or self.output_tokens
            or self.cache_read_tokens
            or self.cache_write_tokens
        )


ZERO_USAGE = Usage()


@dataclass(frozen=True, slots=True)
class ToolCall:
    """The model asking to run a tool: ``id``, tool ``name`` and raw JSON ``input``.

    ``input`` is the parsed JSON value. ``input_json``, when set, is its JSON text as Go
    writes it (Go's ``json.RawMessage``: the bytes as logged, compacted, with ``<``, ``>``,
    ``&``, U+2028 and U+2029 escaped); an exact read (``LogReader(..., exact=True)``) sets it
    so that writing the entry again gives Go's bytes, number spellings and repeated names
    included. It is not part of ``==``.
    """

    id: str
    name: str
    input: JSONValue
    input_json: bytes | None = field(default=None, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not ToolCall:
            return NotImplemented
        assert isinstance(other, ToolCall)
        return (
            self.id == other.id and self.name == other.name and _same_value(self.input, other.input)
        )


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The answer to one ``ToolCall``, as the model is given it."""

    call_id: str
    content: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of a message. ``type`` is ``text``, ``reasoning``, ``tool_call`` or
    ``tool_result`` and says which other field is set."""

    type: str
    text: str = ""
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None


@dataclass(frozen=True, slots=True)
class Native:
    """A provider's own record of an assistant turn: its ``provider`` name (such as
    ``anthropic`` or ``openai``), the ``model`` id and its raw ``data``.

    ``data`` is the parsed JSON value; ``data_json``, when set, its JSON text as Go writes
    it (see ``ToolCall.input_json``). It is not part of ``==``.
    """

    provider: str
    model: str
    data: JSONValue
    data_json: bytes | None = field(default=None, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Native:
            return NotImplemented
        assert isinstance(other, Native)
        return (
            self.provider == other.provider
            and self.model == other.model
            and _same_value(self.data, other.data)
        )


@dataclass(frozen=True, slots=True)
class Message:
    """One turn of the conversation: ``role`` is ``user`` or ``assistant``."""

    role: str
    parts: tuple[Part, ...]
    native: Native | None = None

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The message's tool calls, in order."""
        return tuple(p.tool_call for p in self.parts if p.tool_call is not None)

    @property
    def text(self) -> str:
        """The message's text parts, joined."""
        return "".join(p.text for p in self.parts if p.type == "text")


@dataclass(frozen=True, slots=True)
class ModelUsage:
    """What one model call a tool made cost, and the ``model`` that served it."""

    model: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class Source:
    """One thing a display draws on: a ``title`` and a ``ref`` such as ``doc:notes.md``."""

    title: str
    ref: str


@dataclass(frozen=True, slots=True)
class Display:
    """What a tool result showed the operator and never the model."""

    title: str
    body: str
    labels: tuple[str, ...]
    sources: tuple[Source, ...]
    ref: str = ""


@dataclass(frozen=True, slots=True)
class ModelError:
    """A model call that failed, sorted by ``kind``.

    ``kind`` is one of ``rate_limited``, ``overloaded``, ``unreachable``, ``unauthorized``,
    ``billing``, ``not_found``, ``invalid_request``; ``status`` is the HTTP status, 0 when
    unknown. ``retry_after_unix_nano`` and ``resets_at_unix_nano`` are ``None`` when the
    provider did not say (Go's zero time); the ``*_utc_offset_seconds`` fields keep the UTC
    offset each was written with, so it is written again the same way.
    """

    kind: str
    message: str
    status: int = 0
    retry_after_unix_nano: int | None = None
    resets_at_unix_nano: int | None = None
    retry_after_utc_offset_seconds: int = 0
    resets_at_utc_offset_seconds: int = 0


@dataclass(frozen=True, slots=True)
class Refusal:
    """One tool result the session was not given, because it carried forbidden labels."""

    call_id: str
    tool: str
    labels: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RunStartedEntry:
    """``run_started``: a run began, with the user's ``prompt`` (empty on a bare resume)."""

    prompt: str = ""


@dataclass(frozen=True, slots=True)
class MessageEntry:
    """``message``: a message joined the conversation.

    For an assistant turn it also carries why the turn ended (``stop``: ``end_turn``,
    ``tool_use``, ``max_tokens``, ``refusal``, ``pause``), what it cost and the ``model`` that
    served it.
    """

    message: Message
    usage: Usage
    stop: str = ""
    model: str = ""
    refusal: str = ""


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    """``decision``: a policy's ``verdict`` (``allow`` or ``deny``) on one call."""

    call_id: str
    tool: str
    verdict: str
    reason: str = ""
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CallStartedEntry:
    """``call_started``: written immediately before a tool runs."""

    call_id: str


@dataclass(frozen=True, slots=True)
class ToolResultEntry:
    """``tool_result``: how a call ended, and the labels its result added to the session."""

    result: ToolResult
    labels: tuple[str, ...] = ()
    log: str = ""
    usage: tuple[ModelUsage, ...] = ()
    display: Display | None = None


@dataclass(frozen=True, slots=True)
class ModelErrorEntry:
    """``model_error``: one failed model call; ``retry`` says whether the loop tried again,
    after ``wait_ms`` milliseconds."""

    error: ModelError
    retry: bool = False
    wait_ms: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """``run_ended``: how a run ended (Go's ``Outcome``).

    ``reason`` is ``completed``, ``max_tokens``, ``refused``, ``limit``, ``model_error``,
    ``canceled`` or ``forbidden``. ``turns`` and ``usage`` count this run only, the model calls
    its tools made included.
    """

    reason: str
    turns: int = 0
    usage: Usage = ZERO_USAGE
    text: str = ""
    error: ModelError | None = None
    limit: str = ""
    forbidden: tuple[str, ...] = ()
    refused: tuple[Refusal, ...] = ()


@dataclass(frozen=True, slots=True)
class LabelsEntry:
    """``labels``: labels added from outside any call; ``source`` is ``seed``."""

    labels: tuple[str, ...]
    source: str = ""


@dataclass(frozen=True, slots=True)
class PinsEntry:
    """``pins``: digests of tool definitions the session pinned, by tool name."""

    pins: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class UnknownEntry:
    """An entry of a ``type`` this version does not know, kept as parsed JSON.

    ``data_json``, when set (an exact read), is the payload's JSON text, written again as it
    was. Go's own reader drops such a payload; sessiontools keeps it, so a log copied through
    it loses nothing a newer agentloop wrote.
    """

    type: str
    data: JSONValue
    data_json: bytes | None = field(default=None, compare=False, repr=False)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not UnknownEntry:
            return NotImplemented
        assert isinstance(other, UnknownEntry)
        return self.type == other.type and _same_value(self.data, other.data)


Payload: TypeAlias = (
    RunStartedEntry
    | MessageEntry
    | DecisionEntry
    | CallStartedEntry
    | ToolResultEntry
    | ModelErrorEntry
    | Outcome
    | LabelsEntry
    | PinsEntry
    | UnknownEntry
)


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of a session's log.

    Attributes:
        seq: the entry's sequence number in its session.
        time_unix_nano: when it was written, in nanoseconds since the Unix epoch.
        type: the entry type (``run_started``, ``message``, ``decision``, ``call_started``,
            ``tool_result``, ``model_error``, ``run_ended``, ``labels``, ``pins``, or one
            this version does not know).
        payload: the value the type names (``Outcome`` for ``run_ended``).
        utc_offset_seconds: the UTC offset the time was written with.
        line: the 1-based line of the log it was read from (0 when not read from a log);
            not part of the entry's value, and ignored by ``==``.
    """

    seq: int
    time_unix_nano: int
    type: str
    payload: Payload
    utc_offset_seconds: int = 0
    line: int = field(default=0, compare=False)


_new_usage = fast_maker(Usage)
