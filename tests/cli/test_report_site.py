"""``sessiontools report --out DIR/`` (issue 13, D3): the site is put in place whole, or not
at all. A signal (Ctrl-C, SIGTERM) or a failure while the pages are written leaves ``DIR`` as
it was: no new or half-written page, no temporary file, and a ``DIR`` the command would have
made is not there."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sessiontools._cli.main import cli
from tests.helpers import REPO, SESSIONS

# Six logs: five small ones, then a larger one; with index.html, seven pages.
SMALL = (SESSIONS / "01_one_run_tool.jsonl").read_bytes()
LARGE = (SESSIONS / "02_runs_anthropic_openai_cache.jsonl").read_bytes()
PAGES = 7


def make_logs(tmp_path: Path) -> Path:
    logs = tmp_path / "logs"
    logs.mkdir()
    for n in range(1, 6):
        (logs / f"a{n}.jsonl").write_bytes(SMALL)
    (logs / "z.jsonl").write_bytes(LARGE)
    return logs


def snapshot(path: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every name under ``path`` (itself included), its bytes (``None`` for a directory) and
    its mode; what "as it was" compares."""
    found: dict[str, tuple[bytes | None, int]] = {}
    for root, dirs, files in os.walk(path):
        for name in [*dirs, *files]:
            p = Path(root, name)
            st = p.lstat()
            content = None if stat.S_ISDIR(st.st_mode) else p.read_bytes()
            found[str(p.relative_to(path.parent))] = (content, st.st_mode)
    return found


def old_site(tmp_path: Path) -> Path:
    """An existing DIR holding an older site (a page of another mode among them) and a file
    of the user's that the report does not write."""
    site = tmp_path / "out" / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_bytes(b"<p>the old index</p>\n")
    (site / "0001-a1.html").write_bytes(b"<p>the old a1</p>\n")
    (site / "0001-a1.html").chmod(0o640)
    (site / "notes.txt").write_bytes(b"mine\n")
    return site


def target_site(tmp_path: Path, existing: bool) -> Path:
    """The DIR a test writes to: ``old_site``'s, or a new one (its parent made, not it)."""
    if existing:
        return old_site(tmp_path)
    site = tmp_path / "out" / "site"
    site.parent.mkdir()
    return site


# The command in a process of its own, stopped where the test wants it: at MOMENT (as the
# pages are rendered, once page N is written, as the first is put into place) it writes MARKER
# and waits on its standard input, where the test's signal finds it (or, where the pages are
# put into place and signals wait, until the test closes standard input).
HOOKED = """
    import os, sys
    import sessiontools._main as m
    from sessiontools._cli import output
    from sessiontools._html import render

    moment, marker, args = sys.argv[1], sys.argv[2], sys.argv[3:]

    def wait():
        open(marker, "w").close()
        sys.stdin.read()

    if moment == "render":
        rendered = render.render_report_pages
        def render_report_pages(*a, **k):
            wait()
            return rendered(*a, **k)
        render.render_report_pages = render_report_pages
    elif moment.startswith("page"):  # once page N is written (and synced)
        after, synced = int(moment[4:]), []
        fsync = os.fsync
        def hooked_fsync(fd):
            fsync(fd)
            synced.append(fd)
            if len(synced) == after:
                wait()
        os.fsync = hooked_fsync
    elif moment == "commit":  # as the first page is renamed into place
        renamed, site = [], os.path.abspath(args[-1].rstrip("/"))
        for name in ("rename", "replace"):
            def hooked(src, dst, original=getattr(os, name)):
                # (not what the command keeps in its cache directory: sessiontools._cachedir)
                if not renamed and os.path.abspath(dst).startswith(site):
                    renamed.append(dst)
                    wait()
                return original(src, dst)
            setattr(os, name, hooked)
    sys.argv = ["sessiontools", "report", *args]
    m.run()
"""


def run_stopped(
    tmp_path: Path, moment: str, signum: int, logs: Path, out: str
) -> subprocess.CompletedProcess[bytes]:
    """The command stopped by ``signum`` at ``moment``: sent once it waits there."""
    marker = tmp_path / "waiting"
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(HOOKED), moment, str(marker), str(logs),
         "--out", out],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"never reached {moment}: {proc.returncode} {err.decode()}")
        time.sleep(0.01)
    proc.send_signal(signum)
    out_bytes, err = proc.communicate(timeout=60)  # closes stdin: a held wait goes on
    return subprocess.CompletedProcess(proc.args, proc.returncode, out_bytes, err)


STOPS = [
    pytest.param(signal.SIGTERM, 143, "sessiontools: terminated", id="SIGTERM"),
    pytest.param(signal.SIGINT, 130, "sessiontools: interrupted", id="SIGINT"),
]


def clean_site(tmp_path: Path, logs: Path) -> dict[str, bytes]:
    """The pages a run that nothing stops writes, by name."""
    out = tmp_path / "clean"
    result = CliRunner().invoke(cli, ["report", str(logs), "--out", f"{out}/"])
    assert result.exit_code == 0, result.output
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.mark.parametrize(("signum", "status", "said"), STOPS)
@pytest.mark.parametrize("moment", ["render", "page1", "page4", f"page{PAGES}"])
@pytest.mark.parametrize("existing", [False, True], ids=["new-DIR", "existing-DIR"])
def test_a_signal_while_the_site_is_written_leaves_dir_as_it_was(
    tmp_path: Path, signum: int, status: int, said: str, moment: str, existing: bool
) -> None:
    """SIGTERM or Ctrl-C before the first page, after one, half-way, or once all are written
    but not yet in place: one line, 143 or 130, and DIR as it was. It used to hold index.html
    and some of the pages (the index linking to missing ones), or an empty DIR the command
    had made."""
    logs = make_logs(tmp_path)
    site = target_site(tmp_path, existing)
    before = snapshot(site.parent)
    got = run_stopped(tmp_path, moment, signum, logs, f"{site}/")
    assert got.returncode == status, got.stderr
    assert got.stderr.decode().splitlines()[-1:] == [said]
    assert "Traceback" not in got.stderr.decode()
    assert snapshot(site.parent) == before  # no page, no temporary file, no new DIR


@pytest.mark.parametrize(("signum", "status", "said"), STOPS)
@pytest.mark.parametrize("existing", [False, True], ids=["new-DIR", "existing-DIR"])
def test_a_signal_while_the_pages_are_put_in_place_waits_for_them(
    tmp_path: Path, signum: int, status: int, said: str, existing: bool
) -> None:
    """A signal once the pages are being put in place waits until all are: the site is
    complete (as a run that nothing stops writes it), the user's file is untouched, no
    temporary file is left, and the command still stops with its line and status."""
    logs = make_logs(tmp_path)
    site = target_site(tmp_path, existing)
    got = run_stopped(tmp_path, "commit", signum, logs, f"{site}/")
    assert got.returncode == status, got.stderr
    assert got.stderr.decode().splitlines()[-1:] == [said]
    pages = clean_site(tmp_path, logs)
    assert len(pages) == PAGES
    held = {p.name: p.read_bytes() for p in site.iterdir()}
    if existing:
        assert held.pop("notes.txt") == b"mine\n"
        assert stat.S_IMODE((site / "0001-a1.html").stat().st_mode) == 0o640  # kept
    assert held == pages
    assert sorted(p.name for p in site.parent.iterdir()) == ["site"]


def test_a_write_error_half_way_leaves_dir_as_it_was(tmp_path: Path) -> None:
    """A real write error after some pages are written (the file-size limit, EFBIG, standing
    in for a full disk: the larger session's page does not fit): exit status 1, one line
    naming the page, and DIR as it was."""
    import resource

    logs = make_logs(tmp_path)
    pages = clean_site(tmp_path, logs)
    large = "0006-z.html"
    limit = max(len(data) for name, data in pages.items() if name != large) + 1
    assert len(pages[large]) > limit  # the larger log's page is the one that fails
    site = old_site(tmp_path)
    before = snapshot(site.parent)

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    got = subprocess.run(
        [sys.executable, "-m", "sessiontools", "report", str(logs), "--out", f"{site}/"],
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        preexec_fn=limited,
        timeout=120,
    )
    assert got.returncode == 1, got.stderr
    (line,) = got.stderr.decode().splitlines()
    assert line == f"sessiontools report: error: cannot write {site}/{large}: File too large"
    assert snapshot(site.parent) == before


@pytest.mark.parametrize("existing", [False, True], ids=["new-DIR", "existing-DIR"])
def test_a_failed_sync_leaves_dir_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    """The disk full when the third page is synced: exit status 1, one line, DIR as it was
    (a new DIR not made)."""
    logs = make_logs(tmp_path)
    site = target_site(tmp_path, existing)
    before = snapshot(site.parent)
    synced = []
    fsync = os.fsync

    def full(fd: int) -> None:
        synced.append(fd)
        if len(synced) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    result = CliRunner().invoke(cli, ["report", str(logs), "--out", f"{site}/"])
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line == (
        f"sessiontools report: error: cannot write {site}/0002-a2.html: No space left on device"
    )
    assert snapshot(site.parent) == before


