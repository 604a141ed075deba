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
    (and the envelope's ``,"spans":[``), save one run's spans larger than that; the bytes are
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
        if len(piece) > small + len(head):  # one run's spans, larger than a piece
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
