"""Cost tables: the session model as pandas frames, priced (contract: design/costs.md).

``read_costs(logs)`` reads one or many logs once and returns three tidy frames:

- ``model_calls``: one row per model call: each turn and each failed call (``source`` ``turn``;
  a failed call has ``error_kind`` set and no tokens), and each model call a tool made
  (``source`` ``tool``, with the tool's name and call id);
- ``runs``: one row per run, crashed runs included;
- ``tool_calls``: one row per tool call as its run saw it (a call cut off by a crash and
  settled by a later run is two rows, the second with ``resumed`` true).

Columns have fixed names and dtypes (``COLUMNS``): times ``datetime64[ns, UTC]``, counts
nullable ``Int64``, names ``category``, money ``float64`` in US dollars. Costs are priced by a
``PriceBook`` (a price file wins, else genai-prices at the call's own time); a call nobody can
price has ``cost_usd`` NaN and ``priced`` false, never 0, and every total over it says it is a
lower bound (``cost_by``, and ``unpriced_calls`` in ``runs`` and ``tool_calls``).

Rows are built column by column (one list per column), never as a dict per row, and priced
vectorised per (provider, model, UTC day, tier).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import glob
import hashlib
import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from ._entries import Usage
from ._errors import LogError, SessionToolsWarning
from ._model import Run, Session, SessionFold, iter_runs
from ._names import GROUPS
from ._otel import default_conversation_id
from ._prices import PriceBook, Prices
from ._reader import ClosingLine, LogReader
from ._usage import UsageConventionError, check_counts

__all__ = [
    "COLUMNS",
    "GROUPS",
    "CostMismatchWarning",
    "CostTables",
    "Logs",
    "PriceSource",
    "SkippedLog",
    "cost_by",
    "find_logs",
    "model_calls",
    "read_costs",
    "runs",
    "tool_calls",
]

#: What ``read_costs`` takes: a path to a log, a directory (searched for ``*.jsonl``), a glob
#: pattern, a ``Session`` already read, or an iterable of these.
Logs: TypeAlias = "str | os.PathLike[str] | Session | Iterable[str | os.PathLike[str] | Session]"

#: The prices ``read_costs`` takes: a ``PriceBook``, a price file, or ``Prices`` by model id.
PriceSource: TypeAlias = "PriceBook | str | os.PathLike[str] | Mapping[str, Prices] | None"

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

_NS_PER_DAY = 86_400_000_000_000
_HEAD = ("session", "conversation_id", "run_index", "run_start_seq")
_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
_RATE_FIELDS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_tokens", "cache_read"),
    ("cache_write_tokens", "cache_write"),
)


class CostMismatchWarning(SessionToolsWarning):
    """A transcript's ``cost_usd`` differs from the computed cost of its run by more than 1%."""


@dataclass(frozen=True, slots=True)
class SkippedLog:
    """A log ``read_costs`` could not read and skipped: its name and why (one line)."""

    name: str
    problem: str


@dataclass(frozen=True, slots=True)
class CostTables:
    """What ``read_costs`` read: the three frames, the logs it skipped, its warnings."""

    model_calls: pd.DataFrame
    runs: pd.DataFrame
    tool_calls: pd.DataFrame
    skipped: tuple[SkippedLog, ...]
    warnings: tuple[str, ...]


def find_logs(logs: Logs) -> list[Path | Session]:
    """The logs ``read_costs`` reads, in its order: directories (their ``*.jsonl``,
    recursively) and globs expanded and sorted; sessions as they are.

    Raises:
        FileNotFoundError: a path or pattern that names nothing.
    """
    items: Iterable[Any] = [logs] if isinstance(logs, str | os.PathLike | Session) else logs
    out: list[Path | Session] = []
    for item in items:
        if isinstance(item, Session):
            out.append(item)
            continue
        path = Path(item)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            if not found:
                raise FileNotFoundError(f"no *.jsonl log in {path}")
            out.extend(found)
        elif path.is_file():
            out.append(path)
        elif path.exists() or os.path.lexists(path):
            what = "a broken symbolic link" if not path.exists() else "not a file"
            raise FileNotFoundError(f"{path} is {what}")
        else:
            matches = sorted(glob.glob(os.fspath(item), recursive=True))
            files = [Path(m) for m in matches if Path(m).is_file()]
            if not files:
                raise FileNotFoundError(f"no log at {os.fspath(item)}")
            out.extend(files)
    return out


