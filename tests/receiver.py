"""A real OTLP/HTTP trace receiver on 127.0.0.1 for the tests, with faults on demand.

It decodes what it is sent (``application/x-protobuf`` or ``application/json``, gzip or not)
into ``ExportTraceServiceRequest`` messages, refusing unknown fields, and answers as a
collector does: 200 with an empty ``ExportTraceServiceResponse`` in the request's encoding.

Faults are queued: each request takes the next one, if any (``fail``, ``reset``, ``slow``,
``partial``), so a test says exactly what the n-th request meets.
"""

from __future__ import annotations

import base64
import gzip
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


@dataclass
class Received:
    """One request as it arrived (whatever the answer was)."""

    path: str
    headers: dict[str, str]
    body: bytes  # as sent (compressed when it was)
    request: ExportTraceServiceRequest | None  # None when it could not be decoded
    answered: str  # "ok", "partial", "status 503", "reset", "slow"
    at: float = 0.0  # time.monotonic() when it arrived


@dataclass
class _Fault:
    kind: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    seconds: float = 0.0
    rejected: int = 0
    message: str = ""


def json_to_request(data: bytes) -> ExportTraceServiceRequest:
    """OTLP/JSON (hex ids) into the protobuf class, refusing unknown fields."""
    doc = orjson.loads(data)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for span in ss.get("spans", []):
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
    request = ExportTraceServiceRequest()
    json_format.Parse(orjson.dumps(doc), request, ignore_unknown_fields=False)
    return request


class Receiver:
    """Start with ``with Receiver() as r:``; ``r.endpoint`` is its ``/v1/traces`` URL."""

    def __init__(self, delay: float = 0.0) -> None:
        """``delay``: every request is answered that long after it arrived."""
        self.delay = delay
        self.received: list[Received] = []
        self._faults: deque[_Fault] = deque()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                receiver._handle(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        host, port = self._server.server_address[:2]
        self.endpoint = f"http://{host}:{port}/v1/traces"

    def __enter__(self) -> Receiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # faults

    def fail(self, status: int, body: bytes = b"", **headers: str) -> None:
        """The next request gets ``status`` (with ``Retry-After`` etc. as headers)."""
        h = {k.replace("_", "-"): v for k, v in headers.items()}
        self._faults.append(_Fault("status", status=status, headers=h, body=body))

    def reset(self) -> None:
        """The next request's connection is reset without an answer."""
        self._faults.append(_Fault("reset"))

    def slow(self, seconds: float) -> None:
        """The next request is answered (200) only after ``seconds``."""
        self._faults.append(_Fault("slow", seconds=seconds))

    def partial(self, rejected: int, message: str) -> None:
        """The next request gets 200 with a ``partial_success``."""
        self._faults.append(_Fault("partial", rejected=rejected, message=message))

    # what arrived

    def requests(self) -> list[ExportTraceServiceRequest]:
        """The decoded requests that were acknowledged (answered 2xx), in order."""
        return [
            r.request
            for r in self.received
            if r.request is not None and r.answered in ("ok", "partial", "slow")
        ]

    def span_ids(self, acknowledged_only: bool = True) -> list[bytes]:
        out = []
        for r in self.received:
            if r.request is None:
                continue
            if acknowledged_only and r.answered not in ("ok", "partial", "slow"):
                continue
            for rs in r.request.resource_spans:
                for ss in rs.scope_spans:
                    out.extend(s.span_id for s in ss.spans)
        return out

    # the handler

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length)
        arrived = time.monotonic()
        headers = {k.lower(): v for k, v in h.headers.items()}
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
        data = body
        request: ExportTraceServiceRequest | None = None
        kind = headers.get("content-type", "").split(";")[0].strip()
        try:
            if headers.get("content-encoding") == "gzip":
                data = gzip.decompress(body)
            if kind == "application/json":
                request = json_to_request(data)
            else:
                request = ExportTraceServiceRequest()
                request.ParseFromString(data)
        except Exception:
            request = None
        answered = "ok"
        if fault is not None and fault.kind == "reset":
            self._record(h.path, headers, body, request, "reset", arrived)
            sock = h.connection
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
            h.close_connection = True
            return
        if fault is not None and fault.kind == "slow":
            time.sleep(fault.seconds)
            answered = "slow"
        elif self.delay:
            time.sleep(self.delay)
        if request is None:
            self._answer(h, 400, b"cannot decode the request", "text/plain", {})
            self._record(h.path, headers, body, None, "status 400", arrived)
            return
        if fault is not None and fault.kind == "status":
            self._record(h.path, headers, body, request, f"status {fault.status}", arrived)
            headers = dict(fault.headers)
            content_type = headers.pop("Content-Type", "text/plain")
            self._answer(h, fault.status, fault.body, content_type, headers)
            return
        response = ExportTraceServiceResponse()
        if fault is not None and fault.kind == "partial":
            response.partial_success.rejected_spans = fault.rejected
            response.partial_success.error_message = fault.message
            answered = "partial"
        if kind == "application/json":
            out = json_format.MessageToJson(response).encode()
        else:
            out = response.SerializeToString()
        self._record(h.path, headers, body, request, answered, arrived)
        self._answer(h, 200, out, kind or "application/x-protobuf", {})

    def _record(
        self,
        path: str,
        headers: dict[str, str],
        body: bytes,
        request: ExportTraceServiceRequest | None,
        answered: str,
        arrived: float,
    ) -> None:
        with self._lock:
            self.received.append(Received(path, headers, body, request, answered, arrived))

    @staticmethod
    def _answer(
        h: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        content_type: str,
        headers: dict[str, str],
    ) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", content_type)
            h.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(body)
        except OSError:
            pass  # the client gave up (a timeout): nothing to answer
