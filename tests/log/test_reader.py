"""Bytes to entries (reading.md: "Lines", "Bytes", "Unknown")."""

from __future__ import annotations

import gzip
import io
import os
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    MAX_LINE_BYTES,
    DamagedLogError,
    EntryError,
    LogError,
    LogReader,
    LogStructureWarning,
    MessageEntry,
    ModelErrorEntry,
    TornTailWarning,
    UnknownEntry,
    UnknownEntryWarning,
    encode_entry,
    iter_entries,
    read_session,
)
from sessiontools._log.reader import printable, shown_name
from tests.helpers import REPO, assistant, line, outcome, read_bytes, result, t, user

README = REPO / "README.md"

RUN = (
    line(0, "run_started", {"prompt": "hi"})
    + line(1, "message", user("hi"))
    + line(2, "message", assistant(text="hello"))
    + line(3, "run_ended", outcome())
)


def entries(data: bytes) -> list[tuple[int, str]]:
    return [(e.seq, e.type) for e in read_bytes(data).entries]


def test_reads_entries_in_order() -> None:
    session = read_bytes(RUN)
    assert [(e.seq, e.type, e.line) for e in session.entries] == [
        (0, "run_started", 1),
        (1, "message", 2),
        (2, "message", 3),
        (3, "run_ended", 4),
    ]
    assert session.torn_tail is None and session.closing_line is None
    assert session.warnings == ()


def test_crlf_and_blank_lines() -> None:
    crlf = RUN.replace(b"\n", b"\r\n")
    padded = b"\n  \n" + RUN.replace(b"\n", b"\n\t \n") + b"\n\n"
    assert entries(crlf) == entries(RUN) == entries(padded)
    assert read_bytes(crlf).entries == read_bytes(RUN).entries


def test_only_one_trailing_cr_is_stripped() -> None:
    # "\r\r" at the end: one is the line ending, the other is JSON whitespace.
    assert entries(RUN.replace(b"\n", b"\r\r\n")) == entries(RUN)


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\u0085", "\r", "\x0b", "\x0c"])
def test_splits_on_newline_byte_only(sep: str) -> None:
    text = f"one{sep}two"
    data = line(0, "run_started", {"prompt": text}).replace(
        orjson.dumps(text), b'"' + text.encode() + b'"'
    )
    if sep in "\r\x0b\x0c":  # a raw control character is not allowed in a JSON string
        with pytest.raises(LogError):
            read_bytes(data + RUN.replace(b'"seq":0', b'"seq":9'))
        return
    session = read_bytes(data)
    (entry,) = session.entries
    assert entry.payload.prompt == text  # type: ignore[union-attr]


def test_torn_tail_is_ignored_and_reported() -> None:
    data = RUN + line(4, "run_started", {"prompt": "again"})[:25]
    offset = len(RUN)
    with pytest.warns(TornTailWarning, match=rf"line 5 \(byte {offset}\)"):
        session = read_session(io.BytesIO(data), name="s.jsonl")
    assert entries(data) == entries(RUN)
    assert session.torn_tail is not None
    assert (session.torn_tail.line, session.torn_tail.offset, session.torn_tail.length) == (
        5,
        offset,
        25,
    )
    assert len(session.warnings) == 1


def test_torn_tail_followed_by_blank_lines() -> None:
    data = RUN + b'{"seq":4,"ti' + b"\n  \n\n"
    session = read_bytes(data)
    assert session.torn_tail is not None and session.torn_tail.line == 5
    assert len(session.entries) == 4


def test_damaged_middle_line_names_file_line_and_offset() -> None:
    lines = RUN.splitlines(keepends=True)
    data = lines[0] + lines[1][:30] + b"\n" + b"".join(lines[2:])
    with pytest.raises(DamagedLogError) as info:
        read_session(io.BytesIO(data), name="logs/s.jsonl")
    e = info.value
    assert (e.name, e.line, e.offset) == ("logs/s.jsonl", 2, len(lines[0]))
    assert str(e).startswith(f"logs/s.jsonl: line 2 (byte {len(lines[0])}): not complete JSON")
    assert "\n" not in str(e)


