"""Sending from a Dask cluster's workers (issue 16, item 3): ``sessiontools otel LOG...
--scheduler ADDRESS --endpoint URL`` on a ``LocalCluster`` of two worker processes on 127.0.0.1,
to the real OTLP/HTTP receiver (tests/receiver.py): the same spans arrive as without
``--scheduler``, copies of a session in logs of different tasks once; with ``--state`` the
client alone keeps the state; a 503-ing endpoint, retried on the workers; a worker lost."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster

from sessiontools import FileStore, SessionBuilder, Usage
from sessiontools._cli.main import cli
from sessiontools._dask.send import send_on_cluster
from tests.dask.clusters import local_cluster, stop_resource_tracker
from tests.helpers import SESSIONS
from tests.receiver import Receiver
from tests.send.test_send import SAMPLES, _expected, _spans

pytestmark = pytest.mark.filterwarnings("ignore::sessiontools.SessionToolsWarning")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with local_cluster(tmp_path_factory.mktemp("dask-send")) as c:
        yield c
    stop_resource_tracker()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, str]:
    done = CliRunner().invoke(cli, list(args), env=env)
    return done.exit_code, done.stdout_bytes, done.stderr_bytes.decode()


def _logs(tmp_path: Path) -> Path:
    """The samples, a byte copy of 02 that sorts first (its name is the session's) and a copy
    of 02 taken halfway, which sorts last: with two sessions a task, the three are in three
    tasks' scans."""
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in SAMPLES:
        shutil.copy(SESSIONS / name, logs / name)
    original = (logs / SAMPLES[1]).read_bytes()
    (logs / "00_copy.jsonl").write_bytes(original)
    lines = original.splitlines(keepends=True)
    (logs / "50_prefix.jsonl").write_bytes(b"".join(lines[: len(lines) // 2]))
    return logs


def _want(logs: Path) -> list[bytes]:
    want = _expected(logs / "00_copy.jsonl", "00_copy")
    for name in SAMPLES:
        if name != SAMPLES[1]:
            want += _expected(logs / name, name.removesuffix(".jsonl"))
    return sorted(want)


def _summary(stderr: str) -> str:
    """The summary line without what depends on how requests were cut."""
    line = stderr.strip().splitlines()[-1]
    head, _, rest = line.partition(" sent in ")
    return head + " " + rest.partition("); ")[2]


def test_the_same_spans_arrive_as_without_scheduler_copies_once(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    logs = _logs(tmp_path)
    with Receiver() as here, Receiver() as there:
        code, out, said = _run("otel", str(logs), "--endpoint", here.endpoint)
        assert code == 0, said
        code2, out2, said2 = _run(
            "otel",
            str(logs),
            "--endpoint",
            there.endpoint,
            "--scheduler",
            cluster.scheduler_address,
        )
        assert code2 == 0, said2
        got_here, got_there = sorted(_spans(here.requests())), sorted(_spans(there.requests()))
    assert got_there == got_here == _want(logs)
    assert len(got_there) == len(set(got_there))  # nothing twice
    assert out2 == out == b""
    assert _summary(said2) == _summary(said)
    assert "5 sessions read (2 copies, 0 unchanged)" in said2


def test_with_state_the_client_records_and_workers_never_open_it(
    cluster: LocalCluster, tmp_path: Path
) -> None:
    """Three passes, here and on the cluster, each with its own state: all, nothing (every log
    unchanged), then only the run appended since. The workers never open the state file (an
    audit hook in each worker process watches every open and SQLite connection)."""
    logs = _logs(tmp_path)
    grows = logs / "60_grows.jsonl"
    _build(grows, 2)

    def watch(path: str) -> None:
        import sys

        seen: list[str] = []
        sys.modules["__main__"].__dict__["_state_opened"] = seen

        def hook(event: str, args: tuple[Any, ...]) -> None:
            if event in ("open", "sqlite3.connect") and args and path in str(args[0]):
                seen.append(f"{event} {args[0]}")

        sys.addaudithook(hook)

    def opened() -> dict[str, list[str]]:
        return cluster_client.run(  # type: ignore[no-any-return]
            lambda: list(sys.modules["__main__"].__dict__.get("_state_opened", []))
        )

    here_state, there_state = tmp_path / "here.db", tmp_path / "there.db"
    with Client(cluster) as cluster_client, Receiver() as here, Receiver() as there:
        cluster_client.run(watch, str(there_state))
        arrived: list[tuple[list[bytes], list[bytes]]] = []
        for step in range(3):
            if step == 2:
                _build(grows, 3)  # a third run appended
            before = (len(here.requests()), len(there.requests()))
            if True:
                code, _, said = _run(
                    "otel", str(logs), "--endpoint", here.endpoint, "--state", str(here_state)
                )
                assert code == 0, said
                code, _, said2 = _run(
                    "otel",
                    str(logs),
                    "--endpoint",
                    there.endpoint,
                    "--state",
                    str(there_state),
                    "--scheduler",
                    cluster.scheduler_address,
                )
                assert code == 0, said2
                assert _summary(said2) == _summary(said)
                arrived.append(
                    (
                        sorted(_spans(here.requests()[before[0] :])),
                        sorted(_spans(there.requests()[before[1] :])),
                    )
                )
        assert all(opened_list == [] for opened_list in opened().values())
    first, second, third = arrived
    assert first[1] == first[0] and len(first[1]) > 0
    assert second == ([], [])
    assert third[1] == third[0] and len(third[1]) > 0
    # the third pass sent the new run only: its spans were not in the first
    assert not set(third[1]) & set(first[1])


def _build(path: Path, runs: int) -> None:
    if path.exists():
        path.unlink()
    with FileStore(path) as store:
        b = SessionBuilder("2026-10-18T09:30:00+02:00", seed=path.name, store=store)
        for i in range(runs):
            b.run(f"task {i}")
            b.anthropic("claude-sonnet-4-5", text="done", usage=Usage(100 + i, 10))
            b.run_ended()


def test_503_is_retried_on_the_workers(
    cluster: LocalCluster, receiver: Receiver, tmp_path: Path
) -> None:
    logs = _logs(tmp_path)
    receiver.fail(503, b"busy", Retry_After="0")
    receiver.fail(503, b"busy", Retry_After="0")
    code, _, said = _run(
        "otel", str(logs), "--endpoint", receiver.endpoint, "--scheduler", cluster.scheduler_address
    )
    assert code == 0, said
    assert "; 2 retries, 0 failed requests" in said
    assert sorted(_spans(receiver.requests())) == _want(logs)
    assert [r.answered for r in receiver.received].count("status 503") == 2


def test_an_endpoint_that_keeps_failing_is_one_line_a_request_and_exit_1(
    cluster: LocalCluster, receiver: Receiver, tmp_path: Path
) -> None:
    """Every request is answered 503 with a Retry-After beyond the retry budget: each fails at
    once, one line each; a rerun with the state, the endpoint back, sends everything."""
    logs = _logs(tmp_path)
    for _ in range(20):
        receiver.fail(503, b"down for maintenance", Retry_After="1000")
    state = tmp_path / "sent.db"
    args = ["otel", str(logs), "--endpoint", receiver.endpoint, "--state", str(state)]
    code, out, said = _run(*args, "--scheduler", cluster.scheduler_address)
    assert code == 1 and out == b""
    lines = said.strip().splitlines()
    errors = [line for line in lines if line.startswith("sessiontools otel: error: ")]
    assert errors and len(errors) == len(lines) - 1  # and the summary
    assert all("HTTP 503: down for maintenance" in e or "not sent" in e for e in errors)
    assert "Traceback" not in said
    assert receiver.requests() == []
    receiver._faults.clear()
    code, _, said = _run(*args, "--scheduler", cluster.scheduler_address)
    assert code == 0, said
    assert sorted(_spans(receiver.requests())) == _want(logs)


def test_a_dispatch_stops_once_the_endpoint_failed(
    cluster: LocalCluster, receiver: Receiver, tmp_path: Path
) -> None:
    """One session a task, 6 tasks, 4 at a time: the endpoint fails the first requests; the
    tasks not started are not sent, one line names their sessions."""
    logs = _logs(tmp_path)
    receiver.delay = 0.3
    for _ in range(20):
        receiver.fail(503, b"down", Retry_After="1000")
    with Client(cluster) as client:
        report = send_on_cluster(
            [str(logs)],
            connect=lambda: (client, lambda: None),
            endpoint=receiver.endpoint,
            env={},
            sessions_per_task=1,
        )
    assert not report.ok
    not_sent = [f for f in report.failures if f.startswith("not sent (the endpoint failed")]
    assert len(not_sent) == 1 and "HTTP 503: down" in not_sent[0]
    assert len(receiver.received) < 6


@pytest.mark.parametrize("allowed_failures", [3, 0])
def test_a_worker_lost_while_sending(
    cluster: LocalCluster, tmp_path: Path, receiver: Receiver, allowed_failures: int
) -> None:
    """A worker process killed (SIGKILL) while its task posts: with the scheduler's default
    allowance the task runs again on another worker and every span arrives (some twice, with
    the same ids); with none, its sessions are one failure line and the others are sent."""
    logs = _logs(tmp_path)
    receiver.delay = 0.5
    killed: list[int] = []
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    with (
        local_cluster(scratch, **{"distributed.scheduler.allowed-failures": allowed_failures}) as c,
        Client(c) as client,
    ):
        pids = client.run(os.getpid)

        def kill() -> None:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not killed:
                for worker, keys in client.processing().items():
                    if any("sessiontools-send" in str(k) for k in keys):
                        time.sleep(0.2)
                        os.kill(pids[worker], signal.SIGKILL)
                        killed.append(pids[worker])
                        return
                time.sleep(0.05)

        killer = threading.Thread(target=kill)
        killer.start()
        report = send_on_cluster(
            [str(logs)],
            connect=lambda: (client, lambda: None),
            endpoint=receiver.endpoint,
            env={},
            sessions_per_task=1,
        )
        killer.join()
    # (multiprocessing's resource tracker is stopped once, when the module's cluster is closed:
    # stopping it while that cluster runs would wait for it)
    assert killed
    got = _spans(receiver.requests())
    if allowed_failures:
        assert report.ok, report.failures
        assert sorted(set(got)) == _want(logs)
    else:
        # the tasks the lost worker held (running, or queued there): one line each
        assert 1 <= len(report.failures) <= 3
        for failure in report.failures:
            assert failure.startswith("the cluster failed while sending: KilledWorker: ")
            assert "sessions: " in failure and "\n" not in failure
        assert set(got) < set(_want(logs)) and got


def test_scheduler_needs_sending_and_not_follow(cluster: LocalCluster, tmp_path: Path) -> None:
    log = str(SESSIONS / SAMPLES[0])
    code, out, said = _run("otel", log, "--scheduler", cluster.scheduler_address)
    assert (
        code == 2
        and "--scheduler sends from a cluster's workers: give --send or --endpoint" in said
    )
    code, _, said = _run(
        "otel",
        log,
        "--endpoint",
        "http://127.0.0.1:9/v1/traces",
        "--follow",
        "--scheduler",
        cluster.scheduler_address,
    )
    assert code == 2 and "--follow runs here: leave out --scheduler" in said
    code, _, said = _run(
        "otel", log, "--endpoint", "http://127.0.0.1:9/v1/traces", "--scheduler", "foo://x:1"
    )
    assert code == 2 and "is not a scheduler address" in said and "Traceback" not in said
    # the environment's scheduler is for sending: a plain export is the export, here
    code, out, said = _run("otel", log, env={"DASK_SCHEDULER_ADDRESS": "foo://x:1"})
    assert code == 0 and out == _run("otel", log)[1] and said == ""


def test_scheduler_none_sends_from_here_whatever_the_environment_says(tmp_path: Path) -> None:
    env = {"DASK_SCHEDULER_ADDRESS": "tcp://127.0.0.1:1"}
    with Receiver() as here, Receiver() as there:
        code, _, said = _run("otel", str(SESSIONS / SAMPLES[1]), "--endpoint", here.endpoint)
        code2, _, said2 = _run(
            "otel",
            str(SESSIONS / SAMPLES[1]),
            "--endpoint",
            there.endpoint,
            "--scheduler",
            "none",
            env=env,
        )
        assert (code, code2) == (0, 0), said2
        assert sorted(_spans(there.requests())) == sorted(_spans(here.requests()))
    assert _summary(said2) == _summary(said)
