"""SessionBuilder: sessions built with it read back to what was built.

Every expectation is worked out by hand from the calls in the test: seqs by counting the
entries each step writes, usage by adding the counts given, times from the default steps.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Iterator
from datetime import timedelta, timezone
from io import BytesIO
from itertools import pairwise
from pathlib import Path
from typing import Any, TypeVar

import orjson
import pytest

from sessiontools import (
    FORBIDDEN_DECISION,
    LIMIT_RESULT,
    REFUSED_RESULT,
    SETTLED_RESULT,
    DecisionEntry,
    Display,
    Entry,
    FileStore,
    LabelSource,
    MemoryStore,
    MessageEntry,
    ModelUsage,
    Outcome,
    Refusal,
    SessionBuilder,
    Source,
    ToolCall,
    ToolResultEntry,
    Usage,
    parse_rfc3339,
    read_session,
)
from sessiontools._model.conversation import conversation

MS = 1_000_000
START = "2026-10-18T09:30:00+02:00"
T0 = parse_rfc3339(START)[0]
ANTHROPIC_ID = re.compile(r"toolu_01[0-9A-Za-z]{22}")
OPENAI_ID = re.compile(r"call_[0-9A-Za-z]{24}")
SONNET = "claude-sonnet-4-5"
HAIKU = "claude-haiku-4-5"
T = TypeVar("T")
DISPLAY = Display(
    "Dates", "**16-20 Nov**: all free.", ("doc:dates.md",), (Source("Dates", "doc:dates.md"),)
)


@contextlib.contextmanager
def warnings_as_errors() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def payload(entry: Entry | None, cls: type[T]) -> T:
    """The entry's payload, checked to be a ``cls``."""
    assert entry is not None and isinstance(entry.payload, cls)
    return entry.payload


def offsite(b: SessionBuilder) -> SessionBuilder:
    """One run: a seed label, pins, a turn with two calls, their results, a last turn.

    Seqs: 0 labels, 1 run_started, 2 pins, 3 user, 4 assistant, 5-7 the first call (decision,
    call_started, result), 8-10 the second, 11 assistant, 12 run_ended.
    """
    b.labels("project:apollo")
    b.run_started("Plan the offsite.")
    b.pins({"file_read": "sha256:" + "ab" * 32})
    b.user("Plan the offsite.")
    b.anthropic(
        SONNET,
        reasoning="Read both files.",
        text="Reading the notes.",
        calls=[("file_read", {"path": "venues.md"}), ("summarize", {"path": "dates.md"})],
        usage=Usage(100, 20, cache_write_tokens=3_000),
    )
    b.allow("Essen, 80 seats", decision_labels=["private"])
    b.allow(
        "Everyone is free 16-20 Nov.",
        labels=["doc:dates.md"],
        log="summarize: 1 model call",
        usage=[(HAIKU, Usage(500, 50, cache_read_tokens=200))],
        display=DISPLAY,
    )
    b.anthropic(SONNET, text="Essen, 16-20 Nov.", usage=Usage(150, 30, cache_read_tokens=3_000))
    return b.run_ended()