def test_closing_outcome_line_is_kept_aside() -> None:
    closing = orjson.dumps({**outcome(turns=1), "cost_usd": 0.0123}) + b"\n"
    session = read_bytes(RUN + closing)
    assert len(session.entries) == 4
    c = session.closing_line
    assert c is not None
    assert (c.line, c.offset, c.cost_usd) == (5, len(RUN), 0.0123)
    assert c.outcome is not None and c.outcome.reason == "completed" and c.outcome.turns == 1


def test_closing_outcome_line_nested_under_a_key() -> None:
    closing = orjson.dumps({"outcome": outcome(reason="limit", limit="max_turns"), "cost_usd": 2})
    c = read_bytes(RUN + closing).closing_line
    assert c is not None and c.outcome is not None
    assert (c.outcome.reason, c.outcome.limit, c.cost_usd) == ("limit", "max_turns", 2.0)


def test_closing_line_without_cost() -> None:
    c = read_bytes(RUN + orjson.dumps(outcome())).closing_line
    assert c is not None and c.cost_usd is None


def test_json_that_is_not_an_entry_before_the_last_line_is_an_error() -> None:
    data = RUN + orjson.dumps(outcome()) + b"\n" + line(9, "run_started", {})
    with pytest.raises(EntryError, match=r"line 5 .*not an entry"):
        read_bytes(data)


def test_last_line_json_but_not_an_object() -> None:
    with pytest.raises(EntryError, match="line 5"):
        read_bytes(RUN + b"[1, 2]\n")


# Bytes an earlier agentloop logged verbatim (reading.md, "Bytes").


def _input_line(raw_input: bytes) -> bytes:
    payload = assistant(("c1", "read"))
    data = line(2, "message", payload)
    return data.replace(b'"input":{}', b'"input":' + raw_input)


def _input(data: bytes) -> object:
    entry = read_bytes(RUN[: RUN.index(b"\n") + 1] + data).entries[1]
    assert isinstance(entry.payload, MessageEntry)
    (call,) = entry.payload.message.tool_calls
    return call.input


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        # Go's decoder: each byte of invalid UTF-8 becomes one U+FFFD (utf8.DecodeRune, width 1).
        (b'{"p":"a\xffb"}', {"p": "a\ufffdb"}),
        (b'{"p":"\xe2\x82A"}', {"p": "\ufffd\ufffdA"}),  # a truncated 3-byte sequence
        (b'{"p":"\xed\xa0\xbd"}', {"p": "\ufffd\ufffd\ufffd"}),  # a UTF-8 encoded surrogate
        (b'{"p":"\xc0\xaf"}', {"p": "\ufffd\ufffd"}),  # an overlong encoding
        # Escaped lone surrogates become U+FFFD; a proper pair is one character.
        (b'{"p":"\\ud83d"}', {"p": "\ufffd"}),
        (b'{"p":"\\ud83dx"}', {"p": "\ufffdx"}),
        (b'{"p":"\\ude00\\ud83d"}', {"p": "\ufffd\ufffd"}),
        (b'{"p":"\\ud83d\\ude00"}', {"p": "\U0001f600"}),
        (b'{"\\ud83d":1}', {"\ufffd": 1}),
        # A repeated name: the last wins, on the fast path and the fallback alike.
        (b'{"p":"a.txt","p":"b.txt"}', {"p": "b.txt"}),
        (b'{"p":"a\xff","p":"b.txt"}', {"p": "b.txt"}),
        # Line separators inside strings, raw and escaped.
        (b'{"p":"a\xe2\x80\xa8b\xc2\x85c\\u2028"}', {"p": "a\u2028b\u0085c\u2028"}),
    ],
)
def test_bytes_are_read_as_go_reads_them(raw: bytes, expected: object) -> None:
    value = _input(_input_line(raw))
    assert value == expected
    orjson.dumps(value)  # whatever is read can be written again as valid UTF-8


