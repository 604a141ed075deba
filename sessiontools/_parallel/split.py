"""One log read in two processes: ``read_runs(reader, job, workers=...)``, the one place both
exporters call to read a log's runs, cut or whole; process machinery beside the flow
(docs/reading.md, "Large logs").

Where ``plan_cut`` finds a cut, a forked child reads the part after it (``read_tail``) while
this process reads the part before it, and a ``Job`` says what each makes of its runs
(``take`` here, ``make_in_child`` in the child, ``merge`` to join them: the traces' job writes
spans, the cost tables' makes rows). The child starts with an empty session, and records what
of the session before the cut its runs could depend on:

- the session's labels, which each run carries: the job's ``merge`` gives the child's runs the
  labels of the whole session;
- a call left open before the cut (a run that crashed) and settled after it: the fold's
  ``RecordingCalls`` notes every call id it looked for and did not find;
- the model of a failed call that comes before any turn of the child's part, which is the
  model of the session's last turn (``SessionFold.borrowed_model``).

When the child needed a call or a model that the session before the cut has, or its first line
repeats the last entry before the cut (which one reader skips as a copy), or it failed in any
way, its work is dropped and this process reads the second part itself. The warnings either
process gives are merged as one reader would give them (each kind once, in the order of the
lines; the child numbers lines from the cut, and this process, which counts the lines before
it, numbers them again: ``Warnings.replay``), and an error in the second part is raised once
the first part is read. So the output, warnings and errors are those of reading the log in one
process: ``tests/parallel/test_split.py`` and ``tests/parallel/test_split_edges.py`` check this
at every line of every sample log and of random logs. The child never runs the caller's code:
signals wait while it forks, it gives up the caller's signal handlers (``signals``), and it
ends with ``os._exit``."""

from __future__ import annotations

import contextlib
import errno
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import IO, Any, Protocol

from .._errors import LogError
from .._log.entries import Entry, RunStartedEntry
from .._log.reader import (
    MAX_LINE_BYTES,
    READ_BUFFER_BYTES,
    ClosingLine,
    LogReader,
    ReadPosition,
    same_line,
)
from .._log.warnings import Record, Warnings
from .._model.fold import RecordingCalls, SessionFold, iter_runs
from .._model.runs import Run
from .._pieces import WRITE_BYTES
from .cut import plan_cut
from .signals import default_signals

__all__ = ["Hooks", "Job", "copy", "read_in_two", "read_runs"]


class _Tail:
    """What the child sends back about the part after the cut. A plain class, not a
    dataclass: the standard decorator compiles its methods at import, about 1 ms of every
    command's start-up."""

    def __init__(self) -> None:
        self.result: Any = None  # what the job made of the part's runs (``Job.make_in_child``)
        # the warnings given, as a recording sink keeps them, lines numbered from the cut
        self.said: list[Record] = []
        self.first_said = 0  # said[:first_said] came from reading the first line
        self.first_seq: int | None = None
        self.first_line = b""  # the line at the cut (one reader skips it if it repeats the last)
        self.missed_calls: set[str] = set()
        self.needs_model = False
        self.error: LogError | None = None
        self.closing_line: ClosingLine | None = None  # its line numbered from the cut


class Job(Protocol):
    """What is made of the runs of a log read in two (``read_in_two``).

    The parent calls ``take`` with the runs before the cut as they end (and once more with
    the run the cut ends, if it crashed), then either ``merge`` with what the child's
    ``make_in_child`` made of the runs after the cut, or ``take`` with those runs, read here.
    A log read in one process gives all its runs to ``take``.
    """

    def take(self, runs: Iterator[Run]) -> None:
        """Take runs read in this process."""

    def make_in_child(self, runs: Iterator[Run], out: IO[bytes]) -> Any:
        """In the child: make something picklable of the runs after the cut (which start
        with an empty session: see the module docstring), writing what is large to ``out``."""

    def merge(self, result: Any, out: IO[bytes], labels: set[str], runs: int) -> None:
        """Take the child's ``result`` (``out`` at its start): ``labels`` is what the session
        held at the cut, and ``runs`` how many runs came before it."""


