"""Logs to what the report shows: sessions, runs, one mark per span, costs, label changes, and
(only when asked) the conversation. Nothing here knows HTML.

Each log is read once (``sessiontools._html.read``): its runs are folded once, and both its
marks (one per span of the traces export) and the rows of the cost tables are made of them.
The cost tables of all the logs are then made of those rows (priced by one ``PriceBook``,
as ``read_costs`` makes them: ``cost_tables``' steps without its pandas frames, the sums in
``sessiontools._html.costs``), and each mark takes its cost from them. A run
that the tables counted from another log (a session and a transcript of one of its runs given
together) is priced from its own log's rows for its own section, while the overview counts it
once.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._cost.build import (
    Built,
    PriceSource,
    SkippedLog,
    _Builder,
    _problem,
    call_arrays,
    check_reported,
)
from .._cost.groups import check_sums
from .._cost.price_book import PriceBook
from .._cost.pricing import match_providers
from .._cost.rows import Logs, _LogRows
from .._errors import SessionToolsWarning
from .._log.reader import MAX_LINE_BYTES
from .._log.sources import find_named_logs
from .._model.session import Session
from . import costs as money
from .costs import ZERO, Cost, Counts, ModelRow, ToolRow, Totals
from .facts import LANE_KINDS, MARK_CLASSES, FactsTable
from .read import (
    LANE_MODEL,
    LANE_RUN,
    LANE_TOOL,
    LANE_TOOL_MODEL,
    ContentItem,
    CostKey,
    LabelChange,
    LogRead,
    ReportReads,
    RunDraft,
    paused_gc,
)

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
    "paused_gc",
]


@dataclass(frozen=True, slots=True)
class Mark:
    """One span of the export, as the timeline draws it.

    ``span_id`` is its span's id (8 bytes; the mark's ``data-span-id`` in hex); ``kind`` is
    ``data-span-kind`` (``invoke_agent``, ``chat`` or ``execute_tool``); ``lane`` and ``row``
    place it; ``classes`` say how it went, as CSS class names (``e`` error, ``y`` retried,
    ``k`` crashed or cut off, ``dn`` denied, ``rf`` refused, ``rs`` settled by a later run;
    ``""`` when it went well); ``cost`` is ``None`` for a tool call whose tool made no model
    call.
    """

    span_id: bytes
    kind: str
    lane: int
    row: int
    classes: str
    cost: Cost | None


@dataclass(frozen=True, slots=True)
class RunView:
    """One run: its numbers, its marks in the drawing's order (row by row, each row's in the
    export's order), and its conversation.

    The marks are held as the page's facts hold them (``read.RunDraft``: ``drawing``,
    ``records`` and ``ids``, their strings in ``table``), with their costs in
    ``mark_costs``; ``marks`` makes ``Mark`` values of them."""

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
    rows: tuple[int, int, int, int]
    drawing: tuple[list[int], int, int, int]
    records: list[list[Any]]
    ids: bytes
    table: FactsTable
    mark_costs: tuple[Cost | None, ...]
    content: tuple[ContentItem, ...]

    @property
    def duration_ms(self) -> float:
        return (self.end_time_unix_nano - self.start_time_unix_nano) / 1e6

    @property
    def crashed(self) -> bool:
        return self.reason == "crashed"

    @property
    def marks(self) -> tuple[Mark, ...]:
        """Its marks, in the drawing's order."""
        lanes = self.drawing[0]
        first: dict[int, int] = {}
        for number in range(len(lanes) // 2):
            first.setdefault(lanes[2 * number], number)
        out = []
        for i, (record, cost) in enumerate(zip(self.records, self.mark_costs, strict=True)):
            number, classes = divmod(record[5], 16)
            lane = lanes[2 * number]
            out.append(
                Mark(
                    self.ids[8 * i : 8 * i + 8],
                    LANE_KINDS[lane],
                    lane,
                    number - first[lane],
                    MARK_CLASSES[classes],
                    cost,
                )
            )
        return tuple(out)


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
        return sum(len(r.records) for r in self.runs)


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
    """The cost tables' numbers for the marks, by the keys of the entries they stand for."""

    calls: dict[tuple[str, str, int, int], Cost]
    runs: dict[tuple[str, int], Cost]
    tools: dict[tuple[str, int, str], Cost]
    present: set[tuple[str, int]]  # (session, run index) of the runs the tables hold

    @classmethod
    def of(cls, tables: money.PricedTables) -> _Costs:
        calls = tables.calls
        return cls(
            money.call_costs(calls),
            money.run_costs(calls),
            money.tool_call_costs(calls),
            set(zip(tables.run_session, tables.run_index, strict=True)),
        )

    def of_mark(self, name: str, run_index: int, key: CostKey) -> Cost | None:
        """A mark's cost (``sessiontools._html.read.CostKey``)."""
        if key is None:
            return None
        if key[0] == 0:
            return self.runs.get((name, run_index), ZERO)
        if key[0] == 1:
            return self.tools.get((name, run_index, key[1]))
        return self.calls.get((name, key[1], key[2], key[3]))


@dataclass
class _Sections:
    """What each session's section shows of the cost tables: by the ``session`` column."""

    costs: _Costs
    totals: dict[Any, Totals]
    by_model: dict[str, list[ModelRow]]
    by_tool: dict[str, list[ToolRow]]

    @classmethod
    def of(cls, tables: money.PricedTables) -> _Sections:
        return cls(
            _Costs.of(tables),
            money.totals_by_session(tables.calls),
            money.model_rows_by_session(tables.calls),
            money.tool_rows_by_session(tables),
        )

    @classmethod
    def alone(cls, rows: _LogRows, book: PriceBook) -> _Sections:
        """A log's own tables, for a log some of whose runs the shared tables counted from
        another log."""
        builder = _Builder()
        builder.add(rows)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SessionToolsWarning)  # said once already
            return cls.of(_priced_tables(builder.priced(book), book))


