"""Which run a run is: the one place that says two reads hold the same run; part of the session
model, used by the cost tables.

The cost tables count a run once when it is read twice (docs/costs.md, "Runs read twice": a
session and the transcript of one of its runs; copies of a session taken at any moment). A
run's identity is two digests, each the first 16 bytes of SHA-256 (shown in hex by
``RunIdentity.hex``):

- ``start``, of the entry that starts the run, its ``run_started``: everything that entry
  holds, ::

      SHA-256(b"agentloop/run/" + b"{seq}/{time_unix_nano}/" + prompt in UTF-8)[:16]

  with ``seq`` and the time (Unix nanoseconds, so the UTC offset it was written in does not
  matter) in decimal ASCII. Two sessions started at the same moment with the same ``seq`` (a
  fixed clock: ``SessionBuilder``'s default start, replayed evals) differ here as soon as their
  prompts do.
- ``first_call``, of the run's first model call, ``None`` while it has none: for a turn ::

      SHA-256(b"agentloop/turn/" + b"{seq}/{time_unix_nano}/{input_tokens}/{output_tokens}/"
              b"{cache_read_tokens}/{cache_write_tokens}/" + served model in UTF-8)[:16]

  and for a failed model call (a ``model_error`` before any turn) ::

      SHA-256(b"agentloop/model_error/" + b"{seq}/{time_unix_nano}/{len(kind)}/" + kind
              + message, both in UTF-8)[:16]

  (``len(kind)`` in bytes, so the two texts cannot run into each other). Two runs with the
  same prompt at the same moment (an eval case replayed against two models) differ here.

Two reads hold the same run (``RunIdentity.same_run``) when their ``start`` digests are equal
and their first calls are equal or one of them has none yet: a copy taken before the first
model call is a prefix of the run. A copy of a session, a copy taken mid-run and the transcript
of a run all share them; so do two sessions that agree in every byte of the run's first
entries, which cannot be told apart. Text is encoded with ``surrogatepass`` (a ``Session`` built
in Python may hold lone surrogates; a log read from a file has none), so any text has a digest.

Deterministic: the same run always gives the same bytes, in any process, on any machine.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .runs import Run

__all__ = ["RunIdentity", "run_identity"]


@dataclass(frozen=True, slots=True)
class RunIdentity:
    """What makes a run the same run in two reads (module docstring).

    Attributes:
        start: the 16-byte digest of the run's ``run_started`` entry (seq, time, prompt).
        first_call: the 16-byte digest of its first model call, ``None`` before it.
    """

    start: bytes
    first_call: bytes | None

    def same_run(self, other: RunIdentity) -> bool:
        """Whether ``other`` is this run, read elsewhere (whole or in part)."""
        return self.start == other.start and (
            self.first_call is None
            or other.first_call is None
            or self.first_call == other.first_call
        )

    def hex(self) -> str:
        """``start`` in hex, then ``:`` and ``first_call`` in hex when there is one."""
        first = "" if self.first_call is None else ":" + self.first_call.hex()
        return self.start.hex() + first


def _text(value: str) -> bytes:
    return value.encode("utf-8", "surrogatepass")


def _digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()[:16]


def run_identity(run: Run) -> RunIdentity:
    """The identity of ``run`` (module docstring)."""
    start = _digest(
        b"agentloop/run/%d/%d/" % (run.start_seq, run.start_time_unix_nano) + _text(run.prompt)
    )
    turn = run.turns[0] if run.turns else None
    failed = run.failed_calls[0] if run.failed_calls else None
    first: bytes | None = None
    if turn is not None and (failed is None or turn.seq < failed.seq):
        u = turn.usage
        first = _digest(
            b"agentloop/turn/%d/%d/%d/%d/%d/%d/"
            % (
                turn.seq,
                turn.time_unix_nano,
                u.input_tokens,
                u.output_tokens,
                u.cache_read_tokens,
                u.cache_write_tokens,
            )
            + _text(turn.model)
        )
    elif failed is not None:
        kind = _text(failed.error.kind)
        first = _digest(
            b"agentloop/model_error/%d/%d/%d/" % (failed.seq, failed.time_unix_nano, len(kind))
            + kind
            + _text(failed.error.message)
        )
    return RunIdentity(start, first)
