"""Logs to what the report draws, each log read once: its runs folded once, and from each run
both the rows of the cost tables (``sessiontools._cost.rows``) and the spans of the traces
export, one mark per span. No pandas, genai-prices or Jinja2 here: this runs where the logs
are read, which can be a pool of processes started before the caller imports them.

The marks are the spans ``trace_spans`` gives for each run with the export's defaults (the
conversation id ``sessiontools otel`` gives the log for the same arguments:
``find_named_logs``; no providers' error messages), so every span of ``sessiontools otel``
has exactly one mark, with the same kind and id. They are made here as the page's script
draws them (``facts``: each mark's record, each run's drawing), by the export's code, with
no ``Span`` value: the run's and failed calls' spans by ``spans._agent_span`` and
``_failed_spans``, the others copied from the first of their kind and key, which
``_turn_spans`` and ``_tool_spans`` make (``_Templates``). What a
span does not carry (the entry it stands for, so its cost) is found by the contract's order
(docs/traces.md, "Identity and order"): a run's spans are ordered by start time, then seq,
so its turn and failed-call spans are its turns and failed calls in that order; a tool span
names its call (``gen_ai.tool.call.id``); a tool's model calls are its children in ``usage``
order. A mark names its cost by the keys of the cost frames' rows (``CostKey``), in the
place of its cost in its record; ``sessiontools._html.collect`` looks it up once the frames
are made.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import gc
import os
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeAlias, cast

import orjson

from .._cost.rows import _LogRows
from .._errors import LogError, SessionToolsWarning, TornTailWarning, UsageConventionError
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
from .._log.limits import check_run
from .._log.reader import MAX_LINE_BYTES, ExportReader, LogReader, printable, shown_name
from .._log.sources import LogStream, Unlisted, default_conversation_id
from .._log.views import DecisionView, ToolResultView
from .._log.warnings import Warnings
from .._model.fold import RecordingCalls, SessionFold, iter_runs
from .._model.runs import LabelSource, Run, ToolCallRecord
from .._model.session import Session
from .._otel.ids import _span_id
from .._otel.spans import (
    _FIRST,
    SESSION_LABELS,
    STATUS_CODE_ERROR,
    STATUS_CODE_UNSET,
    AttributeValue,
    _agent_span,
    _failed_spans,
    _RunContext,
    _tool_spans,
    _turn_spans,
)
from .._parallel.cut import SPLIT_FROM_BYTES, available_cores
from .._parallel.pool import MAX_WORKERS, PARALLEL_FROM, pool_map, worker_pool
from .._parallel.split import Hooks, read_runs
from .facts import CLASS_NUMBERS, FactsTable, drawing

if TYPE_CHECKING:  # the pool's module loads it when a pool starts: one log needs none
    import concurrent.futures

__all__ = [
    "LANE_MODEL",
    "LANE_RUN",
    "LANE_TOOL",
    "LANE_TOOL_MODEL",
    "MAX_ROWS",
    "ContentItem",
    "CostKey",
    "FactsTable",
    "LabelChange",
    "LogRead",
    "ReportReads",
    "RunDraft",
    "log_name",
    "paused_gc",
    "read_log",
]

#: The timeline's lanes, top to bottom.
LANE_RUN, LANE_MODEL, LANE_TOOL, LANE_TOOL_MODEL = 0, 1, 2, 3
#: Tool calls that overlap in time go on rows below each other, up to this many.
MAX_ROWS = 4

_TOOL_ERRORS = {"denied": "dn", "refused": "rf", "tool_error": "e", "crashed": "k"}

#: Where a mark's cost is in the cost frames, within its log and run: ``(0,)`` the run's (the
#: ``runs`` frame); ``(1, call_id)`` a tool call's (the model calls its tool made); ``(2,
#: source, seq, usage_index)`` one model call's; ``None`` no cost (a tool that made no model
#: call).
CostKey: TypeAlias = tuple[Any, ...] | None

#: A span as the report reads it, made by the export's code (``_FactsContext``): (span id,
#: parent span id, name, start, end, attributes, status code, status message).
_SpanItem: TypeAlias = tuple[
    bytes, bytes, str, int, int, list[tuple[str, AttributeValue]], int, str
]


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


@dataclass(slots=True)
class RunDraft:
    """One run as the report shows it, its costs not known yet (``RunView`` once they are).

    ``rows`` counts each lane's rows; ``drawing`` is the run's drawing as the page's facts
    hold it: its rows (``lane, y, lane, y...``), height, and its time axis' start after the
    run's and length (ns). ``records`` are its marks' facts records in the drawing's order
    (``render._Facts``), one per span of the export, their strings and shapes in ``table``
    and in the place of their cost its key (``CostKey``); ``ids`` their span ids, 8 bytes
    each, in that order. The run's ``invoke_agent`` span's record is the first.
    """

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
    rows: tuple[int, int, int, int]
    drawing: tuple[list[int], int, int, int]
    records: list[list[Any]]
    ids: bytes
    table: FactsTable
    content: tuple[ContentItem, ...]


@dataclass(slots=True)
class LogRead:
    """One log, read once (``read_log``), in whichever process read it; or what went wrong.

    ``rows`` are its runs' rows of the cost tables; ``runs`` what its section draws of them;
    ``tool_outcomes`` counts its tool calls (the spans', lane of tool calls only) by their
    ``error.type`` (``denied``, ``refused``, ``tool_error``, ``crashed``) and in all (``""``);
    ``warnings`` are the warnings reading it gave, as (category, message), to be given again
    in order by the process that reports; ``noted`` those given already (a ``Session``'s,
    when it was read)."""

    name: str
    conversation_id: str
    rows: _LogRows | None = None
    runs: list[RunDraft] = field(default_factory=list)
    table: FactsTable | None = None
    label_changes: tuple[LabelChange, ...] = ()
    labels: tuple[str, ...] = ()
    outside: list[ContentItem] = field(default_factory=list)
    tool_outcomes: dict[str, int] = field(default_factory=dict)
    torn_tail: bool = False
    transcript_cost_usd: float | None = None
    warnings: tuple[tuple[type[Warning], str], ...] = ()
    noted: tuple[str, ...] = ()
    error: LogError | UsageConventionError | OSError | None = None


def log_name(item: Any) -> str:
    """What a log is called in the report and in the cost frames' ``session`` column: a
    path with each byte that is not UTF-8 as U+FFFD (``shown_name``), a stream's or a
    ``Session``'s name."""
    if isinstance(item, Unlisted):
        return shown_name(os.fspath(item.path))
    if isinstance(item, str | os.PathLike):
        return shown_name(os.fspath(item))
    name = getattr(item, "name", None)
    return name if isinstance(name, str) else repr(item)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused (and restored as it was). The report builds a large
    graph of small objects that stays alive until it is written (every span, mark and run),
    and each full collection walks all of it again: on the 100 MB log that was a third of the
    rendering's time, and half the time to send a worker's read back (pickle and load it).
    What is made meanwhile has few reference cycles; it is freed by reference counting as
    usual, and the collector takes the rest once resumed.

    Resumed, it finds what was made meanwhile in its oldest generation (``gc.freeze`` then
    ``gc.unfreeze``, which move the lists without walking them), taken at its next full
    collection: left young, all of it was walked by the next young collection, however
    little was made after (43 ms after the 100 MB log's report, 80 ms after 1,000 logs').
    Not when something was frozen before (by the caller, or the console script's start-up:
    ``sessiontools._main.loaded``): ``gc.unfreeze`` would thaw that too, and the caller froze
    it to keep the collector off it (a server that forks workers, say).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def read_log(
    item: Any,
    content: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    conversation_id: str | None = None,
    workers: int | None = 1,
    idle: Callable[[], object] | None = None,
    cut_at: float | None = None,
) -> LogRead:
    """Read one log once into what its section of the report shows, and its cost rows.

    Args:
        item: a path, a ``LogStream`` (read here, in order), a ``Session`` (read already),
            or an ``Unlisted`` directory (its error).
        content: keep the conversation (prompts, messages, reasoning, tool inputs and
            results, displays, policy reasons, tool logs, error messages).
        max_line_bytes: the longest line read (``LogReader``).
        conversation_id: the spans' ``gen_ai.conversation.id`` (and the key of their ids);
            default the log's name without its extension (``default_conversation_id``).
        workers: 2, or ``None`` for a file of ``SPLIT_FROM_BYTES`` or more with two cores:
            a log file is read in two processes where it can be cut (``_ReportJob``), as the
            export reads it; 1 (the default) here alone. The result is the same.
        idle: called once while a child reads the second part and this process would wait
            (``read_in_two``): work the caller has to do anyway, such as its imports. It
            must give no warning.
        cut_at: where a log read in two with ``idle`` is cut, as a fraction of it; default
            ``REPORT_CUT_AT`` (the command's imports, genai-prices' and the templates'
            among them).

    Returns:
        The ``LogRead``; a log that cannot be read has ``error`` set (a ``LogError``, an
        ``OSError``, or a ``UsageConventionError`` of a negative count), and what was read of
        it is dropped. The log is read as the exports read it (``ExportReader``; with
        ``content``, ``LogReader(export=True)``, which keeps every payload):
        what an export cannot hold is an ``EntryError`` naming its line. A ``Session``'s runs
        are checked the same way, and raise (``UsageConventionError``, ``OutOfRangeError``)
        as ``read_costs`` raises them.
    """
    with paused_gc():
        return _read_log(item, content, max_line_bytes, conversation_id, workers, idle, cut_at)


def _read_in_worker(
    job: tuple[str, str | None],
    content: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> LogRead:
    """``read_log`` in a worker of ``ReportReads``' pool, whose collector stays off: it would
    walk what was read again while it is pickled to be sent back (half the time of sending
    the 100 MB log's). Nothing read makes reference cycles to leave behind; the worker ends
    with the pool."""
    gc.disable()
    path, conversation_id = job
    return read_log(path, content, max_line_bytes, conversation_id)


def _read_log(
    item: Any,
    content: bool,
    max_line_bytes: int | None,
    conversation_id: str | None,
    workers: int | None = 1,
    idle: Callable[[], object] | None = None,
    cut_at: float | None = None,
) -> LogRead:
    name = log_name(item)
    read = LogRead(name, conversation_id or default_conversation_id(name))
    if isinstance(item, Unlisted):
        read.error = item.error
        return read
    if isinstance(item, Session):
        for run in item.runs:
            check_run(run, name)  # read by the session library: not checked yet
        tap = _Tap(content)
        for _ in tap(item.entries):
            pass
        _runs(read, iter(item.runs), tap)
        _close(read, tap, item.label_sources(), item.labels(), item.torn_tail is not None)
        read.rows.close(item.closing_line)  # type: ignore[union-attr]
        read.transcript_cost_usd = item.closing_line.cost_usd if item.closing_line else None
        read.noted = item.warnings
        return read
    held: list[warnings.WarningMessage] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        try:
            source = item.file if isinstance(item, LogStream) else item
            # Without the conversation, the log is read as the exports read it (typed: an
            # entry's payload holds what the fold reads); with it, every payload in full.
            reader = LogReader if content else ExportReader
            with reader(source, name=name, export=True, max_line_bytes=max_line_bytes) as log:
                tap = _Tap(content)
                if isinstance(item, LogStream):
                    fold = SessionFold(log.name, warnings=log.sink)
                    _runs(read, iter_runs(tap(log), fold), tap)
                    sources, labels = fold.label_sources, fold.labels
                    closing = log.closing_line
                else:
                    job = _ReportJob(read, tap)
                    at = None if idle is None else cut_at or REPORT_CUT_AT
                    waiting = None if idle is None else functools.partial(_apart, idle, held)
                    closing = read_runs(log, job, workers=workers, at=at, idle=waiting, hooks=job)
                    sources, labels = job.label_sources()
                torn = log.torn_tail is not None or any(
                    issubclass(w.category, TornTailWarning) for w in caught
                )  # (the child's reader saw it: its warning is given here again)
                _close(read, tap, sources, labels, torn)
            read.rows.close(closing)  # type: ignore[union-attr]
            read.transcript_cost_usd = closing.cost_usd if closing is not None else None
        except (LogError, UsageConventionError, OSError) as e:
            read = LogRead(name, read.conversation_id, error=e)
    read.warnings = tuple((w.category, str(w.message)) for w in caught)
    for w in held:  # the caller's own, given as it would have given them
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return read


def _apart(idle: Callable[[], object], held: list[warnings.WarningMessage]) -> None:
    """The caller's ``idle`` work, done while a child reads: the warnings it gives are held
    apart from the log's (given after the read, not as the log's)."""
    with warnings.catch_warnings(record=True) as given:
        idle()
    held.extend(given)


def _runs(read: LogRead, runs: Iterable[Run], tap: _Tap) -> None:
    """Each run as it ends: its cost rows, its spans and marks, its conversation."""
    read.rows = _LogRows(read.name)
    read.tool_outcomes = dict.fromkeys(("", *_TOOL_ERRORS), 0)
    read.table = FactsTable(read.conversation_id)
    _more_runs(read, runs, tap)


def _more_runs(read: LogRead, runs: Iterable[Run], tap: _Tap) -> None:
    """Each run's cost rows and marks. Its spans are made by the export's code
    (``run_items``) with its defaults; the runs were checked as read (an exporter's reader,
    or ``check_run`` for a ``Session``'s)."""
    rows, table = read.rows, read.table
    assert rows is not None and table is not None
    conversation = read.conversation_id
    outcomes = read.tool_outcomes
    for run in runs:
        rows.add(run, checked=True)  # read with the export's limits, or check_run's
        before, inside = tap.take(run)
        read.outside.extend(before)
        ctx = _FactsContext(run, conversation, None, None, None, False)
        read.runs.append(_run_draft(run, ctx, read.name, inside, table, outcomes))


#: Where a log read in two is cut when this process has work to do meanwhile (``idle``:
#: the command's imports of pandas, genai-prices and Jinja2, about half the CPU time of
#: reading the 100 MB log in one process): this process reads the first fifth, then imports
#: while the child reads the rest. Measured (CPU time of each process, benchmarks/README.md):
#: cut at 0.35 this process took 1.2 to 1.4 s to the end of its imports against the child's
#: 0.9 to 1.0 s; at 0.2, 0.84 to 1.06 s against 0.80 to 1.04 s.
REPORT_CUT_AT = 0.2

#: The cut when genai-prices' answers were kept by an earlier run (``sessiontools._cost.kept``)
#: and its compiled templates too: genai-prices is not loaded, nor the templates compiled, and
#: this process has about 0.2 s less to do while the child reads. 0.3 until numpy's OpenBLAS
#: got one thread (``sessiontools._main.one_blas_thread``): its other thread, started by this
#: process's imports, took CPU from the child. Since, the command on the 100 MB log, two
#: rounds of 8 and 12 shuffled runs, median (min) ms: 0.3 630.6 (541.2) and 714.2 (580.3);
#: 0.35 582.0 (553.5) and 688.3 (548.4); 0.4 569.4 (503.6) and 625.7 (512.4); 0.45 589.8
#: (501.0) and 641.3 (528.6).
REPORT_CUT_AT_KEPT = 0.4


class _ReportJob(Hooks):
    """A log read in two processes for the report (``sessiontools._parallel.split``, as the
    export reads a large log): each process makes the drafts and cost rows of its runs as
    they end, with its own ``_Tap`` on the entries it folds (``Hooks.tap``). The child sends
    its drafts, rows, tool outcomes and conversation, when its entries gave labels, and its
    fold's labels and their sources. Its runs were folded with no session before them: here
    they take their place (their index counted from the start), each run's
    ``agentloop.session.labels`` attribute the labels of the whole session (as the export
    writes it again), the cost rows the session's labels (``_LogRows.extend``), and the
    session's labels and sources are this process's with the child's new ones added (a
    label first given before the cut keeps that source)."""

    def __init__(self, read: LogRead, tap: _Tap) -> None:
        self.read = read
        self.tap_of = tap
        self.fold: SessionFold | None = None  # the one made for this part
        self.theirs: tuple[dict[str, LabelSource], tuple[str, ...]] | None = None
        self.child: _ReportJob | None = None  # the part after the cut (``for_child``)
        read.rows = _LogRows(read.name)
        read.tool_outcomes = dict.fromkeys(("", *_TOOL_ERRORS), 0)
        read.table = FactsTable(read.conversation_id)

    def for_child(self) -> _ReportJob:
        read = self.read
        self.child = _ReportJob(LogRead(read.name, read.conversation_id), _Tap(self.tap_of.content))
        return self.child

    def tap(self, entries: Iterable[Entry]) -> Iterable[Entry]:
        return self.tap_of(entries)

    def make_fold(
        self, name: str, *, warnings: Warnings, open_calls: RecordingCalls | None = None
    ) -> SessionFold:
        self.fold = SessionFold(name, warnings=warnings, open_calls=open_calls)
        return self.fold

    def take(self, runs: Iterator[Run]) -> None:
        _more_runs(self.read, runs, self.tap_of)

    def make_in_child(self, runs: Iterator[Run], out: IO[bytes]) -> tuple[Any, ...]:
        part = self.child
        assert part is not None and part.fold is not None
        read, tap, fold = part.read, part.tap_of, part.fold
        _more_runs(read, runs, tap)
        return (
            read.runs,
            read.rows,
            read.tool_outcomes,
            read.outside,
            list(tap.items),
            tap.label_times,
            fold.label_sources,
            fold.labels,
        )

    def merge(self, result: tuple[Any, ...], out: IO[bytes], labels: set[str], runs: int) -> None:
        drafts, rows, outcomes, outside, items, label_times, sources, own = result
        read, tap = self.read, self.tap_of
        assert read.rows is not None
        # the content after this part's last run comes before the child's
        read.outside.extend(tap.items)
        tap.items.clear()
        read.outside.extend(outside)
        tap.items.extend(items)
        tap.label_times.update(label_times)
        _with_session_labels(drafts, labels)
        for draft in drafts:
            draft.index += runs
            read.runs.append(draft)
        read.rows.extend(rows, labels, runs)
        for key, count in outcomes.items():
            read.tool_outcomes[key] += count
        self.theirs = (sources, own)

    def label_sources(self) -> tuple[dict[str, LabelSource], tuple[str, ...]]:
        """Once the log is read: the session's labels' sources and its labels."""
        fold = self.fold
        assert fold is not None
        if self.theirs is None:
            return fold.label_sources, fold.labels
        theirs, own = self.theirs
        sources = {**theirs, **fold.label_sources}  # a label given before the cut: from there
        return sources, tuple(sorted({*fold.labels, *own}))


def _with_session_labels(drafts: list[RunDraft], labels: set[str]) -> None:
    """The child's runs: each run's span (its drawing's first record) with the labels
    ``labels`` the session held before the cut added to its ``agentloop.session.labels``, its
    last attribute; the strings of the child's table then first used by its first run's."""
    if not labels or not drafts:
        return
    table = drafts[0].table
    strings = table.strings
    for draft in drafts:
        if draft.table is not table:
            raise AssertionError("the child's runs have different tables")
        record = draft.records[0]
        key = table.shapes[record[0]][-1]
        if key != "a:" + SESSION_LABELS:
            raise AssertionError(f"a run's span ends with {key!r}")
        held = sorted(labels.union(strings[i] for i in record[-1]))
        record[-1] = [table.s(label) for label in held]
    table.reorder_first(drafts[0].records[0])


def _close(
    read: LogRead,
    tap: _Tap,
    sources: Any,
    labels: tuple[str, ...],
    torn_tail: bool,
) -> None:
    """What the log says once read: its label changes and labels, the content after its
    last run, whether its last line was torn."""
    read.outside.extend(tap.items)  # after the last run
    read.labels = labels
    read.torn_tail = torn_tail
    starts = [r.start_seq for r in read.runs]
    changes = []
    for label, source in sources.items():
        at = bisect.bisect_right(starts, source.seq) - 1
        run_index = None
        if at >= 0 and source.seq <= read.runs[at].end_seq:
            run_index = read.runs[at].index
        changes.append(
            LabelChange(
                label=label,
                seq=source.seq,
                time_unix_nano=tap.label_times.get(source.seq),
                run_index=run_index,
                kind=source.kind,
                tool=source.tool,
                call_id=source.call_id,
            )
        )
    changes.sort(key=lambda c: (c.seq, c.label))
    read.label_changes = tuple(changes)


#: The payloads that can give labels: a labels entry, a decision, a tool result (as
#: ``LogReader`` gives them, or as an ``ExportReader``'s views).
_LABELLED = frozenset((LabelsEntry, DecisionEntry, ToolResultEntry, DecisionView, ToolResultView))


class _Tap:
    """Passes a log's entries on, noting what runs do not keep: when each entry that can give
    labels was written, and (with ``content``) each entry's conversation. The entries are an
    ``ExportReader``'s without ``content`` (decisions and tool results as their views, which
    hold their labels), else a ``LogReader``'s."""

    def __init__(self, content: bool) -> None:
        self.content = content
        self.label_times: dict[int, int] = {}
        self.items: deque[ContentItem] = deque()
        self.tools: dict[str, str] = {}  # call id -> tool name, for results

    def __call__(self, entries: Iterable[Entry]) -> Iterator[Entry]:
        label_times = self.label_times
        for entry in entries:
            payload = entry.payload
            if payload.__class__ in _LABELLED:
                labelled: Any = payload  # one that can give labels, or its view
                if labelled.labels:
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


class _FactsContext(_RunContext[_SpanItem]):
    """Makes each span of a run a ``_SpanItem``: the export's spans, without ``Span``
    values."""

    __slots__ = ()

    def span(
        self,
        ident: bytes,
        parent: bytes,
        name: str,
        kind: int,
        start: int,
        end: int,
        attrs: list[tuple[str, AttributeValue]],
        status_code: int = STATUS_CODE_UNSET,
        status_message: str = "",
    ) -> _SpanItem:
        return (ident, parent, name, start, end, attrs, status_code, status_message)


def _attribute(attrs: list[tuple[str, AttributeValue]], key: str) -> AttributeValue | None:
    for k, v in attrs:
        if k == key:
            return v
    return None


#: A span of a run, in the export's order (``_spans``): its id, its parent's id, start, end,
#: how its record is made (``_GENERIC``: of its ``_SpanItem`` by ``FactsTable.record``; a turn,
#: a tool call or a tool's model call: by ``_Templates``) and what it is made of.
_Entry: TypeAlias = tuple[bytes, bytes, int, int, int, Any]
_GENERIC, _TURN, _TOOL, _TOOL_CHAT = 0, 1, 2, 3


def _spans(run: Run, ctx: _FactsContext) -> list[_Entry]:
    """The spans of ``run`` as ``run_items`` orders them (start time, seq, kind, index; the
    same ids), without the attributes of its turns', tool calls' and tools' model calls'
    spans, whose records ``_Templates`` makes of what they stand for. The run's and failed
    calls' spans are the export's (``_agent_span``, ``_failed_spans``)."""
    prefix, run_id = ctx.prefix, ctx.run_id
    order, agent = _agent_span(ctx, run)
    keyed: list[tuple[tuple[int, int, int, int], _Entry]] = [
        (order, (agent[0], agent[1], agent[3], agent[4], _GENERIC, agent))
    ]
    add = keyed.append
    for t in run.turns:
        ident = _span_id(prefix, "chat", t.seq, 0)
        start = t.start_time_unix_nano
        add(((start, t.seq, 1, 0), (ident, run_id, start, t.time_unix_nano, _TURN, t)))
    if run.failed_calls:
        failed: list[tuple[tuple[int, int, int, int], _SpanItem]] = []
        _failed_spans(ctx, run, failed)
        for order, span in failed:
            add((order, (span[0], span[1], span[3], span[4], _GENERIC, span)))
    for c in run.tool_calls:
        # a call settled by a later run is keyed on that run's tool_result (index 0)
        if c.resumed and c.result_seq is not None:
            key_seq, key_index = c.result_seq, 0
        else:
            key_seq, key_index = c.open_seq, c.open_index
        tool_id = _span_id(prefix, "execute_tool", key_seq, key_index)
        start, end = c.start_time_unix_nano, c.end_time_unix_nano
        add(((start, key_seq, 2, key_index), (tool_id, run_id, start, end, _TOOL, c)))
        if not c.model_calls:
            continue
        result_seq = c.result_seq if c.result_seq is not None else c.open_seq
        for j, m in enumerate(c.model_calls):
            ident = _span_id(prefix, "tool_chat", result_seq, m.index)
            add(((start, result_seq, 3, m.index), (ident, tool_id, start, end, _TOOL_CHAT, (c, j))))
    keyed.sort(key=_FIRST)
    return [entry for _, entry in keyed]


def _tool_error(c: ToolCallRecord) -> str:
    """A tool call's ``error.type`` (``spans._tool_spans``), ``""`` for none."""
    if c.verdict == "deny":
        return "denied"
    if not c.has_result:
        return "crashed"
    if c.refused:
        return "refused"
    if c.is_error:
        return "tool_error"
    return ""


class _Templates:
    """The records of the spans of turns, tool calls and tools' model calls, made as
    ``FactsTable.record`` makes them of the export's spans: the first span of each kind
    and key (the attributes that are not counts nor a call id) is made by the export's code
    (``spans._turn_spans``, ``_tool_spans``) and its record by ``record``; the others copy
    that record, with their own counts and call id. Its strings are in the table already
    (but a call id), so the table's order of first use is the same."""

    def __init__(self, table: FactsTable) -> None:
        self.table = table
        # key -> (the record's head and values, the positions of the values that vary)
        self.made: dict[tuple[Any, ...], tuple[list[Any], list[int]]] = {}

    def record(
        self, run: Run, ctx: _FactsContext, entry: _Entry, cost: Any, place: int
    ) -> list[Any]:
        kind, source = entry[4], entry[5]
        start = run.start_time_unix_nano
        if kind == _TOOL:
            key: tuple[Any, ...] = (
                _TOOL,
                source.tool,
                _tool_error(source),
                source.verdict,
                source.labels,
                source.resumed,
            )
            varying: list[Any] = [self.table.s(source.call_id)] if key in self.made else []
        else:
            if kind == _TURN:
                usage = source.usage
                head: tuple[Any, ...] = (
                    _TURN,
                    source.provider,
                    source.request_model,
                    source.model,
                    source.stop,
                )
            else:
                call, j = source
                model_call = call.model_calls[j]
                usage = model_call.usage
                head = (_TOOL_CHAT, model_call.model)
            # the token counts as spans._add_usage adds them (inclusive_input_tokens first)
            read, write = usage.cache_read_tokens, usage.cache_write_tokens
            varying = [usage.input_tokens + read + write, usage.output_tokens]
            if read:
                varying.append(read)
            if write:
                varying.append(write)
            key = (*head, bool(read), bool(write))
        hit = self.made.get(key)
        if hit is None:
            made = _span_record(self.table, _one_span(run, ctx, entry), start, cost, place)
            spots = [
                position
                for position, typed in self.table.positions(made[0])
                if typed[0] == "i" or typed == "s:gen_ai.tool.call.id"
            ]
            self.made[key] = (made.copy(), spots)
            return made
        template, spots = hit
        out = template.copy()
        out[2] = entry[2] - start
        out[3] = entry[3] - entry[2]
        out[4] = cost
        out[5] = place
        for position, value in zip(spots, varying, strict=True):
            out[position] = value
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class _Only:
    """What ``spans._turn_spans`` and ``_tool_spans`` read of a run (its turns, its tool
    calls): one of them, for ``_one_span``. A copy of the run (``dataclasses.replace``) was
    half the time of a record made by the export's code, which small logs make most of
    theirs by (each log has its own table)."""

    turns: tuple[Any, ...] = ()
    tool_calls: tuple[ToolCallRecord, ...] = ()


def _span_record(
    table: FactsTable, span: _SpanItem, start: int, cost: Any, place: int
) -> list[Any]:
    """``span``'s record in ``table`` (``FactsTable.record``), its times from its run's
    ``start``."""
    return table.record(
        span[2],
        span[3] - start,
        span[4] - span[3],
        cost,
        place,
        span[5],
        span[7] if span[6] == STATUS_CODE_ERROR else None,
        table.strings[0],
    )


def _one_span(run: Run, ctx: _FactsContext, entry: _Entry) -> _SpanItem:
    """The export's span of a turn, tool call or tool's model call (``_spans``)."""
    kind, source = entry[4], entry[5]
    made: list[tuple[tuple[int, int, int, int], _SpanItem]] = []
    if kind == _TURN:
        _turn_spans(ctx, cast(Run, _Only(turns=(source,))), made)
        return made[0][1]
    call, j = (source, -1) if kind == _TOOL else source
    _tool_spans(ctx, cast(Run, _Only(tool_calls=(call,))), made)
    return made[j + 1][1]


def _run_draft(
    run: Run,
    ctx: _FactsContext,
    name: str,
    content: list[ContentItem],
    table: FactsTable,
    outcomes: dict[str, int],
) -> RunDraft:
    """A run's marks: one per span, placed in the spans' order, their records in the
    drawing's (row by row, each row's in the spans' order); ``outcomes`` counts its tool
    calls by their ``error.type`` and in all."""
    spans = _spans(run, ctx)
    run_id = ctx.run_id
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
    for entry in spans:
        if entry[4] == _TOOL:
            tools.setdefault(entry[0], []).append(records[entry[5].call_id])
    given: dict[str, int] = {}  # call id -> its model calls given a span so far
    t0 = min(s[2] for s in spans)
    t1 = max(s[3] for s in spans)
    rows_end: list[int] = []
    # each mark: (lane, row, classes, cost key); in the spans' order
    marks: list[tuple[int, int, str, CostKey]] = []
    next_call = 0
    tool_models = 0
    for entry in spans:
        kind = entry[4]
        if kind == _TOOL:
            record = records[entry[5].call_id]
            row = _place(rows_end, entry[2], entry[3])
            flags = []
            outcomes[""] += 1
            error = _tool_error(entry[5])
            if error:
                flags.append(_TOOL_ERRORS[error])
                outcomes[error] += 1
            if record.resumed:
                flags.append("rs")
            key: CostKey = (1, record.call_id) if record.model_calls else None
            marks.append((LANE_TOOL, row, " ".join(flags), key))
        elif kind == _TOOL_CHAT:
            found = _tool_of(entry[2], entry[3], tools[entry[1]], given)
            if found is None:
                raise AssertionError(f"{name}: run {run.index}: a tool's model call out of place")
            index = given.get(found.call_id, 0)
            given[found.call_id] = index + 1
            seq = found.result_seq if found.result_seq is not None else found.open_seq
            key = (2, "tool", seq, found.model_calls[index].index)
            tool_models += 1
            marks.append((LANE_TOOL_MODEL, min(index, MAX_ROWS - 1), "", key))
        elif kind == _GENERIC and entry[5][5][0][1] == "invoke_agent":
            span = entry[5]
            if _attribute(span[5], "error.type") == "crashed":
                classes = "k"
            else:
                classes = "e" if span[6] == STATUS_CODE_ERROR else ""
            marks.append((LANE_RUN, 0, classes, (0,)))
        else:  # a model call of the run's: a turn, or a failed call
            if entry[1] != run_id or next_call >= len(calls):
                raise AssertionError(f"{name}: run {run.index}: a model call out of place")
            seq = calls[next_call][1]
            next_call += 1
            classes = ""
            if kind == _GENERIC:
                span = entry[5]
                if span[6] == STATUS_CODE_ERROR:
                    classes = "e y" if _attribute(span[5], "agentloop.retry") is True else "e"
            marks.append((LANE_MODEL, 0, classes, (2, "turn", seq, 0)))
    if next_call != len(calls):
        raise AssertionError(f"{name}: run {run.index}: model calls without a span")
    deepest = max((m[1] for m in marks if m[0] == LANE_TOOL_MODEL), default=-1)
    counts = (1, 1 if calls else 0, len(rows_end), deepest + 1)
    lanes, first, height = drawing(counts)
    # the drawing's order: row by row, each row's marks in the spans' order
    numbers = [first[lane] + row for lane, row, _, _ in marks]
    order = sorted(range(len(spans)), key=numbers.__getitem__)
    start = run.start_time_unix_nano
    if table.templates is None:
        table.templates = _Templates(table)
    templates: _Templates = table.templates
    facts: list[list[Any]] = []
    for i in order:
        lane, _, classes, key = marks[i]
        number = CLASS_NUMBERS.get(classes)
        if number is None:
            raise AssertionError(f"unexpected mark {classes!r} on {lane}")
        place = numbers[i] * 16 + number
        entry = spans[i]
        if entry[4] == _GENERIC:
            facts.append(_span_record(table, entry[5], start, key, place))
        else:
            facts.append(templates.record(run, ctx, entry, key, place))
    return RunDraft(
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
        trace_id=ctx.trace_id.hex(),
        rows=counts,
        drawing=(lanes, height, t0 - start, t1 - t0),
        records=facts,
        ids=b"".join([spans[i][0] for i in order]),
        table=table,
        content=tuple(content),
    )


def _tool_of(
    start: int, end: int, candidates: list[ToolCallRecord], given: dict[str, int]
) -> ToolCallRecord | None:
    """The tool call a tool's model call span belongs to, among the calls whose spans have its
    parent's id: one with its times and a model call left, else any with one left."""
    left = [c for c in candidates if given.get(c.call_id, 0) < len(c.model_calls)]
    for c in left:
        if (c.start_time_unix_nano, c.end_time_unix_nano) == (start, end):
            return c
    return left[0] if left else None


def _place(rows_end: list[int], start: int, end: int) -> int:
    """The first row a tool call fits on without overlapping the one before it there."""
    for row, row_end in enumerate(rows_end):
        if start >= row_end:
            rows_end[row] = end
            return row
    if len(rows_end) < MAX_ROWS:
        rows_end.append(end)
        return len(rows_end) - 1
    rows_end[-1] = max(rows_end[-1], end)
    return MAX_ROWS - 1


# Many logs at once.


class ReportReads:
    """Logs being read for the report (``read_log``), in order, each file once (by its real
    path: the same file given twice is one session); the reading starts at once.

    With ``workers`` 1 each log is read here when its turn comes. Otherwise a pool of
    processes (``sessiontools._parallel.pool``) starts now and is handed every path: the
    caller can import what it needs next (genai-prices, Jinja2) while they read.
    ``None`` chooses: a pool from ``PARALLEL_FROM`` paths on, or for two paths or more that add
    up to ``SPLIT_FROM_BYTES`` (8 MB) or more, when two cores are free; one process per
    available core, at most ``MAX_WORKERS`` and at most one per path. One log is read here:
    a worker reading it while this process imports was no faster on two hardware threads (the
    two slow each other, and the worker's read must be sent back; benchmarks/README.md); with
    ``None``, a log of ``SPLIT_FROM_BYTES`` or more is read in two processes, as the export
    reads it (``read_log``), and this process calls ``idle`` (set it before ``read_now`` or
    iterating) while the child reads the second part. A stream (standard input), a
    ``Session`` and a directory that could not be listed are taken here, in order. Iterate
    once; use as a context manager, which stops the pool.

    ``conversation_ids``, one per item, are the ids their spans take (``find_named_logs``
    gives them: the ids of ``sessiontools otel`` for the same arguments); ``None`` (for all,
    or for one) is the log's name without its extension (``default_conversation_id``).

    Raises:
        ValueError: ``workers`` is below 1; ``max_line_bytes`` is not positive;
            ``conversation_ids`` is not one per item, or gives two logs the same id.
    """

    def __init__(
        self,
        items: Sequence[Any],
        *,
        content: bool = False,
        workers: int | None = 1,
        max_line_bytes: int | None = MAX_LINE_BYTES,
        conversation_ids: Sequence[str | None] | None = None,
    ) -> None:
        if max_line_bytes is not None and (
            max_line_bytes.__class__ is not int or max_line_bytes < 1
        ):
            raise ValueError(
                f"max_line_bytes must be a positive integer or None, not {max_line_bytes!r}"
            )
        given_ids = [None] * len(items) if conversation_ids is None else list(conversation_ids)
        if len(given_ids) != len(items):
            raise ValueError(
                f"{len(given_ids)} conversation ids for {len(items)} logs: give one per log"
            )
        named = _unique(zip(items, given_ids, strict=True))
        _check_ids(named)
        self.items = [item for item, _ in named]
        self.conversation_ids = [cid for _, cid in named]
        self.content = content
        self.max_line_bytes = max_line_bytes
        jobs = [(os.fspath(item), cid) for item, cid in named if isinstance(item, Path)]
        paths = [path for path, _ in jobs]
        chosen = workers
        if workers is None:
            workers = _choose_workers(paths)
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self._read = functools.partial(
            read_log,
            content=content,
            max_line_bytes=max_line_bytes,
            workers=None if chosen is None else 1,  # a large log read here: in two?
        )
        #: Called once while a child reads the second part of a log read here (``read_log``).
        self.idle: Callable[[], object] | None = None
        #: Where such a log is cut (``read_log``'s ``cut_at``): later for lighter ``idle``.
        self.cut_at: float | None = None
        self._ready: list[LogRead] | None = None
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._reads: Iterator[LogRead] | None = None
        self.workers = 1  # processes reading, this one included when it reads them
        if workers > 1 and paths:
            self.workers = min(workers, len(paths))
            self._pool = worker_pool(self.workers)
            chunk = max(1, min(16, len(paths) // (self.workers * 4)))
            pooled = functools.partial(
                _read_in_worker, content=content, max_line_bytes=max_line_bytes
            )
            self._reads = pool_map(self._pool, pooled, jobs, chunk)

    def read_now(self) -> None:
        """Without a pool, read the logs now (iterating then gives what was read): so that the
        caller's imports can be ``idle``'s work. With a pool, nothing (it reads already)."""
        if self._pool is None and self._ready is None:
            self._ready = list(self._iterate())

    def __iter__(self) -> Iterator[LogRead]:
        if self._ready is not None:
            ready, self._ready = self._ready, []
            return iter(ready)
        return self._iterate()

    def _iterate(self) -> Iterator[LogRead]:
        for item, cid in zip(self.items, self.conversation_ids, strict=True):
            if isinstance(item, Path) and self._reads is not None:
                yield next(self._reads)
            else:
                yield self._read(item, conversation_id=cid, idle=self.idle, cut_at=self.cut_at)

    def close(self) -> None:
        """Stop the pool, if any: reads not started are dropped, and the logs being read are
        read to the end first."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> ReportReads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unique(named: Iterable[tuple[Any, str | None]]) -> list[tuple[Any, str | None]]:
    """The logs with their conversation ids, each file once (by its real path: the first
    time it is named, as ``sessiontools otel`` keeps it), in order."""
    seen: set[str] = set()
    out: list[tuple[Any, str | None]] = []
    for item, cid in named:
        if isinstance(item, str | os.PathLike):
            key = os.path.realpath(item)
            if key in seen:
                continue
            seen.add(key)
        out.append((item, cid))
    return out


def _check_ids(named: Sequence[tuple[Any, str | None]]) -> None:
    """Two logs given their conversation ids must not share one: their spans would share
    ids (the rule ``sessiontools otel`` keeps for many logs).

    Raises:
        ValueError: two logs would take the same conversation id (``s.jsonl`` and
            ``s.jsonl.gz`` in one directory), in the words ``sessiontools otel`` uses.
    """
    ids: dict[str, Any] = {}
    for item, cid in named:
        if cid is None:
            continue
        other = ids.setdefault(cid, item)
        if other is not item:
            first, second = printable(repr(log_name(other))), printable(repr(log_name(item)))
            raise ValueError(
                f"{first} and {second} would take the same conversation id {cid!r}: "
                "rename one, or give each alone"
            )


def _choose_workers(paths: Sequence[str]) -> int:
    """``workers=None`` (``ReportReads``): a pool of one process per core for many logs, or
    for several that are much to read, else this process alone."""
    cores = available_cores()
    if len(paths) >= PARALLEL_FROM:
        return min(cores, MAX_WORKERS)
    if cores < 2 or len(paths) < 2:
        return 1
    size = 0
    for path in paths:
        try:
            size += os.stat(path).st_size
        except OSError:  # its read says why
            continue
        if size >= SPLIT_FROM_BYTES:
            return min(cores, MAX_WORKERS)
    return 1


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
