"""CPU time of each process of ``sessiontools report LOG`` on one large log read in two
(issue 13): a measure of the critical path that holds on a busy machine.

    python benchmarks/report_split_cpu.py LOG [--repeat K] [--cut AT]

Runs the command (``sessiontools._cli.main``) in a fresh ``python`` child, K times, with
``sessiontools._parallel.split.read_in_two`` watched: this process's CPU time when it has
read its part (``parent read``) and when its imports, done while the child reads, are over
(``parent``); the child's (``os.times().children_*`` once it is reaped); the merge; what
comes after (cost tables, views, HTML). The critical path is what two free cores would
take: max(parent, child) + merge + after. A log read in one process prints its CPU time.
Compare with main's code by running this with ``PYTHONPATH`` set to a checkout of it (from
another directory than this repository's root).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence

CHILD = """
import os, sys, tempfile, time, warnings
warnings.simplefilter("ignore")
T = time.process_time
from sessiontools._parallel import split
real = split.read_in_two
marks = {}
def watching(reader, path, at, job, idle=None, hooks=None):
    def watched():
        marks["read"] = T()
        if idle is not None:
            idle()
        marks["parent"] = T()
    way = real(reader, path, at, job, watched, hooks)
    marks["merged"] = T()
    times = os.times()
    marks["child"] = times.children_user + times.children_system
    marks["way"] = way[0]
    return way
split.read_in_two = watching
if sys.argv[2] != "default":
    from sessiontools._html import read
    read.REPORT_CUT_AT = read.REPORT_CUT_AT_KEPT = float(sys.argv[2])
from sessiontools._cli.main import main
with tempfile.TemporaryDirectory() as tmp:
    main(["report", sys.argv[1], "--out", os.path.join(tmp, "r.html")])
end = T()
if "read" not in marks:
    print(f"one process: CPU {end:.2f} s")
else:
    parent, child = marks["parent"], marks["child"]
    merge, after = marks["merged"] - parent, end - marks["merged"]
    print(
        f"{marks['way']}: parent read {marks['read']:.2f}, parent {parent:.2f}, "
        f"child {child:.2f}, merge {merge:.2f}, after {after:.2f}; "
        f"critical path {max(parent, child) + merge + after:.2f} s, all CPU {end + child:.2f} s"
    )
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("log", help="a log of 8 MB or more")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs (3)")
    parser.add_argument(
        "--cut",
        default="default",
        metavar="AT",
        help="where to cut (REPORT_CUT_AT 0.2, or REPORT_CUT_AT_KEPT 0.3 with prices kept)",
    )
    args = parser.parse_args(argv)
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, args.log, args.cut],
            capture_output=True,
            text=True,
            check=True,
        )
        print(out.stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
