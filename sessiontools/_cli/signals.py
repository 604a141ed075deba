"""How the ``sessiontools`` command takes Ctrl-C and SIGTERM: ``handle_signals``.

It stops, cleaning up what it started (a temporary output file, other processes), says so in
one line, and exits with 130 or 143; signals that come while it stops are ignored. The console
script installs these handlers once the command is imported (``sessiontools._main``); the
processes a command forks give them up (``sessiontools._parallel.signals``).
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
