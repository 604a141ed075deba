"""Where and how traces are sent: flags first, then OpenTelemetry's exporter environment
variables, then the OTLP/HTTP defaults (OpenTelemetry specification, "OpenTelemetry Protocol
Exporter").

- endpoint: ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (used as is), else
  ``OTEL_EXPORTER_OTLP_ENDPOINT`` with ``v1/traces`` appended; default
  ``http://localhost:4318/v1/traces``;
- headers: ``..._HEADERS``, ``name=value`` pairs separated by commas, URL-encoded; none;
- protocol: ``..._PROTOCOL``, ``http/protobuf`` (default) or ``http/json``;
- compression: ``..._COMPRESSION``, ``gzip`` or ``none`` (default);
- timeout: ``..._TIMEOUT``, in milliseconds; default 10 s.

Each ``OTEL_EXPORTER_OTLP_TRACES_*`` variable wins over its ``OTEL_EXPORTER_OTLP_*`` twin.
Headers given as flags are added to those of the environment; a flag's header replaces the
environment's of the same name (names are case-insensitive). Header values are secrets: no
message, ``repr`` or state file holds them, and an endpoint is named in messages without its
user information or query (``redact_url``).
"""

from __future__ import annotations

import math
import os
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .names import COMPRESSIONS, PROTOCOLS

__all__ = [
    "DEFAULT_ENDPOINT",
    "DEFAULT_MAX_REQUEST_BYTES",
    "DEFAULT_TIMEOUT_SECONDS",
    "PROTOCOLS",
    "SendConfig",
    "parse_headers",
    "redact_url",
    "resolve_config",
]

DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces"
DEFAULT_TIMEOUT_SECONDS = 10.0
#: The longest timeout taken: a day (a request is retried for 120 s at most anyway).
MAX_TIMEOUT_SECONDS = 86_400.0
#: Requests are kept under this many bytes before compression (4 MiB, the usual limit of
#: collectors and backends).
DEFAULT_MAX_REQUEST_BYTES = 4 * 1024 * 1024

# RFC 7230 token: what a header name may be.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


@dataclass(frozen=True)
class SendConfig:
    """Everything needed to send: resolved, checked, ready.

    Attributes:
        endpoint: the full URL the requests are posted to (``.../v1/traces``).
        headers: ``(name, value)`` pairs sent with every request; never shown (``repr``
            names them without their values).
        protocol: ``http/protobuf`` or ``http/json``.
        compression: ``gzip`` or ``none``.
        timeout_seconds: how long one attempt may wait for an answer.
        max_request_bytes: the largest request body before compression.
    """

    endpoint: str
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    protocol: str = "http/protobuf"
    compression: str = "none"
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES

    def __repr__(self) -> str:
        names = ", ".join(name for name, _ in self.headers)
        return (
            f"SendConfig(endpoint={redact_url(self.endpoint)!r}, headers=[{names}], "
            f"protocol={self.protocol!r}, compression={self.compression!r}, "
            f"timeout_seconds={self.timeout_seconds!r}, "
            f"max_request_bytes={self.max_request_bytes!r})"
        )


def redact_url(url: str) -> str:
    """``url`` without what may be a secret: user information and the query are replaced by
    ``***`` (``https://***@host/v1/traces?***``)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<an invalid URL>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "***@" + netloc.rpartition("@")[2]
    query = "***" if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def parse_headers(text: str, where: str) -> list[tuple[str, str]]:
    """Headers in the form of ``OTEL_EXPORTER_OTLP_HEADERS``: ``name=value`` pairs separated
    by commas, each name and value URL-encoded (``%20``), blanks around them ignored.

    Raises:
        ValueError: a pair without ``=``, or a name that is not an HTTP header name; the
            message names ``where`` and the pair's position, never a value.
    """
    headers = []
    for index, pair in enumerate(text.split(","), 1):
        if not pair.strip():
            continue
        name, eq, value = pair.partition("=")
        name = urllib.parse.unquote(name.strip())
        if not eq:
            raise ValueError(f"{where}: pair {index} has no '=' (give name=value,name=value)")
        headers.append((_header_name(name, f"{where}: pair {index}"), _value(value, where)))
    return headers


#: Headers the sender sets itself: giving them would break the request (a wrong length, a body
#: said to be compressed that is not).
RESERVED_HEADERS = frozenset(
    {
        "content-type",
        "content-length",
        "content-encoding",
        "transfer-encoding",
        "host",
        "connection",
    }
)


def _header_name(name: str, where: str) -> str:
    if not _TOKEN.fullmatch(name):
        raise ValueError(f"{where}: {name!r} is not an HTTP header name")
    if name.lower() in RESERVED_HEADERS:
        raise ValueError(f"{where}: {name} is set by the sender itself; it cannot be given")
    return name


def _value(value: str, where: str) -> str:
    value = value.strip()
    if re.search(r"%(?![0-9A-Fa-f]{2})", value):
        raise ValueError(f"{where}: a value has a '%' that is not a URL escape (%XX)")
    value = urllib.parse.unquote(value)
    if any(c in value for c in "\r\n\0"):
        raise ValueError(f"{where}: a header value holds a line break or NUL")
    return value


def _flag_header(text: str) -> tuple[str, str]:
    name, eq, value = text.partition("=")
    if not eq:  # (not shown: "Authorization: Bearer ..." would be a secret)
        raise ValueError("--header: give NAME=VALUE (a name, '=', then the value)")
    name = _header_name(name.strip(), "--header")
    if any(c in value for c in "\r\n\0"):
        raise ValueError(f"--header {name}: the value holds a line break or NUL")
    return name, value.strip()


def _env(env: Mapping[str, str], suffix: str) -> tuple[str, str] | None:
    """The value of ``OTEL_EXPORTER_OTLP_TRACES_{suffix}``, else ``OTEL_EXPORTER_OTLP_{suffix}``,
    with the variable's name; an empty variable counts as unset."""
    for variable in (f"OTEL_EXPORTER_OTLP_TRACES_{suffix}", f"OTEL_EXPORTER_OTLP_{suffix}"):
        value = env.get(variable, "").strip()
        if value:
            return variable, value
    return None


