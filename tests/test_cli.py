"""`sessiontools otel` through click's runner: output, flags, exit codes, messages."""

from __future__ import annotations

import io
import os
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sessiontools import otlp_json
from sessiontools._cli import cli, main
from tests.helpers import line, outcome, usage
from tests.logs import CRASH_AND_RESUME, ONE_TOOL
from tests.otlp import spans

PARENT_TRACE = "0af7651916cd43dd8448eb211c80319c"
PARENT_SPAN = "b7ad6b7169203331"


def invoke(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin)


def expected(data: bytes, **options: object) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return otlp_json(io.BytesIO(data), **options)  # type: ignore[arg-type]


def one_error_line(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "run-42.jsonl"
    path.write_bytes(CRASH_AND_RESUME)
    return path


def test_prints_the_export(session: Path) -> None:
    result = invoke("otel", str(session))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected(CRASH_AND_RESUME, conversation_id="run-42")
    assert result.stderr == ""


def test_flags_before_or_after_the_file(session: Path) -> None:
    flags = [
        "--conversation-id",
        "conv-7",
        "--parent-trace",
        PARENT_TRACE.upper(),
        "--parent-span",
        PARENT_SPAN,
        "--service-name",
        "evals",
        "--agent-name",
        "triage",
    ]
    before = invoke("otel", *flags, str(session))
    after = invoke("otel", str(session), *flags)
    around = invoke("otel", *flags[:4], str(session), *flags[4:])
    assert before.exit_code == after.exit_code == around.exit_code == 0
    assert before.stdout_bytes == after.stdout_bytes == around.stdout_bytes
    assert before.stdout_bytes == expected(
        CRASH_AND_RESUME,
        conversation_id="conv-7",
        parent_trace_id=bytes.fromhex(PARENT_TRACE),
        parent_span_id=bytes.fromhex(PARENT_SPAN),
        service_name="evals",
        agent_name="triage",
    )


def test_stdin() -> None:
    result = invoke("otel", "-", stdin=ONE_TOOL)
    assert result.exit_code == 0
    assert result.stdout_bytes == expected(ONE_TOOL, conversation_id="stdin")


def test_out_writes_the_file_and_nothing_else(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    result = invoke("otel", str(session), "--out", str(out))
    assert result.exit_code == 0 and result.stdout_bytes == b""
    assert out.read_bytes() == expected(CRASH_AND_RESUME, conversation_id="run-42")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run-42.jsonl", "trace.json"]
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_out_replaces_an_existing_file(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    out.write_bytes(b"old")
    assert invoke("otel", str(session), "--out", str(out)).exit_code == 0
    assert out.read_bytes().startswith(b'{"resourceSpans"')


def test_damaged_log_leaves_no_output_file(tmp_path: Path) -> None:
    lines = ONE_TOOL.splitlines(keepends=True)
    damaged = tmp_path / "bad.jsonl"
    damaged.write_bytes(lines[0] + lines[1][:20] + b"\n" + b"".join(lines[2:]))
    out = tmp_path / "trace.json"
    result = invoke("otel", str(damaged), "--out", str(out))
    assert result.exit_code == 1
    message = one_error_line(result)
    assert message.startswith(f"sessiontools otel: error: {damaged}: line 2 (byte {len(lines[0])})")
    assert "not complete JSON" in message and "restore" in message
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


def test_damaged_log_prints_nothing_on_stdout(tmp_path: Path) -> None:
    damaged = tmp_path / "bad.jsonl"
    damaged.write_bytes(b'{"seq":0,\n' + ONE_TOOL)
    result = invoke("otel", str(damaged))
    assert result.exit_code == 1 and result.stdout_bytes == b""
    one_error_line(result)


def test_unusable_entry_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(ONE_TOOL.replace(b'"seq":3', b'"seq":"3"'))
    result = invoke("otel", str(bad))
    assert result.exit_code == 1
    assert "line 4" in one_error_line(result)


def test_torn_tail_is_a_warning(session: Path) -> None:
    session.write_bytes(ONE_TOOL + b'{"seq":8,"time":"2026-')
    result = invoke("otel", str(session))
    assert result.exit_code == 0
    assert result.stdout_bytes == expected(ONE_TOOL, conversation_id="run-42")
    (warning,) = result.stderr.splitlines()
    assert warning.startswith(f"sessiontools otel: warning: {session}: line 9 (byte ")
    assert "cut short" in warning


def test_unknown_entry_is_a_warning(session: Path) -> None:
    session.write_bytes(ONE_TOOL + b'{"seq":8,"time":"2026-10-18T09:31:00Z","type":"x","x":{}}\n')
    result = invoke("otel", str(session))
    assert result.exit_code == 0
    assert "unknown entry type 'x'" in one_error_line(result)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--parent-span", PARENT_SPAN], "--parent-span needs --parent-trace"),
        (["--parent-trace", PARENT_TRACE[:-1]], "32 hex digits"),
        (["--parent-trace", PARENT_TRACE + "0"], "32 hex digits"),
        (["--parent-trace", "z" * 32], "hex digits"),
        (["--parent-trace", "0" * 32], "all zero"),
        (["--parent-trace", PARENT_TRACE, "--parent-span", "0" * 16], "all zero"),
        (["--parent-trace", PARENT_TRACE, "--parent-span", PARENT_SPAN[:8]], "16 hex digits"),
        (["--no-such-flag"], "No such option"),
        (["--out"], "requires an argument"),
    ],
)
def test_usage_errors_exit_2_with_one_line(session: Path, args: list[str], fragment: str) -> None:
    result = invoke("otel", str(session), *args)
    assert result.exit_code == 2
    message = one_error_line(result)
    assert message.startswith("sessiontools otel: error: ")
    assert fragment in message
    assert result.stdout_bytes == b""


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("otel", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert "cannot open" in one_error_line(result)


def test_directory_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke("otel", str(tmp_path))
    assert result.exit_code == 2
    assert "is a directory" in one_error_line(result)


def test_missing_argument_is_a_usage_error() -> None:
    result = invoke("otel")
    assert result.exit_code == 2
    assert "Missing argument" in one_error_line(result)


@pytest.mark.parametrize("where", ["missing-dir/out.json", "."])
def test_unusable_out_is_a_usage_error(session: Path, tmp_path: Path, where: str) -> None:
    result = invoke("otel", str(session), "--out", str(tmp_path / where))
    assert result.exit_code == 2
    assert "--out" in one_error_line(result)


def test_out_never_overwrites_the_session(session: Path) -> None:
    result = invoke("otel", str(session), "--out", str(session))
    assert result.exit_code == 2
    assert "a log being read" in one_error_line(result)
    assert session.read_bytes() == CRASH_AND_RESUME


def test_unknown_command_and_help() -> None:
    result = invoke("traces")
    assert result.exit_code == 2
    assert "No such command" in one_error_line(result)
    help_ = invoke("otel", "--help")
    assert help_.exit_code == 0
    for flag in ("--out", "--conversation-id", "--parent-trace", "--parent-span"):
        assert flag in help_.stdout
    assert invoke("--version").stdout.startswith("sessiontools, version ")


def test_main_returns_the_exit_status(session: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["otel", str(session), "--parent-span", PARENT_SPAN]) == 2
    assert main(["otel", str(session)]) == 0
    out = capsys.readouterr()
    assert out.out.startswith('{"resourceSpans"')


def test_a_failing_write_is_reported_not_raised(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import tempfile

    class Full(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "TemporaryFile", lambda: Full())
    result = invoke("otel", str(session))
    assert result.exit_code == 1
    assert one_error_line(result).endswith("cannot write stdout: No space left on device")
    assert result.stdout_bytes == b""


def test_out_through_a_symlink_replaces_the_file_it_points_to(
    session: Path, tmp_path: Path
) -> None:
    target = tmp_path / "target.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert invoke("otel", str(session), "--out", str(link)).exit_code == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == expected(CRASH_AND_RESUME, conversation_id="run-42")
    assert target.stat().st_mode & 0o777 == 0o640  # an existing file keeps its permissions


def test_out_to_a_pipe_writes_into_it(session: Path, tmp_path: Path) -> None:
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:
            got.append(f.read())

    reader = threading.Thread(target=read)
    reader.start()
    result = invoke("otel", str(session), "--out", str(fifo))
    reader.join(timeout=10)
    assert result.exit_code == 0, result.stderr
    assert got == [expected(CRASH_AND_RESUME, conversation_id="run-42")]
    assert fifo.is_fifo()  # still a pipe, not replaced by a file


def test_unreadable_session_exits_1(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str, mode: str = "r") -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("sessiontools._cli.open", refuse, raising=False)
    result = invoke("otel", str(session))
    assert result.exit_code == 1
    assert one_error_line(result) == (
        f"sessiontools otel: error: {session}: cannot read: Permission denied"
    )


@pytest.mark.parametrize("flag", ["--conversation-id", "--agent-name", "--service-name"])
@pytest.mark.parametrize("joined", [False, True])
def test_an_empty_name_is_a_usage_error(session: Path, flag: str, joined: bool) -> None:
    """An empty --agent-name named the run spans "invoke_agent " and an empty --service-name
    was exported as it was; each is refused as --conversation-id= is."""
    args = [f"{flag}="] if joined else [flag, ""]
    result = invoke("otel", str(session), *args)
    assert result.exit_code == 2
    message = one_error_line(result)
    assert message.startswith("sessiontools otel: error: ") and flag in message
    assert "must not be empty" in message
    assert result.stdout_bytes == b""


def _error_log(message: str) -> bytes:
    error = {"kind": "rate_limited", "status": 429, "message": message}
    return (
        line(0, "run_started", {"prompt": "x"})
        + line(1, "model_error", {"error": error, "retry": False})
        + line(2, "run_ended", outcome("model_error", turns=0, u=usage(), error=error))
    )


def test_error_messages_leave_only_with_the_flag(tmp_path: Path) -> None:
    """traces.md, "Errors": a status message is the error's kind and HTTP status; the
    provider's text (which can quote the request) only with --error-messages, cut to 1,000
    characters, for the failed call and for the run that ended with it."""
    secret = "SECRET-request-body " + "x" * 200_000
    path = tmp_path / "errors.jsonl"
    path.write_bytes(_error_log(secret))
    plain = invoke("otel", str(path))
    assert plain.exit_code == 0, plain.stderr
    assert b"SECRET" not in plain.stdout_bytes
    assert [(s.name, s.status_message) for s in spans(plain.stdout_bytes)] == [
        ("invoke_agent", "rate_limited (429)"),
        ("chat", "rate_limited (429)"),
    ]
    opted = invoke("otel", str(path), "--error-messages")
    assert opted.exit_code == 0, opted.stderr
    cut = "rate_limited (429): " + secret[:1000]
    assert [s.status_message for s in spans(opted.stdout_bytes)] == [cut, cut]
    assert len(secret[:1000]) == 1000 and opted.stdout_bytes.count(b"x" * 980) == 2
    assert len(opted.stdout_bytes) < len(plain.stdout_bytes) + 2100


def test_a_newline_in_a_file_name_stays_on_one_line(tmp_path: Path) -> None:
    damaged = tmp_path / "bad\nname.jsonl"
    damaged.write_bytes(b'{"seq":0,\n' + ONE_TOOL)
    result = invoke("otel", str(damaged))
    assert result.exit_code == 1
    assert "bad\\nname.jsonl: line 1 (byte 0)" in one_error_line(result)


def test_no_arguments_prints_the_help() -> None:
    result = invoke()
    assert result.exit_code == 2
    assert result.stderr.startswith("Usage: sessiontools [OPTIONS] COMMAND")
    assert "otel" in result.stderr


@pytest.mark.parametrize(
    ("closed", "args", "code", "fragment"),
    [
        (1, ["otel", "SESSION"], 1, "stdout is closed"),
        (0, ["otel", "-"], 2, "stdin is closed"),
    ],
)
def test_closed_standard_streams_are_one_line_errors(
    session: Path, closed: int, args: list[str], code: int, fragment: str
) -> None:
    import subprocess
    import sys

    argv = [
        sys.executable,
        "-m",
        "sessiontools",
        *(str(session) if a == "SESSION" else a for a in args),
    ]
    run = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        preexec_fn=lambda: os.close(closed),  # the child starts with that stream closed
        check=False,
    )
    assert run.returncode == code
    lines = run.stderr.decode().splitlines()
    assert len(lines) == 1 and fragment in lines[0], run.stderr


def test_ctrl_c_is_one_line_status_130_and_leaves_nothing(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("sessiontools._cli.export_otlp_json", interrupted)
    out = tmp_path / "out.json"
    result = invoke("otel", str(session), "--out", str(out))
    assert result.exit_code == 130
    assert one_error_line(result) == "sessiontools: interrupted"
    assert sorted(os.listdir(tmp_path)) == [session.name]  # no output, no temporary file


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(2, 130, "sessiontools: interrupted"), (15, 143, "sessiontools: terminated")],
)
def test_a_signal_while_the_command_is_imported_is_one_line_too(
    session: Path, signum: int, status: int, said: str
) -> None:
    """Ctrl-C or SIGTERM while the command's modules load waits until they are loaded (an
    extension module interrupted in its initialisation may crash), then acts as usual."""
    import subprocess
    import sys

    from tests.helpers import REPO

    # The signal is sent when sessiontools._otel is looked for, by an import hook.
    script = (
        "import os, sys\n"
        "import sessiontools._main as m\n"
        "class Signal:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'sessiontools._otel':\n"
        f"            os.kill(os.getpid(), {signum})\n"
        "sys.meta_path.insert(0, Signal())\n"
        "sys.argv = ['sessiontools', 'otel', sys.argv[1]]\n"
        "m.run()\n"
    )
    got = subprocess.run(
        [sys.executable, "-c", script, str(session)],
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=60,
    )
    assert got.returncode == status, got.stderr
    assert got.stderr.decode().splitlines() == [said]
    assert got.stdout == b""


@pytest.mark.parametrize("target", ["/dev/stdout", "/dev/fd/1"])
def test_out_to_this_process_stdout_appends_to_a_file_it_appends_to(
    session: Path, tmp_path: Path, target: str
) -> None:
    """`>> log` and `--out /dev/stdout`: the export is added to the log, never replaces it."""
    import subprocess
    import sys

    from tests.helpers import REPO

    log = tmp_path / "app.log"
    log.write_bytes(b"before\n")
    with open(log, "ab") as out:
        got = subprocess.run(
            [sys.executable, "-m", "sessiontools", "otel", str(session), "--out", target],
            stdout=out,
            stderr=subprocess.PIPE,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            timeout=60,
        )
    assert got.returncode == 0, got.stderr
    assert log.read_bytes() == b"before\n" + expected(CRASH_AND_RESUME, conversation_id="run-42")


def test_dir_lists_every_public_name() -> None:
    import sessiontools

    assert dir(sessiontools) == sorted(sessiontools.__all__)
