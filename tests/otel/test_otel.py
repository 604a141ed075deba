"""The session model to OTLP/JSON (traces.md), on logs written by hand.

Ids are recomputed here from the contract's formulas with hashlib; times are the entries'.
"""

from __future__ import annotations

import hashlib
import io
import os
import random
import re
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    SCHEMA_URL,
    InvalidIdError,
    SessionToolsError,
    __version__,
    default_conversation_id,
    encode_otlp_json,
    otlp_json,
    parse_span_id,
    parse_trace_id,
    run_span_id,
    run_trace_id,
    span_id,
    trace_spans,
)
from sessiontools._cli.main import cli
from tests.helpers import (
    SESSIONS,
    assistant,
    line,
    logs_in_testdata,
    outcome,
    result,
    t,
    usage,
    user,
)
from tests.logs import CRASH_AND_RESUME, DENY_REFUSE, ONE_TOOL, RETRIES
from tests.otlp import SpanView, semconv_keys, span_ids_by_formula, spans, to_proto
from tests.parallel.test_split_edges import random_log

ONE_TOOL_01 = (SESSIONS / "01_one_run_tool.jsonl").read_bytes()
RUNS_02 = (SESSIONS / "02_runs_anthropic_openai_cache.jsonl").read_bytes()

S = 1_000_000_000
T0 = 1_792_308_600 * S  # 09:30:00+02:00 on 2026-10-18


def at(seconds: float) -> int:
    return T0 + round(seconds * S)


def export(data: bytes, conversation_id: str = "conv", **options: object) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return otlp_json(io.BytesIO(data), conversation_id=conversation_id, **options)  # type: ignore[arg-type]


def trace_hex(conv: str, seq: int) -> str:
    return hashlib.sha256(f"agentloop/trace/{conv}/{seq}".encode()).digest()[:16].hex()


def span_hex(trace: str, conv: str, span: str, seq: int, index: int = 0) -> str:
    """traces.md: the first 8 bytes of SHA-256 of
    agentloop/span/{trace id hex}/{conversation id}/{span}/{seq}/{index}."""
    key = f"agentloop/span/{trace}/{conv}/{span}/{seq}/{index}"
    return hashlib.sha256(key.encode()).digest()[:8].hex()


def test_one_run_with_a_tool() -> None:
    data = export(ONE_TOOL, "one")
    trace = trace_hex("one", 0)
    run = span_hex(trace, "one", "invoke_agent", 0)
    agent, chat1, tool, chat2 = spans(data)
    assert agent == SpanView(
        trace,
        run,
        "",
        "invoke_agent",
        1,
        at(0),
        at(7),
        {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.conversation.id": "one",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4-5",
            # input + cache read + cache write: 130 + 160 + 10
            "gen_ai.usage.input_tokens": 300,
            "gen_ai.usage.output_tokens": 25,
            "gen_ai.usage.cache_read.input_tokens": 160,
            "gen_ai.usage.cache_creation.input_tokens": 10,
            "agentloop.run.reason": "completed",
            "agentloop.run.turns": 2,
            "agentloop.session.labels": ("clock", "t"),
        },
        0,
        "",
    )
    assert chat1 == SpanView(
        trace,
        span_hex(trace, "one", "chat", 2),
        run,
        "chat claude-sonnet-4-5",
        3,
        at(1),
        at(2),
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": "one",
            "gen_ai.provider.name": "anthropic",
            "gen_ai.request.model": "claude-sonnet-4-5",
            "gen_ai.response.model": "claude-sonnet-4-5",
            "gen_ai.response.finish_reasons": ("tool_use",),
            "gen_ai.usage.input_tokens": 160,  # 100 + 50 + 10
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.usage.cache_read.input_tokens": 50,
            "gen_ai.usage.cache_creation.input_tokens": 10,
        },
        0,
        "",
    )
    assert tool == SpanView(
        trace,
        span_hex(trace, "one", "execute_tool", 2, 0),
        run,
        "execute_tool clock",
        1,
        at(4),
        at(5),
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.conversation.id": "one",
            "gen_ai.tool.name": "clock",
            "gen_ai.tool.call.id": "c1",
            "gen_ai.tool.type": "function",
            "agentloop.decision.verdict": "allow",
            "agentloop.call.labels": ("clock", "t"),
            "agentloop.call.resumed": False,
        },
        0,
        "",
    )
    assert (chat2.name, chat2.parent_span_id, chat2.start, chat2.end) == (
        "chat claude-sonnet-4-5",
        run,
        at(5),
        at(6),
    )
    assert chat2.attributes["gen_ai.usage.input_tokens"] == 140  # 30 + 110
    assert "gen_ai.usage.cache_creation.input_tokens" not in chat2.attributes


