"""``sessiontools otel`` with several logs, and sending (--send / --endpoint), through click's
runner and against the local receiver (tests/receiver.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result

from sessiontools import otlp_json
from sessiontools._cli.main import cli
from tests.helpers import SESSIONS
from tests.receiver import Receiver, json_to_request

ONE = SESSIONS / "01_one_run_tool.jsonl"
TWO = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
SECRET = "sk-live-0123456789abcdef"


def invoke(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env=env or {})


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


@pytest.fixture
def evals(tmp_path: Path) -> Path:
    root = tmp_path / "evals"
    for n, log in ((1, ONE), (2, TWO)):
        (root / f"case-{n}").mkdir(parents=True)
        shutil.copy(log, root / f"case-{n}" / "session.jsonl")
    return root


def test_one_log_is_todays_export_whatever_the_environment_says(receiver: Receiver) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint.removesuffix("/v1/traces")}
    result = invoke("otel", str(ONE), env=env)
    assert result.exit_code == 0
    assert result.stdout_bytes == otlp_json(ONE)
    assert receiver.received == []  # nothing is sent without --send or --endpoint


def test_several_logs_give_one_json_line_each(evals: Path) -> None:
    result = invoke("otel", str(evals))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout_bytes.splitlines()
    assert lines == [
        otlp_json(evals / "case-1" / "session.jsonl", conversation_id="case-1/session").strip(),
        otlp_json(evals / "case-2" / "session.jsonl", conversation_id="case-2/session").strip(),
    ]


def test_several_logs_to_a_directory(
    evals: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files given as they are: each export at its path as given, with .json."""
    monkeypatch.chdir(tmp_path)
    result = invoke(
        "otel", "evals/case-1/session.jsonl", "evals/case-2/session.jsonl", "--out", "out/"
    )
    assert result.exit_code == 0, result.stderr
    for n in (1, 2):
        written = tmp_path / "out" / "evals" / f"case-{n}" / "session.json"
        log = evals / f"case-{n}" / "session.jsonl"
        assert written.read_bytes() == otlp_json(log, conversation_id=f"evals/case-{n}/session")


