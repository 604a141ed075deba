"""The ``sessiontools`` command: a thin layer over the library.

Exit status (design/traces.md, "Command"): 0 done; 1 a damaged or unreadable log; 2 a usage
error (a bad flag, an unusable path). Every error is one line on stderr, never a traceback.

Text from a log or a file name is shown with its control characters escaped (``printable``).
A file name (SESSION, PATH, ``--out``, ``--prices``) may be any bytes: it is used as it is and
shown with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8.
"""

from __future__ import annotations

import signal
import threading
from typing import Any, NoReturn

from .messages import EXIT_TERMINATED, _say

__all__ = ["handle_signals"]


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
