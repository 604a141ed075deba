"""Prices: the price file, genai-prices as the authority, tiers, dates, the cache (costs.md).

Expected costs are worked out here by hand from the providers' published prices per million
tokens, written below with the page they come from, never from what the code prints. The
property test compares the book with ``genai_prices.calc_price`` itself, given the inclusive
input this file computes on its own.
"""

from __future__ import annotations

import math
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import genai_prices
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessiontools import (
    PriceBook,
    PriceFileError,
    Prices,
    PriceTable,
    Rates,
    SessionToolsError,
    Usage,
    load_prices,
)

# -- published prices, US dollars per million tokens -------------------------------------------

# Anthropic, https://docs.claude.com/en/docs/about-claude/pricing (and
# https://www.anthropic.com/pricing#api), Claude Sonnet 4.5: base input, output, 5-minute cache
# write, cache read; "Long context pricing": when a request's input (counting cache reads and
# writes) exceeds 200K tokens, the whole request is charged at the long-context rates.
SONNET_45 = {"input": 3.00, "output": 15.00, "cache_write": 3.75, "cache_read": 0.30}
SONNET_45_LONG = {"input": 6.00, "output": 22.50, "cache_write": 7.50, "cache_read": 0.60}

# OpenAI, https://openai.com/api/pricing/ (https://platform.openai.com/docs/pricing), gpt-5:
# input, cached input, output. OpenAI has no cache-write price; cached input is part of the
# prompt's input tokens and is charged at the cached-input price instead of the input price.
GPT_5 = {"input": 1.25, "cached_input": 0.125, "output": 10.00}

# OpenAI o3, https://platform.openai.com/docs/models/o3 and OpenAI's 2025-06-10 announcement of
# an 80% price cut: $10 input / $40 output until 2025-06-09, $2 / $8 from 2025-06-10 (UTC).
# (genai-prices' snapshot gives the pre-cut o3 a cache-read price of $0.50, where OpenAI
# published $2.50; the test below uses no cached input for that reason.)
O3_BEFORE = {"input": 10.00, "output": 40.00}
O3_AFTER = {"input": 2.00, "output": 8.00}

# DeepSeek, https://api-docs.deepseek.com/quick_start/pricing as published in early 2025,
# deepseek-chat: standard price 00:30-16:30 UTC, 50% off (off-peak) 16:30-00:30 UTC.
DEEPSEEK_CHAT_STANDARD = {"input": 0.27, "cache_hit": 0.07, "output": 1.10}
DEEPSEEK_CHAT_OFF_PEAK = {"input": 0.135, "cache_hit": 0.035, "output": 0.55}


def ns(year: int, month: int, day: int, hour: int = 12, minute: int = 0, second: int = 0) -> int:
    """Unix nanoseconds of a UTC time."""
    return int(datetime(year, month, day, hour, minute, second, tzinfo=UTC).timestamp()) * 10**9


NOV_2025 = ns(2025, 11, 1)


def close(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=0.0)


# -- genai-prices, against published prices ----------------------------------------------------


def test_anthropic_cache_reads_and_writes() -> None:
    book = PriceBook()
    usage = Usage(
        input_tokens=1200, output_tokens=350, cache_read_tokens=5000, cache_write_tokens=800
    )
    want = (
        SONNET_45["input"] * 1200
        + SONNET_45["output"] * 350
        + SONNET_45["cache_read"] * 5000
        + SONNET_45["cache_write"] * 800
    ) / 1e6
    got = book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, usage)
    assert close(got, want)
    # a dated id is the same model; with no provider genai-prices finds it from the id
    assert close(book.cost_usd("anthropic", "claude-sonnet-4-5-20250929", NOV_2025, usage), want)
    assert close(book.cost_usd("", "claude-sonnet-4-5", NOV_2025, usage), want)
    rates = book.rates("anthropic", "claude-sonnet-4-5", NOV_2025, 7000)
    assert rates is not None
    assert rates.source == "genai-prices"
    assert rates.tier_start == 0
    assert close(rates.input, 3.00 / 1e6)
    assert close(rates.cache_read, 0.30 / 1e6)
    assert close(rates.cache_write, 3.75 / 1e6)
    assert close(rates.output, 15.00 / 1e6)


