"""What the report says about money and tokens, from the cost tables' columns, without pandas.

Every number here comes from the model calls ``sessiontools cost`` reads, priced by the same
code (``sessiontools._cost.build``: ``_Builder.priced``, one ``PriceBook``): a call nobody can
price has a NaN cost and makes every total over it "at least" (or "unknown" when nothing in it
could be priced). The cache's two figures are the frames' and ``sessiontools cost``'s, defined
once in ``sessiontools._cost.cache`` (docs/costs.md, "Cache"): ``cache_hit_rate``, cache reads
over all input, cached included, of a group's summed counts; ``cache_savings_usd``, each call's
column summed (unknown when one is).

The sums are made here over the priced columns (``PricedTables``), without pandas: counts and
tokens as Python integers (exact), money as ``sessiontools cost`` sums a group
(``sessiontools._cost.groups``: ``numpy.add.reduceat`` over the group's calls in their order;
``group_sums``), so that the report and ``sessiontools cost --by session`` (or ``run``,
``day,model``) say the same float. The report summed them with pandas'
``groupby(...).sum()`` on the cost frames before, whose float sum depends on how the rows lie
(compensated, or as here when the groups are sorted). Leaving pandas out of the report saves
its import (0.2 to 0.4 s) and its frames.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .._cost.cache import cache_hit_rate as _hit_rate
from .._fast import fast_maker
from .._log.times import _civil_from_days

__all__ = [
    "EMPTY_TOTALS",
    "ZERO",
    "Cost",
    "Counts",
    "ModelRow",
    "PricedCalls",
    "PricedTables",
    "ToolRow",
    "Totals",
    "call_costs",
    "counts",
    "day_model_costs",
    "model_rows_by_session",
    "priced_tables",
    "run_costs",
    "tool_call_costs",
    "tool_rows_by_session",
    "totals",
    "totals_by_session",
]

_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


@dataclass(frozen=True, slots=True)
class Cost:
    """A sum of call costs: ``usd`` over the priced calls, and how many calls were not priced.

    ``known`` is false when calls were left unpriced and none with tokens was priced: the
    cost is then unknown, not zero (``cost_by`` gives NaN there).
    """

    usd: float
    unpriced: int = 0
    known: bool = True

    @property
    def lower_bound(self) -> bool:
        """The real cost is at least ``usd``: some calls are unpriced."""
        return self.unpriced > 0


ZERO = Cost(0.0)


def cache_hit_rate(input_tokens: int, cache_read_tokens: int, cache_write_tokens: int) -> float:
    """Cache reads over all input (``sessiontools._cost.cache``), as a ``float``; NaN when
    there was no input at all."""
    return float(_hit_rate(input_tokens, cache_read_tokens, cache_write_tokens))


@dataclass(frozen=True, slots=True)
class Totals:
    """A session's (or every session's) model calls, summed.

    ``model_calls`` counts turns, failed calls and the calls tools made; ``cache_savings_usd``
    is NaN when some call with cached tokens could not be priced.
    """

    model_calls: int
    failed_calls: int
    tool_model_calls: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: Cost
    unpriced_models: tuple[str, ...]
    cache_savings_usd: float

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )

    @property
    def cache_hit_rate(self) -> float:
        return cache_hit_rate(self.input_tokens, self.cache_read_tokens, self.cache_write_tokens)


EMPTY_TOTALS = Totals(0, 0, 0, 0, 0, 0, 0, ZERO, (), 0.0)


@dataclass(frozen=True, slots=True)
class ModelRow:
    """One line of "cost by model"."""

    model: str
    provider: str
    calls: int
    failed: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    cost: Cost
    cache_savings_usd: float

    @property
    def cache_hit_rate(self) -> float:
        return cache_hit_rate(self.input_tokens, self.cache_read_tokens, self.cache_write_tokens)


@dataclass(frozen=True, slots=True)
class ToolRow:
    """One line of "cost by tool": its calls (distinct call ids), how they went, and what the
    model calls it made cost."""

    tool: str
    calls: int
    denied: int
    refused: int
    errors: int
    cut_off: int
    model_calls: int
    cost: Cost


_K = TypeVar("_K")


def group_sums(groups: Sequence[Sequence[int]], *columns: Any) -> list[list[Any]]:
    """Each group's sum of each column (a ``numpy`` array, one value per call), the groups
    given as their rows in order: as ``sessiontools cost`` sums a group
    (``sessiontools._cost.groups``, ``_aggregate``: ``numpy.add.reduceat`` over the group's
    calls in their order), NaN when one is NaN. Integers are summed as ``int64``: the caller
    has checked that no sum of a token column passes 2^63-1 (``check_sums``)."""
    if not groups:
        return [[] for _ in columns]
    sizes = [len(rows) for rows in groups]
    order = np.fromiter(itertools.chain.from_iterable(groups), dtype=np.int64, count=sum(sizes))
    starts = np.fromiter(
        itertools.accumulate(sizes[:-1], initial=0), dtype=np.int64, count=len(sizes)
    )
    return [np.add.reduceat(values[order], starts).tolist() for values in columns]


def _groups(keys: Iterable[_K]) -> dict[_K, list[int]]:
    """The rows of each key, in the rows' order; keys in the order first met."""
    out: dict[_K, list[int]] = {}
    for row, key in enumerate(keys):
        rows = out.get(key)
        if rows is None:
            out[key] = [row]
        else:
            rows.append(row)
    return out