def test_a_session_reads_back_to_what_was_built() -> None:
    b = offsite(SessionBuilder(START, seed="offsite"))
    session = b.read()
    assert [e.seq for e in session.entries] == list(range(13))
    assert session.entries == tuple(b.entries)
    read, summarize = payload(b.entries[4], MessageEntry).message.tool_calls
    assert ANTHROPIC_ID.fullmatch(read.id) and ANTHROPIC_ID.fullmatch(summarize.id)
    assert read.id != summarize.id

    (run,) = session.runs
    assert (run.start_seq, run.end_seq, run.reason, run.turn_count) == (1, 12, "completed", 2)
    # The run's usage, by hand: two turns and the summarizer's model call.
    assert run.usage == Usage(100 + 500 + 150, 20 + 50 + 30, 200 + 3_000, 3_000)
    assert session.usage() == Usage(750, 100, 3_200, 3_000)
    # Every turn is Anthropic's; the models differ (sonnet, and haiku in the tool).
    assert (run.provider, run.request_model) == ("anthropic", "")
    first, last = run.turns
    assert (first.seq, first.stop, first.model, first.provider) == (
        4,
        "tool_use",
        SONNET,
        "anthropic",
    )
    assert first.call_ids == (read.id, summarize.id)
    assert first.usage == Usage(100, 20, 0, 3_000)
    assert (last.seq, last.stop, last.usage) == (11, "end_turn", Usage(150, 30, 3_000, 0))

    c1, c2 = run.tool_calls
    assert (c1.call_id, c1.tool, c1.verdict, c1.started, c1.has_result) == (
        read.id,
        "file_read",
        "allow",
        True,
        True,
    )
    assert (c1.result_seq, c1.labels, c1.model_calls) == (7, ("private",), ())
    assert (c2.tool, c2.result_seq, c2.labels) == ("summarize", 10, ("doc:dates.md",))
    assert [(m.model, m.usage) for m in c2.model_calls] == [(HAIKU, Usage(500, 50, 200, 0))]
    result = payload(session.entries[10], ToolResultEntry)
    assert (result.log, result.display) == ("summarize: 1 model call", DISPLAY)

    assert session.labels() == ("doc:dates.md", "private", "project:apollo")
    assert session.label_sources() == {
        "project:apollo": LabelSource("seed", 0),
        "private": LabelSource("tool", 5, "file_read", read.id),
        "doc:dates.md": LabelSource("tool", 10, "summarize", summarize.id),
    }
    assert dict(session.pins()) == {"file_read": "sha256:" + "ab" * 32}
    outcome = run.outcome
    assert outcome is not None
    assert (outcome.text, outcome.turns, outcome.refused, outcome.error) == (
        "Essen, 16-20 Nov.",
        2,
        (),
        None,
    )


def test_native_data_is_anthropics_response() -> None:
    b = SessionBuilder(START, seed="native")
    b.run("hi").anthropic(
        HAIKU,
        reasoning="Think.",
        text="Hello.",
        calls=[("clock", {})],
        usage=Usage(12, 34, 56, 78),
    )
    message = payload(b.last, MessageEntry).message
    assert [p.type for p in message.parts] == ["reasoning", "text", "tool_call"]
    native = message.native
    assert native is not None
    assert (native.provider, native.model) == ("anthropic", HAIKU)
    data = native.data
    assert re.fullmatch(r"msg_01[0-9A-Za-z]{22}", data["id"])
    assert [c["type"] for c in data["content"]] == ["thinking", "text", "tool_use"]
    assert data["content"][2]["id"] == b.calls[0].id
    assert (data["model"], data["stop_reason"]) == (HAIKU, "tool_use")
    assert data["usage"] == {
        "input_tokens": 12,
        "cache_creation_input_tokens": 78,
        "cache_read_input_tokens": 56,
        "output_tokens": 34,
        "service_tier": "standard",
    }


