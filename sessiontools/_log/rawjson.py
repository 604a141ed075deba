"""JSON text kept as text: Go's ``json.RawMessage`` and Go's reading of odd bytes; part of the
first stage, in both directions (the reader's slow path, exact reads, ``encode``).

agentloop keeps a tool call's ``input`` and a provider's ``native.data`` as
``json.RawMessage`` (docs/reading.md, "The log format"): ``encoding/json`` copies the value's
bytes verbatim when it reads a line, and writes them back compacted, with ``<``, ``>``, ``&``,
U+2028 and U+2029 escaped (``compact(dst, src, escape=true)`` in Go's ``encode.go``). Invalid
UTF-8 and escaped lone surrogates inside pass through both ways. So writing an entry Go read
gives the same bytes only if the raw text is kept, not a parsed value: ``1.0``, ``\\u00e9``,
``\\/``, a name given twice and an invalid byte would all come back differently.

- ``go_loads`` parses a line the way Go does when ``orjson`` refuses it (docs/reading.md, "Bytes"),
  as deep as Go reads (10,000 levels: ``parse_json``, which needs no recursion).
- ``loads`` parses JSON text, with ``go_loads`` as the fallback.
- ``go_compact`` is Go's compaction with HTML-safe escaping.
- ``raw_spans`` finds where chosen values of a line are, without parsing it twice.
- ``attach_raw`` gives an entry read from a line the raw text of its ``RawMessage`` values.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any, TypeAlias, cast

import orjson

from .content import Message, MessageEntry, UnknownEntry
from .entries import Entry

__all__ = ["attach_raw", "go_compact", "go_loads", "go_text", "loads", "raw_spans"]


# Go's decoder turns every byte of invalid UTF-8 into one U+FFFD (utf8.DecodeRune returns
# RuneError with width 1); Python's "replace" handler would merge a truncated sequence into one.
def _go_replace(err: UnicodeError) -> tuple[str, int]:
    assert isinstance(err, UnicodeDecodeError)
    return "\ufffd", err.start + 1


codecs.register_error("sessiontools.go-replace", _go_replace)

_SURROGATES = str.maketrans({c: "\ufffd" for c in range(0xD800, 0xE000)})


def _no_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        return value.translate(_SURROGATES)
    if isinstance(value, list):
        return [_no_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in value.items()}
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: How deep Go's decoder reads: ``maxNestingDepth`` in ``encoding/json/scanner.go``; one
#: more level is its error "exceeded max depth". The entry's own object is level 1.
MAX_DEPTH = 10_000


class TooDeepError(ValueError):
    """JSON text nested deeper than Go's decoder reads (``MAX_DEPTH`` levels)."""


def go_loads(body: bytes) -> Any:
    """Parse JSON text as Go's ``encoding/json`` does when ``orjson`` refuses it: an invalid
    byte or an escaped lone surrogate becomes U+FFFD, the last of repeated names wins, and
    it may nest as deep as Go reads (``MAX_DEPTH`` levels).

    Raises:
        ValueError: the text is not one complete JSON value.
        TooDeepError: (a ``ValueError``) it nests deeper than ``MAX_DEPTH`` levels.
    """
    text = body.decode("utf-8", "sessiontools.go-replace")
    try:
        return _no_surrogates(json.loads(text, parse_constant=_reject_constant))
    except RecursionError:  # deeper than Python's recursion limit: read without recursion
        return parse_json(body)


def loads(raw: bytes) -> Any:
    """Parse JSON text with ``orjson``, or ``go_loads`` for what ``orjson`` refuses.

    Raises:
        ValueError: the text is not one complete JSON value (``TooDeepError`` when it nests
            deeper than Go reads).
    """
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return go_loads(raw)


# Reading JSON without recursion, as deep as Go reads. Slower than orjson and json (a Python
# loop per token): only for what they cannot read, and to see every repeated name.

