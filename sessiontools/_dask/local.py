"""``python -m sessiontools._dask.local SCRATCH WORKERS``: the ``LocalCluster`` of
``--scheduler local``, in a process of its own (started by ``cluster.Connection``).

The command starts this process in a session of its own, so that a Ctrl-C at the terminal (a
SIGINT to the command's whole process group) reaches the command only: the command stops the
cluster, in order, and its workers never see the signal (they ignore SIGINT too, from this
process). The cluster has ``WORKERS`` worker processes of one thread each on 127.0.0.1, its
HTTP endpoint on a free port, and its scratch space in ``SCRATCH``.

It writes the scheduler's address as one line on stdout once the workers are up, then waits
for its stdin to close (the command closing it, or dying), closes the cluster and removes
``SCRATCH``. What the cluster and its workers say goes to its stderr, which the command gives
a file of its own.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import signal
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]


def main(argv: Sequence[str]) -> int:
    """Start the cluster, say its address, wait for stdin to close, close it."""
    # SIG_IGN survives exec: the workers this process starts ignore SIGINT too
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _stop)
    scratch, workers = argv[0], int(argv[1])
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    cluster: Any = None
    try:
        import dask
        from distributed import LocalCluster

        # the scheduler's scratch space too (else left in the system's temporary directory)
        with dask.config.set({"temporary-directory": scratch}):
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address="127.0.0.1:0",
                local_directory=scratch,
                silence_logs=logging.CRITICAL + 1,
            )
        sys.stdout.write(cluster.scheduler_address + "\n")
        sys.stdout.flush()
        while sys.stdin.buffer.read(65536):  # until the command closes it (or dies)
            pass
    except SystemExit:
        pass
    except BaseException as e:  # said on stderr, which the command reads when no address came
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if cluster is not None:
            with contextlib.suppress(BaseException):  # the command kills what is left
                cluster.close(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