def test_invalid_byte_outside_a_string_is_damage() -> None:
    data = _input_line(b'{"p":1}\xff') + RUN
    with pytest.raises(DamagedLogError):
        read_bytes(data)


@pytest.mark.parametrize("constant", [b"NaN", b"Infinity", b"-Infinity"])
def test_non_json_constants_are_not_json(constant: bytes) -> None:
    with pytest.raises(DamagedLogError):
        read_bytes(_input_line(b'{"p":' + constant + b"}") + RUN)


def test_very_long_line() -> None:
    content = "x" * (24 * 1024 * 1024) + "é"
    data = (
        line(0, "run_started", {"prompt": "p"})
        + line(1, "tool_result", result("c1", content))
        + line(2, "run_ended", outcome())
    )
    session = read_bytes(data)
    assert session.entries[1].payload.result.content == content  # type: ignore[union-attr]


# Unknown things come from a newer agentloop: kept, warned once.


def test_unknown_entry_type_is_kept_and_warned_once() -> None:
    data = (
        RUN
        + line(4, "checkpoint", {"at": 1})
        + line(5, "checkpoint", {"at": 2})
        + line(6, "run_started", {"prompt": "x", "mode": "fast"})
        + line(7, "run_started", {"prompt": "y", "mode": "slow"})
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = read_session(io.BytesIO(data), name="s.jsonl")
    messages = [str(w.message) for w in caught if issubclass(w.category, UnknownEntryWarning)]
    assert len(messages) == 2
    assert "line 5: unknown entry type 'checkpoint'" in messages[0]
    assert "line 7: unknown field run_started.mode" in messages[1]
    unknown = session.entries[4]
    assert unknown.type == "checkpoint"
    assert unknown.payload == UnknownEntry("checkpoint", {"at": 1})
    assert session.warnings == tuple(messages)


def test_unknown_top_level_field() -> None:
    data = RUN.replace(b'{"seq":0,', b'{"seq":0,"run_id":"r1",', 1)
    with pytest.warns(UnknownEntryWarning, match="field 'run_id'"):
        read_session(io.BytesIO(data))


# Complete JSON that is not a usable entry: an error, like Go's decoder.


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (b'{"seq":"1","time":"%s","type":"labels","labels":{"labels":[]}}', "seq is a string"),
        (b'{"seq":1.0,"time":"%s","type":"labels","labels":{"labels":[]}}', "seq is a number"),
        (b'{"seq":1,"time":"yesterday","type":"labels","labels":{"labels":[]}}', "RFC 3339"),
        (b'{"seq":1,"type":"labels","labels":{"labels":[]}}', "time is null"),
        (b'{"seq":1,"time":"%s","type":"labels"}', "without its 'labels' object"),
        (b'{"seq":1,"time":"%s","type":"labels","labels":{"labels":"a"}}', "labels.labels is"),
        (
            b'{"seq":1,"time":"%s","type":"message","message":{"usage":{"input_tokens":"5"}}}',
            "message.usage.input_tokens is a string",
        ),
        (
            b'{"seq":1,"time":"%s","type":"model_error","model_error":{"error":{"kind":"x",'
            b'"message":"","retry_after":"soon"},"retry":true}}',
            "retry_after",
        ),
    ],
)
def test_unusable_entries(bad: bytes, problem: str) -> None:
    if b"%s" in bad:
        bad = bad % t(1).encode()
    data = line(0, "run_started", {}) + bad + b"\n"
    with pytest.raises(EntryError, match=problem) as info:
        read_bytes(data)
    assert (info.value.line, info.value.offset) == (2, len(line(0, "run_started", {})))