class Hooks:
    """What a caller that needs more of a log than its runs gives ``read_runs``: ``tap`` sees
    every entry each fold reads, in order, in this process and in the child (the report notes
    when labels were given, and the conversation), and ``make_fold`` makes each fold (the
    report reads the session's labels and their sources from them once the log is read). The
    child's part is read with ``for_child()``'s hooks (the tests run it in this process).
    The defaults change nothing (what the exports use)."""

    def for_child(self) -> Hooks:
        """The hooks of the part after the cut (made in the child, as it starts reading)."""
        return self

    def tap(self, entries: Iterable[Entry]) -> Iterable[Entry]:
        return entries

    def make_fold(
        self, name: str, *, warnings: Warnings, open_calls: RecordingCalls | None = None
    ) -> SessionFold:
        return SessionFold(name, warnings=warnings, open_calls=open_calls)

    def runs_of(self, reader: LogReader) -> Iterator[Run]:
        """The runs of the whole log ``reader`` reads, here (no cut, or none possible)."""
        return iter_runs(self.tap(reader), self.make_fold(reader.name, warnings=reader.sink))


_NO_HOOKS = Hooks()


def read_tail(
    path: str,
    name: str,
    cut: int,
    out: IO[bytes],
    job: Job,
    export: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
    reader_type: type[LogReader] = LogReader,
    hooks: Hooks | None = None,
) -> _Tail | None:
    """Read the part of the log from ``cut`` (the child's work), giving its runs to
    ``job.make_in_child``. Lines are numbered from the cut (the line at the cut is line 1), in
    warnings, errors and the closing line alike: the parent, which counts the lines before the
    cut as it reads them, numbers them again. ``None`` when the line at ``cut`` is not the
    ``run_started`` entry it should be. ``export``: the reader's (``LogReader``);
    ``reader_type``: the parent's reader's class (``ExportReader`` decodes views); ``hooks``:
    the caller's (``Hooks``), in the child (``Hooks.for_child``)."""
    hooks = (hooks or _NO_HOOKS).for_child()
    tail = _Tail()
    sink = Warnings(name, record=True)
    calls = RecordingCalls()
    with open(path, "rb", buffering=READ_BUFFER_BYTES) as f:
        f.seek(cut)
        reader = reader_type(
            f,
            name=name,
            export=export,
            max_line_bytes=max_line_bytes,
            start=ReadPosition(cut),  # lines numbered from the cut
            warnings=sink,
        )
        fold = hooks.make_fold(name, warnings=sink, open_calls=calls)
        entries = iter(reader)
        try:
            first = next(entries, None)
            tail.first_said = len(sink.messages)
            if first is None or first.line != 1 or first.payload.__class__ is not RunStartedEntry:
                return None
            tail.first_seq = first.seq
            previous = reader.position.previous
            assert previous is not None
            tail.first_line = previous[0]
            runs = iter_runs(hooks.tap(_then(first, entries)), fold)
            tail.result = job.make_in_child(runs, out)
            tail.closing_line = reader.closing_line
        except LogError as e:
            tail.error = e
            tail.first_said = min(tail.first_said, len(sink.messages))
    out.flush()
    assert sink.records is not None
    tail.said = sink.records
    tail.missed_calls = calls.missed
    tail.needs_model = fold.borrowed_model
    return tail


def _then(first: Entry, rest: Iterator[Entry]) -> Iterator[Entry]:
    yield first
    yield from rest


