"""Typed decoding for the exporters: a log line straight to an ``Entry`` whose payload holds only
what the fold reads, or ``None`` when the checked decoders must say what the line is; part of
the first stage (bytes -> entries), used by ``ExportReader`` (docs/reading.md, "Reading for
an export").

``decode_view(line, number)`` decodes a line with msgspec into ``Struct`` types that name every
field agentloop writes, at the entry's and the payload's level, and nothing else
(``forbid_unknown_fields``): a line this cannot take, for any reason, is read again by the
reader the checked way (``orjson`` and ``decode``), which says what is wrong with it, warns of
an unknown field, or reads what Go reads into a zero value (``null`` for a string, a number or
a list). So what this decodes is exactly what the checked way decodes, and everything else is
left to it:

- a value this reads is checked as the checked decoders check it: strings, booleans, integers
  within signed 64 bits (``Int64``), arrays of strings; a long string the export never reads
  (a message's text, a result's content, what it showed) is not made into a Python string,
  and is checked only to be a string or ``null`` (its first byte); a short one (a policy's
  reason, a refusal, a result's log, titles and references) is decoded as ``str | None``,
  which checks the same for less than looking at that byte;
- raw JSON Go keeps as it is (a tool call's ``input``, ``native.data``) is skipped: checked to
  be JSON, never made into Python values;
- objects nested in a payload ignore names they do not know, as the checked decoders do.

The payloads of the entries most lines hold (``message``, ``decision``, ``call_started``,
``tool_result``) are the views themselves (``MessageView``...): what the fold reads of each, by
the same names. The others become their payload types (``RunStartedEntry``, ``Outcome``,
``ModelErrorEntry``, ``LabelsEntry``, ``PinsEntry``); an unknown type goes the checked way.
Each entry is a ``ViewEntry``, a ``Struct`` with ``Entry``'s fields (made in C: an ``Entry``
costs four times as much to make, on every line), and still says its ``type``, which the fold
and the export limits read to tell payloads apart.

The entries are not for the caller's use: only the exporters read this way, and the runs they
fold are the same (``tests/log/test_views.py`` compares both ways, line by line).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from types import MappingProxyType
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Raw, Struct

from .._fast import fast_maker
from .entries import (
    NIL,
    NIL_MAP,
    ZERO_USAGE,
    Entry,
    LabelsEntry,
    ModelError,
    ModelErrorEntry,
    Outcome,
    PinsEntry,
    Refusal,
    RunStartedEntry,
    Usage,
)
from .times import ZERO_TIME_UNIX_NANO, parse_rfc3339

__all__ = [
    "CallStartedView",
    "DecisionView",
    "MessageBodyView",
    "MessageView",
    "ToolResultView",
    "ViewEntry",
    "decode_view",
]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

#: Go's int and int64 (agentloop's integers): msgspec refuses the line outside them.
Int64 = Annotated[int, Meta(ge=_INT64_MIN, le=_INT64_MAX)]

# What a field the export never reads holds when it is absent (Go writes it as "" or null).
_NULL = Raw(b"null")
_EMPTY = Raw(b'""')

_QUOTE = 34  # '"': the first byte of a JSON string
_N = 110  # 'n': the first byte of null, the only JSON value that starts so


#: The first bytes of raw JSON that the checked decoders take as a string: a string or
#: ``null`` (msgspec has checked that it is JSON, so its first byte tells its kind).
_TEXT = frozenset((_QUOTE, _N))


class ToolCallView(Struct, gc=False):
    """A ``tool_call`` part's call: its id and tool name; the input is skipped."""

    id: str = ""
    name: str = ""
    input: Raw = _NULL


class _ResultView(Struct, gc=False):
    """A tool's result (Go's ``ToolResult``): the call it answers and whether it failed."""

    call_id: str = ""
    content: Raw = _EMPTY
    is_error: bool = False


_TOOL_CALL = attrgetter("tool_call")


class _PartView(Struct, gc=False):
    type: str = ""
    text: Raw = _EMPTY
    tool_call: ToolCallView | None = None
    tool_result: _ResultView | None = None