_TOKENS = re.compile(
    rb"[ \t\n\r]*+(?:"
    rb'("(?:[^"\\\x00-\x1f]++|\\.)*+")'  # 1: a string (its escapes checked when decoded)
    rb"|([{\[])"  # 2: an object or array begins
    rb"|([}\]])"  # 3: ... ends
    rb"|(,)"  # 4
    rb"|(:)"  # 5
    rb"|(-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][+-]?[0-9]++)?)"  # 6: a number
    rb"|(true|false|null)"  # 7
    rb")"
)
_TRAILING_SPACE = re.compile(rb"[ \t\n\r]*+")
_LITERALS = {b"true": True, b"false": False, b"null": None}
# What the parser expects next.
_VALUE, _VALUE_OR_CLOSE, _KEY, _KEY_OR_CLOSE, _COLON, _COMMA_OR_CLOSE = range(6)


class Pairs(list):  # type: ignore[type-arg]
    """An object as ``parse_json(..., pairs=True)`` gives it: its members in order, every
    one kept (a repeated name too), as ``(name, value, start, end)``, where ``start`` and
    ``end`` are the byte offsets of the value's text."""

    __slots__ = ()


def _string_value(token: bytes) -> str:
    """A JSON string token's text, as Go reads it (invalid UTF-8 and lone surrogates become
    U+FFFD).

    Raises:
        ValueError: an escape JSON does not have.
    """
    if b"\\" not in token:
        try:
            return token[1:-1].decode("utf-8")
        except UnicodeDecodeError:
            return token[1:-1].decode("utf-8", "sessiontools.go-replace")
    value = json.loads(token.decode("utf-8", "sessiontools.go-replace"))
    assert isinstance(value, str)
    return value.translate(_SURROGATES)


def parse_json(body: bytes, *, pairs: bool = False) -> Any:
    """Parse one JSON value as Go's decoder reads it, without recursion: up to
    ``MAX_DEPTH`` levels deep; invalid UTF-8 and escaped lone surrogates become U+FFFD.
    Objects are ``dict`` (the last of repeated names wins), or with ``pairs=True``,
    ``Pairs`` (every member, with where its value is in ``body``).

    Raises:
        ValueError: ``body`` is not one complete JSON value.
        TooDeepError: it nests deeper than ``MAX_DEPTH`` levels.
    """
    match = _TOKENS.match
    pos = 0
    # One frame per open container: [container, is_object, start, name of the member read].
    stack: list[list[Any]] = []
    expect = _VALUE
    while True:
        m = match(body, pos)
        if m is None:
            raise ValueError(f"not JSON at byte {_skip_space(body, pos)}")
        kind = m.lastindex
        start = m.start(kind)  # type: ignore[arg-type]
        pos = m.end()
        if expect == _COMMA_OR_CLOSE:
            frame = stack[-1]
            if kind == 4:
                expect = _KEY if frame[1] else _VALUE
                continue
            if kind != 3 or (body[start] == 0x7D) != frame[1]:  # "}" closes an object
                raise ValueError(f"not JSON at byte {start}")
        elif expect in (_KEY, _KEY_OR_CLOSE):
            if kind == 1:
                stack[-1][3] = _string_value(m.group(1))
                expect = _COLON
                continue
            if kind != 3 or expect == _KEY or body[start] != 0x7D:
                raise ValueError(f"not JSON at byte {start}")
        elif expect == _COLON:
            if kind != 5:
                raise ValueError(f"not JSON at byte {start}")
            expect = _VALUE
            continue
        elif kind == 2:  # a value: an object or array begins
            is_object = body[start] == 0x7B
            if len(stack) >= MAX_DEPTH:
                raise TooDeepError(
                    f"nested deeper than Go's limit of {MAX_DEPTH:,} levels at byte {start}"
                )
            container: Any = (Pairs() if pairs else {}) if is_object else []
            stack.append([container, is_object, start, None])
            expect = _KEY_OR_CLOSE if is_object else _VALUE_OR_CLOSE
            continue
        elif kind == 3 and expect == _VALUE_OR_CLOSE and body[start] == 0x5D:
            pass  # an empty array ends
        elif kind == 1:
            value: Any = _string_value(m.group(1))
        elif kind == 6:
            number = m.group(6)
            is_float = b"." in number or b"e" in number or b"E" in number
            value = float(number) if is_float else int(number)
        elif kind == 7:
            value = _LITERALS[m.group(7)]
        else:
            raise ValueError(f"not JSON at byte {start}")
        if kind == 3:  # the container on top ends: it is the value
            frame = stack.pop()
            value, start = frame[0], frame[2]
        # A value is complete, from start to pos: put it where it belongs.
        if not stack:
            end = _TRAILING_SPACE.match(body, pos).end()  # type: ignore[union-attr]
            if end != len(body):
                raise ValueError(f"not JSON at byte {end}: more after the value")
            return value
        frame = stack[-1]
        if not frame[1]:
            frame[0].append(value)
        elif pairs:
            frame[0].append((frame[3], value, start, pos))
        else:
            frame[0][frame[3]] = value
        expect = _COMMA_OR_CLOSE


