"""Entries to the session model (reading.md, "The session model"; traces.md, "Times").

Every expectation here is worked out by hand from the entries written in the test. Entries
are at 09:30:SS+02:00 with SS = their seq unless a time is given, so times read as seconds.
"""

from __future__ import annotations

import io
import json

import pytest

from sessiontools import (
    LabelSource,
    Run,
    SessionFold,
    Usage,
    iter_entries,
    iter_runs,
    parse_rfc3339,
)
from tests.helpers import assistant, line, outcome, read_bytes, result, t, usage, user
from tests.logs import CRASH_AND_RESUME, DENY_REFUSE, ONE_TOOL, RETRIES

S = 1_000_000_000
T0 = parse_rfc3339(t(0))[0]


def at(seconds: float) -> int:
    return T0 + round(seconds * S)


def runs(data: bytes) -> tuple[Run, ...]:
    return read_bytes(data).runs


def test_one_run_with_a_tool() -> None:
    session = read_bytes(ONE_TOOL)
    (run,) = session.runs
    assert (run.index, run.start_seq, run.end_seq, run.reason, run.turn_count) == (
        0,
        0,
        7,
        "completed",
        2,
    )
    assert (run.start_time_unix_nano, run.end_time_unix_nano) == (at(0), at(7))
    assert run.duration_ms == 7000.0
    assert run.usage == Usage(130, 25, 160, 10)
    assert (run.provider, run.request_model) == ("anthropic", "claude-sonnet-4-5")
    first, second = run.turns
    assert (first.seq, first.start_time_unix_nano, first.time_unix_nano) == (2, at(1), at(2))
    assert first.call_ids == ("c1",) and first.stop == "tool_use"
    assert (second.start_time_unix_nano, second.time_unix_nano) == (at(5), at(6))
    (call,) = run.tool_calls
    assert (call.call_id, call.tool, call.message_seq, call.index) == ("c1", "clock", 2, 0)
    assert (call.open_seq, call.open_index, call.verdict) == (2, 0, "allow")
    assert (call.start_time_unix_nano, call.end_time_unix_nano) == (at(4), at(5))
    assert (call.started, call.has_result, call.is_error, call.result_seq) == (True, True, False, 5)
    assert (call.refused, call.resumed, call.labels) == (False, False, ("clock", "t"))
    assert run.labels == ("clock", "t")
    assert session.usage() == Usage(130, 25, 160, 10)
    assert session.label_sources() == {
        "t": LabelSource("tool", 3, "clock", "c1"),
        "clock": LabelSource("tool", 5, "clock", "c1"),
    }


def test_crash_while_a_call_runs_and_the_run_that_settles_it() -> None:
    crashed, resumed = runs(CRASH_AND_RESUME)
    assert crashed.outcome is None and crashed.crashed and crashed.reason == "crashed"
    assert (crashed.end_seq, crashed.end_time_unix_nano) == (4, at(4))
    assert crashed.turn_count == 1 and crashed.usage == Usage(100, 10)  # the sum of its calls
    c1, c2 = crashed.tool_calls
    # c1 ran from its call_started until the run ended, with no result
    assert (c1.start_time_unix_nano, c1.end_time_unix_nano, c1.has_result) == (at(4), at(4), False)
    # c2 never got a decision: it spans from the message that asked for it to the run's end
    assert (c2.start_time_unix_nano, c2.end_time_unix_nano, c2.verdict) == (at(2), at(4), "")
    assert (c2.open_seq, c2.open_index) == (2, 1)

    s1, s2 = resumed.tool_calls
    # The settled c1: opened by its tool_result, from the entry before it (run_started).
    assert (s1.call_id, s1.tool, s1.resumed, s1.open_seq, s1.open_index) == (
        "c1",
        "deploy",
        True,
        11,
        0,
    )
    assert (s1.message_seq, s1.index, s1.verdict, s1.is_error) == (2, 0, "allow", True)
    assert (s1.start_time_unix_nano, s1.end_time_unix_nano, s1.started) == (at(10), at(11), False)
    # c2 decided and run in the new run: opened by its decision, from its call_started.
    assert (s2.call_id, s2.resumed, s2.open_seq, s2.message_seq, s2.index) == (
        "c2",
        True,
        12,
        2,
        1,
    )
    assert (s2.start_time_unix_nano, s2.end_time_unix_nano) == (at(13), at(14))
    # the chat after the results starts at the last one
    (turn,) = resumed.turns
    assert turn.start_time_unix_nano == at(14)


