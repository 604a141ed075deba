"""What a session says, as Python values: messages and their parts, tool calls and results, a
policy's decisions, the operator's displays, and an entry of a type this version does not know;
part of the first stage's types (``entries`` has ``Entry`` and the payloads every export reads).

Loaded when first used: the checked decoders (``decode``), the exact reader, Go's encoder and
the session library make these values; the traces export reads those entries as views
(``views``) and does not load this module. Every type mirrors the Go type of the same name
(docs/reading.md, "The log format"); values are frozen, and raw JSON (a tool call's ``input``,
``native.data``) is the parsed JSON value: treat it as read-only.
"""

from __future__ import annotations

from dataclasses import field
from typing import TypeAlias

from .._fast import frozen
from .entries import (
    JSONValue,
    LabelsEntry,
    ModelErrorEntry,
    Outcome,
    PinsEntry,
    RunStartedEntry,
    Usage,
)

__all__ = [
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
]


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


@frozen
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


@frozen
class ToolResult:
    """The answer to one ``ToolCall``, as the model is given it."""

    call_id: str
    content: str
    is_error: bool = False


@frozen
class Part:
    """One piece of a message. ``type`` is ``text``, ``reasoning``, ``tool_call`` or
    ``tool_result`` and says which other field is set."""

    type: str
    text: str = ""
    tool_call: ToolCall | None = None
    tool_result: ToolResult | None = None


@frozen
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


@frozen
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


@frozen
class ModelUsage:
    """What one model call a tool made cost, and the ``model`` that served it."""

    model: str
    usage: Usage


@frozen
class Source:
    """One thing a display draws on: a ``title`` and a ``ref`` such as ``doc:notes.md``."""

    title: str
    ref: str


@frozen
class Display:
    """What a tool result showed the operator and never the model."""

    title: str
    body: str
    labels: tuple[str, ...]
    sources: tuple[Source, ...]
    ref: str = ""


@frozen
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


@frozen
class DecisionEntry:
    """``decision``: a policy's ``verdict`` (``allow`` or ``deny``) on one call."""

    call_id: str
    tool: str
    verdict: str
    reason: str = ""
    labels: tuple[str, ...] = ()


@frozen
class CallStartedEntry:
    """``call_started``: written immediately before a tool runs."""

    call_id: str


@frozen
class ToolResultEntry:
    """``tool_result``: how a call ended, and the labels its result added to the session."""

    result: ToolResult
    labels: tuple[str, ...] = ()
    log: str = ""
    usage: tuple[ModelUsage, ...] = ()
    display: Display | None = None


@frozen
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
