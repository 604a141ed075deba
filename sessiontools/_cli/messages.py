"""What the ``sessiontools`` command says, and how it exits (docs/traces.md, "Command").

- Exit status: 0 done; 1 a damaged or unreadable log, or output that cannot be written
  (``EXIT_DAMAGED``); 2 a usage error: a bad flag, an unusable path (``EXIT_USAGE``); 3
  ``cost --max-cost``: the cost is above the limit, or cannot be known to be under it
  (``EXIT_OVER_BUDGET``; docs/costs.md, "Command"); 130 for Ctrl-C and 143 for SIGTERM.
- Every error is one line on stderr, never a traceback; so is each warning the library gives
  (``_warnings_to_stderr``), and running out of memory.
- Text from a log or a file name is shown with its control characters escaped (``printable``),
  so a log cannot drive the terminal.
- A progress bar shows on stderr while logs are read, only on a terminal and once reading
  has taken a second (``PROGRESS_AFTER``).
"""

from __future__ import annotations

import contextlib
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import click

from .._errors import SessionToolsWarning
from .._log.reader import printable

EXIT_OK = 0


EXIT_DAMAGED = 1


EXIT_USAGE = 2


EXIT_OVER_BUDGET = 3  # `cost --max-cost`


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C


EXIT_TERMINATED = 143  # 128 + SIGTERM


class _Failure(Exception):
    """A run that ends with one line on stderr and an exit status."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


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


#: How long reading logs goes on before a progress bar shows (seconds): work that ends
#: sooner needs none, and a bar that flashes by for two small logs is noise.
PROGRESS_AFTER = 1.0


@contextlib.contextmanager
def _progress(
    total: int, *, after: float = PROGRESS_AFTER, clock: Callable[[], float] = time.monotonic
) -> Iterator[Callable[[str], None] | None]:
    """A progress bar on stderr while logs are read, only on a terminal, and only for long
    work: it shows once reading has taken ``after`` seconds with logs still to read (the
    logs read so far counted), never for a single log."""
    stream = sys.stderr
    if total < 2 or stream is None or not stream.isatty():
        yield None
        return
    started = clock()
    done = 0
    with contextlib.ExitStack() as stack:
        bar: Any = None

        def step(name: str) -> None:
            nonlocal done, bar
            done += 1
            if bar is not None:
                bar.update(1)
            elif done < total and clock() - started >= after:
                bar = stack.enter_context(
                    click.progressbar(length=total, label="reading logs", file=stream)
                )
                bar.update(done)

        yield step


def _reason(e: OSError) -> str:
    return e.strerror or str(e)
