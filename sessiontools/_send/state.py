"""What was sent: the ``--state`` file of ``sessiontools otel --endpoint``, an SQLite database.

Three tables:

- ``runs``: each run the endpoint acknowledged, by its identity (``RunIdentity``: the digest
  of its ``run_started`` entry and of its first model call), with the conversation id it was
  sent under and how far it went (the ``seq`` of its last entry, and whether it had ended). A
  run read again is sent again only when it goes further; a session keeps the conversation id
  its runs were first sent under, so no span is ever sent under a second id.
- ``parts``: the spans acknowledged of a run larger than one request whose last request is
  not acknowledged yet (with how far that read of the run went): they are not sent again.
- ``logs``: for each log read, what it was when read (device, inode, size, modification time)
  and where to go on (a byte offset and line before a ``run_started``, with the session's state
  there as JSON, and a digest of the bytes before it), with the identities of its runs (to tell
  copies apart without reading it again). A log whose size, inode and time are unchanged is not
  opened; an append is read from where the last read stopped; a log replaced by another file
  (another inode, a smaller size, other bytes before the offset) is read, and sent, in full.

Each acknowledged request is one transaction: killed at any moment (``kill -9``), the file
holds what was acknowledged before, and at most the request in flight is sent again (with the
same ids). The database is in WAL mode with ``synchronous=NORMAL``: a power cut, unlike a
killed process, may lose the last transactions, whose runs are then sent again. The
file holds no header value and no endpoint URL: only a digest of the endpoint and of the export
options, so that a state kept for another endpoint is not taken for this one.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .._errors import StateError

__all__ = ["LogState", "SendState"]

_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    start BLOB NOT NULL,
    first_call BLOB NOT NULL,
    conversation_id TEXT NOT NULL,
    end_seq INTEGER NOT NULL,
    ended INTEGER NOT NULL,
    PRIMARY KEY (start, first_call)
);
CREATE TABLE IF NOT EXISTS parts (
    start BLOB NOT NULL,
    first_call BLOB NOT NULL,
    end_seq INTEGER NOT NULL,
    span_id BLOB NOT NULL,
    PRIMARY KEY (start, first_call, span_id)
);
CREATE TABLE IF NOT EXISTS logs (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    conversation_id TEXT NOT NULL,
    runs TEXT NOT NULL,
    resume_offset INTEGER,
    resume_line INTEGER,
    resume_fold TEXT,
    resume_check BLOB
);
"""


@dataclass(frozen=True)
class LogState:
    """What the state knows of one log.

    Attributes:
        dev, ino, size, mtime_ns: the file when it was last read.
        conversation_id: the id its session was sent under.
        runs: its runs' identities and ends (``[start hex, first call hex or "", end seq]``).
        resume: where to go on (offset, line, the session's state as a snapshot, a digest of
            the bytes before the offset), or ``None`` to read it from the start.
    """

    dev: int
    ino: int
    size: int
    mtime_ns: int
    conversation_id: str
    runs: list[list[Any]]
    resume: tuple[int, int, dict[str, Any], bytes] | None

    def unchanged(self, st: os.stat_result) -> bool:
        """Whether the file is as it was when last read (not opened again if so)."""
        return (self.dev, self.ino, self.size, self.mtime_ns) == (
            st.st_dev,
            st.st_ino,
            st.st_size,
            st.st_mtime_ns,
        )


def check_digest(data: bytes) -> bytes:
    """The digest kept of the bytes before a resume offset (the last 4 KiB of them)."""
    return hashlib.sha256(data).digest()[:16]


CHECK_BYTES = 4096


