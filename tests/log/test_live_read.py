"""Reading a log while it is written (issue 10, item 20): a line that has no ``\\n`` yet when it
is read ends what that read sees (a torn tail at most), in one process and two, and in
``FileStore.load``.

A writer process appends while this process reads the log in a loop, every way it can be
read: the export (``export_otlp_json``, one process and two), the cost tables (``read_costs``,
one process and two) and ``FileStore.load``. No read may report damage, and every read's runs
must be a prefix of the final read's (its last run may still be under way). Two writers: one
that writes each line in several small writes, as a slow writer does, and the library's own
``FileStore`` appending results of a megabyte or more, which the kernel copies in parts.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from sessiontools import (
    FileStore,
    LogError,
    SessionBuilder,
    SessionToolsWarning,
    TornTailWarning,
    Usage,
    encode_entry,
    export_otlp_json,
    read_costs,
)
from sessiontools._parallel import cut as _cut
from tests.helpers import REPO
from tests.parallel.splitting import PRICES, record_ways

# Writes each line of a log in several parts (cut at random places), pausing after each part:
# a reader at the end of the file nearly always finds a line begun and not ended.
PIECEWISE = """
import os, random, sys, time
data = open(sys.argv[1], "rb").read()
fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND)
rng = random.Random(7)
for line in data.splitlines(keepends=True):
    cuts = sorted(rng.sample(range(1, len(line)), k=min(3, len(line) - 1)))
    for a, b in zip([0] + cuts, cuts + [len(line)]):
        os.write(fd, line[a:b])
        time.sleep(0.0002)
"""

# The session library's own writer: FileStore appends, each result a megabyte or more.
STORE_WRITER = """
import sys, time
from sessiontools import FileStore, SessionBuilder, Usage
with FileStore(sys.argv[1]) as store:
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="live", store=store)
    b.labels("team:a")
    for i in range(14):
        b.run(f"task {i}")
        b.anthropic(calls=[("read", {"path": f"/f{i}"})], usage=Usage(100 + i, 10))
        b.allow("r" * (1_000_000 + 99_991 * i))
        b.anthropic(text=f"done {i}", usage=Usage(120, 5))
        b.run_ended()
        time.sleep(0.03)
"""


def slow_log(runs: int) -> bytes:
    """A session of many short runs. Labels only at the start: the labels every run's span
    carries are the session's, which then do not change as the log grows."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="live")
    b.labels("team:a")
    for i in range(runs):
        b.run(f"task {i}")
        turn = b.anthropic if i % 2 else b.openai
        turn(calls=[("read", {"path": f"/f{i}"})], usage=Usage(100 + i, 10))
        b.allow("ok " * 40)
        turn(text=f"done {i}", usage=Usage(120, 5))
        b.run_ended()
    return b.to_bytes()


def export(path: Path, workers: int) -> list[list[dict[str, Any]]]:
    """The export's spans, one list per run (each run is its own trace), in order."""
    out = bytearray()
    export_otlp_json(path, out.extend, workers=workers)
    request = orjson.loads(out)
    traces: dict[str, list[dict[str, Any]]] = {}
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope.get("spans", ()):
                traces.setdefault(span["traceId"], []).append(span)
    return list(traces.values())


def cost_runs(path: Path, workers: int | None) -> list[dict[str, Any]]:
    """The ``runs`` frame's rows, with the number of model calls each run has in
    ``model_calls``."""
    tables = read_costs(path, prices=PRICES, workers=workers)
    runs = tables.runs.astype(object)
    rows: list[dict[str, Any]] = runs.where(runs.notna(), None).to_dict("records")  # no NaN
    calls = tables.model_calls.groupby("run_index").size().to_dict()
    for row in rows:
        row["model_call_rows"] = calls.get(row["run_index"], 0)
    return rows


def load(path: Path) -> list[bytes]:
    return [encode_entry(e) for e in FileStore(path).load()]


READS: dict[str, Callable[[Path], list[Any]]] = {
    "otel, one process": lambda path: export(path, 1),
    "otel, two processes": lambda path: export(path, 2),
    "cost, one process": lambda path: cost_runs(path, 1),
    "cost, two processes": lambda path: cost_runs(path, None),
    "FileStore.load": load,
}


def is_prefix(way: str, read: list[Any], final: list[Any]) -> bool:
    """Whether ``read`` (runs, or entries) is a prefix of ``final``: every run but the last
    alike; the last (perhaps still under way, or cut at a torn line) the same run."""
    if len(read) > len(final):
        return False
    if not read:
        return True
    if way == "FileStore.load":  # entries: each as it is
        return read == final[: len(read)]
    if read[:-1] != final[: len(read) - 1]:
        return False
    last, same = read[-1], final[len(read) - 1]
    if way.startswith("otel"):
        return bool(last[0]["spanId"] == same[0]["spanId"])  # the run's invoke_agent span
    return bool(last["run_start_seq"] == same["run_start_seq"])


def read_while_written(writer: subprocess.Popen[bytes], path: Path) -> dict[str, list[Any]]:
    """Read ``path`` every way in turn until ``writer`` is done; then once more each way (the
    last read of each way is the final one). Damage fails the test."""
    reads: dict[str, list[Any]] = {way: [] for way in READS}
    done = False
    while not done:
        done = writer.poll() is not None  # a last round once the writer is done
        for way, read in READS.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    reads[way].append(read(path))
                except LogError as e:
                    pytest.fail(f"{way}: {e}")
            said = [w for w in caught if issubclass(w.category, SessionToolsWarning)]
            others = [str(w.message) for w in said if w.category is not TornTailWarning]
            assert not others, (way, others)
    assert writer.wait() == 0
    return reads


@pytest.fixture
def two_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Cost tables of a small log read in two processes too (as for 8 MB and more), on any
    machine; how each read in two went."""
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", 0)
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)
    return record_ways(monkeypatch)


def check(reads: dict[str, list[Any]], ways: list[str], final_runs: int) -> None:
    for way, results in reads.items():
        final = results[-1]
        if way != "FileStore.load":  # entries, checked by the caller
            assert len(final) == final_runs, way
        bad = [i for i, read in enumerate(results) if not is_prefix(way, read, final)]
        assert not bad, (way, bad)
        assert len(results) >= 3, way  # reads while the log grew
    assert "child" in ways  # reads in two did happen, the child's part kept


def test_lines_written_in_parts_are_never_damage(tmp_path: Path, two_ways: list[str]) -> None:
    source = tmp_path / "source.jsonl"
    source.write_bytes(slow_log(90))
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"")
    started = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PIECEWISE), str(source), str(path)]
    ) as writer:
        reads = read_while_written(writer, path)
    assert path.read_bytes() == source.read_bytes()
    check(reads, two_ways, 90)
    assert reads["FileStore.load"][-1] == source.read_bytes().splitlines()
    assert time.monotonic() - started < 30


def test_file_store_appends_of_megabytes_are_never_damage(
    tmp_path: Path, two_ways: list[str]
) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"")
    with subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(STORE_WRITER), str(path)], cwd=REPO
    ) as writer:
        reads = read_while_written(writer, path)
    check(reads, two_ways, 14)
    assert reads["FileStore.load"][-1] == path.read_bytes().splitlines()
