"""What the page's script draws a run's timeline from, made where the log is read: each mark's
facts record and each run's drawing (``render._Facts`` writes them into the page).

A log's records refer to its strings and shapes by their index in the ``FactsTable`` of the
process that read it; the page's one table is made of them when it is written, each
table's strings and shapes in the order of their first use (``FactsTable.first_use``), so
the page holds what it held when the records were made from ``Span`` values there. Nothing
here imports pandas, genai-prices or Jinja2: it runs in the processes that read the logs.
"""

from __future__ import annotations

from typing import Any

from .._otel.spans import AttributeValue

__all__ = [
    "CONVERSATION",
    "LANE_HEIGHTS",
    "LANE_KINDS",
    "MARK_CLASSES",
    "OPERATION",
    "STATUS",
    "FactsTable",
    "drawing",
]

OPERATION = "gen_ai.operation.name"
CONVERSATION = "gen_ai.conversation.id"
#: The typed key of a failed span's status message, first in its shape.
STATUS = "!:status"
_CONVERSATION = "c:" + CONVERSATION

#: A mark's classes by their number in the facts (report.js: CLASSES).
MARK_CLASSES = ("", "e", "e y", "k", "dn", "rf", "rs", "e rs", "dn rs", "rf rs", "k rs")
CLASS_NUMBERS = {classes: number for number, classes in enumerate(MARK_CLASSES)}
#: The kind of a mark on each lane (report.js: KINDS).
LANE_KINDS = ("invoke_agent", "chat", "execute_tool", "chat")

# Lanes, in pixels: top, height of one row, step from one row to the next.
_RUN_TOP, _RUN_HEIGHT = 2, 10
_MODEL_HEIGHT = 12
_TOOL_HEIGHT, _TOOL_STEP = 12, 14
_TOOL_MODEL_HEIGHT, _TOOL_MODEL_STEP = 5, 7
_GAP = 4
_AXIS = 14  # the time axis' labels, under the lanes

#: A mark's height on each lane, in pixels (the page's style sets it: report.css).
LANE_HEIGHTS = (_RUN_HEIGHT, _MODEL_HEIGHT, _TOOL_HEIGHT, _TOOL_MODEL_HEIGHT)

_LANES = (
    # (step from one row to the next, space after the lane)
    (_RUN_HEIGHT, _GAP),
    (_MODEL_HEIGHT, _GAP),
    (_TOOL_STEP, _GAP),
    (_TOOL_MODEL_STEP, _GAP),
)


def drawing(counts: tuple[int, int, int, int]) -> tuple[list[int], list[int], int]:
    """A run's rows, one lane each for the run, its model calls, its tool calls and their
    model calls, ``counts`` rows each (empty lanes take no room): each row's lane and top
    (``lane, y, lane, y...``), the number of each lane's first row (-1 for an empty lane),
    and the drawing's height (the time axis' labels 4 pixels above its bottom)."""
    rows: list[int] = []
    first = [-1, -1, -1, -1]
    y = _RUN_TOP
    for lane, count in enumerate(counts):
        if not count:
            continue
        first[lane] = len(rows) // 2
        step, gap = _LANES[lane]
        for row in range(count):
            rows += (lane, y + row * step)
        y += (count - 1) * step + LANE_HEIGHTS[lane] + gap
    return rows, first, y + _AXIS


