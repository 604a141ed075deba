"""The ``sessiontools`` command: a thin layer over the library.

Exit status (design/traces.md, "Command"): 0 done; 1 a damaged or unreadable log; 2 a usage
error (a bad flag, an unusable path). Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, NoReturn

import click

from ._errors import InvalidIdError, LogError, OutOfRangeError, SessionToolsWarning
from ._names import FORMATS, GROUPS
from ._otel import export_otlp_json, parse_span_id, parse_trace_id
from ._version import __version__

__all__ = ["cli", "handle_signals", "main"]

EXIT_OK = 0
EXIT_DAMAGED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM


class _Failure(Exception):
    """A run that ends with one line on stderr and an exit status."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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
        if standalone_mode:
            sys.exit(code)
        return code

    def _where(self, args: Sequence[str] | None) -> str:
        """The command an error without a context came from (click does not always say)."""
        for arg in sys.argv[1:] if args is None else args:
            if arg in self.commands:
                return f"{self.name} {arg}"
        return self.name or "sessiontools"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _say(line: str) -> None:
    """One line on stderr: a newline inside (a file's name can hold one) is written as \\n."""
    click.echo(line.replace("\r", "\\r").replace("\n", "\\n"), err=True)


@click.group("sessiontools", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessiontools")
def cli() -> None:
    """Read agentloop session logs offline."""


@cli.command("otel")
@click.argument("session", metavar="SESSION.jsonl")
@click.option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option(
    "--conversation-id",
    metavar="ID",
    help="gen_ai.conversation.id; default: the file's name without its extension.",
)
@click.option("--parent-trace", metavar="HEX", help="Put every run in this trace (32 hex).")
@click.option(
    "--parent-span",
    metavar="HEX",
    help="Parent of every run's span (16 hex; needs --parent-trace).",
)
@click.option("--service-name", default="agentloop", show_default=True, help="service.name.")
@click.option("--agent-name", metavar="NAME", help="gen_ai.agent.name, and invoke_agent NAME.")
@click.option(
    "--error-messages",
    is_flag=True,
    help=(
        "Add providers' error messages (cut to 1,000 characters) to span status messages; "
        "by default only the error's kind and HTTP status (they can quote the request)."
    ),
)
def otel(
    session: str,
    out: str | None,
    conversation_id: str | None,
    parent_trace: str | None,
    parent_span: str | None,
    service_name: str,
    agent_name: str | None,
    error_messages: bool,
) -> int:
    """Export SESSION.jsonl (a session log or a run's transcript; - for stdin) as one
    OTLP/JSON ExportTraceServiceRequest, like `agentloop otel`."""
    name = session
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
                    export_otlp_json(
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
@click.option("--since", metavar="TIME", help="Only calls at or after TIME (RFC 3339 or a date).")
@click.option("--until", metavar="TIME", help="Only calls before TIME (RFC 3339 or a date).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table for a person; csv and json for programs.",
)
@click.option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
def cost(
    paths: tuple[str, ...],
    by: tuple[str, ...],
    prices: str | None,
    since: str | None,
    until: str | None,
    fmt: str,
    out: str | None,
) -> int:
    """What the model calls of the logs in PATH... cost: files, directories (their *.jsonl and
    *.jsonl.gz), globs, or - for standard input. A damaged or unreadable log is reported and
    skipped; the others still count (exit status 1)."""
    # pandas and genai-prices load only for this command (`otel` starts in a tenth of the time)
    from ._costread import LogStream
    from ._frames import find_logs
    from ._prices import PriceBook, PriceFileError
    from ._report import cost_report, render

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
            if "-" in paths:
                _check_out_stdin(out)
        with _warnings_to_stderr("cost"), _progress(len(logs)) as step:
            report = cost_report(
                logs,
                by=by or ("model",),
                prices=book,
                since=since_at,
                until=until_at,
                progress=step,
                workers=None,  # a pool of processes for many logs (this process has no threads)
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
    return EXIT_DAMAGED if report.tables.skipped else EXIT_OK


def _check_out_stdin(out: str) -> None:
    """``--out`` must not be the file standard input reads (``cost - --out s.jsonl <
    s.jsonl`` would replace the log being read with the report)."""
    try:
        given = os.fstat(sys.stdin.fileno()) if sys.stdin is not None else None
        target = os.stat(out) if os.path.exists(out) else None
    except (OSError, ValueError):  # no descriptor (a test's stdin), or nothing to stat
        return
    if given is not None and target is not None and os.path.samestat(given, target):
        raise click.BadParameter(
            "is the file standard input reads, a log being read; a reader never changes a "
            "session file",
            param_hint="--out",
        )


def _time(text: str | None, flag: str) -> Any:
    from ._report import parse_time

    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None


@contextlib.contextmanager
def _warnings_to_stderr(command: str) -> Iterator[None]:
    """Each warning the library gives, as one line on stderr, also when an error follows."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SessionToolsWarning)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, SessionToolsWarning):
                    _say(f"sessiontools {command}: warning: {w.message}")


@contextlib.contextmanager
def _progress(total: int) -> Iterator[Callable[[str], None] | None]:
    """A progress bar on stderr for many logs, only on a terminal."""
    stream = sys.stderr
    if total < 2 or stream is None or not stream.isatty():
        yield None
        return
    with click.progressbar(length=total, label="reading logs", file=stream) as bar:
        yield lambda name: bar.update(1)


def _id(parse: Any, text: str | None, flag: str) -> bytes | None:
    if text is None:
        return None
    try:
        ident: bytes = parse(text)
    except InvalidIdError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None
    return ident


def _stdin(param: str = "SESSION") -> IO[bytes]:
    if sys.stdin is None:
        raise click.BadParameter("stdin is closed", param_hint=param)
    return sys.stdin.buffer


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


def _check_out(out: str, *inputs: str) -> None:
    directory = os.path.dirname(os.path.realpath(out)) or "."
    if os.path.isdir(out):
        raise click.BadParameter(f"{out} is a directory", param_hint="--out")
    if not os.path.isdir(directory):
        raise click.BadParameter(f"no directory {directory}", param_hint="--out")
    for path in inputs:
        if path != "-" and os.path.exists(out) and os.path.samefile(out, path):
            raise click.BadParameter(
                f"is {path}, a log being read; a reader never changes a session file",
                param_hint="--out",
            )


# A stream of this process given as a path: written into, never replaced.
_STREAM = re.compile(r"/dev/(stdout|stderr|fd/\d+)$|/proc/self/fd/\d+$")


class _Output:
    """Where the export goes. It is written to a temporary file first; once complete:

    - a regular file (or a new one) is replaced by renaming the temporary file onto it (the
      file a symlink points to, keeping an existing file's permission bits), so a failure
      never leaves a half-written file;
    - standard output, or a device or pipe given as ``--out`` (``/dev/stdout``, a FIFO), gets
      the bytes copied into it: those cannot be renamed onto.
    """

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.where = path or "stdout"
        self.tmp: str | None = None
        self.target: str | None = None  # the regular file to rename onto
        self.mode: int | None = None  # its permission bits, when it exists
        try:
            st = os.stat(path) if path is not None and os.path.exists(path) else None
            if (
                path is None
                or (st is not None and not stat.S_ISREG(st.st_mode))
                or _STREAM.match(path)  # /dev/stdout may be a regular file (`>> log`)
            ):
                self.file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in __exit__
            else:
                self.target = os.path.realpath(path)
                self.mode = stat.S_IMODE(st.st_mode) if st is not None else None
                fd, self.tmp = tempfile.mkstemp(
                    dir=os.path.dirname(self.target),
                    prefix=f".{os.path.basename(self.target)}.",
                    suffix=".tmp",
                )
                self.file = os.fdopen(fd, "wb")
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None

    def __enter__(self) -> _Output:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()
        if self.tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.tmp)

    def commit(self) -> None:
        """The export is complete: put it where it belongs."""
        try:
            if self.target is None:
                self._copy()
                return
            assert self.tmp is not None
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()
            if self.mode is None:
                umask = os.umask(0)
                os.umask(umask)
                self.mode = 0o666 & ~umask
            os.chmod(self.tmp, self.mode)
            os.replace(self.tmp, self.target)
            self.tmp = None
        except BrokenPipeError:
            # The reader went away (`| head`): nothing more to say to it.
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise _Failure(
                f"{self.where} was closed before the export was written", EXIT_DAMAGED
            ) from None
        except OSError as e:
            raise _Failure(f"cannot write {self.where}: {_reason(e)}", EXIT_DAMAGED) from None

    def _copy(self) -> None:
        self.file.seek(0)
        stream = _STREAM.match(self.path) if self.path is not None else None
        if stream is not None and stream[0] != "/dev/stdout":
            # this process's own descriptor, as it is (appending, say): opening the path
            # again would truncate a file it points to
            fd = 2 if stream[0] == "/dev/stderr" else int(stream[0].rsplit("/", 1)[1])
            with os.fdopen(fd, "wb", closefd=False) as descriptor:
                shutil.copyfileobj(self.file, descriptor)
            return
        if self.path is not None and stream is None:
            with open(self.path, "wb") as device:
                shutil.copyfileobj(self.file, device)
            return
        if sys.stdout is None:
            raise _Failure("stdout is closed: give --out FILE", EXIT_DAMAGED)
        out = sys.stdout.buffer
        shutil.copyfileobj(self.file, out)
        out.flush()


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line on ``args`` (default ``sys.argv[1:]``); return the exit status."""
    return cli.main(args, prog_name="sessiontools", standalone_mode=False)


def _stopping() -> None:
    """A first Ctrl-C or SIGTERM is being handled: more of them (an impatient user, or
    ``timeout``, which signals the command and then its process group) would cut the cleanup
    short, and what a helper thread says as the workers it talks to are stopped is noise."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.excepthook = _quiet


def _quiet(args: Any) -> None:
    """``threading.excepthook`` while the command stops: say nothing."""


def _interrupted(signum: int, frame: object) -> NoReturn:
    _stopping()
    raise KeyboardInterrupt


def _terminated(signum: int, frame: object) -> NoReturn:
    _stopping()
    _say("sessiontools: terminated")
    raise SystemExit(EXIT_TERMINATED)


def handle_signals() -> None:
    """How the command takes Ctrl-C and SIGTERM (``kill``, ``timeout``, a service manager
    stopping it): it stops, cleaning up what it started (a temporary output file, other
    processes), says so in one line, and exits with 130 or 143. Signals that come while it
    stops are ignored."""
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _terminated)
