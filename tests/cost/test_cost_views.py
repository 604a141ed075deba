"""The cost tables read a log with typed decoding (``ExportReader``: msgspec views, issue 14's
speed goals): every frame is exactly what the checked way (``LogReader(..., export=True)``,
every line through orjson and the checked decoders) gives: columns, dtypes, categories,
values; and so are the warnings and the error, whatever the lines hold (sample logs, random
logs, and sample logs with one line mutated in every way ``tests/log/test_views.py`` mutates
lines). A log read in two processes (a large log) is read the typed way in both."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontools import PriceBook, Prices, SessionToolsError, read_costs
from sessiontools._cost import rows as rows_module
from sessiontools._log.reader import ExportReader, LogReader
from sessiontools._parallel import split as split_module
from tests.helpers import SESSIONS, logs_in_testdata
from tests.log.test_views import _MUTATED, _VALUES, _mutate
from tests.parallel.test_split_edges import random_log

#: Prices for every model the sample and random logs name, so that no genai-prices lookup
#: decides a value (the frames compared are the same either way, priced or not).
_BOOK = PriceBook(
    {
        model: Prices(input=1.25, output=10.0, cache_write=1.5, cache_read=0.125)
        for model in ("claude-sonnet-4-5", "gpt-5", "gpt-5-mini", "m1", "m2", "claude-haiku-4-5")
    },
    genai_prices=False,
)


class _Checked(ExportReader):
    """The cost reader with typed decoding off: every line the checked way."""

    views = False


Outcome = tuple[dict[str, pd.DataFrame] | None, list[str], tuple[type[BaseException], str] | None]


def _costs(path: Path, checked: bool, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    """The cost frames of one log, read the typed way or the checked way (in this process)."""
    frames = None
    error = None
    with monkeypatch.context() as m:
        if checked:
            m.setattr(rows_module, "ExportReader", _Checked)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tables = read_costs(path, prices=_BOOK, workers=1)
            except SessionToolsError as e:
                error = (type(e), str(e))
            else:
                frames = {
                    "model_calls": tables.model_calls,
                    "runs": tables.runs,
                    "tool_calls": tables.tool_calls,
                }
    return frames, [str(w.message) for w in caught], error


def _same(a: Outcome, b: Outcome) -> None:
    frames_a, said_a, error_a = a
    frames_b, said_b, error_b = b
    assert said_a == said_b
    assert error_a == error_b
    assert (frames_a is None) == (frames_b is None)
    if frames_a is None or frames_b is None:
        return
    for name, frame in frames_a.items():
        other = frames_b[name]
        assert list(frame.columns) == list(other.columns)
        assert list(frame.dtypes) == list(other.dtypes)
        for column in frame.columns:
            if isinstance(frame[column].dtype, pd.CategoricalDtype):
                assert list(frame[column].cat.categories) == list(other[column].cat.categories)
        pd.testing.assert_frame_equal(frame, other, check_exact=True)


def _same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    typed = _costs(path, False, monkeypatch)
    _same(typed, _costs(path, True, monkeypatch))
    return typed


def test_the_cost_reader_decodes_typed() -> None:
    """The cost tables read with the exporters' typed reader (a view per line), not the
    checked decoders."""
    assert issubclass(rows_module.ExportReader, LogReader)
    assert rows_module.ExportReader.views


@pytest.mark.parametrize("log", logs_in_testdata(), ids=lambda p: p.name)
def test_sample_logs_cost_the_same_either_way(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _same_both_ways(log, monkeypatch)


def test_random_logs_cost_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random logs (runs, crashes, resumed calls, labels, refusals, failed calls, unknown types
    and fields, seq going back, blank and CRLF lines, invalid UTF-8, torn and closing lines):
    some read whole, some stopped by an error, many with warnings."""
    warned = failed = 0
    for i in range(150):
        path = tmp_path / f"r{i}.jsonl"
        path.write_bytes(random_log(random.Random(i)))
        _, said, error = _same_both_ways(path, monkeypatch)
        warned += bool(said)
        failed += error is not None
    assert 30 < warned < 150
    assert failed < 150


_MAKE_LARGE_LOG = Path(__file__).resolve().parents[2] / "benchmarks" / "make_large_log.py"

_BASES = [
    SESSIONS / "02_runs_anthropic_openai_cache.jsonl",
    SESSIONS / "08_tool_model_calls.jsonl",
    SESSIONS / "13_labels_and_pins.jsonl",
]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    base=st.sampled_from(_BASES),
    line=st.integers(min_value=0, max_value=10_000),
    how=st.integers(min_value=0, max_value=3),
    pick=st.integers(min_value=0, max_value=10_000),
    value=st.sampled_from(_VALUES),
)
def test_a_mutated_line_costs_the_same_either_way(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    base: Path,
    line: int,
    how: int,
    pick: int,
    value: Any,
) -> None:
    """A sample log with one line mutated (a value of another kind, an unknown name, a name
    given twice, odd bytes in a string): the same frames, warnings and error either way."""
    lines = base.read_bytes().splitlines(True)
    at = line % len(lines)
    lines[at] = _mutate(lines[at], how, pick, value)
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(b"".join(lines))
    _same_both_ways(path, monkeypatch)


def test_every_mutated_line_of_the_samples_costs_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line of the mutation samples, each way of mutating it once (a deterministic sweep
    beside the hypothesis test), inside a log: the same frames, warnings and error."""
    r = random.Random(14)
    lines = list(_MUTATED)
    for i, raw in enumerate(lines):
        how = i % 4
        mutated = _mutate(raw, how, r.randrange(10_000), r.choice(_VALUES))
        path = tmp_path / f"m{i}.jsonl"
        path.write_bytes(b"".join([*lines[:i], mutated, *lines[i + 1 :]]))
        _same_both_ways(path, monkeypatch)


def test_a_large_log_read_in_two_costs_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log over the size read in two processes (``read_costs(workers=None)``): the typed
    way in both processes gives the frames the checked way gives."""
    path = tmp_path / "large.jsonl"
    # over the 8 MB from which a log is read in two; the benchmarks' generator (runs, crashes,
    # failed calls, tools' model calls, labels, refusals, mixed UTC offsets)
    subprocess.run(
        [sys.executable, str(_MAKE_LARGE_LOG), "--size-mb", "9", "--seed", "14", "--out", path],
        check=True,
        capture_output=True,
    )

    how: list[str] = []
    real = split_module.read_in_two

    def read_in_two(*args: Any, **kwargs: Any) -> Any:
        done = real(*args, **kwargs)
        how.append(done[0])
        return done

    def both(checked: bool) -> Outcome:
        with monkeypatch.context() as m:
            m.setattr(split_module, "read_in_two", read_in_two)
            if checked:
                m.setattr(rows_module, "ExportReader", _Checked)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    tables = read_costs(path, prices=_BOOK, workers=None)
                except SessionToolsError as e:
                    return None, [str(w.message) for w in caught], (type(e), str(e))
            frames = {
                "model_calls": tables.model_calls,
                "runs": tables.runs,
                "tool_calls": tables.tool_calls,
            }
            return frames, [str(w.message) for w in caught], None

    typed = both(False)
    _same(typed, both(True))
    assert how == ["child", "child"]  # the second part read in a child, both times
    frames = typed[0]
    assert typed[2] is None and frames is not None
    assert len(frames["model_calls"]) > 500
