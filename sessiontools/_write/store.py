"""Where a session's entries are kept: ``Store``, ``FileStore`` and ``MemoryStore``; the session
library's write side, beside the flow (docs/session-library.md, "Stores").

These mirror agentloop's ``Store``, ``FileStore`` and ``MemoryStore``: a store is the only thing a
session needs to be remembered and resumed (``OpenSession`` rebuilds a session from ``Load``; an
empty store is a new session).

``FileStore`` keeps a session as agentloop does, one JSON line per entry, each append synced
to disk before it returns. It adds what a second program writing the same files needs:

- **One writer at a time.** The first write (or ``open()``) takes an exclusive, non-blocking
  ``flock`` on the file and holds it until ``close()``; a second writer, in this process or
  another, gets ``StoreLockedError``. The lock is advisory: it keeps out writers that take it
  (every ``FileStore``), not a program that writes the file without it.
- **Readers never change the file.** ``load()`` takes no lock and writes nothing; it works
  while another process holds the writer lock and reads up to the last complete line
  (docs/reading.md, "Lines").
- **A writer changes the file only by appending**, with one exception: when it first opens an
  existing file whose last line is torn (it lacks its ``\\n`` and is not complete JSON as Go
  reads it: a write cut short by a crash), it cuts that line away, so the next entry does not
  glue onto it. When the last line is complete JSON but lacks its ``\\n``, the ``\\n`` is
  written before the next entry. A last line that ends with its ``\\n`` is complete, whatever
  it holds, and never cut.
- **A failed append leaves the file as it was**: a write or sync that fails partway is undone
  by truncating the file back to its length before the append.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import threading
from typing import Any, Protocol, runtime_checkable

from .._errors import StoreError, StoreLockedError
from .._log.decode import is_entry_shaped
from .._log.encode import encode_entry
from .._log.entries import Entry
from .._log.rawjson import loads
from .._log.reader import LogReader

__all__ = ["FileStore", "MemoryStore", "Store"]

_WHITESPACE = b" \t\r\n"  # JSON's: a line of only these is blank (docs/reading.md, "Lines")
_CHUNK = 1 << 16  # bytes read at a time when looking for the last line


@runtime_checkable
class Store(Protocol):
    """What keeps a session's entries (Go's ``Store``).

    A store is the only thing a session needs to be remembered and resumed. ``FileStore`` and
    ``MemoryStore`` are stores; so is any object with these two methods.
    """

    def load(self) -> list[Entry]:
        """Every entry, in the order appended (an empty list for a new session)."""
        ...

    def append(self, entry: Entry) -> None:
        """Add one entry. It is durable when this returns: a crash after that cannot lose it."""
        ...


def _pread_exact(fd: int, size: int, offset: int) -> bytes:
    """``size`` bytes of the file at ``offset`` (which the caller knows are there)."""
    parts: list[bytes] = []
    while size > 0:
        block = os.pread(fd, size, offset)
        if not block:
            raise OSError(errno.EIO, "the file ended early")
        parts.append(block)
        size -= len(block)
        offset += len(block)
    return b"".join(parts)


def _last_line(fd: int, size: int) -> tuple[int, bytes, bool] | None:
    """The last non-blank line of the file's first ``size`` bytes: its start offset, its bytes
    up to its last non-whitespace byte, and whether a ``\\n`` follows it (it is then complete,
    whatever it holds); ``None`` when every line is blank.

    Reads backwards in blocks, so only the last line is held, however long the file.
    """
    end = -1
    pos = size
    terminated = False
    while pos > 0:  # skip the trailing whitespace
        n = min(_CHUNK, pos)
        block = _pread_exact(fd, n, pos - n)
        kept = block.rstrip(_WHITESPACE)
        terminated = terminated or b"\n" in block[len(kept) :]
        if kept:
            end = pos - n + len(kept)
            break
        pos -= n
    if end < 0:
        return None
    parts: list[bytes] = []
    pos = end
    start = 0
    while pos > 0:  # back to the "\n" before it, or the start of the file
        n = min(_CHUNK, pos)
        block = _pread_exact(fd, n, pos - n)
        i = block.rfind(b"\n")
        if i >= 0:
            parts.append(block[i + 1 :])
            start = pos - n + i + 1
            break
        parts.append(block)
        pos -= n
    parts.reverse()
    return start, b"".join(parts), terminated


_TORN = object()


def _json_or_torn(line: bytes) -> Any:
    """The value of ``line`` as ``LogReader`` reads it (orjson, else Go's way: invalid UTF-8
    and escaped lone surrogates accepted, up to 10,000 levels deep; docs/reading.md, "Bytes"), or
    ``_TORN`` when it is not complete JSON."""
    try:
        return loads(line)
    except ValueError:
        return _TORN


def _fsync_directory(directory: str) -> None:
    """Sync a directory, so that a file just created in it survives a crash."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