class _Child:
    """The forked child that reads the part after the cut (``read_tail``).
    ``result()`` waits for it; leaving the ``with`` block kills it if it still runs."""

    def __init__(
        self,
        path: str,
        name: str,
        cut: int,
        out: IO[bytes],
        job: Job,
        export: bool = False,
        max_line_bytes: int | None = MAX_LINE_BYTES,
        reader_type: type[LogReader] = LogReader,
        hooks: Hooks | None = None,
    ) -> None:
        import pickle  # here, before the fork: only a large log is read in two

        self._receive, send = os.pipe()
        # Objects alive now are left alone by the collector, in both processes: it would touch
        # them, and each page it touches gets copied (copy on write). Unless a caller froze
        # them already, they are unfrozen when the child is done.
        self._unfreeze = gc.get_freeze_count() == 0
        gc.freeze()
        # Signals (Ctrl-C) wait until each process knows its part: the child must never run
        # the caller's code, such as a signal handler or what follows a KeyboardInterrupt, and
        # this process must not lose track of the child.
        mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        try:
            self._pid = os.fork()
        except OSError:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            os.close(self._receive)
            os.close(send)
            self._thaw()
            raise
        if self._pid == 0:  # the child: never returns
            data = pickle.dumps(None)
            try:
                default_signals()  # Ctrl-C ends the child at once, running no Python code
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
                os.close(self._receive)
                tail = read_tail(
                    path, name, cut, out, job, export, max_line_bytes, reader_type, hooks
                )
                data = pickle.dumps(tail)
            except BaseException:  # whatever it is, the parent reads the part itself
                pass
            finally:
                with contextlib.suppress(BaseException), os.fdopen(send, "wb") as pipe:
                    pipe.write(data)
                os._exit(0)
        try:
            os.close(send)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C waiting comes now
        except BaseException:
            self.__exit__()
            raise

    def result(self) -> _Tail | None:
        import pickle

        with os.fdopen(self._receive, "rb") as pipe:
            self._receive = -1
            received = pipe.read()
        self._reap()
        try:
            tail: _Tail | None = pickle.loads(received)
        except Exception:  # a child cut short: the parent reads the part itself
            tail = None
        return tail

    def _reap(self) -> None:
        pid, self._pid = self._pid, 0
        # The caller may ignore SIGCHLD, or reap children itself: then there is none to wait for.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)

    def __enter__(self) -> _Child:
        return self

    def _thaw(self) -> None:
        if self._unfreeze:
            gc.unfreeze()
            self._unfreeze = False

    def __exit__(self, *exc: object) -> None:
        self._thaw()
        if self._receive != -1:
            os.close(self._receive)
            self._receive = -1
        if self._pid:
            with contextlib.suppress(OSError):
                os.kill(self._pid, signal.SIGKILL)
            self._reap()


def read_in_two(
    reader: LogReader,
    path: str,
    cut: int,
    job: Job,
    idle: Callable[[], object] | None = None,
    hooks: Hooks | None = None,
) -> tuple[str, ClosingLine | None]:
    """Read the log ``reader`` reads, cut at ``cut``: the part before the cut here, the part
    after it in a forked child (``read_tail``), giving the runs to ``job``. ``idle`` is called
    once this process has read its part, before it waits for the child's: work to do while
    the child reads (it must give no warning, and change nothing the reading depends on).

    Returns:
        how the second part was read: ``child``; else ``here:`` and why the child's work
        was dropped (``no run at the cut``, ``a copy at the cut``, ``an open call``, ``the last
        model``) or there was
        none (``no temporary file``, ``no fork``: the whole log is read here). And the log's
        closing line, if it is a transcript.

    Raises:
        DamagedLogError, EntryError, OSError: as reading the log in one process would.
    """
    hooks = hooks or _NO_HOOKS
    try:
        # the child's output: WRITE_BYTES a system call (``sessiontools._pieces``)
        out = _temporary_file(WRITE_BYTES)
    except OSError:
        job.take(hooks.runs_of(reader))
        return "here: no temporary file", reader.closing_line
    with out:
        try:
            child = _Child(
                path,
                reader.name,
                cut,
                out,
                job,
                reader.export,
                reader.max_line_bytes,
                type(reader),
                hooks,
            )
        except OSError:
            job.take(hooks.runs_of(reader))
            return "here: no fork", reader.closing_line
        with child:
            first = reader.part(ReadPosition(), stop=cut)
            fold = hooks.make_fold(reader.name, warnings=reader.sink)
            job.take(_fed(hooks.tap(first), fold))  # the run open at the cut is not ended yet
            if idle is not None:
                idle()
            tail = child.result()
        at_cut = first.position
        if tail is None:
            why = "no run at the cut"
        elif at_cut.previous is not None and same_line(tail.first_line, at_cut.previous[0]):
            why = "a copy at the cut"
        elif tail.missed_calls & fold.open_call_ids:
            why = "an open call"
        elif tail.needs_model and any(fold.last_model):
            why = "the last model"
        else:
            why = ""
        if tail is None or why:
            rest = reader.part(at_cut)
            job.take(iter_runs(hooks.tap(rest), fold))
            return f"here: {why}", rest.closing_line
        at_cut.settle(reader.name)  # the line at the cut is an entry
        crashed = fold.finish()  # the run_started at the cut ends it, so before its warnings
        if crashed is not None:
            job.take(iter([crashed]))
        lines = at_cut.line  # before the cut
        reader.sink.replay(tail.said[: tail.first_said], lines)
        if tail.first_seq is not None:
            fold.check_seq(tail.first_seq, lines + 1)
        reader.sink.replay(tail.said[tail.first_said :], lines)
        error = tail.error
        if error is not None:  # one reader would not have gone past it
            raise type(error)(
                error.name, error.line + lines, error.offset, error.problem, error.hint
            )
        out.seek(0)
        job.merge(tail.result, out, set(fold.labels), fold.run_count)
    reader.seek_end()  # read to the end, as one process leaves it
    closing = tail.closing_line
    return "child", None if closing is None else replace(closing, line=closing.line + lines)


