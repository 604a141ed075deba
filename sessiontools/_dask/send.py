"""Sending many sessions from a Dask cluster's workers: ``sessiontools otel LOG... --scheduler
ADDRESS --endpoint URL`` (README, "Many machines"; docs/traces.md, "Sending from a cluster").

The client plans as ``send_otlp`` plans one pass (``_send.send._Pass.plan``), the workers do the
reading and the posting:

1. the logs (``session_logs``), made absolute: the workers must see the same paths (a shared
   file system);
2. with a state file (opened on the client only), a log unchanged since it was read is not
   opened;
3. what each changed log holds (its runs' identities) is scanned on the workers (tasks of many
   logs), and the client groups them (``group_sessions``): copies of a session, in any logs,
   are sent once, from one log, under one conversation id, exactly as without a cluster;
4. the sessions to send are cut into tasks; each task is told, with its logs, what the state
   holds of their runs (``SendState.known_rows``) and where each log's last read stopped, and
   sends its sessions with the sending code (``_Sender.send``: batches, the HTTP sender and its
   retries, into a state in memory); it returns its report and what it recorded;
5. as each task completes, the client records what it acknowledged in the state (one
   transaction) and its report joins the command's, in the tasks' order.

A task whose request fails for the endpoint's sake (no answer, or 429/502/503/504 after its
retries) stops the dispatch: the tasks not started yet are not sent, and one line names their
sessions. A task the cluster loses (``KilledWorker``, a worker lost more often than the
scheduler allows) is one failure line naming its sessions; the others are still sent.
"""

from __future__ import annotations

import asyncio
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._errors import SessionToolsWarning
from .._log.reader import MAX_LINE_BYTES, printable
from .._otel.ids import check_parents
from .._send.config import SendConfig, resolve_config
from .._send.send import (
    SendReport,
    _Options,
    _Pass,
    _Read,
    _scan,
    _Sender,
    _Signals,
)
from .._send.sessions import LogRuns, SessionLog, session_logs
from .._send.state import LogState, SendState

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["SESSIONS_PER_TASK", "TASK_BYTES", "send_on_cluster"]

#: At most this many sessions a task (fewer when there are few: two tasks a worker thread).
SESSIONS_PER_TASK = 256
#: A task stops taking sessions once its logs hold this many bytes.
TASK_BYTES = 64 * 1024 * 1024

_REPORT_COUNTS = (
    "sessions",
    "runs",
    "spans",
    "bytes",
    "requests",
    "retries",
    "held_back",
    "rejected_spans",
)


def _scan_logs(logs: list[SessionLog], max_line_bytes: int | None) -> list[LogRuns | None]:
    """On a worker: what each log holds (``_scan``)."""
    return [_scan(log, max_line_bytes) for log in logs]


class _Recording(SendState):
    """A task's state, in memory: told what was sent, it keeps what the task records."""

    def __init__(self, endpoint_key: str) -> None:
        super().__init__(":memory:", endpoint_key)
        self.records: list[tuple[list[Any], list[Any], list[Any]]] = []

    def commit_many(self, transactions: Any) -> None:
        done = [(list(r), list(g), list(p)) for r, g, p in transactions]
        super().commit_many(done)
        self.records.extend(done)


Told = tuple[
    list[tuple[SessionLog, str, os.stat_result | None]],
    list[tuple[Any, ...]],
    list[tuple[Any, ...]],
    list[tuple[str, LogState]],
]


def _send_task(
    told: Told,
    config: SendConfig,
    options: _Options,
    endpoint_key: str | None,
    retry: Mapping[str, Any],
) -> tuple[SendReport, list[tuple[list[Any], list[Any], list[Any]]], str | None]:
    """On a worker: send a task's sessions (``told``: the logs with their conversation ids and
    what they were when planned, and what the state holds of them). Returns the report, what
    the task recorded (``SendState.commit_many`` takes it), and why the endpoint failed, if it
    did. The state file is never opened here."""
    reads, runs, parts, logs = told
    state = _Recording(endpoint_key) if endpoint_key is not None else None
    report = SendReport()
    try:
        if state is not None:
            state.load(runs, parts, logs)
        sender = _Sender([], None, config, options, state, report, None, _Signals(False), retry)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", SessionToolsWarning)
                work = _Pass([log for log, _, _ in reads], options, state, report)
                sender.send(work, [_Read(log, cid, st) for log, cid, st in reads])
            report.warnings.extend(str(w.message) for w in caught)
        finally:
            sender.close()
    finally:
        if state is not None:
            state.close()
    return report, (state.records if state is not None else []), sender.gave_up