def test_openai_turns_count_cached_input_as_openai_does() -> None:
    b = SessionBuilder(START, seed="openai", jitter=False)
    b.run("Read it.")
    b.openai(
        "gpt-5",
        reasoning="",
        reasoning_tokens=64,
        calls=[("file_read", {"path": "README.md"})],
        usage=Usage(1_000, 200, cache_read_tokens=512),
        served="gpt-5-2025-08-07",
        ms=4_000,
    )
    (call,) = b.calls
    assert OPENAI_ID.fullmatch(call.id)
    entry = payload(b.last, MessageEntry)
    native = entry.message.native
    assert native is not None
    assert (entry.model, native.model) == ("gpt-5-2025-08-07", "gpt-5")
    data = native.data
    assert [o["type"] for o in data["output"]] == ["reasoning", "function_call"]
    assert data["output"][0]["summary"] == []
    assert data["output"][1]["arguments"] == '{"path":"README.md"}'
    assert data["usage"]["input_tokens"] == 1_512  # OpenAI's input includes the cached
    assert data["usage"]["total_tokens"] == 1_712
    # The call began with the user's message, 1 ms after T0, and took 4 s: created_at is
    # halfway, in Unix seconds.
    assert data["created_at"] == (T0 + MS + 2_000 * MS) // 1_000_000_000
    b.allow("# README")
    b.openai(
        "gpt-5", text="Cut off", stop="max_tokens", usage=Usage(10, 4_096), ms=60_000
    ).run_ended("max_tokens")
    native = payload(b.entries[-2], MessageEntry).message.native
    assert native is not None
    data = native.data
    assert (data["status"], data["incomplete_details"]) == (
        "incomplete",
        {"reason": "max_output_tokens"},
    )
    b.run("Someone's address?").openai("gpt-5-mini", refusal="I can't help with that.")
    refused = payload(b.last, MessageEntry)
    assert (refused.stop, refused.refusal, refused.message.text) == (
        "refusal",
        "I can't help with that.",
        "I can't help with that.",
    )
    (run1, run2) = b.run_ended("refused").read().runs
    assert (run1.reason, run2.reason) == ("max_tokens", "refused")
    assert run1.outcome == Outcome("max_tokens", 2, Usage(1_010, 4_296, 512), "Cut off")
    assert payload(b.last, Outcome).text == "I can't help with that."


def test_run_ended_usage_is_the_runs_sum_and_any_field_can_be_given() -> None:
    b = SessionBuilder(START, seed="usage")
    b.run("one")
    b.anthropic(calls=[("summarize", {})], usage=Usage(10, 1, 100, 1_000))
    b.allow(
        "done",
        usage=[
            ModelUsage(HAIKU, Usage(20, 2, 200, 2_000)),
            (HAIKU, Usage(30, 3, 300, 3_000)),
        ],
    )
    b.openai(text="first", usage=Usage(40, 4, 400))
    b.anthropic(usage=Usage(50, 5))  # no text: the outcome keeps the last text
    b.run_ended()
    outcome = payload(b.last, Outcome)
    assert outcome.usage == Usage(10 + 20 + 30 + 40 + 50, 1 + 2 + 3 + 4 + 5, 1_000, 6_000)
    assert (outcome.turns, outcome.text) == (3, "first")
    # The next run counts from zero; every field can be given instead.
    b.run("two").anthropic(text="second", usage=Usage(7, 7))
    b.run_ended("limit", limit="max_tokens", turns=9, usage=Usage(1, 2), text="given")
    given = payload(b.last, Outcome)
    assert given == Outcome("limit", 9, Usage(1, 2), "given", limit="max_tokens")
    b.run("three").anthropic(text="third", usage=Usage(3, 3)).run_ended()
    assert payload(b.last, Outcome) == Outcome("completed", 1, Usage(3, 3), "third")


def test_a_crash_and_the_run_that_settles_it() -> None:
    b = SessionBuilder(START, seed="crash")
    b.run("Open a ticket and write the report.")
    ticket, report = b.anthropic(
        calls=[("http_post", {"url": "https://t.example/api"}), ("file_write", {"path": "r"})],
        usage=Usage(100, 10),
    ).calls
    b.decision().call_started()  # the ticket's call; then the process dies
    b.crash()
    assert b.pending == (ticket, report) == conversation(b.entries).pending
    b.wait(600_000).run()  # a bare resume settles the ticket's call
    b.allow("wrote 6 bytes")  # the report's call never started: it runs now
    b.anthropic(text="Done; check the ticket.", usage=Usage(200, 20)).run_ended()
    assert b.pending == ()

    # seqs: 0 run_started, 1 user, 2 assistant, 3 decision, 4 call_started | 5 run_started,
    # 6 settled result, 7-9 the report's call, 10 assistant, 11 run_ended.
    settled = payload(b.entries[6], ToolResultEntry).result
    assert (settled.call_id, settled.content, settled.is_error) == (ticket.id, SETTLED_RESULT, True)
    assert b.entries[5].time_unix_nano - b.entries[4].time_unix_nano > 600_000 * MS

    crashed, resumed = b.read().runs
    assert (crashed.crashed, crashed.reason, crashed.end_seq, crashed.turn_count) == (
        True,
        "crashed",
        4,
        1,
    )
    assert crashed.usage == Usage(100, 10)
    assert [(c.call_id, c.started, c.has_result) for c in crashed.tool_calls] == [
        (ticket.id, True, False),
        (report.id, False, False),
    ]
    assert (resumed.start_seq, resumed.reason, resumed.turn_count) == (5, "completed", 1)
    assert resumed.usage == Usage(200, 20)
    assert [(c.call_id, c.resumed, c.has_result, c.is_error) for c in resumed.tool_calls] == [
        (ticket.id, True, True, True),
        (report.id, True, True, False),
    ]


