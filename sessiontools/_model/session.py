"""A whole session: ``Session``, ``read_session`` (a log file) and ``open_session`` (a store);
the session model kept whole, for the session library (docs/session-library.md, "Session").

A ``Session`` keeps every entry and its runs (``fold``), and derives the rest on first use:
the conversation and the state of each call (``conversation``, loaded only then, so reading
and exporting never load it). It is read, never written. ``read_session`` reads as the
exporters do (a plain read, gzip too); ``open_session`` takes what a store's ``load()`` gives
(an exact read).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, cast

from .._errors import PinError
from .._log.content import Message, ToolCall
from .._log.entries import Entry, Usage
from .._log.reader import MAX_LINE_BYTES, ClosingLine, LogReader, LogSource, TornTail
from .fold import SessionFold, iter_runs
from .runs import LabelSource, Run, Turn

if TYPE_CHECKING:  # loaded when a Session first needs them: reading and exporting do not
    from .conversation import CallInfo, Conversation, View

__all__ = ["Session", "open_session", "read_session"]


@dataclass(frozen=True, slots=True)
class Session:
    """A whole session: its entries, and everything derived from them (Go's ``Session``).

    Go's methods are methods here, in snake case: ``labels()``, ``label_sources()``,
    ``pins()``, ``usage()`` (computed as the log is read), ``messages()``, ``pending()``,
    ``call(id)``, ``turns()``, ``view()`` (computed on first use and kept) and
    ``check_pins(pins)``; Go's ``Entries()`` is the attribute ``entries``. Go's
    ``AddLabels`` has no counterpart: a ``Session`` is read, never written (write with a store,
    or ``SessionBuilder``). ``runs`` is this package's own (docs/reading.md, "The
    session model").

    **Equality.** A session is its entries and nothing else (as agentloop's is), so ``==`` compares
    ``entries`` and what is derived from them (``runs``, the labels, their sources, the pins,
    the usage), and not how it was read: ``name``, ``torn_tail``, ``closing_line``
    and ``warnings`` are left out, as is each entry's ``line``. So a session reopened from its
    store (``open_session``), or read from the file (``read_session``), or made from the same
    entries (``from_entries``), equals the session that was closed; a torn last line, which
    was never an entry, changes nothing.

    Attributes:
        name: the log's name in messages (its path, or ``<stdin>``).
        entries: every entry, in order.
        runs: every run, in order, crashed ones included.
        torn_tail: the ignored last line, if the last write was cut short.
        closing_line: a transcript's closing outcome line, if the log is a transcript.
        warnings: the warnings given while reading, one line each.
    """

    name: str = field(compare=False)
    entries: tuple[Entry, ...]
    runs: tuple[Run, ...]
    _labels: tuple[str, ...]
    _label_sources: Mapping[str, LabelSource]
    _pins: Mapping[str, str]
    _usage: Usage
    torn_tail: TornTail | None = field(compare=False)
    closing_line: ClosingLine | None = field(compare=False)
    warnings: tuple[str, ...] = field(compare=False)
    _memo: dict[str, Any] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @classmethod
    def from_entries(cls, entries: Iterable[Entry], *, name: str = "<entries>") -> Session:
        """The session that ``entries`` (a log's, in order) are (Go's ``OpenSession`` on a
        store holding them). No entries make a new, empty session.

        Warns:
            LogStructureWarning: see ``SessionFold``.
        """
        kept = tuple(entries)
        fold = SessionFold(name)
        runs = tuple(iter_runs(kept, fold))
        return _session(name, kept, runs, fold, None, None)

    def _conversation(self) -> Conversation:
        memo = self._memo
        found = memo.get("conversation")
        if found is None:
            from .conversation import conversation

            found = memo["conversation"] = conversation(self.entries)
        return cast("Conversation", found)

    def messages(self) -> tuple[Message, ...]:
        """The conversation (Go's ``Messages``): each ``message`` entry is one message, and the
        results that follow an assistant turn are gathered into one user message of
        ``tool_result`` parts, in the order of that turn's calls. While calls are pending it
        holds the results so far. The rules in full: ``sessiontools._model.conversation``.
        """
        return self._conversation().messages

    def pending(self) -> tuple[ToolCall, ...]:
        """The calls of the last assistant turn that have no result yet, in order (Go's
        ``Pending``). A resumed run settles exactly these. ``SessionBuilder.pending`` is
        wider: every call, of any turn, with no result yet."""
        return self._conversation().pending

    def call(self, call_id: str) -> CallInfo:
        """What the session knows about one call (Go's ``Call``): the call, its latest
        decision, whether it started and finished, and its result.

        Raises:
            KeyError: the session never saw ``call_id`` (Go returns ``false``).
        """
        try:
            return self._conversation().calls[call_id]
        except KeyError:
            raise KeyError(call_id) from None

    def turns(self) -> tuple[Turn, ...]:
        """The assistant turns, with the stop of each (Go's ``Turns``): every run's turns, in
        order. Each ``Turn.message_index`` is its index in ``messages()``.

        An assistant ``message`` entry outside any run (no ``run_started`` before it; the
        fold warns) is in ``messages()``, and counted in the indexes, but it is no turn: the
        turns are the runs' model calls.
        """
        found = self._memo.get("turns")
        if found is None:
            found = self._memo["turns"] = tuple(t for run in self.runs for t in run.turns)
        return cast(tuple[Turn, ...], found)

    def labels(self) -> tuple[str, ...]:
        """The labels the session holds, sorted (Go's ``Labels``)."""
        return self._labels

    def label_sources(self) -> Mapping[str, LabelSource]:
        """For each label the session holds, the entry that first gave it (Go's
        ``LabelSources``)."""
        return self._label_sources

    def pins(self) -> Mapping[str, str]:
        """The tool definition digests the session pinned, by tool name (Go's ``Pins``); the
        first pin of a tool is kept, as a pin is never changed."""
        return self._pins

    def usage(self) -> Usage:
        """What every model call of the session cost (Go's ``Usage``), in agentloop's four
        disjoint token counts: the model calls its tools made (``tool_result.usage``)
        included, refused results' too."""
        return self._usage

    def view(self) -> View:
        """The session as a policy sees it (Go's ``View``): the labels it holds."""
        from .conversation import View

        return View(self._labels)

    def check_pins(self, pins: Mapping[str, str]) -> None:
        """Raise ``PinError`` for the first tool, by name, whose digest in ``pins`` differs
        from the one the session pinned (Go's ``CheckPins``). A tool the session has not
        pinned passes.

        Raises:
            PinError: ``tool``, the digest the session ``pinned``, the one given (``got``).
        """
        mine = self._pins
        for tool in sorted(pins):
            pinned = mine.get(tool)
            if pinned is not None and pinned != pins[tool]:
                raise PinError(tool, pinned, pins[tool])


class SupportsLoad(Protocol):
    """What ``open_session`` needs of a store: Go's ``Store``, its reading half."""

    def load(self) -> Sequence[Entry]:
        """Every entry, in order."""
        ...


def open_session(store: SupportsLoad) -> Session:
    """Rebuild a session from a store (Go's ``OpenSession``): ``Session.from_entries`` on
    ``store.load()``, named after ``store.path`` when the store has one (else ``<store>``).
    An empty store makes a new, empty session.

    Raises:
        Whatever ``store.load()`` raises (a damaged log: ``LogError``).
    """
    path = getattr(store, "path", None)
    name = os.fspath(path) if path is not None else "<store>"
    return Session.from_entries(store.load(), name=name)


def _session(
    name: str,
    entries: tuple[Entry, ...],
    runs: tuple[Run, ...],
    fold: SessionFold,
    torn_tail: TornTail | None,
    closing_line: ClosingLine | None,
) -> Session:
    return Session(
        name,
        entries,
        runs,
        fold.labels,
        MappingProxyType(dict(fold.label_sources)),
        MappingProxyType(dict(fold.pins)),
        fold.usage,
        torn_tail,
        closing_line,
        tuple(fold.warnings),
    )


def read_session(
    source: LogSource, *, name: str | None = None, max_line_bytes: int | None = MAX_LINE_BYTES
) -> Session:
    """Read a whole session log into a ``Session``.

    Args:
        source: a path, or a file opened in binary mode (read, never written or locked); a
            log compressed with gzip is read decompressed.
        name: what to call the log in messages; default the path or the file's name.
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        DamagedLogError, EntryError: the log is damaged (file, line and offset named).
        OSError: it cannot be opened or read.

    Warns:
        TornTailWarning, UnknownEntryWarning: see ``LogReader``.
        LogStructureWarning: see ``SessionFold``.
    """
    entries: list[Entry] = []
    with LogReader(source, name=name, max_line_bytes=max_line_bytes) as reader:
        fold = SessionFold(reader.name, warnings=reader.sink)
        runs = list(iter_runs(_keep(reader, entries), fold))
    return _session(
        reader.name,
        tuple(entries),
        tuple(runs),
        fold,
        reader.torn_tail,
        reader.closing_line,
    )


def _keep(entries: Iterable[Entry], into: list[Entry]) -> Iterator[Entry]:
    for entry in entries:
        into.append(entry)
        yield entry
