"""Spans to OTLP/JSON: the third part of the traces exporter.

``write_otlp_json(spans, write, ...)`` (as it goes) and ``encode_otlp_json(spans, ...)`` (as
bytes) write one ``ExportTraceServiceRequest`` in OTLP/JSON: the proto3 JSON mapping with
OTLP's changes (hex ids, integer enums, 64-bit integers as decimal strings, lowerCamelCase keys;
OTLP specification 1.x, "JSON Protobuf Encoding"; docs/traces.md, "OTLP/JSON"). Making spans
(``spans``) and encoding them are kept apart, as opentelemetry-python keeps its encoders apart
from its exporters. Spans are encoded as they come, the JSON of repeated attributes cached; a
time or an integer OTLP cannot hold is a ``ValueError``, never a wrapped number.
"""

from __future__ import annotations

from binascii import hexlify
from collections.abc import Callable, Iterable
from operator import itemgetter
from typing import Any, cast

import orjson

from .._log.entries import Usage
from .._model.runs import Run, ToolCallRecord, Turn
from .._pieces import WRITE_BYTES
from .._version import __version__
from .ids import loaded_sha256
from .spans import (
    _FIRST,
    _OP_AGENT,
    _OP_CHAT,
    _OP_TOOL,
    _TOOL_ERRORS,
    _TOOL_TYPE,
    SCHEMA_URL,
    SESSION_LABELS,
    SPAN_KIND_CLIENT,
    SPAN_KIND_INTERNAL,
    STATUS_CODE_ERROR,
    STATUS_CODE_UNSET,
    AttributeValue,
    Span,
    _add_usage,
    _agent_span,
    _failed_spans,
    _Keyed,
    _Order,
    _RunContext,
    _tool_spans,
    _turn_spans,
)

__all__ = ["Envelope", "encode_otlp_json", "encode_span", "write_otlp_json"]


# What OTLP holds: a fixed64 time and a signed 64-bit intValue. The exporters refuse, as they
# read, what goes beyond (sessiontools._log.limits); spans made otherwise are checked here.
_UINT64_MAX = 2**64 - 1


_INT64_MIN = -(2**63)


_INT64_MAX = 2**63 - 1


_KEY_PREFIX: dict[str, bytes] = {}


# Attributes (a key and its value) already written, and span names: a run's spans share most.
_FRAGMENTS: dict[tuple[str, AttributeValue], bytes] = {}


_NAMES: dict[str, bytes] = {}


# An integer attribute's JSON, with ``%d`` for its value, by key.
_INT_TEMPLATES: dict[str, bytes] = {}


def _key_prefix(key: str) -> bytes:
    prefix = _KEY_PREFIX.get(key)
    if prefix is None:
        prefix = _KEY_PREFIX[key] = b'{"key":' + orjson.dumps(key) + b',"value":'
    return prefix


def _fragment(pair: tuple[str, AttributeValue]) -> bytes:
    """An attribute as OTLP/JSON; kept for the next span unless it is an integer (a token
    count) or a call id, which seldom come again."""
    key, value = pair
    if type(value) is int:
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(f"{key} = {value} does not fit an OTLP intValue (signed 64 bits)")
        template = _INT_TEMPLATES.get(key)
        if template is None:
            prefix = _key_prefix(key).replace(b"%", b"%%")
            template = _INT_TEMPLATES[key] = prefix + b'{"intValue":"%d"}}'
        return template % value
    if type(value) is str and key == "gen_ai.tool.call.id":
        return _key_prefix(key) + b'{"stringValue":' + orjson.dumps(value) + b"}}"
    if isinstance(value, bool):
        out = _key_prefix(key) + (b'{"boolValue":true}}' if value else b'{"boolValue":false}}')
    elif isinstance(value, int):  # a subclass of int (not from a log)
        return _fragment((key, int(value)))
    elif isinstance(value, str):
        out = _key_prefix(key) + b'{"stringValue":' + orjson.dumps(value) + b"}}"
        if key == "gen_ai.tool.call.id":
            return out  # a subclass of str
    else:
        values = [{"stringValue": s} for s in value]
        array = orjson.dumps({"arrayValue": {"values": values} if values else {}})
        out = _key_prefix(key) + array + b"}"
    if len(_FRAGMENTS) > 20_000:
        _FRAGMENTS.clear()
    _FRAGMENTS[pair] = out
    return out


