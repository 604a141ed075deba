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

import io
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
from .._cost.rows import COLUMNS, _no_cycles, _read_log, _Store
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
    "finish_all",
    "kept_values",
    "pick",
    "price_book",
    "read_part",
    "select",
    "summaries",
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

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # its fields in order (a slotted dataclass pickles through ``fields()``, several
        # times slower: a summary a log goes to the client)
        return LogSummary, tuple(getattr(self, name) for name in self.__slots__)


@dataclass(slots=True)
class ReadPart:
    """A partition read: its frames (every read of every run of its logs, logs in order), and
    its logs' summaries. ``warnings``: what pricing said; ``values``: the names each
    ``category`` column holds (by ``frame.column``, sorted)."""

    frames: dict[str, pd.DataFrame]
    logs: list[LogSummary]
    warnings: tuple[tuple[type[Warning], str], ...] = ()
    values: dict[str, list[str]] = field(default_factory=dict)

    def __sizeof__(self) -> int:
        """About the bytes it holds (its frames' columns, a few hundred bytes a run more), which
        Dask weighs to run the tasks that need a part where the part is, rather than move it."""
        frames = sum(int(f.memory_usage(index=False).sum()) for f in self.frames.values())
        return frames + 300 * sum(len(log.identities) + 1 for log in self.logs)


def _open(
    source: StoredLog, storage_options: dict[str, Any], filesystems: dict[str, Any]
) -> tuple[Any, Any]:
    """The log open for reading (what to close, and what to read), through fsspec (its file
    system made once a partition, in ``filesystems``; ``storage_options`` are for a store's,
    not for local files). A local file is read through the file fsspec opened (its
    ``LocalFileOpener``'s own), line by line in C."""
    import fsspec
    from fsspec.core import split_protocol
    from fsspec.implementations.local import LocalFileOpener

    protocol, path = split_protocol(source.url)
    protocol = protocol or "file"
    fs = filesystems.get(protocol)
    if fs is None:
        local = protocol in ("file", "local")
        fs = filesystems[protocol] = fsspec.filesystem(
            protocol, **({} if local else storage_options)
        )
    opened = fs.open(path, "rb")
    inner = getattr(opened, "f", None)
    if isinstance(opened, LocalFileOpener) and isinstance(inner, io.IOBase):
        return opened, inner  # the opener holds it open: keep both
    return opened, opened


