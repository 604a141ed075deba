"""Bytes to entries: ``LogReader`` and ``iter_entries``, the first stage of the flow, which every
later stage reads through (docs/reading.md, "Lines", "Bytes" and "Newer agentloop versions").

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
- A line without its ``\\n`` is the last line this read sees, even when more comes later: a log
  still being written ends, for this read, at the line being written (a torn tail at most,
  never damage).
- A line longer than ``max_line_bytes`` (default ``MAX_LINE_BYTES``, 256 MiB) is a
  ``LogError``, found before more than that is held in memory.
- An entry that repeats the entry before it byte for byte (a line written twice) is skipped,
  with one ``LogStructureWarning``; an exact read (``exact=True``, the stores) keeps it, as Go's
  ``Load`` does, so that it is written back as it was.
- A log compressed with gzip (found by its first two bytes, whether read from a path or a
  stream such as standard input) is read decompressed; byte offsets then count decompressed
  bytes. A first line that is not JSON and does not start with ``{`` (other binary data, such
  as another compression format) is not an agentloop log: ``DamagedLogError`` at line 1.
"""

from __future__ import annotations

import io
import json
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator
from typing import IO, Any, BinaryIO, TypeAlias

import orjson

from .._errors import (
    DamagedLogError,
    EntryError,
    LogError,
    LogStructureWarning,
    TornTailWarning,
    UnknownEntryWarning,
)
from .._fast import frozen
from .entries import Entry, Outcome
from .limits import HINT as _LIMIT_HINT
from .limits import ExportLimits
from .warnings import Warnings

__all__ = [
    "MAX_LINE_BYTES",
    "READ_BUFFER_BYTES",
    "ClosingLine",
    "ExportReader",
    "LogReader",
    "LogSource",
    "ReadPosition",
    "TornTail",
    "code_escape",
    "iter_entries",
    "printable",
    "same_line",
    "shown_name",
]

#: Where a log is read from: a path, or a file opened in binary mode (``sys.stdin.buffer``).
LogSource: TypeAlias = str | os.PathLike[str] | BinaryIO | IO[bytes]

#: The longest line a reader takes by default, in bytes, its ``\\n`` not counted (256 MiB).
#: Reading a line takes a few times its size in memory; a longer line is a ``LogError`` that
#: says how to raise the limit (``max_line_bytes``; ``--max-line-bytes`` on the command line).
MAX_LINE_BYTES = 256 * 1024 * 1024

#: The buffer a log file is read through: a line of many KB is read from it in one piece, where
#: the default 8 KB buffer takes several reads and joins (reading 100 MB of lines takes half
#: the time).
READ_BUFFER_BYTES = 1 << 20

_GZIP_MAGIC = b"\x1f\x8b"


def _gzip_errors() -> tuple[type[BaseException], ...]:
    """What a damaged or cut-short gzip stream raises while it is read (gzip loads only for a
    log compressed with it)."""
    import gzip

    return (EOFError, zlib.error, gzip.BadGzipFile)


# Text that must not reach a terminal as it is: C0 and C1 control characters and DEL (ESC
# sequences, a carriage return), line and paragraph separators, the marks and overrides that
# reorder text, the invisible format characters (Unicode's category Cf: zero-width spaces and
# joiners, U+2060-U+206F, U+FEFF, the soft hyphen, the Arabic letter mark, tags...; so
# "pri\u200bvate" cannot pass for "private"), and lone surrogates (a name that is not valid
# UTF-8, as Python decodes it). _FORMAT_CHARS: every Cf character of Unicode 15, and the
# whole tag block. The patterns are compiled when first used: most reads need neither.
_FORMAT_CHARS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
_UNPRINTABLE = f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_FORMAT_CHARS}\ud800-\udfff]"
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_SURROGATES = "[\ud800-\udfff]"


