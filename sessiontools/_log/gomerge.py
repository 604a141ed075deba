"""A name given twice in one object, read as Go's ``encoding/json`` reads it: part of the first
stage, for exact reads only (docs/session-library.md, "Exact round trip").

Go decodes a log line into agentloop's ``Entry`` (docs/reading.md, "The log format") member by
member, each into the field it names, *into what the field already holds*
(``decode.go``: ``object``, ``array``, ``literalStore``; checked against Go 1.19, which
``testdata/gocheck`` runs):

- an object into a struct, or into a pointer to one that is set, fills the fields it names
  and leaves the others: ``"usage":{"input_tokens":5},"usage":{"output_tokens":3}`` is one
  usage of 5 and 3; a pointer that is nil gets a new, zero struct;
- an object into a map adds its keys: ``"pins":{"a":"1"},"pins":{"b":"2"}`` is one map of
  two; each value is decoded into a zero value (so ``null`` is ``""``);
- an array into a slice decodes element *i* into what element *i* of the slice's storage
  holds (Go 1.19's ``array``: the length is set back, the storage kept while its capacity
  lasts, which grows to 4, then by half), and an empty array makes a new, empty slice:
  ``"parts":[A,B],"parts":[{"type":"x"}]`` is one part, A with type x;
- ``null`` sets a pointer, map or slice to nil, and changes nothing else (a string, a
  number, a struct, a time keep their value);
- a ``json.RawMessage`` (a tool call's ``input``, ``native.data``) and anything else takes
  the last value as it is; so does a name the struct does not have.

A value of the wrong JSON type for its field, wherever it is, makes Go refuse the line; so
does this (``BadEntry``), with the decoders' words. A name that differs from a field's only
in case goes to that field in Go and is an unknown name here (README, "Known limits").

Element by element into the storage means Go 1.19's capacities: a third array after a
shorter second one finds the first one's elements past the second's length (issue
golang/go#21092, open; a newer Go may grow the storage by other steps, and differ there).

``decode_exact`` is the exact reader's way from a parsed line to an ``Entry``. A line Go
wrote gives no name twice; counting the quotes that begin and end the line's strings against
the strings the parsed object holds (``repeats_a_name``) tells such a line apart exactly,
so only a line that repeats a name is parsed again, member by member
(``parse_json(..., pairs=True)``), and merged here. The plain reader (the exporters,
``read_session``) keeps the last of repeated names, as ``json.loads`` does: the count costs
a pass over every line, which it does not pay (README, "Known limits").
"""

from __future__ import annotations

from typing import Any

from .decode import BadEntry, decode_entry
from .entries import Entry
from .rawjson import Pairs, Path, RawTexts, find_raw, loads, parse_json, with_raw
from .times import parse_rfc3339

__all__ = ["decode_exact", "merge_entry", "repeats_a_name"]

# What each field of agentloop's types is. A struct is a dict of its fields' kinds; a slice
# is a one-element list of its element's kind.
_STR, _INT, _BOOL, _TIME, _RAW, _MAP = "string", "integer", "boolean", "time", "raw", "map"


class _Pointer:
    """A pointer to a struct: ``null`` makes it nil."""

    __slots__ = ("fields",)

    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields


_USAGE = {
    "input_tokens": _INT,
    "output_tokens": _INT,
    "cache_read_tokens": _INT,
    "cache_write_tokens": _INT,
}
_TOOL_RESULT = {"call_id": _STR, "content": _STR, "is_error": _BOOL}
_PART = {
    "type": _STR,
    "text": _STR,
    "tool_call": _Pointer({"id": _STR, "name": _STR, "input": _RAW}),
    "tool_result": _Pointer(_TOOL_RESULT),
}
_MESSAGE = {
    "role": _STR,
    "parts": [_PART],
    "native": _Pointer({"provider": _STR, "model": _STR, "data": _RAW}),
}
_MODEL_ERROR = {
    "kind": _STR,
    "status": _INT,
    "message": _STR,
    "retry_after": _TIME,
    "resets_at": _TIME,
}
_OUTCOME = {
    "reason": _STR,
    "text": _STR,
    "error": _Pointer(_MODEL_ERROR),
    "limit": _STR,
    "forbidden": [_STR],
    "refused": [{"call_id": _STR, "tool": _STR, "labels": [_STR]}],
    "turns": _INT,
    "usage": _USAGE,
}
_ENTRY = {
    "seq": _INT,
    "time": _TIME,
    "type": _STR,
    "run_started": _Pointer({"prompt": _STR}),
    "message": _Pointer(
        {"message": _MESSAGE, "stop": _STR, "usage": _USAGE, "model": _STR, "refusal": _STR}
    ),
    "decision": _Pointer(
        {"call_id": _STR, "tool": _STR, "verdict": _STR, "reason": _STR, "labels": [_STR]}
    ),
    "call_started": _Pointer({"call_id": _STR}),
    "tool_result": _Pointer(
        {
            "result": _TOOL_RESULT,
            "labels": [_STR],
            "log": _STR,
            "usage": [{"model": _STR, "usage": _USAGE}],
            "display": _Pointer(
                {
                    "title": _STR,
                    "body": _STR,
                    "labels": [_STR],
                    "sources": [{"title": _STR, "ref": _STR}],
                    "ref": _STR,
                }
            ),
        }
    ),
    "model_error": _Pointer({"error": _MODEL_ERROR, "retry": _BOOL, "wait_ms": _INT}),
    "run_ended": _Pointer(_OUTCOME),
    "labels": _Pointer({"labels": [_STR], "source": _STR}),
    "pins": _Pointer({"pins": _MAP}),
}

_WANTED = {_STR: "a string", _INT: "an integer", _BOOL: "a boolean", _TIME: "an RFC 3339 time"}
_ABSENT: Any = object()  # a field no member has named yet: its zero value
_INT_RANGE = range(-(2**63), 2**63)  # Go's int and int64


def _json_kind(v: Any) -> str:
    if v.__class__ is Pairs:
        return "an object"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int | float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    return "null"