def test_uncached_input_is_converted_to_inclusive_once() -> None:
    """agentloop's 750 uncached + 200 read + 50 written is genai-prices' input_tokens=1000."""
    book = PriceBook()
    ours = book.cost_usd(
        "anthropic",
        "claude-sonnet-4-5",
        NOV_2025,
        Usage(input_tokens=750, output_tokens=100, cache_read_tokens=200, cache_write_tokens=50),
    )
    theirs = genai_prices.calc_price(
        genai_prices.Usage(
            input_tokens=1000, output_tokens=100, cache_read_tokens=200, cache_write_tokens=50
        ),
        "claude-sonnet-4-5",
        provider_id="anthropic",
        genai_request_timestamp=datetime(2025, 11, 1, 12, tzinfo=UTC),
    ).total_price
    want = (3.00 * 750 + 15.00 * 100 + 0.30 * 200 + 3.75 * 50) / 1e6
    assert close(ours, want)
    assert close(float(theirs), want)


def test_openai_cached_input() -> None:
    book = PriceBook()
    # 3000 prompt tokens of which 2200 were cached: agentloop logs 800 uncached + 2200 read
    usage = Usage(input_tokens=800, output_tokens=300, cache_read_tokens=2200)
    want = (GPT_5["input"] * 800 + GPT_5["cached_input"] * 2200 + GPT_5["output"] * 300) / 1e6
    assert close(book.cost_usd("openai", "gpt-5", NOV_2025, usage), want)
    assert close(book.cost_usd("openai", "gpt-5-2025-08-07", NOV_2025, usage), want)
    assert close(book.cost_usd("", "gpt-5-2025-08-07", NOV_2025, usage), want)
    # No cache-write price: genai-prices charges written tokens as the input they are.
    written = Usage(cache_write_tokens=1000)
    assert close(book.cost_usd("openai", "gpt-5", NOV_2025, written), GPT_5["input"] * 1000 / 1e6)


@pytest.mark.parametrize(
    ("usage", "rates", "tier_start"),
    [
        # exactly 200,000 inclusive input: not above the threshold, base rates
        (Usage(150_000, 2_000, 40_000, 10_000), SONNET_45, 0),
        # 200,001: above it, the whole request at the long-context rates
        (Usage(150_001, 2_000, 40_000, 10_000), SONNET_45_LONG, 200_000),
        # uncached input alone is far below 200K; cache reads and writes count toward it
        (Usage(1_000, 2_000, 190_000, 9_001), SONNET_45_LONG, 200_000),
        (Usage(200_000, 0, 0, 0), SONNET_45, 0),
        (Usage(200_001, 0, 0, 0), SONNET_45_LONG, 200_000),
    ],
)
def test_long_context_tier_boundary(usage: Usage, rates: dict[str, float], tier_start: int) -> None:
    book = PriceBook()
    want = (
        rates["input"] * usage.input_tokens
        + rates["output"] * usage.output_tokens
        + rates["cache_read"] * usage.cache_read_tokens
        + rates["cache_write"] * usage.cache_write_tokens
    ) / 1e6
    assert close(book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, usage), want)
    inclusive = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    found = book.rates("anthropic", "claude-sonnet-4-5", NOV_2025, inclusive)
    assert found is not None
    assert found.tier_start == tier_start
    table = book.table("anthropic", "claude-sonnet-4-5", NOV_2025)
    assert table is not None
    assert [r.tier_start for r in table.tiers] == [0, 200_000]


def test_price_changed_between_two_dates() -> None:
    book = PriceBook()
    usage = Usage(input_tokens=10_000, output_tokens=2_000)
    before = ns(2025, 6, 9, 23, 59, 59) + 999_999_999  # the last nanosecond of 2025-06-09
    after = ns(2025, 6, 10, 0, 0, 0)
    want_before = (O3_BEFORE["input"] * 10_000 + O3_BEFORE["output"] * 2_000) / 1e6
    want_after = (O3_AFTER["input"] * 10_000 + O3_AFTER["output"] * 2_000) / 1e6
    assert close(book.cost_usd("openai", "o3", before, usage), want_before)
    assert close(book.cost_usd("openai", "o3", after, usage), want_after)
    assert book.lookups == 2


