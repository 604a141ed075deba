"""Time ``sessiontools otel`` against the floor: parsing every line of the log and nothing else.

    python benchmarks/bench_otel.py LOG [LOG ...] [--repeat K]

For each log, once untimed and then K times (default 3), alternating:

a. the floor: ``for line in f: orjson.loads(line)`` over the file in binary mode, in a fresh
   ``python -P -c`` (the interpreter running this script; ``-P``: the working directory is not
   on ``sys.path``, so a ``PYTHONPATH`` given for an earlier tree is what the export imports);
b. ``sessiontools otel LOG --out TMPFILE``, the venv's console script (or ``python -m
   sessiontools`` when there is none). From 8 MB on it cuts the log in two and exports the
   second part in a forked child, on a second core;
c. the same export in one process: ``export_otlp_json(LOG, file.write, workers=1)`` in a
   fresh ``python -c``.

Each is a subprocess, timed by wall clock, with its CPU time (user + system) and peak RSS
from ``os.wait4`` (which count the children it waited for; ``ru_maxrss`` is in KiB on Linux).
The minimum time, the minimum CPU time and the maximum peak RSS of the K runs are reported: the
machines are shared and noisy, and the minimum is the run least disturbed. On a busy machine
the CPU times' ratios are the steadier figures (time spent waiting for a core is not counted).

The subprocesses get a bytecode cache in a temporary directory (``PYTHONPYCACHEPREFIX``,
filled by the untimed run), as an installed package has its bytecode compiled when it is
installed: this machine sets ``PYTHONDONTWRITEBYTECODE=1``, which would make every run of the
editable install compile sessiontools' sources again (about 30 ms).

Printed per log: its size and lines; the floor's and otel's times and their ratio (goal: at
most 1.5, issue 15); otel's CPU time; the one-process export's time and ratio (goal: at most
2.5); each one's peak RSS; the output's size, next to otel's peak RSS minus the floor's (what
otel holds beyond reading the file); the load average after the log's runs. With two or more
logs it then compares each log with the smallest: if the extra RSS
grows by much more than the output does, memory grows with the log (goal: it does not).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from _children import MIB, bytecode_cache_env, count_lines, run_child, sessiontools_command

#: The floor: parse every line, keep nothing.
FLOOR = """\
import sys
import orjson

with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
"""

#: The export in one process, to a file.
ONE_PROCESS = """\
import sys
import sessiontools

with open(sys.argv[2], "wb") as out:
    sessiontools.export_otlp_json(sys.argv[1], out.write, workers=1)
"""

RATIO_GOAL = 1.5
ONE_PROCESS_GOAL = 2.5


@dataclass(frozen=True, slots=True)
class Measure:
    """One subprocess: its wall time and CPU time (user + system, its children's included) in
    seconds, and its peak RSS in KiB."""

    seconds: float
    cpu_seconds: float
    max_rss_kib: int


@dataclass(frozen=True, slots=True)
class Row:
    """The figures for one log."""

    log: Path
    size: int
    lines: int
    floor: Measure
    otel: Measure
    one_process: Measure
    output: int
    warnings: str

    @property
    def ratio(self) -> float:
        return self.otel.seconds / self.floor.seconds

    @property
    def one_process_ratio(self) -> float:
        return self.one_process.seconds / self.floor.seconds

    @property
    def extra_rss_kib(self) -> int:
        """What otel holds at its peak beyond what the floor holds."""
        return self.otel.max_rss_kib - self.floor.max_rss_kib


def measure(argv: Sequence[str], env: dict[str, str]) -> tuple[Measure, str]:
    """Run ``argv`` to completion; its time, CPU time, peak RSS and standard error.

    Raises:
        SystemExit: the command failed.
    """
    child = run_child(argv, env=env)
    return Measure(child.seconds, child.cpu_seconds, child.max_rss_kib), child.stderr


def bench(log: Path, repeat: int, workdir: Path) -> Row:
    size = log.stat().st_size
    lines = count_lines(log)
    out = workdir / "otel.json"
    env = bytecode_cache_env(workdir / "pycache")
    commands = {
        "floor": [sys.executable, "-P", "-c", FLOOR, str(log)],
        "otel": [*sessiontools_command(), "otel", str(log), "--out", str(out)],
        "one process": [sys.executable, "-P", "-c", ONE_PROCESS, str(log), str(out)],
    }
    measures: dict[str, list[Measure]] = {name: [] for name in commands}
    warnings = ""
    for round_ in range(repeat + 1):  # the first round fills the bytecode cache, untimed
        for name, argv in commands.items():
            out.unlink(missing_ok=True)
            m, stderr = measure(argv, env)
            if round_:
                measures[name].append(m)
            if name == "otel":
                warnings = warnings or stderr.strip()
                output = out.stat().st_size
    out.unlink()

    def best(ms: list[Measure]) -> Measure:
        fastest = min(ms, key=lambda m: m.seconds)
        cpu = min(m.cpu_seconds for m in ms)
        return Measure(fastest.seconds, cpu, max(m.max_rss_kib for m in ms))

    return Row(
        log,
        size,
        lines,
        best(measures["floor"]),
        best(measures["otel"]),
        best(measures["one process"]),
        output,
        warnings,
    )


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def report(row: Row) -> None:
    ok = "ok" if row.ratio <= RATIO_GOAL else f"over the goal of {RATIO_GOAL}"
    load = os.getloadavg()
    print(f"{row.log}   (load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} after)")
    print(f"  log              {row.size / 1e6:10.1f} MB   {row.lines:,} lines")
    print(f"  floor time       {row.floor.seconds:10.2f} s")
    print(f"  otel time        {row.otel.seconds:10.2f} s")
    print(f"  ratio otel/floor {row.ratio:10.2f}     ({ok})")
    print(
        f"  otel CPU time    {row.otel.cpu_seconds:10.2f} s   "
        f"({row.otel.cpu_seconds / row.otel.seconds:.2f} x its wall time, "
        f"{row.otel.cpu_seconds / row.floor.cpu_seconds:.2f} x the floor's CPU time)"
    )
    one_ok = (
        "ok"
        if row.one_process_ratio <= ONE_PROCESS_GOAL
        else f"over the goal of {ONE_PROCESS_GOAL}"
    )
    print(
        f"  one process      {row.one_process.seconds:10.2f} s   ratio {row.one_process_ratio:.2f}"
        f"     ({one_ok})"
    )
    print(
        f"  CPU time         {row.floor.cpu_seconds:10.2f} s floor, "
        f"{row.one_process.cpu_seconds:.2f} s one process: ratio "
        f"{row.one_process.cpu_seconds / row.floor.cpu_seconds:.2f} (steadier on a busy machine)"
    )
    print(f"  floor peak RSS   {_mib(row.floor.max_rss_kib):>10} MiB")
    print(f"  otel peak RSS    {_mib(row.otel.max_rss_kib):>10} MiB")
    print(
        f"  otel - floor RSS {_mib(row.extra_rss_kib):>10} MiB"
        f"   vs output {row.output / MIB:.1f} MiB ({row.output:,} bytes)"
    )
    if row.warnings:
        print(f"  otel said: {row.warnings.splitlines()[0]}")


def report_growth(rows: Sequence[Row]) -> None:
    """Compare each log with the smallest: does the extra RSS grow by more than the output?"""
    base = min(rows, key=lambda r: r.size)
    for row in rows:
        if row is base:
            continue
        log = (row.size - base.size) / 1e6
        output = (row.output - base.output) / MIB
        extra = (row.extra_rss_kib - base.extra_rss_kib) / 1024
        factor = f"; {extra / output:.2f}x the output's growth" if output >= 1 else ""
        print(
            f"{base.log.name} -> {row.log.name}: log +{log:.1f} MB, output +{output:.1f} MiB, "
            f"otel - floor RSS {extra:+.1f} MiB ({extra - output:+.1f} MiB beyond the output"
            f"{factor})"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", metavar="LOG", nargs="+", type=Path, help="session logs")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs of each (3)")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"otel: {' '.join(sessiontools_command())}; "
        f"min time and max peak RSS of {args.repeat} runs each"
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_otel.") as tmp:
        for log in args.logs:
            row = bench(log, args.repeat, Path(tmp))
            report(row)
            rows.append(row)
    if len(rows) > 1:
        print()
        report_growth(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
