"""What the exports can hold (sessiontools._log.limits), one rule for both exporters.

- Integers outside signed 64 bits (seq, token counts, turns, wait_ms, status) are refused by
  every read, as agentloop's Go reader refuses them (issue 10, item 22).
- A negative token count (item 6), a time before 1970 or after 2262-04-11 (item 8), a negative
  wait, and the token counts of a run adding up past 2^63-1 (item 22) are an error in the log
  for both exporters, `sessiontools otel` and `sessiontools cost` / `read_costs`: one line
  naming the file, line and byte; the session library still reads them, as Go does.
- A sum across runs or logs in the cost tables never wraps: it is refused when it would.

Each case goes through both commands (click's runner) and the library.
"""

from __future__ import annotations

import contextlib
import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pandas as pd
import pytest
from click.testing import CliRunner, Result

from sessiontools import (
    EntryError,
    FileStore,
    LogReader,
    OutOfRangeError,
    Prices,
    Span,
    UsageConventionError,
    encode_otlp_json,
    otlp_json,
    read_costs,
    read_session,
    trace_spans,
)
from sessiontools._cli.main import cli
from sessiontools._parallel import split as _split
from tests.helpers import assistant, line, outcome, result, t, usage, user
from tests.otlp import spans, to_proto
from tests.parallel.splitting import cost_outcome, export, line_starts

INT64_MAX = 2**63 - 1
PRICES = {"claude-sonnet-4-5": Prices(3.0, 15.0, 0.3, 3.75)}


def invoke(*args: str) -> Result:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CliRunner().invoke(cli, list(args))


def one_line(result: Result) -> str:
    assert "Traceback" not in result.output
    lines = [ln for ln in result.stderr.splitlines() if ": error: " in ln]
    assert len(lines) == 1, result.stderr
    return lines[0]


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def start_of(data: bytes, n: int) -> int:
    """The byte offset of line ``n`` (1-based)."""
    return line_starts(data)[n - 1]


def refused_by_both(path: Path, line_no: int, fragment: str) -> str:
    """Both commands and both library exporters refuse the log at ``line_no`` with one line
    holding ``fragment``; returns the problem as otel says it."""
    data = path.read_bytes()
    where = f"{path}: line {line_no} (byte {start_of(data, line_no)}): "
    otel = invoke("otel", str(path))
    assert otel.exit_code == 1 and otel.stdout_bytes == b""
    said = one_line(otel)
    assert said.startswith(f"sessiontools otel: error: {where}") and fragment in said, said
    problem = said.removeprefix(f"sessiontools otel: error: {where}")
    cost = invoke("cost", str(path), "--format", "json")
    assert cost.exit_code == 1
    said_cost = one_line(cost)
    assert said_cost == f"sessiontools cost: error: {where}{problem}; skipped", said_cost
    assert orjson.loads(cost.stdout)["groups"] == []
    for call in (
        lambda: otlp_json(path),
        lambda: read_costs(path, prices=PRICES),
    ):
        with pytest.raises(EntryError) as raised, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
        assert (raised.value.line, raised.value.offset) == (line_no, start_of(data, line_no))
        assert str(raised.value) == where + problem
    skipped = read_costs(path, prices=PRICES, skip_damaged=True).skipped
    assert [s.problem for s in skipped] == [where + problem]
    return problem


def run_log(*middle: bytes, first_seq: int = 0, ended: bool = True) -> bytes:
    """A run: run_started, a user message, ``middle``, a run_ended (unless not ``ended``)."""
    body = line(first_seq, "run_started", {"prompt": "p"}) + line(
        first_seq + 1, "message", user("p")
    )
    body += b"".join(middle)
    if ended:
        body += line(first_seq + 9, "run_ended", outcome(turns=1, u=usage(1, 1)))
    return body


def turn(seq: int, u: dict[str, int]) -> bytes:
    return line(seq, "message", assistant(text="a", u=u))


