"""`sessiontools cost` through click's runner: formats, groups, prices, times, damage, --out.

Every expected cost here is worked out by hand from the providers' published prices per million
tokens (below), never from sessiontools or genai-prices. The logs are written in each test with
tests/helpers.py; each log's runs start at a time of their own (see ``at``).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from sessiontools import read_costs
from sessiontools._cli.main import cli
from tests.helpers import SESSIONS, assistant, line, outcome, result, usage, user

# -- published prices, US dollars per million tokens ------------------------------------------

#: anthropic.com/pricing: Claude Sonnet 4.5, prompts up to 200K tokens; cache write is the
#: 5-minute write (1.25x input), cache read 0.1x input.
SONNET_4_5 = {"input": 3.00, "output": 15.00, "cache_read": 0.30, "cache_write": 3.75}
#: anthropic.com/pricing: Claude Sonnet 4.5, prompts over 200K tokens (the whole request).
SONNET_4_5_LONG = {"input": 6.00, "output": 22.50, "cache_read": 0.60, "cache_write": 7.50}
#: anthropic.com/pricing: Claude Haiku 4.5.
HAIKU_4_5 = {"input": 1.00, "output": 5.00, "cache_read": 0.10, "cache_write": 1.25}
#: openai.com/api/pricing: GPT-5 (cached input is the cache read; no cache write).
GPT_5 = {"input": 1.25, "output": 10.00, "cache_read": 0.125}


def by_hand(
    prices: dict[str, float], inp: int = 0, out: int = 0, read: int = 0, write: int = 0
) -> float:
    """What one call costs: each of agentloop's four disjoint counts times its price."""
    total = inp * prices["input"] + out * prices["output"]
    if read:
        total += read * prices["cache_read"]
    if write:
        total += write * prices["cache_write"]
    return total / 1_000_000


def close(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)


# -- logs ------------------------------------------------------------------------------------


def at(day: int, clock: str, offset: str = "+02:00") -> str:
    """An RFC 3339 time on 2026-10-``day``."""
    return f"2026-10-{day:02d}T{clock}{offset}"


def haiku_call(inp: int, out: int) -> dict[str, Any]:
    return {"model": "claude-haiku-4-5", "usage": usage(inp, out)}


# Session A: run 0 on 2026-10-18 (a Sonnet turn asking for `summarize`, whose result carries one
# Haiku call of its own, then a GPT-5 turn); run 1 at 01:00 on 2026-10-20 in +02:00, which is
# 23:00 on 2026-10-19 in UTC.
A_SONNET_1 = usage(1000, 200, read=5000, write=300)
A_HAIKU = (4000, 500)
A_GPT_5 = usage(2000, 400, read=1000)
A_SONNET_2 = usage(300, 50, read=2000)
LOG_A = (
    line(0, "run_started", {"prompt": "sum up"}, at(18, "09:30:00"))
    + line(1, "message", user("sum up"), at(18, "09:30:01"))
    + line(2, "message", assistant(("c1", "summarize"), u=A_SONNET_1), at(18, "09:30:02"))
    + line(
        3,
        "decision",
        {"call_id": "c1", "tool": "summarize", "verdict": "allow"},
        at(18, "09:30:03"),
    )
    + line(4, "call_started", {"call_id": "c1"}, at(18, "09:30:04"))
    + line(
        5, "tool_result", result("c1", "short", usage=[haiku_call(*A_HAIKU)]), at(18, "09:30:05")
    )
    + line(
        6,
        "message",
        assistant(text="done", provider="openai", model="gpt-5", u=A_GPT_5),
        at(18, "09:30:06"),
    )
    + line(7, "run_ended", outcome(turns=2, u=usage(3000, 600, 6000, 300)), at(18, "09:30:07"))
    + line(8, "run_started", {"prompt": "again"}, at(20, "01:00:00"))
    + line(9, "message", user("again"), at(20, "01:00:01"))
    + line(10, "message", assistant(text="ok", u=A_SONNET_2), at(20, "01:00:10"))
    + line(11, "run_ended", outcome(turns=1, u=A_SONNET_2), at(20, "01:00:11"))
)
# the calls of A, priced by hand, and when they were made (a tool's calls: its result's time)
A_S1 = by_hand(SONNET_4_5, 1000, 200, 5000, 300)
A_H = by_hand(HAIKU_4_5, *A_HAIKU)
A_G = by_hand(GPT_5, 2000, 400, 1000)
A_S2 = by_hand(SONNET_4_5, 300, 50, 2000)
A_TOTAL = A_S1 + A_H + A_G + A_S2

# Session B: one run on 2026-10-21.
LOG_B = (
    line(0, "run_started", {"prompt": "b"}, at(21, "14:00:00"))
    + line(1, "message", user("b"), at(21, "14:00:01"))
    + line(
        2,
        "message",
        assistant(text="x", provider="openai", model="gpt-5", u=usage(500, 100)),
        at(21, "14:00:02"),
    )
    + line(3, "message", assistant(text="y", u=usage(100, 20, write=1000)), at(21, "14:00:03"))
    + line(4, "run_ended", outcome(turns=2, u=usage(600, 120, write=1000)), at(21, "14:00:04"))
)
B_G = by_hand(GPT_5, 500, 100)
B_S = by_hand(SONNET_4_5, 100, 20, write=1000)

# Session C: a model nobody prices next to one everybody does.
UNKNOWN_MODEL = "acme-9000"
LOG_C = (
    line(0, "run_started", {"prompt": "c"}, at(22, "08:00:00"))
    + line(
        1,
        "message",
        assistant(text="x", provider="acme", model=UNKNOWN_MODEL, u=usage(10_000, 1_000)),
        at(22, "08:00:01"),
    )
    + line(2, "message", assistant(text="y", u=usage(100, 10)), at(22, "08:00:02"))
    + line(3, "run_ended", outcome(turns=2, u=usage(10_100, 1_010)), at(22, "08:00:03"))
)
C_S = by_hand(SONNET_4_5, 100, 10)


def write(directory: Path, name: str, data: bytes) -> Path:
    path = directory / name
    path.write_bytes(data)
    return path


@pytest.fixture
def log_a(tmp_path: Path) -> Path:
    return write(tmp_path, "a.jsonl", LOG_A)


@pytest.fixture
def log_b(tmp_path: Path) -> Path:
    return write(tmp_path, "b.jsonl", LOG_B)


@pytest.fixture
def log_c(tmp_path: Path) -> Path:
    return write(tmp_path, "c.jsonl", LOG_C)


# -- running it ------------------------------------------------------------------------------


