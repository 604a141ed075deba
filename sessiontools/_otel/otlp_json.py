"""Spans to OTLP/JSON: the third part of the traces exporter.

``write_otlp_json(spans, write, ...)`` (as it goes) and ``encode_otlp_json(spans, ...)`` (as
bytes) write one ``ExportTraceServiceRequest`` in OTLP/JSON: the proto3 JSON mapping with
OTLP's changes (hex ids, integer enums, 64-bit integers as decimal strings, lowerCamelCase keys;
OTLP specification 1.x, "JSON Protobuf Encoding"; docs/traces.md, "OTLP/JSON"). Making spans
(``spans``) and encoding them are kept apart, as opentelemetry-python keeps its encoders apart
from its exporters. Spans are encoded as they come, the JSON of repeated attributes cached; a
time or an integer OTLP cannot hold is a ``ValueError``, never a wrapped number.
"""

from __future__ import annotations

from binascii import hexlify
from collections.abc import Callable, Iterable

import orjson

from .._version import __version__
from .spans import SCHEMA_URL, STATUS_CODE_UNSET, AttributeValue, Span

__all__ = ["Envelope", "encode_otlp_json", "encode_span", "write_otlp_json"]


# What OTLP holds: a fixed64 time and a signed 64-bit intValue. The exporters refuse, as they
# read, what goes beyond (sessiontools._log.limits); spans made otherwise are checked here.
_UINT64_MAX = 2**64 - 1


_INT64_MIN = -(2**63)


_INT64_MAX = 2**63 - 1


_KEY_PREFIX: dict[str, bytes] = {}


_FRAGMENTS: dict[tuple[str, AttributeValue], bytes] = {}


_UNCACHED = frozenset({"gen_ai.tool.call.id"})


_NAMES: dict[str, bytes] = {}


def _key_prefix(key: str) -> bytes:
    prefix = _KEY_PREFIX.get(key)
    if prefix is None:
        prefix = _KEY_PREFIX[key] = b'{"key":' + orjson.dumps(key) + b',"value":'
    return prefix


def _fragment(pair: tuple[str, AttributeValue]) -> bytes:
    key, value = pair
    if isinstance(value, bool):
        return _key_prefix(key) + (b'{"boolValue":true}}' if value else b'{"boolValue":false}}')
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(f"{key} = {value} does not fit an OTLP intValue (signed 64 bits)")
        return _key_prefix(key) + b'{"intValue":"%d"}}' % value
    if isinstance(value, str):
        out = _key_prefix(key) + b'{"stringValue":' + orjson.dumps(value) + b"}}"
    else:
        values = [{"stringValue": s} for s in value]
        array = orjson.dumps({"arrayValue": {"values": values} if values else {}})
        out = _key_prefix(key) + array + b"}"
    if key not in _UNCACHED:
        if len(_FRAGMENTS) > 20_000:
            _FRAGMENTS.clear()
        _FRAGMENTS[pair] = out
    return out


def _span_json(span: Span) -> bytes:
    """A span as OTLP/JSON: fields in the proto's order, defaults omitted."""
    get = _FRAGMENTS.get
    attributes = b",".join([get(pair) or _fragment(pair) for pair in span.attributes])
    name = _NAMES.get(span.name)
    if name is None:
        if len(_NAMES) > 20_000:
            _NAMES.clear()
        name = _NAMES[span.name] = orjson.dumps(span.name)
    if span.parent_span_id:
        head = b'{"traceId":"%s","spanId":"%s","parentSpanId":"%s","name":%s,"kind":%d,' % (
            hexlify(span.trace_id),
            hexlify(span.span_id),
            hexlify(span.parent_span_id),
            name,
            span.kind,
        )
    else:
        head = b'{"traceId":"%s","spanId":"%s","name":%s,"kind":%d,' % (
            hexlify(span.trace_id),
            hexlify(span.span_id),
            name,
            span.kind,
        )
    start, end = span.start_time_unix_nano, span.end_time_unix_nano
    if not (0 <= start <= _UINT64_MAX and 0 <= end <= _UINT64_MAX):
        raise ValueError(
            f"span {span.name!r}: times {start} and {end} do not fit OTLP's fixed64 Unix "
            "nanoseconds (0 to 2^64-1)"
        )
    times = b'"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[' % (start, end)
    if span.status_code == STATUS_CODE_UNSET:
        return head + times + attributes + b"]}"
    if span.status_message:
        status = orjson.dumps({"message": span.status_message, "code": span.status_code})
    else:
        status = b'{"code":%d}' % span.status_code
    return head + times + attributes + b'],"status":' + status + b"}"


def encode_span(span: Span) -> bytes:
    """One span as OTLP/JSON (lowerCamelCase keys, hex ids, 64-bit integers as strings).

    Raises:
        ValueError: a time outside 0..2^64-1 or an integer attribute outside signed 64 bits:
            OTLP cannot hold it (``write_otlp_json`` and ``encode_otlp_json`` too).
    """
    return _span_json(span)


class Envelope:
    """Writes one ``ExportTraceServiceRequest`` around spans given as they come (see
    ``write_otlp_json``): the head when made, the spans in batches, the tail on ``close()``."""

    def __init__(self, write: Callable[[bytes], object], service_name: str) -> None:
        self._write = write
        self._batch: list[bytes] = []
        self._first = True
        resource = b'{"attributes":[' + _fragment(("service.name", service_name)) + b"]}"
        scope = orjson.dumps({"name": "sessiontools", "version": __version__})
        write(b'{"resourceSpans":[{"resource":' + resource + b',"scopeSpans":[{"scope":' + scope)

    def spans(self, spans: Iterable[Span]) -> None:
        batch = self._batch
        for span in spans:
            batch.append(_span_json(span))
            if len(batch) == 256:
                self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._write((b',"spans":[' if self._first else b",") + b",".join(self._batch))
            self._first = False
            self._batch.clear()

    def joined(self, data: bytes) -> None:
        """Spans already encoded, each after a comma: ``b",{...},{...}"``."""
        if data:
            self._flush()
            self._write(b',"spans":[' + data[1:] if self._first else data)
            self._first = False

    def close(self) -> None:
        self._flush()
        schema = orjson.dumps(SCHEMA_URL)
        self._write((b"" if self._first else b"]") + b',"schemaUrl":' + schema)
        self._write(b'}],"schemaUrl":' + schema + b"}]}\n")


def write_otlp_json(
    spans: Iterable[Span], write: Callable[[bytes], object], *, service_name: str = "agentloop"
) -> None:
    """Write an OTLP/JSON ``ExportTraceServiceRequest`` holding ``spans``, as it goes.

    Args:
        spans: the spans, in order; consumed once.
        write: called with each piece of the output, in order (a binary file's ``write``).
        service_name: the resource's ``service.name``.

    The output is one line ending in ``\\n``: one ``ResourceSpans`` (resource attribute
    ``service.name``) with one ``ScopeSpans`` (scope ``sessiontools`` and its version), both
    with the pinned ``schemaUrl``. The same spans always give the same bytes.
    """
    envelope = Envelope(write, service_name)
    envelope.spans(spans)
    envelope.close()


def encode_otlp_json(spans: Iterable[Span], *, service_name: str = "agentloop") -> bytes:
    """``write_otlp_json`` into bytes: one line of OTLP/JSON ending in ``\\n``."""
    out = bytearray()
    write_otlp_json(spans, out.extend, service_name=service_name)
    return bytes(out)
