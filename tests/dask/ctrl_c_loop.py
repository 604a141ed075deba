"""Signal a ``sessiontools`` command at many moments, many times, and tally how it stopped
(by hand; tests/dask/test_dask_signals.py is the suite's deterministic part):

    python tests/dask/ctrl_c_loop.py [--loops N] [--delays 0.5,1,2,...] [--signal SIGTERM]
                                     [--group] [--otel] -- cost LOGS --scheduler local

Each try runs ``python -m sessiontools ARGS...`` with a TMPDIR of its own, sends the signal
after each delay (to the command, or with ``--group`` to its process group, as a terminal's
Ctrl-C), and counts it ``ok`` when the command exited 130 (143) with only our line on stderr
(``--otel``: the send's summary line before it), left no file in its TMPDIR and no process
(found by a mark in their environment). A command that ended before the signal is counted
apart. Prints each try that was not ok, then the tally and the longest wait for the exit.
"""

from __future__ import annotations

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

OUR_LINES = ("sessiontools: interrupted", "sessiontools: terminated")


def _marked(mark: str) -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            if mark.encode() not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                continue
            if Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
                found.append(pid)
        except OSError:
            continue
    return found


def _ok_lines(lines: list[str], otel: bool) -> bool:
    if not lines or lines[-1] not in OUR_LINES:
        return False
    if len(lines) == 1:
        return True
    return otel and len(lines) == 2 and lines[0].startswith("sessiontools otel: ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loops", type=int, default=10)
    parser.add_argument("--delays", default="0.3,0.7,1,1.5,2,2.5,3,4,5")
    parser.add_argument("--signal", default="SIGINT", choices=["SIGINT", "SIGTERM"])
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--otel", action="store_true")
    parser.add_argument("args", nargs="+")
    options = parser.parse_args()
    number = getattr(signal, options.signal)
    delays = [float(d) for d in options.delays.split(",")]
    tally: collections.Counter[str] = collections.Counter()
    waits: list[float] = []
    for i in range(options.loops):
        for delay in delays:
            tmp = tempfile.mkdtemp(prefix="ctrl-c-")
            mark = f"CTRL_C_LOOP={os.getpid()}-{i}-{delay}"
            env = dict(os.environ, TMPDIR=tmp, CTRL_C_LOOP=mark.partition("=")[2])
            process = subprocess.Popen(
                [sys.executable, "-m", "sessiontools", *options.args],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            time.sleep(delay)
            if process.poll() is not None:
                process.communicate()
                tally["ended before the signal"] += 1
                shutil.rmtree(tmp, ignore_errors=True)
                continue
            if options.group:
                os.killpg(process.pid, number)
            else:
                process.send_signal(number)
            sent = time.monotonic()
            try:
                _, err = process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                _, err = process.communicate()
                tally["hung"] += 1
                continue
            waits.append(time.monotonic() - sent)
            time.sleep(0.2)
            left = [str(p) for p in Path(tmp).rglob("*")]
            alive = _marked(mark)
            lines = err.decode(errors="replace").splitlines()
            code = 130 if number == signal.SIGINT else 143
            if (
                process.returncode == code
                and _ok_lines(lines, options.otel)
                and not (left or alive)
            ):
                tally["ok"] += 1
            else:
                key = f"exit {process.returncode}, {len(lines)} lines, {len(left)} files left"
                tally[key + f", {len(alive)} processes left"] += 1
                print(f"after {delay} s: {key}: {lines[:3]} {left[:2]}", flush=True)
                for pid in alive:
                    os.kill(int(pid), signal.SIGKILL)
            shutil.rmtree(tmp, ignore_errors=True)
    print(dict(tally), f"longest wait for the exit: {max(waits or [0]):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
