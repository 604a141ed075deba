"""Where `sessiontools otel`'s time goes, stage by stage, in one process.

    python benchmarks/stages.py LOG [--repeat K] [--clock wall|cpu]

Times five pipelines on the same log and prints each one's minimum over K rounds (default 5;
the rounds alternate the pipelines, so noise hits all of them alike), its ratio to the floor,
and what it adds to the pipeline it extends. ``--clock cpu`` times each pipeline by this
process's CPU time instead of the wall clock: on a machine other processes keep busy, time
spent waiting for a core is then not counted.

1. floor: ``orjson.loads`` on every line;
2. entries: the reader as the traces export reads (``ExportReader``: typed decoding into views
   of the payloads; ``LogReader(..., export=True)`` before it existed), entries; over the floor;
3. runs: the fold into the session model (``iter_runs``); over entries;
4. spans: the mapping to ``Span`` values (``trace_spans`` as the library gives them, without
   checking the runs again, which their reader did); over runs;
5. encode: the whole export as ``sessiontools otel`` makes it in one process
   (``export_otlp_json(..., workers=1)`` into memory): spans written as OTLP/JSON from the
   runs; over runs. Since it writes each run's spans as JSON directly (``otlp_json.run_json``),
   without making ``Span`` values, it can add less than spans does; before, it added the
   encoding (``encode_otlp_json``) to spans.

In-process, so interpreter start-up is not counted (``bench_otel.py`` measures the command).
It runs against whatever ``sessiontools`` Python imports: with ``PYTHONPATH`` set to an
earlier checkout's root, the same script measures that checkout.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from sessiontools import Span, export_otlp_json, iter_runs
from sessiontools._otel.spans import _trace_spans

try:
    from sessiontools._log.reader import ExportReader as _Reader
except ImportError:  # an earlier sessiontools (PYTHONPATH), to compare in the same run
    from functools import partial

    from sessiontools import LogReader

    _Reader = partial(LogReader, export=True)  # type: ignore[assignment,misc]

#: Each pipeline, and the pipeline it extends.
EXTENDS = {
    "floor": "floor",
    "entries": "floor",
    "runs": "entries",
    "spans": "runs",
    "encode": "runs",
}


def pipelines(log: Path) -> list[tuple[str, Callable[[], object]]]:
    def floor() -> None:
        with open(log, "rb") as f:
            for line in f:
                orjson.loads(line)

    def entries() -> None:
        for _ in _Reader(log):
            pass

    def runs() -> None:
        for _ in iter_runs(_Reader(log)):
            pass

    def traced() -> Iterator[Span]:
        runs = iter_runs(_Reader(log))
        return _trace_spans(runs, "bench", None, None, None, False, checked=True)

    def spans() -> None:
        for _ in traced():
            pass

    def encode() -> bytes:
        out = bytearray()
        export_otlp_json(log, out.extend, conversation_id="bench", workers=1)
        return bytes(out)

    return [
        ("floor", floor),
        ("entries", entries),
        ("runs", runs),
        ("spans", spans),
        ("encode", encode),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="wall time (default), or this process's CPU time: steadier on a busy machine",
    )
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    warnings.simplefilter("ignore")
    stages = pipelines(args.log)
    best = {name: float("inf") for name, _ in stages}
    for _, run in stages:  # warm the page cache and the parsers' caches
        run()
    for _ in range(args.repeat):
        for name, run in stages:
            started = clock()
            run()
            best[name] = min(best[name], clock() - started)
    floor = best["floor"]
    with open(args.log, "rb") as f:
        lines = sum(1 for _ in f)
    load = os.getloadavg()
    print(
        f"{args.log}: {lines:,} lines; minimum {args.clock} time of {args.repeat} rounds; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} after"
    )
    for name, _ in stages:
        added = best[name] - best[EXTENDS[name]]
        print(
            f"  {name:8s} {best[name]:7.3f} s  x{best[name] / floor:4.2f}"
            f"  +{added * 1e3:6.1f} ms  ({added / lines * 1e6:4.1f} us a line)"
            f"  over {EXTENDS[name]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