class _Merge:
    """One line's members merged into plain values (``dict``, ``list``), as Go fills its
    ``Entry``; ``raw`` keeps, for each ``dict`` holding a raw field, where in the line the
    value Go keeps is."""

    def __init__(self, line: bytes) -> None:
        self.line = line
        # id of a dict -> (the dict, its raw fields' spans); the dict is held, so that its id
        # is not reused while merging.
        self.raw: dict[int, tuple[dict[str, Any], dict[str, tuple[int, int]]]] = {}
        # id of a slice's list -> (the list, the storage after its length, its capacity)
        self.slices: dict[int, tuple[list[Any], list[Any], int]] = {}

    def member(
        self, into: dict[str, Any], name: str, kind: Any, node: Any, span: tuple[int, int], ctx: str
    ) -> None:
        """Decode the member ``name``: ``node`` into what ``into`` holds for it."""
        if kind is _RAW:  # parsed as the fast path parses it (orjson reads 2**64 as a float)
            into[name] = loads(self.line[span[0] : span[1]])
            held = self.raw.setdefault(id(into), (into, {}))
            held[1][name] = span
            return
        into[name] = self.value(
            into.get(name, _ABSENT), node, kind, f"{ctx}.{name}" if ctx else name
        )

    def value(self, old: Any, node: Any, kind: Any, ctx: str) -> Any:
        """``node`` decoded into ``old`` (``_ABSENT``: the zero value) as a ``kind``."""
        if kind is _STR or kind is _BOOL or kind is _INT or kind is _TIME:
            if node is None:  # null leaves a string, number, boolean or time as it was
                return None if old is _ABSENT else old
            if kind is _STR:
                ok = node.__class__ is str
            elif kind is _BOOL:
                ok = node.__class__ is bool
            elif kind is _INT:
                ok = node.__class__ is int and node in _INT_RANGE
            else:
                ok = node.__class__ is str and _is_time(node)
            if not ok:
                raise BadEntry(f"{ctx} is {_json_kind(node)}, not {_WANTED[kind]}")
            return node
        if kind is _MAP:
            if node is None:
                return None
            if node.__class__ is not Pairs:
                raise BadEntry(f"{ctx} is {_json_kind(node)}, not an object")
            held = old if old.__class__ is dict else {}
            for key, item, _, _ in node:
                if item is None:
                    item = ""  # decoded into a zero string, which null leaves as it is
                elif item.__class__ is not str:
                    raise BadEntry(f"{ctx}[{key!r}] is {_json_kind(item)}, not a string")
                held[key] = item
            return held
        if isinstance(kind, list):
            if node is None:
                return None
            if not isinstance(node, list):
                raise BadEntry(f"{ctx} is {_json_kind(node)}, not an array")
            return self.slice(old, node, kind[0], ctx)
        pointer = isinstance(kind, _Pointer)
        fields = kind.fields if pointer else kind
        if node is None:  # nil for a pointer; a struct stays as it was
            return None if pointer or old is _ABSENT else old
        if node.__class__ is not Pairs:
            raise BadEntry(f"{ctx} is {_json_kind(node)}, not an object")
        struct = old if old.__class__ is dict else {}
        for name, item, start, end in node:
            self.member(struct, name, fields.get(name, _RAW), item, (start, end), ctx)
        return struct

    def slice(self, old: Any, items: list[Any], element: Any, ctx: str) -> list[Any]:
        """An array decoded into a slice, element by element into the slice's storage, as
        Go 1.19's ``decodeState.array`` does."""
        if not items:  # Go makes a new, empty slice
            fresh: list[Any] = []
            self.slices[id(fresh)] = (fresh, [], 0)
            return fresh
        held = self.slices.get(id(old)) if old.__class__ is list else None
        if held is not None and held[0] is old:
            storage, length, capacity = [*old, *held[1]], len(old), held[2]
        else:  # nil: no storage yet
            storage, length, capacity = [], 0, 0
        for i, item in enumerate(items):
            if i >= capacity:  # a new array: what lies past the length is not copied
                capacity = max(capacity + capacity // 2, 4)
                del storage[length:]
            length = max(length, i + 1)
            current = storage[i] if i < len(storage) else _ABSENT
            value = self.value(current, item, element, ctx)
            if value is None and current is _ABSENT and item is None:
                value = "" if element is _STR else {}  # null into a zero element leaves it zero
            if i < len(storage):
                storage[i] = value
            else:
                storage.append(value)
        visible = storage[: len(items)]
        self.slices[id(visible)] = (visible, storage[len(items) :], capacity)
        return visible

    def spans(self, entry: dict[str, Any]) -> dict[Path, tuple[int, int]]:
        """Where the raw values the merged ``entry`` holds are, by their path (as
        ``raw_spans`` gives them)."""
        found: dict[Path, tuple[int, int]] = {}

        def raw_of(d: Any, name: str, path: Path) -> None:
            held = self.raw.get(id(d)) if d.__class__ is dict else None
            if held is not None and held[0] is d and name in held[1] and name in d:
                found[path] = held[1][name]

        etype = entry.get("type")
        if etype.__class__ is str and etype not in _ENTRY:
            raw_of(entry, etype, (etype,))  # an unknown type's payload, kept as it is
        payload = entry.get("message")
        message = payload.get("message") if payload.__class__ is dict else None
        if message.__class__ is dict:
            assert isinstance(message, dict)
            parts = message.get("parts")
            for i, part in enumerate(parts if parts.__class__ is list else ()):
                if part.__class__ is dict:
                    call = part.get("tool_call")
                    path = ("message", "message", "parts", i, "tool_call", "input")
                    raw_of(call, "input", path)
            raw_of(message.get("native"), "data", ("message", "message", "native", "data"))
        return found


def _is_time(text: str) -> bool:
    try:
        parse_rfc3339(text)
    except ValueError:
        return False
    return True


def merge_entry(line: bytes) -> tuple[dict[str, Any], dict[Path, tuple[int, int]]]:
    """The entry object of ``line`` with its repeated names merged as Go merges them, and
    where the raw values it holds are in ``line`` (for ``find_raw``).

    Raises:
        BadEntry: a member has the wrong JSON type for its field (Go refuses the line).
        ValueError: ``line`` is not one JSON object.
    """
    tree = parse_json(line, pairs=True)
    if tree.__class__ is not Pairs:
        raise ValueError("not a JSON object")
    merge = _Merge(line)
    entry = merge.value(_ABSENT, tree, _ENTRY, "")
    return entry, merge.spans(entry)


def _strings(obj: dict[str, Any], raw: RawTexts) -> int:
    """How many strings ``obj`` holds, names included, but those of its raw values."""
    skip: dict[int, list[str | int]] = {}  # id of a dict -> the names of its raw values
    for path in raw:
        parent: Any = obj
        for step in path[:-1]:
            parent = parent[step]
        skip.setdefault(id(parent), []).append(path[-1])
    count = 0
    pending: list[Any] = [obj]
    pop, push = pending.pop, pending.append
    while pending:
        value = pop()
        items: Any = value
        if value.__class__ is dict:
            count += len(value)
            names = skip.get(id(value))
            items = (
                value.values()
                if names is None
                else [item for name, item in value.items() if name not in names]
            )
        for item in items:
            kind = item.__class__
            if kind is str:
                count += 1
            elif kind is dict or kind is list:
                push(item)
    return count


def _escaped_quotes(line: bytes, start: int, end: int) -> int:
    """How many ``"`` of ``line[start:end]`` are escaped: after an odd number of backslashes
    (``\\"`` is a quote inside a string, ``\\\\"`` a string's end)."""
    count, pattern, sign = 0, b'\\"', 1
    found = line.count(pattern, start, end)
    while found:
        count += sign * found
        pattern, sign = b"\\" + pattern, -sign
        found = line.count(pattern, start, end)
    return count


def repeats_a_name(obj: dict[str, Any], line: bytes, raw: RawTexts) -> bool:
    """Whether ``line``, parsed as ``obj`` (the last of repeated names kept), may give a name
    twice in one object outside its raw values (``raw``, where repeated names are kept as
    written); ``False`` only when it does not.

    Every string of a line, a name or a value, begins and ends with a ``"`` that is not
    escaped; a name given twice, and the value it had first, are strings the line holds and
    ``obj`` does not. So the line repeats no name when it has twice as many such quotes,
    outside its raw values, as ``obj`` holds strings there."""
    try:
        strings = _strings(obj, raw)
    except (KeyError, IndexError, TypeError):  # a raw value where obj has none: not as read
        return True
    ranges = []
    start = 0
    for begin, end, _ in sorted(raw.values()):
        ranges.append((start, begin))
        start = end
    ranges.append((start, len(line)))
    quotes = sum(line.count(b'"', begin, end) for begin, end in ranges)
    if quotes == 2 * strings:  # as many as there must be: none is escaped, none repeated
        return False
    escaped = sum(_escaped_quotes(line, begin, end) for begin, end in ranges)
    return quotes - escaped != 2 * strings


def decode_exact(obj: dict[str, Any], line: bytes, line_no: int, on_unknown: Any) -> Entry:
    """``decode_entry`` of a line read exactly: a name given twice read as Go reads it, and
    the raw values' text kept (``find_raw``, ``with_raw``).

    Raises:
        BadEntry: the line is not a usable entry.
    """
    refused: BadEntry | None = None
    try:
        entry: Entry | None = decode_entry(obj, line_no, on_unknown)
    except BadEntry as e:  # perhaps only as the last of repeated names: see how Go reads it
        entry, refused = None, e
    if entry is not None:
        raw = find_raw(entry, line)
        if not repeats_a_name(obj, line, raw):
            return with_raw(entry, raw)
    try:
        merged, spans = merge_entry(line)
        entry = decode_entry(merged, line_no, on_unknown)
    except BadEntry:
        if refused is not None:  # refused either way: in the decoders' words, as plain reads
            raise refused from None
        raise
    except ValueError as e:  # not expected: orjson or go_loads read the line
        raise BadEntry(f"the line cannot be read member by member ({e})") from None
    return with_raw(entry, find_raw(entry, line, spans))