def _usage_templates() -> tuple[bytes, ...]:
    """The JSON of a model call's token counts (``spans._add_usage``'s attributes, as
    ``_fragment`` writes each), with ``%d`` for each count: by whether it has cache reads
    (2) and cache writes (1)."""
    names = (
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.usage.cache_read.input_tokens",
        "gen_ai.usage.cache_creation.input_tokens",
    )
    one = [_key_prefix(name).replace(b"%", b"%%") + b'{"intValue":"%d"}}' for name in names]
    return tuple(
        b",".join(one[:2] + ([one[2]] if read else []) + ([one[3]] if write else []))
        for read in (False, True)
        for write in (False, True)
    )


_USAGE = _usage_templates()


_SECOND = itemgetter(1)


def _name(name: str) -> bytes:
    """A span's name as a JSON string."""
    text = _NAMES.get(name)
    if text is None:
        if len(_NAMES) > 20_000:
            _NAMES.clear()
        text = _NAMES[name] = orjson.dumps(name)
    return text


def _json(
    head: bytes,
    name: str,
    kind: int,
    start: int,
    end: int,
    attrs: Iterable[Any],
    status_code: int,
    status_message: str,
) -> bytes:
    """A span as OTLP/JSON, after its ``head`` (its ids, up to ``"name":``): fields in the
    proto's order, defaults omitted. ``attrs``: ``(key, value)`` pairs, and items written
    already, as bytes."""
    get = _FRAGMENTS.get
    # an item written already is bytes (``_JsonContext.add_usage``)
    attributes = b",".join(
        [pair if pair.__class__ is bytes else get(pair) or _fragment(pair) for pair in attrs]
    )
    if not (0 <= start <= _UINT64_MAX and 0 <= end <= _UINT64_MAX):
        raise ValueError(
            f"span {name!r}: times {start} and {end} do not fit OTLP's fixed64 Unix "
            "nanoseconds (0 to 2^64-1)"
        )
    if status_code == STATUS_CODE_UNSET:
        tail = b"]}"
    elif status_message:
        status = orjson.dumps({"message": status_message, "code": status_code})
        tail = b'],"status":' + status + b"}"
    else:
        tail = b'],"status":{"code":%d}}' % status_code
    return b'%s%s,"kind":%d,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s%s' % (
        head,
        _NAMES.get(name) or _name(name),
        kind,
        start,
        end,
        attributes,
        tail,
    )


def _span_json(span: Span) -> bytes:
    """A span as OTLP/JSON: fields in the proto's order, defaults omitted."""
    head = b'{"traceId":"' + hexlify(span.trace_id) + b'","spanId":"' + hexlify(span.span_id)
    if span.parent_span_id:
        head += b'","parentSpanId":"' + hexlify(span.parent_span_id)
    return _json(
        head + b'","name":',
        span.name,
        span.kind,
        span.start_time_unix_nano,
        span.end_time_unix_nano,
        span.attributes,
        span.status_code,
        span.status_message,
    )


def encode_span(span: Span) -> bytes:
    """One span as OTLP/JSON (lowerCamelCase keys, hex ids, 64-bit integers as strings).

    Raises:
        ValueError: a time outside 0..2^64-1 or an integer attribute outside signed 64 bits:
            OTLP cannot hold it (``write_otlp_json`` and ``encode_otlp_json`` too).
    """
    return _span_json(span)


class _JsonContext(_RunContext[bytes]):
    """Writes each span of a run as OTLP/JSON at once, as ``_span_json`` writes its ``Span``,
    with the ids every span of the run shares written once."""

    __slots__ = ("head", "under_run")

    def __init__(
        self,
        run: Run,
        conversation_id: str,
        parent_trace_id: bytes | None,
        parent_span_id: bytes | None,
        agent_name: str | None,
        error_messages: bool,
    ) -> None:
        super().__init__(
            run, conversation_id, parent_trace_id, parent_span_id, agent_name, error_messages
        )
        self.head = b'{"traceId":"' + hexlify(self.trace_id) + b'","spanId":"'
        self.under_run = b'","parentSpanId":"' + hexlify(self.run_id) + b'","name":'

    def span(
        self,
        ident: bytes,
        parent: bytes,
        name: str,
        kind: int,
        start: int,
        end: int,
        attrs: list[tuple[str, AttributeValue]],
        status_code: int = STATUS_CODE_UNSET,
        status_message: str = "",
    ) -> bytes:
        if parent is self.run_id:
            under = self.under_run
        elif parent:
            under = b'","parentSpanId":"' + hexlify(parent) + b'","name":'
        else:
            under = b'","name":'
        head = self.head + hexlify(ident) + under
        return _json(head, name, kind, start, end, attrs, status_code, status_message)

    def add_usage(self, attrs: list[tuple[str, AttributeValue]], usage: Usage) -> None:
        """The token counts as ``_add_usage`` adds them, written already: one item of bytes
        in ``attrs``, which ``_json`` takes as it is. Counts ``_fragment`` refuses are added
        as pairs, for it to refuse."""
        data = _usage_json(usage)
        if data is None:
            _add_usage(attrs, usage)
        else:
            attrs.append(data)  # type: ignore[arg-type]


