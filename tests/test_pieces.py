"""Large outputs reach the kernel in writes of at most ``WRITE_BYTES`` (``sessiontools._pieces``):
the helper itself, the command's output file, and the traces export's pieces."""

from __future__ import annotations

import io
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessiontools import export_otlp_json, iter_runs
from sessiontools._pieces import WRITE_BYTES, write_in_pieces
from tests.helpers import SESSIONS

_W = WRITE_BYTES


@given(st.sampled_from([0, 1, _W - 1, _W, _W + 1, 2 * _W, 3 * _W + 5]), st.binary(max_size=3))
def test_write_in_pieces_splits_at_write_bytes_and_keeps_the_order(size: int, tail: bytes) -> None:
    data = bytes(range(256)) * (size // 256) + bytes(size % 256) + tail
    pieces: list[bytes] = []
    write_in_pieces(lambda piece: pieces.append(bytes(piece)), data)
    assert b"".join(pieces) == data
    assert all(len(piece) <= _W for piece in pieces)
    assert len(pieces) == max(1, -(-len(data) // _W))  # as few as can be


def test_a_small_write_is_passed_as_it_is() -> None:
    data = b"x" * _W
    given_: list[object] = []
    write_in_pieces(given_.append, data)
    assert given_ == [data] and given_[0] is data


def test_the_commands_output_file_gets_no_write_over_write_bytes(tmp_path: Path) -> None:
    from sessiontools._cli.output import _Output

    sizes: list[int] = []
    target = tmp_path / "out.json"
    data = bytes(range(256)) * 1000  # 256,000 bytes in one piece
    with _Output(str(target)) as out:
        real = out.file

        class Recording(io.RawIOBase):
            def write(self, b: bytes | memoryview) -> int:  # type: ignore[override]
                sizes.append(len(b))
                return real.write(b)

            def flush(self) -> None:
                real.flush()

            def fileno(self) -> int:
                return real.fileno()

            def close(self) -> None:
                real.close()

        out.file = Recording()  # type: ignore[assignment]
        out.write(b"{")
        out.write(data)
        out.commit()
    assert target.read_bytes() == b"{" + data
    assert sizes and max(sizes) <= _W and sum(sizes) == len(data) + 1


def _small_writes(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    """Every module that took ``WRITE_BYTES`` sees ``size`` instead."""
    for name, module in list(sys.modules.items()):
        if name.startswith("sessiontools") and hasattr(module, "WRITE_BYTES"):
            monkeypatch.setattr(module, "WRITE_BYTES", size)


@pytest.mark.parametrize("workers", [1, 2])
def test_the_export_is_written_in_pieces_of_write_bytes_same_bytes(
    monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """With ``WRITE_BYTES`` made small, the export gives its ``write`` pieces of at most that
    (the first with its ``,"spans":[``), save one run's spans larger than that; the bytes are
    those of the export with the real size, in one process and in two."""
    log = SESSIONS / "02_runs_anthropic_openai_cache.jsonl"
    whole: list[bytes] = []
    export_otlp_json(log, whole.append, workers=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = {b",".join(spans) for spans in _run_spans(log)}
    small = 700
    assert max(map(len, runs)) > small  # so that a run larger than a piece is among them
    _small_writes(monkeypatch, small)
    pieces: list[bytes] = []
    export_otlp_json(log, pieces.append, workers=workers)
    assert b"".join(pieces) == b"".join(whole)
    head = b',"spans":['
    spans = pieces[1:-2]  # the head and the tail aside
    assert len(spans) > 2
    for piece in spans:
        if len(piece) > small:  # one run's spans, larger than a piece
            assert piece.removeprefix(head).removeprefix(b",") in runs


def _run_spans(log: Path) -> list[list[bytes]]:
    from sessiontools._log.reader import ExportReader
    from sessiontools._otel.otlp_json import run_json

    options = (log.stem, None, None, None, False)
    return [run_json(run, options)[0] for run in iter_runs(ExportReader(log))]


def test_the_split_child_and_the_merge_write_pieces_of_write_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child of a log read in two writes its temporary file, and the parent passes the
    child's spans on, in pieces of at most ``WRITE_BYTES``, a labels attribute written again
    as each run's was; the bytes are the same."""
    from sessiontools._log.reader import ExportReader
    from sessiontools._otel.export import _Spans
    from sessiontools._otel.otlp_json import Envelope

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = list(iter_runs(ExportReader(SESSIONS / "02_runs_anthropic_openai_cache.jsonl")))
    options = ("c", None, None, None, False)

    def child_and_merge() -> tuple[list[bytes], list[bytes]]:
        writes: list[bytes] = []

        class Out(io.BytesIO):
            def write(self, data: bytes | memoryview) -> int:  # type: ignore[override]
                writes.append(bytes(data))
                return len(data)

        job = _Spans(Envelope(lambda data: None, "agentloop"), options)
        result = job.make_in_child(iter(runs), Out())
        merged: list[bytes] = []
        parent = _Spans(Envelope(merged.append, "agentloop"), options)
        head = len(merged)
        parent.merge(result, io.BytesIO(b"".join(writes)), {"zz-before-the-cut"}, 0)
        return writes, merged[head:]

    writes, merged = child_and_merge()
    small = 600
    _small_writes(monkeypatch, small)
    small_writes, small_merged = child_and_merge()
    assert b"".join(small_writes) == b"".join(writes)
    assert b"".join(small_merged) == b"".join(merged)
    assert len(small_writes) > len(writes) and max(map(len, small_writes)) <= small
    assert len(small_merged) > 2
    assert max(map(len, small_merged[1:])) <= small
    assert len(small_merged[0]) <= small + len(b',"spans":[') - 1


def test_a_full_disk_says_cannot_write_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    """A write cut short leaves the rest of its piece in the file's buffer (under 8 KiB: the
    third piece here), the next one fails (ENOSPC), and so does closing the file. The command
    still says ``cannot write`` (not a bare ``OSError``, which it took for the log's), and the
    temporary file is removed; the old file stays."""
    import errno
    import os

    from sessiontools._cli.messages import _Failure
    from sessiontools._cli.output import _Output

    target = tmp_path / "out.json"
    target.write_bytes(b"old content")

    class Full(io.RawIOBase):
        """A disk with ``room`` bytes left: a write past it is cut short, then refused."""

        def __init__(self, fd: int, room: int) -> None:
            self.fd, self.room = fd, room

        def writable(self) -> bool:
            return True

        def write(self, b: bytes | memoryview) -> int:  # type: ignore[override]
            if not self.room:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            n = min(len(b), self.room)
            self.room -= n
            return os.write(self.fd, bytes(b)[:n])

        def fileno(self) -> int:
            return self.fd

        def close(self) -> None:
            try:
                super().close()
            finally:
                os.close(self.fd)

    failure = r"^cannot write .*out\.json: No space left on device"
    with pytest.raises(_Failure, match=failure), _Output(str(target)) as out:
        real = out.file
        out.file = io.BufferedWriter(Full(os.dup(real.fileno()), 115_000))
        real.close()
        for _ in range(4):
            out.write(b"x" * 40_000)
        out.commit()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert target.read_bytes() == b"old content"


def test_the_chrome_trace_child_writes_pieces_of_write_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chrome-trace job's child pickles its spans into its temporary file in pieces of at
    most ``WRITE_BYTES`` (pickle's frames are a little over 64 KiB), read back the same."""
    import pickle

    from sessiontools._otel.chrome_trace import _Spans as _ChromeSpans

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from sessiontools._log.reader import LogReader

        runs = list(iter_runs(LogReader(SESSIONS / "02_runs_anthropic_openai_cache.jsonl")))
    small = 500
    _small_writes(monkeypatch, small)
    writes: list[bytes] = []

    class Out(io.BytesIO):
        def write(self, data: bytes | memoryview) -> int:  # type: ignore[override]
            writes.append(bytes(data))
            return super().write(data)

    out = Out()
    job = _ChromeSpans(("c", None, None, None, False))
    job.make_in_child(iter(runs), out)
    assert len(writes) > 2 and max(map(len, writes)) <= small
    assert len(pickle.loads(out.getvalue())) > len(runs)
