"""The ``sessiontools`` command: a thin layer over the library.

Exit status (design/traces.md, "Command"): 0 done; 1 a damaged or unreadable log; 2 a usage
error (a bad flag, an unusable path). Every error is one line on stderr, never a traceback.

Text from a log or a file name is shown with its control characters escaped (``printable``).
A file name (SESSION, PATH, ``--out``, ``--prices``) may be any bytes: it is used as it is and
shown with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import IO, Any

import click

from .._cost.names import FORMATS, GROUPS
from .._errors import InvalidIdError, LogError, OutOfRangeError
from .._log.reader import MAX_LINE_BYTES
from .._otel.export import export_otlp_json
from .._otel.ids import parse_span_id, parse_trace_id
from .._version import __version__
from .messages import (
    _OUT_OF_MEMORY,
    EXIT_DAMAGED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    _Failure,
    _one_line,
    _progress,
    _reason,
    _say,
    _warnings_to_stderr,
)
from .output import _check_out, _Output
from .params import _MAX_LINE_HELP, _TEXT, _Size, _stdin
from .report import report as report_command

__all__ = ["cli", "main"]


# click 8.2 and later raise this for a group run with no arguments.
_NO_ARGS_IS_HELP: type[click.UsageError] = getattr(
    click.exceptions, "NoArgsIsHelpError", type("_Never", (click.UsageError,), {})
)


class _Interrupted(click.ClickException):
    """Ctrl-C while a command runs (click would print an empty line, then abort)."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self) -> None:
        super().__init__("interrupted")


