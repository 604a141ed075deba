"""What ``sessiontools cost`` prints: the cost of model calls grouped and written as a table,
CSV, JSON or Markdown; the cost exporter's last part, which the command line calls
(docs/costs.md, "Command").

``table`` is for a person: aligned columns (numbers, ``run_index`` included, to the right), a
totals row (each call counted once, also when ``label`` counts a call under each of its
labels), costs rounded for display only (``usd_text``; docs/costs.md, "Showing money"), the
cache hit rate as a percentage, and a group whose cost is a lower bound (some of
its calls unpriced) marked ``>=`` with the unpriced models named under the table, and the
prices a price file leaves out. Under it: the zone of the calendar groups, what ``label``
counts, and a short bar of where the money went (the top groups' share of the total). Text
from the logs (session names, models, providers, tools, labels) has its control characters
escaped (``escape_text``) in ``table`` and ``markdown``, and in ``markdown`` what Markdown
would act on (``|``, HTML, code, links) escaped with a backslash. ``csv`` and ``json`` are
for programs: every column, full precision, NaN as empty / ``null``; ``json`` also holds the
total and the zone.

The group keys read the same in every format: a day is ``YYYY-MM-DD``, a week ``2026-W43``, a
month ``2026-10`` (in the zone used); a group with no value (the agent's own turns under
``tool``, a call whose provider nobody knows) is ``-`` in ``table``, ``markdown`` and
``csv``, and ``null`` in ``json``.

The command groups the columns it read without building a pandas frame
(``summarize``): pandas loads only for the library's ``cost_report`` and ``render`` of its
``CostReport``, which give the same text.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zoneinfo
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from .._log.reader import _FORMAT_CHARS, MAX_LINE_BYTES, code_escape
from .._log.sources import find_logs
from .._model.session import Session
from .build import PriceSource, SkippedLog, call_arrays, check_reported, read_rows, usd_text
from .calendar import CALENDAR, LOG_ZONE, Zone, check_zone, zone_name
from .calendar import parse_time as parse_time_ns
from .groups import METRICS, NUMBERS, CallArrays, Groups, group_costs, key_columns
from .names import FORMATS, NO_LABEL
from .price_book import PriceBook
from .rows import LogReads, Logs, _refused

if TYPE_CHECKING:
    import datetime as dt

    import pandas as pd

    from .frames import CostTables

__all__ = [
    "FORMATS",
    "CostReport",
    "Summary",
    "cost_report",
    "escape_text",
    "parse_time",
    "render",
    "summarize",
]


#: Control characters, as the terminal would act on them: C0 (newline and tab included), DEL,
#: C1, the marks that break a line (U+2028, U+2029), and the invisible format characters
#: (bidi controls, zero-width spaces and joiners, tags...: ``reader._FORMAT_CHARS``).
_CONTROL = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_FORMAT_CHARS}]")


def _escaped(match: re.Match[str]) -> str:
    return code_escape(match[0])  # a newline too is \\x0a here: a table's cell is one line


def escape_text(text: str) -> str:
    """``text`` with each control and invisible format character written as an escape
    (``\\x1b``, ``\\n`` as ``\\x0a``, ``\\u202e``, ``\\u200b``, ``\\U000e0041``): log text in a
    table cannot move the cursor, set the terminal's title, break a row, reorder what is
    shown, or hide a character (``pri\\u200bvate`` is not ``private``)."""
    if text.isascii() and text.isprintable():
        return text
    return _CONTROL.sub(_escaped, text)


@dataclass(frozen=True, slots=True)
class Summary:
    """What ``sessiontools cost`` reports: the groups (``groups.Groups``: their
    columns, the total and the zone), the logs skipped and those that were copies, how many
    logs were given, and the prices a price file leaves out (see ``CostReport``)."""

    groups: Groups
    skipped: tuple[SkippedLog, ...] = ()
    copies: tuple[str, ...] = ()
    missing_prices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    price_file: str | None = None


@dataclass(frozen=True, slots=True)
class CostReport:
    """A grouped cost frame (``cost_by``'s shape) and the tables it came from.

    Attributes:
        missing_prices: the models the price file names but without a price their unpriced
            calls need (``input``, ``output``, ``cache_read``, ``cache_write``).
        price_file: the price file's name, if one was given.
        tz: the zone the calendar groups are in (``frame.attrs["tz"]``).
    """

    frame: pd.DataFrame
    by: tuple[str, ...]
    tables: CostTables
    missing_prices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    price_file: str | None = None
    tz: str = "UTC"


def parse_time(text: str, tz: str = "UTC") -> pd.Timestamp:
    """A ``--since`` / ``--until`` time: RFC 3339 (``2026-10-18T09:30:00+02:00``), or a date
    (``2026-10-18``, midnight) or a time without an offset, read in ``tz`` (``UTC`` by default;
    in UTC for ``log``). See ``calendar.parse_time``.

    Raises:
        ValueError: not such a time, or ``tz`` is not a zone.
    """
    import pandas as pd

    return pd.Timestamp(parse_time_ns(text, tz), unit="ns", tz="UTC")


def _ns(
    when: pd.Timestamp | dt.datetime | dt.date | str | None, tz: str, what: str = "since"
) -> int | None:
    """A bound as UTC nanoseconds: a time with an offset as it is, text as ``parse_time``, a
    date as its midnight in the zone.

    Raises:
        TypeError: ``when`` is not a time, a date or text (a number of seconds is ambiguous).
        ValueError: ``when`` is NaT, or text that is no time.
    """
    import datetime as dt

    if when is None:
        return None
    if isinstance(when, str):
        return parse_time_ns(when, tz)
    if not isinstance(when, dt.date):  # datetime, pd.Timestamp and NaT are dates too
        raise TypeError(
            f"{what} must be a datetime, a pandas Timestamp, a date or RFC 3339 text, not "
            f"{type(when).__name__} {when!r}"
        )
    import pandas as pd

    if pd.isna(when):  # NaT
        raise ValueError(f"{what} is NaT, not a time; give None for no bound")
    if not isinstance(when, dt.datetime):  # a date: its midnight, as text gives it
        return parse_time_ns(when.isoformat(), tz)
    stamp = pd.Timestamp(when)
    if stamp.tzinfo is not None:
        return int(stamp.tz_convert("UTC").value)
    # a naive time is read in the zone (in UTC for `log`), as parse_time reads text: a time a
    # daylight-saving switch skips or repeats with the offset in force before it
    if tz in ("UTC", LOG_ZONE):
        return int(stamp.value)
    offset = stamp.to_pydatetime(warn=False).replace(tzinfo=zoneinfo.ZoneInfo(tz)).utcoffset()
    assert offset is not None
    return int(stamp.value) - int(offset.total_seconds()) * 1_000_000_000


def _check(by: Sequence[str], since: int | None, until: int | None, tz: str) -> None:
    key_columns(by)
    check_zone(tz)
    if since is not None and until is not None and since >= until:
        raise ValueError(
            f"since ({_iso(since)}) is not before until ({_iso(until)}): no call is made in between"
        )


def _iso(ns: int) -> str:
    from .._log.times import format_rfc3339

    return format_rfc3339(ns)


def cost_report(
    logs: Logs,
    *,
    by: Sequence[str] = ("model",),
    prices: PriceSource = None,
    since: pd.Timestamp | dt.datetime | dt.date | str | None = None,
    until: pd.Timestamp | dt.datetime | dt.date | str | None = None,
    tz: Zone = "UTC",
    skip_damaged: bool = True,
    progress: Callable[[str], None] | None = None,
    workers: int | None = 1,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> CostReport:
    """Read ``logs`` and group the cost of their model calls.

    Args:
        logs, prices, skip_damaged, progress, workers, max_line_bytes: see ``read_costs``.
        by: any of ``GROUPS`` (``cost_by``).
        since, until: keep the calls made at or after ``since`` and before ``until``; a time
            without an offset (or text without one, ``parse_time``; a ``date``, its midnight)
            is read in ``tz``.
        tz: the zone of the calendar groups: ``UTC``, an IANA name, or ``log``; or a
            ``tzinfo`` with a name (``zoneinfo.ZoneInfo``, ``datetime.timezone.utc``).

    Raises:
        ValueError: an unknown group name or zone; ``since`` not before ``until``; a bound
            that is NaT. And what ``read_costs`` raises.
        TypeError: a bound that is not a time, a date or text (a number); a ``tz`` that is
            neither a name nor a zone with one.
    """
    from .frames import call_arrays as frame_arrays
    from .frames import cost_by, read_costs

    tz = check_zone(zone_name(tz))
    since_ns, until_ns = _ns(since, tz, "since"), _ns(until, tz, "until")
    _check(by, since_ns, until_ns, tz)
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
    times = calls["time"].astype("int64")
    keep = times.notna()
    if since_ns is not None:
        keep &= times >= since_ns
    if until_ns is not None:
        keep &= times < until_ns
    calls = calls[keep]
    frame = cost_by(calls, list(by), tz=tz)
    missing = missing_prices(frame_arrays(calls), book)
    return CostReport(frame, tuple(by), tables, missing, book.file_name, tz)


def summarize(
    logs: Logs | LogReads,
    *,
    by: Sequence[str] = ("model",),
    prices: PriceSource = None,
    since: int | None = None,
    until: int | None = None,
    tz: Zone = "UTC",
    skip_damaged: bool = True,
    progress: Callable[[str], None] | None = None,
    workers: int | None = 1,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> Summary:
    """What ``cost_report`` computes, without pandas: ``sessiontools cost``'s path.

    ``since`` and ``until`` are UTC nanoseconds (``calendar.parse_time``).
    Warnings are given as ``read_costs`` gives them.

    Raises:
        ValueError: an unknown group name or zone; ``since`` not before ``until``. And what
            ``read_costs`` raises.
    """
    tz = check_zone(zone_name(tz))
    _check(by, since, until, tz)
    started = (
        logs
        if isinstance(logs, LogReads)
        else LogReads(find_logs(logs, keep=(Session,)), workers, max_line_bytes=max_line_bytes)
    )
    builder, book, skipped, _ = read_rows(
        started, prices, skip_damaged=skip_damaged, progress=progress, stacklevel=2
    )
    built = builder.priced(book)
    for _ in check_reported(built, stacklevel=2):
        pass
    calls = call_arrays(built, book).between(since, until)
    groups = group_costs(calls, list(by), tz)
    return Summary(
        groups,
        tuple(skipped),
        tuple(builder.copies()),
        missing_prices(calls, book),
        book.file_name,
    )


_KINDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_tokens"),
    ("cache_write", "cache_write_tokens"),
)


def missing_prices(calls: CallArrays, book: PriceBook) -> dict[str, tuple[str, ...]]:
    """For each model the price file names and leaves calls of unpriced: the prices those
    calls need and the file does not give (the kinds of token they have), sorted by model."""
    unpriced = ~calls.priced & calls.has_usage
    out: dict[str, tuple[str, ...]] = {}
    if not unpriced.any():
        return out
    codes = calls.model.codes
    named = {code for code in codes[unpriced].tolist() if code >= 0}  # -1: no model at all
    for code in sorted(named, key=lambda c: calls.model.values[c]):
        model = str(calls.model.values[code])
        missing = book.missing_prices(model)
        if not missing:
            continue
        rows = unpriced & (codes == code)
        needed = tuple(
            kind
            for kind, column in _KINDS
            if kind in missing and bool((calls.tokens[column][rows] > 0).any())
        )
        if needed:
            out[model] = needed
    return out


def _key(value: Any) -> str | None:
    """A group key as every format shows it: ``None`` for a group with no value, anything
    else as its text."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if value.__class__.__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return None
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


def _cell(value: Any, *, markdown: bool, key: str = "") -> str:
    """A group key as ``table`` and ``markdown`` show it: no value as ``-`` (by ``label``: the
    calls with no label, ``(none)``); a label agentloop refuses in double quotes, a quote or
    backslash in it after a backslash (``"(none)"``, ``"-"``, ``""``), so that it reads apart
    from ``(none)`` and from every real label, none of which starts with ``"`` or ``(``;
    control characters escaped (``_shown``); text cut to ``_NAME_WIDTH`` columns."""
    text = _key(value)
    if text is None:
        return NO_LABEL if key == "label" else "-"
    if key == "label" and _refused(text):
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return _fit(_shown(text, markdown=markdown), keep_end=key == "session")


def _money(value: float, lower_bound: bool) -> str:
    if math.isnan(value):
        return "unpriced"
    return (">=" if lower_bound else "") + usd_text(value)


def _rate(value: float) -> str:
    """A cache hit rate for a person: a percentage, one decimal; ``-`` with no input."""
    return "-" if math.isnan(value) else f"{100 * value:.1f}%"


def _savings(value: float) -> str:
    return "unknown" if math.isnan(value) else usd_text(value)


#: The widest a group key is shown in ``table`` and ``markdown`` (the bar's names and the
#: notes' model names too), in terminal columns: a longer one is cut, ``…`` for what is cut
#: (a session's name, a path, keeps its end). ``csv`` and ``json`` keep every name whole.
_NAME_WIDTH = 100


def _width(text: str) -> int:
    """How many terminal columns ``text`` takes (``wcwidth``: a CJK character or an emoji
    two, a combining mark none); text escaped already (``_shown``), so every character shows."""
    if text.isascii():
        return len(text)
    from wcwidth import wcswidth

    width = wcswidth(text)
    return width if width >= 0 else len(text)


def _fit(text: str, *, keep_end: bool = False) -> str:
    """``text`` cut to ``_NAME_WIDTH`` columns, ``…`` for what is cut: its end, or with
    ``keep_end`` its start (a character wider than the room left is cut whole)."""
    if len(text) <= _NAME_WIDTH and (text.isascii() or _width(text) <= _NAME_WIDTH):
        return text
    room = _NAME_WIDTH - 1
    if text.isascii():
        return "…" + text[-room:] if keep_end else text[:room] + "…"
    from wcwidth import wcwidth

    used = 0
    chars = reversed(range(len(text))) if keep_end else range(len(text))
    for i in chars:
        used += max(wcwidth(text[i]), 0)
        if used > room:
            return "…" + text[i + 1 :] if keep_end else text[:i] + "…"
    return text


def _ljust(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


#: The columns of ``table`` and ``markdown`` after the keys.
_SHOWN = (*NUMBERS, "cost_usd", "cache_hit_rate", "cache_savings_usd")
#: Group key columns aligned to the right (numbers); the others to the left.
_ALIGN = {"run_index": "right"}
#: How many groups the bar under ``table`` shows, and how wide it is.
_BAR_GROUPS = 5
_BAR_WIDTH = 30


def _zone_note(summary: Summary) -> str | None:
    groups = summary.groups
    if not any(key in CALENDAR for key in groups.keys):
        return None
    if groups.tz == LOG_ZONE:
        return "days, weeks and months by the log's own clock: each entry's UTC offset (--tz log)"
    return f"days, weeks and months in {groups.tz} (--tz)"


def _human(summary: Summary, fmt: str, colour: bool) -> str:
    groups = summary.groups
    markdown = fmt == "markdown"
    keys = list(groups.keys)
    columns = groups.columns
    headers = [*keys, *_SHOWN]
    rows: list[list[Any]] = []
    for i in range(len(groups)):
        row: list[Any] = [_cell(columns[k][i], markdown=markdown, key=k) for k in keys]
        rows.append(row + _metrics({name: columns[name][i] for name in METRICS}))
    total = groups.total
    rows.append(["total", *[""] * (len(keys) - 1), *_metrics(total)])
    from tabulate import tabulate  # only for a person's formats

    table = tabulate(
        rows,
        headers=headers,
        tablefmt="github" if markdown else "simple",
        disable_numparse=True,
        colalign=[_ALIGN.get(k, "left") for k in keys] + ["right"] * len(_SHOWN),
    )
    notes = []
    if groups.lower_bound:
        missing = summary.missing_prices
        unknown = [m for m in groups.unpriced_models if m not in missing]
        parts = []
        if unknown:
            parts.append(
                "unpriced models: "
                f"{', '.join(_fit(_shown(m, markdown=markdown)) for m in unknown)}; "
                "give their prices with --prices"
            )
        where = _shown(summary.price_file or "the price file", markdown=markdown)
        for model, kinds in missing.items():
            parts.append(
                f"{_fit(_shown(model, markdown=markdown))}: {where} gives no {' or '.join(kinds)} "
                f"price, and its calls have such tokens; add {', '.join(kinds)} to its entry"
            )
        if not parts:
            parts.append("unpriced models: (no model named)")
        notes.append(">= a lower bound: some calls could not be priced (" + "; ".join(parts) + ")")
    if summary.skipped:
        skipped = len(summary.skipped)
        notes.append(
            f"{skipped} {'log was' if skipped == 1 else 'logs were'} skipped as damaged or "
            "unreadable, and not counted; see the messages above"
        )
    if "label" in keys:
        notes.append(
            "a call counts under each label the session held when it was made (under "
            f"{NO_LABEL} when it held none); the total counts each call once"
        )
    zone = _zone_note(summary)
    if zone is not None:
        notes.append(zone)
    if markdown:
        return table + "\n" + "".join(f"\n{note}\n" for note in notes)
    bar = _bar(summary, colour)
    return table + "\n" + "".join(f"{note}\n" for note in notes) + bar


def _metrics(values: dict[str, Any]) -> list[str]:
    return [
        *(str(int(values[n])) for n in NUMBERS),
        _money(float(values["cost_usd"]), bool(values["lower_bound"])),
        _rate(float(values["cache_hit_rate"])),
        _savings(float(values["cache_savings_usd"])),
    ]


def _bar(summary: Summary, colour: bool) -> str:
    """Where the money went: the top groups by cost, each with its share of the total (each
    call counted once) as a bar of ``#``. Nothing for a single group, or when nothing was
    priced."""
    groups = summary.groups
    total = float(groups.total["cost_usd"])
    if len(groups) < 2 or not total > 0:  # one group has it all: nothing to compare
        return ""
    costs = [float(c) for c in groups.columns["cost_usd"]]
    ranked = sorted(
        (i for i, c in enumerate(costs) if not math.isnan(c)), key=lambda i: (-costs[i], i)
    )[:_BAR_GROUPS]
    names = [
        " / ".join(_cell(groups.columns[k][i], markdown=False, key=k) for k in groups.keys)
        for i in ranked
    ]
    width = max(_width(name) for name in names)
    counted = len([c for c in costs if not math.isnan(c)])
    title = f"share of the cost (top {len(ranked)} of {counted} groups"
    if "label" in groups.keys:
        title += "; a call counts under each of its labels"
    if groups.lower_bound:
        title += "; of the priced calls"
    lines = [title + "):"]
    for name, i in zip(names, ranked, strict=True):
        share = costs[i] / total
        filled = round(share * _BAR_WIDTH)
        bar = "#" * filled
        if colour:
            bar = f"\x1b[36m{bar}\x1b[0m"
        lines.append(
            f"  {_ljust(name, width)}  {bar}{'.' * (_BAR_WIDTH - filled)}  {100 * share:5.1f}%"
        )
    return "\n" + "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    if value is None:
        return None
    if hasattr(value, "item"):  # numpy scalars
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if value.__class__.__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, tuple):
        return list(value)
    return value


def _csv_value(value: Any) -> Any:
    """A metric as ``csv`` writes it: NaN empty; ``true``/``false`` as in ``json``; the
    unpriced models as a JSON array (``["a;b", "c"]``: a model id may hold any character, so
    no separator could be split on); numbers at full precision (``repr``)."""
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return orjson.dumps(value).decode()
    return value


def _summary(report: CostReport | Summary) -> Summary:
    """The groups of a library ``CostReport`` (its frame) as the command has them."""
    if isinstance(report, Summary):
        return report
    frame = report.frame
    keys = key_columns(report.by)
    columns = {name: frame[name].tolist() for name in (*keys, *METRICS)}
    total = frame.attrs.get("total")
    if total is None:  # a frame made by other means: its groups' sums
        total = {name: frame[name].sum() for name in (*NUMBERS, "unpriced_calls")}
        total["cost_usd"] = float(frame["cost_usd"].sum(min_count=1)) if len(frame) else 0.0
        total["cache_hit_rate"] = math.nan
        total["cache_savings_usd"] = float(frame["cache_savings_usd"].sum(min_count=1))
        total["lower_bound"] = bool(frame.attrs.get("lower_bound", False))
        total["unpriced_models"] = tuple(frame.attrs.get("unpriced_models", ()))
    groups = Groups(report.by, tuple(keys), columns, dict(total), report.tz)
    tables = report.tables
    return Summary(groups, tables.skipped, tables.copies, report.missing_prices, report.price_file)


def render(report: CostReport | Summary, fmt: str, *, colour: bool = False) -> str:
    """The report in ``fmt`` (``table``, ``csv``, ``json`` or ``markdown``); ``colour``: the
    table's bar in colour (for a terminal).

    Raises:
        ValueError: an unknown format.
    """
    summary = _summary(report)
    if fmt in ("table", "markdown"):
        return _human(summary, fmt, colour)
    groups = summary.groups
    keys = list(groups.keys)
    columns = groups.columns
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow([*keys, *METRICS])
        for i in range(len(groups)):
            # keys as the table shows them: no value as "-"
            row = [_key(columns[k][i]) or "-" for k in keys]
            writer.writerow(row + [_csv_value(columns[name][i]) for name in METRICS])
        return out.getvalue()
    if fmt == "json":
        records = [
            {
                **{k: _key(columns[k][i]) if k != "run_index" else _plain(columns[k][i])
                   for k in keys},
                **{name: _plain(columns[name][i]) for name in METRICS},
            }
            for i in range(len(groups))
        ]  # fmt: skip
        total = groups.total
        document = {
            "by": list(groups.by),
            "tz": groups.tz,
            "groups": records,
            "total": {name: _plain(total[name]) for name in METRICS},
            "total_cost_usd": _plain(float(total["cost_usd"])),
            "lower_bound": groups.lower_bound,
            "unpriced_models": list(groups.unpriced_models),
            "missing_prices": {
                model: list(kinds) for model, kinds in summary.missing_prices.items()
            },
            "skipped": [s.problem for s in summary.skipped],
            "copies": list(summary.copies),
        }
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"
    raise ValueError(f"unknown format {fmt!r}: choose from {', '.join(FORMATS)}")