class FileStore:
    """A session kept as JSON lines in a file, each append synced (Go's ``FileStore``).

    The file is created by the first append (or by ``open()``); its directory must exist.
    Each entry is one line: ``encode_entry(entry)`` (the bytes Go writes) and ``\\n``.

    Reading (``load``) never locks or changes the file. Writing takes the writer lock: an
    exclusive ``flock`` on the file, taken by the first ``append`` or by ``open()`` and held
    until ``close()`` (or until the process dies: the kernel releases it). Use the store as a
    context manager to close it::

        with FileStore("session.jsonl") as store:
            entries = store.load()
            store.append(entry)

    Besides appending, a writer makes one change, once, when it first opens an existing file:
    a torn last line (without its ``\\n``, and not complete JSON as Go reads it: 10,000
    levels deep, invalid UTF-8 included) is cut away; and a last line that is complete JSON
    but lacks its ``\\n`` gets it before the next entry. A last line that ends with its
    ``\\n`` is never cut, whatever it holds: the ``\\n`` is the last byte an append writes.
    It refuses a file whose last line is a transcript's closing outcome line. It does not read
    the rest of the file: a log damaged further up is appended to like any other. Open a
    session to write to with ``open_session(store)`` or ``SessionBuilder.resume(store)``,
    which load it first and raise ``DamagedLogError`` on damage, as agentloop's
    ``OpenSession`` does.

    Appends from several threads through one ``FileStore`` are serialized. A process that
    forks while holding the lock shares it with its child until both close the file.

    Args:
        path: the session file (``str`` or path-like).

    Attributes:
        path: the session file, as a ``str``.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path: str = os.fspath(path)
        self._fd: int | None = None
        self._closed = False
        self._newline_due = False  # the last line is complete JSON without its "\n"
        self._repair_pending = False  # a failed append may have left a partial line
        self._mutex = threading.Lock()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "writing" if self._fd is not None else "idle"
        return f"<FileStore {self.path!r} {state}>"

    def __enter__(self) -> FileStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A store dropped without close() still gives its lock back.
        fd = getattr(self, "_fd", None)
        if fd is not None:
            self._fd = None
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def holds_lock(self) -> bool:
        """Whether this store holds the writer lock (it has written, or ``open()`` was called,
        and it is not closed)."""
        return self._fd is not None

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called: the store can still ``load``, but not ``append``."""
        return self._closed

    def load(self) -> list[Entry]:
        """Every entry of the file, in order (Go's ``FileStore.Load``).

        A missing file is an empty session: ``[]``. A last line that is not complete JSON is a
        write cut short by a crash: it is ignored, with a ``TornTailWarning``. A complete last
        line without its ``\\n`` is an entry like any other. Entries are read with
        ``LogReader(path, exact=True, max_line_bytes=None, gzip=False)``, so each re-encodes
        to the bytes of its line: an entry that repeats the one before it is kept (Go's
        ``Load`` keeps it too), lines of any length are read (what ``append`` writes has no
        limit either), and the file's bytes are read as they are (a gzip file is not a log
        this store can append to).

        Never locks and never writes: it can run while another process holds the writer
        lock, or appends to the file itself. It then reads up to the line being written: a
        line that has no ``\\n`` yet when it is read ends the read (a torn tail at most,
        never damage).

        Returns:
            the entries, each with ``line`` set to its 1-based line number.

        Raises:
            DamagedLogError: a line before the last is not complete JSON.
            EntryError: a complete line is not a usable entry.
            OSError: the file exists but cannot be read (a directory, no permission).
        """
        try:
            reader = LogReader(self.path, exact=True, max_line_bytes=None, gzip=False)
        except FileNotFoundError:
            return []
        with reader:
            return list(reader)

    def open(self) -> FileStore:
        """Take the writer lock now, instead of at the first append; return the store.

        Creates the file (empty) when it does not exist, since the lock is held on the file.
        Cuts a torn last line away (see the class). Calling it again while the store holds
        the lock does nothing.

        Raises:
            StoreLockedError: another writer (another ``FileStore``, in this process or
                another) holds the lock.
            StoreError: the store is closed, the directory does not exist, or the file cannot
                be opened for writing (read-only, a directory); the ``OSError`` is chained.
        """
        with self._mutex:
            self._writer_fd()
        return self

    def close(self) -> None:
        """Give the writer lock back. ``append`` raises ``StoreError`` from now on; ``load``
        still works. Closing again does nothing."""
        with self._mutex:
            self._closed = True
            fd, self._fd = self._fd, None
            if fd is not None:
                os.close(fd)

    def append(self, entry: Entry) -> None:
        """Write one entry as one line and sync it (Go's ``FileStore.Append``).

        It is durable when this returns: the line is written completely (``O_APPEND``, every
        partial write continued) and ``os.fsync`` ran on the file, and on its directory when
        this append created the file. The first append takes the writer lock (see ``open``).

        If the write or the sync fails, the file is truncated back to its length before the
        append, so no partial line is left for a later append to glue onto, and
        ``StoreError`` is raised.

        Raises:
            StoreLockedError: another writer holds the lock.
            StoreError: the store is closed, the file cannot be opened for writing, or the
                write or the sync failed (the ``OSError`` is chained).
            ValueError, TypeError: the entry cannot be written (see ``encode_entry``);
                nothing is.
        """
        line = encode_entry(entry) + b"\n"
        with self._mutex:
            fd = self._writer_fd()
            data = b"\n" + line if self._newline_due else line
            try:
                before = os.fstat(fd).st_size
            except OSError as e:
                raise StoreError(
                    f"{self.path}: cannot append entry {entry.seq}: {_reason(e)}"
                ) from e
            try:
                view = memoryview(data)
                while view:
                    written = os.write(fd, view)
                    if written <= 0:
                        raise OSError(errno.EIO, "the write wrote nothing")
                    view = view[written:]
                os.fsync(fd)
            except BaseException as e:
                undone = self._undo(fd, before)
                if not isinstance(e, OSError):
                    raise
                state = (
                    "the file is as it was"
                    if undone
                    else "a partial line may remain; the next append cuts it away"
                )
                raise StoreError(
                    f"{self.path}: cannot append entry {entry.seq}: {_reason(e)}; {state}"
                ) from e
            self._newline_due = False

    def _undo(self, fd: int, length: int) -> bool:
        """Truncate the file back to ``length`` after a failed append; whether that worked.
        When it did not, the next append checks the file's last line again."""
        try:
            os.ftruncate(fd, length)
        except OSError:
            self._newline_due = False
            self._repair_pending = True
            return False
        return True

    def _writer_fd(self) -> int:
        """The file, opened for appending and locked; opened, locked and repaired on first
        use. The caller holds ``_mutex``."""
        if self._closed:
            raise StoreError(f"{self.path}: this FileStore is closed; make a new one to write")
        if self._fd is not None:
            if self._repair_pending:
                self._repair(self._fd)
            return self._fd
        fd, created = self._open_file()
        try:
            if created:
                try:
                    _fsync_directory(os.path.dirname(os.path.realpath(self.path)))
                except OSError as e:
                    raise StoreError(
                        f"{self.path}: cannot sync the directory of the new session file: "
                        f"{_reason(e)}"
                    ) from e
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise StoreLockedError(self.path) from None
            except OSError as e:
                raise StoreError(f"{self.path}: cannot lock the session file: {_reason(e)}") from e
            self._repair(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return fd

    def _open_file(self) -> tuple[int, bool]:
        """Open the file for reading and appending, creating it if missing; the descriptor,
        and whether this call created the file."""
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
        directory = os.path.dirname(self.path) or "."
        try:
            return os.open(self.path, flags), False
        except FileNotFoundError as e:
            if not os.path.isdir(directory):
                raise StoreError(
                    f"{self.path}: cannot create the session file: its directory {directory} "
                    "does not exist"
                ) from e
        except OSError as e:
            raise StoreError(
                f"{self.path}: cannot open the session file for writing: {_reason(e)}"
            ) from e
        try:
            try:
                return os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o666), True
            except FileExistsError:
                # Another writer created it meanwhile (it will find the lock taken, or the
                # file as that writer left it), or the path is a symbolic link to a missing
                # file, which this creates, as Go's os.OpenFile would.
                return os.open(self.path, flags | os.O_CREAT, 0o666), True
        except OSError as e:
            raise StoreError(f"{self.path}: cannot create the session file: {_reason(e)}") from e

    def _repair(self, fd: int) -> None:
        """Cut a torn last line away; note whether the last line lacks its ``\\n``.

        Only a last line without its ``\\n`` can be torn (the newline is the last byte an
        append writes); one that is not complete JSON is. A line that ends with its ``\\n``
        is complete whatever it holds, and is never cut: if it is not JSON, that is damage,
        for ``load`` to report, not a write to undo."""
        try:
            size = os.fstat(fd).st_size
            last = _last_line(fd, size) if size else None
            value = _TORN if last is None else _json_or_torn(last[1])
            if last is not None and value is _TORN:
                if not last[2]:
                    size = last[0]
                    os.ftruncate(fd, size)
            elif last is not None and not is_entry_shaped(value):
                raise StoreError(
                    f"{self.path}: the last line is not an entry but a transcript's closing "
                    "outcome line (what `agentloop run` prints); a transcript cannot be "
                    "appended to: write to the session file itself"
                )
            self._newline_due = size > 0 and _pread_exact(fd, 1, size - 1) != b"\n"
        except OSError as e:
            raise StoreError(
                f"{self.path}: cannot prepare the session file for appending: {_reason(e)}"
            ) from e
        self._repair_pending = False


