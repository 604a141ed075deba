"""Cost tables: logs to priced pandas frames (``read_costs``, ``model_calls``, ``runs``,
``tool_calls``) and their groups (``cost_by``); the cost exporter, after ``rows``
(docs/costs.md, "Frames").

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
lower bound (``cost_by``, and ``unpriced_calls`` in ``runs`` and ``tool_calls``). A run read
twice (a session and its transcript, copies) is counted once (docs/costs.md, "Runs read
twice").

Rows are built column by column (one list per column), never as a dict per row, and priced
vectorised per (provider, model, UTC day, tier).
"""

from __future__ import annotations

import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import pandas as pd

from .._errors import (
    CostMismatchWarning,
    LogError,
    OutOfRangeError,
    UsageConventionError,
)
from .._log.decode import INT64_MAX
from .._log.limits import check_run
from .._log.reader import MAX_LINE_BYTES
from .._log.sources import DirectoryError, find_logs
from .._model.session import Session
from .names import GROUPS
from .price_book import PriceBook
from .price_file import Prices
from .rows import _TIME, _TOKENS, COLUMNS, LogReads, Logs, _Columns, _LogRows

__all__ = [
    "COLUMNS",
    "GROUPS",
    "CostMismatchWarning",
    "CostTables",
    "Logs",
    "PriceSource",
    "SkippedLog",
    "cost_by",
    "cost_tables",
    "find_logs",
    "model_calls",
    "read_costs",
    "runs",
    "tool_calls",
    "usd_text",
]

#: The prices ``read_costs`` takes: a ``PriceBook``, a price file, or ``Prices`` by model id.
PriceSource: TypeAlias = "PriceBook | str | os.PathLike[str] | Mapping[str, Prices] | None"

_NS_PER_DAY = 86_400_000_000_000
_RATE_FIELDS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_tokens", "cache_read"),
    ("cache_write_tokens", "cache_write"),
)


def usd_text(value: float) -> str:
    """US dollars for a person, rounded for display only: six decimals (``0.004599``), more
    when a cost is so small that six would show fewer than three significant digits
    (``0.0000000500`` for $5e-8), and beyond twelve decimals scientific notation
    (``1.00e-15``). A cost above zero is never shown as zero; zero is ``0.000000``."""
    if value == 0:
        return "0.000000"
    if not math.isfinite(value):
        return str(value)
    decimals = max(6, 2 - math.floor(math.log10(abs(value))))
    if decimals > 12:
        return f"{value:.2e}"
    return f"{value:.{decimals}f}"


@dataclass(frozen=True, slots=True)
class SkippedLog:
    """A log ``read_costs`` could not read and skipped: its name and why (one line)."""

    name: str
    problem: str


@dataclass(frozen=True, slots=True)
class CostTables:
    """What ``read_costs`` read: the three frames, the logs it skipped, its warnings, and the
    logs that were copies of others (``copies``: names, in the order given; each held only
    runs counted from another log given, so nothing of them was counted twice)."""

    model_calls: pd.DataFrame
    runs: pd.DataFrame
    tool_calls: pd.DataFrame
    skipped: tuple[SkippedLog, ...]
    warnings: tuple[str, ...]
    copies: tuple[str, ...] = ()


