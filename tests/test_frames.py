"""Cost frames (costs.md): columns and dtypes, costs worked out by hand from published prices,
unpriced calls, duplicates, the transcript cross-check.

Published prices used here, US dollars per million tokens (input / output / cache read /
cache write), from the providers' pricing pages (anthropic.com/pricing, openai.com/api/pricing):

- claude-sonnet-4-5: 3 / 15 / 0.30 / 3.75; above 200,000 input tokens a request: 6 / 22.50 /
  0.60 / 7.50 (the whole request);
- claude-haiku-4-5: 1 / 5 / 0.10 / 1.25;
- gpt-5: 1.25 / 10 / 0.125 cached input;
- o3: 10 / 40 until 2025-06-09, 2 / 8 from 2025-06-10.
"""

from __future__ import annotations

import io
import math
import warnings
from pathlib import Path

import orjson
import pandas as pd
import pytest

from sessiontools import (
    COLUMNS,
    CostMismatchWarning,
    DamagedLogError,
    Prices,
    cost_by,
    read_costs,
    read_session,
)
from tests.helpers import SESSIONS, assistant, line, outcome, result, usage, user

M = 1_000_000


def at(day: str, seconds: int) -> str:
    return f"{day}T09:30:{seconds:02d}+02:00"


D = "2026-10-18"
ERROR = {"kind": "rate_limited", "status": 429, "message": "slow down"}
TOOL_USAGE = [
    {"model": "claude-haiku-4-5", "usage": usage(2000, 500)},
    {"model": "claude-haiku-4-5", "usage": usage(1000, 100, read=300)},
]
LOG = (
    # run 0: Anthropic, a tool that made two model calls, a failed call, a long-context turn
    line(0, "run_started", {"prompt": "p"}, at(D, 0))
    + line(1, "message", user("p"), at(D, 1))
    + line(2, "message", assistant(("c1", "summarize"), u=usage(1000, 200, 5000, 2000)), at(D, 2))
    + line(3, "decision", {"call_id": "c1", "tool": "summarize", "verdict": "allow"}, at(D, 3))
    + line(4, "call_started", {"call_id": "c1"}, at(D, 4))
    + line(5, "tool_result", {**result("c1", "s"), "usage": TOOL_USAGE}, at(D, 5))
    + line(6, "model_error", {"error": ERROR, "retry": True, "wait_ms": 1000}, at(D, 6))
    + line(7, "message", assistant(text="x", u=usage(150_000, 1000, read=60_000)), at(D, 8))
    + line(8, "run_ended", outcome(turns=2), at(D, 9))
    # run 1: OpenAI with cached input
    + line(9, "run_started", {"prompt": "q"}, at(D, 20))
    + line(
        10,
        "message",
        assistant(text="y", provider="openai", model="gpt-5", u=usage(4000, 1500, read=8000)),
        at(D, 21),
    )
    + line(11, "run_ended", outcome(), at(D, 22))
    # run 2: a model nobody prices
    + line(12, "run_started", {"prompt": "r"}, at(D, 30))
    + line(13, "message", assistant(text="z", provider="acme", model="acme-llm-1"), at(D, 31))
    + line(14, "run_ended", outcome(), at(D, 32))
    # runs 3 and 4: o3 the day before its price cut and the day after
    + line(15, "run_started", {"prompt": "s"}, at("2025-06-09", 0))
    + line(
        16,
        "message",
        assistant(text="o", provider="openai", model="o3", u=usage(1000, 1000)),
        at("2025-06-09", 1),
    )
    + line(17, "run_ended", outcome(), at("2025-06-09", 2))
    + line(18, "run_started", {"prompt": "t"}, at("2025-06-11", 0))
    + line(
        19,
        "message",
        assistant(text="o", provider="openai", model="o3", u=usage(1000, 1000)),
        at("2025-06-11", 1),
    )
    + line(20, "run_ended", outcome(), at("2025-06-11", 2))
)

EXPECTED_USD = {
    # seq -> cost, by hand
    2: (1000 * 3 + 200 * 15 + 5000 * 0.30 + 2000 * 3.75) / M,
    7: (150_000 * 6 + 1000 * 22.50 + 60_000 * 0.60) / M,  # 210,000 input: the long tier
    10: (4000 * 1.25 + 8000 * 0.125 + 1500 * 10) / M,
    16: (1000 * 10 + 1000 * 40) / M,
    19: (1000 * 2 + 1000 * 8) / M,
}
TOOL_USD = [(2000 * 1 + 500 * 5) / M, (1000 * 1 + 100 * 5 + 300 * 0.10) / M]


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "costs.jsonl"
    path.write_bytes(LOG)
    return path


