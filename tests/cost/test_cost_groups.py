"""Cost by label, week and month in a time zone, by the model a price came from, and what the
cache saved (issue 14): the frames' new columns and ``cost_by``'s new groups.

Every expected value is worked out by hand below from the prices, never printed by the code.
Prices, US dollars per million tokens (input / output / cache read / cache write), as
genai-prices 0.2.3 holds them for these dates (``genai_prices/data.py``; no price of these
models changes in 2026), which are also the providers' published prices:

- ``claude-sonnet-4-5`` (anthropic): 3 / 15 / 0.30 / 3.75 (requests up to 200,000 input
  tokens; every request here is far below);
- ``claude-haiku-4-5`` (anthropic): 1 / 5 / 0.10 / 1.25;
- ``gpt-5`` (openai; ``gpt-5-2025-08-07`` is matched to it): 1.25 / 10 / 0.125 / none: with no
  cache-write price, cache writes are input tokens at the input price, 1.25 (genai-prices' rule,
  and OpenAI's billing).

The calls (``LOG`` and ``OTHER``), the time each entry was written (agentloop ran at UTC-7),
and the labels the session held at the call's entry:

=====  ==========================  =========================  ======================  ==========
call   model                       written                     UTC                     labels
=====  ==========================  =========================  ======================  ==========
C1     claude-sonnet-4-5 (turn)    2026-10-31T16:30-07:00      2026-10-31T23:30Z       apollo
C2     claude-haiku-4-5 (tool)     2026-11-01T17:30-07:00      2026-11-02T00:30Z       A+web+sum
C3     gpt-5-2025-08-07 (turn)     2026-11-01T17:31-07:00      2026-11-02T00:31Z       A+web+sum
C5     acme-9000 (turn, unpriced)  2026-11-03T10:01-07:00      2026-11-03T17:01Z       A+web+sum
C6     gpt-5 (turn)                2026-11-03T10:02-07:00      2026-11-03T17:02Z       A+web+sum
F      claude-sonnet-4-5 (failed)  2026-11-03T10:01-07:00      2026-11-03T17:01Z       (none)
C7     claude-sonnet-4-5 (turn)    2026-11-03T10:02-07:00      2026-11-03T17:02Z       (none)
=====  ==========================  =========================  ======================  ==========

(apollo: ``project:apollo``, from a ``labels`` entry before the run; ``web`` from the allowed
decision at seq 4, ``summary`` from the result at seq 5, which C2 was made for: a tool's model
calls count at its result, with its labels. F and C7 are in another session, with no labels.)

Costs, cache hit rates (cache reads / (input + cache reads + cache writes)) and cache savings
(cache reads * (input - cache read price) + cache writes * (input - cache write price)):

- C1: 1000 in, 200 out, 4000 read, 2000 written: (1000*3 + 200*15 + 4000*0.30 + 2000*3.75)/1e6
  = (3000 + 3000 + 1200 + 7500)/1e6 = 0.0147; hit 4000/7000; saved
  (4000*(3 - 0.30) + 2000*(3 - 3.75))/1e6 = (10800 - 1500)/1e6 = 0.0093.
- C2: 3000 in, 300 out, 1000 read: (3000*1 + 300*5 + 1000*0.10)/1e6 = 0.0046; hit 1000/4000 =
  0.25; saved 1000*(1 - 0.10)/1e6 = 0.0009.
- C3: 2000 in, 500 out, 6000 read, 1000 written: (2000*1.25 + 500*10 + 6000*0.125 +
  1000*1.25)/1e6 = (2500 + 5000 + 750 + 1250)/1e6 = 0.0095; hit 6000/9000; saved
  (6000*(1.25 - 0.125) + 1000*(1.25 - 1.25))/1e6 = 6750/1e6 = 0.00675.
- C5: 100 in, 10 out, 900 read: unpriced (NaN), hit 900/1000 = 0.9, saved NaN.
- C6: 1000 in, 100 out: (1000*1.25 + 100*10)/1e6 = 0.00225; hit 0; saved 0.
- F: no tokens: costs 0, hit NaN, saved 0.
- C7: 500 in, 50 out, 1000 written: (500*3 + 50*15 + 1000*3.75)/1e6 = (1500 + 750 + 3750)/1e6
  = 0.006; hit 0/1500 = 0; saved 1000*(3 - 3.75)/1e6 = -0.00075 (the write premium).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pandas as pd
import pytest

from sessiontools import COLUMNS, cost_by, read_costs
from tests.helpers import assistant, line, outcome, result, usage, user

M = 1_000_000
C1 = 14700 / M
C2 = 4600 / M
C3 = 9500 / M
C6 = 2250 / M
C7 = 6000 / M
SAVED_C1, SAVED_C2, SAVED_C3, SAVED_C7 = 9300 / M, 900 / M, 6750 / M, -750 / M


def la(day: int, clock: str) -> str:
    """A time written at UTC-7 on 2026-10-``day`` (or November, for days past 31)."""
    month, dom = (10, day) if day <= 31 else (11, day - 31)
    return f"2026-{month:02d}-{dom:02d}T{clock}-07:00"


A = "project:apollo"
LOG = (
    line(0, "labels", {"labels": [A], "source": "seed"}, la(31, "16:00:00"))
    + line(1, "run_started", {"prompt": "p"}, la(31, "16:29:00"))
    + line(2, "message", user("p"), la(31, "16:29:30"))
    + line(
        3,
        "message",
        assistant(("c1", "summarize"), u=usage(1000, 200, read=4000, write=2000)),
        la(31, "16:30:00"),
    )
    + line(
        4,
        "decision",
        {"call_id": "c1", "tool": "summarize", "verdict": "allow", "labels": ["web"]},
        la(31, "16:31:00"),
    )
    + line(
        5,
        "tool_result",
        result(
            "c1",
            "short",
            labels=["summary"],
            usage=[{"model": "claude-haiku-4-5", "usage": usage(3000, 300, read=1000)}],
        ),
        la(32, "17:30:00"),
    )
    + line(
        6,
        "message",
        assistant(
            text="done",
            provider="openai",
            model="gpt-5-2025-08-07",
            u=usage(2000, 500, read=6000, write=1000),
        ),
        la(32, "17:31:00"),
    )
    + line(7, "run_ended", outcome(turns=2), la(32, "17:32:00"))
    + line(8, "run_started", {"prompt": "q"}, la(34, "10:00:00"))
    + line(
        9,
        "message",
        assistant(text="?", provider="acme", model="acme-9000", u=usage(100, 10, read=900)),
        la(34, "10:01:00"),
    )
    + line(
        10,
        "message",
        assistant(text="!", provider="openai", model="gpt-5", u=usage(1000, 100)),
        la(34, "10:02:00"),
    )
    + line(11, "run_ended", outcome(turns=2), la(34, "10:03:00"))
)
OTHER = (
    line(0, "run_started", {"prompt": "r"}, la(34, "10:00:00"))
    + line(
        1,
        "model_error",
        {"error": {"kind": "rate_limited", "status": 429}, "retry": True, "wait_ms": 0},
        la(34, "10:01:00"),
    )
    + line(2, "message", assistant(text="x", u=usage(500, 50, write=1000)), la(34, "10:02:00"))
    + line(3, "run_ended", outcome(turns=1), la(34, "10:03:00"))
)


@pytest.fixture
def calls(tmp_path: Path) -> pd.DataFrame:
    (tmp_path / "a.jsonl").write_bytes(LOG)
    (tmp_path / "b.jsonl").write_bytes(OTHER)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return read_costs(tmp_path).model_calls


def close(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)


def row(frame: pd.DataFrame, column: str, value: object) -> pd.Series:
    (found,) = frame.index[frame[column] == value]
    return frame.loc[found]


def test_the_new_columns_have_fixed_dtypes() -> None:
    calls = COLUMNS["model_calls"]
    assert calls["labels"] == "object" and calls["utc_offset_seconds"] == "int32"
    assert calls["priced_as"] == "category"
    assert calls["cache_hit_rate"] == calls["cache_savings_usd"] == "float64"
    runs = COLUMNS["runs"]
    assert runs["cache_hit_rate"] == runs["cache_savings_usd"] == "float64"


def test_each_call_row(calls: pd.DataFrame) -> None:
    """The rows of the table in the module docstring, in log order (a.jsonl, then b.jsonl)."""
    assert list(calls.dtypes.astype(str)) == list(COLUMNS["model_calls"].values())
    assert list(calls["model"].astype(object)) == [
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
        "gpt-5-2025-08-07",
        "acme-9000",
        "gpt-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
    ]
    assert list(calls["priced_as"].astype(object).fillna("-")) == [
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
        "gpt-5",
        "-",
        "gpt-5",
        "claude-sonnet-4-5",  # the failed call: its model has a price (it costs 0 anyway)
        "claude-sonnet-4-5",
    ]
    held = (A, "summary", "web")
    assert list(calls["labels"]) == [(A,), held, held, held, held, (), ()]
    assert list(calls["utc_offset_seconds"]) == [-7 * 3600] * 7
    want_cost = [C1, C2, C3, math.nan, C6, 0.0, C7]
    want_hit = [4000 / 7000, 0.25, 6000 / 9000, 0.9, 0.0, math.nan, 0.0]
    want_saved = [SAVED_C1, SAVED_C2, SAVED_C3, math.nan, 0.0, 0.0, SAVED_C7]
    for column, want in (
        ("cost_usd", want_cost),
        ("cache_hit_rate", want_hit),
        ("cache_savings_usd", want_saved),
    ):
        got = calls[column].tolist()
        assert [math.isnan(g) for g in got] == [math.isnan(w) for w in want], column
        assert all(close(g, w) for g, w in zip(got, want, strict=True) if not math.isnan(w))


def test_anthropic_cache_writes_cost_more_than_they_save(calls: pd.DataFrame) -> None:
    """Anthropic prices cache writes above input (3.75 against 3 for Sonnet 4.5): C7 wrote 1000
    tokens and read none, so its cache cost 1000 * (3.75 - 3) / 1e6 = $0.00075 more than no
    cache would have: -0.00075. C1 read 4000 (saved 4000 * 2.70 / 1e6 = 0.0108) and wrote 2000
    (cost 2000 * 0.75 / 1e6 = 0.0015 more): 0.0093."""
    c7 = calls[(calls["session"].str.endswith("b.jsonl")) & calls["input_tokens"].notna()]
    assert close(c7["cache_savings_usd"].item(), -0.00075)
    c1 = calls.iloc[0]
    assert close(c1["cache_savings_usd"], 0.0108 - 0.0015)


def test_openai_cache_writes_save_nothing_and_reads_save_the_difference(
    calls: pd.DataFrame,
) -> None:
    """gpt-5 has no cache-write price: a write is an input token at 1.25, so C3's 1000 written
    tokens save 1000 * (1.25 - 1.25) = 0, and its 6000 read save 6000 * (1.25 - 0.125) / 1e6 =
    0.00675; without a cache it would have cost 0.0095 + 0.00675 = 0.01625, which is (2000 +
    6000 + 1000) * 1.25 / 1e6 + 500 * 10 / 1e6 = 0.01125 + 0.005."""
    c3 = row(calls, "model", "gpt-5-2025-08-07")
    assert close(c3["cache_savings_usd"], 0.00675)
    assert close(c3["cost_usd"] + c3["cache_savings_usd"], 0.01125 + 0.005)


def test_runs_have_the_cache_columns(tmp_path: Path) -> None:
    """Run 0 of a.jsonl: C1, C2, C3: hit (4000 + 1000 + 6000) / (7000 + 4000 + 9000) = 11000 /
    20000 = 0.55; saved 0.0093 + 0.0009 + 0.00675 = 0.01695. Run 1: C5 is unpriced: NaN. b's
    run: F and C7: hit 0 / 1500 = 0, saved -0.00075."""
    (tmp_path / "a.jsonl").write_bytes(LOG)
    (tmp_path / "b.jsonl").write_bytes(OTHER)
    runs = read_costs(tmp_path).runs
    assert close(runs["cache_hit_rate"][0], 0.55)
    assert close(runs["cache_savings_usd"][0], 0.01695)
    assert close(runs["cache_hit_rate"][1], 900 / 2000)  # C5 and C6: 900 / (1000 + 1000)
    assert math.isnan(runs["cache_savings_usd"][1])
    assert runs["cache_hit_rate"][2] == 0.0
    assert close(runs["cache_savings_usd"][2], -0.00075)


def test_by_label_counts_a_call_under_each_label_and_the_total_once(calls: pd.DataFrame) -> None:
    """(none): F and C7: 500 in, 50 out, 1000 written, cost 0.006, hit 0 / 1500, saved
    -0.00075. project:apollo: C1, C2, C3, C5, C6: in 1000 + 3000 + 2000 + 100 + 1000 = 7100,
    out 200 + 300 + 500 + 10 + 100 = 1110, read 4000 + 1000 + 6000 + 900 = 11900, written
    2000 + 1000 = 3000, total 23110; cost 0.0147 + 0.0046 + 0.0095 + 0.00225 = 0.03105, a lower
    bound (C5); hit 11900 / 22000; saved NaN (C5). summary and web: C2, C3, C5, C6: in 6100, out
    910, read 7900, written 1000; cost 0.01635; hit 7900 / 15000. The total counts each of the 7
    calls once: in 7600, out 1160, read 11900, written 4000, total 24660, cost 0.03705."""
    grouped = cost_by(calls, "label")
    # the calls with no label are the group with no value (NA, sorted last), which no label
    # can be; the table shows it as (none)
    assert grouped["label"].isna().tolist() == [False, False, False, True]
    assert list(grouped["label"][:3]) == [A, "summary", "web"]
    out = grouped.iloc[[3, 0, 1, 2]].reset_index(drop=True)  # the calls with no label first
    assert list(out["calls"]) == [2, 5, 4, 4]
    assert list(out["input_tokens"]) == [500, 7100, 6100, 6100]
    assert list(out["output_tokens"]) == [50, 1110, 910, 910]
    assert list(out["cache_read_tokens"]) == [0, 11900, 7900, 7900]
    assert list(out["cache_write_tokens"]) == [1000, 3000, 1000, 1000]
    assert list(out["total_tokens"]) == [1550, 23110, 15910, 15910]
    for got, want in zip(out["cost_usd"], [0.006, 0.03105, 0.01635, 0.01635], strict=True):
        assert close(got, want)
    assert list(out["lower_bound"]) == [False, True, True, True]
    assert list(out["unpriced_models"]) == [(), ("acme-9000",), ("acme-9000",), ("acme-9000",)]
    hits = [0.0, 11900 / 22000, 7900 / 15000, 7900 / 15000]
    for got, want in zip(out["cache_hit_rate"], hits, strict=True):
        assert close(got, want)
    assert close(out["cache_savings_usd"][0], -0.00075)
    assert out["cache_savings_usd"][1:].isna().all()
    total = grouped.attrs["total"]
    assert (total["calls"], total["input_tokens"], total["output_tokens"]) == (7, 7600, 1160)
    assert (total["cache_read_tokens"], total["cache_write_tokens"]) == (11900, 4000)
    assert total["total_tokens"] == 24660
    assert close(total["cost_usd"], 0.03705) and total["lower_bound"]
    assert math.isnan(total["cache_savings_usd"])


@pytest.mark.parametrize(
    ("tz", "days", "weeks", "months"),
    [
        # C1 | C2, C3 | C5, C6, F, C7
        ("UTC", ["2026-10-31", "2026-11-02", "2026-11-03"], ["2026-W44", "2026-W45"],
         ["2026-10", "2026-11"]),
        # 00:30 and 01:30 in Berlin (UTC+1 since 2026-10-25)
        ("Europe/Berlin", ["2026-11-01", "2026-11-02", "2026-11-03"], ["2026-W44", "2026-W45"],
         ["2026-11"]),
        # the log's own clock, UTC-7: C2 and C3 on Sunday the 1st, still week 44
        ("log", ["2026-10-31", "2026-11-01", "2026-11-03"], ["2026-W44", "2026-W45"],
         ["2026-10", "2026-11"]),
    ],
)  # fmt: skip
def test_day_week_and_month_follow_the_zone(
    calls: pd.DataFrame, tz: str, days: list[str], weeks: list[str], months: list[str]
) -> None:
    """ISO weeks: week 44 of 2026 is Monday 2026-10-26 to Sunday 2026-11-01 (2026-01-01 is a
    Thursday, so week 1 starts on Monday 2025-12-29, and 2026-10-26 is 301 = 43 * 7 days
    later). C1 is on 10-31 (UTC, log) or 11-01 (Berlin): week 44. C2 and C3 are on 11-02
    (UTC, Berlin: week 45) or 11-01 (log: week 44); the rest on 11-03 (week 45) everywhere."""
    by_day = cost_by(calls, "day", tz=tz)
    assert list(by_day["day"]) == days
    assert list(by_day["calls"]) == [1, 2, 4]
    assert close(by_day["cost_usd"][1], C2 + C3)
    by_week = cost_by(calls, "week", tz=tz)
    assert list(by_week["week"]) == weeks
    want_weeks = [3, 4] if tz == "log" else [1, 6]
    assert list(by_week["calls"]) == want_weeks
    by_month = cost_by(calls, ["month"], tz=tz)
    assert list(by_month["month"]) == months
    assert by_day.attrs["tz"] == by_week.attrs["tz"] == by_month.attrs["tz"] == tz


def test_month_and_model_in_berlin(calls: pd.DataFrame) -> None:
    """All in 2026-11 in Berlin; by model: acme-9000 (unpriced: NaN), claude-haiku-4-5,
    claude-sonnet-4-5 (C1, F, C7: 0.0147 + 0 + 0.006), gpt-5, gpt-5-2025-08-07."""
    out = cost_by(calls, ["month", "model"], tz="Europe/Berlin")
    assert list(out["month"]) == ["2026-11"] * 5
    assert list(out["model"]) == [
        "acme-9000",
        "claude-haiku-4-5",
        "claude-sonnet-4-5",
        "gpt-5",
        "gpt-5-2025-08-07",
    ]
    assert math.isnan(out["cost_usd"][0]) and out["lower_bound"][0]
    assert close(out["cost_usd"][2], C1 + C7)
    assert list(out["calls"]) == [1, 1, 3, 1, 1]


def test_by_priced_as_groups_dated_and_aliased_ids(calls: pd.DataFrame) -> None:
    """gpt-5-2025-08-07 (C3) and gpt-5 (C6) are both priced as gpt-5: 0.0095 + 0.00225 =
    0.01175, hit 6000 / (2000 + 6000 + 1000 + 1000) = 0.6, saved 0.00675 + 0 = 0.00675. The
    unpriced acme-9000 has no price, so no priced_as: the group with no value, last."""
    out = cost_by(calls, "priced_as")
    assert list(out["priced_as"].fillna("-")) == [
        "claude-haiku-4-5",
        "claude-sonnet-4-5",
        "gpt-5",
        "-",
    ]
    gpt = out.iloc[2]
    assert gpt["calls"] == 2 and close(gpt["cost_usd"], 0.01175)
    assert close(gpt["cache_hit_rate"], 0.6) and close(gpt["cache_savings_usd"], 0.00675)
    assert out["lower_bound"].tolist() == [False, False, False, True]


def test_label_with_other_groups_and_the_order_of_keys(calls: pd.DataFrame) -> None:
    """By session and label: a.jsonl holds every labelled call; b.jsonl only (none). By label
    and UTC day: (none) on 11-03 (F, C7); project:apollo on 10-31 (C1), 11-02 (C2, C3) and
    11-03 (C5, C6); summary and web each on 11-02 (C2, C3) and 11-03 (C5, C6)."""
    out = cost_by(calls, ["session", "label"])
    pairs = [
        (s.rsplit("/", 1)[-1], None if pd.isna(label) else label)
        for s, label in zip(out["session"], out["label"], strict=True)
    ]
    assert pairs == [
        ("a.jsonl", A),
        ("a.jsonl", "summary"),
        ("a.jsonl", "web"),
        ("b.jsonl", None),  # no label: the group with no value, (none) in a table
    ]
    by_label_then_day = cost_by(calls, ["label", "day"])
    labels = [None if pd.isna(label) else label for label in by_label_then_day["label"]]
    assert list(zip(labels, by_label_then_day["day"], strict=True)) == [
        (A, "2026-10-31"),
        (A, "2026-11-02"),
        (A, "2026-11-03"),
        ("summary", "2026-11-02"),
        ("summary", "2026-11-03"),
        ("web", "2026-11-02"),
        ("web", "2026-11-03"),
        (None, "2026-11-03"),  # no value: last
    ]
    assert list(by_label_then_day["calls"]) == [1, 2, 2, 2, 2, 2, 2, 2]


def test_an_unknown_zone_is_refused(calls: pd.DataFrame) -> None:
    for zone in ("Mars/Olympus", "", "../etc/passwd", "Europe"):
        with pytest.raises(ValueError, match="time zone"):
            cost_by(calls, "day", tz=zone)
