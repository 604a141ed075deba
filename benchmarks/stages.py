"""Where `sessiontools otel`'s time goes, stage by stage, in one process.

    python benchmarks/stages.py LOG [--repeat K]

Times five pipelines on the same log, each one stage longer than the one before, and prints
each one's minimum over K rounds (default 5; the rounds alternate the pipelines, so noise
hits all of them alike), its ratio to the floor, and what its last stage added:

1. floor: ``orjson.loads`` on every line;
2. entries: the reader as the traces exporter reads (``ExportReader``: typed decoding into
   views of the payloads; ``LogReader(..., export=True)`` before it existed), entries;
3. runs: the fold into the session model (``iter_runs``);
4. spans: the mapping to spans (``trace_spans`` as the export calls it: without checking the
   runs again, which its reader did);
5. encode: the OTLP/JSON encoding (``encode_otlp_json``).

In-process, so interpreter start-up is not counted (``bench_otel.py`` measures the command).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson

from sessiontools import Span, encode_otlp_json, iter_runs
from sessiontools._otel.spans import _trace_spans

try:
    from sessiontools._log.reader import ExportReader as _Reader
except ImportError:  # an earlier sessiontools (PYTHONPATH), to compare in the same run
    from functools import partial

    from sessiontools import LogReader

    _Reader = partial(LogReader, export=True)  # type: ignore[assignment,misc]


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
        return encode_otlp_json(traced())

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
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    stages = pipelines(args.log)
    best = {name: float("inf") for name, _ in stages}
    for _, run in stages:  # warm the page cache and the parsers' caches
        run()
    for _ in range(args.repeat):
        for name, run in stages:
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    floor = best["floor"]
    previous = floor
    with open(args.log, "rb") as f:
        lines = sum(1 for _ in f)
    print(f"{args.log}: {lines:,} lines; minimum of {args.repeat} rounds")
    for name, _ in stages:
        added = best[name] - previous
        print(
            f"  {name:8s} {best[name]:7.3f} s  x{best[name] / floor:4.2f}"
            f"  +{added * 1e3:6.1f} ms  ({added / lines * 1e6:4.1f} us a line)"
        )
        previous = best[name]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
