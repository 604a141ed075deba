"""``SignalsHeld``: Ctrl-C and SIGTERM wait while a block runs (the pages of ``report --out
DIR/`` put in place, a request in flight and its acknowledgement recorded), then act; they act
at once in its ``sleep`` (a retry's back-off). Each test sets a handler that raises, as the
command's do, and puts the one before back."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

import pytest

from sessiontools._parallel.signals import SignalsHeld


class Stop(Exception):
    """What the test's handler raises."""


@pytest.fixture
def raising() -> Iterator[list[int]]:
    """SIGINT and SIGTERM raise ``Stop``, as the command's handlers raise, and then are
    ignored (as the command ignores signals once it stops); the signals handled, in order."""
    handled: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        handled.append(signum)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Stop(signum)

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for s in before:
        signal.signal(s, handler)
    try:
        yield handled
    finally:
        for s, h in before.items():
            signal.signal(s, h)


def give(signum: int) -> None:
    """``signum`` to this process, as ``kill`` gives it, and time for it to arrive."""
    os.kill(os.getpid(), signum)
    for _ in range(100):  # a handler runs between bytecodes: these are some
        pass


def test_a_signal_waits_for_the_block_then_acts(raising: list[int]) -> None:
    done: list[str] = []
    with pytest.raises(Stop), SignalsHeld():
        give(signal.SIGTERM)
        give(signal.SIGINT)  # the first one acts, once
        done.append("block")
    assert done == ["block"]
    assert raising == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # as the handler left them


def test_a_block_without_a_signal_leaves_the_handlers_as_they_were(raising: list[int]) -> None:
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with SignalsHeld():
        pass
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    assert raising == []


def test_a_signal_waits_while_another_thread_runs(raising: list[int]) -> None:
    """With another thread that does not block the signal (a pool's, a client's), the kernel
    may hand it to that thread; Python runs the handler in the main thread all the same. It
    still waits for the block (blocking it with pthread_sigmask in the main thread did not)."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    done: list[str] = []
    try:
        with pytest.raises(Stop), SignalsHeld():
            for _ in range(20):  # one of them, at least, goes to the other thread
                give(signal.SIGINT)
                time.sleep(0.001)
            done.append("block")
    finally:
        stop.set()
        thread.join()
    assert done == ["block"]
    assert raising == [signal.SIGINT]


def test_a_signal_acts_at_once_in_sleep(raising: list[int]) -> None:
    """A signal noted before the wait acts as the wait starts; one during it, during it. The
    handler's own setting (ignore) stays after the block."""
    held = SignalsHeld()
    done: list[str] = []
    with pytest.raises(Stop), held:
        give(signal.SIGTERM)
        done.append("noted")
        held.sleep(5)
        done.append("slept")
    assert done == ["noted"]
    assert raising == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN


def test_a_signal_during_sleep_cuts_it_short(raising: list[int]) -> None:
    timer = threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGTERM))
    started = time.monotonic()
    with pytest.raises(Stop), SignalsHeld() as held:
        timer.start()
        held.sleep(5)
    timer.join()
    assert time.monotonic() - started < 2
    assert raising == [signal.SIGTERM]


def test_after_sleep_the_signals_wait_again(raising: list[int]) -> None:
    held = SignalsHeld()
    done: list[str] = []
    with pytest.raises(Stop), held:
        held.sleep(0.01)
        give(signal.SIGINT)
        done.append("block")
    assert done == ["block"]
    assert raising == [signal.SIGINT]


def test_off_the_main_thread_the_block_just_runs(raising: list[int]) -> None:
    seen: list[object] = []

    def work() -> None:
        with SignalsHeld() as held:
            seen.append(signal.getsignal(signal.SIGINT))
            held.sleep(0)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == [signal.getsignal(signal.SIGINT)]  # the test's handler, untouched