def test_time_of_day_prices_are_not_cached_per_day() -> None:
    book = PriceBook()
    usage = Usage(input_tokens=10_000, output_tokens=1_000, cache_read_tokens=4_000)

    def cost(prices: dict[str, float]) -> float:
        return (
            prices["input"] * 10_000 + prices["output"] * 1_000 + prices["cache_hit"] * 4_000
        ) / 1e6

    day = (2025, 3, 1)
    assert close(
        book.cost_usd("deepseek", "deepseek-chat", ns(*day, 0, 29, 59), usage),
        cost(DEEPSEEK_CHAT_OFF_PEAK),
    )
    assert close(
        book.cost_usd("deepseek", "deepseek-chat", ns(*day, 0, 30, 0), usage),
        cost(DEEPSEEK_CHAT_STANDARD),
    )
    assert close(
        book.cost_usd("deepseek", "deepseek-chat", ns(*day, 16, 29, 59), usage),
        cost(DEEPSEEK_CHAT_STANDARD),
    )
    assert close(
        book.cost_usd("deepseek", "deepseek-chat", ns(*day, 16, 30, 0), usage),
        cost(DEEPSEEK_CHAT_OFF_PEAK),
    )
    assert close(
        book.cost_usd("", "deepseek-chat", ns(*day, 23, 0, 0), usage), cost(DEEPSEEK_CHAT_OFF_PEAK)
    )
    assert not book.whole_day("deepseek", "deepseek-chat", ns(*day))
    assert book.whole_day("anthropic", "claude-sonnet-4-5", ns(*day))
    # three segments of the day (before 00:30, 00:30-16:30, after 16:30), asked once each;
    # the provider "" is its own key
    lookups = book.lookups
    book.cost_usd("deepseek", "deepseek-chat", ns(*day, 1, 0, 0), usage)
    book.cost_usd("deepseek", "deepseek-chat", ns(*day, 20, 0, 0), usage)
    assert book.lookups == lookups


def test_a_per_request_fee_is_priced_as_genai_prices_does() -> None:
    book = PriceBook()
    usage = Usage(input_tokens=1_000, output_tokens=500)
    want = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=1_000, output_tokens=500),
        "sonar",
        provider_id="perplexity",
        genai_request_timestamp=datetime(2025, 11, 1, 12, tzinfo=UTC),
    ).total_price
    assert close(book.cost_usd("perplexity", "sonar", NOV_2025, usage), float(want))
    rates = book.rates("perplexity", "sonar", NOV_2025, 1_000)
    assert rates is not None
    assert rates.request > 0


# -- unknown models ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("anthropic", "no-such-model"),
        ("", "no-such-model"),
        ("fake", "claude-sonnet-4-5"),  # agentloop's scripted model: a provider genai-prices lacks
        ("anthropic", "gpt-5"),  # a known model under the wrong provider
        ("github-copilot", "gpt-4o"),  # genai-prices knows the model but has no price for it
    ],
)
def test_unknown_model_is_unpriced_never_zero(provider: str, model: str) -> None:
    book = PriceBook()
    assert book.table(provider, model, NOV_2025) is None
    assert book.rates(provider, model, NOV_2025, 100) is None
    assert math.isnan(book.cost_usd(provider, model, NOV_2025, Usage(input_tokens=100)))
    # no tokens cost nothing at any price: a count of zero never makes NaN (docs/costs.md)
    assert book.cost_usd(provider, model, NOV_2025, Usage()) == 0.0


def test_a_missing_kind_of_price_is_nan_not_zero() -> None:
    book = PriceBook()
    # text-embedding-3-small has an input price and no output price in genai-prices
    assert close(
        book.cost_usd("openai", "text-embedding-3-small", NOV_2025, Usage(input_tokens=1_000)),
        0.02 * 1_000 / 1e6,  # https://openai.com/api/pricing/: $0.02 per 1M tokens
    )
    assert math.isnan(
        book.cost_usd("openai", "text-embedding-3-small", NOV_2025, Usage(output_tokens=1))
    )


# -- the cache ---------------------------------------------------------------------------------


