"""Bytes to entries: the reader of agentloop session logs (contract: design/reading.md).

A log is JSON lines. ``LogReader`` streams it: it holds one line at a time, so a log of any
size reads in memory bounded by its longest line. Lines are split on the byte ``\\n`` only
(never on U+2028, U+2029, U+0085 or ``\\r``), one trailing ``\\r`` is dropped, and lines of only
whitespace are skipped.

- The last non-blank line, when it is not complete JSON, is a write cut short by a crash: it is
  ignored and reported (``torn_tail``, and a ``TornTailWarning``).
- Such a line anywhere else is damage: ``DamagedLogError`` names the file, line and offset.
- A last line that is complete JSON but not an entry is a transcript's closing outcome line
  (what ``agentloop run`` prints last): kept aside as ``closing_line``. It must hold an
  ``Outcome`` (a ``reason``), at the top level or under one key; else it is an ``EntryError``.
- A line ``orjson`` refuses (invalid UTF-8, an escaped lone surrogate) is read again the way
  Go's ``encoding/json`` reads it: every invalid byte and lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import io
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, TypeAlias

import orjson

from ._entries import (
    BadEntry,
    Entry,
    Outcome,
    decode_entry,
    decode_outcome,
)
from ._errors import DamagedLogError, EntryError, TornTailWarning, UnknownEntryWarning
from ._gomerge import decode_exact
from ._rawjson import TooDeepError, go_loads

__all__ = ["ClosingLine", "LogReader", "LogSource", "TornTail", "iter_entries"]

#: Where a log is read from: a path, or a file opened in binary mode (``sys.stdin.buffer``).
LogSource: TypeAlias = str | os.PathLike[str] | BinaryIO | IO[bytes]


@dataclass(frozen=True, slots=True)
class TornTail:
    """The ignored last line of a log: a write cut short.

    Attributes:
        line: its 1-based line number.
        offset: the byte offset at which it starts.
        length: its length in bytes, newline excluded.
    """

    line: int
    offset: int
    length: int


@dataclass(frozen=True, slots=True)
class ClosingLine:
    """A transcript's closing outcome line: complete JSON, but not an entry.

    Attributes:
        line: its 1-based line number; ``offset``: the byte offset at which it starts.
        data: the parsed JSON object, as printed by ``agentloop run``.
        outcome: the ``Outcome`` it holds, at the top level or under one key.
        cost_usd: the run's cost as ``agentloop run`` priced it, at the top level or next to
            the outcome; ``None`` when the model was not priced.
    """

    line: int
    offset: int
    data: dict[str, Any]
    outcome: Outcome
    cost_usd: float | None


_WHITESPACE = b" \t\r\n"  # JSON's

# The last line read, when it may be damage: (line, offset, length, problem) of a line that is
# not complete JSON, and (line, offset, parsed) of complete JSON that is not an entry.
_Pending: TypeAlias = tuple[tuple[int, int, int, str] | None, tuple[int, int, Any] | None]


def _problem(body: bytes, error: orjson.JSONDecodeError, go_error: ValueError) -> str:
    """What is wrong with a line that is not JSON, in a few words."""
    if isinstance(go_error, TooDeepError) or "depth" in error.msg:
        return f"{go_error} of the line"  # orjson's depth limit is not Go's: say what is
    try:
        orjson.loads(body)  # again without the line's end, for the column
    except orjson.JSONDecodeError as e:
        error = e
    return f"{error.msg} at character {error.colno} of the line"


class LogReader:
    """Iterate the entries of one session log, streaming.

    Use it as an iterator (once), or as a context manager that closes a file it opened::

        with LogReader("session.jsonl") as reader:
            for entry in reader:
                ...
        reader.torn_tail, reader.closing_line

    Args:
        source: a path, or a file opened in binary mode (never written, never locked; a
            file the caller opened is not closed).
        name: what to call the log in messages; default the path, or the file's name.
        exact: keep the text of raw JSON values (``ToolCall.input_json``,
            ``Native.data_json``, ``UnknownEntry.data_json``) and read a name given twice in
            one object as Go does (``sessiontools._gomerge``; a plain read keeps the last),
            so that ``encode_entry`` writes each entry as Go would write it again, byte for
            byte. Slower; the session library's stores read this way, the exporters do not.

    Attributes (complete once iteration has ended):
        name: the log's name in messages.
        torn_tail: the ignored last line, or ``None``.
        closing_line: a transcript's closing outcome line, or ``None``.
        warnings: every warning given while reading, as one-line messages.

    Raises:
        OSError: the path cannot be opened (here), or the file cannot be read (iterating).
        TypeError: ``source`` is a text file.
        DamagedLogError: while iterating, a line before the last is not complete JSON.
        EntryError: while iterating, a complete line is not a usable entry.
    """

    def __init__(self, source: LogSource, *, name: str | None = None, exact: bool = False) -> None:
        self.exact = exact
        if isinstance(source, io.TextIOBase):
            raise TypeError("a session log must be opened in binary mode ('rb')")
        self._owned = isinstance(source, str | os.PathLike)
        if self._owned:
            path = os.fspath(source)  # type: ignore[arg-type]
            self.name = name if name is not None else str(path)
            self._file: IO[bytes] = open(path, "rb")  # noqa: SIM115 - closed by close()
        else:
            self._file = source  # type: ignore[assignment]
            file_name = getattr(source, "name", None)
            self.name = (
                name
                if name is not None
                else (file_name if isinstance(file_name, str) else "<file>")
            )
        self.torn_tail: TornTail | None = None
        self.closing_line: ClosingLine | None = None
        self.warnings: list[str] = []
        self._unknown_seen: set[str] = set()
        self._started = False
        # A part of the log (see `_part`): where the file's position is, where to stop, and
        # a last line not yet known to be damage (failed, loose: see `_read`), taken over from
        # the part before or left for the part after.
        self._start_offset = 0
        self._start_line = 0  # lines before the start
        self._stop_offset: int | None = None
        self._pending: _Pending = (None, None)
        # Where warnings go: `warnings.warn` (None), or a list of (category, key, line, rest):
        # the key is what the warning is given once for, and the message is "{name}: line
        # {line}{rest}" (`_split` merges such lists, and numbers the lines).
        self._sink: list[tuple[type[Warning], str, int, str]] | None = None

    @classmethod
    def _part(
        cls,
        source: IO[bytes],
        name: str,
        start_offset: int,
        start_line: int,
        stop_offset: int | None,
        pending: _Pending = (None, None),
    ) -> LogReader:
        """A reader of the lines of ``source`` from its position, ``start_offset`` (the start
        of line ``start_line + 1``), to ``stop_offset`` (the start of a line) or the end.

        ``pending`` is the ``_pending`` of the part before. A part that stops before the end
        leaves in ``_pending`` its last line when it is not complete JSON or not an entry: the
        lines after say whether that is damage (a line that is not blank follows) or a torn
        tail or closing line; ``_start_line`` is then the number of lines before the stop."""
        reader = cls(source, name=name)
        reader._start_offset = start_offset
        reader._start_line = start_line
        reader._stop_offset = stop_offset
        reader._pending = pending
        return reader

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file if this reader opened it."""
        if self._owned:
            self._file.close()

    def _warn(self, category: type[Warning], key: str, line: int, rest: str) -> None:
        """Warn ``{name}: line {line}{rest}``; ``key``: what it is given once for."""
        message = f"{self.name}: line {line}{rest}"
        self.warnings.append(message)
        if self._sink is not None:
            self._sink.append((category, key, line, rest))
        else:
            warnings.warn(category(message), stacklevel=4)

    def __iter__(self) -> Iterator[Entry]:
        if self._started:
            raise RuntimeError("a LogReader can be iterated only once")
        self._started = True
        return self._entries()

    def _entries(self) -> Iterator[Entry]:
        try:
            yield from self._read()
        finally:
            self.close()

    def _read(self) -> Iterator[Entry]:
        name = self.name
        loads = orjson.loads
        JSONDecodeError = orjson.JSONDecodeError
        line_no = self._start_line
        offset = self._start_offset
        stop = self._stop_offset
        failed: tuple[int, int, int, str] | None  # a line that is not complete JSON
        loose: tuple[int, int, Any] | None  # complete JSON that is not an entry
        failed, loose = self._pending
        if offset == stop:
            return
        current = 0
        exact = self.exact

        def on_unknown(what: str) -> None:
            if what not in self._unknown_seen:
                self._unknown_seen.add(what)
                self._warn(
                    UnknownEntryWarning,
                    what,
                    current,
                    f": unknown {what}, from a newer agentloop? kept, and reported once",
                )

        # orjson takes the line with its "\n" (and any "\r"): they are JSON whitespace. A blank
        # line fails to parse, and is told apart from a bad one only then.
        for raw in self._file:
            line_no += 1
            start = offset
            offset += len(raw)
            if failed is not None or loose is not None:
                if not raw.strip(_WHITESPACE):
                    if offset == stop:
                        break
                    continue
                _not_last(name, failed, loose)
            try:
                obj = loads(raw)
            except JSONDecodeError as e:
                body = raw[:-1] if raw[-1:] == b"\n" else raw
                if body[-1:] == b"\r":
                    body = body[:-1]
                if not body.strip(_WHITESPACE):
                    if offset == stop:
                        break
                    continue
                try:
                    obj = go_loads(body)
                except ValueError as go_error:
                    failed = (line_no, start, len(body), _problem(body, e, go_error))
                    if offset == stop:
                        break
                    continue
            if obj.__class__ is dict and "seq" in obj and "type" in obj:
                current = line_no
                try:
                    if exact:  # a repeated name as Go reads it, and the raw values' text
                        entry = decode_exact(obj, raw, line_no, on_unknown)
                    else:
                        entry = decode_entry(obj, line_no, on_unknown)
                except BadEntry as e:
                    raise EntryError(name, line_no, start, str(e)) from None
                yield entry
            else:
                loose = (line_no, start, obj)
            if offset == stop:
                break
        if stop is not None and offset == stop:  # a part that ends before a line
            self._start_line = line_no  # where the next part starts
            self._pending = (failed, loose)
            return
        if failed is not None:
            f_line, f_offset, f_length, _ = failed
            self.torn_tail = TornTail(f_line, f_offset, f_length)
            self._warn(
                TornTailWarning,
                "torn tail",
                f_line,
                f" (byte {f_offset}): the last line is not complete JSON, the tail of a write "
                "cut short by a crash; ignored",
            )
        if loose is not None:
            self.closing_line = _closing_line(name, *loose)


