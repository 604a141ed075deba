"""What the report says about money and tokens, from the cost frames (``read_costs``).

Every number here comes from the frames, priced by the same ``PriceBook`` as ``sessiontools
cost``: a call nobody can price has a NaN cost and makes every total over it "at least" (or
"unknown" when nothing in it could be priced). The cache's two figures are the frames' and
``sessiontools cost``'s, defined once in ``sessiontools._cost.cache`` (docs/costs.md,
"Cache"): ``cache_hit_rate``, cache reads over all input, cached included, of a group's summed
counts; ``cache_savings_usd``, each call's frame column summed (unknown when one is).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._cost.cache import cache_hit_rate as _hit_rate
from .._fast import fast_maker

__all__ = [
    "EMPTY_TOTALS",
    "ZERO",
    "Cost",
    "Counts",
    "ModelRow",
    "ToolRow",
    "Totals",
    "call_costs",
    "counts",
    "day_model_costs",
    "model_rows_by_session",
    "run_costs",
    "tool_call_costs",
    "tool_rows_by_session",
    "totals_by",
    "with_savings",
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


def with_savings(calls: pd.DataFrame) -> pd.DataFrame:
    """``calls`` with the report's working columns: ``_savings`` (the frame's
    ``cache_savings_usd``), ``_cost`` (the cost of priced calls, else 0), ``_unpriced``,
    ``_priced_usage``, ``_failed`` and ``_tool`` (made by a tool)."""
    frame = calls.copy()
    frame["_savings"] = calls["cache_savings_usd"]
    frame["_savings_nan"] = frame["_savings"].isna().astype("int64")
    frame["_cost"] = frame["cost_usd"].where(frame["priced"], 0.0).fillna(0.0)
    frame["_unpriced"] = (~frame["priced"]).astype("int64")
    frame["_priced_usage"] = (frame["priced"] & frame["input_tokens"].notna()).astype("int64")
    frame["_failed"] = frame["error_kind"].notna().astype("int64")
    frame["_tool"] = (frame["source"] == "tool").astype("int64")
    frame["_model"] = frame["model"].astype(object).where(frame["model"].notna(), "")
    frame["_provider"] = frame["provider"].astype(object).where(frame["provider"].notna(), "")
    for name in _TOKENS:
        frame[name] = frame[name].fillna(0).astype("int64")
    return frame


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A small frame's rows as dicts (column name to Python value)."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


_new_cost = fast_maker(Cost)  # one per model call of the report: the dataclass __init__ is slow


def _cost(usd: float, unpriced: int, priced_usage: int) -> Cost:
    return _new_cost(float(usd), int(unpriced), unpriced == 0 or priced_usage > 0)


def totals_by(frame: pd.DataFrame, keys: list[str]) -> dict[Any, Totals]:
    """``Totals`` per group of a ``with_savings`` frame; with no ``keys``, one group: ``()``."""
    if frame.empty:
        return {}
    keyed = frame if keys else frame.assign(_all=0)
    by = keys or ["_all"]
    sums = (
        keyed.groupby(by, observed=True, sort=True)
        .agg(
            model_calls=("seq", "size"),
            failed_calls=("_failed", "sum"),
            tool_model_calls=("_tool", "sum"),
            input_tokens=("input_tokens", "sum"),
            output_tokens=("output_tokens", "sum"),
            cache_read_tokens=("cache_read_tokens", "sum"),
            cache_write_tokens=("cache_write_tokens", "sum"),
            cost=("_cost", "sum"),
            unpriced=("_unpriced", "sum"),
            priced=("_priced_usage", "sum"),
            savings=("_savings", "sum"),
            savings_nan=("_savings_nan", "sum"),
        )
        .reset_index()
    )
    unpriced_models: dict[Any, set[str]] = {}
    missing = keyed[keyed["_unpriced"] > 0]
    for key, model in zip(
        zip(*[missing[k].tolist() for k in by], strict=True),
        missing["_model"].tolist(),
        strict=True,
    ):
        unpriced_models.setdefault(key, set()).add(str(model) or "(no model)")
    out: dict[Any, Totals] = {}
    columns = [sums[k].tolist() for k in by]
    for key, row in zip(zip(*columns, strict=True), _records(sums), strict=True):
        out[() if not keys else key[0] if len(keys) == 1 else key] = Totals(
            model_calls=int(row["model_calls"]),
            failed_calls=int(row["failed_calls"]),
            tool_model_calls=int(row["tool_model_calls"]),
            input_tokens=int(row["input_tokens"]),
            output_tokens=int(row["output_tokens"]),
            cache_read_tokens=int(row["cache_read_tokens"]),
            cache_write_tokens=int(row["cache_write_tokens"]),
            cost=_cost(row["cost"], int(row["unpriced"]), int(row["priced"])),
            unpriced_models=tuple(sorted(unpriced_models.get(key, ()))),
            cache_savings_usd=math.nan if row["savings_nan"] else float(row["savings"]),
        )
    return out


def model_rows_by_session(frame: pd.DataFrame) -> dict[str, list[ModelRow]]:
    """Cost by model and provider, per session, most expensive first (then by name)."""
    out: dict[str, list[ModelRow]] = {}
    if frame.empty:
        return out
    grouped = frame.groupby(["session", "_model", "_provider"], observed=True, sort=True)
    sums = grouped.agg(
        calls=("seq", "size"),
        failed=("_failed", "sum"),
        input_tokens=("input_tokens", "sum"),
        output_tokens=("output_tokens", "sum"),
        cache_read_tokens=("cache_read_tokens", "sum"),
        cache_write_tokens=("cache_write_tokens", "sum"),
        cost=("_cost", "sum"),
        unpriced=("_unpriced", "sum"),
        priced_usage=("_priced_usage", "sum"),
        savings_nan=("_savings_nan", "sum"),
        savings=("_savings", "sum"),
    ).reset_index()
    for row in _records(sums):
        out.setdefault(str(row["session"]), []).append(
            ModelRow(
                model=str(row["_model"]),
                provider=str(row["_provider"]),
                calls=int(row["calls"]),
                failed=int(row["failed"]),
                input_tokens=int(row["input_tokens"]),
                output_tokens=int(row["output_tokens"]),
                cache_read_tokens=int(row["cache_read_tokens"]),
                cache_write_tokens=int(row["cache_write_tokens"]),
                cost=_cost(row["cost"], int(row["unpriced"]), int(row["priced_usage"])),
                cache_savings_usd=math.nan if row["savings_nan"] else float(row["savings"]),
            )
        )
    for rows in out.values():
        rows.sort(key=_costliest_model)
    return out


def _costliest_model(row: ModelRow) -> tuple[float, str, str]:
    return (-row.cost.usd, row.model, row.provider)


def _tool_outcomes(tools: pd.DataFrame) -> pd.DataFrame:
    """Each tool call row's outcome, as its span's ``error.type`` says it (docs/traces.md,
    "Errors"): denied (the policy said no), else cut off (no result in its run), else refused,
    else an error."""
    denied = tools["verdict"].astype(object) == "deny"
    cut_off = ~denied & tools["is_error"].isna()
    refused = ~denied & ~cut_off & tools["refused"].astype(bool)
    errors = ~denied & ~cut_off & ~refused & tools["is_error"].fillna(False).astype(bool)
    return pd.DataFrame(
        {
            "denied": denied.astype("int64"),
            "cut_off": cut_off.astype("int64"),
            "refused": refused.astype("int64"),
            "errors": errors.astype("int64"),
        }
    )


@dataclass(frozen=True, slots=True)
class Counts:
    """Runs and tool calls of the cost frames (each run once): how many, and how they went."""

    runs: int
    crashed_runs: int
    tool_calls: int
    denied: int
    refused: int
    tool_errors: int
    cut_off: int


def counts(runs: pd.DataFrame, tools: pd.DataFrame) -> Counts:
    """The ``runs`` and ``tool_calls`` frames' runs and tool calls (a call settled by a later
    run counts in both runs, as it has a span in each)."""
    outcomes = _tool_outcomes(tools)
    return Counts(
        runs=len(runs),
        crashed_runs=int((runs["reason"].astype(object) == "crashed").sum()),
        tool_calls=len(tools),
        denied=int(outcomes["denied"].sum()),
        refused=int(outcomes["refused"].sum()),
        tool_errors=int(outcomes["errors"].sum()),
        cut_off=int(outcomes["cut_off"].sum()),
    )


def tool_rows_by_session(tools: pd.DataFrame) -> dict[str, list[ToolRow]]:
    """Cost by tool, per session, from a ``tool_calls`` frame: most expensive, then most used,
    first."""
    out: dict[str, list[ToolRow]] = {}
    if tools.empty:
        return out
    outcomes = _tool_outcomes(tools)
    frame = pd.DataFrame(
        {
            "session": tools["session"].astype(object),
            "tool": tools["tool"].astype(object).where(tools["tool"].notna(), ""),
            "call_id": tools["call_id"].astype(object),
            "denied": outcomes["denied"],
            "refused": outcomes["refused"],
            "errors": outcomes["errors"],
            "cut_off": outcomes["cut_off"],
            "model_calls": tools["model_calls"].fillna(0).astype("int64"),
            "cost": tools["cost_usd"].fillna(0.0),
            "unpriced": tools["unpriced_calls"].fillna(0).astype("int64"),
        }
    )
    # a tool whose model calls were all unpriced has no known cost
    frame["priced_usage"] = (frame["model_calls"] - frame["unpriced"]).clip(lower=0)
    sums = (
        frame.groupby(["session", "tool"], sort=True)
        .agg(
            calls=("call_id", "nunique"),
            denied=("denied", "sum"),
            refused=("refused", "sum"),
            errors=("errors", "sum"),
            cut_off=("cut_off", "sum"),
            model_calls=("model_calls", "sum"),
            cost=("cost", "sum"),
            unpriced=("unpriced", "sum"),
            priced_usage=("priced_usage", "sum"),
        )
        .reset_index()
    )
    for row in _records(sums):
        out.setdefault(str(row["session"]), []).append(
            ToolRow(
                tool=str(row["tool"]),
                calls=int(row["calls"]),
                denied=int(row["denied"]),
                refused=int(row["refused"]),
                errors=int(row["errors"]),
                cut_off=int(row["cut_off"]),
                model_calls=int(row["model_calls"]),
                cost=_cost(row["cost"], int(row["unpriced"]), int(row["priced_usage"])),
            )
        )
    for rows in out.values():
        rows.sort(key=lambda r: (-r.cost.usd, -r.calls, r.tool))
    return out


def day_model_costs(frame: pd.DataFrame) -> list[tuple[str, str, Cost]]:
    """Cost per UTC day and model (``YYYY-MM-DD``, model, cost), in order."""
    if frame.empty:
        return []
    days = frame["time"].dt.strftime("%Y-%m-%d")
    grouped = frame.assign(_day=days).groupby(["_day", "_model"], sort=True)
    sums = grouped.agg(
        cost=("_cost", "sum"), unpriced=("_unpriced", "sum"), priced=("_priced_usage", "sum")
    ).reset_index()
    return [
        (str(day), str(model), _cost(cost, int(unpriced), int(priced)))
        for day, model, cost, unpriced, priced in sums.itertuples(index=False)
    ]


def call_costs(frame: pd.DataFrame) -> dict[tuple[str, str, int, int], Cost]:
    """Each model call's cost by (session, source, seq, usage index): the keys of its span."""
    out: dict[tuple[str, str, int, int], Cost] = {}
    for session, source, seq, index, cost, unpriced, priced in zip(
        frame["session"].tolist(),
        frame["source"].astype(object).tolist(),
        frame["seq"].tolist(),
        frame["usage_index"].tolist(),
        frame["_cost"].tolist(),
        frame["_unpriced"].tolist(),
        frame["_priced_usage"].tolist(),
        strict=True,
    ):
        out[(session, source, seq, index)] = _cost(cost, unpriced, priced)
    return out