def _chunks(items: Sequence[Any], sizes: Sequence[int], per: int) -> list[list[Any]]:
    out: list[list[Any]] = []
    used = 0
    for item, size in zip(items, sizes, strict=True):
        if not out or len(out[-1]) >= per or used >= TASK_BYTES:
            out.append([])
            used = 0
        out[-1].append(item)
        used += size
    return out


def _size(log: SessionLog) -> int:
    try:
        return os.stat(log.path).st_size if log.path is not None else 0
    except OSError:
        return 0


def _merge(into: SendReport, part: SendReport) -> None:
    for name in _REPORT_COUNTS:
        setattr(into, name, getattr(into, name) + getattr(part, name))
    into.failures.extend(part.failures)
    into.damaged.extend(part.damaged)
    into.warnings.extend(part.warnings)


class ClusterError(Exception):
    """The cluster failed outside a task's sessions (while scanning, or the client lost)."""


def send_on_cluster(
    logs: Sequence[str | os.PathLike[str]],
    *,
    connect: Callable[[], tuple[Client, Callable[[], None]]],
    endpoint: str | None = None,
    headers: Sequence[str] | Mapping[str, str] = (),
    protocol: str | None = None,
    compression: str | None = None,
    timeout: float | None = None,
    max_request_bytes: int | None = None,
    state: str | os.PathLike[str] | None = None,
    conversation_id: str | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    service_name: str = "agentloop",
    agent_name: str | None = None,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    env: Mapping[str, str] | None = None,
    progress: Callable[[SendReport], object] | None = None,
    retry: Mapping[str, Any] | None = None,
    sessions_per_task: int | None = None,
) -> SendReport:
    """``send_otlp`` (the same arguments, without ``follow`` and ``hold_signals``) with the
    reading and sending done by a Dask cluster's workers (module docstring). ``connect``
    gives the client and what closes it; it is called once the settings and logs are found
    good. ``sessions_per_task``: default, two tasks a worker thread, at most
    ``SESSIONS_PER_TASK``.

    Raises:
        ValueError, FileNotFoundError, StateError: as ``send_otlp``, before connecting.
        ClusterError: the cluster failed while scanning the logs.
        SchedulerError: ``connect``'s.
    """
    paths = [os.fspath(p) for p in logs]
    config = resolve_config(
        endpoint=endpoint,
        headers=headers,
        protocol=protocol,
        compression=compression,
        timeout_seconds=timeout,
        max_request_bytes=max_request_bytes,
        env=env,
    )
    trace_id, span_id = check_parents(parent_trace_id, parent_span_id)
    options = _Options(trace_id, span_id, service_name, agent_name, error_messages, max_line_bytes)
    found = [
        SessionLog(
            Path(os.path.abspath(log.path)) if log.path is not None else None,
            log.name,
            log.conversation_id,
            log.relative,
        )
        for log in session_logs(paths, conversation_id)
    ]
    if sessions_per_task is not None and (
        sessions_per_task.__class__ is not int or sessions_per_task < 1
    ):
        raise ValueError(f"sessions_per_task must be a positive integer, not {sessions_per_task!r}")
    key = options.key(config)
    keep = SendState(os.fspath(state), key) if state is not None else None
    report = SendReport()
    try:
        client, close = connect()
        try:
            _Dispatch(client, config, options, keep, key, report, progress, retry or {}).run(
                found, sessions_per_task
            )
        except ClusterError:
            raise
        except (Exception, asyncio.CancelledError) as e:  # distributed's: the scheduler lost
            raise ClusterError(f"the cluster failed while sending: {_one_line(e)}") from None
        finally:
            close()
    finally:
        if keep is not None:
            keep.close()
    return report