def _check_endpoint(url: str, where: str) -> str:
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ValueError(f"{where}: not a URL: {redact_url(url)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            f"{where}: {redact_url(url)} is not an http:// or https:// URL with a host"
        )
    return url


def resolve_config(
    *,
    endpoint: str | None = None,
    headers: Iterable[str] | Mapping[str, str] = (),
    protocol: str | None = None,
    compression: str | None = None,
    timeout_seconds: float | None = None,
    max_request_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
) -> SendConfig:
    """The settings to send with: these arguments (the command's flags), else the
    environment (``env``, default ``os.environ``), else the defaults (module docstring).

    Args:
        headers: ``NAME=VALUE`` strings (``--header``, taken as they are, not URL-decoded) or
            a mapping; added to the environment's headers, replacing those of the same name.

    Raises:
        ValueError: a setting that is not valid; the message names the flag or variable and
            never holds a header value.
    """
    env = os.environ if env is None else env
    if endpoint is not None:
        url = _check_endpoint(endpoint, "--endpoint")
    elif (found := _env_endpoint(env)) is not None:
        url = found
    else:
        url = DEFAULT_ENDPOINT

    merged: dict[str, tuple[str, str]] = {}
    if (found_headers := _env(env, "HEADERS")) is not None:
        for name, value in parse_headers(found_headers[1], found_headers[0]):
            merged[name.lower()] = (name, value)
    pairs = (
        [(_header_name(k, "headers"), _value(v, "headers")) for k, v in headers.items()]
        if isinstance(headers, Mapping)
        else [_flag_header(text) for text in headers]
    )
    for name, value in pairs:
        merged[name.lower()] = (name, value)

    protocol = _choice(protocol, "--protocol", env, "PROTOCOL", PROTOCOLS, "http/protobuf")
    compression = _choice(compression, "--compression", env, "COMPRESSION", COMPRESSIONS, "none")

    timeout_from = "--timeout"
    if timeout_seconds is None:
        found_timeout = _env(env, "TIMEOUT")
        if found_timeout is None:
            timeout_seconds = DEFAULT_TIMEOUT_SECONDS
        else:
            timeout_from = found_timeout[0]
            timeout_seconds = _number(found_timeout[1], found_timeout[0]) / 1000.0
    if not (math.isfinite(timeout_seconds) and 0 < timeout_seconds <= MAX_TIMEOUT_SECONDS):
        shown = (
            f"{timeout_seconds:g} s"
            if timeout_from == "--timeout"
            else f"{timeout_seconds * 1000:g} ms"
        )
        raise ValueError(
            f"{timeout_from} must be more than 0 and at most {MAX_TIMEOUT_SECONDS:g} seconds "
            f"(a day), not {shown}"
        )

    if max_request_bytes is None:
        max_request_bytes = DEFAULT_MAX_REQUEST_BYTES
    if max_request_bytes < 1024:
        raise ValueError(f"--max-request-bytes must be at least 1024, not {max_request_bytes}")

    return SendConfig(
        endpoint=url,
        headers=tuple(merged[key] for key in sorted(merged)),
        protocol=protocol,
        compression=compression,
        timeout_seconds=float(timeout_seconds),
        max_request_bytes=max_request_bytes,
    )


def _env_endpoint(env: Mapping[str, str]) -> str | None:
    value = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if value:
        return _check_endpoint(value, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    value = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if value:
        _check_endpoint(value, "OTEL_EXPORTER_OTLP_ENDPOINT")
        return value + ("v1/traces" if value.endswith("/") else "/v1/traces")
    return None


def _choice(
    given: str | None,
    flag: str,
    env: Mapping[str, str],
    suffix: str,
    choices: tuple[str, ...],
    default: str,
) -> str:
    if given is not None:
        where, value = flag, given
    elif (found := _env(env, suffix)) is not None:
        where, value = found
    else:
        return default
    value = value.strip().lower()
    if value == "grpc":
        raise ValueError(f"{where}: grpc is not supported; use http/protobuf")
    if value not in choices:
        raise ValueError(f"{where} must be one of {', '.join(choices)}, not {value!r}")
    return value


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where} must be a number of milliseconds, not {text!r}") from None
    return value