def test_go_zero_time_is_unset() -> None:
    error = {
        "kind": "rate_limited",
        "status": 429,
        "message": "slow down",
        "retry_after": "0001-01-01T00:00:00Z",
        "resets_at": "2026-10-18T09:31:00Z",
    }
    data = line(0, "model_error", {"error": error, "retry": True, "wait_ms": 1500})
    (entry,) = read_bytes(data).entries
    assert isinstance(entry.payload, ModelErrorEntry)
    assert entry.payload.error.retry_after_unix_nano is None
    assert entry.payload.error.resets_at_unix_nano == 1_792_315_860 * 10**9
    assert (entry.payload.retry, entry.payload.wait_ms) == (True, 1500)


# Sources: paths and binary files; never written.


def test_path_and_file_read_the_same(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(RUN)
    with open(path, "rb") as f:
        from_file = read_session(f)
        assert not f.closed  # the caller's file is the caller's to close
    from_path = read_session(path)
    assert from_file.entries == from_path.entries
    assert from_file.name == from_path.name == str(path)


def test_text_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(RUN)
    with open(path) as f, pytest.raises(TypeError, match="binary mode"):
        read_session(f)  # type: ignore[arg-type]


def test_reader_closes_what_it_opened(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(RUN)
    reader = iter_entries(path)
    assert len(list(reader)) == 4
    assert reader._file.closed
    with pytest.raises(RuntimeError):
        list(reader)


def test_reading_never_changes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(RUN + b'{"seq":4,')
    os.chmod(path, 0o444)
    before = os.stat(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_session(path)
    after = os.stat(path)
    assert path.read_bytes() == RUN + b'{"seq":4,'
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


def test_log_still_being_written_reads_to_its_last_complete_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    with open(path, "wb") as writer:
        writer.write(RUN[:-20])
        writer.flush()
        with pytest.warns(TornTailWarning):
            first = read_session(path)
        writer.write(RUN[-20:])
        writer.flush()
        second = read_session(path)
    assert len(first.entries) == 3 and first.torn_tail is not None
    assert len(second.entries) == 4 and second.torn_tail is None


def test_reader_streams_one_line_at_a_time() -> None:
    """The reader hands out an entry before it has read the rest of the file."""

    class Lines(io.RawIOBase):
        def __init__(self) -> None:
            self.lines = RUN.splitlines(keepends=True)
            self.served = 0

        def readable(self) -> bool:
            return True

        def readline(self, size: int | None = -1) -> bytes:
            if self.served == len(self.lines):
                return b""
            self.served += 1
            return self.lines[self.served - 1]

    source = Lines()
    reader = LogReader(source)  # type: ignore[arg-type]
    first = next(iter(reader))
    assert first.seq == 0 and source.served == 1


# Properties.


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=60) | st.sampled_from(RUN.splitlines()), max_size=8))
def test_arbitrary_lines_are_read_or_rejected_with_a_log_error(lines: list[bytes]) -> None:
    try:
        read_bytes(b"\n".join(lines))
    except LogError as e:
        assert "\n" not in str(e)


def test_last_line_json_that_is_no_outcome_is_an_error() -> None:
    with pytest.raises(EntryError, match=r"line 5 .*nor a run's outcome"):
        read_bytes(RUN + b'{"name": "my-package", "version": "1.0.0"}\n')


def test_a_json_file_that_is_no_log_is_an_error() -> None:
    with pytest.raises(EntryError, match="line 1"):
        read_bytes(b'{"hello": 1}\n')


# The same entry twice in one log (issue 10, item 5).


