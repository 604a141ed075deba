"""What can go wrong, and what is only worth a warning, in every stage: the one tree of
sessiontools' exceptions and warnings.

The exception tree::

    SessionToolsError                 anything sessiontools raises on purpose
     ├── LogError                     a session log that cannot be read as agentloop's
     │    ├── DamagedLogError         a line that is not complete JSON, before the last line
     │    └── EntryError              a complete JSON line that is not a usable entry
     ├── InvalidIdError (ValueError)  a trace or span id that is not one
     ├── OutOfRangeError (ValueError) a value an export cannot hold (a time, a token sum)
     ├── UsageConventionError (ValueError)
     │                                token counts that do not fit their convention (negative)
     ├── PriceFileError               a price file that cannot be used
     ├── LabelError (ValueError)      a string that is not a label (agentloop's CheckLabel)
     ├── PinError                     a tool definition digest that differs from the pinned one
     ├── StoreError                   a store that cannot do what was asked
     │    └── StoreLockedError        another writer holds the session file
     ├── SendError                    a request an OTLP/HTTP endpoint did not acknowledge
     └── StateError                   a --state file that cannot be used

    SessionToolsWarning (UserWarning)
     ├── TornTailWarning              the last line is a write cut short; it was ignored
     ├── UnknownEntryWarning          an entry type or field from a newer agentloop; kept
     ├── LogStructureWarning          entries not where agentloop writes them; read as they are
     └── CostMismatchWarning          a transcript's cost_usd is more than 1% off the computed

``OSError`` from opening or reading a file is passed through unchanged.

Every ``LogError`` names the file, the 1-based line number and the byte offset at which that
line starts, and its ``str()`` is one line a person can act on.
"""

from __future__ import annotations

__all__ = [
    "CostMismatchWarning",
    "DamagedLogError",
    "EntryError",
    "InvalidIdError",
    "LabelError",
    "LogError",
    "LogStructureWarning",
    "OutOfRangeError",
    "PinError",
    "PriceFileError",
    "SendError",
    "SessionToolsError",
    "SessionToolsWarning",
    "StateError",
    "StoreError",
    "StoreLockedError",
    "TornTailWarning",
    "UnknownEntryWarning",
    "UsageConventionError",
]


class SessionToolsError(Exception):
    """The base of every error sessiontools raises on purpose."""


class LogError(SessionToolsError):
    """A session log that cannot be read as an agentloop log.

    Attributes:
        name: the file's name as given (a path, or ``<stdin>``).
        line: the 1-based number of the offending line.
        offset: the byte offset, from the start of the file, at which that line starts.
        problem: what is wrong with the line, in a few words.
        hint: what to do about it.
    """

    hint = "the log is damaged; restore it from a copy, or cut it before this line"

    def __init__(
        self, name: str, line: int, offset: int, problem: str, hint: str | None = None
    ) -> None:
        self.name = name
        self.line = line
        self.offset = offset
        self.problem = problem
        if hint is not None:
            self.hint = hint
        super().__init__(f"{name}: line {line} (byte {offset}): {problem}; {self.hint}")

    def __reduce__(self) -> tuple[type[LogError], tuple[str, int, int, str, str]]:
        # Rebuilt from its fields, so it crosses a process boundary (cost tables read logs
        # in several processes).
        return (type(self), (self.name, self.line, self.offset, self.problem, self.hint))


class DamagedLogError(LogError):
    """A line that is not complete JSON, with more lines after it (docs/reading.md, "Lines").

    Only the last line of a log may be incomplete: that is a write cut short by a crash, and
    is reported as a ``TornTailWarning`` instead.
    """


class EntryError(LogError):
    """A complete JSON line that is not a usable agentloop entry.

    For instance a ``seq`` that is not an integer, a time that is not RFC 3339, or an entry
    whose payload is missing. agentloop's own reader (Go's ``encoding/json``) refuses such a
    line too.
    """


class InvalidIdError(SessionToolsError, ValueError):
    """A trace id or span id that is not one.

    A trace id is 32 hex digits (16 bytes) and a span id 16 (8 bytes), not all zero (OTel
    trace API, "SpanContext").
    """


class OutOfRangeError(SessionToolsError, ValueError):
    """A value an export cannot hold, found outside a log's reading (a ``Session``'s runs given
    to ``read_costs`` or ``trace_spans``; a cost frame's token sums in ``cost_by``): a time
    before 1970-01-01 or after 2262-04-11T23:47:16.854775807Z, or token counts that add up
    past 2^63-1. A log read by an exporter reports the same as an ``EntryError`` with its
    line (``sessiontools._log.limits``)."""


