"""The names of the sending options the command line offers (``--protocol``,
``--compression``), apart from ``config`` so that ``sessiontools otel`` loads the sending
modules only to send."""

from __future__ import annotations

__all__ = ["COMPRESSIONS", "PROTOCOLS"]

#: OTLP/HTTP's encodings (``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL``), the default first.
PROTOCOLS = ("http/protobuf", "http/json")
#: The request bodies' compressions (``OTEL_EXPORTER_OTLP_TRACES_COMPRESSION``).
COMPRESSIONS = ("gzip", "none")
