"""What ``sessiontools cost`` prints: a cost frame grouped and written as a table, CSV, JSON or
Markdown; the cost exporter's last part, which the command line calls (docs/costs.md,
"Command").

``table`` is for a person: aligned columns (numbers, ``run_index`` included, to the right), a
totals row, costs rounded for display only (``usd_text``; docs/costs.md, "Showing money"), and
a group whose cost is a lower bound (some of its calls unpriced) marked ``>=`` with the
unpriced models named under the table, and the prices a price file leaves out. Text from the
logs (session names, models, providers, tools) has its control characters escaped
(``escape_text``) in ``table`` and ``markdown``, and in ``markdown`` what Markdown would act on
(``|``, HTML, code, links) escaped with a backslash. ``csv`` and ``json`` are for programs:
every column, full precision, NaN as empty / ``null``.

The group keys read the same in every format: a day is ``YYYY-MM-DD`` (UTC); a group with no
value (the agent's own turns under ``tool``, a call whose provider nobody knows) is ``-`` in
``table``, ``markdown`` and ``csv``, and ``null`` in ``json``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
import pandas as pd
from tabulate import tabulate

from .._log.reader import MAX_LINE_BYTES
from .frames import CostTables, PriceSource, cost_by, read_costs, usd_text
from .names import FORMATS, GROUPS
from .price_book import PriceBook
from .rows import Logs

__all__ = ["FORMATS", "CostReport", "cost_report", "escape_text", "parse_time", "render"]

# a date, or a date and time with an optional fraction and offset (RFC 3339, or without offset)
_TIME_SHAPE = re.compile(
    r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|z|[+-]\d{2}:\d{2})?)?"
)


#: Control characters, as the terminal would act on them: C0 (newline and tab included), DEL,
#: C1, and the invisible marks that reorder or break a line (bidi controls, U+2028, U+2029).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_text(text: str) -> str:
    """``text`` with each control character written as an escape (``\\x1b``, ``\\n`` as
    ``\\x0a``, ``\\u202e``): log text in a table cannot move the cursor, set the terminal's
    title, break a row or reorder what is shown."""
    return _CONTROL.sub(_escaped, text)


@dataclass(frozen=True, slots=True)
class CostReport:
    """A grouped cost frame (``cost_by``'s shape) and the tables it came from.

    Attributes:
        missing_prices: the models the price file names but without a price their unpriced
            calls need (``input``, ``output``, ``cache_read``, ``cache_write``).
        price_file: the price file's name, if one was given.
    """

    frame: pd.DataFrame
    by: tuple[str, ...]
    tables: CostTables
    missing_prices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    price_file: str | None = None


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
        ValueError: an unknown group name; ``since`` not before ``until``. And what
            ``read_costs`` raises.
    """
    for name in by:
        if name not in GROUPS:
            raise ValueError(f"cannot group by {name!r}: choose from {', '.join(GROUPS)}")
    if since is not None and until is not None and since >= until:
        raise ValueError(
            f"since ({since.isoformat()}) is not before until ({until.isoformat()}): "
            "no call is made in between"
        )
    book = prices if isinstance(prices, PriceBook) else PriceBook(prices)
    tables = read_costs(
        logs,
        prices=book,
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
    frame = cost_by(calls, list(by))
    return CostReport(frame, tuple(by), tables, _missing_prices(calls, book), book.file_name)


_KINDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_tokens"),
    ("cache_write", "cache_write_tokens"),
)


def _missing_prices(calls: pd.DataFrame, book: PriceBook) -> dict[str, tuple[str, ...]]:
    """For each model the price file names and leaves calls of unpriced: the prices those
    calls need and the file does not give (the kinds of token they have), sorted by model."""
    unpriced = calls[~calls["priced"] & calls["input_tokens"].notna()]
    out: dict[str, tuple[str, ...]] = {}
    for model, group in unpriced.groupby("model", observed=True, sort=True):
        missing = book.missing_prices(str(model))
        if not missing:
            continue
        needed = tuple(
            kind for kind, column in _KINDS if kind in missing and bool((group[column] > 0).any())
        )
        if needed:
            out[str(model)] = needed
    return out


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


def _key(value: Any) -> str | None:
    """A group key as every format shows it: ``None`` for a group with no value, a day as
    ``YYYY-MM-DD``, anything else as its text."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp | dt.datetime):
        return value.strftime("%Y-%m-%d")
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    return str(value)


#: What a Markdown cell escapes with a backslash: the cell's end (``|``), HTML (``<``, ``>``,
#: ``&``), code, links and the backslash itself (CommonMark: any ASCII punctuation may be).
_MARKDOWN = re.compile(r"[\\|<>&`\[\]]")


def _shown(text: str, *, markdown: bool) -> str:
    """Log text as a table or a note shows it: Markdown's active characters escaped (in
    ``markdown``), then control characters."""
    if markdown:
        text = _MARKDOWN.sub(lambda m: "\\" + m[0], text)
    return escape_text(text)


def _cell(value: Any, *, markdown: bool) -> str:
    text = _key(value)
    return "-" if text is None else _shown(text, markdown=markdown)


def _money(value: float, lower_bound: bool) -> str:
    if math.isnan(value):
        return "unpriced"
    return (">=" if lower_bound else "") + usd_text(value)


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
        colalign=[_ALIGN.get(k, "left") for k in keys] + ["right"] * (len(_NUMBERS) + 1),
    )
    notes = []
    if lower_bound:
        markdown = fmt == "markdown"
        missing = report.missing_prices
        unknown = [m for m in frame.attrs.get("unpriced_models", ()) if m not in missing]
        parts = []
        if unknown:
            parts.append(
                f"unpriced models: {_shown(', '.join(unknown), markdown=markdown)}; "
                "give their prices with --prices"
            )
        where = _shown(report.price_file or "the price file", markdown=markdown)
        for model, kinds in missing.items():
            parts.append(
                f"{_shown(model, markdown=markdown)}: {where} gives no {' or '.join(kinds)} "
                f"price, and its calls have such tokens; add {', '.join(kinds)} to its entry"
            )
        if not parts:
            parts.append("unpriced models: (no model named)")
        notes.append(">= a lower bound: some calls could not be priced (" + "; ".join(parts) + ")")
    skipped = report.tables.skipped
    if skipped:
        notes.append(f"{len(skipped)} log(s) skipped as unreadable; see the messages above")
    if fmt == "markdown":
        return table + "\n" + "".join(f"\n{note}\n" for note in notes)
    return table + "\n" + "".join(f"{note}\n" for note in notes)


#: Group key columns aligned to the right (numbers); the others to the left.
_ALIGN = {"run_index": "right"}


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
    keys = _keys(report)
    if fmt == "csv":
        out = frame.copy()
        for key in keys:  # as the table shows them: a day as YYYY-MM-DD, no value as "-"
            out[key] = [_key(v) or "-" for v in out[key].tolist()]
        out["unpriced_models"] = out["unpriced_models"].map(";".join)
        return str(out.to_csv(index=False, lineterminator="\n"))
    if fmt == "json":
        records = [
            {key: _key(value) if key in keys and key != "run_index" else _plain(value)
             for key, value in record.items()}
            for record in frame.to_dict("records")
        ]  # fmt: skip
        document = {
            "by": list(report.by),
            "groups": records,
            "total_cost_usd": _plain(float(frame["cost_usd"].sum(min_count=1)))
            if len(frame)
            else 0.0,
            "lower_bound": bool(frame.attrs.get("lower_bound", False)),
            "unpriced_models": list(frame.attrs.get("unpriced_models", ())),
            "missing_prices": {
                model: list(kinds) for model, kinds in report.missing_prices.items()
            },
            "skipped": [s.problem for s in report.tables.skipped],
            "copies": list(report.tables.copies),
        }
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    raise ValueError(f"unknown format {fmt!r}: choose from {', '.join(FORMATS)}")
