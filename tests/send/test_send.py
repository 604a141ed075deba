"""Sending many sessions to a real OTLP/HTTP receiver on 127.0.0.1 (tests/receiver.py): what
arrives, once; only what is new with a state file; open runs held back; faults."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from sessiontools import FileStore, SessionBuilder, Usage, otlp_json
from sessiontools._send.send import SendReport, send_otlp
from tests.helpers import SESSIONS
from tests.logs import ONE_TOOL
from tests.receiver import Receiver, json_to_request

pytestmark = pytest.mark.filterwarnings("ignore::sessiontools.SessionToolsWarning")

FAST = {"backoff_factor": 0.01, "backoff_jitter": 0.0}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def _spans(requests: list[ExportTraceServiceRequest]) -> list[bytes]:
    """Every span received, serialized (so two equal spans compare equal)."""
    out = []
    for request in requests:
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                out.extend(s.SerializeToString(deterministic=True) for s in ss.spans)
    return out


def _expected(path: Path, conversation_id: str) -> list[bytes]:
    """What the file export of ``path`` holds, span by span."""
    return _spans([json_to_request(otlp_json(path, conversation_id=conversation_id))])


def _send(receiver: Receiver, logs: list[Path] | Path, **kwargs: Any) -> SendReport:
    kwargs.setdefault("env", {})
    kwargs.setdefault("retry", FAST)
    given = [str(p) for p in logs] if isinstance(logs, list) else [str(logs)]
    return send_otlp(given, endpoint=receiver.endpoint, **kwargs)


def _copy_samples(tmp_path: Path, names: list[str]) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in names:
        shutil.copy(SESSIONS / name, logs / name)
    return logs


SAMPLES = [
    "01_one_run_tool.jsonl",
    "02_runs_anthropic_openai_cache.jsonl",
    "03_crash_while_call_runs.jsonl",
    "07_model_errors.jsonl",
    "08_tool_model_calls.jsonl",
]


def test_each_session_arrives_as_its_file_export(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, SAMPLES)
    report = _send(receiver, logs)
    assert report.ok and report.sessions == len(SAMPLES) and report.copies == 0
    want = []
    for name in SAMPLES:
        want += _expected(logs / name, name.removesuffix(".jsonl"))
    got = _spans(receiver.requests())
    assert sorted(got) == sorted(want) and len(got) == len(set(got))
    assert report.spans == len(want) and report.requests == len(receiver.requests()) == 1


def test_conversation_ids_are_paths_relative_to_the_directory(
    receiver: Receiver, tmp_path: Path
) -> None:
    """Cases kept as case-N/session.jsonl never share ids: each is case-N/session."""
    evals = tmp_path / "evals"
    for n in (1, 2):
        (evals / f"case-{n}").mkdir(parents=True)
        shutil.copy(SESSIONS / SAMPLES[n], evals / f"case-{n}" / "session.jsonl")
    _send(receiver, evals)
    want = _expected(evals / "case-1" / "session.jsonl", "case-1/session")
    want += _expected(evals / "case-2" / "session.jsonl", "case-2/session")
    assert sorted(_spans(receiver.requests())) == sorted(want)


def test_copies_are_sent_once_under_the_first_path(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, ["02_runs_anthropic_openai_cache.jsonl"])
    original = (logs / "02_runs_anthropic_openai_cache.jsonl").read_bytes()
    (logs / "00_copy.jsonl").write_bytes(original)  # sorts first: its name is the session's
    lines = original.splitlines(keepends=True)
    (logs / "50_prefix.jsonl").write_bytes(b"".join(lines[: len(lines) // 2]))
    report = _send(receiver, logs)
    assert report.ok and report.sessions == 1 and report.copies == 2
    got = _spans(receiver.requests())
    assert sorted(got) == sorted(_expected(logs / "00_copy.jsonl", "00_copy"))


def _build(path: Path, runs: int, *, end_last: bool = True) -> SessionBuilder:
    with FileStore(path) as store:
        b = SessionBuilder("2026-10-18T09:30:00+02:00", seed=path.name, store=store)
        for i in range(runs):
            b.run(f"task {i}")
            b.anthropic("claude-sonnet-4-5", text="done", usage=Usage(100 + i, 10))
            if end_last or i < runs - 1:
                b.run_ended()
    return b


def test_a_second_pass_sends_only_what_is_new(receiver: Receiver, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    a, b = logs / "a.jsonl", logs / "b.jsonl"
    _build(a, 2)
    _build(b, 1)
    state = tmp_path / "state.db"
    first = _send(receiver, logs, state=state)
    assert first.runs == 3 and first.ok
    again = _send(receiver, logs, state=state)
    assert (again.runs, again.spans, again.requests, again.unchanged) == (0, 0, 0, 2)
    # one more run appended to a: only it is sent
    with FileStore(a) as store:
        more = SessionBuilder.resume(store, seed="a.jsonl")
        more.run("task 2")
        more.anthropic(text="done", usage=Usage(1, 1))
        more.run_ended()
    third = _send(receiver, logs, state=state)
    assert (third.runs, third.unchanged, third.sessions) == (1, 1, 1)
    received = _spans(receiver.requests())
    assert len(received) == len(set(received))
    want = _expected(a, "a") + _expected(b, "b")
    assert sorted(received) == sorted(want)


def test_a_replaced_file_is_sent_again_in_full(receiver: Receiver, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    a = logs / "a.jsonl"
    _build(a, 2)
    state = tmp_path / "state.db"
    _send(receiver, logs, state=state)
    a.unlink()
    _build(a, 2)  # the same runs (the same clock and seed): a new file, a new inode
    report = _send(receiver, logs, state=state)
    # the runs are those acknowledged already, as far: nothing new to send
    assert report.runs == 0 and report.sessions == 1
    other = logs / "a.jsonl"
    other.unlink()
    with FileStore(other) as store:
        b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="another", store=store)
        b.run("another task")
        b.anthropic("claude-sonnet-4-5", text="x", usage=Usage(5, 5))
        b.run_ended()
    report = _send(receiver, logs, state=state)
    assert report.runs == 1


def test_an_open_run_is_held_back_while_its_writer_holds_the_lock(
    receiver: Receiver, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    a = logs / "a.jsonl"
    state = tmp_path / "state.db"
    with FileStore(a) as store:
        b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="a", store=store)
        b.run("first")
        b.anthropic("claude-sonnet-4-5", text="done", usage=Usage(10, 1))
        b.run_ended()
        b.run("second")
        b.anthropic(text="working", usage=Usage(20, 2))
        report = _send(receiver, logs, state=state)  # the writer holds the lock
        assert (report.runs, report.held_back) == (1, 1)
        b.anthropic(text="done", usage=Usage(30, 3))
        b.run_ended()
    report = _send(receiver, logs, state=state)
    assert (report.runs, report.held_back) == (1, 0)
    received = _spans(receiver.requests())
    assert sorted(received) == sorted(_expected(a, "a"))


def test_a_crashed_last_run_is_sent_and_again_when_it_goes_on(
    receiver: Receiver, tmp_path: Path
) -> None:
    """No lock held: a last run without run_ended crashed, and is sent as such. If its writer
    (agentloop's own, which may not lock) goes on, it is sent again with the same ids."""
    logs = tmp_path / "logs"
    logs.mkdir()
    a = logs / "a.jsonl"
    _build(a, 2, end_last=False)
    state = tmp_path / "state.db"
    first = _send(receiver, logs, state=state)
    assert (first.runs, first.held_back) == (2, 0)
    crashed = [s for s in _spans(receiver.requests()) if s in _expected(a, "a")]
    assert len(crashed) == len(_expected(a, "a"))
    assert _send(receiver, logs, state=state).runs == 0  # unchanged
    with FileStore(a) as store:  # the run goes on, and ends
        b = SessionBuilder.resume(store, seed="a.jsonl")
        b.anthropic(text="more", usage=Usage(5, 5))
    # resume's run() would start a new run: append the end by hand through the builder
    report = _send(receiver, logs, state=state)
    assert report.runs == 1  # the run, again, with what it holds now


def test_faults_are_retried_and_everything_arrives_once(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, SAMPLES)
    receiver.fail(503, b"busy", Retry_After="0")
    receiver.fail(429)
    receiver.reset()
    report = _send(receiver, logs, max_request_bytes=8192)
    assert report.ok and report.retries == 3
    acknowledged = _spans(receiver.requests())
    want = []
    for name in SAMPLES:
        want += _expected(logs / name, name.removesuffix(".jsonl"))
    assert sorted(acknowledged) == sorted(want) and len(acknowledged) == len(set(acknowledged))
    assert report.requests == len(receiver.requests()) > 1


def test_a_refused_request_fails_its_sessions_and_the_rest_are_sent(
    receiver: Receiver, tmp_path: Path
) -> None:
    logs = _copy_samples(tmp_path, SAMPLES[:2])
    state = tmp_path / "state.db"
    receiver.fail(400, b"bad request: span too old\nmore")
    report = _send(receiver, logs, state=state, max_request_bytes=2048)
    assert not report.ok and len(report.failures) == 1
    assert "HTTP 400: bad request: span too old" in report.failures[0]
    assert "sessions:" in report.failures[0]
    assert report.requests > 0
    # the next pass sends what failed, and only that
    before = len(_spans(receiver.requests()))
    again = _send(receiver, logs, state=state, max_request_bytes=2048)
    assert again.ok and again.runs >= 1
    received = _spans(receiver.requests())
    want = _expected(logs / SAMPLES[0], SAMPLES[0][:-6]) + _expected(
        logs / SAMPLES[1], SAMPLES[1][:-6]
    )
    assert sorted(received) == sorted(want) and len(received) > before


def test_partial_success_is_a_warning(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, SAMPLES[:1])
    receiver.partial(2, "spans too old")
    report = _send(receiver, logs)
    assert report.ok and report.rejected_spans == 2
    assert any("rejected 2 spans: spans too old" in w for w in report.warnings)


def test_a_damaged_log_is_reported_and_the_others_are_sent(
    receiver: Receiver, tmp_path: Path
) -> None:
    logs = _copy_samples(tmp_path, [SAMPLES[0], "05_damaged_middle_line.jsonl"])
    report = _send(receiver, logs)
    assert not report.ok and len(report.damaged) == 1
    assert "05_damaged_middle_line.jsonl: line" in report.damaged[0]
    assert set(_expected(logs / SAMPLES[0], SAMPLES[0][:-6])) <= set(_spans(receiver.requests()))


def test_requests_stay_under_the_limit(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, SAMPLES)
    report = _send(receiver, logs, max_request_bytes=3000)
    assert report.ok and report.requests > 5
    for got in receiver.received:
        assert len(got.body) <= 3000 or len(_spans([got.request])) == 1  # type: ignore[list-item]


def test_json_protocol(receiver: Receiver, tmp_path: Path) -> None:
    logs = _copy_samples(tmp_path, SAMPLES[:2])
    report = _send(receiver, logs, protocol="http/json", compression="gzip")
    assert report.ok
    assert {r.headers["content-type"] for r in receiver.received} == {"application/json"}
    want = _expected(logs / SAMPLES[0], SAMPLES[0][:-6]) + _expected(
        logs / SAMPLES[1], SAMPLES[1][:-6]
    )
    assert sorted(_spans(receiver.requests())) == sorted(want)


def _run_command(args: list[str]) -> Any:
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "sessiontools", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_killed_at_any_moment_a_rerun_sends_the_rest_and_only_the_request_in_flight_again(
    tmp_path: Path,
) -> None:
    """kill -9 at random moments of a send with --state; then a rerun. Over both, every span
    arrives; a span arrives twice only in the one request in flight when it was killed."""
    import random
    import signal
    import time

    logs = _copy_samples(tmp_path, SAMPLES)
    want = []
    for name in SAMPLES:
        want += _expected(logs / name, name.removesuffix(".jsonl"))
    rng = random.Random(7)
    for trial in range(4):
        state = tmp_path / f"state-{trial}.db"
        with Receiver(delay=0.05) as receiver:
            args = ["otel", str(logs), "--endpoint", receiver.endpoint, "--state", str(state)]
            args += ["--max-request-bytes", "2048"]
            proc = _run_command(args)
            time.sleep(rng.uniform(0.3, 1.5))
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            first = [r for r in receiver.received if r.request is not None]
            rerun = _run_command(args)
            _, err = rerun.communicate(timeout=120)
            assert rerun.returncode == 0, err.decode()
            everything = _spans([r.request for r in receiver.received if r.request is not None])
            assert set(everything) == set(want)
            twice = {s for s in everything if everything.count(s) > 1}
            # the duplicates are the spans of one request of the killed run (in flight)
            holders = [r for r in first if twice & set(_spans([r.request]))]  # type: ignore[list-item]
            assert len(holders) <= 1, (trial, len(holders))
            if holders:
                assert twice <= set(_spans([holders[0].request]))  # type: ignore[list-item]


def test_follow_sends_each_run_once_within_a_second_of_its_end(tmp_path: Path) -> None:
    """A writer (the session library's FileStore) appends runs, then starts a second session;
    --follow sends each ended run once, within a second of its end; Ctrl-C stops it (130)."""
    import signal
    import time

    from sessiontools import read_session, run_span_id

    logs = tmp_path / "logs"
    logs.mkdir()
    ended: dict[tuple[str, int], float] = {}  # (session, run index) -> when it ended
    with Receiver() as receiver:
        proc = _run_command(["otel", str(logs), "--endpoint", receiver.endpoint, "--follow"])
        try:
            time.sleep(0.5)
            for name, runs in (("a", 3), ("b", 2)):
                with FileStore(logs / f"{name}.jsonl") as store:
                    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed=name, store=store)
                    for i in range(runs):
                        b.run(f"{name}: task {i}")  # one clock: prompts tell runs apart
                        b.anthropic("claude-sonnet-4-5", text="done", usage=Usage(10, 1))
                        time.sleep(0.3)  # the run is open, its writer holds the lock
                        b.run_ended()
                        ended[(name, i)] = time.monotonic()
                        time.sleep(0.2)
            want = {n: _expected(logs / f"{n}.jsonl", n) for n in ("a", "b")}
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if all(set(w) <= set(_spans(receiver.requests())) for w in want.values()):
                    break
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        got = _spans(receiver.requests())
        for name, spans in want.items():
            assert set(spans) <= set(got), name
        assert len(got) == len(set(got)), "a span was sent twice"
        # each run's invoke_agent span arrived within a second of the run's end
        for (name, i), at in ended.items():
            run = read_session(logs / f"{name}.jsonl").runs[i]
            ident = run_span_id(name, run.start_seq)
            arrivals = [
                r.at
                for r in receiver.received
                if r.request is not None
                and ident in {s.span_id for rs in r.request.resource_spans
                              for ss in rs.scope_spans for s in ss.spans}
            ]  # fmt: skip
            assert len(arrivals) == 1, (name, i, len(arrivals))
            assert arrivals[0] - at < 1.0, (name, i, arrivals[0] - at)
    assert proc.returncode == 130, err.decode()
    assert err.decode().strip().endswith("sessiontools: interrupted"), err.decode()


