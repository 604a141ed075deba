"""`sessiontools otel` through click's runner: output, flags, exit codes, messages."""

from __future__ import annotations

import gzip
import io
import os
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import orjson
import pytest
from click.testing import CliRunner, Result

from sessiontools import otlp_json
from sessiontools._cli import output as _output
from sessiontools._cli.main import cli, main
from sessiontools._cli.output import _check_out, _temporary_prefix
from tests.helpers import REPO, SESSIONS, line, outcome, usage, user
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


def test_a_directory_without_logs_is_a_usage_error(tmp_path: Path) -> None:
    """A directory is many logs (tests/cli/test_otel_many.py): with none in it, nothing to do."""
    result = invoke("otel", str(tmp_path))
    assert result.exit_code == 2
    assert f"no *.jsonl or *.jsonl.gz log in {tmp_path}" in one_error_line(result)


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
    def refuse(path: str, mode: str = "r", buffering: int = -1) -> object:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("sessiontools._cli.params.open", refuse, raising=False)
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

    monkeypatch.setattr("sessiontools._cli.otel.export_otlp_json", interrupted)
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

    # The signal is sent when sessiontools._otel.spans is looked for, by an import hook.
    script = (
        "import os, sys\n"
        "import sessiontools._main as m\n"
        "class Signal:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'sessiontools._otel.spans':\n"
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


# A finalizer that runs while the command exports: the signal the test gives comes while it
# runs (the handler raises inside it, where Python swallows the exception), or it raises an
# error of its own (``oops``), which Python reports as it always does.
IN_A_FINALIZER = """
import os, sys, time
import sessiontools._otel.export as export
real = export.export_otlp_json
class Finalized:
    def __del__(self):
        if {signum}:
            os.kill(os.getpid(), {signum})
            for _ in range(10_000):
                pass
        else:
            raise ValueError("oops")
def export_otlp_json(*args, **kwargs):
    Finalized()
    time.sleep(0.5)
    sys.stderr.write("went on\\n")
    return real(*args, **kwargs)
export.export_otlp_json = export_otlp_json
"""


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(2, 130, "sessiontools: interrupted"), (15, 143, "sessiontools: terminated")],
)
def test_a_signal_while_a_finalizer_runs_still_stops_the_command(
    session: Path, tmp_path: Path, signum: int, status: int, said: str
) -> None:
    """Ctrl-C or SIGTERM while a finalizer runs (``__del__``, where Python swallows the
    exception the handler raises, says "Exception ignored in" and goes on): the command
    still stops, says its one line and nothing else, writes nothing. It went on, printed a
    traceback, exited 0 and then ignored every later signal."""
    out = tmp_path / "out.json"
    got = run_console_script(
        IN_A_FINALIZER.format(signum=signum), "otel", str(session), "--out", str(out)
    )
    assert got.returncode == status, got.stderr
    assert got.stderr.decode().splitlines() == [said]
    assert sorted(os.listdir(tmp_path)) == [session.name]  # no output, no temporary file


def test_an_error_in_a_finalizer_is_reported_as_python_reports_it(
    session: Path, tmp_path: Path
) -> None:
    """What the command's hook does not take (an error of the finalizer's own) goes where
    Python sends it: "Exception ignored in", and the command goes on."""
    out = tmp_path / "out.json"
    got = run_console_script(
        IN_A_FINALIZER.format(signum=0), "otel", str(session), "--out", str(out)
    )
    assert got.returncode == 0, got.stderr
    said = got.stderr.decode()
    assert said.startswith("Exception ignored in: <function Finalized.__del__")
    assert said.endswith("ValueError: oops\nwent on\n")
    assert out.read_bytes() == otlp_json(session)


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


# -- issue 10: input and output handling --------------------------------------------------------


def command(*args: str | bytes, stdin: Any = subprocess.DEVNULL, **options: Any) -> Any:
    """``python -m sessiontools ARGS`` in a process of its own (arguments may be bytes, as a
    shell passes them); its status, stdout and stderr."""
    return subprocess.run(
        [sys.executable, "-m", "sessiontools", *args],
        stdin=stdin,
        capture_output=True,
        check=False,
        cwd=options.pop("cwd", REPO),
        **options,
    )


