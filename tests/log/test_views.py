"""Typed decoding for the exporters (``sessiontools._log.views``, ``ExportReader``): a log read
this way exports exactly what the checked way (``LogReader(..., export=True)``) exports, bytes,
warnings and errors, whatever the lines hold; and the lines agentloop writes are taken by the
typed way, not read again."""

from __future__ import annotations

import io
import json
import random
import warnings
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessiontools import NIL, NIL_MAP, Entry, SessionToolsError, export_otlp_json
from sessiontools._log import reader as reader_module
from sessiontools._log.decode import (
    ENTRY_FIELDS,
    PAYLOAD_FIELDS,
    BadEntry,
    decode_entry,
    is_entry_shaped,
)
from sessiontools._log.limits import ExportLimits
from sessiontools._log.rawjson import go_loads
from sessiontools._log.reader import ExportReader, LogReader
from sessiontools._log.views import (
    CallStartedView,
    DecisionView,
    MessageView,
    ToolResultView,
    decode_view,
)
from sessiontools._otel import export as export_module
from tests.helpers import SESSIONS, assistant, line, logs_in_testdata, outcome, result, user
from tests.parallel.test_split_edges import random_log

Outcome = tuple[bytes, list[str], tuple[type[BaseException], str] | None]


class _Checked(ExportReader):
    """The exporters' reader with typed decoding off: every line the checked way."""

    views = False


def _export(path: Path, checked: bool, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    """What the traces export gives, read the typed way or the checked way."""
    out = bytearray()
    error = None
    with monkeypatch.context() as m:
        if checked:
            m.setattr(export_module, "ExportReader", _Checked)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                export_otlp_json(path, out.extend, workers=1)
            except SessionToolsError as e:
                error = (type(e), str(e))
    return bytes(out), [str(w.message) for w in caught], error


def _same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> Outcome:
    typed = _export(path, False, monkeypatch)
    assert typed == _export(path, True, monkeypatch)
    return typed


@pytest.mark.parametrize("log", logs_in_testdata(), ids=lambda p: p.name)
def test_sample_logs_export_the_same_either_way(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _same_both_ways(log, monkeypatch)


def test_random_logs_export_the_same_either_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    warned = 0
    for i in range(300):
        path = tmp_path / f"r{i}.jsonl"
        path.write_bytes(random_log(random.Random(i)))
        warned += bool(_same_both_ways(path, monkeypatch)[1])
    assert 100 < warned < 300


def _taken(data: bytes) -> list[bool]:
    return [decode_view(raw, n) is not None for n, raw in enumerate(data.splitlines(True), 1)]


@pytest.mark.parametrize(
    "log",
    [
        "01_one_run_tool.jsonl",
        "02_runs_anthropic_openai_cache.jsonl",
        "07_model_errors.jsonl",
        "08_tool_model_calls.jsonl",
        "09_refused_and_forbidden.jsonl",
        "13_labels_and_pins.jsonl",
    ],
)
def test_the_lines_go_writes_are_taken_the_typed_way(log: str) -> None:
    """Each line of a log as Go writes it is decoded the typed way: a speed test as much as a
    correctness one (the checked decoders load only for a line the typed way leaves)."""
    data = (SESSIONS / log).read_bytes()
    assert all(_taken(data))


def test_views_hold_what_the_fold_reads() -> None:
    message = decode_view(line(2, "message", assistant(("c1", "clock"), ("c2", "ls"))), 3)
    assert message is not None and message.line == 3 and message.seq == 2
    assert isinstance(message.payload, MessageView)
    assert message.payload.message is not None
    assert [(c.id, c.name) for c in message.payload.message.tool_calls] == [
        ("c1", "clock"),
        ("c2", "ls"),
    ]
    assert message.payload.usage is not None and message.payload.usage.input_tokens == 100
    decision = decode_view(line(3, "decision", {"call_id": "c1", "verdict": "allow"}), 4)
    assert decision is not None and isinstance(decision.payload, DecisionView)
    assert decision.payload.labels == () and decision.payload.tool == ""
    started = decode_view(line(4, "call_started", {"call_id": "c1"}), 5)
    assert started is not None and isinstance(started.payload, CallStartedView)
    done = decode_view(line(5, "tool_result", result("c1", "x" * 10_000, is_error=True)), 6)
    assert done is not None and isinstance(done.payload, ToolResultView)
    assert done.payload.result is not None and done.payload.result.is_error


@pytest.mark.parametrize(
    "raw",
    [
        # Go reads null into a zero value; the checked decoders say so
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"decision","decision":{"call_id":null}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"decision","decision":{"labels":null}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"message","message":null}',
        # an unknown field, at the entry's level and the payload's
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"call_started","call_started":{},"x":1}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"call_started","call_started":{"x":1}}',
        # a string the export never reads, of the wrong type
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"decision","decision":{"reason":1}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"tool_result","tool_result":'
        b'{"result":{"content":[]}}}',
        # outside signed 64 bits, where msgspec reads any integer into a dataclass
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"message","message":{"message":{},'
        b'"usage":{"input_tokens":9223372036854775808}}}',
        b'{"seq":9223372036854775808,"time":"2026-10-18T09:30:01Z","type":"call_started",'
        b'"call_started":{}}',
        # a lone surrogate; not a time; a display's text that is not one; an error's time
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"call_started","call_started":'
        b'{"call_id":"\\ud800"}}',
        b'{"seq":1,"time":"yesterday","type":"call_started","call_started":{}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"tool_result","tool_result":'
        b'{"result":{},"display":{"title":1}}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"tool_result","tool_result":'
        b'{"result":{},"display":{"sources":[{"ref":[]}]}}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"run_ended","run_ended":'
        b'{"reason":"model_error","error":{"kind":"billing","resets_at":"soon"}}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"model_error","model_error":'
        b'{"error":{"retry_after":5}}}',
        # null where Go reads a zero value; an unknown type
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"pins","pins":{"pins":{"t":null}}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"labels","labels":{"labels":[null]}}',
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"checkpoint","checkpoint":{}}',
    ],
)
def test_what_only_the_checked_way_says_is_left_to_it(raw: bytes) -> None:
    assert decode_view(raw, 1) is None


