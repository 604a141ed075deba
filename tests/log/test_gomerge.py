"""A name given twice in one object, read as Go reads it (issue 10, item 4).

Go's ``encoding/json`` decodes each member into what its field already holds: objects into
structs and maps merge, arrays into slices of structs merge element by element, ``null``
leaves a string, number or struct as it was. The exact reader (``FileStore``, ``MemoryStore``,
``LogReader(exact=True)``) does the same; the plain one keeps the last (README, "Known
limits"). Go's own bytes for 32 such lines are in ``tests/roundtrip/oddities.jsonl.go``
(lines 36 to 67, checked by ``test_roundtrip.py``); the lines here were run through the same
Go program (``testdata/gocheck``'s types, ``json.Unmarshal`` then ``json.Marshal``, Go 1.19),
and its output is written in each test.
"""

from __future__ import annotations

import io
import random
import warnings
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    EntryError,
    FileStore,
    LogReader,
    MemoryStore,
    MessageEntry,
    PinsEntry,
    encode_entry,
    read_session,
)
from sessiontools._log.decode import ENTRY_FIELDS, BadEntry, decode_entry
from sessiontools._log.gomerge import merge_entry, repeats_a_name
from sessiontools._log.rawjson import Pairs, find_raw, go_text, parse_json, raw_spans, with_raw
from tests.helpers import SESSIONS

ROUNDTRIP = Path(__file__).resolve().parent.parent / "roundtrip"

PINS_TWICE = (
    b'{"seq":1,"time":"2026-10-18T09:30:00+02:00","type":"pins","pins":{"pins":'
    b'{"file_write":"sha256:1"},"pins":{"http_post":"sha256:2"}}}\n'
)
# What Go writes for PINS_TWICE: the two maps are one.
PINS_GO = (
    b'{"seq":1,"time":"2026-10-18T09:30:00+02:00","type":"pins","pins":{"pins":'
    b'{"file_write":"sha256:1","http_post":"sha256:2"}}}\n'
)


def _read(data: bytes, exact: bool) -> list:  # type: ignore[type-arg]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(LogReader(io.BytesIO(data), exact=exact))


def test_pins_given_twice_are_one_map(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(PINS_TWICE)
    (entry,) = FileStore(path).load()
    assert entry.payload == PinsEntry({"file_write": "sha256:1", "http_post": "sha256:2"})
    with FileStore(tmp_path / "copy.jsonl") as store:
        store.append(entry)
    assert (tmp_path / "copy.jsonl").read_bytes() == PINS_GO
    assert [encode_entry(e) + b"\n" for e in MemoryStore(entry).load()] == [PINS_GO]


def test_a_plain_read_keeps_the_last(tmp_path: Path) -> None:
    """The documented limit: the exporters, ``read_session`` and ``LogReader`` without
    ``exact`` keep the last of repeated names (noticing one costs a pass over every line)."""
    (plain,) = _read(PINS_TWICE, exact=False)
    assert plain.payload == PinsEntry({"http_post": "sha256:2"})
    path = tmp_path / "s.jsonl"
    path.write_bytes(PINS_TWICE)
    assert read_session(path).pins() == {"http_post": "sha256:2"}
    (exact,) = _read(PINS_TWICE, exact=True)
    assert exact.payload == PinsEntry({"file_write": "sha256:1", "http_post": "sha256:2"})


def test_usage_given_twice_is_one_usage() -> None:
    """Go: ``{"input_tokens":1,"output_tokens":2}`` (the second object fills the field the
    first left at zero)."""
    line = (
        b'{"seq":3,"time":"2026-10-18T09:30:00+02:00","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[]},"usage":{"input_tokens":1},"usage":{"output_tokens":2}}}'
    )
    (entry,) = _read(line, exact=True)
    assert isinstance(entry.payload, MessageEntry)
    assert (entry.payload.usage.input_tokens, entry.payload.usage.output_tokens) == (1, 2)
    assert encode_entry(entry) == line.replace(
        b'"usage":{"input_tokens":1},"usage":{"output_tokens":2}',
        b'"usage":{"input_tokens":1,"output_tokens":2}',
    )


def test_a_wrong_type_in_the_first_of_two_is_refused() -> None:
    """Go stops at the first value of the wrong type, even one a later member would replace:
    ``json: cannot unmarshal string into Go struct field Usage.message.usage.input_tokens of
    type int64``. The exact reader refuses the line too; the plain one sees the last only."""
    line = (
        b'{"seq":2,"time":"2026-10-18T09:30:00+02:00","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[]},"usage":{"input_tokens":"x"},"usage":{"input_tokens":1}}}'
    )
    with pytest.raises(EntryError, match=r"message\.usage\.input_tokens is a string"):
        _read(line, exact=True)
    (plain,) = _read(line, exact=False)
    assert plain.payload.usage.input_tokens == 1


def test_raw_values_follow_the_struct_they_are_in() -> None:
    """A tool call set to null and given again is a new struct: its old input is gone (Go
    writes ``"input":null``); native data left out of the second ``native`` is kept from the
    first, spelled as it was (Go: ``"data":{"x":1.50}``)."""
    line = (
        b'{"seq":1,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c","name":"t",'
        b'"input":{"a":1}},"tool_call":null,"tool_call":{"id":"d"}}],'
        b'"native":{"provider":"p","model":"m","data":{"x":1.50}},"native":{"model":"n"}},'
        b'"usage":{}}}'
    )
    (entry,) = _read(line, exact=True)
    assert encode_entry(entry) == (
        b'{"seq":1,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"d","name":"",'
        b'"input":null}}],"native":{"provider":"p","model":"n","data":{"x":1.50}}},'
        b'"usage":{"input_tokens":0,"output_tokens":0}}}'
    )


def test_a_deep_line_given_twice_is_merged_too() -> None:
    """Merging reads the line without recursion, as deep as Go reads."""
    deep = b"[" * 3000 + b"]" * 3000
    line = (
        b'{"seq":1,"time":"2026-10-18T07:30:00Z","type":"message","message":{"message":'
        b'{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c","name":"t",'
        b'"input":' + deep + b'}}]},"usage":{"input_tokens":1},"usage":{"output_tokens":2}}}'
    )
    (entry,) = _read(line, exact=True)
    assert encode_entry(entry) == line.replace(
        b'"usage":{"input_tokens":1},"usage":{"output_tokens":2}',
        b'"usage":{"input_tokens":1,"output_tokens":2}',
    )


# Whether a line may repeat a name is told by counting its strings against the parsed
# object's: it must never miss one.


def _go_lines() -> list[bytes]:
    lines = []
    for log in [*sorted(SESSIONS.glob("*.jsonl")), ROUNDTRIP / "oddities.jsonl"]:
        for raw in log.read_bytes().split(b"\n"):
            try:
                obj = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "seq" in obj and "type" in obj and len(raw) < 5000:
                lines.append(raw)
    return lines


GO_LINES = _go_lines()


def _members(value: object, out: list[tuple[str, int, int]]) -> None:
    """Every member of every object in ``value`` (parsed with pairs): name, value span."""
    if isinstance(value, Pairs):
        for name, item, start, end in value:
            out.append((name, start, end))
            _members(item, out)
    elif isinstance(value, list):
        for item in value:
            _members(item, out)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(GO_LINES), st.randoms(use_true_random=False), st.booleans())
