"""Stores: FileStore and MemoryStore (seed 002: "Store", "FileStore", "MemoryStore")."""

from __future__ import annotations

import errno
import gzip
import os
import select
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    NIL,
    DamagedLogError,
    Entry,
    FileStore,
    LogReader,
    MemoryStore,
    Message,
    MessageEntry,
    Part,
    PinsEntry,
    Store,
    StoreError,
    StoreLockedError,
    ToolCall,
    TornTailWarning,
    Usage,
    encode_entry,
    iter_entries,
)
from tests.helpers import SESSIONS
from tests.write.store_writer import BASE_UNIX_NANO, make_entry

WRITER = Path(__file__).resolve().parent / "store_writer.py"
DAMAGED = {"05_damaged_middle_line.jsonl"}  # raises DamagedLogError: not a session to copy
LOGS = sorted(p for p in SESSIONS.glob("*.jsonl") if p.name not in DAMAGED)
quiet = pytest.mark.filterwarnings("ignore::sessiontools.SessionToolsWarning")


def read_log(path: Path) -> list[Entry]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(iter_entries(path))


def lines_of(entries: list[Entry]) -> bytes:
    return b"".join(encode_entry(e) + b"\n" for e in entries)


def load_quietly(store: Store) -> tuple[list[Entry], list[warnings.WarningMessage]]:
    """``store.load()`` and the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        entries = store.load()
    return entries, caught


def torn_warnings(caught: list[warnings.WarningMessage]) -> int:
    return sum(issubclass(w.category, TornTailWarning) for w in caught)


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the syncs, for the tests that write thousands of files."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


# --- the Store protocol ----------------------------------------------------------------------


def test_both_stores_are_stores(tmp_path: Path) -> None:
    assert isinstance(FileStore(tmp_path / "s.jsonl"), Store)
    assert isinstance(MemoryStore(), Store)
    assert not isinstance(object(), Store)
    assert FileStore(tmp_path / "s.jsonl").path == str(tmp_path / "s.jsonl")


# --- FileStore: round trips ------------------------------------------------------------------


@quiet
@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_append_then_load_every_testdata_entry(tmp_path: Path, log: Path) -> None:
    entries = read_log(log)
    path = tmp_path / "copy.jsonl"
    with FileStore(path) as store:
        for entry in entries:
            store.append(entry)
        loaded, caught = load_quietly(store)
    assert loaded == entries
    assert torn_warnings(caught) == 0
    # The file is exactly the lines Go writes, and each loaded entry writes its line again.
    data = path.read_bytes() if entries else b""  # no append, no file (14_empty)
    assert path.exists() == bool(entries)
    assert data == lines_of(entries)
    assert [encode_entry(e) + b"\n" for e in loaded] == data.splitlines(keepends=True)
    assert [e.line for e in loaded] == list(range(1, len(entries) + 1))


def test_a_missing_file_is_an_empty_session(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "new.jsonl")
    assert store.load() == []
    assert not (tmp_path / "new.jsonl").exists()  # load does not create it
    assert FileStore(tmp_path / "no" / "dir" / "s.jsonl").load() == []


def test_the_first_append_creates_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FileStore(path)
    states = [(store.holds_lock, store.closed)]
    assert not path.exists()
    store.append(make_entry(0))
    assert path.read_bytes() == lines_of([make_entry(0)])
    states.append((store.holds_lock, store.closed))
    store.close()
    states.append((store.holds_lock, store.closed))
    assert states == [(False, False), (True, False), (False, True)]
    assert store.load() == [make_entry(0)]  # a closed store still reads


def test_a_symbolic_link_to_a_missing_file(tmp_path: Path) -> None:
    link = tmp_path / "s.jsonl"
    link.symlink_to(tmp_path / "target.jsonl")
    with FileStore(link) as store:
        store.append(make_entry(0))  # creates the file the link names, as Go would
    assert (tmp_path / "target.jsonl").read_bytes() == lines_of([make_entry(0)])
    assert FileStore(link).load() == [make_entry(0)]


# --- FileStore: durability -------------------------------------------------------------------


def test_fsync_once_per_append_and_on_the_directory_at_creation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: Counter[str] = Counter()
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        synced["dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file"] += 1
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    path = tmp_path / "s.jsonl"
    with FileStore(path) as store:
        store.append(make_entry(0))
        assert synced == {"file": 1, "dir": 1}  # created: the directory entry is synced too
        store.append(make_entry(1))
        store.append(make_entry(2))
        assert synced == {"file": 3, "dir": 1}
    with FileStore(path) as store:  # the file exists: no directory sync
        store.append(make_entry(3))
    assert synced == {"file": 4, "dir": 1}

    synced.clear()
    with FileStore(tmp_path / "opened.jsonl").open():  # open() creates the file, empty
        assert synced == {"dir": 1}
    assert (tmp_path / "opened.jsonl").read_bytes() == b""


def test_short_writes_are_continued(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write
    calls = 0

    def seven_bytes_at_most(fd: int, data: bytes | memoryview) -> int:
        nonlocal calls
        calls += 1
        return real_write(fd, memoryview(data)[:7])

    monkeypatch.setattr(os, "write", seven_bytes_at_most)
    path = tmp_path / "s.jsonl"
    entries = [make_entry(0, 50), make_entry(1, 50)]
    with FileStore(path) as store:
        for e in entries:
            store.append(e)
    assert path.read_bytes() == lines_of(entries)
    assert calls >= len(lines_of(entries)) // 7


# Write N entries, then cut the file at every byte, as a crash (or the power failing) can.
# Whatever the cut, load gives exactly the entries whose line is complete in the prefix. A
# line whose JSON is complete but whose "\n" was not written yet is loaded: reading.md says
# only a last line that is not complete JSON is torn. A cut inside a line (a UTF-8 sequence
# included) gives a torn tail, ignored with a warning. Then a writer opening the cut file cuts
# the torn line away (or adds the missing "\n") and its entry follows cleanly.
@pytest.mark.usefixtures("no_fsync")
def test_a_crash_at_every_byte(tmp_path: Path) -> None:
    odd = read_log(SESSIONS / "12_odd_bytes.jsonl")
    entries = [
        *read_log(SESSIONS / "01_one_run_tool.jsonl")[:4],
        odd[2],
        read_log(SESSIONS / "04_torn_tail.jsonl")[-1],
        make_entry(20, 12),  # "é" in the content: cuts inside UTF-8 sequences
    ]
    written = tmp_path / "written.jsonl"
    with FileStore(written) as store:
        for e in entries:
            store.append(e)
    data = written.read_bytes()
    assert data == lines_of(entries)
    starts, ends = [], []  # each line's first byte, and the byte after its JSON (its "\n")
    offset = 0
    for e in entries:
        starts.append(offset)
        offset += len(encode_entry(e))
        ends.append(offset)
        offset += 1
    new = make_entry(99)
    new_line = encode_entry(new) + b"\n"

    for cut in range(len(data) + 1):
        prefix = data[:cut]
        path = tmp_path / f"cut{cut}.jsonl"
        path.write_bytes(prefix)
        complete = sum(end <= cut for end in ends)
        loaded, caught = load_quietly(FileStore(path))
        assert loaded == entries[:complete], cut
        inside = complete < len(entries) and starts[complete] < cut
        assert torn_warnings(caught) == inside, cut

        with FileStore(path) as store:
            store.append(new)
        if inside:
            expected = prefix[: starts[complete]] + new_line  # the torn line is cut away
        elif prefix and not prefix.endswith(b"\n"):
            expected = prefix + b"\n" + new_line  # complete JSON, its "\n" added
        else:
            expected = prefix + new_line
        assert path.read_bytes() == expected, cut
        loaded, caught = load_quietly(FileStore(path))
        assert loaded == [*entries[:complete], new], cut
        assert not caught, cut
        path.unlink()


def _entry_line(seq: int) -> bytes:
    return encode_entry(make_entry(seq, 6))


_GARBAGE = st.one_of(
    st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")),
    st.sampled_from([b"{", b'{"seq":', b"\xc3", b"\xff", b'"\\', b"nul", b"\f", b"\x00"]),
    st.integers(1, len(_entry_line(7)) - 1).map(lambda n: _entry_line(7)[:n]),
)
_BLANKS = st.sampled_from([b"", b"\n", b" \n", b"\r\n", b"\t\n\n", b" ", b"\r"])
_TAILS = st.tuples(
    _BLANKS,
    st.sampled_from([b"", _entry_line(5) + b"\n", _entry_line(5) + b"\r\n", _entry_line(5)]),
    st.one_of(st.just(b""), _GARBAGE),
    _BLANKS,
).map(b"".join)


def _go_reads(line: bytes) -> bool:
    """Whether Go's decoder reads ``line`` as one JSON value, judged here by Python's own json
    (an invalid byte read as U+FFFD, as Go does; no NaN): the lines below are shallow."""
    import json

    def no_constants(name: str) -> None:
        raise ValueError(name)

    try:
        json.loads(line.decode("utf-8", "replace"), parse_constant=no_constants)
    except ValueError:
        return False
    return True


# Whatever the last lines hold, the writer cuts away exactly a last line that lacks its "\n"
# and is not complete JSON (the tail of a write cut short, which load ignores), keeps everything
# else, and its entry follows cleanly. A last line that ends with its "\n" is kept, whatever it
# holds (issue 10, item 23): if it is not JSON, the log was damaged before the writer came, and
# load says so after.
@settings(max_examples=300, deadline=None)
@given(tail=_TAILS)
def test_the_writer_cuts_only_a_torn_tail(tail: bytes) -> None:
    data = _entry_line(0) + b"\n" + _entry_line(1) + b"\n" + tail
    body = data.rstrip(b" \t\r\n")
    start = body.rfind(b"\n") + 1
    last, terminated = body[start:], b"\n" in data[len(body) :]
    new = make_entry(9, 6)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.jsonl")
        with open(path, "wb") as f:
            f.write(data)
        complete = _go_reads(last)
        if complete and not last.lstrip().startswith(b'{"seq"'):
            # JSON but not an entry: a transcript's outcome line, not a session to append to
            with pytest.raises(StoreError, match="closing outcome line"):
                FileStore(path).append(new)
            with open(path, "rb") as f:
                assert f.read() == data
            return
        with FileStore(path) as store:
            store.append(new)
        with open(path, "rb") as f:
            after = f.read()
        if not complete and not terminated:
            kept = data[:start]  # torn: cut away
        elif data.endswith(b"\n"):
            kept = data
        else:
            kept = data + b"\n"
        assert after == kept + encode_entry(new) + b"\n"
        if not complete and terminated:  # a damaged line stays, before the new one: reported
            with pytest.raises(DamagedLogError):
                load_quietly(FileStore(path))
            return
        with open(path, "wb") as f:
            f.write(kept)
        expected = read_log(Path(path))
        with open(path, "wb") as f:
            f.write(after)
        loaded, caught = load_quietly(FileStore(path))
    assert loaded == [*expected, new]
    assert not caught


# --- FileStore: a writer killed --------------------------------------------------------------


class Child:
    """A store_writer.py process, its stdout read line by line with a timeout."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(WRITER), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._buffer = b""

    def _read(self, timeout: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            self.kill()
            raise TimeoutError("the writer process said nothing")
        return os.read(fd, 1 << 16)

    def readline(self, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            chunk = self._read(max(0.0, deadline - time.monotonic()))
            if not chunk:
                assert self.proc.stderr is not None
                raise EOFError(f"the writer process ended: {self.proc.stderr.read()!r}")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def rest(self) -> list[str]:
        """Every line still to read, once the process has ended."""
        while chunk := self._read(30):
            self._buffer += chunk
        return self._buffer.decode().splitlines()

    def finish(self) -> int:
        """Close stdin and wait for the process to end."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(30)

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(30)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.kill()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def children() -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:
        child.close()


@quiet
@pytest.mark.parametrize("reports", [1, 3, 10, 40])
def test_kill_the_writer(tmp_path: Path, children: list[Child], reports: int) -> None:
    # SIGKILL lands between appends, after a write before its report (the entry is there,
    # unreported), or inside a write (a torn tail): all three happen over a few runs.
    path = tmp_path / "s.jsonl"
    size = 1000 + 500 * reports  # the kill lands at different points of a line
    child = Child(str(path), "2000", "--size", str(size))
    children.append(child)
    reported = [int(child.readline()) for _ in range(reports)]
    child.proc.send_signal(signal.SIGKILL)
    child.proc.wait(30)
    reported += [int(line) for line in child.rest()]  # said before it died
    assert reported == list(range(len(reported)))

    # Every entry the writer reported is there; the one it was writing may be too.
    loaded = FileStore(path).load()
    durable = [make_entry(seq, size) for seq in reported]
    assert loaded in (durable, [*durable, make_entry(len(reported), size)])

    # The kernel gave the lock back at the writer's death: a new writer appends.
    new = make_entry(len(loaded), 10)
    with FileStore(path) as store:
        store.append(new)
    loaded_again, caught = load_quietly(FileStore(path))
    assert loaded_again == [*loaded, new]
    assert not caught


# --- FileStore: one writer at a time ---------------------------------------------------------


def test_a_second_writer_in_this_process_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    first, second = FileStore(path), FileStore(path)
    first.append(make_entry(0))
    with pytest.raises(StoreLockedError) as refused:
        second.append(make_entry(1))
    message = str(refused.value)
    assert str(path) in message and "another writer" in message and "\n" not in message
    assert refused.value.path == str(path)
    with pytest.raises(StoreLockedError):
        second.open()
    assert not second.holds_lock
    assert second.load() == first.load() == [make_entry(0)]  # reading needs no lock

    first.close()
    second.append(make_entry(1))
    with pytest.raises(StoreError, match="closed"):
        first.append(make_entry(2))
    with pytest.raises(StoreError, match="closed"):
        first.open()
    second.close()
    assert FileStore(path).load() == [make_entry(0), make_entry(1)]


def test_open_takes_the_lock_before_any_append(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with FileStore(path).open() as holder:
        assert holder.holds_lock
        assert holder.open() is holder  # again: nothing changes
        with pytest.raises(StoreLockedError), FileStore(path) as other:
            other.append(make_entry(0))
    with FileStore(path) as other:
        other.append(make_entry(0))
    assert FileStore(path).load() == [make_entry(0)]


def test_a_writer_in_another_process_is_refused(tmp_path: Path, children: list[Child]) -> None:
    path = tmp_path / "s.jsonl"
    child = Child(str(path), "2", "--hold")
    children.append(child)
    assert [child.readline() for _ in range(3)] == ["0", "1", "holding"]

    store = FileStore(path)
    with pytest.raises(StoreLockedError, match="another writer holds this session file"):
        store.append(make_entry(2))
    assert store.load() == [make_entry(0), make_entry(1)]  # while the other process holds it

    assert child.finish() == 0
    assert child.rest() == ["closed"]
    store.append(make_entry(2))  # the same store, now that the other writer closed
    assert store.load() == [make_entry(0), make_entry(1), make_entry(2)]

    # And the other way round: this process holds the lock, the other one is refused.
    refused = Child(str(path), "1", "--start", "3")
    children.append(refused)
    line = refused.readline()
    assert line.startswith("locked: ") and str(path) in line
    assert refused.proc.wait(30) == 3
    store.close()
    allowed = Child(str(path), "1", "--start", "3")
    children.append(allowed)
    assert allowed.readline() == "3"
    assert allowed.proc.wait(30) == 0
    assert [e.seq for e in store.load()] == [0, 1, 2, 3]


@pytest.mark.usefixtures("no_fsync")
def test_threads_appending_through_one_store(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    store = FileStore(path)

    def append_some(first: int) -> None:
        for seq in range(first, first + 50):
            store.append(make_entry(seq, 300))

    threads = [threading.Thread(target=append_some, args=(i * 50,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.close()
    loaded, caught = load_quietly(store)
    assert sorted(e.seq for e in loaded) == list(range(200))
    assert not caught


# --- FileStore: what a writer finds at the end of the file -----------------------------------


def test_a_torn_tail_is_cut_by_the_next_writer(tmp_path: Path) -> None:
    original = (SESSIONS / "04_torn_tail.jsonl").read_bytes()
    reader = LogReader(SESSIONS / "04_torn_tail.jsonl")
    with pytest.warns(TornTailWarning):
        entries = list(reader)
    assert reader.torn_tail is not None
    path = tmp_path / "s.jsonl"
    path.write_bytes(original)

    new = make_entry(entries[-1].seq + 1)
    with FileStore(path) as store:
        store.append(new)
    assert path.read_bytes() == original[: reader.torn_tail.offset] + encode_entry(new) + b"\n"
    loaded, caught = load_quietly(FileStore(path))
    assert loaded == [*entries, new]
    assert not caught


def test_open_alone_cuts_the_torn_tail(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    whole = lines_of([make_entry(0), make_entry(1)])
    path.write_bytes(whole + encode_entry(make_entry(2))[:-9])
    with FileStore(path).open():
        assert path.read_bytes() == whole
    assert path.read_bytes() == whole


def test_a_complete_last_line_gets_its_newline(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    without_newline = lines_of([make_entry(0), make_entry(1)])[:-1]
    path.write_bytes(without_newline)
    assert FileStore(path).load() == [make_entry(0), make_entry(1)]
    with FileStore(path) as store:
        store.append(make_entry(2))
        store.append(make_entry(3))
    assert path.read_bytes() == lines_of([make_entry(i) for i in range(4)])


@quiet
@pytest.mark.parametrize("line_no", [3, 15])
def test_a_last_line_only_go_reads_is_not_torn(tmp_path: Path, line_no: int) -> None:
    # Lines 3 and 15 of 12_odd_bytes hold invalid UTF-8 and a lone surrogate: orjson refuses
    # them, Go reads them (reading.md, "Bytes"). Complete, so a writer must not cut them.
    odd = (SESSIONS / "12_odd_bytes.jsonl").read_bytes().split(b"\n")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(odd[:line_no]))  # that line last, without its "\n"
    before = FileStore(path).load()
    assert len(before) == line_no
    with FileStore(path) as store:
        store.append(make_entry(99))
    assert path.read_bytes() == b"\n".join(odd[:line_no]) + b"\n" + lines_of([make_entry(99)])
    loaded, caught = load_quietly(FileStore(path))
    assert loaded == [*before, make_entry(99)]
    assert torn_warnings(caught) == 0


def test_blank_lines_at_the_end_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of([make_entry(0)]) + b"\n \r\n")
    with FileStore(path) as store:
        store.append(make_entry(1))
    assert path.read_bytes() == lines_of([make_entry(0)]) + b"\n \r\n" + lines_of([make_entry(1)])
    assert FileStore(path).load() == [make_entry(0), make_entry(1)]


# --- FileStore: failures ---------------------------------------------------------------------


def _half_then_enospc(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.write writes half of what it is given, then fails: the disk is full."""
    real_write = os.write
    calls = 0

    def write(fd: int, data: bytes | memoryview) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            view = memoryview(data)
            return real_write(fd, view[: len(view) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("ending", ["newline", "no newline", "new file"])
def test_a_write_failing_partway_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ending: str
) -> None:
    path = tmp_path / "s.jsonl"
    before = {
        "newline": lines_of([make_entry(0)]),
        "no newline": lines_of([make_entry(0)])[:-1],
        "new file": b"",
    }[ending]
    if ending != "new file":
        path.write_bytes(before)
    store = FileStore(path)
    _half_then_enospc(monkeypatch)
    with pytest.raises(StoreError) as failed:
        store.append(make_entry(1, 5000))
    message = str(failed.value)
    assert str(path) in message and "No space left on device" in message
    assert "as it was" in message and "\n" not in message
    assert isinstance(failed.value.__cause__, OSError)
    assert failed.value.__cause__.errno == errno.ENOSPC
    assert path.read_bytes() == before

    monkeypatch.undo()  # the disk has room again: the same store appends cleanly
    store.append(make_entry(1))
    store.close()
    expected = [make_entry(1)] if ending == "new file" else [make_entry(0), make_entry(1)]
    assert path.read_bytes() == lines_of(expected)


def test_a_failed_sync_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    with FileStore(path) as store:
        store.append(make_entry(0))

        def failing_fsync(fd: int) -> None:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        monkeypatch.setattr(os, "fsync", failing_fsync)
        with pytest.raises(StoreError, match="Input/output error"):
            store.append(make_entry(1))
        assert path.read_bytes() == lines_of([make_entry(0)])


def test_a_missing_directory(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "s.jsonl"
    with pytest.raises(StoreError) as failed:
        FileStore(path).append(make_entry(0))
    message = str(failed.value)
    assert "does not exist" in message and str(tmp_path / "nowhere") in message
    assert "\n" not in message
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files")
def test_a_read_only_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of([make_entry(0)]))
    path.chmod(0o444)
    store = FileStore(path)
    with pytest.raises(StoreError, match="cannot open the session file for writing"):
        store.append(make_entry(1))
    assert store.load() == [make_entry(0)]  # it can still be read
    assert path.read_bytes() == lines_of([make_entry(0)])


def test_a_file_that_cannot_be_opened_for_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As test_a_read_only_file, for a test run as root (which may write read-only files).
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of([make_entry(0)]))
    real_open = os.open

    def refusing_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(file) == str(path) and flags & os.O_RDWR:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(StoreError) as failed:
        FileStore(path).append(make_entry(1))
    message = str(failed.value)
    assert message == (f"{path}: cannot open the session file for writing: Permission denied"), (
        message
    )
    assert isinstance(failed.value.__cause__, PermissionError)
    assert FileStore(path).load() == [make_entry(0)]


def test_a_directory_is_not_a_session_file(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="Is a directory"):
        FileStore(tmp_path).append(make_entry(0))


@quiet
def test_load_never_changes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes((SESSIONS / "04_torn_tail.jsonl").read_bytes())
    os.utime(path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = path.read_bytes(), path.stat().st_mtime_ns, path.stat().st_size
    FileStore(path).load()
    with FileStore(path) as store:
        store.load()
        store.load()
    assert (path.read_bytes(), path.stat().st_mtime_ns, path.stat().st_size) == before


# --- MemoryStore -----------------------------------------------------------------------------


@quiet
@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_memory_round_trip(log: Path) -> None:
    entries = read_log(log)
    store = MemoryStore()
    for entry in entries:
        store.append(entry)
    loaded = store.load()
    assert loaded == entries == MemoryStore(*entries).load()
    for went_in, came_out in zip(entries, loaded, strict=True):
        assert came_out is not went_in
        assert came_out.payload is not went_in.payload
    again = store.load()
    assert again == loaded
    assert all(a is not b for a, b in zip(again, loaded, strict=True))


def _tool_call_entry(arguments: dict[str, Any]) -> Entry:
    call = ToolCall(id="c1", name="clock", input=arguments)
    message = Message(role="assistant", parts=(Part(type="tool_call", tool_call=call),))
    return Entry(
        seq=3,
        time_unix_nano=make_entry(3).time_unix_nano,
        type="message",
        payload=MessageEntry(message=message, usage=Usage(10, 2), stop="tool_use"),
        utc_offset_seconds=7200,
    )


def test_memory_shares_nothing_with_the_caller() -> None:
    arguments = {"zone": "Europe/Paris", "formats": ["iso"]}
    store = MemoryStore(_tool_call_entry(arguments))
    arguments["zone"] = "UTC"  # the caller changes its own value afterwards
    arguments["formats"].append("unix")  # type: ignore[attr-defined]
    (loaded,) = store.load()
    assert loaded == _tool_call_entry({"zone": "Europe/Paris", "formats": ["iso"]})
    assert isinstance(loaded.payload, MessageEntry)
    loaded.payload.message.parts[0].tool_call.input["zone"] = "changed"  # type: ignore[union-attr]
    assert store.load() == [_tool_call_entry({"zone": "Europe/Paris", "formats": ["iso"]})]


def test_memory_behaves_like_a_file(tmp_path: Path) -> None:
    odd = _tool_call_entry({"text": "lone \ud83d surrogate"})
    memory = MemoryStore(make_entry(0), odd)
    with FileStore(tmp_path / "s.jsonl") as file:
        file.append(make_entry(0))
        file.append(odd)
        assert memory.load() == file.load()
    (_, loaded) = memory.load()
    # Written as Go writes it, a lone surrogate comes back as U+FFFD.
    assert loaded == _tool_call_entry({"text": "lone \ufffd surrogate"})


def test_a_transcript_is_not_appended_to(tmp_path: Path) -> None:
    """A transcript ends with its closing outcome line, which is not an entry: an entry
    appended after it would leave that line in the middle, and the log unreadable."""
    path = tmp_path / "transcript.jsonl"
    original = (SESSIONS / "06_transcript.jsonl").read_bytes()
    path.write_bytes(original)
    entries = read_log(path)
    store = FileStore(path)
    with pytest.raises(StoreError, match=r"closing outcome line.*cannot be appended to"):
        store.append(entries[-1])
    assert path.read_bytes() == original
    assert not store.holds_lock


def test_load_reads_the_file_as_it_is(tmp_path: Path) -> None:
    """Issue 10: ``load`` keeps an entry written twice (an exact read writes back what Go
    wrote), and does not decompress: a gzip file is no log a store can append to."""
    lines = LOGS[0].read_bytes().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines[0] + lines[0] + b"".join(lines[1:]))
    loaded = FileStore(path).load()
    assert b"".join(encode_entry(e) + b"\n" for e in loaded) == path.read_bytes()
    packed = tmp_path / "s.jsonl.gz"
    packed.write_bytes(gzip.compress(b"".join(lines)))
    with pytest.raises(DamagedLogError, match="not an agentloop JSON-lines log"):
        FileStore(packed).load()


# --- issue 10: what the writer writes, and what the next writer keeps -------------------------


def test_pins_keys_are_escaped_as_go_escapes_strings(tmp_path: Path) -> None:
    """Issue 10, item 2. Go's encoder writes a map's keys exactly as it writes strings
    (``encode.go``: ``e.string(kv.ks, opts.escapeHTML)``), sorted by their bytes. So, by its
    rules for strings: ``<``, ``>``, ``&`` as ``\\u003c``, ``\\u003e``, ``\\u0026``; U+2028 and
    U+2029 as ``\\u2028``, ``\\u2029``; ``"`` and ``\\`` as ``\\"`` and ``\\\\``; ``\\n``
    and ``\\t`` short; other control characters as ``\\u00XX``; DEL and everything else as
    UTF-8. The keys, sorted by code point (which is UTF-8's byte order): "\\x01\\x1f"
    (0x01), "<script>" (0x3c), 'a"b', "c\\\\d", "e\\u2028f\\u2029", "i&j", "tab\\t\\n\\x7f".
    Written raw, the ``"`` made an invalid line that the next writer cut away as a torn tail:
    the pins were lost."""
    pins = {
        "<script>": "sha256:1",
        'a"b': "sha256:2",
        "c\\d": "sha256:3",
        "e\u2028f\u2029": "sha256:4",
        "\x01\x1f": "sha256:5",
        "i&j": "x<y",
        "tab\t\n\x7f": "sha256:7",
    }
    entry = Entry(1, BASE_UNIX_NANO, "pins", PinsEntry(pins), 7200)
    expected = (
        b'{"seq":1,"time":"2026-10-18T09:30:00+02:00","type":"pins","pins":{"pins":{'
        b'"\\u0001\\u001f":"sha256:5",'
        b'"\\u003cscript\\u003e":"sha256:1",'
        b'"a\\"b":"sha256:2",'
        b'"c\\\\d":"sha256:3",'
        b'"e\\u2028f\\u2029":"sha256:4",'
        b'"i\\u0026j":"x\\u003cy",'
        b'"tab\\t\\n\x7f":"sha256:7"}}}\n'
    )
    path = tmp_path / "s.jsonl"
    with FileStore(path) as store:
        store.append(entry)
    assert path.read_bytes() == expected
    with FileStore(path) as store:  # the next writer keeps the line
        store.append(make_entry(2))
    assert path.read_bytes() == expected + lines_of([make_entry(2)])
    assert FileStore(path).load() == [entry, make_entry(2)]
    assert MemoryStore(entry, make_entry(2)).load() == [entry, make_entry(2)]


def test_pins_keys_the_same_once_written_are_refused() -> None:
    """A lone surrogate is written as U+FFFD (Go writes invalid UTF-8 so): two keys that
    differ only there would be one key in the line."""
    with pytest.raises(ValueError, match="two keys of one map are the same once written"):
        encode_entry(Entry(1, 0, "pins", PinsEntry(dict([("a\ud800", "1"), ("a\ufffd", "2")]))))
    # A lone surrogate alone is written, and sorts as U+FFFD.
    line = encode_entry(Entry(1, 0, "pins", PinsEntry({"\ud800": "1", "\ue000": "2"})))
    assert line.endswith(b'"pins":{"pins":{"\xee\x80\x80":"2","\\ufffd":"1"}}}')


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=6), st.text(max_size=3), max_size=5))
def test_any_pins_round_trip(pins: dict[str, str]) -> None:
    """Whatever the tool names, the line is one valid JSON line (Python's own json reads it)
    with no raw character Go escapes, and reads back as the pins written (a lone surrogate
    as U+FFFD)."""
    import json

    clean = {k.translate(_LONE): v.translate(_LONE) for k, v in pins.items()}
    if len(clean) != len(pins):
        return  # two keys the same once written: refused (the test above)
    entry = Entry(1, 0, "pins", PinsEntry(pins))
    line = encode_entry(entry)
    assert b"\n" not in line and not any(c in line for c in b"<>&\r\t")
    assert b"\xe2\x80\xa8" not in line and b"\xe2\x80\xa9" not in line
    assert json.loads(line)["pins"]["pins"] == clean
    (read,) = MemoryStore(entry).load()
    assert read == Entry(1, 0, "pins", PinsEntry(clean))
    keys = list(json.loads(line)["pins"]["pins"])
    assert keys == sorted(keys)