def read_runs(
    reader: LogReader,
    job: Job,
    *,
    workers: int | None,
    at: float | None = None,
    idle: Callable[[], object] | None = None,
    hooks: Hooks | None = None,
) -> ClosingLine | None:
    """Give the runs of the log ``reader`` reads to ``job``: cut in two and read in two
    processes when ``workers`` asks for it and the log can be cut (``plan_cut``, looking from
    ``at`` of the log), else read here (``job.take`` with every run). The output, warnings and
    errors are the same either way. ``idle``: see ``read_in_two`` (not called without a
    child). ``hooks``: see ``Hooks`` (the exports need none).

    Returns:
        The log's closing line, if it is a transcript.

    Raises:
        DamagedLogError, EntryError, OSError: as reading the log in one process would.
    """
    cut = plan_cut(reader, workers, at=at)
    if cut is None:
        hooks = hooks or _NO_HOOKS
        job.take(hooks.runs_of(reader))
        return reader.closing_line
    return read_in_two(reader, cut[0], cut[1], job, idle, hooks)[1]


def _temporary_file(buffering: int) -> IO[bytes]:
    """``tempfile.TemporaryFile(buffering=buffering)``: a file with no name, open for reading
    and writing, in the directory ``tempfile`` would choose: the first of ``TMPDIR``,
    ``TEMP``, ``TMP``, ``/tmp``, ``/var/tmp`` and ``/usr/tmp`` where a file can be made. Where
    Linux makes such a file at once (``O_TMPFILE``), made so without loading ``tempfile``,
    and ``shutil``, ``random`` and the compression modules it loads (12.9 M instructions,
    about 3 ms, before the fork); by ``tempfile`` when its directory was set
    (``tempfile.tempdir``), elsewhere, or when a directory refuses it for another reason than
    that the file cannot be made there.

    Raises:
        OSError: as ``tempfile.TemporaryFile``.
    """
    loaded = sys.modules.get("tempfile")
    flags = getattr(os, "O_TMPFILE", 0)
    if flags and getattr(loaded, "tempdir", None) is None:
        flags |= os.O_RDWR | os.O_EXCL | os.O_NOFOLLOW
        given = [os.environ[name] for name in ("TMPDIR", "TEMP", "TMP") if os.environ.get(name)]
        for directory in (*given, "/tmp", "/var/tmp", "/usr/tmp"):
            try:
                fd = os.open(directory, flags, 0o600)
            except OSError as e:
                if e.errno in _NOT_HERE:
                    continue  # as tempfile tries the next directory
                break
            try:
                return os.fdopen(fd, "wb+", buffering=buffering)
            except BaseException:
                os.close(fd)
                raise
    import tempfile  # (with shutil and what it loads)

    return tempfile.TemporaryFile(buffering=buffering)


#: Why a file cannot be made in a directory (``tempfile`` then tries the next one).
_NOT_HERE = frozenset(
    {
        errno.ENOENT,
        errno.ENOTDIR,
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.ENOSPC,
        errno.EDQUOT,
    }
)


def _fed(entries: Iterable[Entry], fold: SessionFold) -> Iterator[Run]:
    """``iter_runs`` without the end: the run still open is left open."""
    for entry in entries:
        run = fold.feed(entry)
        if run is not None:
            yield run


def copy(source: IO[bytes], length: int, write: Callable[[bytes], object]) -> None:
    """Write the next ``length`` bytes of ``source``, ``WRITE_BYTES`` at a time."""
    while length > 0:
        block = source.read(min(length, WRITE_BYTES))
        if not block:
            raise OSError("the temporary file of the second part ended early")
        write(block)
        length -= len(block)