class UsageConventionError(SessionToolsError, ValueError):
    """Counts that do not fit their convention: one would be negative once converted."""


class PriceFileError(SessionToolsError):
    """A price file that cannot be used.

    ``str()`` is one line: the file, then the model id and the field when the problem is about
    one, then what is wrong, e.g.
    ``prices.json: model 'gpt-5', field 'input': -1 is negative; a price is US dollars per
    million tokens, 0 or more``.

    Attributes:
        name: the file as given.
        problem: what is wrong, in a few words.
        model: the model id the problem is in, if any.
        field: the field (as written in the file) the problem is in, if any.
    """

    def __init__(
        self, name: str, problem: str, *, model: str | None = None, field: str | None = None
    ) -> None:
        self.name = name
        self.problem = problem
        self.model = model
        self.field = field
        where = name
        if model is not None:
            where += f": model {model!r}"
        if field is not None:
            where += f", field {field!r}" if model is not None else f": field {field!r}"
        message = f"{where}: {problem}"
        super().__init__(message.replace("\r", "\\r").replace("\n", "\\n"))


class LabelError(SessionToolsError, ValueError):
    """A string that is not a label, by agentloop's ``CheckLabel`` (docs/session-library.md,
    "Labels"): 1 to 100 bytes, a lower-case letter or digit first, then lower-case letters, digits
    and ``_ . : @ / + -``.

    Attributes:
        label: the string that was checked.
        problem: why it is not a label, in a few words.
    """

    def __init__(self, label: str, problem: str) -> None:
        self.label = label
        self.problem = problem
        super().__init__(f"{label!r} is not a label: {problem}")

    def __reduce__(self) -> tuple[type[LabelError], tuple[str, str]]:
        return (type(self), (self.label, self.problem))


class PinError(SessionToolsError):
    """A tool definition whose digest is not the one the session pinned (Go's ``PinError``).

    Attributes:
        tool: the tool's name.
        pinned: the digest the session pinned.
        got: the digest given.
    """

    def __init__(self, tool: str, pinned: str, got: str) -> None:
        self.tool = tool
        self.pinned = pinned
        self.got = got
        super().__init__(
            f"tool {tool!r} changed: the session pinned digest {pinned}, got {got}; "
            "a session keeps the definitions it started with"
        )

    def __reduce__(self) -> tuple[type[PinError], tuple[str, str, str]]:
        return (type(self), (self.tool, self.pinned, self.got))


class StoreError(SessionToolsError):
    """A store that cannot do what was asked (a write that failed, a closed store)."""


class StoreLockedError(StoreError):
    """Another writer holds the session file: agentloop allows one writer at a time.

    Attributes:
        path: the session file.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: another writer holds this session file; wait until it closes it, "
            "or write to another file"
        )

    def __reduce__(self) -> tuple[type[StoreLockedError], tuple[str]]:
        return (type(self), (self.path,))


class SendError(SessionToolsError):
    """A request the endpoint did not acknowledge: refused (a status that is not retried), or
    still failing when the retry budget ran out.

    Attributes:
        status: the HTTP status of the last answer, or ``None`` when there was none.
        reason: what went wrong, in one line (no header value, no URL secret).
        attempts: how many times the request was sent.
    """

    def __init__(self, reason: str, status: int | None = None, attempts: int = 1) -> None:
        self.reason = reason
        self.status = status
        self.attempts = attempts
        super().__init__(reason)

    def __reduce__(self) -> tuple[type[SendError], tuple[str, int | None, int]]:
        return (type(self), (self.reason, self.status, self.attempts))


class StateError(SessionToolsError):
    """A state file (``--state``) that cannot be used: not a state file, of another version,
    or kept for another endpoint or other export options."""


class SessionToolsWarning(UserWarning):
    """The base of every warning sessiontools gives while reading."""


class TornTailWarning(SessionToolsWarning):
    """The last line of a log is not complete JSON: a write cut short by a crash, ignored."""


class UnknownEntryWarning(SessionToolsWarning):
    """An entry type, or a field, that this version does not know: kept, and reported once."""


class LogStructureWarning(SessionToolsWarning):
    """Entries that are not where agentloop writes them: an entry of a run (a message, a tool
    result, a ``run_ended``...) with no ``run_started`` before it, or a ``seq`` that goes
    back. They are read as they are, reported once each; such entries outside any run are in
    no run and no span."""


class CostMismatchWarning(SessionToolsWarning):
    """A transcript's ``cost_usd`` differs from the computed cost of its run by more than 1%."""
