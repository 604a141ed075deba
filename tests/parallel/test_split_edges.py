"""Edge cases of the export in two processes (``sessiontools._parallel.split``), from a review that
tried to break it.

The claim under test: for any log and any cut, ``workers=2`` gives the bytes, the warnings
(category and message, in order) and the error (type and message) of ``workers=1``.

The comments marked "Was:" say what failed before the fix the test now guards. The other
tests cover cases that tests/parallel/test_split.py does not.

Scripts that change process-wide state (signal dispositions, fork hooks, fd limits) run in a
subprocess.
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import os
import random
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

from sessiontools import (
    DamagedLogError,
    LogStructureWarning,
    UnknownEntryWarning,
    export_otlp_json,
    otlp_json,
)
from sessiontools._parallel import cut as _cut
from sessiontools._parallel import split as _split
from tests.helpers import REPO, assistant, line, outcome, result, t, usage, user
from tests.parallel.splitting import export, line_starts
from tests.parallel.test_split import built_log

# --------------------------------------------------------------------------------------------
# helpers


def run_script(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        cwd=str(REPO),
    )


def no_child_left() -> bool:
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


# --------------------------------------------------------------------------------------------
# FAILURES in the real, forked path


SIGCHLD_SCRIPT = """
    import os, signal, sys, tempfile, time
    from sessiontools import otlp_json
    from sessiontools._parallel import split as _split
    from tests.parallel.test_split import built_log
    p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    open(p, "wb").write(built_log(30))
    expected = otlp_json(p, workers=1)
    if sys.argv[1] == "ignore":
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    else:  # a reaper, as servers install
        def reap(*_):
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                pass
        signal.signal(signal.SIGCHLD, reap)
        fed = _split._fed
        def slow_fed(*a):  # the first part takes longer than the child's part
            time.sleep(0.5)
            yield from fed(*a)
        _split._fed = slow_fed
    try:
        print("same" if otlp_json(p, workers=2) == expected else "different")
    except BaseException as e:
        print("raised", type(e).__name__, e)
