"""How the ``sessiontools`` command takes Ctrl-C and SIGTERM: ``handle_signals``, and
``stoppable`` for work that runs other people's code (Dask's client).

It stops, cleaning up what it started (a temporary output file, other processes), says so in
one line (the last it says), and exits with 130 or 143; signals that come while it stops are
ignored. The console
script installs these handlers once the command is imported (``sessiontools._main``); the
processes a command forks give them up (``sessiontools._parallel.signals``).

``handle_signals``' handlers raise ``KeyboardInterrupt`` (or ``SystemExit``) wherever the main
thread is. That is right in our own code, but code that catches every exception (distributed's
garbage-collector callback, its event-loop callbacks) may swallow it, and the command would go
on and exit 0. ``stoppable`` runs such work in another thread; the main thread only waits, and
its handlers only note the signal: the main thread then stops the work (``stop``: a client
closed, a cluster stopped) and raises in our code, every time.

Python itself swallows an exception raised where it cannot be passed on: in a finalizer
(``__del__``), a weak reference's callback, the garbage collector's callbacks. A signal that
comes while one of them runs (a trial saw it once in about a hundred signals: a report
printed "Exception ignored in ... KeyboardInterrupt" and went on, then ignored every later
signal) would be lost. Python hands such an exception to ``sys.unraisablehook``: ours
(``_unraisable``) takes the command's own stop there, says nothing, and has the signal sent
again (``_send_again``), to be handled as if it came now.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from .messages import EXIT_TERMINATED

__all__ = ["Terminated", "handle_signals", "stoppable"]

T = TypeVar("T")

#: How long ``stoppable`` waits for its work to end once stopped.
STOP_SECONDS = 2.0


class Terminated(SystemExit):
    """SIGTERM: the command stops (cleaning up, saying what it did, as for Ctrl-C); its one
    line, "sessiontools: terminated", is said last, where the command ends
    (``sessiontools._cli.main``), and the status is 143."""

    def __init__(self) -> None:
        super().__init__(EXIT_TERMINATED)


#: The signal whose stop the command's handler raised, until that stop is seen swallowed
#: (``_unraisable``).
_raised: list[int] = []

#: How long ``_send_again`` waits before it sends the signal again: the hook that asked for
#: it has returned by then, so the handler raises in the code the finalizer interrupted.
AGAIN_SECONDS = 0.01


def _stopping(signum: int) -> None:
    """A first Ctrl-C or SIGTERM is being handled: more of them (an impatient user, or
    ``timeout``, which signals the command and then its process group) would cut the cleanup
    short, and what a helper thread says as the workers it talks to are stopped is noise."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    threading.excepthook = _quiet
    _raised[:] = [signum]


def _quiet(args: Any) -> None:
    """``threading.excepthook`` while the command stops: say nothing."""


def _interrupted(signum: int, frame: object) -> NoReturn:
    _stopping(signum)
    raise KeyboardInterrupt


def _terminated(signum: int, frame: object) -> NoReturn:
    _stopping(signum)
    raise Terminated


def handle_signals() -> None:
    """How the command takes Ctrl-C and SIGTERM (``kill``, ``timeout``, a service manager
    stopping it): it stops, cleaning up what it started (a temporary output file, other
    processes), says so in one line, and exits with 130 or 143. Signals that come while it
    stops are ignored. A signal the command was started with ignored (``nohup``, a background
    job of a script, which ignores Ctrl-C) stays ignored, as Python leaves it. A stop that
    Python swallowed (a finalizer was running) comes again (``_unraisable``)."""
    for number, handler in _HANDLERS.items():
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, handler)
    if sys.unraisablehook is not _unraisable:
        _previous_hook[:] = [sys.unraisablehook]
        sys.unraisablehook = _unraisable


_HANDLERS: dict[int, Callable[[int, object], NoReturn]] = {
    signal.SIGINT: _interrupted,
    signal.SIGTERM: _terminated,
}
_previous_hook: list[Callable[[Any], object]] = []


def _unraisable(unraisable: Any) -> None:
    """``sys.unraisablehook`` of the command: the stop its handler raised, swallowed where
    Python could not pass it on (a finalizer, a callback), is not said; its handler is set
    again and the signal sent again, to stop the command as if it came now. Anything else
    goes to the hook there was before."""
    stop = isinstance(unraisable.exc_value, (KeyboardInterrupt, Terminated))
    if stop and _raised and threading.current_thread() is threading.main_thread():
        signum = _raised.pop()
        signal.signal(signum, _HANDLERS[signum])
        threading.Thread(
            target=_send_again, args=(signum,), name="sessiontools-signal", daemon=True
        ).start()
        return
    (_previous_hook[0] if _previous_hook else sys.__unraisablehook__)(unraisable)


def _send_again(signum: int) -> None:
    """Send ``signum`` to this process once the hook that asked for it has returned."""
    time.sleep(AGAIN_SECONDS)
    os.kill(os.getpid(), signum)


def stoppable(work: Callable[[], T], stop: Callable[[], None]) -> T:
    """``work()``, run in another thread while this (the main) thread waits, its result or
    exception; Ctrl-C or SIGTERM meanwhile only note the signal. Then, here: later signals are
    ignored, ``stop()`` (what makes ``work`` end: its client closed, its cluster stopped), the
    work waited for (``STOP_SECONDS`` at most: its thread is a daemon), and the command stops
    as ``handle_signals`` stops it (``KeyboardInterrupt``; SIGTERM: one line and 143).
    Outside the main thread, or with a signal handler of someone else's (the library's
    callers), ``work()`` runs here."""
    was = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    if threading.current_thread() is not threading.main_thread() or (
        was[signal.SIGINT] not in (_interrupted, signal.SIG_IGN)
        or was[signal.SIGTERM] not in (_terminated, signal.SIG_IGN)
    ):
        return work()
    got: list[int] = []
    outcome: list[Any] = []

    def noted(signum: int, frame: object) -> None:
        got.append(signum)  # nothing else: it may run inside anything on this thread

    def run() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as e:  # handed to the main thread
            outcome.append((False, e))

    thread = threading.Thread(target=run, name="sessiontools-work", daemon=True)
    for number, handler in was.items():
        if handler is not signal.SIG_IGN:  # one ignored when the command started stays so
            signal.signal(number, noted)
    try:
        thread.start()
        while thread.is_alive() and not got:
            thread.join(0.05)  # a signal comes in within this
    finally:
        if not got:
            for number, handler in was.items():
                signal.signal(number, handler)
    if got:
        _stopping(got[0])
        try:
            stop()
        finally:
            thread.join(STOP_SECONDS)
        if got[0] == signal.SIGTERM:
            raise Terminated
        raise KeyboardInterrupt
    ok, value = outcome[0]
    if ok:
        return value  # type: ignore[no-any-return]
    raise value