def _usage_json(usage: Usage) -> bytes | None:
    """A model call's token counts as ``_add_usage``'s attributes, written as ``_fragment``
    writes each and joined; ``None`` for counts ``_fragment`` refuses."""
    read, write = usage.cache_read_tokens, usage.cache_write_tokens
    inclusive = usage.input_tokens + read + write  # inclusive_input_tokens
    output = usage.output_tokens
    # each of the four in 0..2^63-1: of integers, an OR is negative when one is, and below
    # 2^63 when all four are non-negative and below it (one test instead of four)
    if not 0 <= inclusive | output | read | write <= _INT64_MAX:
        return None
    if read:
        if write:
            return _USAGE[3] % (inclusive, output, read, write)
        return _USAGE[2] % (inclusive, output, read)
    if write:
        return _USAGE[1] % (inclusive, output, write)
    return _USAGE[0] % (inclusive, output)


# The parts of the spans most runs are made of (``chat`` spans of turns, ``execute_tool``
# spans) that many share, written once: by the conversation id and the fields that make
# them. Each holds what ``_json`` writes between the span's name and its start time, and
# from after its end time on (up to the call id, for a tool call); bounded by clearing.
_TURN_PARTS: dict[tuple[str, str, str, str, str], tuple[bytes, bytes]] = {}
_TOOL_PARTS: dict[tuple[str, str], tuple[bytes, bytes]] = {}
_TOOL_TAILS: dict[tuple[str, str, tuple[str, ...], bool], bytes] = {}
_ZERO_HEX = b"0" * 16
_ONE_HEX = b"0" * 15 + b"1"  # an all-zero span id with its last byte set to 1 (``ids``)


def _turn_parts(key: tuple[str, str, str, str, str]) -> tuple[bytes, bytes]:
    """A turn's ``chat`` span (``spans._turn_spans``) around its times, up to its usage."""
    conversation_id, provider, request_model, model, stop = key
    attrs: list[tuple[str, AttributeValue]] = [
        _OP_CHAT,
        ("gen_ai.conversation.id", conversation_id),
    ]
    if provider:
        attrs.append(("gen_ai.provider.name", provider))
    if request_model:
        attrs.append(("gen_ai.request.model", request_model))
    if model:
        attrs.append(("gen_ai.response.model", model))
    if stop:
        attrs.append(("gen_ai.response.finish_reasons", (stop,)))
    name = "chat " + request_model if request_model else "chat"
    parts = (
        _name(name) + b',"kind":%d,"startTimeUnixNano":"' % SPAN_KIND_CLIENT,
        b'","attributes":[' + b",".join([_fragment(pair) for pair in attrs]) + b",",
    )
    if len(_TURN_PARTS) > 20_000:
        _TURN_PARTS.clear()
    _TURN_PARTS[key] = parts
    return parts


def _tool_parts(key: tuple[str, str]) -> tuple[bytes, bytes]:
    """A tool call's ``execute_tool`` span (``spans._tool_spans``) around its times, up to
    its call id's JSON string."""
    conversation_id, tool = key
    attrs: list[tuple[str, AttributeValue]] = [
        _OP_TOOL,
        ("gen_ai.conversation.id", conversation_id),
        ("gen_ai.tool.name", tool),
    ]
    name = "execute_tool " + tool if tool else "execute_tool"
    parts = (
        _name(name) + b',"kind":%d,"startTimeUnixNano":"' % SPAN_KIND_INTERNAL,
        b'","attributes":['
        + b",".join([_fragment(pair) for pair in attrs])
        + b","
        + _key_prefix("gen_ai.tool.call.id")
        + b'{"stringValue":',
    )
    if len(_TOOL_PARTS) > 20_000:
        _TOOL_PARTS.clear()
    _TOOL_PARTS[key] = parts
    return parts