"""


@pytest.mark.parametrize("how", ["ignore", "reaper"])
def test_sigchld_ignored_or_reaped_by_the_caller(how: str) -> None:
    # Was: with SIGCHLD set to SIG_IGN (inherited across exec, or set by a daemon) the kernel
    # reaps the child itself, and with a SIGCHLD handler that reaps (waitpid(-1)) the handler
    # does; either way `_Child.result()`'s os.waitpid(pid) raises ChildProcessError ("[Errno
    # 10] No child processes"), which is neither caught nor a fallback: workers=2 raises where
    # workers=1 exports. (The command does the same on a log of 8 MB or more: see the test
    # below.)
    got = run_script(SIGCHLD_SCRIPT, how)
    assert got.stdout.strip() == "same", got.stdout + got.stderr


def test_the_command_with_sigchld_ignored(tmp_path: Path) -> None:
    # Was: `sessiontools otel LOG` (workers=None) on a log of 8 MB or more, started by a
    # process that ignores SIGCHLD (the disposition is inherited across exec), exits 1 with
    # "cannot read: No child processes" and writes nothing; with SIGCHLD at its default it
    # exports the log.
    log = tmp_path / "big.jsonl"
    log.write_bytes(built_log(3300))  # 8.6 MB
    assert log.stat().st_size >= _cut.SPLIT_FROM_BYTES
    if _cut.available_cores() < 2:
        pytest.skip("the command splits only with two cores")
    out = tmp_path / "out.json"
    got = run_script(
        """
        import os, signal, sys
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        os.execv(sys.executable, [sys.executable, "-m", "sessiontools", "otel", sys.argv[1],
                                  "--out", sys.argv[2]])
        """,
        str(log),
        str(out),
    )
    assert got.returncode == 0, got.stderr
    assert out.read_bytes() == otlp_json(log)


def test_a_gzip_file_object_is_cut_in_the_compressed_bytes(tmp_path: Path) -> None:
    # Was: `split_path` accepts any file object with a str `name`, tell() == 0 and a
    # fileno() on the same inode; a gzip.GzipFile has all three, but reads other bytes than the
    # file holds. find_cut then scans the *compressed* file (stored blocks at compresslevel=0
    # hold the lines as they are), the child reads the raw .gz file from that offset while this
    # process reads the decompressed stream up to an offset that is no line start of it.
    # Expected: the one-process export. Got: DamagedLogError (line 66, the gzip trailer / a
    # block header inside a line) and a spurious "seq 137 after seq 237" LogStructureWarning.
    path = tmp_path / "log.jsonl.gz"
    with gzip.open(path, "wb", compresslevel=0) as g:
        g.write(built_log(30))
    with gzip.open(path, "rb") as f:
        expected = export(f, workers=1)  # type: ignore[arg-type]
    with gzip.open(path, "rb") as f:
        got = export(f, workers=2)  # type: ignore[arg-type]
    assert expected[2] is None
    assert got == expected


def test_no_spare_file_descriptor(tmp_path: Path) -> None:
    # Was: the split opens the log again by its path (find_cut, before any fallback); with
    # the process at its file descriptor limit that raises OSError EMFILE out of
    # export_otlp_json, while workers=1 on the already open file object needs no new fd and
    # exports. ("no fork" / "no temporary file" fall back to one process; this open does not.)
    path = tmp_path / "log.jsonl"
    path.write_bytes(built_log(30))
    got = run_script(
        """
        import os, resource, sys
        from sessiontools import otlp_json
        p = sys.argv[1]
        expected = otlp_json(p, workers=1)
        f = open(p, "rb")
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        hog = []
        try:
            while True:
                hog.append(os.open("/dev/null", os.O_RDONLY))
        except OSError:
            pass
        for workers in (1, 2):
            f.seek(0)
            try:
                print(workers, "same" if otlp_json(f, workers=workers) == expected else "diff")
            except BaseException as e:
                print(workers, "raised", type(e).__name__, e)
        """,
        str(path),
    )
    assert got.stdout.splitlines() == ["1 same", "2 same"], got.stdout + got.stderr


KEYBOARD_INTERRUPT_SCRIPT = """
    import functools, gc, os, signal, sys, tempfile, time
    from sessiontools import otlp_json
    from tests.parallel.test_split import built_log
    p = os.path.join(tempfile.mkdtemp(), "log.jsonl")
    open(p, "wb").write(built_log(30))
    me = os.getpid()
    # Ctrl-C arriving just after fork() returns (SIGALRM raises KeyboardInterrupt here; a
    # timer of 1 us, armed by a C-level fork hook, fires before the next bytecode)
    signal.signal(signal.SIGALRM, signal.default_int_handler)
    hook = functools.partial(signal.setitimer, signal.ITIMER_REAL, 1e-6)
    if sys.argv[1] == "child":
        os.register_at_fork(after_in_child=hook)
    else:
        os.register_at_fork(after_in_parent=hook)
    try:
        otlp_json(p, workers=2)
        where = "returned"
    except KeyboardInterrupt:
        where = "KeyboardInterrupt"
    if os.getpid() != me:
        print("CHILD RAN THE CALLER'S CODE:", where, flush=True)
        os._exit(0)
    time.sleep(0.3)
    try:
        left = os.waitpid(-1, os.WNOHANG)
        print("parent", where, "child left behind", left[0] != 0 or "zombie", flush=True)
    except ChildProcessError:
        print("parent", where, "no child left", flush=True)
    print("gc frozen", gc.get_freeze_count(), flush=True)
