"""agentloop's Session in Python: messages, pending calls, call states, turns, labels, pins.

Every expectation is written by hand from the seed's rules (``Session``, ``CallInfo``,
``Turn``, ``CheckLabel``, ``Forbidden``, ``UnionLabels``, ``DisplayID``, ``Prices.Cost``,
``Agent.Forbid``) and from the entries the test reads, never printed by the code.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessiontools import (
    FORBIDDEN_DECISION,
    REFUSED_RESULT,
    CallInfo,
    Decision,
    Entry,
    LabelError,
    LabelSource,
    LogReader,
    Message,
    PinError,
    Prices,
    Session,
    ToolCall,
    Usage,
    View,
    check_label,
    check_labels,
    display_id,
    forbidden,
    open_session,
    read_session,
    union_labels,
)
from tests.helpers import (
    SESSIONS,
    assistant,
    line,
    logs_in_testdata,
    outcome,
    read_bytes,
    result,
    usage,
    user,
)
from tests.logs import CRASH_AND_RESUME, ONE_TOOL

# The ids in the testdata logs, copied from the files.
CRASH_POST = "toolu_01i5fPAfAnMO3G6GtxU5Tdo0"  # 03: http_post, running when run 1 died
CRASH_WRITE = "toolu_01GSXPPv6D7uLkbCzHCZdiEi"  # 03: file_write, never started in run 1
CRASH_GET = "toolu_01VqgIlfBbiO4lWvLG29cQBl"  # 03: http_get, run 2
WIKI = "toolu_01TbbAQgDCE1PtMoUY5tbABs"  # 09: wiki_read, result labelled wiki
HR = "toolu_01GHOjZrZCE2q8UJsIxyvZco"  # 09: hr_lookup, result refused (private)
RM = "toolu_01eU4OByg5YJXinddxwUZiAO"  # 10: shell rm, denied by the policy
FETCH = "toolu_01RvgTFw5pbAqR8ilUGBxwXb"  # 10: web_fetch, denied: forbidden labels
LS = "toolu_01OxQH4WEqSU1CeX15xG4lKB"  # 10: shell ls, allowed
OVER = "toolu_01E3NxU5o2lzg1dCUnlSvh2g"  # 10: file_read past max_tool_calls
MAKE = "toolu_01txujdTWxXxCvfgsI6uHZk2"  # 16: make test, running when canceled
UNIT = "toolu_01XcxgKjiJwULNR3SRNpEj7G"  # 16: go test -short

MAY_HAVE = "This call was running when the process stopped; it may or may not have taken effect."


def from_testdata(stem: str) -> Session:
    (path,) = SESSIONS.glob(f"{stem}_*.jsonl")
    return read_bytes(path.read_bytes(), name=path.name)


def prefix(stem: str, through_seq: int) -> Session:
    """The log as it was when the entry ``through_seq`` had just been written."""
    (path,) = SESSIONS.glob(f"{stem}_*.jsonl")
    lines = path.read_bytes().splitlines(keepends=True)
    return read_bytes(b"".join(lines[: through_seq + 1]), name=path.name)


def roles(session: Session) -> list[str]:
    return [m.role for m in session.messages()]


def results_of(message: Message) -> list[str]:
    """The call ids of a gathered results message, in order; it holds only results."""
    assert message.role == "user"
    assert all(p.type == "tool_result" and p.tool_result is not None for p in message.parts)
    return [p.tool_result.call_id for p in message.parts if p.tool_result is not None]


def call_ids(message: Message) -> list[str]:
    assert message.role == "assistant"
    return [c.id for c in message.tool_calls]


# The testdata logs.


@pytest.mark.parametrize(
    "log", [p for p in logs_in_testdata() if "damaged" not in p.name], ids=lambda p: p.name
)
def test_every_turn_indexes_its_assistant_message(log: Path) -> None:
    session = read_bytes(log.read_bytes(), name=log.name)
    messages = session.messages()
    assert len(session.turns()) == sum(len(r.turns) for r in session.runs)
    for turn in session.turns():
        message = messages[turn.message_index]
        assert message.role == "assistant"
        assert tuple(c.id for c in message.tool_calls) == turn.call_ids


def test_crash_while_a_call_runs_then_the_run_that_settles_it() -> None:
    # As the process died: run 1 asked for two calls and the first was running.
    died = prefix("03", 4)
    assert roles(died) == ["user", "assistant"]  # no results yet
    assert [c.id for c in died.pending()] == [CRASH_POST, CRASH_WRITE]
    assert [c.name for c in died.pending()] == ["http_post", "file_write"]
    post = died.call(CRASH_POST)
    assert (post.decision, post.started, post.finished, post.result) == (
        Decision("allow"),
        True,
        False,
        None,
    )
    write = died.call(CRASH_WRITE)
    assert (write.decision, write.started, write.finished) == (None, False, False)
    assert write.call.name == "file_write" and write.call.input is not None

    # Run 2 settles the running call as possibly done, then runs the other one.
    session = from_testdata("03")
    messages = session.messages()
    assert roles(session) == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert call_ids(messages[1]) == [CRASH_POST, CRASH_WRITE]
    assert results_of(messages[2]) == [CRASH_POST, CRASH_WRITE]  # across the crash: one message
    settled = messages[2].parts[0].tool_result
    assert settled is not None and (settled.content, settled.is_error) == (MAY_HAVE, True)
    assert results_of(messages[4]) == [CRASH_GET]
    assert session.pending() == ()
    post = session.call(CRASH_POST)
    assert (post.decision, post.started, post.finished) == (Decision("allow"), True, True)
    assert post.result == settled
    assert [t.message_index for t in session.turns()] == [1, 3, 5]
    assert session.labels() == () and session.label_sources() == {}


def test_refused_result_and_forbidden_run() -> None:
    session = from_testdata("09")
    messages = session.messages()
    assert roles(session) == ["user", "assistant", "user", "assistant"]  # run 2 never started
    assert results_of(messages[2]) == [WIKI, HR]
    refused = session.call(HR)
    assert refused.result is not None and refused.result.content == REFUSED_RESULT
    assert (refused.decision, refused.started, refused.finished) == (Decision("allow"), True, True)
    # The refused result gave the session nothing; private came later, from a seed entry.
    assert session.labels() == ("case:2026-118", "private", "wiki")
    assert session.label_sources() == {
        "wiki": LabelSource("tool", 5, "wiki_read", WIKI),
        "case:2026-118": LabelSource("seed", 11),
        "private": LabelSource("seed", 11),
    }
    assert session.runs[0].labels == ("wiki",)
    view = session.view()
    assert view == View(("case:2026-118", "private", "wiki"))
    assert view.has("private") and not view.has("Private") and not view.has("web")
    # what run 2's outcome names
    assert forbidden(session.labels(), ["private", "secret"]) == ("private",)


def test_policy_deny_and_forbidden_decision_give_no_labels() -> None:
    session = from_testdata("10")
    messages = session.messages()
    assert roles(session) == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",  # run 2's prompt
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert results_of(messages[2]) == [RM, FETCH]
    rm = session.call(RM)
    assert rm.decision == Decision(
        "deny", "shell: only read-only commands may run in this session (rm is not one)"
    )
    assert (rm.started, rm.finished) == (False, True)
    assert rm.result is not None and rm.result.is_error
    fetch = session.call(FETCH)
    assert fetch.decision == Decision("deny", FORBIDDEN_DECISION, ("untrusted", "web"))
    assert session.labels() == () and session.label_sources() == {}  # a deny's labels are not added
    assert session.call(LS).decision == Decision("allow")
    # max_tool_calls: the call past the limit was answered and never started
    over = session.call(OVER)
    assert (over.started, over.finished) == (False, True)
    assert session.pending() == ()
    assert [t.message_index for t in session.turns()] == [1, 3, 5, 7, 9]


def test_canceled_while_a_call_runs_then_resumed() -> None:
    canceled = prefix("16", 5)  # run 1 ended canceled with its call running
    assert [c.id for c in canceled.pending()] == [MAKE]
    make = canceled.call(MAKE)
    assert (make.started, make.finished, make.result) == (True, False, None)

    session = from_testdata("16")
    messages = session.messages()
    # the settled result, then the new prompt: two user messages in a row
    assert roles(session) == ["user", "assistant", "user", "user", "assistant", "user", "assistant"]
    assert results_of(messages[2]) == [MAKE]
    assert messages[3].text == "Just the unit tests then."
    assert results_of(messages[5]) == [UNIT]
    assert [t.message_index for t in session.turns()] == [1, 4, 6]
    assert session.call(MAKE).finished and session.pending() == ()


def test_labels_sources_and_pins() -> None:
    session = from_testdata("13")
    read_1, draft_1 = "toolu_01xEQ3vR8kB5TQOOE7SN9Nvd", "toolu_01ifwbdktp6o3ZYaHqG8Wxx5"
    read_2 = "toolu_01xghCm8z1jAdCDmex5RFbrq"
    assert session.label_sources() == {
        "project:apollo": LabelSource("seed", 0),
        "private": LabelSource("tool", 5, "file_read", read_1),
        "doc:notes/venues.md": LabelSource("tool", 7, "file_read", read_1),
        "mail:apollo-team@example.com": LabelSource("tool", 9, "mail_draft", draft_1),
        "mail:draft": LabelSource("tool", 11, "mail_draft", draft_1),
        "reviewed:kira": LabelSource("seed", 14),
        "doc:notes/agenda.md": LabelSource("tool", 20, "file_read", read_2),
    }
    assert session.labels() == tuple(sorted(session.label_sources()))
    read_pin = "sha256:0c746850fe406ab68052bdf1c12483ed8167180a9f198aeb6d5aef39557bdc0d"
    draft_pin = "sha256:4fbce6915ce587beea1f3b1f1961c87c304948062db9e7683b779a26c1e9440c"
    assert session.pins() == {"file_read": read_pin, "mail_draft": draft_pin}
    session.check_pins({})
    session.check_pins({"file_read": read_pin, "web_fetch": "sha256:new"})  # unpinned passes
    with pytest.raises(PinError) as e:
        session.check_pins({"mail_draft": "sha256:b", "file_read": "sha256:a"})
    assert (e.value.tool, e.value.pinned, e.value.got) == ("file_read", read_pin, "sha256:a")


# Small logs written by hand.


def test_two_calls_answered_out_of_order_are_gathered_in_call_order() -> None:
    data = (
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", user("p"))
        + line(2, "message", assistant(("c1", "a"), ("c2", "b")))
        + line(3, "decision", {"call_id": "c2", "tool": "b", "verdict": "allow"})
        + line(4, "call_started", {"call_id": "c2"})
        + line(5, "tool_result", result("c2", "two"))
        + line(6, "decision", {"call_id": "c1", "tool": "a", "verdict": "allow"})
        + line(7, "call_started", {"call_id": "c1"})
        + line(8, "tool_result", result("c1", "one"))
        + line(9, "message", assistant(text="done"))
        + line(10, "run_ended", outcome(turns=2))
    )
    session = read_bytes(data)
    user_msg, asked, answers, done = session.messages()
    assert user_msg.text == "p" and done.text == "done"
    assert call_ids(asked) == ["c1", "c2"]
    assert results_of(answers) == ["c1", "c2"]
    assert [p.tool_result.content for p in answers.parts if p.tool_result] == ["one", "two"]
    assert answers.native is None
    assert [t.message_index for t in session.turns()] == [1, 3]


def test_while_calls_are_pending_the_conversation_holds_the_results_so_far() -> None:
    data = (
        line(0, "run_started", {"prompt": "p"})
        + line(1, "message", user("p"))
        + line(2, "message", assistant(("c1", "a"), ("c2", "b"), ("c3", "c")))
        + line(3, "decision", {"call_id": "c2", "tool": "b", "verdict": "allow"})
        + line(4, "call_started", {"call_id": "c2"})
        + line(5, "tool_result", result("c2", "two"))
        + line(6, "decision", {"call_id": "c3", "tool": "c", "verdict": "allow"})
    )
    session = read_bytes(data)
    messages = session.messages()
    assert roles(session) == ["user", "assistant", "user"]
    assert results_of(messages[2]) == ["c2"]
    assert session.pending() == (ToolCall("c1", "a", {}), ToolCall("c3", "c", {}))
    assert session.call("c1") == CallInfo(ToolCall("c1", "a", {}), None, False, False, None)
    assert session.call("c3").decision == Decision("allow")
    assert session.call("c2").finished
    with pytest.raises(KeyError):
        session.call("c4")


def test_resumed_calls_are_settled_into_their_turn() -> None:
    session = read_bytes(CRASH_AND_RESUME)
    messages = session.messages()
    assert roles(session) == ["user", "assistant", "user", "assistant"]
    assert results_of(messages[2]) == ["c1", "c2"]
    c1, c2 = session.call("c1"), session.call("c2")
    assert (c1.decision, c1.started, c1.finished) == (Decision("allow"), True, True)
    assert c1.result is not None and c1.result.is_error
    assert (c2.decision, c2.started, c2.finished) == (Decision("allow"), True, True)
    assert c1.call == ToolCall("c1", "deploy", {})
    assert session.pending() == ()
    assert [t.message_index for t in session.turns()] == [1, 3]


def test_a_result_whose_call_is_not_in_the_turn_comes_after_the_turns_results() -> None:
    data = (
        line(30, "run_started", {})  # a transcript: the call was asked for before it
        + line(31, "tool_result", result("c0", "may have", is_error=True))
        + line(32, "message", assistant(("c1", "a"), ("c2", "b")))
        + line(33, "tool_result", result("c9", "stray"))
        + line(34, "tool_result", result("c2", "two"))
        + line(35, "tool_result", result("c1", "one"))
        + line(36, "run_ended", outcome())
    )
    session = read_bytes(data)
    first, asked, answers = session.messages()
    assert results_of(first) == ["c0"]
    assert call_ids(asked) == ["c1", "c2"]
    assert results_of(answers) == ["c1", "c2", "c9"]
    # a call seen only through its result: no name, no input
    assert session.call("c0").call == ToolCall("c0", "", None)
    assert (session.turns()[0].message_index, session.pending()) == (1, ())


def test_an_id_asked_for_again_starts_afresh() -> None:
    data = (
        line(0, "run_started", {})
        + line(1, "message", assistant(("c1", "a")))
        + line(2, "tool_result", result("c1", "first"))
        + line(3, "message", assistant(("c1", "b")))
    )
    session = read_bytes(data)
    assert session.pending() == (ToolCall("c1", "b", {}),)
    assert session.call("c1") == CallInfo(ToolCall("c1", "b", {}), None, False, False, None)


def test_a_refused_result_does_not_give_the_session_its_labels() -> None:
    """agentloop writes a refused result without labels; one that has them is not taken."""
    data = (
        line(0, "run_started", {})
        + line(1, "message", assistant(("c1", "hr"), ("c2", "wiki"), ("c3", "mail")))
        + line(2, "tool_result", result("c1", REFUSED_RESULT, labels=["private", "x"]))
        + line(3, "tool_result", result("c2", "ok", labels=["x", "wiki"]))
        + line(
            4, "decision", {"call_id": "c3", "tool": "mail", "verdict": "allow", "labels": ["w"]}
        )
        + line(5, "tool_result", result("c3", "sent", labels=["w"]))
        + line(6, "message", assistant(text="done"))
        + line(
            7,
            "run_ended",
            outcome(turns=2, refused=[{"call_id": "c1", "tool": "hr", "labels": ["private"]}]),
        )
    )
    session = read_bytes(data)
    assert session.labels() == ("w", "wiki", "x")
    assert session.label_sources() == {
        "x": LabelSource("tool", 3, "wiki", "c2"),
        "wiki": LabelSource("tool", 3, "wiki", "c2"),
        "w": LabelSource("tool", 4, "mail", "c3"),  # the decision came first
    }
    c1, c2, c3 = session.runs[0].tool_calls
    assert (c1.refused, c1.labels, c2.labels, c3.labels) == (True, (), ("wiki", "x"), ("w",))
    assert session.view().has("x") and not session.view().has("private")


def test_a_result_s_labels_keep_their_entry_as_source_when_a_later_entry_repeats_them() -> None:
    data = (
        line(0, "run_started", {})
        + line(1, "message", assistant(("c1", "read"), ("c2", "read")))
        + line(2, "tool_result", result("c1", "a", labels=["doc"]))
        + line(
            3, "decision", {"call_id": "c2", "tool": "read", "verdict": "allow", "labels": ["doc"]}
        )
        + line(4, "labels", {"labels": ["doc", "s"], "source": "seed"})
        # no run_ended: a crashed run refused nothing
    )
    session = read_bytes(data)
    assert session.label_sources() == {
        "doc": LabelSource("tool", 2, "read", "c1"),
        "s": LabelSource("seed", 4),
    }
    assert session.runs[0].labels == ("doc", "s")


def test_a_deny_s_labels_are_not_added() -> None:
    data = (
        line(0, "run_started", {})
        + line(1, "message", assistant(("c1", "fetch")))
        + line(
            2, "decision", {"call_id": "c1", "tool": "fetch", "verdict": "deny", "labels": ["w"]}
        )
        + line(3, "tool_result", result("c1", FORBIDDEN_DECISION, is_error=True))
    )
    session = read_bytes(data)
    assert session.labels() == () and session.call("c1").decision == Decision("deny", labels=("w",))


def test_entries_outside_any_run_are_messages_and_give_labels_but_are_no_turns() -> None:
    headless = b"".join(ONE_TOOL.splitlines(keepends=True)[1:])  # run_started cut away
    session = read_bytes(headless)
    assert session.runs == () and session.turns() == ()
    assert roles(session) == ["user", "assistant", "user", "assistant"]
    assert session.labels() == ("clock", "t")
    assert session.label_sources() == {
        "t": LabelSource("tool", 3, "clock", "c1"),
        "clock": LabelSource("tool", 5, "clock", "c1"),
    }
    # a run after them: its turn's index counts the messages before it
    data = headless + line(10, "run_started", {}) + line(11, "message", assistant(text="hi"))
    session = read_bytes(data)
    (turn,) = session.turns()
    assert turn.message_index == 4 and session.messages()[4].text == "hi"


def test_usage_includes_the_model_calls_tools_made() -> None:
    data = (
        line(0, "run_started", {})
        + line(1, "message", assistant(("c1", "summarize"), u=usage(100, 10, read=7)))
        + line(
            2,
            "tool_result",
            {
                **result("c1", REFUSED_RESULT),
                "usage": [{"model": "m", "usage": usage(5, 5)}, {"model": "m", "usage": usage(1)}],
            },
        )
        + line(3, "message", assistant(text="ok", u=usage(20, 2, write=3)))
        + line(4, "run_ended", outcome(turns=2, refused=[{"call_id": "c1", "tool": "summarize"}]))
    )
    assert read_bytes(data).usage() == Usage(126, 17, 7, 3)  # a refused result's too


# Opening, and what == means.


class ListStore:
    """A store as ``open_session`` needs one: ``load()`` (and ``path`` when it has one)."""

    def __init__(self, entries: Sequence[Entry], path: Path | None = None) -> None:
        self.entries = list(entries)
        if path is not None:
            self.path = path

    def load(self) -> list[Entry]:
        return list(self.entries)


def entries_of(path: Path) -> list[Entry]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with LogReader(path) as reader:
            return list(reader)


@pytest.mark.parametrize(
    "log", [p for p in logs_in_testdata() if "damaged" not in p.name], ids=lambda p: p.name
)
def test_a_session_reopened_from_its_store_equals_the_one_that_was_closed(log: Path) -> None:
    closed = read_bytes(log.read_bytes(), name=str(log))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reopened = open_session(ListStore(entries_of(log), path=log))
        made = Session.from_entries([dataclasses.replace(e, line=0) for e in closed.entries])
    assert reopened == closed == made
    assert reopened.name == str(log)
    assert reopened.messages() == closed.messages()
    assert reopened.turns() == closed.turns()


def test_how_a_session_was_read_is_not_part_of_it() -> None:
    path = next(SESSIONS.glob("04_*.jsonl"))  # a torn last line
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = read_session(path)
        made = Session.from_entries(read.entries, name="other")
    assert read.torn_tail is not None and made.torn_tail is None
    assert read == made
    assert Session.from_entries(read.entries[:-1]) != read


def test_an_empty_store_makes_a_new_session() -> None:
    session = open_session(ListStore([]))
    assert session.name == "<store>"
    assert (session.entries, session.runs, session.labels(), session.usage()) == (
        (),
        (),
        (),
        Usage(),
    )
    assert (session.messages(), session.pending(), session.turns()) == ((), (), ())
    assert session.view() == View(()) and session.pins() == {}
    assert session == Session.from_entries([])


def test_computed_values_are_kept() -> None:
    session = read_bytes(CRASH_AND_RESUME)
    assert session.messages() is session.messages()
    assert session.turns() is session.turns()


def test_from_entries_warns_as_reading_does() -> None:
    headless = b"".join(ONE_TOOL.splitlines(keepends=True)[1:])
    entries = read_bytes(headless).entries
    with pytest.warns(UserWarning, match="outside any run"):
        session = Session.from_entries(entries, name="mine")
    assert session.warnings == (
        "mine: line 1: a message entry outside any run (no run_started before it): it is in "
        "no run and no span",
    )


# Labels.

VALID = [
    "private",
    "contaminated",
    "mail:stranger@example.com",
    "web:https://example.org/a+b",
    "0",
    "9lives",
    "a.b_c-d",
    "a" * 100,
]


@pytest.mark.parametrize("label", VALID)
def test_labels(label: str) -> None:
    check_label(label)


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        ("", "it is empty"),
        ("a" * 101, "it is 101 bytes, more than 100"),
        ("a" * 99 + "é", "it is 101 bytes, more than 100"),  # 100 characters, 101 bytes
        ("Private", "it starts with 'P'; a label starts with a lower-case letter or digit"),
        ("_private", "it starts with '_'; a label starts with a lower-case letter or digit"),
        ("-x", "it starts with '-'; a label starts with a lower-case letter or digit"),
        (
            "priv\u0430te",  # a Cyrillic a, U+0430
            "'\u0430' at byte 4; a label holds only lower-case letters, digits and _ . : @ / + -",
        ),
        (
            "pri vate",
            "' ' at byte 3; a label holds only lower-case letters, digits and _ . : @ / + -",
        ),
        (
            "privatE",
            "'E' at byte 6; a label holds only lower-case letters, digits and _ . : @ / + -",
        ),
        (
            "a\u200bb",
            "'\\u200b' at byte 1; a label holds only lower-case letters, digits and _ . : @ / + -",
        ),
        (
            "ok\n",
            "'\\n' at byte 2; a label holds only lower-case letters, digits and _ . : @ / + -",
        ),
        (
            "\uff50rivate",
            "it starts with '\uff50'; a label starts with a lower-case letter or digit",
        ),
    ],
)
def test_not_labels(label: str, problem: str) -> None:
    with pytest.raises(LabelError) as e:
        check_label(label)
    assert (e.value.label, e.value.problem) == (label, problem)
    assert isinstance(e.value, ValueError)


def test_check_labels_gives_the_first_error() -> None:
    check_labels([])
    check_labels(VALID)
    with pytest.raises(LabelError) as e:
        check_labels(["ok", "Bad", "_worse"])
    assert e.value.label == "Bad"
    with pytest.raises(TypeError):
        check_labels("private")
    with pytest.raises(TypeError):
        check_label(b"private")  # type: ignore[arg-type]


LABEL_RE = re.compile(r"[a-z0-9][a-z0-9_.:@/+\-]{0,99}")


@given(
    st.one_of(
        st.text(
            alphabet=st.sampled_from("az09_.:@/+-AZ \t\n\u0430\u200b\u202e\uff41é\x00"),
            max_size=12,
        ),
        st.text(max_size=12),
        st.builds(
            lambda c, n: c * n, st.sampled_from(["a", "0", "-", "é", "ab"]), st.integers(0, 110)
        ),
    )
)
def test_check_label_is_the_regex(label: str) -> None:
    is_label = LABEL_RE.fullmatch(label) is not None
    try:
        check_label(label)
    except LabelError:
        assert not is_label
    else:
        assert is_label


def test_forbidden_and_union_labels() -> None:
    assert forbidden(["web", "private", "web", "a"], ["web", "private", "secret"]) == (
        "private",
        "web",
    )
    assert forbidden(["a"], ["b"]) == () and forbidden([], []) == ()
    assert union_labels(["b", "a"], ["c", "a"], []) == ("a", "b", "c")
    assert union_labels() == ()
    with pytest.raises(TypeError):
        forbidden("private", ["private"])


def test_view_has() -> None:
    view = View(("a", "private"))
    assert view.has("private") and view.has("a")
    assert not view.has("b") and not view.has("Private") and not view.has("")


def test_display_id() -> None:
    assert display_id("toolu_01ABCdef") == "toolu_01abcdef"
    assert display_id("call_X-9") == "call_x-9"
    assert display_id("a" * 64) == "a" * 64

    def hashed(call_id: str) -> str:
        return "call-" + hashlib.sha256(call_id.encode()).hexdigest()[:16]

    for odd in ["a" * 65, "", "a/b", "../etc", "ünï", "a b", "x.y"]:
        assert display_id(odd) == hashed(odd)
    assert display_id("") == "call-e3b0c44298fc1c14"  # the sha256 of nothing
    for call_id in ["ABC", "x" * 200, "a\nb", "\u0430"]:
        assert re.fullmatch(r"[a-z0-9_\-]+", display_id(call_id))


def test_prices_cost() -> None:
    """Go's ``Prices.Cost``: each count at its price per million tokens (``cost_usd``)."""
    prices = Prices(input=3, output=15, cache_write=3.75, cache_read=0.3)
    # 1000*3 + 200*15 + 5000*0.3 + 100*3.75 = 3000 + 3000 + 1500 + 375 = 7875 per million
    assert prices.cost_usd(Usage(1000, 200, 5000, 100)) == pytest.approx(0.007875)
    assert prices.cost_usd(Usage()) == 0.0


def test_reopened_through_file_and_memory_stores(tmp_path: Path) -> None:
    """The seed's promise, with the stores: write a session, close it, open it again."""
    from sessiontools._write.store import FileStore, MemoryStore

    closed = from_testdata("03")
    path = tmp_path / "session.jsonl"
    with FileStore(path) as store:
        for entry in closed.entries:
            store.append(entry)
    reopened = open_session(FileStore(path))
    assert reopened == closed and reopened.name == str(path)
    assert reopened.messages() == closed.messages()
    assert open_session(MemoryStore(*closed.entries)) == closed
