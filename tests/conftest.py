"""Fixtures shared by the test files."""

from tests.parallel.splitting import cut_at, split_ways

__all__ = ["cut_at", "split_ways"]