class _NativeView(Struct, gc=False):
    provider: str = ""
    model: str = ""
    data: Raw = _NULL


class MessageBodyView(Struct, gc=False):
    """A ``message`` entry's message: its role, parts and the provider's own record."""

    role: str = ""
    parts: tuple[_PartView, ...] = ()
    native: _NativeView | None = None

    @property
    def tool_calls(self) -> tuple[ToolCallView, ...]:
        """The message's tool calls, in order (``Message.tool_calls``)."""
        parts = self.parts
        if not parts:
            return ()
        # in C: a part's tool call, when it has one (a Struct is never false)
        return tuple(filter(None, map(_TOOL_CALL, parts)))


class MessageView(Struct, forbid_unknown_fields=True, gc=False):
    """A ``message`` entry's payload, as the fold reads it (``MessageEntry``)."""

    message: MessageBodyView | None = None
    usage: Usage | None = None
    stop: str = ""
    model: str = ""
    refusal: str | None = ""


class DecisionView(Struct, forbid_unknown_fields=True, gc=False):
    """A ``decision`` entry's payload (``DecisionEntry``)."""

    call_id: str = ""
    tool: str = ""
    verdict: str = ""
    reason: str | None = ""
    labels: tuple[str, ...] = ()


class CallStartedView(Struct, forbid_unknown_fields=True, gc=False):
    """A ``call_started`` entry's payload (``CallStartedEntry``)."""

    call_id: str = ""


class _ModelUsageView(Struct, gc=False):
    model: str = ""
    usage: Usage | None = None


class _SourceView(Struct, gc=False):
    title: str | None = ""
    ref: str | None = ""


class _DisplayView(Struct, gc=False):
    """What a result showed the operator: only checked, as the export reads none of it."""

    title: str | None = ""
    body: Raw = _EMPTY
    labels: tuple[str, ...] | None = None
    sources: list[_SourceView] | None = None
    ref: str | None = ""


class ToolResultView(Struct, forbid_unknown_fields=True, gc=False):
    """A ``tool_result`` entry's payload (``ToolResultEntry``); ``usage``: the model calls the
    tool made, by ``ModelUsage``'s names."""

    result: _ResultView | None = None
    labels: tuple[str, ...] = ()
    log: str | None = ""
    usage: tuple[_ModelUsageView, ...] = ()
    display: _DisplayView | None = None


class _RunStartedView(Struct, forbid_unknown_fields=True, gc=False):
    prompt: str = ""


class _RefusalView(Struct, gc=False):
    call_id: str = ""
    tool: str = ""
    labels: tuple[str, ...] | None = None


class _ModelErrorView(Struct, gc=False):
    kind: str = ""
    message: str = ""
    status: Int64 = 0
    retry_after: str | None = None
    resets_at: str | None = None


class _ModelErrorEntryView(Struct, forbid_unknown_fields=True, gc=False):
    error: _ModelErrorView | None = None
    retry: bool = False
    wait_ms: Int64 = 0


class _LabelsView(Struct, forbid_unknown_fields=True, gc=False):
    labels: tuple[str, ...] | None = None
    source: str = ""


class _PinsView(Struct, forbid_unknown_fields=True, gc=False):
    pins: dict[str, str] | None = None


class _OutcomeView(Struct, forbid_unknown_fields=True, gc=False):
    reason: str = ""
    text: str = ""
    error: _ModelErrorView | None = None
    limit: str = ""
    forbidden: tuple[str, ...] | None = None
    refused: list[_RefusalView] | None = None
    turns: Int64 = 0
    usage: Usage | None = None


#: The entry types read this way (any other goes the checked way). msgspec gives each as this
#: one string object, whose hash is kept: the reader, the limits and the fold compare it and
#: look it up on every line.
_Type = Literal[
    "tool_result",
    "decision",
    "call_started",
    "message",
    "run_started",
    "run_ended",
    "model_error",
    "labels",
    "pins",
]


