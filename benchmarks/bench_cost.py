"""Time the cost tables and ``sessiontools cost``: what users wait for (docs/costs.md; issue 14).

    python benchmarks/bench_cost.py [--log LOG ...] [--big-log LOG] [--small-log LOG]
                                    [--files N] [--repeat K] [--part warm|command|many|small|all]

Every figure is taken against the floor measured in the same run: ``for line in f:
orjson.loads(line)`` over the same file in binary mode, in a fresh ``python -c``. Each child
gets a bytecode cache in a temporary directory, filled by an untimed first round (as in
``bench_otel.py``); the runs of each part alternate with the floor, K times; the minimum wall
time of the K runs is printed (these shared machines are noisy: it is the least disturbed run),
with the machine's load average before and after.

(a) ``warm``: the library in a warm process (goal: at most 1.8 times the floor). Each ``--log``
    (default ``/tmp/bench/100mb.jsonl`` and ``/tmp/bench/1gb.jsonl``): a child imports pandas,
    genai-prices and sessiontools' cost modules (as a notebook has them), then times its first
    ``sessiontools.read_costs(LOG, workers=None)`` (a log of 8 MB or more is read in two
    processes). The ratio is that time over the floor's own loop (the floor child times its
    loop, without its start-up).

(b) ``command``: ``sessiontools cost BIG_LOG --format json --out FILE`` on the 1 GB log
    (``--big-log``), start-up counted, against the floor child's whole wall time (goal: at most
    2.0).

(c) ``many``: N small logs (default 1,000; ``make_many_logs.py``, a few runs and a few tens of
    KB each, written afresh into a temporary directory) through ``sessiontools cost DIR
    --format json --out FILE`` (goal: 1,500 files a second or more). Printed: files per second,
    and the child's CPU time (user + sys, from ``os.wait4``) over its wall time: near 1.0 it ran
    on one core, near 2.0 on both. The model calls the command counted are checked against the
    model calls in the logs (assistant turns, failed calls and the calls tools made, counted
    line by line here).

(d) ``small``: the whole ``sessiontools cost SMALL_LOG`` on one small log (``--small-log``,
    default ``testdata/sessions/02_runs_anthropic_openai_cache.jsonl``: Anthropic and OpenAI
    models, priced by genai-prices), printing its table to a pipe (goal: at most 0.45 s). Next
    to it, the interpreter alone (``python -c pass``) and ``python -c "import orjson"``, the
    floor's own start-up, to read the figure against.
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
REPO = HERE.parent
WARM_GOAL = 1.8
COMMAND_GOAL = 2.0
FILES_GOAL = 1500
SMALL_GOAL = 0.45
DEFAULT_LOGS = (Path("/tmp/bench/100mb.jsonl"), Path("/tmp/bench/1gb.jsonl"))
DEFAULT_BIG = Path("/tmp/bench/1gb.jsonl")
DEFAULT_SMALL = REPO / "testdata" / "sessions" / "02_runs_anthropic_openai_cache.jsonl"

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

#: (a): a warm process, then its first read_costs. Prints what it took (wall, and the CPU
#: time of this process and of the child it forked) and what it found.
WARM = """\
import json
import resource
import sys
import time

import genai_prices  # noqa: F401  (a notebook has imported them)
import pandas  # noqa: F401
import sessiontools
import sessiontools._cost.frames  # noqa: F401  (pandas)
import sessiontools._cost.price_book  # noqa: F401
import sessiontools._cost.report  # noqa: F401

def cpu(who):
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime

started = time.perf_counter()
mine, theirs = cpu(resource.RUSAGE_SELF), cpu(resource.RUSAGE_CHILDREN)
calls = sessiontools.read_costs(sys.argv[1], workers=None).model_calls
built = time.perf_counter()
print(json.dumps({
    "build": built - started,
    "cpu": cpu(resource.RUSAGE_SELF) - mine,
    "child_cpu": cpu(resource.RUSAGE_CHILDREN) - theirs,
    "calls": len(calls),
    "unpriced": int((~calls["priced"]).sum()),
    "cost_usd": float(calls["cost_usd"].sum()),
}))
"""

#: The command, saying on its last line of stderr the CPU time of its own process and of
#: the processes it started (the second part of a large log, or a pool).
COMMAND = """\
import json
import resource
import sys