def invoke(*args: object) -> Result:
    """Run ``sessiontools cost ARGS``; whatever happens, no traceback and no stray exception."""
    result = CliRunner().invoke(
        cli, ["cost", *(os.fspath(a) if isinstance(a, Path) else str(a) for a in args)]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    for text in (result.stdout, result.stderr):
        assert "Traceback" not in text
    return result


def ok(*args: object) -> Result:
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return result


def one_error_line(result: Result, exit_code: int) -> str:
    assert result.exit_code == exit_code, (result.stdout, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sessiontools cost: ")
    return lines[0]


def copies_note(copies: int, logs: int) -> str:
    """The line that says how many logs were copies of others (each run counted once)."""
    return (
        f"sessiontools cost: note: {copies} of {logs} logs were copies of other logs given "
        "(each held only runs that another log holds as far or further): every run was "
        "counted once"
    )


def as_json(*args: object) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(ok(*args, "--format", "json").stdout)
    return document


def groups(*args: object) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The JSON groups by their key (the group columns, in order)."""
    document = as_json(*args)
    keys = [
        k
        for name in document["by"]
        for k in (["session", "run_index"] if name == "run" else [name])
    ]
    keys = list(dict.fromkeys(keys))
    out = {tuple(g[k] for k in keys): g for g in document["groups"]}
    assert len(out) == len(document["groups"])
    return out


def parse_table(text: str) -> tuple[list[str], list[list[str]], list[str]]:
    """A `table` output: header, rows (the totals row last) and the notes under it (up to the
    blank line before the bar of shares, ``table_bar``).

    The column spans come from the dashed rule under the header. Each cell must sit inside its
    column's span, with only spaces between spans: that is what aligned means.
    """
    lines = text.splitlines()
    rule = lines[1]
    assert set(rule) <= {"-", " "} and rule.startswith("-"), rule
    spans = []
    start = 0
    for piece in rule.split(" "):
        if piece:
            spans.append((start, start + len(piece)))
        start += len(piece) + 1
    width = spans[-1][1]
    table_lines = [lines[0]]
    totals = next(
        i
        for i, text_line in enumerate(lines)
        if i > 1 and text_line[: spans[0][1]].strip() == "total"
    )
    body = lines[2 : totals + 1]
    rest = lines[totals + 1 :]
    notes = rest[: rest.index("")] if "" in rest else rest
    table_lines += body
    cells: list[list[str]] = []
    for text_line in table_lines:
        assert len(text_line) <= width, text_line
        row = []
        for index, (a, b) in enumerate(spans):
            gap_end = spans[index + 1][0] if index + 1 < len(spans) else len(text_line)
            assert text_line[b:gap_end].strip() == "", f"text between columns: {text_line!r}"
            row.append(text_line[a:b])
        cells.append(row)
    header = [c.strip() for c in cells[0]]
    rows = cells[1:]
    # numbers are right-aligned: each ends at its column's right edge (or the row's own end)
    for row in rows:
        for name, cell in zip(header, row, strict=True):
            if name in ("calls", "input_tokens", "cost_usd") and cell.strip():
                assert not cell.endswith(" "), (name, cell)
    return header, [[c.strip() for c in row] for row in rows], notes


def table_bar(text: str) -> list[tuple[str, float]]:
    """The bar of shares under a `table`: each group's name and its share (percent)."""
    lines = text.splitlines()
    if "" not in lines:
        return []
    bar = lines[lines.index("") + 1 :]
    assert bar[0].startswith("share of the cost (top "), bar
    out = []
    for text_line in bar[1:]:
        name, _, share = text_line.strip().rpartition("  ")
        out.append((name.rsplit("  ", 1)[0].strip(), float(share.strip().rstrip("%"))))
    return out


#: Where a table row has its cost: before ``cache_hit_rate`` and ``cache_savings_usd``.
COST = -3


def money(cell: str) -> tuple[float | None, bool]:
    """A table's cost cell: its value (None: "unpriced", nothing in the group could be priced)
    and whether it is marked as a lower bound."""
    if cell == "unpriced":
        return None, True
    lower = cell.startswith(">=")
    return float(cell.removeprefix(">=")), lower


# -- formats -----------------------------------------------------------------------------------


def test_table_is_aligned_with_a_totals_row(log_a: Path) -> None:
    """The cache columns by hand (hit rate: cache reads over all input; savings: reads at
    input - cache read price, writes at input - cache write price): Sonnet 4.5, 7000 read of
    1300 + 7000 + 300 = 8600: 81.4%; saved (5000 + 2000) * (3 - 0.30) + 300 * (3 - 3.75) =
    18900 - 225 = 18675 per million. GPT-5: 1000 of 3000, 33.3%; 1000 * (1.25 - 0.125) = 1125.
    Haiku: no cache. Total: 8000 of 7300 + 8000 + 300 = 15600, 51.3%; 19800 per million."""
    header, rows, notes = parse_table(ok(log_a).stdout)
    assert header == [
        "model",
        "calls",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "total_tokens",
        "cost_usd",
        "cache_hit_rate",
        "cache_savings_usd",
    ]
    by_model = {row[0]: row for row in rows}
    assert list(by_model) == ["claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5", "total"]
    sonnet = by_model["claude-sonnet-4-5"]
    assert sonnet[1:7] == ["2", "1300", "250", "7000", "300", str(1300 + 250 + 7000 + 300)]
    # six decimals for display only
    assert sonnet[7] == f"{A_S1 + A_S2:.6f}"
    assert by_model["gpt-5"][7] == f"{A_G:.6f}"
    assert by_model["claude-haiku-4-5"][7] == f"{A_H:.6f}"
    total = by_model["total"]
    assert rows[-1][0] == "total"
    assert total[1:3] == ["4", str(1000 + 4000 + 2000 + 300)]
    assert money(total[7]) == (round(A_TOTAL, 6), False)
    assert sonnet[8:] == ["81.4%", "0.018675"]
    assert by_model["gpt-5"][8:] == ["33.3%", "0.001125"]
    assert by_model["claude-haiku-4-5"][8:] == ["0.0%", "0.000000"]
    assert total[8:] == ["51.3%", "0.019800"]
    assert notes == []


def test_table_ends_with_where_the_money_went(log_a: Path) -> None:
    """The shares of A_TOTAL = (8625 + 2250 + 6500 + 6625) / 1e6 = 0.024: Sonnet 4.5
    (8625 + 2250) / 24000 = 45.3%, GPT-5 6625 / 24000 = 27.6%, Haiku 6500 / 24000 = 27.1%,
    largest first, each a bar of round(share * 30) '#' out of 30; no colour off a terminal."""
    text = ok(log_a).stdout
    assert table_bar(text) == [
        ("claude-sonnet-4-5", 45.3),
        ("gpt-5", 27.6),
        ("claude-haiku-4-5", 27.1),
    ]
    bars = [ln.split()[-2] for ln in text.splitlines()[-3:]]
    assert bars == ["#" * 14 + "." * 16, "#" * 8 + "." * 22, "#" * 8 + "." * 22]
    assert "\x1b" not in text
    assert "share" not in ok(log_a, "--format", "markdown").stdout


def test_csv_has_every_column_at_full_precision(log_a: Path) -> None:
    text = ok(log_a, "--format", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == [
        "model",
        "calls",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "total_tokens",
        "cost_usd",
        "cache_hit_rate",
        "cache_savings_usd",
        "unpriced_calls",
        "unpriced_models",
        "lower_bound",
    ]
    by_model = {row["model"]: row for row in rows}
    # full precision: 7000 / 8600 and 18675 / 1e6 (see test_table_is_aligned_with_a_totals_row)
    assert close(float(by_model["claude-sonnet-4-5"]["cache_hit_rate"]), 7000 / 8600)
    assert close(float(by_model["claude-sonnet-4-5"]["cache_savings_usd"]), 18675 / 1e6)
    assert set(by_model) == {"claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5"}  # no totals row
    assert [by_model[m]["calls"] for m in sorted(by_model)] == ["1", "2", "1"]
    assert close(float(by_model["claude-sonnet-4-5"]["cost_usd"]), A_S1 + A_S2)
    assert close(float(by_model["gpt-5"]["cost_usd"]), A_G)
    assert close(float(by_model["claude-haiku-4-5"]["cost_usd"]), A_H)
    assert by_model["gpt-5"]["cache_read_tokens"] == "1000"
    assert {row["lower_bound"] for row in rows} == {"false"}  # as in json
    assert {row["unpriced_calls"] for row in rows} == {"0"}
    assert {row["unpriced_models"] for row in rows} == {"[]"}  # a JSON array


def test_csv_reads_back_with_pandas(log_a: Path, log_b: Path) -> None:
    pd = pytest.importorskip("pandas")
    text = ok(log_a, log_b, "--by", "session", "--format", "csv").stdout
    frame = pd.read_csv(io.StringIO(text))
    assert frame["session"].tolist() == [str(log_a), str(log_b)]
    assert frame["calls"].tolist() == [4, 2]
    assert close(float(frame["cost_usd"].sum()), A_TOTAL + B_G + B_S)


def test_json_document(log_a: Path) -> None:
    document = as_json(log_a)
    assert set(document) == {
        "by",
        "tz",
        "groups",
        "total",
        "total_cost_usd",
        "lower_bound",
        "unpriced_models",
        "missing_prices",
        "skipped",
        "copies",
    }
    assert document["by"] == ["model"]
    assert document["lower_bound"] is False
    assert document["unpriced_models"] == []
    assert document["missing_prices"] == {}
    assert document["skipped"] == []
    assert document["copies"] == []
    assert close(document["total_cost_usd"], A_TOTAL)
    by_model = {g["model"]: g for g in document["groups"]}
    sonnet = by_model["claude-sonnet-4-5"]
    assert sonnet == {
        "model": "claude-sonnet-4-5",
        "calls": 2,
        "input_tokens": 1300,
        "output_tokens": 250,
        "cache_read_tokens": 7000,
        "cache_write_tokens": 300,
        "total_tokens": 8850,
        "cost_usd": sonnet["cost_usd"],
        "cache_hit_rate": sonnet["cache_hit_rate"],
        "cache_savings_usd": sonnet["cache_savings_usd"],
        "unpriced_calls": 0,
        "unpriced_models": [],
        "lower_bound": False,
    }
    assert close(sonnet["cost_usd"], A_S1 + A_S2)
    assert close(sonnet["cache_hit_rate"], 7000 / 8600)
    assert close(sonnet["cache_savings_usd"], 18675 / 1e6)
    assert document["tz"] == "UTC"
    total = document["total"]
    assert (total["calls"], total["input_tokens"], total["cache_read_tokens"]) == (4, 7300, 8000)
    assert close(total["cost_usd"], A_TOTAL) and close(total["cache_savings_usd"], 19800 / 1e6)
    assert close(total["cache_hit_rate"], 8000 / 15600) and total["lower_bound"] is False
    assert close(by_model["gpt-5"]["cost_usd"], A_G)
    assert close(by_model["claude-haiku-4-5"]["cost_usd"], A_H)


def test_markdown_is_a_pipe_table(log_a: Path) -> None:
    text = ok(log_a, "--format", "markdown").stdout
    lines = text.rstrip("\n").splitlines()
    assert all(ln.startswith("|") and ln.endswith("|") for ln in lines), text
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header[0] == "model" and header[COST] == "cost_usd" and len(header) == 10
    assert header[-2:] == ["cache_hit_rate", "cache_savings_usd"]
    assert all(set(c.strip()) <= {"-", ":"} and c.strip() for c in lines[1].strip("|").split("|"))
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]
    assert all(len(row) == len(header) for row in rows)
    assert [row[0] for row in rows] == ["claude-haiku-4-5", "claude-sonnet-4-5", "gpt-5", "total"]
    assert rows[-1][1] == "4"
    assert money(rows[-1][COST]) == (round(A_TOTAL, 6), False)


def test_every_format_agrees(log_a: Path, log_b: Path, log_c: Path) -> None:
    logs = (log_a, log_b, log_c)
    document = as_json(*logs)
    rows = list(csv.DictReader(io.StringIO(ok(*logs, "--format", "csv").stdout)))
    _, table_rows, _ = parse_table(ok(*logs).stdout)
    assert [g["model"] for g in document["groups"]] == [r["model"] for r in rows]
    assert [r["model"] for r in rows] == [r[0] for r in table_rows[:-1]]
    for group, row, cells in zip(document["groups"], rows, table_rows, strict=False):
        assert group["calls"] == int(row["calls"]) == int(cells[1])
        cost = group["cost_usd"]  # None (JSON null) when nothing in the group could be priced
        assert (float(row["cost_usd"]) if row["cost_usd"] else None) == cost
        assert money(cells[COST]) == (
            None if cost is None else round(cost, 6),
            group["lower_bound"],
        )


# -- grouping --------------------------------------------------------------------------------


def test_by_model_default(log_a: Path) -> None:
    assert as_json(log_a)["by"] == ["model"]
    got = groups(log_a, "--by", "model")
    assert {k: v["calls"] for k, v in got.items()} == {
        ("claude-haiku-4-5",): 1,
        ("claude-sonnet-4-5",): 2,
        ("gpt-5",): 1,
    }


def test_by_session(log_a: Path, log_b: Path) -> None:
    got = groups(log_a, log_b, "--by", "session")
    assert list(got) == [(str(log_a),), (str(log_b),)]
    assert got[(str(log_a),)]["calls"] == 4
    assert got[(str(log_b),)]["calls"] == 2
    assert close(got[(str(log_a),)]["cost_usd"], A_TOTAL)
    assert close(got[(str(log_b),)]["cost_usd"], B_G + B_S)


def test_by_run(log_a: Path, log_b: Path) -> None:
    got = groups(log_a, log_b, "--by", "run")
    assert list(got) == [(str(log_a), 0), (str(log_a), 1), (str(log_b), 0)]
    assert [g["calls"] for g in got.values()] == [3, 1, 2]
    assert close(got[(str(log_a), 0)]["cost_usd"], A_S1 + A_H + A_G)
    assert close(got[(str(log_a), 1)]["cost_usd"], A_S2)
    header, rows, _ = parse_table(ok(log_a, log_b, "--by", "run").stdout)
    assert header[:2] == ["session", "run_index"]
    assert [row[:2] for row in rows] == [
        [str(log_a), "0"],
        [str(log_a), "1"],
        [str(log_b), "0"],
        ["total", ""],
    ]


def test_by_day_is_the_utc_day(log_a: Path, log_b: Path) -> None:
    got = groups(log_a, log_b, "--by", "day")
    # run 1 of A is at 01:00+02:00 on the 20th: the 19th in UTC
    assert list(got) == [("2026-10-18",), ("2026-10-19",), ("2026-10-21",)]
    assert [g["calls"] for g in got.values()] == [3, 1, 2]
    assert close(got[("2026-10-18",)]["cost_usd"], A_S1 + A_H + A_G)
    assert close(got[("2026-10-19",)]["cost_usd"], A_S2)
    _, rows, _ = parse_table(ok(log_a, log_b, "--by", "day").stdout)
    assert [row[0] for row in rows] == ["2026-10-18", "2026-10-19", "2026-10-21", "total"]
    text = ok(log_a, log_b, "--by", "day", "--format", "csv").stdout
    assert [r["day"] for r in csv.DictReader(io.StringIO(text))] == [
        "2026-10-18",
        "2026-10-19",
        "2026-10-21",
    ]


def test_by_provider(log_a: Path) -> None:
    got = groups(log_a, "--by", "provider")
    # a tool's own model call (Haiku) names no provider: genai-prices' match for its model id
    assert set(got) == {("anthropic",), ("openai",)}
    assert got[("anthropic",)]["calls"] == 3
    assert close(got[("anthropic",)]["cost_usd"], A_S1 + A_S2 + A_H)
    assert close(got[("openai",)]["cost_usd"], A_G)
    _, rows, _ = parse_table(ok(log_a, "--by", "provider").stdout)
    assert [row[0] for row in rows] == ["anthropic", "openai", "total"]


def test_by_provider_on_testdata() -> None:
    """08: every call is Anthropic's, the summarize tool's five Haiku calls too."""
    got = groups(SESSIONS / "08_tool_model_calls.jsonl", "--by", "provider")
    assert list(got) == [("anthropic",)]
    assert got[("anthropic",)]["calls"] == 9


def test_by_tool(log_a: Path) -> None:
    got = groups(log_a, "--by", "tool")
    assert set(got) == {("summarize",), (None,)}
    assert got[("summarize",)]["calls"] == 1
    assert close(got[("summarize",)]["cost_usd"], A_H)
    assert got[(None,)]["calls"] == 3  # the agent's own turns
    assert close(got[(None,)]["cost_usd"], A_S1 + A_G + A_S2)
    _, rows, _ = parse_table(ok(log_a, "--by", "tool").stdout)
    assert sorted(row[0] for row in rows[:-1]) == ["-", "summarize"]


def test_by_tool_on_testdata() -> None:
    got = groups(SESSIONS / "08_tool_model_calls.jsonl", "--by", "tool")
    summarize = got[("summarize",)]
    # five Haiku calls in three results: 2 + 1 + 2
    assert summarize["calls"] == 5
    assert summarize["input_tokens"] == 18240 + 9876 + 7410 + 31877 + 8102
    want = (
        by_hand(HAIKU_4_5, 18240, 412)
        + by_hand(HAIKU_4_5, 9876, 305, read=2048)
        + by_hand(HAIKU_4_5, 7410, 188)
        + by_hand(HAIKU_4_5, 31877, 2950)
        + by_hand(HAIKU_4_5, 8102, 1433)
    )
    assert close(summarize["cost_usd"], want)


def test_by_session_and_model(log_a: Path, log_b: Path) -> None:
    got = groups(log_a, log_b, "--by", "session", "--by", "model")
    a, b = str(log_a), str(log_b)
    assert list(got) == [
        (a, "claude-haiku-4-5"),
        (a, "claude-sonnet-4-5"),
        (a, "gpt-5"),
        (b, "claude-sonnet-4-5"),
        (b, "gpt-5"),
    ]
    assert close(got[(a, "claude-sonnet-4-5")]["cost_usd"], A_S1 + A_S2)
    assert close(got[(b, "claude-sonnet-4-5")]["cost_usd"], B_S)
    assert close(got[(b, "gpt-5")]["cost_usd"], B_G)
    header, rows, _ = parse_table(ok(log_a, log_b, "--by", "session", "--by", "model").stdout)
    assert header[:2] == ["session", "model"]
    assert rows[-1][:2] == ["total", ""] and rows[-1][2] == "6"


def test_testdata_runs_one_row_each() -> None:
    got = groups(SESSIONS / "02_runs_anthropic_openai_cache.jsonl", "--by", "run")
    assert [key[1] for key in got] == [0, 1, 2, 3, 4]
    assert all(not g["lower_bound"] for g in got.values())


def test_the_long_context_tier_prices_the_whole_request(tmp_path: Path) -> None:
    # 190,000 + 10,001 = 200,001 inclusive input tokens: over 200K, so every token at the tier
    log = write(
        tmp_path,
        "long.jsonl",
        line(0, "run_started", {"prompt": "long"}, at(18, "12:00:00"))
        + line(
            1,
            "message",
            assistant(text="a", u=usage(190_000, 1_000, read=10_001)),
            at(18, "12:00:01"),
        )
        + line(
            2,
            "message",
            assistant(text="b", u=usage(190_000, 1_000, read=10_000)),
            at(18, "12:00:02"),
        )
        + line(3, "run_ended", outcome(turns=2), at(18, "12:00:03")),
    )
    got = groups(log, "--by", "run")
    want = by_hand(SONNET_4_5_LONG, 190_000, 1_000, 10_001) + by_hand(
        SONNET_4_5, 190_000, 1_000, 10_000
    )
    assert close(got[(str(log), 0)]["cost_usd"], want)


# -- unpriced models -------------------------------------------------------------------------


def test_unknown_model_is_a_lower_bound_in_the_table(log_c: Path) -> None:
    _, rows, notes = parse_table(ok(log_c).stdout)
    by_model = {row[0]: row for row in rows}
    shown = by_model[UNKNOWN_MODEL][COST]
    assert shown == "unpriced", shown  # never a bare 0 for what nobody priced
    # no cache read: a hit rate of 0; what the cache saved needs a price nobody knows
    assert by_model[UNKNOWN_MODEL][-2:] == ["0.0%", "unknown"]
    assert money(by_model["claude-sonnet-4-5"][COST]) == (round(C_S, 6), False)
    assert money(by_model["total"][COST]) == (round(C_S, 6), True)
    assert len(notes) == 1 and UNKNOWN_MODEL in notes[0] and "lower bound" in notes[0]
    assert "--prices" in notes[0]


def test_unknown_model_in_json_and_csv(log_a: Path, log_c: Path) -> None:
    document = as_json(log_a, log_c, "--by", "session")
    assert document["lower_bound"] is True
    assert document["unpriced_models"] == [UNKNOWN_MODEL]
    assert close(document["total_cost_usd"], A_TOTAL + C_S)
    by_session = {g["session"]: g for g in document["groups"]}
    c = by_session[str(log_c)]
    assert c["lower_bound"] is True and c["unpriced_calls"] == 1
    assert c["unpriced_models"] == [UNKNOWN_MODEL]
    assert close(c["cost_usd"], C_S)  # what is known; the unknown call is not counted as 0
    a = by_session[str(log_a)]
    assert a["lower_bound"] is False and a["unpriced_models"] == []

    by_model = groups(log_c)
    unknown = by_model[(UNKNOWN_MODEL,)]
    assert unknown["lower_bound"] is True and unknown["unpriced_calls"] == 1
    assert unknown["cost_usd"] is None  # nothing of it priced: null, never 0
    assert unknown["input_tokens"] == 10_000  # its tokens still count
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO(ok(log_c, "--format", "csv").stdout))}
    assert rows[UNKNOWN_MODEL]["lower_bound"] == "true"
    assert rows[UNKNOWN_MODEL]["cost_usd"] == ""
    assert rows[UNKNOWN_MODEL]["unpriced_models"] == json.dumps([UNKNOWN_MODEL])
    assert rows["claude-sonnet-4-5"]["lower_bound"] == "false"