class _EntryView(Struct, forbid_unknown_fields=True, gc=False):
    """A line: ``seq``, ``time``, ``type`` and the payload the type names (Go's ``Entry``)."""

    seq: Int64
    type: _Type
    time: str = ""
    run_started: _RunStartedView | None = None
    message: MessageView | None = None
    decision: DecisionView | None = None
    call_started: CallStartedView | None = None
    tool_result: ToolResultView | None = None
    model_error: _ModelErrorEntryView | None = None
    run_ended: _OutcomeView | None = None
    labels: _LabelsView | None = None
    pins: _PinsView | None = None


def _usage(usage: Usage | None) -> Usage | None:
    """A usage as the checked decoders read it (``ZERO_USAGE`` when absent); ``None`` when a
    count is outside signed 64 bits (msgspec reads integers of any size into a dataclass)."""
    if usage is None:
        return ZERO_USAGE
    # the usual case first, in one test: of integers, an OR is non-negative and below 2^63
    # when all four are (it is negative when one is)
    counts = usage.input_tokens | usage.output_tokens
    if 0 <= counts | usage.cache_read_tokens | usage.cache_write_tokens <= _INT64_MAX:
        return usage
    if (
        _INT64_MIN <= usage.input_tokens <= _INT64_MAX
        and _INT64_MIN <= usage.output_tokens <= _INT64_MAX
        and _INT64_MIN <= usage.cache_read_tokens <= _INT64_MAX
        and _INT64_MIN <= usage.cache_write_tokens <= _INT64_MAX
    ):
        return usage
    return None


def _message(line: _EntryView) -> MessageView | None:
    payload = line.message
    if payload is None or payload.message is None:
        return None  # null is Go's zero message: the checked decoder makes it
    usage = _usage(payload.usage)
    if usage is None:
        return None
    payload.usage = usage
    parts = payload.message.parts
    if parts:
        for part in parts:
            text = part.text  # absent (the default itself) in most parts but text ones
            if text is not _EMPTY and memoryview(text)[0] not in _TEXT:
                return None
            result = part.tool_result
            if result is not None and memoryview(result.content)[0] not in _TEXT:
                return None
    return payload


def _tool_result(line: _EntryView) -> ToolResultView | None:
    payload = line.tool_result
    if (
        payload is None
        or payload.result is None
        or memoryview(payload.result.content)[0] not in _TEXT
    ):
        return None
    display = payload.display
    if display is not None and memoryview(display.body)[0] not in _TEXT:
        return None
    if payload.usage:
        for model_usage in payload.usage:
            usage = _usage(model_usage.usage)
            if usage is None:
                return None
            model_usage.usage = usage
    return payload


class ViewEntry(Struct, gc=False):
    """An entry read the typed way: ``Entry``'s fields, by its names and in its order, as a
    msgspec ``Struct``, which is made in C (a quarter of the time of making an ``Entry``, paid
    for every line). The fold, the export limits and the split read an entry by these names
    only; the entries are not for the caller's use (module docstring)."""

    seq: int
    time_unix_nano: int
    type: str
    payload: Any
    utc_offset_seconds: int = 0
    line: int = 0


_new_run_started = fast_maker(RunStartedEntry)
_new_model_error = fast_maker(ModelError)
_new_model_error_entry = fast_maker(ModelErrorEntry)
_new_labels = fast_maker(LabelsEntry)
_new_outcome = fast_maker(Outcome)
_new_refusal = fast_maker(Refusal)
#: Typed as making an ``Entry``: a ``ViewEntry`` has its fields, and is read only by them.
_new_entry: Callable[[int, int, str, Any, int, int], Entry] = ViewEntry  # type: ignore[assignment]


def _run_started(line: _EntryView) -> RunStartedEntry | None:
    payload = line.run_started
    if payload is None:
        return None
    return _new_run_started(payload.prompt)