def test_a_refused_result_and_a_forbidden_run() -> None:
    b = SessionBuilder(START, seed="refused")
    b.run("Who is on call, and their number?")
    rota, hr = b.anthropic(
        calls=[("wiki_read", {"page": "rota"}), ("hr_lookup", {"name": "Jonas"})],
        usage=Usage(100, 10),
    ).calls
    b.allow("Jonas Weber", call=rota, labels=["wiki"])
    b.refuse(["private", "hr"], call=hr, log="1 record", usage=[(HAIKU, Usage(40, 4))])
    b.anthropic(text="Jonas; the number was withheld.", usage=Usage(120, 12)).run_ended()
    b.labels("case:118", "private")
    b.forbidden_run("Draft the handover.", ["private"])

    result = payload(b.entries[8], ToolResultEntry)
    assert (result.result.content, result.labels, result.log) == (REFUSED_RESULT, (), "1 record")
    session = b.read()
    first, forbidden = session.runs
    assert first.outcome is not None
    assert first.outcome.refused == (Refusal(hr.id, "hr_lookup", ("hr", "private")),)
    assert first.usage == Usage(260, 26)  # the refused result's model call counts
    assert [(c.tool, c.refused, c.labels) for c in first.tool_calls] == [
        ("wiki_read", False, ("wiki",)),
        ("hr_lookup", True, ()),
    ]
    assert forbidden.outcome == Outcome("forbidden", forbidden=("private",))
    assert (forbidden.start_seq, forbidden.end_seq) == (
        len(session.entries) - 2,
        len(session.entries) - 1,
    )
    assert session.labels() == ("case:118", "private", "wiki")


def test_denies_and_a_call_over_the_limit() -> None:
    b = SessionBuilder(START, seed="deny")
    b.run("Clean up, check go.dev, read three files.")
    rm, fetch, a, c = b.anthropic(
        calls=[
            ("shell", {"command": "rm -rf build/"}),
            ("web_fetch", {"url": "https://go.dev/dl/"}),
            ("file_read", {"path": "a"}),
            ("file_read", {"path": "c"}),
        ],
        usage=Usage(100, 10),
    ).calls
    b.deny("rm is not read-only")
    b.deny_forbidden(["untrusted", "web"])
    b.allow("a")
    b.over_limit()
    b.run_ended("limit", limit="max_tool_calls")
    decisions = [
        (d.call_id, d.verdict, d.reason, d.labels)
        for d in (payload(e, DecisionEntry) for e in b.entries if e.type == "decision")
    ]
    assert decisions == [
        (rm.id, "deny", "rm is not read-only", ()),
        (fetch.id, "deny", FORBIDDEN_DECISION, ("untrusted", "web")),
        (a.id, "allow", "", ()),
    ]
    results = [payload(e, ToolResultEntry).result for e in b.entries if e.type == "tool_result"]
    assert [(r.call_id, r.is_error) for r in results] == [
        (rm.id, True),
        (fetch.id, True),
        (a.id, False),
        (c.id, True),
    ]
    assert (results[0].content, results[1].content, results[3].content) == (
        "rm is not read-only",
        FORBIDDEN_DECISION,
        LIMIT_RESULT,
    )
    (run,) = b.read().runs
    assert [(t.verdict, t.started) for t in run.tool_calls] == [
        ("deny", False),
        ("deny", False),
        ("allow", True),
        ("", False),
    ]
    assert run.labels == ()  # a deny's labels are not taken


