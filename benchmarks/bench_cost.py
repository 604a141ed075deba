"""Time the cost frames and ``sessiontools cost`` (docs/costs.md; issue 3).

    python benchmarks/bench_cost.py [--log LOG] [--files N] [--repeat K] [--part large|many|both]

(a) One large log (default ``/tmp/bench/100mb.jsonl``, written by ``make_large_log.py --size-mb
    100`` when missing), K times, alternating, each in a fresh ``python -c``:

    - the floor: ``for line in f: orjson.loads(line)`` over the file in binary mode, as in
      ``bench_otel.py``;
    - the frame: ``sessiontools.read_costs(LOG, workers=None).model_calls``, every model
      call priced, as ``sessiontools cost`` reads (a log of 8 MB or more in two processes,
      cut at a run near its middle);
    - the same frame in one process: ``read_costs(LOG, workers=1)``, the library's default.

    Goal: the frame at most 2.0 times the floor. Each child's wall time is measured from here
    (interpreter start-up and imports included, as in ``bench_otel.py``) and its peak RSS from
    ``os.wait4``; each child also says how long its own work took (the floor's loop; the
    frame's import of sessiontools' cost modules, and the build), which gives the ratio without
    start-up (the import counts pandas and genai-prices, which sessiontools loads on the first
    price it looks up). Printed: the minimum time and the maximum peak RSS of the K runs. As in
    ``bench_otel.py``, the children get a bytecode cache in a temporary directory, filled by an
    untimed first round.

(b) N small logs (default 1,000; ``make_many_logs.py``, a few runs and a few tens of KB each,
    written afresh into a temporary directory) through ``sessiontools cost DIR --format json
    --out FILE``, K times, alternating with the floor over the same files in one ``python -c``.
    Printed: files per second, and the child's CPU time (user + sys, from ``os.wait4``) over
    its wall time: near 1.0 it ran on one core, near 2.0 on both of this machine's two. The
    model calls the command counted are checked against the model calls in the logs (assistant
    turns, failed calls and the calls tools made, counted line by line here).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson
from _children import bytecode_cache_env, count_lines, run_child, sessiontools_command

HERE = Path(__file__).resolve().parent
RATIO_GOAL = 2.0
DEFAULT_LOG = Path("/tmp/bench/100mb.jsonl")

#: The floor over one log: parse every line, keep nothing; print the loop's own time.
FLOOR = """\
import sys
import time
import orjson

started = time.perf_counter()
with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
print(time.perf_counter() - started)
"""

#: The frame: every model call of the log, priced. Prints what it took and what it found.
FRAME = """\
import json
import sys
import time

started = time.perf_counter()
import genai_prices  # noqa: F401  (sessiontools loads it on the first price it looks up)
import sessiontools
import sessiontools._cost.frames  # noqa: F401  (pandas)
import sessiontools._cost.price_book  # noqa: F401
import sessiontools._cost.report  # noqa: F401
imported = time.perf_counter()
workers = None if sys.argv[2] == "None" else int(sys.argv[2])
calls = sessiontools.read_costs(sys.argv[1], workers=workers).model_calls
built = time.perf_counter()
print(json.dumps({
    "import": imported - started,
    "build": built - imported,
    "calls": len(calls),
    "unpriced": int((~calls["priced"]).sum()),
    "cost_usd": float(calls["cost_usd"].sum()),
}))
"""

#: The floor over many logs: every line of every ``*.jsonl`` in the directory, sorted.
FLOOR_MANY = """\
import sys
import time
from pathlib import Path
import orjson

