"""The session model's values: ``Run``, ``Turn``, ``FailedCall``, ``ToolCallRecord``,
``ToolModelCall`` and ``LabelSource``, frozen and slotted.

The second stage of the flow (entries -> the session model) as values: ``fold`` makes them,
both exporters read them (docs/reading.md, "The session model"). Times are the log's, in Unix
nanoseconds. When a model or tool call began is not written in the log, so the start times
follow these rules (docs/reading.md, "When calls start"):

- a model call starts at the entry just before it in its run (the user message, the last tool
  result, ``run_started``); after a retried ``model_error`` it starts ``wait_ms`` later, never
  after its own end;
- a tool call starts at its ``call_started``; without one in its run, at its ``decision`` in
  its run, else at the entry before its result, else at the message that asked for it. It
  ends at its result, or with its run.

A start later than its end (a clock stepped back between two entries) is moved to the end.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._log.entries import (
    ModelError,
    Outcome,
    Usage,
)

if TYPE_CHECKING:  # loaded when a Session first needs them: reading and exporting do not
    pass

__all__ = ["FailedCall", "LabelSource", "Run", "ToolCallRecord", "ToolModelCall", "Turn"]


_MS = 1_000_000


def _seq_of(pair: tuple[int, tuple[str, ...]]) -> int:
    return pair[0]


@dataclass(frozen=True, slots=True)
class Turn:
    """One successful model call: an assistant ``message`` entry.

    Attributes:
        seq, time_unix_nano: the entry's; the call ended then.
        start_time_unix_nano: when the call began, by the rule in the module docstring.
        provider: ``native.provider`` (``anthropic``, ``openai``, ...), ``""`` if absent.
        request_model: the model asked for (``native.model``, else the served model).
        model: the model that served the turn (the entry's ``model``, else ``native.model``).
        stop: why the response ended (``end_turn``, ``tool_use``, ``max_tokens``, ...).
        usage: what the call cost, in agentloop's four disjoint counts.
        call_ids: the ids of the tool calls it asked for, in order (Go's ``Turn.Calls``).
        message_index: the turn's index in ``Session.messages()`` (Go's ``Turn.Message``):
            every ``message`` entry before it in the log counts one, and so does each run of
            ``tool_result`` entries gathered into one user message
            (``sessiontools._model.conversation``).
        utc_offset_seconds: the UTC offset the entry's time was written with (``+02:00``:
            7200), the clock of wherever agentloop ran.
    """

    seq: int
    time_unix_nano: int
    start_time_unix_nano: int
    provider: str
    request_model: str
    model: str
    stop: str
    usage: Usage
    call_ids: tuple[str, ...]
    message_index: int
    utc_offset_seconds: int = 0


@dataclass(frozen=True, slots=True)
class FailedCall:
    """One model call that failed: a ``model_error`` entry.

    Attributes:
        seq, time_unix_nano: the entry's; the call ended then.
        start_time_unix_nano: when the call began, by the rule in the module docstring.
        error: the ``ModelError`` (``kind``, HTTP ``status``, provider ``message``).
        retry: whether the loop tried again, after ``wait_ms`` milliseconds.
        provider, request_model: not in the entry; those of the nearest turn before it in the
            session, else of the next turn of its run, else ``""`` (docs/reading.md, "The session
            model").
        utc_offset_seconds: the UTC offset the entry's time was written with.
    """

    seq: int
    time_unix_nano: int
    start_time_unix_nano: int
    error: ModelError
    retry: bool
    wait_ms: int
    provider: str
    request_model: str
    utc_offset_seconds: int = 0


@dataclass(frozen=True, slots=True)
class ToolModelCall:
    """A model call a tool made (``tool_result.usage[index]``): the ``model`` and its usage.

    The log gives it no times of its own, nor a provider.
    """

    index: int
    model: str
    usage: Usage


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call as one run saw it.

    A call usually lives in one run. A call its run left without a result (a crash) appears
    twice: in that run, with ``has_result`` false, and in the run that settles it, with
    ``resumed`` true.

    Attributes:
        call_id, tool: the call's id and the tool's name (``""`` when this log never names
            it, as in a transcript of the run that settles a call).
        message_seq, index: the assistant message that asked for it and the call's index among
            its tool calls; ``None`` and 0 when that message is not in this log.
        open_seq, open_index: the entry that opens the call in this run: the asking message
            and ``index``; for a resumed call, the first entry of this run about it, index 0.
            Its span id is keyed on them, except for a call this run settles, keyed on its
            ``tool_result`` (``result_seq``, index 0; docs/traces.md, "Identity and order").
        verdict: the latest decision on the call (``allow``, ``deny``), ``""`` if none.
        start_time_unix_nano, end_time_unix_nano: by the rule in the module docstring.
        started: a ``call_started`` for it is in this run.
        has_result: its ``tool_result`` is in this run; ``is_error`` is the result's flag and
            ``result_seq`` the entry's ``seq`` (``None`` without a result).
        refused: the run's ``Outcome.refused`` names it.
        resumed: it was asked for in an earlier run.
        labels: the labels its decision (when allowed) and result (unless refused) in this
            run gave the session, sorted.
        model_calls: the model calls the tool made (``tool_result.usage``).
        end_utc_offset_seconds: the UTC offset of the entry it ends at (its result, else its
            run's last entry).
    """

    call_id: str
    tool: str
    message_seq: int | None
    index: int
    open_seq: int
    open_index: int
    verdict: str
    start_time_unix_nano: int
    end_time_unix_nano: int
    started: bool
    has_result: bool
    is_error: bool
    result_seq: int | None
    refused: bool
    resumed: bool
    labels: tuple[str, ...]
    model_calls: tuple[ToolModelCall, ...]
    end_utc_offset_seconds: int = 0


@dataclass(frozen=True, slots=True)
class Run:
    """One run: from ``run_started`` to its ``run_ended``, or to its last entry if it crashed.

    Attributes:
        index: the run's 0-based position in the log.
        start_seq, start_time_unix_nano: its ``run_started`` entry's.
        end_seq, end_time_unix_nano: its ``run_ended`` entry's, or its last entry's.
        outcome: the ``Outcome``; ``None`` when the run crashed.
        reason: ``outcome.reason``, or ``crashed``.
        turn_count: ``outcome.turns``, else the number of turns.
        usage: ``outcome.usage``, else the sum of its model calls' (its tools' included).
        turns, failed_calls, tool_calls: in log order (tool calls by the entry that opens them).
        labels: the labels the session holds when the run ends, sorted.
        provider, request_model: the one every model call of the run used, ``""`` when they
            differ or none is known (a tool's model calls have a model and no provider).
        prompt: its ``run_started`` entry's prompt (``""`` on a bare resume); with
            ``start_seq`` and ``start_time_unix_nano`` it is all that entry holds, and part of
            the run's identity (``sessiontools._model.identity``).
        label_history: the labels the session held during the run: ``(seq, labels)`` pairs,
            the first ``(start_seq, the labels at its run_started)``, then one for each entry
            of the run that gave the session a label it did not hold (a ``labels`` entry, an
            allowed decision, a result the run did not refuse), sorted by ``seq``, each with
            every label held from then on, sorted. The labels held at an entry of the run
            (``labels_at``) are those of the last pair whose ``seq`` is not above the entry's:
            a result's own labels count at the result.
    """

    index: int
    start_seq: int
    start_time_unix_nano: int
    end_seq: int
    end_time_unix_nano: int
    outcome: Outcome | None
    reason: str
    turn_count: int
    usage: Usage
    turns: tuple[Turn, ...]
    failed_calls: tuple[FailedCall, ...]
    tool_calls: tuple[ToolCallRecord, ...]
    labels: tuple[str, ...]
    provider: str
    request_model: str
    prompt: str = ""
    label_history: tuple[tuple[int, tuple[str, ...]], ...] = ()

    def labels_at(self, seq: int) -> tuple[str, ...]:
        """The labels the session held once the run's entry ``seq`` was written (see
        ``label_history``); for a ``seq`` before the run's start, those it started with."""
        history = self.label_history
        if not history:
            return ()
        at = bisect_right(history, seq, key=_seq_of) - 1
        return history[max(at, 0)][1]

    @property
    def crashed(self) -> bool:
        """The run has no ``run_ended``."""
        return self.outcome is None

    @property
    def duration_ms(self) -> float:
        """From start to end, in milliseconds."""
        return (self.end_time_unix_nano - self.start_time_unix_nano) / _MS


@dataclass(frozen=True, slots=True)
class LabelSource:
    """The entry that first gave the session a label (Go's ``LabelSource``).

    ``kind`` is ``seed`` (a ``labels`` entry, or whatever source it names) or ``tool`` (a
    call's decision or result, named by ``tool`` and ``call_id``); ``seq`` is the entry's.
    """

    kind: str
    seq: int
    tool: str = ""
    call_id: str = ""