def _priced_tables(built: Built, book: PriceBook) -> money.PricedTables:
    """What the report reads of the cost tables (``money.priced_tables``): the columns
    ``read_costs``' frames are made of, with the providers its frames give."""
    return money.priced_tables(
        built, match_providers(built.provider, built.model, built.time_ns, book)
    )


def collect_report(
    logs: Logs | ReportReads,
    *,
    prices: PriceSource = None,
    content: bool = False,
    skip_damaged: bool = False,
    workers: int | None = 1,
    progress: Callable[[str], None] | None = None,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> ReportData:
    """Read logs into what the HTML report shows, each log once.

    Args:
        logs: as ``read_costs`` takes them: a path, a directory (its ``*.jsonl`` and
            ``*.jsonl.gz``, recursively), a glob, a file open in binary mode (standard input:
            read here, in order), a ``Session``, or a list of these. The same file given twice
            is one session. Each log's spans take the conversation id ``sessiontools otel``
            gives it for the same paths (``find_named_logs``: one file alone, its name
            without its extension; else its path relative to the directory given, or as
            given, without ``.jsonl`` / ``.jsonl.gz``). Or the ``ReportReads`` already
            started on them (``content``, ``workers`` and ``max_line_bytes`` are then its
            own).
        prices: as ``read_costs`` (a price file wins over genai-prices).
        content: keep the conversation (prompts, messages, reasoning, tool inputs and results,
            displays, policy reasons, tool logs, error messages) for the report to show. Off,
            nothing of it is read into the result.
        skip_damaged: a log that cannot be read is listed in ``skipped`` instead of raising.
        workers: how many processes read the logs (``ReportReads``): 1 (the default) reads
            them here; more start a pool of processes; ``None`` chooses (what ``sessiontools
            report`` uses: a pool for many logs; a log of 8 MB or more read here is read in
            two processes, as the export reads it). In a notebook, whose kernel runs
            threads, keep 1.
        progress: called with each log's name once it has been read.
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        As ``read_costs``: ``LogError``, ``OSError`` (unless ``skip_damaged``);
        ``UsageConventionError``, ``OutOfRangeError`` in a ``Session`` given;
        ``FileNotFoundError``, ``PriceFileError``. ``OutOfRangeError`` also when a token
        count of the logs' model calls adds up past 2^63-1 (as ``cost_by``): the totals
        could not hold it. ``ValueError`` when two logs would take the same conversation id
        (``s.jsonl`` and ``s.jsonl.gz`` in one directory).
    """
    if isinstance(logs, ReportReads):
        reads = logs
    else:
        named = find_named_logs(logs, keep=(Session,))
        reads = ReportReads(
            [found for found, _ in named],
            content=content,
            workers=workers,
            max_line_bytes=max_line_bytes,
            conversation_ids=[cid for _, cid in named],
        )
    with paused_gc():
        return _collect(reads, prices, skip_damaged, progress)


def _collect(
    reads: ReportReads,
    prices: PriceSource,
    skip_damaged: bool,
    progress: Callable[[str], None] | None,
) -> ReportData:
    kept: list[LogRead] = []
    skipped: list[SkippedLog] = []
    said: list[str] = []
    with reads:
        book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
        for read in reads:
            if read.error is not None:
                if not skip_damaged:
                    raise read.error
                skipped.append(SkippedLog(read.name, _problem(read.name, read.error)))
            else:
                kept.append(read)
            said.extend(read.noted)
            for category, message in read.warnings:
                said.append(message)
                warnings.warn(category(message), stacklevel=3)  # collect_report's caller
            if progress is not None:
                progress(read.name)
    # The cost tables of every log, each run once, priced as ``read_costs`` prices them
    # (``cost_tables``' steps, without its frames: the report needs no pandas).
    builder = _Builder()
    for read in kept:
        if read.rows is not None:
            builder.add(read.rows)
    built = builder.priced(book)
    tables = _priced_tables(built, book)
    said.extend(check_reported(built, stacklevel=1))  # warned where cost_tables warned
    check_sums(call_arrays(built, book))  # the totals add the counts of every log up
    shared = _Sections.of(tables)
    sessions: list[SessionView] = []
    for read in kept:
        assert read.rows is not None
        own = shared
        if any((read.name, run.index) not in shared.costs.present for run in read.runs):
            own = _Sections.alone(read.rows, book)
        sessions.append(_session_view(read, len(sessions) + 1, own))
    runs = sorted(
        ((s, r) for s in sessions for r in s.runs),
        key=lambda sr: (-sr[1].cost.usd, sr[0].number, sr[1].index),
    )
    return ReportData(
        sessions=tuple(sessions),
        skipped=tuple(skipped),
        warnings=tuple(said),
        content=reads.content,
        totals=money.totals(tables.calls),
        counts=money.counts(tables),
        day_model_costs=tuple(money.day_model_costs(tables.calls)),
        costliest_runs=tuple((s.number, r.index) for s, r in runs[:10] if r.cost.usd > 0),
    )


def _session_view(read: LogRead, number: int, sections: _Sections) -> SessionView:
    name = read.name
    runs = tuple(_run_view(name, draft, sections.costs) for draft in read.runs)
    outcomes = read.tool_outcomes
    return SessionView(
        number=number,
        name=name,
        conversation_id=read.conversation_id,
        runs=runs,
        totals=sections.totals.get(name, money.EMPTY_TOTALS),
        tool_calls=outcomes.get("", 0),
        denied=outcomes.get("denied", 0),
        refused=outcomes.get("refused", 0),
        tool_errors=outcomes.get("tool_error", 0),
        cut_off=outcomes.get("crashed", 0),
        crashed_runs=sum(1 for r in runs if r.crashed),
        by_model=tuple(sections.by_model.get(name, ())),
        by_tool=tuple(sections.by_tool.get(name, ())),
        label_changes=read.label_changes,
        labels=read.labels,
        outside=tuple(read.outside),
        torn_tail=read.torn_tail,
        transcript_cost_usd=read.transcript_cost_usd,
    )


def _run_view(name: str, draft: RunDraft, costs: _Costs) -> RunView:
    index = draft.index
    cost = costs.of_mark
    return RunView(
        index=index,
        start_seq=draft.start_seq,
        end_seq=draft.end_seq,
        start_time_unix_nano=draft.start_time_unix_nano,
        end_time_unix_nano=draft.end_time_unix_nano,
        reason=draft.reason,
        turns=draft.turns,
        failed_calls=draft.failed_calls,
        tool_calls=draft.tool_calls,
        tool_model_calls=draft.tool_model_calls,
        trace_id=draft.trace_id,
        cost=costs.runs.get((name, index), ZERO),
        rows=draft.rows,
        drawing=draft.drawing,
        records=draft.records,
        ids=draft.ids,
        table=draft.table,
        mark_costs=tuple([cost(name, index, record[4]) for record in draft.records]),
        content=draft.content,
    )
