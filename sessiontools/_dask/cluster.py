"""The command's connection to a Dask cluster (``--scheduler ADDRESS|local``): ``Connection``
opens a client of a scheduler (starting a local cluster first, for ``local``) and closes
everything it opened, once, from any thread: the command's main thread closes it on Ctrl-C or
SIGTERM while another thread is still using the client (``sessiontools._cli.signals.stoppable``).

- ``local``: the cluster runs in a process of its own (``sessiontools._dask.local``), in a
  session of its own, so that a Ctrl-C at the terminal reaches the command only; its scratch
  space is a temporary directory that is removed on every way out (the command done, failed,
  interrupted or terminated; the command killed: that process removes it).
- An address: a scheduler that refuses the connection, or a host name that does not resolve,
  fails at once; one that accepts it is waited for ``connect_seconds()`` (Dask's
  ``distributed.comm.timeouts.connect``, 30 s unless set, e.g. with
  ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=60s``).
- Closing: distributed's and asyncio's log lines are silenced first (a client closed under a
  running computation has much to say), then the client is closed, then the local cluster's
  process is told to stop, and killed, its workers with it, if it does not within a few
  seconds; then the scratch space is removed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["Connection", "SchedulerError", "connect_seconds"]


class SchedulerError(Exception):
    """The scheduler cannot be reached or used (``Connection.open``); ``usage``: the address
    itself is wrong (not one Dask can read), rather than a cluster that does not answer;
    ``setting``: with ``usage``, what is wrong is Dask's setting of how long to wait, not the
    address."""

    def __init__(self, message: str, *, usage: bool = False, setting: bool = False) -> None:
        super().__init__(message)
        self.usage = usage
        self.setting = setting


#: How long a local cluster may take to start (its workers up) before the command gives up.
LOCAL_START_SECONDS = 120.0
#: How long closing waits for the local cluster's process to stop before killing it.
CLOSE_SECONDS = 5.0


def connect_seconds() -> float:
    """How long a scheduler that accepted the connection is waited for: Dask's own setting,
    ``distributed.comm.timeouts.connect`` (30 s unless set); raises ``SchedulerError``
    (``usage``, ``setting``) when it is not a duration of more than 0 s."""
    import dask
    import distributed  # noqa: F401  # its settings load with it
    from dask.utils import parse_timedelta

    given = dask.config.get("distributed.comm.timeouts.connect", None)
    if given is None:
        return 30.0
    try:
        value = parse_timedelta(given, "s")
    except (KeyError, ValueError, TypeError, OverflowError):
        value = None
    if value is None or not 0 < float(value) < float("inf"):
        shown = " ".join(repr(given).split())[:80]
        raise SchedulerError(
            f"Dask's distributed.comm.timeouts.connect (DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT) "
            f"is {shown}: give how long to wait for a scheduler, more than 0 (30s, 2m)",
            usage=True,
            setting=True,
        )
    return float(value)


def _hide_password(text: str, address: str) -> str:
    """``text`` with the password ``address`` holds (``tcp://user:secret@host``) as ``***``."""
    location = address.partition("://")[2] if "://" in address else address
    password = location.rpartition("@")[0].partition(":")[2]
    return text.replace(f":{password}@", ":***@") if password else text


def quiet(level: int = logging.CRITICAL) -> None:
    """distributed's own log lines (a worker starting, a connection retried) are not the
    command's output: only its errors are said, by the command. While it stops, nothing
    (``logging.CRITICAL + 1``), asyncio's "Task exception was never retrieved" too."""
    for name in ("distributed", "distributed.client", "distributed.scheduler", "tornado"):
        logging.getLogger(name).setLevel(level)
    if level > logging.CRITICAL:
        logging.getLogger("asyncio").setLevel(level)


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text[:300]


class Connection:
    """A client of the scheduler at ``address`` (``tcp://host:8786``, ``host:8786``), or of a
    local cluster started for ``local``; ``open`` it, ``close`` it (once; from any thread)."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.client: Client | None = None
        self._helper: subprocess.Popen[bytes] | None = None
        self._scratch: str | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._started = False  # the local cluster said its address: it is up

    def open(self) -> Client:
        """The client; raises ``SchedulerError`` (the address is not one Dask reads:
        ``usage``; no scheduler answers; a local cluster that cannot start; closed meanwhile)."""
        quiet()
        connect_seconds()  # Dask's wait, checked before anything starts
        if self.address == "local":
            address = self._start_local()
            client = self._client(address, connect_seconds(), local=True)
        else:
            address = self._check(self.address)
            client = self._client(address, connect_seconds(), local=False)
        with self._lock:
            if not self._closed:
                self.client = client
                return client
        # closed while it connected (Ctrl-C): this thread closes what it got
        _close_client(client, CLOSE_SECONDS)
        raise SchedulerError("closed while connecting")

    def _check(self, address: str) -> str:
        """``address`` if Dask can read it and something listens there (refused at once)."""
        try:
            from distributed.comm.addressing import parse_address, parse_host_port
            from distributed.comm.registry import get_backend

            scheme, location = parse_address(address)
            if scheme == "inproc":  # a scheduler in this process only
                raise ValueError(f"{scheme}:// does not reach a scheduler from another process")
            if scheme not in _TCP:  # ucx:// and others: not in every install
                try:
                    get_backend(scheme).get_connector()  # an unknown protocol raises
                except (ImportError, TypeError, AttributeError, NotImplementedError) as e:
                    raise ValueError(f"{scheme}:// cannot be used here: {_one_line(e)}") from None
            import urllib.parse

            urllib.parse.urlsplit("//" + location).port  # noqa: B018  # a port out of range raises
            host, port = parse_host_port(location) if scheme in _TCP else (None, None)
            if host:
                host.encode("idna")  # an empty or too long label raises (UnicodeError)
        except ValueError as e:  # an unknown protocol, a bad port, a bad host name
            raise SchedulerError(
                _hide_password(
                    f"{address!r} is not a scheduler address (tcp://HOST:PORT, HOST:PORT, "
                    f"local, or none): {_one_line(e)}",
                    address,
                ),
                usage=True,
            ) from None
        if host is not None and port is not None:
            seconds = connect_seconds()
            try:
                socket.create_connection((host, port), timeout=seconds).close()
            except (OSError, TimeoutError) as e:
                raise SchedulerError(
                    _hide_password(
                        f"no Dask scheduler answered at {address} ({_reason(e)}); "
                        "start one (dask scheduler) or check the address",
                        address,
                    )
                ) from None
        return address

    def _client(self, address: str, seconds: float, *, local: bool) -> Client:
        from distributed import Client

        # distributed waits for the scheduler's handshake without a bound (one that accepted
        # the connection and says nothing would be waited for forever): bounded here
        made: list[tuple[bool, Any]] = []

        def make() -> None:
            try:
                made.append((True, Client(address, timeout=seconds)))
            except BaseException as e:  # handed to the thread that waits
                made.append((False, e))

        maker = threading.Thread(target=make, name="sessiontools-connect", daemon=True)
        maker.start()
        maker.join(seconds + 1.0)
        try:
            if not made:
                raise TimeoutError("no answer")
            ok, got = made[0]
            if ok:
                return got  # type: ignore[no-any-return]
            raise got
        except (OSError, TimeoutError) as e:
            if local:
                raise SchedulerError(f"cannot start a local cluster: {_one_line(e)}") from None
            raise SchedulerError(
                _hide_password(
                    f"no Dask scheduler answered at {address} within {seconds:g} s "
                    f"({_one_line(e)}); start one (dask scheduler) or check the address "
                    "(the wait is Dask's distributed.comm.timeouts.connect)",
                    address,
                )
            ) from None

    def _start_local(self) -> str:
        """Start the local cluster's process; its scheduler's address."""
        from .._parallel.cut import available_cores

        with self._lock:
            if self._closed:
                raise SchedulerError("closed while connecting")
            self._scratch = tempfile.mkdtemp(prefix="sessiontools-dask-")
            log_path = os.path.join(self._scratch, "cluster-stderr.txt")
            env = dict(os.environ)
            here = str(Path(__file__).resolve().parent.parent.parent)  # sessiontools' parent
            env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
            with open(log_path, "wb") as log:
                self._helper = subprocess.Popen(
                    [sys.executable, "-m", "sessiontools._dask.local", self._scratch,
                     str(available_cores())],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=log,
                    env=env,
                    start_new_session=True,  # a Ctrl-C at the terminal does not reach it
                    close_fds=True,
                )  # fmt: skip
            helper = self._helper
        assert helper.stdout is not None
        line = _read_line(helper.stdout, LOCAL_START_SECONDS)
        if not line.strip():
            reason = _last_line(log_path) or (
                f"no scheduler within {LOCAL_START_SECONDS:g} s"
                if helper.poll() is None
                else f"its process exited with status {helper.returncode}"
            )
            raise SchedulerError(f"cannot start a local cluster: {reason}")
        self._started = True
        return line.decode().strip()

    def stop(self) -> None:
        """``close``, for Ctrl-C and SIGTERM: the local cluster is killed at once, not asked
        (also when another thread is closing it already, waiting for it)."""
        with self._lock:
            helper = self._helper if self._closed else None
        if helper is not None:
            _kill(helper)
        self.close(wait=False)

    def close(self, *, wait: bool = True) -> None:
        """Close what was opened (the client, the local cluster, its scratch space), once;
        from any thread, also while ``open`` runs in another. ``wait``: the local cluster
        is asked to close and waited for a little; else (and while it starts) killed."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            client, helper, scratch = self.client, self._helper, self._scratch
        quiet(logging.CRITICAL + 1)  # a client closed under a computation has much to say
        if client is not None:
            _close_client(client, CLOSE_SECONDS if wait else 1.0)
        if helper is not None:
            # a cluster still starting does not read its stdin: it is killed at once
            _stop_helper(helper, CLOSE_SECONDS if self._started and wait else 0.0)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


_TCP = ("tcp", "tls", "ws", "wss")


def _reason(error: BaseException) -> str:
    if isinstance(error, socket.gaierror):
        return f"cannot resolve the host: {error.strerror or error}"
    if isinstance(error, (TimeoutError, socket.timeout)):
        return "no answer"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return _one_line(error)


def _close_client(client: Client, seconds: float) -> None:
    with contextlib.suppress(BaseException):  # a client whose scheduler is gone
        client.close(timeout=seconds)


def _stop_helper(helper: subprocess.Popen[bytes], seconds: float) -> None:
    """Tell the local cluster's process to stop (its stdin closed), wait ``seconds``, kill its
    session (the cluster's processes with it) if it has not stopped. Its stdout is left open:
    another thread may be reading it (it ends when the process does)."""
    try:
        if helper.stdin is not None:
            helper.stdin.close()
    except OSError:
        pass
    if seconds > 0:
        with contextlib.suppress(subprocess.TimeoutExpired):
            helper.wait(seconds)
    _kill(helper)
    with contextlib.suppress(subprocess.TimeoutExpired):
        helper.wait(CLOSE_SECONDS)


def _kill(helper: subprocess.Popen[bytes]) -> None:
    """Kill the local cluster's process and whatever is left of its session (it is the
    leader): workers not stopped yet."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(helper.pid, signal.SIGKILL)


def _read_line(stream: IO[bytes], seconds: float) -> bytes:
    """A line from ``stream`` (a pipe), or what came before ``seconds`` passed or it closed."""
    import selectors

    got = b""
    deadline = time.monotonic() + seconds
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        while b"\n" not in got:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                break
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                break
            got += chunk
    return got


def _last_line(path: str) -> str:
    try:
        with open(path, "rb") as f:
            lines = [line for line in f.read().decode(errors="replace").splitlines() if line]
    except OSError:
        return ""
    return " ".join(lines[-1].split())[:300] if lines else ""
