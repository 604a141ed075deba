"""Posting request bodies to an OTLP/HTTP endpoint, as the OTLP specification says
("OTLP/HTTP": "Failures", "Throttling", "Partial Success").

- Retried: 429, 502, 503 and 504, a connection that fails or is reset, and an answer slower
  than the timeout; with exponential back-off and jitter (urllib3's ``Retry`` computes it),
  or after the ``Retry-After`` the endpoint asks for. One request gets at most
  ``RETRY_BUDGET_SECONDS`` (120 s) in all; a ``Retry-After`` beyond what is left ends it.
- Any other status of 300 or more fails the request: ``SendError`` names the status and the
  first line of what the endpoint said (a protobuf ``google.rpc.Status``'s message, or the
  text).
- 2xx: the request is acknowledged. A ``partial_success`` with rejected spans is reported
  (``Ack.rejected_spans``, ``Ack.message``); the request still counts as acknowledged.

Every request carries the same span ids however often it is sent, so a backend that keeps one
span per id sees a retried request once.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._errors import SendError
from .._version import __version__
from .config import SendConfig, redact_url

__all__ = ["RETRYABLE_STATUS", "RETRY_BUDGET_SECONDS", "Ack", "OtlpHttpSender", "SendError"]

RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
RETRY_BUDGET_SECONDS = 120.0

_CONTENT_TYPES = {"http/protobuf": "application/x-protobuf", "http/json": "application/json"}


@dataclass(frozen=True)
class Ack:
    """An acknowledged request.

    Attributes:
        attempts: how many times it was sent (1 when not retried).
        rejected_spans: spans the endpoint said it rejected (``partial_success``).
        message: the endpoint's ``partial_success`` message, one line, or ``""``.
        sent_bytes: bytes on the wire (compressed, when compressing), for each attempt.
    """

    attempts: int
    rejected_spans: int
    message: str
    sent_bytes: int


def _one_line(text: str, limit: int = 300) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    line = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in line)
    return line if len(line) <= limit else line[: limit - 1] + "…"


class OtlpHttpSender:
    """Posts bodies to one endpoint over a pool of kept-alive connections (urllib3).

    Args:
        config: where and how (``resolve_config``).
        retry_budget_seconds: at most this long for one request, retries included.
        backoff_factor, backoff_max, backoff_jitter: urllib3 ``Retry``'s back-off (seconds):
            ``backoff_factor * 2 ** (n - 1)`` before the n-th retry (the first is at once),
            plus up to ``backoff_jitter`` at random, at most ``backoff_max``.
        sleep, clock: how to wait and tell the time (tests pass their own).
    """

    def __init__(
        self,
        config: SendConfig,
        *,
        retry_budget_seconds: float = RETRY_BUDGET_SECONDS,
        backoff_factor: float = 1.0,
        backoff_max: float = 32.0,
        backoff_jitter: float = 1.0,
        sleep: Callable[[float], object] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        import urllib3  # loaded only to send

        self.config = config
        self._urllib3 = urllib3
        self._budget = retry_budget_seconds
        self._retry = urllib3.Retry(
            total=None,
            connect=None,
            read=None,
            status=None,
            other=None,
            redirect=0,
            allowed_methods=None,
            status_forcelist=RETRYABLE_STATUS,
            backoff_factor=backoff_factor,
            backoff_max=backoff_max,
            backoff_jitter=backoff_jitter,
            respect_retry_after_header=True,
            raise_on_status=False,
        )
        self._sleep = sleep
        self._clock = clock
        self._pool = urllib3.PoolManager(
            num_pools=4,
            maxsize=1,
            timeout=urllib3.Timeout(connect=config.timeout_seconds, read=config.timeout_seconds),
            retries=False,
        )
        self._headers = {
            "Content-Type": _CONTENT_TYPES[config.protocol],
            "User-Agent": f"sessiontools/{__version__}",
        }
        if config.compression == "gzip":
            self._headers["Content-Encoding"] = "gzip"
        for name, value in config.headers:
            self._headers[name] = value
        self._where = redact_url(config.endpoint)

    def close(self) -> None:
        self._pool.clear()

    def __enter__(self) -> OtlpHttpSender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def post(self, body: bytes, *, retried: Callable[[str], object] | None = None) -> Ack:
        """Send one request body until it is acknowledged or cannot be.

        Args:
            body: an encoded ``ExportTraceServiceRequest`` (compressed here when configured).
            retried: called with a one-line reason before each retry (for progress).

        Raises:
            SendError: refused, or not acknowledged within the retry budget.
        """
        urllib3 = self._urllib3
        exceptions = urllib3.exceptions
        data = gzip.compress(body, compresslevel=6, mtime=0) if self._gzip else body
        deadline = self._clock() + self._budget
        retry = self._retry
        attempts = 0
        while True:
            attempts += 1
            status: int | None = None
            asked = ""
            try:
                response = self._pool.request(
                    "POST",
                    self.config.endpoint,
                    body=data,
                    headers=self._headers,
                    retries=False,
                    redirect=False,
                    preload_content=True,
                )
            except (
                exceptions.TimeoutError,
                exceptions.ProtocolError,
                exceptions.NewConnectionError,
                exceptions.ProxyError,
                exceptions.SSLError,
                exceptions.ConnectTimeoutError,
            ) as e:
                why = _error_reason(e, self.config.timeout_seconds)
                retry = retry.increment("POST", self.config.endpoint, error=e)
                wait = retry.get_backoff_time()
            except exceptions.HTTPError as e:  # anything else urllib3 raises: not retried
                raise SendError(
                    f"{self._where}: {_error_reason(e, self.config.timeout_seconds)}",
                    attempts=attempts,
                ) from None
            else:
                status = response.status
                if 200 <= status < 300:
                    rejected, message = _partial_success(response, self.config.protocol)
                    return Ack(attempts, rejected, message, len(data) * attempts)
                said = _said(response)
                why = f"HTTP {status}" + (f": {said}" if said else "")
                if status not in RETRYABLE_STATUS:
                    raise SendError(f"{self._where}: {why}", status, attempts)
                retry = retry.increment("POST", self.config.endpoint, response=response)
                after = retry.get_retry_after(response)
                if after is not None:
                    asked = f" (the endpoint asked to wait {after:g} s)"
                wait = after if after is not None else retry.get_backoff_time()
            left = deadline - self._clock()
            if wait > left:
                raise SendError(
                    f"{self._where}: {why}; gave up after {attempts} attempts{asked} "
                    f"(a request is retried for at most {self._budget:g} s)",
                    status,
                    attempts,
                )
            if retried is not None:
                retried(why)
            if wait > 0:
                self._sleep(wait)

    @property
    def _gzip(self) -> bool:
        return self.config.compression == "gzip"


def _error_reason(e: Exception, timeout: float) -> str:
    """A urllib3 error in a few words (its own text names the pool and may hold a URL)."""
    name = type(e).__name__
    if name == "ConnectTimeoutError":
        return f"cannot connect within {timeout:g} s"
    if "Timeout" in name:
        return f"no answer within {timeout:g} s"
    if name == "ProtocolError":
        return "the connection was closed or reset"
    if name == "NameResolutionError":
        return "cannot resolve the host name"
    if name == "NewConnectionError":
        return "cannot connect"
    if name == "SSLError":
        return "TLS failed"
    return name


def _said(response: Any) -> str:
    """The first line of what an endpoint said with a failure: a ``google.rpc.Status``'s
    message for protobuf, else the body as text."""
    data: bytes = response.data or b""
    kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    if kind in ("application/x-protobuf", "application/protobuf") and data:
        try:
            from google.rpc import status_pb2  # type: ignore[import-untyped]

            status = status_pb2.Status()
            status.ParseFromString(data)
            if status.message:
                return _one_line(status.message)
        except Exception:
            pass
    return _one_line(data[:4096].decode("utf-8", "replace"))


def _partial_success(response: Any, protocol: str) -> tuple[int, str]:
    """``(rejected_spans, error_message)`` of an ``ExportTraceServiceResponse``; ``(0, "")``
    for an empty or undecodable answer (it is a success either way)."""
    data: bytes = response.data or b""
    if not data:
        return 0, ""
    kind = (response.headers.get("Content-Type") or "").split(";")[0].strip().lower()
    try:
        if kind == "application/json" or (not kind and data[:1] == b"{"):
            import orjson

            doc = orjson.loads(data)
            partial = doc.get("partialSuccess") or doc.get("partial_success") or {}
            rejected = int(partial.get("rejectedSpans") or partial.get("rejected_spans") or 0)
            message = str(partial.get("errorMessage") or partial.get("error_message") or "")
            return rejected, _one_line(message)
        from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

        answer = trace_service_pb2.ExportTraceServiceResponse()
        answer.ParseFromString(data)
        return (
            int(answer.partial_success.rejected_spans),
            _one_line(answer.partial_success.error_message),
        )
    except Exception:
        return 0, ""