def one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")  # valid UTF-8, whatever the names and flags
    assert "Traceback" not in text
    lines = text.splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_stdin_that_is_the_out_file_is_refused(session: Path, tmp_path: Path) -> None:
    """``otel - --out s.jsonl < s.jsonl`` replaced the session log. The guard compares the
    file standard input is (device and inode), not only paths."""
    before = session.read_bytes()
    with open(session, "rb") as stdin:
        got = command("otel", "-", "--out", str(session), stdin=stdin)
    assert got.returncode == 2
    assert one_line(got.stderr) == (
        "sessiontools otel: error: Invalid value for --out: is standard input, the log being "
        "read; a reader never changes a session file (see 'sessiontools otel --help')"
    )
    assert session.read_bytes() == before
    link = tmp_path / "link.jsonl"
    link.symlink_to(session)
    with open(session, "rb") as stdin:  # another path to the same file
        assert command("otel", "-", "--out", str(link), stdin=stdin).returncode == 2
    assert session.read_bytes() == before
    out = tmp_path / "trace.json"
    with open(session, "rb") as stdin:  # another file is fine
        assert command("otel", "-", "--out", str(out), stdin=stdin).returncode == 0
    assert out.read_bytes() == expected(before, conversation_id="stdin")


def test_check_out_compares_standard_input_for_either_command(
    session: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open(session, "rb") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        with pytest.raises(click.BadParameter, match="is standard input"):
            _check_out(str(session), "-")
        _check_out(str(session.with_name("other.json")), "-")
    monkeypatch.setattr(sys, "stdin", None)  # no stdin: nothing to compare
    _check_out(str(session), "-")


# Names and flags that are not UTF-8 (item 7).

NOT_UTF8 = "caf\udce9"  # what Python makes of the argument b"caf\xe9"


@pytest.mark.parametrize(
    "flag",
    [
        "--conversation-id",
        "--parent-trace",
        "--parent-span",
        "--service-name",
        "--agent-name",
        "--max-line-bytes",
    ],
)
def test_a_flag_value_that_is_not_utf8_is_a_usage_error(session: Path, flag: str) -> None:
    args = ["otel", str(session), flag, NOT_UTF8]
    if flag == "--parent-span":
        args += ["--parent-trace", PARENT_TRACE]
    result = invoke(*args)
    assert result.exit_code == 2
    assert one_error_line(result) == (
        f"sessiontools otel: error: Invalid value for '{flag}': not valid UTF-8 (byte 0xe9 at "
        "character 4); give it in UTF-8 (see 'sessiontools otel --help')"
    )
    got = command("otel", str(session), *(os.fsencode(a) for a in args[2:]))
    assert got.returncode == 2
    assert "not valid UTF-8 (byte 0xe9 at character 4)" in one_line(got.stderr)


def test_a_session_name_that_is_not_utf8_becomes_replacement_characters(tmp_path: Path) -> None:
    """A file name is used as it is and shown with U+FFFD for each byte that is not UTF-8:
    in messages, and in the conversation id it gives."""
    name = os.path.join(os.fsencode(tmp_path), b"caf\xe9.jsonl")
    with open(name, "wb") as f:
        f.write(ONE_TOOL + b'{"seq":8,')
    got = command("otel", name)
    assert got.returncode == 0, got.stderr
    export = orjson.loads(got.stdout)
    spans = export["resourceSpans"][0]["scopeSpans"][0]["spans"]
    conversation = {
        a["value"]["stringValue"]
        for span in spans
        for a in span["attributes"]
        if a["key"] == "gen_ai.conversation.id"
    }
    assert conversation == {"caf\ufffd"}
    assert got.stdout == expected(ONE_TOOL, conversation_id="caf\ufffd")
    shown = os.fsdecode(os.fsencode(tmp_path)) + "/caf\ufffd.jsonl"
    assert one_line(got.stderr).startswith(f"sessiontools otel: warning: {shown}: line 9")
    missing = command("otel", name + b".gone")
    assert missing.returncode == 2
    assert f"cannot open {shown}.gone" in one_line(missing.stderr)
    result = invoke("otel", os.fsdecode(name))  # in the runner too
    assert result.exit_code == 0 and result.stdout_bytes == got.stdout


def test_an_out_name_that_is_not_utf8_is_written(session: Path, tmp_path: Path) -> None:
    out = os.path.join(os.fsencode(tmp_path), b"trace-\xff.json")
    got = command("otel", str(session), "--out", out)
    assert got.returncode == 0, got.stderr
    with open(out, "rb") as f:
        assert f.read() == expected(CRASH_AND_RESUME, conversation_id="run-42")
    missing = os.path.join(os.fsencode(tmp_path), b"no-\xff", b"trace.json")
    got = command("otel", str(session), "--out", missing)
    assert got.returncode == 2 and "no-\ufffd" in one_line(got.stderr)


# Control characters from a log or a name reach stderr escaped (item 30).


def test_an_escape_sequence_in_an_unknown_field_name_is_escaped(session: Path) -> None:
    lines = ONE_TOOL.splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"prompt"', b'"\\u001b]0;pwned\\u0007":1,"prompt"')
    session.write_bytes(b"".join(lines))
    result = invoke("otel", str(session))
    assert result.exit_code == 0
    message = one_error_line(result)
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "unknown field run_started.\\x1b]0;pwned\\x07" in message


def test_control_characters_in_a_file_name_are_escaped(tmp_path: Path) -> None:
    damaged = tmp_path / "bad\x1b[31m\r\x9bname.jsonl"
    damaged.write_bytes(b'{"seq":0,\n' + ONE_TOOL)
    result = invoke("otel", str(damaged))
    assert result.exit_code == 1
    message = one_error_line(result)
    assert "bad\\x1b[31m\\r\\x9bname.jsonl: line 1 (byte 0)" in message
    assert not any(c in result.stderr for c in "\x1b\r\x9b")


# --out: the temporary file's name (item 28), a read-only file and a planted link (item 29).


@pytest.mark.parametrize("length", [241, 250, 255])
def test_out_with_a_name_as_long_as_the_system_allows(
    session: Path, tmp_path: Path, length: int
) -> None:
    out = tmp_path / ("t" * (length - 5) + ".json")
    assert len(out.name) == length
    result = invoke("otel", str(session), "--out", str(out))
    assert result.exit_code == 0, result.stderr
    assert out.read_bytes() == expected(CRASH_AND_RESUME, conversation_id="run-42")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([session.name, out.name])


def test_the_temporary_name_of_a_long_multibyte_name_is_cut_whole(tmp_path: Path) -> None:
    name = "é" * 127 + ".j"  # 256 bytes... one too many: 254 bytes then
    name = name[:-1]
    assert len(name.encode()) == 255
    prefix = _temporary_prefix(str(tmp_path), name)
    assert len(os.fsencode(prefix)) + 8 + len(".tmp") <= 255
    fd, tmp = _output._mkstemp(str(tmp_path), prefix, ".tmp")
    os.close(fd)
    assert os.path.basename(tmp).startswith(".ééé")
    assert len(os.fsencode(os.path.basename(tmp))) <= 255


def test_the_temporary_file_is_new_private_and_never_a_link(tmp_path: Path) -> None:
    """As ``tempfile.mkstemp`` makes it: 8 random characters, mode 0600 whatever the umask,
    created (never an existing file or a link someone planted opened), its absolute path."""
    fd, tmp = _output._mkstemp(str(tmp_path), ".t.json.", ".tmp")
    os.close(fd)
    name = os.path.basename(tmp)
    assert os.path.isabs(tmp) and os.path.dirname(tmp) == str(tmp_path)
    assert name.startswith(".t.json.") and name.endswith(".tmp") and len(name) == 8 + 8 + 4
    assert stat.S_IMODE(os.stat(tmp).st_mode) == 0o600
    names = {os.path.basename(_output._mkstemp(str(tmp_path), ".t.json.", ".tmp")[1])}
    names |= {os.path.basename(_output._mkstemp(str(tmp_path), ".t.json.", ".tmp")[1])}
    assert len(names) == 2 and name not in names


def test_the_temporary_file_takes_another_name_while_one_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    taken = tmp_path / ".t.json.00000000.tmp"
    taken.symlink_to(victim)  # planted where the first name goes
    draws = iter([b"\0\0\0\0", b"\0\0\0\0", b"\1\1\1\1"])
    monkeypatch.setattr(_output.os, "urandom", lambda n: next(draws))
    fd, tmp = _output._mkstemp(str(tmp_path), ".t.json.", ".tmp")
    os.close(fd)
    assert os.path.basename(tmp) == ".t.json.01010101.tmp"
    assert victim.read_bytes() == b"keep" and taken.is_symlink()
    monkeypatch.setattr(_output.os, "urandom", lambda n: b"\0\0\0\0")
    with pytest.raises(FileExistsError):
        _output._mkstemp(str(tmp_path), ".t.json.", ".tmp")


def test_otel_out_file_loads_no_tempfile(session: Path, tmp_path: Path) -> None:
    """``--out FILE`` makes its temporary file itself: tempfile, shutil and the compression
    modules shutil loads are not loaded for a log read in one process."""
    out = tmp_path / "t.json"
    code = (
        "import sys\n"
        "from sessiontools._cli.main import main\n"
        f"assert main(['otel', {str(session)!r}, '--out', {str(out)!r}]) == 0\n"
        "print(sorted({'tempfile', 'shutil', 'bz2', 'lzma'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]
    assert out.read_bytes() == expected(CRASH_AND_RESUME, conversation_id="run-42")


def test_out_on_a_read_only_file_system_says_so(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writable file on a file system mounted read-only: a trial's report over an old site on
    a read-only tmpfs said "is read-only (mode -rw-r--r--)", which the mode denies. The kernel's
    answers are made up here (``os.access`` says no, ``statvfs`` says read-only), as a test
    cannot mount."""
    out = tmp_path / "trace.json"
    out.write_bytes(b"keep")
    monkeypatch.setattr(_output, "_may_write", lambda path: os.fspath(path) != str(out))
    real = os.statvfs

    class _ReadOnly:
        def __init__(self, path: str) -> None:
            self.f_flag = real(path).f_flag | os.ST_RDONLY

    monkeypatch.setattr(_output.os, "statvfs", _ReadOnly)
    result = invoke("otel", str(session), "--out", str(out))
    assert result.exit_code == 2
    assert one_error_line(result) == (
        f"sessiontools otel: error: Invalid value for --out: {out} is on a read-only file "
        "system; it is not replaced: give a file on another file system, or mount this one "
        "read-write (see 'sessiontools otel --help')"
    )
    assert out.read_bytes() == b"keep"


def test_out_refuses_a_read_only_file(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the caller sees it (``os.access``): here the check is made to say no, as it does for
    anyone but root; ``test_out_refuses_a_read_only_file_as_another_user`` runs it for real."""
    out = tmp_path / "trace.json"
    out.write_bytes(b"keep")
    out.chmod(0o444)
    monkeypatch.setattr(_output, "_may_write", lambda path: os.fspath(path) != str(out))
    result = invoke("otel", str(session), "--out", str(out))
    assert result.exit_code == 2
    assert one_error_line(result) == (
        f"sessiontools otel: error: Invalid value for --out: {out} is read-only (mode "
        "-r--r--r--); it is not replaced: make it writable, or give another file (see "
        "'sessiontools otel --help')"
    )
    assert out.read_bytes() == b"keep"
    link = tmp_path / "link.json"
    link.symlink_to(out)
    assert invoke("otel", str(session), "--out", str(link)).exit_code == 2
    assert out.read_bytes() == b"keep"
    other = tmp_path / "other.json"
    assert invoke("otel", str(session), "--out", str(other)).exit_code == 0


NOBODY = 65534


def shared_directory(mode: int) -> Path:
    """A directory other users can reach (pytest's tmp_path is root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="sessiontools-test-"))
    path.chmod(mode)
    return path


def as_another_user(*args: str) -> tuple[int, str]:
    """``sessiontools ARGS`` (through click's runner) in a forked child that is ``nobody`` when
    these tests run as root (root may write any file), else the caller; its status and
    stderr. (The interpreter may be in root's home, which ``nobody`` cannot run, nor import
    from: what the command imports is imported here first.)"""
    import sessiontools._cost.report  # noqa: F401 - pandas and the rest of `cost`

    receive, send = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        code = 99
        try:
            os.close(receive)
            if os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            result = CliRunner().invoke(cli, list(args))
            said = result.stderr
            if result.exc_info is not None and result.exc_info[0] is not SystemExit:
                said += "".join(traceback.format_exception(*result.exc_info))
            os.write(send, said.encode())
            code = result.exit_code
        finally:
            os._exit(code)
    os.close(send)
    with os.fdopen(receive, "rb") as pipe:
        said = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), said


def test_out_refuses_a_read_only_file_as_another_user() -> None:
    """A file with no write bit, in a directory the caller may write: the rename would
    replace it (it needs only the directory)."""
    directory = shared_directory(0o777)
    try:
        session = directory / "s.jsonl"
        session.write_bytes(ONE_TOOL)
        session.chmod(0o644)
        out = directory / "trace.json"
        out.write_bytes(b"keep")
        if os.geteuid() == 0:
            os.chown(out, NOBODY, NOBODY)  # the caller's own file, without a write bit
        out.chmod(0o444)
        for command_args in (["otel", str(session)], ["cost", str(session)]):
            code, said = as_another_user(*command_args, "--out", str(out))
            assert code == 2, said
            assert "is read-only (mode -r--r--r--); it is not replaced" in said
            assert len(said.splitlines()) == 1
            assert out.read_bytes() == b"keep"
        assert sorted(p.name for p in directory.iterdir()) == ["s.jsonl", "trace.json"]
        out.chmod(0o644)  # writable: replaced
        assert as_another_user("otel", str(session), "--out", str(out))[0] == 0
        assert out.read_bytes() == expected(ONE_TOOL, conversation_id="s")
    finally:
        shutil.rmtree(directory)


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="making a link of another user needs root",
)
def test_out_refuses_a_link_another_user_planted_in_a_shared_directory(
    session: Path, tmp_path: Path
) -> None:
    """``nobody`` plants ``/shared/trace.json -> victim`` in a sticky, world-writable
    directory (as /tmp is): following it would replace the victim. The kernel's
    protected-symlinks rule refuses to follow such a link for anyone but its owner, unless the
    directory's owner owns it; so does ``--out``."""
    shared = shared_directory(0o1777)
    try:
        victim = tmp_path / "victim.txt"
        victim.write_bytes(b"precious")
        link = shared / "trace.json"
        link.symlink_to(victim)
        os.lchown(link, NOBODY, NOBODY)
        result = invoke("otel", str(session), "--out", str(link))
        assert result.exit_code == 2
        assert one_error_line(result) == (
            f"sessiontools otel: error: Invalid value for --out: {link} is a symbolic link "
            f"of another user (uid {NOBODY}) in a shared directory (sticky and "
            "world-writable): it is not followed (the kernel's protected-symlinks rule); "
            "remove it, or give another file (see 'sessiontools otel --help')"
        )
        assert victim.read_bytes() == b"precious"
        cost = CliRunner().invoke(cli, ["cost", str(session), "--out", str(link)])
        assert cost.exit_code == 2 and "symbolic link of another user" in cost.stderr
        assert victim.read_bytes() == b"precious"
        # The caller's own link, or one in a directory that is not shared: followed.
        os.lchown(link, 0, 0)
        assert invoke("otel", str(session), "--out", str(link)).exit_code == 0
        assert victim.read_bytes().startswith(b'{"resourceSpans"')
        shared.chmod(0o777)  # not sticky
        os.lchown(link, NOBODY, NOBODY)
        victim.write_bytes(b"precious")
        assert invoke("otel", str(session), "--out", str(link)).exit_code == 0
        assert victim.read_bytes().startswith(b'{"resourceSpans"')
    finally:
        shutil.rmtree(shared)


# One huge line (item 27).


def test_max_line_bytes_flag(session: Path) -> None:
    lines = CRASH_AND_RESUME.splitlines(keepends=True)
    session.write_bytes(lines[0] + line(1, "message", user("x" * 3000)) + b"".join(lines[1:]))
    result = invoke("otel", str(session), "--max-line-bytes", "2K")
    assert result.exit_code == 1
    assert one_error_line(result) == (
        f"sessiontools otel: error: {session}: line 2 (byte {len(lines[0])}): longer than "
        "2,048 bytes (2 KiB), the limit on one line; if the log is right, raise the limit: "
        "--max-line-bytes on the command line, max_line_bytes= in the library"
    )
    for size in ("4K", "4096", "1M", "1g"):
        assert invoke("otel", str(session), "--max-line-bytes", size).exit_code == 0
    for bad in ("0", "-1", "1.5M", "1T", "many", ""):
        result = invoke("otel", str(session), "--max-line-bytes", bad)
        assert result.exit_code == 2
        assert "is not a size" in one_error_line(result)


def test_an_endless_input_is_one_line(tmp_path: Path) -> None:
    got = command("otel", "/dev/zero", "--max-line-bytes", "1M")
    assert got.returncode == 1
    assert one_line(got.stderr).startswith(
        "sessiontools otel: error: /dev/zero: line 1 (byte 0): longer than 1,048,576 bytes"
    )


def limited(gigabytes: float) -> Callable[[], None]:
    """A child's address space limit: what a small container gives."""
    size = int(gigabytes * (1 << 30))
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (size, size))


@pytest.fixture(scope="module")
def sparse_3g(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sparse") / "sparse.jsonl"
    with open(path, "wb") as f:
        f.truncate(3 << 30)  # `truncate -s 3G sparse.jsonl`: one line of 3 GB of NUL bytes
    return path


def test_a_3_gb_line_is_one_error_in_2_gb(sparse_3g: Path) -> None:
    got = command("otel", str(sparse_3g), preexec_fn=limited(2))
    assert got.returncode == 1
    assert one_line(got.stderr) == (
        f"sessiontools otel: error: {sparse_3g}: line 1 (byte 0): longer than 268,435,456 "
        "bytes (256 MiB), the limit on one line; if the log is right, raise the limit: "
        "--max-line-bytes on the command line, max_line_bytes= in the library"
    )


def test_out_of_memory_is_one_line(sparse_3g: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    got = command(
        "otel", str(sparse_3g), "--max-line-bytes", "4G", "--out", str(out),
        preexec_fn=limited(1.5),
    )  # fmt: skip
    assert got.returncode == 1
    assert one_line(got.stderr) == (
        f"sessiontools otel: error: {sparse_3g}: out of memory; a log's line is held whole "
        "while it is read: lower --max-line-bytes to find a line too long, or give the "
        "command more memory"
    )
    assert list(tmp_path.iterdir()) == []


def test_memory_error_anywhere_is_one_line(session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("sessiontools._cli.otel.export_otlp_json", exhausted)
    result = invoke("otel", str(session))
    assert result.exit_code == 1
    assert "out of memory" in one_error_line(result)
    monkeypatch.setattr("sessiontools._cli.cost._time", exhausted)
    result = CliRunner().invoke(cli, ["cost", str(session)])
    assert result.exit_code == 1
    assert one_error_line(result).startswith("sessiontools cost: error: out of memory")
    monkeypatch.setattr(click.Group, "invoke", exhausted)  # under any command
    result = invoke("otel", str(session))
    assert result.exit_code == 1
    assert one_error_line(result).startswith("sessiontools: error: out of memory")


# gzip and other binary input (item 19).


def test_a_gzip_log_from_a_path_or_stdin(session: Path, tmp_path: Path) -> None:
    packed = tmp_path / "run-42.jsonl.gz"
    packed.write_bytes(gzip.compress(CRASH_AND_RESUME))
    result = invoke("otel", str(packed))
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == expected(CRASH_AND_RESUME, conversation_id="run-42")
    with open(packed, "rb") as stdin:
        got = command("otel", "-", stdin=stdin)
    assert got.returncode == 0 and got.stdout == expected(CRASH_AND_RESUME, conversation_id="stdin")
    piped = subprocess.Popen(["cat", str(packed)], stdout=subprocess.PIPE)
    got = command("otel", "-", stdin=piped.stdout)
    piped.wait()
    assert got.returncode == 0 and got.stdout == expected(CRASH_AND_RESUME, conversation_id="stdin")


def test_binary_input_is_one_line_saying_so(tmp_path: Path) -> None:
    packed = tmp_path / "s.jsonl.zst"
    packed.write_bytes(b"\x28\xb5\x2f\xfd\x24\x58\x85\x02\x00" + bytes(range(256)))
    result = invoke("otel", str(packed))
    assert result.exit_code == 1
    assert one_error_line(result) == (
        f"sessiontools otel: error: {packed}: line 1 (byte 0): not an agentloop JSON-lines "
        "log: binary data (byte 0xb5 at byte 2 of the line); give a session log (agentloop's "
        "JSON lines) or a run's transcript, as it is or compressed with gzip"
    )


def test_an_entry_written_twice_is_exported_once(session: Path) -> None:
    """``sed -n '1,7p;7p;8p'``: the turn of line 7 twice gave two spans with one span id."""
    lines = ONE_TOOL.splitlines(keepends=True)
    session.write_bytes(b"".join([*lines[:7], lines[6], *lines[7:]]))
    result = invoke("otel", str(session))
    assert result.exit_code == 0
    assert result.stdout_bytes == expected(ONE_TOOL, conversation_id="run-42")
    spans = orjson.loads(result.stdout_bytes)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len({span["spanId"] for span in spans}) == len(spans) == 4
    assert "line 8" in one_error_line(result) and "a copy, skipped" in result.stderr


# -- issue 15: the command ends without the interpreter's teardown ------------------------------


def test_the_command_exits_without_teardown_and_loses_nothing(tmp_path: Path) -> None:
    """Once nothing is left to run at exit, the process ends with ``os._exit`` after flushing
    the standard streams: the export, a warning and the status come out whole, through pipes
    as to files."""
    log = tmp_path / "torn.jsonl"
    log.write_bytes(CRASH_AND_RESUME + b'{"seq":99,"time":"2026')
    got = command("otel", str(log))
    assert got.returncode == 0
    assert got.stdout == otlp_json(log)
    assert got.stderr.decode().count("\n") == 1 and "torn" in got.stderr.decode()
    out = tmp_path / "out.json"
    assert command("otel", str(log), "--out", str(out)).returncode == 0
    assert out.read_bytes() == got.stdout
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_bytes(b"{nope\n" + CRASH_AND_RESUME)
    got = command("otel", str(damaged))
    assert got.returncode == 1 and got.stdout == b""
    assert "damaged.jsonl: line 1" in one_line(got.stderr)
    assert command("otel", "--nope").returncode == 2


def run_console_script(
    before: str, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[bytes]:
    """``sessiontools ARGS`` through the console script's ``run`` in a fresh ``python -c``, after
    the code ``before``; an object alive at exit prints "teardown" from its finalizer (which
    only the interpreter's teardown runs)."""
    script = (
        "import sys\n"
        "import sessiontools._main as m\n"
        "class Late:\n"
        "    def __del__(self):\n"
        "        print('teardown', file=sys.stderr)\n"
        "late = Late()\n" + before + "sys.argv = ['sessiontools', *sys.argv[1:]]\n"
        "m.run()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, timeout=timeout, cwd=REPO
    )


def test_a_running_thread_means_the_interpreters_own_exit(session: Path) -> None:
    """Another thread still running means the interpreter's own exit: the thread finishes."""
    # The thread is still running when the command leaves, however long the command took
    # (it waited 0.2 s from the start: a slow machine's command outlasted it).
    thread = (
        "import threading, time\n"
        "leaving = threading.Event()\n"
        "leave = m._leave\n"
        "def _leave(code):\n"
        "    leaving.set()\n"
        "    leave(code)\n"
        "m._leave = _leave\n"
        "threading.Thread(target=lambda: (leaving.wait(), time.sleep(0.2), "
        "print('thread', file=sys.stderr))).start()\n"
    )
    got = run_console_script(thread, "otel", str(session))
    assert got.returncode == 0, got.stderr
    assert got.stderr == b"thread\nteardown\n"  # the thread waited for, then the teardown
    assert got.stdout == otlp_json(session)


@pytest.mark.parametrize("fails", [False, True])
def test_atexit_callbacks_run_once_and_the_teardown_is_still_skipped(
    fails: bool, session: Path
) -> None:
    """What a pool or an import registered with ``atexit`` (``multiprocessing``'s,
    ``logging``'s) runs, once, before the quick exit, which still skips the teardown (the
    finalizer of an object alive at exit does not run); a callback that fails is printed as
    Python prints it and the status stays the command's."""
    callback = "1 / 0" if fails else "print('callback', file=sys.stderr)"
    registered = f"import atexit\ndef callback():\n    {callback}\natexit.register(callback)\n"
    got = run_console_script(registered, "otel", str(session))
    assert got.returncode == 0, got.stderr
    assert got.stdout == otlp_json(session)
    if fails:
        assert b"ZeroDivisionError" in got.stderr and b"teardown" not in got.stderr
    else:
        assert got.stderr == b"callback\n"


def test_a_report_of_many_logs_ends_without_teardown(tmp_path: Path) -> None:
    """A report of several logs reads them in a pool (``multiprocessing`` registers its
    ``atexit`` callback) and imports ``logging``: both callbacks run, and the process still
    ends without the teardown."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("a", "b", "c"):
        (logs / f"{name}.jsonl").write_bytes(ONE_TOOL)
    out = tmp_path / "r.html"
    got = run_console_script("", "report", str(logs), "--out", str(out), timeout=120)
    assert got.returncode == 0, got.stderr
    assert b"teardown" not in got.stderr
    assert out.read_bytes().startswith(b"<!DOCTYPE html>")


def test_the_collector_waits_for_the_start_up_then_runs(
    session: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The console script turns the collector off while the command line and the command's
    module load (what they make lives as long as the process), then moves what is alive to
    its oldest generation and turns it on before the command runs; nothing stays frozen. A
    collector already off is left off."""
    import gc

    import sessiontools._main as m
    from sessiontools._cli import main as cli_main

    seen: list[tuple[bool, int]] = []
    monkeypatch.setattr(cli_main, "_COMMANDS", {"otel": ".otel"})
    monkeypatch.setattr(cli_main.cli, "commands", {})  # the command's module loads again
    real = cli_main.cli.add_command

    def added(command: Any, name: str | None = None) -> None:
        seen.append((gc.isenabled(), gc.get_freeze_count()))
        real(command, name)

    monkeypatch.setattr(cli_main.cli, "add_command", added)
    assert gc.get_freeze_count() == 0
    try:
        m._hold_collector()
        assert not gc.isenabled()
        out = tmp_path / "out.json"
        assert cli_main.main(["otel", str(session), "--out", str(out)]) == 0
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert seen == [(False, 0)]  # off while the module loaded
        assert out.read_bytes() == otlp_json(session)
    finally:
        gc.enable()
    try:
        m._hold_collector()
        kept = [[n] for n in range(5_000)]  # made while the collector waited
        m.loaded()
        assert gc.isenabled() and gc.get_freeze_count() == 0
        assert gc.get_count()[0] < 100  # not left young: in the oldest generation
        assert any(kept[0] is o for o in gc.get_objects(generation=2))
    finally:
        gc.enable()
    gc.disable()
    try:
        m._hold_collector()
        m.loaded()
        assert not gc.isenabled()  # not ours to turn on
    finally:
        gc.enable()


@pytest.mark.parametrize("to_file", [True, False])
def test_the_export_is_written_back_as_it_goes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    to_file: bool,
) -> None:
    """``--out FILE``: every 4 MiB written, the kernel is asked to start writing them to the
    disk (``POSIX_FADV_DONTNEED``), so that the ``fsync`` before the rename waits for the last
    pieces only; the bytes are the same. A copy to stdout is not synced, and not advised."""
    asked: list[tuple[int, int]] = []
    real = getattr(os, "posix_fadvise", None)

    def advise(fd: int, offset: int, length: int, advice: int) -> None:
        assert advice == os.POSIX_FADV_DONTNEED
        asked.append((offset, length))
        if real is not None:
            real(fd, offset, length, advice)

    monkeypatch.setattr(os, "posix_fadvise", advise, raising=False)
    monkeypatch.setattr(
        os, "POSIX_FADV_DONTNEED", getattr(os, "POSIX_FADV_DONTNEED", 4), raising=False
    )
    target = tmp_path / "out.json"
    piece = b"x" * (3 << 20)
    with _output._Output(str(target) if to_file else None) as out:
        for _ in range(5):
            out.write(piece)
        out.commit()
    mib = 1 << 20
    if to_file:
        assert asked == [(0, 6 * mib), (6 * mib, 6 * mib)]  # 15 MiB: the last 3 at the sync
        assert target.read_bytes() == piece * 5
    else:
        assert asked == [] and capsysbinary.readouterr().out == piece * 5


def test_the_quick_exit_skips_the_teardown(session: Path, tmp_path: Path) -> None:
    """What the quick exit is for: an object's finalizer at teardown does not run (and, in a
    process of its own, it would run with sys.exit)."""
    got = run_console_script("", "otel", str(session))
    assert got.returncode == 0 and got.stderr == b""
    assert got.stdout == otlp_json(session)


# -- issue 13: --out '' ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "instead"),
    [
        (["report", "{log}"], "give a file, or DIR/ for pages, or - for stdout"),
        (["otel", "{log}"], "give a file, or DIR/ for several logs, or leave --out out"),
        (["otel", "{log}", "{log2}"], "give a file, or DIR/ for several logs"),
        (["cost", "{log}"], "give a file, or leave --out out for stdout"),
    ],
)
@pytest.mark.parametrize("joined", [False, True])
def test_an_empty_out_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], instead: str, joined: bool
) -> None:
    """`--out ''` (an unset shell variable) named no file: `report` and `cost` said "cannot
    write stdout: No such file or directory" with exit status 1, after reading the logs. It
    is a usage error naming --out (exit status 2), as `--title ''` is, and nothing is
    written (the current directory, where a relative --out would go, stays empty)."""
    log = tmp_path / "logs" / "run-42.jsonl"
    log.parent.mkdir()
    log.write_bytes(CRASH_AND_RESUME)
    log2 = log.with_name("run-43.jsonl")
    log2.write_bytes(CRASH_AND_RESUME)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    filled = [a.format(log=log, log2=log2) for a in args]
    result = invoke(*filled, *(["--out="] if joined else ["--out", ""]))
    assert result.exit_code == 2, result.output
    message = one_error_line(result)
    assert message.startswith(f"sessiontools {args[0]}: error: Invalid value for --out: ")
    assert "must not be empty" in message and instead in message
    assert result.stdout_bytes == b""
    assert os.listdir(here) == []
    assert log.read_bytes() == CRASH_AND_RESUME


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="threads counted in /proc")
@pytest.mark.parametrize(
    ("env", "threads"),
    [({}, "1"), ({"OPENBLAS_NUM_THREADS": "2"}, "2"), ({"OMP_NUM_THREADS": "2"}, "2")],
)
def test_the_commands_give_openblas_one_thread_unless_told(
    tmp_path: Path, env: dict[str, str], threads: str
) -> None:
    """The console script has numpy's OpenBLAS start one thread (the cost tables use no linear
    algebra, and its idle threads took CPU the command's processes needed), unless the
    environment names a number (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS``,
    ``OMP_NUM_THREADS``): the setting reaches numpy, and a user's is kept."""
    report = tmp_path / "r.html"
    seen = tmp_path / "seen"
    # once the report is written (numpy loaded by the cost tables), what the process has
    after = (
        "import atexit, os\n"
        "def seen():\n"
        f"    open({str(seen)!r}, 'w').write(os.environ.get('OPENBLAS_NUM_THREADS', '-') + ' '"
        " + str('numpy' in sys.modules))\n"
        "atexit.register(seen)\n"
    )
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
    }
    script = (
        "import sys\n"
        "import sessiontools._main as m\n" + after + "sys.argv = ['sessiontools', *sys.argv[1:]]\n"
        "m.run()\n"
    )
    log = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
    got = subprocess.run(
        [sys.executable, "-c", script, "report", str(log), "--out", str(report)],
        capture_output=True,
        timeout=120,
        cwd=REPO,
        env={**base, **env},
    )
    assert got.returncode == 0, got.stderr
    told = env.get("OPENBLAS_NUM_THREADS", "1" if not env else "-")
    assert seen.read_text() == f"{told} True"
    # and OpenBLAS takes it: numpy loaded after the setting starts no thread of its own
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sessiontools._main as m\n"
            "m.one_blas_thread()\n"
            "import numpy\n"
            "print(len(os.listdir('/proc/self/task')))",
        ],
        capture_output=True,
        timeout=60,
        env={**base, **env},
        check=True,
    )
    assert probe.stdout.strip() == (b"1" if not env else str(min(int(threads), _cores())).encode())


def _cores() -> int:
    return len(os.sched_getaffinity(0))