class _Columns:
    """The rows of one frame, kept as one list per column."""

    def __init__(self, frame: str) -> None:
        self.frame = frame
        self.data: dict[str, list[Any]] = {name: [] for name in COLUMNS[frame]}

    def __len__(self) -> int:
        return len(self.data["session"])

    def to_frame(self) -> pd.DataFrame:
        series: dict[str, pd.Series[Any]] = {}
        for name, dtype in COLUMNS[self.frame].items():
            values = self.data[name]
            if dtype == _TIME:
                series[name] = pd.Series(
                    pd.to_datetime(np.asarray(values, dtype=np.int64), unit="ns", utc=True)
                )
            elif dtype == "object":
                column = np.empty(len(values), dtype=object)
                column[:] = values
                series[name] = pd.Series(column, dtype=object)
            else:
                series[name] = pd.Series(values, dtype=dtype)
        return pd.DataFrame(series)


def _identity(run: Run) -> bytes:
    """What makes a run the same run in two logs: where and when it starts and ends, and each of
    its model calls' entry, time, model and usage. Two different sessions never share all of
    it; a session and the transcript of one of its runs always do. Kept as a 128-bit digest of
    those values (plain ints and strings, so their ``repr`` is stable), small enough to travel
    between processes by the thousand."""
    key = (
        run.start_seq,
        run.start_time_unix_nano,
        run.end_seq,
        run.end_time_unix_nano,
        tuple((t.seq, t.time_unix_nano, t.model, *_counts(t.usage)) for t in run.turns),
        tuple((f.seq, f.time_unix_nano) for f in run.failed_calls),
        tuple(
            (
                c.call_id,
                c.result_seq,
                tuple((m.index, m.model, *_counts(m.usage)) for m in c.model_calls),
            )
            for c in run.tool_calls
        ),
    )
    return hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _counts(u: Usage) -> tuple[int, int, int, int]:
    return (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)


def _check_usage(name: str, run: Run) -> None:
    """A negative token count is an error in the log, reported, never clamped (costs.md)."""
    for t in run.turns:
        check_counts(t.usage, f"{name}: seq {t.seq}")
    for c in run.tool_calls:
        seq = c.result_seq if c.result_seq is not None else c.open_seq
        for m in c.model_calls:
            check_counts(m.usage, f"{name}: seq {seq}")


class _LogRows:
    """The rows of one log's runs, as plain lists (cheap to send between processes).

    Run rows, tool call rows and model call rows are numbered within the log; the rows of
    each run are contiguous, in run order (``call_counts``, ``tool_counts``).

    Raises (the constructor):
        UsageConventionError: a negative token count.
    """

    __slots__ = (
        "call_counts",
        "call_run",
        "call_tool",
        "calls",
        "identities",
        "reported_cost_usd",
        "runs",
        "tool_counts",
        "tools",
    )

    def __init__(self, name: str, runs: Sequence[Run], closing: ClosingLine | None) -> None:
        for run in runs:
            _check_usage(name, run)
        self.calls = _Columns("model_calls")
        self.runs = _Columns("runs")
        self.tools = _Columns("tool_calls")
        self.call_run: list[int] = []  # each model call's run row
        self.call_tool: list[int] = []  # each model call's tool call row, -1 for a turn
        self.identities = [_identity(run) for run in runs]
        self.call_counts: list[int] = []
        self.tool_counts: list[int] = []
        conversation_id = default_conversation_id(name)
        for run in runs:
            calls_before, tools_before = len(self.calls), len(self.tools)
            self._run(name, conversation_id, run)
            self.call_counts.append(len(self.calls) - calls_before)
            self.tool_counts.append(len(self.tools) - tools_before)
        # A transcript holds one run's entries; its closing line prices that run.
        self.reported_cost_usd = closing.cost_usd if closing is not None and runs else None

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
        head = (name, conversation_id, run.index, run.start_seq)
        run_row = len(self.runs)
        for t in run.turns:
            self._call(
                head, run_row, -1, t.seq, 0, t.time_unix_nano, "turn", None, None,
                t.provider, t.model, t.stop, None, t.usage,
            )  # fmt: skip
        for f in run.failed_calls:
            self._call(
                head, run_row, -1, f.seq, 0, f.time_unix_nano, "turn", None, None,
                f.provider, f.request_model, "", f.error.kind or "model_error", None,
            )  # fmt: skip
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
            for m in c.model_calls:
                self._call(
                    head, run_row, tool_row, seq, m.index, c.end_time_unix_nano, "tool",
                    c.tool or None, c.call_id, "", m.model, "", None, m.usage,
                )  # fmt: skip
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


