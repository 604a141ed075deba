"""The cost frames read on a Dask cluster: ``read_on_cluster`` (``sessiontools.dask.read_costs``)
and what ``sessiontools cost --scheduler`` runs (``summarize``, ``connect``); the client's side
(README, "Many machines"; docs/costs.md, "On a Dask cluster").

How a read goes, for logs cut into partitions (``sources.partitions``):

1. **map**: each partition is read on a worker (``parts.read_part``: the pandas reader, one
   process, every read of every run kept, priced, made into the partition's pandas frames),
   and stays there; the client gathers only each log's summary: its runs' identities and how
   far each goes, row counts, errors and warnings, and the names the partition's ``category``
   columns hold.
2. **choose**: the client puts the summaries together in the logs' order with the pandas
   engine's own rule (``_Builder`` over the summaries: a run read in several logs, in any
   partitions, counts once, from the read that goes furthest, the first on a tie; docs/costs.md,
   "Runs read twice"), and finds the copies, the skipped logs, the transcripts' reported costs
   and where each run's rows go among all the rows (the ``Picks`` of each partition).
3. **drop duplicates**: a partition that drops reads (copies of runs counted from another
   read) says which names its ``category`` columns hold in the reads it keeps
   (``parts.kept_values``); each ``category`` column's categories are the union, sorted.
4. **frames**: each partition's three frames are made on its worker, in one task
   (``parts.finish_all``; ``parts.finish`` for each frame: the reads picked, numbered as the
   pandas frames number them, with the common categories), and ``dd.from_map`` over them
   (``parts.pick``: one frame of the three) gives the three Dask DataFrames, with ``meta``
   from ``COLUMNS``; ``CostFrames.compute`` gathers the partitions' frames (one key a
   partition) and puts them together here, sorting only if a run's rows came out of order.
   Computed and sorted by their index, they equal the pandas frames of the same logs row for
   row, dtypes and categories included.

Steps 1 to 3 run when ``read_on_cluster`` is called (as the pandas one reads when called: errors
and warnings come then), and step 4 is started; the frames' partitions stay on the workers until
the frames are dropped.
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import CostMismatchWarning, LogError, UsageConventionError
from .._fast import fast_maker
from .._log.reader import MAX_LINE_BYTES
from .._model.identity import RunIdentity
from .cluster import Connection, SchedulerError
from .sources import StoredLog, find_sources, partitions

if TYPE_CHECKING:
    import dask.dataframe as dd
    from distributed import Client

    from .._cost.build import PriceSource, SkippedLog
    from .._cost.frames import CostTables
    from .._cost.price_book import PriceBook
    from .._cost.report import Summary

__all__ = [
    "FILES_PER_PARTITION",
    "CostFrames",
    "SchedulerError",
    "connect",
    "read_on_cluster",
    "run_summary",
    "summarize",
]

#: How many logs a partition holds by default (fewer once it holds ``PARTITION_BYTES``). A
#: partition costs a worker about 0.1 s beyond its logs (pricing, making the frames), and the
#: scheduler about a millisecond a task: 256 logs of 58 KB read in 0.77 s, 64 in 0.32 s
#: (benchmarks/bench_dask.py's logs, one process).
FILES_PER_PARTITION = 256

_FRAMES = ("model_calls", "runs", "tool_calls")
_identity = fast_maker(RunIdentity)


@dataclass(frozen=True)
class CostFrames:
    """What ``read_costs`` on a cluster read: the three cost frames as Dask DataFrames (the
    columns and dtypes of ``COLUMNS``; each frame's index is its rows' place in the pandas
    frame of the same logs), the logs skipped, the warnings given, and the logs that were copies
    of others (as ``CostTables``)."""

    model_calls: dd.DataFrame
    runs: dd.DataFrame
    tool_calls: dd.DataFrame
    skipped: tuple[SkippedLog, ...] = ()
    warnings: tuple[str, ...] = ()
    copies: tuple[str, ...] = ()
    partitions: int = field(default=0)
    client: Client | None = field(default=None, repr=False, compare=False)
    #: each partition's three frames (a tuple: ``model_calls``, ``runs``, ``tool_calls``),
    #: made already on the workers (``compute`` gathers them)
    futures: tuple[Any, ...] = field(default=(), repr=False, compare=False)

    def compute(self) -> CostTables:
        """The three frames computed (together, one pass, on the client that read them) and
        in the pandas engine's row order (a ``RangeIndex``): ``CostTables``, equal to the
        pandas ``read_costs`` of the same logs."""
        import pandas as pd

        from .._cost.frames import CostTables

        if self.client is not None and self.futures:
            frames = _gather(self.client, self.futures)
        else:
            frames = _compute(self.client, [self.model_calls, self.runs, self.tool_calls])
        ordered = []
        for frame in frames:
            if not frame.index.is_monotonic_increasing:  # in order unless runs moved
                frame = frame.sort_index()
            frame.index = pd.RangeIndex(len(frame))
            ordered.append(frame)
        calls, runs, tools = ordered
        return CostTables(calls, runs, tools, self.skipped, self.warnings, self.copies)


def _gather(client: Client, futures: Sequence[Any], frames: int = 3) -> list[Any]:
    """The first ``frames`` of the three frames, put together here from each partition's
    frames (``futures``: ``parts.finish_all``'s), made already and gathered here."""
    import pandas as pd

    got = client.gather(list(futures))
    return [pd.concat([part[k] for part in got]) for k in range(frames)]


def _compute(client: Client | None, frames: list[dd.DataFrame]) -> list[Any]:
    """``frames`` computed on ``client`` (the one holding their partitions; else the current
    one), each partition sent here and put together here, not first on a worker."""
    import pandas as pd

    if client is None:
        from dask.base import compute

        return list(compute(*frames))
    pieces = [frame.to_delayed() for frame in frames]
    futures = client.compute([d for delayed in pieces for d in delayed])
    got = iter(client.gather(futures))
    out = []
    for delayed in pieces:
        partitions = [next(got) for _ in delayed]
        out.append(pd.concat(partitions))  # a frame has a partition at least
    return out


@dataclass(slots=True)
class _Reads:
    """A log's reads as ``_Builder.add`` takes them, and where its rows are: ``part``, and
    ``log`` among the part's logs."""

    name: str
    identities: list[RunIdentity]
    end_seqs: list[int]
    reported_cost_usd: float | None
    part: int
    log: int
    summary: Any


def _client(client: Client | None) -> Client:
    if client is not None:
        return client
    from distributed import default_client

    try:
        found: Client = default_client()
    except ValueError:
        raise ValueError(
            "no Dask client: start one first (distributed.Client(ADDRESS), or "
            "distributed.Client(distributed.LocalCluster()) on this machine), or pass client="
        ) from None
    return found


def _prices_token(book: PriceBook) -> tuple[str, dict[str, Any], bool]:
    """The book's prices as the workers make their books from them, and a token for them (a
    worker keeps one book per token)."""
    table, genai = book.sources()
    data = pickle.dumps((sorted(table.items()), genai), protocol=5)
    return hashlib.sha256(data).hexdigest(), table, genai


def read_on_cluster(
    logs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    prices: PriceSource = None,
    files_per_partition: int = FILES_PER_PARTITION,
    storage_options: Mapping[str, Any] | None = None,
    skip_damaged: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    client: Client | None = None,
) -> CostFrames:
    """``sessiontools.dask.read_costs`` (its docstring says what it takes and gives)."""
    if max_line_bytes is not None and (max_line_bytes.__class__ is not int or max_line_bytes < 1):
        raise ValueError(
            f"max_line_bytes must be a positive integer or None, not {max_line_bytes!r}"
        )
    from .._cost.price_book import PriceBook  # numpy, when a read starts

    client = _client(client)
    options = dict(storage_options or {})
    sources = find_sources(logs, options)
    groups = partitions(sources, files_per_partition)
    book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
    return _read(client, groups, book, options, skip_damaged, max_line_bytes)


def _read(
    client: Client,
    groups: list[list[tuple[int, StoredLog]]],
    book: PriceBook,
    options: dict[str, Any],
    skip_damaged: bool,
    max_line_bytes: int | None,
) -> CostFrames:
    import dask
    import dask.dataframe as dd

    from .._cost.build import SkippedLog, _Builder, _problem, cost_mismatch
    from . import parts as _parts

    token = os.urandom(8).hex()  # a log read again is read again: it may have grown
    parts = client.map(
        _parts.read_part,
        groups,
        storage_options=options,
        prices=_prices_token(book),
        max_line_bytes=max_line_bytes,
        key=[f"sessiontools-read-part-{token}-{p}" for p in range(len(groups))],
    )
    summaries = client.gather(client.map(_parts.summaries, parts, pure=False))
    builder = _Builder()
    skipped: list[SkippedLog] = []
    said: list[str] = []
    priced_said: list[tuple[type[Warning], str]] = []
    for p, (logs, pricing, _) in enumerate(summaries):
        for k, summary in enumerate(logs):
            if summary.error is not None:
                error = summary.error
                if not skip_damaged or not isinstance(
                    error, (LogError, UsageConventionError, OSError)
                ):
                    client.cancel(parts)
                    raise error
                skipped.append(SkippedLog(summary.name, _problem(summary.name, error)))
            else:
                identities = [_identity(start, first) for start, first in summary.identities]
                builder.add(
                    _Reads(
                        summary.name,
                        identities,
                        summary.end_seqs,
                        summary.reported_cost_usd,
                        p,
                        k,
                        summary,
                    )
                )
            for category, message in summary.warnings:
                said.append(message)
                warnings.warn(category(message), stacklevel=4)
        priced_said.extend(w for w in pricing if w not in priced_said)
    for category, message in priced_said:
        said.append(message)
        warnings.warn(category(message), stacklevel=4)

    picks: list[dict[str, list[Any]]] = [
        {"logs": [], "runs": [], "run_rows": [], "call_rows": [], "tool_rows": [], "reported": []}
        for _ in groups
    ]
    calls = tools = 0
    for row, (reads, i) in enumerate(builder.chosen()):
        summary = reads.summary
        reported = builder.reported.get(row)
        pick = picks[reads.part]
        pick["logs"].append(reads.log)
        pick["runs"].append(i)
        pick["run_rows"].append(row)
        pick["call_rows"].append(calls)
        pick["tool_rows"].append(tools)
        pick["reported"].append(math.nan if reported is None else reported)
        calls += summary.call_counts[i]
        tools += summary.tool_counts[i]
        if reported is not None:
            message = cost_mismatch(
                reads.name,
                summary.run_indexes[i],
                summary.run_start_seqs[i],
                summary.cost_usd[i],
                reported,
                summary.unpriced_calls[i],
            )
            if message is not None:
                said.append(message)
                warnings.warn(CostMismatchWarning(message), stacklevel=4)
    copies = tuple(builder.copies())

    picked = [
        _parts.Picks(
            pick["logs"],
            pick["runs"],
            pick["run_rows"],
            pick["call_rows"],
            pick["tool_rows"],
            pick["reported"],
        )
        for pick in picks
    ]
    # The categories: the names the rows kept hold, in every partition; a partition that keeps
    # every read holds the names it said it held, others are asked (step 3).
    found = {p: values for p, (_, _, values) in enumerate(summaries)}
    dropping = [p for p, (logs, _, _) in enumerate(summaries) if _drops(logs, picked[p])]
    if dropping:
        asked = client.gather(
            client.map(
                _parts.kept_values,
                [parts[p] for p in dropping],
                [picked[p] for p in dropping],
                pure=False,
            )
        )
        found.update(zip(dropping, asked, strict=True))
    categories: dict[str, list[str]] = {}
    for values in found.values():
        for name, names in values.items():
            categories.setdefault(name, []).extend(names)
    categories = {name: sorted(set(names)) for name, names in categories.items()}
    frames = []
    made: list[Any] = []
    if parts:
        # each partition's rows of the three frames, made now, one task a partition (they are
        # small, and go where they are needed; the parts, which are not, go once these are made)
        made = client.map(
            _parts.finish_all,
            parts,
            picked,
            categories=categories,
            pure=False,
            key=[f"sessiontools-frames-{token}-{p}" for p in range(len(parts))],
        )
    with dask.config.set({"dataframe.convert-string": False}):
        for k, name in enumerate(_FRAMES):
            meta = _parts.empty(name, categories)
            if parts:
                frames.append(
                    dd.from_map(
                        _parts.pick,
                        made,
                        args=[k],
                        meta=meta,
                        label=f"sessiontools-{name.replace('_', '-')}",
                        enforce_metadata=False,
                    )
                )
            else:
                frames.append(dd.from_pandas(meta, npartitions=1))
    del parts
    return CostFrames(
        frames[0],
        frames[1],
        frames[2],
        skipped=tuple(skipped),
        warnings=tuple(said),
        copies=copies,
        partitions=len(groups),
        client=client,
        futures=tuple(made),
    )


def _drops(logs: Sequence[Any], picks: Any) -> bool:
    """Whether a partition keeps fewer reads than it read (some are another's copies)."""
    return len(picks.runs) < sum(len(summary.identities) for summary in logs)


def connect(address: str | Connection) -> tuple[Client, Callable[[], None]]:
    """A client of the scheduler at ``address`` (``tcp://host:8786``, ``host:8786``), or of a
    local cluster started here for ``local`` (``cluster.Connection``; or that connection
    opened, which another thread may close meanwhile); and what closes them.

    Raises:
        SchedulerError: the address is not one Dask reads (``usage``), or no scheduler
            answers there; a local cluster that cannot start.
    """
    connection = address if isinstance(address, Connection) else Connection(address)
    try:
        return connection.open(), connection.close
    except BaseException:
        connection.close()
        raise


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]