def test_model_errors_retry_and_end_the_run() -> None:
    b = SessionBuilder("2026-10-17T07:58:03Z", seed="errors", jitter=False)
    b.run("Summarise the alerts.")
    b.model_error(
        "rate_limited",
        "slow down",
        status=429,
        retry=True,
        wait_ms=2_000,
        retry_after="2026-10-17T07:58:05.5Z",
        resets_at=T0,
    )
    b.anthropic(text="Quiet night.", usage=Usage(10, 1), ms=1_000)
    b.run_ended()
    b.run("Post it.").model_error("unauthorized", "invalid x-api-key", status=401, ms=200)
    b.run_ended("model_error")
    start = parse_rfc3339("2026-10-17T07:58:03Z")[0]
    # run_started at start, user +1 ms, error +400 ms, then a 2 s wait, the turn 1 s later.
    assert [e.time_unix_nano - start for e in b.entries[:4]] == [0, MS, 401 * MS, 3_401 * MS]
    first, second = b.read().runs
    (failed,) = first.failed_calls
    assert (failed.error.kind, failed.error.status, failed.retry, failed.wait_ms) == (
        "rate_limited",
        429,
        True,
        2_000,
    )
    assert failed.error.retry_after_unix_nano == parse_rfc3339("2026-10-17T07:58:05.5Z")[0]
    assert failed.error.resets_at_unix_nano == T0
    assert first.outcome is not None and first.outcome.error is None
    assert second.outcome == Outcome("model_error", error=second.failed_calls[0].error)


def test_the_clock_steps_jitter_and_offsets() -> None:
    b = SessionBuilder(START, seed="clock", jitter=False)
    b.run("hi")  # run_started at START, user 1 ms later
    b.anthropic(text="hello", usage=Usage(1, 1))  # 3.2 s
    b.run_ended(ms=5)
    # Summer time ends at 03:00 CEST: the user's message is 1 ms later, at 02:59:59.999999999
    # CEST, and the answer 400 ns after that, an hour earlier on the wall clock.
    b.at("2026-10-25T02:59:59.998999999+02:00").run("late")
    b.at("2026-10-25T02:00:00.000000399+01:00").anthropic(text="x", usage=Usage(1, 1))
    b.wait(1_000).run_ended()
    steps = [e.time_unix_nano - T0 for e in b.entries[:4]]
    assert steps == [0, MS, 3_201 * MS, 3_206 * MS]
    late = b.entries[4:]
    assert [e.utc_offset_seconds for e in late] == [7200, 7200, 3600, 3600]
    assert late[2].time_unix_nano - late[1].time_unix_nano == 400
    assert late[3].time_unix_nano - late[2].time_unix_nano == 1_001 * MS
    lines = b.lines()
    assert b'"time":"2026-10-25T02:59:59.999999999+02:00"' in lines[5]
    assert b'"time":"2026-10-25T02:00:00.000000399+01:00"' in lines[6]
    assert b'"time":"2026-10-25T02:00:01.001000399+01:00"' in lines[7]

    # With jitter every step is its ms and under a millisecond more; times only move forward.
    j = SessionBuilder(START, seed="jitter")
    for _ in range(20):
        j.labels("x")
    times = [e.time_unix_nano for e in j.entries]
    gaps = [later - earlier for earlier, later in pairwise(times)]
    assert all(MS < g < 2 * MS for g in gaps) and len(set(gaps)) > 1

    # A start in Unix nanoseconds, with a zone: each entry gets the zone's offset.
    ist = timezone(timedelta(hours=5, minutes=30))
    z = SessionBuilder(T0, zone=ist, jitter=False).labels("a").labels("b", at=T0 + 3_600 * 10**9)
    assert [e.utc_offset_seconds for e in z.entries] == [19_800, 19_800]
    assert z.lines()[0].startswith(b'{"seq":0,"time":"2026-10-18T13:00:00+05:30"')
    f = SessionBuilder(T0, zone=lambda ns: 3600 if ns > T0 else 7200, jitter=False)
    assert [e.utc_offset_seconds for e in f.labels("a").labels("b").entries] == [7200, 3600]


