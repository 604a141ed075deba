"""What the benchmarks share: running a command in a child process and measuring it, the
``sessiontools`` command of this environment, a bytecode cache for the children, and counting
the lines of a log. Imported by ``bench_otel.py`` and ``bench_cost.py`` (run from this
directory's scripts, so that it is on ``sys.path``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MIB = 1 << 20


@dataclass(frozen=True, slots=True)
class Child:
    """One child process: wall time and CPU time (user + system, its own children's included)
    in seconds, peak RSS in KiB (``os.wait4``), and what it printed."""

    seconds: float
    cpu_seconds: float
    max_rss_kib: int
    stdout: str
    stderr: str


def run_child(
    argv: Sequence[str], *, env: dict[str, str] | None = None, ok: Sequence[int] = (0,)
) -> Child:
    """Run ``argv`` to completion and measure it.

    Raises:
        SystemExit: the command exited with a status not in ``ok``.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait again
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(argv)}: exit status {proc.returncode}\n{stderr[-2000:]}")
    return Child(seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stdout, stderr)


def sessiontools_command() -> list[str]:
    """``sessiontools`` from this interpreter's environment."""
    script = shutil.which("sessiontools", path=str(Path(sys.executable).parent))
    if script is not None:
        return [script]
    return [sys.executable, "-m", "sessiontools"]


def bytecode_cache_env(directory: Path) -> dict[str, str]:
    """This environment, with a bytecode cache in ``directory``: an installed package has its
    bytecode compiled when it is installed, and this machine sets ``PYTHONDONTWRITEBYTECODE``,
    which would make every child compile the editable install's modules again."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(directory)
    return env


def count_lines(path: Path) -> int:
    """Lines in the file (a last line without ``\\n`` counts); reading it also warms the cache."""
    lines = 0
    last = b"\n"
    with open(path, "rb") as f:
        while chunk := f.read(MIB):
            lines += chunk.count(b"\n")
            last = chunk[-1:]
    return lines + (last != b"\n")
