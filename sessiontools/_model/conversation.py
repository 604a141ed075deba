"""The conversation and the state of each call, derived from a session's entries:
``conversation(entries)``, and Go's ``Decision``, ``CallInfo`` and ``View``; part of the session
model, for the session library (docs/session-library.md, "The conversation").

agentloop's ``Session`` "is the entries of a Store and nothing else: the conversation, the
labels, the usage and the state of every tool call are derived from them".
``conversation(entries)`` derives the conversation and the calls; ``Session`` gives them as
``messages()``, ``pending()`` and ``call(id)``. Labels, pins and usage come from
``SessionFold``. Where agentloop's documentation is silent, the choice made is said where it
applies, marked **Chosen**.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .._log.content import (
    CallStartedEntry,
    DecisionEntry,
    Message,
    MessageEntry,
    Part,
    ToolCall,
    ToolResult,
    ToolResultEntry,
)
from .._log.entries import Entry

__all__ = ["CallInfo", "Conversation", "Decision", "View", "conversation"]


@dataclass(frozen=True, slots=True)
class Decision:
    """A verdict with the reason and labels that go with it (Go's ``Decision``).

    Attributes:
        verdict: ``allow`` or ``deny``.
        reason: shown to the model on deny, and recorded always.
        labels: added to the session when the call is allowed, before its result exists. A
            deny's labels are not added (a deny with labels is a call that would have given
            the session a label it may not hold, ``FORBIDDEN_DECISION``).
    """

    verdict: str
    reason: str = ""
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CallInfo:
    """What the session knows about one tool call (Go's ``CallInfo``).

    Attributes:
        call: the ``ToolCall`` the model asked for. **Chosen:** for a call the session saw
            only through a ``decision``, ``call_started`` or ``tool_result`` (a transcript that
            settles a call asked for before it), ``ToolCall(id, tool, None)``: the tool named
            by its decision, else ``""``, and no input.
        decision: the latest decision on the call; ``None`` until it is checked.
        started: a ``call_started`` for it was written (the tool was about to run).
        finished: it has a result.
        result: the result, once ``finished``. **Chosen:** the latest, should a log hold two.
    """

    call: ToolCall
    decision: Decision | None
    started: bool
    finished: bool
    result: ToolResult | None


@dataclass(frozen=True, slots=True)
class View:
    """The session as a policy sees it (Go's ``View``): the labels it holds, sorted."""

    labels: tuple[str, ...]

    def has(self, label: str) -> bool:
        """Whether the session holds ``label`` (compared exactly, byte for byte)."""
        return label in self.labels


@dataclass(frozen=True, slots=True)
class Conversation:
    """What ``conversation(entries)`` derives: see there."""

    messages: tuple[Message, ...]
    calls: Mapping[str, CallInfo]
    pending: tuple[ToolCall, ...]


class _CallState:
    __slots__ = ("call", "decision", "finished", "result", "started")

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        self.decision: Decision | None = None
        self.started = False
        self.finished = False
        self.result: ToolResult | None = None


def conversation(entries: Iterable[Entry]) -> Conversation:
    """The conversation and the state of every call, from a session's entries, in order.

    **messages** (Go's ``Session.Messages``): each ``message`` entry is one message, as it is
    in the entry. The ``tool_result`` entries that follow an assistant turn, up to the next
    ``message`` entry, are gathered into one user message (role ``user``, one part of type
    ``tool_result`` per result, holding its ``ToolResult``), in the order of that turn's calls.
    Entries of other types in between (``decision``, ``call_started``, ``run_ended``,
    ``run_started``, ``labels``...) do not break the gathering: a call a crashed run left open
    is settled by the next run, and its result joins the results of its turn. While calls are
    pending the conversation holds the results so far, so it can end in an assistant turn or a
    partial results message: "not yet one a model can take" (agentloop).

    **Chosen** where agentloop's documentation is silent: a result whose call is not one of that
    turn's (or that follows no assistant turn, as at the start of a transcript) is kept, after the
    turn's results, in log order; two results for one call are both kept, in log order. The
    message's ``native`` is ``None``.

    **pending** (Go's ``Session.Pending``): the calls of the last assistant turn that have no
    result yet, in order. A resumed run settles exactly these.

    **calls** (Go's ``Session.Call``), by id: the ``CallInfo`` of every call the session saw,
    in any entry. **Chosen:** an id asked for again by a later assistant turn starts afresh
    (no decision, not started, not finished): the newer call is the one the id names.
    """
    messages: list[Message] = []
    calls: dict[str, _CallState] = {}
    turn: tuple[ToolCall, ...] = ()  # the last assistant turn's calls
    order: dict[str, int] = {}  # their ids' indexes
    results: list[ToolResult] = []  # gathered since that turn

    def gather() -> None:
        if results:
            last = len(order)
            ordered = sorted(results, key=lambda r: order.get(r.call_id, last))  # stable
            parts = tuple(Part("tool_result", tool_result=r) for r in ordered)
            messages.append(Message("user", parts))
            results.clear()

    def state(call_id: str, tool: str = "") -> _CallState:
        st = calls.get(call_id)
        if st is None:
            st = calls[call_id] = _CallState(ToolCall(call_id, tool, None))
        elif tool and not st.call.name:
            st.call = ToolCall(call_id, tool, st.call.input)
        return st

    for entry in entries:
        payload = entry.payload
        if isinstance(payload, MessageEntry):
            gather()
            message = payload.message
            messages.append(message)
            if message.role == "assistant":
                turn = message.tool_calls
                order = {}
                for index, call in enumerate(turn):
                    order.setdefault(call.id, index)
                    calls[call.id] = _CallState(call)
        elif isinstance(payload, ToolResultEntry):
            result = payload.result
            results.append(result)
            st = state(result.call_id)
            st.finished = True
            st.result = result
        elif isinstance(payload, DecisionEntry):
            st = state(payload.call_id, payload.tool)
            st.decision = Decision(payload.verdict, payload.reason, tuple(payload.labels))
        elif isinstance(payload, CallStartedEntry):
            state(payload.call_id).started = True
    gather()
    return Conversation(
        tuple(messages),
        MappingProxyType(
            {
                call_id: CallInfo(st.call, st.decision, st.started, st.finished, st.result)
                for call_id, st in calls.items()
            }
        ),
        tuple(call for call in turn if not calls[call.id].finished),
    )
