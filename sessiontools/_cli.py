"""The ``sessiontools`` command: a thin layer over the library.

Exit status (design/traces.md, "Command"): 0 done; 1 a damaged or unreadable log; 2 a usage
error (a bad flag, an unusable path). Every error is one line on stderr, never a traceback.

Text from a log or a file name is shown with its control characters escaped (``printable``).
A file name (SESSION, PATH, ``--out``, ``--prices``) may be any bytes: it is used as it is and
shown with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8.
"""

from __future__ import annotations

import contextlib
import errno
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
from ._reader import MAX_LINE_BYTES, printable
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


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _say(line: str) -> None:
    """One line on stderr, safe for a terminal: a newline inside (a file's name can hold one)
    is written as \\n, an ESC (log text can hold one) as \\x1b, and so on (``printable``); a
    byte of a file name that is not UTF-8 as U+FFFD."""
    click.echo(printable(line), err=True)


_OUT_OF_MEMORY = (
    "out of memory; a log's line is held whole while it is read: lower --max-line-bytes to "
    "find a line too long, or give the command more memory"
)

# A lone surrogate: how Python gives a byte of an argument that is not UTF-8.
_NOT_UTF8 = re.compile("[\ud800-\udfff]")


class _Text(click.ParamType):  # type: ignore[type-arg]
    """A flag's text, which must be UTF-8 (it goes into the output, or is parsed)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            bad = _NOT_UTF8.search(value)
            if bad is not None:
                code = ord(bad.group())
                what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "a surrogate"
                self.fail(
                    f"not valid UTF-8 ({what} at character {bad.start() + 1}); give it in UTF-8",
                    param,
                    ctx,
                )
        return value


_TEXT = _Text()

_SIZE_TEXT = re.compile(r"([0-9]+)([KMG]?)", re.IGNORECASE)


class _Size(_Text):
    """A number of bytes: digits, with K, M or G for KiB, MiB or GiB."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        text = super().convert(value, param, ctx).strip()
        found = _SIZE_TEXT.fullmatch(text)
        if found is None or int(found.group(1)) == 0:
            self.fail(
                f"{text!r} is not a size: give a positive number of bytes, with K, M or G for "
                "KiB, MiB or GiB (256M)",
                param,
                ctx,
            )
        return int(found.group(1)) << (10 * " KMG".index(found.group(2).upper() or " "))


_MAX_LINE_HELP = (
    "The longest line read, in bytes (K, M, G: KiB, MiB, GiB); a longer one is an error. "
    f"Default {MAX_LINE_BYTES >> 20}M."
)


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
    conversation_id: str | None,
    parent_trace: str | None,
    parent_span: str | None,
    service_name: str,
    agent_name: str | None,
    error_messages: bool,
    max_line_bytes: int,
) -> int:
    """Export SESSION.jsonl (a session log or a run's transcript, either perhaps gzipped; - for
    stdin) as one OTLP/JSON ExportTraceServiceRequest, like `agentloop otel`."""
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
    """Refuse an ``--out`` that cannot be written or must not be: a directory, a missing
    directory, a log being read (``-``: the file standard input is), and what ``_out_file``
    refuses."""
    directory = os.path.dirname(os.path.realpath(out)) or "."
    if os.path.isdir(out):
        raise click.BadParameter(f"{out} is a directory", param_hint="--out")
    if not os.path.isdir(directory):
        raise click.BadParameter(f"no directory {directory}", param_hint="--out")
    for path in inputs:
        if path == "-":
            if _is_stdin(out):
                raise click.BadParameter(
                    "is standard input, the log being read; a reader never changes a session file",
                    param_hint="--out",
                )
        elif os.path.exists(out) and os.path.samefile(out, path):
            raise click.BadParameter(
                f"is {path}, a log being read; a reader never changes a session file",
                param_hint="--out",
            )
    if not _STREAM.match(out):
        try:
            _out_file(out)
        except OSError as e:
            raise click.BadParameter(f"{out}: {_reason(e)}", param_hint="--out") from None


