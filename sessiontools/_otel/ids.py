"""Trace and span ids: the first part of the traces exporter (the session model -> traces).

Every id is derived from the log, never drawn at random, so the same log gives the same ids,
and an eval can compute a run's ids without exporting (``run_trace_id``, ``run_span_id``,
``span_id``). The rules (docs/traces.md, "Identity and order"):

- one trace per run: the parent's trace id, else SHA-256 of the conversation id and the
  ``seq`` of the run's ``run_started``;
- a span id is keyed on its trace, the conversation id, the kind of span and the entry that
  opens the span, so appending to a log never changes the ids of runs already ended, and
  sessions exported under one parent trace never share one;
- an all-zero id gets its last byte set to 1;
- an id given in hex (``parse_trace_id``, ``parse_span_id``) is 32 or 16 hex digits, either
  case, not all zero; given as bytes, 16 or 8 bytes, not all zero (``InvalidIdError``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import InvalidIdError

__all__ = ["parse_span_id", "parse_trace_id", "run_span_id", "run_trace_id", "span_id"]


def _load_sha256(data: bytes) -> Any:
    """``hashlib.sha256``, loaded with the first id (OpenSSL takes milliseconds to load: not
    for a log without runs)."""
    global _new_sha256
    import hashlib

    _new_sha256 = hashlib.sha256
    return _new_sha256(data)


_new_sha256: Callable[[bytes], Any] = _load_sha256


def loaded_sha256() -> Callable[[bytes], Any]:
    """``hashlib.sha256``, loaded if it was not: for a hot loop that makes ids itself."""
    if _new_sha256 is _load_sha256:
        _load_sha256(b"")
    return _new_sha256


def _sha256(text: str) -> bytes:
    digest: bytes = _new_sha256(text.encode("utf-8")).digest()
    return digest


def _nonzero(ident: bytes) -> bytes:
    return ident if any(ident) else ident[:-1] + b"\x01"


def run_trace_id(
    conversation_id: str, run_start_seq: int, *, parent_trace_id: bytes | None = None
) -> bytes:
    """The trace id of a run's spans, without exporting.

    Args:
        conversation_id: ``gen_ai.conversation.id`` (by default the log's file name without
            its extension).
        run_start_seq: the ``seq`` of the run's ``run_started`` entry.
        parent_trace_id: the trace the runs were put under (``--parent-trace``), if any.

    Returns:
        16 bytes: ``parent_trace_id``, else the first 16 bytes of SHA-256 of
        ``agentloop/trace/{conversation_id}/{run_start_seq}`` (an all-zero id gets its last
        byte set to 1).

    Raises:
        TypeError, InvalidIdError: ``parent_trace_id`` is not 16 bytes, or is all zero (the
            checks and messages of ``sessiontools otel --parent-trace``).
    """
    if parent_trace_id is not None:
        return _check_id(parent_trace_id, 16, "a trace id")
    return _trace_id(conversation_id, run_start_seq)


def _trace_id(conversation_id: str, run_start_seq: int) -> bytes:
    return _nonzero(_sha256(f"agentloop/trace/{conversation_id}/{run_start_seq}")[:16])


# The spans' names in their ids' keys (docs/traces.md, "Identity and order").
_SPAN_KEYS = ("invoke_agent", "chat", "execute_tool", "tool_chat")


def _span_key_prefix(trace_id: bytes, conversation_id: str) -> str:
    return f"agentloop/span/{trace_id.hex()}/{conversation_id}/"


_ZERO_SPAN_ID = bytes(8)


def _span_id(prefix: str, span: str, seq: int, index: int) -> bytes:
    # _nonzero(_sha256(...)[:8]), inline: one call for each span
    ident: bytes = _new_sha256(f"{prefix}{span}/{seq}/{index}".encode()).digest()[:8]
    return ident if ident != _ZERO_SPAN_ID else ident[:-1] + b"\x01"


def span_id(trace_id: bytes, conversation_id: str, span: str, seq: int, index: int = 0) -> bytes:
    """The id of a span, keyed on the entry that opens it.

    Args:
        trace_id: the span's trace id (16 bytes; ``run_trace_id``).
        conversation_id: ``gen_ai.conversation.id`` of the export: many sessions exported
            under one parent trace share the trace id, never a span id.
        span: ``invoke_agent``, ``chat``, ``execute_tool`` or ``tool_chat`` (a model call a
            tool made).
        seq: the opening entry's ``seq``: the run's ``run_started``; the turn's ``message`` or
            the failed call's ``model_error``; the tool call's assistant ``message`` (a call
            asked for in an earlier run and settled by this one: this run's ``tool_result``
            for it; resumed but not settled, as when the run crashed again: the first entry
            of this run about it); a tool's model call: its ``tool_result``.
        index: the tool call's index among its message's tool calls; the model call's index in
            ``tool_result.usage``; else 0.

    Returns:
        8 bytes: the first 8 of SHA-256 of
        ``agentloop/span/{trace id hex}/{conversation id}/{span}/{seq}/{index}`` (an all-zero
        id gets its last byte set to 1).

    Raises:
        ValueError: ``span`` is none of the four; a trace id that is not 16 bytes or is all
            zero (``InvalidIdError``). TypeError: a trace id that is not bytes.
    """
    if span not in _SPAN_KEYS:
        raise ValueError(f"span must be one of {', '.join(_SPAN_KEYS)}, not {span!r}")
    trace_id = _check_id(trace_id, 16, "a trace id")
    return _span_id(_span_key_prefix(trace_id, conversation_id), span, seq, index)


def run_span_id(
    conversation_id: str, run_start_seq: int, *, parent_trace_id: bytes | None = None
) -> bytes:
    """The span id of a run's ``invoke_agent`` span, without exporting (see ``run_trace_id``):
    ``span_id(run_trace_id(...), conversation_id, "invoke_agent", run_start_seq)``."""
    trace_id = run_trace_id(conversation_id, run_start_seq, parent_trace_id=parent_trace_id)
    return span_id(trace_id, conversation_id, "invoke_agent", run_start_seq)


def _check_id(ident: object, size: int, what: str) -> bytes:
    """An id given as bytes, checked as ``parse_trace_id`` / ``parse_span_id`` check hex (the
    same messages): ``size`` bytes, not all zero.

    Raises:
        TypeError: not bytes (hex text goes through ``parse_trace_id`` / ``parse_span_id``).
        InvalidIdError: the wrong length, or all zero.
    """
    if not isinstance(ident, bytes | bytearray):
        hint = "parse_trace_id" if size == 16 else "parse_span_id"
        raise TypeError(
            f"{what} must be {size} bytes, not {type(ident).__name__}: turn hex into bytes "
            f"with {hint}"
        )
    if len(ident) != size:
        raise InvalidIdError(
            f"{what} must be {size} bytes ({2 * size} hex digits), got {len(ident)}: "
            f"{bytes(ident).hex()!r}"
        )
    if not any(ident):
        raise InvalidIdError(f"{what} must not be all zero: {bytes(ident).hex()!r}")
    return bytes(ident)


def check_parents(
    parent_trace_id: object, parent_span_id: object
) -> tuple[bytes | None, bytes | None]:
    """The parent ids of an export, checked as ``sessiontools otel`` checks its flags.

    Raises:
        TypeError, InvalidIdError: see ``_check_id``.
        ValueError: a parent span id without a parent trace id.
    """
    trace = None if parent_trace_id is None else _check_id(parent_trace_id, 16, "a trace id")
    span = None if parent_span_id is None else _check_id(parent_span_id, 8, "a span id")
    if span is not None and trace is None:
        raise ValueError("a parent span id needs a parent trace id")
    return trace, span


_HEX = frozenset("0123456789abcdefABCDEF")


def _parse_id(text: str, digits: int, what: str) -> bytes:
    if len(text) != digits:
        raise InvalidIdError(f"{what} must be {digits} hex digits, got {len(text)}: {text!r}")
    if not _HEX.issuperset(text):
        raise InvalidIdError(f"{what} must be hex digits (0-9, a-f): {text!r}")
    ident = bytes.fromhex(text)
    if not any(ident):
        raise InvalidIdError(f"{what} must not be all zero: {text!r}")
    return ident


def parse_trace_id(text: str) -> bytes:
    """A trace id from 32 hex digits, either case.

    Raises:
        InvalidIdError: wrong length, a non-hex character, or all zero (an invalid trace id
            in the OTel trace API).
    """
    return _parse_id(text, 32, "a trace id")


def parse_span_id(text: str) -> bytes:
    """A span id from 16 hex digits, either case.

    Raises:
        InvalidIdError: wrong length, a non-hex character, or all zero.
    """
    return _parse_id(text, 16, "a span id")
