"""Time the cost frames read on a Dask ``LocalCluster`` against the local process pool, in the
same run (issue 16): the cost of the engine itself.

    python benchmarks/bench_dask.py [--many DIR] [--big-log LOG] [--copies N] [--repeat K]
                                    [--part many|large|all]

- ``many``: the small logs in ``--many`` (default ``/tmp/bench/many10k``: 10,000 logs of about
  59 KB, written by ``python benchmarks/make_many_logs.py --count 10000 --out DIR``).
- ``large``: ``--copies`` (default 20) logs of ``--big-log`` (default ``/tmp/bench/100mb.jsonl``,
  ``make_large_log.py --size-mb 100``), as symbolic links with distinct names in a temporary
  directory: every log is read, priced and made into frames in full by both engines, and being
  copies of one session, every run but one read of it is dropped as a copy afterwards (the pandas
  engine while it puts the logs together, the Dask engine when the client has chosen), so the
  frames are one log's.

Each round alternates the two engines, ``--repeat`` times (default 2); the minimum wall time is
printed (these shared machines are noisy: it is the least disturbed run), with files a second,
MB a second (the logs' sizes as stored), and the load average before and after each part. And
the CPU seconds each engine used, all its processes together (the local child and its pool;
the workers, the client and the LocalCluster's scheduler, which runs in the client's process):
on a machine other programs load, the figure the engine's own cost shows in best.

- **local**: a fresh ``python -c`` child, with pandas, genai-prices' data and sessiontools'
  cost modules loaded before the clock starts (as a notebook has them), times
  ``sessiontools.read_costs(DIR, workers=None)``: what ``sessiontools cost`` runs, a pool of
  forked processes, one per core, for 32 logs or more; fewer logs one by one, each large log in
  two processes.
- **dask**: a ``LocalCluster`` of 2 worker processes (one thread each) on 127.0.0.1 started once
  and warmed by a read of a few logs (the workers' imports and price books); each round times
  ``sessiontools.dask.read_costs(DIR)`` (the map, the choice of reads, the selection: the frames
  held on the workers) and then ``.compute()`` (the three frames brought to this process, as the
  local engine leaves them), and the larger worker's resident memory after it (with the frames
  still held). The ratio is the whole (read and compute) over local; goal at most 1.3. Both
  engines' frames are checked to have the same number of rows.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GOAL = 1.3

LOCAL = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import pandas, genai_prices
import sessiontools
from sessiontools._cost import frames, report
from sessiontools._cost.price_book import PriceBook
book = PriceBook()
book.warm()
def cpu():
    return sum(
        r.ru_utime + r.ru_stime
        for r in (resource.getrusage(resource.RUSAGE_SELF),
                  resource.getrusage(resource.RUSAGE_CHILDREN))
    )
c = cpu()
t = time.perf_counter()
tables = sessiontools.read_costs(sys.argv[1], workers=None, prices=book)
wall = time.perf_counter() - t
print(json.dumps({"wall": wall, "cpu": cpu() - c, "rows": [len(tables.model_calls),
                  len(tables.runs), len(tables.tool_calls)]}))
"""


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def local_read(directory: Path) -> tuple[float, float, list[int]]:
    done = subprocess.run(
        [sys.executable, "-c", LOCAL, str(directory)],
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return float(found["wall"]), float(found["cpu"]), list(found["rows"])


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def _cpu() -> float:
    import psutil

    times = psutil.Process().cpu_times()
    return float(times.user + times.system)


def cluster_cpu(client: Any) -> tuple[float, float]:
    """CPU seconds used so far by the workers, and by this process (the client, and the
    LocalCluster's scheduler, which runs in it)."""
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    return sum(client.run(_cpu).values()), me.ru_utime + me.ru_stime


def dask_read(client: Any, directory: Path) -> tuple[float, float, list[int], int, float, float]:
    import sessiontools.dask

    c = cluster_cpu(client)
    t = time.perf_counter()
    frames = sessiontools.dask.read_costs(directory, client=client)
    read = time.perf_counter() - t
    tables = frames.compute()
    whole = time.perf_counter() - t
    workers, here = (after - before for after, before in zip(cluster_cpu(client), c, strict=True))
    rows = [len(tables.model_calls), len(tables.runs), len(tables.tool_calls)]
    rss = max(client.run(_rss).values()) / 1e6  # with the frames still held
    return read, whole, rows, frames.partitions, rss, (workers, here)


def measure(name: str, directory: Path, client: Any, repeat: int) -> dict[str, float]:
    files = [p for p in directory.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz"))]
    size = sum(p.stat().st_size for p in files)
    print(f"\n== {name}: {len(files):,} logs, {size / 1e6:,.1f} MB ({load()})", flush=True)
    local: list[float] = []
    reads: list[float] = []
    wholes: list[float] = []
    local_cpus: list[float] = []
    dask_cpus: list[float] = []
    for k in range(repeat):
        wall, local_cpu, local_rows = local_read(directory)
        local.append(wall)
        local_cpus.append(local_cpu)
        read, whole, dask_rows, parts, rss, (workers, here) = dask_read(client, directory)
        dask_cpu = workers + here
        reads.append(read)
        wholes.append(whole)
        dask_cpus.append(dask_cpu)
        assert dask_rows == local_rows, (dask_rows, local_rows)
        print(
            f"  round {k + 1}: local {wall:.2f} s ({local_cpu:.1f} CPU s); dask read "
            f"{read:.2f} s, with compute {whole:.2f} s ({dask_cpu:.1f} CPU s: workers "
            f"{workers:.1f}, client and scheduler {here:.1f}; {parts} "
            f"partitions; rows {local_rows}; the larger worker's RSS {rss:,.0f} MB; {load()})",
            flush=True,
        )
    best_local, best_read, best_whole = min(local), min(reads), min(wholes)
    for label, wall in (
        ("local pool", best_local),
        ("dask read", best_read),
        ("dask read+compute", best_whole),
    ):
        print(
            f"  {label:18} {wall:7.2f} s  {len(files) / wall:9,.1f} files/s  "
            f"{size / 1e6 / wall:8,.1f} MB/s"
        )
    ratio = best_whole / best_local
    verdict = "meets" if ratio <= GOAL else "misses"
    print(f"  dask / local: {ratio:.2f} ({verdict} the goal of {GOAL}); {load()}")
    cpu_ratio = min(dask_cpus) / min(local_cpus)
    print(
        f"  CPU seconds, all processes: local {min(local_cpus):.1f}, dask {min(dask_cpus):.1f} "
        f"(client and scheduler included): {cpu_ratio:.2f}"
    )
    return {"local": best_local, "read": best_read, "whole": best_whole, "ratio": ratio}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--many", type=Path, default=Path("/tmp/bench/many10k"))
    parser.add_argument("--big-log", type=Path, default=Path("/tmp/bench/100mb.jsonl"))
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--part", choices=("many", "large", "all"), default="all")
    args = parser.parse_args(argv)

    import dask
    from distributed import Client, LocalCluster

    import sessiontools.dask

    warnings.simplefilter("ignore")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores; {load()}")
    with (
        tempfile.TemporaryDirectory(prefix="bench-dask-") as scratch,
        dask.config.set({"temporary-directory": scratch}),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            local_directory=scratch,
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        # warm: the workers import the cost modules and make their price books
        sessiontools.dask.read_costs(
            sorted((HERE.parent / "testdata" / "sessions").glob("0[1-4]*.jsonl")),
            client=client,
            files_per_partition=1,
        ).compute()
        if args.part in ("many", "all"):
            measure("many small logs", args.many, client, args.repeat)
        if args.part in ("large", "all"):
            large = Path(scratch) / "large"
            large.mkdir()
            for i in range(args.copies):
                (large / f"big-{i:02d}.jsonl").symlink_to(args.big_log.resolve())
            measure(f"{args.copies} copies of {args.big_log.name}", large, client, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
