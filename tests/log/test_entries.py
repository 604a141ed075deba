"""Entries: the fast decoders agree with the checked ones; Go's bytes read back to the same
values; hypothesis-made entries survive writing and reading."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    CallStartedEntry,
    DecisionEntry,
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
    Refusal,
    RunStartedEntry,
    ToolCall,
    ToolResult,
    ToolResultEntry,
    Usage,
    encode_entry,
    iter_entries,
    parse_rfc3339,
)
from sessiontools._log.decode import (
    _DECODERS,
    BadEntry,
    _call_started,
    _decision,
    _message_entry,
    _run_started,
    _tool_result,
    decode_entry,
)
from sessiontools._log.times import _slow
from tests.helpers import logs_in_testdata

CHECKED = {
    "run_started": _run_started,
    "message": _message_entry,
    "decision": _decision,
    "call_started": _call_started,
    "tool_result": _tool_result,
}


def _objects(path: Path) -> list[dict[str, Any]]:
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "seq" in obj and "type" in obj:
            out.append(obj)
    return out


@pytest.mark.parametrize("log", logs_in_testdata(), ids=lambda p: p.name)
def test_fast_decoders_give_what_the_checked_ones_give(log: Path) -> None:
    for obj in _objects(log):
        etype = obj["type"]
        if etype in CHECKED:
            assert _DECODERS[etype](obj[etype]) == CHECKED[etype](obj[etype]), obj["seq"]


@pytest.mark.parametrize(
    ("etype", "payload"),
    [
        ("message", {"message": None, "usage": None}),
        ("message", {"message": {"role": "user", "parts": None}, "usage": {}}),
        ("message", {"message": {"parts": [{"type": "text", "text": None}]}}),
        ("message", {"message": {"native": None, "parts": []}, "stop": None, "model": None}),
        ("decision", {"call_id": None, "tool": "t", "verdict": "allow", "labels": None}),
        ("decision", {"call_id": "c", "tool": "t", "verdict": "allow", "labels": ["a", "b"]}),
        ("call_started", {}),
        ("tool_result", {"result": None}),
        ("tool_result", {"result": {"call_id": "c", "content": None, "is_error": None}}),
        ("tool_result", {"result": {"call_id": "c"}, "labels": None, "log": None}),
        ("run_started", {"prompt": None}),
    ],
)
def test_nulls_read_as_go_zero_values(etype: str, payload: dict[str, Any]) -> None:
    assert _DECODERS[etype](payload) == CHECKED[etype](payload)


@pytest.mark.parametrize(
    ("etype", "payload", "problem"),
    [
        ("message", {"message": {"parts": [{"type": 1}]}}, "message.message.parts.type"),
        ("message", {"message": {"parts": "x"}}, "message.message.parts is a string"),
        ("message", {"message": {"native": {"provider": 5}}}, "native.provider is a number"),
        ("message", {"message": {}, "usage": {"output_tokens": 1.5}}, "output_tokens"),
        ("decision", {"call_id": "c", "tool": "t", "verdict": True}, "decision.verdict"),
        ("decision", {"call_id": "c", "labels": [1]}, "decision.labels holds a number"),
        ("call_started", {"call_id": 7}, "call_started.call_id"),
        ("tool_result", {"result": {"call_id": "c", "is_error": "yes"}}, "is_error"),
        ("tool_result", {"result": {"call_id": "c"}, "usage": [{"model": 1}]}, "usage.model"),
    ],
)
def test_wrong_types_are_refused_with_the_field_named(
    etype: str, payload: dict[str, Any], problem: str
) -> None:
    with pytest.raises(BadEntry, match=problem.replace(".", r"\.")):
        _DECODERS[etype](payload)


@pytest.mark.parametrize("log", logs_in_testdata(), ids=lambda p: p.name)
def test_go_bytes_read_back_as_go_writes_them(log: Path) -> None:
    """Every line Go wrote (testdata is checked against Go) is written back byte for byte from
    a plain read (no raw text kept), except the lines that are bad on purpose and those an
    earlier agentloop logged raw; tests/log/test_roundtrip.py covers those with exact reads."""
    expected_to_differ = {
        "05_damaged_middle_line.jsonl": {17},
        "04_torn_tail.jsonl": {14},
        "06_transcript.jsonl": {9},
        "12_odd_bytes.jsonl": {3, 7, 11, 15},
        "15_unknown_entry.jsonl": {6, 7},
    }.get(log.name, set())
    lines = log.read_bytes().split(b"\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for number, raw in enumerate(lines, 1):
            if not raw or number in expected_to_differ:
                continue
            (entry,) = list(iter_entries(io.BytesIO(raw)))
            assert encode_entry(entry) == raw, f"{log.name}:{number}"


# Hypothesis: entries made from values survive the Go writer and the reader.

text = st.text(max_size=30)
ids = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_", min_size=1, max_size=12)
counts = st.integers(min_value=0, max_value=2**40)
usages = st.builds(Usage, counts, counts, counts, counts)
labels = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_.:@/+-", min_size=1, max_size=10),
    max_size=3,
).map(tuple)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | text,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=8,
)
parts = st.one_of(
    st.builds(Part, st.sampled_from(["text", "reasoning"]), text),
    st.builds(lambda i, n, v: Part("tool_call", "", ToolCall(i, n, v)), ids, ids, json_values),
    st.builds(
        lambda c, t, e: Part("tool_result", "", None, ToolResult(c, t, e)), ids, text, st.booleans()
    ),
)
natives = st.none() | st.builds(Native, st.sampled_from(["anthropic", "openai"]), ids, json_values)
messages = st.builds(
    Message, st.sampled_from(["user", "assistant"]), st.lists(parts, max_size=4).map(tuple), natives
)
errors = st.builds(
    ModelError,
    st.sampled_from(["rate_limited", "overloaded", "unreachable", "unauthorized"]),
    text,
    st.integers(0, 599),
    st.none() | st.integers(0, 2**62),
    st.none() | st.integers(0, 2**62),
)
payloads = st.one_of(
    st.builds(RunStartedEntry, text),
    st.builds(MessageEntry, messages, usages, st.sampled_from(["", "end_turn", "tool_use"]), ids),
    st.builds(DecisionEntry, ids, ids, st.sampled_from(["allow", "deny"]), text, labels),
    st.builds(CallStartedEntry, ids),
    st.builds(
        ToolResultEntry,
        st.builds(ToolResult, ids, text, st.booleans()),
        labels,
        text,
        st.lists(st.builds(ModelUsage, ids, usages), max_size=2).map(tuple),
    ),
    st.builds(ModelErrorEntry, errors, st.booleans(), st.integers(0, 10**6)),
    st.builds(
        Outcome,
        st.sampled_from(["completed", "limit", "model_error", "forbidden"]),
        st.integers(0, 100),
        usages,
        text,
        st.none() | errors,
        st.sampled_from(["", "max_turns"]),
        labels,
        st.lists(st.builds(Refusal, ids, ids, labels), max_size=2).map(tuple),
    ),
    st.builds(LabelsEntry, labels, st.sampled_from(["", "seed"])),
)
TYPES = {
    RunStartedEntry: "run_started",
    MessageEntry: "message",
    DecisionEntry: "decision",
    CallStartedEntry: "call_started",
    ToolResultEntry: "tool_result",
    ModelErrorEntry: "model_error",
    Outcome: "run_ended",
    LabelsEntry: "labels",
}
entries = st.builds(
    lambda seq, t, off, p: Entry(seq, t, TYPES[type(p)], p, off),
    st.integers(0, 2**31),
    st.integers(86_400 * 10**9, 253_402_214_399 * 10**9),  # years 1970 to 9999 in any offset
    st.integers(-(23 * 60 + 59), 23 * 60 + 59).map(lambda m: m * 60),
    payloads,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(entries, max_size=5))
def test_written_entries_read_back_equal(values: list[Entry]) -> None:
    data = b"".join(encode_entry(e) + b"\n" for e in values)
    # exact: an entry that repeats the one before it is kept (a plain read skips it)
    read = list(iter_entries(io.BytesIO(data), exact=True))
    assert read == values
    assert b"".join(encode_entry(e) + b"\n" for e in read) == data


@settings(max_examples=300, deadline=None)
@given(entries)
def test_decode_entry_agrees_with_the_checked_decoders(entry: Entry) -> None:
    obj = orjson.loads(encode_entry(entry))
    fast = decode_entry(obj, 1, lambda what: None)
    payload = obj[entry.type]
    checked = CHECKED.get(entry.type)
    if checked is not None:
        assert fast.payload == checked(payload)
    assert fast == entry


# Times: the fast path and the checked one agree, and bad input is refused by both.


@settings(max_examples=500, deadline=None)
@given(
    st.integers(0, 253_402_300_799 * 10**9),
    st.integers(-(23 * 60 + 59), 23 * 60 + 59).map(lambda m: m * 60),
    st.data(),
)
def test_time_fast_path_agrees_with_the_checked_path(
    unix_nano: int, offset: int, data: st.DataObject
) -> None:
    from sessiontools import format_rfc3339

    good = format_rfc3339(unix_nano, offset)
    if not good[:4].isdigit() or good[4] != "-":
        return
    assert parse_rfc3339(good) == _slow(good) == (unix_nano, offset)
    # The same text with one character changed: both paths agree (on a value or a refusal).
    at = data.draw(st.integers(0, len(good) - 1))
    changed = good[:at] + data.draw(st.sampled_from("0159:.-+TZz x٣")) + good[at + 1 :]
    try:
        expected: object = _slow(changed)
    except ValueError:
        expected = ValueError
    try:
        got: object = parse_rfc3339(changed)
    except ValueError:
        got = ValueError
    assert got == expected, changed