def test_same_calls_same_bytes_and_the_seed_changes_the_ids() -> None:
    one = offsite(SessionBuilder(START, seed="offsite")).to_bytes()
    two = offsite(SessionBuilder(START, seed="offsite")).to_bytes()
    other = offsite(SessionBuilder(START, seed="another"))
    assert one == two
    assert other.to_bytes() != one
    assert [e.type for e in other.entries] == [e.type for e in read_entries(one)]
    assert one.count(b"\n") == 13 and one.endswith(b"}\n")
    # Every line is one entry, as Go writes it: its JSON reads back to the same fields.
    first = orjson.loads(one.split(b"\n")[0])
    assert first == {
        "seq": 0,
        "time": "2026-10-18T09:30:00+02:00",
        "type": "labels",
        "labels": {"labels": ["project:apollo"], "source": "seed"},
    }


def read_entries(data: bytes) -> tuple[Entry, ...]:
    return read_session(BytesIO(data)).entries


class FakeStore:
    """A store as far as the builder cares: a list with ``append``."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def append(self, entry: Entry) -> None:
        self.entries.append(entry)


def test_a_store_gets_each_entry_as_it_is_built() -> None:
    store = FakeStore()
    b = offsite(SessionBuilder(START, seed="offsite", store=store))
    assert store.entries == b.entries
    # A store given later gets what was built, then the rest.
    later = FakeStore()
    c = SessionBuilder(START, seed="offsite")
    c.labels("project:apollo").into(later)
    assert len(later.entries) == 1
    c.run_started("x")
    assert later.entries == c.entries and len(later.entries) == 2
    # A builder that keeps nothing streams into its store only.
    streamed = FakeStore()
    s = offsite(SessionBuilder(START, seed="offsite", store=streamed, keep=False))
    assert streamed.entries == store.entries
    assert s.last == store.entries[-1]
    with pytest.raises(ValueError, match="keep=False"):
        s.to_bytes()


def test_the_session_librarys_stores_take_the_entries(tmp_path: Path) -> None:
    memory = MemoryStore()
    file = FileStore(tmp_path / "session.jsonl")
    b = offsite(SessionBuilder(START, seed="offsite", store=memory).into(file))
    file.close()
    assert memory.load() == b.entries
    assert (tmp_path / "session.jsonl").read_bytes() == b.to_bytes()


def test_write_and_explicit_ids(tmp_path: Path) -> None:
    b = SessionBuilder(START, seed="ids", seq=17)
    call = ToolCall("toolu_01HbqK8y2Vd5pYw3RtNc7LmE", "file_copy", {"path": "a"})
    b.run("copy").anthropic(calls=[call], usage=Usage(1, 1)).allow("copied", call=call.id)
    path = b.run_ended().write(tmp_path / "s.jsonl")
    session = read_session(path)
    # run_started, user, the turn, the call's three entries, run_ended: from seq 17.
    assert [e.seq for e in session.entries] == list(range(17, 24))
    assert session.runs[0].tool_calls[0].call_id == call.id
    assert path.read_bytes() == b.to_bytes()


def test_a_step_without_a_pending_call_is_an_error() -> None:
    b = SessionBuilder(START).run("hi")
    with pytest.raises(ValueError, match="no pending call"):
        b.allow("nothing asked for this")
    with pytest.raises(ValueError, match="no pending call 'toolu_x'"):
        b.tool_result("x", call="toolu_x")
    with pytest.raises(ValueError, match="no started call"):
        b.settle()


class _FailingStore:
    """A store whose appends fail while ``failing`` is set."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.failing = False

    def append(self, entry: Entry) -> None:
        if self.failing:
            raise OSError("disk full")
        self.entries.append(entry)


