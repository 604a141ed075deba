"""What ``sessiontools report`` and ``cost`` keep between runs (``sessiontools._cachedir``):
genai-prices' answers and the report's compiled templates. The output is the same, byte for
byte, on a first run, a later run, with the cache off, and with the cache damaged; a later
run does not load genai-prices at all. Each test has its own empty cache directory
(tests/conftest.py)."""

from __future__ import annotations

import io
import marshal
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest
from jinja2.bccache import bc_magic

SESSIONS = Path(__file__).resolve().parents[2] / "testdata" / "sessions"
LOGS = [
    str(SESSIONS / "02_runs_anthropic_openai_cache.jsonl"),
    str(SESSIONS / "07_model_errors.jsonl"),
    str(SESSIONS / "08_tool_model_calls.jsonl"),  # model calls made by tools: no provider
]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The command in a fresh interpreter, with ``-X importtime`` (stderr lists every module
    it loaded)."""
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "sessiontools", *args],
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def loaded(result: subprocess.CompletedProcess[bytes], module: str) -> bool:
    return any(
        line.rsplit(b"|", 1)[-1].strip() == module.encode()
        for line in result.stderr.splitlines()
        if line.startswith(b"import time:")
    )


@pytest.mark.parametrize(
    "command",
    [
        ["report", *LOGS, "--out", "-"],
        ["cost", *LOGS, "--by", "model", "--format", "json"],
        ["cost", *LOGS, "--by", "day", "--format", "csv"],
    ],
    ids=["report", "cost-model", "cost-day"],
)
def test_a_later_run_gives_the_same_bytes_without_genai_prices(
    command: list[str], fresh_cache_dir: Path
) -> None:
    first = run(*command)
    assert first.returncode == 0, first.stderr[-2000:]
    assert loaded(first, "genai_prices")
    kept = list((fresh_cache_dir / "prices").glob("genai-prices-*.json"))
    assert len(kept) == 1
    later = run(*command)
    assert later.returncode == 0
    assert later.stdout == first.stdout
    assert not loaded(later, "genai_prices")
    assert not loaded(later, "pydantic")
    off = run(*command, env={"SESSIONTOOLS_NO_CACHE": "1"})
    assert off.stdout == first.stdout
    assert loaded(off, "genai_prices")


def test_the_report_keeps_its_compiled_templates(fresh_cache_dir: Path) -> None:
    first = run("report", *LOGS, "--out", "-")
    assert first.returncode == 0
    (templates,) = fresh_cache_dir.glob("templates-*")
    compiled = sorted(templates.iterdir())
    assert len(compiled) == 3  # report, session and sessions
    stamps = [path.stat().st_mtime_ns for path in compiled]
    later = run("report", *LOGS, "--out", "-")
    assert later.stdout == first.stdout
    assert [path.stat().st_mtime_ns for path in compiled] == stamps  # read, not written again
    # damaged: cut short, emptied, garbage; Jinja2 compiles again and writes them anew
    compiled[0].write_bytes(compiled[0].read_bytes()[:40])
    compiled[1].write_bytes(b"")
    compiled[2].write_bytes(b"\x00garbage" * 10)
    damaged = run("report", *LOGS, "--out", "-")
    assert damaged.returncode == 0, damaged.stderr[-2000:]
    assert damaged.stdout == first.stdout
    assert run("report", *LOGS, "--out", "-").stdout == first.stdout
    # sound header and checksum, then something marshal reads that is not code
    for path in compiled:
        data = io.BytesIO(path.read_bytes())
        assert data.read(len(bc_magic)) == bc_magic
        pickle.load(data)  # the source's checksum
        path.write_bytes(data.getvalue()[: data.tell()] + marshal.dumps(42))
    not_code = run("report", *LOGS, "--out", "-")
    assert not_code.returncode == 0, not_code.stderr[-2000:]
    assert not_code.stdout == first.stdout


def test_a_damaged_price_file_in_the_cache_changes_nothing(fresh_cache_dir: Path) -> None:
    first = run("cost", *LOGS, "--format", "json")
    (kept,) = (fresh_cache_dir / "prices").glob("genai-prices-*.json")
    kept.write_bytes(kept.read_bytes()[: kept.stat().st_size // 2])
    damaged = run("cost", *LOGS, "--format", "json")
    assert damaged.returncode == 0
    assert damaged.stdout == first.stdout
    assert not [line for line in damaged.stderr.splitlines() if not line.startswith(b"import time")]


def test_nothing_is_kept_with_the_cache_off(fresh_cache_dir: Path) -> None:
    result = run("report", *LOGS, "--out", "-", env={"SESSIONTOOLS_NO_CACHE": "yes"})
    assert result.returncode == 0
    assert list(fresh_cache_dir.iterdir()) == []


def test_an_unusable_cache_directory_costs_only_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    want = run("report", *LOGS, "--out", "-", env={"SESSIONTOOLS_NO_CACHE": "1"})
    got = run("report", *LOGS, "--out", "-", env={"SESSIONTOOLS_CACHE_DIR": str(blocker)})
    assert got.returncode == 0
    assert got.stdout == want.stdout
    assert not [line for line in got.stderr.splitlines() if not line.startswith(b"import time")]


def test_a_fifo_or_a_directory_in_place_of_a_kept_file(fresh_cache_dir: Path) -> None:
    """A FIFO where a compiled template or the prices are kept (the trial's: the command
    hung until killed): the command goes on as with nothing kept."""
    first = run("report", *LOGS, "--out", "-")
    (templates,) = fresh_cache_dir.glob("templates-*")
    (prices,) = (fresh_cache_dir / "prices").glob("genai-prices-*.json")
    for path in [*templates.iterdir(), prices]:
        path.unlink()
        os.mkfifo(path)
    got = run("report", *LOGS, "--out", "-")  # run's timeout: 120 s
    assert got.returncode == 0
    assert got.stdout == first.stdout
    # an empty directory in their place (the re-trial's: a traceback, exit 1, every run)
    for path in [*templates.iterdir(), prices]:
        path.unlink()
        path.mkdir()
    for _ in range(2):  # replaced by the first, read by the second
        got = run("report", *LOGS, "--out", "-")
        assert got.returncode == 0, got.stderr[-2000:]
        assert got.stdout == first.stdout
    assert all(path.is_file() for path in [*templates.iterdir(), prices])