class _Group(click.Group):
    """A group whose every error, usage errors included, is one line on stderr."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        if prog_name is None:
            prog_name = self.name
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = rv if isinstance(rv, int) else EXIT_OK
        except _NO_ARGS_IS_HELP as e:
            # `sessiontools` alone: the help, as click gives it, and the usage status.
            click.echo(e.ctx.get_help() if e.ctx is not None else e.format_message(), err=True)
            code = EXIT_USAGE
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx is not None else self._where(args)
            message = _one_line(e.format_message()).rstrip(".")
            _say(f"{where}: error: {message} (see '{where} --help')")
            code = EXIT_USAGE
        except _Interrupted as e:
            _say("sessiontools: interrupted")
            code = e.exit_code
        except click.ClickException as e:
            _say(f"sessiontools: error: {_one_line(e.format_message())}")
            code = e.exit_code
        except click.Abort:  # Ctrl-C before the command ran
            _say("sessiontools: interrupted")
            code = EXIT_INTERRUPTED
        except MemoryError:
            _say(f"sessiontools: error: {_OUT_OF_MEMORY}")
            code = EXIT_DAMAGED
        if standalone_mode:
            sys.exit(code)
        return code

    def _where(self, args: Sequence[str] | None) -> str:
        """The command an error without a context came from (click does not always say)."""
        for arg in sys.argv[1:] if args is None else args:
            if arg in self.commands:
                return f"{self.name} {arg}"
        return self.name or "sessiontools"


@click.group("sessiontools", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessiontools")
def cli() -> None:
    """Read agentloop session logs offline."""


@cli.command("otel")
@click.argument("session", metavar="SESSION.jsonl")
@click.option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("otlp-json", "chrome-trace")),
    default="otlp-json",
    show_default=True,
    help="chrome-trace: the same spans in the Trace Event Format (Perfetto, chrome://tracing).",
)
@click.option(
    "--conversation-id",
    metavar="ID",
    type=_TEXT,
    help="gen_ai.conversation.id; default: the file's name without its extension.",
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
def otel(
    session: str,
    out: str | None,
    fmt: str,
    conversation_id: str | None,
    parent_trace: str | None,
    parent_span: str | None,
    service_name: str,
    agent_name: str | None,
    error_messages: bool,
    max_line_bytes: int,
) -> int:
    """Export SESSION.jsonl (a session log or a run's transcript, either perhaps gzipped; - for
    stdin) as one OTLP/JSON ExportTraceServiceRequest, like `agentloop otel`; or in the Trace
    Event Format (--format chrome-trace)."""
    name = session
    export = export_otlp_json if fmt == "otlp-json" else _export_chrome_trace
    try:
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
                        parent_trace_id=parent_trace_id,
                        parent_span_id=parent_span_id,
                        service_name=service_name,
                        agent_name=agent_name,
                        name=name,
                        workers=None,  # a large log is cut in two, one part per core
                        error_messages=error_messages,
                        max_line_bytes=max_line_bytes,
                    )
                target.commit()
        finally:
            if session != "-":
                source.close()
    except LogError as e:
        _say(f"sessiontools otel: error: {e}")
        return EXIT_DAMAGED
    except _Failure as e:
        _say(f"sessiontools otel: error: {e}")
        return e.exit_code
    except OSError as e:
        _say(f"sessiontools otel: error: {name}: cannot read: {_reason(e)}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools otel: error: {name}: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return EXIT_OK


@cli.command("cost")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--by",
    "by",
    multiple=True,
    type=click.Choice(GROUPS),
    help=(
        "Group by this (several allowed, in order); default: model. `tool` groups the model "
        "calls tools made by tool; the agent's own turns are the group `-`."
    ),
)
@click.option(
    "--prices", metavar="FILE", help="Prices by model id (JSON or TOML); wins over genai-prices."
)
@click.option(
    "--since", metavar="TIME", type=_TEXT, help="Only calls at or after TIME (RFC 3339 or a date)."
)
@click.option(
    "--until", metavar="TIME", type=_TEXT, help="Only calls before TIME (RFC 3339 or a date)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table for a person; csv and json for programs.",
)
@click.option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option(
    "--max-line-bytes", metavar="SIZE", type=_Size(), default=MAX_LINE_BYTES, help=_MAX_LINE_HELP
)
def cost(
    paths: tuple[str, ...],
    by: tuple[str, ...],
    prices: str | None,
    since: str | None,
    until: str | None,
    fmt: str,
    out: str | None,
    max_line_bytes: int,
) -> int:
    """What the model calls of the logs in PATH... cost: files, directories (their *.jsonl and
    *.jsonl.gz), globs, or - for standard input. A damaged or unreadable log is reported and
    skipped; the others still count (exit status 1)."""
    # pandas and genai-prices load only for this command (`otel` starts in a tenth of the time)
    from .._cost.price_book import PriceBook
    from .._cost.report import cost_report, render
    from .._errors import PriceFileError
    from .._log.sources import LogStream, find_logs

    try:
        since_at = _time(since, "--since")
        until_at = _time(until, "--until")
        if since_at is not None and until_at is not None and since_at >= until_at:
            raise click.UsageError(
                f"--since {since} is not before --until {until}: no call is made in between"
            )
        if paths.count("-") > 1:
            raise click.BadParameter(
                "- (standard input) is given more than once", param_hint="PATH"
            )
        if out is not None and "-" in paths:  # before anything is read from it
            _check_out(out, "-")
        items: list[Any] = [
            LogStream(_stdin("PATH"), "<stdin>") if path == "-" else path for path in paths
        ]
        try:
            logs = find_logs(items)
        except FileNotFoundError as e:
            raise click.BadParameter(str(e), param_hint="PATH") from None
        try:
            book = PriceBook(prices)
        except (PriceFileError, OSError) as e:
            message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
            raise click.BadParameter(message, param_hint="--prices") from None
        if out is not None:
            _check_out(out, *(os.fspath(log) for log in logs if isinstance(log, os.PathLike)))
        with _warnings_to_stderr("cost"), _progress(len(logs)) as step:
            report = cost_report(
                logs,
                by=by or ("model",),
                prices=book,
                since=since_at,
                until=until_at,
                progress=step,
                workers=None,  # a pool of processes for many logs (this process has no threads)
                max_line_bytes=max_line_bytes,
            )
        for skipped in report.tables.skipped:
            _say(f"sessiontools cost: error: {skipped.problem}; skipped")
        copies = report.tables.copies
        if copies:
            _say(
                f"sessiontools cost: note: {len(copies)} of {len(logs)} logs were copies of "
                "other logs given (each held only runs that another log holds as far or "
                "further): every run was counted once"
            )
        with _Output(out) as target:
            target.write(render(report, fmt).encode())
            target.commit()
    except _Failure as e:
        _say(f"sessiontools cost: error: {e}")
        return e.exit_code
    except OutOfRangeError as e:  # token sums across logs past 2^63-1
        _say(f"sessiontools cost: error: {e}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools cost: error: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return EXIT_DAMAGED if report.tables.skipped else EXIT_OK


def _export_chrome_trace(source: Any, write: Callable[[bytes], object], **options: Any) -> None:
    """``otel --format chrome-trace``: ``export_chrome_trace``, loaded when asked for."""
    from .._otel.chrome_trace import export_chrome_trace

    export_chrome_trace(source, write, **options)


def _time(text: str | None, flag: str) -> Any:
    from .._cost.report import parse_time

    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None


def _id(parse: Any, text: str | None, flag: str) -> bytes | None:
    if text is None:
        return None
    try:
        ident: bytes = parse(text)
    except InvalidIdError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None
    return ident


def _open_session(session: str) -> tuple[IO[bytes], str]:
    """The session file, opened for reading. A path that names no file is a usage error (2);
    a file that exists and cannot be read is an unreadable log (1)."""
    if session == "-":
        return _stdin(), "<stdin>"
    try:
        return open(session, "rb"), session
    except IsADirectoryError:
        raise click.BadParameter(f"{session} is a directory", param_hint="SESSION") from None
    except (FileNotFoundError, NotADirectoryError) as e:
        raise click.BadParameter(
            f"cannot open {session}: {_reason(e)}", param_hint="SESSION"
        ) from None
    except OSError as e:
        raise _Failure(f"{session}: cannot read: {_reason(e)}", EXIT_DAMAGED) from None


cli.add_command(report_command)


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line on ``args`` (default ``sys.argv[1:]``); return the exit status."""
    return cli.main(args, prog_name="sessiontools", standalone_mode=False)