def test_run_at_end_of_log_without_run_ended_crashed() -> None:
    (run,) = runs(ONE_TOOL[: ONE_TOOL.index(b'{"seq":6')])
    assert run.reason == "crashed" and run.end_seq == 5 and run.turn_count == 1
    assert run.usage == Usage(100, 20, 50, 10)


def test_failed_calls_and_start_times_after_retries() -> None:
    (run,) = runs(RETRIES)
    first, second = run.failed_calls
    assert (first.seq, first.error.kind, first.error.status, first.retry, first.wait_ms) == (
        2,
        "rate_limited",
        429,
        True,
        2000,
    )
    assert (first.start_time_unix_nano, first.time_unix_nano) == (at(1), at(2))
    # 2 s after the first failure
    assert (second.start_time_unix_nano, second.time_unix_nano) == (at(4), at(5))
    # a 60 s wait would start after its own end: it starts at its end
    (turn,) = run.turns
    assert (turn.start_time_unix_nano, turn.time_unix_nano) == (at(9), at(9))
    # No turn before them in the session: the next turn of their run names the model.
    assert {(f.provider, f.request_model) for f in run.failed_calls} == {("openai", "gpt-5")}


def test_failed_call_takes_the_nearest_earlier_turn_in_the_session() -> None:
    data = (
        ONE_TOOL
        + line(20, "run_started", {"prompt": "again"})
        + line(21, "message", user("again"))
        + line(
            22,
            "model_error",
            {"error": {"kind": "unauthorized", "status": 401, "message": "no"}, "retry": False},
        )
        + line(23, "message", assistant(text="x", provider="openai", model="gpt-5"))
        + line(24, "run_ended", outcome())
    )
    _, run = runs(data)
    (failed,) = run.failed_calls
    assert (failed.provider, failed.request_model) == ("anthropic", "claude-sonnet-4-5")
    assert (run.provider, run.request_model) == ("", "")  # two providers in one run


def test_failed_call_with_no_turn_anywhere_has_no_model() -> None:
    data = (
        line(0, "run_started", {"prompt": "hi"})
        + line(
            1,
            "model_error",
            {"error": {"kind": "billing", "status": 402, "message": "pay"}, "retry": False},
        )
        + line(
            2,
            "run_ended",
            outcome(
                "model_error",
                turns=0,
                u=usage(),
                error={"kind": "billing", "status": 402, "message": "pay"},
            ),
        )
    )
    (run,) = runs(data)
    (failed,) = run.failed_calls
    assert (failed.provider, failed.request_model) == ("", "")
    assert run.outcome is not None and run.outcome.error is not None
    assert run.outcome.error.kind == "billing"


def test_denied_refused_and_failed_tool_calls() -> None:
    session = read_bytes(DENY_REFUSE)
    (run,) = session.runs
    c1, c2, c3 = run.tool_calls
    assert (c1.verdict, c1.start_time_unix_nano, c1.end_time_unix_nano) == ("deny", at(3), at(4))
    assert c1.labels == ()  # a denied decision gives the session nothing
    assert (c2.refused, c2.is_error, c3.refused, c3.is_error) == (True, False, False, True)
    assert run.labels == ("seeded",) == session.labels()
    assert session.label_sources() == {"seeded": LabelSource("seed", 1)}


def test_labels_between_runs_and_pins() -> None:
    data = (
        line(0, "labels", {"labels": ["b", "a"], "source": "seed"})
        + line(1, "pins", {"pins": {"read": "sha256:1"}})
        + line(2, "run_started", {})
        + line(3, "pins", {"pins": {"read": "sha256:2", "write": "sha256:3"}})
        + line(4, "run_ended", outcome(turns=0, u=usage()))
        + line(5, "labels", {"labels": ["c", "a"]})
        + line(6, "run_started", {})
        + line(7, "run_ended", outcome(turns=0, u=usage()))
    )
    session = read_bytes(data)
    first, second = session.runs
    assert first.labels == ("a", "b") and second.labels == ("a", "b", "c")
    assert session.pins() == {"read": "sha256:1", "write": "sha256:3"}  # a pin never changes
    assert session.label_sources()["c"] == LabelSource("seed", 5)
    assert session.label_sources()["a"] == LabelSource("seed", 0)


