"""Invariants of the cost groups (issue 14), on random sessions: what the command computes
without pandas is what the library computes from frames; groups add up to the total (by
label: each call once per label); the calendar of a zone is zoneinfo's, call by call."""

from __future__ import annotations

import math
import warnings
import zoneinfo
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontools import SessionBuilder, Usage, cost_by, cost_report, read_costs, render
from sessiontools._cost.calendar import calendar_keys, local_ns
from sessiontools._cost.report import summarize

ZONES = ["UTC", "log", "Europe/Berlin", "America/Santiago", "Australia/Lord_Howe"]
GROUPINGS = [
    ["model"],
    ["label"],
    ["day", "model"],
    ["week"],
    ["month", "priced_as"],
    ["label", "day"],
    ["run", "tool"],
    ["provider", "label"],
]
MODELS = [
    ("anthropic", "claude-sonnet-4-5"),
    ("anthropic", "claude-haiku-4-5"),
    ("openai", "gpt-5-2025-08-07"),
    ("openai", "gpt-5"),
    ("openai", "acme-unknown-1"),  # nobody prices it
]
LABELS = ["project:a", "project:b", "web", "private"]
OFFSETS = ["+02:00", "+01:00", "-07:00", "+05:30", "Z"]

_step = st.tuples(
    st.sampled_from(["turn", "tool", "error", "labels", "jump"]),
    st.integers(min_value=0, max_value=len(MODELS) - 1),
    st.integers(min_value=0, max_value=5000),
    st.integers(min_value=0, max_value=5000),
    st.integers(min_value=0, max_value=3),
    st.integers(min_value=0, max_value=len(OFFSETS) - 1),
)
_session = st.lists(st.lists(_step, min_size=1, max_size=6), min_size=1, max_size=4)


def write_session(path: Path, runs: list[list[tuple[int, ...]]], seed: int) -> None:
    """A session from the steps: turns of each model (cache reads and writes), a tool that
    made a model call and gave a label, failed calls, labels entries, and jumps of hours
    across days and offsets (so that zones and the log's own clock disagree)."""
    b = SessionBuilder("2026-10-24T21:30:00+02:00", seed=str(seed))
    hour = 0
    for r, steps in enumerate(runs):
        b.run(f"run {r}")
        for kind, m, a, c, label, offset in steps:
            provider, model = MODELS[m]
            usage = Usage(a, c // 10, cache_read_tokens=c, cache_write_tokens=a // 3)
            turn = b.anthropic if provider == "anthropic" else b.openai
            if kind == "turn":
                turn(model, text="x", usage=usage)
            elif kind == "tool":
                turn(model, calls=[("summarize", {})], usage=usage)
                b.allow(
                    "ok",
                    labels=[LABELS[label]],
                    usage=[(MODELS[(m + 1) % len(MODELS)][1], Usage(c, a // 7))],
                )
            elif kind == "error":
                b.model_error("rate_limited", status=429, retry=True, wait_ms=10)
            elif kind == "labels":
                b.labels(LABELS[label])
            else:
                hour += 7 + a % 30
                when = datetime(2026, 10, 24, 21, 30, tzinfo=UTC) + timedelta(hours=hour)
                text = when.strftime("%Y-%m-%dT%H:%M:%S") + "Z"
                b.at(text.replace("Z", "") + OFFSETS[offset] if OFFSETS[offset] != "Z" else text)
        b.run_ended()
    b.write(path)


def plain(text: str) -> Any:
    import json

    return json.loads(text)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(_session, st.integers(min_value=0, max_value=10**6))
def test_the_command_and_the_library_agree_and_groups_add_up(
    tmp_path: Path, runs: list[list[tuple[int, ...]]], seed: int
) -> None:
    path = tmp_path / f"s{seed}.jsonl"
    write_session(path, runs, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        calls = read_costs(path).model_calls
        for by in GROUPINGS:
            for tz in ZONES:
                command = summarize(path, by=by, tz=tz)
                library = cost_report(path, by=by, tz=tz)
                assert plain(render(command, "json")) == plain(render(library, "json"))
                assert render(command, "csv") == render(library, "csv")
                frame = cost_by(calls, by, tz=tz)
                total = frame.attrs["total"]
                assert total["calls"] == len(calls)
                if "label" in by:  # each call once per label it had, or once under (none)
                    want = sum(max(1, len(labels)) for labels in calls["labels"])
                    assert int(frame["calls"].sum()) == want
                    continue
                assert int(frame["calls"].sum()) == total["calls"]
                for name in ("input_tokens", "cache_read_tokens", "total_tokens"):
                    assert int(frame[name].sum()) == total[name] == int(calls[name].sum())
                priced = float(calls.loc[calls["priced"], "cost_usd"].sum())
                got = float(frame["cost_usd"].sum())  # NaN groups: nothing there priced
                assert math.isclose(got, priced, rel_tol=1e-9, abs_tol=1e-15)
                assert frame.attrs["lower_bound"] == bool((~calls["priced"]).any())


_instant = st.integers(min_value=0, max_value=(2**63 - 1) // 10**9 - 86_400 * 2)


@pytest.mark.parametrize(
    "zone",
    ["Europe/Berlin", "America/Santiago", "Australia/Lord_Howe", "Africa/Monrovia", "Asia/Tehran"],
)
@settings(max_examples=60, deadline=None)
@given(st.lists(_instant, min_size=1, max_size=30), st.integers(min_value=0, max_value=10**9 - 1))
def test_local_time_is_zoneinfo_s_call_by_call(zone: str, seconds: list[int], nanos: int) -> None:
    """Whatever the times (1970 to 2262, transitions on and off the hour: Lord Howe's half
    hour, Monrovia's -0:44:30 until 1972), each is shifted by its own offset in the zone."""
    tz = zoneinfo.ZoneInfo(zone)
    times = np.array([s * 10**9 + nanos for s in seconds], dtype=np.int64)
    want = [
        int(t)
        + int(
            (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=int(t) // 1000))
            .astimezone(tz)
            .utcoffset()
            .total_seconds()  # type: ignore[union-attr]
        )
        * 10**9
        for t in times
    ]
    assert local_ns(times, zone).tolist() == want


def test_a_transition_inside_an_hour_is_taken_call_by_call() -> None:
    """Africa/Monrovia moved from -0:44:30 to UTC at 1972-01-07T00:44:30Z, inside an hour: a
    call at 00:44:29Z is at 23:59:59 on the 6th there, one at 00:44:31Z at 00:44:31 on the
    7th."""
    before = int(datetime(1972, 1, 7, 0, 44, 29, tzinfo=UTC).timestamp()) * 10**9
    after = int(datetime(1972, 1, 7, 0, 44, 31, tzinfo=UTC).timestamp()) * 10**9
    codes, values = calendar_keys(local_ns(np.array([before, after]), "Africa/Monrovia"), "day")
    assert [values[c] for c in codes] == ["1972-01-06", "1972-01-07"]