def test_an_entry_a_store_refuses_is_not_built() -> None:
    store = _FailingStore()
    b = SessionBuilder(START, store=store, jitter=False)
    b.run_started("hi")
    store.failing = True
    with pytest.raises(OSError, match="disk full"):
        b.user("hi", ms=5)
    assert b.seq == 1 and len(b.entries) == 1 and b.now == T0
    store.failing = False
    b.user("hi", ms=5)
    assert [(e.seq, e.time_unix_nano) for e in store.entries] == [(0, T0), (1, T0 + 5 * MS)]
    assert store.entries == b.entries


def test_labels_are_checked_as_agentloop_checks_them() -> None:
    from sessiontools import LabelError

    b = SessionBuilder(START)
    with pytest.raises(LabelError, match="'Private' is not a label"):
        b.labels("Private")
    b.run("hi").anthropic(calls=[("clock", {})], usage=Usage(1, 1))
    with pytest.raises(LabelError):
        b.allow("09:30", labels=["has space"])
    with pytest.raises(LabelError):
        b.allow("09:30", decision_labels=["UPPER"])
    assert b.seq == 3  # run_started, the prompt, the turn: nothing of the refused steps


def test_a_model_carries_over_to_the_next_turn_of_its_provider() -> None:
    b = SessionBuilder(START)
    b.run("hi")
    b.anthropic(HAIKU, usage=Usage(1, 1)).anthropic(usage=Usage(1, 1))
    b.openai("gpt-4.1", usage=Usage(1, 1)).openai(usage=Usage(1, 1))
    models = [e.payload.model for e in b.entries if isinstance(e.payload, MessageEntry)]
    assert models[1:] == [HAIKU, HAIKU, "gpt-4.1", "gpt-4.1"]  # after the user's prompt
    assert SessionBuilder(START).run("x").anthropic().last.payload.model == SONNET  # type: ignore[union-attr]
    assert SessionBuilder(START).run("x").openai().last.payload.model == "gpt-5"  # type: ignore[union-attr]


def test_resume_carries_on_a_session_after_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with FileStore(path) as store:
        first = SessionBuilder(START, store=store, jitter=False)
        first.run("Post it and save it.")
        first.anthropic(HAIKU, calls=[("http_post", {"u": 1}), ("file_write", {"p": "a"})])
        post, write = first.calls
        first.decision("allow", call=post).call_started(call=post)
        first.crash()  # the process dies while http_post runs
    written = path.read_bytes()
    last = first.last
    assert last is not None and last.seq == 4

    with FileStore(path) as store:
        b = SessionBuilder.resume(store, jitter=False)
        assert b.seq == 5 and b.entries == [] and b.now == last.time_unix_nano
        assert b.pending == (post, write)
        b.run("")  # settles http_post, which was started; file_write was never started
        b.allow("saved", call=write)
        b.anthropic(text="Done.", usage=Usage(10, 2))  # haiku again: the model carries over
        b.run_ended()
    assert path.read_bytes().startswith(written)
    with warnings_as_errors():
        session = read_session(path)
    assert [e.seq for e in session.entries] == list(range(len(session.entries)))
    t = last.time_unix_nano
    # run_started 2 ms on, the settled result 1 ms, the decision 1 ms, call_started 0.3 ms,
    # the result 40 ms, the turn 3,200 ms, run_ended 1 ms (the builder's default steps).
    assert [e.time_unix_nano - t for e in session.entries[5:]] == [
        2 * MS,
        3 * MS,
        4 * MS,
        4 * MS + 300_000,
        44 * MS + 300_000,
        3244 * MS + 300_000,
        3245 * MS + 300_000,
    ]
    assert session.pending() == ()
    assert session.call(post.id).result is not None
    assert session.call(post.id).result.content == SETTLED_RESULT  # type: ignore[union-attr]
    assert [r.reason for r in session.runs] == ["crashed", "completed"]
    assert session.runs[1].turns[0].model == HAIKU
    assert session.runs[1].tool_calls[0].resumed


