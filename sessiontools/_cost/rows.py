"""Logs to the cost tables' rows, without pandas: the first part of the cost exporter
(docs/costs.md, "Frames").

Everything here runs where the logs are read, which can be a pool of processes
(``sessiontools._parallel.pool``) or the two processes of a log read in two: each log becomes
plain column lists (``_LogRows``), cheap to send back, and each of its runs gets its identity
(``sessiontools._model.identity``), so that ``frames`` counts a run read twice once. pandas
and genai-prices are not imported here: the workers never load them, and a caller that starts
``LogReads`` first may import them while the processes read (``sessiontools cost`` imports
them before it starts reading).
"""

from __future__ import annotations

import concurrent.futures
import functools
import os
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeAlias

from .._errors import LogError, SessionToolsWarning, UsageConventionError
from .._log.entries import Usage
from .._log.reader import MAX_LINE_BYTES, ClosingLine, LogReader, shown_name
from .._log.sources import Found, LogStream, Unlisted, default_conversation_id
from .._model.identity import RunIdentity, run_identity
from .._model.runs import Run
from .._model.session import Session
from .._model.usage import check_counts
from .._parallel import split as _split
from .._parallel.cut import available_cores
from .._parallel.pool import (
    MAX_WORKERS,
    PARALLEL_FROM,
    pool_map,
    worker_pool,
)