def test_resource_scope_and_schema() -> None:
    doc = orjson.loads(export(ONE_TOOL))
    (rs,) = doc["resourceSpans"]
    assert rs["resource"] == {
        "attributes": [{"key": "service.name", "value": {"stringValue": "agentloop"}}]
    }
    assert rs["schemaUrl"] == SCHEMA_URL == "https://opentelemetry.io/schemas/1.41.0"
    (ss,) = rs["scopeSpans"]
    assert ss["scope"] == {"name": "sessiontools", "version": __version__}
    assert ss["schemaUrl"] == SCHEMA_URL
    service = orjson.loads(export(ONE_TOOL, service_name="evals"))["resourceSpans"][0]
    assert service["resource"]["attributes"][0]["value"] == {"stringValue": "evals"}


def test_output_is_one_line() -> None:
    data = export(ONE_TOOL)
    assert data.endswith(b"\n") and data.count(b"\n") == 1


def test_crashed_run_and_the_run_that_settles_its_call() -> None:
    data = export(CRASH_AND_RESUME, "c")
    t0, t1 = trace_hex("c", 0), trace_hex("c", 10)
    by_name = [(s.name, s.trace_id, s.span_id) for s in spans(data)]
    assert by_name == [
        ("invoke_agent", t0, span_hex(t0, "c", "invoke_agent", 0)),
        ("chat claude-sonnet-4-5", t0, span_hex(t0, "c", "chat", 2)),
        ("execute_tool notify", t0, span_hex(t0, "c", "execute_tool", 2, 1)),  # from seq 2's time
        ("execute_tool deploy", t0, span_hex(t0, "c", "execute_tool", 2, 0)),  # from seq 4's time
        ("invoke_agent", t1, span_hex(t1, "c", "invoke_agent", 10)),
        # a call settled by a later run: keyed on that run's tool_result, index 0
        ("execute_tool deploy", t1, span_hex(t1, "c", "execute_tool", 11)),
        ("execute_tool notify", t1, span_hex(t1, "c", "execute_tool", 14)),  # not its decision
        ("chat claude-sonnet-4-5", t1, span_hex(t1, "c", "chat", 15)),
    ]
    agent0, _, notify0, deploy0, agent1, deploy1, notify1, _ = spans(data)
    assert (agent0.status_code, agent0.attributes["error.type"]) == (2, "crashed")
    assert agent0.attributes["agentloop.run.reason"] == "crashed"
    assert (agent0.start, agent0.end) == (at(0), at(4))
    for s in (notify0, deploy0):
        assert (s.status_code, s.attributes["error.type"], s.end) == (2, "crashed", at(4))
        assert s.attributes["agentloop.call.resumed"] is False
    assert "agentloop.decision.verdict" not in notify0.attributes
    assert (deploy1.start, deploy1.end, deploy1.attributes["error.type"]) == (
        at(10),
        at(11),
        "tool_error",
    )
    assert deploy1.attributes["agentloop.call.resumed"] is True
    assert notify1.attributes["agentloop.call.resumed"] is True and notify1.status_code == 0
    assert agent1.status_code == 0 and "error.type" not in agent1.attributes


def test_failed_model_calls() -> None:
    first, second = (s for s in spans(export(RETRIES)) if s.status_code)
    assert first.name == "chat gpt-5" and first.kind == 3
    # the kind and the HTTP status, never the provider's text (traces.md, "Errors")
    assert (first.start, first.end, first.status_message) == (at(1), at(2), "rate_limited (429)")
    assert first.attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": "conv",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-5",
        "error.type": "rate_limited",
        "http.response.status_code": 429,
        "agentloop.retry": True,
        "agentloop.retry.wait_ms": 2000,
    }
    assert (second.start, second.end, second.attributes["error.type"]) == (
        at(4),
        at(5),
        "overloaded",
    )


def test_run_ending_in_a_model_error() -> None:
    error = {"kind": "unauthorized", "status": 401, "message": "bad key"}
    data = (
        line(0, "run_started", {"prompt": "x"})
        + line(1, "model_error", {"error": error, "retry": False})
        + line(2, "run_ended", outcome("model_error", turns=0, u=usage(), error=error))
    )
    agent, failed = spans(export(data))
    assert (agent.status_code, agent.status_message) == (2, "unauthorized (401)")
    assert agent.attributes["error.type"] == "unauthorized"
    assert agent.attributes["agentloop.run.reason"] == "model_error"
    assert failed.name == "chat" and "gen_ai.provider.name" not in failed.attributes
    assert "agentloop.retry.wait_ms" not in failed.attributes
    assert failed.attributes["agentloop.retry"] is False


def test_denied_refused_and_failing_tools() -> None:
    tools = [s for s in spans(export(DENY_REFUSE)) if s.name.startswith("execute_tool")]
    assert [(s.name, s.attributes.get("error.type"), s.status_code) for s in tools] == [
        ("execute_tool rm", "denied", 2),
        ("execute_tool fetch", "refused", 2),
        ("execute_tool mail", "tool_error", 2),
    ]
    assert (tools[0].start, tools[0].end) == (at(3), at(4))
    assert tools[0].attributes["agentloop.decision.verdict"] == "deny"


