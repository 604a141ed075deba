"""How sessiontools writes large outputs to files: at most ``WRITE_BYTES`` (64 KiB) a system
call (``write_in_pieces``), whatever size the pieces were made in.

What was measured: on the 2-core Firecracker VM the benchmarks run on (Linux 6.18, ext4),
writing 26 MiB to a new file took a median of 26 ms in writes of 1 MiB, 64 ms in writes of
256 KiB, 6.3 ms in writes of 64 KiB and 9.6 ms in writes of 16 KiB (7 fresh processes each,
2026-12-02; the time in the kernel's ``copy_folio_from_iter_atomic``). Our explanation, not
verified further: the kernel gives ext4's page cache folios as large as a write asks for,
large blocks of the guest's memory are those its host takes back (free page reporting works
on blocks of 2 MiB and more), and the first write into each of their pages waits for the host.

``sessiontools otel`` writes its output and the second process's part in pieces of 64 KiB: on
the dense 100 MB log that copy fell from 10 to 13% of the command's samples to under 1%
(``perf record``), the parent's system time from 78 to 44 ms (medians of 16 runs;
benchmarks/README.md, "The sixth session: writes of 64 KiB"). Elsewhere the pieces cost one
system call per 64 KiB, nothing to measure.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["WRITE_BYTES", "InPieces", "write_in_pieces"]

#: The most bytes given to the kernel in one write of a large output.
WRITE_BYTES = 64 << 10


def write_in_pieces(write: Callable[[bytes | memoryview], object], data: bytes) -> None:
    """``write(data)`` in pieces of at most ``WRITE_BYTES``, in order: ``write`` is a file's
    ``write`` (it takes a ``memoryview``, and writes all of it, as a buffered file does)."""
    size = len(data)
    if size <= WRITE_BYTES:
        write(data)
        return
    view = memoryview(data)
    for start in range(0, size, WRITE_BYTES):
        write(view[start : start + WRITE_BYTES])


class InPieces:
    """A writable object whose ``write`` passes what it is given on to ``write`` in pieces of
    at most ``WRITE_BYTES`` (for ``pickle.dump``, whose frames are a little over 64 KiB)."""

    def __init__(self, write: Callable[[bytes | memoryview], object]) -> None:
        self._write = write

    def write(self, data: bytes) -> int:
        write_in_pieces(self._write, data)
        return len(data)
