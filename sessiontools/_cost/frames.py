"""Cost tables: logs to priced pandas frames (``read_costs``, ``model_calls``, ``runs``,
``tool_calls``) and their groups (``cost_by``); the cost exporter's last library part, after
``rows`` and ``build`` (docs/costs.md, "Frames").

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

Rows are built column by column (``rows``), never as a dict per row, and priced vectorised per
table of prices and tier (``pricing``), without pandas (``build``); this module turns them
into frames. ``cost_by`` groups a frame with ``groups``, the code ``sessiontools cost`` groups
with.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._errors import CostMismatchWarning
from .._log.reader import MAX_LINE_BYTES
from .._log.sources import find_logs
from .._model.session import Session
from .build import Built, PriceSource, SkippedLog, _Builder, check_reported, read_rows, usd_text
from .cache import cache_hit_rate
from .calendar import Zone
from .groups import METRICS, CallArrays, Groups, group_costs, key_columns
from .names import GROUPS
from .price_book import PriceBook
from .pricing import Codes, match_providers
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


def _frames(built: Built, book: PriceBook) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The three frames of what ``_Builder.priced`` computed."""
    found = built.found
    tokens = built.tokens
    missing = ~built.has_usage
    calls = _to_frame(
        built.calls,
        {
            **{
                name: pd.arrays.IntegerArray(tokens[name], missing.copy())
                for name in (*_TOKENS, "total_tokens")
            },
            "time": built.time_ns,
            "provider": _categorical(
                match_providers(built.provider, built.model, built.time_ns, book)
            ),
            "model": _categorical(built.model),
            "cost_usd": found.cost_usd,
            "priced": found.priced,
            "price_source": _categorical(found.price_source),
            "priced_as": _categorical(found.priced_as),
            "cache_hit_rate": cache_hit_rate(
                tokens["input_tokens"], tokens["cache_read_tokens"], tokens["cache_write_tokens"]
            ),
            "cache_savings_usd": found.cache_savings_usd,
        },
    )
    run_tokens = built.run_tokens
    runs_frame = _to_frame(
        built.runs,
        {
            **{name: run_tokens[name] for name in (*_TOKENS, "total_tokens")},
            "cost_usd": built.run_cost_usd,
            "cache_hit_rate": cache_hit_rate(
                run_tokens["input_tokens"],
                run_tokens["cache_read_tokens"],
                run_tokens["cache_write_tokens"],
            ),
            "cache_savings_usd": built.run_cache_savings_usd,
            "unpriced_calls": built.run_unpriced_calls,
            "reported_cost_usd": built.run_reported_cost_usd,
        },
    )
    tools = _to_frame(
        built.tools,
        {"cost_usd": built.tool_cost_usd, "unpriced_calls": built.tool_unpriced_calls},
    )
    return calls, runs_frame, tools


def _codes(column: pd.Series[Any]) -> Codes:
    """A column of names as ``Codes`` (a ``category`` column's own codes, else factorized:
    ``pd.concat`` of frames with different categories gives ``object``)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes, values = column.cat.codes.to_numpy(dtype=np.int64), list(column.cat.categories)
    else:
        found, uniques = pd.factorize(column, use_na_sentinel=True)
        codes, values = np.asarray(found, dtype=np.int64), list(uniques)
    return Codes.sorting(codes, [str(v) for v in values])


def _categorical(codes: Codes) -> pd.Series[Any]:
    """``Codes`` as a ``category`` column."""
    categories = pd.Index(codes.values)
    return pd.Series(pd.Categorical.from_codes(codes.codes, categories=categories))


def _to_frame(columns: _Columns, computed: Mapping[str, Any]) -> pd.DataFrame:
    """A frame of ``COLUMNS[columns.frame]``: each from ``computed`` (arrays, pandas arrays
    or ``category`` series) if there, else from the lists read."""
    series: dict[str, Any] = {}
    for name, dtype in COLUMNS[columns.frame].items():
        values = computed[name] if name in computed else columns.data[name]
        if isinstance(values, array.array):
            values = np.asarray(values)  # a column of numbers as it was read
        if dtype == _TIME:
            series[name] = pd.Series(
                pd.to_datetime(np.asarray(values, dtype=np.int64), unit="ns", utc=True)
            )
        elif dtype == "object":
            column = np.empty(len(values), dtype=object)
            column[:] = values
            series[name] = pd.Series(column, dtype=object)
        elif isinstance(values, pd.Series):
            series[name] = values
        elif dtype == "bool":
            series[name] = pd.Series(np.asarray(values, dtype=bool))
        elif dtype == "category":  # names: codes into the sorted values, as pandas makes them
            series[name] = _categorical(Codes.of(values))
        else:
            series[name] = pd.Series(values, dtype=dtype)
    return pd.DataFrame(series)


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
    builder, book, skipped, said = read_rows(
        started, prices, skip_damaged=skip_damaged, progress=progress, stacklevel=2
    )
    return _tables(builder, book, skipped, said, stacklevel=2)


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
    return _tables(builder, book, skipped, said, stacklevel=2)


def _tables(
    builder: _Builder,
    book: PriceBook,
    skipped: Sequence[SkippedLog],
    said: Sequence[str],
    *,
    stacklevel: int,
) -> CostTables:
    """The tables of what ``builder`` holds, priced with ``book``, with the transcripts'
    reported costs checked (a ``CostMismatchWarning`` at ``stacklevel`` above the caller)."""
    built = builder.priced(book)
    calls, runs_frame, tools = _frames(built, book)
    said = [*said, *check_reported(built, stacklevel=stacklevel + 1)]
    return CostTables(
        calls, runs_frame, tools, tuple(skipped), tuple(said), tuple(builder.copies())
    )


def model_calls(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per model call of ``logs``, priced (see ``read_costs``)."""
    return read_costs(logs, prices=prices).model_calls