def test_a_repeated_name_is_never_missed(line: bytes, rnd: random.Random, spaced: bool) -> None:
    """Give one member of a line again, with the same or another value, right after it (a
    name spaced from its colon sometimes): the check says so, and the exact read gives what
    merging gives (or refuses the line, as Go does, for a value of the wrong type)."""
    members: list[tuple[str, int, int]] = []
    _members(parse_json(line, pairs=True), members)
    name, start, end = rnd.choice(members)
    value = line[start:end] if rnd.random() < 0.5 else rnd.choice([b"null", b"{}", b"[]", b'""'])
    name_text = go_text(name)
    assert name_text is not None
    again = b"," + name_text + (b" : " if spaced else b":") + value
    repeated = line[:end] + again + line[end:]
    obj = orjson.loads(repeated)
    try:
        entry = decode_entry(obj, 1, _ignore)
    except BadEntry:
        entry = None  # (the last one alone is not an entry: "seq":null)
    if entry is not None and not _inside_raw(line, start):
        assert repeats_a_name(obj, repeated, find_raw(entry, repeated))
    try:
        merged, spans = merge_entry(repeated)
        as_go = decode_entry(merged, 1, _ignore)
        expected = encode_entry(with_raw(as_go, find_raw(as_go, repeated, spans)))
    except (BadEntry, ValueError):
        with pytest.raises(EntryError):
            _read(repeated, exact=True)
        return
    (read,) = _read(repeated, exact=True)
    assert encode_entry(read) == expected


def _ignore(what: str) -> None:
    pass


def _raw_values(line: bytes) -> list[tuple[int, int]]:
    """Where the raw values of a line are (a tool call's input, the native data, an unknown
    entry type's payload): the last one given of each, as Go keeps it."""
    etype = orjson.loads(line)["type"]
    unknown = etype not in ENTRY_FIELDS
    spans = raw_spans(
        line,
        lambda p: (
            (len(p) == 6 and p[5] == "input" and p[4] == "tool_call" and p[2] == "parts")
            or (len(p) == 4 and p[3] == "data" and p[2] == "native")
            or (unknown and p == (etype,))
        ),
    )
    return list(spans.values())


def _inside_raw(line: bytes, offset: int) -> bool:
    """Whether ``offset`` is inside a raw value, where a name given twice is kept as written
    (Go keeps the raw text)."""
    return any(start < offset < end for start, end in _raw_values(line))


def test_a_line_without_a_repeated_name_is_not_taken_for_one() -> None:
    """Exact both ways: a line of the testdata is taken for a repeat exactly when it gives a
    name twice in one object outside its raw values (oddities 3, and 36 on)."""
    taken = []
    for line in GO_LINES:
        obj = orjson.loads(line)
        try:
            entry = decode_entry(obj, 1, _ignore)
        except BadEntry:
            continue  # oddities 43: "seq":44,"seq":null
        may = repeats_a_name(obj, line, find_raw(entry, line))
        assert may == _repeats_outside_raw(line), line
        taken.append(may)
    assert 20 < sum(taken) < len(taken) / 2


def _repeats_outside_raw(line: bytes) -> bool:
    raw = _raw_values(line)
    pending: list[object] = [parse_json(line, pairs=True)]
    while pending:
        value = pending.pop()
        if isinstance(value, Pairs):
            names = [name for name, _, start, _ in value]
            inside = value and any(s <= value[0][2] < e for s, e in raw)
            if not inside and len(names) != len(set(names)):
                return True
            pending.extend(v for _, v, _, _ in value)
        elif isinstance(value, list):
            pending.extend(value)
    return False
