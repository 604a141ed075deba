"""Usage conventions (costs.md, "Usage conventions"): each converts to the same canonical counts
for the same real usage; a count that would go negative is reported, never clamped."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessiontools import (
    OTelUsage,
    Usage,
    UsageConventionError,
    from_agentcore,
    from_otel,
    from_provider,
    inclusive_input_tokens,
    to_otel,
)

# One real model call: 1,000 input tokens nobody cached, 200 read from the cache, 50 written
# to it, and 300 output tokens.
REAL = Usage(input_tokens=1000, output_tokens=300, cache_read_tokens=200, cache_write_tokens=50)


def test_every_convention_gives_the_same_canonical_counts() -> None:
    # agentcore: Input includes CacheRead (1000 + 200), excludes CacheWrite.
    assert from_agentcore(input=1200, output=300, cache_read=200, cache_write=50) == REAL
    # provider: PromptTokens is every prompt token (1000 + 200 + 50), CachedTokens among them.
    assert (
        from_provider(
            prompt_tokens=1250,
            completion_tokens=300,
            cached_tokens=200,
            total_tokens=1550,
            cache_write_tokens=50,
        )
        == REAL
    )
    # OpenTelemetry: gen_ai.usage.input_tokens includes all cached tokens.
    assert from_otel(1250, 300, cache_read_input_tokens=200, cache_creation_input_tokens=50) == REAL
    assert to_otel(REAL) == OTelUsage(1250, 300, 200, 50)
    assert inclusive_input_tokens(REAL) == 1250
    assert REAL.total_tokens == 1550


@pytest.mark.parametrize(
    ("convert", "problem"),
    [
        (lambda: from_agentcore(100, 10, cache_read=150), "Input - CacheRead = -50"),
        (lambda: from_agentcore(-1, 10), "Input = -1"),
        (lambda: from_provider(100, 10, cached_tokens=120), "CachedTokens - CacheWriteTokens"),
        (lambda: from_provider(100, -5), "CompletionTokens = -5"),
        (lambda: from_provider(100, 10, total_tokens=111), "TotalTokens = 111"),
        (
            lambda: from_otel(100, 10, cache_read_input_tokens=80, cache_creation_input_tokens=30),
            "input_tokens - cached = -10",
        ),
        (lambda: from_otel(100, 10, cache_read_input_tokens=-1), "cache_read_input_tokens = -1"),
    ],
)
def test_a_count_that_would_go_negative_is_reported(convert: object, problem: str) -> None:
    with pytest.raises(UsageConventionError, match=problem) as info:
        convert()  # type: ignore[operator]
    assert isinstance(info.value, ValueError)


def test_provider_total_zero_means_not_reported() -> None:
    assert from_provider(10, 5, total_tokens=0) == Usage(10, 5)


counts = st.integers(min_value=0, max_value=10**9)


@given(counts, counts, counts, counts)
def test_conversions_round_trip(uncached: int, output: int, read: int, write: int) -> None:
    real = Usage(uncached, output, read, write)
    assert from_agentcore(uncached + read, output, read, write) == real
    assert from_provider(uncached + read + write, output, read, cache_write_tokens=write) == real
    assert from_otel(*to_otel(real)) == real
