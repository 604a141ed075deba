"""Request bodies: protobuf equal to the JSON export, and packing under a size limit."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from sessiontools import Span, otlp_json, read_session, trace_spans
from sessiontools._otel.otlp_proto import encode_otlp_protobuf
from sessiontools._send.batches import Request, encoding_for, requests
from tests.helpers import SESSIONS, logs_in_testdata
from tests.receiver import json_to_request

READABLE = [p for p in logs_in_testdata() if "damaged" not in p.name]
pytestmark = pytest.mark.filterwarnings("ignore::sessiontools.SessionToolsWarning")


def _runs(path: Path) -> list[tuple[int, list[Span]]]:
    name = path.name.removesuffix(".jsonl")
    return [
        (run.start_seq, list(trace_spans([run], conversation_id=name)))
        for run in read_session(path).runs
    ]


def _spans_of(body: bytes, protocol: str) -> list[bytes]:
    if protocol == "http/json":
        request = json_to_request(body)
    else:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
    (rs,) = request.resource_spans
    (ss,) = rs.scope_spans
    return [s.SerializeToString(deterministic=True) for s in ss.spans]


@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_protobuf_holds_what_the_json_export_holds(path: Path) -> None:
    spans = [span for _, run in _runs(path) for span in run]
    body = encode_otlp_protobuf(spans)
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    assert request == json_to_request(otlp_json(path))


@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_one_json_request_is_the_file_export(path: Path) -> None:
    runs = _runs(path)
    out = list(requests(runs, encoding_for("http/json", "agentloop"), 4 << 20))
    if not runs:  # nothing to send
        assert out == []
        return
    assert len(out) == 1
    assert out[0].body == otlp_json(path)


def _check_packing(runs: list[tuple[int, list[Span]]], protocol: str, limit: int) -> list[Request]:
    encoding = encoding_for(protocol, "agentloop")
    out = list(requests(runs, encoding, limit))
    # every span once, in order
    whole = encoding.body([encoding.unit(s) for _, spans in runs for s in spans])
    assert [s for r in out for s in _spans_of(r.body, protocol)] == _spans_of(whole, protocol)
    assert [r.spans for r in out] == [len(_spans_of(r.body, protocol)) for r in out]
    # every run acknowledged once, in order, with its last span
    assert [k for r in out for k in r.runs] == [k for k, _ in runs]
    sent = 0
    for r in out:
        sent += r.spans
        for key in r.runs:
            last = sum(len(spans) for k, spans in runs[: [k for k, _ in runs].index(key) + 1])
            assert last <= sent
    # under the limit, unless a single span is larger
    for r in out:
        if r.spans > 1:
            assert len(r.body) <= limit, (len(r.body), limit)
    return out


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_runs_are_kept_whole_while_they_fit(protocol: str) -> None:
    runs = _runs(SESSIONS / "02_runs_anthropic_openai_cache.jsonl")
    encoding = encoding_for(protocol, "agentloop")
    sizes = [len(encoding.body([encoding.unit(s) for s in spans])) for _, spans in runs]
    limit = max(sizes) + 10
    out = _check_packing(runs, protocol, limit)
    for r in out:  # no run is cut: each request holds whole runs
        assert r.spans == sum(len(spans) for k, spans in runs if k in r.runs)


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_a_run_larger_than_a_request_is_split_between_its_spans(protocol: str) -> None:
    runs = _runs(SESSIONS / "02_runs_anthropic_openai_cache.jsonl")
    out = _check_packing(runs, protocol, 2048)
    assert any(not r.runs for r in out)  # a request that completes no run
    assert len(out) > len(runs)


@settings(max_examples=40, deadline=None)
@given(
    limit=st.integers(min_value=1024, max_value=40_000),
    protocol=st.sampled_from(["http/protobuf", "http/json"]),
    which=st.sampled_from([p.name for p in READABLE]),
)
def test_packing_keeps_every_span_and_run_whatever_the_limit(
    limit: int, protocol: str, which: str
) -> None:
    _check_packing(_runs(SESSIONS / which), protocol, limit)