@dataclass(frozen=True, slots=True)
class PricedCalls:
    """The model calls of the cost tables (each run once), priced: one value per call in
    each list, in the tables' order.

    ``cost`` is a priced call's cost in US dollars, else 0 (NaN also 0); ``unpriced`` 1 when
    the call is not priced; ``priced_usage`` 1 when it is priced and has usage; ``savings``
    its ``cache_savings_usd`` (NaN when not known); ``model`` and ``provider`` ``""`` when
    none (``provider`` as the cost frames have it: genai-prices' for a tool's model call whose
    log names none); ``failed`` 1 for a failed call; ``tool`` 1 for a call a tool made.
    """

    session: list[str]
    source: list[str]
    seq: list[int]
    usage_index: list[int]
    run_index: list[int]
    call_id: list[str | None]
    model: list[str]
    provider: list[str]
    time_ns: list[int]
    failed: list[int]
    tool: list[int]
    cost: list[float]
    unpriced: list[int]
    priced_usage: list[int]
    savings: list[float]
    input_tokens: list[int]
    output_tokens: list[int]
    cache_read_tokens: list[int]
    cache_write_tokens: list[int]
    cost_array: Any  # ``cost`` and ``savings`` as ``float64`` arrays, for ``group_sums``
    savings_array: Any
    arrays: dict[str, Any]  # the integer columns as ``int64`` arrays, by name

    def __len__(self) -> int:
        return len(self.session)


@dataclass(frozen=True, slots=True)
class PricedTables:
    """What the report reads of the three cost tables: the model calls (``PricedCalls``);
    the runs' ``session``, ``run_index`` and ``reason``; the tool calls' ``session``,
    ``tool`` (``""`` when none), ``call_id``, their outcome as their spans' ``error.type`` says
    it (``outcome``: ``denied``, ``cut_off``, ``refused``, ``errors`` or ``""``), the model
    calls their tool made and what those cost (``tool_cost``, priced calls only;
    ``tool_unpriced``)."""

    calls: PricedCalls
    run_session: list[str]
    run_index: list[int]
    run_reason: list[str]
    tool_session: list[str]
    tool_name: list[str]
    tool_call_id: list[str | None]
    tool_outcome: list[str]
    tool_model_calls: list[int]
    tool_cost: list[float]
    tool_unpriced: list[int]


def priced_tables(built: Any, provider: Any) -> PricedTables:
    """The columns of ``built`` (``sessiontools._cost.build.Built``, from ``_Builder.priced``)
    that the report reads; ``provider`` is each call's provider as the cost frames have it
    (``sessiontools._cost.pricing.match_providers``: ``Codes``)."""
    calls, found = built.calls.data, built.found
    priced = found.priced.tolist()
    cost = [
        c if p and c == c else 0.0 for c, p in zip(found.cost_usd.tolist(), priced, strict=True)
    ]
    has_usage = list(built.has_usage.tolist())
    tokens = {name: built.tokens[name].tolist() for name in _TOKENS}
    names = provider.values
    tools = built.tools.data
    unpriced = [0 if p else 1 for p in priced]
    priced_usage = [1 if p and u else 0 for p, u in zip(priced, has_usage, strict=True)]
    failed = [0 if e is None else 1 for e in calls["error_kind"]]
    tool = [1 if s == "tool" else 0 for s in calls["source"]]
    arrays = {
        name: np.asarray(values, dtype=np.int64)
        for name, values in (
            ("unpriced", unpriced),
            ("priced_usage", priced_usage),
            ("failed", failed),
            ("tool", tool),
        )
    }
    arrays.update((name, np.asarray(built.tokens[name], dtype=np.int64)) for name in _TOKENS)
    return PricedTables(
        calls=PricedCalls(
            session=list(calls["session"]),
            source=list(calls["source"]),
            seq=list(calls["seq"]),
            usage_index=list(calls["usage_index"]),
            run_index=list(calls["run_index"]),
            call_id=list(calls["call_id"]),
            model=[m if m is not None else "" for m in calls["model"]],
            provider=[names[c] if c >= 0 else "" for c in provider.codes.tolist()],
            time_ns=list(calls["time"]),
            failed=failed,
            tool=tool,
            cost=cost,
            unpriced=unpriced,
            priced_usage=priced_usage,
            savings=found.cache_savings_usd.tolist(),
            **tokens,
            cost_array=np.asarray(cost, dtype=np.float64),
            savings_array=np.asarray(found.cache_savings_usd, dtype=np.float64),
            arrays=arrays,
        ),
        run_session=list(built.runs.data["session"]),
        run_index=list(built.runs.data["run_index"]),
        run_reason=list(built.runs.data["reason"]),
        tool_session=list(tools["session"]),
        tool_name=[t if t is not None else "" for t in tools["tool"]],
        tool_call_id=list(tools["call_id"]),
        tool_outcome=[
            _outcome(v, e, r)
            for v, e, r in zip(tools["verdict"], tools["is_error"], tools["refused"], strict=True)
        ],
        tool_model_calls=list(tools["model_calls"]),
        tool_cost=[0.0 if c != c else c for c in built.tool_cost_usd.tolist()],
        tool_unpriced=built.tool_unpriced_calls.tolist(),
    )


