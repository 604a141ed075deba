"""Logs to what the report shows: sessions, runs, one mark per span, costs, label changes, and
(only when asked) the conversation. Nothing here knows HTML.

The marks are the spans ``trace_spans`` gives for each run with the export's defaults
(conversation id: the file's name without its extension), so every span of ``sessiontools
otel`` has exactly one mark, with the same kind and id. What a span does not carry (the entry
it stands for, so its cost) is found by the contract's order (design/traces.md): a run's
spans are ordered by start time, then seq, so its turn and failed-call spans are its turns and
failed calls in that order; a tool span names its call (``gen_ai.tool.call.id``); a tool's
model calls are its children in ``usage`` order.

Costs come from the cost frames (``read_costs``, priced by one ``PriceBook``), read once for
every log. A run that ``read_costs`` counted from another log (a session and a transcript of
one of its runs given together) is priced from its own log for its own section, while the
overview counts it once.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import os
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from .._cost.frames import CostTables, PriceSource, SkippedLog, read_costs
from .._cost.price_book import PriceBook
from .._cost.rows import Logs
from .._errors import LogError, SessionToolsWarning, UsageConventionError
from .._log.entries import (
    DecisionEntry,
    Entry,
    LabelsEntry,
    MessageEntry,
    ModelErrorEntry,
    Outcome,
    RunStartedEntry,
    ToolResultEntry,
)
from .._log.reader import LogReader
from .._log.sources import default_conversation_id, find_logs
from .._model.fold import SessionFold, iter_runs
from .._model.runs import Run, ToolCallRecord
from .._model.session import Session
from .._otel.spans import STATUS_CODE_ERROR, AttributeValue, Span, trace_spans
from . import costs as money
from .costs import ZERO, Cost, Counts, ModelRow, ToolRow, Totals

__all__ = [
    "LANE_MODEL",
    "LANE_RUN",
    "LANE_TOOL",
    "LANE_TOOL_MODEL",
    "ContentItem",
    "LabelChange",
    "Mark",
    "ReportData",
    "RunView",
    "SessionView",
    "collect_report",
]

#: The timeline's lanes, top to bottom.
LANE_RUN, LANE_MODEL, LANE_TOOL, LANE_TOOL_MODEL = 0, 1, 2, 3
#: Tool calls that overlap in time go on rows below each other, up to this many.
MAX_ROWS = 4

_TOOL_ERRORS = {"denied": "dn", "refused": "rf", "tool_error": "e", "crashed": "k"}


@dataclass(frozen=True, slots=True)
class Mark:
    """One span of the export, as the timeline draws it.

    ``kind`` is ``data-span-kind`` (``invoke_agent``, ``chat`` or ``execute_tool``); ``lane``
    and ``row`` place it; ``classes`` say how it went, as CSS class names (``e`` error, ``y``
    retried, ``k`` crashed or cut off, ``dn`` denied, ``rf`` refused, ``rs`` settled by a later
    run; ``""`` when it went well); ``cost`` is ``None``
    for a tool call whose tool made no model call; ``seq`` is the entry that opens it.
    """

    span: Span
    kind: str
    lane: int
    row: int
    classes: str
    cost: Cost | None
    seq: int


@dataclass(frozen=True, slots=True)
class ContentItem:
    """A piece of the conversation (``--content`` only): ``blocks`` are (caption, text)."""

    seq: int
    time_unix_nano: int
    kind: str
    title: str
    blocks: tuple[tuple[str, str], ...]
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class RunView:
    """One run: its numbers, its marks in the export's order, and its conversation."""

    index: int
    start_seq: int
    end_seq: int
    start_time_unix_nano: int
    end_time_unix_nano: int
    reason: str
    turns: int
    failed_calls: int
    tool_calls: int
    tool_model_calls: int
    trace_id: str
    cost: Cost
    axis_start_unix_nano: int
    axis_end_unix_nano: int
    rows: tuple[int, int, int, int]
    marks: tuple[Mark, ...]
    content: tuple[ContentItem, ...]

    @property
    def duration_ms(self) -> float:
        return (self.end_time_unix_nano - self.start_time_unix_nano) / 1e6

    @property
    def crashed(self) -> bool:
        return self.reason == "crashed"


