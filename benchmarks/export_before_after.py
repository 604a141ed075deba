"""The one-process export of this tree against an earlier one's, alternately in one process.

    python benchmarks/export_before_after.py BEFORE LOG [LOG ...] [--repeat K]

``BEFORE`` is the root of an earlier tree (``git archive COMMIT | tar -x -C DIR``). Its
``sessiontools`` package is copied into a temporary directory as ``sessiontools_before`` (the
package imports itself by relative imports only) and imported next to this tree's. For each
log, after an untimed round that also checks both give the same bytes, K rounds (default 15)
each time in a random order: the floor (``orjson.loads`` on every line), this tree's
``export_otlp_json(LOG, out, workers=1)`` into memory, and the earlier tree's. Printed: each
one's best and median CPU time, and its ratio to the floor's best and median.

No interpreter start-up is counted, and all three meet the same caches, memory and moments of
load, so that a change of a few per cent in the export's own work can show: on a machine other
processes keep busy, the whole commands of ``bench_before_after.py`` vary by more than that.
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

import sessiontools


def _export(module: Any, log: Path) -> Callable[[], bytes]:
    def run() -> bytes:
        out = bytearray()
        module.export_otlp_json(log, out.extend, workers=1, conversation_id="bench")
        return bytes(out)

    return run


def _floor(log: Path) -> Callable[[], None]:
    def run() -> None:
        with open(log, "rb") as f:
            for line in f:
                orjson.loads(line)

    return run


def bench(log: Path, before: Any, repeat: int) -> None:
    runs: list[tuple[str, Callable[[], object]]] = [
        ("floor", _floor(log)),
        ("after", _export(sessiontools, log)),
        ("before", _export(before, log)),
    ]
    outputs = [run() for _, run in runs]
    if outputs[1] != outputs[2]:
        raise SystemExit(f"{log}: the two trees' exports differ")
    taken: dict[str, list[float]] = {name: [] for name, _ in runs}
    for _ in range(repeat):
        random.shuffle(runs)
        for name, run in runs:
            started = time.process_time()
            run()
            taken[name].append(time.process_time() - started)
    load = os.getloadavg()
    print(
        f"{log}: CPU time, best and median of {repeat} rounds in a random order; load "
        f"average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} after"
    )
    best_floor = min(taken["floor"])
    median_floor = statistics.median(taken["floor"])
    for name in ("floor", "after", "before"):
        best = min(taken[name])
        median = statistics.median(taken[name])
        print(
            f"  {name:7s} best {best:6.3f} s  x{best / best_floor:4.2f}"
            f"   median {median:6.3f} s  x{median / median_floor:4.2f}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the root of the earlier tree")
    parser.add_argument("logs", type=Path, nargs="+")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(args.before / "sessiontools", Path(tmp) / "sessiontools_before")
        sys.path.insert(0, tmp)
        before = importlib.import_module("sessiontools_before")
        for log in args.logs:
            bench(log, before, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
