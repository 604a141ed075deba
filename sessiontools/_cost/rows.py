"""Logs to the cost tables' rows, without pandas: the first part of the cost exporter
(docs/costs.md, "Frames").

Everything here runs where the logs are read, which can be a pool of processes
(``sessiontools._parallel.pool``) or the two processes of a log read in two: each log becomes
a stretch of plain columns (``_LogRows`` in a ``_Store``: arrays of numbers, lists of names),
cheap to send back, the logs of a worker's chunk in one store; and each of its runs gets its
identity (``sessiontools._model.identity``), so that ``build`` counts a run read twice once.
Logs are read as both exporters read them (``ExportReader``: typed decoding of what the fold
reads, the export limits). numpy, pandas and genai-prices are not imported here: the workers
never load them, and ``sessiontools cost`` starts the reading first and imports what it needs
while the processes read (``LogReads.idle``).
"""

from __future__ import annotations

import array
import contextlib
import functools
import gc
import itertools
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from .._errors import LabelError, LogError, SessionToolsWarning, UsageConventionError
from .._fast import fast_maker
from .._log.entries import ZERO_USAGE
from .._log.reader import MAX_LINE_BYTES, ClosingLine, ExportReader, LogReader, shown_name
from .._log.sources import Found, LogStream, Unlisted, default_conversation_id
from .._model.identity import RunIdentity, run_identity
from .._model.labels import check_label
from .._model.runs import Run
from .._model.session import Session
from .._model.usage import check_counts
from .._parallel import split as _split
from .._parallel.cut import available_cores
from .._parallel.pool import MAX_WORKERS, PARALLEL_FROM

if TYPE_CHECKING:
    import concurrent.futures

__all__ = ["COLUMNS", "COST_CUT_AT", "LogReads", "Logs"]


#: What ``read_costs`` takes: a path to a log, a directory (searched for ``*.jsonl`` and
#: ``*.jsonl.gz``), a glob pattern, a file opened in binary mode (standard input), a ``Session``
#: already read, what ``find_logs`` found, or an iterable of these.
Logs: TypeAlias = (
    "str | os.PathLike[str] | IO[bytes] | Session | LogStream | Unlisted "
    "| Iterable[str | os.PathLike[str] | IO[bytes] | Session | LogStream | Unlisted]"
)

_TIME = "datetime64[ns, UTC]"

#: Every frame's columns and dtypes, in order.
COLUMNS: dict[str, dict[str, str]] = {
    "model_calls": {
        "session": "string",
        "conversation_id": "string",
        "run_index": "Int64",
        "run_start_seq": "Int64",
        "run_identity": "string",
        "seq": "Int64",
        "usage_index": "Int64",
        "time": _TIME,
        "utc_offset_seconds": "int32",
        "source": "category",
        "tool": "category",
        "call_id": "string",
        "labels": "object",
        "provider": "category",
        "model": "category",
        "stop": "category",
        "error_kind": "category",
        "input_tokens": "Int64",
        "output_tokens": "Int64",
        "cache_read_tokens": "Int64",
        "cache_write_tokens": "Int64",
        "total_tokens": "Int64",
        "cost_usd": "float64",
        "priced": "bool",
        "price_source": "category",
        "priced_as": "category",
        "cache_hit_rate": "float64",
        "cache_savings_usd": "float64",
    },
    "runs": {
        "session": "string",
        "conversation_id": "string",
        "run_index": "Int64",
        "run_start_seq": "Int64",
        "run_identity": "string",
        "start": _TIME,
        "end": _TIME,
        "duration_ms": "float64",
        "reason": "category",
        "turns": "Int64",
        "tool_calls": "Int64",
        "failed_calls": "Int64",
        "input_tokens": "Int64",
        "output_tokens": "Int64",
        "cache_read_tokens": "Int64",
        "cache_write_tokens": "Int64",
        "total_tokens": "Int64",
        "cost_usd": "float64",
        "cache_hit_rate": "float64",
        "cache_savings_usd": "float64",
        "unpriced_calls": "Int64",
        "reported_cost_usd": "float64",
        "labels": "object",
    },
    "tool_calls": {
        "session": "string",
        "conversation_id": "string",
        "run_index": "Int64",
        "run_start_seq": "Int64",
        "run_identity": "string",
        "tool": "category",
        "call_id": "string",
        "verdict": "category",
        "start": _TIME,
        "duration_ms": "float64",
        "is_error": "boolean",
        "refused": "bool",
        "resumed": "bool",
        "labels": "object",
        "model_calls": "Int64",
        "cost_usd": "float64",
        "unpriced_calls": "Int64",
    },
}

