"""Edge cases of cost tables read in two processes (``_split`` with ``_costread._Rows``):
the claim is that frames, ``skipped``, ``warnings``, warnings issued and errors raised are
exactly those of ``workers=1`` for any log and any cut.

No failure was found: every test here passes. They cover what tests/parallel/test_split_costs.py
does not: random logs (tests/parallel/test_split_edges.random_log) with negative counts in turns
and in tools' own model calls, damage, closing lines with cost_usd, skip_damaged; the same runs
read from several logs (a copy cut mid-run, a transcript with a wrong cost_usd) with one log
cut; the real fork (pickled rows and errors); and the command with a price file, unknown models,
--since/--until and every grouping."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from sessiontools._parallel import cut as _cut
from tests.parallel.splitting import cost_outcome, cut_where, line_starts, split_here
from tests.parallel.test_split import built_log
from tests.parallel.test_split_edges import random_log


@pytest.fixture
def cut_many(monkeypatch: pytest.MonkeyPatch) -> Any:
    """read_costs with workers=None, in this process, each log cut where the test says (by
    path; a log not named is not cut)."""
    where: dict[str, int] = {}
    ways = split_here(monkeypatch, where.get)

    def run(paths: Any, cuts: dict[Path, int], **kwargs: Any) -> Any:
        where.clear()
        where.update({os.fspath(p): c for p, c in cuts.items()})
        return cost_outcome(paths, None, **kwargs)

    run.ways = ways  # type: ignore[attr-defined]
    return run


def run_starts(data: bytes) -> list[int]:
    return [c for c in line_starts(data) if b'"type":"run_started"' in data[c : c + 80]]


def test_random_logs_at_every_line_start(tmp_path: Path, cut_many: Any) -> None:
    bad = []
    for i in range(15):
        data = random_log(random.Random(i))
        path = tmp_path / f"r{i}.jsonl"
        path.write_bytes(data)
        expected = cost_outcome(path, 1)
        for cut in line_starts(data):
            if cut_many(path, {path: cut}) != expected:
                bad.append((i, cut))
    assert not bad, bad[:20]


def mutate(r: random.Random, data: bytes) -> bytes:
    """random_log plus: negative counts (a turn's or a tool's own call), known tool models,
    damage in the middle, a closing line with cost_usd."""
    lines = data.split(b"\n")
    for i, ln in enumerate(lines):
        x = r.random()
        if b'"input_tokens":100' in ln and x < 0.04:
            lines[i] = ln.replace(b'"input_tokens":100', b'"input_tokens":-1', 1)
        elif b'"model":"h"' in ln and x < 0.5:
            lines[i] = ln.replace(b'"model":"h"', b'"model":"claude-haiku-4-5"')
            if r.random() < 0.1:
                lines[i] = lines[i].replace(b'"input_tokens":1', b'"input_tokens":-3', 1)
        elif ln.startswith(b'{"seq"') and x < 0.01:
            lines[i] = ln[: len(ln) // 2]  # damage (or a torn tail, if last)
    data = b"\n".join(lines)
    if r.random() < 0.3 and data.endswith(b"\n"):
        cost = r.choice([0.00021, 1.0, 0.0])
        data += (
            b'{"reason":"completed","turns":1,"usage":{"input_tokens":100,"output_tokens":10},'
            b'"cost_usd":' + str(cost).encode() + b"}\n"
        )
    return data


@pytest.mark.parametrize("skip_damaged", [False, True])
def test_mutated_random_logs_at_every_line_start(
    tmp_path: Path, cut_many: Any, skip_damaged: bool
) -> None:
    bad = []
    for i in range(12):
        r = random.Random(5000 + i)
        data = mutate(r, random_log(r))
        path = tmp_path / f"m{i}.jsonl"
        path.write_bytes(data)
        expected = cost_outcome(path, 1, skip_damaged=skip_damaged)
        for cut in line_starts(data):
            if cut_many(path, {path: cut}, skip_damaged=skip_damaged) != expected:
                bad.append((i, cut))
    assert not bad, bad[:20]


def transcript_of(data: bytes, start: int, cost: float) -> bytes:
    """The lines of the run starting at ``start`` (to its run_ended or the next run), and a
    closing outcome line with ``cost_usd``."""
    rest = data[start:].split(b"\n")
    out = [rest[0]]
    for ln in rest[1:]:
        if b'"type":"run_started"' in ln[:80]:
            break
        out.append(ln)
        if b'"type":"run_ended"' in ln[:80]:
            break
    body = b"\n".join(x for x in out if x.strip()) + b"\n"
    return body + (
        b'{"reason":"completed","turns":1,"usage":{"input_tokens":100,"output_tokens":10},'
        b'"cost_usd":' + repr(cost).encode() + b"}\n"
    )


def test_same_runs_in_several_logs_one_of_them_split(tmp_path: Path, cut_many: Any) -> None:
    bad = []
    tried = 0
    for i in range(8):
        r = random.Random(9000 + i)
        data = random_log(r)
        starts = run_starts(data)
        if len(starts) < 2:
            continue
        session = tmp_path / f"s{i}.jsonl"
        session.write_bytes(data)
        copy = tmp_path / f"s{i}-copy.jsonl"
        lines = line_starts(data)
        copy.write_bytes(data[: r.choice(lines[1:])] if len(lines) > 1 else data)
        transcript = tmp_path / f"s{i}-transcript.jsonl"
        transcript.write_bytes(transcript_of(data, r.choice(starts), r.choice([0.5, 0.000001])))
        for paths in ([copy, session, transcript], [transcript, session], [session, copy, session]):
            for skip in (False, True):
                expected = cost_outcome(paths, 1, skip_damaged=skip)
                for cut in starts:
                    tried += 1
                    # the session (and a second time the same file) is cut
                    if cut_many(paths, {session: cut}, skip_damaged=skip) != expected:
                        bad.append((i, [p.name for p in paths], skip, cut))
    assert tried > 40
    assert not bad, bad[:20]


@pytest.fixture
def forked(monkeypatch: pytest.MonkeyPatch, split_ways: list[str]) -> Any:
    """read_costs with workers=None, forked for real, each log cut where the test says."""
    where: dict[str, int] = {}
    cut_where(monkeypatch, where.get)

    def run(paths: Any, cuts: dict[Path, int], **kwargs: Any) -> Any:
        where.clear()
        where.update({os.fspath(p): c for p, c in cuts.items()})
        return cost_outcome(paths, None, **kwargs)

    run.ways = split_ways  # type: ignore[attr-defined]
    return run


def test_mutated_random_logs_forked_at_each_run(tmp_path: Path, forked: Any) -> None:
    bad = []
    for i in range(8):
        r = random.Random(70_000 + i)
        data = mutate(r, random_log(r))
        path = tmp_path / f"f{i}.jsonl"
        path.write_bytes(data)
        for skip in (False, True):
            expected = cost_outcome(path, 1, skip_damaged=skip)
            for cut in run_starts(data):
                if forked(path, {path: cut}, skip_damaged=skip) != expected:
                    bad.append((i, skip, cut))
    assert not bad, bad[:20]
    assert forked.ways.count("child") > 5, forked.ways


def _late(data: bytes, old: bytes, new: bytes, after: float = 0.7) -> bytes:
    """``data`` with the first ``old`` past ``after`` of it replaced by ``new``."""
    at = data.index(old, int(len(data) * after))
    return data[:at] + new + data[at + len(old) :]


def test_the_command_forked_with_prices_since_until_and_every_grouping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split_ways: list[str]
) -> None:
    from click.testing import CliRunner

    from sessiontools._cli.main import cli

    a = built_log(30)
    a = _late(  # a tool's own model calls after the cut
        a,
        b'"tool_result":{"result"',
        b'"tool_result":{"usage":[{"model":"claude-haiku-4-5","usage":{"input_tokens":7,'
        b'"output_tokens":3}},{"model":"acme-x","usage":{"input_tokens":1,"output_tokens":1}}],'
        b'"result"',
    )
    a = _late(a, b'"model":"gpt-5"', b'"model":"acme-y"', 0.8)  # unknown: NaN
    logs = {"a.jsonl": a}
    starts = run_starts(a)
    logs["t.jsonl"] = transcript_of(a, starts[len(starts) * 3 // 4], 0.5)
    logs["c.jsonl"] = a[: line_starts(a)[len(line_starts(a)) * 2 // 3 + 1] - 7]  # torn copy
    logs["d.jsonl"] = _late(a, b'"type":"decision"', b'"type":"decision', 0.8)  # damaged
    logs["n.jsonl"] = _late(
        a,
        b'"stop":"end_turn","usage":{"input_tokens":120',
        b'"stop":"end_turn","usage":{"input_tokens":-120',
        0.8,
    )
    for name, data in logs.items():
        (tmp_path / name).write_bytes(data)
    prices = tmp_path / "p.json"
    prices.write_bytes(
        b'{"gpt-5": {"input": 1.25, "output": 10}, "claude-haiku-4-5": {"input": 1, "output": 5},'
        b' "claude-sonnet-4-5": {"input": 3, "output": 15}}'
    )
    paths = [str(tmp_path / n) for n in ("c.jsonl", "a.jsonl", "t.jsonl", "d.jsonl", "n.jsonl")]
    variants = [
        ["--by", "session", "--by", "run", "--format", "json"],
        ["--by", "tool", "--by", "model", "--format", "csv", "--prices", str(prices)],
        ["--by", "day", "--by", "provider", "--since", "2026-10-18T09:30:30+02:00",
         "--until", "2026-10-18T09:31:10+02:00", "--prices", str(prices)],
    ]  # fmt: skip
    for args in variants:
        got = []
        for split_from in (10**12, 0):
            monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", split_from)
            monkeypatch.setattr(_cut, "available_cores", lambda: 2)
            r = CliRunner().invoke(cli, ["cost", *paths, *args])
            got.append((r.exit_code, r.stdout, r.stderr))
        assert got[0] == got[1], args
        exit_code, _, said = got[0]
        assert exit_code == 1 and "transcript says" in said
        assert "d.jsonl: line" in said and "n.jsonl: line" in said and "negative" in said
    assert split_ways.count("child") >= 6, split_ways  # a and c; d and n raise
