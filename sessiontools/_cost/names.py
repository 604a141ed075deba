"""The names of ``sessiontools cost``'s groups and formats, apart so that the command line can
check its flags before anything heavy is imported (pandas takes ~0.3 s).
"""

from __future__ import annotations

__all__ = ["FORMATS", "GROUPS"]

#: What ``cost_by`` and ``sessiontools cost --by`` group on (docs/costs.md, "Grouping").
GROUPS = ("session", "run", "day", "model", "provider", "tool")

#: What ``sessiontools cost --format`` writes.
FORMATS = ("table", "csv", "json", "markdown")
