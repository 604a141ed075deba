"""Cost tables of a log read in two processes (``sessiontools._parallel.split`` with
``_costread._Rows``): the same frames, warnings and errors as one process, at every cut."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sessiontools import EntryError
from sessiontools._parallel import cut as _cut
from sessiontools._parallel.cut import find_cut as real_find_cut
from tests.helpers import line, outcome, usage
from tests.parallel.splitting import cost_outcome, line_starts, split_here
from tests.parallel.test_split import built_log, sample_logs


@pytest.fixture
def cut_costs_at(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Read costs in two, in this process, cut where the test says."""
    where: dict[str, int] = {}
    ways = split_here(monkeypatch, lambda path: where["cut"])

    def run(path: Path, cut: int) -> Any:
        where["cut"] = cut
        return cost_outcome(path, None)

    run.ways = ways  # type: ignore[attr-defined]
    return run


def test_every_cut_of_every_log_gives_one_process_tables(tmp_path: Path, cut_costs_at: Any) -> None:
    tried = 0
    for path in sample_logs(tmp_path):
        expected = cost_outcome(path, 1)
        for cut in line_starts(path.read_bytes()):
            assert cut_costs_at(path, cut) == expected, (path.name, cut)
            tried += 1
    ways = Counter(way.split(":")[0] for way in cut_costs_at.ways)
    assert tried == len(cut_costs_at.ways) > 200
    assert ways["child"] > 25, ways
    assert ways["here"] > 50, ways


def test_run_index_and_labels_count_from_the_start(tmp_path: Path, cut_costs_at: Any) -> None:
    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(12))
    cut = real_find_cut(str(path), path.stat().st_size)
    assert cut is not None
    got = cut_costs_at(path, cut)
    assert cut_costs_at.ways == ["child"]
    assert got == cost_outcome(path, 1)
    frames, _, _ = got
    assert frames is not None
    runs = pd.DataFrame(**frames["runs"])
    assert list(runs["run_index"]) == list(range(len(runs)))
    assert all("team:a" in labels for labels in runs["labels"])  # given before the cut
    calls = pd.DataFrame(**frames["model_calls"])
    assert all("team:a" in labels for labels in calls["labels"])  # each call's, too


def test_negative_counts_on_both_sides_raise_the_first(tmp_path: Path, cut_costs_at: Any) -> None:
    def run(seq: int, u: dict[str, int]) -> bytes:
        return (
            line(seq, "run_started", {"prompt": "p"})
            + line(seq + 1, "message", {"message": {"role": "user", "parts": []}, "usage": {}})
            + line(
                seq + 2,
                "message",
                {
                    "message": {"role": "assistant", "parts": [{"type": "text", "text": "x"}]},
                    "usage": u,
                    "model": "gpt-5",
                },
            )
            + line(seq + 3, "run_ended", outcome(turns=1, u=u))
        )

    good, bad = usage(10, 5), {"input_tokens": -1, "output_tokens": 5}
    for first, second in ((good, bad), (bad, good), (bad, bad)):
        path = tmp_path / "negative.jsonl"
        body = run(0, first) + run(10, second)
        path.write_bytes(body)
        cut = body.index(b'{"seq":10,')
        got = cut_costs_at(path, cut)
        assert got == cost_outcome(path, 1)
        # an error in the log, named by its line (sessiontools._log.limits), in both processes
        assert got[2] is not None and got[2][0] is EntryError
        assert ": line " in got[2][1] and "input_tokens is -1" in got[2][1]


def test_the_command_reads_a_large_log_in_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_ways: list[str]
) -> None:
    from click.testing import CliRunner

    from sessiontools._cli.main import cli

    path = tmp_path / "built.jsonl"
    path.write_bytes(built_log(30))
    outputs = []
    for split_from in (10**12, 0):
        monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", split_from)
        monkeypatch.setattr(_cut, "available_cores", lambda: 2)
        out = tmp_path / f"cost{split_from}.json"
        got = CliRunner().invoke(cli, ["cost", str(path), "--format", "json", "--out", str(out)])
        assert got.exit_code == 0, got.output
        outputs.append(out.read_bytes())
    assert split_ways == ["child"]  # forked for real, the second time only
    assert outputs[0] == outputs[1]
