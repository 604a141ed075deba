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
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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
    assert by_model.attrs["lower_bound"] is True
    assert by_model.attrs["unpriced_models"] == ("acme-llm-1",)
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
    assert list(days["day"]) == ["2025-06-09", "2025-06-11", D]  # the UTC day, as text
    assert days["cost_usd"].tolist()[:2] == pytest.approx([EXPECTED_USD[16], EXPECTED_USD[19]])
    tools = cost_by(calls, "tool")
    summarize = tools[tools["tool"] == "summarize"]
    assert summarize["cost_usd"].item() == pytest.approx(sum(TOOL_USD))
    with pytest.raises(ValueError, match="cannot group by 'year'"):
        cost_by(calls, "year")


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


# -- which run a run is (issue 10, item 21) ------------------------------------------------------


def _fixed_clock(prompts: tuple[str, ...], turns: tuple[int, ...]) -> bytes:
    """A session written with ``SessionBuilder``'s default start and seed: every session made
    this way has the same clock. A seed labels entry, then one run per prompt, each with the
    given number of identical Sonnet turns (1,000 in, 100 out)."""
    from sessiontools import SessionBuilder, Usage

    b = SessionBuilder(seed="fixed")
    b.labels("project:x")
    for prompt, count in zip(prompts, turns, strict=True):
        b.run(prompt)
        for _ in range(count):
            b.anthropic("claude-sonnet-4-5", text="ok", usage=Usage(1000, 100))
        b.run_ended()
    return b.to_bytes()


def test_sessions_with_one_clock_and_different_prompts_are_never_merged(tmp_path: Path) -> None:
    """The issue's case: a.jsonl has run "hi" (seq 1, no model call) and run "again" (one
    turn); b.jsonl has run "mixed" (seq 1, one turn), at the same instant as "hi". Three runs,
    not two. And two sessions whose only difference is the prompt (same clock, same turns, so
    the same first model call) are two sessions too."""
    a = tmp_path / "a.jsonl"
    a.write_bytes(_fixed_clock(("hi", "again"), (0, 1)))
    b = tmp_path / "b.jsonl"
    b.write_bytes(_fixed_clock(("mixed",), (1,)))
    assert b'"seq":1,"time":"2026-10-18T09:30:00.00' in a.read_bytes()
    assert a.read_bytes().split(b"\n")[1][:40] == b.read_bytes().split(b"\n")[1][:40]
    tables = read_costs([a, b])
    assert len(read_costs(a).runs) == 2 and len(read_costs(b).runs) == 1
    assert tables.runs["session"].tolist() == [str(a), str(a), str(b)]
    assert tables.copies == ()
    # one run each, identical but for the prompt: the same start and the same first call
    c = tmp_path / "c.jsonl"
    c.write_bytes(_fixed_clock(("task 1",), (2,)))
    d = tmp_path / "d.jsonl"
    d.write_bytes(_fixed_clock(("task 2",), (2,)))
    both = read_costs([c, d])
    assert len(both.runs) == 2 and len(both.model_calls) == 4
    # Sonnet 4.5 at $3 / $15 per million: 4 turns of 1,000 in and 100 out = 4 * $0.0045
    assert both.model_calls["cost_usd"].sum() == pytest.approx(4 * (1000 * 3 + 100 * 15) / M)
    assert both.copies == ()