def test_tool_model_calls_count_toward_run_and_session_usage() -> None:
    tool_usage = [
        {"model": "claude-haiku-4-5", "usage": usage(1000, 200)},
        {"model": "claude-haiku-4-5", "usage": usage(500, 100, read=300)},
    ]
    data = (
        line(0, "run_started", {"prompt": "sum"})
        + line(1, "message", assistant(("c1", "summarize"), u=usage(10, 1)))
        + line(2, "decision", {"call_id": "c1", "tool": "summarize", "verdict": "allow"})
        + line(3, "call_started", {"call_id": "c1"})
        + line(4, "tool_result", {**result("c1", "summary"), "usage": tool_usage})
    )
    session = read_bytes(data)
    (run,) = session.runs
    assert run.reason == "crashed"
    assert run.usage == Usage(1510, 301, 300, 0) == session.usage()
    (call,) = run.tool_calls
    assert [(m.index, m.model, m.usage.total_tokens) for m in call.model_calls] == [
        (0, "claude-haiku-4-5", 1200),
        (1, "claude-haiku-4-5", 900),
    ]
    # the run's model calls: the turn and the tool's two, one provider known
    assert (run.provider, run.request_model) == ("anthropic", "")


def test_transcript_settling_a_call_this_log_never_asked_for() -> None:
    data = (
        line(30, "run_started", {})
        + line(31, "tool_result", result("c9", "may have", is_error=True))
        + line(32, "run_ended", outcome(turns=0, u=usage()))
    )
    (run,) = runs(data)
    (call,) = run.tool_calls
    assert (call.call_id, call.tool, call.message_seq, call.resumed) == ("c9", "", None, True)
    assert (call.open_seq, call.start_time_unix_nano, call.end_time_unix_nano) == (
        31,
        at(30),
        at(31),
    )


def test_clock_stepped_back_never_gives_a_negative_duration() -> None:
    data = (
        line(0, "run_started", {}, time=t(10))
        + line(1, "message", user("x"), time=t(11))
        + line(2, "message", assistant(text="y"), time=t(5))
        + line(3, "run_ended", outcome(), time=t(6))
    )
    (run,) = runs(data)
    (turn,) = run.turns
    assert turn.start_time_unix_nano == turn.time_unix_nano == at(5)


def test_entries_outside_any_run_belong_to_the_session() -> None:
    data = line(0, "labels", {"labels": ["a"]}) + line(
        1, "tool_result", {**result("c", "x"), "usage": [{"model": "m", "usage": usage(5, 5)}]}
    )
    session = read_bytes(data)
    assert session.runs == () and session.labels() == ("a",)
    assert session.usage() == Usage(5, 5)


@pytest.mark.parametrize("cut", range(1, 9))
def test_runs_before_a_cut_do_not_change(cut: int) -> None:
    """Folding is streaming: the runs a prefix ends are the runs of the whole log."""
    lines = CRASH_AND_RESUME.splitlines(keepends=True)
    whole = runs(CRASH_AND_RESUME)
    part = runs(b"".join(lines[: cut + 4]))
    assert part[0] == whole[0]


def test_entries_of_a_run_outside_any_run_are_reported_once() -> None:
    import io
    import warnings

    from sessiontools import LogStructureWarning, read_session

    headless = b"".join(ONE_TOOL.splitlines(keepends=True)[1:])  # run_started cut away
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = read_session(io.BytesIO(headless), name="h.jsonl")
    messages = [str(w.message) for w in caught if w.category is LogStructureWarning]
    assert messages == [
        "h.jsonl: line 1: a message entry outside any run (no run_started before it): "
        "it is in no run and no span"
    ]
    assert session.runs == () and session.warnings == tuple(messages)
    assert session.usage() == Usage(130, 25, 160, 10)  # still counted for the session