@dataclass(frozen=True, slots=True)
class LabelChange:
    """A label the session took: when (``seq``, time), in which run (``None``: between runs),
    and from what (``kind`` ``seed`` or a labels entry's source, or ``tool`` with the tool and
    call id)."""

    label: str
    seq: int
    time_unix_nano: int | None
    run_index: int | None
    kind: str
    tool: str
    call_id: str


@dataclass(frozen=True, slots=True)
class SessionView:
    """One log, as its section of the report shows it."""

    number: int
    name: str
    conversation_id: str
    runs: tuple[RunView, ...]
    totals: Totals
    tool_calls: int
    denied: int
    refused: int
    tool_errors: int
    cut_off: int
    crashed_runs: int
    by_model: tuple[ModelRow, ...]
    by_tool: tuple[ToolRow, ...]
    label_changes: tuple[LabelChange, ...]
    labels: tuple[str, ...]
    outside: tuple[ContentItem, ...]
    torn_tail: bool
    transcript_cost_usd: float | None

    @property
    def start_time_unix_nano(self) -> int | None:
        return self.runs[0].start_time_unix_nano if self.runs else None

    @property
    def end_time_unix_nano(self) -> int | None:
        return max(r.end_time_unix_nano for r in self.runs) if self.runs else None

    @property
    def marks(self) -> int:
        return sum(len(r.marks) for r in self.runs)


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the report shows, read from logs (``collect_report``); render it with
    ``render_report_html`` or ``render_report_pages``.

    ``totals``, ``counts`` and ``day_model_costs`` count each run once, as ``sessiontools
    cost`` does, even when a session and a transcript of one of its runs are both given;
    ``costliest_runs`` are (session number, run index), the ten costliest first.
    """

    sessions: tuple[SessionView, ...]
    skipped: tuple[SkippedLog, ...]
    warnings: tuple[str, ...]
    content: bool
    totals: Totals
    counts: Counts
    day_model_costs: tuple[tuple[str, str, Cost], ...]
    costliest_runs: tuple[tuple[int, int], ...]

    @property
    def marks(self) -> int:
        return sum(s.marks for s in self.sessions)


@dataclass
class _Costs:
    """The cost frames' numbers for the spans, by the keys of the entries they stand for."""

    calls: dict[tuple[str, str, int, int], Cost]
    runs: dict[tuple[str, int], Cost]
    tools: dict[tuple[str, int, str], Cost]
    present: set[tuple[str, int]]  # (session, run index) of the runs the frames hold

    @classmethod
    def of(cls, tables: CostTables, book: PriceBook) -> tuple[_Costs, Any]:
        frame = money.with_savings(tables.model_calls, book)
        runs = tables.runs
        return (
            cls(
                money.call_costs(frame),
                money.run_costs(frame),
                money.tool_call_costs(frame),
                set(zip(runs["session"].tolist(), runs["run_index"].tolist(), strict=True)),
            ),
            frame,
        )


