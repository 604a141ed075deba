"""The session model to OpenTelemetry traces (contract: design/traces.md).

Two steps, kept apart as in opentelemetry-python's OTLP exporters:

- ``trace_spans(runs, ...)`` maps runs to ``Span`` values: ids as bytes, times in Unix
  nanoseconds, attributes as Python values in a fixed order;
- ``encode_otlp_json(spans, ...)`` writes one ``ExportTraceServiceRequest`` in OTLP/JSON: the
  proto3 JSON mapping with OTLP's changes (hex ids, integer enums, 64-bit integers as decimal
  strings, lowerCamelCase keys; OTLP specification 1.x, "JSON Protobuf Encoding").

``export_otlp_json(source, write, ...)`` does both for a log, streaming: memory holds one run
at a time (``otlp_json`` returns the same output as bytes). Attribute names follow OpenTelemetry
semantic conventions 1.41.0 (GenAI spans, at Development stability), and ``agentloop.*`` for
agentloop's own.
"""

from __future__ import annotations

import hashlib
import os
from binascii import hexlify
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TypeAlias

import orjson

from . import _split
from ._entries import ModelError, Usage
from ._errors import InvalidIdError
from ._limits import check_run
from ._model import Run
from ._reader import MAX_LINE_BYTES, LogReader, LogSource
from ._usage import to_otel
from ._values import fast_maker
from ._version import __version__

__all__ = [
    "SCHEMA_URL",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_INTERNAL",
    "STATUS_CODE_ERROR",
    "STATUS_CODE_UNSET",
    "AttributeValue",
    "Span",
    "default_conversation_id",
    "encode_otlp_json",
    "encode_span",
    "export_otlp_json",
    "otlp_json",
    "parse_span_id",
    "parse_trace_id",
    "run_span_id",
    "run_trace_id",
    "span_id",
    "trace_spans",
    "write_otlp_json",
]

#: The pinned semantic conventions (design/traces.md, "Spans").
SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.0"
#: ``Span.SpanKind`` values of the OTLP proto.
SPAN_KIND_INTERNAL = 1
SPAN_KIND_CLIENT = 3
#: ``Status.StatusCode`` values of the OTLP proto.
STATUS_CODE_UNSET = 0
STATUS_CODE_ERROR = 2

#: An attribute's value: a string, a bool, an int (64-bit) or an array of strings.
AttributeValue: TypeAlias = str | bool | int | tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Span:
    """One span, ready to encode.

    Attributes:
        trace_id: 16 bytes. span_id: 8 bytes. parent_span_id: 8 bytes, or ``b""`` for a root.
        name: such as ``chat claude-opus-5-5``.
        kind: ``SPAN_KIND_INTERNAL`` or ``SPAN_KIND_CLIENT``.
        start_time_unix_nano, end_time_unix_nano: from the log, to the nanosecond.
        attributes: ``(key, value)`` pairs in their fixed order.
        status_code: ``STATUS_CODE_UNSET`` or ``STATUS_CODE_ERROR``; status_message: why.
    """

    trace_id: bytes
    span_id: bytes
    parent_span_id: bytes
    name: str
    kind: int
    start_time_unix_nano: int
    end_time_unix_nano: int
    attributes: tuple[tuple[str, AttributeValue], ...]
    status_code: int = STATUS_CODE_UNSET
    status_message: str = ""


_new_span = fast_maker(Span)


# Identity (design/traces.md, "Identity and order").


def _sha256(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).digest()


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


# The spans' names in their ids' keys (design/traces.md, "Identity and order").
_SPAN_KEYS = ("invoke_agent", "chat", "execute_tool", "tool_chat")


def _span_key_prefix(trace_id: bytes, conversation_id: str) -> str:
    return f"agentloop/span/{trace_id.hex()}/{conversation_id}/"


def _span_id(prefix: str, span: str, seq: int, index: int) -> bytes:
    return _nonzero(_sha256(f"{prefix}{span}/{seq}/{index}")[:8])


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


