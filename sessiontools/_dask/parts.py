"""What a Dask worker does: read one partition of logs into cost frames (``read_part``), keep
the reads the client chose (``select``), and give the frames their final categories
(``finish``). Runs in the worker's process; numpy, pandas and fsspec are imported here.

A partition's logs are read one by one in the worker's process (never forked: a Dask worker
runs tasks in threads), each through fsspec and the pandas ``read_costs``'s reader
(``sessiontools._cost.rows._read_log`` on the stream, with one ``_Store`` per partition, as a
pool worker of the pandas engine reads its chunk), into a ``_Builder`` that keeps every read
of every run (``once=False``): which read of a run read in several partitions counts is the
client's choice, made for all partitions at once (``sessiontools._dask.costs``). The
partition's rows are priced with the worker's ``PriceBook``, made once per worker process
and set of prices (``price_book``), and made into the pandas frames.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._cost.build import _Builder
from .._cost.frames import _frames
from .._cost.price_book import PriceBook
from .._cost.price_file import Prices
from .._cost.rows import COLUMNS, _read_log, _Store
from .._errors import SessionToolsWarning
from .._log.reader import MAX_LINE_BYTES
from .._log.sources import LogStream
from .sources import StoredLog

__all__ = [
    "LogSummary",
    "Picks",
    "ReadPart",
    "books_made",
    "empty",
    "finish",
    "price_book",
    "read_part",
    "select",
    "summaries",
    "values",
]

#: The price books of this worker process, by the client's token for their prices; each with
#: a lock (a book is not thread-safe, and a worker may run several tasks at once in threads).
_BOOKS: dict[str, tuple[PriceBook, threading.Lock]] = {}
_BOOKS_LOCK = threading.Lock()


def price_book(token: str, prices: dict[str, Prices], genai_prices: bool) -> tuple[PriceBook, Any]:
    """This process's book for the prices the client's ``token`` stands for: made on first use,
    then kept, so that genai-prices is asked once per worker, not once per partition."""
    with _BOOKS_LOCK:
        found = _BOOKS.get(token)
        if found is None:
            found = _BOOKS[token] = (
                PriceBook(prices or None, genai_prices=genai_prices),
                threading.Lock(),
            )
        return found


def books_made() -> int:
    """How many price books this process has made (one per set of prices)."""
    return len(_BOOKS)


@dataclass(slots=True)
class LogSummary:
    """One log of a partition as the client needs it to choose which reads count: where it
    is among all the logs, what went wrong, its warnings, and for each of its runs the identity,
    end seq, rows and what the cost check needs (run index, first seq, cost, unpriced calls)."""

    position: int
    name: str
    error: Exception | None
    warnings: tuple[tuple[type[Warning], str], ...]
    identities: list[tuple[bytes, bytes | None]] = field(default_factory=list)
    end_seqs: list[int] = field(default_factory=list)
    reported_cost_usd: float | None = None
    call_counts: list[int] = field(default_factory=list)
    tool_counts: list[int] = field(default_factory=list)
    run_indexes: list[int] = field(default_factory=list)
    run_start_seqs: list[int] = field(default_factory=list)
    cost_usd: list[float] = field(default_factory=list)
    unpriced_calls: list[int] = field(default_factory=list)


@dataclass(slots=True)
class ReadPart:
    """A partition read: its frames (every read of every run of its logs, logs in order), and
    its logs' summaries. ``warnings``: what pricing said."""

    frames: dict[str, pd.DataFrame]
    logs: list[LogSummary]
    warnings: tuple[tuple[type[Warning], str], ...] = ()


def _open(source: StoredLog, storage_options: dict[str, Any]) -> Any:
    from fsspec.core import url_to_fs

    fs, path = url_to_fs(source.url, **storage_options)
    return fs.open(path, "rb")