def run_costs(frame: pd.DataFrame) -> dict[tuple[str, int], Cost]:
    """Each run's cost by (session, run index): its model calls' (the ``runs`` frame's sum)."""
    return _grouped_costs(frame, ["session", "run_index"])


def tool_call_costs(frame: pd.DataFrame) -> dict[tuple[str, int, str], Cost]:
    """Each tool call's cost, the model calls it made, by (session, run index, call id) (the
    ``tool_calls`` frame's sum). A call whose tool made no model call is not in it."""
    return _grouped_costs(frame[frame["source"] == "tool"], ["session", "run_index", "call_id"])


def _grouped_costs(frame: pd.DataFrame, keys: list[str]) -> dict[Any, Cost]:
    if frame.empty:
        return {}
    sums = (
        frame.groupby(keys, observed=True, sort=False)
        .agg(cost=("_cost", "sum"), unpriced=("_unpriced", "sum"), priced=("_priced_usage", "sum"))
        .reset_index()
    )
    columns = [sums[k].tolist() for k in keys]
    return {
        key: _cost(cost, unpriced, priced)
        for key, cost, unpriced, priced in zip(
            zip(*columns, strict=True),
            sums["cost"].tolist(),
            sums["unpriced"].tolist(),
            sums["priced"].tolist(),
            strict=True,
        )
    }