_LONE = str.maketrans({c: "\ufffd" for c in range(0xD800, 0xE000)})


def test_a_turn_without_parts_keeps_its_null(tmp_path: Path) -> None:
    """Issue 10, item 3. A ``max_tokens`` turn can end before any part: Go's ``Message.Parts``
    is then nil, written ``"parts":null`` (the field has no ``omitempty``), next to the
    provider's ``native`` record. Go writes back what it read; so must every exact read.
    (The line is the seed's ``MessageEntry`` as ``json.Marshal`` writes it: fields in
    declaration order, ``stop`` and ``model`` set, the zero cache counts left out.)"""
    line = (
        b'{"seq":4,"time":"2026-10-18T09:30:04+02:00","type":"message","message":{"message":'
        b'{"role":"assistant","parts":null,"native":{"provider":"anthropic","model":"claude-x",'
        b'"data":{"stop_reason":"max_tokens","content":[]}}},"stop":"max_tokens",'
        b'"usage":{"input_tokens":10,"output_tokens":4096},"model":"claude-x"}}\n'
    )
    path = tmp_path / "s.jsonl"
    path.write_bytes(line)
    (entry,) = FileStore(path).load()
    assert isinstance(entry.payload, MessageEntry)
    assert entry.payload.message.parts is NIL
    assert encode_entry(entry) + b"\n" == line
    (exact,) = LogReader(path, exact=True)
    assert exact.payload.message.parts is NIL  # type: ignore[union-attr]
    assert encode_entry(exact) + b"\n" == line
    (from_memory,) = MemoryStore(entry).load()
    assert encode_entry(from_memory) + b"\n" == line
    with FileStore(tmp_path / "copy.jsonl") as store:
        store.append(entry)
    assert (tmp_path / "copy.jsonl").read_bytes() == line