sys.argv = ["sessiontools", *sys.argv[1:]]
from sessiontools._main import run

def said():
    mine = resource.getrusage(resource.RUSAGE_SELF)
    theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = {"cpu": mine.ru_utime + mine.ru_stime, "child_cpu": theirs.ru_utime + theirs.ru_stime}
    sys.stderr.write(json.dumps(cpu) + "\\n")

try:
    run()
finally:
    said()
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
    stderr: str = ""

    def said(self) -> dict[str, float]:
        """The CPU times the ``COMMAND`` wrapper wrote on its last line of stderr."""
        found: dict[str, float] = json.loads(self.stderr.strip().splitlines()[-1])
        return found

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
    return Measure(child.seconds, child.cpu_seconds, child.max_rss_kib, child.stdout, child.stderr)


def fastest(measures: Sequence[Measure]) -> Measure:
    return min(measures, key=lambda m: m.seconds)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


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


def _ok(ratio: float, goal: float) -> str:
    return "ok" if ratio <= goal else f"over the goal of {goal}"


def _cores(cpu_per_wall: float) -> str:
    if cpu_per_wall < 1.3:
        return "one core"
    if cpu_per_wall < 1.7:
        return "partly a second core"
    return "both cores"


def _alternate(
    runs: dict[str, list[str]], repeat: int, env: dict[str, str], ok: Sequence[int] = (0,)
) -> dict[str, list[Measure]]:
    """Each command once untimed (the bytecode cache, the page cache), then ``repeat`` rounds
    of all of them, in turn."""
    measured: dict[str, list[Measure]] = {name: [] for name in runs}
    for round_ in range(repeat + 1):
        for name, argv in runs.items():
            m = measure(argv, env=env, ok=ok)
            if round_:
                measured[name].append(m)
    return measured


def bench_warm(logs: Sequence[Path], repeat: int, env: dict[str, str]) -> None:
    """(a): the first read_costs of a warm process, against the floor's loop."""
    for log in logs:
        lines = count_lines(log)
        print(f"(a) the library, warm: read_costs(LOG, workers=None) in {log}  [{load()}]")
        measured = _alternate(
            {
                "floor": [sys.executable, "-c", FLOOR, str(log)],
                "warm": [sys.executable, "-c", WARM, str(log)],
            },
            repeat,
            env,
        )
        loops = sorted(float(m.stdout) for m in measured["floor"])
        inside = sorted((json.loads(m.stdout) for m in measured["warm"]), key=lambda d: d["build"])
        builds = [float(d["build"]) for d in inside]
        ratios = [b / loops[0] for b in builds]
        found = inside[0]
        print(f"  log                 {log.stat().st_size / 1e6:10.1f} MB   {lines:,} lines")
        print(
            f"  floor's loop        {loops[0]:10.2f} s    "
            f"(all runs {loops[0]:.2f} to {loops[-1]:.2f})"
        )
        print(
            f"  read_costs          {builds[0]:10.2f} s    (all runs {builds[0]:.2f} to "
            f"{builds[-1]:.2f}; CPU / wall of the fastest child "
            f"{fastest(measured['warm']).cpu_per_wall:.2f})"
        )
        print(f"  ratio               {ratios[0]:10.2f}      ({_ok(ratios[0], WARM_GOAL)})")
        bound = max(found["cpu"], found["child_cpu"]) / loops[0]
        print(
            f"  CPU of the fastest  {found['cpu']:10.2f} s    this process, "
            f"{found['child_cpu']:.2f} s the child: {bound:.2f} times the floor's loop with a "
            "core each"
        )
        print(
            f"  model calls         {found['calls']:10,}      ({found['unpriced']} unpriced), "
            f"${found['cost_usd']:,.2f}"
        )
        print(f"  [{load()}]")


