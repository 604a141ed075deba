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

from ._dask.costs import FILES_PER_PARTITION, CostFrames, read_costs
from ._dask.sources import PARTITION_BYTES

__all__ = ["FILES_PER_PARTITION", "PARTITION_BYTES", "CostFrames", "read_costs"]
