"""Entries to the session model: ``SessionFold`` folds a log's entries into runs, one entry at a
time, and ``iter_runs`` streams the runs (docs/reading.md, "The session model").

The rules are agentloop's:

- A run begins at ``run_started`` and ends at its ``run_ended``. A run with no ``run_ended``
  before the next ``run_started`` or the end of the log **crashed**; it ends at its last entry.
  Entries outside any run belong to the session.
- Each assistant ``message`` is a turn: one successful model call. Each ``model_error`` is one
  failed model call, named by the provider and model of the nearest turn before it in the
  session, else of the next turn of its run.
- Each ``tool_call`` part of an assistant message is a tool call, followed through its
  ``decision``, ``call_started`` and ``tool_result``. A call with no result when its run ended
  was cut off; the run that later settles it sees it again as a *resumed* call.
- Labels accumulate: a ``labels`` entry's, an allowed decision's, a result's. None is removed.
  A deny's labels are not added (agentloop adds a decision's labels "when the call is
  allowed"). A *refused* result (its run's ``Outcome.refused`` names the call) does not give
  the session its labels (``Agent.Forbid``: "the session does not take the label"); agentloop
  writes a refused result without labels, and a log that gives one labels is read the same
  way. Since a run says what it refused only when it ends, a result's labels reach the
  session when its run ends (a crashed run refused nothing); ``label_sources`` still names
  the first entry that gave each label. Decisions and results outside any run give labels
  too: the session is its entries.

``SessionFold`` hands out each run as it ends, so a log of any size folds in memory bounded by
its largest run (the content of messages and results is not kept; it stays in the entries). It
tells payloads apart by their entry's ``type`` and reads only some of their fields, by name: the
exporters' reader gives views of the payloads holding just those (``sessiontools._log.views``).
What a part of a log folded on its own needs (``sessiontools._parallel.split``) is said out
loud: the options ``warnings`` and ``open_calls`` (a ``RecordingCalls``), and the read-only
``last_seq``, ``run_count``, ``last_model``, ``open_call_ids`` and ``borrowed_model``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from typing import TYPE_CHECKING, Any, cast

from .._errors import LogStructureWarning
from .._fast import fast_maker
from .._log.entries import (
    ZERO_USAGE,
    Entry,
    LabelsEntry,
    ModelErrorEntry,
    Outcome,
    PinsEntry,
    Usage,
)
from .._log.warnings import Warnings
from .runs import _MS, FailedCall, LabelSource, Run, ToolCallRecord, ToolModelCall, Turn, _seq_of

if TYPE_CHECKING:  # the payloads of content; the export reads views of them
    from .._log.content import MessageEntry

__all__ = ["RecordingCalls", "SessionFold", "iter_runs"]


#: The entry types of a run, but for ``run_started`` (an entry of one outside any run is in
#: none: a warning). ``labels`` and ``pins`` belong to the session; an unknown type to no one.
_RUN_TYPES = frozenset(
    {"message", "decision", "call_started", "tool_result", "model_error", "run_ended"}
)


_new_turn = fast_maker(Turn)


#: A run's tool calls are in the order of the entries that open them.
_OPEN_ORDER = attrgetter("open_seq", "open_index")


_PROVIDER = attrgetter("provider")


_REQUEST_MODEL = attrgetter("request_model")


_MODEL = attrgetter("model")


_new_failed = fast_maker(FailedCall)


_new_tool_model_call = fast_maker(ToolModelCall)


_new_record = fast_maker(ToolCallRecord)


_new_run = fast_maker(Run)


class _Call:
    """What the session knows of a call with no result yet, across runs."""

    __slots__ = ("call_id", "index", "message_seq", "tool", "verdict")

    def __init__(self, call_id: str, tool: str, message_seq: int | None, index: int) -> None:
        self.call_id = call_id
        self.tool = tool
        self.message_seq = message_seq
        self.index = index
        self.verdict = ""


class _RunCall:
    """A tool call within the run being folded."""

    __slots__ = (
        "call",
        "decision_time",
        "is_error",
        "labels",
        "model_calls",
        "open_index",
        "open_seq",
        "open_time",
        "result_offset",
        "result_prev_time",
        "result_seq",
        "result_time",
        "resumed",
        "started_time",
    )

    def __init__(self, call: _Call, open_seq: int, open_index: int, open_time: int) -> None:
        self.call = call
        self.open_seq = open_seq
        self.open_index = open_index
        self.open_time = open_time
        self.resumed = False
        self.decision_time: int | None = None
        self.started_time: int | None = None
        self.result_time: int | None = None
        self.result_seq: int | None = None
        self.result_offset = 0
        self.result_prev_time = 0
        self.is_error = False
        self.labels: set[str] | None = None
        self.model_calls: tuple[ToolModelCall, ...] = ()

    def add_labels(self, labels: tuple[str, ...]) -> None:
        self.labels = set(labels) if self.labels is None else self.labels.union(labels)


class _RunFold:
    """The run being folded."""

    __slots__ = (
        "calls",
        "failed",
        "index",
        "label_events",
        "last",
        "result_labels",
        "start",
        "start_labels",
        "turns",
        "unresolved",
    )

    def __init__(self, index: int, start: Entry, labels: tuple[str, ...]) -> None:
        self.index = index
        self.start = start
        self.start_labels = labels  # what the session held as the run started
        # the run's last entry so far: its seq, time and offset, and whether it is a retried
        # model_error (the next call starts its wait_ms later: ``_call_start``)
        self.last = start
        self.turns: list[Turn] = []
        self.failed: list[FailedCall] = []
        self.unresolved: list[int] = []  # failed calls waiting for a turn to name the model
        self.calls: dict[str, _RunCall] = {}
        # results with labels, given to the session when the run ends unless refused
        self.result_labels: list[tuple[_RunCall, int, tuple[str, ...]]] = []
        # the other entries that gave labels (labels entries, allowed decisions): seq, labels
        self.label_events: list[tuple[int, tuple[str, ...]]] = []


class RecordingCalls(dict[str, _Call]):
    """The session's calls with no result yet (a ``SessionFold``'s ``open_calls``), recording
    each call id looked for and not found (``missed``): a part of a log folded on its own
    learns which calls from before it it would have needed."""

    def __init__(self) -> None:
        super().__init__()
        self.missed: set[str] = set()

    def get(self, key: str, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self.missed.add(key)
        return default

    def pop(self, key: str, *default: Any) -> Any:
        if key not in self:
            self.missed.add(key)
        return super().pop(key, *default)


class SessionFold:
    """Fold entries into runs, one entry at a time.

    ``feed(entry)`` returns the ``Run`` that entry ended, if any (a ``run_ended``; or a
    ``run_started`` after a run that crashed); ``finish()`` returns the run the log ended in,
    if it has no ``run_ended``. Meanwhile the session's ``labels``, ``label_sources``, ``pins``
    and ``usage`` are kept up to date (a result's labels as its run ends: see the module
    docstring), and each turn is given its index in ``Session.messages()``.

    Args:
        name: what to call the log in warnings.
        warnings: where warnings go (``Warnings``): a reader's ``sink``, so that each kind is
            given once per log, reader's and fold's alike; default: a sink of its own.
        open_calls: the mapping that holds the session's calls with no result yet, by call
            id (default a new ``dict``): a part of a log folded on its own passes a
            ``RecordingCalls`` to learn which calls from before it it looked for.

    Warns:
        LogStructureWarning: once for an entry of a run outside any run, once for a ``seq``
            that goes back; each also kept in ``warnings``.
    """

    def __init__(
        self,
        name: str = "<log>",
        *,
        warnings: Warnings | None = None,
        open_calls: dict[str, _Call] | None = None,
    ) -> None:
        self.name = name
        self.sink = warnings if warnings is not None else Warnings(name)
        self._last_seq: int | None = None
        self._label_set: set[str] = set()
        self._sorted_labels: tuple[str, ...] | None = ()  # the set, sorted; None: to sort
        self.label_sources: dict[str, LabelSource] = {}
        self.pins: dict[str, str] = {}
        self._totals = [0, 0, 0, 0]  # the four counts of every model call so far
        self._open_calls: dict[str, _Call] = {} if open_calls is None else open_calls
        self._provider = ""
        self._request_model = ""
        self._turned = False  # a turn was folded
        self._borrowed = False  # a failed call came before it (see `borrowed_model`)
        self._run: _RunFold | None = None
        self._runs = 0
        # Session.messages() so far: its length, and whether tool results are being gathered
        # into one user message that the next message entry closes.
        self._messages = 0
        self._gathering = False
        # by entry type: a payload is a view of it on the export path (``_log.views``)
        self._handlers: dict[str, Callable[[_RunFold, Entry, Any], None]] = {
            "model_error": self._failed,
            "labels": self._session_entry,
            "pins": self._session_entry,
        }

    @property
    def labels(self) -> tuple[str, ...]:
        """The labels the session holds now, sorted."""
        labels = self._sorted_labels
        if labels is None:
            labels = self._sorted_labels = tuple(sorted(self._label_set))
        return labels

    @property
    def warnings(self) -> list[str]:
        """Every warning given so far through this fold's sink, as one-line messages."""
        return self.sink.messages

    @property
    def last_seq(self) -> int | None:
        """The ``seq`` of the last entry folded, ``None`` before the first."""
        return self._last_seq

    @property
    def run_count(self) -> int:
        """How many runs have started."""
        return self._runs

    @property
    def last_model(self) -> tuple[str, str]:
        """The provider and requested model of the last turn folded (``("", "")`` before
        one): what a failed call is named by when no turn of its run comes before it."""
        return self._provider, self._request_model

    @property
    def open_call_ids(self) -> frozenset[str]:
        """The ids of the calls asked for and with no result yet."""
        return frozenset(self._open_calls)

    @property
    def borrowed_model(self) -> bool:
        """Whether a failed call came before this fold's first turn: it took its model from
        ``last_model`` as it was when the fold was made (nothing, for a new fold)."""
        return self._borrowed

    @property
    def usage(self) -> Usage:
        """What every model call so far cost, its tools' included."""
        return Usage(*self._totals)

    def _count(self, usage: Usage) -> None:
        totals = self._totals
        totals[0] += usage.input_tokens
        totals[1] += usage.output_tokens
        totals[2] += usage.cache_read_tokens
        totals[3] += usage.cache_write_tokens

    def _add_labels(self, labels: Iterable[str], source: LabelSource) -> None:
        for label in labels:
            if label not in self._label_set:
                self._label_set.add(label)
                self._sorted_labels = None
                self.label_sources[label] = source

    def _add_late_labels(self, labels: Iterable[str], source: LabelSource) -> None:
        """Labels given at ``source.seq`` and added only now, as their run ends: a label the
        run's later entries gave the session first takes this earlier source."""
        sources = self.label_sources
        for label in labels:
            if label not in self._label_set:
                self._label_set.add(label)
                self._sorted_labels = None
                sources[label] = source
            elif sources[label].seq > source.seq:
                sources[label] = source

    def _warn(self, what: str, line: int, message: str) -> None:
        self.sink.warn(LogStructureWarning, what, line, f": {message}")

    @property
    def between_runs(self) -> bool:
        """Whether no run is open (before the first ``run_started``, or after a run ended)."""
        return self._run is None

    def snapshot(self) -> dict[str, Any]:
        """The session's state between runs, as JSON-able data: what a fold needs to go on
        from the next entry as if it had folded every entry before (``restore``). The
        incremental sender keeps it with a log's read position, so that an append is read
        from where the last read stopped.

        Raises:
            ValueError: a run is open (the state inside a run is not kept).
        """
        if self._run is not None:
            raise ValueError("a run is open: a snapshot is taken between runs")
        return {
            "last_seq": self._last_seq,
            "labels": sorted(self._label_set),
            "label_sources": [
                [label, s.kind, s.seq, s.tool, s.call_id]
                for label, s in sorted(self.label_sources.items())
            ],
            "pins": dict(sorted(self.pins.items())),
            "totals": list(self._totals),
            "open_calls": [
                [c.call_id, c.tool, c.message_seq, c.index, c.verdict]
                for c in self._open_calls.values()
            ],
            "model": [self._provider, self._request_model],
            "runs": self._runs,
            "messages": [self._messages, self._gathering],
            "turned": [self._turned, self._borrowed],
            "warned": self.sink.given_keys(),
        }

    @classmethod
    def restore(
        cls, name: str, snapshot: dict[str, Any], *, warnings: Warnings | None = None
    ) -> SessionFold:
        """A fold that goes on from ``snapshot`` (``SessionFold.snapshot``); the warnings
        given before it are not given again (``warnings`` learns their keys).

        Raises:
            ValueError: ``snapshot`` is not one (a state file from another version).
        """
        fold = cls(name, warnings=warnings)
        try:
            fold._last_seq = snapshot["last_seq"]
            fold._label_set = set(snapshot["labels"])
            fold._sorted_labels = None
            fold.label_sources = {
                label: LabelSource(kind, seq, tool, call_id)
                for label, kind, seq, tool, call_id in snapshot["label_sources"]
            }
            fold.pins = dict(snapshot["pins"])
            fold._totals = [int(n) for n in snapshot["totals"]]
            for call_id, tool, message_seq, index, verdict in snapshot["open_calls"]:
                call = _Call(call_id, tool, message_seq, index)
                call.verdict = verdict
                fold._open_calls[call_id] = call
            fold._provider, fold._request_model = snapshot["model"]
            fold._runs = int(snapshot["runs"])
            fold._messages, fold._gathering = snapshot["messages"]
            fold._turned, fold._borrowed = snapshot["turned"]
            fold.sink.mark_given(snapshot["warned"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"not a snapshot of a session's state: {e}") from None
        return fold

    def check_seq(self, seq: int, line: int) -> None:
        """Warn, once, when ``seq`` (of the entry at ``line``) is not above the last one
        folded (``feed`` does this for every entry; a part of a log folded elsewhere is
        checked with it where it joins)."""
        last = self._last_seq
        if last is not None and seq <= last:
            self._out_of_order(seq, line)

    def _out_of_order(self, seq: int, line: int) -> None:
        """Warn, once, that the entry at ``line`` has a ``seq`` not above the one before."""
        self._warn(
            "order",
            line,
            f"seq {seq} after seq {self._last_seq}: entries out of order or repeated; read in "
            "the order of the file",
        )

    def feed(self, entry: Entry) -> Run | None:
        """Take the next entry of the log; return the run it ended, if any."""
        seq = entry.seq
        last = self._last_seq
        if last is not None and seq <= last:
            self._out_of_order(seq, entry.line)
        self._last_seq = seq
        payload: Any = entry.payload
        kind = entry.type
        run = self._run
        if kind == "run_started":
            ended = self.finish()
            self._run = _RunFold(self._runs, entry, self.labels)
            self._runs += 1
            return ended
        if run is None:
            self._outside(entry, payload)
            return None
        # The entries most lines hold are folded here, not in a handler: this is the hot path.
        when = entry.time_unix_nano
        if kind == "tool_result":
            self._gathering = True
            result = payload.result
            call_id = result.call_id
            rc = run.calls.get(call_id) or self._resumed(run, entry, call_id, "")
            rc.result_time = when
            rc.result_seq = seq
            rc.result_offset = entry.utc_offset_seconds
            rc.result_prev_time = run.last.time_unix_nano
            rc.is_error = result.is_error
            if payload.usage:
                rc.model_calls = tuple(
                    [
                        _new_tool_model_call(i, mu.model, mu.usage)
                        for i, mu in enumerate(payload.usage)
                    ]
                )
                for mu in payload.usage:
                    self._count(mu.usage)
            if payload.labels:  # given as the run ends, unless the run refused the result
                run.result_labels.append((rc, seq, payload.labels))
            self._open_calls.pop(call_id, None)
        elif kind == "call_started":
            call_id = payload.call_id
            rc = run.calls.get(call_id) or self._resumed(run, entry, call_id, "")
            if rc.started_time is None:
                rc.started_time = when
        elif kind == "decision":
            call_id = payload.call_id
            tool = payload.tool
            rc = run.calls.get(call_id) or self._resumed(run, entry, call_id, tool)
            call = rc.call
            if tool and not call.tool:
                call.tool = tool
            verdict = call.verdict = payload.verdict
            if rc.decision_time is None:
                rc.decision_time = when
            if verdict == "allow" and payload.labels:
                labels = payload.labels
                rc.labels = set(labels) if rc.labels is None else rc.labels | set(labels)
                self._add_labels(labels, LabelSource("tool", seq, call.tool, call_id))
                run.label_events.append((seq, labels))
        elif kind == "message":
            index = self._messages  # _next_message, inline
            if self._gathering:
                self._gathering = False
                index += 1
            self._messages = index + 1
            if payload.message.role == "assistant":
                self._turn(run, entry, payload, index)
        else:
            handle = self._handlers.get(kind)
            if handle is not None:
                handle(run, entry, payload)
        run.last = entry
        if kind == "run_ended":
            self._run = None
            return self._close(run, cast(Outcome, payload))
        return None

    def _outside(self, entry: Entry, payload: Any) -> None:
        """An entry outside any run: in no run, but the session's state changes as it would
        in one (its usage, labels, pins, the calls it opens or settles)."""
        kind = entry.type
        if kind == "labels" or kind == "pins":
            self._session_entry(None, entry, payload)
            return
        if kind in _RUN_TYPES:
            self._warn(
                "outside",
                entry.line,
                f"a {entry.type} entry outside any run (no run_started before it): it is in no "
                "run and no span",
            )
        if kind == "message":
            self._next_message()
            self._count(payload.usage)
            if payload.message.role == "assistant":
                for index, c in enumerate(payload.message.tool_calls):
                    self._open_calls[c.id] = _Call(c.id, c.name, entry.seq, index)
        elif kind == "tool_result":
            self._gathering = True
            for mu in payload.usage:
                self._count(mu.usage)
            call = self._open_calls.pop(payload.result.call_id, None)
            if payload.labels:  # no run, so nothing refused it
                tool = call.tool if call is not None else ""
                source = LabelSource("tool", entry.seq, tool, payload.result.call_id)
                self._add_labels(payload.labels, source)
        elif kind == "decision":
            call = self._open_calls.get(payload.call_id)
            if call is not None:
                call.verdict = payload.verdict
            if payload.verdict == "allow" and payload.labels:
                source = LabelSource("tool", entry.seq, payload.tool, payload.call_id)
                self._add_labels(payload.labels, source)

    def _next_message(self) -> int:
        """A message entry: its index in ``Session.messages()``."""
        if self._gathering:  # the results before it are one user message
            self._gathering = False
            self._messages += 1
        index = self._messages
        self._messages = index + 1
        return index

    def _session_entry(
        self, run: _RunFold | None, entry: Entry, payload: LabelsEntry | PinsEntry
    ) -> None:
        if isinstance(payload, LabelsEntry):
            self._add_labels(payload.labels, LabelSource(payload.source or "seed", entry.seq))
            if run is not None and payload.labels:
                run.label_events.append((entry.seq, payload.labels))
        else:
            for tool, digest in payload.pins.items():
                self.pins.setdefault(tool, digest)

    def finish(self) -> Run | None:
        """End the log: return the run still open (it crashed), if any."""
        run = self._run
        self._run = None
        return None if run is None else self._close(run, None)

    def _call_start(self, run: _RunFold, entry: Entry) -> int:
        last = run.last
        start = last.time_unix_nano
        if last.type == "model_error" and last.payload.retry:  # type: ignore[union-attr]
            start += last.payload.wait_ms * _MS  # type: ignore[union-attr]
        return min(start, entry.time_unix_nano)

    def _turn(self, run: _RunFold, entry: Entry, payload: MessageEntry, index: int) -> None:
        native = payload.message.native
        provider = native.provider if native is not None else ""
        native_model = native.model if native is not None else ""
        model = payload.model or native_model
        request_model = native_model or payload.model
        calls = payload.message.tool_calls
        seq = entry.seq
        when = entry.time_unix_nano
        last = run.last  # _call_start, inline: this is the hot path
        start = last.time_unix_nano
        if last.type == "model_error" and last.payload.retry:  # type: ignore[union-attr]
            start += last.payload.wait_ms * _MS  # type: ignore[union-attr]
        usage = payload.usage
        call_ids: tuple[str, ...] = ()
        if calls:  # opened by this turn (a loop, not comprehensions: most turns ask for some)
            open_calls = self._open_calls
            run_calls = run.calls
            ids = []
            for i, c in enumerate(calls):
                call_id = c.id
                call = _Call(call_id, c.name, seq, i)
                open_calls[call_id] = call
                run_calls[call_id] = _RunCall(call, seq, i, when)
                ids.append(call_id)
            call_ids = tuple(ids)
        run.turns.append(
            _new_turn(
                seq,
                when,
                start if start < when else when,
                provider,
                request_model,
                model,
                payload.stop,
                usage,
                call_ids,
                index,
                entry.utc_offset_seconds,
            )
        )
        totals = self._totals  # _count, inline
        totals[0] += usage.input_tokens
        totals[1] += usage.output_tokens
        totals[2] += usage.cache_read_tokens
        totals[3] += usage.cache_write_tokens
        self._provider, self._request_model = provider, request_model
        self._turned = True
        if run.unresolved:
            for i in run.unresolved:
                f = run.failed[i]
                run.failed[i] = _new_failed(
                    f.seq,
                    f.time_unix_nano,
                    f.start_time_unix_nano,
                    f.error,
                    f.retry,
                    f.wait_ms,
                    provider,
                    request_model,
                    f.utc_offset_seconds,
                )
            run.unresolved.clear()

    def _failed(self, run: _RunFold, entry: Entry, payload: ModelErrorEntry) -> None:
        if not self._turned:
            self._borrowed = True
        if not self._provider and not self._request_model:
            run.unresolved.append(len(run.failed))
        run.failed.append(
            _new_failed(
                entry.seq,
                entry.time_unix_nano,
                self._call_start(run, entry),
                payload.error,
                payload.retry,
                payload.wait_ms,
                self._provider,
                self._request_model,
                entry.utc_offset_seconds,
            )
        )

    def _resumed(self, run: _RunFold, entry: Entry, call_id: str, tool: str) -> _RunCall:
        """A call ``entry`` is about that no entry of this run opened: a call from before
        this run (resumed), or one no turn asked for."""
        call = self._open_calls.get(call_id)
        if call is None:
            call = _Call(call_id, tool, None, 0)
            self._open_calls[call_id] = call
        rc = _RunCall(call, entry.seq, 0, entry.time_unix_nano)
        rc.resumed = True
        run.calls[call_id] = rc
        return rc

    def _close(self, run: _RunFold, outcome: Outcome | None) -> Run:
        last = run.last
        end_time = last.time_unix_nano
        refused = {r.call_id for r in outcome.refused} if outcome is not None else set()
        events = run.label_events
        for rc, seq, labels in run.result_labels:
            call = rc.call
            if call.call_id not in refused:
                rc.add_labels(labels)
                self._add_late_labels(labels, LabelSource("tool", seq, call.tool, call.call_id))
                events.append((seq, labels))
        records = []
        for rc in run.calls.values():
            end = rc.result_time if rc.result_time is not None else end_time
            if rc.started_time is not None:
                start = rc.started_time
            elif rc.decision_time is not None:
                start = rc.decision_time
            elif rc.result_time is not None:
                start = rc.result_prev_time
            else:
                start = rc.open_time
            call = rc.call
            records.append(
                _new_record(
                    call.call_id,
                    call.tool,
                    call.message_seq,
                    call.index,
                    rc.open_seq,
                    rc.open_index,
                    call.verdict,
                    min(start, end),
                    end,
                    rc.started_time is not None,
                    rc.result_time is not None,
                    rc.is_error,
                    rc.result_seq,
                    call.call_id in refused,
                    rc.resumed,
                    tuple(sorted(rc.labels)) if rc.labels else (),
                    rc.model_calls,
                    rc.result_offset if rc.result_time is not None else last.utc_offset_seconds,
                )
            )
        records.sort(key=_OPEN_ORDER)
        # (``map`` of an attribute getter: no comprehension's frame for each set, run after run)
        turns = run.turns
        providers = set(map(_PROVIDER, turns))
        models = set(map(_REQUEST_MODEL, turns))
        if run.failed:
            providers.update(map(_PROVIDER, run.failed))
            models.update(map(_REQUEST_MODEL, run.failed))
        for r in records:
            if r.model_calls:
                models.update(map(_MODEL, r.model_calls))
        providers.discard("")
        models.discard("")
        first = run.start
        return _new_run(
            run.index,
            first.seq,
            first.time_unix_nano,
            last.seq,
            end_time,
            outcome,
            outcome.reason if outcome is not None else "crashed",
            outcome.turns if outcome is not None else len(run.turns),
            outcome.usage if outcome is not None else _calls_usage(run.turns, records),
            tuple(run.turns),
            tuple(run.failed),
            tuple(records),
            self.labels,
            providers.pop() if len(providers) == 1 else "",
            models.pop() if len(models) == 1 else "",
            first.payload.prompt,  # type: ignore[union-attr]
            _label_history(first.seq, run.start_labels, events),
        )


def _label_history(
    start_seq: int, start: tuple[str, ...], events: list[tuple[int, tuple[str, ...]]]
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """``Run.label_history``: the labels at the run's start, then after each entry that gave
    new ones, by ``seq`` (an entry whose ``seq`` went back before the run's start counts at
    the start)."""
    history = [(start_seq, start)]
    if not events:
        return tuple(history)
    held = set(start)
    for seq, labels in sorted(events, key=_seq_of):
        if held.issuperset(labels):
            continue
        held.update(labels)
        pair = (max(seq, start_seq), tuple(sorted(held)))
        if pair[0] == history[-1][0]:
            history[-1] = pair
        else:
            history.append(pair)
    return tuple(history)


def _calls_usage(turns: list[Turn], records: list[ToolCallRecord]) -> Usage:
    """The sum of a run's model calls: its turns and the calls its tools made."""
    total = ZERO_USAGE
    for t in turns:
        total += t.usage
    for r in records:
        for m in r.model_calls:
            total += m.usage
    return total


def iter_runs(entries: Iterable[Entry], fold: SessionFold | None = None) -> Iterator[Run]:
    """Fold entries into runs, yielding each run as it ends (streaming).

    Args:
        entries: a log's entries in order, such as a ``LogReader``.
        fold: the ``SessionFold`` to use, to read the session's labels, pins and usage after;
            a new one by default.
    """
    fold = fold if fold is not None else SessionFold()
    feed = fold.feed
    for entry in entries:
        run = feed(entry)
        if run is not None:
            yield run
    run = fold.finish()
    if run is not None:
        yield run