def test_tool_model_calls_are_chat_spans_under_the_tool() -> None:
    tool_usage = [
        {"model": "claude-haiku-4-5", "usage": usage(1000, 200, write=7)},
        {"model": "claude-haiku-4-5", "usage": usage(500, 100)},
    ]
    data = (
        line(0, "run_started", {"prompt": "sum"})
        + line(1, "message", assistant(("c1", "summarize")))
        + line(2, "decision", {"call_id": "c1", "tool": "summarize", "verdict": "allow"})
        + line(3, "call_started", {"call_id": "c1"})
        + line(6, "tool_result", {**result("c1", "summary"), "usage": tool_usage})
        + line(7, "message", assistant(text="done"))
        + line(8, "run_ended", outcome(turns=2, u=usage(1700, 320, write=7)))
    )
    out = spans(export(data, "sum"))
    names = [s.name for s in out]
    assert names == [
        "invoke_agent",
        "chat claude-sonnet-4-5",
        "execute_tool summarize",
        "chat claude-haiku-4-5",
        "chat claude-haiku-4-5",
        "chat claude-sonnet-4-5",
    ]
    tool, first, second = out[2], out[3], out[4]
    trace = trace_hex("sum", 0)
    assert first.span_id == span_hex(trace, "sum", "tool_chat", 6, 0)
    assert second.span_id == span_hex(trace, "sum", "tool_chat", 6, 1)
    for s in (first, second):
        assert (s.parent_span_id, s.start, s.end, s.kind) == (tool.span_id, at(3), at(6), 3)
        assert s.attributes["gen_ai.request.model"] == "claude-haiku-4-5"
        assert "gen_ai.provider.name" not in s.attributes
    assert first.attributes["gen_ai.usage.input_tokens"] == 1007
    assert first.attributes["gen_ai.usage.cache_creation.input_tokens"] == 7
    # the run used two models
    assert "gen_ai.request.model" not in out[0].attributes


def test_parent_trace_and_span() -> None:
    parent_trace = "0AF7651916CD43DD8448EB211C80319C"
    parent_span = "B7AD6B7169203331"
    data = export(
        CRASH_AND_RESUME,
        "c",
        parent_trace_id=parse_trace_id(parent_trace),
        parent_span_id=parse_span_id(parent_span),
    )
    out = spans(data)
    trace = parent_trace.lower()
    assert {s.trace_id for s in out} == {trace}
    agents = [s for s in out if s.name == "invoke_agent"]
    assert [(s.span_id, s.parent_span_id) for s in agents] == [
        (span_hex(trace, "c", "invoke_agent", 0), parent_span.lower()),
        (span_hex(trace, "c", "invoke_agent", 10), parent_span.lower()),
    ]
    only_trace = spans(export(CRASH_AND_RESUME, "c", parent_trace_id=bytes.fromhex(trace)))
    assert [s.parent_span_id for s in only_trace if s.name == "invoke_agent"] == ["", ""]
    assert [s.span_id for s in only_trace] == [s.span_id for s in out]


def test_parent_span_without_trace_is_refused() -> None:
    with pytest.raises(ValueError, match="parent trace"):
        export(ONE_TOOL, parent_span_id=b"\x01" * 8)


def test_agent_name() -> None:
    agent = spans(export(ONE_TOOL, agent_name="Support bot"))[0]
    assert agent.name == "invoke_agent Support bot"
    assert agent.attributes["gen_ai.agent.name"] == "Support bot"
    keys = list(agent.attributes)
    assert keys.index("gen_ai.agent.name") == 2


def test_id_functions_match_the_export() -> None:
    trace = run_trace_id("one", 0)
    assert trace.hex() == trace_hex("one", 0) and len(trace) == 16
    assert run_span_id("one", 0).hex() == span_hex(trace.hex(), "one", "invoke_agent", 0)
    assert span_id(trace, "one", "execute_tool", 2, 0).hex() == span_hex(
        trace.hex(), "one", "execute_tool", 2
    )
    parent = bytes(range(16))
    assert run_trace_id("one", 0, parent_trace_id=parent) == parent
    assert run_span_id("one", 5, parent_trace_id=parent).hex() == span_hex(
        parent.hex(), "one", "invoke_agent", 5
    )
    agent = spans(export(ONE_TOOL, "one"))[0]
    assert (agent.trace_id, agent.span_id) == (trace.hex(), run_span_id("one", 0).hex())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("0af7651916cd43dd8448eb211c80319", "32 hex digits"),
        ("0af7651916cd43dd8448eb211c80319cc", "32 hex digits"),
        ("0af7651916cd43dd8448eb211c80319g", "hex digits"),
        ("00000000000000000000000000000000", "all zero"),
        (" af7651916cd43dd8448eb211c80319c", "hex digits"),
        ("", "32 hex digits"),
    ],
)
def test_parse_trace_id_rejects(text: str, problem: str) -> None:
    with pytest.raises(InvalidIdError, match=problem):
        parse_trace_id(text)


@pytest.mark.parametrize(
    "text", ["b7ad6b716920333", "b7ad6b71692033311", "0000000000000000", "x" * 16]
)
def test_parse_span_id_rejects(text: str) -> None:
    with pytest.raises(InvalidIdError):
        parse_span_id(text)