def collect_report(
    logs: Logs,
    *,
    prices: PriceSource = None,
    content: bool = False,
    skip_damaged: bool = False,
    workers: int | None = 1,
    progress: Callable[[str], None] | None = None,
) -> ReportData:
    """Read logs into what the HTML report shows.

    Args:
        logs: as ``read_costs`` takes them: a path, a directory (its ``*.jsonl``, recursively),
            a glob, a ``Session``, or a list of these. The same file given twice is one session.
        prices: as ``read_costs`` (a price file wins over genai-prices).
        content: keep the conversation (prompts, messages, reasoning, tool inputs and results,
            displays, policy reasons, tool logs, error messages) for the report to show. Off,
            nothing of it is read into the result.
        skip_damaged: a log that cannot be read is listed in ``skipped`` instead of raising.
        workers: how the cost frames are read (``read_costs``' ``workers``).
        progress: called with a log's name twice: once its costs are read, once its runs.

    Raises:
        As ``read_costs``: ``LogError``, ``OSError``, ``UsageConventionError`` (unless
        ``skip_damaged``), ``FileNotFoundError``, ``PriceFileError``.
    """
    book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
    items = _unique(find_logs(logs, keep=(Session,)))
    # its warnings are the logs' (given once: the second read below keeps quiet)
    tables = read_costs(
        items, prices=book, skip_damaged=skip_damaged, progress=progress, workers=workers
    )
    costs, frame = _Costs.of(tables, book)
    skipped = list(tables.skipped)
    gone = {s.name for s in skipped}
    sessions: list[SessionView] = []
    by_model = money.model_rows_by_session(frame)
    by_tool = money.tool_rows_by_session(tables.tool_calls)
    totals = money.totals_by(frame, ["session"])
    with paused_gc():
        for item in items:
            name = _name(item)
            if name in gone:
                if progress is not None:
                    progress(name)
                continue
            try:
                read = _read(item, name, content, costs, book)
            except (LogError, UsageConventionError, OSError) as e:
                # read_costs read it; it changed or went away since
                if not skip_damaged:
                    raise
                problem = f"{name}: cannot read: {e}" if isinstance(e, OSError) else str(e)
                skipped.append(SkippedLog(name, problem))
                continue
            if progress is not None:
                progress(name)
            fallback = read.fallback
            sessions.append(
                read.view(
                    number=len(sessions) + 1,
                    totals=(fallback.totals if fallback else totals).get(name, money.EMPTY_TOTALS),
                    by_model=tuple((fallback.by_model if fallback else by_model).get(name, ())),
                    by_tool=tuple((fallback.by_tool if fallback else by_tool).get(name, ())),
                )
            )
    everything = money.totals_by(frame, []).get((), money.EMPTY_TOTALS)
    runs = sorted(
        ((s, r) for s in sessions for r in s.runs),
        key=lambda sr: (-sr[1].cost.usd, sr[0].number, sr[1].index),
    )
    return ReportData(
        sessions=tuple(sessions),
        skipped=tuple(skipped),
        warnings=tables.warnings,
        content=content,
        totals=everything,
        counts=money.counts(tables.runs, tables.tool_calls),
        day_model_costs=tuple(money.day_model_costs(frame)),
        costliest_runs=tuple((s.number, r.index) for s, r in runs[:10] if r.cost.usd > 0),
    )


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (and restored as it was). The report builds a large
    graph of small objects that stays alive until it is written (every span, mark and run),
    and each full collection walks all of it again: on the 100 MB log that was a third of the
    rendering's time. What is made meanwhile has few reference cycles; it is freed by reference
    counting as usual, and the collector takes the rest once resumed."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _unique(items: Iterable[Any]) -> list[Any]:
    """The logs, each file once (by its real path), in order."""
    seen: set[str] = set()
    out: list[Any] = []
    for item in items:
        if isinstance(item, str | os.PathLike):
            key = os.path.realpath(item)
            if key in seen:
                continue
            seen.add(key)
        out.append(item)
    return out


def _name(item: Any) -> str:
    """The log's name as the cost frames call it (their ``session`` column)."""
    if isinstance(item, str | os.PathLike):
        return os.fspath(item)
    name = getattr(item, "name", None)
    return name if isinstance(name, str) else repr(item)


@dataclass
class _Fallback:
    """A log's own cost frames, for a log some of whose runs the shared frames took from
    another log."""

    costs: _Costs
    totals: dict[Any, Totals]
    by_model: dict[str, list[ModelRow]]
    by_tool: dict[str, list[ToolRow]]

    @classmethod
    def read(cls, item: Any, book: PriceBook) -> _Fallback:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SessionToolsWarning)  # said once already
            tables = read_costs([item], prices=book)
        costs, frame = _Costs.of(tables, book)
        return cls(
            costs,
            money.totals_by(frame, ["session"]),
            money.model_rows_by_session(frame),
            money.tool_rows_by_session(tables.tool_calls),
        )


