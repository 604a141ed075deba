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
from typing import Any

import orjson

from .._log.entries import Usage
from .._model.runs import Run
from .._version import __version__
from .spans import (
    SCHEMA_URL,
    STATUS_CODE_UNSET,
    AttributeValue,
    Span,
    _add_usage,
    _RunContext,
    run_items,
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

    __slots__ = ("_head", "_under_run")

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
        self._head = b'{"traceId":"' + hexlify(self.trace_id) + b'","spanId":"'
        self._under_run = b'","parentSpanId":"' + hexlify(self.run_id) + b'","name":'

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
            under = self._under_run
        elif parent:
            under = b'","parentSpanId":"' + hexlify(parent) + b'","name":'
        else:
            under = b'","name":'
        head = self._head + hexlify(ident) + under
        return _json(head, name, kind, start, end, attrs, status_code, status_message)

    def add_usage(self, attrs: list[tuple[str, AttributeValue]], usage: Usage) -> None:
        """The token counts as ``_add_usage`` adds them, written already: one item of bytes
        in ``attrs``, which ``_json`` takes as it is. Counts ``_fragment`` refuses are added
        as pairs, for it to refuse."""
        read, write = usage.cache_read_tokens, usage.cache_write_tokens
        inclusive = usage.input_tokens + read + write  # inclusive_input_tokens
        output = usage.output_tokens
        if not (
            0 <= inclusive <= _INT64_MAX
            and 0 <= output <= _INT64_MAX
            and 0 <= read <= _INT64_MAX
            and 0 <= write <= _INT64_MAX
        ):
            _add_usage(attrs, usage)
            return
        if read:
            if write:
                data = _USAGE[3] % (inclusive, output, read, write)
            else:
                data = _USAGE[2] % (inclusive, output, read)
        elif write:
            data = _USAGE[1] % (inclusive, output, write)
        else:
            data = _USAGE[0] % (inclusive, output)
        attrs.append(data)  # type: ignore[arg-type]


def run_json(
    run: Run, options: tuple[str, bytes | None, bytes | None, str | None, bool]
) -> tuple[list[bytes], int]:
    """The spans of a run as OTLP/JSON, in order (those of ``_run_spans``, written as
    ``_span_json`` writes them), and which is its ``invoke_agent`` span. ``options``: the
    conversation id, parent trace and span ids, agent name and ``error_messages``, checked."""
    items = run_items(_JsonContext(run, *options), run)
    agent = next(i for i, (order, _) in enumerate(items) if order[2] == 0)
    return [data for _, data in items], agent


class Envelope:
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
            if len(batch) >= 256:
                self._flush()

    def encoded(self, spans: list[bytes]) -> None:
        """Spans already written as OTLP/JSON (``run_json``)."""
        batch = self._batch
        batch += spans
        if len(batch) >= 256:
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
    envelope = Envelope(write, service_name)
    envelope.spans(spans)
    envelope.close()


def encode_otlp_json(spans: Iterable[Span], *, service_name: str = "agentloop") -> bytes:
    """``write_otlp_json`` into bytes: one line of OTLP/JSON ending in ``\\n``."""
    out = bytearray()
    write_otlp_json(spans, out.extend, service_name=service_name)
    return bytes(out)