def test_parse_ids_any_case() -> None:
    assert parse_trace_id("0AF7651916cd43dd8448EB211C80319C").hex() == (
        "0af7651916cd43dd8448eb211c80319c"
    )
    assert parse_span_id("B7AD6B7169203331") == bytes.fromhex("b7ad6b7169203331")


@pytest.mark.parametrize(
    ("name", "conversation_id"),
    [
        ("session.jsonl", "session"),
        ("/var/log/runs/2026-10-18.jsonl", "2026-10-18"),
        ("a.b.jsonl", "a.b"),
        ("transcript", "transcript"),
        (".hidden", ".hidden"),
        ("<stdin>", "stdin"),
    ],
)
def test_default_conversation_id(name: str, conversation_id: str) -> None:
    assert default_conversation_id(name) == conversation_id


@pytest.mark.skipif(os.sep != "/" or os.altsep is not None, reason="POSIX paths")
def test_a_backslash_is_part_of_a_posix_file_name(tmp_path: Path) -> None:
    """On POSIX only / separates a path's names: a backslash is a character of the file's
    name, so `otel 'a\\b.jsonl'` is conversation id a\\b (it was b)."""
    assert default_conversation_id("a\\b.jsonl") == "a\\b"
    assert default_conversation_id("runs/a\\b.jsonl.gz") == "a\\b"
    assert default_conversation_id("\\x.jsonl") == "\\x"
    log = tmp_path / "a\\b.jsonl"
    log.write_bytes(ONE_TOOL_01)
    result = CliRunner().invoke(cli, ["otel", str(log)])
    assert result.exit_code == 0, result.stderr
    document = orjson.loads(result.stdout_bytes)
    (span, *_) = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    conversation = {a["key"]: a["value"] for a in span["attributes"]}["gen_ai.conversation.id"]
    assert conversation == {"stringValue": "a\\b"}


def test_empty_log() -> None:
    data = export(b"")
    assert data == (
        b'{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":'
        b'{"stringValue":"agentloop"}}]},"scopeSpans":[{"scope":{"name":"sessiontools",'
        b'"version":"' + __version__.encode() + b'"},"schemaUrl":'
        b'"https://opentelemetry.io/schemas/1.41.0"}],"schemaUrl":'
        b'"https://opentelemetry.io/schemas/1.41.0"}]}\n'
    )
    assert len(to_proto(data).resource_spans[0].scope_spans[0].spans) == 0
    assert encode_otlp_json([]) == data


@pytest.mark.parametrize("log", [ONE_TOOL, CRASH_AND_RESUME, RETRIES, DENY_REFUSE])
def test_parses_into_the_protobuf_classes_with_allowed_keys(log: bytes) -> None:
    data = export(log)
    request = to_proto(data)
    (rs,) = request.resource_spans
    (ss,) = rs.scope_spans
    views = spans(data)
    assert len(ss.spans) == len(views)
    allowed = semconv_keys()
    for span, view in zip(ss.spans, views, strict=True):
        assert span.trace_id.hex() == view.trace_id and len(span.trace_id) == 16
        assert span.span_id.hex() == view.span_id and len(span.span_id) == 8
        assert span.start_time_unix_nano == view.start <= view.end == span.end_time_unix_nano
        for attribute in span.attributes:
            assert attribute.key in allowed or attribute.key.startswith("agentloop."), attribute.key


def test_every_exported_key_we_use_is_in_the_pinned_conventions() -> None:
    """A guard on the test above: the conventions package really lists the GenAI keys."""
    allowed = semconv_keys()
    for key in (
        "gen_ai.operation.name",
        "gen_ai.conversation.id",
        "gen_ai.provider.name",
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
        "gen_ai.tool.call.id",
        "error.type",
        "http.response.status_code",
        "service.name",
    ):
        assert key in allowed
    assert "gen_ai.system" in allowed  # deprecated names stay listed; we never write it
    assert b"gen_ai.system" not in export(ONE_TOOL)


