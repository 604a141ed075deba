"""Write many small, realistic agentloop session logs, for benchmarks.

    python benchmarks/make_many_logs.py --count 1000 --out /tmp/bench/many [--seed 1]

Each log is one session of a few runs (2 to 4) written by ``make_large_log.py``'s generator, with
shorter runs (1 to 4 turns instead of 1 to 12) and smaller tool results (200 B to 2 KB instead
of 1 to 20 KB), so a log is a few tens of KB. Log
``i`` is ``session-NNNN.jsonl`` and starts 40 minutes after log ``i - 1`` (from 2026-10-19 in
Europe/Berlin, so a thousand logs span about four weeks), with its own ``random.Random(seed *
1_000_003 + i)``; the generator's pools of file contents, shared by all logs, come from
``random.Random(seed)``. The same count and seed always give the same bytes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from unittest import mock

import make_large_log
from make_large_log import MS, START_UNIX_NANO, _Pools, _Session

#: Between one log's start and the next's.
SPACING_NS = 40 * 60 * 1000 * MS
#: How many turns a run plans, and how often (make_large_log.TURNS goes up to 12).
TURNS = ((1, 3), (2, 6), (3, 9), (4, 6))


class _SmallSession(_Session):
    """A session whose tool results are about a tenth of the large log's."""

    def _result_size(self) -> int:
        # Log-uniform between 200 B and 2 KB.
        return int(200 * 10 ** self.rng.random())


def write_log(path: Path, index: int, seed: int, pools: _Pools) -> tuple[int, int]:
    """Write log ``index``: its bytes and runs."""
    rng = random.Random(seed * 1_000_003 + index)
    with open(path, "wb") as out:
        # The pools are shared: building them is most of the generator's start-up.
        with mock.patch.object(_Pools, "make", return_value=pools):
            session = _SmallSession(rng, out)
        session.now = START_UNIX_NANO + index * SPACING_NS + rng.randrange(60_000) * MS
        session.header()
        with mock.patch.object(make_large_log, "TURNS", TURNS):
            for _ in range(rng.randint(2, 4)):
                session.run()
    return session.bytes, session.runs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1000, help="how many logs (default 1000)")
    parser.add_argument("--out", type=Path, required=True, help="the directory to write them in")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()  # for the summary only; the output never depends on it
    pools = _Pools.make(random.Random(args.seed))
    total = runs = 0
    for index in range(args.count):
        size, n = write_log(args.out / f"session-{index:04d}.jsonl", index, args.seed, pools)
        total += size
        runs += n
    took = time.perf_counter() - started
    print(
        f"{args.out}: {args.count:,} logs, {total:,} bytes ({total / args.count / 1000:.1f} KB "
        f"a log), {runs:,} runs, in {took:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