def test_copies_prefixes_and_transcripts_are_still_one_run(tmp_path: Path) -> None:
    """With the same fixed clock: a byte copy, a copy cut after the second run's
    ``run_started`` (no model call yet), one cut after its first turn, and the transcript of
    the second run are all the session's runs, counted once; each such log is a copy."""
    data = _fixed_clock(("one", "two"), (1, 2))
    lines = data.split(b"\n")
    starts = [i for i, raw in enumerate(lines) if b'"type":"run_started"' in raw]
    turns = [i for i, raw in enumerate(lines) if b'"role":"assistant"' in raw]
    session = tmp_path / "session.jsonl"
    session.write_bytes(data)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(data)
    started = tmp_path / "started.jsonl"
    started.write_bytes(b"\n".join(lines[: starts[1] + 1]) + b"\n")
    mid_run = tmp_path / "mid-run.jsonl"
    mid_run.write_bytes(b"\n".join(lines[: turns[1] + 1]) + b"\n")
    closing = orjson.dumps({**outcome(turns=2, u=usage(2000, 200)), "cost_usd": 0.009})
    transcript = tmp_path / "transcript.jsonl"
    transcript.write_bytes(b"\n".join(lines[starts[1] : -1]) + b"\n" + closing + b"\n")
    alone = read_costs(session)
    for other in (copy, started, mid_run, transcript):
        for logs in ([session, other], [other, session]):
            tables = read_costs(logs)
            assert len(tables.runs) == 2, (other.name, logs)
            assert len(tables.model_calls) == len(alone.model_calls) == 3
            assert sorted(tables.runs["cost_usd"].tolist()) == pytest.approx(
                sorted(alone.runs["cost_usd"].tolist())
            )
            # the copy is the one that holds less; of two equal, the second given
            short = session if other is copy and logs[0] is other else other
            assert tables.copies == (str(short),), (other.name, logs)
    # two copies and a transcript with the session: three copies, nothing counted twice
    everything = read_costs([session, copy, mid_run, transcript])
    assert everything.copies == (str(copy), str(mid_run), str(transcript))
    # the second run: 2 turns of 1,000 in and 100 out on Sonnet 4.5 = 2 * $0.0045; the
    # transcript's $0.009 agrees, so no warning
    assert everything.runs["cost_usd"].tolist()[1] == pytest.approx(2 * 0.0045)
    assert everything.warnings == ()


def test_the_run_identity_is_the_documented_digest() -> None:
    """Recomputed from the formula in sessiontools/_identity.py's docstring, not the code."""
    import hashlib

    from sessiontools._model.identity import run_identity

    data = _fixed_clock(("héllo",), (1,))
    run = read_session(io.BytesIO(data)).runs[0]
    start = next(orjson.loads(raw) for raw in data.splitlines() if b"run_started" in raw)
    turn = next(orjson.loads(raw) for raw in data.splitlines() if b'"assistant"' in raw)
    start_ns = pd.Timestamp(start["time"]).value
    turn_ns = pd.Timestamp(turn["time"]).value
    want_start = hashlib.sha256(f"agentloop/run/{start['seq']}/{start_ns}/héllo".encode()).digest()[
        :16
    ]
    want_call = hashlib.sha256(
        f"agentloop/turn/{turn['seq']}/{turn_ns}/1000/100/0/0/claude-sonnet-4-5".encode()
    ).digest()[:16]
    identity = run_identity(run)
    assert identity.start == want_start
    assert identity.first_call == want_call
    assert identity.hex() == want_start.hex() + ":" + want_call.hex()
    # before its first model call, a run has only its start
    prefix = b"\n".join(data.split(b"\n")[:3]) + b"\n"
    early = run_identity(read_session(io.BytesIO(prefix)).runs[0])
    assert early.start == want_start and early.first_call is None
    assert early.hex() == want_start.hex()
    assert early.same_run(identity) and identity.same_run(early)


def test_a_failed_first_call_is_the_documented_digest() -> None:
    import hashlib

    from sessiontools._model.identity import run_identity

    data = LOG.split(b"\n")
    # run 0 of LOG, with its turn at seq 2 removed: its first model call is the model_error
    lines = [raw for raw in data if raw and b'"seq":2,' not in raw][:7]
    run = read_session(io.BytesIO(b"\n".join(lines) + b"\n")).runs[0]
    error_ns = pd.Timestamp(at(D, 6)).value
    want = hashlib.sha256(
        f"agentloop/model_error/6/{error_ns}/12/rate_limitedslow down".encode()
    ).digest()[:16]
    assert run_identity(run).first_call == want


# -- the order of rows (issue 10, item 16) -----------------------------------------------------


@pytest.mark.parametrize(
    ("log", "seqs"),
    [
        # failed calls at seq 2 and 3 before the turn at 4 (were 4, 8, 2, 3)
        ("07_model_errors.jsonl", [[2, 3, 4, 8], [12, 13], [17]]),
        # the summarize results at 5 (two calls) and 9 between the turns (were 2, 6, 10, 5, 5, 9)
        ("08_tool_model_calls.jsonl", [[2, 5, 5, 6, 9, 10], [14, 17, 17]]),
    ],
)
def test_model_calls_are_in_log_order_within_a_run(log: str, seqs: list[list[int]]) -> None:
    calls = read_costs(SESSIONS / log).model_calls
    got = [group["seq"].tolist() for _, group in calls.groupby("run_index", sort=True)]
    assert got == seqs
    # the log's order is its time order here, and a result's calls keep their usage order
    for _, group in calls.groupby("run_index"):
        assert group["time"].is_monotonic_increasing
        assert group[["seq", "usage_index"]].apply(tuple, axis=1).is_monotonic_increasing