CONTENT_FIELDS = (
    line(0, "run_started", {"prompt": "MARK-prompt"})
    + line(1, "labels", {"labels": ["seed"], "source": "seed"})
    + line(2, "message", user("MARK-user-text"))
    + line(
        3,
        "message",
        {
            "message": {
                "role": "assistant",
                "parts": [
                    {"type": "reasoning", "text": "MARK-reasoning"},
                    {"type": "text", "text": "MARK-assistant-text"},
                    {
                        "type": "tool_call",
                        "tool_call": {"id": "c1", "name": "read", "input": {"p": "MARK-input"}},
                    },
                    {
                        "type": "tool_call",
                        "tool_call": {"id": "c2", "name": "rm", "input": {"MARK-key": 1}},
                    },
                ],
                "native": {
                    "provider": "anthropic",
                    "model": "claude-sonnet-4-5",
                    "data": {"content": "MARK-provider-data"},
                },
            },
            "stop": "tool_use",
            "usage": usage(10, 1),
            "model": "claude-sonnet-4-5",
            "refusal": "MARK-refusal",
        },
    )
    + line(
        4, "decision", {"call_id": "c1", "tool": "read", "verdict": "allow", "reason": "MARK-ok"}
    )
    + line(5, "call_started", {"call_id": "c1"})
    + line(
        6,
        "tool_result",
        {
            **result("c1", "MARK-result", log="MARK-log"),
            "display": {
                "title": "MARK-display-title",
                "body": "MARK-display-body",
                "labels": [],
                "sources": [{"title": "MARK-source-title", "ref": "doc:MARK-ref"}],
                "ref": "shown:MARK-display-ref",
            },
        },
    )
    + line(7, "decision", {"call_id": "c2", "tool": "rm", "verdict": "deny", "reason": "MARK-deny"})
    + line(8, "tool_result", result("c2", "MARK-deny-result", is_error=True))
    + line(
        9,
        "message",
        {
            **user("x"),
            "message": {
                "role": "user",
                "parts": [
                    {
                        "type": "tool_result",
                        "tool_result": {"call_id": "c1", "content": "MARK-part-result"},
                    }
                ],
            },
        },
    )
    + line(10, "message", assistant(text="MARK-final"))
    + line(11, "run_ended", outcome(turns=2, text="MARK-outcome-text"))
)


def test_no_content_leaks() -> None:
    assert CONTENT_FIELDS.count(b"MARK-") == 21
    data = export(CONTENT_FIELDS)
    assert b"MARK" not in data
    assert len(spans(data)) == 5


def test_a_time_written_400_ns_apart_is_exported_400_ns_apart() -> None:
    data = (
        line(0, "run_started", {}, time="2026-10-18T09:30:00.123456789+02:00")
        + line(1, "message", user("x"), time="2026-10-18T09:30:00.123457189+02:00")
        + line(2, "message", assistant(text="y"), time="2026-10-18T07:30:01.000000001Z")
        + line(3, "run_ended", outcome(), time="2026-10-18T00:30:01.000000002-07:00")
    )
    agent, chat = spans(export(data))
    assert chat.start - agent.start == 400
    assert (agent.start, agent.end) == (1_792_308_600_123_456_789, 1_792_308_601_000_000_002)
    assert chat.end == 1_792_308_601_000_000_001


def test_same_input_same_bytes() -> None:
    assert export(CRASH_AND_RESUME) == export(CRASH_AND_RESUME)


def test_spans_ordered_by_run_then_start_then_seq() -> None:
    out = spans(export(CRASH_AND_RESUME))
    runs = [s.trace_id for s in out]
    assert runs == sorted(runs, key=runs.index)
    for trace in set(runs):
        starts = [s.start for s in out if s.trace_id == trace]
        assert starts == sorted(starts)


def test_times_in_seconds_helper() -> None:
    assert t(0) == "2026-10-18T09:30:00+02:00" and t(1.5) == "2026-10-18T09:30:01.5+02:00"


HEX = "0123456789abcdefABCDEF"


@given(
    st.text(alphabet=HEX, min_size=30, max_size=34)
    | st.text(max_size=40)
    | st.sampled_from(["0" * 32, "0" * 16, "f" * 32])
)
def test_trace_id_is_accepted_exactly_when_valid(text: str) -> None:
    valid = len(text) == 32 and all(c in HEX for c in text) and set(text) != {"0"}
    try:
        got = parse_trace_id(text)
    except InvalidIdError:
        assert not valid
    else:
        assert valid and got == bytes.fromhex(text) and got.hex() == text.lower()


@given(st.text(alphabet=HEX, min_size=14, max_size=18) | st.text(max_size=20))
def test_span_id_is_accepted_exactly_when_valid(text: str) -> None:
    valid = len(text) == 16 and all(c in HEX for c in text) and set(text) != {"0"}
    try:
        got = parse_span_id(text)
    except InvalidIdError:
        assert not valid
    else:
        assert valid and got.hex() == text.lower()


@settings(max_examples=40, deadline=None)
@given(
    trace=st.none() | st.text(alphabet=HEX, min_size=31, max_size=33) | st.just("0" * 32),
    span=st.none() | st.text(alphabet=HEX, min_size=15, max_size=17) | st.just("0" * 16),
)
def test_cli_parent_flags(trace: str | None, span: str | None) -> None:
    from click.testing import CliRunner

    from sessiontools._cli.main import cli

    args = ["otel", "-"]
    if trace is not None:
        args += ["--parent-trace", trace]
    if span is not None:
        args += ["--parent-span", span]

    def ok(text: str | None, digits: int) -> bool:
        return text is None or (len(text) == digits and set(text) != {"0"})

    valid = ok(trace, 32) and ok(span, 16) and not (span is not None and trace is None)
    result = CliRunner().invoke(cli, args, input=ONE_TOOL)
    assert result.exit_code == (0 if valid else 2), result.stderr
    if valid:
        agent = spans(result.stdout_bytes)[0]
        assert agent.trace_id == (trace.lower() if trace else trace_hex("stdin", 0))
        assert agent.parent_span_id == (span.lower() if span else "")
    else:
        assert len(result.stderr.splitlines()) == 1