def _tool_tail(key: tuple[str, str, tuple[str, ...], bool]) -> bytes:
    """A tool call's ``execute_tool`` span after its call id: its other attributes and its
    status, by its error type, verdict, labels and whether it was resumed."""
    error, verdict, labels, resumed = key
    attrs: list[tuple[str, AttributeValue]] = [_TOOL_TYPE]
    if error:
        attrs.append(("error.type", error))
    if verdict:
        attrs.append(("agentloop.decision.verdict", verdict))
    attrs.append(("agentloop.call.labels", labels))
    attrs.append(("agentloop.call.resumed", resumed))
    if error:
        status = {"message": _TOOL_ERRORS.get(error, ""), "code": STATUS_CODE_ERROR}
        end = b'],"status":' + orjson.dumps(status) + b"}"
    else:
        end = b"]}"
    tail = b"}}," + b",".join([_fragment(pair) for pair in attrs]) + end
    if len(_TOOL_TAILS) > 20_000:
        _TOOL_TAILS.clear()
    _TOOL_TAILS[key] = tail
    return tail


_AGENT_PARTS: dict[tuple[str, str | None, bytes, str, str, str], tuple[bytes, bytes, bytes]] = {}


def _agent_parts(key: tuple[str, str | None, bytes, str, str, str]) -> tuple[bytes, bytes, bytes]:
    """A run's ``invoke_agent`` span (``spans._agent_span``) of a run that ended without a
    model error, a limit or forbidden labels: what ``_json`` writes after its span id up to its
    start time, from its end time up to its usage, and from there up to its turn count."""
    conversation_id, agent_name, parent, provider, request_model, reason = key
    attrs: list[tuple[str, AttributeValue]] = [
        _OP_AGENT,
        ("gen_ai.conversation.id", conversation_id),
    ]
    if agent_name is not None:
        attrs.append(("gen_ai.agent.name", agent_name))
    if provider:
        attrs.append(("gen_ai.provider.name", provider))
    if request_model:
        attrs.append(("gen_ai.request.model", request_model))
    name = "invoke_agent" if agent_name is None else f"invoke_agent {agent_name}"
    under = b'","parentSpanId":"' + hexlify(parent) + b'","name":' if parent else b'","name":'
    parts = (
        under + _name(name) + b',"kind":%d,"startTimeUnixNano":"' % SPAN_KIND_INTERNAL,
        b'","attributes":[' + b",".join([_fragment(pair) for pair in attrs]) + b",",
        b","
        + _fragment(("agentloop.run.reason", reason))
        + b","
        + _key_prefix("agentloop.run.turns")
        + b'{"intValue":"',
    )
    if len(_AGENT_PARTS) > 20_000:
        _AGENT_PARTS.clear()
    _AGENT_PARTS[key] = parts
    return parts


def _agent_json(ctx: _JsonContext, run: Run) -> tuple[_Order, bytes]:
    """``spans._agent_span`` written as ``_JsonContext`` writes it, from the parts runs share
    (``_agent_parts``), for a run that ended without a model error, a limit or forbidden
    labels; any other run's, and one ``_json`` would refuse, is made by ``_agent_span``."""
    outcome = run.outcome
    start, end, turns = run.start_time_unix_nano, run.end_time_unix_nano, run.turn_count
    usage = _usage_json(run.usage)
    if (
        outcome is None
        or outcome.reason == "model_error"
        or outcome.limit
        or outcome.forbidden
        or usage is None
        or not 0 <= start | end <= _UINT64_MAX  # both in 0..2^64-1
        or not _INT64_MIN <= turns <= _INT64_MAX
    ):
        return _agent_span(ctx, run)
    key = (
        ctx.conversation_id,
        ctx.agent_name,
        ctx.parent_span_id,
        run.provider,
        run.request_model,
        run.reason,
    )
    before, after, reason = _AGENT_PARTS.get(key) or _agent_parts(key)
    pair = (SESSION_LABELS, run.labels)
    labels = _FRAGMENTS.get(pair) or _fragment(pair)
    data = b'%s%s%s%d","endTimeUnixNano":"%d%s%s%s%d"}},%s]}' % (
        ctx.head,
        hexlify(ctx.run_id),
        before,
        start,
        end,
        after,
        usage,
        reason,
        turns,
        labels,
    )
    return (start, run.start_seq, 0, 0), data


