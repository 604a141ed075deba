"""How sessiontools writes large outputs to files: at most ``WRITE_BYTES`` (64 KiB) a system
call (``write_in_pieces``), whatever size the pieces were made in.

Linux (6.x, ext4 and other file systems with large folios) gives the page cache a folio as
large as the write asks for: a 1 MiB write takes memory in blocks of up to 1 MiB, a 64 KiB
write in blocks of 64 KiB or less. On a virtual machine whose host takes back the guest's free
memory (free page reporting, as Firecracker's balloon does: the reporting works on blocks of
2 MiB and more), large blocks are those the host took back, and the first write into each
page of them waits for the host: writing 26 MiB to a new file here took a median of 26 ms in
writes of 1 MiB, 64 ms in writes of 256 KiB, 6.3 ms in writes of 64 KiB and 9.6 ms in writes
of 16 KiB (7 fresh processes each, 2026-12-02; the time in the kernel's
``copy_folio_from_iter_atomic``). ``sessiontools otel`` writes its output and the second
process's part in pieces of 64 KiB: the command's kernel time fell from 60 to 110 ms to 20 to
30 ms on the dense 100 MB log (benchmarks/README.md, "Writes of 64 KiB"). Elsewhere the pieces
cost one system call per 64 KiB, nothing to measure.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["WRITE_BYTES", "write_in_pieces"]

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