started = time.perf_counter()
for path in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
print(time.perf_counter() - started)
"""


@dataclass(frozen=True, slots=True)
class Measure:
    """One subprocess: wall time (s), CPU time (user + sys, s), peak RSS (KiB), stdout."""

    seconds: float
    cpu_seconds: float
    max_rss_kib: int
    stdout: str

    @property
    def cpu_per_wall(self) -> float:
        return self.cpu_seconds / self.seconds


def measure(
    argv: Sequence[str], ok: Sequence[int] = (0,), env: dict[str, str] | None = None
) -> Measure:
    """Run ``argv`` to completion: its wall time, CPU time, peak RSS and standard output.

    Raises:
        SystemExit: the command exited with a status not in ``ok``.
    """
    child = run_child(argv, env=env, ok=ok)
    return Measure(child.seconds, child.cpu_seconds, child.max_rss_kib, child.stdout)


def model_calls_in(paths: Sequence[Path]) -> int:
    """The model calls in the logs, counted line by line: each assistant ``message``, each
    ``model_error`` and each model call a ``tool_result`` reports in its ``usage``."""
    calls = 0
    for path in paths:
        with open(path, "rb") as f:
            for line in f:
                entry = orjson.loads(line)
                kind = entry.get("type")
                payload = entry.get(kind) or {}
                if kind == "message":
                    calls += payload.get("message", {}).get("role") == "assistant"
                elif kind == "model_error":
                    calls += 1
                elif kind == "tool_result":
                    calls += len(payload.get("usage") or ())
    return calls


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def _ok(ratio: float) -> str:
    return "ok" if ratio <= RATIO_GOAL else f"over the goal of {RATIO_GOAL}"


def _cores(cpu_per_wall: float) -> str:
    if cpu_per_wall < 1.3:
        return "one core"
    if cpu_per_wall < 1.7:
        return "partly a second core"
    return "both cores"


def bench_large(log: Path, repeat: int) -> None:
    """(a): the floor against the frame, each in its own subprocess."""
    size = log.stat().st_size
    lines = count_lines(log)
    measures: dict[str, list[Measure]] = {"floor": [], "None": [], "1": []}
    with tempfile.TemporaryDirectory(prefix="bench_cost.") as tmp:
        env = bytecode_cache_env(Path(tmp) / "pycache")
        for round_ in range(repeat + 1):  # the first round fills the bytecode cache, untimed
            for name, measured in measures.items():
                code = FLOOR if name == "floor" else FRAME
                argv = [sys.executable, "-c", code, str(log)] + ([] if name == "floor" else [name])
                m = measure(argv, env=env)
                if round_:
                    measured.append(m)
    floors = measures["floor"]
    floor = min(floors, key=lambda m: m.seconds)
    floor_loop = min(float(m.stdout) for m in floors)
    print(f"(a) one large log: {log}")
    print(f"  log                 {size / 1e6:10.1f} MB   {lines:,} lines")
    print(f"  floor time          {floor.seconds:10.2f} s    (its loop {floor_loop:.2f} s)")
    print(f"  floor peak RSS      {_mib(max(m.max_rss_kib for m in floors)):>10} MiB")
    for workers, what in (("None", "two processes"), ("1", "one process")):
        frames = measures[workers]
        frame = min(frames, key=lambda m: m.seconds)
        inside = [json.loads(m.stdout) for m in frames]
        imports = min(float(d["import"]) for d in inside)
        build = min(float(d["build"]) for d in inside)
        found = inside[0]
        ratio = frame.seconds / floor.seconds
        ratio_inside = build / floor_loop
        print(f"  the frame, workers={workers} ({what}):")
        print(
            f"    frame time        {frame.seconds:10.2f} s    "
            f"(import {imports:.2f} s, build {build:.2f} s; CPU / wall {frame.cpu_per_wall:.2f})"
        )
        print(f"    ratio frame/floor {ratio:10.2f}      ({_ok(ratio)})")
        print(
            f"    without start-up  {ratio_inside:10.2f}      "
            f"(build / the floor's loop; {_ok(ratio_inside)})"
        )
        print(f"    frame peak RSS    {_mib(max(m.max_rss_kib for m in frames)):>10} MiB")
        print(
            f"    model calls       {found['calls']:10,}      ({found['unpriced']} unpriced), "
            f"${found['cost_usd']:,.2f}"
        )


def make_many(directory: Path, count: int) -> None:
    subprocess.run(
        [
            sys.executable,
            str(HERE / "make_many_logs.py"),
            "--count",
            str(count),
            "--out",
            str(directory),
        ],
        check=True,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def bench_many(count: int, repeat: int) -> None:
    """(b): ``sessiontools cost DIR`` over many small logs."""
    with tempfile.TemporaryDirectory(prefix="bench_cost.") as tmp:
        logs_dir = Path(tmp) / "logs"
        make_many(logs_dir, count)
        paths = sorted(logs_dir.glob("*.jsonl"))
        size = sum(p.stat().st_size for p in paths)
        lines = sum(count_lines(p) for p in paths)
        in_logs = model_calls_in(paths)
        out = Path(tmp) / "cost.json"
        floors: list[Measure] = []
        runs: list[Measure] = []
        for _ in range(repeat):
            floors.append(measure([sys.executable, "-c", FLOOR_MANY, str(logs_dir)]))
            out.unlink(missing_ok=True)
            argv = [
                *sessiontools_command(),
                "cost",
                str(logs_dir),
                "--format",
                "json",
                "--out",
                str(out),
            ]
            runs.append(measure(argv, ok=(0, 1)))
        document = json.loads(out.read_bytes())
    floor = min(floors, key=lambda m: m.seconds)
    run = min(runs, key=lambda m: m.seconds)
    counted = sum(int(g["calls"]) for g in document["groups"])
    cpu_per_wall = [m.cpu_per_wall for m in runs]
    print(f"(b) {len(paths):,} small logs through `sessiontools cost DIR --format json --out FILE`")
    print(
        f"  logs                {size / 1e6:10.1f} MB   {lines:,} lines, "
        f"{size / len(paths) / 1000:.1f} KB a log"
    )
    print(f"  floor time          {floor.seconds:10.2f} s    (one process, every line)")
    print(
        f"  cost time           {run.seconds:10.2f} s    "
        f"ratio cost/floor {run.seconds / floor.seconds:.2f}"
    )
    print(f"  files per second    {len(paths) / run.seconds:10.0f}")
    print(f"  CPU time            {run.cpu_seconds:10.2f} s    (user + sys)")
    print(
        f"  CPU / wall          {run.cpu_per_wall:10.2f}      ({_cores(run.cpu_per_wall)}; "
        f"all runs {min(cpu_per_wall):.2f} to {max(cpu_per_wall):.2f})"
    )
    print(f"  cost peak RSS       {_mib(max(m.max_rss_kib for m in runs)):>10} MiB")
    same = "the same" if counted == in_logs else "DIFFERENT"
    print(
        f"  model calls         {counted:10,}      counted, {in_logs:,} in the logs ({same}); "
        f"${float(document['total_cost_usd']):,.2f}, {len(document['skipped'])} skipped"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--log",
        type=Path,
        default=DEFAULT_LOG,
        help=f"the large log for (a); written by make_large_log.py --size-mb 100 when missing "
        f"(default {DEFAULT_LOG})",
    )
    parser.add_argument("--files", type=int, default=1000, metavar="N", help="logs for (b) (1000)")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs of each (3)")
    parser.add_argument(
        "--part", choices=("large", "many", "both"), default="both", help="what to run (both)"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.files < 1:
        parser.error("--files must be at least 1")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"min wall time and max peak RSS of {args.repeat} runs each, each a fresh subprocess"
    )
    if args.part in ("large", "both"):
        if not args.log.exists():
            print(f"writing {args.log} (make_large_log.py --size-mb 100) ...", file=sys.stderr)
            args.log.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "make_large_log.py"),
                    "--size-mb",
                    "100",
                    "--out",
                    str(args.log),
                ],
                check=True,
                stdin=subprocess.DEVNULL,
            )
        bench_large(args.log, args.repeat)
    if args.part in ("many", "both"):
        bench_many(args.files, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
