"""The ``LocalCluster`` the Dask tests start: 2 worker processes of one thread, on 127.0.0.1,
their files in ``scratch`` (nothing left in TMPDIR), distributed's log lines below errors."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dask
from distributed import LocalCluster


@contextmanager
def local_cluster(scratch: Path, **config: Any) -> Iterator[LocalCluster]:
    """The cluster, with Dask's ``config`` (and its temporary directory, ``scratch``) set while
    it runs."""
    with (
        dask.config.set({"temporary-directory": str(scratch), **config}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            local_directory=str(scratch),
            silence_logs=logging.ERROR,
        ) as cluster,
    ):
        yield cluster


def stop_resource_tracker() -> None:
    """The clusters' worker processes were started through multiprocessing, which started its
    resource tracker, a child of this process that would outlive the tests: stop it (it starts
    again when needed), so that no child is left behind (tests/parallel checks so)."""
    from multiprocessing import resource_tracker

    resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