class _Tap:
    """Passes a log's entries on, noting what runs do not keep: when each entry that can give
    labels was written, and (with ``content``) each entry's conversation."""

    def __init__(self, content: bool) -> None:
        self.content = content
        self.label_times: dict[int, int] = {}
        self.items: deque[ContentItem] = deque()
        self.tools: dict[str, str] = {}  # call id -> tool name, for results

    def __call__(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        label_times = self.label_times
        for entry in entries:
            payload = entry.payload
            kind = payload.__class__
            if (
                kind is LabelsEntry or kind is DecisionEntry or kind is ToolResultEntry
            ) and payload.labels:  # type: ignore[union-attr]
                label_times[entry.seq] = entry.time_unix_nano
            if self.content:
                self.items.extend(_content(entry, self.tools))
            yield entry

    def take(self, run: Run) -> tuple[list[ContentItem], list[ContentItem]]:
        """The content before ``run`` (outside any run) and in it."""
        before: list[ContentItem] = []
        inside: list[ContentItem] = []
        items = self.items
        while items and items[0].seq <= run.end_seq:
            item = items.popleft()
            (before if item.seq < run.start_seq else inside).append(item)
        return before, inside


@dataclass
class _Read:
    name: str
    conversation_id: str
    runs: list[RunView]
    fold: SessionFold
    tap: _Tap
    outside: list[ContentItem]
    torn_tail: bool
    transcript_cost_usd: float | None
    fallback: _Fallback | None

    def view(
        self,
        number: int,
        totals: Totals,
        by_model: tuple[ModelRow, ...],
        by_tool: tuple[ToolRow, ...],
    ) -> SessionView:
        counts = dict.fromkeys(_TOOL_ERRORS, 0)
        tool_calls = 0
        for run in self.runs:
            for mark in run.marks:
                if mark.kind == "execute_tool" and mark.lane == LANE_TOOL:
                    tool_calls += 1
                    error = _attribute(mark.span, "error.type")
                    if isinstance(error, str) and error in counts:
                        counts[error] += 1
        return SessionView(
            number=number,
            name=self.name,
            conversation_id=self.conversation_id,
            runs=tuple(self.runs),
            totals=totals,
            tool_calls=tool_calls,
            denied=counts["denied"],
            refused=counts["refused"],
            tool_errors=counts["tool_error"],
            cut_off=counts["crashed"],
            crashed_runs=sum(1 for r in self.runs if r.crashed),
            by_model=by_model,
            by_tool=by_tool,
            label_changes=tuple(self._label_changes()),
            labels=self.fold.labels,
            outside=tuple(self.outside),
            torn_tail=self.torn_tail,
            transcript_cost_usd=self.transcript_cost_usd,
        )

    def _label_changes(self) -> list[LabelChange]:
        starts = [r.start_seq for r in self.runs]
        out = []
        for label, source in self.fold.label_sources.items():
            at = bisect.bisect_right(starts, source.seq) - 1
            run_index = None
            if at >= 0 and source.seq <= self.runs[at].end_seq:
                run_index = self.runs[at].index
            out.append(
                LabelChange(
                    label=label,
                    seq=source.seq,
                    time_unix_nano=self.tap.label_times.get(source.seq),
                    run_index=run_index,
                    kind=source.kind,
                    tool=source.tool,
                    call_id=source.call_id,
                )
            )
        out.sort(key=lambda c: (c.seq, c.label))
        return out


def _read(item: Any, name: str, content: bool, costs: _Costs, book: PriceBook) -> _Read:
    """Read one log's runs into views (streaming: a run at a time)."""
    conversation_id = default_conversation_id(name)
    fold = SessionFold(name)
    tap = _Tap(content)
    read = _Read(name, conversation_id, [], fold, tap, [], False, None, None)
    if not isinstance(item, Session | str | os.PathLike):
        # a stream (standard input) can be read only once, and the report reads each log
        # twice: once for the cost frames, once for its runs and spans
        raise TypeError(f"{name}: the report reads a log from a file or a Session, not a stream")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SessionToolsWarning)  # read_costs said them
        if isinstance(item, Session):
            _runs(iter_runs(tap(item.entries), fold), read, item, costs, book)
            read.torn_tail = item.torn_tail is not None
            closing = item.closing_line
        else:
            with LogReader(item, name=name) as reader:
                _runs(iter_runs(tap(reader), fold), read, item, costs, book)
                read.torn_tail = reader.torn_tail is not None
                closing = reader.closing_line
    read.transcript_cost_usd = closing.cost_usd if closing is not None else None
    read.outside.extend(tap.items)  # after the last run
    return read


def _runs(runs: Iterator[Run], read: _Read, item: Any, costs: _Costs, book: PriceBook) -> None:
    for run in runs:
        if read.fallback is None and (read.name, run.index) not in costs.present:
            read.fallback = _Fallback.read(item, book)
        before, inside = read.tap.take(run)
        read.outside.extend(before)
        spans = list(trace_spans([run], conversation_id=read.conversation_id))
        view = _run_view(
            run, spans, read.name, read.fallback.costs if read.fallback else costs, inside
        )
        read.runs.append(view)


def _attribute(span: Span, key: str) -> AttributeValue | None:
    for k, v in span.attributes:
        if k == key:
            return v
    return None