def runs(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per run of ``logs``, priced (see ``read_costs``)."""
    return read_costs(logs, prices=prices).runs


def tool_calls(logs: Logs, *, prices: PriceSource = None) -> pd.DataFrame:
    """One row per tool call of ``logs``, with the cost of the model calls it made."""
    return read_costs(logs, prices=prices).tool_calls


def cost_by(calls: pd.DataFrame, by: str | Sequence[str], *, tz: Zone = "UTC") -> pd.DataFrame:
    """Cost and tokens of a ``model_calls`` frame grouped by any of ``session``, ``run``
    (session and run index), ``day``, ``week`` (ISO, ``2026-W43``) and ``month``
    (``2026-10``) of the call in the zone ``tz``, ``model``, ``priced_as`` (the model id the
    price came from: ``gpt-5`` for ``gpt-5-2025-08-07``), ``provider``, ``tool`` (the agent's
    own turns have no tool: NA) and ``label`` (each label the session held at the call's
    entry; a call counts under each of its labels, and a call with none under NA, which
    tables show as ``(none)``), in any combination; ``priced_as`` groups by ``price_source``
    too (the same id from a price file and from genai-prices is two prices).

    A pure function of the frame (``groups.group_costs`` on its columns): what
    ``sessiontools cost`` prints, for any frame with ``COLUMNS["model_calls"]``
    (docs/costs.md, "Grouping").

    Args:
        tz: the zone of ``day``, ``week`` and ``month``: ``"UTC"`` (the default), an IANA
            name (``"Europe/Berlin"``), or ``"log"``: each entry's own UTC offset, as
            agentloop wrote it; or a ``tzinfo`` with a name (``zoneinfo.ZoneInfo``,
            ``datetime.timezone.utc``; ``calendar.zone_name``). Times in the frame stay UTC.

    Returns:
        One row per group, sorted by the groups (no value last): the group columns (text as
        ``string``: a day ``2026-10-18``; ``run_index`` ``Int64``), ``calls``, the token sums,
        ``cost_usd`` (the sum over priced calls; NaN when no call of the group could be
        priced), ``cache_hit_rate``, ``cache_savings_usd`` (``cache``:
        NaN when a price it needs is unknown), ``unpriced_calls``, ``unpriced_models`` (a
        sorted tuple) and ``lower_bound`` (the real cost is at least ``cost_usd``: some calls
        are unpriced). ``frame.attrs``: ``lower_bound`` and ``unpriced_models`` of the whole,
        ``tz``, and ``total``, the same columns over all the calls, each counted once (by
        ``label``, the groups count a call once per label).

    Raises:
        ValueError: an unknown group name or time zone; ``calls`` is not a ``model_calls``
            frame (a ``runs`` or ``tool_calls`` frame, say): the message names the columns
            it lacks and the groups its own columns would allow.
        TypeError: ``tz`` is neither a zone's name nor a zone that has one.
        OutOfRangeError: a token column of ``calls`` adds up (in absolute value) past 2^63-1,
            which no ``Int64`` sum holds: no group's sum, nor the total of all, may wrap.
    """
    names = [by] if isinstance(by, str) else list(by)
    key_columns(names)  # an unknown group first
    _check_model_calls(calls)
    return groups_frame(group_costs(call_arrays(calls), names, tz))


#: The columns of ``model_calls`` grouping reads, besides the keys.
_NEEDED = (
    *_TOKENS,
    "total_tokens",
    "cost_usd",
    "priced",
    "cache_savings_usd",
    "model",
    "time",
    "utc_offset_seconds",
)
#: Each group and the columns it reads.
_GROUP_COLUMNS = {
    "session": ("session",),
    "run": ("session", "run_index"),
    "day": ("time", "utc_offset_seconds"),
    "week": ("time", "utc_offset_seconds"),
    "month": ("time", "utc_offset_seconds"),
    "model": ("model",),
    "priced_as": ("price_source", "priced_as"),
    "provider": ("provider",),
    "tool": ("tool",),
    "label": ("labels",),
}


def _check_model_calls(calls: object) -> None:
    """Raise a ``ValueError`` that says what is wrong when ``calls`` is not a ``model_calls``
    frame (a bare ``KeyError`` would name one column and not the frame)."""
    import pandas as pd

    if not isinstance(calls, pd.DataFrame):
        raise TypeError(
            f"cost_by takes a model_calls frame (read_costs(...).model_calls), not "
            f"{type(calls).__name__}"
        )
    have = set(calls.columns)
    missing = [c for c in (*_NEEDED, *{c for cs in _GROUP_COLUMNS.values() for c in cs})
               if c not in have]  # fmt: skip
    if not missing:
        return
    could = [g for g, columns in _GROUP_COLUMNS.items() if all(c in have for c in columns)]
    raise ValueError(
        "cost_by groups a model_calls frame (read_costs(...).model_calls), one row per model "
        f"call; this frame lacks its columns {', '.join(repr(c) for c in sorted(set(missing)))}"
        f" (of the groups, its columns hold the keys of {', '.join(could) or 'none'})"
    )


def call_arrays(calls: pd.DataFrame) -> CallArrays:
    """The columns of a ``model_calls`` frame that grouping needs, as arrays (each key made
    only when a grouping asks for it)."""

    def run_index() -> Any:
        return calls["run_index"].to_numpy(dtype=np.int64)

    def labels() -> Any:
        return calls["labels"].tolist()

    model = _codes(calls["model"])
    return CallArrays(
        tokens={
            name: calls[name].fillna(0).to_numpy(dtype=np.int64)
            for name in (*_TOKENS, "total_tokens")
        },
        has_usage=calls["input_tokens"].notna().to_numpy(),
        cost_usd=calls["cost_usd"].to_numpy(dtype=np.float64),
        priced=calls["priced"].to_numpy(dtype=bool),
        cache_savings_usd=calls["cache_savings_usd"].to_numpy(dtype=np.float64),
        model=model,
        time_ns=calls["time"].astype("int64").to_numpy(),
        utc_offset_seconds=calls["utc_offset_seconds"].to_numpy(dtype=np.int64),
        keys={
            "session": lambda: _codes(calls["session"]),
            "run_index": run_index,
            "model": lambda: model,
            "priced_as": lambda: _codes(calls["priced_as"]),
            "price_source": lambda: _codes(calls["price_source"]),
            "provider": lambda: _codes(calls["provider"]),
            "tool": lambda: _codes(calls["tool"]),
            "labels": labels,
        },
    )


def groups_frame(groups: Groups) -> pd.DataFrame:
    """``group_costs``'s groups as a frame (see ``cost_by``)."""
    data: dict[str, pd.Series[Any]] = {}
    for key in groups.keys:
        values = groups.columns[key]
        data[key] = pd.Series(values, dtype="Int64" if key == "run_index" else "string")
    for name in METRICS:
        values = groups.columns[name]
        if name in ("calls", *_TOKENS, "total_tokens", "unpriced_calls"):
            data[name] = pd.Series(values, dtype="Int64")
        elif name == "unpriced_models":
            column = np.empty(len(values), dtype=object)
            column[:] = values
            data[name] = pd.Series(column, dtype=object)
        elif name == "lower_bound":
            data[name] = pd.Series(values, dtype=bool)
        else:
            data[name] = pd.Series(values, dtype="float64")
    out = pd.DataFrame(data)
    out.attrs["lower_bound"] = groups.lower_bound
    out.attrs["unpriced_models"] = groups.unpriced_models
    out.attrs["tz"] = groups.tz
    out.attrs["total"] = dict(groups.total)
    return out
