"""Ctrl-C and SIGTERM while a command works on a Dask cluster (issue 16, what was left): exit
130 (143) with our one line on stderr and nothing else, every time; no process and no file left
behind (the local cluster's scratch space in TMPDIR). Real signals, to real processes:

- the swallowed interrupt, forced: code that catches every exception (as distributed's
  garbage-collector callback did, about 2 runs in 20) is running when the signal comes; the
  command went on and exited 0 with its output;
- ``--scheduler local`` at three moments (the cluster starting, reading, the table being
  written), SIGINT to the command or, as a terminal's Ctrl-C, to its process group (the
  workers printed their own tracebacks), and SIGTERM.

``tests/dask/ctrl_c_loop.py`` sends signals at many moments in a loop, by hand.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from distributed import LocalCluster

from tests.dask.clusters import local_cluster, stop_resource_tracker
from tests.helpers import SESSIONS
from tests.receiver import Receiver

REPO = Path(__file__).resolve().parents[2]

#: Run in the command's process before the command: each place that talks to the cluster
#: first signals the command and swallows what the signal raises, as distributed's callbacks
#: did. The command must still stop.
SWALLOWING = """
import os, signal, sys, time
import sessiontools._dask.costs as costs
import sessiontools._dask.send as send

def swallowing(f):
    def g(*args, **kwargs):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # the signal is handled meanwhile
        except BaseException:  # as distributed's garbage-collector callback did
            pass
        return f(*args, **kwargs)
    return g