def _lock(path: str) -> int:
    """One run at a time per state file: an exclusive ``flock`` on it, held while it is open
    (two runs sharing one would both send what neither has recorded yet)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError as e:
        raise StateError(f"{path}: cannot open the state file: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StateError(
            f"{path}: another sessiontools run is using this state file; wait for it, or give "
            "each run its own"
        ) from None
    return fd


class SendState:
    """An open state file (``with SendState(path, endpoint_key) as state:``).

    Args:
        path: the file; made when missing.
        endpoint_key: what the runs are sent to and how (a digest of the endpoint, protocol and
            export options): a file kept for another is refused.

    Raises:
        StateError: the file is not a state file, or was kept for another endpoint.
        OSError: it cannot be opened or made.
    """

    def __init__(self, path: str, endpoint_key: str) -> None:
        self.path = path
        self._lock: int | None = None
        if not path:
            raise StateError("a state file needs a name")
        if path != ":memory:":
            self._lock = _lock(path)
        try:
            self._db = sqlite3.connect(path, isolation_level=None, timeout=30)
        except sqlite3.Error as e:
            self._unlock()
            raise StateError(f"{path}: cannot open the state file: {e}") from None
        try:
            tables = {
                row[0]
                for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if tables and "meta" not in tables:
                raise sqlite3.DatabaseError("it holds other tables")
            self._db.execute("PRAGMA journal_mode=WAL")
            # WAL with NORMAL: a transaction survives the process being killed at any moment
            # (the WAL is written before COMMIT returns); only a power cut may lose the last
            # few, which are then sent again, with the same ids.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as e:
            self._db.close()
            self._unlock()
            raise StateError(f"{path}: not a sessiontools state file ({e})") from None
        if not meta:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("version", _VERSION), ("endpoint", endpoint_key)],
                )
        elif meta.get("version") != _VERSION:
            self.close()
            raise StateError(f"{path}: a state file of another version of sessiontools")
        elif meta.get("endpoint") != endpoint_key:
            self.close()
            raise StateError(
                f"{path}: the state of sending to another endpoint or with other options; "
                "give each endpoint its own --state file"
            )

    def close(self) -> None:
        self._db.close()
        self._unlock()

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # and its flock with it
            self._lock = None

    def __enter__(self) -> SendState:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # runs

    def sent_run(self, start: bytes, first_call: bytes | None) -> tuple[str, int, bool] | None:
        """``(conversation id, end seq, ended)`` of the run as acknowledged, or ``None``. A run
        sent before its first model call is found by its start alone."""
        rows = self._db.execute(
            "SELECT conversation_id, end_seq, ended FROM runs WHERE start = ? "
            "AND (first_call = ? OR first_call = x'')",
            (start, first_call or b""),
        ).fetchall()
        if not rows:
            return None
        cid, end, ended = max(rows, key=lambda r: (r[1], r[2]))
        return str(cid), int(end), bool(ended)

    def conversation_of(self, starts: Iterable[bytes]) -> str | None:
        """The conversation id any of these runs was sent under, if any."""
        for start in starts:
            row = self._db.execute(
                "SELECT conversation_id FROM runs WHERE start = ? LIMIT 1", (start,)
            ).fetchone()
            if row is not None:
                return str(row[0])
        return None

    def sent_parts(self, start: bytes, first_call: bytes | None, end_seq: int) -> set[bytes]:
        """The span ids acknowledged of a run not wholly acknowledged yet, read as far."""
        rows = self._db.execute(
            "SELECT span_id FROM parts WHERE start = ? AND first_call = ? AND end_seq = ?",
            (start, first_call or b"", end_seq),
        ).fetchall()
        return {bytes(r[0]) for r in rows}

    # logs

    def log(self, path: str) -> LogState | None:
        row = self._db.execute(
            "SELECT dev, ino, size, mtime_ns, conversation_id, runs, resume_offset, "
            "resume_line, resume_fold, resume_check FROM logs WHERE path = ?",
            (path,),
        ).fetchone()
        if row is None:
            return None
        dev, ino, size, mtime_ns, cid, runs, offset, line, fold, check = row
        resume = None
        if offset is not None:
            try:
                resume = (int(offset), int(line), json.loads(fold), bytes(check))
            except (TypeError, ValueError):
                resume = None
        try:
            held = json.loads(runs)
        except ValueError:
            held = []
        return LogState(dev, ino, size, mtime_ns, cid, held, resume)

    def commit(
        self,
        runs: Iterable[tuple[bytes, bytes | None, str, int, bool]],
        logs: Iterable[tuple[str, LogState]],
        parts: Iterable[tuple[bytes, bytes | None, int, bytes]] = (),
    ) -> None:
        """Record, in one transaction, what a request's acknowledgement settled: runs
        ``(start, first call, conversation id, end seq, ended)``, logs ``(path, state)``, and
        spans of runs not wholly sent yet ``(start, first call, end seq, span id)``."""
        self.commit_many([(runs, logs, parts)])

    def commit_many(
        self,
        transactions: Iterable[
            tuple[
                Iterable[tuple[bytes, bytes | None, str, int, bool]],
                Iterable[tuple[str, LogState]],
                Iterable[tuple[bytes, bytes | None, int, bytes]],
            ]
        ],
    ) -> None:
        """Several ``commit``s' records ``(runs, logs, parts)``, in order, in one transaction
        (what a cluster's task recorded, merged on the client)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for runs, logs, parts in transactions:
                self._apply(runs, logs, parts)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    # what a cluster's task is told

    def known_rows(
        self, starts: Iterable[bytes]
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The rows of ``runs`` and ``parts`` of the runs that start so (``load`` takes
        them): what a task on a cluster needs to know of what was sent."""
        runs: list[tuple[Any, ...]] = []
        parts: list[tuple[Any, ...]] = []
        for start in sorted(set(starts)):
            runs.extend(self._db.execute("SELECT * FROM runs WHERE start = ?", (start,)))
            parts.extend(self._db.execute("SELECT * FROM parts WHERE start = ?", (start,)))
        return runs, parts

    def load(
        self,
        runs: Iterable[tuple[Any, ...]],
        parts: Iterable[tuple[Any, ...]],
        logs: Iterable[tuple[str, LogState]],
    ) -> None:
        """Rows of another state (``known_rows``, ``log``), as they are, in one transaction."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            db.executemany("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?)", runs)
            db.executemany("INSERT OR REPLACE INTO parts VALUES (?, ?, ?, ?)", parts)
            self._apply((), logs, ())
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _apply(
        self,
        runs: Iterable[tuple[bytes, bytes | None, str, int, bool]],
        logs: Iterable[tuple[str, LogState]],
        parts: Iterable[tuple[bytes, bytes | None, int, bytes]],
    ) -> None:
        db = self._db
        for start, first_call, end_seq, span_id in parts:
            db.execute(
                "INSERT OR IGNORE INTO parts VALUES (?, ?, ?, ?)",
                (start, first_call or b"", end_seq, span_id),
            )
        for start, first_call, cid, end_seq, ended in runs:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?, ?) ON CONFLICT (start, first_call) "
                "DO UPDATE SET end_seq = max(end_seq, excluded.end_seq), "
                "ended = max(ended, excluded.ended)",
                (start, first_call or b"", cid, end_seq, int(ended)),
            )
            db.execute(
                "DELETE FROM parts WHERE start = ? AND first_call = ?",
                (start, first_call or b""),
            )
            if first_call:  # the run's prefix, sent before its first call, is this run
                db.execute("DELETE FROM runs WHERE start = ? AND first_call = x''", (start,))
        for path, state in logs:
            offset = line = fold = check = None
            if state.resume is not None:
                offset, line, snapshot, check = state.resume
                fold = json.dumps(snapshot, separators=(",", ":"))
            db.execute(
                "INSERT OR REPLACE INTO logs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    path,
                    state.dev,
                    state.ino,
                    state.size,
                    state.mtime_ns,
                    state.conversation_id,
                    json.dumps(state.runs, separators=(",", ":")),
                    offset,
                    line,
                    fold,
                    check,
                ),
            )
