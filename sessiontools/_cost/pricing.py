"""Pricing model calls column by column, without pandas (docs/costs.md, "Prices").

``price_calls`` takes a cost table's model calls as arrays (times, providers, models, the four
token counts) and returns every call's ``cost_usd``, ``priced``, ``price_source``,
``priced_as`` and ``cache_savings_usd`` (``cache``): one price look-up per
(provider, model, UTC day), the tier chosen per call. The pandas frames
(``frames``) and ``sessiontools cost``, which builds no frame, both price here.

Names (providers, models, prices' sources) are ``Codes``: an integer code per call into a
sorted list of the distinct values, -1 for none (a pandas ``Categorical`` without pandas).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from .cache import cache_savings_usd
from .price_book import PriceBook
from .price_file import EXACT, ExactRates

__all__ = ["TOKENS", "Codes", "Priced", "exact_total", "match_providers", "price_calls"]

#: agentloop's four disjoint token counts, as the frames name them.
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")

_NS_PER_DAY = 86_400_000_000_000
_RATE_FIELDS = (
    ("input_tokens", "input"),
    ("output_tokens", "output"),
    ("cache_read_tokens", "cache_read"),
    ("cache_write_tokens", "cache_write"),
)


@dataclass(frozen=True, slots=True)
class Codes:
    """A column of names: ``values[codes[i]]`` is row ``i``'s; code -1 is no value.
    ``values`` are distinct and sorted."""

    codes: Any  # numpy int64 array
    values: list[Any]

    @classmethod
    def of(cls, items: Sequence[Any]) -> Codes:
        """Codes for ``items`` (``None`` is no value)."""
        found = dict.fromkeys(items)
        found.pop(None, None)
        values = sorted(found)
        index: dict[Any, int] = {value: code for code, value in enumerate(values)}
        index[None] = -1
        codes = np.fromiter(map(index.__getitem__, items), dtype=np.int64, count=len(items))
        return cls(codes, values)

    @classmethod
    def sorting(cls, codes: Any, values: list[Any]) -> Codes:
        """Codes into ``values`` in any order, recoded so that the values are sorted."""
        order = sorted(range(len(values)), key=values.__getitem__)
        if order == list(range(len(values))):
            return cls(np.asarray(codes, dtype=np.int64), values)
        new = np.empty(len(values) + 1, dtype=np.int64)
        new[np.asarray(order, dtype=np.int64)] = np.arange(len(values), dtype=np.int64)
        new[-1] = -1  # code -1 indexes the last slot
        return cls(new[np.asarray(codes, dtype=np.int64)], [values[i] for i in order])

    def take(self, rows: Any) -> Codes:
        """The rows ``rows`` (an index or a mask), with the same values."""
        return Codes(self.codes[rows], self.values)

    def decoded(self) -> list[Any]:
        """Each row's value, ``None`` for none."""
        table = [*self.values, None]
        return [table[c] for c in self.codes.tolist()]


@dataclass(frozen=True, slots=True)
class Priced:
    """What ``price_calls`` found, one value per call."""

    cost_usd: Any  # float64; NaN when unpriced
    priced: Any  # bool
    price_source: Codes
    priced_as: Codes
    cache_savings_usd: Any  # float64
    #: ``int64``: the call's exact cost is a whole number of ``10**-scale`` US dollars below
    #: 2^50 and ``cost_usd`` is the float nearest it (``exact_total``); -1 when not so (a
    #: call unpriced, of no usage, priced by rates made by hand, or too dear for 2^50 units).
    cost_scale: Any = None


