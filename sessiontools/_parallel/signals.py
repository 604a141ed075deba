"""Signals in a forked process: ``default_signals`` gives every signal that has a Python handler
(the caller's, or the one that raises ``KeyboardInterrupt``) its default action back.

Process machinery beside the flow: the child of a log read in two (``split``) and the workers
of a pool (``pool``) call it first, so that a signal never runs the caller's code in them, such
as the command's handlers (``sessiontools._cli.signals``).
"""

from __future__ import annotations

import contextlib
import signal

__all__ = ["default_signals"]


def default_signals() -> None:
    """Give every signal with a Python handler (the caller's, or KeyboardInterrupt's) its
    default action back."""
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
