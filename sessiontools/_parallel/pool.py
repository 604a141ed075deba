"""Reading logs into the cost tables' rows, without pandas (contract: design/costs.md).

Everything here runs where the logs are read, which can be a pool of processes: each log
becomes plain column lists (``_LogRows``), cheap to send back. pandas and genai-prices are
not imported, so ``sessiontools cost`` can start the pool first and import them while the
processes read.
"""

from __future__ import annotations

import signal

from .signals import default_signals

__all__ = ["MAX_WORKERS", "PARALLEL_FROM"]


#: ``read_costs`` reads in several processes from this many files on (see ``workers``).
PARALLEL_FROM = 32


#: ... and with at most this many processes.
MAX_WORKERS = 8


def _worker_signals() -> None:
    """A pool worker runs no signal handler of the process that started it (such as the
    command's), and leaves Ctrl-C and SIGTERM, which may reach the whole process group, to
    that process: it stops the pool in order, once the logs being read are read. (A worker
    killed while it sends a log back would leave the pool waiting for the rest forever.)"""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP)  # blocked while it was forked


_STOP = {signal.SIGINT, signal.SIGTERM}
