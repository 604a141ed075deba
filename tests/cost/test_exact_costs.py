"""Each call's cost is the float nearest its exact cost, and the budget's total is exact
(a new user's trial: $0.0045 was 0.0045000000000000005 and failed --max-cost 0.0045).

The exact costs are worked out here in ``Decimal`` from the prices as written (US dollars per
million tokens), independently of the code under test: count * price / 10^6, summed."""

from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import PriceBook, Prices
from sessiontools._cost.pricing import Codes, exact_total, price_calls

#: prices as people write them: up to four decimals per million tokens
_price = st.decimals(min_value=0, max_value=100, places=4, allow_nan=False, allow_infinity=False)
#: token counts of a call, up to 10^8: at up to $100 a million tokens, with four decimals, a
#: call's cost in 10^-10 dollars stays below 4 * 10^14 < 2^50, the range in which each cost
#: is worked out exactly (pricing._MAX_UNITS; a dearer call keeps its float sum: below)
_count = st.integers(min_value=0, max_value=10**8)
_call = st.tuples(_count, _count, _count, _count)


def exact_cost(counts: tuple[int, ...], prices: tuple[Decimal, ...]) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 100
        return sum(
            (Decimal(c) * p / Decimal(10**6) for c, p in zip(counts, prices, strict=True)),
            Decimal(0),
        )


@settings(max_examples=200, deadline=None)
@given(st.tuples(_price, _price, _price, _price), st.lists(_call, min_size=1, max_size=20))
def test_each_cost_is_the_nearest_float_and_the_total_is_exact(
    prices: tuple[Decimal, ...], calls: list[tuple[int, ...]]
) -> None:
    book = PriceBook(
        {"m": Prices(*(float(p) for p in prices))},  # input, output, cache_write, cache_read
        genai_prices=False,
    )
    # Prices' order is input, output, cache_write, cache_read; the counts' is input, output,
    # cache_read, cache_write
    per_count = (prices[0], prices[1], prices[3], prices[2])
    n = len(calls)
    columns = np.array(calls, dtype=np.float64).reshape(n, 4)
    counts = {
        "input_tokens": columns[:, 0],
        "output_tokens": columns[:, 1],
        "cache_read_tokens": columns[:, 2],
        "cache_write_tokens": columns[:, 3],
    }
    found = price_calls(
        np.full(n, 1_790_000_000 * 10**9, dtype=np.int64),
        Codes.of([None] * n),
        Codes.of(["m"] * n),
        counts,
        np.ones(n, dtype=bool),
        book,
    )
    want = [exact_cost(c, per_count) for c in calls]
    assert found.cost_usd.tolist() == [float(w) for w in want]
    assert exact_total(found.cost_usd, found.cost_scale, found.priced) == sum(want, Decimal(0))


def test_calls_priced_one_by_one_are_exact_too() -> None:
    """deepseek-chat's prices change within the day (off-peak hours), so its calls are priced
    one by one: each cost is still the float of its exact cost (``Rates.exact``, the cost
    ``PriceBook.cost_usd`` gives, each at its own time), and the total is their exact sum."""
    from sessiontools import Usage
    from sessiontools._model.usage import inclusive_input_tokens

    book = PriceBook()
    day = 1_767_225_600 * 10**9  # 2026-01-01T00:00Z
    times = [day + h * 3600 * 10**9 for h in (1, 10, 17, 23)]
    usages = [Usage(1000, 100), Usage(7, 3, 1234, 0), Usage(1, 1), Usage(999_999, 0, 5, 0)]
    n = len(times)
    counts = {
        "input_tokens": np.array([u.input_tokens for u in usages], dtype=np.float64),
        "output_tokens": np.array([u.output_tokens for u in usages], dtype=np.float64),
        "cache_read_tokens": np.array([u.cache_read_tokens for u in usages], dtype=np.float64),
        "cache_write_tokens": np.array([u.cache_write_tokens for u in usages], dtype=np.float64),
    }
    found = price_calls(
        np.array(times, dtype=np.int64),
        Codes.of(["deepseek"] * n),
        Codes.of(["deepseek-chat"] * n),
        counts,
        np.ones(n, dtype=bool),
        book,
    )
    assert not book.whole_day("deepseek", "deepseek-chat", times[0])  # one by one
    want = []
    for t, u in zip(times, usages, strict=True):
        table = book.table("deepseek", "deepseek-chat", t)
        assert table is not None
        exact = table.rates_for(inclusive_input_tokens(u)).exact
        assert exact is not None
        cost = exact.cost(u.input_tokens, u.output_tokens, u.cache_read_tokens, 0)
        assert cost is not None
        want.append(cost)
    assert found.cost_usd.tolist() == [float(w) for w in want]
    assert found.cost_usd.tolist() == [
        book.cost_usd("deepseek", "deepseek-chat", t, u) for t, u in zip(times, usages, strict=True)
    ]
    assert (found.cost_scale >= 0).all()
    assert exact_total(found.cost_usd, found.cost_scale, found.priced) == sum(want, Decimal(0))


def test_a_call_too_dear_to_cost_exactly_keeps_its_float_sum() -> None:
    """A call whose cost is 2^50 units or more of its price's scale (here 10^-10 dollars: from
    about $112,590) is not worked out exactly: its ``cost_scale`` is -1 and the total takes its
    float as it is (the exact value of that float), beside the exact costs of the others.
    Hand-computed: 10^10 input tokens at $100.0001 a million are $1,000,001 exactly (10^16
    units, over 2^50 = 1.1259e15); 3 input tokens at the same price are $0.0003000003 (3,000,003
    units, exact)."""
    book = PriceBook({"m": Prices(100.0001, 0.0, 0.0, 0.0)}, genai_prices=False)
    counts = {
        "input_tokens": np.array([1e10, 3.0]),
        "output_tokens": np.zeros(2),
        "cache_read_tokens": np.zeros(2),
        "cache_write_tokens": np.zeros(2),
    }
    found = price_calls(
        np.full(2, 1_790_000_000 * 10**9, dtype=np.int64),
        Codes.of([None] * 2),
        Codes.of(["m"] * 2),
        counts,
        np.ones(2, dtype=bool),
        book,
    )
    assert found.cost_scale.tolist() == [-1, 10]
    assert found.cost_usd[1] == float(Decimal("0.0003000003"))
    assert abs(found.cost_usd[0] - 1_000_001.0) <= 1e-9
    assert exact_total(found.cost_usd, found.cost_scale, found.priced) == (
        Decimal(float(found.cost_usd[0])) + Decimal("0.0003000003")
    )
