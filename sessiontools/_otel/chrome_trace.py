"""Spans as Chrome's Trace Event Format: the JSON that Perfetto (ui.perfetto.dev) and
``chrome://tracing`` open, for people who already live in those viewers.

One process per session, one thread per run; each span is a complete event (``"ph": "X"``)
on its run's thread, so the run's model calls and tool calls nest under it, and the model
calls a tool made nest under the tool. A span that overlaps another without nesting in it
(tool calls that ran at the same time) goes on another thread of the same run, named
``run N (overlap K)``: the format needs the events of a thread to nest.

Times: ``ts`` and ``dur`` are microseconds, written to the nanosecond (three decimals) and
counted from the earliest span start in the file (``otherData.time_origin_unix_nano``; the
format's numbers are doubles, which cannot hold Unix nanoseconds). ``args`` hold the span's
ids, its status and its attributes, as the OTLP export has them. Same spans, same bytes.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from typing import IO, Any

import orjson

from .._log.reader import MAX_LINE_BYTES, LogReader, LogSource
from .._log.sources import default_conversation_id
from .._model.runs import Run
from .._parallel import split as _split
from .._pieces import InPieces
from .._version import __version__
from .ids import check_parents
from .spans import SESSION_LABELS, STATUS_CODE_ERROR, Span, _trace_spans

__all__ = ["chrome_trace", "encode_chrome_trace", "export_chrome_trace"]


def _micros(ns: int) -> bytes:
    """Nanoseconds as microseconds, exactly: ``1234.567``."""
    whole, frac = divmod(ns, 1000)
    return b"%d.%03d" % (whole, frac) if frac else b"%d" % whole


def _args(span: Span) -> dict[str, Any]:
    args: dict[str, Any] = {"trace_id": span.trace_id.hex(), "span_id": span.span_id.hex()}
    if span.parent_span_id:
        args["parent_span_id"] = span.parent_span_id.hex()
    if span.status_code == STATUS_CODE_ERROR:
        args["status"] = "ERROR" + (f": {span.status_message}" if span.status_message else "")
    for key, value in span.attributes:
        args[key] = list(value) if isinstance(value, tuple) else value
    return args


def _runs(spans: Iterable[Span]) -> list[list[Span]]:
    """The spans of each run: a run's ``invoke_agent`` span (a root, or a child of a span
    made elsewhere) and its descendants, the runs in the order of their ``invoke_agent``."""
    listed = list(spans)
    parents = {span.span_id: span.parent_span_id for span in listed}
    runs: dict[bytes, list[Span]] = {}
    for span in listed:
        if span.parent_span_id not in parents:
            runs.setdefault(span.span_id, [])
    for span in listed:
        root = span.span_id
        while parents[root] in parents:
            root = parents[root]
        runs[root].append(span)
    return list(runs.values())


def _lanes(spans: Sequence[Span]) -> list[list[Span]]:
    """The run's spans on threads where they nest: the first lane takes every span that fits
    inside the one still open before it; one that only overlaps goes to the next lane."""
    lanes: list[list[Span]] = []
    stacks: list[list[Span]] = []
    for span in sorted(spans, key=lambda s: (s.start_time_unix_nano, -s.end_time_unix_nano)):
        for lane, stack in zip(lanes, stacks, strict=True):
            while stack and stack[-1].end_time_unix_nano <= span.start_time_unix_nano:
                stack.pop()
            if not stack or span.end_time_unix_nano <= stack[-1].end_time_unix_nano:
                stack.append(span)
                lane.append(span)
                break
        else:
            lanes.append([span])
            stacks.append([span])
    return lanes


def encode_chrome_trace(sessions: Iterable[tuple[str, Iterable[Span]]]) -> bytes:
    """Write sessions' spans in the Trace Event Format (JSON object form), one line.

    Args:
        sessions: (process name, spans) for each session, spans as ``trace_spans`` gives them
            (run by run). Each session is a process (``pid`` 1, 2, ...).

    Returns:
        ``{"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}`` and a newline.
    """
    processes = [(name, _runs(spans)) for name, spans in sessions]
    starts = [s.start_time_unix_nano for _, runs in processes for run in runs for s in run]
    origin = min(starts, default=0)
    events: list[bytes] = []
    for pid, (name, runs) in enumerate(processes, start=1):
        events.append(_meta(pid, 0, "process_name", {"name": name}))
        events.append(_meta(pid, 0, "process_sort_index", {"sort_index": pid}))
        tid = 0
        for index, run in enumerate(runs):
            for lane_number, lane in enumerate(_lanes(run)):
                tid += 1
                thread = (
                    f"run {index}" if lane_number == 0 else f"run {index} (overlap {lane_number})"
                )
                events.append(_meta(pid, tid, "thread_name", {"name": thread}))
                events.append(_meta(pid, tid, "thread_sort_index", {"sort_index": tid}))
                for span in lane:
                    events.append(_complete(pid, tid, span, origin))
    other = orjson.dumps(
        {
            "generator": f"sessiontools {__version__}",
            "time_origin_unix_nano": str(origin),
            "ts_unit": "microseconds since time_origin_unix_nano",
        }
    )
    return (
        b'{"traceEvents":['
        + b",".join(events)
        + b'],"displayTimeUnit":"ms","otherData":'
        + other
        + b"}\n"
    )


def _meta(pid: int, tid: int, name: str, args: dict[str, Any]) -> bytes:
    return orjson.dumps({"name": name, "ph": "M", "pid": pid, "tid": tid, "args": args})


def _complete(pid: int, tid: int, span: Span, origin: int) -> bytes:
    kind = next((v for k, v in span.attributes if k == "gen_ai.operation.name"), "span")
    head = orjson.dumps({"name": span.name, "cat": kind, "ph": "X"})
    return b'%s,"pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":%s}' % (
        head[:-1],
        pid,
        tid,
        _micros(span.start_time_unix_nano - origin),
        _micros(span.end_time_unix_nano - span.start_time_unix_nano),
        orjson.dumps(_args(span)),
    )


def export_chrome_trace(
    source: LogSource,
    write: Callable[[bytes], object],
    *,
    conversation_id: str | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    service_name: str = "agentloop",
    agent_name: str | None = None,
    name: str | None = None,
    workers: int | None = 1,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> None:
    """``chrome_trace``, written with ``write``: what ``sessiontools otel LOG --format
    chrome-trace`` writes. It takes ``export_otlp_json``'s arguments (``service_name`` has no
    place in the format) and raises and warns as it does. Nothing is written when the log
    turns out to be damaged: the file is written whole, once every span is known (its times
    count from the earliest).
    """
    write(
        chrome_trace(
            source,
            conversation_id=conversation_id,
            parent_trace_id=parent_trace_id,
            parent_span_id=parent_span_id,
            agent_name=agent_name,
            name=name,
            workers=workers,
            error_messages=error_messages,
            max_line_bytes=max_line_bytes,
        )
    )


def chrome_trace(
    source: LogSource,
    *,
    conversation_id: str | None = None,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    agent_name: str | None = None,
    name: str | None = None,
    workers: int | None = 1,
    error_messages: bool = False,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> bytes:
    """A session log, or a run's transcript, in the Trace Event Format: the spans
    ``sessiontools otel`` exports (same options, same ids, same status messages), in one
    process named after the conversation id. What ``sessiontools otel LOG --format
    chrome-trace`` writes.

    The arguments, errors and warnings are ``export_otlp_json``'s: the log is read as the
    export reads it (``LogReader(..., export=True)``, ``max_line_bytes``), in two processes
    when ``workers`` asks for it and the log can be cut (``sessiontools._parallel.split``),
    with the same result either way.
    """
    parent_trace_id, parent_span_id = check_parents(parent_trace_id, parent_span_id)
    if workers not in (1, 2, None):
        raise ValueError(f"workers must be 1, 2 or None, not {workers!r}")
    with LogReader(source, name=name, export=True, max_line_bytes=max_line_bytes) as reader:
        if conversation_id is None:
            conversation_id = default_conversation_id(reader.name)
        job = _Spans((conversation_id, parent_trace_id, parent_span_id, agent_name, error_messages))
        _split.read_runs(reader, job, workers=workers)
    return encode_chrome_trace([(conversation_id, job.spans)])


class _Spans:
    """The spans of a log's runs, kept (a ``_split.Job``): the child pickles the spans of the
    runs after the cut into its file; this process takes them with each ``invoke_agent``
    span's ``agentloop.session.labels`` made the whole session's, as ``export_otlp_json``
    writes it again."""

    def __init__(self, options: tuple[str, bytes | None, bytes | None, str | None, bool]) -> None:
        self.options = options
        self.spans: list[Span] = []

    def take(self, runs: Iterator[Run]) -> None:
        # the runs come from a LogReader(..., export=True), which checked them
        self.spans.extend(_trace_spans(runs, *self.options, checked=True))

    def make_in_child(self, runs: Iterator[Run], out: IO[bytes]) -> None:
        spans = list(_trace_spans(runs, *self.options, checked=True))
        pickle.dump(spans, InPieces(out.write), protocol=5)  # (frames of a little over 64 KiB)

    def merge(self, result: None, out: IO[bytes], labels: set[str], runs: int) -> None:
        theirs: list[Span] = pickle.load(out)
        for span in theirs:
            if span.attributes[0][1] == "invoke_agent":
                key, own = span.attributes[-1]
                assert key == SESSION_LABELS and isinstance(own, tuple), key
                whole = (key, tuple(sorted(labels.union(own))))
                span = replace(span, attributes=(*span.attributes[:-1], whole))
            self.spans.append(span)