"""


def test_keyboard_interrupt_just_after_fork_in_the_child() -> None:
    # Was: a KeyboardInterrupt that reaches the child between os.fork() and its `try:` is
    # not caught there: it propagates out of _Child.__init__ and export_otlp_json in the
    # *child*, which then runs the caller's code (its except/finally blocks, cleanup, the rest
    # of the program) as a second copy of the process; meanwhile the parent waits on the pipe
    # until that copy exits (a hang if it goes on running). Expected: only the parent sees the
    # interrupt or returns; got: "CHILD RAN THE CALLER'S CODE: KeyboardInterrupt".
    got = run_script(KEYBOARD_INTERRUPT_SCRIPT, "child")
    assert "CHILD RAN THE CALLER'S CODE" not in got.stdout, got.stdout + got.stderr


def test_keyboard_interrupt_just_after_fork_in_the_parent() -> None:
    # Was: a KeyboardInterrupt in the parent between os.fork() and `with child:` leaves the
    # child unkilled and unreaped (a zombie once it is done) and the collector frozen for good
    # (gc.get_freeze_count() stays ~30000 after export_otlp_json has raised), since
    # _Child.__exit__ never runs. Expected: no child left and nothing frozen, as for an
    # interrupt anywhere later.
    got = run_script(KEYBOARD_INTERRUPT_SCRIPT, "parent")
    lines = got.stdout.splitlines()
    assert "parent KeyboardInterrupt no child left" in lines, got.stdout + got.stderr
    assert "gc frozen 0" in lines, got.stdout + got.stderr


def test_bytes_written_before_an_error_in_the_second_part(tmp_path: Path) -> None:
    # export_otlp_json says that "when the log turns out to be damaged, some pieces have been
    # written already (how many depends on batching and on workers)". With an error in the
    # second part, workers=1 has written every full batch of 256 spans before the damaged line
    # (512 spans here), workers=2 only the first part's (256). What is written is in both cases
    # the start of the export of the log without its damaged end.
    body = b"".join(
        line(2 * i, "run_started", {"prompt": "x" * 40}, time=t(1))
        + line(2 * i + 1, "run_ended", outcome(turns=0), time=t(2))
        for i in range(600)
    )
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(body)
    body += b'{"seq":5000,"time":\n' + line(5001, "run_started", {}, time=t(3))
    path = tmp_path / "whole_then_damage.jsonl"
    path.write_bytes(body)
    expected = otlp_json(whole, name=str(path))
    for workers in (1, 2):
        out = bytearray()
        with pytest.raises(DamagedLogError, match="line 1201"):
            export_otlp_json(path, out.extend, workers=workers)
        assert len(out) > 1000
        assert expected.startswith(bytes(out))


# --------------------------------------------------------------------------------------------
# FAILURES with the in-process harness only (cuts find_cut never chooses: it cuts at a
# `run_started` line after the first line). The harness of tests/parallel/test_split.py claims every
# line start; these line starts break that claim.

R1 = line(0, "run_started", {"prompt": "a"}) + line(1, "run_ended", outcome(turns=0))
R2 = line(2, "run_started", {"prompt": "b"}) + line(3, "run_ended", outcome(turns=0))


def test_harness_cut_at_a_blank_line_after_a_torn_tail(tmp_path: Path, cut_at: Any) -> None:
    # Was: log = two runs, a torn line, then a blank line; cut at the blank
    # line. Expected (one process): TornTailWarning "line 5 (byte 504) ...", no error. Got:
    # DamagedLogError "line 5 (byte 504): not complete JSON": the first part stops at the cut
    # and calls _not_last although only blank lines follow (LogReader._part requires a stop at
    # a line that is not blank).
    data = R1 + R2 + b'{"seq":4,"ti\n' + b"\n"
    path = tmp_path / "torn_blank.jsonl"
    path.write_bytes(data)
    assert cut_at(path, len(data) - 1) == export(path, workers=1)


def test_harness_cut_at_a_blank_line_after_a_closing_line(tmp_path: Path, cut_at: Any) -> None:
    # Was: a transcript whose closing outcome line is followed by a blank
    # line, cut at the blank line. Expected: no error. Got: EntryError "JSON, but not an entry
    # (no seq and type); only a transcript's last line may be".
    closing = b'{"reason":"completed","turns":1,"usage":{"input_tokens":1,"output_tokens":1}}\n'
    data = R1 + R2 + closing + b"\n"
    path = tmp_path / "closing_blank.jsonl"
    path.write_bytes(data)
    assert cut_at(path, len(data) - 1) == export(path, workers=1)


def test_harness_cut_at_offset_zero(tmp_path: Path, cut_at: Any) -> None:
    # Was: cut at 0 (the first line, a run_started). The first part's stop
    # (0) is never reached, so it reads the whole log, and the child exports it again: every
    # span twice, and a "line 1: seq 0 after seq 3" LogStructureWarning.
    path = tmp_path / "zero.jsonl"
    path.write_bytes(R1 + R2)
    assert cut_at(path, 0) == export(path, workers=1)


# --------------------------------------------------------------------------------------------
# PASSING: cases tests/parallel/test_split.py does not cover


def _ways(cut_at: Any) -> list[str]:
    return list(cut_at.ways)


def test_seq_back_at_the_cut_with_unknown_fields_on_both_sides(tmp_path: Path, cut_at: Any) -> None:
    first = (
        line(10, "run_started", {"prompt": "a", "newer": 1})
        + line(11, "future", {"x": 1})
        + line(12, "run_ended", outcome(turns=0))
    )
    # the line at the cut: seq goes back, a field seen before and a new one
    second = (
        line(5, "run_started", {"prompt": "b", "newer": 2, "other": 3})
        + line(6, "future", {"x": 2})
        + line(4, "run_ended", outcome(turns=0))  # back again: warned once only
    )
    path = tmp_path / "back.jsonl"
    path.write_bytes(first + second)
    expected = export(path, workers=1)
    assert [c for c, _ in expected[1]].count(LogStructureWarning) == 1
    assert [c for c, _ in expected[1]].count(UnknownEntryWarning) == 3
    assert cut_at(path, len(first)) == expected
    assert _ways(cut_at) == ["child"]
    _split_find_cut_is(path, len(first))


def _split_find_cut_is(path: Path, cut: int) -> None:
    """Also check the real forked path at that cut."""
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(_cut, "find_cut", lambda p, s, **_: cut)
        assert export(path, workers=2) == export(path, workers=1)
    finally:
        mp.undo()
    assert no_child_left()


def test_state_across_the_cut(tmp_path: Path, cut_at: Any) -> None:
    """Labels from decisions, results and outside entries before the cut; a refused result
    after it whose label the session holds already; a call left open by a crash and resumed
    after the cut; pins; failed calls first in a run with and without a model before."""
    before = (
        line(0, "labels", {"labels": ["seeded"], "source": "seed"})
        + line(1, "pins", {"pins": {"sh": "d1"}})
        + line(2, "run_started", {"prompt": "a"})
        + line(3, "message", assistant(("c1", "sh"), ("c2", "mail"), provider="openai", model="g"))
        + line(4, "decision", {"call_id": "c1", "tool": "sh", "verdict": "allow", "labels": ["d"]})
        + line(5, "tool_result", result("c1", labels=["private"]))
        + line(6, "decision", {"call_id": "c2", "tool": "mail", "verdict": "allow"})
        + line(7, "call_started", {"call_id": "c2"})
        # crash: c2 open
    )
    run_b = (
        line(8, "run_started", {})
        + line(9, "tool_result", result("c2", "maybe", is_error=True, labels=["m"]))
        + line(10, "message", assistant(text="ok", provider="bedrock", model="m"))
        + line(11, "run_ended", outcome())
    )
    run_c = (
        line(12, "run_started", {"prompt": "c"})
        + line(
            13,
            "model_error",
            {
                "error": {"kind": "overloaded", "status": 529, "message": "b"},
                "retry": True,
                "wait_ms": 5,
            },
        )
        + line(14, "message", assistant(("c3", "get"), provider="anthropic", model="s"))
        + line(15, "tool_result", result("c3", labels=["private", "fresh"]))
        + line(16, "message", assistant(text="done", provider="anthropic", model="s"))
        + line(
            17,
            "run_ended",
            outcome(turns=2, refused=[{"call_id": "c3", "tool": "get", "labels": ["private"]}]),
        )
        + line(18, "decision", {"call_id": "zz", "tool": "x", "verdict": "allow", "labels": ["o"]})
    )
    data = before + run_b + run_c
    path = tmp_path / "state.jsonl"
    path.write_bytes(data)
    expected = export(path, workers=1)
    assert expected[2] is None
    for cut in line_starts(data):
        assert cut_at(path, cut) == expected, cut
    ways = _ways(cut_at)
    assert "here: an open call" in ways and "here: the last model" in ways
    # the same without any model before run_c: the child's work is kept
    plain = data
    for model in (b"openai", b"g", b"bedrock", b"m"):
        plain = plain.replace(b'"%s"' % model, b'""')
    path.write_bytes(plain)
    expected = export(path, workers=1)
    cut = plain.index(b'{"seq":12,')
    ways_before = len(cut_at.ways)
    assert cut_at(path, cut) == expected
    assert cut_at.ways[ways_before:] == ["child"]
    _split_find_cut_is(path, cut)


def test_crlf_blank_lines_and_invalid_utf8_around_the_cut(tmp_path: Path, cut_at: Any) -> None:
    first = (
        line(0, "run_started", {"prompt": "a"})
        + line(1, "message", user("x")).replace(b'"x"', b'"x\xff\xfe"')  # invalid UTF-8
        + line(2, "message", assistant(text="y"))
        + line(3, "run_ended", outcome(turns=1))
    ).replace(b"\n", b"\r\n") + b"\r\n   \n\t\r\n"
    second = (
        line(4, "run_started", {"prompt": "b\\ud800"}).replace(b"b\\\\ud800", b"b\\ud800")
        + b"\r\n"
        + line(5, "message", assistant(text="z\xc3"))
        + line(6, "run_ended", outcome(turns=1))
        + b"\n\n"
    )
    path = tmp_path / "odd.jsonl"
    path.write_bytes(first + second)
    expected = export(path, workers=1)
    assert expected[2] is None
    for cut in line_starts(first + second):
        assert cut_at(path, cut) == expected, cut
    assert "child" in _ways(cut_at)
    _split_find_cut_is(path, len(first))


def test_the_line_at_the_cut_is_a_bad_or_torn_run_started(tmp_path: Path, cut_at: Any) -> None:
    """A line that find_cut's pattern takes for a run_started, but is not one."""
    stamp = t(4)
    bad_lines = [
        # bad time: an EntryError on the child's first line
        b'{"seq":4,"time":"yesterday","type":"run_started","run_started":{}}\n',
        # the payload is missing
        b'{"seq":4,"time":"' + stamp.encode() + b'","type":"run_started","x":1}\n',
        # not JSON, more lines after it: damage
        b'{"seq":4,"time":"' + stamp.encode() + b'","type":"run_started",\n',
        # a duplicate type: the last wins, a message
        b'{"seq":4,"time":"' + stamp.encode() + b'","type":"run_started","type":"labels",'
        b'"labels":{"labels":["q"]}}\n',
    ]
    for bad in bad_lines:
        data = R1 + R2 + bad + line(5, "run_started", {}) + line(6, "run_ended", outcome(turns=0))
        path = tmp_path / "bad.jsonl"
        path.write_bytes(data)
        expected = export(path, workers=1)
        assert cut_at(path, len(R1 + R2)) == expected, bad
        _split_find_cut_is(path, len(R1 + R2))
    # torn, at the end: the child sees no run; the parent reads the rest and warns once
    data = R1 + R2 + b'{"seq":4,"time":"' + stamp.encode() + b'","type":"run_started","run_st'
    path.write_bytes(data)
    expected = export(path, workers=1)
    assert expected[1] and expected[2] is None
    assert cut_at(path, len(R1 + R2)) == expected
    assert _cut.find_cut(str(path), len(data)) == len(R1 + R2)
    assert export(path, workers=2) == expected


