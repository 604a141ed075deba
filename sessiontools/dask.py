"""Cost frames from many machines: the pandas cost frames read on a Dask cluster (README,
"Many machines"; docs/costs.md, "On a Dask cluster"). Needs the ``dask`` extra
(``pip install 'sessiontools[dask]'``: dask[dataframe] and distributed).

::

    from distributed import Client
    import sessiontools.dask

    client = Client("tcp://scheduler:8786")
    tables = sessiontools.dask.read_costs("s3://agent-logs/2026-10-18/")
    by_model = tables.model_calls.groupby("model", observed=True)["cost_usd"].sum().compute()

``read_costs`` reads when called, as the pandas ``read_costs`` does (errors and warnings come
then); its frames are Dask DataFrames held on the workers, equal, computed, to the pandas frames
of the same logs. Importing this module loads neither dask nor pandas: they load when a read
starts.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ._dask.costs import FILES_PER_PARTITION, CostFrames, read_on_cluster
from ._dask.sources import PARTITION_BYTES
from ._log.reader import MAX_LINE_BYTES

if TYPE_CHECKING:
    from distributed import Client

    from ._cost.build import PriceSource

__all__ = ["FILES_PER_PARTITION", "PARTITION_BYTES", "CostFrames", "read_costs"]


def read_costs(
    logs: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    prices: PriceSource = None,
    files_per_partition: int = FILES_PER_PARTITION,
    storage_options: Mapping[str, Any] | None = None,
    skip_damaged: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    client: Client | None = None,
) -> CostFrames:
    """Read logs on a Dask cluster into the three cost frames (README, "Many machines").

    Args:
        logs: a path, a directory (its ``*.jsonl`` and ``*.jsonl.gz``, recursively, sorted),
            a glob, or an fsspec URL (``s3://bucket/logs/``, ``gs://…/*.jsonl.gz``,
            ``file:///srv/logs``), or an iterable of these. A local path is expanded as the
            pandas ``read_costs`` expands it, and named the same; a URL's logs are named by
            their URLs. The workers must see the same files (a shared file system) or store.
            No logs: empty frames, as the pandas ``read_costs`` gives.
        prices: as the pandas ``read_costs``: a ``PriceBook``, a price file, or ``Prices`` by
            model id; read here, sent to the workers, and made into one book per worker.
        files_per_partition: at most this many logs a partition (a task); a partition also
            stops at ``PARTITION_BYTES`` (64 MiB) of logs, so a large log is one of its own.
        storage_options: given to fsspec for URLs (credentials, endpoints).
        skip_damaged: as the pandas ``read_costs``: a log that cannot be read is listed in
            ``skipped`` instead of raising.
        max_line_bytes: the longest line read; ``None``: no limit.
        client: the ``distributed.Client`` to run on; default: the current one.

    Returns:
        ``CostFrames``: Dask DataFrames that, computed, equal the pandas ``read_costs`` of the
        same logs (``CostFrames.compute``), with ``skipped``, ``warnings`` and ``copies``.

    Raises:
        LogError, OSError, UsageConventionError: the first log in the logs' order that cannot be
            be read (unless ``skip_damaged``), the one the pandas ``read_costs`` raises: a
            ``DamagedLogError`` names the log, line and byte offset.
        FileNotFoundError: a path, glob or URL names nothing.
        PriceFileError: the price file cannot be used.
        ValueError: no client; ``files_per_partition`` is not a positive integer.
        TypeError: a file object or a ``Session`` (read those with the pandas ``read_costs``).

    Warns:
        CostMismatchWarning and the reader's warnings, as the pandas ``read_costs``.
    """
    return read_on_cluster(
        logs,
        prices=prices,
        files_per_partition=files_per_partition,
        storage_options=storage_options,
        skip_damaged=skip_damaged,
        max_line_bytes=max_line_bytes,
        client=client,
    )