def _not_last(
    name: str, failed: tuple[int, int, int, str] | None, loose: tuple[int, int, Any] | None
) -> None:
    """A line that is not blank follows: a line before it that is not complete JSON, or not an
    entry, is damage."""
    if failed is not None:
        f_line, f_offset, _, problem = failed
        raise DamagedLogError(name, f_line, f_offset, f"not complete JSON ({problem})")
    if loose is not None:
        raise EntryError(
            name,
            loose[0],
            loose[1],
            "JSON, but not an entry (no seq and type); only a transcript's last line may be",
        )


def _closing_line(name: str, line: int, offset: int, obj: Any) -> ClosingLine:
    if not isinstance(obj, dict):
        raise EntryError(
            name, line, offset, "the last line is JSON but neither an entry nor an outcome object"
        )
    found: dict[str, Any] | None = None
    if "reason" in obj:
        found = obj
    else:
        for v in obj.values():
            if isinstance(v, dict) and "reason" in v:
                found = v
                break
    if found is None:
        raise EntryError(
            name,
            line,
            offset,
            "the last line is JSON but neither an entry (no seq and type) nor a run's outcome "
            "(no reason): is this an agentloop log?",
            "give a session log (agentloop's JSON lines) or a run's transcript",
        )
    try:
        outcome = decode_outcome(found, "outcome")
    except BadEntry as e:
        raise EntryError(name, line, offset, f"the closing outcome line: {e}") from None
    cost = obj.get("cost_usd")
    if cost is None and found is not None:
        cost = found.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
        raise EntryError(name, line, offset, "the closing outcome line's cost_usd is not a number")
    return ClosingLine(line, offset, obj, outcome, None if cost is None else float(cost))


def iter_entries(source: LogSource, *, name: str | None = None, exact: bool = False) -> LogReader:
    """Stream the entries of a session log: ``LogReader(source, name=name, exact=exact)``.

    See ``LogReader`` for what is read, what is reported, and the errors raised.
    """
    return LogReader(source, name=name, exact=exact)
