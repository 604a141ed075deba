"""Many logs in, sessions out: which logs to export, under which conversation id, and which
are copies of others.

- ``session_logs(paths, conversation_id)``: the logs named by files, directories (their
  ``*.jsonl`` and ``*.jsonl.gz``, recursively) and globs, each with its conversation id. One
  file given (not a directory, not a glob) keeps the single-log rule: ``conversation_id``, else
  the file's name without its extension. Otherwise a log's id is its path relative to the
  directory given, or as given for files and globs, without ``.jsonl`` / ``.jsonl.gz``
  (``evals/case-1/session.jsonl`` is ``evals/case-1/session``), so that cases kept as
  ``case-N/session.jsonl`` never share ids.
- ``group_sessions(logs, runs)``: logs that hold the same runs (``RunIdentity.same_run``: a
  copy of a session, a copy taken earlier, the transcript of one of its runs) are one session.
  It is exported once, from the log that holds each of its runs as far or further, under the
  conversation id of its first log in sorted order (ids derive from it); the others are copies.
  When no one log holds all of a group's runs (two partial copies), each is exported on its
  own.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .._log.reader import printable, shown_name
from .._log.sources import default_conversation_id, find_named_logs, is_one_file, strip_log_ending
from .._model.identity import RunIdentity

__all__ = [
    "LogRuns",
    "SessionGroup",
    "SessionLog",
    "group_sessions",
    "output_path",
    "session_logs",
]


@dataclass(frozen=True)
class SessionLog:
    """A log to read, with the conversation id its spans take.

    Attributes:
        path: the file (``None`` for standard input).
        name: what to call it in messages (the path as found, ``<stdin>``).
        conversation_id: ``gen_ai.conversation.id``, and the key of its trace and span ids.
        relative: where its export goes under an output directory: its conversation id (made
            relative) and ``.json``.
    """

    path: Path | None
    name: str
    conversation_id: str
    relative: str


def output_path(conversation_id: str) -> str:
    """Where a session's export goes under an output directory: its id, made relative (no
    leading ``/``; ``..`` as ``__``, so nothing lands outside the directory), and ``.json``."""
    parts = ["__" if p == ".." else p for p in conversation_id.split("/") if p]
    return "/".join(parts) + ".json"


def session_logs(
    paths: Sequence[str], conversation_id: str | None = None, *, allow_empty: bool = False
) -> list[SessionLog]:
    """The logs ``paths`` name (module docstring), in order, duplicates (the same file named
    twice) once. ``allow_empty``: a directory with no log yet is no error (``--follow``).

    Raises:
        ValueError: ``conversation_id`` given with more than one log, or two logs that would
            take the same conversation id (``s.jsonl`` and ``s.jsonl.gz``).
        FileNotFoundError: a path or pattern that names nothing (see ``find_logs``).
    """
    if len(paths) == 1 and paths[0] == "-":
        cid = conversation_id or "stdin"
        return [SessionLog(None, "<stdin>", cid, output_path(cid))]
    single = len(paths) == 1 and is_one_file(paths[0])
    if single:
        path = Path(paths[0])
        name = shown_name(paths[0])
        if not os.path.lexists(path):
            raise FileNotFoundError(f"no log at {name}")
        cid = conversation_id if conversation_id is not None else default_conversation_id(name)
        return [SessionLog(path, name, cid, output_path(strip_log_ending(path.name)))]
    if "-" in paths:
        raise ValueError("- (standard input) can be read only as the one log given")
    out: list[SessionLog] = []
    for found, named in find_named_logs(list(paths), allow_empty=allow_empty):
        if not isinstance(found, Path) or named is None:  # a directory that cannot be listed
            raise FileNotFoundError(str(getattr(found, "error", found)))
        out.append(SessionLog(found, shown_name(str(found)), named, output_path(named)))
    if conversation_id is not None and len(out) > 1:
        raise ValueError("--conversation-id names one session; give it with one log only")
    if conversation_id is not None:
        out = [
            SessionLog(s.path, s.name, conversation_id, output_path(conversation_id)) for s in out
        ]
    seen: dict[tuple[int, int], SessionLog] = {}
    ids: dict[str, SessionLog] = {}
    unique: list[SessionLog] = []
    for log in out:
        assert log.path is not None
        try:
            st = os.stat(log.path)
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = (-1, len(unique))  # read later, which says what is wrong
        if key in seen:
            continue
        seen[key] = log
        other = ids.get(log.conversation_id)
        if other is not None:
            raise ValueError(
                f"{printable(repr(other.name))} and {printable(repr(log.name))} would take the "
                f"same conversation id {log.conversation_id!r}: rename one, or give each alone"
            )
        ids[log.conversation_id] = log
        unique.append(log)
    unique.sort(key=lambda s: s.conversation_id)
    return unique


@dataclass(frozen=True)
class LogRuns:
    """What a log holds, to tell copies apart: each run's identity and how far it goes
    (the ``seq`` of its last entry), in the log's order."""

    identities: tuple[RunIdentity, ...]
    end_seqs: tuple[int, ...]


@dataclass
class SessionGroup:
    """One session among the logs given.

    Attributes:
        conversation_id: its id (its first log's in sorted order).
        log: the index of the log to export it from.
        copies: the indexes of the other logs holding its runs (not exported).
    """

    conversation_id: str
    log: int
    copies: list[int] = field(default_factory=list)


def group_sessions(
    logs: Sequence[SessionLog], runs: Sequence[LogRuns | None]
) -> list[SessionGroup]:
    """The sessions among ``logs`` (sorted), given what each holds (``None``: not known, such
    as a log that could not be read: a session of its own). See the module docstring."""
    n = len(logs)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # the same run in two logs joins them
    by_start: dict[bytes, list[tuple[int, int]]] = {}
    for k, held in enumerate(runs):
        if held is None:
            continue
        for i, identity in enumerate(held.identities):
            for other, j in by_start.get(identity.start, ()):
                other_runs = runs[other]
                assert other_runs is not None
                if identity.same_run(other_runs.identities[j]):
                    a, b = find(k), find(other)
                    parent[max(a, b)] = min(a, b)
            by_start.setdefault(identity.start, []).append((k, i))
    groups: dict[int, list[int]] = {}
    for k in range(n):
        groups.setdefault(find(k), []).append(k)
    sessions: list[SessionGroup] = []
    for members in groups.values():
        if len(members) == 1:
            k = members[0]
            sessions.append(SessionGroup(logs[k].conversation_id, k))
            continue
        holder = _holder(members, runs)
        if holder is None:  # partial copies: each on its own
            sessions.extend(SessionGroup(logs[k].conversation_id, k) for k in members)
            continue
        first = members[0]
        sessions.append(
            SessionGroup(logs[first].conversation_id, holder, [k for k in members if k != holder])
        )
    sessions.sort(key=lambda s: s.log)
    return sessions


def _holder(members: list[int], runs: Sequence[LogRuns | None]) -> int | None:
    """The first log of a group that holds each of the group's runs as far as any other."""

    def reach(k: int) -> list[tuple[RunIdentity, int]]:
        held = runs[k]
        assert held is not None
        return list(zip(held.identities, held.end_seqs, strict=True))

    everything = [pair for k in members for pair in reach(k)]
    for k in members:
        mine = reach(k)
        if all(
            any(identity.same_run(m) and end >= e for m, end in mine) for identity, e in everything
        ):
            return k
    return None
