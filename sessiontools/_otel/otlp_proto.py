"""Spans as binary protobuf: the ``http/protobuf`` encoding of OTLP, an
``ExportTraceServiceRequest`` built with the protobuf classes of ``opentelemetry-proto`` and
serialized deterministically. It holds what the OTLP/JSON export holds (``otlp_json``): one
``ResourceSpans`` (``service.name``) with one ``ScopeSpans`` (``sessiontools`` and its version),
both with the pinned schema URL, and each span's fields in the same values.

``opentelemetry-proto`` loads only when something is encoded this way (not for a file export).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._version import __version__
from .spans import SCHEMA_URL, AttributeValue, Span

__all__ = ["ProtobufEncoding", "encode_otlp_protobuf", "span_proto"]


def _any_value(common_pb2: Any, value: AttributeValue) -> Any:
    if isinstance(value, bool):
        return common_pb2.AnyValue(bool_value=value)
    if isinstance(value, int):
        return common_pb2.AnyValue(int_value=value)
    if isinstance(value, str):
        return common_pb2.AnyValue(string_value=value)
    array = common_pb2.ArrayValue(values=[common_pb2.AnyValue(string_value=s) for s in value])
    return common_pb2.AnyValue(array_value=array)


def _varint_size(n: int) -> int:
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


class ProtobufEncoding:
    """Spans as ``opentelemetry.proto.trace.v1.Span`` messages (``unit``), their size within a
    request (``size``), and requests holding them (``body``). Attributes repeat across spans (a
    log's models, tools, labels): each ``KeyValue`` is made once and copied."""

    def __init__(self, service_name: str = "agentloop") -> None:
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
        from opentelemetry.proto.common.v1 import common_pb2
        from opentelemetry.proto.trace.v1 import trace_pb2

        self._request = trace_service_pb2.ExportTraceServiceRequest
        self._common = common_pb2
        self._span: Any = trace_pb2.Span  # enums given as the integers spans hold
        self._attributes: dict[tuple[str, AttributeValue], Any] = {}
        self._service_name = service_name
        #: the bytes of a request around its spans, and room for its lengths to grow
        self.overhead = len(self.body([])) + 8

    def attribute(self, pair: tuple[str, AttributeValue]) -> Any:
        """The ``KeyValue`` of an attribute (made once per value)."""
        kv = self._attributes.get(pair)
        if kv is None:
            kv = self._common.KeyValue(key=pair[0], value=_any_value(self._common, pair[1]))
            if len(self._attributes) > 20_000:
                self._attributes.clear()
            self._attributes[pair] = kv
        return kv

    def unit(self, span: Span) -> Any:
        """One span as a protobuf message."""
        message = self._span(
            trace_id=span.trace_id,
            span_id=span.span_id,
            parent_span_id=span.parent_span_id,
            name=span.name,
            kind=span.kind,
            start_time_unix_nano=span.start_time_unix_nano,
            end_time_unix_nano=span.end_time_unix_nano,
        )
        message.attributes.extend([self.attribute(pair) for pair in span.attributes])
        if span.status_code:
            message.status.code = span.status_code
            if span.status_message:
                message.status.message = span.status_message
        return message

    def size(self, unit: Any) -> int:
        """What a span adds to a request: its field's tag, length and bytes."""
        n: int = unit.ByteSize()
        return n + 1 + _varint_size(n)

    def body(self, units: Sequence[Any]) -> bytes:
        """An ``ExportTraceServiceRequest`` holding these spans, serialized."""
        request = self._request()
        rs = request.resource_spans.add(schema_url=SCHEMA_URL)
        rs.resource.attributes.append(self.attribute(("service.name", self._service_name)))
        ss = rs.scope_spans.add(schema_url=SCHEMA_URL)
        ss.scope.name = "sessiontools"
        ss.scope.version = __version__
        ss.spans.extend(units)
        data: bytes = request.SerializeToString(deterministic=True)
        return data


def span_proto(span: Span) -> Any:
    """A ``Span`` as an ``opentelemetry.proto.trace.v1.Span`` message: the fields the OTLP/JSON
    export writes, nothing more."""
    return ProtobufEncoding().unit(span)


def encode_otlp_protobuf(spans: Iterable[Span], *, service_name: str = "agentloop") -> bytes:
    """``spans`` as one binary protobuf ``ExportTraceServiceRequest``: the request
    ``encode_otlp_json`` writes in JSON, in the protobuf encoding."""
    encoding = ProtobufEncoding(service_name)
    return encoding.body([encoding.unit(span) for span in spans])