def read_part(
    sources: Sequence[tuple[int, StoredLog]],
    storage_options: dict[str, Any],
    prices: tuple[str, dict[str, Prices], bool],
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> ReadPart:
    """Read a partition's logs (each ``(position, source)``) into a ``ReadPart``. A log that
    cannot be read is kept in its summary with its error (``LogError``, ``OSError``,
    ``UsageConventionError``), to be raised or skipped on the client, in the logs' order."""
    with _no_cycles():  # reading makes many objects and no cycles (as a pool worker reads)
        return _read_part(sources, storage_options, prices, max_line_bytes)


def _read_part(
    sources: Sequence[tuple[int, StoredLog]],
    storage_options: dict[str, Any],
    prices: tuple[str, dict[str, Prices], bool],
    max_line_bytes: int | None,
) -> ReadPart:
    store = _Store()
    builder = _Builder(once=False)
    logs: list[LogSummary] = []
    filesystems: dict[str, Any] = {}
    for position, source in sources:
        if source.error is not None:
            logs.append(LogSummary(position, source.name, source.error, ()))
            continue
        try:
            opened = _open(source, storage_options, filesystems)
        except OSError as e:
            logs.append(LogSummary(position, source.name, _os_error(e, source), ()))
            continue
        with opened[0]:
            read = _read_log(
                LogStream(opened[1], source.name), max_line_bytes=max_line_bytes, store=store
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
    frames = {"model_calls": calls, "runs": runs, "tool_calls": tools}
    return ReadPart(frames, logs, said, _values(frames))


def _os_error(error: OSError, source: StoredLog) -> OSError:
    """An error opening a log, as reading a path says it (``name: cannot read: why``)."""
    if not error.filename:
        error.filename = source.name
    return error


def summaries(
    part: ReadPart,
) -> tuple[list[LogSummary], tuple[tuple[type[Warning], str], ...], dict[str, list[str]]]:
    """What the client gathers of a part: its logs' summaries, what pricing said, and the names
    each ``category`` column holds."""
    return part.logs, part.warnings, part.values


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


def _rows(part: ReadPart, picks: Picks, frame: str) -> tuple[Any, Any]:
    """Where the rows of ``frame`` of the reads picked are in the part's frame, and where they
    go among all the logs' rows (as the pandas ``read_costs`` numbers them)."""
    logs = part.logs
    counts = {"runs": None, "model_calls": "call_counts", "tool_calls": "tool_counts"}[frame]
    base, local, sizes = [0], [], []
    for summary in logs:
        n = len(summary.identities) if counts is None else sum(getattr(summary, counts))
        base.append(base[-1] + n)
    for k, i in zip(picks.logs, picks.runs, strict=True):
        if counts is None:
            local.append(base[k] + i)
            sizes.append(1)
        else:
            per_run = getattr(logs[k], counts)
            local.append(base[k] + sum(per_run[:i]))
            sizes.append(per_run[i])
    starts = {"runs": picks.run_rows, "model_calls": picks.call_rows, "tool_calls": picks.tool_rows}
    return _ranges(local, sizes), _ranges(starts[frame], sizes)


def select(part: ReadPart, picks: Picks, frame: str) -> pd.DataFrame:
    """The rows of ``frame`` of the reads picked, in their order, its index their places among
    all the logs' rows; in ``runs``, the reported costs the client found."""
    rows, index = _rows(part, picks, frame)
    whole = part.frames[frame]
    if len(rows) == len(whole) and bool((rows == np.arange(len(rows))).all()):
        taken = whole.copy(deep=False)  # every read kept, in order (no copy among them)
    else:
        taken = whole.take(rows)
    taken.index = pd.Index(index, dtype=np.int64)
    if frame == "runs":
        taken["reported_cost_usd"] = np.asarray(picks.reported_cost_usd, dtype=np.float64)
    return taken


def _values(frames: dict[str, pd.DataFrame]) -> dict[str, list[str]]:
    return {
        f"{frame}.{name}": sorted({str(v) for v in frames[frame][name].dropna().unique()})
        for frame, columns in COLUMNS.items()
        for name, dtype in columns.items()
        if dtype == "category"
    }


def kept_values(part: ReadPart, picks: Picks) -> dict[str, list[str]]:
    """The names each ``category`` column holds in the reads picked (for a part some of whose
    reads are dropped: its own ``values`` may hold names only those had)."""
    return _values({frame: select(part, picks, frame) for frame in COLUMNS})


def finish(
    part: ReadPart, picks: Picks, frame: str, categories: dict[str, list[str]]
) -> pd.DataFrame:
    """One frame of a partition: the reads picked (``select``), each ``category`` column with
    the categories of all partitions (``categories``, by ``frame.column``: sorted, as the
    pandas frames have them)."""
    out = select(part, picks, frame)
    for name, dtype in COLUMNS[frame].items():
        if dtype == "category":
            out[name] = out[name].cat.set_categories(pd.Index(categories[f"{frame}.{name}"]))
    return out


def finish_all(
    part: ReadPart, picks: Picks, categories: dict[str, list[str]]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A partition's three frames (``finish``): ``model_calls``, ``runs``, ``tool_calls``; one
    task a partition, not three (the scheduler and the gather pay by the task)."""
    return (
        finish(part, picks, "model_calls", categories),
        finish(part, picks, "runs", categories),
        finish(part, picks, "tool_calls", categories),
    )


def pick(frames: tuple[pd.DataFrame, ...], frame: int) -> pd.DataFrame:
    """One of a partition's frames made already (``finish_all``), as ``dd.from_map`` takes it."""
    return frames[frame]


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
