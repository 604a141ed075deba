"""Sending settings: flags, then OpenTelemetry's exporter environment variables, then the
OTLP/HTTP defaults (OpenTelemetry specification, "OpenTelemetry Protocol Exporter")."""

from __future__ import annotations

import re

import pytest

from sessiontools._send.config import (
    DEFAULT_ENDPOINT,
    DEFAULT_MAX_REQUEST_BYTES,
    parse_headers,
    redact_url,
    resolve_config,
)


def test_defaults_without_flags_or_environment() -> None:
    c = resolve_config(env={})
    assert c.endpoint == DEFAULT_ENDPOINT == "http://localhost:4318/v1/traces"
    assert (c.protocol, c.compression, c.timeout_seconds) == ("http/protobuf", "none", 10.0)
    assert c.max_request_bytes == DEFAULT_MAX_REQUEST_BYTES == 4 * 1024 * 1024
    assert c.headers == ()


@pytest.mark.parametrize(
    ("base", "want"),
    [
        ("http://collector:4318", "http://collector:4318/v1/traces"),
        ("http://collector:4318/", "http://collector:4318/v1/traces"),
        ("https://api.example/otlp", "https://api.example/otlp/v1/traces"),
        ("https://api.example/otlp/", "https://api.example/otlp/v1/traces"),
    ],
)
def test_the_generic_endpoint_gets_the_signal_path(base: str, want: str) -> None:
    assert resolve_config(env={"OTEL_EXPORTER_OTLP_ENDPOINT": base}).endpoint == want


def test_the_traces_endpoint_is_used_as_is_and_wins_over_the_generic_one() -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://generic:4318",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:9999/custom",
    }
    assert resolve_config(env=env).endpoint == "http://traces:9999/custom"
    assert resolve_config(endpoint="http://flag/v1/traces", env=env).endpoint == (
        "http://flag/v1/traces"
    )


def test_every_setting_from_the_environment_and_the_traces_variable_wins() -> None:
    env = {
        "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
        "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
        "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",  # milliseconds, as the specification says
    }
    c = resolve_config(env=env)
    assert (c.protocol, c.compression, c.timeout_seconds) == ("http/protobuf", "gzip", 2.5)


def test_flags_win_over_the_environment() -> None:
    env = {"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500"}
    c = resolve_config(protocol="http/protobuf", timeout_seconds=30, env=env)
    assert (c.protocol, c.timeout_seconds) == ("http/protobuf", 30.0)


def test_headers_are_url_decoded_from_the_environment_and_flags_replace_by_name() -> None:
    env = {"OTEL_EXPORTER_OTLP_HEADERS": " api-key = a%20b%2Cc , X-Team=blue,,"}
    c = resolve_config(headers=["x-team=red", "x-mlflow-experiment-id=7"], env=env)
    assert dict(c.headers) == {"api-key": "a b,c", "x-team": "red", "x-mlflow-experiment-id": "7"}
    # a flag's value is taken as it is: not URL-decoded
    c = resolve_config(headers=["Authorization=Bearer a%20b"], env={})
    assert c.headers == (("Authorization", "Bearer a%20b"),)


def test_traces_headers_replace_the_generic_ones() -> None:
    env = {
        "OTEL_EXPORTER_OTLP_HEADERS": "a=1",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "b=2",
    }
    assert resolve_config(env=env).headers == (("b", "2"),)


@pytest.mark.parametrize(
    ("kwargs", "env", "message"),
    [
        ({"protocol": "grpc"}, {}, "--protocol: grpc is not supported"),
        ({}, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL: grpc"),
        ({"protocol": "thrift"}, {}, "--protocol must be one of http/protobuf, http/json"),
        ({"compression": "zstd"}, {}, "--compression must be one of gzip, none"),
        ({}, {"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "OTEL_EXPORTER_OTLP_TIMEOUT must be a"),
        ({"timeout_seconds": 0}, {}, "--timeout must be more than 0 and at most 86400"),
        ({"timeout_seconds": float("nan")}, {}, "--timeout must be more than 0"),
        ({"timeout_seconds": 1e10}, {}, "--timeout must be more than 0 and at most 86400 seconds"),
        (
            {},
            {"OTEL_EXPORTER_OTLP_TIMEOUT": "-5"},
            "OTEL_EXPORTER_OTLP_TIMEOUT must be more than 0",
        ),
        ({}, {"OTEL_EXPORTER_OTLP_TIMEOUT": "1e13"}, "OTEL_EXPORTER_OTLP_TIMEOUT must be more"),
        ({"headers": ["Content-Length=5"]}, {}, "--header: Content-Length is set by the sender"),
        ({"headers": ["host=evil"]}, {}, "--header: host is set by the sender itself"),
        (
            {},
            {"OTEL_EXPORTER_OTLP_HEADERS": "Content-Encoding=gzip"},
            "OTEL_EXPORTER_OTLP_HEADERS: pair 1: Content-Encoding is set by the sender",
        ),
        ({}, {"OTEL_EXPORTER_OTLP_HEADERS": "a=%ZZ"}, "OTEL_EXPORTER_OTLP_HEADERS: a value has a"),
        ({"max_request_bytes": 10}, {}, "--max-request-bytes must be at least 1024"),
        ({"endpoint": "localhost:4318"}, {}, "--endpoint: localhost:4318 is not an http"),
        ({"endpoint": "ftp://h/v1/traces"}, {}, "--endpoint: ftp://h/v1/traces is not an http"),
        ({"endpoint": "http://h:99999/v1/traces"}, {}, "--endpoint: not a URL"),
        ({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "nohost"}, "OTEL_EXPORTER_OTLP_ENDPOINT: nohost"),
        ({"headers": ["novalue"]}, {}, "--header: give NAME=VALUE"),
        ({"headers": ["bad name=x"]}, {}, "--header: 'bad name' is not an HTTP header"),
    ],
)
def test_bad_settings_are_one_line_errors(
    kwargs: dict[str, object], env: dict[str, str], message: str
) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        resolve_config(env=env, **kwargs)  # type: ignore[arg-type]


def test_a_header_given_curl_style_is_refused_without_showing_it() -> None:
    with pytest.raises(ValueError) as e:
        resolve_config(headers=["Authorization: Bearer sk-live-0123456789"], env={})
    assert "sk-live" not in str(e.value) and "NAME=VALUE" in str(e.value)


def test_no_message_or_repr_holds_a_header_value() -> None:
    secret = "Bearer sk-live-0123456789"
    with pytest.raises(ValueError) as e:
        parse_headers(f"Authorization={secret},broken", "OTEL_EXPORTER_OTLP_HEADERS")
    assert "pair 2" in str(e.value) and "sk-live" not in str(e.value)
    with pytest.raises(ValueError) as e:
        resolve_config(headers=[f"Authorization={secret}\r\nX: y"], env={})
    assert "sk-live" not in str(e.value)
    c = resolve_config(headers=[f"Authorization={secret}"], env={})
    assert "sk-live" not in repr(c) and "Authorization" in repr(c)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pw@h:1/v1/traces", "https://***@h:1/v1/traces"),
        ("https://h/v1/traces?api_key=abc", "https://h/v1/traces?***"),
        ("http://h/v1/traces", "http://h/v1/traces"),
    ],
)
def test_urls_are_named_without_their_secrets(url: str, shown: str) -> None:
    assert redact_url(url) == shown