_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


#: Columns kept with a frame's own while it is built: whether a model call has usage (its
#: token counts are 0 when it has none, NA in the frame).
_INTERNAL = {"model_calls": ("has_usage",), "runs": (), "tool_calls": ()}
#: Columns computed once every log is read (prices, sums): not kept while reading.
_COMPUTED = {
    "model_calls": frozenset(
        ("cost_usd", "priced", "price_source", "priced_as", "cache_hit_rate", "cache_savings_usd")
    ),
    "runs": frozenset(
        (
            *_TOKENS,
            "total_tokens",
            "cost_usd",
            "cache_hit_rate",
            "cache_savings_usd",
            "unpriced_calls",
            "reported_cost_usd",
        )
    ),
    "tool_calls": frozenset(("cost_usd", "unpriced_calls")),
}
#: Columns the same for every row of a log (its name) or of a run (its identity: which run it
#: is, once its reads are put together): kept once per log or run while reading, and written
#: out when the logs' rows are put together (``build._Builder``).
_PER_LOG = ("session", "conversation_id", "run_identity")


#: The typecode of the ``array.array`` a column of numbers is kept in while it is built
#: (sent between processes as bytes, read by numpy without a copy per value): every count,
#: seq and time (all within signed 64 bits: ``sessiontools._log.limits``), flag and float that
#: is never missing. Other columns are lists.
_ARRAYS = {"Int64": "q", "int32": "q", _TIME: "q", "bool": "b", "float64": "d"}


def _column(frame: str, name: str) -> list[Any] | array.array[Any]:
    code = _ARRAYS.get(COLUMNS[frame][name]) if name in COLUMNS[frame] else "b"  # has_usage
    return [] if code is None else array.array(code)


class _Columns:
    """The rows of one frame, kept as one list or array per column: those read (not
    ``_COMPUTED``), ``_INTERNAL``'s, and, once logs are put together (``assembled``),
    ``_PER_LOG``'s."""

    def __init__(self, frame: str, *, assembled: bool = False) -> None:
        self.frame = frame
        self.data: dict[str, Any] = {
            name: _column(frame, name)
            for name in (*COLUMNS[frame], *_INTERNAL[frame])
            if name not in _COMPUTED[frame] and (assembled or name not in _PER_LOG)
        }

    def __len__(self) -> int:
        return len(self.data["run_index"])


class _Store:
    """The columns of the logs one process read (or one chunk of them): each log's
    ``_LogRows`` is a stretch of them, so that sending many small logs between processes
    sends each column once, not once a log. ``call_run`` and ``call_tool``: each model call's
    run and tool call row, counted within its log (-1: a turn); ``same``: each name and set of
    labels read, once (one object each, sent once)."""

    __slots__ = ("call_run", "call_tool", "calls", "runs", "same", "tools")

    def __init__(self) -> None:
        self.calls = _Columns("model_calls")
        self.runs = _Columns("runs")
        self.tools = _Columns("tool_calls")
        self.call_run = array.array("q")
        self.call_tool = array.array("q")
        self.same: dict[Any, Any] = {}

    def __getstate__(self) -> tuple[Any, ...]:
        return self.calls, self.runs, self.tools, self.call_run, self.call_tool

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.calls, self.runs, self.tools, self.call_run, self.call_tool = state
        self.same = {}


def _check_usage(name: str, run: Run) -> None:
    """A negative token count is an error in the log, reported, never clamped (docs/costs.md,
    "Usage conventions")."""
    for t in run.turns:
        check_counts(t.usage, f"{name}: seq {t.seq}")
    for c in run.tool_calls:
        seq = c.result_seq if c.result_seq is not None else c.open_seq
        for m in c.model_calls:
            check_counts(m.usage, f"{name}: seq {seq}")


