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

#: How ``table`` and ``markdown`` show the ``label`` group of the calls made while the
#: session held no label: the group with no value (``None``; NA in a frame, ``null`` in
#: ``json``), so no label read from a log can fall in it. A label spelled so (which
#: agentloop refuses) is shown in double quotes.
NO_LABEL = "(none)"

#: What ``sessiontools cost --format`` writes.
FORMATS = ("table", "csv", "json", "markdown")