def test_columns_and_dtypes_are_fixed() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the torn and the unknown-entry logs say so
        tables = read_costs(SESSIONS, skip_damaged=True)
    for name in ("model_calls", "runs", "tool_calls"):
        frame = getattr(tables, name)
        assert list(frame.columns) == list(COLUMNS[name])
        assert {c: str(frame[c].dtype) for c in frame.columns} == COLUMNS[name]
        assert len(frame) > 0
    assert [s.name for s in tables.skipped] == [str(SESSIONS / "05_damaged_middle_line.jsonl")]


def test_costs_by_hand(log: Path) -> None:
    calls = read_costs(log).model_calls
    turns = calls[(calls["source"] == "turn") & calls["error_kind"].isna()]
    for seq, usd in EXPECTED_USD.items():
        (cost,) = turns.loc[turns["seq"] == seq, "cost_usd"]
        assert cost == pytest.approx(usd, rel=1e-12), seq
    tool = calls[calls["source"] == "tool"]
    assert tool["cost_usd"].tolist() == pytest.approx(TOOL_USD, rel=1e-12)
    assert tool["tool"].tolist() == ["summarize", "summarize"]
    assert tool["call_id"].tolist() == ["c1", "c1"]
    assert tool["usage_index"].tolist() == [0, 1]
    assert tool["seq"].tolist() == [5, 5]
    assert set(calls.loc[calls["priced"], "price_source"].dropna()) == {"genai-prices"}


def test_a_failed_call_has_no_tokens_and_costs_nothing(log: Path) -> None:
    calls = read_costs(log).model_calls
    (failed,) = calls[calls["error_kind"].notna()].to_dict("records")
    assert failed["error_kind"] == "rate_limited" and failed["seq"] == 6
    assert pd.isna(failed["input_tokens"]) and pd.isna(failed["total_tokens"])
    assert failed["cost_usd"] == 0.0 and failed["priced"]
    assert failed["model"] == "claude-sonnet-4-5"  # from the turn before it


def test_an_unknown_model_is_nan_and_every_total_says_so(log: Path) -> None:
    tables = read_costs(log)
    calls = tables.model_calls
    (unknown,) = calls[calls["model"] == "acme-llm-1"].to_dict("records")
    assert math.isnan(unknown["cost_usd"]) and not unknown["priced"]
    assert unknown["price_source"] is None or pd.isna(unknown["price_source"])
    runs = tables.runs
    assert runs["unpriced_calls"].tolist() == [0, 0, 1, 0, 0]
    assert runs.loc[2, "cost_usd"] == 0.0  # the priced part: none; unpriced_calls flags it
    by_model = cost_by(calls, "model")
    acme = by_model[by_model["model"] == "acme-llm-1"].iloc[0]
    assert acme["lower_bound"] and acme["unpriced_models"] == ("acme-llm-1",)
    assert by_model.attrs == {"lower_bound": True, "unpriced_models": ("acme-llm-1",)}
    total = cost_by(calls, "session")
    expected = sum(EXPECTED_USD.values()) + sum(TOOL_USD)
    assert total["cost_usd"].item() == pytest.approx(expected, rel=1e-12)
    assert bool(total["lower_bound"].item())


def test_runs_and_tool_calls(log: Path) -> None:
    tables = read_costs(log)
    runs = tables.runs
    assert runs["reason"].tolist() == ["completed"] * 5
    assert runs["turns"].tolist() == [2, 1, 1, 1, 1]
    assert runs["failed_calls"].tolist() == [1, 0, 0, 0, 0]
    assert runs["tool_calls"].tolist() == [1, 0, 0, 0, 0]
    run0 = EXPECTED_USD[2] + EXPECTED_USD[7] + sum(TOOL_USD)
    assert runs.loc[0, "cost_usd"] == pytest.approx(run0, rel=1e-12)
    # tokens: the turns' and the tool's model calls' (the failed call has none)
    assert runs.loc[0, "input_tokens"] == 1000 + 150_000 + 2000 + 1000
    assert runs.loc[0, "cache_read_tokens"] == 5000 + 60_000 + 300
    assert runs.loc[0, "duration_ms"] == 9000.0
    assert runs.loc[0, "start"] == pd.Timestamp("2026-10-18T07:30:00Z")
    (tool,) = tables.tool_calls.to_dict("records")
    assert tool["tool"] == "summarize" and tool["verdict"] == "allow"
    assert tool["model_calls"] == 2 and tool["cost_usd"] == pytest.approx(sum(TOOL_USD))
    assert tool["duration_ms"] == 1000.0 and not tool["resumed"] and tool["is_error"] is False