class _LogRows:
    """The rows of one log's runs, in a ``_Store`` (plain arrays and lists, cheap to send
    between processes): from ``call_base``, ``run_base`` and ``tool_base`` on.

    Run rows, tool call rows and model call rows are numbered within the log; the rows of
    each run are contiguous, in run order (``call_counts``, ``tool_counts``). ``identities``
    and ``end_seqs`` say which run each is and how far it goes, so that the same run read
    twice, whole or in part, is counted once.

    Raises (the constructor):
        UsageConventionError: a negative token count.
    """

    __slots__ = (
        "call_base",
        "call_counts",
        "conversation_id",
        "end_seqs",
        "identities",
        "name",
        "refused_labels",
        "reported_cost_usd",
        "run_base",
        "store",
        "tool_base",
        "tool_counts",
    )

    def __init__(
        self,
        name: str,
        runs: Iterable[Run] = (),
        closing: ClosingLine | None = None,
        store: _Store | None = None,
    ) -> None:
        self.name = name
        self.conversation_id = default_conversation_id(name)
        self.store = store if store is not None else _Store()
        self.call_base = len(self.store.calls)
        self.run_base = len(self.store.runs)
        self.tool_base = len(self.store.tools)
        self.identities: list[RunIdentity] = []
        self.end_seqs: list[int] = []
        self.call_counts: list[int] = []
        self.tool_counts: list[int] = []
        self.reported_cost_usd: float | None = None
        #: the labels the session held that agentloop would refuse (``check_label``), in the
        #: order found; each once
        self.refused_labels: dict[str, None] = {}
        for run in runs:
            self.add(run)
        self.close(closing)

    @property
    def calls(self) -> _Columns:
        return self.store.calls

    @property
    def runs(self) -> _Columns:
        return self.store.runs

    @property
    def tools(self) -> _Columns:
        return self.store.tools

    def add(self, run: Run, *, checked: bool = False) -> None:
        """The rows of the log's next run. ``checked``: its entries were read with the export
        limits (``ExportReader``), which refuse a negative token count as the line's
        ``EntryError``: not looked for again.

        Raises:
            UsageConventionError: the run has a negative token count (nothing is added).
        """
        if not checked:
            _check_usage(self.name, run)
        self.identities.append(run_identity(run))
        self.end_seqs.append(run.end_seq)
        calls_before, tools_before = len(self.calls), len(self.tools)
        self._run(self.name, self.conversation_id, run)
        self.call_counts.append(len(self.calls) - calls_before)
        self.tool_counts.append(len(self.tools) - tools_before)

    def close(self, closing: ClosingLine | None) -> None:
        """Take the log's closing line: a transcript holds one run's entries, and its closing
        line prices that run."""
        self.reported_cost_usd = (
            closing.cost_usd if closing is not None and self.identities else None
        )

    def extend(self, other: _LogRows, labels: set[str], runs: int) -> None:
        """Append the rows of the runs after a cut (``sessiontools._parallel.split``), read
        with no session before them: ``runs`` runs came before the cut, and the session held
        ``labels`` there. This log's rows must be the last of its store."""
        store, theirs = self.store, other.store
        run_rows = len(store.runs) - self.run_base
        tool_rows = len(store.tools) - self.tool_base
        spans = {
            "model_calls": (other.call_base, other.call_base + sum(other.call_counts)),
            "runs": (other.run_base, other.run_base + len(other.identities)),
            "tool_calls": (other.tool_base, other.tool_base + sum(other.tool_counts)),
        }
        for mine, yours in (
            (store.calls, theirs.calls),
            (store.runs, theirs.runs),
            (store.tools, theirs.tools),
        ):
            lo, hi = spans[mine.frame]
            for name, column in mine.data.items():
                values = yours.data[name][lo:hi]
                if name == "run_index":
                    values = [index + runs for index in values]
                elif name == "labels" and mine.frame != "tool_calls":
                    # the session's, at the run's end or at the call: with those held before
                    values = _with_labels(values, labels)
                column.extend(values)
        lo, hi = spans["model_calls"]
        store.call_run.extend(row + run_rows for row in theirs.call_run[lo:hi])
        store.call_tool.extend(
            row + tool_rows if row >= 0 else -1 for row in theirs.call_tool[lo:hi]
        )
        self.identities.extend(other.identities)
        self.end_seqs.extend(other.end_seqs)
        self.call_counts.extend(other.call_counts)
        self.tool_counts.extend(other.tool_counts)
        self.refused_labels.update(other.refused_labels)

    def __getstate__(self) -> tuple[Any, ...]:
        # identities as pairs of bytes: a frozen dataclass unpickles several times slower
        return tuple(
            [(i.start, i.first_call) for i in self.identities]
            if name == "identities"
            else getattr(self, name)
            for name in self.__slots__
        )

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, state, strict=True):
            if name == "identities":
                value = [_new_identity(start, first) for start, first in value]
            setattr(self, name, value)

    def _calls(
        self, head: tuple[str, str, int, int], run_row: int, calls: list[tuple[Any, ...]]
    ) -> None:
        """Append one run's model calls, column by column: each ``(seq, usage_index,
        tool_row, time, offset, labels, source, tool, call_id, provider, model, stop,
        error_kind, usage)``, in order."""
        n = len(calls)
        if not n:
            return
        store = self.store
        data = store.calls.data
        data["run_index"].extend([head[2]] * n)
        data["run_start_seq"].extend([head[3]] * n)
        (seqs, indexes, tool_rows, times, offsets, labels, sources, tools, call_ids,
         providers, models, stops, kinds, usages) = zip(*calls, strict=True)  # fmt: skip
        data["seq"].extend(seqs)
        data["usage_index"].extend(indexes)
        data["time"].extend(times)
        data["utc_offset_seconds"].extend(offsets)
        data["source"].extend(sources)
        data["tool"].extend(tools)
        data["call_id"].extend(call_ids)
        same = store.same
        data["labels"].extend([same.setdefault(held, held) for held in labels])
        # one object per distinct name in a log: sent once between processes
        data["provider"].extend([same.setdefault(p, p) if p else None for p in providers])
        data["model"].extend([same.setdefault(m, m) if m else None for m in models])
        data["stop"].extend([same.setdefault(s, s) if s else None for s in stops])
        data["error_kind"].extend(kinds)
        # a failed call has no usage: 0 here, NA in the frame (``has_usage``)
        data["has_usage"].extend([u is not None for u in usages])
        counts = [ZERO_USAGE if u is None else u for u in usages]
        data["input_tokens"].extend([u.input_tokens for u in counts])
        data["output_tokens"].extend([u.output_tokens for u in counts])
        data["cache_read_tokens"].extend([u.cache_read_tokens for u in counts])
        data["cache_write_tokens"].extend([u.cache_write_tokens for u in counts])
        data["total_tokens"].extend([u.total_tokens for u in counts])
        store.call_run.extend([run_row] * n)
        store.call_tool.extend(tool_rows)

    def _run(self, name: str, conversation_id: str, run: Run) -> None:
        """The rows of one run. Its model calls are in the order of the log (``seq``, then
        the order of a result's ``usage``): turns, failed calls and the calls its tools made,
        interleaved as they happened."""
        head = (name, conversation_id, run.index, run.start_seq)
        run_row = len(self.runs) - self.run_base
        history = run.label_history
        refused = self.refused_labels
        for held in dict.fromkeys(labels for _, labels in history):
            for label in held:
                if label not in refused and _refused(label):
                    refused[label] = None
        # the labels the session held at each call's entry (most runs: one set throughout)
        labels_at = (lambda seq: history[0][1]) if len(history) == 1 else run.labels_at
        calls: list[tuple[Any, ...]] = [
            (t.seq, 0, -1, t.time_unix_nano, t.utc_offset_seconds, labels_at(t.seq), "turn",
             None, None, t.provider, t.model, t.stop, None, t.usage)
            for t in run.turns
        ]  # fmt: skip
        calls += [
            (f.seq, 0, -1, f.time_unix_nano, f.utc_offset_seconds, labels_at(f.seq), "turn",
             None, None, f.provider, f.request_model, "", f.error.kind or "model_error", None)
            for f in run.failed_calls
        ]  # fmt: skip
        records = run.tool_calls
        if records:
            first_row = len(self.tools) - self.tool_base
            tools = self.tools.data
            n = len(records)
            tools["run_index"].extend([head[2]] * n)
            tools["run_start_seq"].extend([head[3]] * n)
            same = self.store.same
            tools["tool"].extend(
                [same.setdefault(c.tool, c.tool) if c.tool else None for c in records]
            )
            tools["call_id"].extend([c.call_id for c in records])
            tools["verdict"].extend([c.verdict or None for c in records])
            tools["start"].extend([c.start_time_unix_nano for c in records])
            tools["duration_ms"].extend(
                [(c.end_time_unix_nano - c.start_time_unix_nano) / 1e6 for c in records]
            )
            tools["is_error"].extend([c.is_error if c.has_result else None for c in records])
            tools["refused"].extend([c.refused for c in records])
            tools["resumed"].extend([c.resumed for c in records])
            tools["labels"].extend([same.setdefault(c.labels, c.labels) for c in records])
            tools["model_calls"].extend([len(c.model_calls) for c in records])
            for tool_row, c in enumerate(records, first_row):
                if not c.model_calls:
                    continue
                # A tool's own model calls have no time of their own: its result's, as it ended.
                seq = c.result_seq if c.result_seq is not None else c.open_seq
                at = labels_at(seq)
                calls += [
                    (seq, m.index, tool_row, c.end_time_unix_nano, c.end_utc_offset_seconds, at,
                     "tool", c.tool or None, c.call_id, "", m.model, "", None, m.usage)
                    for m in c.model_calls
                ]  # fmt: skip
        calls.sort(key=_log_order)  # each part is in order already: cheap
        self._calls(head, run_row, calls)
        runs = self.runs.data
        runs["run_index"].append(head[2])
        runs["run_start_seq"].append(head[3])
        runs["start"].append(run.start_time_unix_nano)
        runs["end"].append(run.end_time_unix_nano)
        runs["duration_ms"].append(run.duration_ms)
        runs["reason"].append(run.reason)
        runs["turns"].append(run.turn_count)
        runs["tool_calls"].append(len(run.tool_calls))
        runs["failed_calls"].append(len(run.failed_calls))
        runs["labels"].append(self.store.same.setdefault(run.labels, run.labels))


