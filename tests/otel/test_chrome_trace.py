"""`sessiontools otel --format chrome-trace`: the same spans as the OTLP export, in the Trace
Event Format, nested as the format needs."""

from __future__ import annotations

import io
import random
import warnings
from collections import defaultdict
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from sessiontools import (
    LogError,
    SessionBuilder,
    Usage,
    chrome_trace,
    encode_chrome_trace,
    otlp_json,
)
from sessiontools._cli.main import cli
from tests.helpers import SESSIONS
from tests.parallel.splitting import cut_where
from tests.parallel.test_split_edges import random_log

LOGS = sorted(p for p in SESSIONS.glob("*.jsonl") if p.name != "05_damaged_middle_line.jsonl")
PARENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
PARENT_SPAN = "b7ad6b7169203331"


def quietly(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def load(data: bytes) -> dict[str, Any]:
    import json

    assert data.endswith(b"}\n") and data.count(b"\n") == 1
    loaded: dict[str, Any] = json.loads(data, parse_float=Decimal)  # exact ts and dur
    return loaded


def otlp_spans(data: bytes) -> dict[str, dict[str, Any]]:
    export = orjson.loads(data)
    return {
        span["spanId"]: span
        for resource in export["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope.get("spans", [])
    }


def value(v: dict[str, Any]) -> Any:
    if "stringValue" in v:
        return v["stringValue"]
    if "intValue" in v:
        return int(v["intValue"])
    if "boolValue" in v:
        return v["boolValue"]
    return [x["stringValue"] for x in v["arrayValue"].get("values", [])]


def check_nesting(events: list[dict[str, Any]]) -> None:
    """Complete events of each thread nest: each starts after the one enclosing it starts and
    ends no later; or it starts once that one has ended."""
    threads: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            threads[(e["pid"], e["tid"])].append(e)
    for thread in threads.values():
        stack: list[tuple[Decimal, Decimal]] = []
        for e in sorted(thread, key=lambda e: (e["ts"], -e["dur"])):
            start, end = Decimal(e["ts"]), Decimal(e["ts"]) + Decimal(e["dur"])
            while stack and stack[-1][1] <= start:
                stack.pop()
            assert not stack or end <= stack[-1][1], (e["name"], stack[-1], (start, end))
            stack.append((start, end))


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
@pytest.mark.parametrize("parent", [False, True], ids=["root", "under-a-parent"])
def test_every_span_once_with_its_ids_times_and_attributes(log: Path, parent: bool) -> None:
    options: dict[str, Any] = {}
    if parent:
        options = {
            "parent_trace_id": bytes.fromhex(PARENT_TRACE),
            "parent_span_id": bytes.fromhex(PARENT_SPAN),
        }
    trace = load(quietly(chrome_trace, log, **options))
    spans = otlp_spans(quietly(otlp_json, log, **options))
    events = trace["traceEvents"]
    complete = [e for e in events if e["ph"] == "X"]
    assert sorted(e["args"]["span_id"] for e in complete) == sorted(spans)
    origin = int(trace["otherData"]["time_origin_unix_nano"])
    for e in complete:
        span = spans[e["args"]["span_id"]]
        assert e["name"] == span["name"]
        assert e["cat"] == value(span["attributes"][0]["value"])
        start = origin + int(Decimal(e["ts"]) * 1000)
        assert start == int(span["startTimeUnixNano"])
        assert int(Decimal(e["dur"]) * 1000) == int(span["endTimeUnixNano"]) - start
        args = dict(e["args"])
        assert args.pop("trace_id") == span["traceId"]
        args.pop("span_id")
        assert args.pop("parent_span_id", "") == span.get("parentSpanId", "")
        status = span.get("status")
        if status:
            message = status.get("message", "")
            assert args.pop("status") == "ERROR" + (f": {message}" if message else "")
        assert list(args.items()) == [(a["key"], value(a["value"])) for a in span["attributes"]]
    if spans:
        assert origin == min(int(s["startTimeUnixNano"]) for s in spans.values())
    check_nesting(events)
    # one process, named after the conversation; a thread for each run, named
    meta = [e for e in events if e["ph"] == "M"]
    assert {e["pid"] for e in events} <= {1}
    names = [e["args"]["name"] for e in meta if e["name"] == "thread_name"]
    runs = sum(1 for s in spans.values() if s["name"].startswith("invoke_agent"))
    assert [n for n in names if "overlap" not in n] == [f"run {i}" for i in range(runs)]
    assert [e["args"]["name"] for e in meta if e["name"] == "process_name"] == [log.stem]


def test_tools_run_at_the_same_time_go_on_a_thread_of_their_own(tmp_path: Path) -> None:
    """Two calls started together: the second overlaps the first without nesting in it, so it
    is drawn on `run 0 (overlap 1)`; the model call the second tool made nests under it."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="parallel", jitter=False)
    b.run("both")
    b.anthropic("claude-sonnet-4-5", text="", calls=[("a", {}), ("b", {})], usage=Usage(10, 5))
    first, second = b.calls
    b.decision("allow", call=first).call_started(call=first)
    b.decision("allow", call=second).call_started(call=second)
    b.tool_result("A", call=first)
    b.tool_result("B", call=second, usage=[("claude-haiku-4-5", Usage(3, 1))])
    b.anthropic(text="done", usage=Usage(20, 5))
    b.run_ended()
    log = tmp_path / "parallel.jsonl"
    log.write_bytes(b.to_bytes())
    trace = load(chrome_trace(log))
    events = trace["traceEvents"]
    check_nesting(events)
    threads = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert sorted(threads.values()) == ["run 0", "run 0 (overlap 1)"]
    where = {e["name"]: threads[e["tid"]] for e in events if e["ph"] == "X"}
    assert where["execute_tool a"] == "run 0"
    assert where["execute_tool b"] == "run 0 (overlap 1)"
    assert where["chat claude-haiku-4-5"] == "run 0 (overlap 1)"


def test_sessions_are_processes_and_the_same_spans_give_the_same_bytes() -> None:
    from sessiontools import LogReader, iter_runs, trace_spans

    def spans(log: Path) -> list[Any]:
        return list(trace_spans(quietly(list, iter_runs(LogReader(log))), conversation_id=log.stem))

    a, b = SESSIONS / "01_one_run_tool.jsonl", SESSIONS / "03_crash_while_call_runs.jsonl"
    data = encode_chrome_trace([("one", spans(a)), ("two", spans(b))])
    assert data == encode_chrome_trace([("one", spans(a)), ("two", spans(b))])
    events = load(data)["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert names == {1: "one", 2: "two"}
    empty = load(encode_chrome_trace([]))
    assert empty["traceEvents"] == []
    assert empty["otherData"]["time_origin_unix_nano"] == "0"


def test_the_command_writes_what_the_library_gives(tmp_path: Path) -> None:
    log = SESSIONS / "08_tool_model_calls.jsonl"
    result = CliRunner().invoke(cli, ["otel", str(log), "--format", "chrome-trace"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == chrome_trace(log)
    out = tmp_path / "trace.json"
    flags = ["--format", "chrome-trace", "--out", str(out), "--conversation-id", "c-1"]
    result = CliRunner().invoke(cli, ["otel", str(log), *flags])
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == chrome_trace(log, conversation_id="c-1")
    bad = CliRunner().invoke(cli, ["otel", str(log), "--format", "svg"])
    assert bad.exit_code == 2
    assert len(bad.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ["{a}", "{b}"],
        ["{dir}"],
        ["{dir}/*.jsonl"],
        ["{a}", "--send"],
        ["{a}", "--endpoint", "http://127.0.0.1:9/v1/traces"],
    ],
    ids=["two-logs", "directory", "glob", "send", "endpoint"],
)
def test_chrome_trace_takes_one_log_and_writes_it(tmp_path: Path, args: list[str]) -> None:
    """Several logs, or sending: refused in one line that says what the format takes, and
    nothing is read, written or sent."""
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes((SESSIONS / "01_one_run_tool.jsonl").read_bytes())
    b.write_bytes((SESSIONS / "08_tool_model_calls.jsonl").read_bytes())
    filled = [arg.format(a=a, b=b, dir=tmp_path) for arg in args]
    result = CliRunner().invoke(cli, ["otel", *filled, "--format", "chrome-trace"])
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "sessiontools otel: error: --format chrome-trace takes one log and writes it "
        "(not with several logs, --send or --endpoint)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl"]


def test_a_damaged_log_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    log = SESSIONS / "05_damaged_middle_line.jsonl"
    result = CliRunner().invoke(
        cli, ["otel", str(log), "--format", "chrome-trace", "--out", str(out)]
    )
    assert result.exit_code == 1
    assert "line 17 (byte 5294)" in result.stderr
    assert not out.exists()


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
@example(seed=13447)
def test_random_logs_every_span_once_and_nested(seed: int) -> None:
    """test_split_edges' random logs (crashes, repeated seq and call ids, entries outside runs):
    every exported span is one complete event, and each thread's events nest."""
    data = random_log(random.Random(seed))
    try:
        spans = quietly(otlp_json, io.BytesIO(data), conversation_id="r")
    except LogError:
        assume(False)
    trace = load(quietly(chrome_trace, io.BytesIO(data), conversation_id="r"))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    exported = [s["spanId"] for s in _all_spans(spans)]
    assert sorted(e["args"]["span_id"] for e in complete) == sorted(exported)
    check_nesting(trace["traceEvents"])


def _all_spans(data: bytes) -> list[dict[str, Any]]:
    export = orjson.loads(data)
    return [
        span
        for resource in export["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope.get("spans", [])
    ]


def _statuses(trace: bytes) -> list[str]:
    return [
        e["args"]["status"]
        for e in load(trace)["traceEvents"]
        if e["ph"] == "X" and "status" in e["args"]
    ]


@pytest.mark.parametrize("opted", [False, True], ids=["kind-only", "error-messages"])
def test_the_command_passes_error_messages_on(opted: bool) -> None:
    """`otel --format chrome-trace --error-messages`: the status messages are the OTLP
    export's with the same flag (the providers' messages only when asked for)."""
    log = SESSIONS / "07_model_errors.jsonl"
    flags = ["--error-messages"] if opted else []
    result = CliRunner().invoke(cli, ["otel", str(log), "--format", "chrome-trace", *flags])
    assert result.exit_code == 0, result.stderr
    statuses = _statuses(result.stdout_bytes)
    export = CliRunner().invoke(cli, ["otel", str(log), *flags])
    want = [
        "ERROR" + (f": {s['status']['message']}" if s["status"].get("message") else "")
        for s in otlp_spans(export.stdout_bytes).values()
        if s.get("status", {}).get("code") == 2
    ]
    assert sorted(statuses) == sorted(want) and statuses
    plain = _statuses(quietly(chrome_trace, log))
    assert (statuses != plain) == opted
    assert statuses == _statuses(quietly(chrome_trace, log, error_messages=opted))


def test_the_command_passes_max_line_bytes_on(tmp_path: Path) -> None:
    """A line longer than --max-line-bytes is an error, as in the OTLP export, and nothing is
    written."""
    log = SESSIONS / "01_one_run_tool.jsonl"
    longest = max(len(line) for line in log.read_bytes().splitlines())
    out = tmp_path / "trace.json"
    args = ["otel", str(log), "--format", "chrome-trace", "--out", str(out)]
    result = CliRunner().invoke(cli, [*args, "--max-line-bytes", str(longest - 1)])
    export = CliRunner().invoke(cli, ["otel", str(log), "--max-line-bytes", str(longest - 1)])
    assert result.exit_code == export.exit_code == 1
    assert result.stderr == export.stderr and "longer than" in result.stderr
    assert not out.exists()
    result = CliRunner().invoke(cli, [*args, "--max-line-bytes", str(longest)])
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == chrome_trace(log)


def test_a_negative_count_is_the_exports_error(tmp_path: Path) -> None:
    """The log is read as the export reads it: what it cannot hold is an error naming the
    line (not a ValueError from the spans)."""
    data = (SESSIONS / "01_one_run_tool.jsonl").read_bytes()
    bad = data.replace(
        b'"usage":{"input_tokens":612,"output_tokens":41}',
        b'"usage":{"input_tokens":612,"output_tokens":-41}',
        1,
    )
    assert bad != data
    log = tmp_path / "negative.jsonl"
    log.write_bytes(bad)
    result = CliRunner().invoke(cli, ["otel", str(log), "--format", "chrome-trace"])
    export = CliRunner().invoke(cli, ["otel", str(log)])
    assert result.exit_code == export.exit_code == 1
    assert result.stderr == export.stderr and "negative" in result.stderr


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.stem)
def test_read_in_two_gives_the_same_bytes(
    log: Path, cut_at: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut at every run (the child's work run in this process): the same bytes as one read,
    the session's labels on every run as one read has them."""
    whole = quietly(chrome_trace, log)
    data = log.read_bytes()
    starts = [i for i in range(len(data)) if data.startswith(b'{"seq"', i) and b'"run_started"'
              in data[i : data.find(b"\n", i)]]  # fmt: skip
    ways = cut_at.ways
    where = {"cut": 0}
    monkeypatch.setattr("sessiontools._parallel.cut.find_cut", lambda p, s: where["cut"])
    for cut in starts[1:]:
        where["cut"] = cut
        assert quietly(chrome_trace, log, workers=2) == whole, cut
    if log.stem in ("02_runs_anthropic_openai_cache", "13_labels_and_pins"):
        assert "child" in ways, ways


def test_read_in_two_forked(monkeypatch: pytest.MonkeyPatch, split_ways: list[str]) -> None:
    """A forked child: its spans come back through its file, labels made the session's."""
    log = SESSIONS / "13_labels_and_pins.jsonl"
    data = log.read_bytes()
    cut = data.index(b'"run_started"', data.index(b'"run_ended"'))
    cut = data.rindex(b"\n", 0, cut) + 1
    cut_where(monkeypatch, lambda path: cut)
    assert quietly(chrome_trace, log, workers=None) == quietly(chrome_trace, log)
    assert split_ways == ["child"]