class _Builder:
    """Fills the three frames' columns from the rows of each log, each run once."""

    def __init__(self) -> None:
        self.calls = _Columns("model_calls")
        self.runs = _Columns("runs")
        self.tools = _Columns("tool_calls")
        self.call_run: list[int] = []  # each model call's run row
        self.call_tool: list[int] = []  # each model call's tool call row, -1 for a turn
        self.reported: dict[int, float] = {}  # run row -> the cost a transcript reported
        self.seen: dict[bytes, int] = {}  # a run's identity -> its row

    def add(self, log: _LogRows) -> None:
        """The rows of one log (a session, or a run's transcript). The same run read twice (a
        session, and the transcript of one of its runs) is one run: the first read is kept."""
        run_base, tool_base = len(self.runs), len(self.tools)
        keep: list[int] = []
        for i, key in enumerate(log.identities):
            if key not in self.seen:
                self.seen[key] = run_base + len(keep)
                keep.append(i)
        if len(keep) == len(log.identities):
            for mine, theirs in (
                (self.calls, log.calls),
                (self.runs, log.runs),
                (self.tools, log.tools),
            ):
                for name, values in mine.data.items():
                    values.extend(theirs.data[name])
            self.call_run.extend([r + run_base for r in log.call_run])
            self.call_tool.extend([t + tool_base if t >= 0 else -1 for t in log.call_tool])
        elif keep:
            self._add_some(log, keep, run_base, tool_base)
        if log.reported_cost_usd is not None and log.identities:
            self.reported[self.seen[log.identities[-1]]] = log.reported_cost_usd

    def _add_some(self, log: _LogRows, keep: list[int], run_base: int, tool_base: int) -> None:
        call_starts = np.concatenate([[0], np.cumsum(log.call_counts)]).tolist()
        tool_starts = np.concatenate([[0], np.cumsum(log.tool_counts)]).tolist()
        call_rows: list[int] = []
        tool_rows: list[int] = []
        for i in keep:
            call_rows.extend(range(call_starts[i], call_starts[i + 1]))
            tool_rows.extend(range(tool_starts[i], tool_starts[i + 1]))
        tool_to = {old: tool_base + new for new, old in enumerate(tool_rows)}
        run_to = {old: run_base + new for new, old in enumerate(keep)}
        for mine, theirs, rows in (
            (self.calls, log.calls, call_rows),
            (self.runs, log.runs, keep),
            (self.tools, log.tools, tool_rows),
        ):
            for name, values in mine.data.items():
                column = theirs.data[name]
                if column:  # the columns frames() computes are empty until then
                    values.extend([column[r] for r in rows])
        self.call_run.extend([run_to[log.call_run[r]] for r in call_rows])
        self.call_tool.extend(
            [tool_to[log.call_tool[r]] if log.call_tool[r] >= 0 else -1 for r in call_rows]
        )

    def frames(self, book: PriceBook) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The three frames, priced; the runs' and tool calls' sums from their model calls."""
        calls = self.calls.to_frame()
        cost, priced, source = _price(calls, book)
        calls["cost_usd"] = cost
        calls["priced"] = priced
        calls["price_source"] = pd.Series(source, dtype="category")
        priced_cost = np.where(priced, cost, 0.0)
        unpriced = (~priced).astype(np.float64)

        run_rows = np.asarray(self.call_run, dtype=np.int64)
        n_runs = len(self.runs)
        runs = self.runs.data
        for name in (*_TOKENS, "total_tokens"):
            values = calls[name].fillna(0).to_numpy(dtype=np.float64)
            runs[name] = _sums(run_rows, values, n_runs).astype(np.int64).tolist()
        runs["cost_usd"] = _sums(run_rows, priced_cost, n_runs).tolist()
        runs["unpriced_calls"] = _sums(run_rows, unpriced, n_runs).astype(np.int64).tolist()
        runs["reported_cost_usd"] = [self.reported.get(i, math.nan) for i in range(n_runs)]

        tool_rows = np.asarray(self.call_tool, dtype=np.int64)
        mask = tool_rows >= 0
        n_tools = len(self.tools)
        tools = self.tools.data
        tools["cost_usd"] = _sums(tool_rows[mask], priced_cost[mask], n_tools).tolist()
        tools["unpriced_calls"] = (
            _sums(tool_rows[mask], unpriced[mask], n_tools).astype(np.int64).tolist()
        )
        return calls, self.runs.to_frame(), self.tools.to_frame()


def _put(columns: dict[str, list[Any]], head: tuple[str, str, int, int]) -> None:
    """Append the columns every frame starts with: session, conversation, run index, seq."""
    for name, value in zip(_HEAD, head, strict=True):
        columns[name].append(value)


def _sums(rows: Any, values: Any, n: int) -> Any:
    return np.bincount(rows, weights=values, minlength=n) if n else np.zeros(0)


def _price(calls: pd.DataFrame, book: PriceBook) -> tuple[Any, Any, Any]:
    """The cost of every model call: one look-up per (provider, model, UTC day), the tier per row.

    Returns ``(cost_usd, priced, price_source)`` arrays. A failed call (no tokens) costs 0 and
    counts as priced; a call nobody prices costs NaN and is not priced.
    """
    n = len(calls)
    cost = np.zeros(n, dtype=np.float64)
    priced = np.ones(n, dtype=bool)
    source = np.full(n, None, dtype=object)
    if n == 0:
        return cost, priced, source
    has_usage = calls["input_tokens"].notna().to_numpy()
    counts = {name: calls[name].fillna(0).to_numpy(dtype=np.float64) for name in _TOKENS}
    inclusive = counts["input_tokens"] + counts["cache_read_tokens"] + counts["cache_write_tokens"]
    times = calls["time"].astype("int64").to_numpy()
    providers = calls["provider"].astype(object).fillna("").to_numpy()
    models = calls["model"].astype(object).fillna("").to_numpy()
    keys = pd.DataFrame({"provider": providers, "model": models, "day": times // _NS_PER_DAY})
    codes = keys.groupby(["provider", "model", "day"]).ngroup().to_numpy()
    order = np.argsort(codes, kind="stable")
    for group in np.split(order, np.flatnonzero(np.diff(codes[order])) + 1):
        rows = group[has_usage[group]]
        if len(rows) == 0:
            continue
        provider, model = str(providers[rows[0]]), str(models[rows[0]])
        first = int(times[rows[0]])
        table = book.table(provider, model, first) if model else None
        if table is None:
            cost[rows] = math.nan
            priced[rows] = False
            continue
        if not book.whole_day(provider, model, first):
            # prices that change within the day (off-peak hours): each call on its own
            for i in rows:
                rates = book.rates(provider, model, int(times[i]), int(inclusive[i]))
                assert rates is not None
                cost[i] = rates.request + sum(
                    counts[name][i] * getattr(rates, field)
                    for name, field in _RATE_FIELDS
                    if counts[name][i]
                )
                source[i] = rates.source
        else:
            # A request pays the last tier whose start its inclusive input is strictly above,
            # on all of its tokens (genai-prices' cliff tiers; see _prices.Rates).
            starts = np.array([r.tier_start for r in table.tiers], dtype=np.float64)
            tier = np.maximum(np.searchsorted(starts, inclusive[rows], side="left") - 1, 0)
            for index, rates in enumerate(table.tiers):
                at = rows[tier == index]
                if len(at) == 0:
                    continue
                total = np.full(len(at), rates.request, dtype=np.float64)
                for name, field in _RATE_FIELDS:
                    tokens = counts[name][at]
                    # no tokens at an unknown (NaN) price cost nothing, not NaN
                    total += np.where(tokens > 0, tokens * getattr(rates, field), 0.0)
                cost[at] = total
                source[at] = rates.source
        priced[rows[np.isnan(cost[rows])]] = False
    return cost, priced, source


def read_costs(
    logs: Logs,
    *,
    prices: PriceSource = None,
    skip_damaged: bool = False,
    progress: Callable[[str], None] | None = None,
    workers: int | None = None,
) -> CostTables:
    """Read logs once into the three cost frames.

    Args:
        logs: a log's path, a directory (its ``*.jsonl``, recursively, sorted), a glob, a
            ``Session``, or an iterable of these. A transcript (``agentloop run``'s output) and
            the session it came from may both be given: a run read twice is counted once (the
            first read is kept; a transcript's reported cost is checked either way).
        prices: a ``PriceBook``, a price file (JSON or TOML), or ``Prices`` by model id; the
            file wins over genai-prices. Default: genai-prices alone.
        skip_damaged: when true, a log that cannot be read is skipped and listed in
            ``skipped`` instead of raising.
        progress: called with each log's name once it has been read (for a progress bar).
        workers: how many processes read the logs. Default: one per available core (at
            most ``MAX_WORKERS``) when there are at least ``PARALLEL_FROM`` files, else 1 (a
            process pool costs more than it saves on a few files). The tables are the same
            whatever the number: logs are taken in order.

    Returns:
        ``CostTables`` with ``model_calls``, ``runs`` and ``tool_calls`` (columns in
        ``COLUMNS``), ``skipped`` and every warning given.

    Raises:
        LogError, OSError: a log cannot be read (unless ``skip_damaged``).
        UsageConventionError: a log gives a negative token count (unless ``skip_damaged``).
        FileNotFoundError: a path or glob names nothing.
        PriceFileError: the price file cannot be used.

    Warns:
        CostMismatchWarning: a transcript's ``cost_usd`` and the computed cost of its run
            differ by more than 1%; and the reader's warnings (``SessionToolsWarning``).
    """
    book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
    builder = _Builder()
    skipped: list[SkippedLog] = []
    said: list[str] = []
    items = find_logs(logs)
    paths = [os.fspath(item) for item in items if not isinstance(item, Session)]
    with _log_reads(paths, workers) as reads:
        for item in items:
            if isinstance(item, Session):
                builder.add(_LogRows(item.name, item.runs, item.closing_line))  # may raise
                said.extend(item.warnings)
                if progress is not None:
                    progress(item.name)
                continue
            read = next(reads)
            name = read.name
            try:
                if read.error is not None:
                    raise read.error
                assert read.rows is not None
                builder.add(read.rows)
            except (LogError, UsageConventionError, OSError) as e:
                if not skip_damaged:
                    raise
                problem = f"{name}: cannot read: {e}" if isinstance(e, OSError) else str(e)
                skipped.append(SkippedLog(name, problem))
            for category, message in read.warnings:
                said.append(message)
                warnings.warn(category(message), stacklevel=2)
            if progress is not None:
                progress(name)
    calls, runs_frame, tools = builder.frames(book)
    said.extend(_check_reported(runs_frame))
    return CostTables(calls, runs_frame, tools, tuple(skipped), tuple(said))


#: ``read_costs`` reads in several processes from this many files on (see ``workers``).
PARALLEL_FROM = 32
#: ... and with at most this many processes.
MAX_WORKERS = 8


@dataclass(frozen=True, slots=True)
class _LogRead:
    """One log read into rows, in whichever process read it; or what went wrong."""

    name: str
    rows: _LogRows | None
    warnings: tuple[tuple[type[Warning], str], ...]
    error: LogError | UsageConventionError | OSError | None


def _read_log(name: str) -> _LogRead:
    """Read one log; what goes wrong is returned, to be raised (or skipped) in order."""
    rows = None
    error: LogError | UsageConventionError | OSError | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        try:
            with LogReader(name, name=name) as log:
                runs_read = list(iter_runs(log, SessionFold(name)))
            rows = _LogRows(name, runs_read, log.closing_line)
        except (LogError, UsageConventionError, OSError) as e:
            error = e
    said = tuple((w.category, str(w.message)) for w in caught)
    return _LogRead(name, rows, said, error)


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def _log_reads(paths: list[str], workers: int | None) -> Iterator[Iterator[_LogRead]]:
    """Each of ``paths`` read, in order: here, or by a pool of processes."""
    if workers is None:
        workers = min(_available_cores(), MAX_WORKERS) if len(paths) >= PARALLEL_FROM else 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if workers == 1 or len(paths) < 2:
        yield map(_read_log, paths)
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        chunk = max(1, min(16, len(paths) // (workers * 4)))
        yield pool.map(_read_log, paths, chunksize=chunk)


def _check_reported(runs: pd.DataFrame) -> Iterator[str]:
    """A warning for each transcript whose reported cost is more than 1% off the computed."""
    reported = runs[runs["reported_cost_usd"].notna()]
    for session, run_index, start_seq, cost, expected, unpriced in zip(
        reported["session"].tolist(),
        reported["run_index"].tolist(),
        reported["run_start_seq"].tolist(),
        reported["cost_usd"].tolist(),
        reported["reported_cost_usd"].tolist(),
        reported["unpriced_calls"].tolist(),
        strict=True,
    ):
        difference = abs(cost - expected)
        if difference > 0.01 * max(abs(expected), abs(cost)):
            message = (
                f"{session}: run {run_index} (seq {start_seq}): the transcript says it cost "
                f"${expected:.6f}, the computed cost is ${cost:.6f}"
            )
            if unpriced:
                message += f" (a lower bound: {unpriced} calls unpriced)"
            warnings.warn(CostMismatchWarning(message), stacklevel=3)
            yield message


def model_calls(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per model call of ``logs``, priced (see ``read_costs``)."""
    return read_costs(logs, prices=prices).model_calls


def runs(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per run of ``logs``, priced (see ``read_costs``)."""
    return read_costs(logs, prices=prices).runs


def tool_calls(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per tool call of ``logs``, with the cost of the model calls it made."""
    return read_costs(logs, prices=prices).tool_calls


def cost_by(calls: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Cost and tokens of a ``model_calls`` frame grouped by any of ``session``, ``run``
    (session and run index), ``day`` (the UTC day of the call), ``model``, ``provider`` and
    ``tool`` (the agent's own turns have no tool: NA).

    Returns:
        One row per group, sorted by the groups: the group columns, ``calls``, the token sums,
        ``cost_usd`` (the sum over priced calls; NaN when no call of the group could be
        priced), ``unpriced_calls``, ``unpriced_models`` (a sorted tuple) and ``lower_bound``
        (the real cost is at least ``cost_usd``: some calls are unpriced).
        ``frame.attrs["lower_bound"]`` and ``frame.attrs["unpriced_models"]`` say the same of
        the whole.

    Raises:
        ValueError: an unknown group name.
    """
    names = [by] if isinstance(by, str) else list(by)
    keys: list[str] = []
    frame = calls.copy()
    for name in names:
        if name not in GROUPS:
            raise ValueError(f"cannot group by {name!r}: choose from {', '.join(GROUPS)}")
        if name == "run":
            keys += ["session", "run_index"]
        elif name == "day":
            frame["day"] = frame["time"].dt.floor("D")
            keys.append("day")
        else:
            keys.append(name)
    keys = list(dict.fromkeys(keys))
    frame["_cost"] = frame["cost_usd"].where(frame["priced"], 0.0)
    frame["_priced_usage"] = (frame["priced"] & frame["input_tokens"].notna()).astype("int64")
    frame["_unpriced"] = (~frame["priced"]).astype("int64")
    frame["_unpriced_model"] = frame["model"].astype(object).where(~frame["priced"])
    out = (
        frame.groupby(keys, dropna=False, observed=True, sort=True)
        .agg(
            calls=("seq", "size"),
            input_tokens=("input_tokens", "sum"),
            output_tokens=("output_tokens", "sum"),
            cache_read_tokens=("cache_read_tokens", "sum"),
            cache_write_tokens=("cache_write_tokens", "sum"),
            total_tokens=("total_tokens", "sum"),
            cost_usd=("_cost", "sum"),
            unpriced_calls=("_unpriced", "sum"),
            priced_usage=("_priced_usage", "sum"),
            unpriced_models=("_unpriced_model", _models),
        )
        .reset_index()
    )
    for name in ("calls", *_TOKENS, "total_tokens", "unpriced_calls"):
        out[name] = out[name].astype("Int64")
    out["cost_usd"] = out["cost_usd"].astype("float64")
    # nothing in the group could be priced: not known, NaN, never 0
    nothing = (out["priced_usage"] == 0) & (out["unpriced_calls"] > 0)
    out.loc[nothing, "cost_usd"] = math.nan
    out = out.drop(columns="priced_usage")
    out["lower_bound"] = (out["unpriced_calls"] > 0).astype(bool)
    out.attrs["lower_bound"] = bool(out["lower_bound"].any())
    out.attrs["unpriced_models"] = tuple(sorted({m for ms in out["unpriced_models"] for m in ms}))
    return out


def _models(values: pd.Series[Any]) -> tuple[str, ...]:
    return tuple(sorted({str(v) for v in values.dropna()}))
