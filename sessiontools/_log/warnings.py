"""Where the warnings of one read of a log go: one sink, shared by the reader and the fold (the
first two stages; docs/reading.md, "Warnings").

Each kind of warning is given once per log (an unknown entry type, an unknown field, entries
out of order, an entry outside any run, a repeated entry): the key says what it is given once
for. A message reads ``{name}: line {line}{rest}``. By default each is given to Python's
``warnings.warn`` as it comes; a sink made with ``record=True`` keeps them instead, as
``(category, key, line, rest)`` records, for a part of a log read in another process, whose
lines are numbered from where that part starts: ``replay`` gives them again, numbered from
the start of the log, each kind still once.
"""

from __future__ import annotations

import warnings

__all__ = ["Record", "Warnings"]

#: A warning kept rather than given: its category, what it is given once for, its line, and
#: the rest of its message after ``{name}: line {line}``.
Record = tuple[type[Warning], str, int, str]


class Warnings:
    """The warnings of one read of a log (module docstring). A plain class, not a dataclass:
    the standard decorator compiles its methods at import, about 1 ms of every command's
    start-up.

    Attributes:
        name: the log's name, at the start of every message.
        record: whether the warnings are kept (``records``) instead of given.
        messages: every message given, in order.
        records: the warnings kept instead of given (``record=True``), else ``None``.
    """

    def __init__(
        self,
        name: str,
        record: bool = False,
        messages: list[str] | None = None,
        records: list[Record] | None = None,
    ) -> None:
        self.name = name
        self.record = record
        self.messages: list[str] = [] if messages is None else messages
        self.records = [] if record and records is None else records
        self._given: set[str] = set()

    def __repr__(self) -> str:
        return (
            f"Warnings(name={self.name!r}, record={self.record!r}, "
            f"messages={self.messages!r}, records={self.records!r})"
        )

    def given(self, key: str) -> bool:
        """Whether a warning for ``key`` was given already."""
        return key in self._given

    def given_keys(self) -> list[str]:
        """What warnings were given for, sorted (to be given again to ``mark_given``)."""
        return sorted(self._given)

    def mark_given(self, keys: list[str]) -> None:
        """Take warnings for ``keys`` as given already (by an earlier read of the log)."""
        self._given.update(keys)

    def warn(self, category: type[Warning], key: str, line: int, rest: str) -> None:
        """Give ``{name}: line {line}{rest}``, unless a warning for ``key`` was given."""
        if key in self._given:
            return
        self._given.add(key)
        message = f"{self.name}: line {line}{rest}"
        self.messages.append(message)
        if self.records is not None:
            self.records.append((category, key, line, rest))
        else:
            warnings.warn(category(message), stacklevel=3)

    def replay(self, records: list[Record], lines_before: int) -> None:
        """Give what another read kept (``records``), its lines numbered after
        ``lines_before`` lines: those of a part of the log that starts there."""
        for category, key, line, rest in records:
            self.warn(category, key, line + lines_before, rest)