def test_a_model_known_only_by_its_prices_file_is_priced(log_c: Path, tmp_path: Path) -> None:
    prices = write(tmp_path, "p.json", b'{"acme-9000": {"input": 4, "output": 16}}')
    document = as_json(log_c, "--prices", prices)
    assert document["lower_bound"] is False and document["unpriced_models"] == []
    assert close(document["total_cost_usd"], C_S + (10_000 * 4 + 1_000 * 16) / 1e6)
    _, rows, notes = parse_table(ok(log_c, "--prices", prices).stdout)
    assert notes == [] and not any(row[COST].startswith(">=") for row in rows)


# -- prices files ----------------------------------------------------------------------------

CHEAP_SONNET = {"input": 2.0, "output": 10.0, "cache_read": 0.2, "cache_write": 2.5}


def test_prices_json_wins_over_genai_prices(log_a: Path, tmp_path: Path) -> None:
    prices = write(tmp_path, "prices.json", orjson.dumps({"claude-sonnet-4-5": CHEAP_SONNET}))
    got = groups(log_a, "--prices", prices)
    want = by_hand(CHEAP_SONNET, 1000, 200, 5000, 300) + by_hand(CHEAP_SONNET, 300, 50, 2000)
    assert close(got[("claude-sonnet-4-5",)]["cost_usd"], want)
    # the models the file does not name: genai-prices, as before
    assert close(got[("gpt-5",)]["cost_usd"], A_G)
    assert close(got[("claude-haiku-4-5",)]["cost_usd"], A_H)