class _Dispatch:
    def __init__(
        self,
        client: Client,
        config: SendConfig,
        options: _Options,
        state: SendState | None,
        key: str,
        report: SendReport,
        progress: Callable[[SendReport], object] | None,
        retry: Mapping[str, Any],
    ) -> None:
        self.client = client
        self.config = config
        self.options = options
        self.state = state
        self.key = key
        self.report = report
        self.progress = progress
        self.retry = retry
        self.threads: int = max(1, int(sum(client.nthreads().values())))

    def _per(self, n: int, given: int | None) -> int:
        if given is not None:
            return given
        return max(1, min(SESSIONS_PER_TASK, math.ceil(n / (2 * self.threads))))

    def scan(self, logs: list[SessionLog]) -> list[LogRuns | None]:
        chunks = _chunks(logs, [_size(log) for log in logs], self._per(len(logs), None))
        try:
            futures = self.client.map(
                _scan_logs,
                chunks,
                max_line_bytes=self.options.max_line_bytes,
                pure=False,
                key=[f"sessiontools-scan-{os.getpid()}-{id(self)}-{i}" for i in range(len(chunks))],
            )
            found = self.client.gather(futures)
        except (Exception, asyncio.CancelledError) as e:  # KilledWorker, CommClosedError...
            raise ClusterError(
                f"the cluster failed while reading what the logs hold: {_one_line(e)}"
            ) from None
        return [runs for chunk in found for runs in chunk]

    def told(self, reads: list[_Read]) -> Told:
        given = [(read.log, read.conversation_id, read.st) for read in reads]
        runs: list[tuple[Any, ...]] = []
        parts: list[tuple[Any, ...]] = []
        logs: list[tuple[str, LogState]] = []
        if self.state is not None:
            starts = [i.start for read in reads if read.runs for i in read.runs.identities]
            runs, parts = self.state.known_rows(starts)
            for read in reads:
                assert read.log.path is not None
                path = os.path.abspath(read.log.path)
                known = self.state.log(path)
                if known is not None:
                    logs.append((path, known))
        return given, runs, parts, logs

    def run(self, logs: list[SessionLog], sessions_per_task: int | None) -> None:
        from distributed import as_completed

        work = _Pass(logs, self.options, self.state, self.report)
        reads = work.plan(scan=self.scan)
        if self.progress is not None:
            self.progress(self.report)
        if not reads:
            return
        per = self._per(len(reads), sessions_per_task)
        tasks: list[list[_Read]] = _chunks(
            reads, [read.st.st_size if read.st is not None else 0 for read in reads], per
        )
        index: dict[Any, int] = {}
        results: dict[int, SendReport] = {}
        merged = 0
        submitted = 0
        stopped: str | None = None
        done = as_completed()
        tag = f"{os.getpid()}-{id(self)}"

        def submit() -> None:
            nonlocal submitted
            i = submitted
            future = self.client.submit(
                _send_task,
                self.told(tasks[i]),
                self.config,
                self.options,
                self.key if self.state is not None else None,
                self.retry,
                pure=False,
                key=f"sessiontools-send-{tag}-{i}",
            )
            index[future.key] = i
            done.add(future)
            submitted += 1

        while submitted < len(tasks) and submitted < 2 * self.threads:
            submit()
        for future in done:
            i = index.pop(future.key)
            part = SendReport()
            try:
                got, records, gave_up = future.result()
            except (Exception, asyncio.CancelledError) as e:  # KilledWorker, cancelled...
                part.failures.append(
                    f"the cluster failed while sending: {_one_line(e)}; sessions: "
                    f"{_sessions_named_reads(tasks[i])}"
                )
            else:
                if self.state is not None and records:
                    self.state.commit_many(records)
                part = got
                if gave_up is not None and stopped is None:
                    stopped = gave_up
            future.release()
            results[i] = part
            while merged in results:
                _merge(self.report, results.pop(merged))
                merged += 1
                if self.progress is not None:
                    self.progress(self.report)
            if stopped is None and submitted < len(tasks):
                submit()
        if submitted < len(tasks):
            left = [read for task in tasks[submitted:] for read in task]
            self.report.failures.append(
                f"not sent (the endpoint failed before: {stopped}); sessions: "
                f"{_sessions_named_reads(left)}"
            )
            if self.progress is not None:
                self.progress(self.report)


def _one_line(error: BaseException) -> str:
    """An error of the cluster's, one line: its kind and what it says (cut to 300)."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}" if text else type(error).__name__


def _sessions_named_reads(reads: list[_Read]) -> str:
    """The sessions of ``reads`` named as a failed request names them (three, and a count)."""
    names = sorted({read.log.name for read in reads})
    shown = ", ".join(printable(n) for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")