def _skip_space(body: bytes, pos: int) -> int:
    return _TRAILING_SPACE.match(body, pos).end()  # type: ignore[union-attr]


_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_COMPACT = re.compile(_STRING + rb"|[ \t\r\n]+", re.S)
_NEEDS_COMPACT = re.compile(rb"[ \t\r\n<>&]|\xe2\x80[\xa8\xa9]")
_HTML = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))


def _compact_token(m: re.Match[bytes]) -> bytes:
    token = m.group()
    if token[0] != 0x22:  # whitespace between tokens
        return b""
    return _html_escaped(token)


def go_compact(raw: bytes) -> bytes:
    """``raw`` (one JSON value) as Go's encoder writes a ``json.RawMessage``: whitespace
    between tokens removed, ``<``, ``>``, ``&``, U+2028 and U+2029 in strings escaped as
    ``\\u003c``, ``\\u003e``, ``\\u0026``, ``\\u2028``, ``\\u2029``; every other byte kept."""
    if _NEEDS_COMPACT.search(raw) is None:
        return raw
    return _COMPACT.sub(_compact_token, raw)


_TOKEN = re.compile(_STRING + rb"|[\[\]{}:,]", re.S)
_OPEN_OBJECT, _OPEN_ARRAY, _CLOSE_OBJECT, _CLOSE_ARRAY, _QUOTE = b'{[}]"'
_COLON, _COMMA = b":,"
_SPACE = b" \t\r\n"

Path = tuple[str | int, ...]


def _key(token: bytes) -> str:
    if b"\\" not in token:
        return token[1:-1].decode("utf-8", "sessiontools.go-replace")
    value = loads(token)
    return value if isinstance(value, str) else ""


def raw_spans(line: bytes, want: Callable[[Path], bool]) -> dict[Path, tuple[int, int]]:
    """Where the values ``want`` picks are in ``line``, one JSON value.

    A value's path is the object keys and array indices that lead to it from the top:
    ``("message", "message", "parts", 0, "tool_call", "input")``. For each path ``want``
    accepts, the result holds the ``(start, end)`` byte offsets of its value's text; when a
    name is given twice in an object, the last one's value wins, as in Go. ``line`` must be
    complete JSON; what this finds in anything else is unspecified.
    """
    found: dict[Path, tuple[int, int]] = {}
    # One frame per open container: [is_object, path, start, key or index].
    stack: list[list[Any]] = []
    expecting_key = False
    scalar_start = -1  # where a number, true, false or null may begin

    def value_path() -> Path:
        if not stack:
            return ()
        frame = stack[-1]
        return (*frame[1], frame[3])

    def scalar(end: int) -> None:
        text = line[scalar_start:end]
        stripped = text.strip(_SPACE)
        if stripped:
            path = value_path()
            if want(path):
                start = scalar_start + len(text) - len(text.lstrip(_SPACE))
                found[path] = (start, start + len(stripped))

    for m in _TOKEN.finditer(line):
        start = m.start()
        c = line[start]
        if c == _QUOTE:
            if expecting_key:
                stack[-1][3] = _key(m.group())
                expecting_key = False
                continue
            path = value_path()
            if want(path):
                found[path] = (start, m.end())
            scalar_start = -1
        elif c in (_OPEN_OBJECT, _OPEN_ARRAY):
            is_object = c == _OPEN_OBJECT
            stack.append([is_object, value_path(), start, "" if is_object else 0])
            expecting_key = is_object
            scalar_start = -1 if is_object else start + 1
        elif c in (_CLOSE_OBJECT, _CLOSE_ARRAY):
            if scalar_start >= 0:
                scalar(start)
            frame = stack.pop()
            if want(frame[1]):
                found[frame[1]] = (frame[2], m.end())
            expecting_key = False
            scalar_start = -1
        elif c == _COLON:
            scalar_start = m.end()
        else:  # a comma
            if scalar_start >= 0:
                scalar(start)
            frame = stack[-1]
            if frame[0]:
                expecting_key = True
                scalar_start = -1
            else:
                frame[3] += 1
                scalar_start = m.end()
    return found


