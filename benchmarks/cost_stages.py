"""Where the cost tables' time goes, stage by stage, in one warm process (issue 14).

    python benchmarks/cost_stages.py LOG [--repeat K] [--clock cpu|wall]

Times these pipelines on the same log, each the minimum over K rounds (default 5; the rounds
alternate the pipelines, so noise hits all of them alike), with its ratio to the floor and
what it adds to the pipeline it extends. ``--clock cpu`` (the default) times each by this
process's CPU time: on a machine other processes keep busy, time spent waiting for a core is
not counted. pandas and genai-prices are imported first, and one untimed ``read_costs`` warms
the price book's caches, so what is timed is the work, as in a notebook.

1. floor: ``orjson.loads`` on every line;
2. entries: the cost reader (``ExportReader``: typed decoding, the export limits), entries;
   over the floor;
3. runs: the fold into runs (``iter_runs``); over entries;
4. rows: the cost rows of every run (``_LogRows``: plain columns, each run's identity); over
   runs;
5. read_costs: ``read_costs(LOG, workers=1)``, the whole library call in one process (the
   rows, the prices, the three frames); over rows;
6. checked: the same call with typed decoding off (every line through orjson and the checked
   decoders, as the cost tables read before issue 14's speed work); its ratio to
   ``read_costs`` is what typed decoding saves.

In-process and in one process: ``bench_cost.py`` measures what users wait for (two processes
for a large log, start-up, the command).
"""

from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import genai_prices  # noqa: F401 - imported as a notebook has it
import orjson
import pandas  # noqa: F401

from sessiontools import read_costs
from sessiontools._cost import rows as rows_module
from sessiontools._log.reader import ExportReader
from sessiontools._model.fold import SessionFold, iter_runs


class _Checked(ExportReader):
    """The cost reader with typed decoding off: every line the checked way."""

    views = False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    args = parser.parse_args()
    log = str(args.log)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter

    def floor() -> None:
        with open(log, "rb") as f:
            for line in f:
                orjson.loads(line)

    def entries() -> None:
        with ExportReader(log) as reader:
            for _ in reader:
                pass

    def runs() -> None:
        with ExportReader(log) as reader:
            for _ in iter_runs(reader, SessionFold(reader.name, warnings=reader.sink)):
                pass

    def rows() -> None:
        with ExportReader(log) as reader:
            built = rows_module._LogRows(reader.name)
            for run in iter_runs(reader, SessionFold(reader.name, warnings=reader.sink)):
                built.add(run, checked=True)

    def costs() -> None:
        read_costs(log, workers=1)

    def checked() -> None:
        rows_module.ExportReader = _Checked  # type: ignore[misc]
        try:
            read_costs(log, workers=1)
        finally:
            rows_module.ExportReader = ExportReader  # type: ignore[misc]

    pipelines: list[tuple[str, Callable[[], None], str | None]] = [
        ("floor", floor, None),
        ("entries", entries, "floor"),
        ("runs", runs, "entries"),
        ("rows", rows, "runs"),
        ("read_costs", costs, "rows"),
        ("checked", checked, "read_costs"),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        costs()  # untimed: the price book's first lookups, genai-prices' data
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for name, run, _over in pipelines:
                started = clock()
                run()
                took = clock() - started
                best[name] = min(best.get(name, took), took)
    size = args.log.stat().st_size
    print(f"{args.log} ({size / 1e6:.1f} MB), {args.clock} time, min of {args.repeat} rounds")
    base = best["floor"]
    for name, _run, over in pipelines:
        added = "" if over is None else f"   +{best[name] - best[over]:7.3f} s over {over}"
        print(f"  {name:11s} {best[name]:7.3f} s  {best[name] / base:5.2f} x floor{added}")


if __name__ == "__main__":
    main()