@functools.lru_cache(maxsize=4096)
def _refused(label: str) -> bool:
    """Whether agentloop would refuse ``label`` (``check_label``): a log written by hand, or
    by something else, may hold any text as a label."""
    try:
        check_label(label)
    except LabelError:
        return True
    return False


#: How many of a log's refused labels its warning names, and how much of each it shows.
_NAMED_LABELS = 3
_LABEL_SHOWN = 40


def refused_labels_warning(name: str, labels: Iterable[str]) -> str | None:
    """The one warning for a log whose session held labels agentloop would refuse (``(none)``,
    ``-``, an empty label, control characters, more than ``MAX_LABEL_BYTES``...): they are
    counted as written, and a table shows them in quotes. ``None`` when there are none."""
    found = list(labels)
    if not found:
        return None
    shown = []
    for label in found[:_NAMED_LABELS]:
        if len(label) > _LABEL_SHOWN:
            label = (
                label[:_LABEL_SHOWN] + f"... ({len(label.encode('utf-8', 'surrogatepass'))} bytes)"
            )
        shown.append(repr(label))
    more = f" and {len(found) - _NAMED_LABELS} more" if len(found) > _NAMED_LABELS else ""
    return (
        f"{name}: {len(found)} {'label' if len(found) == 1 else 'labels'} that agentloop "
        f"refuses ({', '.join(shown)}{more}): counted as written; tables show such a label "
        "in double quotes, apart from (none), the calls with no label"
    )


