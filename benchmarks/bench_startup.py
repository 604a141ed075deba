"""Time ``sessiontools otel`` on an empty log: the command's start-up and end, against Python's.

    python benchmarks/bench_startup.py [--repeat N] [--before DIR]

Runs, N times each (default 30), alternating, each in a fresh process after one untimed round
that fills the children's bytecode cache (``_children.bytecode_cache_env``):

a. ``python -c "import orjson"``: the interpreter and the one library every reader needs, the
   baseline;
b. ``sessiontools otel EMPTY --out FILE``: the venv's console script on an empty log, writing
   its (spanless) export to a file, as ``bench_otel.py`` runs it.

Prints the minimum wall time of each (the least disturbed run on a shared machine), that run's
CPU time, the difference and the ratio, and the load average before and after (goal: otel at
most 60 ms, issue 15).

``--before DIR`` (the root of an earlier tree, ``git archive COMMIT | tar -x -C DIR``) adds, in
the same rounds, the console script's ``run()`` of that tree and of this one, each started the
same way: ``python -P -c`` with the tree first on ``sys.path`` (which costs both the same
look-ups, and is not quite the installed script's start-up: compare them with each other).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from _children import bytecode_cache_env, run_child, sessiontools_command

GOAL_MS = 60.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, metavar="N", help="runs of each (30)")
    parser.add_argument("--before", metavar="DIR", help="an earlier tree, run beside this one")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench_startup.") as tmp:
        empty = Path(tmp) / "empty.jsonl"
        empty.write_bytes(b"")
        env = bytecode_cache_env(Path(tmp) / "pycache")
        commands = {
            "python + orjson": [sys.executable, "-c", "import orjson"],
            "sessiontools otel": [
                *sessiontools_command(),
                "otel",
                str(empty),
                "--out",
                str(Path(tmp) / "out.json"),
            ],
        }
        if args.before is not None:
            this = str(Path(__file__).resolve().parent.parent)
            for name, tree in (("this tree, run()", this), ("before, run()", args.before)):
                argv = ["sessiontools", "otel", str(empty), "--out", str(Path(tmp) / "out.json")]
                code = (
                    f"import sys; sys.path.insert(0, {tree!r}); sys.argv = {argv!r}; "
                    "from sessiontools._main import run; run()"
                )
                commands[name] = [sys.executable, "-P", "-c", code]
        best: dict[str, tuple[float, float]] = {}
        for round_ in range(args.repeat + 1):  # the first fills the bytecode cache, untimed
            for name, argv in commands.items():
                child = run_child(argv, env=env)
                if round_ and (name not in best or child.seconds < best[name][0]):
                    best[name] = (child.seconds, child.cpu_seconds)
    after = os.getloadavg()
    base, otel = best["python + orjson"][0], best["sessiontools otel"][0]
    for name, (seconds, cpu) in best.items():
        over = f"   over python + orjson {(seconds - base) * 1e3:5.1f} ms" if args.before else ""
        print(f"  {name:18s} {seconds * 1e3:6.1f} ms   (CPU {cpu * 1e3:5.1f} ms){over}")
    ok = "ok" if otel * 1e3 <= GOAL_MS else f"over the goal of {GOAL_MS:.0f} ms"
    print(f"  otel - baseline    {(otel - base) * 1e3:6.1f} ms   ratio {otel / base:.2f}   ({ok})")
    print(
        f"  best of {args.repeat}; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} before, "
        f"{after[0]:.2f} {after[1]:.2f} {after[2]:.2f} after"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