# Identity under one parent (traces.md, "Identity and order"; issue 10, item 1)

EVAL_TRACE = "5b8efff798038103d269b633813fc60c"
EVAL_SPAN = "00f067aa0ba902b7"


def _lines(data: bytes) -> list[dict[str, object]]:
    import json

    return [json.loads(raw) for raw in data.splitlines() if raw.strip()]


def test_twenty_sessions_under_one_parent_never_share_a_span_id() -> None:
    """An eval exports each case's session under its own workflow span: one trace for all.
    Six sample logs (runs, turns, failed calls, resumed calls, tools' own model calls), each
    exported as several cases, make 20 sessions; ids recomputed from the formula with hashlib
    (tests/otlp.span_ids_by_formula), never from the library."""
    stems = [
        "01_one_run_tool",
        "02_runs_anthropic_openai_cache",
        "03_crash_while_call_runs",
        "07_model_errors",
        "08_tool_model_calls",
        "16_canceled_pending",
    ]
    seen: dict[str, str] = {}
    for case in range(20):
        data = (SESSIONS / f"{stems[case % len(stems)]}.jsonl").read_bytes()
        conv = f"case-{case:02d}"
        out = spans(
            export(
                data,
                conv,
                parent_trace_id=parse_trace_id(EVAL_TRACE),
                parent_span_id=parse_span_id(EVAL_SPAN),
            )
        )
        assert {s.trace_id for s in out} == {EVAL_TRACE}
        ids = [s.span_id for s in out]
        assert set(ids) == set(span_ids_by_formula(_lines(data), conv, EVAL_TRACE))
        for ident in ids:
            assert ident not in seen, f"{conv} and {seen[ident]} share span id {ident}"
            seen[ident] = conv
    assert len(seen) > 150


def test_the_reported_collision_is_gone() -> None:
    """The issue's case: 01 and 02 under one parent both had invoke_agent f0287e35af672c47 and
    chat e01ac3a39738fc1d, whatever --conversation-id said."""
    parents = {
        "parent_trace_id": parse_trace_id(EVAL_TRACE),
        "parent_span_id": parse_span_id(EVAL_SPAN),
    }
    first = [s.span_id for s in spans(export(ONE_TOOL_01, "01_one_run_tool", **parents))]
    conv = "02_runs_anthropic_openai_cache"
    second = [s.span_id for s in spans(export(RUNS_02, conv, **parents))]
    other = [s.span_id for s in spans(export(ONE_TOOL_01, "another", **parents))]
    assert not set(first) & set(second) and not set(first) & set(other)
    assert not {"f0287e35af672c47", "e01ac3a39738fc1d"} & set(first + second + other)


def test_span_id_takes_the_conversation_id() -> None:
    trace = bytes.fromhex(EVAL_TRACE)
    key = f"agentloop/span/{EVAL_TRACE}/case-1/chat/4/0"
    assert span_id(trace, "case-1", "chat", 4) == hashlib.sha256(key.encode()).digest()[:8]
    assert span_id(trace, "case-1", "chat", 4) != span_id(trace, "case-2", "chat", 4)
    with pytest.raises(ValueError, match="span must be one of"):
        span_id(trace, "chat", 4, 0)  # type: ignore[arg-type]  # the old order
    assert run_span_id("case-1", 0, parent_trace_id=trace) == span_id(
        trace, "case-1", "invoke_agent", 0
    )
    assert run_span_id("case-1", 0, parent_trace_id=trace) != run_span_id(
        "case-2", 0, parent_trace_id=trace
    )


# Errors in status messages (traces.md, "Errors"; issue 10, item 25)


def test_status_messages_are_kind_and_status_unless_asked() -> None:
    plain = [s.status_message for s in spans(export(RETRIES)) if s.status_code]
    assert plain == ["rate_limited (429)", "overloaded (529)"]
    opted = [s.status_message for s in spans(export(RETRIES, error_messages=True)) if s.status_code]
    assert opted == ["rate_limited (429): slow down", "overloaded (529): busy"]


@pytest.mark.parametrize(
    ("error", "plain", "opted"),
    [
        (
            {"kind": "unreachable", "message": "dial tcp: reset"},
            "unreachable",
            "unreachable: dial tcp: reset",
        ),
        ({"status": 500, "message": "oops"}, "model_error (500)", "model_error (500): oops"),
        ({"kind": "billing", "status": 402}, "billing (402)", "billing (402)"),
        (
            {"kind": "not_found", "status": 404, "message": "é" * 1001},
            "not_found (404)",
            "not_found (404): " + "é" * 1000,
        ),
    ],
)
def test_status_message_of_failed_calls_and_runs(
    error: dict[str, object], plain: str, opted: str
) -> None:
    data = (
        line(0, "run_started", {"prompt": "x"})
        + line(1, "model_error", {"error": error})
        + line(2, "run_ended", outcome("model_error", turns=0, u=usage(), error=error))
    )
    for options, want in (({}, plain), ({"error_messages": True}, opted)):
        agent, failed = spans(export(data, **options))
        assert (agent.status_code, failed.status_code) == (2, 2)
        assert agent.status_message == failed.status_message == want


