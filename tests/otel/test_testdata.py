"""Every log in testdata/sessions: golden exports, the protobuf schema, determinism, prefixes.

The golden files are regenerated with `python tests/update_golden.py` (see its docstring).
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontools import DamagedLogError, LogError, otlp_json
from tests.helpers import GOLDEN, REPO, logs_in_testdata, read_bytes
from tests.otlp import semconv_keys, span_ids_by_formula, spans, to_proto
from tests.update_golden import render

LOGS = logs_in_testdata()
EXPORTED = [log for log in LOGS if (GOLDEN / f"{log.stem}.otlp.json").exists()]


def export(data: bytes, conversation_id: str) -> bytes:
    import io

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return otlp_json(io.BytesIO(data), conversation_id=conversation_id)


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_golden(log: Path) -> None:
    for name, data in render(log).items():
        golden = GOLDEN / name
        assert golden.exists(), f"no golden file {name}: run python tests/update_golden.py"
        assert data == golden.read_bytes(), f"{name} differs: run python tests/update_golden.py"


def test_no_stale_golden_files() -> None:
    wanted = {name for log in LOGS for name in render(log)}
    assert {p.name for p in GOLDEN.iterdir()} == wanted


def test_every_log_but_the_damaged_one_exports() -> None:
    assert len(EXPORTED) >= len(LOGS) - 1 >= 14


@pytest.mark.parametrize("log", EXPORTED, ids=lambda p: p.name)
def test_export_parses_into_protobuf_with_known_keys(log: Path) -> None:
    data = (GOLDEN / f"{log.stem}.otlp.json").read_bytes()
    request = to_proto(data)
    allowed = semconv_keys()
    (rs,) = request.resource_spans
    assert [a.key for a in rs.resource.attributes] == ["service.name"]
    for span in rs.scope_spans[0].spans:
        assert len(span.trace_id) == 16 and len(span.span_id) == 8
        assert len(span.parent_span_id) in (0, 8)
        assert span.start_time_unix_nano <= span.end_time_unix_nano
        for attribute in span.attributes:
            assert attribute.key in allowed or attribute.key.startswith("agentloop.")


@pytest.mark.parametrize("log", EXPORTED, ids=lambda p: p.name)
def test_span_tree_is_well_formed(log: Path) -> None:
    out = spans((GOLDEN / f"{log.stem}.otlp.json").read_bytes())
    by_id = {s.span_id: s for s in out}
    assert len(by_id) == len(out), "span ids are unique"
    for s in out:
        operation = s.attributes["gen_ai.operation.name"]
        assert s.name.split(" ")[0] == operation
        if operation == "invoke_agent":
            assert (s.parent_span_id, s.kind) == ("", 1)
            continue
        parent = by_id[s.parent_span_id]
        assert parent.trace_id == s.trace_id
        parent_operation = parent.attributes["gen_ai.operation.name"]
        if operation == "execute_tool":
            assert (s.kind, parent_operation) == (1, "invoke_agent")
        else:
            assert (s.kind, operation) == (3, "chat")
            assert parent_operation in ("invoke_agent", "execute_tool")
            if parent_operation == "execute_tool":  # a tool's own model call spans its tool
                assert (s.start, s.end) == (parent.start, parent.end)


def test_same_bytes_across_hash_seeds() -> None:
    logs = [str(log.relative_to(REPO)) for log in EXPORTED]
    outputs = []
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        script = (
            "import sys, warnings\n"
            "warnings.simplefilter('ignore')\n"
            "from sessiontools import otlp_json\n"
            "for p in sys.argv[1:]:\n"
            "    sys.stdout.buffer.write(otlp_json(p))\n"
        )
        run = subprocess.run(
            [sys.executable, "-c", script, *logs],
            cwd=REPO,
            env=env,
            capture_output=True,
            check=True,
        )
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    golden = b"".join((GOLDEN / f"{log.stem}.otlp.json").read_bytes() for log in EXPORTED)
    assert outputs[0] == golden


def _cuts_after_run_ended(data: bytes) -> list[int]:
    cuts = []
    offset = 0
    for raw in data.splitlines(keepends=True):
        offset += len(raw)
        if b'"type":"run_ended"' in raw:
            cuts.append(offset)
    return cuts


@pytest.mark.parametrize("log", EXPORTED, ids=lambda p: p.name)
def test_cut_after_a_run_ended_keeps_the_bytes_of_earlier_runs(log: Path) -> None:
    data = log.read_bytes()
    whole = export(data, log.stem)
    head, _, _ = whole.partition(b',"spans":[')
    tail = b'],"schemaUrl"'
    for cut in _cuts_after_run_ended(data):
        part = export(data[:cut], log.stem)
        if b',"spans":[' not in part:
            continue
        part_spans = part[len(head) : part.index(tail, len(head))]
        assert whole.startswith(head + part_spans + b",") or whole == part


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_prefix_is_read_or_rejected_as_damage(log: Path, data: st.DataObject) -> None:
    content = log.read_bytes()
    cut = data.draw(st.integers(min_value=0, max_value=len(content)))
    try:
        read_bytes(content[:cut])
    except DamagedLogError:
        assert b"damaged" in log.name.encode()


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_every_prefix_of_every_line_boundary_is_read_or_damage(log: Path) -> None:
    content = log.read_bytes()
    for cut in range(0, len(content) + 1, max(1, len(content) // 400)):
        try:
            read_bytes(content[:cut])
        except LogError as e:
            assert isinstance(e, DamagedLogError), e


def test_generator_writes_these_files() -> None:
    run = subprocess.run(
        [sys.executable, "testdata/make_sessions.py", "--check"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr


# An oracle written apart from the library: the standard json module, datetime for the
# seconds and the fraction's digits for the nanoseconds, and the contract's id formulas.


def _ns(text: str) -> int:
    import calendar
    import datetime as dt

    zone = text[-1] == "Z"
    tz = "+00:00" if zone else text[-6:]
    body = text[:-1] if zone else text[:-6]
    whole, _, fraction = body.partition(".")
    moment = dt.datetime.fromisoformat(whole + tz)
    seconds = calendar.timegm(moment.utctimetuple())
    return seconds * 10**9 + int((fraction or "0").ljust(9, "0")[:9])


def _entries_of(log: Path) -> list[dict[str, object]]:
    import json

    out = []
    for raw in log.read_bytes().split(b"\n"):
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if isinstance(obj, dict) and "seq" in obj and "type" in obj:
            out.append(obj)
    return out


def _sha(text: str, size: int) -> str:
    import hashlib

    return hashlib.sha256(text.encode()).digest()[:size].hex()


@pytest.mark.parametrize("log", EXPORTED, ids=lambda p: p.name)
def test_spans_match_an_independent_reading_of_the_log(log: Path) -> None:
    out = spans((GOLDEN / f"{log.stem}.otlp.json").read_bytes())
    by_id = {s.span_id: s for s in out}
    runs: list[list[dict[str, object]]] = []
    open_run = False  # between a run_ended and the next run_started, entries are the session's
    for entry in _entries_of(log):
        if entry["type"] == "run_started":
            runs.append([])
            open_run = True
        if open_run:
            runs[-1].append(entry)
        if entry["type"] == "run_ended":
            open_run = False
    assert len([s for s in out if s.name.startswith("invoke_agent")]) == len(runs)
    # every span id by the contract's formulas, the conversation id in the key
    assert set(span_ids_by_formula(_entries_of(log), log.stem)) == set(by_id)
    for run in runs:
        first, last = run[0], run[-1]
        trace = _sha(f"agentloop/trace/{log.stem}/{first['seq']}", 16)
        span = f"agentloop/span/{trace}/{log.stem}"
        agent = by_id[_sha(f"{span}/invoke_agent/{first['seq']}/0", 8)]
        assert agent.trace_id == trace
        assert (agent.start, agent.end) == (_ns(str(first["time"])), _ns(str(last["time"])))
        ended = last["type"] == "run_ended"
        reason = last["run_ended"]["reason"] if ended else "crashed"  # type: ignore[index]
        assert agent.attributes["agentloop.run.reason"] == reason
        assert agent.status_code == (2 if reason in ("crashed", "model_error") else 0)
        in_run = [s for s in out if s.trace_id == trace]
        chats = 0
        tool_chats = 0
        for entry in run:
            payload = entry[str(entry["type"])]
            assert isinstance(payload, dict)
            if entry["type"] == "model_error" or (
                entry["type"] == "message" and payload["message"]["role"] == "assistant"
            ):
                chats += 1
                chat = by_id[_sha(f"{span}/chat/{entry['seq']}/0", 8)]
                assert chat.end == _ns(str(entry["time"]))
                assert chat.parent_span_id == agent.span_id
                assert chat.status_code == (2 if entry["type"] == "model_error" else 0)
            if entry["type"] == "tool_result":
                for index, _ in enumerate(payload.get("usage") or []):
                    tool_chats += 1
                    key = f"{span}/tool_chat/{entry['seq']}/{index}"
                    tool_chat = by_id[_sha(key, 8)]
                    assert tool_chat.end == _ns(str(entry["time"]))
        operations = [s.attributes["gen_ai.operation.name"] for s in in_run]
        assert operations.count("chat") == chats + tool_chats
        asked = {
            part["tool_call"]["id"]
            for entry in run
            if entry["type"] == "message"
            for part in entry["message"]["message"]["parts"]  # type: ignore[index]
            if part.get("tool_call")
        }
        touched = {
            str(entry[str(entry["type"])]["call_id"])  # type: ignore[index]
            for entry in run
            if entry["type"] in ("decision", "call_started")
        } | {
            str(entry["tool_result"]["result"]["call_id"])  # type: ignore[index]
            for entry in run
            if entry["type"] == "tool_result"
        }
        tools = {
            s.attributes["gen_ai.tool.call.id"]
            for s in in_run
            if "gen_ai.tool.call.id" in s.attributes
        }
        assert tools == asked | touched


# Hand-written expectations for the richest logs: span names in order, with error.type.

EXPECTED = {
    "03_crash_while_call_runs": [
        "invoke_agent !crashed",
        "chat claude-sonnet-4-5",
        "execute_tool file_write !crashed",
        "execute_tool http_post !crashed",
        "invoke_agent",
        "execute_tool http_post !tool_error",
        "execute_tool file_write",
        "chat claude-sonnet-4-5",
        "execute_tool http_get",
        "chat claude-sonnet-4-5",
    ],
    "07_model_errors": [
        "invoke_agent",
        "chat claude-sonnet-4-5 !rate_limited",
        "chat claude-sonnet-4-5 !overloaded",
        "chat claude-sonnet-4-5",
        "execute_tool slack_history",
        "chat claude-sonnet-4-5",
        "invoke_agent",
        "chat claude-sonnet-4-5 !unreachable",
        "chat gpt-5-mini",
        "invoke_agent !unauthorized",
        "chat gpt-5-mini !unauthorized",
    ],
    "09_refused_and_forbidden": [
        "invoke_agent",
        "chat claude-opus-5-5",
        "execute_tool wiki_read",
        "execute_tool hr_lookup !refused",
        "chat claude-opus-5-5",
        "invoke_agent",
    ],
    "16_canceled_pending": [
        "invoke_agent",
        "chat claude-opus-5-5",
        "execute_tool command !crashed",
        "invoke_agent",
        "execute_tool command !tool_error",
        "chat claude-opus-5-5",
        "execute_tool command !tool_error",
        "chat claude-opus-5-5",
    ],
}


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_span_names_and_errors_by_hand(stem: str) -> None:
    out = spans((GOLDEN / f"{stem}.otlp.json").read_bytes())
    got = [
        s.name + (f" !{s.attributes['error.type']}" if "error.type" in s.attributes else "")
        for s in out
    ]
    assert got == EXPECTED[stem]
    for s in out:
        assert (s.status_code == 2) == ("error.type" in s.attributes)


def test_a_call_settled_by_a_later_run_is_keyed_on_that_runs_tool_result() -> None:
    """03, run 2 (seq 5): file_write was asked for in run 1 (seq 2, index 1) and is settled by
    run 2: decision at seq 7, call_started at 8, tool_result at 9. Its span in run 2 is keyed
    on the tool_result (seq 9, index 0), as traces.md says, not on the decision."""
    out = spans((GOLDEN / "03_crash_while_call_runs.otlp.json").read_bytes())
    trace = _sha("agentloop/trace/03_crash_while_call_runs/5", 16)
    (write,) = [s for s in out if s.trace_id == trace and s.name == "execute_tool file_write"]
    assert write.attributes["agentloop.call.resumed"] is True
    key = f"agentloop/span/{trace}/03_crash_while_call_runs/execute_tool/9/0"
    assert write.span_id == _sha(key, 8)
    # in run 1, where it was asked for, it is keyed on the asking message (seq 2, index 1)
    trace1 = _sha("agentloop/trace/03_crash_while_call_runs/0", 16)
    (asked,) = [s for s in out if s.trace_id == trace1 and s.name == "execute_tool file_write"]
    key1 = f"agentloop/span/{trace1}/03_crash_while_call_runs/execute_tool/2/1"
    assert asked.span_id == _sha(key1, 8)