def test_a_cut_at_the_last_line_without_a_newline(tmp_path: Path, cut_at: Any) -> None:
    data = R1 + R2[:-1]
    path = tmp_path / "last.jsonl"
    path.write_bytes(data)
    assert cut_at(path, len(R1)) == export(path, workers=1)
    assert _ways(cut_at) == ["child"]


def test_warnings_as_errors_in_the_forked_path(tmp_path: Path) -> None:
    """warnings.simplefilter("error"): the first warning raises, wherever it is."""
    later = (
        R1
        + line(2, "run_started", {"prompt": "b", "newer": 1})
        + line(3, "run_ended", outcome(turns=0))
    )
    earlier = line(0, "run_started", {"newer": 1}) + R1[R1.index(b"\n") + 1 :] + R2
    back = R1 + line(0, "run_started", {}) + line(1, "run_ended", outcome(turns=0))
    for name, data in [("later", later), ("earlier", earlier), ("back", back)]:
        path = tmp_path / f"{name}.jsonl"
        path.write_bytes(data)
        got = []
        for workers in (1, 2):
            mp = pytest.MonkeyPatch()
            mp.setattr(_cut, "find_cut", lambda p, s, **_: len(R1))
            fds = open_fds()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    try:
                        otlp_json(path, workers=workers)
                        got.append(None)
                    except Warning as w:
                        got.append((type(w), str(w)))
            finally:
                mp.undo()
            assert no_child_left()
            assert open_fds() == fds
            assert gc.get_freeze_count() == 0
        assert got[0] is not None, name
        assert got[1] == got[0], name