def summarize(
    client: Client,
    sources: Sequence[StoredLog],
    *,
    by: Sequence[str],
    prices: PriceBook,
    since: int | None,
    until: int | None,
    tz: str,
    max_line_bytes: int | None,
) -> Summary:
    """What ``sessiontools cost --scheduler`` reports: the groups of the model calls of
    ``sources`` (``find_sources``) read on the cluster, as ``sessiontools._cost.report.summarize``
    groups them locally (the same ``group_costs``, over the frame's columns in the pandas
    engine's order, so that every sum adds in the same order), logs that cannot be read
    skipped."""
    import pandas as pd

    from .._cost.frames import call_arrays
    from .._cost.groups import group_costs
    from .._cost.report import Summary, missing_prices

    tables = _read(
        client, partitions(sources, FILES_PER_PARTITION), prices, {}, True, max_line_bytes
    )
    calls = (
        _gather(client, tables.futures, 1)[0]
        if tables.futures
        else _compute(client, [tables.model_calls])[0]
    )
    if not calls.index.is_monotonic_increasing:
        calls = calls.sort_index()
    calls.index = pd.RangeIndex(len(calls))
    arrays = call_arrays(calls).between(since, until)
    groups = group_costs(arrays, list(by), tz)
    return Summary(
        groups,
        tables.skipped,
        tables.copies,
        missing_prices(arrays, prices),
        prices.file_name,
    )


