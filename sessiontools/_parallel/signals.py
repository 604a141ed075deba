"""Signals: ``default_signals`` in a forked process, ``SignalsHeld`` where work must not be cut.

Process machinery beside the flow. ``default_signals`` gives every signal that has a Python
handler (the caller's, or the one that raises ``KeyboardInterrupt``) its default action back:
the child of a log read in two (``split``) and the workers of a pool (``pool``) call it first,
so that a signal never runs the caller's code in them, such as the command's handlers
(``sessiontools._cli.signals``).

``SignalsHeld`` makes Ctrl-C and SIGTERM wait while a block runs (pages put in place, a
request in flight and its acknowledgement recorded), then act.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from types import FrameType
from typing import Any

__all__ = ["STOP_SIGNALS", "SignalsHeld", "default_signals"]

#: The signals that stop a command: Ctrl-C and SIGTERM.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def default_signals() -> None:
    """Give every signal with a Python handler (the caller's, or KeyboardInterrupt's) its
    default action back."""
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)


class SignalsHeld:
    """``with SignalsHeld():`` Ctrl-C and SIGTERM wait while the block runs, then act (the
    first of them, given again as it came once the block is left, whatever way: its handler
    runs then, as if it came at that moment). Meanwhile their handlers only note them.

    Blocking them instead (``pthread_sigmask``) would not do: the kernel hands a signal to a
    thread of the process that does not block it (a pool's, a client's), and Python then runs
    the handler in the main thread all the same. Only the main thread has handlers: elsewhere,
    or where a signal's handler was not set from Python, the block just runs.

    ``sleep(seconds)`` waits with the signals acting at once (a noted one first): for a wait
    inside the block that a person should be able to cut short, such as a retry's back-off.
    """

    def __init__(self, signals: tuple[int, ...] = STOP_SIGNALS) -> None:
        self.signals = signals
        self.got: list[int] = []
        self.previous: dict[int, Any] = {}
        self.holding = False

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.got.append(signum)  # nothing else: it may run inside anything on this thread

    def __enter__(self) -> SignalsHeld:
        if self.holding or threading.current_thread() is not threading.main_thread():
            return self
        previous = {signum: signal.getsignal(signum) for signum in self.signals}
        if any(handler is None for handler in previous.values()):  # not set from Python
            return self
        self.previous = previous
        self._hold()
        return self

    def _hold(self) -> None:
        for signum in self.signals:
            signal.signal(signum, self._note)
        self.holding = True

    def _release(self) -> None:
        """The handlers as they were (each that is still ours: a handler that ran meanwhile
        may have set another, which stays), then a noted signal given again."""
        self.holding = False
        for signum, handler in self.previous.items():
            if signal.getsignal(signum) == self._note:
                signal.signal(signum, handler)
        if self.got:
            signum = self.got[0]
            self.got.clear()
            signal.raise_signal(signum)  # its handler runs here

    def __exit__(self, *exc: object) -> None:
        if self.holding:
            self._release()

    def sleep(self, seconds: float) -> None:
        """``time.sleep(seconds)``, with the signals acting at once while it waits."""
        if not self.holding:
            time.sleep(seconds)
            return
        self._release()
        try:
            time.sleep(seconds)
        finally:
            if all(signal.getsignal(s) == self.previous[s] for s in self.signals):
                self._hold()  # (not when a handler that ran set another: the command stops)