__all__ = ["COLUMNS", "LogReads", "Logs"]


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
        "seq": "Int64",
        "usage_index": "Int64",
        "time": _TIME,
        "source": "category",
        "tool": "category",
        "call_id": "string",
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
    },
    "runs": {
        "session": "string",
        "conversation_id": "string",
        "run_index": "Int64",
        "run_start_seq": "Int64",
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
        "unpriced_calls": "Int64",
        "reported_cost_usd": "float64",
        "labels": "object",
    },
    "tool_calls": {
        "session": "string",
        "conversation_id": "string",
        "run_index": "Int64",
        "run_start_seq": "Int64",
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


_HEAD = ("session", "conversation_id", "run_index", "run_start_seq")


_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


class _Columns:
    """The rows of one frame, kept as one list per column."""

    def __init__(self, frame: str) -> None:
        self.frame = frame
        self.data: dict[str, list[Any]] = {name: [] for name in COLUMNS[frame]}

    def __len__(self) -> int:
        return len(self.data["session"])


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
    """The rows of one log's runs, as plain lists (cheap to send between processes).

    Run rows, tool call rows and model call rows are numbered within the log; the rows of
    each run are contiguous, in run order (``call_counts``, ``tool_counts``). ``identities``
    and ``end_seqs`` say which run each is and how far it goes, so that the same run read
    twice, whole or in part, is counted once.

    Raises (the constructor):
        UsageConventionError: a negative token count.
    """

    __slots__ = (
        "call_counts",
        "call_run",
        "call_tool",
        "calls",
        "conversation_id",
        "end_seqs",
        "identities",
        "name",
        "reported_cost_usd",
        "runs",
        "tool_counts",
        "tools",
    )

    def __init__(
        self, name: str, runs: Iterable[Run] = (), closing: ClosingLine | None = None
    ) -> None:
        self.name = name
        self.conversation_id = default_conversation_id(name)
        self.calls = _Columns("model_calls")
        self.runs = _Columns("runs")
        self.tools = _Columns("tool_calls")
        self.call_run: list[int] = []  # each model call's run row
        self.call_tool: list[int] = []  # each model call's tool call row, -1 for a turn
        self.identities: list[RunIdentity] = []
        self.end_seqs: list[int] = []
        self.call_counts: list[int] = []
        self.tool_counts: list[int] = []
        self.reported_cost_usd: float | None = None
        for run in runs:
            self.add(run)
        self.close(closing)

    def add(self, run: Run) -> None:
        """The rows of the log's next run.

        Raises:
            UsageConventionError: the run has a negative token count (nothing is added).
        """
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
        """Append the rows of the runs after a cut (``sessiontools._parallel.split``), read with no
        session before them: ``runs`` runs came before the cut, and the session held ``labels``
        there."""
        run_rows, tool_rows = len(self.runs), len(self.tools)
        for mine, theirs in (
            (self.calls, other.calls),
            (self.runs, other.runs),
            (self.tools, other.tools),
        ):
            for name, column in mine.data.items():
                values = theirs.data[name]
                if name == "run_index":
                    values = [index + runs for index in values]
                elif name == "labels" and mine.frame == "runs":  # the session's, at the run's end
                    values = [tuple(sorted(labels.union(own))) for own in values]
                column.extend(values)
        self.call_run.extend(row + run_rows for row in other.call_run)
        self.call_tool.extend(row + tool_rows if row >= 0 else -1 for row in other.call_tool)
        self.identities.extend(other.identities)
        self.end_seqs.extend(other.end_seqs)
        self.call_counts.extend(other.call_counts)
        self.tool_counts.extend(other.tool_counts)

    def __getstate__(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        for name, value in zip(self.__slots__, state, strict=True):
            setattr(self, name, value)

    def _call(
        self,
        head: tuple[str, str, int, int],
        run_row: int,
        tool_row: int,
        seq: int,
        usage_index: int,
        time: int,
        source: str,
        tool: str | None,
        call_id: str | None,
        provider: str,
        model: str,
        stop: str,
        error_kind: str | None,
        usage: Usage | None,
    ) -> None:
        calls = self.calls.data
        _put(calls, head)
        calls["seq"].append(seq)
        calls["usage_index"].append(usage_index)
        calls["time"].append(time)
        calls["source"].append(source)
        calls["tool"].append(tool)
        calls["call_id"].append(call_id)
        calls["provider"].append(provider or None)
        calls["model"].append(model or None)
        calls["stop"].append(stop or None)
        calls["error_kind"].append(error_kind)
        if usage is None:
            for name in (*_TOKENS, "total_tokens"):
                calls[name].append(None)
        else:
            calls["input_tokens"].append(usage.input_tokens)
            calls["output_tokens"].append(usage.output_tokens)
            calls["cache_read_tokens"].append(usage.cache_read_tokens)
            calls["cache_write_tokens"].append(usage.cache_write_tokens)
            calls["total_tokens"].append(usage.total_tokens)
        self.call_run.append(run_row)
        self.call_tool.append(tool_row)

    def _run(self, name: str, conversation_id: str, run: Run) -> None:
        """The rows of one run. Its model calls are in the order of the log (``seq``, then
        the order of a result's ``usage``): turns, failed calls and the calls its tools made,
        interleaved as they happened."""
        head = (name, conversation_id, run.index, run.start_seq)
        run_row = len(self.runs)
        calls: list[tuple[Any, ...]] = [
            (t.seq, 0, -1, t.time_unix_nano, "turn", None, None,
             t.provider, t.model, t.stop, None, t.usage)
            for t in run.turns
        ]  # fmt: skip
        calls += [
            (f.seq, 0, -1, f.time_unix_nano, "turn", None, None,
             f.provider, f.request_model, "", f.error.kind or "model_error", None)
            for f in run.failed_calls
        ]  # fmt: skip
        tools = self.tools.data
        for c in run.tool_calls:
            tool_row = len(self.tools)
            _put(tools, head)
            tools["tool"].append(c.tool or None)
            tools["call_id"].append(c.call_id)
            tools["verdict"].append(c.verdict or None)
            tools["start"].append(c.start_time_unix_nano)
            tools["duration_ms"].append((c.end_time_unix_nano - c.start_time_unix_nano) / 1e6)
            tools["is_error"].append(c.is_error if c.has_result else None)
            tools["refused"].append(c.refused)
            tools["resumed"].append(c.resumed)
            tools["labels"].append(c.labels)
            tools["model_calls"].append(len(c.model_calls))
            # A tool's own model calls have no time of their own: its result's, when it ended.
            seq = c.result_seq if c.result_seq is not None else c.open_seq
            calls += [
                (seq, m.index, tool_row, c.end_time_unix_nano, "tool",
                 c.tool or None, c.call_id, "", m.model, "", None, m.usage)
                for m in c.model_calls
            ]  # fmt: skip
        calls.sort(key=_log_order)  # each part is in order already: cheap
        for seq, index, tool_row, *rest in calls:
            self._call(head, run_row, tool_row, seq, index, *rest)
        runs = self.runs.data
        _put(runs, head)
        runs["start"].append(run.start_time_unix_nano)
        runs["end"].append(run.end_time_unix_nano)
        runs["duration_ms"].append(run.duration_ms)
        runs["reason"].append(run.reason)
        runs["turns"].append(run.turn_count)
        runs["tool_calls"].append(len(run.tool_calls))
        runs["failed_calls"].append(len(run.failed_calls))
        runs["labels"].append(run.labels)


def _log_order(call: tuple[Any, ...]) -> tuple[int, int]:
    return call[0], call[1]


def _put(columns: dict[str, list[Any]], head: tuple[str, str, int, int]) -> None:
    """Append the columns every frame starts with: session, conversation, run index, seq."""
    for name, value in zip(_HEAD, head, strict=True):
        columns[name].append(value)


@dataclass(frozen=True, slots=True)
class _LogRead:
    """One log read into rows, in whichever process read it; or what went wrong."""

    name: str
    rows: _LogRows | None
    warnings: tuple[tuple[type[Warning], str], ...]
    error: LogError | UsageConventionError | OSError | None


def _read_log(
    source: str | LogStream, split: bool = False, max_line_bytes: int | None = MAX_LINE_BYTES
) -> _LogRead:
    """Read one log (a path, or a file open in binary mode, which is never cut in two); what goes
    wrong is returned, to be raised (or skipped) in order. ``split``: read a large log in two
    processes (``sessiontools._parallel.cut.plan_cut`` with ``None``). A path's name in messages is
    the path with each byte that is not UTF-8 as U+FFFD (``shown_name``)."""
    rows = None
    error: LogError | UsageConventionError | OSError | None = None
    name = source.name if isinstance(source, LogStream) else shown_name(source)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        try:
            opened = source.file if isinstance(source, LogStream) else source
            # export=True: what the frames cannot hold is an EntryError (file, line, byte), as
            # in `sessiontools otel` (sessiontools._log.limits)
            with LogReader(opened, name=name, export=True, max_line_bytes=max_line_bytes) as log:
                job = _Rows(name)
                # a stream given (standard input) is read here, in order
                workers = None if split and opened is source else 1
                rows = job.read(log, workers)
        except (LogError, UsageConventionError, OSError) as e:
            error = e
    said = tuple((w.category, str(w.message)) for w in caught)
    return _LogRead(name, rows, said, error)


class _Rows:
    """The rows of a log read in two processes (a ``sessiontools._parallel.split.Job``): each
    process makes the rows of its runs as they end, and this one adds the child's to its own, with
    their run index counted from the start and the session's labels from before the cut. A negative
    token count is raised once the whole log is read, the first in the log's order, as
    ``_LogRows(name, runs)`` raises it in one process after reading."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.rows = _LogRows(name)
        self.error: UsageConventionError | None = None  # the first, in this process's runs

    def read(self, log: LogReader, workers: int | None) -> _LogRows:
        """The rows of the log ``log`` reads, in two processes if ``workers`` asks for it and
        the log can be cut (``sessiontools._parallel.split.read_runs``).

        Raises:
            LogError, UsageConventionError, OSError: as one process would.
        """
        closing = _split.read_runs(log, self, workers=workers)
        if self.error is not None:  # the child's work was dropped, or there was no child
            raise self.error
        self.rows.close(closing)
        return self.rows

    def take(self, runs: Iterator[Run]) -> None:
        self.error = _add(self.rows, runs, self.error)

    def make_in_child(
        self, runs: Iterator[Run], out: IO[bytes]
    ) -> tuple[_LogRows, UsageConventionError | None]:
        rows = _LogRows(self.name)
        return rows, _add(rows, runs, None)  # a damaged line is raised first, as in one process

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
    rows: _LogRows, runs: Iterator[Run], error: UsageConventionError | None
) -> UsageConventionError | None:
    """Add the rows of ``runs`` until one has a negative count; read them all (a damaged line
    comes first); return that count's error, or ``error`` if there was one already."""
    for run in runs:
        if error is None:
            try:
                rows.add(run)
            except UsageConventionError as e:
                error = e
    return error


class LogReads:
    """Logs being read, in order; the reading starts at once.

    With a pool (see ``read_costs``'s ``workers``) the processes start, and every log is
    handed to them, when this is made: the caller can do other work (such as importing pandas)
    while they read. Iterate once: each log's ``_LogRead``, or the ``Session`` given. Use as a
    context manager, which stops the pool.

    ``max_line_bytes``: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        ValueError: ``workers`` is below 1; ``max_line_bytes`` is not positive.
    """

    def __init__(
        self,
        items: Sequence[Found],
        workers: int | None = None,
        max_line_bytes: int | None = MAX_LINE_BYTES,
    ) -> None:
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
        read = self._read = functools.partial(_read_log, max_line_bytes=max_line_bytes)
        self.workers = workers if len(paths) > 1 else 1
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        if self.workers == 1:
            self._reads: Iterator[_LogRead] = map(functools.partial(read, split=split), paths)
        else:
            self._pool = worker_pool(self.workers)
            chunk = max(1, min(16, len(paths) // (self.workers * 4)))
            self._reads = pool_map(self._pool, read, paths, chunk)

    def __iter__(self) -> Iterator[_LogRead | Session]:
        for item in self.items:
            if isinstance(item, Session):
                yield item
            elif isinstance(item, LogStream):
                yield self._read(item)  # here, in order: the file is this process's
            elif isinstance(item, Unlisted):
                yield _LogRead(os.fspath(item.path), None, (), item.error)
            else:
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
