"""Where things go in the report's SVG drawings: the timeline of a run, the cost chart.

Numbers only. A run's timeline is drawn to scale in time by the page's script, from the
facts (``render._Facts``): the run's height and its rows (lane and y), and each mark's row,
classes, span id, start and duration (which the hover shows, to the nanosecond). Written as
SVG elements, the marks and their groups were half of the report's bytes. x and width are
percentages of the drawing's width (so zooming widens the drawing, and text stays upright),
set as the style's ``--x`` and ``--w``; the style draws a mark at least 4 pixels wide,
centred on its time, so a span of no length can be seen and hovered at any zoom. Its row's
group places it in y, its lane's style gives its height. The axis' ticks are three or four
round times, drawn for the part of the run in view.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import facts
from .collect import Mark, RunView
from .costs import Cost

__all__ = [
    "LANE_HEIGHTS",
    "Bar",
    "Chart",
    "Row",
    "Timeline",
    "cost_chart",
    "format_duration",
    "timeline",
]

#: A mark's height on each lane, in pixels (the page's style sets it: report.css).
LANE_HEIGHTS = facts.LANE_HEIGHTS


@dataclass(frozen=True, slots=True)
class Row:
    """One row of a lane: its top in pixels, the lane (``LANE_*``), its marks."""

    y: int
    lane: int
    marks: tuple[Mark, ...]


@dataclass(frozen=True, slots=True)
class Timeline:
    """A run's drawing: its height (the time axis' labels 4 pixels above its bottom), its rows
    of marks (each mark on exactly one row, in the marks' order within a row), and the axis
    in time: it starts ``origin_ns`` after the run started and is ``length_ns`` long (the
    script places the marks and the axis' ticks on it).

    The marks' order in the page's facts is the rows' order: ``placed()`` gives it."""

    height: int
    rows: tuple[Row, ...]
    origin_ns: int
    length_ns: int

    def placed(self) -> list[tuple[Mark, int, int]]:
        """The marks in the order of the facts, each with its row's number and its lane."""
        return [(mark, i, row.lane) for i, row in enumerate(self.rows) for mark in row.marks]


def timeline(run: RunView) -> Timeline:
    """Where a run's marks go: one lane each for the run, its model calls, its tool calls
    (calls that overlap in time on rows below each other) and the model calls its tools made
    (a tool's n-th model call on the n-th row: they have no times of their own and span
    their tool's call). Empty lanes take no room. (The page's facts hold it as it was made
    where the log was read: ``RunView.drawing``, ``facts.drawing``.)"""
    lanes, height, origin, length = run.drawing
    placed: dict[tuple[int, int], list[Mark]] = {}
    for mark in run.marks:
        placed.setdefault((mark.lane, mark.row), []).append(mark)
    rows = []
    row_of_lane = [0, 0, 0, 0]
    for number in range(len(lanes) // 2):
        lane, y = lanes[2 * number], lanes[2 * number + 1]
        row = row_of_lane[lane]
        row_of_lane[lane] += 1
        rows.append(Row(y, lane, tuple(placed.pop((lane, row), ()))))
    if placed:
        raise AssertionError(f"run {run.index}: marks on no row: {sorted(placed)}")
    return Timeline(height, tuple(rows), origin, length)


def format_duration(ns: int) -> str:
    """A duration for a person: ``0``, ``850 µs``, ``12.5 ms``, ``3.25 s``, ``4 min 5 s``,
    ``2 h 3 min``."""
    if ns == 0:
        return "0"
    if ns < 1_000:
        return f"{ns} ns"
    if ns < 1_000_000:
        return f"{ns / 1e3:.3g} µs"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.3g} ms"
    seconds = ns / 1e9
    if seconds < 60:
        return f"{seconds:.3g} s"
    minutes, second = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {second} s" if second else f"{minutes} min"
    hours, minute = divmod(minutes, 60)
    return f"{hours} h {minute} min" if minute else f"{hours} h"


# The overview's chart: cost per day, stacked by model.

#: How many models get a colour of their own in the chart; the rest are "other models".
CHART_MODELS = 9


@dataclass(frozen=True, slots=True)
class Bar:
    """One model's part of one day's bar (pixels in the chart's ``viewBox``)."""

    x: float
    y: float
    width: float
    height: float
    series: int
    day: str
    model: str
    cost: Cost


@dataclass(frozen=True, slots=True)
class Chart:
    """A stacked bar chart: ``series`` are the legend's model names (index = colour)."""

    width: int
    height: int
    plot_left: int
    plot_bottom: int
    bars: tuple[Bar, ...]
    series: tuple[str, ...]
    y_ticks: tuple[tuple[float, float], ...]
    x_labels: tuple[tuple[float, str], ...]


def cost_chart(day_model_costs: Sequence[tuple[str, str, Cost]]) -> Chart | None:
    """Cost per UTC day, a bar a day (days without calls too), stacked by model: the costliest
    models first, the rest together as ``other models``. ``None`` when nothing cost anything."""
    if not day_model_costs or not any(c.usd > 0 for _, _, c in day_model_costs):
        return None
    by_model: dict[str, float] = {}
    for _, model, cost in day_model_costs:
        by_model[model] = by_model.get(model, 0.0) + cost.usd
    ranked = sorted(by_model, key=lambda m: (-by_model[m], m))
    # one model more than there are colours gets a colour rather than a lonely "other"
    named = ranked if len(ranked) <= CHART_MODELS + 1 else ranked[:CHART_MODELS]
    series = [m or "(no model)" for m in named]
    other = len(ranked) > len(named)
    if other:
        series.append("other models")
    index = {m: i for i, m in enumerate(named)}
    first = dt.date.fromisoformat(day_model_costs[0][0])
    last = dt.date.fromisoformat(day_model_costs[-1][0])
    days = [(first + dt.timedelta(days=i)).isoformat() for i in range((last - first).days + 1)]
    column = {d: i for i, d in enumerate(days)}
    stacks: dict[str, list[tuple[int, str, Cost]]] = {d: [] for d in days}
    merged: dict[str, Cost] = {}
    for day, model, cost in day_model_costs:
        if model in index:
            stacks[day].append((index[model], model or "(no model)", cost))
        else:
            before = merged.get(day, Cost(0.0))
            merged[day] = Cost(
                before.usd + cost.usd,
                before.unpriced + cost.unpriced,
                before.known and cost.known,
            )
    for day, cost in merged.items():
        stacks[day].append((len(named), "other models", cost))
    top = max(sum(c.usd for _, _, c in stack) for stack in stacks.values())
    scale_top = _nice_money(top)
    plot_left, plot_top, plot_bottom = 64, 10, 170
    step = max(8, min(40, 720 // max(len(days), 1)))
    width = plot_left + step * len(days) + 10
    height = plot_bottom + 30
    bars = []
    for day in days:
        bottom = float(plot_bottom)
        x = plot_left + column[day] * step + 1
        for series_index, model, cost in sorted(stacks[day]):
            h = (plot_bottom - plot_top) * cost.usd / scale_top
            if h <= 0:
                continue
            bottom -= h
            bars.append(
                Bar(
                    round(x, 2),
                    round(bottom, 2),
                    step - 2,
                    round(h, 2),
                    series_index,
                    day,
                    model,
                    cost,
                )
            )
    y_ticks = tuple(
        (round(plot_bottom - (plot_bottom - plot_top) * i / 4, 2), scale_top * i / 4)
        for i in range(5)
    )
    every = max(1, math.ceil(len(days) * 70 / (width - plot_left)))
    x_labels = tuple(
        (plot_left + i * step + step / 2, d[5:]) for i, d in enumerate(days) if i % every == 0
    )
    return Chart(
        width, height, plot_left, plot_bottom, tuple(bars), tuple(series), y_ticks, x_labels
    )


def _nice_money(value: float) -> float:
    """A round top for the chart's scale, at least ``value``."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for m in (1, 2, 2.5, 5, 10):
        if m * power >= value:
            return m * power
    return 10 * power  # pragma: no cover
