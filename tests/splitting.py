"""Exporting in two processes, in this one: the harness of tests/test_split.py and
tests/test_split_edges.py (the ``cut_at`` fixture, made available by tests/conftest.py)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sessiontools import LogError, _split, export_otlp_json

Outcome = tuple[bytes, list[tuple[type[Warning], str]], tuple[type[BaseException], str] | None]


class InProcessChild:
    """``_split._Child`` without the fork: the child's work runs when its result is asked for,
    after the first part, as the forked child's result is taken."""

    def __init__(self, path: str, name: str, cut: int, out: Any, job: Any) -> None:
        self.args = (path, name, cut, out, job)

    def result(self) -> Any:
        return _split.read_tail(*self.args)

    def __enter__(self) -> InProcessChild:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.fixture
def cut_at(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Export in two, in process, cut where the test says; collect how each part was read."""
    ways: list[str] = []
    where: dict[str, int] = {}
    monkeypatch.setattr(_split, "_Child", InProcessChild)
    monkeypatch.setattr(_split, "find_cut", lambda path, size: where["cut"])
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

    def run(path: Path, cut: int, **kwargs: Any) -> Outcome:
        where["cut"] = cut
        return export(path, workers=2, **kwargs)

    run.ways = ways  # type: ignore[attr-defined]
    yield run


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


def line_starts(data: bytes) -> list[int]:
    """The offset of every line, 0 included."""
    starts = [0]
    at = data.find(b"\n")
    while at != -1 and at + 1 < len(data):
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    return starts


@pytest.fixture
def split_ways(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each export in two (forked) read its second part: what ``read_in_two`` said."""
    ways: list[str] = []
    read_in_two = _split.read_in_two

    def recording(*args: Any) -> Any:
        result = read_in_two(*args)
        ways.append(result[0])
        return result

    monkeypatch.setattr(_split, "read_in_two", recording)
    return ways
