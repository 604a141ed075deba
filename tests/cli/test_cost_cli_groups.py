"""`sessiontools cost` by label, week, month and priced_as in a time zone, the cache columns,
the budget gate (--max-cost) and the bar of shares (issue 14), through click's runner.

The logs and every value by hand are those of tests/cost/test_cost_groups.py (its docstring has the
prices and the arithmetic); the budget gate's exact amounts use a price file of whole dollars
per token, worked out in each test.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import pytest

from tests.cli.test_cost_cli import COST, as_json, close, invoke, ok, parse_table, table_bar, write
from tests.cost.test_cost_groups import C1, C2, C3, C6, C7, LOG, OTHER, A, la
from tests.helpers import assistant, line, outcome, usage


@pytest.fixture
def logs(tmp_path: Path) -> list[Path]:
    return [write(tmp_path, "a.jsonl", LOG), write(tmp_path, "b.jsonl", OTHER)]


def test_by_label_in_every_format(logs: list[Path]) -> None:
    """(none) 0.006; project:apollo >= 0.03105 (C5 unpriced); summary and web >= 0.01635; the
    total counts each call once: >= 0.03705 (not the groups' 0.0792 sum), and a note says so.
    The calls with no label are the group with no value: last, (none) in the table, null in
    json, - in csv."""
    header, rows, notes = parse_table(ok(*logs, "--by", "label").stdout)
    assert header[0] == "label"
    assert [r[0] for r in rows] == [A, "summary", "web", "(none)", "total"]
    assert [r[1] for r in rows] == ["5", "4", "4", "2", "7"]
    assert [r[COST] for r in rows] == [
        ">=0.031050",
        ">=0.016350",
        ">=0.016350",
        "0.006000",
        ">=0.037050",
    ]
    assert any("the total counts each call once" in note for note in notes), notes
    document = as_json(*logs, "--by", "label")
    assert [g["label"] for g in document["groups"]] == [A, "summary", "web", None]
    assert document["total"]["calls"] == 7
    assert close(document["total_cost_usd"], C1 + C2 + C3 + C6 + C7)
    assert document["lower_bound"] is True and document["unpriced_models"] == ["acme-9000"]
    rows_csv = list(
        csv.DictReader(io.StringIO(ok(*logs, "--by", "label", "--format", "csv").stdout))
    )
    assert [r["label"] for r in rows_csv] == [A, "summary", "web", "-"]
    assert rows_csv[0]["cache_savings_usd"] == ""  # NaN: C5's price is not known


@pytest.mark.parametrize(
    ("tz", "months"),
    [
        ("UTC", ["2026-10", "2026-11"]),
        ("Europe/Berlin", ["2026-11"]),
        ("log", ["2026-10", "2026-11"]),
    ],
)
def test_by_month_in_a_zone_and_every_format_says_which(
    logs: list[Path], tz: str, months: list[str]
) -> None:
    """C1 is at 2026-10-31T23:30Z: October in UTC and on the log's UTC-7 clock, November in
    Berlin (UTC+1)."""
    text = ok(*logs, "--by", "month", "--tz", tz).stdout
    _, rows, notes = parse_table(text)
    assert [r[0] for r in rows[:-1]] == months
    said = "each entry's UTC offset (--tz log)" if tz == "log" else f"in {tz} (--tz)"
    assert any(said in note for note in notes), notes
    assert said in ok(*logs, "--by", "month", "--tz", tz, "--format", "markdown").stdout
    document = as_json(*logs, "--by", "month", "--tz", tz)
    assert document["tz"] == tz and [g["month"] for g in document["groups"]] == months


def test_by_day_and_model_with_a_comma(logs: list[Path]) -> None:
    """--by day,model is --by day --by model: UTC days, then models within each."""
    together = as_json(*logs, "--by", "day,model")
    apart = as_json(*logs, "--by", "day", "--by", "model")
    assert together == apart and together["by"] == ["day", "model"]
    assert [(g["day"], g["model"]) for g in together["groups"]] == [
        ("2026-10-31", "claude-sonnet-4-5"),
        ("2026-11-02", "claude-haiku-4-5"),
        ("2026-11-02", "gpt-5-2025-08-07"),
        ("2026-11-03", "acme-9000"),
        ("2026-11-03", "claude-sonnet-4-5"),
        ("2026-11-03", "gpt-5"),
    ]


def test_by_week(logs: list[Path]) -> None:
    """UTC: C1 on Saturday 2026-10-31 is in week 44; the rest from Monday 11-02 in week 45."""
    document = as_json(*logs, "--by", "week")
    assert [(g["week"], g["calls"]) for g in document["groups"]] == [
        ("2026-W44", 1),
        ("2026-W45", 6),
    ]


def test_by_priced_as_groups_dated_ids(logs: list[Path]) -> None:
    """gpt-5-2025-08-07 and gpt-5 are priced as gpt-5: 0.0095 + 0.00225 = 0.01175."""
    groups = {g["priced_as"]: g for g in as_json(*logs, "--by", "priced_as")["groups"]}
    assert set(groups) == {"claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5", None}
    assert groups["gpt-5"]["calls"] == 2 and close(groups["gpt-5"]["cost_usd"], C3 + C6)


def test_since_and_until_without_an_offset_are_read_in_the_zone(logs: list[Path]) -> None:
    """--since 2026-11-01 is midnight in the zone: in UTC C1 (10-31T23:30Z) is before it; in
    Berlin midnight is 2026-10-31T23:00Z, so C1 is after it. Under --tz log it is UTC."""
    utc = as_json(*logs, "--since", "2026-11-01")
    berlin = as_json(*logs, "--since", "2026-11-01", "--tz", "Europe/Berlin")
    log = as_json(*logs, "--since", "2026-11-01", "--tz", "log")
    assert utc["total"]["calls"] == log["total"]["calls"] == 6
    assert berlin["total"]["calls"] == 7
    # an offset given is the offset, whatever the zone
    given = as_json(*logs, "--since", "2026-11-01T00:00:00+01:00", "--tz", "Asia/Tokyo")
    assert given["total"]["calls"] == 7
    until = as_json(*logs, "--until", "2026-11-01T00:31", "--tz", "Europe/Berlin")
    assert until["total"]["calls"] == 1 and close(until["total_cost_usd"], C1)


@pytest.mark.parametrize("zone", ["Mars/Olympus", "", "../../etc/passwd", "Europe"])
def test_a_bad_zone_is_a_usage_error(logs: list[Path], zone: str) -> None:
    result = invoke(*logs, "--tz", zone)
    assert result.exit_code == 2 and result.stdout == ""
    (said,) = result.stderr.splitlines()
    assert said.startswith("sessiontools cost: error: Invalid value for --tz: ")
    assert "IANA" in said


def test_an_unknown_group_is_a_usage_error(logs: list[Path]) -> None:
    result = invoke(*logs, "--by", "day,year")
    assert result.exit_code == 2
    (said,) = result.stderr.splitlines()
    assert "'year' is not a group" in said and "label" in said


# -- the budget gate -------------------------------------------------------------------------

#: A model at $1 an input token and $2 an output token (1,000,000 and 2,000,000 per million):
#: costs are whole dollars, exact in binary, so a limit equal to the total is testable.
WHOLE = b'{"whole": {"input": 1000000, "output": 2000000}}'


def whole_log(tmp_path: Path) -> Path:
    """One call of 3 input and 1 output tokens: 3 * $1 + 1 * $2 = $5 exactly."""
    return write(
        tmp_path,
        "w.jsonl",
        line(0, "run_started", {"prompt": "w"}, la(20, "10:00:00"))
        + line(1, "message", assistant(text="x", model="whole", u=usage(3, 1)), la(20, "10:00:01"))
        + line(2, "run_ended", outcome(u=usage(3, 1)), la(20, "10:00:02")),
    )


@pytest.mark.parametrize(("limit", "passes"), [("5", True), ("5.0", True), ("4.99", False)])
def test_max_cost_equal_passes_above_fails(tmp_path: Path, limit: str, passes: bool) -> None:
    log, prices = whole_log(tmp_path), write(tmp_path, "p.json", WHOLE)
    result = invoke(log, "--prices", prices, "--max-cost", limit)
    assert parse_table(result.stdout)[1][-1][COST] == "5.000000"  # the table is still printed
    if passes:
        assert (result.exit_code, result.stderr) == (0, "")
    else:
        assert result.exit_code == 3
        assert result.stderr == (
            "sessiontools cost: error: the total cost $5.000000 is above the limit of $4.99 "
            "(--max-cost)\n"
        )


def test_max_cost_with_unpriced_calls_cannot_pass(logs: list[Path]) -> None:
    """The priced total, 0.03705, is under $1, but acme-9000's call could cost anything."""
    result = invoke(*logs, "--max-cost", "1")
    assert result.exit_code == 3
    (said,) = result.stderr.splitlines()
    assert said == (
        "sessiontools cost: error: the total cost is at least $0.037050, and calls of "
        "acme-9000 could not be priced, so it cannot be known to be at most the limit of $1 "
        "(--max-cost); give their prices with --prices"
    )
    # above the limit already: above, whatever the rest costs
    result = invoke(*logs, "--max-cost", "0.03", "--format", "json")
    assert result.exit_code == 3 and "above the limit of $0.03" in result.stderr
    assert as_json(*logs)["total_cost_usd"] == pytest.approx(0.03705, rel=1e-12)


def test_max_cost_when_nothing_is_priced(tmp_path: Path) -> None:
    log = write(
        tmp_path,
        "u.jsonl",
        line(0, "run_started", {"prompt": "u"}, la(20, "10:00:00"))
        + line(
            1,
            "message",
            assistant(text="x", provider="acme", model="acme-9000"),
            la(20, "10:00:01"),
        )
        + line(2, "run_ended", outcome(), la(20, "10:00:02")),
    )
    result = invoke(log, "--max-cost", "100")
    assert result.exit_code == 3
    assert "no call could be priced (acme-9000)" in result.stderr


def test_a_damaged_log_wins_over_the_budget(tmp_path: Path) -> None:
    log, prices = whole_log(tmp_path), write(tmp_path, "p.json", WHOLE)
    damaged = write(tmp_path, "d.jsonl", b'{"seq": 0, "ti\n{"seq": 1}\n')
    result = invoke(log, damaged, "--prices", prices, "--max-cost", "1")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and "skipped" in lines[0] and "above the limit of $1" in lines[1]


@pytest.mark.parametrize("limit", ["-1", "nan", "inf", "1_000", "$5", "five", "", "0x10", "1e999"])
def test_a_bad_max_cost_is_a_usage_error(tmp_path: Path, limit: str) -> None:
    result = invoke(whole_log(tmp_path), "--max-cost", limit)
    assert result.exit_code == 2 and result.stdout == ""
    (said,) = result.stderr.splitlines()
    assert "--max-cost" in said and "US dollars" in said


def test_zero_is_a_limit(tmp_path: Path) -> None:
    """A run that cost nothing passes --max-cost 0: a failed call only, $0."""
    log = write(
        tmp_path,
        "f.jsonl",
        line(0, "run_started", {"prompt": "f"}, la(20, "10:00:00"))
        + line(
            1,
            "model_error",
            {"error": {"kind": "overloaded", "status": 529}, "retry": False, "wait_ms": 0},
            la(20, "10:00:01"),
        )
        + line(
            2, "run_ended", outcome(reason="model_error", turns=0, u=usage()), la(20, "10:00:02")
        ),
    )
    result = invoke(log, "--max-cost", "0")
    assert (result.exit_code, result.stderr) == (0, "")


# -- the bar --------------------------------------------------------------------------------


def test_the_bar_shows_shares_of_the_total_counted_once(logs: list[Path]) -> None:
    """By label, shares of the priced total 0.03705: apollo 0.03105 / 0.03705 = 83.8%, summary
    and web 0.01635 / 0.03705 = 44.1% each, (none) 0.006 / 0.03705 = 16.2%: more than 100% in
    all, since a call counts under each of its labels (the bar's title says so)."""
    text = ok(*logs, "--by", "label").stdout
    assert table_bar(text) == [(A, 83.8), ("summary", 44.1), ("web", 44.1), ("(none)", 16.2)]
    title = text.splitlines()[-5]
    assert "a call counts under each of its labels" in title and "of the priced calls" in title


def test_no_bar_when_nothing_cost_anything_or_for_one_group(
    tmp_path: Path, logs: list[Path]
) -> None:
    log = write(
        tmp_path,
        "u.jsonl",
        line(0, "run_started", {"prompt": "u"}, la(20, "10:00:00"))
        + line(
            1,
            "message",
            assistant(text="x", provider="acme", model="acme-9000"),
            la(20, "10:00:01"),
        )
        + line(2, "run_ended", outcome(), la(20, "10:00:02")),
    )
    assert "share of the cost" not in ok(log).stdout
    assert "share of the cost" not in ok(*logs, "--by", "month", "--tz", "Europe/Berlin").stdout
    assert "share of the cost" in ok(*logs, "--by", "month").stdout  # October and November


def test_colour_only_for_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from sessiontools._cli import cost as _cli

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert _cli._colour(Tty()) and not _cli._colour(io.StringIO()) and not _cli._colour(None)
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _cli._colour(Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not _cli._colour(Tty())


def test_the_cache_columns_in_the_table(logs: list[Path]) -> None:
    """By model: acme-9000 (C5): 900 / 1000 = 90.0%, savings unknown; claude-sonnet-4-5 (C1,
    F, C7): reads 4000 of 7000 + 1500 = 8500: 47.1%, saved 0.0093 - 0.00075 = 0.00855."""
    _, rows, _ = parse_table(ok(*logs).stdout)
    by_model = {r[0]: r for r in rows}
    assert by_model["acme-9000"][-2:] == ["90.0%", "unknown"]
    assert by_model["claude-sonnet-4-5"][-2:] == ["47.1%", "0.008550"]
    assert by_model["total"][-1] == "unknown"
    assert not math.isnan(float(by_model["claude-sonnet-4-5"][-1]))


def test_the_library_reads_bounds_and_zones_as_the_command_does(logs: list[Path]) -> None:
    """cost_report takes --since/--until as text, aware or naive datetimes: a naive one is in
    the zone, as the command reads text without an offset (2026-11-01T00:00 in Berlin is
    2026-10-31T23:00Z, so C1 at 23:30Z is kept); the text is the command's."""
    import datetime as dt

    from sessiontools import cost_report, render

    command = ok(*logs, "--by", "day", "--tz", "Europe/Berlin", "--since", "2026-11-01").stdout
    for since in (
        "2026-11-01",
        dt.datetime(2026, 11, 1),
        dt.datetime(2026, 10, 31, 23, tzinfo=dt.UTC),
    ):
        report = cost_report(logs, by=["day"], tz="Europe/Berlin", since=since)
        assert report.tz == "Europe/Berlin" and report.frame.attrs["total"]["calls"] == 7
        assert render(report, "table") == command


def test_labels_are_escaped_in_the_table(tmp_path: Path) -> None:
    """A log is untrusted: a label it holds (whatever agentloop would refuse) is shown with its
    control characters escaped."""
    log = write(
        tmp_path,
        "l.jsonl",
        line(0, "labels", {"labels": ["evil\x1b]0;x\x07"], "source": "seed"}, la(20, "09:00:00"))
        + line(1, "run_started", {"prompt": "p"}, la(20, "10:00:00"))
        + line(2, "message", assistant(text="x", u=usage(10, 1)), la(20, "10:00:01"))
        + line(3, "run_ended", outcome(u=usage(10, 1)), la(20, "10:00:02")),
    )
    for fmt in ("table", "markdown"):
        result = invoke(log, "--by", "label", "--format", fmt)
        text = result.stdout
        assert "\x1b" not in text and "\x07" not in text
        # agentloop refuses such a label: in double quotes, and said once
        assert '"evil\\x1b' in text
        assert "1 label that agentloop refuses ('evil\\x1b]0;x\\x07')" in result.stderr
        assert "\x1b" not in result.stderr


#: A turn with usage and no model at all (no ``model``, no ``native``): nothing can price it.
NO_MODEL = (
    line(0, "run_started", {"prompt": "p"}, la(18, "09:30:00"))
    + line(
        1,
        "message",
        {
            "message": {"role": "assistant", "parts": [{"type": "text", "text": "x"}]},
            "usage": usage(10, 2, read=30),
        },
        la(18, "09:30:01"),
    )
    + line(2, "run_ended", outcome(u=usage(10, 2, read=30)), la(18, "09:30:02"))
)


def test_a_call_with_no_model_is_unpriced_not_a_traceback(tmp_path: Path) -> None:
    """The only call names no model (no model id at all, so no model code): it is unpriced
    and its group is `-`; the hit rate needs no price, 30 / (10 + 30) = 75.0%; the savings
    need one: unknown. --max-cost cannot be met: nothing was priced. (Finding the prices a
    price file leaves out looked up the missing model's name and raised IndexError.)"""
    log = write(tmp_path, "n.jsonl", NO_MODEL)
    _, rows, notes = parse_table(ok(log).stdout)
    assert rows[0][0] == "-" and rows[0][COST:] == ["unpriced", "75.0%", "unknown"]
    assert notes == [
        ">= a lower bound: some calls could not be priced (unpriced models: (no model named))"
    ]
    document = as_json(log)
    assert document["groups"][0]["model"] is None and document["missing_prices"] == {}
    assert document["total"]["cost_usd"] is None and document["lower_bound"] is True
    result = invoke(log, "--max-cost", "1", "--format", "csv")
    assert result.exit_code == 3, result.stderr
    assert result.stderr == (
        "sessiontools cost: error: no call could be priced ((no model named)), so the total "
        "cost cannot be known to be at most the limit of $1 (--max-cost); give their prices "
        "with --prices\n"
    )
    prices = write(tmp_path, "p.json", b'{"my-model": {"input": 2, "output": 8}}')
    assert as_json(log, "--prices", prices)["missing_prices"] == {}
    from sessiontools import cost_report, render

    assert (
        render(cost_report(log, prices=str(prices)), "table") == ok(log, "--prices", prices).stdout
    )