def _run_view(
    run: Run, spans: list[Span], name: str, costs: _Costs, content: list[ContentItem]
) -> RunView:
    """A run's marks: one per span, in the spans' order."""
    attributes = [dict(s.attributes) for s in spans]
    kinds = [a.get("gen_ai.operation.name") for a in attributes]
    run_spans = [s for s, k in zip(spans, kinds, strict=True) if k == "invoke_agent"]
    if len(run_spans) != 1:
        raise AssertionError(f"{name}: run {run.index}: {len(run_spans)} invoke_agent spans")
    run_id = run_spans[0].span_id
    # the contract's order: start time, then seq
    calls = sorted(
        [(t.start_time_unix_nano, t.seq) for t in run.turns]
        + [(f.start_time_unix_nano, f.seq) for f in run.failed_calls]
    )
    records = {c.call_id: c for c in run.tool_calls}
    # Each tool span's call. A log whose seq repeats can give two tool spans one id (their
    # keys are the same entry numbers): a tool's model call then goes to the one with its
    # times (a tool's model calls span their tool's call) that still has calls to give.
    tools: dict[bytes, list[ToolCallRecord]] = {}
    for span, kind, attrs in zip(spans, kinds, attributes, strict=True):
        if kind == "execute_tool":
            call_id = attrs.get("gen_ai.tool.call.id")
            record = records.get(call_id) if isinstance(call_id, str) else None
            if record is None:
                raise AssertionError(f"{name}: run {run.index}: a tool span without its call")
            tools.setdefault(span.span_id, []).append(record)
    given: dict[str, int] = {}  # call id -> its model calls given a span so far
    t0 = min(s.start_time_unix_nano for s in spans)
    t1 = max(s.end_time_unix_nano for s in spans)
    rows_end: list[int] = []
    marks: list[Mark] = []
    next_call = 0
    tool_models = 0
    for span, kind, attrs in zip(spans, kinds, attributes, strict=True):
        error = attrs.get("error.type")
        if kind == "invoke_agent":
            if error == "crashed":
                classes = "k"
            else:
                classes = "e" if span.status_code == STATUS_CODE_ERROR else ""
            cost: Cost | None = costs.runs.get((name, run.index), ZERO)
            marks.append(Mark(span, "invoke_agent", LANE_RUN, 0, classes, cost, run.start_seq))
        elif kind == "execute_tool":
            record = records[str(attrs["gen_ai.tool.call.id"])]
            row = _place(rows_end, span)
            flags = []
            if isinstance(error, str) and error in _TOOL_ERRORS:
                flags.append(_TOOL_ERRORS[error])
            if record.resumed:
                flags.append("rs")
            classes = " ".join(flags)
            cost = (
                costs.tools.get((name, run.index, record.call_id)) if record.model_calls else None
            )
            marks.append(Mark(span, "execute_tool", LANE_TOOL, row, classes, cost, record.open_seq))
        elif span.parent_span_id in tools:
            record = _tool_of(span, tools[span.parent_span_id], given)
            if record is None:
                raise AssertionError(f"{name}: run {run.index}: a tool's model call out of place")
            index = given.get(record.call_id, 0)
            given[record.call_id] = index + 1
            seq = record.result_seq if record.result_seq is not None else record.open_seq
            cost = costs.calls.get((name, "tool", seq, record.model_calls[index].index))
            tool_models += 1
            marks.append(
                Mark(span, "chat", LANE_TOOL_MODEL, min(index, MAX_ROWS - 1), "", cost, seq)
            )
        else:
            if span.parent_span_id != run_id or next_call >= len(calls):
                raise AssertionError(f"{name}: run {run.index}: a model call out of place")
            seq = calls[next_call][1]
            next_call += 1
            classes = ""
            if span.status_code == STATUS_CODE_ERROR:
                classes = "e y" if attrs.get("agentloop.retry") is True else "e"
            cost = costs.calls.get((name, "turn", seq, 0))
            marks.append(Mark(span, "chat", LANE_MODEL, 0, classes, cost, seq))
    if next_call != len(calls):
        raise AssertionError(f"{name}: run {run.index}: model calls without a span")
    deepest = max((m.row for m in marks if m.lane == LANE_TOOL_MODEL), default=-1)
    rows = (1, 1 if calls else 0, len(rows_end), deepest + 1)
    return RunView(
        index=run.index,
        start_seq=run.start_seq,
        end_seq=run.end_seq,
        start_time_unix_nano=run.start_time_unix_nano,
        end_time_unix_nano=run.end_time_unix_nano,
        reason=run.reason,
        turns=run.turn_count,
        failed_calls=len(run.failed_calls),
        tool_calls=len(run.tool_calls),
        tool_model_calls=tool_models,
        trace_id=run_spans[0].trace_id.hex(),
        cost=marks[kinds.index("invoke_agent")].cost or ZERO,
        axis_start_unix_nano=t0,
        axis_end_unix_nano=t1,
        rows=rows,
        marks=tuple(marks),
        content=tuple(content),
    )