# Integers beyond signed 64 bits: every read refuses them (Go does).

BIG_PLACES = {
    "seq": lambda v: line(v, "labels", {"labels": ["a"]}),
    "message.usage.input_tokens": lambda v: turn(2, {"input_tokens": v, "output_tokens": 1}),
    "tool_result.usage.usage.output_tokens": lambda v: line(
        2,
        "tool_result",
        {**result("c1"), "usage": [{"model": "m", "usage": {"output_tokens": v}}]},
    ),
    "run_ended.turns": lambda v: line(2, "run_ended", {"reason": "completed", "turns": v}),
    "model_error.wait_ms": lambda v: line(
        2, "model_error", {"error": {"kind": "overloaded"}, "retry": True, "wait_ms": v}
    ),
    "model_error.error.status": lambda v: line(
        2, "model_error", {"error": {"kind": "overloaded", "status": v}}
    ),
    "run_ended.usage.cache_read_tokens": lambda v: line(
        2, "run_ended", {"reason": "completed", "usage": {"cache_read_tokens": v}}
    ),
}


@pytest.mark.parametrize("value", [2**63, 2**64 - 1])
@pytest.mark.parametrize("place", sorted(BIG_PLACES))
def test_an_integer_beyond_64_bits_is_an_entry_error_everywhere(
    tmp_path: Path, place: str, value: int
) -> None:
    data = line(0, "run_started", {"prompt": "p"}) + BIG_PLACES[place](value)
    if place != "seq":
        data += line(3, "labels", {"labels": ["b"]})
    path = write(tmp_path, "big.jsonl", data)
    problem = refused_by_both(path, 2, f"is {value}, outside a signed 64-bit integer")
    assert "agentloop's own reader refuses" in problem
    # the session library too: Go's reader refuses such a line
    for read in (
        lambda: read_session(path),
        lambda: FileStore(path).load(),
        lambda: list(LogReader(path, exact=True)),
    ):
        with pytest.raises(EntryError, match=f"line 2 .*is {value}, outside"):
            read()


@pytest.mark.parametrize("value", [-(2**63) - 1, 2**70, -(2**70)])
def test_odd_bytes_do_not_let_a_bigger_integer_through(tmp_path: Path, value: int) -> None:
    """A line orjson refuses (an invalid byte) is read again with Python's json, which reads
    integers of any size; orjson reads past 2^64 as a float, refused as not an integer."""
    bad = turn(2, {"input_tokens": 123456789}).replace(b"123456789", str(value).encode())
    bad = bad.replace(b'"text":"a"', b'"text":"a\xff"')
    path = write(tmp_path, "odd.jsonl", run_log(bad))
    refused_by_both(path, 3, f"message.usage.input_tokens is {value}, outside")


def test_the_edges_of_64_bits_are_read(tmp_path: Path) -> None:
    data = (
        line(INT64_MAX - 9, "run_started", {"prompt": "p"}, time=t(0))
        + line(
            INT64_MAX - 8,
            "model_error",
            {"error": {"kind": "overloaded", "status": -(2**63)}, "retry": False},
            time=t(1),
        )
        + line(INT64_MAX, "run_ended", {"reason": "completed", "turns": INT64_MAX}, time=t(2))
    )
    path = write(tmp_path, "edges.jsonl", data)
    (run,) = read_session(path).runs
    assert (run.end_seq, run.turn_count, run.failed_calls[0].error.status) == (
        INT64_MAX,
        INT64_MAX,
        -(2**63),
    )
    out = invoke("otel", str(path))
    assert out.exit_code == 0, out.stderr
    agent, failed = spans(out.stdout_bytes)
    assert agent.attributes["agentloop.run.turns"] == INT64_MAX
    assert failed.attributes["http.response.status_code"] == -(2**63)
    to_proto(out.stdout_bytes)  # the protobuf classes take them


# Negative token counts (costs.md: an error in the log, reported, never clamped).


