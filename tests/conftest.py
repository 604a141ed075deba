"""Fixtures shared by the test files."""

from tests.splitting import cut_at

__all__ = ["cut_at"]
