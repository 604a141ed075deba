"""Where ``sessiontools report``'s time goes: its own steps, timed in one fresh process.

    python benchmarks/report_steps.py LOG_OR_DIR [--workers N] [--repeat K]

Runs what the command runs (``sessiontools/_cli/report.py``: find the logs, start
``ReportReads``, ``read_now`` (without a pool: the logs read here, a large one in two
processes, importing meanwhile), import genai-prices, ``sessiontools._html.collect`` and
Jinja2 (``render``; where the tree has ``render.load_templates``, as its command does, also
load genai-prices' data and compile the templates), ``collect_report``,
``render_report_html``), K times, each in a fresh ``python`` child, and prints the seconds
of each step: ``start`` (this script's imports of sessiontools, after the interpreter's own
start), ``read_now`` (with its ``idle`` imports),
``imports`` (what is left of them), ``read`` (until the last log's read is taken: with a
pool, what the imports did not hide), ``tables`` (the cost tables priced; ``cost_tables``
in a tree from before the report summed them without pandas), ``views`` (the rest of
``collect_report``), ``render``. ``--workers`` is ``ReportReads``' (default: the command's
choice, ``None``). To time an earlier tree, run this script from outside any checkout (the
child's working directory is first on its ``sys.path``) with ``PYTHONPATH=TREE``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence

CHILD = """
import time
T0 = time.perf_counter()
import os, sys, warnings
warnings.simplefilter("ignore")
from sessiontools._cost.price_book import PriceBook
from sessiontools._html.read import ReportReads, paused_gc
from sessiontools._log.sources import find_logs
at = {"start": time.perf_counter()}
workers = None if sys.argv[2] == "none" else int(sys.argv[2])
found = find_logs([sys.argv[1]])
book = PriceBook(None)
def heavy():
    import genai_prices  # noqa: F401
    from sessiontools._html import collect, render  # noqa: F401
    if hasattr(render, "load_templates"):  # as the command does since it has them
        book.warm()
        render.load_templates()
with paused_gc():
    reads = ReportReads(found, workers=workers)
    reads.idle = heavy
    reads.read_now()
    at["read_now"] = time.perf_counter()
    heavy()
    from sessiontools._html import collect
    from sessiontools._html.render import render_report_html
    at["imports"] = time.perf_counter()
    if hasattr(collect, "cost_tables"):  # a tree before the tables were made without pandas
        tables = collect.cost_tables
        def timed(*args, **kwargs):
            at.setdefault("read", time.perf_counter())
            made = tables(*args, **kwargs)
            at.setdefault("tables", time.perf_counter())
            return made
        collect.cost_tables = timed
    else:
        builder, priced = collect._Builder, collect._priced_tables
        def started(*args, **kwargs):
            at.setdefault("read", time.perf_counter())
            return builder(*args, **kwargs)
        def timed(*args, **kwargs):
            made = priced(*args, **kwargs)
            at.setdefault("tables", time.perf_counter())
            return made
        collect._Builder, collect._priced_tables = started, timed
    data = collect.collect_report(reads, prices=book, skip_damaged=True)
    at["views"] = time.perf_counter()
    html = render_report_html(data)
    at["render"] = time.perf_counter()
before, steps = T0, []
for step, moment in at.items():
    steps.append(f"{step}={moment - before:.3f}")
    before = moment
print(" ".join(steps), reads.workers)
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("logs", help="a log or a directory of logs")
    parser.add_argument("--workers", default="none", help="ReportReads' workers (none)")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs (3)")
    args = parser.parse_args(argv)
    steps: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, args.logs, args.workers],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for pair in out[:-1]:
            step, seconds = pair.split("=")
            steps.setdefault(step, []).append(float(seconds))
        processes = out[-1]
    print(f"{args.logs}: {args.repeat} runs, workers {args.workers} ({processes} reading)")
    for step, times in steps.items():
        print(f"  {step:<8} min {min(times):6.2f} s   max {max(times):6.2f} s")
    totals = [sum(run) for run in zip(*steps.values(), strict=True)]
    print(f"  {'total':<8} min {min(totals):6.2f} s   max {max(totals):6.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