def test_negative_input_with_cache_reads_is_not_exported_as_500(tmp_path: Path) -> None:
    """The issue's case: input -500 with cache_read 1000 was exported as input_tokens 500."""
    u = {"input_tokens": -500, "output_tokens": 20, "cache_read_tokens": 1000}
    path = write(tmp_path, "neg.jsonl", run_log(turn(2, u)))
    problem = refused_by_both(path, 3, "message.usage.input_tokens is -500")
    assert "a token count cannot be negative" in problem


def test_negative_count_in_a_tools_model_call(tmp_path: Path) -> None:
    """The issue's case: output_tokens -412 in a tool's model call was exported as "-412"."""
    calls = line(2, "message", assistant(("c1", "summarize")))
    settled = line(
        3,
        "tool_result",
        {
            **result("c1"),
            "usage": [
                {"model": "claude-haiku-4-5", "usage": usage(10, 2)},
                {"model": "claude-haiku-4-5", "usage": {"input_tokens": 5, "output_tokens": -412}},
            ],
        },
    )
    path = write(tmp_path, "tool.jsonl", run_log(calls, settled))
    refused_by_both(path, 4, "tool_result.usage[1].usage.output_tokens is -412")


def test_negative_count_in_a_runs_outcome(tmp_path: Path) -> None:
    data = run_log(turn(2, usage(5, 1)), ended=False) + line(
        3, "run_ended", outcome(turns=1, u={"input_tokens": 5, "output_tokens": -1})
    )
    path = write(tmp_path, "outcome.jsonl", data)
    refused_by_both(path, 4, "run_ended.usage.output_tokens is -1")


def test_a_negative_wait(tmp_path: Path) -> None:
    """A retried call starts wait_ms after the entry before it: -10^15 ms would start it in
    1994 BC, before what OTLP's unsigned times hold."""
    failed = line(
        2, "model_error", {"error": {"kind": "overloaded"}, "retry": True, "wait_ms": -(10**15)}
    )
    path = write(tmp_path, "wait.jsonl", run_log(failed, turn(3, usage(5, 1))))
    refused_by_both(path, 3, "model_error.wait_ms is -1000000000000000: a wait cannot be negative")


