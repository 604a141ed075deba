"""agentloop's log entries as Python values: ``Entry``, the payloads every export reads
(``Outcome``, ``ModelError``, ``RunStartedEntry``, ``ModelErrorEntry``, ``LabelsEntry``,
``PinsEntry``) and ``Usage``; the types of the first stage (bytes -> entries), read by every
later one. The payloads of what a session says (messages and their parts, tool calls, decisions,
results, an unknown entry) are in ``content``, loaded when first used: the traces export reads
those entries as views (``views``) and never makes them. Their names are given here too.

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
from dataclasses import field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeAlias

from .._fast import fast_maker, frozen

if TYPE_CHECKING:
    from .content import (
        CallStartedEntry,
        DecisionEntry,
        Display,
        Message,
        MessageEntry,
        ModelUsage,
        Native,
        Part,
        Payload,
        Source,
        ToolCall,
        ToolResult,
        ToolResultEntry,
        UnknownEntry,
    )

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

#: The names ``content`` defines, given here as well (``__getattr__``).
_CONTENT = frozenset(
    {
        "CallStartedEntry",
        "DecisionEntry",
        "Display",
        "Message",
        "MessageEntry",
        "ModelUsage",
        "Native",
        "Part",
        "Payload",
        "Source",
        "ToolCall",
        "ToolResult",
        "ToolResultEntry",
        "UnknownEntry",
    }
)


def __getattr__(name: str) -> Any:
    """A name of ``content``: that module is loaded the first time one is asked for."""
    if name in _CONTENT:
        from . import content

        return getattr(content, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: A parsed JSON value: what Go keeps as ``json.RawMessage``.
JSONValue: TypeAlias = Any


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


@frozen
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


@frozen
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


@frozen
class Refusal:
    """One tool result the session was not given, because it carried forbidden labels."""

    call_id: str
    tool: str
    labels: tuple[str, ...]


@frozen
class RunStartedEntry:
    """``run_started``: a run began, with the user's ``prompt`` (empty on a bare resume)."""

    prompt: str = ""


@frozen
class ModelErrorEntry:
    """``model_error``: one failed model call; ``retry`` says whether the loop tried again,
    after ``wait_ms`` milliseconds."""

    error: ModelError
    retry: bool = False
    wait_ms: int = 0


@frozen
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


@frozen
class LabelsEntry:
    """``labels``: labels added from outside any call; ``source`` is ``seed``."""

    labels: tuple[str, ...]
    source: str = ""


@frozen
class PinsEntry:
    """``pins``: digests of tool definitions the session pinned, by tool name."""

    pins: Mapping[str, str]


@frozen
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
