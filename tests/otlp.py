"""Checking exports against the OTLP protobuf schema and the pinned conventions."""

from __future__ import annotations

import base64
import hashlib
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


def _digest(text: str, size: int) -> bytes:
    ident = hashlib.sha256(text.encode("utf-8")).digest()[:size]
    return ident if any(ident) else ident[:-1] + b"\x01"


def span_ids_by_formula(
    entries: list[dict[str, Any]], conversation_id: str, parent_trace: str | None = None
) -> dict[str, tuple[str, str, int, int]]:
    """Every span id an export of ``entries`` (a log's lines, parsed with the json module)
    should hold, by the contract's formulas (traces.md, "Identity and order"), computed with
    hashlib apart from the library: id -> (trace id, span, seq, index).

    Runs go from a ``run_started`` to their ``run_ended`` or the next ``run_started``. Spans:
    ``invoke_agent`` on the ``run_started``; ``chat`` on each assistant ``message`` and
    ``model_error``; ``execute_tool`` on the asking message and the call's index among its tool
    calls, or for a call this run did not ask for (resumed) on this run's ``tool_result`` for
    it (index 0), else on the first entry of this run about it; ``tool_chat`` on a
    ``tool_result`` and the index in its ``usage``.
    """
    runs: list[list[dict[str, Any]]] = []
    open_run = False
    for entry in entries:
        if entry["type"] == "run_started":
            runs.append([])
            open_run = True
        if open_run:
            runs[-1].append(entry)
        if entry["type"] == "run_ended":
            open_run = False
    out: dict[str, tuple[str, str, int, int]] = {}

    def add(trace: str, span: str, seq: int, index: int) -> None:
        key = f"agentloop/span/{trace}/{conversation_id}/{span}/{seq}/{index}"
        ident = _digest(key, 8).hex()
        assert ident not in out, f"two spans with one id: {key} and {out[ident]}"
        out[ident] = (trace, span, seq, index)

    for run in runs:
        start = run[0]["seq"]
        trace = parent_trace or _digest(f"agentloop/trace/{conversation_id}/{start}", 16).hex()
        add(trace, "invoke_agent", start, 0)
        asked: set[str] = set()
        about: dict[str, int] = {}  # call id -> the first entry of this run about it
        settled: dict[str, int] = {}  # call id -> its tool_result in this run
        for entry in run:
            kind, seq = entry["type"], entry["seq"]
            payload = entry[kind]
            if kind == "model_error":
                add(trace, "chat", seq, 0)
            elif kind == "message" and payload["message"]["role"] == "assistant":
                add(trace, "chat", seq, 0)
                calls = [p for p in payload["message"]["parts"] or [] if p.get("tool_call")]
                for index, part in enumerate(calls):
                    asked.add(part["tool_call"]["id"])
                    add(trace, "execute_tool", seq, index)
            elif kind in ("decision", "call_started"):
                about.setdefault(payload["call_id"], seq)
            elif kind == "tool_result":
                call_id = payload["result"]["call_id"]
                about.setdefault(call_id, seq)
                settled.setdefault(call_id, seq)
                for index, _ in enumerate(payload.get("usage") or []):
                    add(trace, "tool_chat", seq, index)
        for call_id, seq in about.items():
            if call_id not in asked:
                add(trace, "execute_tool", settled.get(call_id, seq), 0)
    return out
