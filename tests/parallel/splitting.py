"""Reading a log in two processes (``sessiontools._parallel.split``), for the tests: the
child's work run in this process, how each read went, and what one read gives. Used by
tests/parallel/test_split*.py
(the ``cut_at`` and ``split_ways`` fixtures are made available by tests/conftest.py)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sessiontools import LogError, Prices, UsageConventionError, export_otlp_json, read_costs
from sessiontools._parallel import cut as _cut
from sessiontools._parallel import split as _split

Outcome = tuple[bytes, list[tuple[type[Warning], str]], tuple[type[BaseException], str] | None]

# Every model the sample and built logs name, at made-up prices: no look-up in genai-prices, so
# comparisons of cost tables are of the rows, not of the price tables.
PRICES = {
    model: Prices(1.0, 2.0, 0.5, 1.25)
    for model in (
        "claude-sonnet-4-5",
        "claude-opus-4-1",
        "claude-haiku-4-5",
        "gpt-5",
        "gpt-5-mini",
        "gpt-4.1",
        "o3",
    )
}


class InProcessChild:
    """``_split._Child`` without the fork: the child's work runs when its result is asked for,
    after the first part, as the forked child's result is taken."""

    def __init__(self, *args: Any) -> None:
        self.args = args  # path, name, cut, out, job, export, max_line_bytes

    def result(self) -> Any:
        return _split.read_tail(*self.args)

    def __enter__(self) -> InProcessChild:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def record_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each read in two reads its second part (what ``read_in_two`` says; ``raised``)."""
    ways: list[str] = []
    read_in_two = _split.read_in_two

    def recording(*args: Any) -> Any:
        way = "raised"
        try:
            result = read_in_two(*args)
            way = result[0]
        finally:
            ways.append(way)
        return result

    monkeypatch.setattr(_split, "read_in_two", recording)
    return ways


def cut_where(monkeypatch: pytest.MonkeyPatch, cut_for: Callable[[str], int | None]) -> None:
    """Cut each log where ``cut_for(path)`` says (``None``: not at all), however small."""
    monkeypatch.setattr(_cut, "find_cut", lambda path, size, **_: cut_for(os.fspath(path)))
    monkeypatch.setattr(_cut, "SPLIT_FROM_BYTES", 0)
    monkeypatch.setattr(_cut, "available_cores", lambda: 2)


def split_here(monkeypatch: pytest.MonkeyPatch, cut_for: Callable[[str], int | None]) -> list[str]:
    """Read in two in this process (``InProcessChild``), cut where ``cut_for`` says; returns
    how each read went (``record_ways``)."""
    monkeypatch.setattr(_split, "_Child", InProcessChild)
    cut_where(monkeypatch, cut_for)
    return record_ways(monkeypatch)


@pytest.fixture
def cut_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Export in two, in process, cut where the test says; collect how each part was read."""
    where: dict[str, int] = {}
    ways = split_here(monkeypatch, lambda path: where["cut"])

    def run(path: Path, cut: int, **kwargs: Any) -> Outcome:
        where["cut"] = cut
        return export(path, workers=2, **kwargs)

    run.ways = ways  # type: ignore[attr-defined]
    yield run


@pytest.fixture
def split_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each read in two (forked) read its second part: what ``read_in_two`` said."""
    return record_ways(monkeypatch)


def export(path: Path, **kwargs: Any) -> Outcome:
    """What exporting ``path`` gives: the bytes, the warnings, and the error if any."""
    out = bytearray()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            export_otlp_json(path, out.extend, **kwargs)
        except LogError as e:
            error = (type(e), str(e))
    said = [(w.category, str(w.message)) for w in caught]
    return bytes(out) if error is None else b"", said, error


def cost_outcome(paths: Any, workers: int | None, **kwargs: Any) -> Any:
    """Everything ``read_costs`` gives (``PRICES`` unless told): the frames as plain data with
    ``warnings`` and ``skipped``, the warnings given, and the error if any."""
    error = None
    frames = None
    kwargs.setdefault("prices", PRICES)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            t = read_costs(paths, workers=workers, **kwargs)
            frames = {
                name: getattr(t, name).astype(object).where(getattr(t, name).notna(), None)
                .to_dict("split")
                for name in ("model_calls", "runs", "tool_calls")
            }  # fmt: skip
            frames["warnings"] = list(t.warnings)
            frames["skipped"] = list(t.skipped)
        except (LogError, UsageConventionError, OSError) as e:
            error = (type(e), str(e))
    said = [(w.category, str(w.message)) for w in caught]
    return frames, said, error


def line_starts(data: bytes) -> list[int]:
    """The offset of every line, 0 included."""
    starts = [0]
    at = data.find(b"\n")
    while at != -1 and at + 1 < len(data):
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts
