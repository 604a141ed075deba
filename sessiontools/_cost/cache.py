"""What prompt caching did: ``cache_hit_rate`` and ``cache_savings_usd``, defined here and
nowhere else (docs/costs.md, "Cache"). The cost frames' rows (``model_calls``, ``runs``) and
``cost_by``'s groups take them from these functions; numpy only, no pandas.

``cache_hit_rate``: the cache reads over all the input, cached included::

    cache_read_tokens / (input_tokens + cache_read_tokens + cache_write_tokens)

(agentloop's ``input_tokens`` is the uncached input). It needs no price. NaN when there is no
input at all (a failed call).

``cache_savings_usd``: what the same calls would have cost with every cached token, read or
written, at the plain input price of the call's own tier, minus what they cost::

    cache_read_tokens * (input - cache_read) + cache_write_tokens * (input - cache_write)

with each price per token. The cache-write premium is included, so it is negative when the
writes cost more than the reads saved (Anthropic prices writes at 1.25 times the input price);
a model with no cache-write price of its own (OpenAI) writes at the input price and saves
nothing on writes. NaN when a price it needs is not known, never a guess: an unpriced call,
or a call with cached tokens of a kind whose price (or the input price) is not known. A call
with no cached tokens saved 0; so did a failed call, which costs nothing. A group's savings
are the sum of its calls', NaN when any of them is NaN (a partial sum would be neither the
savings nor a bound on them: savings can be negative); its hit rate is that of its summed
counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["cache_hit_rate", "cache_savings_usd"]


def cache_hit_rate(input_tokens: Any, cache_read_tokens: Any, cache_write_tokens: Any) -> Any:
    """Cache reads over all input (``float64`` arrays or scalars); NaN where there is none."""
    read = np.asarray(cache_read_tokens, dtype=np.float64)
    total = np.asarray(input_tokens, dtype=np.float64) + read
    total = total + np.asarray(cache_write_tokens, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, read / np.where(total > 0, total, 1.0), np.nan)


def cache_savings_usd(
    cache_read_tokens: Any,
    cache_write_tokens: Any,
    input_rate: Any,
    cache_read_rate: Any,
    cache_write_rate: Any,
) -> Any:
    """What the cached tokens saved, in US dollars, at per-token rates (NaN: not known).

    A count of zero adds nothing whatever its rates (an unknown price it does not use makes no
    NaN); a count above zero with an unknown rate, or an unknown input rate, makes NaN. The
    caller makes an unpriced call NaN.
    """
    read = np.asarray(cache_read_tokens, dtype=np.float64)
    written = np.asarray(cache_write_tokens, dtype=np.float64)
    plain = np.asarray(input_rate, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        saved_on_reads = np.where(read > 0, read * (plain - cache_read_rate), 0.0)
        saved_on_writes = np.where(written > 0, written * (plain - cache_write_rate), 0.0)
    return saved_on_reads + saved_on_writes