class _Builder:
    """Fills the three frames' columns from the rows of each log, each run once."""

    def __init__(self) -> None:
        self.calls = _Columns("model_calls")
        self.runs = _Columns("runs")
        self.tools = _Columns("tool_calls")
        self.call_run: list[int] = []  # each model call's run row
        self.call_tool: list[int] = []  # each model call's tool call row, -1 for a turn
        self.reported: dict[int, float] = {}  # run row -> the cost a transcript reported
        # Each run once, in the order first read: the read of it that goes furthest.
        self._chosen: list[tuple[_LogRows, int]] = []
        self._by_start: dict[bytes, list[int]] = {}  # RunIdentity.start -> runs there
        # every log added, in order: its name, and for each run the run it is and its end seq
        self._logs: list[tuple[str, list[tuple[int, int]]]] = []

    def add(self, log: _LogRows) -> None:
        """The rows of one log (a session, a run's transcript, a copy taken at any moment).

        The same run read twice is one run (docs/costs.md, "Runs read twice";
        ``RunIdentity.same_run``: the same ``run_started`` entry, and the same first model call or
        none yet in one of the reads). Its rows come from the read that goes furthest (the greater
        ``seq`` at its end; the first read on a tie), which holds every model call of the other.
        """
        held: list[tuple[int, int]] = []
        self._logs.append((log.name, held))
        for i, identity in enumerate(log.identities):
            same = None
            for row in self._by_start.get(identity.start, ()):
                kept, j = self._chosen[row]
                if identity.same_run(kept.identities[j]):
                    same = row
                    break
            if same is None:
                same = len(self._chosen)
                self._by_start.setdefault(identity.start, []).append(same)
                self._chosen.append((log, i))
            else:
                kept, j = self._chosen[same]
                if log.end_seqs[i] > kept.end_seqs[j]:
                    self._chosen[same] = (log, i)
            held.append((same, log.end_seqs[i]))
            if i == len(log.identities) - 1 and log.reported_cost_usd is not None:
                # A transcript holds one run's entries; its closing line prices that run.
                self.reported[same] = log.reported_cost_usd

    def copies(self) -> list[str]:
        """The logs that are copies of another log given, in the order given.

        A log is a copy when one other log holds each of its runs, as far or further (a byte
        copy, a copy taken earlier, the transcript of one of its runs); of logs that hold the
        same runs equally far, the first given is not a copy and the others are. A log with no
        run is no copy. Nothing of a copy is counted twice (see ``add``), whichever read of
        each run is counted.
        """
        ends: list[dict[int, int]] = []  # per log: run -> the furthest end seq it holds
        for _, held in self._logs:
            furthest: dict[int, int] = {}
            for run, end in held:
                furthest[run] = max(end, furthest.get(run, end))
            ends.append(furthest)
        copy = [False] * len(ends)
        first: dict[frozenset[tuple[int, int]], int] = {}
        holders: dict[int, list[int]] = {}  # run -> the logs holding it (one per content)
        distinct: list[int] = []
        for k, furthest in enumerate(ends):
            if not furthest:
                continue
            key = frozenset(furthest.items())
            if key in first:
                copy[k] = True  # the same runs as an earlier log, as far
                continue
            first[key] = k
            distinct.append(k)
            for run in furthest:
                holders.setdefault(run, []).append(k)
        for k in distinct:
            furthest = ends[k]
            others: set[int] | None = None
            for run in sorted(furthest, key=lambda r: len(holders[r])):  # rarest first
                here = {m for m in holders[run] if m != k and ends[m][run] >= furthest[run]}
                others = here if others is None else others & here
                if not others:
                    break
            # another log's content holds all of this one's, and differs: it holds more
            copy[k] = bool(others)
        return [name for (name, _), is_copy in zip(self._logs, copy, strict=True) if is_copy]

    def _assemble(self) -> None:
        """The columns, from the chosen reads, a run after another (consecutive runs of one
        log in one go)."""
        segments: list[tuple[_LogRows, int, int]] = []
        for log, i in self._chosen:
            if segments and segments[-1][0] is log and segments[-1][2] == i:
                segments[-1] = (log, segments[-1][1], i + 1)
            else:
                segments.append((log, i, i + 1))
        starts: dict[int, tuple[list[int], list[int]]] = {}
        for log, first, end in segments:
            if id(log) not in starts:
                starts[id(log)] = (
                    [0, *itertools.accumulate(log.call_counts)],
                    [0, *itertools.accumulate(log.tool_counts)],
                )
            call_starts, tool_starts = starts[id(log)]
            c0, c1 = call_starts[first], call_starts[end]
            t0, t1 = tool_starts[first], tool_starts[end]
            run_base, tool_base = len(self.runs) - first, len(self.tools) - t0
            for mine, theirs, lo, hi in (
                (self.calls, log.calls, c0, c1),
                (self.runs, log.runs, first, end),
                (self.tools, log.tools, t0, t1),
            ):
                for name, values in mine.data.items():
                    column = theirs.data[name]
                    if column:  # the columns frames() computes are empty until then
                        values.extend(column[lo:hi])
            self.call_run.extend([r + run_base for r in log.call_run[c0:c1]])
            self.call_tool.extend([t + tool_base if t >= 0 else -1 for t in log.call_tool[c0:c1]])

    def frames(self, book: PriceBook) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The three frames, priced; the runs' and tool calls' sums from their model calls."""
        self._assemble()
        calls = _to_frame(self.calls)
        cost, priced, source = _price(calls, book)
        calls["cost_usd"] = cost
        calls["priced"] = priced
        calls["price_source"] = pd.Series(source, dtype="category")
        _match_providers(calls, book)
        priced_cost = np.where(priced, cost, 0.0)
        unpriced = (~priced).astype(np.float64)

        run_rows = np.asarray(self.call_run, dtype=np.int64)
        n_runs = len(self.runs)
        runs = self.runs.data
        for name in (*_TOKENS, "total_tokens"):
            # in integers: a float sum loses counts past 2^53, and one that rounds up to 2^63
            # wraps. A run's counts add up to 2^63-1 at most (sessiontools._log.limits).
            values = calls[name].fillna(0).to_numpy(dtype=np.int64)
            sums = np.zeros(n_runs, dtype=np.int64)
            np.add.at(sums, run_rows, values)
            runs[name] = sums.tolist()
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
        return calls, _to_frame(self.runs), _to_frame(self.tools)


def _match_providers(calls: pd.DataFrame, book: PriceBook) -> None:
    """A model call whose log names no provider (a tool's own model calls) takes the one
    genai-prices matches to its model id (``PriceBook.provider``); NA if none. After pricing,
    which asks genai-prices with the provider the log gives."""
    missing = calls["provider"].isna() & calls["model"].notna()
    if not missing.any():
        return
    models = calls.loc[missing, "model"].astype(object)
    first = calls.loc[missing, "time"].astype("int64").groupby(models.to_numpy()).first()
    matched = {str(m): book.provider(str(m), int(t)) for m, t in first.items()}
    providers = calls["provider"].astype(object)
    providers[missing] = models.map(matched)
    calls["provider"] = providers.astype("category")


def _to_frame(columns: _Columns) -> pd.DataFrame:
    series: dict[str, pd.Series[Any]] = {}
    for name, dtype in COLUMNS[columns.frame].items():
        values = columns.data[name]
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
            # on all of its tokens (genai-prices' cliff tiers; see price_file.Rates).
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
    logs: Logs | LogReads,
    *,
    prices: PriceSource = None,
    skip_damaged: bool = False,
    progress: Callable[[str], None] | None = None,
    workers: int | None = 1,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> CostTables:
    """Read logs once into the three cost frames.

    Args:
        logs: a log's path, a directory (its ``*.jsonl`` and ``*.jsonl.gz``, recursively,
            sorted; one that cannot be listed is a log that cannot be read), a glob, a file
            open in binary mode (standard input: read here, in order), a ``Session``, or an
            iterable of these. A transcript (``agentloop run``'s output), the
            session it came from and copies of it taken at any moment may all be given: a run
            read twice is counted once, from the read that goes furthest (the first on a tie; a
            transcript's reported cost is checked either way). Or the
            ``LogReads`` already started on them (``workers`` is then its own).
        prices: a ``PriceBook``, a price file (JSON or TOML), or ``Prices`` by model id; the
            file wins over genai-prices. Default: genai-prices alone.
        skip_damaged: when true, a log that cannot be read is skipped and listed in
            ``skipped`` instead of raising.
        progress: called with each log's name once it has been read (for a progress bar).
        workers: how many processes read the logs: 1 (the default) reads them here; more
            start a pool of processes (forked where the platform can); ``None`` chooses: one
            per available core (at most ``MAX_WORKERS``) from ``PARALLEL_FROM`` files on, else
            1 (a pool costs more than it saves on a few files). Without a pool, and unless
            ``workers`` is 1, a log of 8 MB or more is read in two processes, cut at a run
            near its middle (``sessiontools._parallel.split``, as ``sessiontools otel`` does).
            ``sessiontools cost`` passes ``None``. In a notebook, whose kernel runs threads,
            forking is best avoided: keep 1. The tables are the same whatever the number: logs
            are taken in order.
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Returns:
        ``CostTables`` with ``model_calls``, ``runs`` and ``tool_calls`` (columns in
        ``COLUMNS``), ``skipped`` and every warning given.

    Raises:
        LogError, OSError: a log cannot be read (unless ``skip_damaged``); an
            ``EntryError`` also for what the frames cannot hold (a negative token count, a
            time before 1970 or after 2262-04-11, a run's token counts adding up past
            2^63-1: ``sessiontools._log.limits``), as ``sessiontools otel`` reports it.
        UsageConventionError, OutOfRangeError: the same in a ``Session`` given (even with
            ``skip_damaged``).
        FileNotFoundError: a path or glob names nothing.
        PriceFileError: the price file cannot be used.

    Warns:
        CostMismatchWarning: a transcript's ``cost_usd`` and the computed cost of its run
            differ by more than 1%; and the reader's warnings (``SessionToolsWarning``).
    """
    started = (
        logs
        if isinstance(logs, LogReads)
        else LogReads(find_logs(logs, keep=(Session,)), workers, max_line_bytes=max_line_bytes)
    )
    builder = _Builder()
    skipped: list[SkippedLog] = []
    said: list[str] = []
    with started as reads:
        book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
        for read in reads:
            if isinstance(read, Session):
                for run in read.runs:  # read by the session library: not checked yet
                    check_run(run, read.name)  # may raise
                builder.add(_LogRows(read.name, read.runs, read.closing_line))  # may raise
                said.extend(read.warnings)
                if progress is not None:
                    progress(read.name)
                continue
            name = read.name
            try:
                if read.error is not None:
                    raise read.error
                assert read.rows is not None
                builder.add(read.rows)
            except (LogError, UsageConventionError, OSError) as e:
                if not skip_damaged:
                    raise
                problem = _problem(name, e)
                skipped.append(SkippedLog(name, problem))
            for category, message in read.warnings:
                said.append(message)
                warnings.warn(category(message), stacklevel=2)
            if progress is not None:
                progress(name)
    return _tables(builder, book, skipped, said)


def cost_tables(
    logs: Iterable[_LogRows],
    *,
    prices: PriceSource = None,
    skipped: Sequence[SkippedLog] = (),
    said: Sequence[str] = (),
) -> CostTables:
    """The cost tables of logs whose runs were read already: what ``read_costs`` makes of
    them, for a reader that makes other things of the same runs in the same read (the HTML
    report reads each log once, for its spans and its costs).

    Args:
        logs: each log's rows, in the order the logs were given: ``_LogRows(name)``, then
            ``add(run)`` for each run as the fold gives it (runs read with
            ``LogReader(..., export=True)``, or checked with ``check_run``), then
            ``close(closing_line)``. As in ``read_costs``, a run read twice (in two logs) is
            counted once, from the read that goes furthest.
        prices: as ``read_costs``.
        skipped: the logs the caller could not read, kept in ``CostTables.skipped``.
        said: the warnings reading them gave, kept in ``CostTables.warnings`` (before the
            ``CostMismatchWarning`` of each transcript whose reported cost is off).

    Raises:
        PriceFileError: the price file cannot be used.

    Warns:
        CostMismatchWarning: as ``read_costs``.
    """
    book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
    builder = _Builder()
    for rows in logs:
        builder.add(rows)
    return _tables(builder, book, skipped, said)


def _tables(
    builder: _Builder, book: PriceBook, skipped: Sequence[SkippedLog], said: Sequence[str]
) -> CostTables:
    """The tables of what ``builder`` holds, priced with ``book``, with the transcripts'
    reported costs checked."""
    calls, runs_frame, tools = builder.frames(book)
    said = [*said, *_check_reported(runs_frame)]
    return CostTables(
        calls, runs_frame, tools, tuple(skipped), tuple(said), tuple(builder.copies())
    )


def _problem(name: str, error: Exception) -> str:
    """Why a log was skipped, in one line: a log error says where; an ``OSError`` its reason
    (``File name too long``, ``Permission denied``), without Python's ``[Errno N]``."""
    if isinstance(error, DirectoryError) or not isinstance(error, OSError):
        return str(error)
    return f"{name}: cannot read: {error.strerror or error}"


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
                f"${usd_text(expected)}, the computed cost is ${usd_text(cost)}"
            )
            if unpriced:
                message += f" (a lower bound: {unpriced} calls unpriced)"
            # the caller of read_costs or cost_tables (through _tables)
            warnings.warn(CostMismatchWarning(message), stacklevel=4)
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
        OutOfRangeError: a token column of ``calls`` adds up (in absolute value) past 2^63-1,
            which no ``Int64`` sum holds: no group's sum, nor the total of all, may wrap.
    """
    _check_sums(calls)
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


def _check_sums(calls: pd.DataFrame) -> None:
    """Raise ``OutOfRangeError`` when a token column adds up past 2^63-1 (module docstring of
    ``sessiontools._log.limits``): a float sum says when that is possible, integers say."""
    for name in (*_TOKENS, "total_tokens"):
        column = calls[name]
        rough = float(np.abs(column.fillna(0).to_numpy(dtype=np.float64)).sum())
        if rough < 2.0**62:  # far from 2^63 whatever the float error
            continue
        exact = sum(abs(int(v)) for v in column.dropna().tolist())
        if exact > INT64_MAX:
            raise OutOfRangeError(
                f"the {name} of these {len(calls)} model calls add up to {exact}, past "
                f"{INT64_MAX} (2^63-1), more than an Int64 sum holds; report fewer logs at once"
            )


def _models(values: pd.Series[Any]) -> tuple[str, ...]:
    return tuple(sorted({str(v) for v in values.dropna()}))