def code_escape(c: str) -> str:
    """One character as Python writes it escaped: ``\\x1b``, ``\\u202e``, ``\\U000e0041``."""
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    if "\ud800" <= c <= "\udfff":
        return "\ufffd"
    return _ESCAPES.get(c) or code_escape(c)


def printable(text: str) -> str:
    """``text`` safe to show on a terminal, on one line: control characters escaped (``\\n``,
    ``\\r``, ``\\t``, ``\\x1b``...), text-reordering marks and invisible format characters
    as ``\\u202e``, ``\\u200b``, ``\\U000e0041``, and each lone surrogate (an undecodable
    byte of a file name) as U+FFFD."""
    if text.isascii() and text.isprintable():
        return text  # nothing to escape (most text): no regular expression run
    return re.sub(_UNPRINTABLE, _escape, text)


def shown_name(name: str) -> str:
    """A file's name as text: each byte that is not UTF-8 (a lone surrogate, as Python decodes
    a file name or argument that is not UTF-8) becomes U+FFFD, one per byte, as Go's decoder
    does. The name can then be written as UTF-8 anywhere (messages, exports, tables)."""
    return name if name.isascii() else re.sub(_SURROGATES, "\ufffd", name)


@frozen
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


@frozen
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


@frozen
class ReadPosition:
    """Where a read of a log stopped, and what a read of the lines after it needs to go on as
    one read would (``LogReader(..., start=position)``).

    Attributes:
        offset: the byte offset at which the next line starts.
        line: how many lines come before it.
        pending: the last line read, when it is not yet known whether it is damage: a line
            that is not complete JSON, or complete JSON that is not an entry (a transcript's
            closing line, if nothing follows). The lines after it say (``settle``).
        previous: the line of the last entry read, its number and ``seq`` (an entry that
            repeats it byte for byte is skipped).
        limits: for an ``export`` read, what its checks know of the run being read (its token
            sums so far); ``None``: nothing, and the sums start at the next ``run_started``.
    """

    offset: int = 0
    line: int = 0
    pending: _Pending = (None, None)
    previous: tuple[bytes, int, int] | None = None
    limits: ExportLimits | None = None

    def settle(self, name: str) -> None:
        """A line that is not blank comes next: a ``pending`` line is damage.

        Raises:
            DamagedLogError, EntryError: the pending line, named in the log ``name``.
        """
        _not_last(name, *self.pending)


# Bytes JSON text never holds as they are (control characters other than its whitespace).
_BINARY = rb"[\x00-\x08\x0b\x0c\x0e-\x1f]"


def _problem(body: bytes, error: orjson.JSONDecodeError, fallback: ValueError) -> str:
    """What is wrong with a line that is not JSON, in a few words (``not complete JSON (...)``).
    ``fallback``: what Go's way of reading (``go_loads``, which takes invalid UTF-8) said."""
    from .rawjson import TooDeepError

    binary = re.search(_BINARY, body)
    if binary is not None:
        at = binary.start()
        return f"binary data, not JSON (byte 0x{body[at]:02x} at byte {at + 1} of the line)"
    if isinstance(fallback, TooDeepError) or "depth" in error.msg:
        return f"not complete JSON ({fallback} of the line)"  # orjson's depth limit is not Go's
    try:
        orjson.loads(body)  # again without the line's end, for the column
    except orjson.JSONDecodeError as e:
        error = e
    if "UTF-8" in error.msg:  # orjson refuses the bytes before it parses; Go's way parsed them
        if isinstance(fallback, json.JSONDecodeError):
            return f"not complete JSON ({fallback.msg} at character {fallback.colno} of the line)"
        return f"not complete JSON ({fallback})"
    return f"not complete JSON ({error.msg} at character {error.colno} of the line)"


def _not_a_log(body: bytes) -> bool:
    """Whether a first line that is not complete JSON is no agentloop log at all: it does not
    start with ``{`` as every entry and outcome line does (another format, binary data).
    A line of NUL bytes is what a crash can leave instead of the last write: a torn tail."""
    text = body.lstrip(_WHITESPACE)
    return not text.startswith(b"{") and bool(text.strip(b"\x00" + _WHITESPACE))


