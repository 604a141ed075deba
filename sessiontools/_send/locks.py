"""Whether a session file's writer lock is held, without touching the file.

The session library's ``FileStore`` holds an exclusive ``flock`` on the session file while it
may append. Taking a lock to find out (even a shared one, for a moment) could make a writer
that starts at that moment fail with ``StoreLockedError``; so the kernel's table of locks,
``/proc/locks`` (Linux), is read instead: a ``FLOCK`` on the file's device and inode means a
writer has it open. Elsewhere the answer is ``None``: not known.
"""

from __future__ import annotations

import os

__all__ = ["LockTable", "flock_table"]

_PROC_LOCKS = "/proc/locks"


class LockTable:
    """The ``flock`` locks held when it was read: ``held(st)`` for a file's ``os.stat``."""

    def __init__(self, keys: frozenset[tuple[int, int, int]] | None) -> None:
        self._keys = keys

    def held(self, st: os.stat_result) -> bool | None:
        """Whether some process holds a ``flock`` on the file; ``None`` when not known."""
        if self._keys is None:
            return None
        dev = st.st_dev
        return (os.major(dev), os.minor(dev), st.st_ino) in self._keys


def flock_table(path: str = _PROC_LOCKS) -> LockTable:
    """Read the kernel's lock table now (one read of ``/proc/locks``)."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            text = f.read()
    except OSError:
        return LockTable(None)
    keys = set()
    for line in text.splitlines():
        # "1: FLOCK  ADVISORY  WRITE 14471 fe:00:2146964 0 EOF"; blocked waiters have "->"
        fields = line.split()
        if len(fields) < 6 or "->" in fields[1:2] or fields[1] != "FLOCK":
            continue
        try:
            major, minor, inode = fields[5].split(":")
            keys.add((int(major, 16), int(minor, 16), int(inode)))
        except ValueError:
            continue
    return LockTable(frozenset(keys))