def _check_parents(
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


# Mapping (design/traces.md, "Spans").


def _add_usage(attrs: list[tuple[str, AttributeValue]], usage: Usage) -> None:
    # The conventions count cached tokens as input; agentloop's input_tokens is the uncached
    # part (the conversion lives in _usage).
    otel = to_otel(usage)
    attrs.append(("gen_ai.usage.input_tokens", otel.input_tokens))
    attrs.append(("gen_ai.usage.output_tokens", otel.output_tokens))
    if otel.cache_read_input_tokens:
        attrs.append(("gen_ai.usage.cache_read.input_tokens", otel.cache_read_input_tokens))
    if otel.cache_creation_input_tokens:
        attrs.append(("gen_ai.usage.cache_creation.input_tokens", otel.cache_creation_input_tokens))


def trace_spans(
    runs: Iterable[Run],
    *,
    conversation_id: str,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    agent_name: str | None = None,
    error_messages: bool = False,
) -> Iterator[Span]:
    """The spans of each run, run by run, each run's ordered by start time, then seq.

    Args:
        runs: runs in log order (``iter_runs`` or ``Session.runs``).
        conversation_id: ``gen_ai.conversation.id`` and the key of the trace and span ids.
        parent_trace_id, parent_span_id: put every run under a span made elsewhere: every span
            gets that trace id, each ``invoke_agent`` that parent (16 and 8 bytes).
        agent_name: ``gen_ai.agent.name``, and the ``invoke_agent`` span's name suffix.
        error_messages: add the provider's message, cut to ``ERROR_MESSAGE_CHARS``
            characters, to the status message of a failed model call and of a run that ended
            with a model error (``sessiontools otel --error-messages``). By default a status
            message says the error's kind and HTTP status only (``rate_limited (429)``): a
            provider's message can quote the request (design/traces.md, "Errors").

    Raises:
        TypeError, InvalidIdError: a parent id that is not bytes, has the wrong length or is
            all zero (as ``sessiontools otel`` checks ``--parent-trace`` / ``--parent-span``).
        ValueError: ``parent_span_id`` without ``parent_trace_id``.
        UsageConventionError, OutOfRangeError: a run holds what an export cannot (a
            negative token count; a time before 1970 or after 2262-04-11; token counts that
            add up past 2^63-1: ``sessiontools._limits``). ``export_otlp_json`` reports
            these as an ``EntryError`` naming the line, as it reads.
    """
    parent_trace_id, parent_span_id = _check_parents(parent_trace_id, parent_span_id)
    return _trace_spans(
        runs,
        conversation_id,
        parent_trace_id,
        parent_span_id,
        agent_name,
        error_messages,
        checked=False,
    )


def _trace_spans(
    runs: Iterable[Run],
    conversation_id: str,
    parent_trace_id: bytes | None,
    parent_span_id: bytes | None,
    agent_name: str | None,
    error_messages: bool,
    *,
    checked: bool,
) -> Iterator[Span]:
    """``trace_spans`` with its arguments checked; ``checked``: the runs were read by a
    ``LogReader(..., export=True)``, which refused what ``check_run`` would."""
    for run in runs:
        if not checked:
            check_run(run, conversation_id)
        yield from _run_spans(
            run, conversation_id, parent_trace_id, parent_span_id, agent_name, error_messages
        )


#: ``--error-messages`` keeps this many characters of a provider's message.
ERROR_MESSAGE_CHARS = 1000


def _error_status(error: ModelError | None, error_messages: bool) -> str:
    """A status message: the error's kind and HTTP status (``rate_limited (429)``), and with
    ``error_messages`` the provider's message, cut to ``ERROR_MESSAGE_CHARS`` characters."""
    kind = (error.kind if error is not None else "") or "model_error"
    text = f"{kind} ({error.status})" if error is not None and error.status else kind
    if error_messages and error is not None and error.message:
        text += ": " + error.message[:ERROR_MESSAGE_CHARS]
    return text


def _run_spans(
    run: Run,
    conversation_id: str,
    parent_trace_id: bytes | None,
    parent_span_id: bytes | None,
    agent_name: str | None,
    error_messages: bool,
) -> list[Span]:
    trace_id = parent_trace_id or _trace_id(conversation_id, run.start_seq)
    prefix = _span_key_prefix(trace_id, conversation_id)
    run_id = _span_id(prefix, "invoke_agent", run.start_seq, 0)
    conv: tuple[str, AttributeValue] = ("gen_ai.conversation.id", conversation_id)
    keyed: list[tuple[tuple[int, int, int, int], Span]] = []

    def add(
        order: tuple[int, int, int, int],
        ident: bytes,
        parent: bytes,
        name: str,
        kind: int,
        start: int,
        end: int,
        attrs: list[tuple[str, AttributeValue]],
        status_code: int = STATUS_CODE_UNSET,
        status_message: str = "",
    ) -> None:
        span = _new_span(
            trace_id,
            ident,
            parent,
            name,
            kind,
            start,
            end,
            tuple(attrs),
            status_code,
            status_message,
        )
        keyed.append((order, span))

    # invoke_agent
    attrs: list[tuple[str, AttributeValue]] = [("gen_ai.operation.name", "invoke_agent"), conv]
    if agent_name is not None:
        attrs.append(("gen_ai.agent.name", agent_name))
    if run.provider:
        attrs.append(("gen_ai.provider.name", run.provider))
    if run.request_model:
        attrs.append(("gen_ai.request.model", run.request_model))
    _add_usage(attrs, run.usage)
    status_code, status_message = STATUS_CODE_UNSET, ""
    outcome = run.outcome
    if outcome is None:
        attrs.append(("error.type", "crashed"))
        status_code, status_message = STATUS_CODE_ERROR, "the run has no run_ended: it crashed"
    elif outcome.reason == "model_error":
        kind = outcome.error.kind if outcome.error is not None and outcome.error.kind else ""
        attrs.append(("error.type", kind or "model_error"))
        status_code = STATUS_CODE_ERROR
        status_message = _error_status(outcome.error, error_messages)
    attrs.append(("agentloop.run.reason", run.reason))
    attrs.append(("agentloop.run.turns", run.turn_count))
    if outcome is not None and outcome.limit:
        attrs.append(("agentloop.run.limit", outcome.limit))
    if outcome is not None and outcome.forbidden:
        attrs.append(("agentloop.run.forbidden", outcome.forbidden))
    attrs.append(("agentloop.session.labels", run.labels))
    add(
        (run.start_time_unix_nano, run.start_seq, 0, 0),
        run_id,
        parent_span_id or b"",
        "invoke_agent" if agent_name is None else f"invoke_agent {agent_name}",
        SPAN_KIND_INTERNAL,
        run.start_time_unix_nano,
        run.end_time_unix_nano,
        attrs,
        status_code,
        status_message,
    )

    # chat: turns
    op_chat: tuple[str, AttributeValue] = ("gen_ai.operation.name", "chat")
    for t in run.turns:
        attrs = [op_chat, conv]
        if t.provider:
            attrs.append(("gen_ai.provider.name", t.provider))
        if t.request_model:
            attrs.append(("gen_ai.request.model", t.request_model))
        if t.model:
            attrs.append(("gen_ai.response.model", t.model))
        if t.stop:
            attrs.append(("gen_ai.response.finish_reasons", (t.stop,)))
        _add_usage(attrs, t.usage)
        add(
            (t.start_time_unix_nano, t.seq, 1, 0),
            _span_id(prefix, "chat", t.seq, 0),
            run_id,
            _chat_name(t.request_model),
            SPAN_KIND_CLIENT,
            t.start_time_unix_nano,
            t.time_unix_nano,
            attrs,
        )

    # chat: failed calls
    for f in run.failed_calls:
        attrs = [op_chat, conv]
        if f.provider:
            attrs.append(("gen_ai.provider.name", f.provider))
        if f.request_model:
            attrs.append(("gen_ai.request.model", f.request_model))
        attrs.append(("error.type", f.error.kind or "model_error"))
        if f.error.status:
            attrs.append(("http.response.status_code", f.error.status))
        attrs.append(("agentloop.retry", f.retry))
        if f.retry:
            attrs.append(("agentloop.retry.wait_ms", f.wait_ms))
        add(
            (f.start_time_unix_nano, f.seq, 1, 0),
            _span_id(prefix, "chat", f.seq, 0),
            run_id,
            _chat_name(f.request_model),
            SPAN_KIND_CLIENT,
            f.start_time_unix_nano,
            f.time_unix_nano,
            attrs,
            STATUS_CODE_ERROR,
            _error_status(f.error, error_messages),
        )

    # execute_tool, and the model calls each tool made
    op_tool: tuple[str, AttributeValue] = ("gen_ai.operation.name", "execute_tool")
    tool_type: tuple[str, AttributeValue] = ("gen_ai.tool.type", "function")
    for c in run.tool_calls:
        # a call settled by a later run is keyed on that run's tool_result (index 0)
        if c.resumed and c.result_seq is not None:
            key_seq, key_index = c.result_seq, 0
        else:
            key_seq, key_index = c.open_seq, c.open_index
        tool_id = _span_id(prefix, "execute_tool", key_seq, key_index)
        attrs = [
            op_tool,
            conv,
            ("gen_ai.tool.name", c.tool),
            ("gen_ai.tool.call.id", c.call_id),
            tool_type,
        ]
        if c.verdict == "deny":
            error = "denied"
        elif not c.has_result:
            error = "crashed"
        elif c.refused:
            error = "refused"
        elif c.is_error:
            error = "tool_error"
        else:
            error = ""
        if error:
            attrs.append(("error.type", error))
        if c.verdict:
            attrs.append(("agentloop.decision.verdict", c.verdict))
        attrs.append(("agentloop.call.labels", c.labels))
        attrs.append(("agentloop.call.resumed", c.resumed))
        start, end = c.start_time_unix_nano, c.end_time_unix_nano
        add(
            (start, key_seq, 2, key_index),
            tool_id,
            run_id,
            f"execute_tool {c.tool}" if c.tool else "execute_tool",
            SPAN_KIND_INTERNAL,
            start,
            end,
            attrs,
            STATUS_CODE_ERROR if error else STATUS_CODE_UNSET,
            _TOOL_ERRORS.get(error, ""),
        )
        if not c.model_calls:
            continue
        result_seq = c.result_seq if c.result_seq is not None else c.open_seq
        for m in c.model_calls:
            attrs = [op_chat, conv]
            if m.model:
                attrs.append(("gen_ai.request.model", m.model))
                attrs.append(("gen_ai.response.model", m.model))
            _add_usage(attrs, m.usage)
            add(
                (start, result_seq, 3, m.index),
                _span_id(prefix, "tool_chat", result_seq, m.index),
                tool_id,
                _chat_name(m.model),
                SPAN_KIND_CLIENT,
                start,
                end,
                attrs,
            )
    keyed.sort(key=_first)
    return [span for _, span in keyed]


def _chat_name(model: str) -> str:
    return f"chat {model}" if model else "chat"


def _first(item: tuple[tuple[int, int, int, int], Span]) -> tuple[int, int, int, int]:
    return item[0]


_TOOL_ERRORS = {
    "denied": "the policy denied the call",
    "crashed": "the call has no result in its run: it was cut off",
    "refused": "the result carried a label the session may not hold, and was refused",
    "tool_error": "the tool reported an error",
}


# Encoding (OTLP/JSON). Each attribute is written from a cached fragment, `{"key":...,
# "value":{...}}`: a log repeats its models, tools and labels, so each is encoded once (bounded
# by clearing). Values that are rarely repeated (call ids, counts) are written each time.

# What OTLP holds: a fixed64 time and a signed 64-bit intValue. The exporters refuse, as they
# read, what goes beyond (sessiontools._limits); spans made otherwise are checked here.
_UINT64_MAX = 2**64 - 1
_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1

_KEY_PREFIX: dict[str, bytes] = {}
_FRAGMENTS: dict[tuple[str, AttributeValue], bytes] = {}
_UNCACHED = frozenset({"gen_ai.tool.call.id"})
_NAMES: dict[str, bytes] = {}


def _key_prefix(key: str) -> bytes:
    prefix = _KEY_PREFIX.get(key)
    if prefix is None:
        prefix = _KEY_PREFIX[key] = b'{"key":' + orjson.dumps(key) + b',"value":'
    return prefix


def _fragment(pair: tuple[str, AttributeValue]) -> bytes:
    key, value = pair
    if isinstance(value, bool):
        return _key_prefix(key) + (b'{"boolValue":true}}' if value else b'{"boolValue":false}}')
    if isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(f"{key} = {value} does not fit an OTLP intValue (signed 64 bits)")
        return _key_prefix(key) + b'{"intValue":"%d"}}' % value
    if isinstance(value, str):
        out = _key_prefix(key) + b'{"stringValue":' + orjson.dumps(value) + b"}}"
    else:
        values = [{"stringValue": s} for s in value]
        array = orjson.dumps({"arrayValue": {"values": values} if values else {}})
        out = _key_prefix(key) + array + b"}"
    if key not in _UNCACHED:
        if len(_FRAGMENTS) > 20_000:
            _FRAGMENTS.clear()
        _FRAGMENTS[pair] = out
    return out


def _span_json(span: Span) -> bytes:
    """A span as OTLP/JSON: fields in the proto's order, defaults omitted."""
    get = _FRAGMENTS.get
    attributes = b",".join([get(pair) or _fragment(pair) for pair in span.attributes])
    name = _NAMES.get(span.name)
    if name is None:
        if len(_NAMES) > 20_000:
            _NAMES.clear()
        name = _NAMES[span.name] = orjson.dumps(span.name)
    if span.parent_span_id:
        head = b'{"traceId":"%s","spanId":"%s","parentSpanId":"%s","name":%s,"kind":%d,' % (
            hexlify(span.trace_id),
            hexlify(span.span_id),
            hexlify(span.parent_span_id),
            name,
            span.kind,
        )
    else:
        head = b'{"traceId":"%s","spanId":"%s","name":%s,"kind":%d,' % (
            hexlify(span.trace_id),
            hexlify(span.span_id),
            name,
            span.kind,
        )
    start, end = span.start_time_unix_nano, span.end_time_unix_nano
    if not (0 <= start <= _UINT64_MAX and 0 <= end <= _UINT64_MAX):
        raise ValueError(
            f"span {span.name!r}: times {start} and {end} do not fit OTLP's fixed64 Unix "
            "nanoseconds (0 to 2^64-1)"
        )
    times = b'"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[' % (start, end)
    if span.status_code == STATUS_CODE_UNSET:
        return head + times + attributes + b"]}"
    if span.status_message:
        status = orjson.dumps({"message": span.status_message, "code": span.status_code})
    else:
        status = b'{"code":%d}' % span.status_code
    return head + times + attributes + b'],"status":' + status + b"}"


def encode_span(span: Span) -> bytes:
    """One span as OTLP/JSON (lowerCamelCase keys, hex ids, 64-bit integers as strings).

    Raises:
        ValueError: a time outside 0..2^64-1 or an integer attribute outside signed 64 bits:
            OTLP cannot hold it (``write_otlp_json`` and ``encode_otlp_json`` too).
    """
    return _span_json(span)


class _Envelope:
    """Writes one ``ExportTraceServiceRequest`` around spans given as they come (see
    ``write_otlp_json``): the head when made, the spans in batches, the tail on ``close()``."""

    def __init__(self, write: Callable[[bytes], object], service_name: str) -> None:
        self._write = write
        self._batch: list[bytes] = []
        self._first = True
        resource = b'{"attributes":[' + _fragment(("service.name", service_name)) + b"]}"
        scope = orjson.dumps({"name": "sessiontools", "version": __version__})
        write(b'{"resourceSpans":[{"resource":' + resource + b',"scopeSpans":[{"scope":' + scope)

    def spans(self, spans: Iterable[Span]) -> None:
        batch = self._batch
        for span in spans:
            batch.append(_span_json(span))
            if len(batch) == 256:
                self._flush()

    def _flush(self) -> None:
        if self._batch:
            self._write((b',"spans":[' if self._first else b",") + b",".join(self._batch))
            self._first = False
            self._batch.clear()

    def joined(self, data: bytes) -> None:
        """Spans already encoded, each after a comma: ``b",{...},{...}"``."""
        if data:
            self._flush()
            self._write(b',"spans":[' + data[1:] if self._first else data)
            self._first = False

    def close(self) -> None:
        self._flush()
        schema = orjson.dumps(SCHEMA_URL)
        self._write((b"" if self._first else b"]") + b',"schemaUrl":' + schema)
        self._write(b'}],"schemaUrl":' + schema + b"}]}\n")


def write_otlp_json(
    spans: Iterable[Span], write: Callable[[bytes], object], *, service_name: str = "agentloop"
) -> None:
    """Write an OTLP/JSON ``ExportTraceServiceRequest`` holding ``spans``, as it goes.

    Args:
        spans: the spans, in order; consumed once.
        write: called with each piece of the output, in order (a binary file's ``write``).
        service_name: the resource's ``service.name``.

    The output is one line ending in ``\\n``: one ``ResourceSpans`` (resource attribute
    ``service.name``) with one ``ScopeSpans`` (scope ``sessiontools`` and its version), both
    with the pinned ``schemaUrl``. The same spans always give the same bytes.
    """
    envelope = _Envelope(write, service_name)
    envelope.spans(spans)
    envelope.close()


def encode_otlp_json(spans: Iterable[Span], *, service_name: str = "agentloop") -> bytes:
    """``write_otlp_json`` into bytes: one line of OTLP/JSON ending in ``\\n``."""
    out = bytearray()
    write_otlp_json(spans, out.extend, service_name=service_name)
    return bytes(out)


def export_otlp_json(
    source: LogSource,
    write: Callable[[bytes], object],
    *,
    conversation_id: str | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    service_name: str = "agentloop",
    agent_name: str | None = None,
    name: str | None = None,
    workers: int | None = 1,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> None:
    """Export a session log, or a run's transcript, as OTLP/JSON, streaming: what
    ``sessiontools otel`` writes. Memory holds one run at a time.

    Args:
        source: a path, or a file opened in binary mode; never changed.
        write: called with each piece of the output, in order (a binary file's ``write``).
            When the log turns out to be damaged, some pieces have been written already
            (how many depends on batching and on ``workers``).
        conversation_id: default: the file's name without its extension
            (``default_conversation_id``).
        parent_trace_id, parent_span_id, agent_name, error_messages: see ``trace_spans``.
        service_name: the resource's ``service.name``.
        name: what to call the log in messages.
        workers: 1 reads the log in this process. 2 cuts a log read from a regular file in
            two at a run near its middle, and exports the second part in a forked child
            process at the same time as the first part here (``sessiontools._split``); the
            output, warnings and errors are the same, byte for byte. ``None`` chooses 2 for a
            file of at least ``SPLIT_FROM_BYTES`` (8 MB) when two cores are free and the
            platform can fork, else 1 (what ``sessiontools otel`` uses). Avoid forking in a
            process that runs threads, such as a notebook kernel: keep the default there.
            Standard input, a pipe, a log compressed with gzip, or a file not at its start is
            read in this process.
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        DamagedLogError, EntryError, OSError: see ``read_session``. The log is read with
            ``LogReader(..., export=True)``: an ``EntryError`` also names the line of what an
            export cannot hold (a negative token count, a time before 1970 or after
            2262-04-11, a run's token counts adding up past 2^63-1, a negative wait).
        TypeError, InvalidIdError: a parent id that is not 16 or 8 bytes, or all zero.
        ValueError: ``parent_span_id`` without ``parent_trace_id``; ``workers`` not 1, 2 or
            ``None``.

    Warns:
        TornTailWarning, UnknownEntryWarning: see ``LogReader``.
        LogStructureWarning: see ``SessionFold``.
    """
    parent_trace_id, parent_span_id = _check_parents(parent_trace_id, parent_span_id)
    if workers not in (1, 2, None):
        raise ValueError(f"workers must be 1, 2 or None, not {workers!r}")
    with LogReader(source, name=name, export=True, max_line_bytes=max_line_bytes) as reader:
        if conversation_id is None:
            conversation_id = default_conversation_id(reader.name)
        spans = _Spans(
            _Envelope(write, service_name),
            (
                conversation_id,
                parent_trace_id,
                parent_span_id,
                agent_name,
                error_messages,
            ),
        )
        _split.read_runs(reader, spans, workers=workers)
        spans.envelope.close()


class _Spans:
    """The spans of runs, written as they come: a ``_split.Job`` for a log read in two. The
    child writes its spans to a file, each after a comma, and sends where each run's
    ``agentloop.session.labels`` attribute is, with the labels its part gave; this process
    copies them, writing that attribute again with the labels of the whole session."""

    def __init__(
        self,
        envelope: _Envelope,
        options: tuple[str, bytes | None, bytes | None, str | None, bool],
    ) -> None:
        """``options``: the conversation id, parent trace and span ids, agent name and
        ``error_messages``, as ``_run_spans`` takes them (checked)."""
        self.envelope = envelope
        self.options = options

    def take(self, runs: Iterator[Run]) -> None:
        # the runs come from a LogReader(..., export=True), which checked them
        self.envelope.spans(_trace_spans(runs, *self.options, checked=True))

    def make_in_child(
        self, runs: Iterator[Run], out: IO[bytes]
    ) -> tuple[int, list[tuple[int, int, int]], list[tuple[str, ...]]]:
        """Returns: the bytes written; where each run's labels attribute is in them (offset,
        length, index in the third); the labels each run's part of the session held."""
        size = 0
        write = out.write
        patches: list[tuple[int, int, int]] = []
        labels: dict[tuple[str, ...], int] = {}
        for run in runs:
            for span in _run_spans(run, *self.options):
                data = b"," + _span_json(span)
                if span.attributes[0][1] == "invoke_agent":
                    # the last attribute; a fragment's quotes cannot be in a JSON string
                    key, _ = span.attributes[-1]
                    assert key == "agentloop.session.labels", key
                    fragment = _fragment(span.attributes[-1])
                    index = labels.setdefault(run.labels, len(labels))
                    patches.append((size + data.rindex(fragment), len(fragment), index))
                write(data)
                size += len(data)
        return size, patches, list(labels)

    def merge(
        self,
        result: tuple[int, list[tuple[int, int, int]], list[tuple[str, ...]]],
        out: IO[bytes],
        labels: set[str],
        runs: int,
    ) -> None:
        size, patches, own_labels = result
        fragments = [
            _fragment(("agentloop.session.labels", tuple(sorted(labels.union(own)))))
            for own in own_labels
        ]
        joined = self.envelope.joined
        at = 0
        for offset, length, index in patches:
            _split.copy(out, offset - at, joined)
            out.seek(length, os.SEEK_CUR)
            joined(fragments[index])
            at = offset + length
        _split.copy(out, size - at, joined)


def otlp_json(
    source: LogSource,
    *,
    conversation_id: str | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    service_name: str = "agentloop",
    agent_name: str | None = None,
    name: str | None = None,
    workers: int | None = 1,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> bytes:
    """Export a session log, or a run's transcript, as OTLP/JSON: what ``sessiontools otel``
    prints. The arguments, errors and warnings are ``export_otlp_json``'s.

    Returns:
        One line of OTLP/JSON, ending in ``\\n``; the same log always gives the same bytes.
    """
    out = bytearray()
    export_otlp_json(
        source,
        out.extend,
        conversation_id=conversation_id,
        parent_trace_id=parent_trace_id,
        parent_span_id=parent_span_id,
        service_name=service_name,
        agent_name=agent_name,
        name=name,
        workers=workers,
        error_messages=error_messages,
        max_line_bytes=max_line_bytes,
    )
    return bytes(out)


def default_conversation_id(name: str) -> str:
    """The default ``gen_ai.conversation.id``: the file's name without its extension; for a
    compressed file (``.gz``, any case) without that and the extension before it
    (``s.jsonl.gz`` is ``s``).

    A name in angle brackets, such as ``<stdin>`` for standard input, gives what is inside.
    """
    if name.startswith("<") and name.endswith(">"):
        return name[1:-1]
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    for _ in range(2 if base.lower().endswith(".gz") else 1):
        stem, dot, _ext = base.rpartition(".")
        if not (dot and stem):
            break
        base = stem
    return base
