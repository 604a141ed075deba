"""The console script ``sessiontools`` and ``python -m sessiontools``.

Only this module loads before the command's code is imported. Ctrl-C and SIGTERM wait while
it is imported (an extension module interrupted in its initialisation may crash), and are
then handled as everywhere else: one line, and 130 or 143
(``sessiontools._cli.signals.handle_signals``). The process ends without the interpreter's
teardown when nothing is left to run at exit (``_leave``).
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import NoReturn


def run() -> NoReturn:
    """Import the command line and run it: ``sys.exit(_cli.main())``, with the command's
    signal handling (``_cli.handle_signals``)."""
    stop = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    from ._cli.main import main
    from ._cli.signals import handle_signals

    handle_signals()
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one that came meanwhile acts now
        code = main()
    except KeyboardInterrupt:  # before the command ran
        sys.stderr.write("sessiontools: interrupted\n")
        code = 130
    _leave(code)


def _leave(code: int) -> NoReturn:
    """Exit with ``code``, the command done. When nothing is left to run at exit (no
    ``atexit`` callback, no other thread: ``sessiontools otel`` exporting), the standard
    streams are flushed and the process ends without the interpreter's teardown, which frees
    every module and object one by one and takes longer than exporting a small log (about
    13 ms). Otherwise, or when a stream cannot be flushed, as ``sys.exit`` does."""
    callbacks = getattr(atexit, "_ncallbacks", None)  # CPython's
    if callbacks is None or callbacks() or threading.active_count() > 1:
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                sys.exit(code)  # said as Python says it
    os._exit(code)