def _message_raw(path: Path) -> bool:
    n = len(path)
    if n == 6:
        return path[5] == "input" and path[4] == "tool_call" and path[2] == "parts"
    return n == 4 and path[3] == "data" and path[2] == "native"


def _html_escaped(text: bytes) -> bytes:
    """JSON text (no whitespace between tokens) with ``<``, ``>``, ``&``, U+2028 and U+2029
    escaped as Go escapes them; in JSON text they can only be inside strings."""
    for c, escaped in _HTML:
        if c in text:
            text = text.replace(c, escaped)
    if b"\xe2\x80" in text:
        text = text.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
    return text


def go_text(value: Any) -> bytes | None:
    """``value`` as Go's encoder writes it, when ``orjson`` writes it that way (it writes no
    whitespace and keeps key order); ``None`` for what it cannot write (a lone surrogate, an
    integer beyond 64 bits)."""
    try:
        return _html_escaped(orjson.dumps(value))
    except (orjson.JSONEncodeError, TypeError):
        return None


#: Where each raw value of an entry is in its line, by path (as ``raw_spans`` gives it): its
#: start and end, and its text as Go writes it.
RawTexts: TypeAlias = dict[Path, tuple[int, int, bytes]]

_INPUT = ("message", "message", "parts")  # + (i, "tool_call", "input")
_DATA = ("message", "message", "native", "data")


def _found_in_place(message: Message, line: bytes) -> RawTexts | None:
    """The raw text of each tool call's input and of the native data, found where a line Go
    wrote has them: each right after its own ``"tool_call":{"id":…,"name":…,"input":`` or
    ``"native":{"provider":…,"model":…,"data":`` and right before the ``}`` that closes it,
    in order, spelled as Go writes the parsed value. ``None`` when any is not there so
    spelled (another number spelling, an escape Go does not write, a repeated name, invalid
    bytes): then ``raw_spans`` finds them.

    Searching in order, from the start of the parts, is exact: nothing before a value's
    prefix can hold a raw ``"``, except raw values already passed over; and the line must hold
    each prefix once (a repeated ``tool_call`` or ``native``, of which Go keeps the last, or a
    prefix inside another value, goes to the scanner).
    """
    calls = sum(1 for part in message.parts if part.tool_call is not None)
    if line.count(b'"tool_call":') != calls or line.count(b'"native":') > 1:
        return None  # a repeated name, or the prefix inside another value: scan
    cursor = line.find(b'"parts":[')
    found: RawTexts = {}
    for i, part in enumerate(message.parts):
        call = part.tool_call
        if call is None:
            continue
        at = _value_after(
            line,
            cursor,
            (b'"tool_call":{"id":', call.id, b',"name":', call.name, b',"input":'),
            call.input,
        )
        if at is None:
            return None
        found[(*_INPUT, i, "tool_call", "input")] = at
        cursor = at[1]
    native = message.native
    if native is not None:
        at = _value_after(
            line,
            cursor,
            (b'"native":{"provider":', native.provider, b',"model":', native.model, b',"data":'),
            native.data,
        )
        if at is None:
            return None
        found[_DATA] = at
    return found


