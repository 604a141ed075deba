"""One export in two processes (``sessiontools._parallel.split``): the same bytes, warnings
and errors as one process, at every cut.

Most tests run the child's work in this process (``InProcessChild`` in
tests/parallel/splitting.py), so that every line of every log can be tried as the cut quickly;
the tests named "forked" fork.
"""

from __future__ import annotations

import gc
import io
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessiontools import DamagedLogError, EntryError, SessionBuilder, Usage, otlp_json
from sessiontools._cli.main import cli
from sessiontools._parallel import cut as _cut
from sessiontools._parallel import split as _split
from tests import logs
from tests.helpers import SESSIONS, assistant, line, outcome, result, user
from tests.parallel.splitting import export, line_starts


def sample_logs(tmp_path: Path) -> list[Path]:
    """Every testdata log, the hand-written logs of tests/logs.py, and built ones."""
    paths = sorted(SESSIONS.glob("*.jsonl"))
    for name in dir(logs):
        value = getattr(logs, name)
        if name.isupper() and isinstance(value, bytes):
            path = tmp_path / f"{name.lower()}.jsonl"
            path.write_bytes(value)
            paths.append(path)
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(30))
    paths.append(path)
    return paths


def built_log(runs: int = 12) -> bytes:
    """A session with labels, crashes and the runs that settle them, retried model errors
    before a run's first turn, and turns from two providers, over several runs."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="split")
    b.labels("team:a")
    for i in range(runs):
        b.run(f"task {i}")
        if i % 3 == 1:
            b.model_error("rate_limited", status=429, retry=True, wait_ms=250)
        turn = b.anthropic if i % 2 else b.openai
        turn(calls=[("read", {"path": f"/f{i}"})], usage=Usage(100, 10))
        (call,) = b.calls
        b.decision("allow", call=call, labels=[f"read:{i % 4}"])
        b.call_started(call=call)
        if i % 5 == 4:
            b.crash()  # the next run settles the call
            continue
        b.tool_result("ok " * 50, call=call)
        turn(text=f"done {i}", usage=Usage(120, 5))
        b.run_ended()
    return b.to_bytes()


def test_every_cut_of_every_log_gives_one_process_output(tmp_path: Path, cut_at: Any) -> None:
    tried = 0
    for path in sample_logs(tmp_path):
        data = path.read_bytes()
        expected = export(path, workers=1)
        for cut in line_starts(data):
            assert cut_at(path, cut) == expected, (path.name, cut)
            tried += 1
    ways = Counter(way.split(":")[0] for way in cut_at.ways)
    whys = Counter(cut_at.ways)
    assert tried == len(cut_at.ways) > 200
    # each way of reading the second part was taken, so each was compared
    assert ways["child"] > 25, whys
    assert whys["here: no run at the cut"] > 50, whys
    assert whys["here: an open call"] > 0, whys
    assert whys["here: the last model"] > 0, whys


def test_labels_of_the_whole_session_reach_the_second_part(tmp_path: Path, cut_at: Any) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(built_log(4))
    data = path.read_bytes()
    cut = data.index(b'"type":"run_started"', len(data) // 2)
    cut = data.rindex(b"\n", 0, cut) + 1
    got, _, _ = cut_at(path, cut)
    assert cut_at.ways == ["child"]
    assert got == export(path, workers=1)[0]
    assert b'"team:a"' in got[got.index(b"invoke_agent", cut // 4) :]


def test_a_damaged_line_after_the_cut_is_the_same_error(tmp_path: Path, cut_at: Any) -> None:
    body = b"".join(
        [
            line(0, "run_started", {"prompt": "a"}),
            line(1, "message", user("a")),
            line(2, "message", assistant(text="b")),
            line(3, "run_ended", outcome(turns=1)),
            line(4, "run_started", {"prompt": "c"}),
            b'{"seq":5,"time":\n',
            line(6, "run_ended", outcome(turns=0)),
        ]
    )
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(body)
    cut = body.index(line(4, "run_started", {"prompt": "c"}))
    got = cut_at(path, cut)
    assert cut_at.ways == ["raised"]
    assert got[2] is not None and got[2][0] is DamagedLogError
    assert "line 6" in got[2][1]
    assert got == export(path, workers=1)


def test_a_damaged_line_before_the_cut_stops_the_child(tmp_path: Path) -> None:
    body = b"".join(
        [
            line(0, "run_started", {"prompt": "a"}),
            b"{not json\n",
            line(2, "run_ended", outcome(turns=0)),
            line(3, "run_started", {"prompt": "b"}),
            line(4, "run_ended", outcome(turns=0)),
        ]
    )
    path = tmp_path / "damaged_first.jsonl"
    path.write_bytes(body)
    with pytest.raises(DamagedLogError, match="line 2"):
        otlp_json(path, workers=2)  # forked: the child is killed and reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)  # no child left behind


def test_forked_export_equals_one_process_on_every_testdata_log() -> None:
    for path in sorted(SESSIONS.glob("*.jsonl")):
        assert export(path, workers=2) == export(path, workers=1), path.name


def test_forked_export_of_a_built_log(tmp_path: Path, split_ways: list[str]) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(40))
    ways = split_ways
    frozen = gc.get_freeze_count()
    assert export(path, workers=2) == export(path, workers=1)
    assert ways == ["child"]
    assert gc.get_freeze_count() == frozen


def test_workers_none_splits_only_a_large_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_ways: list[str]
) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(20))
    calls = split_ways
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)
    assert otlp_json(path, workers=None) == otlp_json(path)
    assert calls == []  # under SPLIT_FROM_BYTES
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", path.stat().st_size)
    assert otlp_json(path, workers=None) == otlp_json(path)
    assert calls == ["child"]
    monkeypatch.setattr(_cut, "available_cores", lambda: 1)
    otlp_json(path, workers=None)
    assert calls == ["child"]  # one core: no split


def test_what_cannot_be_split_is_read_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "built.jsonl"
    data = built_log(6)
    path.write_bytes(data)
    monkeypatch.setattr(_split, "read_in_two", lambda *a: pytest.fail("split what cannot be split"))
    expected = otlp_json(path)
    assert otlp_json(io.BytesIO(data), name=str(path), workers=2) == expected  # no file
    with open(path, "rb") as f:
        f.readline()  # not at its start
        rest = otlp_json(f, name=str(path), workers=2)
    assert rest != expected and b"resourceSpans" in rest
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    with os.fdopen(read, "rb") as f:
        assert otlp_json(f, name=str(path), workers=2) == expected  # a pipe
    other = tmp_path / "other.jsonl"
    other.write_bytes(data)
    with open(path, "rb") as f:
        os.replace(other, path)  # the name is another file now
        assert otlp_json(f, name=str(path), workers=2) == expected


def test_find_cut_takes_a_run_that_needs_nothing_from_before(tmp_path: Path) -> None:
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="cut")
    b.run("padding").anthropic(text="x" * 3000, usage=Usage(1, 1)).run_ended()
    b.run("crashes").anthropic(calls=[("sh", {})], usage=Usage(1, 1))
    b.allow("", call=b.calls[0])
    b.crash()
    b.run("after a crash").anthropic(text="a", usage=Usage(1, 1)).run_ended()
    b.run("fails first").model_error("overloaded", status=529, retry=True, wait_ms=10)
    b.anthropic(text="b", usage=Usage(1, 1)).run_ended()
    b.run("this one").anthropic(text="c", usage=Usage(1, 1)).run_ended()
    data = b.to_bytes()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data)
    assert data.index(b'"prompt":"crashes"') > len(data) // 2
    cut = _cut.find_cut(str(path), len(data))
    assert cut is not None
    assert data[cut:].split(b"\n", 1)[0].endswith(b'"run_started":{"prompt":"this one"}}')
    # with no such run within reach: the first run after the middle
    cut = _cut.find_cut(str(path), len(data), scan_bytes=10)
    assert cut is not None
    assert data[cut:].split(b"\n", 1)[0].endswith(b'"run_started":{"prompt":"crashes"}}')
    one = tmp_path / "one.jsonl"
    one.write_bytes(logs.ONE_TOOL)
    assert _cut.find_cut(str(one), len(logs.ONE_TOOL)) is None  # one run: nowhere to cut


def test_workers_must_be_one_two_or_none() -> None:
    path = SESSIONS / "01_one_run_tool.jsonl"
    for bad in (0, 3, -1):
        with pytest.raises(ValueError, match="workers must be 1, 2 or None"):
            otlp_json(path, workers=bad)


def test_the_command_splits_a_large_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_ways: list[str]
) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(30))
    ways = split_ways
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", 0)
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)
    out = tmp_path / "out.json"
    got = CliRunner().invoke(cli, ["otel", str(path), "--out", str(out)])
    assert got.exit_code == 0, got.output
    assert ways == ["child"]
    assert out.read_bytes() == otlp_json(path)


def test_entry_errors_and_unknown_entries_after_the_cut(tmp_path: Path, cut_at: Any) -> None:
    first = line(0, "run_started", {"prompt": "a"}) + line(1, "run_ended", outcome(turns=0))
    second = (
        line(2, "run_started", {"prompt": "b", "new_field": 1})
        + line(3, "future", {"x": 1})
        + line(4, "tool_result", result("zz", "orphan"))
        + line(1, "run_ended", outcome(turns=0))  # seq goes back
    )
    for tail in (second, second + b'{"seq":"x","time":"2026-10-18T09:30:00Z","type":"labels"}\n'):
        path = tmp_path / "odd.jsonl"
        path.write_bytes(first + tail)
        got = cut_at(path, len(first))
        assert got == export(path, workers=1)
        assert got[1], "warnings expected"
    assert cut_at.ways == ["child", "raised"]
    assert got[2] is not None and got[2][0] is EntryError


@pytest.mark.parametrize("broken", ["fork", "temporary file"])
def test_no_fork_or_no_temporary_file_reads_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broken: str, split_ways: list[str]
) -> None:
    import gc

    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(8))
    expected = otlp_json(path)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(11, "Resource temporarily unavailable")

    if broken == "fork":
        monkeypatch.setattr(_split.os, "fork", refuse)
    else:
        import tempfile  # loaded by the split when it needs it

        monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    ways = split_ways
    frozen = gc.get_freeze_count()
    assert otlp_json(path, workers=2) == expected
    assert ways == [f"here: no {broken}"]
    assert gc.get_freeze_count() == frozen  # what was frozen for the fork is not left frozen


def test_the_export_looks_for_its_cut_before_the_middle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export's process copies the child's spans and syncs the output once both parts
    are read: its cut is looked for from 49% of the log (the others' from ``CUT_AT``)."""
    from sessiontools._otel.export import EXPORT_CUT_AT

    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(200))
    asked: list[float | None] = []
    real = _split.plan_cut

    def plan(reader: Any, workers: int | None, *, at: float | None = None) -> Any:
        asked.append(at)
        return real(reader, workers, at=at)

    monkeypatch.setattr(_split, "plan_cut", plan)
    assert otlp_json(path, workers=2) == otlp_json(path, workers=1)
    assert asked == [EXPORT_CUT_AT, EXPORT_CUT_AT] and EXPORT_CUT_AT < 0.5 < _cut.CUT_AT
    size = path.stat().st_size
    cut = _cut.find_cut(str(path), size, at=EXPORT_CUT_AT)
    later = _cut.find_cut(str(path), size)
    assert cut is not None and later is not None and EXPORT_CUT_AT * size <= cut < later


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="Linux's files with no name")
def test_the_childs_file_is_made_where_tempfile_would_make_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child's file has no name and is made in the first directory of TMPDIR, TEMP, TMP,
    /tmp... where a file can be made, as ``tempfile.TemporaryFile`` would (without loading
    it); ``tempfile`` makes it when its directory was set, or when a directory refuses such a
    file for another reason (here an error the kernel may give, made up)."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # as in a process that never used tempfile
    missing, there = tmp_path / "missing", tmp_path / "there"
    there.mkdir()
    monkeypatch.setenv("TMPDIR", str(missing))
    monkeypatch.setenv("TEMP", str(there))
    monkeypatch.delenv("TMP", raising=False)
    made: list[str] = []
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda **kw: made.append("tempfile"))
    with _split._temporary_file(1 << 20) as f:
        f.write(b"spans")
        f.seek(0)
        assert f.read() == b"spans"
        where = os.readlink(f"/proc/self/fd/{f.fileno()}")
    assert where.startswith(f"{there}/") and where.endswith(" (deleted)")
    assert list(there.iterdir()) == [] and made == []

    monkeypatch.setattr(tempfile, "tempdir", str(there))
    assert _split._temporary_file(1 << 20) is None and made == ["tempfile"]
    monkeypatch.setattr(tempfile, "tempdir", None)
    real_open = os.open

    def refused(path: Any, flags: int, *args: Any) -> int:
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(95, "Operation not supported")
        return real_open(path, flags, *args)

    monkeypatch.setattr(_split.os, "open", refused)
    assert _split._temporary_file(1 << 20) is None and made == ["tempfile", "tempfile"]