def test_copies_are_exported_once_and_said(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(TWO, logs / "a.jsonl")
    shutil.copy(TWO, logs / "b.jsonl")
    result = invoke("otel", str(logs))
    assert result.exit_code == 0
    assert result.stdout_bytes == otlp_json(logs / "a.jsonl", conversation_id="a")
    assert "1 logs were copies of others given" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--conversation-id", "x"], "--conversation-id names one session"),
        (["--state", "s.db"], "--state is for sending: give --send or --endpoint"),
        (["--header", "a=b"], "--header is for sending"),
        (["--follow"], "--follow is for sending"),
        (["--protocol", "http/json"], "--protocol is for sending"),
        (["--out", "not-a-directory"], "with several logs, --out is where each session"),
    ],
)
def test_usage_errors_with_several_logs(
    evals: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    result = invoke("otel", str(evals), *args)
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_send_to_the_endpoint_of_the_environment(receiver: Receiver, evals: Path) -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint.removesuffix("/v1/traces"),
        "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{SECRET}",
    }
    result = invoke("otel", str(evals), "--send", env=env)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    (got,) = receiver.received
    assert got.headers["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in result.stderr
    summary = result.stderr.strip().splitlines()[-1]
    assert summary.startswith("sessiontools otel: 2 sessions read (0 copies, 0 unchanged); ")
    assert "; 6 runs and 22 spans sent in 1 request (" in summary  # 01: 1 run, 02: 5
    want = json_to_request(
        otlp_json(evals / "case-1" / "session.jsonl", conversation_id="case-1/session")
    )
    ids = {
        s.span_id for rs in got.request.resource_spans for ss in rs.scope_spans for s in ss.spans
    }  # type: ignore[union-attr]
    assert {s.span_id for s in want.resource_spans[0].scope_spans[0].spans} <= ids


def test_the_endpoint_flag_wins_and_headers_are_never_shown(
    receiver: Receiver, evals: Path
) -> None:
    env = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9/v1/traces"}
    result = invoke(
        "otel", str(evals), "--endpoint", receiver.endpoint, "--header", f"x-key={SECRET}", env=env
    )
    assert result.exit_code == 0, result.stderr
    assert receiver.received[0].headers["x-key"] == SECRET
    assert SECRET not in result.stderr + result.stdout
    help_text = invoke("otel", "--help").stdout
    assert SECRET not in help_text


def test_a_refused_request_exits_1_naming_the_status(receiver: Receiver, evals: Path) -> None:
    receiver.fail(400, b"invalid request: bad span\nmore")
    result = invoke("otel", str(evals), "--endpoint", receiver.endpoint)
    assert result.exit_code == 1
    assert "HTTP 400: invalid request: bad span; sessions:" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not"),
        ({"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "OTEL_EXPORTER_OTLP_TIMEOUT must be a number"),
        ({"OTEL_EXPORTER_OTLP_HEADERS": f"broken{SECRET}"}, "pair 1 has no '='"),
    ],
)
def test_bad_environment_is_a_usage_error(evals: Path, env: dict[str, str], message: str) -> None:
    result = invoke("otel", str(evals), "--send", env=env)
    assert result.exit_code == 2, result.stderr
    assert message in result.stderr and SECRET not in result.stderr


def test_standard_input_cannot_be_sent(receiver: Receiver) -> None:
    result = invoke("otel", "-", "--endpoint", receiver.endpoint)
    assert result.exit_code == 2
    assert "standard input cannot be sent" in result.stderr


def test_a_state_of_another_endpoint_is_refused(
    receiver: Receiver, evals: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state.db"
    assert (
        invoke("otel", str(evals), "--endpoint", receiver.endpoint, "--state", str(state)).exit_code
        == 0
    )
    other = receiver.endpoint.replace("/v1/traces", "/other")
    result = invoke("otel", str(evals), "--endpoint", other, "--state", str(state))
    assert result.exit_code == 2
    assert "another endpoint" in result.stderr


def test_a_file_that_is_not_a_state_file(receiver: Receiver, evals: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    state.write_bytes(b"not a database at all" * 100)
    result = invoke("otel", str(evals), "--endpoint", receiver.endpoint, "--state", str(state))
    assert result.exit_code == 2
    assert "not a sessiontools state file" in result.stderr
    assert orjson.dumps(result.stderr)  # one printable line


def test_the_state_file_holds_no_header_value_or_url(
    receiver: Receiver, evals: Path, tmp_path: Path
) -> None:
    state = tmp_path / "state.db"
    endpoint = receiver.endpoint + f"?token={SECRET}"
    result = invoke(
        "otel",
        str(evals),
        "--endpoint",
        endpoint,
        "--header",
        f"x-key={SECRET}",
        "--state",
        str(state),
    )
    assert result.exit_code == 0, result.stderr
    for path in tmp_path.glob("state.db*"):
        data = path.read_bytes()
        assert SECRET.encode() not in data and b"127.0.0.1" not in data


def test_a_progress_line_on_a_terminal_only() -> None:
    import io

    from sessiontools import SendReport
    from sessiontools._cli.otel import _Status

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    status = _Status()
    status.stream = Terminal()
    status(SendReport(sessions=3, spans=40, retries=1))
    status.done()
    shown = status.stream.getvalue()
    assert "sending: 3 sessions, 40 spans sent, 1 retries, 0 failures" in shown
    quiet = _Status()  # the tests' stderr is no terminal
    assert quiet.stream is None


def test_out_dir_names_a_session_after_its_conversation_id(tmp_path: Path) -> None:
    """The session is exported from the log that holds it furthest (b_full), under the first
    path in sorted order (a_early): its file is a_early.json."""
    logs = tmp_path / "logs"
    logs.mkdir()
    data = TWO.read_bytes()
    (logs / "b_full.jsonl").write_bytes(data)
    (logs / "c_copy.jsonl").write_bytes(data)
    (logs / "a_early.jsonl").write_bytes(b"".join(data.splitlines(keepends=True)[:20]))
    out = tmp_path / "out"
    result = invoke("otel", str(logs), "--out", f"{out}/")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["a_early.json"]
    assert (out / "a_early.json").read_bytes() == otlp_json(
        logs / "b_full.jsonl", conversation_id="a_early"
    )