def test_a_string_the_export_never_reads_is_not_checked_for_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invalid UTF-8 in a result's content is read by both ways (the checked way as U+FFFD):
    the typed way takes the line without making the content a string."""
    raw = line(5, "tool_result", result("c1", "caf\u00e9")).replace(b"\xc3\xa9", b"\xe9")
    assert decode_view(raw, 1) is not None
    path = tmp_path / "odd.jsonl"
    path.write_bytes(
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", assistant(("c1", "t")))
        + raw
        + line(6, "run_ended", outcome())
    )
    assert _same_both_ways(path, monkeypatch)[2] is None


def test_nested_deeper_than_python_recurses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """msgspec refuses what Python's recursion limit cannot hold; the checked way reads it (Go
    reads 10,000 levels) or says it is too deep."""
    for depth in (900, 5000, 10_001):
        data = b"[" * depth + b"]" * depth
        raw = (
            b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"message","message":{"message":'
            b'{"role":"assistant","parts":[{"type":"tool_call","tool_call":{"id":"c","name":"t",'
            b'"input":' + data + b'}}]},"usage":{}}}\n'
        )
        path = tmp_path / f"deep{depth}.jsonl"
        path.write_bytes(line(0, "run_started", {}) + raw + line(2, "run_ended", outcome()))
        _same_both_ways(path, monkeypatch)


def test_the_reader_loads_msgspec_only_for_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty log is read without the typed decoder (msgspec takes time to import)."""
    loaded: list[bool] = []
    real = reader_module._decode_view

    def counting() -> Any:
        loaded.append(True)
        return real()

    monkeypatch.setattr(reader_module, "_decode_view", counting)
    assert list(ExportReader(SESSIONS / "14_empty.jsonl")) == []
    assert not loaded
    assert len(list(ExportReader(SESSIONS / "01_one_run_tool.jsonl"))) > 1
    assert loaded == [True]