def _model_error(error: _ModelErrorView | None) -> ModelError | None:
    """A model error as the checked decoders read it; ``None`` for a time that is not one."""
    if error is None:
        return _new_model_error("", "", 0, None, None, 0, 0)
    retry_after = resets_at = None
    retry_after_offset = resets_at_offset = 0
    try:
        if error.retry_after is not None:
            retry_after, retry_after_offset = parse_rfc3339(error.retry_after)
            if retry_after == ZERO_TIME_UNIX_NANO:  # Go's zero time: not set
                retry_after, retry_after_offset = None, 0
        if error.resets_at is not None:
            resets_at, resets_at_offset = parse_rfc3339(error.resets_at)
            if resets_at == ZERO_TIME_UNIX_NANO:
                resets_at, resets_at_offset = None, 0
    except ValueError:
        return None
    return _new_model_error(
        error.kind,
        error.message,
        error.status,
        retry_after,
        resets_at,
        retry_after_offset,
        resets_at_offset,
    )


def _model_error_entry(line: _EntryView) -> ModelErrorEntry | None:
    payload = line.model_error
    if payload is None:
        return None
    error = _model_error(payload.error)
    if error is None:
        return None
    return _new_model_error_entry(error, payload.retry, payload.wait_ms)


def _labels(line: _EntryView) -> LabelsEntry | None:
    payload = line.labels
    if payload is None:
        return None
    labels = NIL if payload.labels is None else payload.labels
    return _new_labels(labels, payload.source)


def _pins(line: _EntryView) -> PinsEntry | None:
    payload = line.pins
    if payload is None:
        return None
    return PinsEntry(NIL_MAP if payload.pins is None else MappingProxyType(payload.pins))


def _run_ended(line: _EntryView) -> Outcome | None:
    payload = line.run_ended
    if payload is None:
        return None
    usage = _usage(payload.usage)
    if usage is None:
        return None
    error = None
    if payload.error is not None:
        error = _model_error(payload.error)
        if error is None:
            return None
    refused: tuple[Refusal, ...] = ()
    if payload.refused:
        refused = tuple(
            [
                _new_refusal(r.call_id, r.tool, NIL if r.labels is None else r.labels)
                for r in payload.refused
            ]
        )
    forbidden = NIL if payload.forbidden is None else payload.forbidden
    return _new_outcome(
        payload.reason,
        payload.turns,
        usage,
        payload.text,
        error,
        payload.limit,
        forbidden,
        refused,
    )


# The payloads read less often, by type (the hot ones are told apart in `decode_view`).
_PAYLOADS: dict[str, Any] = {
    "run_started": _run_started,
    "run_ended": _run_ended,
    "model_error": _model_error_entry,
    "labels": _labels,
    "pins": _pins,
}

_decode = msgspec.json.Decoder(_EntryView).decode
# What msgspec raises for a line it cannot take (ValidationError is a DecodeError), and for one
# nested deeper than Python's recursion limit.
_NOT_TAKEN = (msgspec.DecodeError, RecursionError)


def decode_view(line: bytes, number: int) -> Entry | None:
    """The entry of one log line, its payload a view (module docstring); ``None`` when the
    line is to be read the checked way: it is not an entry, not JSON, not as Go writes it, of
    a type read only that way, or holds what only the checked decoders say (an error, an
    unknown field, a null Go reads as a zero value).

    Args:
        line: the line's bytes, with its line end.
        number: its 1-based line number, kept on the entry.
    """
    try:
        view = _decode(line)
    except _NOT_TAKEN:
        return None
    kind = view.type
    payload: Any
    # by how many lines of each type a log holds, most first
    if kind == "tool_result":
        payload = _tool_result(view)
    elif kind == "decision":
        payload = view.decision
    elif kind == "call_started":
        payload = view.call_started
    elif kind == "message":
        payload = _message(view)
    else:
        make = _PAYLOADS.get(kind)
        if make is None:
            return None
        payload = make(view)
    if payload is None:
        return None
    try:
        time_unix_nano, offset = parse_rfc3339(view.time)
    except ValueError:
        return None
    return _new_entry(view.seq, time_unix_nano, kind, payload, offset, number)
