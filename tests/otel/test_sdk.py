"""``emit_spans``: a session's spans into an OpenTelemetry SDK tracer provider, equal to the
OTLP/JSON export of the same log under the same parent (checked through the SDK's own OTLP
encoder, opentelemetry-exporter-otlp-proto-common)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from sessiontools import DamagedLogError, otlp_json
from sessiontools._otel.sdk import emit_spans
from tests.helpers import SESSIONS, logs_in_testdata
from tests.receiver import json_to_request

READABLE = [p for p in logs_in_testdata() if "damaged" not in p.name]
pytestmark = pytest.mark.filterwarnings("ignore::sessiontools.SessionToolsWarning")


@pytest.fixture
def provider() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def _as_request(spans: tuple[ReadableSpan, ...] | list[ReadableSpan]) -> ExportTraceServiceRequest:
    request = encode_spans(spans)
    for rs in request.resource_spans:
        for ss in rs.scope_spans:
            for span in ss.spans:
                span.ClearField("flags")  # the SDK writes its sampled/remote flags
                if not span.status.code and not span.status.message:
                    span.ClearField("status")  # an unset status, written empty
    return request


@pytest.mark.parametrize("path", READABLE, ids=lambda p: p.name)
def test_spans_under_the_current_span_equal_the_export_under_it(
    provider: tuple[TracerProvider, InMemorySpanExporter], path: Path
) -> None:
    tp, exporter = provider
    tracer = tp.get_tracer("eval")
    with tracer.start_as_current_span("eval case") as case:
        count = emit_spans(path, tp)
    context = case.get_span_context()
    emitted = [s for s in exporter.get_finished_spans() if s.name != "eval case"]
    assert count == len(emitted)
    want = json_to_request(
        otlp_json(
            path,
            parent_trace_id=context.trace_id.to_bytes(16, "big"),
            parent_span_id=context.span_id.to_bytes(8, "big"),
        )
    )
    if not emitted:
        assert not want.resource_spans[0].scope_spans[0].spans
        return
    assert _as_request(emitted) == want
    for span in emitted:
        assert span.context.trace_id == context.trace_id
        if span.name.startswith("invoke_agent"):
            assert span.parent == context


def test_without_a_current_span_the_runs_are_their_own_traces(
    provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    tp, exporter = provider
    log = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
    emit_spans(log, tp)
    assert _as_request(exporter.get_finished_spans()) == json_to_request(otlp_json(log))


def test_an_explicit_parent_and_export_options(
    provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    tp, exporter = provider
    log = SESSIONS / "08_tool_model_calls.jsonl"
    parent = trace.SpanContext(0x5B8EFFF798038103D269B633813FC60C, 0x00F067AA0BA902B7, False)
    emit_spans(log, tp, parent, conversation_id="case-7", agent_name="solver", service_name="ev")
    want = otlp_json(
        log,
        conversation_id="case-7",
        agent_name="solver",
        service_name="ev",
        parent_trace_id=bytes.fromhex("5b8efff798038103d269b633813fc60c"),
        parent_span_id=bytes.fromhex("00f067aa0ba902b7"),
    )
    assert _as_request(exporter.get_finished_spans()) == json_to_request(want)


def test_not_an_sdk_provider_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="not an OpenTelemetry SDK TracerProvider"):
        emit_spans(SESSIONS / "01_one_run_tool.jsonl", trace.NoOpTracerProvider())


def test_a_bad_parent_is_a_type_error(
    provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    with pytest.raises(TypeError, match="parent must be a span or a SpanContext"):
        emit_spans(SESSIONS / "01_one_run_tool.jsonl", provider[0], parent="00f067aa0ba902b7")


def test_a_damaged_log_raises_after_the_runs_before_the_damage(
    provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    tp, exporter = provider
    with pytest.raises(DamagedLogError):
        emit_spans(SESSIONS / "05_damaged_middle_line.jsonl", tp)
    # the log's first run ends before the damaged line: its spans were handed over
    assert exporter.get_finished_spans()
