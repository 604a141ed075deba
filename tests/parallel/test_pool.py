"""The pool of worker processes (``sessiontools._parallel.pool``): a parent killed outright
takes its workers with it (the trial's: ``kill -9`` on ``sessiontools cost DIR`` left two
workers waiting on the pool's pipe for ever)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

POOL = textwrap.dedent(
    """
    import os, sys, time
    from sessiontools._parallel.pool import pool_map, worker_pool

    pool = worker_pool(2)
    results = pool_map(pool, time.sleep, [60] * 4, 1)
    while len(pool._processes) < 2:
        time.sleep(0.01)
    print(*pool._processes, flush=True)
    time.sleep(120)
    """
)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != b"Z"


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_end_with_a_parent_killed_outright() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", POOL], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL
    )
    try:
        assert parent.stdout is not None
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(pid) for pid in workers)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(alive(pid) for pid in workers)
    finally:
        parent.kill()
        parent.wait()
