"""A session's spans into an OpenTelemetry SDK ``TracerProvider`` (extra ``sessiontools[sdk]``).

An eval pipeline already has a ``TracerProvider`` with its own span processors and exporters
(gRPC, HTTP, a vendor's). ``emit_spans`` makes the spans ``sessiontools otel`` exports, as
SDK ``ReadableSpan`` values with the same ids, times, attributes, status, resource and scope,
and hands each, ended, to the provider's span processors (``on_end``), so they leave through
whatever the pipeline exports with, under the eval's current span by default.
"""

from __future__ import annotations

from typing import Any

from .._log.reader import LogReader, LogSource
from .._log.sources import default_conversation_id
from .._model.fold import SessionFold, iter_runs
from .._version import __version__
from .spans import SCHEMA_URL, SPAN_KIND_CLIENT, STATUS_CODE_ERROR, Span, trace_spans

__all__ = ["emit_spans"]


def _sdk() -> Any:
    try:
        from opentelemetry import trace
        from opentelemetry.sdk import resources
        from opentelemetry.sdk import trace as sdk_trace
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    except ImportError as e:
        raise ImportError(
            "emit_spans needs the OpenTelemetry SDK: pip install 'sessiontools[sdk]'"
        ) from e
    return trace, resources, sdk_trace, InstrumentationScope


def _processor(provider: Any) -> Any:
    # The SDK's TracerProvider keeps its span processors in `_active_span_processor`, the
    # one place every span it ends goes through; it has no public accessor for it.
    processor = getattr(provider, "_active_span_processor", None)
    if processor is None or not hasattr(processor, "on_end"):
        raise TypeError(
            f"{type(provider).__name__} is not an OpenTelemetry SDK TracerProvider "
            "(opentelemetry.sdk.trace.TracerProvider): it has no span processors to hand "
            "spans to"
        )
    return processor


def _parent_context(trace: Any, parent: Any) -> Any:
    """The ``SpanContext`` to put the runs under: ``parent`` (a span or a span context), or
    the current span; ``None`` when that is not a valid span."""
    if parent is None:
        parent = trace.get_current_span()
    context = parent.get_span_context() if hasattr(parent, "get_span_context") else parent
    if not isinstance(context, trace.SpanContext):
        raise TypeError(f"parent must be a span or a SpanContext, not {type(parent).__name__}")
    return context if context.is_valid else None


def emit_spans(
    log: LogSource,
    tracer_provider: Any = None,
    parent: Any = None,
    *,
    conversation_id: str | None = None,
    agent_name: str | None = None,
    service_name: str = "agentloop",
    name: str | None = None,
) -> int:
    """Hand the spans of a session log to an OpenTelemetry SDK tracer provider.

    Args:
        log: a session log or a run's transcript (a path or a binary file).
        tracer_provider: an SDK ``TracerProvider``; default: the global one
            (``opentelemetry.trace.get_tracer_provider()``).
        parent: a span or ``SpanContext`` to put every run under; default: the current
            span (``trace.get_current_span()``), so within
            ``tracer.start_as_current_span("eval case")`` the runs become its children. With
            no valid parent the runs are root spans of their own traces, as in the export.
        conversation_id, agent_name, service_name, name: as for ``otlp_json``.

    Returns:
        How many spans were handed over.

    The spans are those of ``otlp_json(log, parent_trace_id=..., parent_span_id=...)``: same
    ids, names, kinds, times, attributes (in order), status, resource (``service.name``) and
    scope (``sessiontools``, with the pinned schema URL). They are given, ended, to the
    provider's span processors' ``on_end``, in the export's order.

    Raises:
        ImportError: the SDK is not installed (``pip install 'sessiontools[sdk]'``).
        TypeError: the provider is not an SDK ``TracerProvider``; a bad ``parent``.
        DamagedLogError, EntryError, OSError: as ``read_session``; spans of the runs before
            the damage have been handed over.
    """
    trace, resources, sdk_trace, scope_class = _sdk()
    provider = tracer_provider if tracer_provider is not None else trace.get_tracer_provider()
    processor = _processor(provider)
    context = _parent_context(trace, parent)
    parent_trace_id = context.trace_id.to_bytes(16, "big") if context is not None else None
    parent_span_id = context.span_id.to_bytes(8, "big") if context is not None else None
    resource = resources.Resource({"service.name": service_name}, SCHEMA_URL)
    scope = scope_class("sessiontools", __version__, SCHEMA_URL)
    flags = trace.TraceFlags(trace.TraceFlags.SAMPLED)
    kinds = {SPAN_KIND_CLIENT: trace.SpanKind.CLIENT}
    count = 0
    with LogReader(log, name=name) as reader:
        spans = trace_spans(
            iter_runs(reader, SessionFold(reader.name)),
            conversation_id=conversation_id or default_conversation_id(reader.name),
            parent_trace_id=parent_trace_id,
            parent_span_id=parent_span_id,
            agent_name=agent_name,
        )
        for span in spans:
            processor.on_end(
                _readable(span, trace, sdk_trace, resource, scope, flags, kinds, context)
            )
            count += 1
    return count


def _readable(
    span: Span,
    trace: Any,
    sdk_trace: Any,
    resource: Any,
    scope: Any,
    flags: Any,
    kinds: dict[int, Any],
    parent: Any,
) -> Any:
    trace_id = int.from_bytes(span.trace_id, "big")
    own = trace.SpanContext(trace_id, int.from_bytes(span.span_id, "big"), False, flags)
    if span.parent_span_id:
        if parent is not None and span.parent_span_id == parent.span_id.to_bytes(8, "big"):
            parent_context = parent
        else:
            parent_context = trace.SpanContext(
                trace_id, int.from_bytes(span.parent_span_id, "big"), False, flags
            )
    else:
        parent_context = None
    if span.status_code == STATUS_CODE_ERROR:
        status = trace.Status(trace.StatusCode.ERROR, span.status_message or None)
    else:
        status = trace.Status(trace.StatusCode.UNSET)
    return sdk_trace.ReadableSpan(
        name=span.name,
        context=own,
        parent=parent_context,
        resource=resource,
        attributes=dict(span.attributes),
        kind=kinds.get(span.kind, trace.SpanKind.INTERNAL),
        status=status,
        start_time=span.start_time_unix_nano,
        end_time=span.end_time_unix_nano,
        instrumentation_scope=scope,
    )
