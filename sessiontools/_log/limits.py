"""What the exports can hold, and the one rule both exporters apply to what they cannot: checked
as the first stage reads a log for an exporter (docs/reading.md, "What the exports hold").

``sessiontools otel`` writes OTLP, whose times are ``fixed64`` unsigned Unix nanoseconds and
whose ``intValue`` is a signed 64-bit integer; ``sessiontools cost`` writes pandas frames,
whose times are ``datetime64[ns]`` (1677-09-21 to 2262-04-11) and whose counts are ``Int64``.
What fits both:

- a time from ``1970-01-01T00:00:00Z`` to ``2262-04-11T23:47:16.854775807Z`` (0 to 2^63-1
  Unix nanoseconds);
- a token count from 0 to 2^63-1: a negative count is an error in the log, reported, never clamped
  (docs/costs.md, "Usage conventions"), and the counts a span or a row adds up (a call's input with
  its cached tokens, a run's usage, a run's sums) never pass 2^63-1;
- a ``wait_ms`` of 0 or more (a call's start is the entry before it plus the wait).

Both exporters read a log with ``LogReader(..., export=True)``, which checks each entry with
``ExportLimits`` and raises ``EntryError`` (file, line, byte offset) for the first that breaks a
rule; the token counts of a run are added up from its ``run_started`` on, so the rule does not
depend on where a log is cut (``sessiontools._parallel`` cuts at a ``run_started``). agentloop's own
reader reads such entries (they are valid ``int64`` and times), so the session library's reads
(``read_session``, ``FileStore.load``, ``LogReader(exact=True)``) keep them; runs taken from those
reads are checked by ``check_run`` when they are exported (``trace_spans``, ``read_costs`` given a
``Session``).

Integers outside signed 64 bits are refused by every read, as Go refuses them: see
``decode``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._errors import OutOfRangeError
from .._model.usage import check_counts
from .entries import (
    ZERO_USAGE,
    Entry,
    Usage,
)
from .times import format_rfc3339

if TYPE_CHECKING:
    from .._model.runs import Run

__all__ = [
    "INT64_MAX",
    "MAX_TIME_UNIX_NANO",
    "MIN_TIME_UNIX_NANO",
    "ExportLimits",
    "check_run",
    "time_problem",
]

#: The largest signed 64-bit integer: an OTLP ``intValue``, a pandas ``Int64``, Go's ``int``.
INT64_MAX = 2**63 - 1
#: The times both exports hold: 1970-01-01T00:00:00Z ...
MIN_TIME_UNIX_NANO = 0
#: ... to 2262-04-11T23:47:16.854775807Z.
MAX_TIME_UNIX_NANO = INT64_MAX

#: The hint of an ``EntryError`` for a value an export cannot hold.
HINT = "the exports refuse it: correct the log (read_session and FileStore still read it)"

_TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def time_problem(unix_nano: int, utc_offset_seconds: int = 0, what: str = "time") -> str | None:
    """Why an export cannot hold this time, or ``None`` when it can."""
    if MIN_TIME_UNIX_NANO <= unix_nano <= MAX_TIME_UNIX_NANO:
        return None
    return (
        f"{what} {format_rfc3339(unix_nano, utc_offset_seconds)} is outside what the exports "
        "hold (1970-01-01T00:00:00Z to 2262-04-11T23:47:16.854775807Z: OTLP's unsigned Unix "
        "nanoseconds and pandas' datetime64[ns])"
    )


def _negative(usage: Usage, where: str) -> str | None:
    for name in _TOKENS:
        value = getattr(usage, name)
        if value < 0:
            return (
                f"{where}.{name} is {value}: a token count cannot be negative (the log is "
                "wrong, or mixes usage conventions)"
            )
    return None


def _too_much(what: str) -> str:
    return (
        f"the token counts {what} add up past {INT64_MAX} (2^63-1), more than an OTLP "
        "intValue or an Int64 column holds"
    )


class ExportLimits:
    """Checks a log's entries, in order, against what the exports hold (module docstring).

    ``check(entry)`` returns the problem with the entry, in a few words, or ``None``.

    Args:
        at_start: the entries are a log's from its first line. A part of a log read apart
            from what comes before it (the second part of a log read in two processes) gives
            ``False``: its token counts are added up from its first ``run_started`` (or
            ``run_ended``) on, as what came before is not known (``sessiontools._parallel.split``
            drops such a part's work unless it starts with a ``run_started``).
    """

    __slots__ = ("_counting", "_run_seq", "_tokens")

    def __init__(self, *, at_start: bool = True) -> None:
        self._counting = at_start
        self._tokens = 0  # the token counts of the model calls since the run started
        self._run_seq: int | None = None  # None: outside any run

    def _add(self, usage: Usage, where: str, index: int = -1) -> str | None:
        """Count a model call's usage; the problem with it, if any. ``where``: what to call
        the usage in a problem, with ``[index].usage`` after it for an index from 0 (written
        only then: a tool's model calls are counted on every such line)."""
        i, o, r, w = (
            usage.input_tokens,
            usage.output_tokens,
            usage.cache_read_tokens,
            usage.cache_write_tokens,
        )
        if i < 0 or o < 0 or r < 0 or w < 0:
            return _negative(usage, where if index < 0 else f"{where}[{index}].usage")
        tokens = self._tokens = self._tokens + i + o + r + w
        if tokens <= INT64_MAX or not self._counting:
            return None
        if self._run_seq is None:
            return _too_much("of the model calls outside any run")
        return _too_much(f"of the run that starts at seq {self._run_seq}")

    def check(self, entry: Entry) -> str | None:
        """The problem with the next entry of the log, or ``None``."""
        when = entry.time_unix_nano
        if when < MIN_TIME_UNIX_NANO or when > MAX_TIME_UNIX_NANO:
            return time_problem(when, entry.utc_offset_seconds)
        payload: Any = entry.payload
        kind = entry.type  # a payload is a view of it on the export path (``views``)
        if kind == "message":
            usage: Usage = payload.usage
            if usage is ZERO_USAGE:  # a user message
                return None
            return self._add(usage, "message.usage")
        if kind == "tool_result":
            if not payload.usage:
                return None
            for i, model_usage in enumerate(payload.usage):
                problem = self._add(model_usage.usage, "tool_result.usage", i)
                if problem is not None:
                    return problem
            return None
        if kind == "run_started":
            self._run_seq = entry.seq
            self._tokens = 0
            self._counting = True
            return None
        if kind == "run_ended":
            usage = payload.usage
            self._run_seq = None
            self._tokens = 0
            self._counting = True  # outside any run from here, counted from 0
            if usage is ZERO_USAGE:
                return None
            i, o, r, w = (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
            )
            if i < 0 or o < 0 or r < 0 or w < 0:
                return _negative(usage, "run_ended.usage")
            if i + o + r + w > INT64_MAX:
                return _too_much("of run_ended.usage")
            return None
        if kind == "model_error" and payload.wait_ms < 0:
            return f"model_error.wait_ms is {payload.wait_ms}: a wait cannot be negative"
        return None


def check_run(run: Run, where: str) -> None:
    """Raise when an export cannot hold a run read without ``ExportLimits`` (a ``Session``'s,
    or runs given to ``trace_spans``): the same rules, named by the run instead of a line.

    Args:
        run: the run.
        where: what to call the log or conversation in the message.

    Raises:
        UsageConventionError: a negative token count (never clamped: docs/costs.md, "Usage
        conventions"). OutOfRangeError: a time outside 1970-01-01..2262-04-11, or token counts that
        add up
            past 2^63-1.
    """
    name = f"{where}: run {run.index} (seq {run.start_seq})"
    total = 0
    for t in run.turns:
        check_counts(t.usage, f"{where}: seq {t.seq}")
        total += t.usage.total_tokens
    for c in run.tool_calls:
        seq = c.result_seq if c.result_seq is not None else c.open_seq
        for m in c.model_calls:
            check_counts(m.usage, f"{where}: seq {seq}")
            total += m.usage.total_tokens
    if run.outcome is not None:
        check_counts(run.outcome.usage, f"{where}: seq {run.end_seq}")
        if run.outcome.usage.total_tokens > INT64_MAX:
            raise OutOfRangeError(f"{name}: {_too_much('of its run_ended.usage')}")
    if total > INT64_MAX:
        raise OutOfRangeError(f"{name}: {_too_much('of its model calls')}")
    times = [run.start_time_unix_nano, run.end_time_unix_nano]
    for t in run.turns:
        times += (t.start_time_unix_nano, t.time_unix_nano)
    for f in run.failed_calls:
        times += (f.start_time_unix_nano, f.time_unix_nano)
    for c in run.tool_calls:
        times += (c.start_time_unix_nano, c.end_time_unix_nano)
    for when in times:
        problem = time_problem(when)
        if problem is not None:
            raise OutOfRangeError(f"{name}: {problem}")