def test_prices_toml_wins_over_genai_prices(log_a: Path, tmp_path: Path) -> None:
    prices = write(
        tmp_path,
        "prices.toml",
        b"[claude-sonnet-4-5]\ninput = 2\noutput = 10\ncache_read = 0.2\ncache_write = 2.5\n\n"
        b'["gpt-5"]\nInput = 1\nOutput = 2\nCacheRead = 0.5\n',
    )
    got = groups(log_a, "--prices", prices)
    want = by_hand(CHEAP_SONNET, 1000, 200, 5000, 300) + by_hand(CHEAP_SONNET, 300, 50, 2000)
    assert close(got[("claude-sonnet-4-5",)]["cost_usd"], want)
    assert close(
        got[("gpt-5",)]["cost_usd"],
        by_hand({"input": 1, "output": 2, "cache_read": 0.5}, 2000, 400, 1000),
    )


def test_a_price_the_file_leaves_out_is_unknown_not_genai_prices(
    log_a: Path, tmp_path: Path
) -> None:
    # gpt-5's entry has no cache read price and A's GPT-5 call read 1000 cached tokens
    prices = write(tmp_path, "p.json", b'{"gpt-5": {"input": 1, "output": 2}}')
    got = groups(log_a, "--prices", prices)
    assert got[("gpt-5",)]["lower_bound"] is True
    assert got[("gpt-5",)]["unpriced_models"] == ["gpt-5"]
    assert got[("claude-sonnet-4-5",)]["lower_bound"] is False


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("negative.json", b'{"gpt-5": {"input": -1}}'),
        ("broken.json", b'{"gpt-5": {"input": 1'),
        ("unknown-field.json", b'{"gpt-5": {"inputs": 1}}'),
        ("not-an-object.json", b"[1, 2]"),
        ("broken.toml", b"[gpt-5\ninput = 1\n"),
        ("text.toml", b'[gpt-5]\ninput = "cheap"\n'),
        ("prices.yaml", b"gpt-5: {input: 1}\n"),
    ],
)
def test_a_bad_prices_file_is_a_usage_error(
    log_a: Path, tmp_path: Path, name: str, content: bytes
) -> None:
    prices = write(tmp_path, name, content)
    result = invoke(log_a, "--prices", prices)
    message = one_error_line(result, 2)
    assert str(prices) in message and "--prices" in message
    assert result.stdout == ""


def test_a_missing_prices_file_is_a_usage_error(log_a: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    result = invoke(log_a, "--prices", missing)
    message = one_error_line(result, 2)
    assert str(missing) in message
    assert result.stdout == ""


# -- --since / --until -----------------------------------------------------------------------


def calls_of(*args: object) -> int:
    return int(sum(g["calls"] for g in as_json(*args)["groups"]))


@pytest.mark.parametrize(
    ("flags", "calls"),
    [
        ([], 4),
        # plain dates are midnight UTC; A's last call is at 23:00 UTC on the 19th
        (["--since", "2026-10-18"], 4),
        (["--since", "2026-10-19"], 1),
        (["--since", "2026-10-20"], 0),
        (["--until", "2026-10-19"], 3),
        (["--since", "2026-10-18", "--until", "2026-10-19"], 3),
        # at or after --since, before --until; the same instant in any offset
        (["--since", "2026-10-18T09:30:06+02:00"], 2),
        (["--since", "2026-10-18T07:30:06Z"], 2),
        (["--since", "2026-10-18T02:30:06-05:00"], 2),
        (["--since", "2026-10-18T13:00:06.000000001+05:30"], 1),
        (["--since", "2026-10-18T07:30:06"], 2),  # no offset: UTC
        (["--until", "2026-10-18T09:30:06+02:00"], 2),
        (["--until", "2026-10-18T09:30:06.000000001+02:00"], 3),
        (["--since", "2026-10-18T09:30:05+02:00", "--until", "2026-10-18T07:30:06.5Z"], 2),
        (["--since", "2026-10-20T01:00:10+02:00", "--until", "2026-10-20T01:00:11+02:00"], 1),
    ],
)
def test_since_and_until_filter_calls(log_a: Path, flags: list[str], calls: int) -> None:
    assert calls_of(log_a, *flags) == calls


def test_since_filters_costs_too(log_a: Path) -> None:
    got = groups(log_a, "--since", "2026-10-18T09:30:05+02:00", "--until", "2026-10-19")
    assert set(got) == {("claude-haiku-4-5",), ("gpt-5",)}
    assert close(got[("claude-haiku-4-5",)]["cost_usd"], A_H)
    assert close(got[("gpt-5",)]["cost_usd"], A_G)


def test_nothing_left_after_filtering(log_a: Path) -> None:
    _, rows, notes = parse_table(ok(log_a, "--since", "2027-01-01").stdout)
    assert notes == []
    # no input: no hit rate ("-"); nothing cached, nothing saved
    assert rows == [["total", "0", "0", "0", "0", "0", "0", "0.000000", "-", "0.000000"]]
    document = as_json(log_a, "--since", "2027-01-01")
    assert document["groups"] == [] and document["total_cost_usd"] == 0


@pytest.mark.parametrize("flag", ["--since", "--until"])
@pytest.mark.parametrize("text", ["yesterday-ish", "2026-13-01", "2026-10-18T25:00:00Z", ""])
def test_a_bad_time_is_a_usage_error(log_a: Path, flag: str, text: str) -> None:
    result = invoke(log_a, flag, text)
    message = one_error_line(result, 2)
    assert flag in message
    assert result.stdout == ""


# -- damaged and missing logs ----------------------------------------------------------------


def test_a_damaged_log_is_skipped_and_the_others_count(
    log_a: Path, log_b: Path, tmp_path: Path
) -> None:
    lines = LOG_C.splitlines(keepends=True)
    damaged = write(
        tmp_path, "c-damaged.jsonl", lines[0] + lines[1][:50] + b"\n" + b"".join(lines[2:])
    )
    result = invoke(tmp_path, "--by", "session")
    message = one_error_line(result, 1)
    assert message.startswith(
        f"sessiontools cost: error: {damaged}: line 2 (byte {len(lines[0])}): "
    ), message
    assert message.endswith("; skipped")
    _, rows, notes = parse_table(result.stdout)
    assert [row[0] for row in rows] == [str(log_a), str(log_b), "total"]
    assert money(rows[-1][COST]) == (round(A_TOTAL + B_G + B_S, 6), False)
    assert any("skipped" in note for note in notes)


def test_a_damaged_log_in_json(log_a: Path, tmp_path: Path) -> None:
    damaged = write(tmp_path, "z.jsonl", LOG_B[:-40] + b"\n" + LOG_C)
    result = invoke(log_a, damaged, "--format", "json")
    one_error_line(result, 1)
    document = json.loads(result.stdout)
    assert len(document["skipped"]) == 1 and str(damaged) in document["skipped"][0]
    assert close(document["total_cost_usd"], A_TOTAL)


def test_testdata_directory() -> None:
    result = invoke(SESSIONS, "--format", "json")
    assert result.exit_code == 1
    errors = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert len(errors) == 1, result.stderr
    damaged = SESSIONS / "05_damaged_middle_line.jsonl"
    assert errors[0].startswith(f"sessiontools cost: error: {damaged}: line 17 (byte 5294): ")
    assert errors[0].endswith("; skipped")
    others = [ln for ln in result.stderr.splitlines() if ln not in errors]
    assert all(ln.startswith("sessiontools cost: warning: ") for ln in others), others
    document = json.loads(result.stdout)
    assert document["skipped"] and "05_damaged_middle_line" in document["skipped"][0]
    assert sum(g["calls"] for g in document["groups"]) > 0


def test_a_transcript_from_testdata_matches_its_reported_cost() -> None:
    # 06's closing line says $0.0086484: 759 input, 179 output, 12,288 cache read on Sonnet 4.5
    document = as_json(SESSIONS / "06_transcript.jsonl")
    assert close(document["total_cost_usd"], by_hand(SONNET_4_5, 759, 179, 12288))


@pytest.mark.parametrize("missing", ["nowhere.jsonl", "nowhere/*.jsonl", "no-dir/"])
def test_a_path_that_does_not_exist_is_a_usage_error(
    log_a: Path, tmp_path: Path, missing: str
) -> None:
    result = invoke(log_a, tmp_path / missing)
    message = one_error_line(result, 2)
    assert str(tmp_path / missing).rstrip("/") in message
    assert result.stdout == ""


def test_a_dangling_symlink_is_a_usage_error(tmp_path: Path) -> None:
    link = tmp_path / "gone.jsonl"
    link.symlink_to(tmp_path / "deleted.jsonl")
    result = invoke(link)
    assert result.exit_code == 2
    assert str(link) in result.stderr


def test_no_path_is_a_usage_error() -> None:
    result = invoke()
    one_error_line(result, 2)


# -- --out ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_out_writes_the_same_bytes_as_stdout(
    log_a: Path, log_c: Path, tmp_path: Path, fmt: str
) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / f"report.{fmt}"
    printed = ok(log_a, log_c, "--format", fmt).stdout_bytes
    result = ok(log_a, log_c, "--format", fmt, "--out", out)
    assert result.stdout_bytes == b""
    assert out.read_bytes() == printed
    assert [p.name for p in out_dir.iterdir()] == [out.name]  # no temporary file left


def test_out_replaces_an_existing_file(log_a: Path, tmp_path: Path) -> None:
    out = write(tmp_path, "report.csv", b"old contents\n" * 1000)
    ok(log_a, "--format", "csv", "--out", out)
    assert out.read_bytes() == ok(log_a, "--format", "csv").stdout_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "report.csv"]


def test_out_with_a_damaged_log_still_writes(log_a: Path, tmp_path: Path) -> None:
    write(tmp_path, "bad.jsonl", b'{"seq":0,\n' + LOG_B)
    out = tmp_path / "report.json"
    result = invoke(log_a, tmp_path / "bad.jsonl", "--format", "json", "--out", out)
    one_error_line(result, 1)
    assert close(json.loads(out.read_bytes())["total_cost_usd"], A_TOTAL)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "bad.jsonl", "report.json"]