def _turn_json(ctx: _JsonContext, run: Run, keyed: _Keyed[bytes]) -> None:
    """``spans._turn_spans`` written as ``_JsonContext`` writes each span, with the parts
    turns share written once (``_turn_parts``); a span ``_json`` would refuse is made by it."""
    conversation_id = ctx.conversation_id
    sha256 = loaded_sha256()
    ids = ctx.prefix + "chat/"
    head = ctx.head
    under = ctx.under_run
    add = keyed.append
    for t in run.turns:
        seq = t.seq
        start = t.start_time_unix_nano
        end = t.time_unix_nano
        usage = _usage_json(t.usage)
        if usage is None or not 0 <= start | end <= _UINT64_MAX:  # both in 0..2^64-1
            _turn_spans(ctx, _one_turn(run, t), keyed)
            continue
        hx = hexlify(sha256(f"{ids}{seq}/0".encode()).digest()[:8])
        if hx == _ZERO_HEX:
            hx = _ONE_HEX
        key = (conversation_id, t.provider, t.request_model, t.model, t.stop)
        before, after = _TURN_PARTS.get(key) or _turn_parts(key)
        data = b'%s%s%s%s%d","endTimeUnixNano":"%d%s%s]}' % (
            head,
            hx,
            under,
            before,
            start,
            end,
            after,
            usage,
        )
        add(((start, seq, 1, 0), data))


def _tool_json(ctx: _JsonContext, run: Run, keyed: _Keyed[bytes]) -> None:
    """``spans._tool_spans`` written as ``_JsonContext`` writes each span, with the parts
    tool calls share written once (``_tool_parts``, ``_tool_tail``); the calls a tool made,
    and a span ``_json`` would refuse, are made by ``_tool_spans``."""
    conversation_id = ctx.conversation_id
    sha256 = loaded_sha256()
    ids = ctx.prefix + "execute_tool/"
    head = ctx.head
    under = ctx.under_run
    add = keyed.append
    dumps = orjson.dumps
    for c in run.tool_calls:
        start, end = c.start_time_unix_nano, c.end_time_unix_nano
        usages = [_usage_json(m.usage) for m in c.model_calls] if c.model_calls else None
        if not 0 <= start | end <= _UINT64_MAX or (  # both times in 0..2^64-1
            usages is not None and None in usages
        ):
            _tool_spans(ctx, _one_call(run, c), keyed)  # which raises
            continue
        # a call settled by a later run is keyed on that run's tool_result (index 0)
        if c.resumed and c.result_seq is not None:
            key_seq, key_index = c.result_seq, 0
        else:
            key_seq, key_index = c.open_seq, c.open_index
        hx = hexlify(sha256(f"{ids}{key_seq}/{key_index}".encode()).digest()[:8])
        if hx == _ZERO_HEX:
            hx = _ONE_HEX
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
        key = (conversation_id, c.tool)
        before, after = _TOOL_PARTS.get(key) or _tool_parts(key)
        tail_key = (error, c.verdict, c.labels, c.resumed)
        tail = _TOOL_TAILS.get(tail_key) or _tool_tail(tail_key)
        data = b'%s%s%s%s%d","endTimeUnixNano":"%d%s%s%s' % (
            head,
            hx,
            under,
            before,
            start,
            end,
            after,
            dumps(c.call_id),
            tail,
        )
        add(((start, key_seq, 2, key_index), data))
        if usages is not None:
            _tool_chat_json(ctx, c, cast(list[bytes], usages), hx, start, keyed)