def _outcome(verdict: str | None, is_error: bool | None, refused: Any) -> str:
    """A tool call's outcome, as its span's ``error.type`` says it (docs/traces.md,
    "Errors"): denied (the policy said no), else cut off (no result in its run), else refused,
    else an error; ``""`` when it went well."""
    if verdict == "deny":
        return "denied"
    if is_error is None:
        return "cut_off"
    if refused:
        return "refused"
    return "errors" if is_error else ""


_new_cost = fast_maker(Cost)  # one per model call of the report: the dataclass __init__ is slow


def _cost(usd: float, unpriced: int, priced_usage: int) -> Cost:
    return _new_cost(float(usd), int(unpriced), unpriced == 0 or priced_usage > 0)


def _costs(calls: PricedCalls, groups: Sequence[Sequence[int]]) -> list[Cost]:
    """Each group's ``Cost``."""
    usd, unpriced, priced = group_sums(
        groups, calls.cost_array, calls.arrays["unpriced"], calls.arrays["priced_usage"]
    )
    return [_cost(*sums) for sums in zip(usd, unpriced, priced, strict=True)]


#: The integer columns of ``PricedCalls`` a group's ``Totals`` sums.
_SUMMED = ("unpriced", "priced_usage", "failed", "tool", *_TOKENS)


def _totals(calls: PricedCalls, groups: Sequence[Sequence[int]]) -> list[Totals]:
    """Each group's ``Totals``."""
    arrays = calls.arrays
    usd, savings, *sums = group_sums(
        groups, calls.cost_array, calls.savings_array, *(arrays[name] for name in _SUMMED)
    )
    model, unpriced = calls.model, calls.unpriced
    out = []
    for i, rows in enumerate(groups):
        left, priced, failed, tool, input_tokens, output_tokens, read, written = (
            column[i] for column in sums
        )
        saved = savings[i]
        out.append(
            Totals(
                model_calls=len(rows),
                failed_calls=failed,
                tool_model_calls=tool,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cache_read_tokens=read,
                cache_write_tokens=written,
                cost=_cost(usd[i], left, priced),
                unpriced_models=tuple(
                    sorted({model[r] or "(no model)" for r in rows if unpriced[r]})
                )
                if left
                else (),
                cache_savings_usd=saved if saved == saved else math.nan,  # one call's NaN
            )
        )
    return out


def totals_by_session(calls: PricedCalls) -> dict[str, Totals]:
    """``Totals`` per session (of the sessions with model calls)."""
    groups = _groups(calls.session)
    return dict(zip(groups, _totals(calls, list(groups.values())), strict=True))


def totals(calls: PricedCalls) -> Totals:
    """``Totals`` of all the calls (``EMPTY_TOTALS`` when there is none)."""
    return _totals(calls, [range(len(calls))])[0] if len(calls) else EMPTY_TOTALS


def model_rows_by_session(calls: PricedCalls) -> dict[str, list[ModelRow]]:
    """Cost by model and provider, per session, most expensive first (then by name)."""
    out: dict[str, list[ModelRow]] = {}
    groups = sorted(_groups(zip(calls.session, calls.model, calls.provider, strict=True)).items())
    found = _totals(calls, [rows for _, rows in groups])
    for ((session, model, provider), _), t in zip(groups, found, strict=True):
        out.setdefault(session, []).append(
            ModelRow(
                model=model,
                provider=provider,
                calls=t.model_calls,
                failed=t.failed_calls,
                input_tokens=t.input_tokens,
                output_tokens=t.output_tokens,
                cache_read_tokens=t.cache_read_tokens,
                cache_write_tokens=t.cache_write_tokens,
                cost=t.cost,
                cache_savings_usd=t.cache_savings_usd,
            )
        )
    for listed in out.values():
        listed.sort(key=_costliest_model)
    return out


