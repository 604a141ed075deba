"""Fixtures shared by the test files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.parallel.splitting import cut_at, split_ways

__all__ = ["cut_at", "fresh_cache_dir", "session_cache_dir", "split_ways"]


@pytest.fixture(autouse=True, scope="session")
def session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache directory for what runs before a test's own (module and session fixtures)."""
    path = tmp_path_factory.mktemp("session-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SESSIONTOOLS_CACHE_DIR", str(path))
        yield path


@pytest.fixture(autouse=True)
def fresh_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Each test gets an empty cache directory of its own (``sessiontools._cachedir``): what
    the command line keeps between runs never leaks from one test into another, nor into the
    home directory of whoever runs the tests. Child processes inherit it."""
    path = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SESSIONTOOLS_CACHE_DIR", str(path))
        patch.delenv("SESSIONTOOLS_NO_CACHE", raising=False)
        yield path
