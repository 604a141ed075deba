"""Time ``sessiontools otel`` against the floor: parsing every line of the log and nothing else.

    python benchmarks/bench_otel.py LOG [LOG ...] [--repeat K]

For each log, K times (default 3), alternating:

a. the floor: ``for line in f: orjson.loads(line)`` over the file in binary mode, in a fresh
   ``python -c`` (the interpreter running this script);
b. ``sessiontools otel LOG --out TMPFILE``, the venv's console script (or ``python -m
   sessiontools`` when there is none).

Each is a subprocess, timed by wall clock, its peak RSS taken from ``os.wait4``
(``ru_maxrss``, KiB on Linux). The minimum time and the maximum peak RSS of the K runs are
reported: the machines are shared and noisy, and the minimum is the run least disturbed.

Printed per log: its size and lines; the floor's and otel's times and their ratio (goal: at
most 2.0); each one's peak RSS; the output's size, next to otel's peak RSS minus the floor's
(what otel holds beyond reading the file). With two or more logs it then compares each log with
the smallest: if the extra RSS grows by much more than the output does, memory grows with the
log (goal: it does not).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The floor: parse every line, keep nothing.
FLOOR = """\
import sys
import orjson

with open(sys.argv[1], "rb") as f:
    for line in f:
        orjson.loads(line)
"""

MIB = 1 << 20
RATIO_GOAL = 2.0


@dataclass(frozen=True, slots=True)
class Measure:
    """One subprocess: its wall time in seconds and its peak RSS in KiB."""

    seconds: float
    max_rss_kib: int


@dataclass(frozen=True, slots=True)
class Row:
    """The figures for one log."""

    log: Path
    size: int
    lines: int
    floor: Measure
    otel: Measure
    output: int
    warnings: str

    @property
    def ratio(self) -> float:
        return self.otel.seconds / self.floor.seconds

    @property
    def extra_rss_kib(self) -> int:
        """What otel holds at its peak beyond what the floor holds."""
        return self.otel.max_rss_kib - self.floor.max_rss_kib


def otel_command() -> list[str]:
    """``sessiontools`` from this interpreter's environment."""
    script = shutil.which("sessiontools", path=str(Path(sys.executable).parent))
    if script is not None:
        return [script]
    return [sys.executable, "-m", "sessiontools"]


def measure(argv: Sequence[str]) -> tuple[Measure, str]:
    """Run ``argv`` to completion; its time, peak RSS and standard error.

    Raises:
        SystemExit: the command failed.
    """
    with tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit status {proc.returncode}\n{stderr[-2000:]}")
    return Measure(seconds, usage.ru_maxrss), stderr


def count_lines(path: Path) -> int:
    """Lines in the file (a last line without ``\\n`` counts); reading it also warms the cache."""
    lines = 0
    last = b"\n"
    with open(path, "rb") as f:
        while chunk := f.read(MIB):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")


def bench(log: Path, repeat: int, workdir: Path) -> Row:
    size = log.stat().st_size
    lines = count_lines(log)
    out = workdir / "otel.json"
    floors: list[Measure] = []
    otels: list[Measure] = []
    warnings = ""
    for _ in range(repeat):
        floors.append(measure([sys.executable, "-c", FLOOR, str(log)])[0])
        out.unlink(missing_ok=True)
        m, stderr = measure([*otel_command(), "otel", str(log), "--out", str(out)])
        otels.append(m)
        warnings = warnings or stderr.strip()
    output = out.stat().st_size
    out.unlink()
    return Row(
        log,
        size,
        lines,
        Measure(min(m.seconds for m in floors), max(m.max_rss_kib for m in floors)),
        Measure(min(m.seconds for m in otels), max(m.max_rss_kib for m in otels)),
        output,
        warnings,
    )


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def report(row: Row) -> None:
    ok = "ok" if row.ratio <= RATIO_GOAL else f"over the goal of {RATIO_GOAL}"
    print(f"{row.log}")
    print(f"  log              {row.size / 1e6:10.1f} MB   {row.lines:,} lines")
    print(f"  floor time       {row.floor.seconds:10.2f} s")
    print(f"  otel time        {row.otel.seconds:10.2f} s")
    print(f"  ratio otel/floor {row.ratio:10.2f}     ({ok})")
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
        f"otel: {' '.join(otel_command())}; min time and max peak RSS of {args.repeat} runs each"
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
