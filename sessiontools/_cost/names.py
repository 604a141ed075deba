"""Names the command line needs before anything heavy is imported (pandas takes ~0.3 s)."""

from __future__ import annotations

__all__ = ["FORMATS", "GROUPS"]

#: What ``cost_by`` and ``sessiontools cost --by`` group on (design/costs.md).
GROUPS = ("session", "run", "day", "model", "provider", "tool")

#: What ``sessiontools cost --format`` writes.
FORMATS = ("table", "csv", "json", "markdown")