def test_times_are_utc_nanoseconds(tmp_path: Path) -> None:
    path = tmp_path / "ns.jsonl"
    path.write_bytes(
        line(0, "run_started", {}, "2026-10-18T09:30:00.123456789+02:00")
        + line(1, "message", assistant(text="x"), "2026-10-18T00:30:00.123457189-07:00")
    )
    calls = read_costs(path).model_calls
    assert calls["time"].dtype == "datetime64[ns, UTC]"
    assert calls["time"].iloc[0] == pd.Timestamp("2026-10-18T07:30:00.123457189Z")
    runs = read_costs(path).runs
    assert runs["start"].iloc[0].value == 1_792_308_600_123_456_789


def test_a_price_file_wins(log: Path, tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_bytes(
        orjson.dumps(
            {"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_read": 0.5, "cache_write": 1.5}}
        )
    )
    calls = read_costs(log, prices=prices).model_calls
    turns = calls[calls["source"] == "turn"].set_index("seq")
    assert turns.loc[2, "cost_usd"] == pytest.approx((1000 + 200 * 2 + 5000 * 0.5 + 2000 * 1.5) / M)
    # a file has no tiers: the long request at the file's prices
    assert turns.loc[7, "cost_usd"] == pytest.approx((150_000 + 1000 * 2 + 60_000 * 0.5) / M)
    assert turns.loc[2, "price_source"] == "prices file"
    assert turns.loc[10, "price_source"] == "genai-prices"  # gpt-5 is not in the file
    mapping = read_costs(log, prices={"acme-llm-1": Prices(1, 1, 1, 1)}).model_calls
    acme = mapping[mapping["model"] == "acme-llm-1"]
    assert acme["cost_usd"].item() == pytest.approx((100 + 10) / M)


TRANSCRIPT_RUN = (
    line(9, "run_started", {"prompt": "q"}, at(D, 20))
    + line(
        10,
        "message",
        assistant(text="y", provider="openai", model="gpt-5", u=usage(4000, 1500, read=8000)),
        at(D, 21),
    )
    + line(11, "run_ended", outcome(), at(D, 22))
)