def test_a_child_killed_by_a_signal_falls_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_ways: list[str]
) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(20))
    expected = export(path, workers=1)
    read_tail = _split.read_tail

    def killed(*args: Any) -> Any:  # runs in the forked child
        os.kill(os.getpid(), 9)
        return read_tail(*args)

    monkeypatch.setattr(_split, "read_tail", killed)
    ways = split_ways
    assert export(path, workers=2) == expected
    assert ways == ["here: no run at the cut"]
    assert no_child_left()


def test_keyboard_interrupt_during_the_first_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(20))
    fds = open_fds()

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt
        yield

    monkeypatch.setattr(_split, "_fed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        otlp_json(path, workers=2)
    assert no_child_left()
    assert open_fds() == fds
    assert gc.get_freeze_count() == 0


def test_the_input_is_unchanged_and_nothing_is_left_behind(tmp_path: Path) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(40))
    before = (hashlib.sha256(path.read_bytes()).digest(), path.stat().st_mtime_ns)
    tmp_before = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    fds = open_fds()
    with open(path, "rb") as f:
        assert otlp_json(f, workers=2) == otlp_json(path, workers=1)
        # NB (not part of the claim): the caller's file object is left at the cut, where
        # workers=1 leaves it at the end of the file.
    assert (hashlib.sha256(path.read_bytes()).digest(), path.stat().st_mtime_ns) == before
    assert set(os.listdir(os.environ.get("TMPDIR", "/tmp"))) <= tmp_before
    assert open_fds() == fds
    assert no_child_left()
    assert gc.get_freeze_count() == 0