def bench_command(log: Path, repeat: int, env: dict[str, str]) -> None:
    """(b): sessiontools cost on a large log, start-up counted."""
    lines = count_lines(log)
    print(f"(b) the command: `sessiontools cost LOG --format json --out FILE` on {log}  [{load()}]")
    with tempfile.TemporaryDirectory(prefix="bench_cost.") as tmp:
        out = Path(tmp) / "cost.json"
        measured = _alternate(
            {
                "floor": [sys.executable, "-c", FLOOR, str(log)],
                "cost": [
                    sys.executable,
                    "-c",
                    COMMAND,
                    "cost",
                    str(log),
                    "--format",
                    "json",
                    "--out",
                    str(out),
                ],
            },
            repeat,
            env,
        )
        document = json.loads(out.read_bytes())
    floor, cost = fastest(measured["floor"]), fastest(measured["cost"])
    ratio = cost.seconds / floor.seconds
    print(f"  log                 {log.stat().st_size / 1e6:10.1f} MB   {lines:,} lines")
    print(f"  floor time          {floor.seconds:10.2f} s    (start-up counted)")
    print(
        f"  cost time           {cost.seconds:10.2f} s    (CPU / wall {cost.cpu_per_wall:.2f}; "
        f"peak RSS {_mib(max(m.max_rss_kib for m in measured['cost']))} MiB)"
    )
    print(
        f"  ratio cost/floor    {ratio:10.2f}      ({_ok(ratio, COMMAND_GOAL)}; all runs "
        f"{min(m.seconds for m in measured['cost']) / floor.seconds:.2f} to "
        f"{max(m.seconds for m in measured['cost']) / floor.seconds:.2f})"
    )
    cpu = cost.said()
    bound = max(cpu["cpu"], cpu["child_cpu"]) / floor.seconds
    print(
        f"  CPU of the fastest  {cpu['cpu']:10.2f} s    the command's process, "
        f"{cpu['child_cpu']:.2f} s its child: {bound:.2f} times the floor with a core each"
    )
    print(
        f"  model calls         {document['total']['calls']:10,}      "
        f"${float(document['total_cost_usd']):,.2f}"
    )
    print(f"  [{load()}]")


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


def bench_many(count: int, repeat: int, env: dict[str, str]) -> None:
    """(c): ``sessiontools cost DIR`` over many small logs."""
    with tempfile.TemporaryDirectory(prefix="bench_cost.") as tmp:
        logs_dir = Path(tmp) / "logs"
        make_many(logs_dir, count)
        paths = sorted(logs_dir.glob("*.jsonl"))
        size = sum(p.stat().st_size for p in paths)
        lines = sum(count_lines(p) for p in paths)
        in_logs = model_calls_in(paths)
        out = Path(tmp) / "cost.json"
        print(
            f"(c) {len(paths):,} small logs: `sessiontools cost DIR --format json --out FILE`  "
            f"[{load()}]"
        )
        measured = _alternate(
            {
                "floor": [sys.executable, "-c", FLOOR_MANY, str(logs_dir)],
                "cost": [
                    sys.executable,
                    "-c",
                    COMMAND,
                    "cost",
                    str(logs_dir),
                    "--format",
                    "json",
                    "--out",
                    str(out),
                ],
            },
            repeat,
            env,
            ok=(0, 1),
        )
        document = json.loads(out.read_bytes())
    floor, run = fastest(measured["floor"]), fastest(measured["cost"])
    rates = sorted(len(paths) / m.seconds for m in measured["cost"])
    cpu_per_wall = [m.cpu_per_wall for m in measured["cost"]]
    counted = int(document["total"]["calls"])
    print(
        f"  logs                {size / 1e6:10.1f} MB   {lines:,} lines, "
        f"{size / len(paths) / 1000:.1f} KB a log"
    )
    print(f"  floor time          {floor.seconds:10.2f} s    (one process, every line)")
    print(
        f"  cost time           {run.seconds:10.2f} s    "
        f"ratio cost/floor {run.seconds / floor.seconds:.2f}"
    )
    verdict = "ok" if rates[-1] >= FILES_GOAL else f"under the goal of {FILES_GOAL}"
    print(
        f"  files per second    {rates[-1]:10.0f}      ({verdict}; "
        f"all runs {rates[0]:.0f} to {rates[-1]:.0f})"
    )
    cpu = run.said()
    print(
        f"  CPU time            {run.cpu_seconds:10.2f} s    (user + sys: {cpu['cpu']:.2f} s "
        f"the command's process, {cpu['child_cpu']:.2f} s its pool; with both cores all "
        f"along, at most {2 * len(paths) / run.cpu_seconds:.0f} files a second)"
    )
    print(
        f"  CPU / wall          {run.cpu_per_wall:10.2f}      ({_cores(run.cpu_per_wall)}; "
        f"all runs {min(cpu_per_wall):.2f} to {max(cpu_per_wall):.2f})"
    )
    print(f"  cost peak RSS       {_mib(max(m.max_rss_kib for m in measured['cost'])):>10} MiB")
    same = "the same" if counted == in_logs else "DIFFERENT"
    print(
        f"  model calls         {counted:10,}      counted, {in_logs:,} in the logs ({same}); "
        f"${float(document['total_cost_usd']):,.2f}, {len(document['skipped'])} skipped"
    )
    print(f"  [{load()}]")