def _tool_of(
    span: Span, candidates: list[ToolCallRecord], given: dict[str, int]
) -> ToolCallRecord | None:
    """The tool call a tool's model call span belongs to, among the calls whose spans have its
    parent's id: one with its times and a model call left, else any with one left."""
    left = [c for c in candidates if given.get(c.call_id, 0) < len(c.model_calls)]
    for c in left:
        if (c.start_time_unix_nano, c.end_time_unix_nano) == (
            span.start_time_unix_nano,
            span.end_time_unix_nano,
        ):
            return c
    return left[0] if left else None


def _place(rows_end: list[int], span: Span) -> int:
    """The first row a tool call fits on without overlapping the one before it there."""
    for row, end in enumerate(rows_end):
        if span.start_time_unix_nano >= end:
            rows_end[row] = span.end_time_unix_nano
            return row
    if len(rows_end) < MAX_ROWS:
        rows_end.append(span.end_time_unix_nano)
        return len(rows_end) - 1
    rows_end[-1] = max(rows_end[-1], span.end_time_unix_nano)
    return MAX_ROWS - 1


# The conversation (--content only).


def _content(entry: Entry, tools: dict[str, str]) -> Iterator[ContentItem]:
    payload = entry.payload
    seq, at = entry.seq, entry.time_unix_nano
    if isinstance(payload, RunStartedEntry):
        if payload.prompt:
            yield ContentItem(seq, at, "prompt", "Prompt", (("", payload.prompt),))
    elif isinstance(payload, MessageEntry):
        message = payload.message
        blocks: list[tuple[str, str]] = []
        for part in message.parts:
            if part.tool_call is not None:
                call = part.tool_call
                tools[call.id] = call.name
                blocks.append((f"Tool call {call.name} ({call.id})", _json(call.input)))
            elif part.tool_result is not None:
                result = part.tool_result
                blocks.append((f"Tool result ({result.call_id})", result.content))
            elif part.text:
                blocks.append(("Reasoning" if part.type == "reasoning" else "", part.text))
        if payload.refusal:
            blocks.append(("Refusal", payload.refusal))
        title = "Assistant" if message.role == "assistant" else message.role.capitalize()
        yield ContentItem(seq, at, message.role, title, tuple(blocks))
    elif isinstance(payload, DecisionEntry):
        if payload.reason:
            title = f"Decision: {payload.verdict} {payload.tool} ({payload.call_id})"
            yield ContentItem(seq, at, "decision", title, (("Reason", payload.reason),))
    elif isinstance(payload, ToolResultEntry):
        result = payload.result
        tool = tools.get(result.call_id, "")
        blocks = [("", result.content)]
        if payload.log:
            blocks.append(("Log", payload.log))
        display = payload.display
        if display is not None:
            blocks.append(
                (f"Display: {display.title}" if display.title else "Display", display.body)
            )
            for source in display.sources:
                blocks.append(("Source", f"{source.title} {source.ref}".strip()))
            if display.ref:
                blocks.append(("Display ref", display.ref))
        title = f"Result of {tool} ({result.call_id})" if tool else f"Result ({result.call_id})"
        yield ContentItem(seq, at, "result", title, tuple(blocks), result.is_error)
    elif isinstance(payload, ModelErrorEntry):
        error = payload.error
        status = f" ({error.status})" if error.status else ""
        title = f"Model error: {error.kind or 'model_error'}{status}"
        yield ContentItem(seq, at, "error", title, (("", error.message),), True)
    elif isinstance(payload, Outcome):
        blocks = []
        if payload.text:
            blocks.append(("", payload.text))
        if payload.error is not None and payload.error.message:
            blocks.append(("Error", payload.error.message))
        if blocks:
            yield ContentItem(seq, at, "outcome", f"Run ended: {payload.reason}", tuple(blocks))


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:  # a string with a lone surrogate: orjson will not write it
        import json

        return json.dumps(value, indent=2, ensure_ascii=False)