# --------------------------------------------------------------------------------------------
# PASSING: random logs, every line start as the cut (in process), some cuts forked for real

LABELS = ["a", "b", "c:x", "private", "z"]
CALLS = ["c1", "c2", "c3", "c4"]
PROVIDERS = [("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-5"), ("", "")]


def random_log(r: random.Random) -> bytes:
    """Runs, crashes, resumed and repeated call ids, labels from every source, refusals,
    failed calls with and without a model before, entries outside runs, unknown types and
    fields, seq going back, blank and CRLF lines, invalid UTF-8, torn and closing last lines."""
    seq = 0
    out: list[bytes] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        nonlocal seq
        seq = seq - r.randint(0, 3) if r.random() < 0.05 else seq + 1
        stamp = t(max(0, min(59, seq % 60 + r.choice([0, 0, 0, -1, 0.5]))))
        data = line(seq, kind, payload, time=stamp)
        if r.random() < 0.03:
            data = data.replace(b'"text":"x"', b'"text":"x\xff"')
        out.append(data)

    def maybe_blank() -> None:
        x = r.random()
        if x < 0.03:
            out.append(b"\n")
        elif x < 0.05:
            out.append(b"  \r\n")

    def labels(k: int = 2) -> list[str]:
        return r.sample(LABELS, r.randint(0, k))

    def turn() -> dict[str, Any]:
        provider, model = r.choice(PROVIDERS)
        calls = r.sample(CALLS, r.randint(0, 2))
        payload = assistant(*[(c, "t") for c in calls], text="x", provider=provider, model=model)
        if not provider and r.random() < 0.5:
            del payload["message"]["native"]
            payload["model"] = ""
        return payload

    def error() -> dict[str, Any]:
        return {
            "error": {"kind": r.choice(["rate_limited", ""]), "status": 429, "message": "m"},
            "retry": r.random() < 0.5,
            "wait_ms": 5,
        }

    def outside() -> None:
        k = r.randrange(8)
        if k == 0:
            add("labels", {"labels": labels() or ["a"], "source": "seed"})
        elif k == 1:
            add("pins", {"pins": {"t": f"d{r.randint(0, 3)}"}})
        elif k == 2:
            verdict = r.choice(["allow", "deny"])
            add(
                "decision",
                {"call_id": r.choice(CALLS), "tool": "t", "verdict": verdict, "labels": labels()},
            )
        elif k == 3:
            add("tool_result", result(r.choice(CALLS), labels=labels()))
        elif k == 4:
            add("message", turn())
        elif k == 5:
            add("model_error", error())
        elif k == 6:
            add("future", {"x": 1})
        else:
            add("run_ended", outcome(turns=0))

    for _ in range(r.randint(1, 7)):
        while r.random() < 0.2:
            outside()
        maybe_blank()
        payload: dict[str, Any] = {"prompt": "p"}
        if r.random() < 0.05:
            payload["newf"] = 1
        add("run_started", payload)
        for _ in range(r.randint(0, 6)):
            maybe_blank()
            k = r.randrange(10)
            if k == 0:
                add("message", user("u"))
            elif k in (1, 2):
                add("message", turn())
            elif k == 3:
                verdict = r.choice(["allow", "allow", "deny"])
                add(
                    "decision",
                    {
                        "call_id": r.choice(CALLS),
                        "tool": r.choice(["t", ""]),
                        "verdict": verdict,
                        "labels": labels(),
                    },
                )
            elif k == 4:
                add("call_started", {"call_id": r.choice(CALLS)})
            elif k in (5, 6):
                extra: dict[str, Any] = {}
                if r.random() < 0.3:
                    extra["usage"] = [{"model": "h", "usage": usage(1, 1)}]
                add("tool_result", result(r.choice(CALLS), labels=labels(), **extra))
            elif k == 7:
                add("model_error", error())
            elif k == 8:
                add("labels", {"labels": r.sample(LABELS, 1), "source": "seed"})
            else:
                add(r.choice(["future", "call_started"]), {"call_id": r.choice(CALLS), "zz": 1})
        if r.random() < 0.75:
            if r.random() < 0.1:
                failed = {"error": {"kind": "unauthorized", "status": 401, "message": "no"}}
                add("run_ended", outcome("model_error", turns=1, **failed))
            else:
                extra = {}
                if r.random() < 0.3:
                    refused = r.sample(CALLS, r.randint(1, 2))
                    extra["refused"] = [
                        {"call_id": c, "tool": "t", "labels": ["private"]} for c in refused
                    ]
                add("run_ended", outcome(turns=r.randint(0, 3), **extra))
    while r.random() < 0.2:
        outside()
    data = b"".join(out)
    x = r.random()
    if x < 0.05:
        data += b'{"seq":99,"time":"2026'
    elif x < 0.08:
        data += b'{"reason":"completed","turns":1,"usage":{"input_tokens":1,"output_tokens":1}}\n'
    elif x < 0.10:
        data = data.replace(b"\n", b"\r\n")
    elif x < 0.12:
        data += b"\n\n"
    return data