@pytest.mark.parametrize("how", ["file", "directory", "symlink"])
def test_out_never_overwrites_a_log_being_read(
    log_a: Path, log_b: Path, tmp_path: Path, how: str
) -> None:
    before = log_b.read_bytes()
    if how == "file":
        args: Sequence[object] = (log_a, log_b, "--out", log_b)
    elif how == "directory":
        args = (tmp_path, "--out", log_b)
    else:
        link = tmp_path / "link.txt"
        link.symlink_to(log_b)
        args = (log_a, log_b, "--out", link)
    result = invoke(*args)
    message = one_error_line(result, 2)
    assert "--out" in message and str(log_b) in message
    assert log_b.read_bytes() == before
    assert result.stdout == ""
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


# -- a session and the transcript of one of its runs -------------------------------------------

# Session P: run 0 (one Sonnet turn) and run 1 (two Sonnet turns and a clock call).
P_RUN_0 = (
    line(0, "run_started", {"prompt": "one"}, at(23, "10:00:00.125"))
    + line(1, "message", user("one"), at(23, "10:00:01"))
    + line(2, "message", assistant(text="a", u=usage(1000, 100)), at(23, "10:00:02"))
    + line(3, "run_ended", outcome(turns=1, u=usage(1000, 100)), at(23, "10:00:03"))
)
P_RUN_1_TURNS = (usage(2000, 200, read=4000), usage(500, 50, read=6000))
P_RUN_1 = (
    line(4, "run_started", {"prompt": "two"}, at(23, "10:05:00.250"))
    + line(5, "message", user("two"), at(23, "10:05:01"))
    + line(6, "message", assistant(("c1", "clock"), u=P_RUN_1_TURNS[0]), at(23, "10:05:02"))
    + line(
        7, "decision", {"call_id": "c1", "tool": "clock", "verdict": "allow"}, at(23, "10:05:03")
    )
    + line(8, "call_started", {"call_id": "c1"}, at(23, "10:05:04"))
    + line(9, "tool_result", result("c1", "10:05"), at(23, "10:05:05"))
    + line(10, "message", assistant(text="b", u=P_RUN_1_TURNS[1]), at(23, "10:05:06"))
    + line(11, "run_ended", outcome(turns=2, u=usage(2500, 250, 10_000)), at(23, "10:05:07"))
)
P_COST_0 = by_hand(SONNET_4_5, 1000, 100)
P_COST_1 = by_hand(SONNET_4_5, 2000, 200, 4000) + by_hand(SONNET_4_5, 500, 50, 6000)


def transcript(cost_usd: float) -> bytes:
    """What `agentloop run` printed for run 1 of P: its entries, then the outcome with its cost."""
    closing = {**outcome(turns=2, u=usage(2500, 250, 10_000)), "cost_usd": cost_usd}
    return P_RUN_1 + orjson.dumps(closing) + b"\n"


@pytest.mark.parametrize("order", ["session first", "transcript first", "directory"])
def test_a_run_read_twice_is_counted_once(tmp_path: Path, order: str) -> None:
    session = write(tmp_path, "session.jsonl", P_RUN_0 + P_RUN_1)
    run = write(tmp_path, "run-1.jsonl", transcript(P_COST_1))
    args: tuple[object, ...] = {
        "session first": (session, run),
        "transcript first": (run, session),
        "directory": (tmp_path,),
    }[order]
    result = invoke(*args, "--by", "run", "--format", "json")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [copies_note(1, 2)]
    document = json.loads(result.stdout)
    assert document["copies"] == [str(run)]  # the session holds its run as far
    assert sum(g["calls"] for g in document["groups"]) == 3
    assert len(document["groups"]) == 2
    assert close(document["total_cost_usd"], P_COST_0 + P_COST_1)
    alone = as_json(session)
    assert close(alone["total_cost_usd"], document["total_cost_usd"])
    assert close(as_json(run)["total_cost_usd"], P_COST_1)


@pytest.mark.parametrize("factor", [1.015, 0.985, 1.5, 0.5])
def test_a_transcript_more_than_1_percent_off_is_a_warning(tmp_path: Path, factor: float) -> None:
    run = write(tmp_path, "run-1.jsonl", transcript(P_COST_1 * factor))
    result = invoke(run, "--format", "json")
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("sessiontools cost: warning: ")
    assert str(run) in lines[0] and "run 0" in lines[0] and "seq 4" in lines[0]
    assert f"{P_COST_1 * factor:.6f}" in lines[0] and f"{P_COST_1:.6f}" in lines[0]
    # the computed cost is what is reported, not the transcript's
    assert close(json.loads(result.stdout)["total_cost_usd"], P_COST_1)


def test_a_transcript_off_is_a_warning_next_to_its_session(tmp_path: Path) -> None:
    session = write(tmp_path, "session.jsonl", P_RUN_0 + P_RUN_1)
    run = write(tmp_path, "run-1.jsonl", transcript(P_COST_1 * 1.02))
    result = invoke(session, run)
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and lines[0].startswith("sessiontools cost: warning: "), result.stderr
    assert "seq 4" in lines[0]
    assert lines[1] == copies_note(1, 2)


@pytest.mark.parametrize("factor", [1.0, 1.005, 0.995])
def test_a_transcript_within_1_percent_is_not_a_warning(tmp_path: Path, factor: float) -> None:
    session = write(tmp_path, "session.jsonl", P_RUN_0 + P_RUN_1)
    run = write(tmp_path, "run-1.jsonl", transcript(P_COST_1 * factor))
    ok(run)
    result = invoke(session, run)
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [copies_note(1, 2)]  # and no warning


# -- the terminal ----------------------------------------------------------------------------


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    for i in range(12):
        write(tmp_path, f"s{i:02d}.jsonl", LOG_B.replace(b"14:00:0", f"{10 + i}:00:0".encode()))
    result = ok(tmp_path, "--by", "session")
    assert result.stderr == ""
    _, rows, _ = parse_table(result.stdout)
    assert len(rows) == 13


# -- bugs ----------------------------------------------------------------------------------------


def test_different_sessions_starting_at_the_same_moment_both_count(tmp_path: Path) -> None:
    # Two separate sessions, started by one harness in the same second (times to the second)
    first = write(
        tmp_path,
        "worker-1.jsonl",
        line(0, "run_started", {"prompt": "task 1"}, at(24, "09:00:00"))
        + line(1, "message", assistant(text="a", u=usage(1000, 100)), at(24, "09:00:04"))
        + line(2, "run_ended", outcome(), at(24, "09:00:05")),
    )
    second = write(
        tmp_path,
        "worker-2.jsonl",
        line(0, "run_started", {"prompt": "task 2"}, at(24, "09:00:00"))
        + line(
            1,
            "message",
            assistant(text="b", model="claude-haiku-4-5", u=usage(3000, 300)),
            at(24, "09:00:07"),
        )
        + line(2, "run_ended", outcome(), at(24, "09:00:08")),
    )
    document = as_json(first, second, "--by", "session")
    assert [g["session"] for g in document["groups"]] == [str(first), str(second)]
    assert close(
        document["total_cost_usd"],
        by_hand(SONNET_4_5, 1000, 100) + by_hand(HAIKU_4_5, 3000, 300),
    )


def test_a_negative_token_count_is_reported(tmp_path: Path) -> None:
    log = write(
        tmp_path,
        "neg.jsonl",
        line(0, "run_started", {"prompt": "x"}, at(18, "11:00:00"))
        + line(
            1,
            "message",
            assistant(text="a", u={"input_tokens": -5000, "output_tokens": 300}),
            at(18, "11:00:01"),
        )
        + line(2, "run_ended", outcome(), at(18, "11:00:02")),
    )
    result = invoke(log)
    assert str(log) in result.stderr and "negative" in result.stderr


def test_markdown_escapes_a_pipe_in_a_cell(tmp_path: Path) -> None:
    log = write(tmp_path, "a|b.jsonl", LOG_B)
    text = ok(log, "--by", "session", "--format", "markdown").stdout
    lines = text.rstrip("\n").splitlines()
    columns = [ln.replace("\\|", "").count("|") for ln in lines]
    assert len(set(columns)) == 1, text


POOL_SIGNAL_SCRIPT = """
    import os, sys, time
    from sessiontools._cost import rows as _costread
    from sessiontools._main import run
    pids = sys.argv[3]
    def slow(name, **options):  # a worker: says who it is, then takes its time
        with open(os.path.join(pids, str(os.getpid())), "w"):
            pass
        time.sleep(0.3)
        return real(name, **options)
    real = _costread._read_log
    _costread._read_log = slow
    sys.argv = ["sessiontools", "cost", sys.argv[1], "--format", "json", "--out", sys.argv[2]]
    run()
"""