def _costliest_model(row: ModelRow) -> tuple[float, str, str]:
    return (-row.cost.usd, row.model, row.provider)


@dataclass(frozen=True, slots=True)
class Counts:
    """Runs and tool calls of the cost tables (each run once): how many, and how they went."""

    runs: int
    crashed_runs: int
    tool_calls: int
    denied: int
    refused: int
    tool_errors: int
    cut_off: int


def counts(tables: PricedTables) -> Counts:
    """The tables' runs and tool calls (a call settled by a later run counts in both runs, as
    it has a span in each)."""
    outcomes = tables.tool_outcome
    return Counts(
        runs=len(tables.run_reason),
        crashed_runs=tables.run_reason.count("crashed"),
        tool_calls=len(outcomes),
        denied=outcomes.count("denied"),
        refused=outcomes.count("refused"),
        tool_errors=outcomes.count("errors"),
        cut_off=outcomes.count("cut_off"),
    )


def tool_rows_by_session(tables: PricedTables) -> dict[str, list[ToolRow]]:
    """Cost by tool, per session: most expensive, then most used, first."""
    out: dict[str, list[ToolRow]] = {}
    outcome, model_calls = tables.tool_outcome, tables.tool_model_calls
    cost, unpriced, ids = tables.tool_cost, tables.tool_unpriced, tables.tool_call_id
    groups = sorted(_groups(zip(tables.tool_session, tables.tool_name, strict=True)).items())
    (costs,) = group_sums([rows for _, rows in groups], np.asarray(cost, dtype=np.float64))
    for ((session, tool), rows), usd in zip(groups, costs, strict=True):
        kinds = [outcome[i] for i in rows]
        made = sum([model_calls[i] for i in rows])
        left = sum([unpriced[i] for i in rows])
        # a tool whose model calls were all unpriced has no known cost
        priced = sum([max(model_calls[i] - unpriced[i], 0) for i in rows])
        out.setdefault(session, []).append(
            ToolRow(
                tool=tool,
                calls=len({ids[i] for i in rows if ids[i] is not None}),
                denied=kinds.count("denied"),
                refused=kinds.count("refused"),
                errors=kinds.count("errors"),
                cut_off=kinds.count("cut_off"),
                model_calls=made,
                cost=_cost(usd, left, priced),
            )
        )
    for listed in out.values():
        listed.sort(key=lambda r: (-r.cost.usd, -r.calls, r.tool))
    return out


def _utc_day(time_unix_nano: int, days: dict[int, str]) -> str:
    day = time_unix_nano // 86_400_000_000_000
    text = days.get(day)
    if text is None:
        year, month, date = _civil_from_days(day)
        text = days[day] = f"{year:04d}-{month:02d}-{date:02d}"
    return text


def day_model_costs(calls: PricedCalls) -> list[tuple[str, str, Cost]]:
    """Cost per UTC day and model (``YYYY-MM-DD``, model, cost), in order."""
    days: dict[int, str] = {}
    keys = zip([_utc_day(t, days) for t in calls.time_ns], calls.model, strict=True)
    groups = sorted(_groups(keys).items())
    costs = _costs(calls, [rows for _, rows in groups])
    return [(day, model, cost) for ((day, model), _), cost in zip(groups, costs, strict=True)]


def call_costs(calls: PricedCalls) -> dict[tuple[str, str, int, int], Cost]:
    """Each model call's cost by (session, source, seq, usage index): the keys of its span."""
    out: dict[tuple[str, str, int, int], Cost] = {}
    for session, source, seq, index, cost, unpriced, priced in zip(
        calls.session,
        calls.source,
        calls.seq,
        calls.usage_index,
        calls.cost,
        calls.unpriced,
        calls.priced_usage,
        strict=True,
    ):
        out[(session, source, seq, index)] = _cost(cost, unpriced, priced)
    return out


def run_costs(calls: PricedCalls) -> dict[tuple[str, int], Cost]:
    """Each run's cost by (session, run index): its model calls'."""
    groups = _groups(zip(calls.session, calls.run_index, strict=True))
    return dict(zip(groups, _costs(calls, list(groups.values())), strict=True))


def tool_call_costs(calls: PricedCalls) -> dict[tuple[str, int, str], Cost]:
    """Each tool call's cost, the model calls it made, by (session, run index, call id). A
    call whose tool made no model call is not in it."""
    by_call: dict[tuple[str, int, str], list[int]] = {}
    for row, (session, run, call, tool) in enumerate(
        zip(calls.session, calls.run_index, calls.call_id, calls.tool, strict=True)
    ):
        if tool and call is not None:
            by_call.setdefault((session, run, call), []).append(row)
    return dict(zip(by_call, _costs(calls, list(by_call.values())), strict=True))
