"""Sample logs written by hand, shared by the model and trace tests.

Entries are at 09:30:SS+02:00 on 2026-10-18 with SS = their seq, so times read as seconds.
"""

from __future__ import annotations

from tests.helpers import assistant, line, outcome, result, usage, user

ONE_TOOL = (
    line(0, "run_started", {"prompt": "time?"})
    + line(1, "message", user("time?"))
    + line(2, "message", assistant(("c1", "clock"), u=usage(100, 20, read=50, write=10)))
    + line(3, "decision", {"call_id": "c1", "tool": "clock", "verdict": "allow", "labels": ["t"]})
    + line(4, "call_started", {"call_id": "c1"})
    + line(5, "tool_result", result("c1", "09:30", labels=["clock"]))
    + line(6, "message", assistant(text="09:30", u=usage(30, 5, read=110)))
    + line(7, "run_ended", outcome(turns=2, u=usage(130, 25, 160, 10)))
)


CRASH_AND_RESUME = (
    line(0, "run_started", {"prompt": "two things"})
    + line(1, "message", user("two things"))
    + line(2, "message", assistant(("c1", "deploy"), ("c2", "notify")))
    + line(3, "decision", {"call_id": "c1", "tool": "deploy", "verdict": "allow"})
    + line(4, "call_started", {"call_id": "c1"})
    # the process dies while c1 runs; c2 never got a decision
    + line(10, "run_started", {})
    + line(11, "tool_result", result("c1", "may have taken effect", is_error=True))
    + line(12, "decision", {"call_id": "c2", "tool": "notify", "verdict": "allow"})
    + line(13, "call_started", {"call_id": "c2"})
    + line(14, "tool_result", result("c2", "sent"))
    + line(15, "message", assistant(text="done"))
    + line(16, "run_ended", outcome())
)


RETRIES = (
    line(0, "run_started", {"prompt": "hi"})
    + line(1, "message", user("hi"))
    + line(
        2,
        "model_error",
        {
            "error": {"kind": "rate_limited", "status": 429, "message": "slow down"},
            "retry": True,
            "wait_ms": 2000,
        },
    )
    + line(
        5,
        "model_error",
        {
            "error": {"kind": "overloaded", "status": 529, "message": "busy"},
            "retry": True,
            "wait_ms": 60000,
        },
    )
    + line(9, "message", assistant(text="hello", provider="openai", model="gpt-5"))
    + line(10, "run_ended", outcome())
)


DENY_REFUSE = (
    line(0, "run_started", {"prompt": "p"})
    + line(1, "labels", {"labels": ["seeded"], "source": "seed"})
    + line(2, "message", assistant(("c1", "rm"), ("c2", "fetch"), ("c3", "mail")))
    + line(
        3,
        "decision",
        {"call_id": "c1", "tool": "rm", "verdict": "deny", "reason": "no", "labels": ["x"]},
    )
    + line(4, "tool_result", result("c1", "no", is_error=True))
    + line(5, "decision", {"call_id": "c2", "tool": "fetch", "verdict": "allow"})
    + line(6, "call_started", {"call_id": "c2"})
    + line(7, "tool_result", result("c2", "refused", log="stderr"))
    + line(8, "decision", {"call_id": "c3", "tool": "mail", "verdict": "allow"})
    + line(9, "call_started", {"call_id": "c3"})
    + line(10, "tool_result", result("c3", "boom", is_error=True))
    + line(11, "message", assistant(text="ok"))
    + line(
        12,
        "run_ended",
        outcome(turns=2, refused=[{"call_id": "c2", "tool": "fetch", "labels": ["private"]}]),
    )
)


def _twice(data: bytes, seq: int) -> bytes:
    """``data`` with the line of entry ``seq`` written twice, as a copy of a line leaves it."""
    lines = data.splitlines(keepends=True)
    at = next(i for i, text in enumerate(lines) if text.startswith(b'{"seq":%d,' % seq))
    return b"".join(lines[: at + 1] + lines[at:])


# A log with lines written twice (issue 10, item 5): a turn in the first run, and the
# run_started of the second run (a cut there finds the child's first line repeated).
REPEATED_LINES = _twice(
    _twice(
        ONE_TOOL
        + line(8, "run_started", {"prompt": "again"})
        + line(9, "message", user("again"))
        + line(10, "message", assistant(text="again", u=usage(40, 4)))
        + line(11, "run_ended", outcome(u=usage(40, 4))),
        6,
    ),
    8,
)