def test_a_repeated_line_is_skipped_before_the_limits_count_it() -> None:
    """The export reader tells a copy of the entry before apart once it is decoded (by its
    seq, then its bytes), and skips it before the export limits see it: a turn whose tokens
    reach 2^63-1, written twice (the second time with another line end), is read once and
    counted once, with one warning."""
    big = 2**63 - 1
    turn = line(2, "message", assistant(text="a", u={"input_tokens": big}))
    data = (
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", user("p"))
        + turn
        + turn.replace(b"\n", b"\r\n")
        + turn
        + line(3, "run_ended", outcome())
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read = [(e.seq, e.line) for e in ExportReader(io.BytesIO(data), name="s.jsonl")]
    assert read == [(0, 1), (1, 2), (2, 3), (3, 6)]
    assert [str(w.message) for w in caught] == [
        f"s.jsonl: line 4 (byte {data.index(turn) + len(turn)}): the entry of line 3 (seq 2) "
        "again, byte for byte: a copy, skipped (and any other such copy in this log; reported "
        "once)"
    ]


def test_an_exact_export_reader_is_refused() -> None:
    with pytest.raises(ValueError, match="exact"):
        ExportReader(SESSIONS / "01_one_run_tool.jsonl", exact=True)


def test_a_part_is_read_the_same_way() -> None:
    reader = ExportReader(SESSIONS / "01_one_run_tool.jsonl")
    assert type(reader.part(reader.position)) is ExportReader
    assert type(LogReader(SESSIONS / "01_one_run_tool.jsonl").part(reader.position)) is LogReader
    reader.close()


# Mutations of the lines of a sample log: each replaces one JSON value (at the entry's level, the
# payload's or deeper) with a value of another kind, adds a name, gives one twice, or puts odd
# bytes into a string.
_VALUES = [
    None,
    True,
    0,
    -1,
    2**63 - 1,
    2**63,
    -(2**63) - 1,
    2**64,
    1.5,
    "",
    "x",
    "2026-10-18T09:30:01Z",
    "0001-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    [],
    ["a", None],
    ["a"],
    {},
    {"z": 1},
]


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*at, i))
    return found


