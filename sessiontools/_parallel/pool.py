"""Many logs read at once: a pool of forked worker processes that leave signals to the process
that started them; process machinery beside the flow, used by the cost tables
(docs/costs.md, "Frames").

``worker_pool(workers)`` starts the pool (``concurrent.futures.ProcessPoolExecutor``, forked
where the platform can: the workers need nothing but what this process has, and a script
without a ``__main__`` guard is not run again, as it would be by ``spawn``). ``pool_map``
hands it the work with Ctrl-C and SIGTERM held while the workers are forked. A worker runs no
signal handler of its parent (such as the command's) and ignores Ctrl-C and SIGTERM, which can
reach the whole process group: the parent stops the pool in order, once the work being done is
done (a worker killed while it sends its result back would leave the pool waiting forever).
On Linux a worker ends with the process that started it (``PR_SET_PDEATHSIG``): a parent
killed outright (``kill -9``, the out-of-memory killer) left its workers waiting forever on
the pool's pipe, which they hold open themselves.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .signals import default_signals

if TYPE_CHECKING:
    import concurrent.futures

__all__ = ["MAX_WORKERS", "PARALLEL_FROM", "pool_map", "worker_pool"]

#: ``read_costs`` reads in several processes from this many files on (see ``workers``).
PARALLEL_FROM = 32

#: ... and with at most this many processes.
MAX_WORKERS = 8

_STOP = {signal.SIGINT, signal.SIGTERM}

#: Linux's ``prctl`` (by ctypes, loaded with the pool), else ``None``.
_prctl: Any = None
_PR_SET_PDEATHSIG = 1


def _worker_signals(parent: int) -> None:
    """In each worker, first: its parent's signal handlers gone, Ctrl-C and SIGTERM ignored;
    on Linux, SIGKILL when ``parent`` (the process that started the pool) ends, and an end at
    once if it ended already."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # it ended before the line above: no signal will come
            os._exit(1)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP)  # blocked while it was forked


def worker_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of ``workers`` processes, forked where the platform can (module docstring).
    concurrent.futures and multiprocessing load here: reading one small log needs neither."""
    import concurrent.futures
    import multiprocessing

    global _prctl
    if _prctl is None and sys.platform == "linux":
        import ctypes

        _prctl = ctypes.CDLL(None, use_errno=True).prctl  # here: each worker has it forked
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=_worker_signals,
        initargs=(os.getpid(),),
    )


def pool_map(
    pool: concurrent.futures.ProcessPoolExecutor,
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    chunksize: int,
) -> Iterator[Any]:
    """``pool.map(fn, items)``, the results in order. The workers are forked now: Ctrl-C and
    SIGTERM wait until the forks are done (a signal handler that raised while a fork ran the
    hooks registered for it, as the logging module's, would be ignored there)."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP)
    try:
        return pool.map(fn, items, chunksize=chunksize)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