def _tool_chat_json(
    ctx: _JsonContext,
    c: ToolCallRecord,
    usages: list[bytes],
    tool_hex: bytes,
    start: int,
    keyed: _Keyed[bytes],
) -> None:
    """The ``chat`` spans of the model calls a tool made (``spans._tool_spans``), under its
    ``execute_tool`` span (``tool_hex``), written as ``_JsonContext`` writes each; ``usages``:
    their token counts (``_usage_json``)."""
    conversation_id = ctx.conversation_id
    result_seq = c.result_seq if c.result_seq is not None else c.open_seq
    ids = f"{ctx.prefix}tool_chat/{result_seq}/"
    head = ctx.head
    under = b'","parentSpanId":"' + tool_hex + b'","name":'
    end = c.end_time_unix_nano
    sha256 = loaded_sha256()
    for m, usage in zip(c.model_calls, usages, strict=True):
        hx = hexlify(sha256(f"{ids}{m.index}".encode()).digest()[:8])
        if hx == _ZERO_HEX:
            hx = _ONE_HEX
        key = (conversation_id, "", m.model, m.model, "")
        before, after = _TURN_PARTS.get(key) or _turn_parts(key)
        data = b'%s%s%s%s%d","endTimeUnixNano":"%d%s%s]}' % (
            head,
            hx,
            under,
            before,
            start,
            end,
            after,
            usage,
        )
        keyed.append(((start, result_seq, 3, m.index), data))


def _one_turn(run: Run, turn: Turn) -> Run:
    """``run`` with only ``turn``: what ``_turn_spans`` makes its span of."""
    from dataclasses import replace

    return replace(run, turns=(turn,))


def _one_call(run: Run, call: ToolCallRecord) -> Run:
    """``run`` with only the tool call ``call``: what ``_tool_spans`` makes its spans of."""
    from dataclasses import replace

    return replace(run, tool_calls=(call,))


def run_json(
    run: Run, options: tuple[str, bytes | None, bytes | None, str | None, bool]
) -> tuple[list[bytes], int]:
    """The spans of a run as OTLP/JSON, in order (those of ``_run_spans``, written as
    ``_span_json`` writes them), and which is its ``invoke_agent`` span (the first).
    ``options``: the conversation id, parent trace and span ids, agent name and
    ``error_messages``, checked. ``spans.run_items`` with the spans of runs, turns and tool
    calls written by ``_agent_json``, ``_turn_json`` and ``_tool_json``."""
    ctx = _JsonContext(run, *options)
    agent = _agent_json(ctx, run)
    keyed: _Keyed[bytes] = [agent]
    _turn_json(ctx, run, keyed)
    _failed_spans(ctx, run, keyed)
    _tool_json(ctx, run, keyed)
    keyed.sort(key=_FIRST)
    # (the one item that is the agent's: list.index tells it by identity first)
    return list(map(_SECOND, keyed)), keyed.index(agent)


#: What the first batch of spans writes beyond a comma before its first span (``,"spans":[``).
_SPANS_KEY_EXTRA = len(b',"spans":[') - 1


class Envelope:
    """Writes one ``ExportTraceServiceRequest`` around spans given as they come (see
    ``write_otlp_json``): the head when made, the spans in batches of up to ``WRITE_BYTES``
    (more only for one run's spans: ``sessiontools._pieces``), the tail on ``close()``."""

    def __init__(self, write: Callable[[bytes], object], service_name: str) -> None:
        self._write = write
        self._batch: list[bytes] = []
        self._held = 0  # the batch's spans' bytes, each with a comma before it
        self._first = True
        resource = b'{"attributes":[' + _fragment(("service.name", service_name)) + b"]}"
        scope = orjson.dumps({"name": "sessiontools", "version": __version__})
        write(b'{"resourceSpans":[{"resource":' + resource + b',"scopeSpans":[{"scope":' + scope)

    def spans(self, spans: Iterable[Span]) -> None:
        for span in spans:
            self.encoded([_span_json(span)])

    def encoded(self, spans: list[bytes]) -> None:
        """Spans already written as OTLP/JSON (``run_json``): added to the batch, which is
        written first if they would take it past ``WRITE_BYTES``."""
        size = sum(map(len, spans)) + len(spans)  # with their commas
        room = WRITE_BYTES - _SPANS_KEY_EXTRA if self._first else WRITE_BYTES
        if self._held + size > room:
            self._flush()
        self._batch += spans
        self._held += size

    def _flush(self) -> None:
        if self._batch:
            self._write((b',"spans":[' if self._first else b",") + b",".join(self._batch))
            self._first = False
            self._batch.clear()
            self._held = 0

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
    envelope = Envelope(write, service_name)
    envelope.spans(spans)
    envelope.close()


def encode_otlp_json(spans: Iterable[Span], *, service_name: str = "agentloop") -> bytes:
    """``write_otlp_json`` into bytes: one line of OTLP/JSON ending in ``\\n``."""
    out = bytearray()
    write_otlp_json(spans, out.extend, service_name=service_name)
    return bytes(out)