def _log_order(call: tuple[Any, ...]) -> tuple[int, int]:
    return call[0], call[1]


def _with_labels(values: list[tuple[str, ...]], before: set[str]) -> list[tuple[str, ...]]:
    """Label sets read after a cut, each with the labels the session held before it (labels
    are never removed); one union per distinct set."""
    if not before:
        return values
    done: dict[tuple[str, ...], tuple[str, ...]] = {}
    out = []
    for own in values:
        got = done.get(own)
        if got is None:
            got = done[own] = tuple(sorted(before.union(own)))
        out.append(got)
    return out


_new_identity = fast_maker(RunIdentity)


@dataclass(frozen=True, slots=True)
class _LogRead:
    """One log read into rows, in whichever process read it; or what went wrong."""

    name: str
    rows: _LogRows | None
    warnings: tuple[tuple[type[Warning], str], ...]
    error: LogError | UsageConventionError | OSError | None


#: Where ``read_costs`` cuts a large log, as a fraction of it: a little before
#: ``sessiontools otel``'s cut (``sessiontools._parallel.cut.CUT_AT``), because this process has
#: more to do after reading (taking the child's rows, pricing, the frames) and the child less
#: (it sends rows, not spans). Measured on the 1 GB log: from 46% the child's part came 0.3 to
#: 0.5 times the floor after this process's; from 50%, within 0.03 (this process loads
#: genai-prices' data meanwhile: ``LogReads.idle``).
COST_CUT_AT = 0.50