def test_resume_never_repeats_ids_of_the_same_seed() -> None:
    first = SessionBuilder(START, seed="s")
    first.run("a").anthropic(calls=[("t", {})]).allow("r").anthropic(text="ok").run_ended()
    b = SessionBuilder.resume(first.read(), seed="s")
    b.run("b").anthropic(calls=[("t", {})]).allow("r").anthropic(text="ok").run_ended()
    ids = [c.id for e in first.entries + b.entries if isinstance(e.payload, MessageEntry)
           for c in e.payload.message.tool_calls]  # fmt: skip
    assert len(ids) == 2 and len(set(ids)) == 2


def test_resume_an_empty_store_starts_a_session() -> None:
    store = MemoryStore()
    b = SessionBuilder.resume(store, start=START)
    b.run("hi")
    assert [e.seq for e in store.load()] == [0, 1]
    assert store.load()[0].time_unix_nano == T0


def test_two_resumers_cannot_both_write(tmp_path: Path) -> None:
    from sessiontools import StoreLockedError

    path = tmp_path / "s.jsonl"
    SessionBuilder(START).run("hi").anthropic(text="hello", usage=Usage(1, 1)).run_ended().write(
        path
    )
    with FileStore(path) as first:
        a = SessionBuilder.resume(first, seed="a")
        with FileStore(path) as second, pytest.raises(StoreLockedError):
            SessionBuilder.resume(second, seed="b")
        a.run("again").anthropic(text="hello", usage=Usage(1, 1)).run_ended()
    with warnings_as_errors():
        session = read_session(path)
    assert [e.seq for e in session.entries] == list(range(8))


def test_steps_check_their_labels_before_writing_anything() -> None:
    from sessiontools import LabelError

    b = SessionBuilder(START)
    b.run("hi").anthropic(calls=[("t", {}), ("u", {})], usage=Usage(1, 1))
    before = b.seq
    with pytest.raises(LabelError):
        b.forbidden_run("x", ["Private"])
    with pytest.raises(LabelError):
        b.refuse(["Private"])
    with pytest.raises(LabelError):
        b.refused_result(["Private"])
    with pytest.raises(TypeError, match="a list of labels, not the string 'clock'"):
        b.allow("r", labels="clock")
    assert b.seq == before
    b.refuse(["private"]).allow("r", labels=["clock"]).run_ended()
    refused = b.last.payload.refused  # type: ignore[union-attr]
    assert [r.labels for r in refused] == [("private",)]


def test_a_prompt_waits_until_every_pending_call_is_settled() -> None:
    b = SessionBuilder(START, jitter=False)
    b.run("go").anthropic(calls=[("post", {}), ("save", {})], usage=Usage(1, 1))
    post, save = b.calls
    b.decision("allow", call=post).call_started(call=post).crash()
    before = b.seq
    with pytest.raises(ValueError, match=f"calls {save.id} were asked for and never started"):
        b.run("next")
    assert b.seq == before
    b.run().allow("saved", call=save).user("next")  # post settled by run(), save run now
    session = b.read()
    assert session.pending() == () and b.pending == ()
    assert [m.role for m in session.messages()] == ["user", "assistant", "user", "user"]


@pytest.mark.parametrize(
    "step",
    [
        lambda b: b.decision("allow", labels="private"),
        lambda b: b.tool_result("r", labels="private"),
        lambda b: b.deny("no", labels="private"),
        lambda b: b.deny_forbidden("private"),
        lambda b: b.run_ended(forbidden="private"),
    ],
)
def test_every_step_refuses_a_bare_string_for_labels(step: Any) -> None:
    b = SessionBuilder(START).run("hi").anthropic(calls=[("t", {})], usage=Usage(1, 1))
    before = b.seq
    with pytest.raises(TypeError, match="a list of labels, not the string 'private'"):
        step(b)
    assert b.seq == before