def run_summary(
    address: str | Connection,
    sources: Sequence[StoredLog],
    *,
    by: Sequence[str],
    prices: PriceBook,
    since: int | None,
    until: int | None,
    tz: str,
    max_line_bytes: int | None,
) -> Summary:
    """``sessiontools cost --scheduler ADDRESS``: connect (``Connection``: ``local`` starts a
    cluster here; a ``Connection`` given may be closed from another thread meanwhile, by the
    command's Ctrl-C), ``summarize``, and close what was opened, whatever happens.

    Raises:
        SchedulerError: as ``connect``; and the cluster failing while it reads (a worker lost,
            the connection closed): not a usage error.
    """
    connection = address if isinstance(address, Connection) else Connection(address)
    address = connection.address
    try:
        client = connection.open()
        try:
            return summarize(
                client,
                sources,
                by=by,
                prices=prices,
                since=since,
                until=until,
                tz=tz,
                max_line_bytes=max_line_bytes,
            )
        except (LogError, UsageConventionError, OSError, ValueError, MemoryError):
            raise  # the command says these as it says them without a cluster
        except Exception as e:  # distributed's own: KilledWorker, CommClosedError, ...
            raise SchedulerError(
                f"the cluster at {address} failed while reading: {type(e).__name__}: {_one_line(e)}"
            ) from None
    finally:
        connection.close()
