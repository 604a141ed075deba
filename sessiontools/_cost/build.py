"""The cost tables' columns, from the rows each log was read into, priced, without pandas.

The cost exporter's middle part, between ``rows`` and ``frames``: ``read_rows`` reads logs
(``rows.LogReads``, in a pool of processes or not) into a ``_Builder``, which keeps each run
once (``sessiontools._model.identity``: a run read from several logs counts once, from the
read that goes furthest; docs/costs.md, "Runs read twice"); ``_Builder.priced`` assembles the
columns, prices every model call (``pricing.price_calls``) and adds up the runs' and tool
calls' sums, as arrays: ``Built``. ``read_costs`` turns that into pandas frames (``frames``);
``sessiontools cost`` groups it as it is (``call_arrays``, ``groups``), without loading pandas.
"""

from __future__ import annotations

import array
import itertools
import math
import os
import warnings
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias

import numpy as np

from .._errors import CostMismatchWarning, LogError, SessionToolsWarning, UsageConventionError
from .._log.limits import check_run
from .._log.sources import DirectoryError
from .._model.identity import RunIdentity
from .._model.session import Session
from .groups import CallArrays
from .price_book import PriceBook
from .price_file import Prices
from .pricing import Codes, Priced, match_providers, price_calls
from .rows import _TOKENS, LogReads, _Columns, _LogRows, refused_labels_warning

__all__ = [
    "Built",
    "PriceSource",
    "SkippedLog",
    "call_arrays",
    "read_rows",
    "usd_text",
]

#: The prices ``read_costs`` takes: a ``PriceBook``, a price file, or ``Prices`` by model id.
PriceSource: TypeAlias = "PriceBook | str | os.PathLike[str] | Mapping[str, Prices] | None"


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


@dataclass(slots=True)
class Built:
    """The columns of the three tables, each run once, priced (see ``_Builder.priced``).

    ``calls``, ``runs`` and ``tools`` hold the columns read (lists, as ``_Columns``); the
    arrays are what was computed from them, one value per model call: ``time_ns``,
    ``tokens`` (the four counts and ``total_tokens``, ``int64``, 0 without usage),
    ``has_usage``, ``provider`` and ``model`` (``Codes``; ``provider`` as the log gives it),
    and ``found`` (``price_calls``'s answer). The runs' sums (``run_*``) and the tool calls'
    (``tool_*``) are arrays too, one per run and per tool call.
    """

    calls: _Columns
    runs: _Columns
    tools: _Columns
    time_ns: Any
    tokens: dict[str, Any]
    has_usage: Any
    provider: Codes
    model: Codes
    found: Priced
    run_tokens: dict[str, Any]
    run_cost_usd: Any
    run_cache_savings_usd: Any
    run_unpriced_calls: Any
    run_reported_cost_usd: Any
    tool_cost_usd: Any
    tool_unpriced_calls: Any


class _Reads(Protocol):
    """What ``_Builder.add`` needs of a log to know its runs: its name, each run's identity
    and end seq, and the cost a transcript's closing line reported (``_LogRows`` has them;
    so does a summary of a log read elsewhere, ``sessiontools._dask``)."""

    @property
    def name(self) -> str: ...
    @property
    def identities(self) -> list[RunIdentity]: ...
    @property
    def end_seqs(self) -> list[int]: ...
    @property
    def reported_cost_usd(self) -> float | None: ...


