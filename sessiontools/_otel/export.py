"""A log to OTLP/JSON: ``export_otlp_json`` (and ``otlp_json``, the same as bytes), what
``sessiontools otel`` runs; the last part of the traces exporter.

It reads the log as both exporters do (``LogReader(..., export=True)``: docs/reading.md, "What
the exports hold"), folds it into runs and writes each run's spans as the run ends: memory holds
one run at a time. A large log is read in two processes (``sessiontools._parallel.split``;
docs/reading.md, "Large logs"): the child writes its part's spans to a temporary file and says
where each run's ``agentloop.session.labels`` attribute is (``SESSION_LABELS``, the last
attribute of every ``invoke_agent`` span for this reason), and this process copies them,
writing that attribute again with the labels of the whole session.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO

from .._log.reader import MAX_LINE_BYTES, ExportReader, LogSource
from .._log.sources import default_conversation_id
from .._model.runs import Run
from .._parallel import split as _split
from .._pieces import WRITE_BYTES, write_in_pieces
from .ids import check_parents
from .otlp_json import Envelope, _fragment, run_json
from .spans import SESSION_LABELS

__all__ = ["export_otlp_json", "otlp_json"]


def export_otlp_json(
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
    """Export a session log, or a run's transcript, as OTLP/JSON, streaming: what
    ``sessiontools otel`` writes. Memory holds one run at a time.

    Args:
        source: a path, or a file opened in binary mode; never changed.
        write: called with each piece of the output, in order (a binary file's ``write``).
            When the log turns out to be damaged, some pieces have been written already
            (how many depends on batching and on ``workers``).
        conversation_id: default: the file's name without its extension
            (``default_conversation_id``).
        parent_trace_id, parent_span_id, agent_name, error_messages: see ``trace_spans``.
        service_name: the resource's ``service.name``.
        name: what to call the log in messages.
        workers: 1 reads the log in this process. 2 cuts a log read from a regular file in
            two at a run near its middle, and exports the second part in a forked child
            process at the same time as the first part here (``sessiontools._parallel.split``); the
            output, warnings and errors are the same, byte for byte. ``None`` chooses 2 for a
            file of at least ``SPLIT_FROM_BYTES`` (8 MB) when two cores are free and the
            platform can fork, else 1 (what ``sessiontools otel`` uses). Avoid forking in a
            process that runs threads, such as a notebook kernel: keep the default there.
            Standard input, a pipe, a log compressed with gzip, or a file not at its start is
            read in this process.
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        DamagedLogError, EntryError, OSError: see ``read_session``. The log is read with
            ``LogReader(..., export=True)``: an ``EntryError`` also names the line of what an
            export cannot hold (a negative token count, a time before 1970 or after
            2262-04-11, a run's token counts adding up past 2^63-1, a negative wait).
        TypeError, InvalidIdError: a parent id that is not 16 or 8 bytes, or all zero.
        ValueError: ``parent_span_id`` without ``parent_trace_id``; ``workers`` not 1, 2 or
            ``None``.

    Warns:
        TornTailWarning, UnknownEntryWarning: see ``LogReader``.
        LogStructureWarning: see ``SessionFold``.
    """
    parent_trace_id, parent_span_id = check_parents(parent_trace_id, parent_span_id)
    if workers not in (1, 2, None):
        raise ValueError(f"workers must be 1, 2 or None, not {workers!r}")
    with ExportReader(source, name=name, max_line_bytes=max_line_bytes) as reader:
        if conversation_id is None:
            conversation_id = default_conversation_id(reader.name)
        spans = _Spans(
            Envelope(write, service_name),
            (
                conversation_id,
                parent_trace_id,
                parent_span_id,
                agent_name,
                error_messages,
            ),
        )
        _split.read_runs(reader, spans, workers=workers, at=EXPORT_CUT_AT)
        spans.envelope.close()


#: Where a log read in two is cut, as a fraction of it (``sessiontools._parallel.cut``): before
#: the middle (the others cut from ``CUT_AT``, 52%), because this process has more to do once
#: both parts are read: it copies the child's spans into the output (``_Spans.merge``), which
#: ``sessiontools otel`` then syncs. Measured on the 100 MB logs (CPU time of each part, 8 runs
#: each, medians): from 52% this process's part took 7 (default) and 14 ms (dense) more than
#: the child's, from 49% 11 and 24 ms less, about what the copy and the sync take.
EXPORT_CUT_AT = 0.49


class _Spans:
    """The spans of runs, written as they come: a ``sessiontools._parallel.split.Job`` for a log
    read in two. The child writes its spans to a file, each after a comma, and sends where each
    run's ``agentloop.session.labels`` attribute is, with the labels its part gave; this process
    copies them, writing that attribute again with the labels of the whole session."""

    def __init__(
        self,
        envelope: Envelope,
        options: tuple[str, bytes | None, bytes | None, str | None, bool],
    ) -> None:
        """``options``: the conversation id, parent trace and span ids, agent name and
        ``error_messages``, as ``_run_spans`` takes them (checked)."""
        self.envelope = envelope
        self.options = options

    def take(self, runs: Iterator[Run]) -> None:
        # the runs come from a LogReader(..., export=True), which checked them
        envelope = self.envelope
        options = self.options
        for run in runs:
            envelope.encoded(run_json(run, options)[0])

    def make_in_child(
        self, runs: Iterator[Run], out: IO[bytes]
    ) -> tuple[int, list[tuple[int, int, int]], list[tuple[str, ...]]]:
        """Returns: the bytes written; where each run's labels attribute is in them (offset,
        length, index in the third); the labels each run's part of the session held."""
        size = 0
        write = out.write
        patches: list[tuple[int, int, int]] = []
        labels: dict[tuple[str, ...], int] = {}
        for run in runs:
            spans, agent = run_json(run, self.options)
            # the run's spans, each after a comma, in one piece
            at = size + agent + 1 + sum([len(span) for span in spans[:agent]])
            # the last attribute; a fragment's quotes cannot be in a JSON string
            fragment = _fragment((SESSION_LABELS, run.labels))
            index = labels.setdefault(run.labels, len(labels))
            patches.append((at + spans[agent].rindex(fragment), len(fragment), index))
            spans.insert(0, b"")
            data = b",".join(spans)
            write_in_pieces(write, data)  # (a system call per WRITE_BYTES at most)
            size += len(data)
        return size, patches, list(labels)

    def merge(
        self,
        result: tuple[int, list[tuple[int, int, int]], list[tuple[str, ...]]],
        out: IO[bytes],
        labels: set[str],
        runs: int,
    ) -> None:
        size, patches, own_labels = result
        fragments = [
            _fragment((SESSION_LABELS, tuple(sorted(labels.union(own))))) for own in own_labels
        ]
        joined = self.envelope.joined
        read = out.read
        # what is copied, a run at a time (up to its labels attribute, then that attribute
        # written again), is passed on in pieces of up to WRITE_BYTES (a run larger than that
        # in pieces of its own): a write each
        pieces: list[bytes] = []
        held = 0
        at = 0
        for offset, length, index in [*patches, (size, 0, -1)]:  # then what follows the last
            n = offset - at
            fragment = fragments[index] if index >= 0 else b""
            if held + n + len(fragment) > WRITE_BYTES and pieces:
                joined(b"".join(pieces))
                pieces.clear()
                held = 0
            if n + len(fragment) > WRITE_BYTES:  # a large run: straight through
                _split.copy(out, n, joined)
            elif n:
                block = read(n)
                if len(block) != n:
                    raise OSError("the temporary file of the second part ended early")
                pieces.append(block)
                held += n
            if index < 0:
                break
            out.seek(length, os.SEEK_CUR)
            pieces.append(fragment)
            held += len(fragment)
            at = offset + length
        if pieces:
            joined(b"".join(pieces))


def otlp_json(
    source: LogSource,
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
) -> bytes:
    """Export a session log, or a run's transcript, as OTLP/JSON: what ``sessiontools otel``
    prints. The arguments, errors and warnings are ``export_otlp_json``'s.

    Returns:
        One line of OTLP/JSON, ending in ``\\n``; the same log always gives the same bytes.
    """
    out = bytearray()
    export_otlp_json(
        source,
        out.extend,
        conversation_id=conversation_id,
        parent_trace_id=parent_trace_id,
        parent_span_id=parent_span_id,
        service_name=service_name,
        agent_name=agent_name,
        name=name,
        workers=workers,
        error_messages=error_messages,
        max_line_bytes=max_line_bytes,
    )
    return bytes(out)
