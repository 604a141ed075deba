"""What the session library's exact round trip costs, in one process.

    python benchmarks/bench_store.py LOG [--repeat K]

Times, on the same log, each the minimum over K rounds (default 5; the rounds alternate, so
noise hits all alike), as a ratio to the floor:

1. floor: ``orjson.loads`` on every line;
2. plain read: ``LogReader(LOG)``, typed entries (what the exporters use);
3. exact read: ``FileStore(LOG).load()``, which keeps raw JSON text (``exact=True``);
4. exact read and write: the same, then ``encode_entry`` on every entry (a copy of the log).

It also checks that every entry is written back as the line it was read from (true for a log
agentloop or sessiontools wrote), and says how many were.
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import orjson

from sessiontools import FileStore, LogReader, encode_entry


def pipelines(log: Path) -> list[tuple[str, Callable[[], object]]]:
    def floor() -> None:
        with open(log, "rb") as f:
            for line in f:
                orjson.loads(line)

    def plain() -> None:
        for _ in LogReader(log):
            pass

    def exact() -> None:
        FileStore(log).load()

    def exact_write() -> None:
        for entry in FileStore(log).load():
            encode_entry(entry)

    return [
        ("floor", floor),
        ("plain read", plain),
        ("exact read", exact),
        ("exact read + write", exact_write),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    runs = pipelines(args.log)
    best = {name: float("inf") for name, _ in runs}
    for _ in range(args.repeat):
        for name, run in runs:
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    lines = args.log.read_bytes().splitlines()
    entries = FileStore(args.log).load()
    same = sum(encode_entry(e) == lines[e.line - 1].rstrip(b"\r") for e in entries)
    size = args.log.stat().st_size
    print(f"{args.log}: {size / 1e6:.1f} MB, {len(entries):,} entries; min of {args.repeat}")
    for name, _ in runs:
        ratio = best[name] / best["floor"]
        print(f"  {name:<20} {best[name]:7.3f} s  x{ratio:5.2f}")
    print(f"  written back as read  {same:,} of {len(entries):,} entries")


if __name__ == "__main__":
    main()