class _Builder:
    """Fills the three frames' columns from the rows of each log, each run once.

    ``once=False`` keeps every read of every run, each its own run (a run read in two logs is
    two): for a reader that puts together the reads of several batches of logs itself
    (``sessiontools._dask``), with a ``_Builder`` of the logs' ``_Reads``."""

    def __init__(self, *, once: bool = True) -> None:
        self.once = once
        self.calls = _Columns("model_calls", assembled=True)
        self.runs = _Columns("runs", assembled=True)
        self.tools = _Columns("tool_calls", assembled=True)
        self.call_run = array.array("q")  # each model call's run row
        self.call_tool = array.array("q")  # each model call's tool call row, -1 for a turn
        self.reported: dict[int, float] = {}  # run row -> the cost a transcript reported
        # Each run once, in the order first read: the read of it that goes furthest.
        self._chosen: list[tuple[Any, int]] = []  # (the log: _LogRows, or _Reads; its run)
        self._by_start: dict[bytes, list[int]] = {}  # RunIdentity.start -> runs there
        # every log added, in order: its name, and for each run the run it is and its end seq
        self._logs: list[tuple[str, list[tuple[int, int]]]] = []

    def add(self, log: _Reads) -> None:
        """The rows of one log (a session, a run's transcript, a copy taken at any moment):
        a ``_LogRows``, or only its ``_Reads`` to learn which reads are kept (``chosen``),
        without assembling the columns.

        The same run read twice is one run (docs/costs.md, "Runs read twice";
        ``RunIdentity.same_run``: the same ``run_started`` entry, and the same first model call or
        none yet in one of the reads). Its rows come from the read that goes furthest (the greater
        ``seq`` at its end; the first read on a tie), which holds every model call of the other.
        """
        held: list[tuple[int, int]] = []
        self._logs.append((log.name, held))
        for i, identity in enumerate(log.identities):
            same = None
            for row in self._by_start.get(identity.start, ()) if self.once else ():
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
        held_by: dict[int, int] = {}  # run -> how many logs hold it
        for furthest in ends:
            for run in furthest:
                held_by[run] = held_by.get(run, 0) + 1
        first: dict[frozenset[tuple[int, int]], int] = {}
        holders: dict[int, list[int]] = {}  # run -> the logs holding it (one per content)
        distinct: list[int] = []
        for k, furthest in enumerate(ends):
            if not any(held_by[run] > 1 for run in furthest):
                continue  # no other log holds a run of it (or it has none): no copy
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

    def chosen(self) -> list[tuple[Any, int]]:
        """Each run once, in the order first read: the log (as added) and the index among its
        runs of the read kept."""
        return list(self._chosen)

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
            store = log.store
            identities = [identity.hex() for identity in log.identities[first:end]]
            for mine, theirs, lo, hi, per_run in (
                (self.calls, store.calls, log.call_base + c0, log.call_base + c1,
                 log.call_counts[first:end]),
                (self.runs, store.runs, log.run_base + first, log.run_base + end, None),
                (self.tools, store.tools, log.tool_base + t0, log.tool_base + t1,
                 log.tool_counts[first:end]),
            ):  # fmt: skip
                data = theirs.data
                for name, values in mine.data.items():
                    if name == "session":
                        values.extend([log.name] * (hi - lo))
                    elif name == "conversation_id":
                        values.extend([log.conversation_id] * (hi - lo))
                    elif name == "run_identity":
                        if per_run is None:
                            values.extend(identities)
                        else:
                            for identity, count in zip(identities, per_run, strict=True):
                                values.extend([identity] * count)
                    else:
                        values.extend(data[name][lo:hi])
            lo, hi = log.call_base + c0, log.call_base + c1
            self.call_run.extend([r + run_base for r in store.call_run[lo:hi]])
            self.call_tool.extend([t + tool_base if t >= 0 else -1 for t in store.call_tool[lo:hi]])

    def priced(self, book: PriceBook) -> Built:
        """The columns, priced; the runs' and tool calls' sums from their model calls."""
        self._assemble()
        data = self.calls.data
        n = len(self.calls)
        has_usage = np.array(data["has_usage"], dtype=bool)
        tokens = {name: np.array(data[name], dtype=np.int64) for name in (*_TOKENS, "total_tokens")}
        counts = {name: tokens[name].astype(np.float64) for name in _TOKENS}
        times = np.array(data["time"], dtype=np.int64)
        provider, model = Codes.of(data["provider"]), Codes.of(data["model"])
        found = price_calls(times, provider, model, counts, has_usage, book)
        priced_cost = np.where(found.priced, found.cost_usd, 0.0)
        unpriced = (~found.priced).astype(np.float64)

        run_rows = np.asarray(self.call_run, dtype=np.int64)
        n_runs = len(self.runs)
        run_tokens = {}
        for name, values in tokens.items():
            # in integers: a float sum loses counts past 2^53, and one that rounds up to 2^63
            # wraps. A run's counts add up to 2^63-1 at most (sessiontools._log.limits).
            sums = np.zeros(n_runs, dtype=np.int64)
            np.add.at(sums, run_rows, values)
            run_tokens[name] = sums
        tool_rows = np.asarray(self.call_tool, dtype=np.int64)
        mask = tool_rows >= 0
        n_tools = len(self.tools)
        assert len(run_rows) == n
        return Built(
            calls=self.calls,
            runs=self.runs,
            tools=self.tools,
            time_ns=times,
            tokens=tokens,
            has_usage=has_usage,
            provider=provider,
            model=model,
            found=found,
            run_tokens=run_tokens,
            run_cost_usd=_sums(run_rows, priced_cost, n_runs),
            # NaN when a call's savings are not known (an unpriced call among them)
            run_cache_savings_usd=_sums(run_rows, found.cache_savings_usd, n_runs),
            run_unpriced_calls=_sums(run_rows, unpriced, n_runs).astype(np.int64),
            run_reported_cost_usd=np.array(
                [self.reported.get(i, math.nan) for i in range(n_runs)], dtype=np.float64
            ),
            tool_cost_usd=_sums(tool_rows[mask], priced_cost[mask], n_tools),
            tool_unpriced_calls=_sums(tool_rows[mask], unpriced[mask], n_tools).astype(np.int64),
        )