def test_a_run_read_twice_is_counted_once(log: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "run-1.jsonl"
    reported = orjson.dumps({**outcome(), "cost_usd": EXPECTED_USD[10]}) + b"\n"
    transcript.write_bytes(TRANSCRIPT_RUN + reported)
    both = read_costs([log, transcript])
    alone = read_costs(log)
    assert len(both.model_calls) == len(alone.model_calls)
    assert len(both.runs) == len(alone.runs) == 5
    # the transcript's reported cost was checked against the run, and agrees
    assert both.runs.loc[1, "reported_cost_usd"] == pytest.approx(EXPECTED_USD[10])
    assert both.warnings == ()
    # in the other order, the transcript's run is kept and the session's copy skipped
    reverse = read_costs([transcript, log])
    assert len(reverse.model_calls) == len(alone.model_calls)
    assert reverse.runs["session"].tolist()[0] == str(transcript)


def test_a_transcript_cost_off_by_more_than_one_percent_warns(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    off = EXPECTED_USD[10] * 1.02
    transcript.write_bytes(TRANSCRIPT_RUN + orjson.dumps({**outcome(), "cost_usd": off}))
    with pytest.warns(CostMismatchWarning, match=r"run 0 \(seq 9\).*says it cost \$0\.021420"):
        tables = read_costs(transcript)
    assert len(tables.warnings) == 1
    within = tmp_path / "w.jsonl"
    within.write_bytes(TRANSCRIPT_RUN + orjson.dumps({**outcome(), "cost_usd": off / 1.015}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_costs(within).warnings == ()


def test_sessions_paths_globs_and_directories_read_alike(log: Path) -> None:
    by_path = read_costs(log).model_calls
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = read_session(io.BytesIO(LOG), name=str(log))
    by_session = read_costs(session).model_calls
    by_glob = read_costs(str(log.parent / "*.jsonl")).model_calls
    by_dir = read_costs(log.parent).model_calls
    for other in (by_session, by_glob, by_dir):
        pd.testing.assert_frame_equal(by_path, other)


def test_damaged_logs_raise_unless_skipped(tmp_path: Path, log: Path) -> None:
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b'{"seq":0,\n' + LOG)
    with pytest.raises(DamagedLogError):
        read_costs([log, damaged])
    tables = read_costs([log, damaged], skip_damaged=True)
    assert [s.name for s in tables.skipped] == [str(damaged)]
    assert "line 1 (byte 0)" in tables.skipped[0].problem
    assert len(tables.runs) == 5
    with pytest.raises(FileNotFoundError, match="no log at"):
        read_costs(tmp_path / "nope.jsonl")


@pytest.mark.parametrize(
    ("by", "keys"),
    [
        ("session", ["session"]),
        ("run", ["session", "run_index"]),
        ("day", ["day"]),
        ("model", ["model"]),
        ("provider", ["provider"]),
        ("tool", ["tool"]),
        (["day", "provider"], ["day", "provider"]),
    ],
)
def test_cost_by(log: Path, by: str | list[str], keys: list[str]) -> None:
    calls = read_costs(log).model_calls
    out = cost_by(calls, by)
    assert list(out.columns[: len(keys)]) == keys
    assert int(out["calls"].sum()) == len(calls)
    priced = calls.loc[calls["priced"], "cost_usd"].sum()
    assert out["cost_usd"].sum() == pytest.approx(priced, rel=1e-12)
    assert int(out["unpriced_calls"].sum()) == 1


def test_cost_by_day_and_tool_values(log: Path) -> None:
    calls = read_costs(log).model_calls
    days = cost_by(calls, "day")
    assert [d.strftime("%Y-%m-%d") for d in days["day"]] == ["2025-06-09", "2025-06-11", D]
    assert days["cost_usd"].tolist()[:2] == pytest.approx([EXPECTED_USD[16], EXPECTED_USD[19]])
    tools = cost_by(calls, "tool")
    summarize = tools[tools["tool"] == "summarize"]
    assert summarize["cost_usd"].item() == pytest.approx(sum(TOOL_USD))
    with pytest.raises(ValueError, match="cannot group by 'week'"):
        cost_by(calls, "week")


def _many_logs(tmp_path: Path, copies: int) -> Path:
    """Every testdata log (damaged and torn ones included), then ``copies`` times as many
    distinct sessions made by ``SessionBuilder`` (each its own start, ids and usage), named
    so that a damaged log comes early."""
    from sessiontools import SessionBuilder, Usage

    for log in sorted(SESSIONS.glob("*.jsonl")):
        (tmp_path / f"00_{log.name}").write_bytes(log.read_bytes())
    for i in range(16 * copies):
        b = SessionBuilder(1_790_000_000_000_000_000 + i * 3_600_000_000_000, seed=str(i))
        b.run("go").anthropic(calls=[("t", {"i": i})], usage=Usage(100 + i, 10, 50, 5))
        b.allow("ok").openai(text="done", usage=Usage(200, 20 + i)).run_ended()
        b.write(tmp_path / f"{i + 1:02d}_built.jsonl")
    return tmp_path


def test_several_processes_give_the_same_tables(tmp_path: Path) -> None:
    logs = _many_logs(tmp_path, 2)  # 48 files: over PARALLEL_FROM, so the default is a pool
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = read_costs(logs, skip_damaged=True, workers=1)
        seen: list[str] = []
        pool = read_costs(logs, skip_damaged=True, progress=seen.append, workers=None)
        two = read_costs(logs, skip_damaged=True, workers=2)
    assert seen == [str(p) for p in sorted(logs.glob("*.jsonl"))]  # in order
    for tables in (pool, two):
        for name in ("model_calls", "runs", "tool_calls"):
            pd.testing.assert_frame_equal(getattr(tables, name), getattr(one, name))
        assert tables.skipped == one.skipped
        assert tables.warnings == one.warnings
    assert len(one.skipped) == 1  # 05_damaged_middle_line
    assert one.runs["session"].str.endswith("_built.jsonl").sum() == 32  # all distinct


def test_several_processes_raise_the_first_damage_in_order(tmp_path: Path) -> None:
    logs = _many_logs(tmp_path, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DamagedLogError) as one:
            read_costs(logs, workers=1)
        with pytest.raises(DamagedLogError) as two:
            read_costs(logs, workers=2)
    assert str(two.value) == str(one.value)
    assert "00_05_damaged_middle_line.jsonl: line 17" in str(one.value)


@pytest.mark.parametrize("order", ["copy first", "copy last"])
def test_a_copy_taken_mid_run_is_counted_once(tmp_path: Path, order: str) -> None:
    """A copy of a session taken while a run was going (after one of its turns), read with
    the session later: that run is one run, priced once, with every model call of the whole
    read (costs.md: the same entry read twice is counted once)."""
    full = SESSIONS / "08_tool_model_calls.jsonl"
    lines = full.read_bytes().split(b"\n")
    ends = [i for i, raw in enumerate(lines) if b'"type":"run_ended"' in raw]
    turns = [i for i, raw in enumerate(lines) if b'"role":"assistant"' in raw]
    cut = next(i for i in turns if ends[0] < i < ends[1]) + 1  # run 2, after its first turn
    early = tmp_path / "early.jsonl"
    early.write_bytes(b"\n".join(lines[:cut]) + b"\n")
    logs = [early, full] if order == "copy first" else [full, early]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = read_costs(logs)
        alone = read_costs(full)
    for frame in ("runs", "tool_calls", "model_calls"):
        ours = getattr(both, frame).drop(columns=["session", "conversation_id"])
        theirs = getattr(alone, frame).drop(columns=["session", "conversation_id"])
        pd.testing.assert_frame_equal(ours, theirs, obj=frame)
    # run 1 is complete in both: the first read's; run 2 goes further in the full log
    first_read = str(early) if order == "copy first" else str(full)
    assert both.runs["session"].tolist() == [first_read, str(full)]


def test_two_sessions_started_in_the_same_nanosecond_are_two(tmp_path: Path) -> None:
    from sessiontools import SessionBuilder, Usage

    for name, tokens in (("a", 100), ("b", 200)):
        b = SessionBuilder("2026-10-18T09:30:00+02:00", seed=name, jitter=False)
        b.run("hi").anthropic(text="hello", usage=Usage(tokens, 10)).run_ended()
        b.write(tmp_path / f"{name}.jsonl")
    tables = read_costs(tmp_path)
    assert len(tables.runs) == 2
    assert tables.model_calls["input_tokens"].tolist() == [100, 200]


def test_workers_must_be_positive(log: Path) -> None:
    with pytest.raises(ValueError, match="workers must be at least 1"):
        read_costs(log, workers=0)


def test_a_log_that_grew_counts_only_its_new_runs(tmp_path: Path) -> None:
    """A copy of a session taken after its second run, and the session later: the copy's runs
    are counted once (first read kept), the later runs from the full log, and every run's
    and tool call's sums still come from its own model calls."""
    full = SESSIONS / "08_tool_model_calls.jsonl"
    data = full.read_bytes()
    lines = data.split(b"\n")
    ends = [i for i, raw in enumerate(lines) if b'"type":"run_ended"' in raw]
    assert len(ends) >= 2
    early = tmp_path / "early.jsonl"
    early.write_bytes(b"\n".join(lines[: ends[0] + 1]) + b"\n")
    both = read_costs([early, full])
    alone = read_costs(full)
    assert both.runs["session"].tolist() == [str(early)] + [str(full)] * (len(alone.runs) - 1)
    for frame, key in (("runs", "run_index"), ("tool_calls", "call_id")):
        ours = getattr(both, frame).drop(columns=["session", "conversation_id"])
        theirs = getattr(alone, frame).drop(columns=["session", "conversation_id"])
        pd.testing.assert_frame_equal(ours, theirs, obj=f"{frame} by {key}")
    assert both.model_calls["cost_usd"].sum() == pytest.approx(alone.model_calls["cost_usd"].sum())
    assert len(both.model_calls) == len(alone.model_calls)