def _value_after(
    line: bytes, cursor: int, prefix: tuple[bytes | str, ...], value: Any
) -> tuple[int, int, bytes] | None:
    """Where ``value``'s text is in ``line``, and the text, when ``line`` has it, from
    ``cursor`` on, right after ``prefix`` (bytes as they are, strings as Go writes them) and
    right before a ``}`` (the end of the object it is the last member of: "42.5" is not
    "42.50")."""
    pieces = [p if isinstance(p, bytes) else go_text(p) for p in prefix]
    text = go_text(value)
    if cursor < 0 or text is None or any(p is None for p in pieces):
        return None
    head = b"".join(cast(list[bytes], pieces))
    at = line.find(head, cursor)
    start = at + len(head)
    end = start + len(text)
    if at < 0 or not line.startswith(text, start) or line[end : end + 1] != b"}":
        return None
    return start, end, text


def find_raw(
    entry: Entry, line: bytes, spans: dict[Path, tuple[int, int]] | None = None
) -> RawTexts:
    """The raw JSON values of ``entry``, read from ``line``: where each is and its text as Go
    writes it (a tool call's input and the native data compacted, an unknown entry's payload
    as it was). ``spans``, when given, says where each is, instead of looking for them."""
    payload = entry.payload
    if isinstance(payload, MessageEntry):
        message = payload.message
        if message.native is None and not any(p.tool_call is not None for p in message.parts):
            return {}
        if spans is None:
            found = _found_in_place(message, line)
            if found is not None:
                return found
            spans = raw_spans(line, lambda p: p[:2] == ("message", "message") and _message_raw(p))
        return {
            path: (start, end, go_compact(line[start:end]))
            for path, (start, end) in spans.items()
            if _message_raw(path) and path[:2] == ("message", "message")
        }
    if isinstance(payload, UnknownEntry):
        etype = entry.type
        if spans is None:
            spans = raw_spans(line, lambda p: p == (etype,))
        span = spans.get((etype,))
        return {} if span is None else {(etype,): (span[0], span[1], line[span[0] : span[1]])}
    return {}


def with_raw(entry: Entry, raw: RawTexts) -> Entry:
    """``entry`` with the text of its raw JSON values (``find_raw``) kept: each tool call's
    ``input_json``, the native's and an unknown entry's ``data_json``."""
    if not raw:
        return entry
    payload = entry.payload
    if isinstance(payload, MessageEntry):
        message = payload.message
        new_parts = list(message.parts)
        changed = False
        for i, part in enumerate(new_parts):
            call = part.tool_call
            found = raw.get((*_INPUT, i, "tool_call", "input"))
            if call is not None and found is not None:
                new_parts[i] = replace(part, tool_call=replace(call, input_json=found[2]))
                changed = True
        # Parts are rebuilt only when one changed: NIL (Go's nil slice, "null") stays NIL.
        parts = tuple(new_parts) if changed else message.parts
        native = message.native
        found = raw.get(_DATA)
        if native is not None and found is not None:
            native = replace(native, data_json=found[2])
            changed = True
        if not changed:
            return entry
        new_message = Message(message.role, parts, native)
        return replace(entry, payload=replace(payload, message=new_message))
    if isinstance(payload, UnknownEntry):
        found = raw.get((entry.type,))
        if found is not None:
            return replace(entry, payload=replace(payload, data_json=found[2]))
    return entry


def attach_raw(
    entry: Entry, line: bytes, spans: dict[Path, tuple[int, int]] | None = None
) -> Entry:
    """``entry``, read from ``line``, with the exact text of its raw JSON values: each tool
    call's ``input_json``, the ``native``'s ``data_json`` (compacted as Go writes them) and an
    unknown entry's ``data_json`` (kept as it was). ``spans``, when given, says where each
    is (by path, as ``raw_spans`` gives it), instead of looking for them."""
    return with_raw(entry, find_raw(entry, line, spans))
