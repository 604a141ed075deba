"""One export in two processes: ``export_otlp_json(..., workers=2)`` (and ``None``, which
chooses), what ``sessiontools otel`` does with a large log.

The log is cut at the start of a run: a ``run_started`` line past the middle, preferably one
that needs nothing from the runs before it (``find_cut``). A forked child exports the part
after the cut into a temporary file while this process exports the part before it. The child
starts with an empty session, and records what of the session before the cut its spans could
depend on (``_TailFold``):

- the session's labels, which each ``invoke_agent`` span carries: the child sends where each
  run's ``agentloop.session.labels`` attribute is in its output and the labels its own part
  gave, and this process writes the attribute again with the labels of the whole session;
- a call left open before the cut (a run that crashed) and settled after it: the child
  records every call id it looked for and did not find;
- the model of a failed call that comes before any turn of the child's part, which is the
  model of the session's last turn.

When the child needed a call or a model that the session before the cut has, or its first
line repeats the last entry before the cut (which one reader skips as a copy), or it failed in
any way, its work is dropped and this process reads the second part itself. A log compressed
with gzip is read in one process (its bytes are not the lines'). The warnings either
process gives are merged as one reader would give them (each kind once, in the order of the
lines; the child numbers lines from the cut, and this process, which counts the lines before
it, numbers them again), and an error in the second part is raised once the first part is
read. So the bytes, warnings and errors are those of reading the log in one process:
``tests/test_split.py`` and ``tests/test_split_edges.py`` check this at every line of every
sample log and of random logs. The child never runs the caller's code: signals wait while it
forks, and it ends with ``os._exit``.
"""

from __future__ import annotations

import contextlib
import signal

__all__ = ["default_signals"]


def default_signals() -> None:
    """Give every signal with a Python handler (the caller's, or KeyboardInterrupt's) its
    default action back."""
    for number in signal.valid_signals():
        with contextlib.suppress(OSError, ValueError):
            if callable(signal.getsignal(number)):
                signal.signal(number, signal.SIG_DFL)
