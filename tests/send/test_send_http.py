"""Posting to a real OTLP/HTTP receiver on 127.0.0.1 (tests/receiver.py), faults included:
what arrives, how many attempts, what the sender says (OTLP specification, "OTLP/HTTP")."""

from __future__ import annotations

import gzip
import socket
from collections.abc import Iterator

import pytest

from sessiontools import SendError, read_session, trace_spans
from sessiontools._otel.otlp_proto import encode_otlp_protobuf
from sessiontools._send.batches import encoding_for, requests
from sessiontools._send.config import resolve_config
from sessiontools._send.http import OtlpHttpSender
from tests.helpers import SESSIONS
from tests.receiver import Receiver

LOG = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def _body() -> bytes:
    runs = read_session(LOG).runs
    return encode_otlp_protobuf(trace_spans(runs, conversation_id="02"))


class _Clock:
    """A clock that moves only when slept on: retries without waiting."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds

    def __call__(self) -> float:
        return self.now


def _sender(endpoint: str, clock: _Clock | None = None, **config: object) -> OtlpHttpSender:
    settings = resolve_config(endpoint=endpoint, env={}, **config)  # type: ignore[arg-type]
    if clock is None:
        return OtlpHttpSender(settings, backoff_factor=0.01, backoff_jitter=0)
    return OtlpHttpSender(settings, sleep=clock.sleep, clock=clock, backoff_jitter=0)


def test_a_request_arrives_as_sent_with_its_headers(receiver: Receiver) -> None:
    body = _body()
    with _sender(receiver.endpoint, headers=["x-mlflow-experiment-id=7"]) as sender:
        ack = sender.post(body)
    assert (ack.attempts, ack.rejected_spans, ack.message) == (1, 0, "")
    (got,) = receiver.received
    assert got.body == body and got.path == "/v1/traces"
    assert got.headers["content-type"] == "application/x-protobuf"
    assert got.headers["x-mlflow-experiment-id"] == "7"
    assert got.request is not None and got.request.SerializeToString(deterministic=True) == body


def test_gzip_compression(receiver: Receiver) -> None:
    body = _body()
    with _sender(receiver.endpoint, compression="gzip") as sender:
        ack = sender.post(body)
    (got,) = receiver.received
    assert got.headers["content-encoding"] == "gzip"
    assert gzip.decompress(got.body) == body
    assert ack.sent_bytes == len(got.body) < len(body)


def test_json_requests_say_so(receiver: Receiver) -> None:
    runs = read_session(LOG).runs
    keyed = [(run.start_seq, list(trace_spans([run], conversation_id="02"))) for run in runs]
    (request,) = requests(keyed, encoding_for("http/json", "agentloop"), 4 << 20)
    with _sender(receiver.endpoint, protocol="http/json") as sender:
        sender.post(request.body)
    (got,) = receiver.received
    assert got.headers["content-type"] == "application/json"
    assert got.request == receiver.requests()[0]
    assert sum(len(ss.spans) for rs in got.request.resource_spans for ss in rs.scope_spans) == 18


def test_503_with_retry_after_waits_as_asked(receiver: Receiver) -> None:
    clock = _Clock()
    receiver.fail(503, b"busy", Retry_After="7")
    reasons: list[str] = []
    with _sender(receiver.endpoint, clock) as sender:
        ack = sender.post(_body(), retried=reasons.append)
    assert ack.attempts == 2 and clock.waits == [7.0]
    assert reasons == ["HTTP 503: busy"]
    assert [r.answered for r in receiver.received] == ["status 503", "ok"]


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_retryable_statuses_back_off_exponentially(receiver: Receiver, status: int) -> None:
    clock = _Clock()
    for _ in range(4):
        receiver.fail(status)
    with _sender(receiver.endpoint, clock) as sender:
        ack = sender.post(_body())
    # urllib3's Retry: the first retry at once, then backoff_factor * 2 ** (n - 1)
    assert ack.attempts == 5 and clock.waits == [2.0, 4.0, 8.0]
    assert len(receiver.requests()) == 1


def test_a_reset_connection_is_retried(receiver: Receiver) -> None:
    receiver.reset()
    reasons: list[str] = []
    with _sender(receiver.endpoint) as sender:
        ack = sender.post(_body(), retried=reasons.append)
    assert ack.attempts == 2
    assert reasons == ["the connection was closed or reset"]
    assert [r.answered for r in receiver.received] == ["reset", "ok"]


def test_an_answer_slower_than_the_timeout_is_retried(receiver: Receiver) -> None:
    receiver.slow(1.0)
    reasons: list[str] = []
    with _sender(receiver.endpoint, timeout_seconds=0.2) as sender:
        ack = sender.post(_body(), retried=reasons.append)
    assert ack.attempts == 2 and reasons == ["no answer within 0.2 s"]


def test_other_statuses_fail_at_once_naming_status_and_the_first_line(
    receiver: Receiver,
) -> None:
    receiver.fail(400, b"invalid span: trace id is zero\nmore detail\n")
    with _sender(receiver.endpoint) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    assert e.value.status == 400 and e.value.attempts == 1
    assert str(e.value) == f"{receiver.endpoint}: HTTP 400: invalid span: trace id is zero"
    assert len(receiver.received) == 1


def test_a_protobuf_status_body_is_read_for_its_message(receiver: Receiver) -> None:
    from google.rpc import status_pb2  # type: ignore[import-untyped]

    said = status_pb2.Status(code=3, message="bad \x1b[31mthing").SerializeToString()
    receiver.fail(413, said, Content_Type="application/x-protobuf")
    with _sender(receiver.endpoint) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    assert str(e.value).endswith("HTTP 413: bad \\x1b[31mthing")


def test_partial_success_is_acknowledged_and_reported(receiver: Receiver) -> None:
    receiver.partial(3, "spans too old")
    with _sender(receiver.endpoint) as sender:
        ack = sender.post(_body())
    assert (ack.attempts, ack.rejected_spans, ack.message) == (1, 3, "spans too old")


def test_the_retry_budget_ends_a_request(receiver: Receiver) -> None:
    clock = _Clock()
    for _ in range(20):
        receiver.fail(503)
    with _sender(receiver.endpoint, clock) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    # waits 0, 2, 4, 8, 16, 32, 32, 32 = 126 > 120: the 8th retry would pass the budget
    assert clock.waits == [2.0, 4.0, 8.0, 16.0, 32.0, 32.0]
    assert sum(clock.waits) <= 120
    assert e.value.status == 503 and e.value.attempts == 8
    assert "gave up after 8 attempts" in str(e.value)


def test_a_retry_after_beyond_the_budget_ends_the_request_at_once(receiver: Receiver) -> None:
    clock = _Clock()
    receiver.fail(429, Retry_After="300")
    with _sender(receiver.endpoint, clock) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    assert clock.waits == [] and e.value.attempts == 1
    assert "the endpoint asked to wait 300 s" in str(e.value)


def test_nobody_listening_is_retried_until_the_budget_ends() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    clock = _Clock()
    endpoint = f"http://127.0.0.1:{port}/v1/traces"
    with _sender(endpoint, clock) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    assert "cannot connect" in str(e.value) and e.value.status is None
    assert sum(clock.waits) <= 120 and e.value.attempts > 3


def test_no_error_names_a_header_value_or_url_secret(receiver: Receiver) -> None:
    secret = "sk-live-0123456789"
    endpoint = receiver.endpoint.replace("http://", f"http://user:{secret}@") + f"?k={secret}"
    receiver.fail(401, b"unauthorized")
    headers = [f"Authorization=Bearer {secret}"]
    with _sender(endpoint, headers=headers) as sender, pytest.raises(SendError) as e:
        sender.post(_body())
    assert secret not in str(e.value) and "HTTP 401: unauthorized" in str(e.value)
    assert receiver.received[0].headers["authorization"] == f"Bearer {secret}"