def price_calls(
    time_ns: Any,
    provider: Codes,
    model: Codes,
    counts: Mapping[str, Any],
    has_usage: Any,
    book: PriceBook,
) -> Priced:
    """The cost of every model call: one look-up per (provider, model, UTC day), the tier per
    call.

    Args:
        time_ns: ``int64`` UTC nanoseconds of each call.
        provider, model: as the log gives them (no provider: genai-prices finds it).
        counts: the four token counts (``TOKENS``), ``float64``, 0 for a call without usage.
        has_usage: whether the call has usage; a failed call has none, costs 0 and is priced.

    A call nobody prices costs NaN and is not priced; its ``cache_savings_usd`` is NaN; a call
    of no tokens costs 0 and is priced, whoever prices it. ``priced_as`` is the model id the
    price is that of (``PriceTable.priced_as``) and ``price_source`` where the price came from
    (``prices file`` or ``genai-prices``): both also for a failed call whose model has a price
    (it costs 0 whatever the price), and neither when nobody prices the model.
    """
    times = np.asarray(time_ns, dtype=np.int64)
    n = len(times)
    cost = np.zeros(n, dtype=np.float64)
    savings = np.zeros(n, dtype=np.float64)
    priced = np.ones(n, dtype=bool)
    source = np.full(n, -1, dtype=np.int64)
    priced_as = np.full(n, -1, dtype=np.int64)
    scale = np.full(n, -1, dtype=np.int64)
    sources: dict[str, int] = {}
    names: dict[str, int] = {}
    if n == 0:
        return Priced(cost, priced, Codes(source, []), Codes(priced_as, []), savings, scale)
    usage = np.asarray(has_usage, dtype=bool)
    inclusive = counts["input_tokens"] + counts["cache_read_tokens"] + counts["cache_write_tokens"]
    any_tokens = (inclusive + counts["output_tokens"]) > 0
    days = times // _NS_PER_DAY
    day_index = days - days.min()
    key = (provider.codes + 1) * (len(model.values) + 1) + (model.codes + 1)
    key = key * (int(day_index.max()) + 1) + day_index
    _, first_row, groups = np.unique(key, return_index=True, return_inverse=True)
    # each group is looked up at the time of its first call with usage (else its first call)
    order = np.argsort(groups, kind="stable")
    with_usage = order[usage[order]]
    found, at_usage = np.unique(groups[with_usage], return_index=True)
    lookup_row = first_row.copy()
    lookup_row[found] = with_usage[at_usage]
    # each group's table: an index into `tables`, -1 unpriced, -2 priced call by call
    tables: dict[tuple[Any, ...], int] = {}
    table_of_group = np.empty(len(first_row), dtype=np.int64)
    for g, row in enumerate(lookup_row.tolist()):
        model_code = int(model.codes[row])
        if model_code < 0:  # no model: nothing can price it
            table_of_group[g] = -1
            continue
        name = str(model.values[model_code])
        provider_code = int(provider.codes[row])
        provider_name = "" if provider_code < 0 else str(provider.values[provider_code])
        t = int(times[row])
        table = book.table(provider_name, name, t)
        if table is None:
            table_of_group[g] = -1
        elif not book.whole_day(provider_name, name, t):
            table_of_group[g] = -2
        else:
            table_of_group[g] = tables.setdefault(
                (table.tiers, table.priced_as or name, table.source), len(tables)
            )
    row_table = table_of_group[groups]
    # a call of no tokens costs 0 whoever prices it: a count of zero never makes NaN
    unpriced = usage & (row_table == -1) & any_tokens
    cost[unpriced] = math.nan
    priced[unpriced] = False
    savings[unpriced] = math.nan
    for i in np.flatnonzero(row_table == -2).tolist():
        # prices that change within the day (off-peak hours): each call on its own
        provider_code = int(provider.codes[i])
        provider_name = "" if provider_code < 0 else str(provider.values[provider_code])
        name = str(model.values[int(model.codes[i])])
        in_force = book.table(provider_name, name, int(times[i]))
        assert in_force is not None
        priced_as[i] = names.setdefault(in_force.priced_as or name, len(names))
        source[i] = sources.setdefault(in_force.source, len(sources))
        if not usage[i]:
            continue
        rates = in_force.rates_for(int(inclusive[i]))
        exact = None
        if rates.exact is not None:
            exact = rates.exact.cost(*(int(counts[column][i]) for column, _ in _RATE_FIELDS))
        if exact is not None:
            cost[i] = float(exact)  # the float nearest the exact cost
            digits = _scaled(rates.exact)[0] if rates.exact is not None else 0
            units = EXACT.scaleb(exact, digits)
            if digits <= _MAX_SCALE and units < _MAX_UNITS and units == units.to_integral_value():
                scale[i] = digits
        else:
            cost[i] = rates.request + sum(
                counts[column][i] * getattr(rates, field)
                for column, field in _RATE_FIELDS
                if counts[column][i]
            )
        savings[i] = cache_savings_usd(
            counts["cache_read_tokens"][i],
            counts["cache_write_tokens"][i],
            rates.input,
            rates.cache_read,
            rates.cache_write,
        )
        if math.isnan(cost[i]):
            priced[i] = False
            savings[i] = math.nan
    for (tiers, priced_name, table_source), index in tables.items():
        in_table = row_table == index
        priced_as[in_table] = names.setdefault(priced_name, len(names))
        source[in_table] = sources.setdefault(table_source, len(sources))
        rows = np.flatnonzero(in_table & usage)
        # A request pays the last tier whose start its inclusive input is strictly above,
        # on all of its tokens (genai-prices' cliff tiers; see price_file.Rates).
        starts = np.array([r.tier_start for r in tiers], dtype=np.float64)
        tier = np.maximum(np.searchsorted(starts, inclusive[rows], side="left") - 1, 0)
        for number, rates in enumerate(tiers):
            in_tier = rows[tier == number]
            if len(in_tier) == 0:
                continue
            total = np.full(len(in_tier), rates.request, dtype=np.float64)
            for column, field in _RATE_FIELDS:
                tokens = counts[column][in_tier]
                # no tokens at an unknown (NaN) price cost nothing, not NaN
                total += np.where(tokens > 0, tokens * getattr(rates, field), 0.0)
            if rates.exact is not None:
                _exactly(rates.exact, counts, in_tier, total, scale)
            cost[in_tier] = total
            savings[in_tier] = cache_savings_usd(
                counts["cache_read_tokens"][in_tier],
                counts["cache_write_tokens"][in_tier],
                rates.input,
                rates.cache_read,
                rates.cache_write,
            )
        unknown = rows[np.isnan(cost[rows])]
        priced[unknown] = False
        savings[unknown] = math.nan
    scale[~priced | ~usage] = -1
    return Priced(
        cost,
        priced,
        Codes.sorting(source, list(sources)),
        Codes.sorting(priced_as, list(names)),
        savings,
        scale,
    )


