"""Entries back to bytes: JSON written the way agentloop's Go code writes it (``encoding/json``),
the first stage in the other direction, for the session library's stores and ``SessionBuilder``.

What Go's encoder does, as Go's source confirms (docs/session-library.md, "Writing what Go
writes"):

- a struct's fields in declaration order; ``omitempty`` fields dropped when empty; a map's
  keys sorted;
- strings: ``"`` and ``\\`` escaped, ``\\n``, ``\\r``, ``\\t``, ``\\b``, ``\\f`` as such, other
  control characters as ``\\u00XX``; ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\u003c``,
  ``\\u003e``, ``\\u0026``, ``\\u2028``, ``\\u2029`` (HTML-safe escaping is on by default);
  invalid UTF-8 (here: a lone surrogate in a ``str``) as ``\\ufffd``; everything else as UTF-8;
- ``time.Time`` as RFC 3339 with up to nine fractional digits (``format_rfc3339``);
- floats in the shortest form that reads back, positional unless the exponent is below -6 or
  at least 21;
- a ``json.RawMessage`` copied through compacted, with ``<``, ``>``, ``&``, U+2028 and U+2029
  escaped as in strings (``compact(..., escapeHTML)`` in Go's ``encode.go``); invalid UTF-8 and
  escaped lone surrogates inside it pass through unchanged.

``encode_entry`` writes one ``Entry`` as the log line Go would write for it (without the
``\\n``). Tool inputs and provider data are written from their parsed value; that gives Go's
bytes for any input Go itself wrote, except for numbers whose text a parse does not keep
(``1.0`` reads back as ``1``). A ``RawJSON`` value is written exactly as given: use it for bytes
that are already what Go writes, or to reproduce what an earlier agentloop logged verbatim.

Exact round trip: an entry read with ``LogReader(..., exact=True)`` is written as Go writes
the entry it read (``json.Unmarshal`` then ``json.Marshal``), byte for byte:

- a tool call's ``input`` and a provider's ``native.data`` from their kept text
  (``input_json``, ``data_json``), compacted and escaped as Go writes a ``json.RawMessage``; a
  kept text must read back as the value beside it, else ``ValueError`` (a value changed with
  ``dataclasses.replace`` and its text left behind);
- a name given twice in one object read as Go reads it: merged (``sessiontools._log.gomerge``);
- Go's nil slices and maps (``NIL``, ``NIL_MAP``) as ``null``, empty ones as ``[]`` and ``{}``;
- every time with the UTC offset it was read with;
- unknown fields dropped, as Go drops them. An entry of an unknown type keeps its payload
  (Go would drop it): sessiontools does not lose what a newer agentloop wrote.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, TypeVar

import orjson

from .content import (
    CallStartedEntry,
    DecisionEntry,
    Display,
    Message,
    MessageEntry,
    ModelUsage,
    Part,
    Source,
    ToolResult,
    ToolResultEntry,
    UnknownEntry,
)
from .decode import PAYLOAD_TYPES
from .entries import (
    NIL,
    NIL_MAP,
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
from .rawjson import go_compact, go_text, loads
from .times import format_rfc3339

__all__ = ["RawJSON", "dumps", "encode_entry"]

T = TypeVar("T")


class RawJSON(bytes):
    """JSON bytes written exactly as they are (Go's ``json.RawMessage``, already compacted)."""


_ESCAPE = re.compile(r'["\\\x00-\x1f<>&\u2028\u2029\ud800-\udfff]')
_SURROGATES = str.maketrans({c: "\ufffd" for c in range(0xD800, 0xE000)})
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    short = _SHORT.get(c)
    if short is not None:
        return short
    code = ord(c)
    if 0xD800 <= code <= 0xDFFF:
        return "\\ufffd"
    return f"\\u{code:04x}"


def _string_checked(s: str) -> str:
    """``s`` as Go writes a string, character by character (the rules in the docstring)."""
    return '"' + _ESCAPE.sub(_escape, s) + '"'


def _string(s: str) -> str:
    """``s`` as Go writes a string. orjson escapes what Go escapes, the same way (``\\"``,
    ``\\\\``, ``\\n``, ``\\r``, ``\\t``, ``\\b``, ``\\f``, other control characters as
    ``\\u00xx``), but for the HTML-safe ones, added here; a lone surrogate, which orjson
    refuses, goes the slow way."""
    if _ESCAPE.search(s) is None:
        return '"' + s + '"'
    try:
        text = orjson.dumps(s).decode()
    except orjson.JSONEncodeError:
        return _string_checked(s)
    if "<" in text or ">" in text or "&" in text:
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    if "\u2028" in text or "\u2029" in text:
        text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text


def _float(f: float) -> str:
    # Go: strconv.AppendFloat(f, 'f' or 'e', -1, 64), 'e' when |f| < 1e-6 or |f| >= 1e21, then
    # "e-07" shortened to "e-7". Python's repr gives the same shortest digits.
    if math.isnan(f) or math.isinf(f):
        raise ValueError(f"JSON has no {f}")
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        text = repr(f)
        if len(text) >= 4 and text[-4:-1] == "e-0":
            text = text[:-2] + text[-1]
        return text
    text = format(Decimal(repr(f)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


_END: Any = object()


def _value(v: Any, out: list[str]) -> None:
    """Append ``v`` (parsed JSON, ``RawJSON`` inside it allowed) as Go writes it; without
    recursion, so that a value as deep as Go reads (10,000 levels) is written too."""
    # One frame per open container: [its items or members, whether it is a mapping, first].
    stack: list[list[Any]] = []
    while True:
        if v is None:
            out.append("null")
        elif isinstance(v, RawJSON):
            if v.find(b"\n") >= 0:
                raise ValueError("a RawJSON value holds a line break, which would end the log line")
            out.append(v.decode("utf-8", "surrogateescape"))
        elif isinstance(v, str):
            out.append(_string(v))
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int):
            out.append(str(v))
        elif isinstance(v, float):
            out.append(_float(v))
        elif isinstance(v, Mapping):
            # A parsed JSON object keeps its order, as Go's RawMessage keeps its bytes.
            out.append("{")
            stack.append([iter(v.items()), True, True])
        elif isinstance(v, list | tuple):
            out.append("[")
            stack.append([iter(v), False, True])
        else:
            raise TypeError(f"cannot write {type(v).__name__} as JSON")
        # The next value to write: the next item of the innermost open container.
        while stack:
            frame = stack[-1]
            item: Any = next(frame[0], _END)
            if item is _END:
                out.append("}" if frame[1] else "]")
                stack.pop()
                continue
            if frame[2]:
                frame[2] = False
            else:
                out.append(",")
            if frame[1]:
                key, v = item
                out.append(_string(key))
                out.append(":")
            else:
                v = item
            break
        else:
            return


def _same_json(a: Any, b: Any) -> bool:
    """Whether two parsed JSON values are the same JSON: ``==``, but ``True`` is not ``1``
    and ``1`` is not ``1.0``; key order does not count."""
    try:  # the quick way: orjson writes True, 1 and 1.0 differently
        return orjson.dumps(a, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            b, option=orjson.OPT_SORT_KEYS
        )
    except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, a big integer, deep
        return _same_values(a, b)


def _same_values(a: Any, b: Any) -> bool:
    """``_same_json`` without orjson, and without recursion (any depth)."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def dumps(value: Any) -> bytes:
    """``value`` (parsed JSON, ``RawJSON`` inside it allowed) as Go's encoder writes it."""
    out: list[str] = []
    _value(value, out)
    return "".join(out).encode("utf-8", "surrogateescape")


# Entries: each Go struct's fields in declaration order, with its omitempty rules.


class _Obj:
    """An object being written, field by field."""

    __slots__ = ("first", "out")

    def __init__(self, out: list[str]) -> None:
        self.out = out
        self.first = True
        out.append("{")

    def key(self, name: str) -> list[str]:
        self.out.append(f'"{name}":' if self.first else f',"{name}":')
        self.first = False
        return self.out

    def string(self, name: str, v: str, omitempty: bool = False) -> None:
        if v or not omitempty:
            self.key(name).append(_string(v))

    def integer(self, name: str, v: int, omitempty: bool = False) -> None:
        if v or not omitempty:
            self.key(name).append(str(v))

    def boolean(self, name: str, v: bool, omitempty: bool = False) -> None:
        if v or not omitempty:
            self.key(name).append("true" if v else "false")

    def strings(self, name: str, v: tuple[str, ...], omitempty: bool = False) -> None:
        if v:
            self.key(name).append("[" + ",".join(_string(s) for s in v) + "]")
        elif not omitempty:
            self.key(name).append("null" if v is NIL else "[]")

    def raw(self, name: str, v: Any, text: bytes | None, what: str) -> None:
        if text is None:
            _value(v, self.key(name))
            return
        try:
            parsed = loads(text)
        except ValueError:
            raise ValueError(f"{what} is not JSON") from None
        if not _same_json(parsed, v):
            raise ValueError(f"{what} does not read back as the value beside it")
        if go_text(parsed) != text:  # not already as Go writes it: compact it as Go does
            text = go_compact(text)
        self.key(name).append(text.decode("utf-8", "surrogateescape"))

    def array(self, name: str, items: Sequence[T], write: Callable[[T, list[str]], None]) -> None:
        out = self.key(name)
        if items is NIL:
            out.append("null")
            return
        out.append("[")
        for i, item in enumerate(items):
            if i:
                out.append(",")
            write(item, out)
        out.append("]")

    def end(self) -> None:
        self.out.append("}")


def _usage(u: Usage, out: list[str]) -> None:
    o = _Obj(out)
    o.integer("input_tokens", u.input_tokens)
    o.integer("output_tokens", u.output_tokens)
    o.integer("cache_read_tokens", u.cache_read_tokens, omitempty=True)
    o.integer("cache_write_tokens", u.cache_write_tokens, omitempty=True)
    o.end()


def _result(r: ToolResult, out: list[str]) -> None:
    o = _Obj(out)
    o.string("call_id", r.call_id)
    o.string("content", r.content)
    o.boolean("is_error", r.is_error, omitempty=True)
    o.end()


def _part(p: Part, out: list[str]) -> None:
    o = _Obj(out)
    o.string("type", p.type)
    o.string("text", p.text, omitempty=True)
    if p.tool_call is not None:
        c = _Obj(o.key("tool_call"))
        c.string("id", p.tool_call.id)
        c.string("name", p.tool_call.name)
        c.raw("input", p.tool_call.input, p.tool_call.input_json, "ToolCall.input_json")
        c.end()
    if p.tool_result is not None:
        _result(p.tool_result, o.key("tool_result"))
    o.end()


def _message(m: Message, out: list[str]) -> None:
    o = _Obj(out)
    o.string("role", m.role)
    o.array("parts", m.parts, _part)
    if m.native is not None:
        n = _Obj(o.key("native"))
        n.string("provider", m.native.provider)
        n.string("model", m.native.model)
        n.raw("data", m.native.data, m.native.data_json, "Native.data_json")
        n.end()
    o.end()


def _model_error(e: ModelError, out: list[str]) -> None:
    o = _Obj(out)
    o.string("kind", e.kind)
    o.integer("status", e.status, omitempty=True)
    o.string("message", e.message)
    if e.retry_after_unix_nano is not None:
        text = format_rfc3339(e.retry_after_unix_nano, e.retry_after_utc_offset_seconds)
        o.key("retry_after").append(_string(text))
    if e.resets_at_unix_nano is not None:
        text = format_rfc3339(e.resets_at_unix_nano, e.resets_at_utc_offset_seconds)
        o.key("resets_at").append(_string(text))
    o.end()


def _source(s: Source, out: list[str]) -> None:
    o = _Obj(out)
    o.string("title", s.title)
    o.string("ref", s.ref)
    o.end()


def _string_map(m: Mapping[str, str], out: list[str]) -> None:
    """A ``map[string]string`` as Go writes it: each key escaped exactly as a string is, in
    the order of the keys' bytes (a lone surrogate, written as U+FFFD, sorts as U+FFFD)."""
    keys = {k.translate(_SURROGATES): k for k in m}
    if len(keys) != len(m):
        raise ValueError(
            "two keys of one map are the same once written (a lone surrogate is written as "
            "U+FFFD, like that character itself)"
        )
    out.append("{")
    for i, key in enumerate(sorted(keys)):  # code point order is UTF-8's byte order
        if i:
            out.append(",")
        original = keys[key]
        out.append(_string(original))
        out.append(":")
        out.append(_string(m[original]))
    out.append("}")


def _model_usage(mu: ModelUsage, out: list[str]) -> None:
    o = _Obj(out)
    o.string("model", mu.model)
    _usage(mu.usage, o.key("usage"))
    o.end()


def _refusal(r: Refusal, out: list[str]) -> None:
    o = _Obj(out)
    o.string("call_id", r.call_id)
    o.string("tool", r.tool)
    o.strings("labels", r.labels)
    o.end()


def _display(d: Display, out: list[str]) -> None:
    o = _Obj(out)
    o.string("title", d.title)
    o.string("body", d.body)
    o.strings("labels", d.labels)
    o.array("sources", d.sources, _source)
    o.string("ref", d.ref, omitempty=True)
    o.end()


def _payload(p: object, out: list[str]) -> None:
    if isinstance(p, UnknownEntry):
        if p.data_json is not None:
            out.append(p.data_json.decode("utf-8", "surrogateescape"))
        else:
            _value(p.data, out)
        return
    o = _Obj(out)
    if isinstance(p, RunStartedEntry):
        o.string("prompt", p.prompt, omitempty=True)
    elif isinstance(p, MessageEntry):
        _message(p.message, o.key("message"))
        o.string("stop", p.stop, omitempty=True)
        _usage(p.usage, o.key("usage"))
        o.string("model", p.model, omitempty=True)
        o.string("refusal", p.refusal, omitempty=True)
    elif isinstance(p, DecisionEntry):
        o.string("call_id", p.call_id)
        o.string("tool", p.tool)
        o.string("verdict", p.verdict)
        o.string("reason", p.reason, omitempty=True)
        o.strings("labels", p.labels, omitempty=True)
    elif isinstance(p, CallStartedEntry):
        o.string("call_id", p.call_id)
    elif isinstance(p, ToolResultEntry):
        _result(p.result, o.key("result"))
        o.strings("labels", p.labels, omitempty=True)
        o.string("log", p.log, omitempty=True)
        if p.usage:
            o.array("usage", p.usage, _model_usage)
        if p.display is not None:
            _display(p.display, o.key("display"))
    elif isinstance(p, ModelErrorEntry):
        _model_error(p.error, o.key("error"))
        o.boolean("retry", p.retry)
        o.integer("wait_ms", p.wait_ms, omitempty=True)
    elif isinstance(p, Outcome):
        o.string("reason", p.reason)
        o.string("text", p.text, omitempty=True)
        if p.error is not None:
            _model_error(p.error, o.key("error"))
        o.string("limit", p.limit, omitempty=True)
        o.strings("forbidden", p.forbidden, omitempty=True)
        if p.refused:
            o.array("refused", p.refused, _refusal)
        o.integer("turns", p.turns)
        _usage(p.usage, o.key("usage"))
    elif isinstance(p, LabelsEntry):
        o.strings("labels", p.labels)
        o.string("source", p.source, omitempty=True)
    elif isinstance(p, PinsEntry):
        pins = o.key("pins")
        if p.pins is NIL_MAP:
            pins.append("null")
            o.end()
            return
        _string_map(p.pins, pins)
    else:
        raise TypeError(f"not an entry payload: {type(p).__name__}")
    o.end()


_KNOWN_TYPES = frozenset(PAYLOAD_TYPES.values())


def _check_type(entry: Entry) -> None:
    payload = entry.payload
    if isinstance(payload, UnknownEntry):
        if entry.type != payload.type or entry.type in _KNOWN_TYPES:
            raise ValueError(
                f"entry {entry.seq}: an UnknownEntry of type {payload.type!r} in an entry of "
                f"type {entry.type!r}; an entry of a known type needs its own payload class"
            )
        return
    expected = PAYLOAD_TYPES.get(type(payload))
    if expected is None:
        raise TypeError(f"entry {entry.seq}: not an entry payload: {type(payload).__name__}")
    if entry.type != expected:
        raise ValueError(
            f"entry {entry.seq}: type {entry.type!r} but a {type(payload).__name__} payload, "
            f"which is written as type {expected!r}"
        )


def encode_entry(entry: Entry) -> bytes:
    """The log line Go writes for ``entry``, without the trailing ``\\n``.

    Field order and omitted empty fields follow agentloop's Go struct tags; the time keeps the
    entry's UTC offset.

    Raises:
        ValueError: ``entry.type`` is not the type its payload is written as (``Outcome`` is
            ``run_ended``; an ``UnknownEntry``'s type is its own, and not a known one), or a
            kept raw JSON text does not read back as the value beside it.
        TypeError: the payload, or a value inside it, cannot be written.
    """
    _check_type(entry)
    out = [
        '{"seq":',
        str(entry.seq),
        ',"time":',
        _string(format_rfc3339(entry.time_unix_nano, entry.utc_offset_seconds)),
        ',"type":',
        _string(entry.type),
    ]
    payload = entry.payload
    if not (
        isinstance(payload, UnknownEntry) and payload.data is None and payload.data_json is None
    ):
        # (an unknown entry without a payload is written without one, as it was read)
        out += [",", _string(entry.type), ":"]
        _payload(payload, out)
    out.append("}")
    return "".join(out).encode("utf-8", "surrogateescape")
