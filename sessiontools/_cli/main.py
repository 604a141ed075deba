"""The ``sessiontools`` command: the click group, its ``otel``, ``cost`` and ``report``
commands, and ``main(args) -> int``; the last stage of the flow, a thin layer over the library.

A command parses its flags, checks what it can before anything is read (ids, paths, ``--out``)
and calls the library (``export_otlp_json``, ``cost_report``). What it says and its exit status
are in ``messages``, ``--out`` in ``output``, Ctrl-C and SIGTERM in ``signals``
(docs/traces.md, "Command"; docs/costs.md, "Command").

- Flags may come before or after the file.
- A file name (SESSION, PATH, ``--out``, ``--prices``) may be any bytes: it is used as it is
  and shown with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8
  (``_Text``: a usage error names the byte).
- ``cost`` loads numpy and genai-prices when it runs (pandas never): ``otel`` loads neither.
  Each command's module loads only when the command runs (``_COMMANDS``), with Ctrl-C and
  SIGTERM held meanwhile as ``sessiontools._main`` holds them: ``cost`` loads none of the
  traces' exporters and senders.
"""

from __future__ import annotations

import importlib
import signal
import sys
from collections.abc import Sequence
from typing import Any

import click

from .._main import loaded
from .._version import __version__
from .messages import (
    _OUT_OF_MEMORY,
    EXIT_DAMAGED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_USAGE,
    _one_line,
    _say,
)
from .signals import Terminated

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


#: Each command's module, imported when the command is run (or listed, for --help): `cost`
#: loads none of `otel`'s exporters and senders, `otel` none of the cost tables, and neither
#: the report's.
_COMMANDS = {"otel": ".otel", "cost": ".cost", "report": ".report"}


class _Group(click.Group):
    """A group whose every error, usage errors included, is one line on stderr, and whose
    commands are loaded when asked for (``_COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _COMMANDS:
            # as the console script imports the command line: Ctrl-C and SIGTERM wait while
            # the module (and the extension modules it loads) is imported
            stop = {signal.SIGINT, signal.SIGTERM}
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
            try:
                module = importlib.import_module(_COMMANDS[cmd_name], __package__)
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            self.add_command(getattr(module, cmd_name))
            loaded()  # the collector runs again, if the start-up held it
        return super().get_command(ctx, cmd_name)

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
        except Terminated:  # SIGTERM: said last, after what the command said as it stopped
            _say("sessiontools: terminated")
            code = EXIT_TERMINATED
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
            if arg in self.commands or arg in _COMMANDS:
                return f"{self.name} {arg}"
        return self.name or "sessiontools"


@click.group("sessiontools", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sessiontools")
def cli() -> None:
    """Read agentloop session logs offline."""


def main(args: Sequence[str] | None = None) -> int:
    """Run the command line on ``args`` (default ``sys.argv[1:]``); return the exit status."""
    return cli.main(args, prog_name="sessiontools", standalone_mode=False)