def test_sums_follow_the_rows_when_they_are_reordered(tmp_path: Path) -> None:
    """Reordering the rows keeps each one's run and tool call: the tool calls' and the runs'
    sums are still their own calls', and the two calls of seq 5 are priced by hand."""
    tables = read_costs(SESSIONS / "08_tool_model_calls.jsonl")
    calls = tables.model_calls
    by_tool = calls[calls["source"] == "tool"].groupby("call_id", observed=True)["cost_usd"].sum()
    tools = tables.tool_calls.set_index("call_id")
    for call_id, cost in by_tool.items():
        assert tools.loc[call_id, "cost_usd"] == pytest.approx(cost, rel=1e-12)
    by_run = calls.groupby("run_index")["cost_usd"].sum()
    assert tables.runs["cost_usd"].tolist() == pytest.approx(by_run.tolist(), rel=1e-12)
    run0 = calls[calls["run_index"] == 0]
    # the two summarize calls of seq 5 are Haiku 4.5 at $1 / $5 (cache read $0.10): by hand
    five = run0[run0["seq"] == 5]["cost_usd"].tolist()
    assert five == pytest.approx(
        [(18240 * 1 + 412 * 5) / M, (9876 * 1 + 305 * 5 + 2048 * 0.10) / M], rel=1e-12
    )


# -- the provider of a tool's model calls (issue 10, item 17) -----------------------------------


def _tool_calls_log(models: list[str]) -> bytes:
    """One run whose `summarize` tool made one model call per model id, 1,000 in and 100 out."""
    tool_usage = [{"model": m, "usage": usage(1000, 100)} for m in models]
    return (
        line(0, "run_started", {"prompt": "p"}, at(D, 0))
        + line(1, "message", assistant(("c1", "summarize"), u=usage(100, 10)), at(D, 1))
        + line(2, "decision", {"call_id": "c1", "tool": "summarize", "verdict": "allow"}, at(D, 2))
        + line(3, "tool_result", {**result("c1", "s"), "usage": tool_usage}, at(D, 3))
        + line(4, "run_ended", outcome(), at(D, 4))
    )


def test_a_tools_model_calls_take_the_provider_genai_prices_matches(tmp_path: Path) -> None:
    path = tmp_path / "tools.jsonl"
    path.write_bytes(_tool_calls_log(["claude-haiku-4-5", "gpt-5-2025-08-07", "acme-llm-1"]))
    calls = read_costs(path).model_calls
    tool = calls[calls["source"] == "tool"]
    assert tool["provider"].tolist()[:2] == ["anthropic", "openai"]
    assert pd.isna(tool["provider"].tolist()[2])  # nobody knows it: NA, "-" in a table
    assert str(calls["provider"].dtype) == "category"
    # Haiku 4.5 $1 / $5, GPT-5 $1.25 / $10: 1,000 in and 100 out each, by hand
    assert tool["cost_usd"].tolist()[:2] == pytest.approx(
        [(1000 * 1 + 100 * 5) / M, (1000 * 1.25 + 100 * 10) / M], rel=1e-12
    )
    by = cost_by(calls, "provider")
    assert by["provider"].tolist()[:2] == ["anthropic", "openai"]
    assert by["calls"].tolist() == [2, 1, 1]
    # a price file prices the model, and has no providers: the match still names it
    prices = {"claude-haiku-4-5": Prices(2, 2, 2, 2)}
    filed = read_costs(path, prices=prices).model_calls
    haiku = filed[filed["model"] == "claude-haiku-4-5"]
    assert haiku["provider"].item() == "anthropic" and haiku["price_source"].item() == "prices file"
    assert haiku["cost_usd"].item() == pytest.approx((1000 * 2 + 100 * 2) / M)
    # without genai-prices nobody matches a provider
    from sessiontools import PriceBook

    alone = read_costs(path, prices=PriceBook(prices, genai_prices=False)).model_calls
    assert alone[alone["source"] == "tool"]["provider"].isna().all()


_PROMPTS = st.lists(st.text(max_size=12), min_size=1, max_size=3)
_TURNS = st.lists(st.integers(min_value=0, max_value=2), min_size=3, max_size=3)


