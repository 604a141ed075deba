"""Where to cut a log to read it in two processes: ``plan_cut``, ``find_cut``, ``split_path``;
process machinery beside the flow, used by both exporters (docs/reading.md, "Large logs").

A log is cut only when ``workers`` asks for two processes (2; or ``None`` and a regular file of
``SPLIT_FROM_BYTES``, 8 MB, or more, with two cores available), the platform can fork, and a
second process can open the same file by its path, from its start: standard input, a pipe, a
log compressed with gzip (its bytes are not the lines') or a file already partly read is read
in one process. The cut is at the start of a run: a ``run_started`` line at or after
``CUT_AT`` of the file, preferably one after a ``run_ended`` whose run fails no model call
before its first turn, so that the part after it needs nothing from the runs before it. The
cut is a guess from the bytes, which the child checks (``split``).
"""

from __future__ import annotations

import os
import re

from .._log.reader import LogReader

__all__ = ["SPLIT_FROM_BYTES", "available_cores", "find_cut", "plan_cut", "split_path"]


#: ``workers=None`` splits a log of at least this many bytes (10^6 bytes take about 10 ms to
#: export; forking and merging cost a few).
SPLIT_FROM_BYTES = 8_000_000


#: How far past the middle to look for a run to cut at, in bytes.
SCAN_BYTES = 8_000_000


# The type of a line as Go writes it (seq, time and type come first), and an assistant message.
_TYPE = re.compile(rb'\{"seq":-?[0-9]+,"time":"[^"\\]*","type":"([a-z_]+)",')


_ASSISTANT = re.compile(
    rb'\{"seq":-?[0-9]+,"time":"[^"\\]*","type":"message","message":\{"message":\{"role":"assistant"'
)


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def split_path(reader: LogReader) -> tuple[str, int] | None:
    """The path and size of the regular file ``reader`` reads, when a second process can open
    it by that path, this platform can fork, and the reader is at its start; else ``None``."""
    if not hasattr(os, "fork"):
        return None
    return reader.regular_file()


def plan_cut(
    reader: LogReader, workers: int | None, *, at: float | None = None
) -> tuple[str, int] | None:
    """Where to cut the log ``reader`` reads (its path, the offset), when ``workers`` asks
    for two processes (2; or ``None`` and a file of ``SPLIT_FROM_BYTES`` or more, with two
    cores) and the file can be cut; else ``None``. ``at``: where to look from, as a fraction
    of the log (``CUT_AT`` when ``None``; the cost tables cut from ``COST_CUT_AT``)."""
    if workers == 1:
        return None
    found = split_path(reader)
    if found is None:
        return None
    path, size = found
    if workers is None and (size < SPLIT_FROM_BYTES or available_cores() < 2):
        return None
    try:
        cut = find_cut(path, size) if at is None else find_cut(path, size, at=at)
    except OSError:  # such as no file descriptor to spare: read in one process
        return None
    return None if cut is None else (path, cut)


#: Where to start looking for the cut, as a fraction of the log: past the middle, because the
#: child has more to do per byte (it starts after the fork, and its output is copied).
CUT_AT = 0.52


def find_cut(
    path: str, size: int, *, scan_bytes: int = SCAN_BYTES, at: float = CUT_AT
) -> int | None:
    """Where to cut a log in two: the offset of a ``run_started`` line at or after ``at``
    (``CUT_AT``) of the log, or ``None``. A guess from the bytes, which the child checks.

    Lines of ``SCAN_BYTES`` or more, and a last line without its ``\\n``, are not looked
    into (and nothing past them is). The first run within ``scan_bytes`` that follows a
    ``run_ended`` line (no call left open by a crash) and does not fail a model call before
    its first turn (which would take the model of the turn before the cut) is taken; else the
    first ``run_started``. Either is right; the first saves the child's work from being
    dropped."""
    middle = int(size * at)
    first = None
    candidate = None
    bound = SCAN_BYTES + 1  # no line longer than that is held here (one of 3 GB would be)
    with open(path, "rb") as f:
        f.seek(middle)
        skipped = f.readline(bound)  # to the start of a line
        if skipped[-1:] != b"\n":
            return None  # none starts near the middle
        offset = middle + len(skipped)
        before = b""
        while True:
            line = f.readline(bound)
            if line[-1:] != b"\n":
                break  # the end, a line still being written, or one too long to look at
            found = _TYPE.match(line)
            kind = found.group(1) if found is not None else b""
            if candidate is not None:
                if kind == b"model_error":
                    candidate = None
                elif kind in (b"run_started", b"run_ended") or _ASSISTANT.match(line):
                    return candidate
            if kind == b"run_started":
                if first is None:
                    first = offset
                if before == b"run_ended":
                    candidate = offset
            offset += len(line)
            before = kind
            if offset - middle > scan_bytes:
                break
    return candidate if candidate is not None else first
