"""``sessiontools otel``: one log exported as OTLP/JSON, as ``agentloop otel`` does; many
logs exported once each; or sent to an OTLP/HTTP endpoint (docs/traces.md, "Command" and
"Sending").

- One log file: today's export, byte for byte (``export_otlp_json``), to standard output or
  ``--out FILE``.
- Several logs (files, directories, globs) and no sending: one export per session, each once
  (copies told apart), to ``--out DIR`` at its conversation id with ``.json``, or one JSON line
  per session on standard output (``export_sessions``).
- ``--send`` (the endpoint of the environment) or ``--endpoint URL``: sent (``send_otlp``), with
  a progress line on a terminal and a summary line on standard error. Nothing is ever sent
  without one of them, whatever the environment says.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from .._errors import LogError, StateError
from .._log.reader import MAX_LINE_BYTES
from .._log.sources import is_one_file
from .._otel.export import export_otlp_json
from .._otel.ids import parse_span_id, parse_trace_id
from .._send.names import COMPRESSIONS, PROTOCOLS

if TYPE_CHECKING:
    from .._send.send import SendReport
from .messages import (
    _OUT_OF_MEMORY,
    EXIT_DAMAGED,
    EXIT_OK,
    EXIT_USAGE,
    _Failure,
    _reason,
    _say,
    _warnings_to_stderr,
)
from .output import _check_out, _check_out_named, _Output
from .params import _MAX_LINE_HELP, _TEXT, NO_SCHEDULER, _id, _open_session, _Size

_SENDING = (
    "header",
    "protocol",
    "compression",
    "timeout",
    "max_request_bytes",
    "state",
    "follow",
)


@click.command("otel")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
@click.option(
    "--out",
    metavar="FILE|DIR",
    help="Write to FILE (atomically) instead of stdout; with several logs, a directory.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("otlp-json", "chrome-trace")),
    default="otlp-json",
    show_default=True,
    help="chrome-trace: one log's spans in the Trace Event Format (Perfetto, chrome://tracing).",
)
@click.option(
    "--conversation-id",
    metavar="ID",
    type=_TEXT,
    help="gen_ai.conversation.id of one log; default: the file's name without its extension.",
)
@click.option(
    "--parent-trace", metavar="HEX", type=_TEXT, help="Put every run in this trace (32 hex)."
)
@click.option(
    "--parent-span",
    metavar="HEX",
    type=_TEXT,
    help="Parent of every run's span (16 hex; needs --parent-trace).",
)
@click.option(
    "--service-name", default="agentloop", show_default=True, type=_TEXT, help="service.name."
)
@click.option(
    "--agent-name",
    metavar="NAME",
    type=_TEXT,
    help="gen_ai.agent.name, and invoke_agent NAME.",
)
@click.option(
    "--error-messages",
    is_flag=True,
    help=(
        "Add providers' error messages (cut to 1,000 characters) to span status messages; "
        "by default only the error's kind and HTTP status (they can quote the request)."
    ),
)
@click.option(
    "--max-line-bytes", metavar="SIZE", type=_Size(), default=MAX_LINE_BYTES, help=_MAX_LINE_HELP
)
@click.option(
    "--send", is_flag=True, help="Send to the OTLP/HTTP endpoint of OTEL_EXPORTER_OTLP_* ."
)
@click.option(
    "--endpoint", metavar="URL", type=_TEXT, help="Send to this OTLP/HTTP URL (.../v1/traces)."
)
@click.option(
    "--header",
    "header",
    metavar="NAME=VALUE",
    multiple=True,
    type=_TEXT,
    help="A header sent with every request (several allowed); never shown.",
)
@click.option(
    "--protocol",
    type=click.Choice(PROTOCOLS),
    help="http/protobuf (default) or http/json.",
)
@click.option("--compression", type=click.Choice(COMPRESSIONS), help="gzip or none (default).")
@click.option(
    "--timeout", metavar="SECONDS", type=float, help="For one attempt's answer (default 10)."
)
@click.option(
    "--max-request-bytes",
    metavar="SIZE",
    type=_Size(),
    help="The largest request before compression (default 4 MiB; K, M, G allowed).",
)
@click.option(
    "--state",
    metavar="FILE",
    help="Keep what was sent here: a second run sends only what is new.",
)
@click.option("--follow", is_flag=True, help="Keep sending runs as they end, until Ctrl-C.")
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    envvar="DASK_SCHEDULER_ADDRESS",
    type=_TEXT,
    help=(
        "Send from a Dask cluster's workers: the scheduler's address (tcp://HOST:8786), or "
        "local to start one here with a worker per core, or none to send from here "
        "(whatever $DASK_SCHEDULER_ADDRESS says); with --send or --endpoint (default, "
        "when sending: $DASK_SCHEDULER_ADDRESS). The workers must see the LOG paths. Needs "
        "sessiontools[dask]."
    ),
)
def otel(
    logs: tuple[str, ...],
    out: str | None,
    fmt: str,
    conversation_id: str | None,
    parent_trace: str | None,
    parent_span: str | None,
    service_name: str,
    agent_name: str | None,
    error_messages: bool,
    max_line_bytes: int,
    send: bool,
    endpoint: str | None,
    header: tuple[str, ...],
    protocol: str | None,
    compression: str | None,
    timeout: float | None,
    max_request_bytes: int | None,
    state: str | None,
    follow: bool,
    scheduler: str | None,
) -> int:
    """Export LOG (a session log or a run's transcript, perhaps gzipped; - for stdin) as one
    OTLP/JSON ExportTraceServiceRequest, like `agentloop otel`; many logs (files, directories,
    globs) one session each; with --send or --endpoint, send them to an OTLP/HTTP endpoint."""
    try:
        _check_out_named(out, "DIR/ for several logs, or leave --out out for stdout")
        parent_trace_id = _id(parse_trace_id, parent_trace, "--parent-trace")
        parent_span_id = _id(parse_span_id, parent_span, "--parent-span")
        if parent_span_id is not None and parent_trace_id is None:
            raise click.UsageError("--parent-span needs --parent-trace")
        for flag, value in (
            ("--conversation-id", conversation_id),
            ("--service-name", service_name),
            ("--agent-name", agent_name),
        ):
            if value == "":
                raise click.BadParameter("must not be empty", param_hint=flag)
        options = {
            "parent_trace_id": parent_trace_id,
            "parent_span_id": parent_span_id,
            "service_name": service_name,
            "agent_name": agent_name,
            "error_messages": error_messages,
            "max_line_bytes": max_line_bytes,
        }
        sending = send or endpoint is not None
        if scheduler == NO_SCHEDULER:
            scheduler = None
        if scheduler is not None and not sending:
            source = click.get_current_context().get_parameter_source("scheduler")
            if source is click.core.ParameterSource.ENVIRONMENT:
                scheduler = None  # the environment's cluster is for sending (and cost)
            else:
                raise click.UsageError(
                    "--scheduler sends from a cluster's workers: give --send or --endpoint "
                    "too (an export to files or stdout runs here)"
                )
        if scheduler is not None and follow:
            raise click.UsageError("--follow runs here: leave out --scheduler")
        one = len(logs) == 1 and (logs[0] == "-" or is_one_file(logs[0]))
        if fmt == "chrome-trace" and (sending or not one):
            raise click.UsageError(
                "--format chrome-trace takes one log and writes it "
                "(not with several logs, --send or --endpoint)"
            )
        if not sending:
            given = {
                "header": header,
                "protocol": protocol,
                "compression": compression,
                "timeout": timeout,
                "max_request_bytes": max_request_bytes,
                "state": state,
                "follow": follow,
            }
            for name in _SENDING:
                if given[name]:
                    flag = "--" + name.replace("_", "-")
                    raise click.UsageError(f"{flag} is for sending: give --send or --endpoint")
        if sending:
            return _send(
                logs,
                out,
                conversation_id,
                options,
                endpoint=endpoint,
                headers=header,
                protocol=protocol,
                compression=compression,
                timeout=timeout,
                max_request_bytes=max_request_bytes,
                state=state,
                follow=follow,
                scheduler=scheduler,
            )
        if one:
            return _export_one(logs[0], out, conversation_id, options, fmt)
        return _export_many(logs, out, conversation_id, options)
    except _Failure as e:
        _say(f"sessiontools otel: error: {e}")
        return e.exit_code


def _export_chrome_trace(source: Any, write: Callable[[bytes], object], **options: Any) -> None:
    """``otel --format chrome-trace``: ``export_chrome_trace``, loaded when asked for."""
    from .._otel.chrome_trace import export_chrome_trace

    export_chrome_trace(source, write, **options)


def _export_one(
    session: str,
    out: str | None,
    conversation_id: str | None,
    options: dict[str, Any],
    fmt: str = "otlp-json",
) -> int:
    name = session
    export = export_otlp_json if fmt == "otlp-json" else _export_chrome_trace
    try:
        source, name = _open_session(session)
        try:
            if out is not None:
                _check_out(out, session)
            # The export goes to a temporary file first, so memory stays flat and a damaged
            # log leaves nothing behind: renamed into place for --out, copied to stdout else.
            with _Output(out) as target:
                with _warnings_to_stderr("otel"):
                    export(
                        source,
                        target.write,
                        conversation_id=conversation_id,
                        name=name,
                        workers=None,  # a large log is cut in two, one part per core
                        **options,
                    )
                target.commit()
        finally:
            if session != "-":
                source.close()
    except LogError as e:
        _say(f"sessiontools otel: error: {e}")
        return EXIT_DAMAGED
    except OSError as e:
        _say(f"sessiontools otel: error: {name}: cannot read: {_reason(e)}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools otel: error: {name}: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return EXIT_OK


def _logs(logs: tuple[str, ...], conversation_id: str | None, follow: bool = False) -> None:
    """Check the logs given before anything is read or sent: usage errors (2)."""
    from .._send.sessions import session_logs  # here: loaded only for several logs, or sending

    try:
        session_logs(list(logs), conversation_id, allow_empty=follow)
    except FileNotFoundError as e:
        raise click.BadParameter(str(e), param_hint="LOG") from None
    except ValueError as e:
        raise click.UsageError(str(e)) from None


def _export_many(
    logs: tuple[str, ...], out: str | None, conversation_id: str | None, options: dict[str, Any]
) -> int:
    _logs(logs, conversation_id)
    if out is not None and not (os.path.isdir(out) or out.endswith("/")):
        raise click.BadParameter(
            f"{out} is not a directory: with several logs, --out is where each session's "
            "export goes (an existing directory, or a path ending in /)",
            param_hint="--out",
        )
    from .._send.send import export_sessions  # here: what sending needs loads only to send

    try:
        with _warnings_to_stderr("otel"):
            if out is None:
                stdout = sys.stdout.buffer if sys.stdout is not None else None
                if stdout is None:
                    raise _Failure("stdout is closed: give --out DIR", EXIT_DAMAGED)
                report = export_sessions(list(logs), write=stdout.write, **options)
                stdout.flush()
            else:
                os.makedirs(out, exist_ok=True)
                report = export_sessions(list(logs), out_dir=out, **options)
    except OSError as e:
        raise _Failure(f"cannot write {out or 'stdout'}: {_reason(e)}", EXIT_DAMAGED) from None
    for warning in report.warnings:
        _say(f"sessiontools otel: warning: {warning}")
    for problem in report.damaged:
        _say(f"sessiontools otel: error: {problem}; skipped")
    if report.copies:
        _say(
            f"sessiontools otel: note: {report.copies} logs were copies of others given: each "
            "session was exported once"
        )
    return EXIT_DAMAGED if report.damaged else EXIT_OK


class _Status:
    """What a send says on standard error as it goes: each warning, damaged log and failed
    request as soon as it is known (one line each), and on a terminal a progress line
    rewritten in place; at the end (or when stopped), a summary line."""

    def __init__(self) -> None:
        stream = sys.stderr
        self.stream = stream if stream is not None and stream.isatty() else None
        self.shown = False
        self.report: SendReport | None = None
        self._said = (0, 0, 0)  # warnings, damaged logs, failures said so far
        self.halted = False

    def halt(self) -> None:
        """Ctrl-C or SIGTERM while sending from a cluster: the report as it is now is the
        one summed up; what the work still running says as it is stopped (its tasks
        cancelled) is not said."""
        if self.report is not None:
            self.report = copy.deepcopy(self.report)
        self.halted = True

    def __call__(self, report: SendReport) -> None:
        if self.halted:
            return
        self.report = report
        self.say_new()
        if self.stream is None:
            return
        line = (
            f"sending: {report.sessions} sessions, {report.spans} spans sent, "
            f"{report.retries} retries, {len(report.failures)} failures"
        )
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def say_new(self) -> None:
        report = self.report
        if report is None:
            return
        warned, damaged, failed = self._said
        new = (
            [f"warning: {w}" for w in report.warnings[warned:]]
            + [f"error: {d}" for d in report.damaged[damaged:]]
            + [f"error: {f}" for f in report.failures[failed:]]
        )
        if new:
            self.done()
            for line in new:
                _say(f"sessiontools otel: {line}")
        self._said = (len(report.warnings), len(report.damaged), len(report.failures))

    def done(self) -> None:
        if self.shown and self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False

    def summary(self) -> None:
        self.say_new()
        self.done()
        from .._send.send import SendReport  # loaded: this is a send's end

        # stopped before the first log was read: that nothing was sent is said too
        _say(f"sessiontools otel: {(self.report or SendReport()).summary()}")


def _send(
    logs: tuple[str, ...],
    out: str | None,
    conversation_id: str | None,
    options: dict[str, Any],
    **sending: Any,
) -> int:
    if out is not None:
        raise click.UsageError("--out writes a file: it does not go with --send or --endpoint")
    if "-" in logs:
        raise click.BadParameter(
            "standard input cannot be sent (it cannot be read again for what is new)",
            param_hint="LOG",
        )
    scheduler = sending.pop("scheduler", None)
    status = _Status()
    try:
        with _warnings_to_stderr("otel"):
            if scheduler is not None:
                report = _send_on_cluster(
                    scheduler, logs, conversation_id, options, status, sending
                )
            else:
                from .._send.send import send_otlp  # here: sending's modules load only to send

                report = send_otlp(
                    list(logs),
                    conversation_id=conversation_id,
                    progress=status,
                    hold_signals=True,
                    **sending,
                    **options,
                )
    except FileNotFoundError as e:  # a path that names no log
        status.done()
        raise click.BadParameter(str(e), param_hint="LOG") from None
    except ValueError as e:  # a setting (a flag or an environment variable), the logs given
        status.done()
        raise click.UsageError(str(e)) from None
    except StateError as e:
        status.done()
        raise _Failure(str(e), EXIT_USAGE) from None
    except OSError as e:
        status.done()
        raise _Failure(f"{sending.get('state')}: {_reason(e)}", EXIT_DAMAGED) from None
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C, SIGTERM: what was sent, then stop
        status.summary()
        raise
    status(report)
    status.summary()
    return EXIT_OK if report.ok else EXIT_DAMAGED


def _send_on_cluster(
    scheduler: str,
    logs: tuple[str, ...],
    conversation_id: str | None,
    options: dict[str, Any],
    status: _Status,
    sending: dict[str, Any],
) -> SendReport:
    """``--scheduler``: sent from a Dask cluster's workers (``_dask.send.send_on_cluster``).
    An address Dask cannot read is a usage error (2); a scheduler that does not answer, or a
    cluster that fails outside a task's sessions, one line and 1."""
    import importlib.util

    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        raise click.BadParameter(
            "sending from a Dask cluster needs dask and distributed: pip install "
            "'sessiontools[dask]' (or unset DASK_SCHEDULER_ADDRESS)",
            param_hint="--scheduler",
        )
    from .._dask.cluster import Connection, SchedulerError
    from .._dask.costs import connect
    from .._dask.send import ClusterError, send_on_cluster
    from .params import scheduler_hint
    from .signals import stoppable

    sending = dict(sending)
    sending.pop("follow", None)
    connection = Connection(scheduler)

    def stop() -> None:
        status.halt()
        connection.stop()

    try:
        # in another thread: Ctrl-C and SIGTERM close the connection from this one
        return stoppable(
            lambda: send_on_cluster(
                list(logs),
                connect=lambda: connect(connection),
                conversation_id=conversation_id,
                progress=status,
                **sending,
                **options,
            ),
            stop,
        )
    except SchedulerError as e:
        status.done()
        if e.usage and e.setting:
            raise click.UsageError(str(e)) from None
        if e.usage:
            raise click.BadParameter(str(e), param_hint=scheduler_hint()) from None
        raise _Failure(str(e), EXIT_DAMAGED) from None
    except ClusterError as e:
        status.done()
        raise _Failure(f"{e} (at {scheduler})", EXIT_DAMAGED) from None
