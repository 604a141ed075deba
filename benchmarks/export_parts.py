"""Each part of the one-process export alone, on a log held in memory: what each costs per line.

    python benchmarks/export_parts.py LOG [--repeat K] [--clock cpu|wall] [--part NAME ...]

``stages.py`` times the export's pipeline one stage longer at a time, reading the file each
time; this times each part on its own, its input made beforehand and held in memory, so that
a part's cost is not mixed with the parts before it:

- ``read``: the file's lines (``readline`` through the reader's 1 MiB buffer);
- ``floor``: ``orjson.loads`` on every line (held in memory);
- ``decode``: msgspec's decode of every line into the views' structs (``views._decode``);
- ``times``: ``parse_rfc3339`` on every entry's time, its caches emptied first (as a new
  process reads);
- ``views``: ``decode_view`` on every line (the decode, the checks, the time, the entry);
- ``limits``: ``ExportLimits.check`` on every entry;
- ``reader``: ``ExportReader`` over the file (reading, ``decode_view``, the limits, the loop);
- ``fold``: the entries folded into runs (``iter_runs``);
- ``json``: each run's spans written as OTLP/JSON (``otlp_json.run_json``).

Prints each part's minimum time over K rounds (default 5; the rounds alternate the parts) and
its time per line. For instruction counts, run one part under callgrind with ``--repeat 1``
and ``--repeat 2`` (``--no-warm``) and subtract: the difference is one pass of that part.
It runs against whatever ``sessiontools`` Python imports (``PYTHONPATH`` for an earlier tree).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import orjson

from sessiontools._log import times
from sessiontools._log.limits import ExportLimits
from sessiontools._log.reader import READ_BUFFER_BYTES, ExportReader
from sessiontools._log.views import _decode, decode_view
from sessiontools._model.fold import iter_runs
from sessiontools._otel.otlp_json import run_json

_OPTIONS = ("bench", None, None, None, False)


def parts(log: Path) -> dict[str, Callable[[], object]]:
    lines = log.read_bytes().splitlines(keepends=True)
    entries = [decode_view(line, number) for number, line in enumerate(lines, 1)]
    if any(entry is None for entry in entries):
        raise SystemExit(f"{log}: a line the views do not take; give an agentloop log")
    runs = list(iter_runs(entries))  # type: ignore[arg-type]
    stamps = [_decode(line).time for line in lines]

    def read() -> None:
        with open(log, "rb", buffering=READ_BUFFER_BYTES) as f:
            readline = f.readline
            while readline():
                pass

    def floor() -> None:
        for line in lines:
            orjson.loads(line)

    def decode() -> None:
        for line in lines:
            _decode(line)

    def parse_times() -> None:
        times._minute_cache.clear()
        times._hour_cache.clear()
        parse = times.parse_rfc3339
        for stamp in stamps:
            parse(stamp)

    def views() -> None:
        for number, line in enumerate(lines, 1):
            decode_view(line, number)

    def limits() -> None:
        check = ExportLimits().check
        for entry in entries:
            check(entry)  # type: ignore[arg-type]

    def reader() -> None:
        for _ in ExportReader(log):
            pass

    def fold() -> None:
        for _ in iter_runs(entries):  # type: ignore[arg-type]
            pass

    def json() -> None:
        for run in runs:
            run_json(run, _OPTIONS)

    return {
        "read": read,
        "floor": floor,
        "decode": decode,
        "times": parse_times,
        "views": views,
        "limits": limits,
        "reader": reader,
        "fold": fold,
        "json": json,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="cpu")
    parser.add_argument("--part", action="append", help="only these parts (repeatable)")
    parser.add_argument(
        "--no-warm", action="store_true", help="no untimed round first (for callgrind)"
    )
    args = parser.parse_args()
    clock = time.perf_counter if args.clock == "wall" else time.process_time
    warnings.simplefilter("ignore")
    every = parts(args.log)
    chosen = {name: every[name] for name in (args.part or every)}
    if not args.no_warm:
        for run in chosen.values():
            run()
    best = dict.fromkeys(chosen, float("inf"))
    for _ in range(args.repeat):
        for name, run in chosen.items():
            started = clock()
            run()
            best[name] = min(best[name], clock() - started)
    with open(args.log, "rb") as f:
        lines = sum(1 for _ in f)
    load = os.getloadavg()
    print(
        f"{args.log}: {lines:,} lines; minimum {args.clock} time of {args.repeat} rounds; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} after"
    )
    for name, seconds in best.items():
        print(f"  {name:7s} {seconds * 1e3:8.1f} ms  ({seconds / lines * 1e6:5.2f} us a line)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