def test_a_copy_of_the_line_before_the_cut_is_read_here(tmp_path: Path, cut_at: Any) -> None:
    """One reader skips an entry that repeats the one before it: the child, which does not see
    the line before the cut, cannot; its work is dropped when its first line is that copy."""
    data = logs.REPEATED_LINES
    path = tmp_path / "repeated.jsonl"
    path.write_bytes(data)
    copy_of_6 = data.rindex(b'{"seq":6,')
    expected = export(path, workers=1)
    assert [message for _, message in expected[1]] == [
        f"{path}: line 8 (byte {copy_of_6}): the entry of line 7 (seq 6) "
        "again, byte for byte: a copy, skipped (and any other such copy in this log; reported "
        "once)"
    ]
    assert cut_at(path, data.rindex(b'{"seq":8,')) == expected  # at the copy
    assert cut_at(path, data.index(b'{"seq":8,')) == expected  # before it
    assert cut_at.ways == ["here: a copy at the cut", "child"]


def test_find_cut_holds_no_line_whole(tmp_path: Path) -> None:
    """A log with one line of 64 MB at its middle (a `truncate`d file): ``find_cut`` looks
    for a cut without holding that line (it held it whole before)."""
    import tracemalloc

    path = tmp_path / "sparse.jsonl"
    with open(path, "wb") as f:
        f.write(logs.ONE_TOOL)
        f.truncate(64 << 20)
    tracemalloc.start()
    try:
        assert _cut.find_cut(str(path), 64 << 20) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * _cut.SCAN_BYTES + (1 << 20)


def test_a_gzip_log_is_read_in_one_process(tmp_path: Path, split_ways: list[str]) -> None:
    import gzip

    path = tmp_path / "log.jsonl.gz"
    path.write_bytes(gzip.compress(built_log(30)))
    plain = tmp_path / "log.jsonl"
    plain.write_bytes(built_log(30))
    assert otlp_json(path, workers=2) == otlp_json(plain, workers=1)
    assert split_ways == []  # not cut: its bytes are not its lines


def test_the_line_limit_holds_in_the_second_part(tmp_path: Path, cut_at: Any) -> None:
    data = built_log(12)
    at = data.rindex(b"ok ok")  # in the last run's tool result: one line of 2 KB or more
    data = data[:at] + b"x" * 2000 + data[at:]
    path = tmp_path / "log.jsonl"
    path.write_bytes(data)
    expected = export(path, workers=1, max_line_bytes=1500)
    assert expected[2] is not None and "longer than 1,500 bytes" in expected[2][1]
    assert export(path, workers=1)[2] is None
    starts = line_starts(data)
    for cut in starts[1:]:
        assert cut_at(path, cut, max_line_bytes=1500) == expected, cut