def test_one_look_up_per_model_and_price_period() -> None:
    book = PriceBook()
    usage = Usage(input_tokens=10, output_tokens=10)
    book.cost_usd("anthropic", "claude-sonnet-4-5", ns(2025, 11, 1, 0, 0, 0), usage)
    book.cost_usd("anthropic", "claude-sonnet-4-5", ns(2025, 11, 1, 23, 59, 59), usage)
    book.table("anthropic", "claude-sonnet-4-5", ns(2025, 11, 1, 8))
    book.rates("anthropic", "claude-sonnet-4-5", ns(2025, 11, 1, 9), 300_000)
    assert book.lookups == 1
    # another day, and its price has not changed since: genai-prices is not asked again
    book.cost_usd("anthropic", "claude-sonnet-4-5", ns(2025, 11, 2, 0, 0, 0), usage)
    book.cost_usd("anthropic", "claude-sonnet-4-5", ns(2026, 3, 9, 0, 0, 0), usage)
    assert book.lookups == 1
    book.cost_usd("openai", "gpt-5", ns(2025, 11, 2, 0, 0, 0), usage)
    assert book.lookups == 2
    # an unknown model is asked about once
    book.cost_usd("anthropic", "no-such-model", ns(2025, 11, 2, 1), usage)
    book.cost_usd("anthropic", "no-such-model", ns(2025, 11, 3, 2), usage)
    assert book.lookups == 3
    table = book.table("anthropic", "claude-sonnet-4-5", ns(2025, 11, 2, 5))
    assert table is not None
    assert table.day == date(2025, 11, 2)


def test_a_price_change_is_a_new_look_up() -> None:
    """o3's price changed on 2025-06-10 (genai-prices: a StartDateConstraint): the days before
    share one look-up, the days from then on another, and each gets its own period's price."""
    book = PriceBook()
    usage = Usage(input_tokens=1_000_000)
    before = [book.cost_usd("openai", "o3", ns(2025, 6, d, 12), usage) for d in (1, 5, 9)]
    assert book.lookups == 1
    after = [book.cost_usd("openai", "o3", ns(2025, 6, d, 12), usage) for d in (10, 11, 30)]
    assert book.lookups == 2
    assert before == [10.0] * 3  # $10 per million input tokens until 2025-06-09
    assert after == [2.0] * 3  # $2 from 2025-06-10
    book.cost_usd("openai", "o3", ns(2025, 6, 2, 12), usage)
    assert book.lookups == 2


def test_a_price_file_asks_genai_prices_nothing(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"claude-sonnet-4-5": {"input": 1, "output": 2}}')
    book = PriceBook(path)
    book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, Usage(input_tokens=1))
    assert book.lookups == 0


# -- price files -------------------------------------------------------------------------------

# Prices deliberately unlike anyone's, so a file that did not win would show.
OVERRIDE = {"input": 1.0, "output": 2.0, "cache_write": 4.0, "cache_read": 0.5}


def hand_cost(prices: dict[str, float], usage: Usage) -> float:
    return (
        prices["input"] * usage.input_tokens
        + prices["output"] * usage.output_tokens
        + prices["cache_read"] * usage.cache_read_tokens
        + prices["cache_write"] * usage.cache_write_tokens
    ) / 1e6


JSON_FILE = """{
  "claude-sonnet-4-5": {"input": 1, "output": 2, "cache_write": 4, "cache_read": 0.5},
  "my-local-model": {"Input": 0.1, "Output": 0.2, "CacheWrite": 0.4, "CacheRead": 0.05},
  "no-cache-prices": {"input": 1, "output": 2},
  "gpt-4.1": {"input": 1, "output": 2, "cache_write": 4, "cache_read": 0.5}
}
"""

TOML_FILE = """\
[claude-sonnet-4-5]
input = 1
output = 2
cache_write = 4
cache_read = 0.5

[my-local-model]
Input = 0.1
Output = 0.2
CacheWrite = 0.4
CacheRead = 0.05

[no-cache-prices]
input = 1
output = 2

["gpt-4.1"]
input = 1
output = 2
cache_write = 4
cache_read = 0.5
"""