def bench_small(log: Path, repeat: int, env: dict[str, str]) -> None:
    """(d): the whole command on one small log."""
    print(f"(d) one small log: `sessiontools cost {log.name}` (a table, to a pipe)  [{load()}]")
    measured = _alternate(
        {
            "python": [sys.executable, "-c", "pass"],
            "orjson": [sys.executable, "-c", "import orjson"],
            "cost": [*sessiontools_command(), "cost", str(log)],
        },
        repeat,
        env,
    )
    python, orjson_, cost = (fastest(measured[n]) for n in ("python", "orjson", "cost"))
    times = sorted(m.seconds for m in measured["cost"])
    print(f"  log                 {log.stat().st_size / 1e3:10.1f} KB   {count_lines(log):,} lines")
    print(f"  python -c pass      {python.seconds:10.3f} s")
    print(f"  import orjson       {orjson_.seconds:10.3f} s    (the floor's start-up)")
    print(
        f"  sessiontools cost   {cost.seconds:10.3f} s    "
        f"({'ok' if cost.seconds <= SMALL_GOAL else f'over the goal of {SMALL_GOAL} s'}; all runs "
        f"{times[0]:.3f} to {times[-1]:.3f}; {cost.seconds / orjson_.seconds:.1f} times the "
        "floor's start-up)"
    )
    print(f"  [{load()}]")


def _write_large(log: Path, size_mb: int) -> None:
    print(f"writing {log} (make_large_log.py --size-mb {size_mb}) ...", file=sys.stderr)
    log.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            str(HERE / "make_large_log.py"),
            "--size-mb",
            str(size_mb),
            "--out",
            str(log),
        ],
        check=True,
        stdin=subprocess.DEVNULL,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--log",
        type=Path,
        action="append",
        help="a log for (a), several allowed (default /tmp/bench/100mb.jsonl and "
        "/tmp/bench/1gb.jsonl; the 100 MB one is written when missing)",
    )
    parser.add_argument(
        "--big-log", type=Path, default=DEFAULT_BIG, help=f"the log for (b) ({DEFAULT_BIG})"
    )
    parser.add_argument(
        "--small-log", type=Path, default=DEFAULT_SMALL, help="the log for (d) (a testdata log)"
    )
    parser.add_argument("--files", type=int, default=1000, metavar="N", help="logs for (c) (1000)")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs of each (3)")
    parser.add_argument(
        "--part",
        choices=("warm", "command", "many", "small", "all"),
        default="all",
        help="what to run (all)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.files < 1:
        parser.error("--files must be at least 1")
    logs = args.log or list(DEFAULT_LOGS)
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"min wall time of {args.repeat} runs each, each a fresh subprocess; {load()}"
    )
    with tempfile.TemporaryDirectory(prefix="bench_cost.") as tmp:
        env = bytecode_cache_env(Path(tmp) / "pycache")
        if args.part in ("warm", "all"):
            for log in logs:
                if not log.exists():
                    if log != DEFAULT_LOGS[0]:
                        parser.error(f"no log at {log} (make_large_log.py writes one)")
                    _write_large(log, 100)
            bench_warm(logs, args.repeat, env)
        if args.part in ("command", "all"):
            if not args.big_log.exists():
                parser.error(
                    f"no log at {args.big_log}: python benchmarks/make_large_log.py "
                    f"--size-mb 1000 --out {args.big_log}"
                )
            bench_command(args.big_log, args.repeat, env)
        if args.part in ("many", "all"):
            bench_many(args.files, args.repeat, env)
        if args.part in ("small", "all"):
            bench_small(args.small_log, args.repeat, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