def test_an_entry_repeating_the_one_before_is_skipped_with_one_warning() -> None:
    lines = RUN.splitlines(keepends=True)
    data = b"".join([lines[0], lines[1], lines[1], lines[2], lines[2], lines[2], lines[3]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = read_session(io.BytesIO(data), name="s.jsonl")
    assert [e.seq for e in session.entries] == [0, 1, 2, 3]
    assert [e.line for e in session.entries] == [1, 2, 4, 7]  # lines keep their numbers
    said = [str(w.message) for w in caught]
    assert said == [
        f"s.jsonl: line 3 (byte {len(lines[0]) + len(lines[1])}): the entry of line 2 (seq 1) "
        "again, byte for byte: a copy, skipped (and any other such copy in this log; reported "
        "once)"
    ]
    assert caught[0].category is LogStructureWarning
    assert session.runs == read_bytes(RUN).runs


def test_a_repeat_with_another_line_end_is_a_repeat_too() -> None:
    lines = RUN.splitlines(keepends=True)
    crlf = lines[1].replace(b"\n", b"\r\n")
    no_end = lines[3].rstrip(b"\n")
    data = lines[0] + lines[1] + crlf + lines[2] + lines[3] + no_end
    assert [e.seq for e in read_bytes(data).entries] == [0, 1, 2, 3]


def test_entries_alike_but_not_repeated_are_kept() -> None:
    lines = RUN.splitlines(keepends=True)
    other = lines[1].replace(b'"seq":1', b'"seq":9')  # same payload, another seq
    spaced = lines[1].replace(b'"seq":1,', b'"seq": 1,')  # same entry, other bytes
    apart = lines[1] + lines[2] + lines[1]  # not the one just before
    for data in (lines[0] + lines[1] + other, lines[0] + lines[1] + spaced, lines[0] + apart):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert len(read_bytes(data).entries) == data.count(b"\n")


def test_an_exact_read_keeps_a_repeated_entry() -> None:
    """The stores read exactly: what Go wrote is written back as it was, copies included (Go's
    Load keeps them), and nothing is said."""
    lines = RUN.splitlines(keepends=True)
    data = lines[0] + lines[1] + lines[1] + b"".join(lines[2:])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read = list(LogReader(io.BytesIO(data), exact=True))
    assert [e.seq for e in read] == [0, 1, 1, 2, 3]
    assert b"".join(encode_entry(e) + b"\n" for e in read) == data


# A gzip log, and other binary input (item 19).


def test_a_gzip_log_reads_as_the_log(tmp_path: Path) -> None:
    plain = tmp_path / "s.jsonl"
    plain.write_bytes(RUN)
    packed = tmp_path / "s.jsonl.gz"
    packed.write_bytes(gzip.compress(RUN))
    renamed = tmp_path / "s.jsonl"  # found by its bytes, not its name
    other = tmp_path / "t.jsonl"
    other.write_bytes(gzip.compress(RUN))
    expected = read_session(plain)
    with open(packed, "rb") as opened:
        for source in (packed, other, opened, io.BytesIO(packed.read_bytes())):
            got = read_session(source)  # type: ignore[arg-type]
            assert got.entries == expected.entries and got.runs == expected.runs
    assert read_session(packed).name == str(packed)
    assert renamed.exists()


def test_a_gzip_stream_that_gives_one_byte_at_a_time_reads_too() -> None:
    """A pipe can give the first byte alone: the reader waits for the second to decide."""

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            if not self.data:
                return 0
            buffer[0] = self.data[0]
            self.data = self.data[1:]
            return 1

    for data in (gzip.compress(RUN), RUN, b"\x1f" + RUN):
        stream = io.BufferedReader(Trickle(data))
        try:
            got = [e.seq for e in LogReader(stream)]
        except DamagedLogError as e:
            assert data.startswith(b"\x1f") and "not an agentloop JSON-lines log" in str(e)
        else:
            assert got == [0, 1, 2, 3]


def test_a_concatenated_gzip_log_reads_whole() -> None:
    half = len(RUN) // 2
    data = gzip.compress(RUN[:half]) + gzip.compress(RUN[half:])
    assert [e.seq for e in LogReader(io.BytesIO(data))] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (gzip.compress(RUN)[:40], "the gzip data ends early (a compressed log cut short)"),
        (gzip.compress(RUN)[:12] + b"\xff" * 40, "the gzip data is damaged"),
    ],
)
def test_a_damaged_gzip_log_is_one_error(data: bytes, problem: str) -> None:
    with pytest.raises(DamagedLogError) as caught:
        list(LogReader(io.BytesIO(data), name="s.jsonl.gz"))
    message = str(caught.value)
    assert message.startswith("s.jsonl.gz: line ") and problem in message
    assert "restore the compressed log" in message and "\n" not in message


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"x" * 50, "binary data (byte 0x03 at byte 3"),
        (b"\x28\xb5\x2f\xfd\x04\x58\x01\x00\n" + RUN, "binary data (byte 0xb5 at byte 2"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "binary data (byte 0x89 at byte 1"),
        (b"\xef\xbb\xbfhi\xff\n", "binary data (byte 0xff at byte 6"),
        (b"name,seq\nx,1\n", "the first line is not JSON and does not start with '{'"),
        (b"\n\n  hello\n", "the first line is not JSON"),
    ],
)
def test_binary_input_is_not_an_agentloop_log(data: bytes, what: str) -> None:
    with pytest.raises(DamagedLogError) as caught:
        list(LogReader(io.BytesIO(data), name="x.jsonl"))
    message = str(caught.value)
    assert message.startswith("x.jsonl: line ") and "(byte " in message
    assert f"not an agentloop JSON-lines log: {what}" in message
    assert "orjson" not in message and "surrogates" not in message and "\n" not in message


