"""Many sessions out: sent to an OTLP/HTTP endpoint (``send_otlp``), or exported to files
(``export_sessions``).

A pass goes:

1. the logs (``sessions.session_logs``), each with its conversation id;
2. with a state file (``state.SendState``), a log unchanged since it was read (size, inode,
   time) is not opened, and one appended to is read from where the last read stopped;
3. with several logs, what each holds (its runs' identities) tells copies apart
   (``sessions.group_sessions``): a session is sent once, from the log that holds it furthest,
   under the conversation id of its first log in sorted order, or the id its runs were sent
   under before (so no span is ever sent under two ids);
4. runs become spans (``trace_spans``), packed into requests under ``max_request_bytes``
   (``batches.requests``, across sessions), posted (``http.OtlpHttpSender``); each acknowledged
   request is recorded in the state at once (one transaction).

Which runs are sent: not one the state holds as acknowledged, as far. The last run of a log,
with no ``run_ended``, is still open when the log's writer lock is held (the session library's
``FileStore``, seen in ``/proc/locks``): it is held back until it ends. Without a held lock it
crashed, and is sent as such; if it goes on later (agentloop's own writer may not take the
lock), it is sent again, with the same ids and what it holds then.

A damaged log is reported, and its runs before the damage are sent. A request that fails after
its retries is reported with its sessions; the rest are still sent, and the next pass sends the
failed runs again (their logs' state is not moved on).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from .._errors import LogError, SendError, SessionToolsWarning
from .._log.entries import RunStartedEntry
from .._log.reader import MAX_LINE_BYTES, LogReader, ReadPosition, printable
from .._log.warnings import Warnings
from .._model.fold import SessionFold
from .._model.identity import RunIdentity, run_identity
from .._model.runs import Run
from .._otel.export import export_otlp_json
from .._otel.ids import check_parents
from .._otel.spans import Span, trace_spans
from .._parallel.signals import SignalsHeld
from .._pieces import WRITE_BYTES
from .batches import encoding_for, requests
from .config import SendConfig, redact_url, resolve_config
from .http import RETRYABLE_STATUS, OtlpHttpSender
from .locks import LockTable, flock_table
from .sessions import (
    LogRuns,
    SessionGroup,
    SessionLog,
    group_sessions,
    output_path,
    session_logs,
)
from .state import CHECK_BYTES, LogState, SendState, check_digest

__all__ = ["FOLLOW_INTERVAL_SECONDS", "SendReport", "export_sessions", "send_otlp"]

#: How often ``follow`` looks at the logs again.
FOLLOW_INTERVAL_SECONDS = 0.25


@dataclass
class SendReport:
    """What a send (or a multi-session export) did.

    Attributes:
        sessions: sessions read and sent (copies and unchanged logs not counted).
        copies: logs that were copies of another log given (not sent).
        unchanged: logs not read again: unchanged since the state last saw them.
        (With ``follow``, these two are the last look's: each look finds them again.)
        runs: runs acknowledged; spans: their spans; bytes: bytes on the wire, every attempt.
        requests: requests acknowledged; retries: attempts beyond the first.
        held_back: open runs not sent (their writer holds the log's lock).
        rejected_spans: spans the endpoint said it rejected (``partial_success``).
        failures: one line per request that failed after its retries, naming its sessions.
        damaged: one line per log that could not be read (its runs before the damage are sent).
        warnings: one line per warning: a log's, or an endpoint's ``partial_success``.
    """

    sessions: int = 0
    copies: int = 0
    unchanged: int = 0
    runs: int = 0
    spans: int = 0
    bytes: int = 0
    requests: int = 0
    retries: int = 0
    held_back: int = 0
    rejected_spans: int = 0
    failures: list[str] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Nothing failed and no log was damaged."""
        return not self.failures and not self.damaged

    def summary(self) -> str:
        """One line: what was read and sent, and what went wrong."""
        return (
            f"{_n(self.sessions, 'session')} read ({_n(self.copies, 'copy', 'copies')}, "
            f"{self.unchanged} unchanged); {_n(self.runs, 'run')} and "
            f"{_n(self.spans, 'span')} sent in {_n(self.requests, 'request')} "
            f"({_n(self.bytes, 'byte')} on the wire); {_n(self.retries, 'retry', 'retries')}, "
            f"{_n(len(self.failures), 'failed request')}, "
            f"{_n(self.rejected_spans, 'rejected span')}, "
            f"{_n(len(self.damaged), 'damaged log')}, "
            f"{_n(self.held_back, 'open run')} held back"
        )


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


@dataclass(frozen=True)
class _Options:
    parent_trace_id: bytes | None
    parent_span_id: bytes | None
    service_name: str
    agent_name: str | None
    error_messages: bool
    max_line_bytes: int | None

    def key(self, config: SendConfig) -> str:
        """A digest of where and how spans go: a state kept for others is refused."""
        parts = [
            config.endpoint,
            config.protocol,
            (self.parent_trace_id or b"").hex(),
            (self.parent_span_id or b"").hex(),
            self.service_name,
            self.agent_name or "",
            str(self.error_messages),
        ]
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def spans(self, run: Run, conversation_id: str) -> list[Span]:
        return list(
            trace_spans(
                [run],
                conversation_id=conversation_id,
                parent_trace_id=self.parent_trace_id,
                parent_span_id=self.parent_span_id,
                agent_name=self.agent_name,
                error_messages=self.error_messages,
            )
        )


@dataclass
class _Read:
    """One log being read for sending."""

    log: SessionLog
    conversation_id: str
    st: os.stat_result | None
    # every run read: [start hex, first call hex or "", end seq], the log's order
    identities: list[list[Any]] = field(default_factory=list)
    # where to go on, and the session's state there: before each run read (by its start seq)
    boundaries: dict[int, tuple[ReadPosition, dict[str, Any]]] = field(default_factory=dict)
    end: tuple[ReadPosition, dict[str, Any]] | None = None  # after the last entry
    open_seq: int | None = None  # the start seq of a last run that is not over
    read_all: bool = False  # read to its end (or its damage)
    pending: int = 0  # its runs in requests not yet acknowledged
    failed: bool = False  # damaged, or a request with its runs failed
    runs: LogRuns | None = None  # what a scan found it holds, when it was scanned


@dataclass
class _RunKey:
    """A run in a request: what its acknowledgement settles."""

    read: _Read
    identity: RunIdentity
    end_seq: int
    ended: bool


def _log_runs(rows: list[list[Any]]) -> LogRuns:
    ids = tuple(RunIdentity(bytes.fromhex(s), bytes.fromhex(f) if f else None) for s, f, _ in rows)
    return LogRuns(ids, tuple(int(e) for _, _, e in rows))


def _scan(log: SessionLog, max_line_bytes: int | None) -> LogRuns | None:
    """What a log holds (its runs' identities and ends); ``None`` when it cannot be read at
    all (its read later says why). A damaged log holds the runs before the damage."""
    if log.path is None:
        return None
    ids: list[RunIdentity] = []
    ends: list[int] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SessionToolsWarning)  # they are said when it is read
        try:
            with LogReader(
                log.path, name=log.name, export=True, max_line_bytes=max_line_bytes
            ) as reader:
                fold = SessionFold(reader.name, warnings=reader.sink)
                for entry in reader:
                    run = fold.feed(entry)
                    if run is not None:
                        ids.append(run_identity(run))
                        ends.append(run.end_seq)
                run = fold.finish()
                if run is not None:
                    ids.append(run_identity(run))
                    ends.append(run.end_seq)
        except (LogError, OSError):
            if not ids:
                return None
    return LogRuns(tuple(ids), tuple(ends))


def _check(file: IO[bytes], offset: int) -> bytes:
    file.seek(max(0, offset - CHECK_BYTES))
    return check_digest(file.read(offset - max(0, offset - CHECK_BYTES)))


class _Pass:
    """One pass over the logs: what to read, and the runs to send from each."""

    def __init__(
        self,
        logs: Sequence[SessionLog],
        options: _Options,
        state: SendState | None,
        report: SendReport,
    ) -> None:
        self.logs = logs
        self.options = options
        self.state = state
        self.report = report
        self.locks: LockTable = flock_table()

    def known(self, log: SessionLog) -> LogState | None:
        if self.state is None or log.path is None:
            return None
        return self.state.log(os.path.abspath(log.path))

    def plan(
        self, scan: Callable[[list[SessionLog]], list[LogRuns | None]] | None = None
    ) -> list[_Read]:
        """The logs to read now, one per session (copies and unchanged logs left out).

        ``scan``: what tells what logs hold, many at once (a cluster's workers); by default
        each is scanned here, and only when several logs are given. Given, it scans a single
        changed log too when there is a state (its reads keep what they hold, ``_Read.runs``).
        """
        reads: list[_Read | None] = []
        held: list[LogRuns | None] = []
        to_scan: list[int] = []
        many = len(self.logs) > 1
        for log in self.logs:
            st = None
            if log.path is not None:
                with contextlib.suppress(OSError):
                    st = os.stat(log.path)
            known = self.known(log)
            if known is not None and st is not None and known.unchanged(st):
                reads.append(None)
                held.append(_log_runs(known.runs))
                self.report.unchanged += 1
                continue
            reads.append(_Read(log, log.conversation_id, st))
            held.append(None)
            if many or (scan is not None and self.state is not None):
                to_scan.append(len(held) - 1)
        if to_scan:
            if scan is None:
                found = [_scan(self.logs[k], self.options.max_line_bytes) for k in to_scan]
            else:
                found = scan([self.logs[k] for k in to_scan])
            for k, runs_held in zip(to_scan, found, strict=True):
                held[k] = runs_held
        if many:
            sessions = group_sessions(self.logs, held)
        else:
            sessions = [SessionGroup(self.logs[0].conversation_id, 0)]
        planned = []
        for session in sessions:
            for k in session.copies:
                self.report.copies += 1
                self._keep_copy(reads[k], held[k])
            read = reads[session.log]
            if read is None:
                continue
            cid = session.conversation_id
            read.runs = held[session.log]
            if self.state is not None:
                runs = held[session.log]
                before = None
                if runs is not None and many:
                    before = self.state.conversation_of(i.start for i in runs.identities)
                known = self.known(read.log)
                cid = before or (known.conversation_id if known is not None else cid)
            read.conversation_id = cid
            planned.append(read)
        return planned

    def _keep_copy(self, read: _Read | None, runs: LogRuns | None) -> None:
        """A copy is not read again until it changes: its state says what it holds."""
        if read is None or self.state is None or read.st is None or read.log.path is None:
            return
        rows = []
        if runs is not None:
            for identity, end in zip(runs.identities, runs.end_seqs, strict=True):
                rows.append([identity.start.hex(), (identity.first_call or b"").hex(), end])
        st = read.st
        self.state.commit(
            [],
            [
                (
                    os.path.abspath(read.log.path),
                    LogState(
                        st.st_dev,
                        st.st_ino,
                        st.st_size,
                        st.st_mtime_ns,
                        read.conversation_id,
                        rows,
                        None,
                    ),
                )
            ],
        )

    def runs(self, read: _Read) -> Iterator[tuple[_RunKey, Run]]:
        """The runs of a log, from where the last read stopped when the state says where and
        the file is the same file, grown; each with what its acknowledgement settles."""
        log = read.log
        known = self.known(log)
        start = ReadPosition()
        fold: SessionFold | None = None
        owned = log.path is not None
        file: IO[bytes] = open(log.path, "rb") if log.path is not None else sys.stdin.buffer  # noqa: SIM115
        try:
            if known is not None and known.resume is not None and read.st is not None:
                offset, line, snapshot, check = known.resume
                if (
                    (known.dev, known.ino) == (read.st.st_dev, read.st.st_ino)
                    and known.size <= read.st.st_size
                    and offset <= read.st.st_size
                    and _check(file, offset) == check
                ):
                    with contextlib.suppress(ValueError):
                        fold = SessionFold.restore(
                            log.name, snapshot, warnings=Warnings(log.name, record=True)
                        )
                        start = ReadPosition(offset, line)
                        read.identities = _before(known.runs, snapshot)
                file.seek(start.offset)
            reader = LogReader(
                file,
                name=log.name,
                export=True,
                max_line_bytes=self.options.max_line_bytes,
                start=start,
                # kept in the report (not given to `warnings.warn` as well)
                warnings=fold.sink if fold is not None else Warnings(log.name, record=True),
            )
            if fold is None:
                fold = SessionFold(reader.name, warnings=reader.sink)
            else:
                fold.sink.name = reader.name
            for entry in reader:
                if entry.payload.__class__ is RunStartedEntry:
                    crashed = fold.finish()
                    if crashed is not None:  # a run that crashed, followed by another
                        yield self._key(read, crashed), crashed
                    read.boundaries[entry.seq] = (reader.entry_position, fold.snapshot())
                run = fold.feed(entry)
                if run is not None:
                    yield self._key(read, run), run
            open_run = fold.finish()
            if open_run is not None:
                read.open_seq = open_run.start_seq
                yield self._key(read, open_run), open_run
            else:
                read.end = (reader.position, fold.snapshot())
            read.read_all = True
            self.report.warnings.extend(reader.warnings)
        finally:
            if owned:
                file.close()

    def _key(self, read: _Read, run: Run) -> _RunKey:
        identity = run_identity(run)
        read.identities.append(
            [identity.start.hex(), (identity.first_call or b"").hex(), run.end_seq]
        )
        return _RunKey(read, identity, run.end_seq, run.outcome is not None)

    def log_state(self, read: _Read) -> LogState | None:
        """What the state keeps of a log once every run sent from it is acknowledged: where
        the next read goes on (before its open run, else after its last entry)."""
        if read.st is None or read.log.path is None or read.failed or not read.read_all:
            return None
        resume = None
        if read.open_seq is not None:
            at = read.boundaries.get(read.open_seq)
            if at is not None:
                resume = at
        elif read.end is not None:
            resume = read.end
        kept = None
        if resume is not None:
            position, snapshot = resume
            with open(read.log.path, "rb") as f:
                kept = (position.offset, position.line, snapshot, _check(f, position.offset))
        st = read.st
        return LogState(
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
            read.conversation_id,
            read.identities,
            kept,
        )


def _before(rows: list[list[Any]], snapshot: dict[str, Any]) -> list[list[Any]]:
    """The runs a log's state holds from before where its read goes on (the first
    ``snapshot["runs"]`` of them)."""
    return list(rows[: int(snapshot.get("runs", 0))])


class _Signals:
    """Ctrl-C and SIGTERM wait while a request is in flight and its acknowledgement is
    recorded (in the main thread, when asked; ``SignalsHeld``): stopping leaves the state
    consistent, and at most that request is sent again. They come at once while a retry
    waits (``sleep``)."""

    def __init__(self, hold: bool) -> None:
        self._held = SignalsHeld() if hold else None

    def held(self) -> contextlib.AbstractContextManager[object]:
        return self._held if self._held is not None else contextlib.nullcontext()

    def sleep(self, seconds: float) -> None:
        if self._held is None:
            time.sleep(seconds)
        else:
            self._held.sleep(seconds)  # (outside the block, as time.sleep)


def _sessions_named(keys: Sequence[_RunKey]) -> str:
    names = sorted({key.read.log.name for key in keys})
    shown = ", ".join(printable(n) for n in names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


class _Sender:
    """One run of ``send_otlp``: passes over the logs, requests, the state."""

    def __init__(
        self,
        paths: Sequence[str],
        conversation_id: str | None,
        config: SendConfig,
        options: _Options,
        state: SendState | None,
        report: SendReport,
        progress: Callable[[SendReport], object] | None,
        signals: _Signals,
        retry: Mapping[str, Any],
        follow: bool = False,
    ) -> None:
        self.paths = paths
        self.follow = follow
        self.conversation_id = conversation_id
        self.config = config
        self.options = options
        self.state = state
        self.report = report
        self.progress = progress
        self.signals = signals
        self.encoding = encoding_for(config.protocol, options.service_name)
        self.settled: list[tuple[str, LogState]] = []  # logs to record with the next commit
        self.unreachable: str | None = None  # the endpoint gave no answer: nothing more is tried
        # a request that failed for the endpoint's sake (no answer, or 429/502/503/504 after
        # its retries): a cluster's client sends no more tasks
        self.gave_up: str | None = None
        # logs found damaged, as they were then: not read again until they change (--follow)
        self.damaged: dict[str, tuple[int, int, int]] = {}
        self.http = OtlpHttpSender(config, sleep=signals.sleep, **retry)

    def close(self) -> None:
        self.http.close()

    def one_pass(self, logs: list[SessionLog] | None = None) -> None:
        """Read the logs (``logs``: found already) and send what is new."""
        if logs is None:
            logs = session_logs(self.paths, self.conversation_id, allow_empty=self.follow)
        if not logs:
            return
        if self.follow:  # a look's own: not summed over the looks
            self.report.copies = self.report.unchanged = 0
        work = _Pass(logs, self.options, self.state, self.report)
        reads = [read for read in work.plan() if not self._still_damaged(read)]
        self.send(work, reads)

    def send(self, work: _Pass, reads: list[_Read]) -> None:
        """Send what is new of the logs planned (``_Pass.plan``), and record it."""
        for request in requests(
            self._runs(work, reads), self.encoding, self.config.max_request_bytes
        ):
            self._post(work, request.body, request.spans, list(request.runs), request.parts)
        for read in reads:  # logs whose runs were all sent (or none was to be)
            self._settle(work, read)
        self.flush()

    def _runs(self, work: _Pass, reads: list[_Read]) -> Iterator[tuple[_RunKey, list[Span]]]:
        for read in reads:
            self.report.sessions += 1
            try:
                for key, run in work.runs(read):
                    if self._skip(work, read, key, run):
                        continue
                    spans = self.options.spans(run, read.conversation_id)
                    if self.state is not None:  # a run larger than a request, partly sent
                        first_call = key.identity.first_call
                        done = self.state.sent_parts(key.identity.start, first_call, key.end_seq)
                        if done:
                            spans = [s for s in spans if s.span_id not in done]
                    read.pending += 1
                    yield key, spans
            except LogError as e:
                read.failed = True
                self._damaged(read, str(e))
            except OSError as e:
                read.failed = True
                self._damaged(read, f"{read.log.name}: cannot read: {e.strerror or e}")
            if read.pending == 0:
                self._settle(work, read)
            if self.progress is not None:
                self.progress(self.report)

    def _still_damaged(self, read: _Read) -> bool:
        """A log found damaged before and unchanged since (only ``--follow`` looks again)."""
        if read.st is None or read.log.path is None:
            return False
        seen = self.damaged.get(os.path.abspath(read.log.path))
        st = read.st
        return seen == (st.st_ino, st.st_size, st.st_mtime_ns)

    def _damaged(self, read: _Read, problem: str) -> None:
        self.report.damaged.append(problem)
        if read.st is not None and read.log.path is not None:
            st = read.st
            self.damaged[os.path.abspath(read.log.path)] = (st.st_ino, st.st_size, st.st_mtime_ns)

    def _skip(self, work: _Pass, read: _Read, key: _RunKey, run: Run) -> bool:
        """Whether a run is not to be sent: held back as open, or acknowledged as far."""
        if (
            run.outcome is None
            and run.start_seq == read.open_seq
            and read.st is not None
            and work.locks.held(read.st)
        ):
            self.report.held_back += 1
            return True
        if self.state is not None:
            sent = self.state.sent_run(key.identity.start, key.identity.first_call)
            if sent is not None:
                _, end_seq, ended = sent
                if end_seq >= key.end_seq and (ended or not key.ended):
                    return True
        return False

    def _post(
        self,
        work: _Pass,
        body: bytes,
        spans: int,
        keys: list[_RunKey],
        parts: tuple[tuple[Any, bytes], ...] = (),
    ) -> None:
        held = keys + [k for k, _ in parts]
        if self.unreachable is not None:
            self.report.failures.append(
                f"not sent (the endpoint was not reached before: {self.unreachable}); "
                f"sessions: {_sessions_named(held)}"
            )
            for key in held:
                key.read.failed = True
            for key in keys:
                key.read.pending -= 1
            return
        with self.signals.held():
            try:
                ack = self.http.post(body, retried=lambda why: self._retried())
            except SendError as e:
                if e.status is None and e.attempts > 1:
                    # no answer at all after retrying for the whole budget: the others would
                    # wait as long for nothing
                    self.unreachable = str(e)
                if self.gave_up is None and (e.status is None or e.status in RETRYABLE_STATUS):
                    self.gave_up = str(e)
                self.report.failures.append(f"{e}; sessions: {_sessions_named(held)}")
                for key in held:
                    key.read.failed = True
                for key in keys:
                    key.read.pending -= 1
                return
            self.report.requests += 1
            self.report.bytes += ack.sent_bytes
            self.report.spans += spans
            self.report.runs += len(keys)
            if ack.rejected_spans or ack.message:
                self.report.rejected_spans += ack.rejected_spans
                self.report.warnings.append(
                    f"{redact_url(self.config.endpoint)}: the endpoint rejected "
                    f"{ack.rejected_spans} spans: {ack.message or '(no message)'}"
                )
            settled = []
            for key in keys:
                key.read.pending -= 1
                if key.read.pending == 0 and key.read.read_all:
                    settled.append(key.read)
            if self.state is not None:
                runs = [
                    (
                        k.identity.start,
                        k.identity.first_call,
                        k.read.conversation_id,
                        k.end_seq,
                        k.ended,
                    )
                    for k in keys
                ]
                logs, self.settled = self.settled, []
                for read in settled:
                    state = work.log_state(read)
                    if state is not None and read.log.path is not None:
                        logs.append((os.path.abspath(read.log.path), state))
                done = [
                    (k.identity.start, k.identity.first_call, k.end_seq, span_id)
                    for k, span_id in parts
                ]
                self.state.commit(runs, logs, done)
        if self.progress is not None:
            self.progress(self.report)

    def _retried(self) -> None:
        """A request is sent again: counted now (``OtlpHttpSender.post`` says so once before
        each retry), so a summary said while it waits, when Ctrl-C stops the command,
        counts the retries made so far."""
        self.report.retries += 1
        if self.progress is not None:
            self.progress(self.report)

    def _settle(self, work: _Pass, read: _Read) -> None:
        """A log read to its end with nothing left in flight: the state moves on, with the
        next transaction (a log whose state is lost is read again; its runs are known)."""
        if self.state is None or read.pending or read.log.path is None:
            return
        state = work.log_state(read)
        if state is not None:
            self.settled.append((os.path.abspath(read.log.path), state))
            read.read_all = False  # settled once
        if len(self.settled) >= 256:
            self.flush()

    def flush(self) -> None:
        """Record the logs settled since the last transaction."""
        if self.state is not None and self.settled:
            self.state.commit([], self.settled)
        self.settled = []


def send_otlp(
    logs: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
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
    follow: bool = False,
    env: Mapping[str, str] | None = None,
    progress: Callable[[SendReport], object] | None = None,
    hold_signals: bool = False,
    retry: Mapping[str, Any] | None = None,
) -> SendReport:
    """Send the spans of session logs to an OTLP/HTTP endpoint (module docstring).

    Args:
        logs: session logs, directories (their ``*.jsonl`` and ``*.jsonl.gz``) or globs.
        endpoint, headers, protocol, compression, timeout, max_request_bytes: where and how
            (``resolve_config``: these, else OpenTelemetry's exporter environment variables,
            else the OTLP/HTTP defaults). ``timeout`` is in seconds.
        state: a state file (made when missing): send only what is new since it was kept.
        conversation_id: for one log only (else each log's own: ``session_logs``).
        parent_trace_id, parent_span_id, service_name, agent_name, error_messages,
            max_line_bytes: as for ``otlp_json``.
        follow: keep going: look at the logs (and for new ones) every
            ``FOLLOW_INTERVAL_SECONDS`` and send each run as it ends, until interrupted
            (``KeyboardInterrupt``); the state stays consistent.
        env: the environment to read exporter variables from (default ``os.environ``).
        progress: called with the report as it grows (after each session and request).
        hold_signals: let Ctrl-C and SIGTERM wait while a request is in flight (what the
            command does); only in the main thread.
        retry: options of ``OtlpHttpSender`` (``retry_budget_seconds``, ``backoff_factor``...).

    Returns:
        What was sent and what went wrong (``SendReport``; ``ok`` when nothing did).

    Raises:
        ValueError: a setting that is not valid (the message names the flag or variable);
            ``conversation_id`` with several logs.
        FileNotFoundError: a path that names no log.
        StateError: a state file that cannot be used.
    """
    paths = (
        [os.fspath(logs)] if isinstance(logs, str | os.PathLike) else [os.fspath(p) for p in logs]
    )
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
    # usage errors before anything is sent
    found = session_logs(paths, conversation_id, allow_empty=follow)
    report = SendReport()
    keep: SendState | None = None
    if state is not None:
        keep = SendState(os.fspath(state), options.key(config))
    elif follow:
        keep = SendState(":memory:", options.key(config))
    sender = _Sender(
        paths,
        conversation_id,
        config,
        options,
        keep,
        report,
        progress,
        _Signals(hold_signals),
        retry or {},
        follow,
    )
    try:
        sender.one_pass(found)
        while follow:
            time.sleep(FOLLOW_INTERVAL_SECONDS)
            sender.one_pass()
    finally:
        sender.close()
        if keep is not None:
            keep.close()
    return report


# A span's own id, as a key: text in an export is JSON-escaped (a quote in a value is \\"), so
# these bytes are only ever the key (``parentSpanId`` does not contain them).
_SPAN_KEY = b'"spanId":'


def _count_spans(spool: IO[bytes]) -> int:
    """The spans in an OTLP/JSON export read from ``spool`` (counted by their ``spanId`` keys,
    a key cut between two blocks counted once)."""
    count = 0
    tail = b""
    while block := spool.read(1 << 20):
        text = tail + block
        count += text.count(_SPAN_KEY)
        # keep the bytes that could start a key cut by the block's end, not a whole key
        tail = text[-(len(_SPAN_KEY) - 1) :]
    return count


def export_sessions(
    logs: Sequence[str | os.PathLike[str]],
    *,
    out_dir: str | os.PathLike[str] | None = None,
    write: Callable[[bytes], object] | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    service_name: str = "agentloop",
    agent_name: str | None = None,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> SendReport:
    """Export many sessions as OTLP/JSON, each once (copies are told apart as ``send_otlp``
    does), under its conversation id (``session_logs``).

    Args:
        logs: session logs, directories or globs.
        out_dir: write each session's export to ``out_dir/<conversation id>.json`` (made as
            needed; each file written whole or not at all).
        write: else, each session's export, one line, given to ``write`` in order once it is
            whole (a damaged log gives nothing).

    Returns:
        ``SendReport``: ``sessions``, ``copies``, ``runs``, ``spans`` (written), ``bytes``
        (of the exports written), ``damaged``, ``warnings``.
    """
    if (out_dir is None) == (write is None):
        raise ValueError("give out_dir or write, one of them")
    paths = [os.fspath(p) for p in logs]
    trace_id, span_id = check_parents(parent_trace_id, parent_span_id)
    session_list = session_logs(paths)
    report = SendReport()
    held = [_scan(log, max_line_bytes) for log in session_list]
    for session in group_sessions(session_list, held):
        report.copies += len(session.copies)
        log = session_list[session.log]
        assert log.path is not None
        with tempfile.TemporaryFile() as spool:
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", SessionToolsWarning)
                    export_otlp_json(
                        log.path,
                        spool.write,
                        conversation_id=session.conversation_id,
                        parent_trace_id=trace_id,
                        parent_span_id=span_id,
                        service_name=service_name,
                        agent_name=agent_name,
                        name=log.name,
                        error_messages=error_messages,
                        max_line_bytes=max_line_bytes,
                    )
                report.warnings.extend(str(w.message) for w in caught)
            except LogError as e:
                report.damaged.append(str(e))
                continue
            except OSError as e:
                report.damaged.append(f"{log.name}: cannot read: {e.strerror or e}")
                continue
            report.sessions += 1
            held_runs = held[session.log]
            report.runs += 0 if held_runs is None else len(held_runs.identities)
            report.bytes += spool.tell()
            spool.seek(0)
            report.spans += _count_spans(spool)
            spool.seek(0)
            if write is not None:
                while block := spool.read(WRITE_BYTES):
                    write(block)
                continue
            assert out_dir is not None
            relative = output_path(session.conversation_id)
            target = os.path.join(os.fspath(out_dir), *relative.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as out:
                    while block := spool.read(WRITE_BYTES):
                        out.write(block)
                os.replace(tmp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
    return report
