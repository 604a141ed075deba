"""Request bodies for OTLP/HTTP, kept under a size.

The two encodings of OTLP/HTTP: ``http/protobuf`` (``_otel.otlp_proto``) and ``http/json``
(the file export's OTLP/JSON: for one session that fits one request, the body is the export's
bytes). ``requests(runs, ...)`` packs the spans of runs into bodies of at most
``max_request_bytes``: whole runs while they fit; a run larger than that split between its
spans; a single span larger than the limit goes alone. Each ``Request`` says which runs it
completes, so a run sent in several requests counts as delivered only with its last.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from .._otel.otlp_json import Envelope, encode_span
from .._otel.otlp_proto import ProtobufEncoding
from .._otel.spans import Span

__all__ = ["JsonEncoding", "Request", "encoding_for", "requests"]

_Unit = TypeVar("_Unit")


@dataclass(frozen=True)
class Request:
    """One request body.

    Attributes:
        body: the encoded ``ExportTraceServiceRequest`` (not compressed).
        spans: how many spans it holds.
        runs: the keys of the runs whose last span is in it (delivered once it is
            acknowledged), in order.
        parts: ``(run key, span id)`` of the spans it holds of runs it does not complete (a run
            larger than a request): delivered, but not their run yet.
    """

    body: bytes
    spans: int
    runs: tuple[Any, ...]
    parts: tuple[tuple[Any, bytes], ...] = ()


class _Encoding(Protocol[_Unit]):
    overhead: int

    def unit(self, span: Span) -> _Unit: ...
    def size(self, unit: _Unit) -> int: ...
    def body(self, units: Sequence[_Unit]) -> bytes: ...


class JsonEncoding:
    """``http/json``: the file export's OTLP/JSON, span for span."""

    def __init__(self, service_name: str = "agentloop") -> None:
        self._service_name = service_name
        # the envelope with a `"spans":[...]` holding one empty span (each span's size counts
        # a comma, one more than needed)
        self.overhead = len(self.body([b""]))

    def unit(self, span: Span) -> bytes:
        return encode_span(span)

    def size(self, unit: bytes) -> int:
        return len(unit) + 1  # and a comma

    def body(self, units: Sequence[bytes]) -> bytes:
        out = bytearray()
        envelope = Envelope(out.extend, self._service_name)
        if units:
            envelope.joined(b"," + b",".join(units))
        envelope.close()
        return bytes(out)


def encoding_for(protocol: str, service_name: str) -> ProtobufEncoding | JsonEncoding:
    """The encoding of ``protocol`` (``http/protobuf`` or ``http/json``)."""
    if protocol == "http/protobuf":
        return ProtobufEncoding(service_name)
    if protocol == "http/json":
        return JsonEncoding(service_name)
    raise ValueError(f"no encoding for protocol {protocol!r}")


class _Packer(Generic[_Unit]):
    def __init__(self, encoding: _Encoding[_Unit], max_bytes: int) -> None:
        self.encoding = encoding
        self.room = max_bytes - encoding.overhead
        self.units: list[_Unit] = []
        self.used = 0
        self.runs: list[Any] = []
        self.parts: list[tuple[Any, bytes]] = []  # spans of the run being split, so far

    def full_for(self, size: int) -> bool:
        return bool(self.units) and self.used + size > self.room

    def flush(self) -> Request | None:
        if not self.units and not self.runs:
            return None
        request = Request(
            self.encoding.body(self.units), len(self.units), tuple(self.runs), tuple(self.parts)
        )
        self.units = []
        self.used = 0
        self.runs = []
        self.parts = []
        return request


def requests(
    runs: Iterable[tuple[Any, Sequence[Span]]],
    encoding: ProtobufEncoding | JsonEncoding,
    max_request_bytes: int,
) -> Iterator[Request]:
    """Pack the spans of ``runs`` (``(key, spans)`` pairs, in order) into requests of at most
    ``max_request_bytes`` before compression: whole runs while they fit; a run that does not
    fit in an empty request is split between its spans; a span larger than the limit goes
    alone. A request is made as soon as the next run does not fit (memory holds one request).
    """
    packer: _Packer[Any] = _Packer(encoding, max_request_bytes)
    for key, spans in runs:
        units = [encoding.unit(span) for span in spans]
        sizes = [encoding.size(unit) for unit in units]
        total = sum(sizes)
        if packer.full_for(total):
            request = packer.flush()
            if request is not None:
                yield request
        if total <= packer.room:
            packer.units.extend(units)
            packer.used += total
        else:
            for span, unit, size in zip(spans, units, sizes, strict=True):
                if packer.full_for(size):
                    request = packer.flush()
                    if request is not None:
                        yield request
                packer.units.append(unit)
                packer.used += size
                packer.parts.append((key, span.span_id))
            # the run ends in this request: its spans here are not parts of an unfinished run
            packer.parts = [(k, s) for k, s in packer.parts if k is not key]
        packer.runs.append(key)
    request = packer.flush()
    if request is not None:
        yield request