def _sums(rows: Any, values: Any, n: int) -> Any:
    return np.bincount(rows, weights=values, minlength=n) if n else np.zeros(0)


def call_arrays(built: Built, book: PriceBook) -> CallArrays:
    """The model calls of ``built`` as ``group_costs`` takes them; each key is made only when
    a grouping asks for it (the providers genai-prices matches to a tool's model calls only
    for ``provider``)."""
    data = built.calls.data
    found = built.found

    def provider() -> Codes:
        return match_providers(built.provider, built.model, built.time_ns, book)

    return CallArrays(
        tokens=built.tokens,
        has_usage=built.has_usage,
        cost_usd=found.cost_usd,
        priced=found.priced,
        cache_savings_usd=found.cache_savings_usd,
        model=built.model,
        time_ns=built.time_ns,
        utc_offset_seconds=np.array(data["utc_offset_seconds"], dtype=np.int64),
        keys={
            "session": lambda: Codes.of(data["session"]),
            "run_index": lambda: np.array(data["run_index"], dtype=np.int64),
            "model": lambda: built.model,
            "priced_as": lambda: found.priced_as,
            "price_source": lambda: found.price_source,
            "provider": provider,
            "tool": lambda: Codes.of(data["tool"]),
            "labels": lambda: data["labels"],
        },
        cost_scale=found.cost_scale,
    )


def read_rows(
    logs: LogReads,
    prices: PriceSource,
    *,
    skip_damaged: bool,
    progress: Callable[[str], None] | None,
    stacklevel: int,
) -> tuple[_Builder, PriceBook, list[SkippedLog], list[str]]:
    """Read ``logs`` (started already) into a ``_Builder``, each run once, and the price book
    (made while the first logs are read). See ``read_costs``.

    Returns:
        The builder, the book, the logs skipped (with ``skip_damaged``), and every warning
        given (each also given as a warning, at ``stacklevel`` above this function's caller).
    """
    builder = _Builder()
    skipped: list[SkippedLog] = []
    said: list[str] = []
    with logs as reads:
        book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
        if reads.idle is None:  # while other processes read: genai-prices' data
            reads.idle = book.warm
        for read in reads:
            if isinstance(read, Session):
                for run in read.runs:  # read by the session library: not checked yet
                    check_run(run, read.name)  # may raise
                rows = _LogRows(read.name, read.runs, read.closing_line)  # may raise
                builder.add(rows)
                said.extend(read.warnings)
                refused = refused_labels_warning(read.name, rows.refused_labels)
                if refused is not None:
                    said.append(refused)
                    warnings.warn(SessionToolsWarning(refused), stacklevel=stacklevel + 1)
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
                warnings.warn(category(message), stacklevel=stacklevel + 1)
            if progress is not None:
                progress(name)
    return builder, book, skipped, said


def _problem(name: str, error: Exception) -> str:
    """Why a log was skipped, in one line: a log error says where; an ``OSError`` its reason
    (``File name too long``, ``Permission denied``), without Python's ``[Errno N]``."""
    if isinstance(error, DirectoryError) or not isinstance(error, OSError):
        return str(error)
    return f"{name}: cannot read: {error.strerror or error}"


def check_reported(built: Built, *, stacklevel: int) -> Iterator[str]:
    """A warning for each transcript whose reported cost is more than 1% off the computed."""
    runs = built.runs.data
    reported = built.run_reported_cost_usd
    for i in np.flatnonzero(~np.isnan(reported)).tolist():
        message = cost_mismatch(
            runs["session"][i],
            runs["run_index"][i],
            runs["run_start_seq"][i],
            float(built.run_cost_usd[i]),
            float(reported[i]),
            int(built.run_unpriced_calls[i]),
        )
        if message is not None:
            warnings.warn(CostMismatchWarning(message), stacklevel=stacklevel + 1)
            yield message


def cost_mismatch(
    session: str, run_index: int, run_start_seq: int, cost: float, expected: float, unpriced: int
) -> str | None:
    """What a ``CostMismatchWarning`` says when a run's computed ``cost`` and the ``expected``
    one its transcript reported differ by more than 1% (of the larger); else ``None``."""
    if not abs(cost - expected) > 0.01 * max(abs(expected), abs(cost)):  # NaN: no warning
        return None
    message = (
        f"{session}: run {run_index} (seq {run_start_seq}): the transcript says it cost "
        f"${usd_text(expected)}, the computed cost is ${usd_text(cost)}"
    )
    if unpriced:
        message += f" (a lower bound: {unpriced} calls unpriced)"
    return message
