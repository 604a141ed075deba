"""Parsed log lines to entries: ``decode_entry`` is the only place that knows the JSON shapes of
agentloop's entries; part of the first stage (bytes -> entries), called by the reader.

- A line that is not a usable entry (a field of the wrong JSON type, a payload missing, a time
  that is not RFC 3339) is a ``BadEntry``, which the reader reports as an ``EntryError``; so is
  an integer outside signed 64 bits, as Go refuses it.
- An unknown entry type or field is reported (``on_unknown``) and kept (docs/reading.md,
  "Newer agentloop versions").
- The entry types of most lines have fast decoders, which check only what they take and defer
  to the checked decoders next to them for anything else.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

from .._fast import fast_maker
from .entries import (
    NIL,
    NIL_MAP,
    ZERO_USAGE,
    CallStartedEntry,
    DecisionEntry,
    Display,
    Entry,
    LabelsEntry,
    Message,
    MessageEntry,
    ModelError,
    ModelErrorEntry,
    ModelUsage,
    Native,
    Outcome,
    Part,
    PinsEntry,
    Refusal,
    RunStartedEntry,
    Source,
    ToolCall,
    ToolResult,
    ToolResultEntry,
    UnknownEntry,
    Usage,
    _new_usage,
)
from .times import ZERO_TIME_UNIX_NANO, parse_rfc3339


class BadEntry(Exception):
    """A complete JSON line that is not a usable entry; the reader adds file and line."""


_new_tool_call = fast_maker(ToolCall)


_new_tool_result = fast_maker(ToolResult)


_new_part = fast_maker(Part)


_new_native = fast_maker(Native)


_new_message = fast_maker(Message)


_new_model_usage = fast_maker(ModelUsage)


_new_model_error = fast_maker(ModelError)


_new_run_started = fast_maker(RunStartedEntry)


_new_message_entry = fast_maker(MessageEntry)


_new_decision = fast_maker(DecisionEntry)


_new_call_started = fast_maker(CallStartedEntry)


_new_tool_result_entry = fast_maker(ToolResultEntry)


_new_model_error_entry = fast_maker(ModelErrorEntry)


_new_outcome = fast_maker(Outcome)


_new_labels = fast_maker(LabelsEntry)


_new_entry = fast_maker(Entry)


def _kind(v: object) -> str:
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return "null"


def _str(d: dict[str, Any], key: str, ctx: str) -> str:
    v = d.get(key)
    if v.__class__ is str:
        return v
    if v is None:
        return ""
    raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not a string")


# Go's int and int64: agentloop's integers (seq, token counts, turns, wait_ms, status). Go's
# decoder refuses a number outside them ("cannot unmarshal number ... into ... int64"); orjson
# reads up to 2^64-1 as an int, and Python's json (for odd bytes) any size.
INT64_MIN = -(2**63)


INT64_MAX = 2**63 - 1


def _out_of_range(where: str, v: int | float) -> BadEntry:
    return BadEntry(
        f"{where} is {v}, outside a signed 64-bit integer ({INT64_MIN} to {INT64_MAX}), "
        "which agentloop's own reader refuses"
    )


def _not_an_integer(where: str, v: object) -> BadEntry:
    """``where`` is ``v``, which is no integer agentloop takes: a whole number past 2^64-1
    (which orjson reads as a float: ``18446744073709551616`` is ``1.8446744073709552e+19``) is
    out of range; anything else is not an integer."""
    whole = isinstance(v, float) and math.isfinite(v) and v.is_integer()
    if whole and not INT64_MIN <= v <= INT64_MAX:  # type: ignore[operator]
        return _out_of_range(where, v)  # type: ignore[arg-type]
    return BadEntry(f"{where} is {_kind(v)}, not an integer")


def _int(d: dict[str, Any], key: str, ctx: str) -> int:
    v = d.get(key)
    if v.__class__ is int:
        if INT64_MIN <= v <= INT64_MAX:
            return v
        raise _out_of_range(f"{ctx}.{key}", v)
    if v is None:
        return 0
    raise _not_an_integer(f"{ctx}.{key}", v)


def _bool(d: dict[str, Any], key: str, ctx: str) -> bool:
    v = d.get(key)
    if v.__class__ is bool:
        return v
    if v is None:
        return False
    raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not a boolean")


def _obj(d: dict[str, Any], key: str, ctx: str) -> dict[str, Any] | None:
    v = d.get(key)
    if v.__class__ is dict:
        return v
    if v is None:
        return None
    raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not an object")


def _list(d: dict[str, Any], key: str, ctx: str) -> list[Any]:
    v = d.get(key)
    if v.__class__ is list:
        return v
    if v is None:
        return []
    raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not an array")


def _labels(d: dict[str, Any], key: str, ctx: str) -> tuple[str, ...]:
    v = d.get(key)
    if v is None:
        return NIL
    if v.__class__ is list:
        nulls = False
        for label in v:
            if label.__class__ is not str:
                if label is not None:
                    raise BadEntry(f"{ctx}.{key} holds {_kind(label)}, not only strings")
                nulls = True
        # Go reads null into a zero string: ""
        return tuple("" if label is None else label for label in v) if nulls else tuple(v)
    raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not an array of strings")


def _time(d: dict[str, Any], key: str, ctx: str) -> tuple[int | None, int]:
    """An optional time (Go's ``omitzero``) and its UTC offset in seconds: ``(None, 0)`` when
    absent, null or Go's zero time."""
    v = d.get(key)
    if v is None:
        return None, 0
    if v.__class__ is not str:
        raise BadEntry(f"{ctx}.{key} is {_kind(v)}, not a time")
    try:
        unix_nano, offset = parse_rfc3339(v)
    except ValueError as e:
        raise BadEntry(f"{ctx}.{key}: {e}") from None
    return (None, 0) if unix_nano == ZERO_TIME_UNIX_NANO else (unix_nano, offset)


def _usage(d: dict[str, Any] | None, ctx: str) -> Usage:
    if d is None:
        return ZERO_USAGE
    return _new_usage(
        _int(d, "input_tokens", ctx),
        _int(d, "output_tokens", ctx),
        _int(d, "cache_read_tokens", ctx),
        _int(d, "cache_write_tokens", ctx),
    )


def _part(d: object, ctx: str) -> Part:
    if d is None:  # Go reads null into a zero Part
        d = {}
    if d.__class__ is not dict:
        raise BadEntry(f"{ctx} is {_kind(d)}, not an object")
    assert isinstance(d, dict)
    call = d.get("tool_call")
    tool_call = None
    if call is not None:
        if call.__class__ is not dict:
            raise BadEntry(f"{ctx}.tool_call is {_kind(call)}, not an object")
        c = ctx + ".tool_call"
        tool_call = _new_tool_call(
            _str(call, "id", c), _str(call, "name", c), call.get("input"), None
        )
    result = d.get("tool_result")
    tool_result = None
    if result is not None:
        if result.__class__ is not dict:
            raise BadEntry(f"{ctx}.tool_result is {_kind(result)}, not an object")
        tool_result = _result(result, ctx + ".tool_result")
    return _new_part(_str(d, "type", ctx), _str(d, "text", ctx), tool_call, tool_result)


def _result(d: dict[str, Any], ctx: str) -> ToolResult:
    return _new_tool_result(
        _str(d, "call_id", ctx), _str(d, "content", ctx), _bool(d, "is_error", ctx)
    )


def _message(d: dict[str, Any] | None, ctx: str) -> Message:
    if d is None:
        return _new_message("", NIL, None)
    native = _obj(d, "native", ctx)
    nat = None
    if native is not None:
        c = ctx + ".native"
        nat = _new_native(
            _str(native, "provider", c), _str(native, "model", c), native.get("data"), None
        )
    pc = ctx + ".parts"
    parts = NIL if d.get("parts") is None else tuple([_part(p, pc) for p in _list(d, "parts", ctx)])
    return _new_message(_str(d, "role", ctx), parts, nat)


def _model_error(d: dict[str, Any] | None, ctx: str) -> ModelError:
    if d is None:
        return _new_model_error("", "", 0, None, None, 0, 0)
    retry_after, retry_after_offset = _time(d, "retry_after", ctx)
    resets_at, resets_at_offset = _time(d, "resets_at", ctx)
    return _new_model_error(
        _str(d, "kind", ctx),
        _str(d, "message", ctx),
        _int(d, "status", ctx),
        retry_after,
        resets_at,
        retry_after_offset,
        resets_at_offset,
    )


def _model_usages(d: dict[str, Any], ctx: str) -> tuple[ModelUsage, ...]:
    out = []
    for u in _list(d, "usage", ctx):
        if u is None:  # Go reads null into a zero value
            u = {}
        if u.__class__ is not dict:
            raise BadEntry(f"{ctx}.usage holds {_kind(u)}, not objects")
        c = ctx + ".usage"
        out.append(_new_model_usage(_str(u, "model", c), _usage(_obj(u, "usage", c), c)))
    return tuple(out)


def _display(d: dict[str, Any] | None, ctx: str) -> Display | None:
    if d is None:
        return None
    sources = []
    for s in _list(d, "sources", ctx):
        if s is None:  # Go reads null into a zero value
            s = {}
        if s.__class__ is not dict:
            raise BadEntry(f"{ctx}.sources holds {_kind(s)}, not objects")
        sources.append(Source(_str(s, "title", ctx), _str(s, "ref", ctx)))
    return Display(
        _str(d, "title", ctx),
        _str(d, "body", ctx),
        _labels(d, "labels", ctx),
        NIL if d.get("sources") is None else tuple(sources),
        _str(d, "ref", ctx),
    )


def _run_started(d: dict[str, Any]) -> RunStartedEntry:
    return _new_run_started(_str(d, "prompt", "run_started"))


def _message_entry(d: dict[str, Any]) -> MessageEntry:
    ctx = "message"
    return _new_message_entry(
        _message(_obj(d, "message", ctx), "message.message"),
        _usage(_obj(d, "usage", ctx), "message.usage"),
        _str(d, "stop", ctx),
        _str(d, "model", ctx),
        _str(d, "refusal", ctx),
    )


def _decision(d: dict[str, Any]) -> DecisionEntry:
    ctx = "decision"
    return _new_decision(
        _str(d, "call_id", ctx),
        _str(d, "tool", ctx),
        _str(d, "verdict", ctx),
        _str(d, "reason", ctx),
        _labels(d, "labels", ctx),
    )


def _call_started(d: dict[str, Any]) -> CallStartedEntry:
    return _new_call_started(_str(d, "call_id", "call_started"))


def _tool_result(d: dict[str, Any]) -> ToolResultEntry:
    ctx = "tool_result"
    result = _obj(d, "result", ctx)
    return _new_tool_result_entry(
        _result(result, "tool_result.result") if result is not None else ToolResult("", ""),
        _labels(d, "labels", ctx),
        _str(d, "log", ctx),
        _model_usages(d, ctx),
        _display(_obj(d, "display", ctx), "tool_result.display"),
    )


def _model_error_entry(d: dict[str, Any]) -> ModelErrorEntry:
    ctx = "model_error"
    return _new_model_error_entry(
        _model_error(_obj(d, "error", ctx), "model_error.error"),
        _bool(d, "retry", ctx),
        _int(d, "wait_ms", ctx),
    )


def decode_outcome(d: dict[str, Any], ctx: str = "run_ended") -> Outcome:
    """An ``Outcome`` from its parsed JSON (a ``run_ended`` payload or a transcript's last line).

    Raises:
        BadEntry: a field has the wrong JSON type.
    """
    refused = []
    for r in _list(d, "refused", ctx):
        if r is None:  # Go reads null into a zero value
            r = {}
        if r.__class__ is not dict:
            raise BadEntry(f"{ctx}.refused holds {_kind(r)}, not objects")
        c = ctx + ".refused"
        refused.append(Refusal(_str(r, "call_id", c), _str(r, "tool", c), _labels(r, "labels", c)))
    error = _obj(d, "error", ctx)
    return _new_outcome(
        _str(d, "reason", ctx),
        _int(d, "turns", ctx),
        _usage(_obj(d, "usage", ctx), ctx + ".usage"),
        _str(d, "text", ctx),
        _model_error(error, ctx + ".error") if error is not None else None,
        _str(d, "limit", ctx),
        _labels(d, "forbidden", ctx),
        tuple(refused),
    )


def _labels_entry(d: dict[str, Any]) -> LabelsEntry:
    return _new_labels(_labels(d, "labels", "labels"), _str(d, "source", "labels"))


def _pins(d: dict[str, Any]) -> PinsEntry:
    pins = _obj(d, "pins", "pins")
    if pins is None:
        return PinsEntry(NIL_MAP)
    for k, v in pins.items():
        if v.__class__ is not str and v is not None:
            raise BadEntry(f"pins.pins[{k!r}] is {_kind(v)}, not a string")
    # Go reads null into a zero string: ""
    return PinsEntry(MappingProxyType({k: "" if v is None else v for k, v in pins.items()}))


def _fast_usage(u: dict[str, Any]) -> Usage | None:
    i = u.get("input_tokens", 0)
    o = u.get("output_tokens", 0)
    r = u.get("cache_read_tokens", 0)
    w = u.get("cache_write_tokens", 0)
    if (
        i.__class__ is int
        and o.__class__ is int
        and r.__class__ is int
        and w.__class__ is int
        and INT64_MIN <= i <= INT64_MAX
        and INT64_MIN <= o <= INT64_MAX
        and INT64_MIN <= r <= INT64_MAX
        and INT64_MIN <= w <= INT64_MAX
    ):
        return _new_usage(i, o, r, w) if i or o or r or w else ZERO_USAGE
    return None  # the checked decoder says what is wrong


def _fast_message(m: dict[str, Any]) -> Message | None:
    role = m.get("role")
    parts = m.get("parts")
    native = m.get("native")
    if role.__class__ is not str or parts.__class__ is not list:
        return None
    out = []
    for p in parts:
        if p.__class__ is not dict:
            return None
        ptype = p.get("type")
        text = p.get("text", "")
        call = p.get("tool_call")
        if ptype.__class__ is not str or text.__class__ is not str or "tool_result" in p:
            return None
        if call is None:
            out.append(_new_part(ptype, text, None, None))
            continue
        if call.__class__ is not dict:
            return None
        call_id = call.get("id")
        name = call.get("name")
        if call_id.__class__ is not str or name.__class__ is not str:
            return None
        out.append(
            _new_part(ptype, text, _new_tool_call(call_id, name, call.get("input"), None), None)
        )
    nat = None
    if native is not None:
        if native.__class__ is not dict:
            return None
        provider = native.get("provider")
        model = native.get("model")
        if provider.__class__ is not str or model.__class__ is not str:
            return None
        nat = _new_native(provider, model, native.get("data"), None)
    return _new_message(role, tuple(out), nat)


def _fast_message_entry(d: dict[str, Any]) -> MessageEntry:
    m = d.get("message")
    u = d.get("usage")
    stop = d.get("stop", "")
    model = d.get("model", "")
    refusal = d.get("refusal", "")
    if (
        m.__class__ is dict
        and u.__class__ is dict
        and stop.__class__ is str
        and model.__class__ is str
        and refusal.__class__ is str
    ):
        usage = _fast_usage(u)
        message = _fast_message(m)
        if usage is not None and message is not None:
            return _new_message_entry(message, usage, stop, model, refusal)
    return _message_entry(d)


def _fast_decision(d: dict[str, Any]) -> DecisionEntry:
    call_id = d.get("call_id")
    tool = d.get("tool")
    verdict = d.get("verdict")
    reason = d.get("reason", "")
    if (
        call_id.__class__ is str
        and tool.__class__ is str
        and verdict.__class__ is str
        and reason.__class__ is str
        and "labels" not in d
    ):
        return _new_decision(call_id, tool, verdict, reason, ())
    return _decision(d)


def _fast_call_started(d: dict[str, Any]) -> CallStartedEntry:
    call_id = d.get("call_id")
    if call_id.__class__ is str:
        return _new_call_started(call_id)
    return _call_started(d)


def _fast_tool_result(d: dict[str, Any]) -> ToolResultEntry:
    r = d.get("result")
    log = d.get("log", "")
    if r.__class__ is dict and log.__class__ is str and len(d) == 1 + ("log" in d):
        call_id = r.get("call_id")
        content = r.get("content", "")
        is_error = r.get("is_error", False)
        if call_id.__class__ is str and content.__class__ is str and is_error.__class__ is bool:
            return _new_tool_result_entry(
                _new_tool_result(call_id, content, is_error), (), log, (), None
            )
    return _tool_result(d)


_DECODERS = {
    "run_started": _run_started,
    "message": _fast_message_entry,
    "decision": _fast_decision,
    "call_started": _fast_call_started,
    "tool_result": _fast_tool_result,
    "model_error": _model_error_entry,
    "run_ended": decode_outcome,
    "labels": _labels_entry,
    "pins": _pins,
}


#: The entry type each payload class is written as (``Outcome`` is ``run_ended``); an
#: ``UnknownEntry`` carries its own.
PAYLOAD_TYPES: dict[type, str] = {
    RunStartedEntry: "run_started",
    MessageEntry: "message",
    DecisionEntry: "decision",
    CallStartedEntry: "call_started",
    ToolResultEntry: "tool_result",
    ModelErrorEntry: "model_error",
    Outcome: "run_ended",
    LabelsEntry: "labels",
    PinsEntry: "pins",
}


#: The JSON names each payload may hold, by entry type (agentloop's Go struct tags).
PAYLOAD_FIELDS: dict[str, frozenset[str]] = {
    "run_started": frozenset({"prompt"}),
    "message": frozenset({"message", "stop", "usage", "model", "refusal"}),
    "decision": frozenset({"call_id", "tool", "verdict", "reason", "labels"}),
    "call_started": frozenset({"call_id"}),
    "tool_result": frozenset({"result", "labels", "log", "usage", "display"}),
    "model_error": frozenset({"error", "retry", "wait_ms"}),
    "run_ended": frozenset(
        {"reason", "text", "error", "limit", "forbidden", "refused", "turns", "usage"}
    ),
    "labels": frozenset({"labels", "source"}),
    "pins": frozenset({"pins"}),
}


ENTRY_FIELDS = frozenset({"seq", "time", "type", *PAYLOAD_FIELDS})


def is_entry_shaped(obj: object) -> bool:
    """Whether a parsed line is meant as an entry: an object with ``seq`` and ``type``."""
    return obj.__class__ is dict and "seq" in obj and "type" in obj


def decode_entry(obj: dict[str, Any], line: int, on_unknown: Any) -> Entry:
    """Make an ``Entry`` from one parsed log line.

    Args:
        obj: the line's JSON object; ``is_entry_shaped(obj)`` must hold.
        line: the 1-based line number, kept on the entry for messages.
        on_unknown: called with a short description (``entry type "x"``, ``field
            message.foo``) for each unknown type or field, so the reader can warn once.

    Raises:
        BadEntry: the object is not a usable entry (an ``EntryError``: docs/reading.md, "Lines").
    """
    seq = obj["seq"]
    etype = obj["type"]
    text = obj.get("time")
    if seq.__class__ is not int:
        raise _not_an_integer("seq", seq)
    if not INT64_MIN <= seq <= INT64_MAX:
        raise _out_of_range("seq", seq)
    if etype.__class__ is not str:
        raise BadEntry(f"type is {_kind(etype)}, not a string")
    if text.__class__ is not str:
        raise BadEntry(f"time is {_kind(text)}, not an RFC 3339 time")
    try:
        time_unix_nano, offset = parse_rfc3339(text)
    except ValueError as e:
        raise BadEntry(str(e)) from None
    # seq, time, type and the payload: four names; more may be unknown ones.
    if len(obj) != 4 and not ENTRY_FIELDS.issuperset(obj):
        for k in obj:
            if k not in ENTRY_FIELDS and k != etype:  # an unknown type's own payload
                on_unknown(f"field {k!r}")
    decoder = _DECODERS.get(etype)
    if decoder is None:
        on_unknown(f"entry type {etype!r}")
        unknown = UnknownEntry(etype, obj.get(etype), None)
        return _new_entry(seq, time_unix_nano, etype, unknown, offset, line)
    data = obj.get(etype)
    if data.__class__ is not dict:
        raise BadEntry(f"a {etype} entry without its {etype!r} object")
    known = PAYLOAD_FIELDS[etype]
    if not known.issuperset(data):
        for k in data:
            if k not in known:
                on_unknown(f"field {etype}.{k}")
    return _new_entry(seq, time_unix_nano, etype, decoder(data), offset, line)