def _deep_entry_line(seq: int, levels: int) -> bytes:
    """A message entry whose tool input nests so that the line nests ``levels`` deep in all
    (six levels lead to the input: the entry, message, message.message, parts, the part,
    tool_call); spaced, so that it is written back compacted."""
    deep = b"[ " * (levels - 6) + b"1" + b" ]" * (levels - 6)
    return (
        b'{"seq":%d,"time":"2026-10-18T09:30:00+02:00","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c","name":"t",'
        b'"input":%s}}]},"usage":{"input_tokens":0,"output_tokens":0}}}' % (seq, deep)
    )


@pytest.mark.parametrize("newline", [b"", b"\n"])
def test_a_deep_last_line_is_not_torn(tmp_path: Path, newline: bytes) -> None:
    """Issue 10, item 23: a complete line nested 2,000 levels deep (Go reads 10,000) was
    taken for a torn write, and cut away the first time a writer opened the file."""
    deep = _deep_entry_line(1, 2_000)
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of([make_entry(0)]) + deep + newline)
    before = FileStore(path).load()
    assert len(before) == 2
    with FileStore(path) as store:
        store.append(make_entry(2))
    assert path.read_bytes() == lines_of([make_entry(0)]) + deep + b"\n" + lines_of([make_entry(2)])
    loaded, caught = load_quietly(FileStore(path))
    assert loaded == [*before, make_entry(2)] and not caught
    # Written back as Go writes it: compacted (Go's bytes for this line are in
    # tests/roundtrip, oddities line 32, without the spaces).
    compact = deep.replace(b"[ ", b"[").replace(b" ]", b"]")
    with FileStore(tmp_path / "copy.jsonl") as copy:
        for entry in loaded:
            copy.append(entry)
    assert (tmp_path / "copy.jsonl").read_bytes() == lines_of([make_entry(0)]) + compact + (
        b"\n" + lines_of([make_entry(2)])
    )
    assert MemoryStore(*loaded).load() == loaded