def test_random_logs_at_every_line_start(tmp_path: Path, cut_at: Any) -> None:
    tried = 0
    for i in range(150):
        data = random_log(random.Random(i))
        path = tmp_path / f"r{i}.jsonl"
        path.write_bytes(data)
        expected = export(path, workers=1)
        for cut in line_starts(data):
            assert cut_at(path, cut) == expected, (i, cut)
            tried += 1
    ways = {w: cut_at.ways.count(w) for w in set(cut_at.ways)}
    assert tried > 1000
    assert ways.get("child", 0) > 100, ways
    assert ways.get("here: an open call", 0) > 10, ways
    assert ways.get("here: the last model", 0) > 2, ways


def test_random_logs_forked_at_each_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(12):
        data = random_log(random.Random(10_000 + i))
        path = tmp_path / f"f{i}.jsonl"
        path.write_bytes(data)
        expected = export(path, workers=1)
        for cut in line_starts(data):
            if (
                not data[cut:].startswith(b'{"seq":')
                or b'"type":"run_started"' not in data[cut : cut + 80]
            ):
                continue
            monkeypatch.setattr(_cut, "find_cut", lambda p, s, cut=cut, **_: cut)
            assert export(path, workers=2) == expected, (i, cut)
    assert no_child_left()
    assert gc.get_freeze_count() == 0