@pytest.mark.parametrize(
    ("signum", "group", "status", "said"),
    [
        (15, False, 143, "sessiontools: terminated"),  # kill, timeout, a service manager
        (2, True, 130, "sessiontools: interrupted"),  # Ctrl-C: the whole process group
    ],
)
def test_cost_stopped_by_a_signal_stops_its_workers(
    tmp_path: Path, signum: int, group: bool, status: int, said: str
) -> None:
    """While the pool reads: the logs being read are read, then the command stops with one
    line and 128 + the signal, leaving no worker and no output."""
    import signal
    import subprocess
    import sys
    import textwrap
    import time

    from tests.helpers import REPO

    logs = tmp_path / "logs"
    logs.mkdir()
    for i in range(40):  # from PARALLEL_FROM (32) logs on, the command reads in a pool
        (logs / f"s{i:02d}.jsonl").write_bytes((SESSIONS / "01_one_run_tool.jsonl").read_bytes())
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    pids = tmp_path / "pids"
    pids.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(POOL_SIGNAL_SCRIPT), str(logs),
         str(out_dir / "cost.json"), str(pids)],
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while len(os.listdir(pids)) < 2:
        assert time.monotonic() < deadline, "the workers never started"
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    try:
        _, stderr = proc.communicate(timeout=30)
    finally:
        with pytest.raises(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # nothing of the command is left
    assert proc.returncode == status, stderr
    assert stderr.decode().splitlines() == [said]
    assert os.listdir(out_dir) == []


# -- issue 10: what a user trips over ------------------------------------------------------------

# Session M: a model only the user's price file knows, with and without cache reads.
MY_MODEL = "my-model"
LOG_M = (
    line(0, "run_started", {"prompt": "m"}, at(25, "08:00:00"))
    + line(
        1,
        "message",
        assistant(text="x", provider="acme", model=MY_MODEL, u=usage(1000, 100)),
        at(25, "08:00:01"),
    )
    + line(
        2,
        "message",
        assistant(text="y", provider="acme", model=MY_MODEL, u=usage(500, 50, read=2000)),
        at(25, "08:00:02"),
    )
    + line(3, "run_ended", outcome(turns=2, u=usage(1500, 150, read=2000)), at(25, "08:00:03"))
)


def test_a_price_file_without_cache_prices_names_what_is_missing(
    log_c: Path, tmp_path: Path
) -> None:
    """The file gives my-model's input ($2) and output ($8) only. The turn without cache tokens
    is priced: 1,000 * $2 + 100 * $8 per million = $0.0028; the one with 2,000 cache reads is
    not (no cache_read price), so the model's cost is a lower bound. The note says which price
    of which model the file lacks, and the hint to give prices stays for acme-9000, which
    nobody prices."""
    log = write(tmp_path, "m.jsonl", LOG_M)
    prices = write(tmp_path, "p.json", b'{"my-model": {"input": 2, "output": 8}}')
    _, rows, notes = parse_table(ok(log, log_c, "--prices", prices).stdout)
    by_model = {row[0]: row for row in rows}
    assert money(by_model[MY_MODEL][COST]) == (0.0028, True)
    assert len(notes) == 1
    assert (
        f"{MY_MODEL}: {prices} gives no cache_read price, and its calls have such tokens; "
        "add cache_read to its entry" in notes[0]
    ), notes[0]
    assert f"unpriced models: {UNKNOWN_MODEL}; give their prices with --prices" in notes[0]
    assert f"{MY_MODEL};" not in notes[0] and f"{MY_MODEL}," not in notes[0]
    document = as_json(log, "--prices", prices)
    assert document["missing_prices"] == {MY_MODEL: ["cache_read"]}
    assert document["unpriced_models"] == [MY_MODEL]
    assert close(document["total_cost_usd"], (1000 * 2 + 100 * 8) / 1e6)
    # with the cache read price too: priced, nothing missing ($0.30 per million reads):
    # $0.0028 + 500 * $2 + 50 * $8 + 2,000 * $0.30 per million = $0.0028 + $0.002
    whole = write(tmp_path, "q.json", b'{"my-model": {"input": 2, "output": 8, "cache_read": 0.3}}')
    document = as_json(log, "--prices", whole)
    assert document["missing_prices"] == {} and document["lower_bound"] is False
    assert close(document["total_cost_usd"], 0.0028 + (500 * 2 + 50 * 8 + 2000 * 0.3) / 1e6)


def test_a_price_file_missing_two_prices(tmp_path: Path) -> None:
    """Only input is given ($2): every call has output tokens, the second cache reads too."""
    log = write(tmp_path, "m.jsonl", LOG_M)
    prices = write(tmp_path, "p.toml", b"[my-model]\ninput = 2\n")
    _, rows, notes = parse_table(ok(log, "--prices", prices).stdout)
    assert rows[0][COST] == "unpriced"
    assert (
        f"{MY_MODEL}: {prices} gives no output or cache_read price, and its calls have such "
        "tokens; add output, cache_read to its entry" in notes[0]
    ), notes[0]
    assert "--prices" not in notes[0]
    assert as_json(log, "--prices", prices)["missing_prices"] == {
        MY_MODEL: ["output", "cache_read"]
    }


# Session T: one call that costs $5e-8: 1 input token at $0.05 per million.
LOG_T = (
    line(0, "run_started", {"prompt": "t"}, at(26, "08:00:00"))
    + line(1, "message", assistant(text="x", model="tiny", u=usage(1, 0)), at(26, "08:00:01"))
    + line(2, "run_ended", outcome(turns=1, u=usage(1, 0)), at(26, "08:00:02"))
)


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_a_tiny_cost_is_never_shown_as_zero(tmp_path: Path, fmt: str) -> None:
    """1 token * $0.05 / 1,000,000 = $0.00000005: six decimals would show 0.000000."""
    log = write(tmp_path, "t.jsonl", LOG_T)
    prices = write(tmp_path, "p.json", b'{"tiny": {"input": 0.05, "output": 1}}')
    text = ok(log, "--prices", prices, "--format", fmt).stdout
    if fmt == "table":
        _, rows, _ = parse_table(text)
    else:
        rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in text.splitlines()[2:] if ln]
    assert [row[COST] for row in rows] == ["0.0000000500", "0.0000000500"]
    # (what the cache saved, nothing: 0.000000, is a zero)
    assert [row[-1] for row in rows] == ["0.000000", "0.000000"]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0, "0.000000"),
        (0.004599, "0.004599"),
        (0.087188, "0.087188"),
        (12.5, "12.500000"),
        (0.0001, "0.000100"),  # six decimals still give three significant digits
        (0.00001234, "0.0000123"),
        (5e-8, "0.0000000500"),
        (9.9996e-7, "0.000001000"),  # rounds up, still not zero
        (1e-12, "1.00e-12"),  # beyond twelve decimals, scientific
        (5e-324, "4.94e-324"),
    ],
)
def test_usd_text(value: float, shown: str) -> None:
    from sessiontools._cost.frames import usd_text

    assert usd_text(value) == shown
    assert value == 0 or float(shown) != 0


def test_standard_input_is_a_log(log_b: Path) -> None:
    """`cost -` reads standard input, named <stdin>, as `otel -` does."""
    runner = CliRunner()
    result = runner.invoke(cli, ["cost", "-", "--by", "session", "--format", "json"], input=LOG_A)
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert [g["session"] for g in document["groups"]] == ["<stdin>"]
    assert close(document["total_cost_usd"], A_TOTAL)
    # with files, in the order given
    result = runner.invoke(cli, ["cost", os.fspath(log_b), "-", "--by", "session"], input=LOG_A)
    assert result.exit_code == 0, result.stderr
    _, rows, _ = parse_table(result.stdout)
    assert [row[0] for row in rows] == [str(log_b), "<stdin>", "total"]
    assert money(rows[-1][COST]) == (round(A_TOTAL + B_G + B_S, 6), False)


def test_damaged_standard_input_is_skipped(log_b: Path) -> None:
    result = CliRunner().invoke(cli, ["cost", "-", os.fspath(log_b)], input=b'{"seq":0,\n' + LOG_A)
    message = one_error_line(result, 1)
    assert message.startswith("sessiontools cost: error: <stdin>: line 1 (byte 0): ")
    assert message.endswith("; skipped")
    _, rows, _ = parse_table(result.stdout)
    assert money(rows[-1][COST]) == (round(B_G + B_S, 6), False)


def test_standard_input_twice_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["cost", "-", "-"], input=LOG_A)
    message = one_error_line(result, 2)
    assert "standard input" in message and "PATH" in message
    assert result.stdout == ""


def test_out_is_never_the_file_standard_input_reads(tmp_path: Path) -> None:
    """`cost - --out s.jsonl < s.jsonl` would put the report in place of the log."""
    import subprocess
    import sys

    from tests.helpers import REPO

    log = write(tmp_path, "s.jsonl", LOG_A)
    with open(log, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "sessiontools", "cost", "-", "--out", str(log)],
            stdin=stdin,
            capture_output=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().count("\n") == 1 and "--out" in done.stderr.decode()
    assert log.read_bytes() == LOG_A
    # another file is fine
    out = tmp_path / "report.txt"
    with open(log, "rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "sessiontools", "cost", "-", "--out", str(out)],
            stdin=stdin,
            capture_output=True,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "<stdin>" not in out.read_text() and "claude-sonnet-4-5" in out.read_text()


@pytest.mark.parametrize(
    ("since", "until"),
    [
        ("2026-10-20", "2026-10-18"),
        ("2026-10-18T10:00:00+02:00", "2026-10-18T09:59:59+02:00"),
        ("2026-10-18", "2026-10-18"),  # an empty window
        ("2026-10-18T02:00:00+02:00", "2026-10-18"),  # the same instant, written two ways
    ],
)
def test_since_not_before_until_is_a_usage_error(log_a: Path, since: str, until: str) -> None:
    result = invoke(log_a, "--since", since, "--until", until)
    message = one_error_line(result, 2)
    assert f"--since {since} is not before --until {until}" in message, message
    assert result.stdout == ""


def test_since_before_until_by_a_nanosecond_is_fine(log_a: Path) -> None:
    document = as_json(
        log_a,
        "--since",
        "2026-10-18T09:30:02+02:00",
        "--until",
        "2026-10-18T09:30:02.000000001+02:00",
    )
    # the first Sonnet turn, at 09:30:02 exactly
    assert close(document["total_cost_usd"], A_S1)


@pytest.mark.parametrize("by", ["day", "tool", "provider", "run", "session", "model"])
def test_csv_json_and_table_show_the_same_groups(log_a: Path, log_b: Path, by: str) -> None:
    """Group keys read the same in every format: a day as YYYY-MM-DD, no value as "-" (null
    in JSON)."""
    logs = (log_a, log_b)
    keys = ["session", "run_index"] if by == "run" else [by]
    rows = list(csv.DictReader(io.StringIO(ok(*logs, "--by", by, "--format", "csv").stdout)))
    _, table_rows, _ = parse_table(ok(*logs, "--by", by).stdout)
    md = ok(*logs, "--by", by, "--format", "markdown").stdout.splitlines()[2:]
    md_rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in md if ln.startswith("|")]
    groups_ = as_json(*logs, "--by", by)["groups"]
    from_csv = [[row[k] for k in keys] for row in rows]
    assert from_csv == [row[: len(keys)] for row in table_rows[:-1]]
    assert from_csv == [row[: len(keys)] for row in md_rows[:-1]]
    assert from_csv == [["-" if g[k] is None else str(g[k]) for k in keys] for g in groups_]
    if by == "tool":
        assert from_csv == [["summarize"], ["-"]]  # the tool's, then the agent's own turns
        assert [g["tool"] for g in groups_] == ["summarize", None]


