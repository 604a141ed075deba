"""The console script ``sessiontools`` and ``python -m sessiontools``.

Only this module loads before the command's code is imported. Ctrl-C and SIGTERM wait while
it is imported (an extension module interrupted in its initialisation may crash), and are
then handled as everywhere else: one line, and 130 or 143
(``sessiontools._cli.signals.handle_signals``). The collector waits until the command's module
is loaded (``loaded``). The process ends without the interpreter's teardown once what is left to
run at exit has run (``_leave``).
"""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys

# As typing.TYPE_CHECKING (which type checkers know by its name): typing, which the command
# line loads anyway, then loads while the collector waits (``run``).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn


def run() -> NoReturn:
    """Import the command line and run it: ``sys.exit(_cli.main())``, with the command's
    signal handling (``_cli.handle_signals``)."""
    stop = {signal.SIGINT, signal.SIGTERM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, stop)
    one_blas_thread()
    _hold_collector()
    from ._cli.main import main
    from ._cli.signals import Terminated, handle_signals

    handle_signals()
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # one that came meanwhile acts now
        code = main()
    except KeyboardInterrupt:  # before the command ran
        sys.stderr.write("sessiontools: interrupted\n")
        code = 130
    except Terminated:  # before the command ran
        sys.stderr.write("sessiontools: terminated\n")
        code = 143
    _leave(code)


def one_blas_thread() -> None:
    """One OpenBLAS thread for the commands, unless the environment says how many
    (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS`` or ``OMP_NUM_THREADS``, read by OpenBLAS
    when numpy loads it). The cost tables use numpy but no linear algebra; by default numpy's
    OpenBLAS starts a thread per core, whose waiting took 5.8% of ``sessiontools report``'s
    samples on a 100 MB log (``perf``), CPU the command's two processes needed: its median CPU
    time went from 0.887 to 0.831 s and its wall time from 0.623 to 0.580 s (12 shuffled runs
    each, 2 cores; benchmarks/README.md, "One OpenBLAS thread"). Set here, the setting also
    reaches what the command starts (a local Dask cluster's workers), which run the same
    code."""
    if not any(name in os.environ for name in _BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


#: What OpenBLAS reads for its number of threads, in its order.
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


#: Whether ``run`` turned the collector off for the start-up (``loaded`` turns it on).
_held = False


def _hold_collector() -> None:
    """The start-up makes objects that live as long as the process (modules, classes,
    functions): the cyclic collector, run every 700 of them, would go through them again and
    again for nothing (15 collections, 3 to 5 ms, over ``sessiontools otel`` on an empty log).
    It is off until ``loaded``."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def loaded() -> None:
    """The command's module is loaded, its work begins: the objects alive now go to the
    collector's oldest generation, which only its rare full collections walk (``gc.freeze``
    then ``gc.unfreeze``: the lists moved, not walked), and it runs again as before (when
    ``run`` turned it off). Nothing stays frozen: what freezes the objects for a while (a
    log's read in two, the report's ``paused_gc``) sees none frozen before it, as in a
    library caller's process, and the interpreter's own exit finds them as it would have."""
    global _held
    if _held:
        _held = False
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def _leave(code: int) -> NoReturn:
    """Exit with ``code``, the command done. When no other thread is running, the ``atexit``
    callbacks run (``logging``'s, ``multiprocessing``'s: what a pool or an import registered),
    the standard streams are flushed and the process ends without the interpreter's teardown,
    which frees every module and object one by one: about 13 ms after exporting a small log,
    0.4 s after a report of a 100 MB log (200 MiB of objects). Otherwise, or when a stream
    cannot be flushed, as ``sys.exit`` does."""
    import threading  # loaded by now (click's), here: while the collector waited

    run_callbacks = getattr(atexit, "_run_exitfuncs", None)  # CPython's
    if run_callbacks is None or threading.active_count() > 1:
        sys.exit(code)
    run_callbacks()  # as at exit: one that fails is printed and the status stays
    if threading.active_count() > 1:  # a callback started one
        sys.exit(code)
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            try:
                stream.flush()
            except (OSError, ValueError):
                sys.exit(code)  # said as Python says it
    os._exit(code)