def test_the_session_library_still_reads_what_go_reads(tmp_path: Path) -> None:
    """Go reads negative counts, old and far times and negative waits: so do read_session and
    the exact reads of the stores, which write each line back as it was."""
    data = (
        line(0, "run_started", {"prompt": "p"}, time="0001-01-01T00:00:00.5Z")
        + turn(1, {"input_tokens": -500, "cache_read_tokens": 1000})
        + line(2, "model_error", {"error": {"kind": "x"}, "retry": True, "wait_ms": -3})
        + line(3, "run_ended", outcome(turns=1, u=usage(1, 1)), time="9999-12-31T23:59:59Z")
    )
    path = write(tmp_path, "lib.jsonl", data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        session = read_session(path)
    assert session.runs[0].turns[0].usage.input_tokens == -500
    assert session.entries[0].time_unix_nano == -62135596800 * 10**9 + 5 * 10**8
    assert len(FileStore(path).load()) == len(list(LogReader(path, exact=True))) == 4
    # exported from a Session, the same rules hold, named by the run
    with pytest.raises(
        UsageConventionError, match=re.escape("lib.jsonl: seq 1: a negative token count")
    ):
        read_costs(session, prices=PRICES)
    with pytest.raises(UsageConventionError, match="negative"):
        list(trace_spans(session.runs, conversation_id="lib"))


# Times the outputs cannot hold (OTLP: unsigned Unix ns; pandas: 1677-09-21..2262-04-11).

FAR_TIMES = [
    "0001-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "1969-12-31T23:59:59.999999999Z",
    "1970-01-01T01:00:00+02:00",
    "2262-04-11T23:47:16.854775808Z",
    "2300-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z",
]


@pytest.mark.parametrize("when", FAR_TIMES)
@pytest.mark.parametrize("line_no", [1, 3, 4])
def test_a_time_outside_what_the_exports_hold(tmp_path: Path, when: str, line_no: int) -> None:
    entries = [
        (0, "run_started", {"prompt": "p"}),
        (1, "message", user("p")),
        (2, "message", assistant(text="a")),
        (3, "run_ended", outcome()),
    ]
    data = b"".join(
        line(seq, kind, payload, time=when if n == line_no else None)
        for n, (seq, kind, payload) in enumerate(entries, 1)
    )
    path = write(tmp_path, "far.jsonl", data)
    problem = refused_by_both(path, line_no, "is outside what the exports hold")
    assert problem.startswith(f"time {when.replace('+02:00', '+02:00')} ")


@pytest.mark.parametrize(
    ("first", "last", "start", "end"),
    [
        ("1970-01-01T00:00:00Z", "1970-01-01T00:00:01Z", 0, 10**9),
        (
            "2262-04-11T23:47:16.854775806Z",
            "2262-04-11T23:47:16.854775807Z",
            INT64_MAX - 1,
            INT64_MAX,
        ),
    ],
)
def test_the_edges_of_the_times_are_exported(
    tmp_path: Path, first: str, last: str, start: int, end: int
) -> None:
    data = (
        line(0, "run_started", {"prompt": "p"}, time=first)
        + line(1, "message", assistant(text="a", model="claude-sonnet-4-5"), time=last)
        + line(2, "run_ended", outcome(), time=last)
    )
    path = write(tmp_path, "edge.jsonl", data)
    out = invoke("otel", str(path))
    assert out.exit_code == 0, out.stderr
    agent, chat = spans(out.stdout_bytes)
    assert (agent.start, agent.end, chat.start, chat.end) == (start, end, start, end)
    request = to_proto(out.stdout_bytes)
    assert request.resource_spans[0].scope_spans[0].spans[0].start_time_unix_nano == start
    tables = read_costs(path, prices=PRICES)
    assert tables.runs["start"].tolist() == [pd.Timestamp(start, unit="ns", tz="UTC")]
    assert tables.model_calls["time"].tolist() == [pd.Timestamp(end, unit="ns", tz="UTC")]
    cost = invoke("cost", str(path), "--by", "day")
    assert cost.exit_code == 0, cost.stderr


def test_far_times_from_a_session_are_refused_not_a_traceback(tmp_path: Path) -> None:
    data = run_log(turn(2, usage(5, 1)))
    data = data.replace(
        data[data.index(b'"time":"') + 8 : data.index(b'","type"')], b"2300-01-01T00:00:00Z", 1
    )
    path = write(tmp_path, "s.jsonl", data)
    session = read_session(path)
    with pytest.raises(
        OutOfRangeError, match=re.escape("s.jsonl: run 0 (seq 0): time 2300-01-01T00:00:00Z")
    ):
        read_costs(session, prices=PRICES)
    with pytest.raises(OutOfRangeError, match="time 2300-01-01T00:00:00Z is outside"):
        list(trace_spans(session.runs, conversation_id="s"))


def test_spans_otlp_cannot_hold_are_refused_by_the_encoder() -> None:
    def span(start: int, end: int, value: int = 1) -> Span:
        return Span(b"\x01" * 16, b"\x02" * 8, b"", "x", 1, start, end, (("n", value),))

    encode_otlp_json([span(0, 2**64 - 1, INT64_MAX)])
    for bad in (span(-1, 5), span(5, 2**64), span(1, 2, INT64_MAX + 1), span(1, 2, -(2**63) - 1)):
        with pytest.raises(ValueError, match="OTLP"):
            encode_otlp_json([bad])


# Sums: never past 2^63-1, never wrapped.

QUARTER = 2**61  # four of them make 2^63


def test_a_runs_counts_adding_up_past_64_bits(tmp_path: Path) -> None:
    """Each count fits; the run's four counts of two turns add up to 2^63: the invoke_agent
    span's usage and the runs frame's sums would pass what an intValue / Int64 holds."""
    big = {"input_tokens": QUARTER, "output_tokens": QUARTER}
    path = write(tmp_path, "sum.jsonl", run_log(turn(2, big), turn(3, big)))
    problem = refused_by_both(path, 4, "the token counts of the run that starts at seq 0 add")
    assert "past 9223372036854775807 (2^63-1)" in problem


def test_one_calls_inclusive_input_past_64_bits(tmp_path: Path) -> None:
    """gen_ai.usage.input_tokens is input + cache read + cache write: 2^63 here."""
    u = {"input_tokens": 2 * QUARTER, "cache_read_tokens": QUARTER, "cache_write_tokens": QUARTER}
    path = write(tmp_path, "one.jsonl", run_log(turn(2, u)))
    refused_by_both(path, 3, "of the run that starts at seq 0 add up past")


def test_a_run_ended_usage_past_64_bits(tmp_path: Path) -> None:
    ended = line(3, "run_ended", outcome(u={"input_tokens": INT64_MAX, "cache_write_tokens": 1}))
    path = write(tmp_path, "ended.jsonl", run_log(turn(2, usage(1, 1)), ended=False) + ended)
    refused_by_both(path, 4, "the token counts of run_ended.usage add up past")


def test_a_run_that_adds_up_to_exactly_2_63_minus_1(tmp_path: Path) -> None:
    """The most a run may count, as a crashed run's usage (the sum of its calls) and as the
    runs frame's sum: exact, not a float rounded to 2^63 and wrapped to -2^63."""
    path = write(
        tmp_path,
        "max.jsonl",
        run_log(
            turn(2, {"input_tokens": 2 * QUARTER, "cache_read_tokens": QUARTER - 1}),
            turn(3, {"input_tokens": QUARTER}),
            ended=False,
        ),
    )
    out = invoke("otel", str(path))
    assert out.exit_code == 0, out.stderr
    agent = spans(out.stdout_bytes)[0]
    assert agent.attributes["gen_ai.usage.input_tokens"] == INT64_MAX
    to_proto(out.stdout_bytes)
    runs = read_costs(path, prices=PRICES).runs
    assert runs["input_tokens"].tolist() == [3 * QUARTER]
    assert runs["total_tokens"].tolist() == [INT64_MAX]


def test_sums_across_runs_and_logs_never_wrap(tmp_path: Path) -> None:
    """Each run fits; two runs of one session, or two logs, add up past 2^63-1: `cost` says
    so in one line (exit 1) instead of printing -9223372036854775808 tokens."""
    big = {"input_tokens": 3 * QUARTER}
    two = write(tmp_path, "two.jsonl", run_log(turn(2, big)) + run_log(turn(12, big), first_seq=10))
    one = write(tmp_path, "one.jsonl", run_log(turn(2, big)))
    other = write(tmp_path, "other.jsonl", run_log(turn(12, big), first_seq=10))
    for paths, by in (([two], "session"), ([one, other], "model"), ([one, other], "run")):
        for path in paths:
            assert invoke("otel", str(path)).exit_code == 0  # each run fits an export
        for fmt in ("table", "json", "csv"):
            result = invoke("cost", *map(str, paths), "--by", by, "--format", fmt)
            assert result.exit_code == 1 and result.stdout == ""
            said = one_line(result)
            assert said.startswith("sessiontools cost: error: the input_tokens of these 2 model")
            assert f"add up to {6 * QUARTER}, past 9223372036854775807 (2^63-1)" in said
    with pytest.raises(OutOfRangeError):
        from sessiontools import cost_by

        cost_by(read_costs(two, prices=PRICES).model_calls, "run")


# Read in two processes: the same errors, at every cut.

SPLIT_CASES = {
    "negative": turn(12, {"input_tokens": -5}),
    "far": line(12, "message", assistant(text="a"), time="2300-01-01T00:00:00Z"),
    "sum": turn(12, {"input_tokens": 2 * QUARTER}) + turn(13, {"input_tokens": 2 * QUARTER}),
    "big": turn(12, {"input_tokens": 2**63}),
    "one": turn(12, {"input_tokens": INT64_MAX, "output_tokens": 1}),
}


@contextlib.contextmanager
def record_tails(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What each read of a second part ended with: the error's class name, or ``read``."""
    tails: list[str] = []
    read_tail = _split.read_tail

    def recording(*args: Any) -> Any:
        tail = read_tail(*args)
        if tail is not None:
            tails.append(type(tail.error).__name__ if tail.error is not None else "read")
        return tail

    monkeypatch.setattr(_split, "read_tail", recording)
    yield tails


@pytest.mark.parametrize("case", sorted(SPLIT_CASES))
def test_two_processes_say_what_one_says(
    tmp_path: Path, case: str, cut_at: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = run_log(turn(2, usage(3 * QUARTER))) + run_log(SPLIT_CASES[case], first_seq=10)
    path = write(tmp_path, f"{case}.jsonl", data)
    expected = export(path, workers=1)
    assert expected[2] is not None and expected[2][0] is EntryError
    with record_tails(monkeypatch) as tails:
        for cut in line_starts(data):
            assert cut_at(path, cut) == expected, cut
    assert len(cut_at.ways) == len(line_starts(data))
    assert "EntryError" in tails  # the child met the error, and this process raised it


@pytest.mark.parametrize("case", sorted(SPLIT_CASES))
def test_two_processes_cost_what_one_costs(tmp_path: Path, case: str, monkeypatch: Any) -> None:
    from tests.parallel.splitting import split_here

    where: dict[str, int] = {}
    ways = split_here(monkeypatch, lambda p: where["cut"])
    data = run_log(turn(2, usage(3 * QUARTER))) + run_log(SPLIT_CASES[case], first_seq=10)
    path = write(tmp_path, f"{case}.jsonl", data)
    expected = cost_outcome(path, 1)
    assert expected[2] is not None and expected[2][0] is EntryError
    with record_tails(monkeypatch) as tails:
        for cut in line_starts(data):
            where["cut"] = cut
            assert cost_outcome(path, None) == expected, cut
    assert len(ways) == len(line_starts(data))
    assert "EntryError" in tails


def test_a_stream_is_checked_too() -> None:
    data = run_log(turn(2, {"input_tokens": -1}))
    result = CliRunner().invoke(cli, ["otel", "-"], input=data)
    assert result.exit_code == 1
    assert "<stdin>: line 3 (byte" in one_line(result)
    with pytest.raises(EntryError):
        otlp_json(io.BytesIO(data))


def test_one_bad_log_among_42_is_skipped_and_the_rest_counted(tmp_path: Path) -> None:
    """The issue: one log with a count past 2^63 aborted the whole report (a TypeError in
    the frames). 42 logs are read by a pool of processes (sessiontools cost, from 32 on)."""
    for i in range(42):
        u = {"input_tokens": 2**63 if i == 17 else 1000 + i, "output_tokens": 10}  # not copies
        write(tmp_path, f"s{i:02d}.jsonl", run_log(turn(2, u)))
    result = invoke("cost", str(tmp_path), "--format", "json", "--by", "session")
    assert result.exit_code == 1
    said = one_line(result)
    assert "s17.jsonl: line 3 (byte" in said and "outside a signed 64-bit integer" in said
    assert said.endswith("; skipped")
    groups = orjson.loads(result.stdout)["groups"]
    assert len(groups) == 41 and "s17" not in " ".join(g["session"] for g in groups)
    assert sorted(g["input_tokens"] for g in groups) == [1000 + i for i in range(42) if i != 17]