costs.summarize = swallowing(costs.summarize)
send._Dispatch.run = swallowing(send._Dispatch.run)
sys.argv = ["sessiontools", *sys.argv[1:]]
from sessiontools._main import run
run()
"""


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """150 small logs of distinct sessions (``benchmarks/make_many_logs.py``): a read that
    takes a while, and a table by session and run larger than a small pipe."""
    out = tmp_path_factory.mktemp("many")
    subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "make_many_logs.py"), "--count", "150",
         "--out", str(out)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with local_cluster(tmp_path_factory.mktemp("dask-signals")) as c:
        yield c
    stop_resource_tracker()


def _env(tmp: Path, mark: str) -> dict[str, str]:
    env = dict(os.environ, TMPDIR=str(tmp), SESSIONTOOLS_TEST_MARK=mark)
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    return env


def _marked(mark: str) -> list[str]:
    """The live processes started with ``mark`` in their environment (the command's, the
    local cluster's and its workers')."""
    found = []
    needle = f"SESSIONTOOLS_TEST_MARK={mark}".encode()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            if needle not in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                continue
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
            if state != "Z":
                found.append(Path(f"/proc/{pid}/cmdline").read_bytes()[:120].decode("replace"))
        except OSError:
            continue
    return found


def _wait_for(what: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.01)


def _left(tmp: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp)) for p in tmp.rglob("*"))


class _Command:
    """The command in a process of its own (a session of its own: the test can signal its
    process group, as a terminal does), its stdout a pipe of 4 KiB read only after the signal
    (a table larger than that blocks the command while it writes it)."""

    def __init__(self, args: list[str], tmp: Path, *, prelude: str | None = None) -> None:
        self.mark = f"{os.getpid()}-{id(self)}"
        self.tmp = tmp
        tmp.mkdir(exist_ok=True)
        read, write = os.pipe()
        fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
        code = ["-c", prelude] if prelude is not None else ["-m", "sessiontools"]
        self.process = subprocess.Popen(
            [sys.executable, *code, *args],
            stdout=write,
            stderr=subprocess.PIPE,
            env=_env(tmp, self.mark),
            start_new_session=True,
        )
        os.close(write)
        self._out = os.fdopen(read, "rb")
        self.out = b""

    def signal(self, number: int, *, group: bool = False) -> None:
        assert self.process.poll() is None, "the command ended before the signal"
        if group:
            os.killpg(self.process.pid, number)
        else:
            self.process.send_signal(number)

    def finish(self) -> tuple[int, bytes, bytes]:
        reader = threading.Thread(target=self._read)
        reader.start()
        try:
            _, err = self.process.communicate(timeout=60)
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
            reader.join(10)
        return self.process.returncode, self.out, err

    def _read(self) -> None:
        self.out = self._out.read()
        self._out.close()

    def scratch(self) -> list[Path]:
        return list(self.tmp.glob("sessiontools-dask-*"))

    def workers(self) -> list[Path]:
        return list(self.tmp.glob("sessiontools-dask-*/dask-scratch-space/worker-*"))


def _assert_stopped(command: _Command, code: int, err: bytes, number: int) -> None:
    line = (
        b"sessiontools: interrupted\n" if number == signal.SIGINT else b"sessiontools: terminated\n"
    )
    assert (code, err) == (130 if number == signal.SIGINT else 143, line), err.decode()[-3000:]
    # nothing left: no process (the local cluster's are killed before the command exits), no
    # file in TMPDIR (its scratch space is removed before)
    assert _marked(command.mark) == []
    assert _left(command.tmp) == []


# --- the interrupt swallowed where it was raised ----------------------------------------


@pytest.mark.parametrize("where", ["local", "address"])
def test_an_interrupt_swallowed_by_the_clusters_code_still_stops_cost(
    where: str, cluster: LocalCluster, tmp_path: Path
) -> None:
    """The handler raised KeyboardInterrupt into whatever ran; code that swallows it (here,
    forced, where the command reads on the cluster) let the command go on: exit 0 and the
    table. Now the signal is only noted there, and the command stops itself."""
    address = "local" if where == "local" else cluster.scheduler_address
    command = _Command(
        ["cost", str(SESSIONS), "--scheduler", address], tmp_path / "tmp", prelude=SWALLOWING
    )
    code, out, err = command.finish()
    _assert_stopped(command, code, err, signal.SIGINT)
    assert out == b""


def test_an_interrupt_swallowed_while_sending_from_a_cluster_still_stops_otel(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """As for ``cost``: the send went on and exited 0. Now: the summary of what was sent
    (nothing yet), our line, 130, and no error line of the tasks cancelled meanwhile."""
    with Receiver() as receiver:
        command = _Command(
            ["otel", str(SESSIONS), "--endpoint", receiver.endpoint, "--scheduler",
             cluster.scheduler_address],
            tmp_path / "tmp",
            prelude=SWALLOWING,
        )  # fmt: skip
        code, out, err = command.finish()
    lines = err.decode().splitlines()
    assert code == 130 and out == b"", err.decode()[-3000:]
    assert lines[-1] == "sessiontools: interrupted"
    assert all(line.startswith("sessiontools otel: ") for line in lines[:-1]), lines
    assert not any("error" in line or "Traceback" in line for line in lines), lines
    assert _marked(command.mark) == [] and _left(command.tmp) == []


# --- real signals at three moments, --scheduler local -------------------------------------


@pytest.mark.parametrize(
    ("moment", "number", "group"),
    [
        ("starting", signal.SIGINT, False),
        ("starting", signal.SIGINT, True),
        ("reading", signal.SIGINT, True),
        ("writing", signal.SIGINT, False),
        ("starting", signal.SIGTERM, False),
        ("reading", signal.SIGTERM, True),
    ],
)
def test_a_signal_stops_cost_scheduler_local_cleanly(
    moment: str, number: int, group: bool, many: Path, tmp_path: Path
) -> None:
    """``starting``: as soon as the cluster's scratch space is made (it was left behind, and
    distributed printed tracebacks of a cluster closed half started: AssertionError
    Status.init, "Nanny start failure"); ``reading``: once a worker is up (a group's SIGINT
    reached the workers, which printed their own tracebacks; AllExit "Task exception was
    never retrieved"); ``writing``: the cluster closed, the table blocked on a full pipe."""
    command = _Command(
        ["cost", str(many), "--by", "session,run", "--format", "csv", "--scheduler", "local"],
        tmp_path / "tmp",
    )
    if moment == "starting":
        _wait_for(lambda: bool(command.scratch()))
    elif moment == "reading":
        _wait_for(lambda: bool(command.workers()))
        time.sleep(0.3)
    else:  # the cluster closed (its scratch space gone), the command blocked writing
        _wait_for(lambda: bool(command.scratch()))
        _wait_for(lambda: not command.scratch())
        time.sleep(0.2)
    command.signal(number, group=group)
    code, _, err = command.finish()
    _assert_stopped(command, code, err, number)