def _set(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    value[at[0]] = _set(value[at[0]], at[1:], new)
    return value


def _dumps(value: Any) -> bytes:
    """JSON as Go writes it, but for integers of any size (orjson takes 64 bits)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _mutate(raw: bytes, how: int, pick: int, value: Any) -> bytes:
    obj = orjson.loads(raw)
    paths = _paths(obj)[1:]
    at = paths[pick % len(paths)]
    if how == 0:
        return _dumps(_set(obj, at, value)) + b"\n"
    if how == 1:  # a name this version does not know, in the object at `at` or around it
        objects = [p for p in [(), *paths] if isinstance(_get(obj, p), dict)]
        target = _get(obj, objects[pick % len(objects)])
        target["unknown_name"] = value
        return _dumps(obj) + b"\n"
    text = _dumps(obj)
    if how == 2:  # a name given twice: the value before the last one given
        key = _dumps(at[-1]) if isinstance(at[-1], str) else None
        if key is None or text.count(key + b":") != 1:
            return text + b"\n"
        return text.replace(key + b":", key + b":" + _dumps(value) + b"," + key + b":") + b"\n"
    # odd bytes in a string: invalid UTF-8, a lone surrogate, an escape Go does not write
    odd = [b"\xff", b"\\ud800", b"\\u00e9", b"\xed\xa0\x80", b"\\/"][pick % 5]
    quotes = [i for i in range(len(text)) if text[i : i + 1] == b'"']
    if len(quotes) < 2:
        return text + b"\n"
    i = quotes[(pick * 7) % (len(quotes) - 1)] + 1
    return text[:i] + odd + text[i:] + b"\n"


def _get(value: Any, at: tuple[Any, ...]) -> Any:
    for k in at:
        value = value[k]
    return value


_LOGS = [
    SESSIONS / "01_one_run_tool.jsonl",
    SESSIONS / "03_crash_while_call_runs.jsonl",
    SESSIONS / "07_model_errors.jsonl",
    SESSIONS / "08_tool_model_calls.jsonl",
    SESSIONS / "09_refused_and_forbidden.jsonl",
    SESSIONS / "13_labels_and_pins.jsonl",
]


def _projection(entry: Entry) -> tuple[Any, ...]:
    """What the fold and the export limits read of an entry, views and payloads alike."""
    p: Any = entry.payload
    head = (entry.seq, entry.time_unix_nano, entry.utc_offset_seconds, entry.type, entry.line)
    if entry.type == "message":
        body = p.message
        native = body.native
        calls = tuple((c.id, c.name) for c in body.tool_calls)
        where = (native.provider, native.model) if native is not None else None
        return (*head, body.role, where, calls, p.usage, p.stop, p.model)
    if entry.type == "decision":
        return (*head, p.call_id, p.tool, p.verdict, tuple(p.labels))
    if entry.type == "call_started":
        return (*head, p.call_id)
    if entry.type == "tool_result":
        usage = tuple((m.model, m.usage) for m in p.usage)
        return (*head, p.result.call_id, p.result.is_error, tuple(p.labels), usage)
    if entry.type == "labels":
        return (*head, p, p.labels is NIL)  # Go's nil apart from empty, as the checked way
    if entry.type == "pins":
        return (*head, p, p.pins is NIL_MAP)
    return (*head, p)


def _checked(raw: bytes) -> Entry | str:
    """The line read the checked way, as the reader reads it: the entry, or what stops it."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        try:
            obj = go_loads(raw.rstrip(b"\r\n"))
        except ValueError:
            return "not JSON"
    if not is_entry_shaped(obj):
        return "not an entry"
    unknown: list[str] = []
    try:
        entry = decode_entry(obj, 1, unknown.append)
    except BadEntry as e:
        return f"not a usable entry: {e}"
    return f"unknown {unknown}" if unknown else entry


def _agrees(raw: bytes) -> bool:
    """Whether the typed way agrees with the checked way on a line: it takes only what the
    checked way reads without a word, and reads it the same, export limits included. Returns
    whether it took the line."""
    view = decode_view(raw, 1)
    if view is None:
        return False
    checked = _checked(raw)
    assert isinstance(checked, Entry), (raw, checked)
    assert _projection(view) == _projection(checked), raw
    assert ExportLimits().check(view) == ExportLimits().check(checked), raw
    return True


def _lines(*logs: str) -> list[bytes]:
    return [raw for log in logs for raw in (SESSIONS / log).read_bytes().splitlines(True)]


_MUTATED = _lines(
    "01_one_run_tool.jsonl",
    "03_crash_while_call_runs.jsonl",
    "07_model_errors.jsonl",
    "08_tool_model_calls.jsonl",
    "09_refused_and_forbidden.jsonl",
    "13_labels_and_pins.jsonl",
)


def test_every_value_replaced_by_every_kind_of_value() -> None:
    """Each JSON value of each line of four sample logs (at most three levels into the
    payload: raw JSON is skipped whole) replaced by each of ``_VALUES``."""
    taken = left = 0
    for raw in _MUTATED:
        obj = orjson.loads(raw)
        for at in _paths(obj)[1:]:
            if len(at) > 5:
                continue
            for value in _VALUES:
                mutated = _dumps(_set(orjson.loads(raw), at, value)) + b"\n"
                if _agrees(mutated):
                    taken += 1
                else:
                    left += 1
    assert taken > 1000 and left > 1000, (taken, left)


# Every name agentloop writes, at any level: each is given to every object of a line.
_NAMES = sorted(
    set(ENTRY_FIELDS).union(*PAYLOAD_FIELDS.values())
    | {"role", "parts", "native", "text", "tool_call", "tool_result", "id", "name", "input"}
    | {"provider", "data", "content", "is_error", "title", "body", "sources", "ref", "kind"}
    | {"message", "status", "retry_after", "resets_at", "input_tokens", "output_tokens"}
    | {"cache_read_tokens", "cache_write_tokens"}
)


def test_every_name_given_every_kind_of_value() -> None:
    """A name agentloop writes, present or not, set to each of ``_VALUES`` in each object of
    each line (at most three levels into the payload)."""
    taken = left = 0
    for raw in _MUTATED:
        obj = orjson.loads(raw)
        for at in _paths(obj):
            if len(at) > 4 or not isinstance(_get(obj, at), dict):
                continue
            for name in _NAMES:
                for value in _VALUES:
                    mutated = orjson.loads(raw)
                    _get(mutated, at)[name] = value
                    if _agrees(_dumps(mutated) + b"\n"):
                        taken += 1
                    else:
                        left += 1
    assert taken > 1000 and left > 1000, (taken, left)


def test_names_added_given_twice_and_odd_bytes() -> None:
    taken = 0
    for raw in _MUTATED:
        obj = orjson.loads(raw)
        for pick in range(len(_paths(obj))):
            for how in (1, 2, 3):
                for value in (None, 1, "x", {"a": 1}, [1]):
                    taken += _agrees(_mutate(raw, how, pick, value))
    assert taken > 200


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    log=st.sampled_from(_LOGS),
    which=st.integers(0, 10_000),
    how=st.integers(0, 3),
    pick=st.integers(0, 10_000),
    value=st.sampled_from(_VALUES),
)
def test_a_mutated_line_exports_the_same_either_way(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    log: Path,
    which: int,
    how: int,
    pick: int,
    value: Any,
) -> None:
    lines = log.read_bytes().splitlines(True)
    index = which % len(lines)
    lines[index] = _mutate(lines[index], how, pick, value)
    path = tmp_path / "mutated.jsonl"
    path.write_bytes(b"".join(lines))
    _same_both_ways(path, monkeypatch)


