"""The names of ``sessiontools cost``'s groups and formats, apart so that the command line can
check its flags before anything heavy is imported (pandas takes ~0.3 s).
"""

from __future__ import annotations

__all__ = ["FORMATS", "GROUPS", "NO_LABEL"]

#: What ``cost_by`` and ``sessiontools cost --by`` group on (docs/costs.md, "Grouping").
GROUPS = (
    "session",
    "run",
    "day",
    "week",
    "month",
    "model",
    "priced_as",
    "provider",
    "tool",
    "label",
)

#: The ``label`` group of the calls made while the session held no label (a real label
#: starts with a lower-case letter or a digit, so none is spelled this way).
NO_LABEL = "(none)"

#: What ``sessiontools cost --format`` writes.
FORMATS = ("table", "csv", "json", "markdown")