class MemoryStore:
    """A session kept in memory (Go's ``MemoryStore``).

    Entries pass through JSON on the way in and out, as a file would: ``append`` keeps the
    line Go writes (``encode_entry``), ``load`` reads the lines back with
    ``LogReader(..., exact=True)``. So what comes out equals what went in, as read back from a
    file (a lone surrogate in a string comes back as U+FFFD), and shares no object with it.

    Args:
        entries: entries the store holds already, in order.
    """

    def __init__(self, *entries: Entry) -> None:
        self._lines: list[bytes] = [encode_entry(e) for e in entries]
        self._mutex = threading.Lock()

    def __repr__(self) -> str:
        return f"<MemoryStore of {len(self._lines)} entries>"

    def load(self) -> list[Entry]:
        """Every entry, in order, as new values (``line`` set to its 1-based position)."""
        with self._mutex:
            data = b"".join(line + b"\n" for line in self._lines)
        with LogReader(
            io.BytesIO(data), name="<memory>", exact=True, max_line_bytes=None, gzip=False
        ) as reader:
            return list(reader)

    def append(self, entry: Entry) -> None:
        """Add one entry (kept as its JSON line).

        Raises:
            ValueError, TypeError: the entry cannot be written (see ``encode_entry``).
        """
        line = encode_entry(entry)
        with self._mutex:
            self._lines.append(line)