def _read_log(
    source: str | LogStream,
    split: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    idle: Callable[[], object] | None = None,
    store: _Store | None = None,
) -> _LogRead:
    """Read one log (a path, or a file open in binary mode, which is never cut in two); what goes
    wrong is returned, to be raised (or skipped) in order. ``split``: read a large log in two
    processes (``sessiontools._parallel.cut.plan_cut`` with ``None``, cut from ``COST_CUT_AT``);
    ``idle``: called while the child reads, once this process has read its part; ``store``:
    where to keep the rows (with other logs' rows; a new one by default). A path's name in
    messages is the path with each byte that is not UTF-8 as U+FFFD (``shown_name``)."""
    rows = None
    error: LogError | UsageConventionError | OSError | None = None
    name = source.name if isinstance(source, LogStream) else shown_name(source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        try:
            opened = source.file if isinstance(source, LogStream) else source
            # the exporters' reader, as `sessiontools otel` reads: typed decoding (msgspec
            # views, the checked decoders for any line they cannot take: the same runs,
            # warnings and errors; tests/cost/test_cost_views.py), and export=True: what the
            # frames cannot hold is an EntryError (file, line, byte; sessiontools._log.limits)
            with ExportReader(opened, name=name, max_line_bytes=max_line_bytes) as log:
                job = _Rows(name, store)
                # a stream given (standard input) is read here, in order
                workers = None if split and opened is source else 1
                rows = job.read(log, workers, idle)
            refused = refused_labels_warning(name, rows.refused_labels)
            if refused is not None:
                warnings.warn(SessionToolsWarning(refused), stacklevel=1)
        except (LogError, UsageConventionError, OSError) as e:
            error = e
    said = tuple((w.category, str(w.message)) for w in caught)
    return _LogRead(name, rows, said, error)


@contextlib.contextmanager
def _no_cycles() -> Iterator[None]:
    """The cyclic garbage collector waits (reading makes many objects and no cycles: about 5%
    less time); as it was after. Only where this package runs the process: a pool worker, the
    child reading a log's second part, the command."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _read_logs(paths: list[str], max_line_bytes: int | None = MAX_LINE_BYTES) -> list[_LogRead]:
    """Read several logs (a pool worker's chunk), their rows in one ``_Store``: sent back in
    one go, each column once."""
    store = _Store()
    with _no_cycles():
        return [_read_log(path, max_line_bytes=max_line_bytes, store=store) for path in paths]


class _Rows:
    """The rows of a log read in two processes (a ``sessiontools._parallel.split.Job``): each
    process makes the rows of its runs as they end, and this one adds the child's to its own, with
    their run index counted from the start and the session's labels from before the cut. A negative
    token count is raised once the whole log is read, the first in the log's order, as
    ``_LogRows(name, runs)`` raises it in one process after reading. ``store``: where this
    process keeps its rows (see ``_read_log``)."""

    def __init__(self, name: str, store: _Store | None = None) -> None:
        self.name = name
        self.rows = _LogRows(name, store=store)
        self.error: UsageConventionError | None = None  # the first, in this process's runs
        #: read with the export limits, which refuse a negative count (``_LogRows.add``)
        self.checked = False

    def read(
        self, log: LogReader, workers: int | None, idle: Callable[[], object] | None = None
    ) -> _LogRows:
        """The rows of the log ``log`` reads, in two processes if ``workers`` asks for it and
        the log can be cut (``sessiontools._parallel.split.read_runs``, from ``COST_CUT_AT``;
        ``idle``: see ``read_in_two``).

        Raises:
            LogError, UsageConventionError, OSError: as one process would.
        """
        self.checked = log.export
        closing = _split.read_runs(log, self, workers=workers, at=COST_CUT_AT, idle=idle)
        if self.error is not None:  # the child's work was dropped, or there was no child
            raise self.error
        self.rows.close(closing)
        return self.rows

    def take(self, runs: Iterator[Run]) -> None:
        self.error = _add(self.rows, runs, self.error, self.checked)

    def make_in_child(
        self, runs: Iterator[Run], out: IO[bytes]
    ) -> tuple[_LogRows, UsageConventionError | None]:
        rows = _LogRows(self.name)
        with _no_cycles():  # reading makes many objects and no cycles
            # a damaged line is raised first, as here
            return rows, _add(rows, runs, None, self.checked)

    def merge(
        self,
        result: tuple[_LogRows, UsageConventionError | None],
        out: IO[bytes],
        labels: set[str],
        runs: int,
    ) -> None:
        theirs, error = result
        error = self.error or error  # the first in the log
        if error is not None:
            raise error
        self.rows.extend(theirs, labels, runs)


def _add(
    rows: _LogRows, runs: Iterator[Run], error: UsageConventionError | None, checked: bool
) -> UsageConventionError | None:
    """Add the rows of ``runs`` until one has a negative count; read them all (a damaged line
    comes first); return that count's error, or ``error`` if there was one already.
    ``checked``: see ``_LogRows.add``."""
    for run in runs:
        if error is None:
            try:
                rows.add(run, checked=checked)
            except UsageConventionError as e:
                error = e
    return error


class LogReads:
    """Logs being read, in order; the reading starts at once.

    With a pool (see ``read_costs``'s ``workers``) the processes start, and every log is
    handed to them, when this is made: the caller can do other work (such as importing what
    the pricing needs) while they read. Iterate once: each log's ``_LogRead``, or the
    ``Session`` given. Use as a context manager, which stops the pool.

    ``max_line_bytes``: the longest line read (see ``LogReader``); ``None``: no limit.

    ``idle``, when set before iterating, is called once while other processes read and this
    one would wait: when the pool is first waited for, or when this process has read its part
    of a log read in two (``sessiontools._parallel.split.read_in_two``). For work that must be
    done anyway, such as imports; it must give no warning.

    Raises:
        ValueError: ``workers`` is below 1; ``max_line_bytes`` is not positive.
    """

    def __init__(
        self,
        items: Sequence[Found],
        workers: int | None = None,
        max_line_bytes: int | None = MAX_LINE_BYTES,
    ) -> None:
        self.idle: Callable[[], object] | None = None
        self.items = list(items)
        paths = [os.fspath(item) for item in self.items if isinstance(item, Path)]
        split = workers != 1  # without a pool, a large log is read in two processes
        if workers is None:
            workers = min(available_cores(), MAX_WORKERS) if len(paths) >= PARALLEL_FROM else 1
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if max_line_bytes is not None and (
            max_line_bytes.__class__ is not int or max_line_bytes < 1
        ):
            raise ValueError(
                f"max_line_bytes must be a positive integer or None, not {max_line_bytes!r}"
            )
        self._read = functools.partial(_read_log, max_line_bytes=max_line_bytes)
        self.workers = workers if len(paths) > 1 else 1
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        if self.workers == 1:
            self._reads: Iterator[_LogRead] = (
                self._read(path, split, idle=self._idle_once) for path in paths
            )
        else:
            # only for a pool: one small log needs neither concurrent.futures nor multiprocessing
            from .._parallel.pool import pool_map, worker_pool

            self._pool = worker_pool(self.workers)
            size = max(1, min(16, len(paths) // (self.workers * 4)))
            chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
            read = functools.partial(_read_logs, max_line_bytes=max_line_bytes)
            self._reads = itertools.chain.from_iterable(pool_map(self._pool, read, chunks, 1))

    def _idle_once(self) -> None:
        idle, self.idle = self.idle, None
        if idle is not None:
            idle()

    def __iter__(self) -> Iterator[_LogRead | Session]:
        for item in self.items:
            if isinstance(item, Session):
                yield item
            elif isinstance(item, LogStream):
                yield self._read(item)  # here, in order: the file is this process's
            elif isinstance(item, Unlisted):
                yield _LogRead(os.fspath(item.path), None, (), item.error)
            else:
                if self._pool is not None:
                    self._idle_once()  # while the pool reads
                yield next(self._reads)

    def close(self) -> None:
        """Stop the pool, if any: reads not started are dropped, and the logs being read are
        read to the end first."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> LogReads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