SIGNAL_SCRIPT = """
    import os, sys, time
    from sessiontools._parallel import cut as _cut, split as _split
    from sessiontools._main import run
    _cut.SPLIT_FROM_BYTES = 0
    _cut.available_cores = lambda: 2
    read_tail = _split.read_tail
    pid_file = sys.argv[3]
    def slow(*args):  # the child: says who it is, then takes its time
        with open(pid_file, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)
        return read_tail(*args)
    _split.read_tail = slow
    sys.argv = ["sessiontools", "otel", sys.argv[1], "--out", sys.argv[2]]
    run()
"""


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(15, 143, "sessiontools: terminated"), (2, 130, "sessiontools: interrupted")],
)
def test_the_command_stopped_by_a_signal_leaves_nothing(
    tmp_path: Path, signum: int, status: int, said: str
) -> None:
    """SIGTERM (kill, timeout, a service manager) and Ctrl-C while the child works: the
    command says so in one line, exits 128 + the signal, and leaves no temporary file and no
    process behind."""
    import time

    log = tmp_path / "logs" / "built.jsonl"
    log.parent.mkdir()
    log.write_bytes(built_log(30))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    child_pid = tmp_path / "child.pid"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SIGNAL_SCRIPT), str(log), str(out_dir / "x.json"),
         str(child_pid)],
        stderr=subprocess.PIPE,
        env=env,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not (child_pid.exists() and child_pid.read_text()):
        assert time.monotonic() < deadline, "the child never started"
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)
    pid = int(child_pid.read_text())
    time.sleep(0.2)  # the parent is waiting for the child by now
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == status, stderr
    assert stderr.decode().splitlines() == [said]
    assert os.listdir(out_dir) == []
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped by the command