def test_binary_data_further_on_is_damage_said_in_words() -> None:
    first = RUN.index(b"\n") + 1
    with pytest.raises(DamagedLogError, match=rf"line 2 \(byte {first}\): binary data, not JSON "):
        read_bytes(RUN[:first] + b'{"seq":\x00\xff\n' + RUN[first:])
    with pytest.raises(DamagedLogError) as caught:
        read_bytes(RUN + b'{"seq":\xff,\xfe}\n' + RUN)
    assert "UTF-8" not in str(caught.value) and "not complete JSON (" in str(caught.value)


def test_nul_bytes_left_by_a_crash_are_a_torn_tail() -> None:
    for tail in (b"\x00" * 4096, b'{"seq":4,"ti' + b"\x00" * 100):
        with pytest.warns(TornTailWarning):
            session = read_session(io.BytesIO(RUN + tail))
        assert len(session.entries) == 4
    with pytest.warns(TornTailWarning):
        assert read_session(io.BytesIO(b"\x00" * 512)).entries == ()


# One line's size (item 27).


def test_a_line_longer_than_the_limit_is_one_error() -> None:
    long = line(1, "message", user("x" * 5000))
    offset = RUN.index(b"\n") + 1
    data = RUN[:offset] + long + RUN[offset:]  # not the last line
    with pytest.raises(LogError) as caught:
        list(LogReader(io.BytesIO(data), name="s.jsonl", max_line_bytes=4096))
    assert str(caught.value) == (
        f"s.jsonl: line 2 (byte {offset}): longer than 4,096 bytes (4 KiB), the limit on one "
        "line; if the log is right, raise the limit: --max-line-bytes on the command line, "
        "max_line_bytes= in the library"
    )
    assert len(list(LogReader(io.BytesIO(data), max_line_bytes=len(long) - 1))) == 5  # no "\n"
    with pytest.raises(LogError, match="longer than"):
        list(LogReader(io.BytesIO(data), max_line_bytes=len(long) - 2))
    assert len(list(LogReader(io.BytesIO(data), max_line_bytes=None))) == 5


def test_the_limit_holds_for_a_last_line_and_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(RUN + b"{" + b" " * 10_000)  # a torn tail, but too long
    with pytest.raises(LogError, match=r"line 5 .*longer than 1,000 bytes"):
        read_session(path, max_line_bytes=1000)
    with pytest.raises(LogError, match="longer than"):
        list(iter_entries(path, max_line_bytes=1000))
    with pytest.warns(TornTailWarning):
        assert len(read_session(path).entries) == 4  # the default is far above