def _sniff(file: IO[bytes]) -> tuple[IO[bytes], bool]:
    """``file`` as it can be read, and whether it holds gzip data (its first two bytes), found
    without consuming them: by ``peek`` (a buffered file, standard input) or by seeking back.
    A file that can do neither is read as it is."""
    head = b""
    peek = getattr(file, "peek", None)
    if peek is not None:
        head = peek(2)[:2]
        if head == _GZIP_MAGIC[:1]:  # one byte came (a pipe): wait for the second, put both back
            head = file.read(2)
            file = io.BufferedReader(_Prefixed(head, file))
    else:
        try:
            seekable = file.seekable()
        except (AttributeError, OSError, ValueError):
            seekable = False
        if seekable:
            at = file.tell()
            head = file.read(2)
            file.seek(at)
    return file, head == _GZIP_MAGIC


class _Prefixed(io.RawIOBase):
    """Bytes already taken from a stream, then the rest of the stream."""

    def __init__(self, prefix: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._prefix = prefix
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._prefix:
            n = min(len(buffer), len(self._prefix))
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        read = getattr(self._rest, "read1", self._rest.read)
        data = read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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
        name: what to call the log in messages; default the path, or the file's name. Each
            byte of it that is not UTF-8 is shown as U+FFFD (``shown_name``).
        exact: keep the text of raw JSON values (``ToolCall.input_json``,
            ``Native.data_json``, ``UnknownEntry.data_json``) and read a name given twice in
            one object as Go does (``sessiontools._log.gomerge``; a plain read keeps the last),
            so that ``encode_entry`` writes each entry as Go would write it again, byte for
            byte. Slower; the session library's stores read this way, the exporters do not.
            An exact read also keeps an entry that repeats the one before it (see below).
        export: also refuse, as an ``EntryError`` naming the line, what an export cannot
            hold although agentloop reads it (``sessiontools._log.limits``): a negative token
            count, a time before 1970-01-01 or after 2262-04-11T23:47:16.854775807Z, a
            negative ``wait_ms``, the token counts of a run adding up past 2^63-1. Both
            exporters (``export_otlp_json``, ``read_costs``) read this way; the session
            library does not.
        max_line_bytes: the longest line taken, in bytes (its ``\\n`` not counted); a longer
            one is a ``LogError``, raised before more than this is held. ``None``: no limit.
        gzip: read a log compressed with gzip (its first two bytes say so) decompressed.
            ``False`` reads the bytes as they are.

    An entry whose line repeats the line of the entry before it byte for byte (the same
    ``seq`` and the same bytes: a line written twice, ``sed '7p'``) is skipped, with one
    ``LogStructureWarning`` for the log, so that it is not counted twice; across logs,
    ``read_costs`` counts such copies once too. An exact read keeps it.

    A line that has no ``\\n`` yet when it is read is the last line this read sees: a log that
    is being written is read up to the line being written, which is a torn tail at most.

    Attributes (complete once iteration has ended):
        name: the log's name in messages.
        torn_tail: the ignored last line, or ``None``.
        closing_line: a transcript's closing outcome line, or ``None``.
        warnings: every warning given while reading, as one-line messages.

    Raises:
        OSError: the path cannot be opened (here), or the file cannot be read (iterating).
        TypeError: ``source`` is a text file.
        ValueError: ``max_line_bytes`` is not a positive integer or ``None``.
        DamagedLogError: while iterating, a line before the last is not complete JSON; the
            first line is not JSON and does not start with ``{`` (not an agentloop log); the
            gzip data is damaged or cut short.
        EntryError: while iterating, a complete line is not a usable entry.
        LogError: while iterating, a line is longer than ``max_line_bytes``.
    """

    #: Whether entries are decoded as views (``ExportReader``).
    views = False

    def __init__(
        self,
        source: LogSource,
        *,
        name: str | None = None,
        exact: bool = False,
        export: bool = False,
        max_line_bytes: int | None = MAX_LINE_BYTES,
        gzip: bool = True,
        start: ReadPosition | None = None,
        stop: int | None = None,
        warnings: Warnings | None = None,
    ) -> None:
        self.exact = exact
        self.export = export
        if start is None:
            start = ReadPosition()
        elif start.offset:
            gzip = False  # a part of a log: its bytes as they are, from `start.offset`
        # what the log said so far that the export checks depend on (a run's token counts);
        # a part after the start knows nothing of the run it starts in, unless told
        limits = start.limits
        if export and limits is None:
            limits = ExportLimits(at_start=not start.offset)
        self._limits = limits if export else None
        if isinstance(source, io.TextIOBase):
            raise TypeError("a session log must be opened in binary mode ('rb')")
        if max_line_bytes is not None and (
            max_line_bytes.__class__ is not int or max_line_bytes < 1
        ):
            raise ValueError(
                f"max_line_bytes must be a positive integer or None, not {max_line_bytes!r}"
            )
        self.max_line_bytes = max_line_bytes
        self._owned = isinstance(source, str | os.PathLike)
        self._gzip = False
        self._opened: IO[bytes] | None = None  # a file this reader opened under a GzipFile
        if self._owned:
            path = os.fspath(source)  # type: ignore[arg-type]
            self.name = shown_name(name if name is not None else str(path))
            self._file: IO[bytes] = open(path, "rb", buffering=READ_BUFFER_BYTES)  # noqa: SIM115
            if start.offset:
                self._file.seek(start.offset)
        else:
            self._file = source  # type: ignore[assignment]
            file_name = getattr(source, "name", None)
            self.name = shown_name(
                name
                if name is not None
                else (file_name if isinstance(file_name, str) else "<file>")
            )
        if gzip:
            try:
                self._file, self._gzip = _sniff(self._file)
            except BaseException:
                self.close()
                raise
            if self._gzip:
                self._opened = self._file if self._owned else None
                self._file = _gzip_file(self._file)
        self.torn_tail: TornTail | None = None
        self.closing_line: ClosingLine | None = None
        # where warnings go: given once per log, shared with the fold and other parts
        self.sink = warnings if warnings is not None else Warnings(self.name)
        self._started = False
        # Where this read starts and stops; what it leaves for the part after it (a last line
        # not yet known to be damage; see `_read`), and where the next line starts.
        self._start = start
        self._stop = stop
        self._offset = start.offset
        self._line = start.line
        self._pending: _Pending = start.pending
        # The line of the last entry read, and its line number and seq (a repeat is skipped).
        self._prev: tuple[bytes, int, int] | None = start.previous
        self._entry_offset = start.offset  # where the line of the last entry yielded starts

    @property
    def warnings(self) -> list[str]:
        """Every warning given while reading (by this read's sink), as one-line messages."""
        return self.sink.messages

    @property
    def position(self) -> ReadPosition:
        """Where the next line starts: after the last entry yielded while iterating; once the
        iteration has ended, where it stopped (``stop``, or the end of what was read)."""
        return ReadPosition(self._offset, self._line, self._pending, self._prev, self._limits)

    @property
    def entry_position(self) -> ReadPosition:
        """While iterating, where the line of the entry just yielded starts: a read from there
        (``start=``) reads that entry again, as the next. Its ``limits`` are ``None``: use it
        before a ``run_started`` (the export checks then start afresh)."""
        return ReadPosition(self._entry_offset, self._line - 1)

    def part(self, start: ReadPosition, stop: int | None = None) -> LogReader:
        """A reader of the lines of the same file from ``start`` (the file is read from where
        it is now, which must be ``start.offset``) to ``stop`` (the start of a line) or the end,
        with this reader's name, options and warnings (each kind still given once). A part that
        stops before the end leaves, in its ``position``, its last line when it is not known yet
        whether it is damage: the part after it takes that ``position`` as its ``start``."""
        return type(self)(
            self._file,
            name=self.name,
            exact=self.exact,
            export=self.export,
            max_line_bytes=self.max_line_bytes,
            gzip=False,
            start=start,
            stop=stop,
            warnings=self.sink,
        )

    def regular_file(self) -> tuple[str, int] | None:
        """The path and size of the regular file this reader reads, when another process can
        open it by that path (the same file: device and inode) and nothing of it has been read;
        else ``None`` (standard input, a pipe, a log read decompressed, a file not at its
        start)."""
        file = self._file
        if type(file) not in (io.BufferedReader, io.BufferedRandom, io.FileIO):
            return None  # not the file's bytes as they are (a GzipFile has a name and a fileno)
        path = getattr(file, "name", None)
        if not isinstance(path, str) or self._started:
            return None
        try:
            if file.tell() != 0:
                return None
            here = os.fstat(file.fileno())
            there = os.stat(path)
        except (OSError, ValueError, AttributeError):
            return None
        if not stat.S_ISREG(here.st_mode) or (here.st_dev, here.st_ino) != (
            there.st_dev,
            there.st_ino,
        ):
            return None
        return path, here.st_size

    def seek_end(self) -> None:
        """Leave the file at its end, as a read to the end does (another process read the
        rest)."""
        self._file.seek(0, os.SEEK_END)

    def __enter__(self) -> LogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file if this reader opened it."""
        if self._owned:
            self._file.close()
            if self._opened is not None:
                self._opened.close()

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
        line_no = self._line
        offset = self._offset
        stop = self._stop
        sink = self.sink
        failed: tuple[int, int, int, str] | None  # a line that is not complete JSON
        loose: tuple[int, int, Any] | None  # complete JSON that is not an entry
        failed, loose = self._pending
        if offset == stop:
            return
        self._pending = (None, None)  # settled by the first line that is not blank
        current = 0
        exact = self.exact
        limits = self._limits
        views = self.views
        decode_view: Callable[[bytes, int], Entry | None] | None = None
        # the checked decoders, loaded for the first line that needs them
        checked: tuple[Any, Any, type[Exception]] | None = None

        def on_unknown(what: str) -> None:
            if not sink.given(what):
                sink.warn(
                    UnknownEntryWarning,
                    what,
                    current,
                    f": unknown {printable(what)}, from a newer agentloop? kept, and reported once",
                )

        limit = self.max_line_bytes
        size = -1 if limit is None else limit + 1  # one byte more tells a longer line
        readline = self._file.readline
        first = offset == 0  # the log's first line is still to come
        prev = self._prev
        # orjson takes the line with its "\n" (and any "\r"): they are JSON whitespace. A blank
        # line fails to parse, and is told apart from a bad one only then. A line without its
        # "\n" (`last`) is the last this read takes, even if more has come since.
        while True:
            try:
                raw = readline(size)
            except (EOFError, OSError, zlib.error) as e:
                if not self._gzip or not isinstance(e, _gzip_errors()):
                    raise
                raise _gzip_damage(name, line_no + 1, offset, e) from None
            if not raw:
                break
            line_no += 1
            start = offset
            offset += len(raw)
            last = raw[-1] != 10
            if last and len(raw) == size:
                raise _too_long(name, line_no, start, size - 1)
            if failed is not None or loose is not None:
                if not raw.strip(_WHITESPACE):
                    if offset == stop or last:
                        break
                    continue
                _not_last(name, failed, loose)
            entry = None
            if views:  # typed decoding; a line it does not take is read as below
                if decode_view is None:
                    decode_view = _decode_view()
                entry = decode_view(raw, line_no)
            if entry is None:
                try:
                    obj = loads(raw)
                except JSONDecodeError as e:
                    body = raw[:-1] if raw[-1:] == b"\n" else raw
                    if body[-1:] == b"\r":
                        body = body[:-1]
                    if not body.strip(_WHITESPACE):
                        if offset == stop or last:
                            break
                        continue
                    from .rawjson import go_loads  # Go's way of reading, for odd bytes

                    try:
                        obj = go_loads(body)
                    except ValueError as fallback:
                        if first and _not_a_log(body):
                            raise _no_log(name, line_no, start, body) from None
                        failed = (line_no, start, len(body), _problem(body, e, fallback))
                        first = False
                        if offset == stop or last:
                            break
                        continue
                if obj.__class__ is dict and "seq" in obj and "type" in obj:
                    current = line_no
                    if checked is None:
                        checked = _checked_decoders(exact)
                    decode_entry, decode_exact, BadEntry = checked
                    try:
                        if exact:  # a repeated name as Go reads it, and the raw values' text
                            entry = decode_exact(obj, raw, line_no, on_unknown)
                        else:
                            entry = decode_entry(obj, line_no, on_unknown)
                    except BadEntry as e:
                        raise EntryError(name, line_no, start, str(e)) from None
            first = False
            if entry is not None:
                seq = entry.seq
                # A copy of the entry before (its line again, byte for byte) is skipped. Its
                # bytes read as that entry did, so only an entry with the same seq can be one:
                # told apart once decoded, which costs less than looking at every line before.
                if prev is not None and seq == prev[2] and same_line(raw, prev[0]):
                    if not sink.given("repeated entry"):
                        sink.warn(
                            LogStructureWarning,
                            "repeated entry",
                            line_no,
                            f" (byte {start}): the entry of line {prev[1]} (seq {prev[2]}) "
                            "again, byte for byte: a copy, skipped (and any other such copy "
                            "in this log; reported once)",
                        )
                    if offset == stop or last:
                        break
                    continue
                if limits is not None:
                    problem = limits.check(entry)
                    if problem is not None:
                        raise EntryError(name, line_no, start, problem, _LIMIT_HINT)
                if not exact:
                    prev = self._prev = (raw, line_no, seq)
                self._offset = offset
                self._line = line_no
                self._entry_offset = start
                yield entry
            else:
                loose = (line_no, start, obj)
            if offset == stop or last:
                break
        self._offset = offset
        self._line = line_no
        if stop is not None and offset == stop:  # a part that ends before a line
            self._pending = (failed, loose)  # for the part after it
            return
        self._pending = (None, None)
        if failed is not None:
            f_line, f_offset, f_length, _ = failed
            self.torn_tail = TornTail(f_line, f_offset, f_length)
            sink.warn(
                TornTailWarning,
                "torn tail",
                f_line,
                f" (byte {f_offset}): the last line is not complete JSON, the tail of a write "
                "cut short by a crash; ignored",
            )
        if loose is not None:
            self.closing_line = _closing_line(name, *loose)


class ExportReader(LogReader):
    """A ``LogReader(..., export=True)`` for the exporters' own use: the entries of the types
    most lines hold (``message``, ``decision``, ``call_started``, ``tool_result``) carry a view
    as their payload, holding only what the fold reads (``sessiontools._log.views``), not the
    payload types of ``entries``. Every other line, error and warning is as ``LogReader``'s,
    and so is every run folded from them. msgspec is loaded when the first line is read.
    ``export`` is ``True`` unless given."""

    views = True

    def __init__(
        self,
        source: LogSource,
        *,
        name: str | None = None,
        exact: bool = False,
        export: bool = True,
        max_line_bytes: int | None = MAX_LINE_BYTES,
        gzip: bool = True,
        start: ReadPosition | None = None,
        stop: int | None = None,
        warnings: Warnings | None = None,
    ) -> None:
        if exact:
            raise ValueError("an exact read keeps every payload: use LogReader(exact=True)")
        super().__init__(
            source,
            name=name,
            export=export,
            max_line_bytes=max_line_bytes,
            gzip=gzip,
            start=start,
            stop=stop,
            warnings=warnings,
        )


def _checked_decoders(exact: bool) -> tuple[Any, Any, type[Exception]]:
    """The checked decoders (``decode.decode_entry``, and for an exact read
    ``gomerge.decode_exact``) and the exception they raise for a line that is not a usable
    entry, loaded with the first line that needs them: they make the payloads of ``content``,
    which a typed read of a log as agentloop writes it never loads."""
    from .decode import BadEntry, decode_entry

    if not exact:
        return decode_entry, None, BadEntry
    from .gomerge import decode_exact

    return decode_entry, decode_exact, BadEntry


def _decode_view() -> Callable[[bytes, int], Entry | None]:
    """``views.decode_view``, loaded (with msgspec) when first needed: not for an empty log."""
    from .views import decode_view

    return decode_view


def same_line(raw: bytes, before: bytes) -> bool:
    """Whether two lines hold the same bytes, whatever their line ends."""
    if raw == before:
        return True
    if abs(len(raw) - len(before)) > 2:
        return False
    return raw.rstrip(b"\r\n") == before.rstrip(b"\r\n")


def _too_long(name: str, line: int, offset: int, limit: int) -> LogError:
    return LogError(
        name,
        line,
        offset,
        f"longer than {limit:,} bytes ({_size(limit)}), the limit on one line",
        "if the log is right, raise the limit: --max-line-bytes on the command line, "
        "max_line_bytes= in the library",
    )


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= factor:
            return f"{n / factor:.3g} {unit}"
    return f"{n} B"


def _gzip_file(file: IO[bytes]) -> IO[bytes]:
    import gzip

    return gzip.GzipFile(fileobj=file, mode="rb")  # type: ignore[return-value]


def _gzip_damage(name: str, line: int, offset: int, error: BaseException) -> DamagedLogError:
    """The gzip data of a compressed log is damaged or cut short; ``offset``: where the
    decompressed bytes read so far end."""
    if isinstance(error, EOFError):
        problem = "the gzip data ends early (a compressed log cut short)"
    else:
        problem = f"the gzip data is damaged ({printable(str(error))})"
    return DamagedLogError(
        name,
        line,
        offset,
        problem,
        "restore the compressed log from a copy, or read what can be decompressed of it "
        "(zcat FILE > FILE.jsonl)",
    )


def _no_log(name: str, line: int, offset: int, body: bytes) -> DamagedLogError:
    binary = re.search(_BINARY, body)
    at = len(body) if binary is None else binary.start()
    try:
        body[:at].decode("utf-8")
    except UnicodeDecodeError as e:
        at = e.start  # a byte that is not UTF-8 comes first
    if at < len(body):
        what = f"binary data (byte 0x{body[at]:02x} at byte {at + 1} of the line)"
    else:
        what = "the first line is not JSON and does not start with '{'"
    return DamagedLogError(
        name,
        line,
        offset,
        f"not an agentloop JSON-lines log: {what}",
        "give a session log (agentloop's JSON lines) or a run's transcript, as it is or "
        "compressed with gzip",
    )


def _not_last(
    name: str, failed: tuple[int, int, int, str] | None, loose: tuple[int, int, Any] | None
) -> None:
    """A line that is not blank follows: a line before it that is not complete JSON, or not an
    entry, is damage."""
    if failed is not None:
        f_line, f_offset, _, problem = failed
        raise DamagedLogError(name, f_line, f_offset, problem)
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
    from .decode import BadEntry, decode_outcome

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


def iter_entries(
    source: LogSource,
    *,
    name: str | None = None,
    exact: bool = False,
    export: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> LogReader:
    """Stream the entries of a session log: ``LogReader(source, name=name, exact=exact,
    export=export, max_line_bytes=max_line_bytes)``.

    See ``LogReader`` for what is read, what is reported, and the errors raised.
    """
    return LogReader(source, name=name, exact=exact, export=export, max_line_bytes=max_line_bytes)