def test_seq_going_back_is_reported_once() -> None:
    import io
    import warnings

    from sessiontools import LogStructureWarning, read_session

    lines = ONE_TOOL.splitlines(keepends=True)
    shuffled = lines[0] + lines[2] + lines[1] + b"".join(lines[3:]) + lines[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_session(io.BytesIO(shuffled), name="s.jsonl")
    messages = [str(w.message) for w in caught if w.category is LogStructureWarning]
    assert messages == [
        "s.jsonl: line 3: seq 1 after seq 2: entries out of order or repeated; read in the "
        "order of the file",
        # the repeated user message comes after run_ended: outside any run, and said once
        "s.jsonl: line 9: a message entry outside any run (no run_started before it): "
        "it is in no run and no span",
    ]


# A session labelled before its first run; run 0 is given a label by a labels entry, an
# allowed decision and a result, refuses one result (its labels are not the session's), and
# crashes in run 1 after a result with labels. Times: +02:00, then +01:00 from seq 9 on (a
# daylight-saving switch).
LABELLED = (
    line(0, "labels", {"labels": ["project:apollo"], "source": "seed"})
    + line(1, "run_started", {"prompt": "p"})
    + line(2, "message", assistant(("c1", "fetch"), ("c2", "mail")))
    + line(3, "labels", {"labels": ["team:x"], "source": "seed"})
    + line(4, "decision", {"call_id": "c1", "tool": "fetch", "verdict": "allow", "labels": ["web"]})
    + line(5, "tool_result", result("c1", "page", labels=["untrusted"]))
    + line(6, "tool_result", result("c2", "secret", labels=["private"]))
    + line(7, "message", assistant(text="done"))
    + line(8, "run_ended", outcome(turns=2, refused=[{"call_id": "c2", "labels": ["private"]}]))
    + line(9, "run_started", {"prompt": "q"}, "2026-10-18T08:30:09+01:00")
    + line(10, "message", assistant(("c3", "fetch")), "2026-10-18T08:30:10+01:00")
    + line(11, "tool_result", result("c3", "x", labels=["web2"]), "2026-10-18T08:30:11+01:00")
    + line(
        12,
        "model_error",
        {"error": {"kind": "overloaded", "status": 529}, "retry": True, "wait_ms": 10},
        "2026-10-18T08:30:12+01:00",
    )
)


def test_label_history_and_the_labels_at_each_entry() -> None:
    """The labels the session held at each entry of a run (issue 14, cost by label): the
    labels at its start (a labels entry before any run), then each entry that gave new ones:
    a labels entry in the run (seq 3), an allowed decision (seq 4), a result (seq 5, its own
    labels counting at it); the refused result at seq 6 gives none. The crashed run refuses
    nothing: its result's labels count from seq 11."""
    first, second = runs(LABELLED)
    assert first.label_history == (
        (1, ("project:apollo",)),
        (3, ("project:apollo", "team:x")),
        (4, ("project:apollo", "team:x", "web")),
        (5, ("project:apollo", "team:x", "untrusted", "web")),
    )
    assert first.labels_at(2) == ("project:apollo",)
    assert first.labels_at(5) == ("project:apollo", "team:x", "untrusted", "web")
    assert first.labels_at(6) == first.labels_at(7) == first.labels_at(5)
    assert first.labels_at(0) == ("project:apollo",)  # before the run: what it started with
    everything = ("project:apollo", "team:x", "untrusted", "web")
    assert second.label_history == ((9, everything), (11, (*everything, "web2")))
    assert second.labels_at(10) == everything
    assert second.labels_at(12) == (*everything, "web2")
    assert second.labels == (*everything, "web2")


def test_the_utc_offset_of_each_model_call() -> None:
    """Turns and failed calls keep the UTC offset their entry was written with, a tool call
    that of the entry it ends at (its result, else its run's last entry)."""
    first, second = runs(LABELLED)
    assert [turn.utc_offset_seconds for turn in first.turns] == [7200, 7200]
    assert [call.end_utc_offset_seconds for call in first.tool_calls] == [7200, 7200]
    assert second.turns[0].utc_offset_seconds == 3600
    assert second.failed_calls[0].utc_offset_seconds == 3600
    assert [call.end_utc_offset_seconds for call in second.tool_calls] == [3600]


def test_a_fold_restored_between_runs_gives_the_same_label_history_and_offsets() -> None:
    """The sender folds an appended log from a snapshot (``SessionFold.snapshot`` /
    ``restore``): the runs after it carry the label history and UTC offsets of a fold that
    read every entry. Run 1 of ``LABELLED`` starts with every label run 0 gave (seq 1 to 5)
    and its own at +01:00; it is the same read either way."""
    entries = list(iter_entries(io.BytesIO(LABELLED), name="s.jsonl"))
    whole = list(iter_runs(entries, SessionFold("s.jsonl")))
    split_at = next(i for i, e in enumerate(entries) if e.seq == 9)  # run 1's run_started
    fold = SessionFold("s.jsonl")
    before = [run for e in entries[:split_at] if (run := fold.feed(e)) is not None]
    state = json.loads(json.dumps(fold.snapshot()))  # as the state file keeps it
    after = list(iter_runs(entries[split_at:], SessionFold.restore("s.jsonl", state)))
    assert before + after == whole
    assert after[0].label_history == whole[1].label_history
    assert after[0].label_history[0][1] == ("project:apollo", "team:x", "untrusted", "web")
    assert [t.utc_offset_seconds for t in after[0].turns] == [3600]