def _is_stdin(path: str) -> bool:
    """Whether ``path`` is the file standard input reads (a session given as ``-``)."""
    try:
        here = os.fstat(sys.stdin.fileno())
        there = os.stat(path)
    except (AttributeError, OSError, ValueError):  # no stdin, no such file, a test's stream
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


# The symbolic links followed before a loop is assumed (Linux's own limit).
_MAX_LINKS = 40


def _out_file(path: str) -> tuple[str, os.stat_result | None]:
    """The file ``--out`` names, its symbolic links followed, and its status (``None`` when it
    does not exist yet). Refused (``click.BadParameter``):

    - a symbolic link in a sticky, world-writable directory (such as ``/tmp``) owned neither
      by this user nor by the directory's owner: the kernel's ``protected_symlinks`` rule, so
      that another user cannot plant a link that makes this command replace that user's file
      (or any other), whether or not the rule is on;
    - an existing file this user could not write (``os.access``; for root, any file is
      writable, as the kernel sees it): replacing it by a rename, which needs only the
      directory, would get round its permissions.

    Raises:
        OSError: a link cannot be read, or loops.
    """
    for _ in range(_MAX_LINKS):
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return path, None
        if not stat.S_ISLNK(st.st_mode):
            break
        directory = os.path.dirname(path) or "."
        _check_link(path, st, directory)
        path = os.path.join(directory, os.readlink(path))
    else:
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
    if stat.S_ISREG(st.st_mode) and not _may_write(path):
        raise click.BadParameter(
            f"{path} is read-only (mode {stat.filemode(st.st_mode)}); it is not replaced: make "
            "it writable, or give another file",
            param_hint="--out",
        )
    return path, st


def _may_write(path: str) -> bool:
    """Whether this process could open ``path`` for writing, as the kernel decides (its
    effective ids)."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def _check_link(link: str, st: os.stat_result, directory: str) -> None:
    """Refuse to follow ``link`` (its ``lstat`` is ``st``) as ``protected_symlinks`` does."""
    try:
        parent = os.stat(directory)
    except OSError:
        return  # the kernel has its say when the file is written
    shared = parent.st_mode & stat.S_ISVTX and parent.st_mode & stat.S_IWOTH
    if shared and st.st_uid != os.geteuid() and st.st_uid != parent.st_uid:
        raise click.BadParameter(
            f"{link} is a symbolic link of another user (uid {st.st_uid}) in a shared "
            "directory (sticky and world-writable): it is not followed (the kernel's "
            "protected-symlinks rule); remove it, or give another file",
            param_hint="--out",
        )


def _temporary_prefix(directory: str, name: str) -> str:
    """``.NAME.``, with ``NAME`` cut so that the temporary file's name (the prefix, 8 random
    characters and ``.tmp``) stays within the file system's limit on a name (``NAME_MAX``)."""
    try:
        name_max = os.pathconf(directory, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    room = max(name_max - len("..") - 8 - len(".tmp"), 1)
    encoded = os.fsencode(name)
    if len(encoded) > room:
        name = os.fsdecode(encoded[:room])  # a cut character stays as its bytes
    return f".{name}."


# A stream of this process given as a path: written into, never replaced.
_STREAM = re.compile(r"/dev/(stdout|stderr|fd/\d+)$|/proc/self/fd/\d+$")


class _Output:
    """Where the export goes. It is written to a temporary file first; once complete:

    - a regular file (or a new one) is replaced by renaming the temporary file onto it (the
      file a symlink points to, keeping an existing file's permission bits), so a failure
      never leaves a half-written file; a read-only file, or a link another user planted in
      a shared directory, is refused (``_out_file``);
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
            if path is None or _STREAM.match(path):  # /dev/stdout may be a regular file
                target, st = None, None
            else:
                target, st = _out_file(path)
            if target is None or (st is not None and not stat.S_ISREG(st.st_mode)):
                self.file: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - closed in __exit__
            else:  # a regular file, or a new one (a dangling link's target, as open() makes)
                self.target = target
                self.mode = stat.S_IMODE(st.st_mode) if st is not None else None
                directory = os.path.dirname(target) or "."
                fd, self.tmp = tempfile.mkstemp(
                    dir=directory,
                    prefix=_temporary_prefix(directory, os.path.basename(target)),
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
