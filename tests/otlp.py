"""Checking exports against the OTLP protobuf schema and the pinned conventions."""

from __future__ import annotations

import base64
import importlib
import pkgutil
from dataclasses import dataclass
from typing import Any

import opentelemetry.semconv._incubating.attributes as incubating
import opentelemetry.semconv.attributes as stable
import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def to_proto(data: bytes) -> ExportTraceServiceRequest:
    """Parse an OTLP/JSON export into the protobuf classes, refusing unknown fields.

    OTLP/JSON writes ids in hex where the proto3 JSON mapping has base64: turn them back first.
    """
    doc = orjson.loads(data)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        raw = bytes.fromhex(span[key])
                        span[key] = base64.b64encode(raw).decode()
    request = ExportTraceServiceRequest()
    json_format.Parse(orjson.dumps(doc), request, ignore_unknown_fields=False)
    return request


def semconv_keys() -> frozenset[str]:
    """Every attribute name defined by the semantic conventions package pinned in pyproject
    (opentelemetry-semantic-conventions 0.63b0, generated from semantic conventions 1.41)."""
    keys: set[str] = set()
    for package in (stable, incubating):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            keys.update(v for k, v in vars(module).items() if k.isupper() and isinstance(v, str))
    return frozenset(keys)


@dataclass(frozen=True)
class SpanView:
    """A span of an export, decoded for assertions."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: int
    start: int
    end: int
    attributes: dict[str, Any]
    status_code: int
    status_message: str


def _value(v: dict[str, Any]) -> Any:
    if "stringValue" in v:
        return v["stringValue"]
    if "boolValue" in v:
        return v["boolValue"]
    if "intValue" in v:
        assert isinstance(v["intValue"], str), "64-bit integers are strings in OTLP/JSON"
        return int(v["intValue"])
    if "arrayValue" in v:
        return tuple(_value(x) for x in v["arrayValue"].get("values", []))
    raise AssertionError(f"unexpected attribute value {v}")


def spans(data: bytes) -> list[SpanView]:
    """The spans of an export, in order."""
    doc = orjson.loads(data)
    (rs,) = doc["resourceSpans"]
    (ss,) = rs["scopeSpans"]
    out = []
    for s in ss.get("spans", []):
        keys = [a["key"] for a in s["attributes"]]
        assert len(keys) == len(set(keys)), f"repeated attribute in {s['name']}"
        status = s.get("status", {})
        out.append(
            SpanView(
                s["traceId"],
                s["spanId"],
                s.get("parentSpanId", ""),
                s["name"],
                s["kind"],
                int(s["startTimeUnixNano"]),
                int(s["endTimeUnixNano"]),
                {a["key"]: _value(a["value"]) for a in s["attributes"]},
                status.get("code", 0),
                status.get("message", ""),
            )
        )
    return out