def test_mutations_reach_both_ways(tmp_path: Path) -> None:
    """The mutations above make lines of every kind: some the typed way takes, some it leaves
    to the checked way (else the property says little)."""
    taken = left = 0
    rng = random.Random(7)
    for _ in range(500):
        log = rng.choice(_LOGS)
        lines = log.read_bytes().splitlines(True)
        raw = _mutate(
            rng.choice(lines), rng.randrange(4), rng.randrange(10_000), rng.choice(_VALUES)
        )
        if decode_view(raw, 1) is None:
            left += 1
        else:
            taken += 1
    assert taken > 100 and left > 100, (taken, left)


def test_user_and_assistant_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", user("hi"))
        + line(2, "message", assistant(("c1", "t"), text="x"))
        + line(3, "tool_result", result("c1", labels=["l"], usage=[{"model": "m", "usage": {}}]))
        + line(4, "run_ended", outcome(forbidden=["f"], refused=[{"call_id": "c1"}]))
    )
    assert all(_taken(path.read_bytes()))
    _same_both_ways(path, monkeypatch)


def test_a_view_entry_has_the_fields_of_an_entry() -> None:
    """The typed way makes a ``ViewEntry`` (a msgspec ``Struct``, made in C) for each line,
    read by ``Entry``'s names only: it has them all, in ``Entry``'s order, so that the fold,
    the limits and the split read it as an ``Entry``."""
    import dataclasses

    from sessiontools._log.views import ViewEntry

    assert ViewEntry.__struct_fields__ == tuple(f.name for f in dataclasses.fields(Entry))
    entry = decode_view(line(3, "call_started", {"call_id": "c1"}), 7)
    assert isinstance(entry, ViewEntry)
    assert (entry.seq, entry.type, entry.line, entry.utc_offset_seconds) == (
        3,
        "call_started",
        7,
        7200,
    )


def test_an_entry_type_read_the_typed_way_is_one_string() -> None:
    """msgspec gives each known type as one string object (a ``Literal``), whose hash is
    kept for the look-ups on every line; a type it does not know goes the checked way."""
    first = decode_view(line(3, "call_started", {"call_id": "c1"}), 1)
    second = decode_view(line(4, "call_started", {"call_id": "c2"}), 2)
    assert first is not None and second is not None
    assert first.type is second.type
    assert decode_view(line(5, "compaction", {}), 3) is None
