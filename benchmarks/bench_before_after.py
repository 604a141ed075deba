"""``sessiontools otel`` of this tree against an earlier one, in the same run, interleaved.

    python benchmarks/bench_before_after.py BEFORE LOG [LOG ...] [--repeat K] [--shuffle]

``BEFORE`` is the root of an earlier tree (``git archive COMMIT | tar -x -C DIR``), imported
first through ``PYTHONPATH``. For each log, once untimed and then K times (default 3), in
turn: the floor (``orjson.loads`` on every line, as ``bench_otel.py``); ``sessiontools otel LOG
--out FILE`` (this venv's script) with this tree, then with ``BEFORE``; the one-process export
(``export_otlp_json(..., workers=1)``) with this tree, then with ``BEFORE``. Each is a fresh
process with its own bytecode cache; ``python -P -c`` keeps the working directory (a checkout,
with its own ``sessiontools``) off ``sys.path``, so that ``PYTHONPATH`` decides. Printed: the
minimum wall time and the minimum CPU time (user + system, children included) of each, and
each one's ratio to the floor's, with the load average. On a machine other processes keep
busy, the interleaving makes the before and after figures comparable with each other; CPU
time does not count the time spent waiting for a core. ``--shuffle`` runs each round's commands
in a random order (other work that comes in bursts can favour a fixed order) and also prints
each one's median wall time and its ratio to the floor's median.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

from _children import bytecode_cache_env, run_child, sessiontools_command

FLOOR = """\
import sys
import orjson

with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
"""

ONE_PROCESS = """\
import sys
import sessiontools

with open(sys.argv[2], "wb") as out:
    sessiontools.export_otlp_json(sys.argv[1], out.write, workers=1)
"""


def bench(log: Path, before: Path, repeat: int, tmp: Path, shuffle: bool = False) -> None:
    out = str(tmp / "out.json")
    after_env = bytecode_cache_env(tmp / "pycache-after")
    after_env.pop("PYTHONPATH", None)
    before_env = bytecode_cache_env(tmp / "pycache-before")
    before_env["PYTHONPATH"] = str(before)
    otel = [*sessiontools_command(), "otel", str(log), "--out", out]
    one = [sys.executable, "-P", "-c", ONE_PROCESS, str(log), out]
    commands = [
        ("floor", [sys.executable, "-P", "-c", FLOOR, str(log)], after_env),
        ("otel, after", otel, after_env),
        ("otel, before", otel, before_env),
        ("one process, after", one, after_env),
        ("one process, before", one, before_env),
    ]
    best: dict[str, tuple[float, float]] = {}
    walls: dict[str, list[float]] = {name: [] for name, _, _ in commands}
    load = os.getloadavg()
    for round_ in range(repeat + 1):  # the first fills the bytecode caches, untimed
        order = random.sample(commands, len(commands)) if shuffle and round_ else commands
        for name, argv, env in order:
            child = run_child(argv, env=env)
            if round_:
                seconds, cpu = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(seconds, child.seconds), min(cpu, child.cpu_seconds))
                walls[name].append(child.seconds)
    after = os.getloadavg()
    how = "in a random order each round" if shuffle else "interleaved"
    print(
        f"{log}: best of {repeat}, {how}; load average {load[0]:.2f} before, "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} after"
    )
    floor_s, floor_cpu = best["floor"]
    floor_median = statistics.median(walls["floor"])
    for name in walls:  # in the commands' order
        seconds, cpu = best[name]
        median = statistics.median(walls[name])
        also = f"   median {median:5.2f} s  x{median / floor_median:4.2f}" if shuffle else ""
        print(
            f"  {name:20s} {seconds:7.2f} s  x{seconds / floor_s:4.2f}"
            f"   CPU {cpu:7.2f} s  x{cpu / floor_cpu:4.2f}{also}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="the root of the earlier tree")
    parser.add_argument("logs", metavar="LOG", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs of each (3)")
    parser.add_argument("--shuffle", action="store_true", help="a random order each round")
    args = parser.parse_args()
    if not (args.before / "sessiontools" / "__init__.py").is_file():
        parser.error(f"{args.before} holds no sessiontools package")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench_before_after.") as tmp:
        for log in args.logs:
            bench(log, args.before.resolve(), args.repeat, Path(tmp), args.shuffle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