def test_a_foreign_database_is_not_taken_as_a_state_file(
    receiver: Receiver, tmp_path: Path
) -> None:
    import sqlite3

    from sessiontools import StateError

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    before = other.read_bytes()
    logs = _copy_samples(tmp_path, SAMPLES[:1])
    with pytest.raises(StateError, match="not a sessiontools state file"):
        _send(receiver, logs, state=other)
    assert other.read_bytes() == before and receiver.received == []


def test_one_run_at_a_time_holds_a_state_file(receiver: Receiver, tmp_path: Path) -> None:
    from sessiontools import StateError
    from sessiontools._send.state import SendState

    state = tmp_path / "state.db"
    logs = _copy_samples(tmp_path, SAMPLES[:1])
    _send(receiver, logs, state=state)  # made, for this endpoint
    from sessiontools._send.config import resolve_config
    from sessiontools._send.send import _Options

    key = _Options(None, None, "agentloop", None, False, None).key(
        resolve_config(endpoint=receiver.endpoint, env={})
    )
    held = pytest.raises(StateError, match="another sessiontools run is using")
    with SendState(str(state), key), held:  # another run holds it
        _send(receiver, logs, state=state)


def test_an_endpoint_that_never_answers_is_not_tried_again(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    logs = _copy_samples(tmp_path, SAMPLES)
    retry = {"retry_budget_seconds": 0.5, "backoff_factor": 0.05, "backoff_jitter": 0.0}
    report = send_otlp(
        [str(logs)],
        endpoint=f"http://127.0.0.1:{port}/v1/traces",
        env={},
        retry=retry,
        max_request_bytes=2048,
    )
    assert not report.ok and report.requests == 0
    assert "cannot connect" in report.failures[0]
    assert all("not sent (the endpoint was not reached" in f for f in report.failures[1:])
    assert len(report.failures) > 1


def test_warnings_are_in_the_report_once_and_not_given_twice(
    receiver: Receiver, tmp_path: Path
) -> None:
    import warnings

    logs = _copy_samples(tmp_path, ["04_torn_tail.jsonl", SAMPLES[0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _send(receiver, logs)
    torn = [w for w in report.warnings if "not complete JSON" in w]
    assert len(torn) == 1
    assert not [w for w in caught if "not complete JSON" in str(w.message)]


def test_export_sessions_reports_the_spans_and_bytes_it_wrote(tmp_path: Path) -> None:
    """``export_sessions`` counted no spans and no bytes (``spans=0``): its report now says what
    the exports hold, counted here by parsing each export written."""
    import io as _io

    import orjson

    import sessiontools

    out = _io.BytesIO()
    report = sessiontools.export_sessions([str(SESSIONS)], write=out.write)
    data = out.getvalue()
    spans = 0
    for line in data.splitlines():
        doc = orjson.loads(line)
        for resource in doc["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                spans += len(scope.get("spans", []))
    assert spans > 50
    assert report.spans == spans
    assert report.bytes == len(data)

    # a key cut between two blocks of the count is counted once
    from sessiontools._send.send import _count_spans

    class Blocks(_io.BytesIO):
        size = 1

        def read(self, n: int | None = -1) -> bytes:
            return super().read(self.size)

    text = b'{"spanId":"a"}' * 3
    for size in range(1, len(text)):
        blocks = Blocks(text)
        blocks.size = size
        assert _count_spans(blocks) == 3


@pytest.mark.parametrize("number", [2, 15])
def test_a_stopped_send_sums_up_then_says_it_stopped_last(
    number: int, receiver: Receiver, tmp_path: Path
) -> None:
    """Ctrl-C or SIGTERM while ``--follow`` sends: the summary of what was sent, then the
    one line saying the command stopped, last (SIGTERM's came first, before the summary)."""
    import time

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "s.jsonl").write_bytes(ONE_TOOL)
    proc = _run_command(["otel", str(logs), "--endpoint", receiver.endpoint, "--follow"])
    try:
        deadline = time.monotonic() + 30
        while not receiver.requests() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.requests(), "nothing was sent"
    finally:
        proc.send_signal(number)
        _, err = proc.communicate(timeout=30)
    lines = err.decode().splitlines()
    assert proc.returncode == 128 + number, err.decode()
    word = {2: "interrupted", 15: "terminated"}[number]
    assert lines[-1] == f"sessiontools: {word}", lines
    assert lines[-2].startswith("sessiontools otel: 1 session read"), lines
    assert "4 spans sent" in lines[-2] and sum(word in line for line in lines) == 1, lines


def test_a_signal_ignored_when_the_command_started_stays_ignored(
    receiver: Receiver, tmp_path: Path
) -> None:
    """Started with Ctrl-C ignored (a script's background job, ``nohup``-like wrappers), the
    command lets Ctrl-C pass, as Python does, and still stops on SIGTERM; a trial's harness
    lost a ``--follow`` this way the other way round (the command took a Ctrl-C meant for
    others)."""
    import signal
    import subprocess
    import sys
    import time

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "s.jsonl").write_bytes(ONE_TOOL)
    proc = subprocess.Popen(
        [sys.executable, "-m", "sessiontools", "otel", str(logs), "--endpoint",
         receiver.endpoint, "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not receiver.requests() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.requests(), "nothing was sent"
        proc.send_signal(signal.SIGINT)
        time.sleep(1.0)
        assert proc.poll() is None, "Ctrl-C stopped a command started with it ignored"
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err.decode()
    assert err.decode().splitlines()[-1] == "sessiontools: terminated"


def test_follows_summary_counts_the_last_looks_copies_and_unchanged_logs(
    receiver: Receiver, tmp_path: Path
) -> None:
    """Three logs, one a copy of another, followed for a second (four looks): the summary said
    "(9 copies, 38 unchanged)", summed over the looks; now the last look's (each of the three
    logs is one or the other once its runs are sent)."""
    import re
    import signal
    import time

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.jsonl").write_bytes(ONE_TOOL)
    (logs / "b.jsonl").write_bytes(ONE_TOOL)  # a copy of a
    shutil.copy(SESSIONS / "02_runs_anthropic_openai_cache.jsonl", logs / "c.jsonl")
    proc = _run_command(["otel", str(logs), "--endpoint", receiver.endpoint, "--follow"])
    try:
        deadline = time.monotonic() + 30
        while len(receiver.requests()) < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # several looks
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143, err.decode()
    summary = err.decode().splitlines()[-2]
    found = re.search(r"(\d+) sessions? read \((\d+) cop(?:y|ies), (\d+) unchanged\)", summary)
    assert found, summary
    sessions, copies, unchanged = map(int, found.groups())
    assert sessions == 2 and copies <= 1 and unchanged <= 3, summary


def test_a_send_stopped_before_it_read_anything_says_so(tmp_path: Path) -> None:
    """SIGTERM before the first log was read gave the one line and no summary (4 times in 11 in
    a trial); the summary of nothing sent now comes first, as after any stopped send. The log
    is a FIFO: the command waits in its read until the signal comes (it has opened it: so it
    is loaded and its handlers are in place)."""
    import errno
    import signal
    import time

    log = tmp_path / "a.jsonl"
    os.mkfifo(log)
    proc = _run_command(["otel", str(log), "--endpoint", "http://127.0.0.1:9/v1/traces"])
    writer = None
    try:
        deadline = time.monotonic() + 60
        while writer is None:
            try:
                writer = os.open(log, os.O_WRONLY | os.O_NONBLOCK)  # once the command reads
            except OSError as e:
                assert e.errno == errno.ENXIO and time.monotonic() < deadline, e
                time.sleep(0.02)
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if writer is not None:
            os.close(writer)
        proc.kill()
    lines = err.decode().splitlines()
    assert proc.returncode == 143, err.decode()
    assert lines == [
        "sessiontools otel: 0 sessions read (0 copies, 0 unchanged); 0 runs and 0 spans sent in "
        "0 requests (0 bytes on the wire); 0 retries, 0 failed requests, 0 rejected spans, 0 "
        "damaged logs, 0 open runs held back",
        "sessiontools: terminated",
    ]


def test_a_send_stopped_while_a_retry_waits_counts_the_retries_made(tmp_path: Path) -> None:
    """Ctrl-C while a request waits to be sent again (the endpoint answered 503 and asked for
    a wait): the summary counts the retries made so far (a trial's said "0 retries" after
    three attempts), then the one line."""
    import re
    import signal
    import time

    log = tmp_path / "a.jsonl"
    log.write_bytes(ONE_TOOL)
    with Receiver() as receiver:
        for _ in range(10):
            receiver.fail(503, b"busy", Retry_After="1")
        proc = _run_command(["otel", str(log), "--endpoint", receiver.endpoint])
        try:
            deadline = time.monotonic() + 60
            while len(receiver.received) < 3:  # the first request and two retries
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.02)
            time.sleep(0.2)  # the third attempt's answer is in; the next wait has begun
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
    lines = err.decode().splitlines()
    assert proc.returncode == 130, err.decode()
    assert lines[-1] == "sessiontools: interrupted"
    found = re.search(r"0 requests \(0 bytes on the wire\); (\d+) retries", lines[-2])
    assert found, lines
    assert int(found.group(1)) == len(receiver.received) == 3, lines