def test_tool_and_crash_status_messages_are_ours() -> None:
    """Not the log's text: the crashed run and its cut-off calls say what happened."""
    out = spans(export(CRASH_AND_RESUME))
    assert out[0].status_message == "the run has no run_ended: it crashed"
    assert out[2].status_message == "the call has no result in its run: it was cut off"


# Parent ids given to the library (issue 10, item 9): what the CLI checks, the same messages.

GOOD_TRACE = bytes.fromhex("0af7651916cd43dd8448eb211c80319c")
GOOD_SPAN = bytes.fromhex("b7ad6b7169203331")


@pytest.mark.parametrize(
    ("trace", "span", "error", "message"),
    [
        (b"", None, InvalidIdError, "a trace id must be 16 bytes (32 hex digits), got 0"),
        (b"\x01" * 15, None, InvalidIdError, "a trace id must be 16 bytes (32 hex digits), got 15"),
        (b"\x00" * 16, None, InvalidIdError, "a trace id must not be all zero: '" + "0" * 32 + "'"),
        (
            GOOD_TRACE,
            b"\x00" * 8,
            InvalidIdError,
            "a span id must not be all zero: '" + "0" * 16 + "'",
        ),
        (
            GOOD_TRACE,
            b"\x01" * 7,
            InvalidIdError,
            "a span id must be 8 bytes (16 hex digits), got 7",
        ),
        (
            "0af7651916cd43dd8448eb211c80319c",
            None,
            TypeError,
            "a trace id must be 16 bytes, not str",
        ),
        (GOOD_TRACE, "b7ad6b7169203331", TypeError, "a span id must be 8 bytes, not str"),
        (None, GOOD_SPAN, ValueError, "a parent span id needs a parent trace id"),
    ],
)
def test_library_refuses_invalid_parent_ids(
    trace: object, span: object, error: type[Exception], message: str
) -> None:
    options = {"parent_trace_id": trace, "parent_span_id": span}
    with pytest.raises(error) as raised:
        export(ONE_TOOL, **options)
    assert str(raised.value).startswith(message)
    for call in (
        lambda: list(trace_spans([], conversation_id="c", **options)),  # type: ignore[arg-type]
        lambda: otlp_json(io.BytesIO(ONE_TOOL), **options),  # type: ignore[arg-type]
    ):
        with pytest.raises(error) as again:
            call()
        assert str(again.value) == str(raised.value)
    if span is None and trace is not None:
        with pytest.raises(error, match=re.escape(message)):
            run_trace_id("c", 0, parent_trace_id=trace)  # type: ignore[arg-type]
        with pytest.raises(error, match=re.escape(message)):
            run_span_id("c", 0, parent_trace_id=trace)  # type: ignore[arg-type]
        with pytest.raises(error, match=re.escape(message)):
            span_id(trace, "c", "chat", 1)  # type: ignore[arg-type]


def test_the_all_zero_message_is_the_clis() -> None:
    from click.testing import CliRunner

    from sessiontools._cli.main import cli

    result = CliRunner().invoke(cli, ["otel", "-", "--parent-trace", "0" * 32], input=ONE_TOOL)
    assert result.exit_code == 2
    with pytest.raises(InvalidIdError) as raised:
        export(ONE_TOOL, parent_trace_id=bytes(16))
    assert str(raised.value) in result.stderr


def test_parent_ids_as_bytearray_are_taken() -> None:
    data = export(ONE_TOOL, parent_trace_id=bytearray(GOOD_TRACE), parent_span_id=GOOD_SPAN)
    agent = spans(data)[0]
    assert (agent.trace_id, agent.parent_span_id) == (GOOD_TRACE.hex(), GOOD_SPAN.hex())
    assert data == export(ONE_TOOL, parent_trace_id=GOOD_TRACE, parent_span_id=GOOD_SPAN)


def _as_spans(path: Path) -> bytes:
    """The export of ``path`` made the library's way: ``Span`` values, then encoded."""
    from sessiontools import LogReader, iter_runs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = iter_runs(LogReader(path, export=True))
        return encode_otlp_json(trace_spans(runs, conversation_id=path.stem))