def test_a_line_too_deep_for_go_is_torn_only_without_its_newline(tmp_path: Path) -> None:
    """One level more than Go reads is not complete JSON (Go's "exceeded max depth"): cut
    when it is the last line and lacks its newline, kept (and reported as damage once
    something follows it) when it has its newline."""
    too_deep = _deep_entry_line(1, 10_001)
    path = tmp_path / "s.jsonl"
    path.write_bytes(lines_of([make_entry(0)]) + too_deep)
    with FileStore(path) as store:
        store.append(make_entry(2))
    assert path.read_bytes() == lines_of([make_entry(0), make_entry(2)])
    path.write_bytes(lines_of([make_entry(0)]) + too_deep + b"\n")
    with FileStore(path) as store:
        store.append(make_entry(2))
    assert path.read_bytes() == lines_of([make_entry(0)]) + too_deep + b"\n" + lines_of(
        [make_entry(2)]
    )
    with pytest.raises(DamagedLogError, match=r"line 2 .*10,000 levels"):
        FileStore(path).load()


def test_a_last_line_with_its_newline_is_never_cut(tmp_path: Path) -> None:
    """Issue 10, item 23: the newline is the last byte an append writes, so a line that has it
    was written whole, whatever it holds; cutting it could only lose data."""
    for last in (b'{"seq":1,"time":', b"\xff\xfe not JSON", _deep_entry_line(1, 3_000)[:-1]):
        path = tmp_path / "s.jsonl"
        path.write_bytes(lines_of([make_entry(0)]) + last + b"\n")
        with FileStore(path).open():
            pass
        assert path.read_bytes() == lines_of([make_entry(0)]) + last + b"\n"
        path.unlink()