@pytest.mark.parametrize(("suffix", "text"), [(".json", JSON_FILE), (".toml", TOML_FILE)])
def test_price_file_overrides_genai_prices(tmp_path: Path, suffix: str, text: str) -> None:
    path = tmp_path / f"prices{suffix}"
    path.write_text(text)
    assert load_prices(path) == {
        "claude-sonnet-4-5": Prices(input=1, output=2, cache_write=4, cache_read=0.5),
        "my-local-model": Prices(input=0.1, output=0.2, cache_write=0.4, cache_read=0.05),
        "no-cache-prices": Prices(input=1, output=2),
        "gpt-4.1": Prices(input=1, output=2, cache_write=4, cache_read=0.5),
    }
    book = PriceBook(str(path))
    usage = Usage(
        input_tokens=1200, output_tokens=350, cache_read_tokens=5000, cache_write_tokens=800
    )
    # the file wins over genai-prices' claude-sonnet-4-5
    assert close(
        book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, usage), hand_cost(OVERRIDE, usage)
    )
    assert close(book.cost_usd("openai", "gpt-4.1", NOV_2025, usage), hand_cost(OVERRIDE, usage))
    # ... with one tier: no long-context rates from genai-prices either
    big = Usage(input_tokens=300_000, output_tokens=10)
    assert close(
        book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, big), hand_cost(OVERRIDE, big)
    )
    table = book.table("anthropic", "claude-sonnet-4-5", NOV_2025)
    assert table is not None
    assert table.source == "prices file"
    assert [r.source for r in table.tiers] == ["prices file"]
    # a model genai-prices does not know, named the Go way
    local = {"input": 0.1, "output": 0.2, "cache_write": 0.4, "cache_read": 0.05}
    assert close(book.cost_usd("", "my-local-model", NOV_2025, usage), hand_cost(local, usage))
    # cache prices left out: NaN for a call with cache tokens, a price for one without
    assert math.isnan(book.cost_usd("", "no-cache-prices", NOV_2025, usage))
    assert math.isnan(book.cost_usd("", "no-cache-prices", NOV_2025, Usage(1, 1, 0, 1)))
    plain = Usage(input_tokens=1000, output_tokens=100)
    assert close(
        book.cost_usd("", "no-cache-prices", NOV_2025, plain), (1.0 * 1000 + 2.0 * 100) / 1e6
    )
    rates = book.rates("", "no-cache-prices", NOV_2025, 0)
    assert rates is not None
    assert math.isnan(rates.cache_read)
    assert math.isnan(rates.cache_write)
    # models the file does not name still come from genai-prices
    assert close(
        book.cost_usd("openai", "gpt-5", NOV_2025, Usage(input_tokens=1000)),
        GPT_5["input"] * 1000 / 1e6,
    )