def read_part(
    sources: Sequence[tuple[int, StoredLog]],
    storage_options: dict[str, Any],
    prices: tuple[str, dict[str, Prices], bool],
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> ReadPart:
    """Read a partition's logs (each ``(position, source)``) into a ``ReadPart``. A log that
    cannot be read is kept in its summary with its error (``LogError``, ``OSError``,
    ``UsageConventionError``), to be raised or skipped on the client, in the logs' order."""
    store = _Store()
    builder = _Builder(once=False)
    logs: list[LogSummary] = []
    for position, source in sources:
        if source.error is not None:
            logs.append(LogSummary(position, source.name, source.error, ()))
            continue
        try:
            opened = _open(source, storage_options)
        except OSError as e:
            logs.append(LogSummary(position, source.name, _os_error(e, source), ()))
            continue
        with opened:
            read = _read_log(
                LogStream(opened, source.name), max_line_bytes=max_line_bytes, store=store
            )
        summary = LogSummary(position, read.name, read.error, read.warnings)
        logs.append(summary)
        if read.error is not None or read.rows is None:
            continue
        rows = read.rows
        summary.identities = [(i.start, i.first_call) for i in rows.identities]
        summary.end_seqs = list(rows.end_seqs)
        summary.reported_cost_usd = rows.reported_cost_usd
        summary.call_counts = list(rows.call_counts)
        summary.tool_counts = list(rows.tool_counts)
        builder.add(rows)
    token, table, genai = prices
    book, lock = price_book(token, table, genai)
    with lock, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        built = builder.priced(book)
        calls, runs, tools = _frames(built, book)
    said = tuple((w.category, str(w.message)) for w in caught)
    # every read is a run of its own here, in the logs' order: the runs frame's rows follow
    run_index = runs["run_index"].to_numpy(dtype=np.int64).tolist()
    run_start = runs["run_start_seq"].to_numpy(dtype=np.int64).tolist()
    cost = runs["cost_usd"].to_numpy(dtype=np.float64).tolist()
    unpriced = runs["unpriced_calls"].to_numpy(dtype=np.int64).tolist()
    row = 0
    for summary in logs:
        n = len(summary.identities)
        summary.run_indexes = run_index[row : row + n]
        summary.run_start_seqs = run_start[row : row + n]
        summary.cost_usd = cost[row : row + n]
        summary.unpriced_calls = unpriced[row : row + n]
        row += n
    return ReadPart({"model_calls": calls, "runs": runs, "tool_calls": tools}, logs, said)


def _os_error(error: OSError, source: StoredLog) -> OSError:
    """An error opening a log, as reading a path says it (``name: cannot read: why``)."""
    if not error.filename:
        error.filename = source.name
    return error


def summaries(part: ReadPart) -> tuple[list[LogSummary], tuple[tuple[type[Warning], str], ...]]:
    """What the client gathers of a part: its logs' summaries and what pricing said."""
    return part.logs, part.warnings


@dataclass(frozen=True, slots=True)
class Picks:
    """The reads of a partition that count, from the client: for each, the log (its index
    among the partition's logs) and the run (its index among the log's), where the run is
    among all the runs counted (``run_rows``, and its first model call and tool call row:
    ``call_rows``, ``tool_rows``), and the cost a transcript reported for it (NaN: none)."""

    logs: list[int]
    runs: list[int]
    run_rows: list[int]
    call_rows: list[int]
    tool_rows: list[int]
    reported_cost_usd: list[float]


def _ranges(starts: Any, counts: Any) -> Any:
    """The concatenation of ``range(start, start + count)`` for each pair, as one array."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    shift = np.repeat(np.asarray(starts, dtype=np.int64) - (ends - counts), counts)
    return np.arange(total, dtype=np.int64) + shift


def select(part: ReadPart, picks: Picks) -> tuple[dict[str, pd.DataFrame], dict[str, list[str]]]:
    """The rows of the reads picked, each frame's index its rows' place among all the logs'
    (as the pandas ``read_costs`` numbers them), with the reported costs the client found;
    and the values each ``category`` column holds (to be made the same in every partition)."""
    logs = part.logs
    run_base, call_base, tool_base = [0], [0], [0]
    for summary in logs:
        run_base.append(run_base[-1] + len(summary.identities))
        call_base.append(call_base[-1] + sum(summary.call_counts))
        tool_base.append(tool_base[-1] + sum(summary.tool_counts))
    local_run, local_call, local_tool, call_n, tool_n = [], [], [], [], []
    for k, i in zip(picks.logs, picks.runs, strict=True):
        summary = logs[k]
        local_run.append(run_base[k] + i)
        local_call.append(call_base[k] + sum(summary.call_counts[:i]))
        local_tool.append(tool_base[k] + sum(summary.tool_counts[:i]))
        call_n.append(summary.call_counts[i])
        tool_n.append(summary.tool_counts[i])
    frames = part.frames
    out = {
        "runs": _take(frames["runs"], local_run, picks.run_rows),
        "model_calls": _take(
            frames["model_calls"], _ranges(local_call, call_n), _ranges(picks.call_rows, call_n)
        ),
        "tool_calls": _take(
            frames["tool_calls"], _ranges(local_tool, tool_n), _ranges(picks.tool_rows, tool_n)
        ),
    }
    out["runs"]["reported_cost_usd"] = np.asarray(picks.reported_cost_usd, dtype=np.float64)
    values = {
        f"{frame}.{name}": sorted({str(v) for v in out[frame][name].dropna().unique()})
        for frame, columns in COLUMNS.items()
        for name, dtype in columns.items()
        if dtype == "category"
    }
    return out, values


def values(selected: tuple[dict[str, pd.DataFrame], dict[str, list[str]]]) -> dict[str, list[str]]:
    """What the client gathers of a selected partition: its category columns' values."""
    return selected[1]


def _take(frame: pd.DataFrame, rows: Any, index: Any) -> pd.DataFrame:
    taken = frame.take(np.asarray(rows, dtype=np.int64))
    taken.index = pd.Index(np.asarray(index, dtype=np.int64))
    return taken


def finish(
    selected: tuple[dict[str, pd.DataFrame], dict[str, list[str]]],
    frame: str,
    categories: dict[str, list[str]],
) -> pd.DataFrame:
    """One frame of a selected partition, each ``category`` column with the categories of all
    partitions (``categories``, by ``frame.column``: sorted, as the pandas frames have them)."""
    out = selected[0][frame].copy()
    for name, dtype in COLUMNS[frame].items():
        if dtype == "category":
            wanted = pd.CategoricalDtype(pd.Index(categories[f"{frame}.{name}"]))
            out[name] = out[name].astype(object).astype(wanted)
    return out


def empty(frame: str, categories: dict[str, list[str]]) -> pd.DataFrame:
    """A frame with no rows and the columns and dtypes of ``finish``'s (Dask's ``meta``)."""
    data: dict[str, Any] = {}
    for name, dtype in COLUMNS[frame].items():
        if dtype == "category":
            wanted: Any = pd.CategoricalDtype(pd.Index(categories[f"{frame}.{name}"]))
        else:
            wanted = dtype
        data[name] = pd.Series([], dtype=wanted)
    return pd.DataFrame(data, index=pd.Index([], dtype=np.int64))