class FactsTable:
    """The strings and shapes the records of one process's read of a log refer to (see
    ``render._Facts`` for the records), each in the order of its first use as the records
    were made: a record's status message, its attributes' strings, then its name.

    ``order`` is that order when it is not the strings' (``reorder``: the labels a log's
    second part takes from its first). Pickled without its caches."""

    __slots__ = (
        "_int_keys",
        "_pairs",
        "_shape_index",
        "index",
        "order",
        "shapes",
        "strings",
        "templates",
    )

    def __init__(self, conversation_id: str) -> None:
        self.strings: list[str] = []
        self.index: dict[str, int] = {}
        self.shapes: list[tuple[str, ...]] = []
        self._shape_index: dict[tuple[str, ...], int] = {}
        self.order: list[int] | None = None
        self._pairs: dict[tuple[str, AttributeValue], tuple[str, Any]] = {}
        self._int_keys: dict[str, str] = {}
        #: What the process that makes the records keeps to make them faster (not pickled).
        self.templates: Any = None
        self.s(conversation_id)  # the page takes a session's conversation id first

    def __getstate__(self) -> tuple[Any, ...]:
        return self.strings, self.shapes, self.order

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.strings, self.shapes, self.order = state
        self.index = {text: i for i, text in enumerate(self.strings)}
        self._shape_index = {shape: i for i, shape in enumerate(self.shapes)}
        self._pairs = {}
        self._int_keys = {}
        self.templates = None

    def s(self, text: str) -> int:
        index = self.index.get(text)
        if index is None:
            index = self.index[text] = len(self.strings)
            self.strings.append(text)
        return index

    def record(
        self,
        name: str,
        start: int,
        duration: int,
        cost: Any,
        place: int,
        attributes: list[tuple[str, AttributeValue]],
        status_message: str | None,
        conversation: str,
    ) -> list[Any]:
        """A mark's record: ``[shape, name, start, duration, cost, place, value...]``, its
        strings' and shape's indexes this table's. ``status_message``: ``None`` unless the
        span's status is ERROR."""
        s, pairs, int_keys = self.s, self._pairs, self._int_keys
        if status_message is not None:
            keys = [STATUS]
            values: list[Any] = [s(status_message)]
        else:
            keys = []
            values = []
        for pair in attributes:
            value = pair[1]
            if type(value) is int:  # counts vary: not worth keeping (bool is not int here)
                typed = int_keys.get(pair[0])
                if typed is None:
                    typed = int_keys[pair[0]] = "i:" + pair[0]
                keys.append(typed)
                values.append(value)
                continue
            if value == conversation and pair[0] == CONVERSATION:
                keys.append(_CONVERSATION)
                continue
            hit = pairs.get(pair)
            if hit is None:
                if len(pairs) > 50_000:
                    pairs.clear()
                hit = pairs[pair] = self._pair(*pair)
            keys.append(hit[0])
            if hit[1] is not None:
                values.append(hit[1])
        shape_key = tuple(keys)
        shape = self._shape_index.get(shape_key)
        if shape is None:
            shape = self._shape_index[shape_key] = len(self.shapes)
            self.shapes.append(shape_key)
        return [shape, s(name), start, duration, cost, place, *values]

    def _pair(self, key: str, value: AttributeValue) -> tuple[str, Any]:
        """An attribute that is not an integer: its typed key and its value in the facts
        (``None``: none, the page knows it)."""
        if key == OPERATION:
            return "o:" + key, None
        if isinstance(value, bool):
            return "b:" + key, int(value)
        if isinstance(value, str):
            return "s:" + key, self.s(value)
        if isinstance(value, int):  # pragma: no cover - integers take the fast path
            return "i:" + key, value
        return "a:" + key, [self.s(v) for v in value]

    def positions(self, shape: int) -> list[tuple[int, str]]:
        """The typed keys of ``shape`` whose values a record holds (not ``o`` nor ``c``, which
        the page knows), each with its value's position in the record."""
        values = [key for key in self.shapes[shape] if key[0] not in "oc"]
        return list(enumerate(values, start=6))

    def spots(self, shape: int) -> list[tuple[int, bool]]:
        """Where a record of ``shape`` holds string indexes after its name, in their order:
        (position in the record, whether it is a list of them)."""
        return [(at, key[0] == "a") for at, key in self.positions(shape) if key[0] in "s!a"]

    def first_use(self) -> list[int]:
        """The strings' indexes in the order of their first use."""
        return self.order if self.order is not None else list(range(len(self.strings)))

    def reorder_first(self, record: list[Any]) -> None:
        """``record``, this table's first, has changed strings: its strings are used first,
        in its order, the others after them in the order they had."""
        used: list[int] = []
        for position, many in self.spots(record[0]):
            used += record[position] if many else (record[position],)
        used.append(record[1])
        front = [0]  # the conversation id, first (``__init__``)
        for i in used:
            if i not in front:
                front.append(i)
        taken = set(front)
        self.order = front + [i for i in self.first_use() if i not in taken]
