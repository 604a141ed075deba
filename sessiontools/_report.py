"""What ``sessiontools cost`` prints: a cost frame grouped and written as a table, CSV, JSON or
Markdown (design/costs.md, "Command").

``table`` is for a person: aligned columns, a totals row, costs rounded for display only, and a
group whose cost is a lower bound (some of its calls unpriced) marked ``>=`` with the unpriced
models named under the table. ``csv`` and ``json`` are for programs: every column, full
precision, NaN as empty / ``null``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
import pandas as pd
from tabulate import tabulate

from ._frames import CostTables, Logs, PriceSource, cost_by, read_costs
from ._names import FORMATS, GROUPS
from ._reader import MAX_LINE_BYTES

__all__ = ["FORMATS", "CostReport", "cost_report", "parse_time", "render"]

# a date, or a date and time with an optional fraction and offset (RFC 3339, or without offset)
_TIME_SHAPE = re.compile(
    r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|z|[+-]\d{2}:\d{2})?)?"
)


@dataclass(frozen=True, slots=True)
class CostReport:
    """A grouped cost frame (``cost_by``'s shape) and the tables it came from."""

    frame: pd.DataFrame
    by: tuple[str, ...]
    tables: CostTables


def parse_time(text: str) -> pd.Timestamp:
    """A ``--since`` / ``--until`` time: RFC 3339 (``2026-10-18T09:30:00+02:00``) or a date
    (``2026-10-18``, midnight UTC). A time without an offset is UTC.

    Raises:
        ValueError: not such a time.
    """
    if not _TIME_SHAPE.fullmatch(text):
        raise ValueError(f"not an RFC 3339 time or a YYYY-MM-DD date: {text!r}")
    try:
        stamp = pd.Timestamp(text)
    except (ValueError, TypeError) as e:
        raise ValueError(f"not a time or date: {text!r} ({e})") from None
    if pd.isna(stamp):
        raise ValueError(f"not a time or date: {text!r}")
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


def cost_report(
    logs: Logs,
    *,
    by: Sequence[str] = ("model",),
    prices: PriceSource = None,
    since: pd.Timestamp | None = None,
    until: pd.Timestamp | None = None,
    skip_damaged: bool = True,
    progress: Callable[[str], None] | None = None,
    workers: int | None = 1,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> CostReport:
    """Read ``logs`` and group the cost of their model calls.

    Args:
        logs, prices, skip_damaged, progress, workers, max_line_bytes: see ``read_costs``.
        by: any of ``session``, ``run``, ``day``, ``model``, ``provider``, ``tool``.
        since, until: keep the calls made at or after ``since`` and before ``until``.

    Raises:
        ValueError: an unknown group name. And what ``read_costs`` raises.
    """
    for name in by:
        if name not in GROUPS:
            raise ValueError(f"cannot group by {name!r}: choose from {', '.join(GROUPS)}")
    tables = read_costs(
        logs,
        prices=prices,
        skip_damaged=skip_damaged,
        progress=progress,
        workers=workers,
        max_line_bytes=max_line_bytes,
    )
    calls = tables.model_calls
    if since is not None:
        calls = calls[calls["time"] >= since]
    if until is not None:
        calls = calls[calls["time"] < until]
    return CostReport(cost_by(calls, list(by)), tuple(by), tables)


_NUMBERS = (
    "calls",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
)


def _keys(report: CostReport) -> list[str]:
    keys: list[str] = []
    for name in report.by:
        keys += ["session", "run_index"] if name == "run" else [name]
    return list(dict.fromkeys(keys))


def _cell(value: Any, *, markdown: bool) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, pd.Timestamp):
        return value.strftime("%Y-%m-%d")
    text = str(value)
    return text.replace("|", "\\|") if markdown else text


def _money(value: float, lower_bound: bool) -> str:
    if math.isnan(value):
        return "unpriced"
    return (">=" if lower_bound else "") + f"{value:.6f}"


def _human(report: CostReport, fmt: str) -> str:
    frame = report.frame
    keys = _keys(report)
    headers = [*keys, *_NUMBERS, "cost_usd"]
    rows: list[list[Any]] = []
    for record in frame.to_dict("records"):
        row: list[Any] = [_cell(record[k], markdown=fmt == "markdown") for k in keys]
        row += [int(record[n]) for n in _NUMBERS]
        row.append(_money(float(record["cost_usd"]), bool(record["lower_bound"])))
        rows.append(row)
    lower_bound = bool(frame.attrs.get("lower_bound", False))
    totals: list[Any] = ["total", *[""] * (len(keys) - 1)]
    totals += [int(frame[n].sum()) if len(frame) else 0 for n in _NUMBERS]
    totals.append(
        _money(float(frame["cost_usd"].sum(min_count=1)) if len(frame) else 0.0, lower_bound)
    )
    rows.append(totals)
    table = tabulate(
        rows,
        headers=headers,
        tablefmt="github" if fmt == "markdown" else "simple",
        disable_numparse=True,
        colalign=["left"] * len(keys) + ["right"] * (len(_NUMBERS) + 1),
    )
    notes = []
    if lower_bound:
        models = ", ".join(frame.attrs.get("unpriced_models", ())) or "(no model named)"
        notes.append(
            f">= a lower bound: some calls could not be priced (unpriced models: {models}); "
            "give their prices with --prices"
        )
    skipped = report.tables.skipped
    if skipped:
        notes.append(f"{len(skipped)} log(s) skipped as unreadable; see the messages above")
    if fmt == "markdown":
        return table + "\n" + "".join(f"\n{note}\n" for note in notes)
    return table + "\n" + "".join(f"{note}\n" for note in notes)


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp | dt.datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def render(report: CostReport, fmt: str) -> str:
    """The report in ``fmt`` (``table``, ``csv``, ``json`` or ``markdown``).

    Raises:
        ValueError: an unknown format.
    """
    if fmt in ("table", "markdown"):
        return _human(report, fmt)
    frame = report.frame
    if fmt == "csv":
        out = frame.copy()
        out["unpriced_models"] = out["unpriced_models"].map(";".join)
        return str(out.to_csv(index=False, lineterminator="\n"))
    if fmt == "json":
        records = [
            {key: _plain(value) for key, value in record.items()}
            for record in frame.to_dict("records")
        ]
        document = {
            "by": list(report.by),
            "groups": records,
            "total_cost_usd": _plain(float(frame["cost_usd"].sum(min_count=1)))
            if len(frame)
            else 0.0,
            "lower_bound": bool(frame.attrs.get("lower_bound", False)),
            "unpriced_models": list(frame.attrs.get("unpriced_models", ())),
            "skipped": [s.problem for s in report.tables.skipped],
        }
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    raise ValueError(f"unknown format {fmt!r}: choose from {', '.join(FORMATS)}")