def test_the_export_writes_each_span_as_its_span_value_encodes(tmp_path: Path) -> None:
    """``sessiontools otel`` writes each run's spans as OTLP/JSON directly (``run_json``), the
    token counts of a model call as one piece (``_JsonContext.add_usage``): the same bytes
    as the ``Span`` values ``trace_spans`` gives, encoded, for every mix of cache reads and
    writes, in turns, in the calls a tool made, and in a run's usage, and for every sample
    log."""
    lines = [line(1, "run_started", {"prompt": "p"}), line(2, "message", user("go"))]
    seq = 2
    combos = [usage(5, 1), usage(5, 1, read=7), usage(5, 1, write=9), usage(5, 1, 7, 9)]
    for i, u in enumerate(combos):
        seq += 1
        lines.append(line(seq, "message", assistant((f"c{i}", "tool"), u=u)))
        seq += 1
        model_calls = [{"model": "m", "usage": u}, {"model": "", "usage": combos[3 - i]}]
        lines.append(line(seq, "tool_result", result(f"c{i}", usage=model_calls)))
    for u in combos:
        seq += 1
        lines.append(line(seq, "run_ended", outcome(turns=4, u=u)))
        seq += 1
        lines.append(line(seq, "run_started", {"prompt": "p"}))
    path = tmp_path / "combos.jsonl"
    path.write_bytes(b"".join(lines))
    data = otlp_json(path)
    keys = [b"cache_read.input_tokens", b"cache_creation.input_tokens"]
    # each: 2 of the 4 turns, 4 of the tools' 8 calls, 2 of the 4 ended runs
    assert [data.count(key) for key in keys] == [8, 8]
    assert data == _as_spans(path)
    for log in logs_in_testdata():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = otlp_json(log)
        except SessionToolsError:
            continue
        assert data == _as_spans(log), log.name


def _as_spans_with(path: Path, **options: Any) -> bytes:
    """``_as_spans`` with the export's options (``trace_spans``'s names)."""
    from sessiontools import LogReader, iter_runs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = iter_runs(LogReader(path, export=True))
        return encode_otlp_json(trace_spans(runs, **options))


_ODD = 'a"b\\c</script>\u2028é'  # a name JSON must escape, in each part written once


@pytest.mark.parametrize(
    "options",
    [
        {"conversation_id": "random"},
        {"conversation_id": _ODD, "agent_name": _ODD, "error_messages": True},
        {
            "conversation_id": "c",
            "parent_trace_id": bytes(range(1, 17)),
            "parent_span_id": bytes(range(1, 9)),
        },
    ],
    ids=["plain", "odd-names", "parents"],
)
def test_the_parts_spans_share_are_written_as_each_span_writes_them(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """The export writes the ``invoke_agent`` spans, the ``chat`` spans of turns and of the
    calls tools made, and the ``execute_tool`` spans, from parts written once for many spans
    (``otlp_json._agent_json``, ``_turn_json``, ``_tool_json``): the same bytes as each
    ``Span`` encoded, for random logs (crashes, resumed calls, denials, refusals, tool errors,
    labels, failed calls) and the sample logs, with names JSON escapes and parent ids."""
    paths = [tmp_path / f"r{i}.jsonl" for i in range(120)]
    for i, path in enumerate(paths):
        path.write_bytes(random_log(random.Random(i)))
    tool = line(3, "tool_result", result("c1", usage=[{"model": _ODD, "usage": usage(1, 2)}]))
    odd = tmp_path / "odd.jsonl"
    odd.write_bytes(
        line(1, "run_started", {"prompt": "p"})
        + line(2, "message", assistant(("c1", _ODD), provider=_ODD, model=_ODD, stop=_ODD))
        + tool
    )
    compared = 0
    for path in [*paths, odd, *logs_in_testdata()]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = otlp_json(path, **options)
        except SessionToolsError:
            continue
        assert data == _as_spans_with(path, **options), path.name
        compared += 1
    assert compared > 100


def test_the_split_child_writes_each_run_in_one_piece() -> None:
    """The child of a log read in two writes each run's spans to its temporary file in one
    piece (a write per span before), and says where each run's labels attribute is in them;
    the parent passes them on in pieces of up to 1 MiB, each labels attribute written again."""
    from sessiontools import iter_runs
    from sessiontools._log.reader import ExportReader
    from sessiontools._otel.export import _Spans
    from sessiontools._otel.otlp_json import Envelope, _fragment
    from sessiontools._otel.spans import SESSION_LABELS

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = list(iter_runs(ExportReader(SESSIONS / "09_refused_and_forbidden.jsonl")))
    writes: list[bytes] = []

    class Out(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            writes.append(bytes(data))
            return len(data)

    job = _Spans(Envelope(lambda data: None, "agentloop"), ("c", None, None, None, False))
    size, patches, labels = job.make_in_child(iter(runs), Out())
    assert len(runs) > 1 and len(writes) == len(runs)
    data = b"".join(writes)
    assert size == len(data) and data.startswith(b',{"traceId":')
    assert len(patches) == len(runs)
    for offset, length, index in patches:
        assert data[offset : offset + length] == _fragment((SESSION_LABELS, labels[index]))
    # The parent copies them with the session's labels written again, in one piece here
    # (a piece per run and per labels attribute before).
    merged: list[bytes] = []
    parent = _Spans(Envelope(merged.append, "agentloop"), ("c", None, None, None, False))
    head = len(merged)
    parent.merge((size, patches, labels), io.BytesIO(data), {"zz-before-the-cut"}, 0)
    assert len(merged) == head + 1
    expected = data
    for offset, length, index in reversed(patches):
        both = _fragment((SESSION_LABELS, tuple(sorted({"zz-before-the-cut", *labels[index]}))))
        expected = expected[:offset] + both + expected[offset + length :]
    assert merged[-1] == b',"spans":[' + expected[1:]
