"""Cost and tokens of model calls by group, on arrays, without pandas (docs/costs.md,
"Grouping").

``group_costs`` is the one implementation of grouping: ``cost_by`` runs it on a ``model_calls``
frame's columns, and ``sessiontools cost`` on the columns it read, without building a frame.
Groups (``GROUPS``): ``session``; ``run`` (session and run index); ``day``, ``week`` and
``month`` of the call in a time zone (``calendar``); ``model``; ``priced_as``
(the model id the price came from); ``provider``; ``tool`` (the tool that made the call; none
for the agent's own turns); ``label`` (each label the session held at the call's entry: a
call counts under each of its labels, and when it had none under the group with no value,
``None``, which tables show as ``(none)``). Any
combination, in order.

Every group has: ``calls``, the token sums, ``cost_usd`` (the sum over its priced calls; NaN
when none of its calls with usage could be priced and some could not), ``cache_hit_rate`` and
``cache_savings_usd`` (``cache``), ``unpriced_calls``,
``unpriced_models`` (sorted) and ``lower_bound`` (some calls unpriced: the real cost is at
least ``cost_usd``). ``Groups.total`` is the same over all the calls, each counted once (with
``label``, the groups' sums count a call once per label). Groups are sorted by their keys,
a group with no value last. Token sums are exact (integers).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from .._errors import OutOfRangeError
from .._log.limits import INT64_MAX
from .cache import cache_hit_rate
from .calendar import CALENDAR, Zone, calendar_keys, check_zone, local_ns, zone_name
from .names import GROUPS
from .pricing import TOKENS, Codes, exact_total

__all__ = ["METRICS", "NUMBERS", "CallArrays", "Groups", "group_costs", "key_columns"]

#: The token sums of a group, after ``calls``.
NUMBERS = ("calls", *TOKENS, "total_tokens")
#: Every column of a group after its keys, in order.
METRICS = (
    *NUMBERS,
    "cost_usd",
    "cache_hit_rate",
    "cache_savings_usd",
    "unpriced_calls",
    "unpriced_models",
    "lower_bound",
)


def key_columns(by: Sequence[str]) -> list[str]:
    """The key columns of a grouping: ``run`` is ``session`` and ``run_index``, ``priced_as``
    is ``price_source`` and ``priced_as``; each once.

    Raises:
        ValueError: an unknown group name.
    """
    keys: list[str] = []
    for name in by:
        if name not in GROUPS:
            raise ValueError(f"cannot group by {name!r}: choose from {', '.join(GROUPS)}")
        if name == "run":
            keys += ["session", "run_index"]
        elif name == "priced_as":  # the same model id from two sources is two prices
            keys += ["price_source", "priced_as"]
        else:
            keys.append(name)
    return list(dict.fromkeys(keys))


@dataclass(slots=True)
class CallArrays:
    """Model calls as arrays: what grouping needs, one value per call.

    ``tokens``: the four counts and ``total_tokens``, ``int64``, 0 for a call without usage;
    ``has_usage``; ``cost_usd`` (NaN unpriced), ``priced``, ``cache_savings_usd``; ``model``
    (for the unpriced models); ``time_ns`` (UTC) and ``utc_offset_seconds``. ``keys`` makes
    each other group key on demand (``Codes``; ``run_index`` as ``int64``; ``labels`` as a
    sequence of tuples), so that what a grouping does not use is never built.
    """

    tokens: dict[str, Any]
    has_usage: Any
    cost_usd: Any
    priced: Any
    cache_savings_usd: Any
    model: Codes
    time_ns: Any
    utc_offset_seconds: Any
    keys: Mapping[str, Callable[[], Any]]
    rows: Any = None  # the calls kept (an index), None for all
    cost_scale: Any = None  # ``Priced.cost_scale``, for the exact total; None: not known
    _made: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.has_usage)

    def key(self, name: str) -> Any:
        """The key ``name`` of every call kept."""
        if name not in self._made:
            value = self.keys[name]()
            if self.rows is not None:
                value = (
                    value.take(self.rows) if isinstance(value, Codes) else _take(value, self.rows)
                )
            self._made[name] = value
        return self._made[name]

    def take(self, rows: Any) -> CallArrays:
        """The calls ``rows`` (an index into these calls)."""
        rows = np.asarray(rows, dtype=np.int64)
        return CallArrays(
            {name: values[rows] for name, values in self.tokens.items()},
            self.has_usage[rows],
            self.cost_usd[rows],
            self.priced[rows],
            self.cache_savings_usd[rows],
            self.model.take(rows),
            self.time_ns[rows],
            None if self.utc_offset_seconds is None else self.utc_offset_seconds[rows],
            self.keys,
            rows if self.rows is None else self.rows[rows],
            None if self.cost_scale is None else self.cost_scale[rows],
        )

    def between(self, since: int | None, until: int | None) -> CallArrays:
        """The calls made at or after ``since`` and before ``until`` (UTC nanoseconds)."""
        if since is None and until is None:
            return self
        keep = np.ones(len(self), dtype=bool)
        if since is not None:
            keep &= self.time_ns >= since
        if until is not None:
            keep &= self.time_ns < until
        return self.take(np.flatnonzero(keep))


def _take(values: Any, rows: Any) -> Any:
    if isinstance(values, np.ndarray):
        return values[rows]
    return [values[i] for i in rows.tolist()]


@dataclass(frozen=True, slots=True)
class Groups:
    """``group_costs``'s answer: ``columns`` (the key columns, then ``METRICS``), one value per
    group; ``total``, the metrics over all calls, each once; the zone the calendar keys are
    in; ``lower_bound`` and ``unpriced_models`` of the whole."""

    by: tuple[str, ...]
    keys: tuple[str, ...]
    columns: dict[str, Any]
    total: dict[str, Any]
    tz: str
    #: works out the total's priced cost exactly (``pricing.exact_total``), when asked:
    #: ``None`` when the calls do not say it (a frame's columns)
    exact: Callable[[], Decimal] | None = None

    def __len__(self) -> int:
        return len(self.columns["calls"])

    def exact_cost_usd(self) -> Decimal | None:
        """The total's priced cost, exactly: the sum of the calls' exact costs (what
        ``--max-cost`` compares with the limit); ``None`` when not known (groups of a frame)."""
        return None if self.exact is None else self.exact()

    @property
    def lower_bound(self) -> bool:
        return bool(self.total["lower_bound"])

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        models: tuple[str, ...] = self.total["unpriced_models"]
        return models


def check_sums(calls: CallArrays) -> None:
    """Raise ``OutOfRangeError`` when a token column adds up past 2^63-1 (module docstring of
    ``sessiontools._log.limits``): no group's sum, nor the total, may wrap. A float sum says when
    that is possible; integers say."""
    for name in (*TOKENS, "total_tokens"):
        column = calls.tokens[name]
        if float(np.abs(column.astype(np.float64)).sum()) < 2.0**62:
            continue  # far from 2^63 whatever the float error
        exact = sum(abs(int(v)) for v in column.tolist())
        if exact > INT64_MAX:
            raise OutOfRangeError(
                f"the {name} of these {len(calls)} model calls add up to {exact}, past "
                f"{INT64_MAX} (2^63-1), more than an Int64 sum holds; report fewer logs at once"
            )


def group_costs(calls: CallArrays, by: Sequence[str], tz: Zone = "UTC") -> Groups:
    """Group ``calls`` by ``by`` (see the module docstring), the calendar in ``tz`` (a name,
    or a ``tzinfo`` that has one: ``calendar.zone_name``).

    Raises:
        ValueError: an unknown group name or zone.
        TypeError: ``tz`` is neither a zone's name nor a zone that has one.
        OutOfRangeError: a token column adds up past 2^63-1.
    """
    keys = key_columns(by)
    tz = check_zone(zone_name(tz))
    check_sums(calls)
    n = len(calls)
    rows = np.arange(n, dtype=np.int64)  # the call of each grouped row (a call per label)
    parts: list[tuple[Any, list[Any]]] = []  # each key: codes per grouped row, sorted values
    local = None
    for name in keys:
        if name in CALENDAR:
            if local is None:
                local = local_ns(calls.time_ns, tz, calls.utc_offset_seconds)
            codes, values = calendar_keys(local, name)
            parts.append((codes, list(values)))
        elif name == "label":
            labels = calls.key("labels")
            counts = np.fromiter((len(t) or 1 for t in labels), dtype=np.int64, count=n)
            expanded = np.repeat(np.arange(n, dtype=np.int64), counts)
            # a call with no label: the group with no value (None), which no label can be
            flat = Codes.of([label for t in labels for label in (t or (None,))])
            # rows so far are one per call: take every key found so far along
            parts = [(codes[expanded], values) for codes, values in parts]
            rows = expanded
            parts.append((flat.codes, flat.values))
            continue
        elif name == "run_index":
            index = np.asarray(calls.key("run_index"), dtype=np.int64)
            values_array, codes = np.unique(index, return_inverse=True)
            parts.append((codes, values_array.tolist()))
        else:
            found = calls.key(name)
            parts.append((found.codes, list(found.values)))
        if len(rows) != n:  # a key after `label`: one per grouped row
            parts[-1] = (parts[-1][0][rows], parts[-1][1])
    columns = _aggregate(calls, rows, parts, keys)
    total = _aggregate(calls, np.arange(n, dtype=np.int64), [], [])
    total_row = {name: _first(total[name]) for name in METRICS}
    if n == 0:
        total_row.update(
            {name: 0 for name in NUMBERS}
            | {"cost_usd": 0.0, "cache_hit_rate": math.nan, "cache_savings_usd": 0.0}
            | {"unpriced_calls": 0, "unpriced_models": (), "lower_bound": False}
        )
    exact = None
    scale = calls.cost_scale
    if scale is not None:

        def exact() -> Decimal:
            return exact_total(calls.cost_usd, scale, calls.priced & calls.has_usage)

    return Groups(tuple(by), tuple(keys), columns, total_row, tz, exact)


def _first(values: Any) -> Any:
    if isinstance(values, list):
        return values[0] if values else None
    return values[0].item() if len(values) else None


def _aggregate(
    calls: CallArrays, rows: Any, parts: list[tuple[Any, list[Any]]], keys: list[str]
) -> dict[str, Any]:
    """The groups of the grouped ``rows`` (one per call, or per call and label) by the key
    ``parts``: each key's codes (-1: no value, sorted last) and values."""
    group = np.zeros(len(rows), dtype=np.int64)
    for codes, values in parts:
        code = np.where(codes < 0, len(values), codes)  # no value: after every value
        group = group * (len(values) + 1) + code
        _, group = np.unique(group, return_inverse=True)  # dense again: never overflows
    order = np.argsort(group, kind="stable")
    sorted_group = group[order]
    starts = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])[: len(rows)]
    call_rows = rows[order]
    out: dict[str, Any] = {}
    first_rows = order[starts]
    for (codes, values), name in zip(parts, keys, strict=True):
        table = [*values, None]
        out[name] = [table[c] for c in codes[first_rows].tolist()]

    def sums(values: Any) -> Any:
        if len(starts) == 0:
            return values[:0]
        return np.add.reduceat(values[call_rows], starts)

    out["calls"] = np.diff(np.r_[starts, len(call_rows)]).astype(np.int64)
    for name in (*TOKENS, "total_tokens"):
        out[name] = sums(calls.tokens[name])
    priced = calls.priced
    out["cost_usd"] = sums(np.where(priced, calls.cost_usd, 0.0)).astype(np.float64)
    out["cache_hit_rate"] = cache_hit_rate(
        out["input_tokens"], out["cache_read_tokens"], out["cache_write_tokens"]
    )
    out["cache_savings_usd"] = sums(calls.cache_savings_usd).astype(np.float64)
    unpriced = sums((~priced).astype(np.int64))
    priced_usage = sums((priced & calls.has_usage).astype(np.int64))
    # nothing in the group could be priced: not known, NaN, never 0
    out["cost_usd"][(priced_usage == 0) & (unpriced > 0)] = math.nan
    out["unpriced_calls"] = unpriced
    models: list[set[str]] = [set() for _ in range(len(starts))]
    if unpriced.any():
        group_of = np.repeat(np.arange(len(starts)), out["calls"])
        model_codes = calls.model.codes[call_rows]
        for g, code in zip(
            group_of[~priced[call_rows]].tolist(),
            model_codes[~priced[call_rows]].tolist(),
            strict=True,
        ):
            if code >= 0:
                models[g].add(str(calls.model.values[code]))
    out["unpriced_models"] = [tuple(sorted(m)) for m in models]
    out["lower_bound"] = unpriced > 0
    return out
