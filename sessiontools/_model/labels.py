"""agentloop's label rules: ``check_label``, ``check_labels``, ``forbidden``, ``union_labels``,
``display_id``, and the constants that go with them (docs/session-library.md, "Labels").

Each mirrors the Go name of the same meaning (``CheckLabel``, ``CheckLabels``, ``Forbidden``,
``UnionLabels``, ``DisplayID``, ``ForbiddenDecision``, ``RefusedResult``, ``MaxLabelBytes``);
the session model and ``SessionBuilder`` check labels with them. Where agentloop's
documentation is silent, the choice made is marked **Chosen**.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

from .._errors import LabelError

__all__ = [
    "FORBIDDEN_DECISION",
    "LABEL_SEED",
    "LABEL_TOOL",
    "MAX_LABEL_BYTES",
    "REFUSED_RESULT",
    "check_label",
    "check_labels",
    "display_id",
    "forbidden",
    "union_labels",
]


#: Where a label can come from, other than a tool call: the agent's starting labels.
LABEL_SEED = "seed"


#: Where a label can come from: a tool call's decision or result.
LABEL_TOOL = "tool"


#: The longest a label may be, in bytes (Go's ``MaxLabelBytes``).
MAX_LABEL_BYTES = 100


#: The reason recorded for a call whose decision would have given the session a label it may
#: not hold (Go's ``ForbiddenDecision``).
FORBIDDEN_DECISION = "This call would give the session a label it may not hold, so it was not run."


#: What the model is told in place of a refused tool result (Go's ``RefusedResult``).
REFUSED_RESULT = "This result was refused: it carries a label this session may not hold."


_LABEL = re.compile(r"[a-z0-9][a-z0-9_.:@/+\-]*")


_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


_REST = _FIRST | frozenset("_.:@/+-")


def check_label(label: str) -> None:
    """Raise ``LabelError`` when ``label`` is not a label (Go's ``CheckLabel``).

    A label is 1 to ``MAX_LABEL_BYTES`` (100) bytes of UTF-8, starting with a lower-case
    letter or digit and continuing with lower-case letters, digits and ``_ . : @ / + -``, all
    ASCII. Nothing else is allowed, so case, spacing, invisible, bidi and lookalike variants of
    a name cannot exist, and a forbid list cannot miss one by a byte.

    Raises:
        LabelError: why it is not a label (empty, too long, or the first character that may
            not be where it is, with its byte offset).
        TypeError: ``label`` is not a ``str``.
    """
    if not isinstance(label, str):
        raise TypeError(f"a label is a str, not {type(label).__name__}")
    if len(label) <= MAX_LABEL_BYTES and _LABEL.fullmatch(label):
        return  # all ASCII, so characters are bytes
    if not label:
        raise LabelError(label, "it is empty")
    size = len(label.encode("utf-8", "surrogatepass"))
    if size > MAX_LABEL_BYTES:
        raise LabelError(label, f"it is {size} bytes, more than {MAX_LABEL_BYTES}")
    if label[0] not in _FIRST:
        raise LabelError(
            label, f"it starts with {label[0]!r}; a label starts with a lower-case letter or digit"
        )
    for i, ch in enumerate(label):
        if ch not in _REST:  # every character before it is ASCII: i is its byte offset
            raise LabelError(
                label,
                f"{ch!r} at byte {i}; a label holds only lower-case letters, digits and "
                "_ . : @ / + -",
            )
    raise AssertionError("unreachable: the label matched no rule")  # pragma: no cover


def check_labels(labels: Iterable[str]) -> None:
    """Raise the first ``LabelError`` ``check_label`` gives for ``labels`` (Go's
    ``CheckLabels``); nothing when all are labels, or there are none."""
    for label in _label_list(labels, "labels"):
        check_label(label)


def forbidden(labels: Iterable[str], forbid: Iterable[str]) -> tuple[str, ...]:
    """The labels in ``labels`` that ``forbid`` names, sorted, with no repeats (Go's
    ``Forbidden``): what a session given ``labels`` would hold that it may not. ``()`` when
    there are none (Go: empty, never nil)."""
    held = set(_label_list(labels, "labels"))
    return tuple(sorted(held.intersection(_label_list(forbid, "forbid"))))


def union_labels(*ls: Iterable[str]) -> tuple[str, ...]:
    """The sorted set of the labels in all of ``ls`` (Go's ``UnionLabels``).

    Sorted by code point, which for labels (ASCII) is Go's byte order.
    """
    out: set[str] = set()
    for labels in ls:
        out.update(_label_list(labels, "each argument"))
    return tuple(sorted(out))


def _label_list(labels: Iterable[str], what: str) -> Iterable[str]:
    if isinstance(labels, str):
        raise TypeError(f"{what} must be a collection of labels, not one str ({labels!r})")
    return labels


#: **Chosen** (agentloop says "short"): at most this many characters are kept as they are.
DISPLAY_ID_MAX = 64


#: **Chosen** (agentloop says "the start"): how many hex digits of the sha256 are kept.
DISPLAY_ID_HASH_DIGITS = 16


_DISPLAY_ID = re.compile(rf"[A-Za-z0-9_\-]{{1,{DISPLAY_ID_MAX}}}")


def display_id(call_id: str) -> str:
    """The name a call's display is kept under (Go's ``DisplayID``); a safe path segment.

    agentloop's documentation: "the call id in lower case when that is a short run of letters,
    digits, _ and -, and otherwise "call-" and the start of the id's sha256". agentloop's source was
    not found, so "short" and "the start" are **guesses**: 1 to ``DISPLAY_ID_MAX`` (64) ASCII
    letters, digits, ``_`` and ``-`` are kept, lower-cased; anything else (the empty id included) is
    ``"call-"`` and the first ``DISPLAY_ID_HASH_DIGITS`` (16) lower-case hex digits of the sha256 of
    the id's UTF-8 bytes.

    >>> display_id("toolu_01ABC")
    'toolu_01abc'
    """
    if _DISPLAY_ID.fullmatch(call_id):
        return call_id.lower()
    digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
    return "call-" + digest[:DISPLAY_ID_HASH_DIGITS]