#: ``ExactRates.scaled``, once per rates (the calls priced one by one ask for each call)
_scaled = functools.lru_cache(maxsize=1024)(ExactRates.scaled)


#: The largest scale whose power of ten is an exact float (10**22), and the most units a
#: cost may have to be worked out exactly in floats: whole numbers below 2^50 add up and
#: multiply exactly, and come back from ``cost * 10**scale`` by rounding (``exact_total``).
_MAX_SCALE = 22
_MAX_UNITS = 2**50


def _exactly(
    exact: ExactRates, counts: Mapping[str, Any], rows: Any, total: Any, scale: Any
) -> None:
    """The calls ``rows`` of one tier, costed exactly where they can be: each cost as a whole
    number of ``10**-scale`` dollars (counts times the rates in those units, exact in floats
    below 2^50), divided by ``10**scale``: the float nearest the exact cost, into ``total``
    (one value per row) and its scale into ``scale`` (one per call). Calls with a count at an
    unknown rate (NaN already) and calls too dear for 2^50 units keep the float sum."""
    digits, rates, request = _scaled(exact)
    if digits > _MAX_SCALE:
        return
    units = np.full(len(rows), float(request), dtype=np.float64)
    for (column, _), rate in zip(_RATE_FIELDS, rates, strict=True):
        if rate is None or rate == 0:
            continue  # NaN already where such tokens are, and nothing where there are none
        units += counts[column][rows] * float(rate)
    whole = (units < _MAX_UNITS) & ~np.isnan(total)
    total[whole] = units[whole] / 10.0**digits
    scale[rows[whole]] = digits


def exact_total(cost_usd: Any, cost_scale: Any, rows: Any) -> Decimal:
    """The exact sum of the costs of the calls ``rows`` (a mask of priced calls): each cost of
    a known scale as the whole number of ``10**-scale`` dollars it rounds (``Priced.cost_scale``),
    the others as the exact value of their float."""
    costs = np.asarray(cost_usd, dtype=np.float64)[rows]
    scales = np.asarray(cost_scale, dtype=np.int64)[rows]
    total = Decimal(0)
    for value in costs[scales < 0].tolist():
        if not math.isnan(value):
            total = EXACT.add(total, Decimal(value))
    for digits in np.unique(scales[scales >= 0]).tolist():
        units = np.rint(costs[scales == digits] * 10.0**digits).astype(np.int64)
        # each below 2^50: sums of 8,192 stay below 2^63, and Python adds those up
        whole = sum(int(part) for part in np.add.reduceat(units, np.arange(0, len(units), 8192)))
        total = EXACT.add(total, EXACT.scaleb(Decimal(whole), -digits))
    return total


def match_providers(provider: Codes, model: Codes, time_ns: Any, book: PriceBook) -> Codes:
    """A model call whose log names no provider (a tool's own model calls) takes the one
    genai-prices matches to its model id (``PriceBook.provider``: asked once per model id, at
    its first call's time); none if genai-prices does not know it. After pricing, which asks
    genai-prices with the provider the log gives."""
    missing = (provider.codes < 0) & (model.codes >= 0)
    if not missing.any():
        return provider
    rows = np.flatnonzero(missing)
    values = list(provider.values)
    index = {value: i for i, value in enumerate(values)}
    matched: dict[int, int] = {}
    codes = provider.codes.copy()
    times = np.asarray(time_ns, dtype=np.int64)
    for i in rows.tolist():
        model_code = int(model.codes[i])
        code = matched.get(model_code)
        if code is None:
            found = book.provider(str(model.values[model_code]), int(times[i]))
            code = -1 if found is None else index.setdefault(found, len(values))
            if code == len(values):
                values.append(found)
            matched[model_code] = code
        codes[i] = code
    return Codes.sorting(codes, values)