def test_run_index_is_aligned_right(log_a: Path, tmp_path: Path) -> None:
    """A number: its last digit under the header's last letter."""
    logs = [log_a]
    for i in range(11):  # run indexes of two digits
        logs.append(
            write(tmp_path, f"x{i}.jsonl", LOG_B.replace(b"14:00:0", f"{10 + i}:00:0".encode()))
        )
    big = tmp_path / "big.jsonl"
    big.write_bytes(b"".join(
        line(4 * i, "run_started", {"prompt": str(i)}, at(27, f"{i:02d}:00:00"))
        + line(4 * i + 1, "message", assistant(text="x", u=usage(10, 1)), at(27, f"{i:02d}:00:01"))
        + line(4 * i + 2, "run_ended", outcome(u=usage(10, 1)), at(27, f"{i:02d}:00:02"))
        for i in range(12)
    ))  # fmt: skip
    lines = ok(big, "--by", "run").stdout.splitlines()
    header = lines[0]
    end = header.index("run_index") + len("run_index")
    cells = [ln[:end] for ln in lines[2:14]]
    assert [c[-2:].strip() for c in cells] == [str(i) for i in range(12)]
    assert all(c[-1].isdigit() for c in cells)


def test_copies_are_counted_once_and_said(tmp_path: Path) -> None:
    """60 copies of one session cost what one does, and one line says so (read in a pool:
    from 32 logs on)."""
    copies = tmp_path / "copies"
    copies.mkdir()
    for i in range(60):
        write(copies, f"copy-{i:02d}.jsonl", LOG_A)
    result = invoke(copies, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines() == [copies_note(59, 60)]
    document = json.loads(result.stdout)
    assert close(document["total_cost_usd"], A_TOTAL)
    assert document["copies"] == [str(copies / f"copy-{i:02d}.jsonl") for i in range(1, 60)]
    # the table says the same on stderr; different sessions are no copies
    result = invoke(copies / "copy-00.jsonl", copies / "copy-01.jsonl")
    assert result.stderr.splitlines() == [copies_note(1, 2)]
    ok(write(tmp_path, "a.jsonl", LOG_A), write(tmp_path, "b.jsonl", LOG_B))


# -- paths that cannot be examined (issue 10, item 26) --------------------------------------------


def test_a_name_too_long_is_one_line(log_a: Path, tmp_path: Path) -> None:
    long = tmp_path / ("a" * 300 + ".jsonl")
    result = invoke(long, log_a)
    message = one_error_line(result, 1)
    assert message == f"sessiontools cost: error: {long}: cannot read: File name too long; skipped"
    _, rows, notes = parse_table(result.stdout)
    assert money(rows[-1][COST]) == (round(A_TOTAL, 6), False)
    assert notes == [
        "1 log was skipped as damaged or unreadable, and not counted; see the messages above"
    ]


def _refuse(monkeypatch: pytest.MonkeyPatch, where: Path, *, listing: bool = True) -> None:
    """Make ``where`` behave as a directory without permission for this (root) process:
    listing it (unless ``listing`` is false: a directory that may be read, not searched),
    and examining or opening anything in it, fail with EACCES."""
    import builtins
    import errno

    real_stat, real_scandir, real_open = os.stat, os.scandir, builtins.open

    def refused(path: Any) -> bool:
        text = os.fspath(path) if not isinstance(path, int) else ""
        return text == str(where) or text.startswith(str(where) + os.sep)

    def deny(path: Any) -> OSError:
        return PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))

    def stat(path: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(path) and os.fspath(path) != str(where):
            raise deny(path)
        return real_stat(path, *args, **kwargs)

    def scandir(path: Any = ".") -> Any:
        if refused(path) and listing:
            raise deny(path)
        return real_scandir(path)

    def opener(path: Any, *args: Any, **kwargs: Any) -> Any:
        if refused(path):
            raise deny(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(builtins, "open", opener)


def _no_permission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    noperm = tmp_path / "noperm"
    noperm.mkdir()
    write(noperm, "x.jsonl", LOG_B)
    if os.geteuid() == 0:
        _refuse(monkeypatch, noperm)  # root reads whatever the permissions say
    else:
        noperm.chmod(0)
    return noperm


@pytest.fixture
def noperm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    directory = _no_permission(tmp_path, monkeypatch)
    yield directory
    directory.chmod(0o755)


def test_a_file_in_a_directory_without_permission_is_one_line(log_a: Path, noperm: Path) -> None:
    log = noperm / "x.jsonl"
    result = invoke(log, log_a)
    message = one_error_line(result, 1)
    assert message == f"sessiontools cost: error: {log}: cannot read: Permission denied; skipped"
    _, rows, _ = parse_table(result.stdout)
    assert money(rows[-1][COST]) == (round(A_TOTAL, 6), False)


def test_a_directory_without_permission_cannot_be_read(log_a: Path, noperm: Path) -> None:
    """Not "no *.jsonl log in noperm" (a usage error): it cannot be read, exit 1, like a log
    that cannot be read; the other logs still count."""
    result = invoke(noperm, log_a, "--format", "json")
    message = one_error_line(result, 1)
    assert message == (
        f"sessiontools cost: error: {noperm}: cannot read the directory: Permission denied; skipped"
    )
    document = json.loads(result.stdout)
    assert close(document["total_cost_usd"], A_TOTAL)
    assert document["skipped"] == [f"{noperm}: cannot read the directory: Permission denied"]


def test_a_directory_inside_without_permission_is_said(
    log_a: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Searching a directory: one inside it that cannot be listed is not passed over in
    silence; the logs next to it still count."""
    top = tmp_path / "top"
    top.mkdir()
    write(top, "a.jsonl", LOG_A)
    inner = _no_permission(top, monkeypatch)
    try:
        result = invoke(top, "--by", "session")
    finally:
        inner.chmod(0o755)
    message = one_error_line(result, 1)
    assert message == (
        f"sessiontools cost: error: {inner}: cannot read the directory: Permission denied; skipped"
    )
    _, rows, _ = parse_table(result.stdout)
    assert [row[0] for row in rows] == [str(top / "a.jsonl"), "total"]


def test_a_directory_that_can_be_listed_but_not_searched(
    log_a: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mode r-- (no x): its names are there, its files cannot be examined. Its log is not
    passed over (which made it "no *.jsonl log in ..."): reading it says why."""
    listed = tmp_path / "listed"
    listed.mkdir()
    write(listed, "x.jsonl", LOG_B)
    if os.geteuid() == 0:
        _refuse(monkeypatch, listed, listing=False)
    else:
        listed.chmod(0o444)
    try:
        result = invoke(listed, log_a)
    finally:
        listed.chmod(0o755)
    message = one_error_line(result, 1)
    assert message == (
        f"sessiontools cost: error: {listed / 'x.jsonl'}: cannot read: Permission denied; skipped"
    )
    _, rows, _ = parse_table(result.stdout)
    assert money(rows[-1][COST]) == (round(A_TOTAL, 6), False)


def test_compressed_logs_are_found_in_a_directory(tmp_path: Path) -> None:
    from sessiontools import find_logs
    from sessiontools._log.sources import default_conversation_id

    for name in ("b.jsonl.gz", "a.jsonl", "c.txt", "d.gz", "sub/e.jsonl.gz"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    assert find_logs(tmp_path) == [
        tmp_path / "a.jsonl",
        tmp_path / "b.jsonl.gz",
        tmp_path / "sub" / "e.jsonl.gz",
    ]
    assert default_conversation_id(str(tmp_path / "b.jsonl.gz")) == "b"
    assert default_conversation_id("x.jsonl") == "x"
    assert default_conversation_id("x.gz") == "x"
    assert default_conversation_id("x.JSONL.GZ") == "x"
    assert default_conversation_id(".gz") == ".gz"
    assert default_conversation_id("archive.tar.gz") == "archive"


def test_an_empty_directory_is_still_a_usage_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = invoke(empty)
    message = one_error_line(result, 2)
    assert f"no *.jsonl or *.jsonl.gz log in {empty}" in message


# -- control characters (issue 10, item 30) -----------------------------------------------


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_control_characters_in_log_text_are_escaped(tmp_path: Path, fmt: str) -> None:
    """A model name that would set the terminal's title, a tool name with a newline and a
    bidi override, a session file name with ESC: escaped, one row each, aligned."""
    model = "evil\x1b]0;owned\x07-model"
    tool = "sum\nmarize\u202e"
    tool_usage = [{"model": model, "usage": usage(1, 1)}]
    log = write(
        tmp_path,
        "s\x1b[31m.jsonl",
        line(0, "run_started", {"prompt": "p"}, at(28, "08:00:00"))
        + line(
            1,
            "message",
            assistant(("c1", tool), provider="acme\x9b", model=model),
            at(28, "08:00:01"),
        )
        + line(
            2, "decision", {"call_id": "c1", "tool": tool, "verdict": "allow"}, at(28, "08:00:02")
        )
        + line(3, "tool_result", result("c1", "x", usage=tool_usage), at(28, "08:00:03"))
        + line(4, "run_ended", outcome(), at(28, "08:00:04")),
    )
    shown = "evil\\x1b]0;owned\\x07-model"
    if fmt == "markdown":  # and a Markdown link's bracket escaped
        shown = "evil\\x1b\\]0;owned\\x07-model"
    for by in ("model", "tool", "provider", "session"):
        text = ok(log, "--by", by, "--by", "model", "--format", fmt).stdout
        assert not any((ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F for c in text)
        assert "\u202e" not in text
        assert shown in text
        if by == "tool":
            assert "sum\\x0amarize\\u202e" in text
        if by == "provider":
            assert "acme\\x9b" in text
        if by == "session":
            assert (
                str(log).replace("\x1b", "\\x1b").replace("[", "\\[" if fmt == "markdown" else "[")
                in text
            )
        if fmt == "table":
            parse_table(text)  # aligned: one line per row
    # the note under the table names the unpriced model, escaped too
    notes = parse_table(ok(log).stdout)[2]
    assert notes and "evil\\x1b]0;owned\\x07-model" in notes[0]
    # csv and json are for programs: the text as it is (JSON escapes it its own way)
    assert model in ok(log, "--format", "csv").stdout
    assert "\\u001b" in ok(log, "--format", "json").stdout


def test_markdown_escapes_what_would_render_as_html_or_a_link(tmp_path: Path) -> None:
    """A model name in a Markdown report (a CI summary, a comment) stays text."""
    model = "<img src=x onerror=alert(1)>[click](http://x)&amp;`code`\\"
    log = write(
        tmp_path,
        "h.jsonl",
        line(0, "run_started", {"prompt": "h"}, at(28, "09:00:00"))
        + line(1, "message", assistant(text="x", model=model), at(28, "09:00:01"))
        + line(2, "run_ended", outcome(), at(28, "09:00:02")),
    )
    text = ok(log, "--format", "markdown").stdout
    cell = "\\<img src=x onerror=alert(1)\\>\\[click\\](http://x)\\&amp;\\`code\\`\\\\"
    assert text.count(cell) == 2, text  # its row, and the note naming it unpriced
    assert "<img" not in text.replace("\\<img", "")
    # the table shows it as it is, control characters aside
    assert model in ok(log).stdout


# -- issue 10: input and output handling --------------------------------------------------------

ONE_RUN = SESSIONS / "01_one_run_tool.jsonl"
#: 01_one_run_tool.jsonl: two claude-sonnet-4-5 turns, 612 in / 41 out and 671 in / 9 out, no
#: cache: (612 + 671) x $3 + (41 + 9) x $15 per million = 0.003849 + 0.00075 = 0.004599.
ONE_RUN_USD = by_hand(SONNET_4_5, 612 + 671, 41 + 9)


def command(*args: str | bytes, **options: Any) -> Any:
    """``python -m sessiontools cost ARGS`` in a process of its own (arguments may be bytes)."""
    return subprocess.run(
        [sys.executable, "-m", "sessiontools", "cost", *args],
        capture_output=True,
        check=False,
        **{"stdin": subprocess.DEVNULL, **options},
    )


def test_an_entry_written_twice_is_counted_once(tmp_path: Path) -> None:
    """``sed -n '1,7p;7p;8p' 01_one_run_tool.jsonl``: line 7 (seq 6, the 671 / 9 turn) twice.
    Counted twice it cost 0.004599 + 671 x $3 / M + 9 x $15 / M = 0.006747; once, 0.004599."""
    lines = ONE_RUN.read_bytes().splitlines(keepends=True)
    copied = write(tmp_path, "copied.jsonl", b"".join([*lines[:7], lines[6], *lines[7:]]))
    result = invoke(copied, "--format", "json")
    assert result.exit_code == 0
    assert close(json.loads(result.stdout)["total_cost_usd"], ONE_RUN_USD)
    assert close(ONE_RUN_USD, 0.004599)
    assert result.stderr.splitlines() == [
        f"sessiontools cost: warning: {copied}: line 8 (byte {len(b''.join(lines[:7]))}): the "
        "entry of line 7 (seq 6) again, byte for byte: a copy, skipped (and any other such "
        "copy in this log; reported once)"
    ]


# Names and flags that are not UTF-8 (item 7).

NOT_UTF8 = b"caf\xe9"


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_a_log_name_that_is_not_utf8_in_every_format(tmp_path: Path, fmt: str) -> None:
    log = os.path.join(os.fsencode(tmp_path), NOT_UTF8 + b".jsonl")
    with open(log, "wb") as f:
        f.write(ONE_RUN.read_bytes())
    shown = os.fsdecode(os.fsencode(tmp_path)) + "/caf\ufffd.jsonl"
    for args in ([log], [os.fsencode(tmp_path)]):  # the file, or found in its directory
        got = command(*args, "--by", "session", "--format", fmt)
        assert got.returncode == 0, got.stderr
        assert got.stderr == b""
        text = got.stdout.decode("utf-8")  # valid UTF-8
        assert shown in text
        if fmt == "json":
            document = json.loads(text)
            assert [g["session"] for g in document["groups"]] == [shown]
            assert close(document["total_cost_usd"], ONE_RUN_USD)
    result = invoke(os.fsdecode(log), "--by", "session", "--format", fmt)  # the runner too
    assert result.exit_code == 0 and shown in result.stdout


@pytest.mark.parametrize("flag", ["--since", "--until", "--max-line-bytes", "--by", "--format"])
def test_a_flag_value_that_is_not_utf8_is_a_usage_error(flag: str) -> None:
    got = command(os.fsencode(ONE_RUN), flag.encode(), NOT_UTF8)
    assert got.returncode == 2
    text = got.stderr.decode("utf-8")
    assert "Traceback" not in text and len(text.splitlines()) == 1, text
    assert text.startswith("sessiontools cost: error: Invalid value for ")
    if flag not in ("--by", "--format"):  # click names the choices for those
        assert "not valid UTF-8 (byte 0xe9 at character 4)" in text
    result = invoke(ONE_RUN, flag, os.fsdecode(NOT_UTF8))
    assert result.exit_code == 2
    one_error_line(result, 2)


def test_file_name_flags_that_are_not_utf8_are_names(tmp_path: Path) -> None:
    """--prices and --out name files: any bytes, shown with U+FFFD."""
    out = os.path.join(os.fsencode(tmp_path), b"r\xff.csv")
    got = command(os.fsencode(ONE_RUN), b"--format", b"csv", b"--out", out)
    assert got.returncode == 0, got.stderr
    with open(out, "rb") as f:
        assert f.read() == ok(ONE_RUN, "--format", "csv").stdout_bytes
    prices = os.path.join(os.fsencode(tmp_path), b"p\xff.json")
    got = command(os.fsencode(ONE_RUN), b"--prices", prices)
    assert got.returncode == 2
    text = got.stderr.decode("utf-8")
    assert len(text.splitlines()) == 1 and "p\ufffd.json" in text, text
    with open(prices, "wb") as f:
        f.write(b'{"claude-sonnet-4-5": {"input": 1, "output": 1}}')
    got = command(os.fsencode(ONE_RUN), b"--prices", prices, b"--format", b"json")
    assert got.returncode == 0, got.stderr
    assert close(json.loads(got.stdout)["total_cost_usd"], (612 + 671 + 41 + 9) / 1e6)


# Control characters from a log or a name reach stderr escaped (item 30).


def test_log_text_in_messages_is_escaped(tmp_path: Path) -> None:
    lines = ONE_RUN.read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"prompt"', b'"\\u001b]2;owned\\u0007":1,"prompt"')
    odd = write(tmp_path, "odd.jsonl", b"".join(lines))
    bad = write(tmp_path, "bad\x1b[2J.jsonl", b'{"seq":0,\n' + LOG_A)
    result = invoke(odd, bad)
    assert result.exit_code == 1
    assert not any(c in result.stderr for c in "\x1b\x07")
    said = result.stderr.splitlines()
    assert len(said) == 2
    assert "unknown field run_started.\\x1b]2;owned\\x07" in said[0]
    assert said[1].startswith(f"sessiontools cost: error: {tmp_path}/bad\\x1b[2J.jsonl: line 1")


# A gzip log (item 19), one huge line (item 27), --out (items 24 and 28).


def test_a_gzip_log_costs_what_it_holds(tmp_path: Path) -> None:
    packed = write(tmp_path, "s.jsonl.gz", gzip.compress(ONE_RUN.read_bytes()))
    document = as_json(packed, "--by", "session")
    assert [g["session"] for g in document["groups"]] == [str(packed)]
    assert close(document["total_cost_usd"], ONE_RUN_USD)
    tables = read_costs(packed)
    assert list(tables.runs["conversation_id"]) == ["s"]  # without .jsonl.gz


def test_max_line_bytes_flag(tmp_path: Path) -> None:
    long = write(tmp_path, "long.jsonl", ONE_RUN.read_bytes())
    longest = max(len(text) for text in ONE_RUN.read_bytes().splitlines())
    result = invoke(long, "--max-line-bytes", str(longest - 1), "--format", "json")
    message = one_error_line(result, 1)
    assert f"longer than {longest - 1:,} bytes" in message and message.endswith("; skipped")
    assert json.loads(result.stdout)["total_cost_usd"] == 0
    ok(long, "--max-line-bytes", str(longest))
    assert "is not a size" in one_error_line(invoke(long, "--max-line-bytes", "0"), 2)


def test_a_3_gb_line_is_one_error_in_2_gb(tmp_path: Path) -> None:
    sparse = tmp_path / "sparse.jsonl"
    with open(sparse, "wb") as f:
        f.truncate(3 << 30)  # `truncate -s 3G sparse.jsonl`

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    got = command(os.fsencode(sparse), preexec_fn=limited)
    assert got.returncode == 1
    said = got.stderr.decode().splitlines()
    assert said == [
        f"sessiontools cost: error: {sparse}: line 1 (byte 0): longer than 268,435,456 bytes "
        "(256 MiB), the limit on one line; if the log is right, raise the limit: "
        "--max-line-bytes on the command line, max_line_bytes= in the library; skipped"
    ]
    got = command(os.fsencode(sparse), b"--max-line-bytes", b"4G", preexec_fn=limited)
    assert got.returncode == 1
    assert got.stderr.decode().splitlines() == [
        "sessiontools cost: error: out of memory; a log's line is held whole while it is read: "
        "lower --max-line-bytes to find a line too long, or give the command more memory"
    ]


def test_stdin_that_is_the_out_file_is_refused(tmp_path: Path) -> None:
    log = write(tmp_path, "s.jsonl", ONE_RUN.read_bytes())
    with open(log, "rb") as stdin:
        got = command(b"-", b"--out", os.fsencode(log), stdin=stdin)
    assert got.returncode == 2
    assert got.stderr.decode().splitlines() == [
        "sessiontools cost: error: Invalid value for --out: is standard input, the log being "
        "read; a reader never changes a session file (see 'sessiontools cost --help')"
    ]
    assert log.read_bytes() == ONE_RUN.read_bytes()


@pytest.mark.parametrize("length", [241, 250, 255])
def test_out_with_a_name_as_long_as_the_system_allows(tmp_path: Path, length: int) -> None:
    out = tmp_path / ("r" * (length - 4) + ".csv")
    ok(ONE_RUN, "--format", "csv", "--out", out)
    assert out.read_bytes() == ok(ONE_RUN, "--format", "csv").stdout_bytes
    assert [p.name for p in tmp_path.iterdir()] == [out.name]