def test_an_endless_line_is_read_only_up_to_the_limit() -> None:
    """``/dev/zero``: a line with no end. Reading stops one byte past the limit."""

    class Zeros(io.RawIOBase):
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            buffer[:] = bytes(len(buffer))
            self.served += len(buffer)
            return len(buffer)

    zeros = Zeros()
    with pytest.raises(LogError, match=r"line 1 .*longer than 1,048,576 bytes"):
        list(LogReader(io.BufferedReader(zeros), max_line_bytes=1 << 20))
    assert zeros.served < 2 << 20


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", True])
def test_max_line_bytes_must_be_a_positive_integer(bad: object) -> None:
    with pytest.raises(ValueError, match="max_line_bytes"):
        LogReader(io.BytesIO(RUN), max_line_bytes=bad)  # type: ignore[arg-type]


def test_max_line_bytes_default_is_documented() -> None:
    assert MAX_LINE_BYTES == 256 * 1024 * 1024
    assert "--max-line-bytes" in README.read_text() and "256 MiB" in README.read_text()


# Text from the log, and file names, in messages (items 7 and 30).


def test_an_unknown_field_name_is_escaped_in_the_warning() -> None:
    data = RUN.replace(b'"prompt":"hi"', b'"prompt":"hi","\\u001b]0;owned\\u0007x\\u009b":1')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_session(io.BytesIO(data), name="s.jsonl")
    (message,) = [str(w.message) for w in caught]
    assert "\x1b" not in message and "\x07" not in message and "\x9b" not in message
    assert "run_started.\\x1b]0;owned\\x07x\\x9b" in message


def test_a_name_that_is_not_utf8_is_shown_with_replacement_characters(tmp_path: Path) -> None:
    path = os.path.join(os.fsencode(tmp_path), b"caf\xe9\xff.jsonl")
    with open(path, "wb") as f:
        f.write(RUN + b'{"seq":')
    name = os.fsdecode(path)  # as Python gives it: "caf\udce9\udcff.jsonl"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = read_session(name)
    assert session.name == os.fsdecode(os.fsencode(tmp_path)) + "/caf\ufffd\ufffd.jsonl"
    assert session.name.encode("utf-8")  # valid text
    (message,) = [str(w.message) for w in caught]
    assert "caf\ufffd\ufffd.jsonl: line 5" in message
    assert shown_name("a\udce9b") == "a\ufffdb" and shown_name("plain") == "plain"


def test_printable_escapes_what_a_terminal_would_act_on() -> None:
    assert printable("a\x1b[2Jb\rc\nd\te\x7f\x9b\u202e\udcff") == (
        "a\\x1b[2Jb\\rc\\nd\\te\\x7f\\x9b\\u202e\ufffd"
    )
    assert printable("café ✓ 日本") == "café ✓ 日本"


# A log read while it is written (item 20), as a property: whenever the writer is, a read that
# reaches the end of what is written sees a prefix of the log, never damage.

GROWN = RUN + RUN.replace(b'"seq":', b'"seq":1').replace(b'"hi"', b'"again"')


class Growing(io.RawIOBase):
    """A file a writer appends to: what is written grows by the next step each time a read
    finds the end (the writer writes while the reader works)."""

    def __init__(self, data: bytes, steps: list[int]) -> None:
        super().__init__()
        self.data = data
        self.steps = steps
        self.written = steps.pop(0) if steps else len(data)
        self.at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.at >= self.written:  # the end, as this read sees it; then the writer goes on
            self.written = min(
                len(self.data), self.written + (self.steps.pop(0) if self.steps else 1)
            )
            return 0
        n = min(len(buffer), self.written - self.at)
        buffer[:n] = self.data[self.at : self.at + n]
        self.at += n
        return n


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 120), max_size=40), st.booleans())
def test_a_read_while_the_log_is_written_sees_a_prefix(steps: list[int], exact: bool) -> None:
    everything = [e.seq for e in read_bytes(GROWN).entries]
    source = io.BufferedReader(Growing(GROWN, steps), buffer_size=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TornTailWarning)
        seen = [e.seq for e in LogReader(source, exact=exact)]  # never a LogError
    assert seen == everything[: len(seen)]