def test_mapping_and_genai_prices_off() -> None:
    book = PriceBook({"my-local-model": Prices(input=0.1, output=0.2)}, genai_prices=False)
    assert close(
        book.cost_usd("", "my-local-model", NOV_2025, Usage(10, 20)), (0.1 * 10 + 0.2 * 20) / 1e6
    )
    assert book.table("anthropic", "claude-sonnet-4-5", NOV_2025) is None
    assert math.isnan(book.cost_usd("anthropic", "claude-sonnet-4-5", NOV_2025, Usage(10, 20)))
    assert book.lookups == 0
    with pytest.raises(TypeError):
        PriceBook({"m": {"input": 1}})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "p.json",
            '{"gpt-5": {"input": -1}}',
            "model 'gpt-5', field 'input': -1 is negative; "
            "a price is US dollars per million tokens, 0 or more",
        ),
        (
            "p.json",
            '{"gpt-5": {"output": "10"}}',
            "model 'gpt-5', field 'output': is the string '10', "
            "not a number of US dollars per million tokens",
        ),
        (
            "p.json",
            '{"gpt-5": {"output": true}}',
            "model 'gpt-5', field 'output': is a boolean, "
            "not a number of US dollars per million tokens",
        ),
        (
            "p.json",
            '{"gpt-5": {"inptu": 1}}',
            "model 'gpt-5', field 'inptu': unknown field; the fields are input, output, "
            "cache_write and cache_read (or Go's Input, Output, CacheWrite and CacheRead)",
        ),
        (
            "p.json",
            '{"gpt-5": {"input": 1, "Input": 2}}',
            "model 'gpt-5', field 'Input': the same price as 'input'; give each price once",
        ),
        (
            "p.json",
            '{"gpt-5": 3}',
            "model 'gpt-5': is 3, not an object of prices (input, output, cache_write, cache_read)",
        ),
        (
            "p.json",
            '{"gpt-5": {"input": 1,\n "input": 2}}',
            "not usable JSON: the name 'input' is given twice in one object",
        ),
        (
            "p.json",
            '{"gpt-5": {"input": NaN}}',
            "not usable JSON: NaN is not a price (JSON has no NaN)",
        ),
        ("p.json", '{"gpt-5": ', "not valid JSON: Expecting value at line 1 column 11"),
        ("p.json", "", "not valid JSON: Expecting value at line 1 column 1"),
        ("p.json", "[1, 2]", "the file holds an array, not an object of prices by model id"),
        (
            "p.toml",
            "[gpt-4.1]\ninput = 1\n",
            "model 'gpt-4', field '1': unknown field; the fields are input, output, "
            "cache_write and cache_read (or Go's Input, Output, CacheWrite and CacheRead); "
            'a model id with dots must be quoted in TOML, as ["gpt-4.1"], not [gpt-4.1]',
        ),
        ("p.toml", "[m]\ninput = inf\n", "model 'm', field 'input': inf is not a price"),
        (
            "p.toml",
            "m = 1\n",
            "model 'm': is 1, not a table of prices (input, output, cache_write, cache_read)",
        ),
        ("p.toml", "[m]\ninput = \n", "not valid TOML: Invalid value (at line 2, column 9)"),
        (
            "p.yaml",
            "m: {input: 1}",
            "a price file's name must end in .json or .toml, which says its format",
        ),
    ],
)
def test_bad_price_files(tmp_path: Path, name: str, content: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(PriceFileError) as caught:
        load_prices(path)
    text = str(caught.value)
    assert text == f"{path}: {message}"
    assert "\n" not in text
    assert isinstance(caught.value, SessionToolsError)
    # the book reports the same error
    with pytest.raises(PriceFileError, match="^" + str(path).replace("\\", "\\\\")):
        PriceBook(path)


def test_bad_price_file_encoding_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_bytes(b'{"m": {"input": 1}}\xff')
    with pytest.raises(PriceFileError, match=r"p\.json: not UTF-8 \(byte 19\)$"):
        load_prices(path)
    with pytest.raises(FileNotFoundError):
        load_prices(tmp_path / "missing.json")


def test_null_price_and_empty_toml(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text('{"m": {"input": 1, "cache_read": null}}')
    assert load_prices(path) == {"m": Prices(input=1)}
    empty = tmp_path / "p.toml"
    empty.write_text("")
    assert load_prices(empty) == {}


# -- the value types ---------------------------------------------------------------------------


def test_prices_cost_and_validation() -> None:
    prices = Prices(**SONNET_45)
    usage = Usage(
        input_tokens=1200, output_tokens=350, cache_read_tokens=5000, cache_write_tokens=800
    )
    assert close(prices.cost_usd(usage), hand_cost(SONNET_45, usage))
    assert prices.cost_usd(Usage()) == 0.0
    assert math.isnan(Prices(input=3.0).cost_usd(Usage(input_tokens=1, output_tokens=1)))
    assert Prices(input=3.0).cost_usd(Usage(input_tokens=1)) == 3.0 / 1e6
    for bad in (-1.0, math.nan, math.inf, True, "3"):
        with pytest.raises(ValueError):
            Prices(input=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        prices.cost_usd(Usage(input_tokens=-1))


def test_table_rates_for_boundaries() -> None:
    def rates(start: int, price: float) -> Rates:
        return Rates(price, price, price, price, tier_start=start, source="genai-prices")

    table = PriceTable(
        "p",
        "m",
        date(2025, 11, 1),
        (rates(0, 1.0), rates(100, 2.0), rates(1000, 3.0)),
        "genai-prices",
    )
    assert [table.rates_for(n).input for n in (0, 1, 100, 101, 1000, 1001)] == [1, 1, 1, 2, 2, 3]
    assert math.isnan(Rates(1.0, math.nan, 1.0, 1.0, 0, "x").cost_usd(Usage(1, 1)))
    assert Rates(1.0, math.nan, 1.0, 1.0, 0, "x").cost_usd(Usage(1, 0)) == 1.0
    with pytest.raises(ValueError):
        PriceTable("p", "m", date(2025, 11, 1), (rates(5, 1.0),), "x")
    with pytest.raises(ValueError):
        PriceTable("p", "m", date(2025, 11, 1), (rates(0, 1.0), rates(0, 2.0)), "x")


# -- the property: the book is calc_price, fast ------------------------------------------------

MODELS = [
    ("anthropic", "claude-sonnet-4-5"),  # tier at 200K
    ("", "claude-sonnet-4-5-20250929"),
    ("anthropic", "claude-opus-4-6"),  # tier at 200K until 2026-03-13, then none
    ("anthropic", "claude-haiku-4-5"),
    ("anthropic", "claude-opus-5-5"),
    ("openai", "gpt-5"),
    ("openai", "gpt-5-2025-08-07"),
    ("openai", "gpt-5.5"),  # tier at 272K
    ("openai", "gpt-5.6-sol"),  # tier at 272K, price change 2026-08-21
    ("openai", "o3"),  # price change 2025-06-10
    ("deepseek", "deepseek-chat"),  # time-of-day prices
    ("", "deepseek-v4-flash"),  # time-of-day prices and date changes
    ("perplexity", "sonar-pro"),  # a per-request fee
]

THRESHOLDS = [0, 100_000, 200_000, 272_000]


@st.composite
def usages(draw: st.DrawFn) -> Usage:
    """Disjoint counts; half the time with an inclusive input within 3 of a tier threshold."""
    cache_read = draw(st.integers(0, 300_000))
    cache_write = draw(st.integers(0, 100_000))
    output = draw(st.integers(0, 64_000))
    if draw(st.booleans()):
        inclusive = draw(st.sampled_from(THRESHOLDS)) + draw(st.integers(-3, 3))
        cache_read = min(cache_read, max(inclusive, 0))
        cache_write = min(cache_write, max(inclusive - cache_read, 0))
        uncached = max(inclusive - cache_read - cache_write, 0)
    else:
        uncached = draw(st.integers(0, 600_000))
    return Usage(uncached, output, cache_read, cache_write)


BOOK = PriceBook()
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@settings(max_examples=400, deadline=None)
@given(
    model=st.sampled_from(MODELS),
    usage=usages(),
    when=st.datetimes(
        min_value=datetime(2025, 1, 1),
        max_value=datetime(2027, 1, 1),
        timezones=st.just(UTC),
    ),
)
def test_book_equals_calc_price(model: tuple[str, str], usage: Usage, when: datetime) -> None:
    provider, model_id = model
    time_unix_nano = (when - EPOCH) // timedelta(microseconds=1) * 1000
    inclusive = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    want = genai_prices.calc_price(
        genai_prices.Usage(
            input_tokens=inclusive,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        ),
        model_id,
        provider_id=provider or None,
        genai_request_timestamp=when,
    ).total_price
    got = BOOK.cost_usd(provider, model_id, time_unix_nano, usage)
    assert math.isclose(got, float(want), rel_tol=1e-9, abs_tol=0.0), (got, want)


# -- what a price file leaves out, and providers (issue 10, items 11 and 17) --------------------


def test_missing_prices_of_a_price_file(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text(
        '{"a": {"input": 2, "output": 8}, "b": {"Input": 1, "Output": 2, "CacheRead": null,'
        ' "CacheWrite": 3}, "c": {}}'
    )
    book = PriceBook(path)
    assert book.file_name == str(path)
    assert book.missing_prices("a") == ("cache_read", "cache_write")
    assert book.missing_prices("b") == ("cache_read",)  # null: not known, as if left out
    assert book.missing_prices("c") == ("input", "output", "cache_read", "cache_write")
    assert book.missing_prices("claude-sonnet-4-5") is None  # not in the file
    assert PriceBook().missing_prices("a") is None and PriceBook().file_name is None
    assert PriceBook({"a": Prices(1)}).file_name == "the prices given"
    # what it means: a cache read of "a" costs NaN, not genai-prices' price and not 0
    assert math.isnan(book.cost_usd("", "a", NOV_2025, Usage(10, 1, cache_read_tokens=1)))
    assert close(book.cost_usd("", "a", NOV_2025, Usage(10, 1)), (10 * 2 + 1 * 8) / 1e6)


def test_the_provider_genai_prices_matches_to_a_model_id() -> None:
    book = PriceBook()
    assert book.provider("claude-haiku-4-5", NOV_2025) == "anthropic"
    assert book.provider("gpt-5-2025-08-07", NOV_2025) == "openai"
    assert book.provider("acme-9000", NOV_2025) is None
    assert book.provider("", NOV_2025) is None
    asked = book.lookups
    assert book.provider("claude-haiku-4-5", ns(2026, 3, 1)) == "anthropic"  # cached per model
    assert book.lookups == asked
    # a look-up without a provider remembers the match: no second question
    other = PriceBook()
    other.cost_usd("", "claude-sonnet-4-5", NOV_2025, Usage(1))
    asked = other.lookups
    assert other.provider("claude-sonnet-4-5", NOV_2025) == "anthropic"
    assert other.lookups == asked
    assert PriceBook(genai_prices=False).provider("claude-haiku-4-5", NOV_2025) is None