@settings(max_examples=40, deadline=None)
@given(_PROMPTS, _PROMPTS, _TURNS, _TURNS)
def test_different_prompts_on_one_clock_are_never_merged(
    first: list[str], second: list[str], turns_a: list[int], turns_b: list[int]
) -> None:
    """Any two sessions on the same fixed clock whose runs' prompts all differ: every run
    counts, whatever their turns (none, or the same ones at the same times)."""
    assume(not set(first) & set(second))
    a = _fixed_clock(tuple(first), tuple(turns_a[: len(first)]))
    b = _fixed_clock(tuple(second), tuple(turns_b[: len(second)]))
    tables = read_costs([io.BytesIO(a), io.BytesIO(b)])
    assert len(tables.runs) == len(first) + len(second)
    assert tables.copies == ()


@settings(max_examples=40, deadline=None)
@given(_PROMPTS, _TURNS, st.integers(min_value=0, max_value=100))
def test_any_prefix_of_a_session_is_a_copy_of_it(
    prompts: list[str], turns: list[int], where: int
) -> None:
    """A copy of a session taken after any of its lines, read with it (in either order): the
    session's runs and cost, each run once; the prefix, when it holds a run, is the copy."""
    data = _fixed_clock(tuple(prompts), tuple(turns[: len(prompts)]))
    lines = data.splitlines(keepends=True)
    cut = where % (len(lines) + 1)
    prefix = b"".join(lines[:cut])
    alone = read_costs(io.BytesIO(data))
    for order in ((prefix, data), (data, prefix)):
        both = read_costs([io.BytesIO(log) for log in order])
        assert len(both.runs) == len(alone.runs) == len(prompts)
        assert len(both.model_calls) == len(alone.model_calls)
        assert both.model_calls["cost_usd"].sum() == pytest.approx(
            alone.model_calls["cost_usd"].sum(), rel=1e-12
        )
        holds_a_run = b'"run_started"' in prefix
        assert len(both.copies) == (1 if holds_a_run else 0)


def test_cost_tables_of_runs_read_already_are_read_costs_tables(tmp_path: Path) -> None:
    """``cost_tables`` makes ``read_costs``' tables of runs another reader folded (the HTML
    report reads each log once, for its spans and its costs): the same frames, the same run
    given in two logs counted once, the transcripts' reported costs checked."""
    from sessiontools import LogReader, SessionFold, iter_runs
    from sessiontools._cost.frames import cost_tables
    from sessiontools._cost.rows import _LogRows

    log = tmp_path / "log.jsonl"
    log.write_bytes(LOG)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(LOG)
    logs = [log, copy, SESSIONS / "06_transcript.jsonl", SESSIONS / "08_tool_model_calls.jsonl"]
    rows = []
    for path in logs:
        with LogReader(path, export=True) as reader:
            made = _LogRows(reader.name)
            for run in iter_runs(reader, SessionFold(reader.name, warnings=reader.sink)):
                made.add(run)
            made.close(reader.closing_line)
        rows.append(made)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cost_tables(rows)
        want = read_costs(logs)
    for name in ("model_calls", "runs", "tool_calls"):
        pd.testing.assert_frame_equal(getattr(got, name), getattr(want, name))
    assert got.warnings == want.warnings and got.copies == want.copies == (str(copy),)


def test_run_identity_names_each_run_in_every_frame(tmp_path: Path) -> None:
    """``run_identity`` is ``RunIdentity.hex()`` of the run as counted (docs/costs.md, "Runs
    read twice"): the same on the run's row, its model calls and its tool calls; a run read
    before its first model call (a copy taken then) has the start digest alone, and once read
    further, with the session, the run is one run under its whole identity."""
    from sessiontools._model.identity import run_identity

    full = SESSIONS / "08_tool_model_calls.jsonl"
    session = read_session(full)
    expected = [run_identity(run).hex() for run in session.runs]
    assert all(len(h) == 65 and h[32] == ":" for h in expected)  # 2 x 16 bytes in hex
    tables = read_costs(full)
    assert tables.runs["run_identity"].tolist() == expected
    for frame in (tables.model_calls, tables.tool_calls):
        by_run = dict(zip(tables.runs["run_index"], tables.runs["run_identity"], strict=True))
        assert frame["run_identity"].tolist() == [by_run[i] for i in frame["run_index"]]
    lines = full.read_bytes().split(b"\n")
    early = tmp_path / "before_the_first_call.jsonl"
    early.write_bytes(lines[0] + b"\n")  # the run_started entry alone
    alone = read_costs(early).runs["run_identity"].tolist()
    assert alone == [expected[0][:32]]
    both = read_costs([early, full]).runs["run_identity"].tolist()
    assert both == expected
