"""``sessiontools report`` of this tree against an earlier one, and the export, interleaved.

    python benchmarks/report_before_after.py BEFORE [--log LOG] [--many DIR] [--repeat K]
        [--part large|many|both]

``BEFORE`` is the root of an earlier tree (``git archive COMMIT | tar -x -C DIR``), imported
first through ``PYTHONPATH``. For each part (``bench_report.py``'s (a) one large log and (b)
many small logs), once untimed and then K times (default 5), in turn: the export (``sessiontools
otel LOG --out FILE``; for many logs ``bench_report.py``'s one-process export of each),
``sessiontools report`` with this tree, then with ``BEFORE``. Each is a fresh process with its
own bytecode cache; ``python -P`` keeps the working directory off ``sys.path``, so that
``PYTHONPATH`` decides. Printed, with the load average before and after: for each, the minimum
and median wall time and the median CPU time (user + system, children included), and each
report's ratio to the export in the same round (minimum and median over the rounds). On a
machine other processes keep busy, the interleaving makes the figures comparable; CPU time
does not count the time spent waiting for a core.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from _children import bytecode_cache_env, run_child
from bench_report import DEFAULT_LOG, DEFAULT_MANY, EXPORT_MANY

CLI = "from sessiontools._main import run; run()"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("before", type=Path, help="root of the earlier tree")
    parser.add_argument("--log", type=Path, default=DEFAULT_LOG)
    parser.add_argument("--many", type=Path, default=DEFAULT_MANY)
    parser.add_argument("--repeat", type=int, default=5, metavar="K")
    parser.add_argument("--part", choices=("large", "many", "both"), default="both")
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        envs = {}
        for name, root in (("after", here), ("before", args.before.resolve())):
            env = bytecode_cache_env(tmp / f"pyc-{name}")
            env["PYTHONPATH"] = str(root)
            envs[name] = env
        parts = []
        if args.part in ("large", "both"):
            parts.append(("large", args.log))
        if args.part in ("many", "both"):
            parts.append(("many", args.many))
        print(f"load {_load()} at the start; {args.repeat} rounds, after = {here}")
        for part, source in parts:
            out = tmp / "out"
            out.mkdir(exist_ok=True)
            if part == "large":
                export = [sys.executable, "-P", "-c", CLI, "otel", str(source), "--out",
                          str(out / "x.json")]  # fmt: skip
            else:
                export = [sys.executable, "-P", "-c", EXPORT_MANY, str(source), str(out)]
            runs: dict[str, list[tuple[float, float]]] = {"export": [], "after": [], "before": []}
            for round_ in range(args.repeat + 1):
                times = {"export": run_child(export, env=envs["after"])}
                for name in ("after", "before"):
                    report = [sys.executable, "-P", "-c", CLI, "report", str(source), "--out",
                              str(out / f"{name}.html")]  # fmt: skip
                    times[name] = run_child(report, env=envs[name], ok=(0, 1))
                if round_ == 0:
                    continue  # untimed: caches
                for name, child in times.items():
                    runs[name].append((child.seconds, child.cpu_seconds))
            print(f"({part}) {source}: load {_load()} at the end")
            exports = [w for w, _ in runs["export"]]
            for name, found in runs.items():
                walls = [w for w, _ in found]
                cpus = [c for _, c in found]
                line = (f"  {name:<7} wall min {min(walls):5.2f} s  median "
                        f"{statistics.median(walls):5.2f} s   CPU median "
                        f"{statistics.median(cpus):5.2f} s")  # fmt: skip
                if name != "export":
                    ratios = [w / e for w, e in zip(walls, exports, strict=True)]
                    line += (f"   ratio to the export min {min(ratios):4.2f} median "
                             f"{statistics.median(ratios):4.2f}")  # fmt: skip
                print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