def test_a_failed_rename_puts_back_the_pages_already_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should renaming a page into place fail once others are (a file system that refuses
    it), those are put back: the old index and page as they were (bytes and mode), the new
    pages gone, no temporary file; exit status 1."""
    logs = make_logs(tmp_path)
    site = old_site(tmp_path)
    before = snapshot(site.parent)
    replaced: list[Any] = []
    replace = os.replace

    def refusing(src: Any, dst: Any) -> None:
        if str(dst).startswith(str(site)) and str(src).endswith(".html"):
            replaced.append(dst)
            if len(replaced) == 4:
                raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        replace(src, dst)

    monkeypatch.setattr(os, "replace", refusing)
    result = CliRunner().invoke(cli, ["report", str(logs), "--out", f"{site}/"])
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line == f"sessiontools report: error: cannot write {site}: Invalid cross-device link"
    assert len(replaced) == 4
    assert snapshot(site.parent) == before


def test_a_site_written_twice_is_the_same_bytes(tmp_path: Path) -> None:
    """Same logs, same site: written into a new DIR, again over itself, and into an existing
    DIR of the user's (whose own file stays); the pages are 0666 less the umask, as a
    single --out file is."""
    logs = make_logs(tmp_path)
    first = clean_site(tmp_path, logs)
    out = tmp_path / "clean"
    again = CliRunner().invoke(cli, ["report", str(logs), "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == first
    site = old_site(tmp_path)
    other = CliRunner().invoke(cli, ["report", str(logs), "--out", str(site)])
    assert other.exit_code == 0, other.output
    held = {p.name: p.read_bytes() for p in site.iterdir()}
    assert held.pop("notes.txt") == b"mine\n"
    assert held == first
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o777 & ~umask
    assert {stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()} == {0o666 & ~umask}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clean", "logs", "out"]


@pytest.mark.parametrize("fails", [False, True], ids=["written", "failed"])
def test_a_page_that_is_a_symbolic_link_replaces_the_file_it_points_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: bool
) -> None:
    """A page that is a symbolic link to a file in another directory: that file is replaced
    (its mode kept), the link stays, as --out FILE through a link; its temporary file is
    written next to it. When a later page cannot be written, that file is as it was and no
    temporary file is left beside it."""
    logs = make_logs(tmp_path)
    pages = clean_site(tmp_path, logs)
    site = old_site(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "index.html").write_bytes(b"<p>kept elsewhere</p>\n")
    (elsewhere / "index.html").chmod(0o604)
    (site / "index.html").unlink()
    (site / "index.html").symlink_to(elsewhere / "index.html")
    before = snapshot(tmp_path)
    if fails:
        fsync = os.fsync
        synced: list[int] = []

        def full(fd: int) -> None:
            synced.append(fd)
            if len(synced) == PAGES:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            fsync(fd)

        monkeypatch.setattr(os, "fsync", full)
    result = CliRunner().invoke(cli, ["report", str(logs), "--out", f"{site}/"])
    if fails:
        assert result.exit_code == 1, result.output
        assert snapshot(tmp_path) == before
        return
    assert result.exit_code == 0, result.output
    assert (site / "index.html").is_symlink()
    assert (elsewhere / "index.html").read_bytes() == pages["index.html"]
    assert stat.S_IMODE((elsewhere / "index.html").stat().st_mode) == 0o604
    assert sorted(p.name for p in elsewhere.iterdir()) == ["index.html"]


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_page_that_is_a_log_being_read_is_refused(tmp_path: Path, link: str) -> None:
    """A page of the existing DIR that is one of the logs being read (a symbolic or a hard
    link to it): a usage error naming the log, before anything is written; the log and DIR
    are as they were."""
    logs = make_logs(tmp_path)
    site = old_site(tmp_path)
    (site / "0006-z.html").unlink(missing_ok=True)
    if link == "symbolic":
        (site / "0006-z.html").symlink_to(logs / "z.jsonl")
    else:
        os.link(logs / "z.jsonl", site / "0006-z.html")
    before = snapshot(tmp_path)
    result = CliRunner().invoke(cli, ["report", str(logs), "--out", f"{site}/"])
    assert result.exit_code == 2, result.output
    assert f"is {logs / 'z.jsonl'}, a log being read" in result.output
    assert snapshot(tmp_path) == before


def test_the_logs_being_read_are_looked_up_once_not_once_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking the pages of a site against the logs being read takes a look-up per log and
    one per page (it took one per log for every page: 12 s rather than 4 s to write 1,000
    pages of 1,000 logs over an existing site); what it finds is the same: the page that is a
    log, by the name the log was given."""
    from sessiontools._cli import output

    logs = [tmp_path / f"{n}.jsonl" for n in range(50)]
    for log in logs:
        log.write_bytes(b"")
    pages = [tmp_path / f"{n}.html" for n in range(50)]
    for page in pages[:-1]:
        page.write_bytes(b"")
    os.link(logs[7], pages[-1])
    looked_up: list[object] = []
    real_stat = os.stat

    def counted(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        looked_up.append(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counted)
    being_read = output._BeingRead([str(log) for log in logs])
    found = [being_read.which(str(page)) for page in pages]
    assert len(looked_up) == len(logs) + len(pages)
    assert found == [None] * 49 + [str(logs[7])]
