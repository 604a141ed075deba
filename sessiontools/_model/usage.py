"""Token usage conventions, normalised here and nowhere else (docs/costs.md, "Usage
conventions"); part of the session model, used by both exporters.

agentloop's ``Usage`` is the canonical form: four disjoint counts, ``input_tokens`` the
*uncached* input, ``output_tokens``, ``cache_read_tokens``, ``cache_write_tokens``; their sum is
every token the provider counted (docs/reading.md, "The log format"). The other conventions in
the field, and how each maps onto it:

======================  ==================================================================
convention              what "input" means
======================  ==================================================================
agentloop (canonical)   uncached input only
agentcore               ``Input`` *includes* ``CacheRead`` and *excludes* ``CacheWrite``
provider                ``PromptTokens`` *includes* ``CachedTokens`` (and, as every token of
                        the prompt, the tokens written to the cache, which ``Usage`` does not
                        count apart; ``CacheUsage.CacheWriteTokens`` does)
OpenTelemetry GenAI     ``gen_ai.usage.input_tokens`` *includes* all cached tokens, read and
                        written (``cache_read.input_tokens``, ``cache_creation.input_tokens``)
genai-prices            ``input_tokens`` inclusive, like OpenTelemetry
======================  ==================================================================

A count that would go negative is an error in the source (``UsageConventionError``), never
clamped: mixing two conventions is the most common cost bug, and a clamp would hide it.
"""

from __future__ import annotations

from typing import NamedTuple

from .._errors import UsageConventionError
from .._log.entries import Usage

__all__ = [
    "OTelUsage",
    "UsageConventionError",
    "check_counts",
    "from_agentcore",
    "from_otel",
    "from_provider",
    "inclusive_input_tokens",
    "to_otel",
]


class OTelUsage(NamedTuple):
    """Usage in OpenTelemetry's GenAI attributes (semantic conventions 1.41.0):
    ``gen_ai.usage.input_tokens`` (all input, cached included), ``gen_ai.usage.output_tokens``,
    ``gen_ai.usage.cache_read.input_tokens``, ``gen_ai.usage.cache_creation.input_tokens``."""

    input_tokens: int
    output_tokens: int
    cache_read_input_tokens: int
    cache_creation_input_tokens: int


def _check(convention: str, **counts: int) -> None:
    for name, value in counts.items():
        if value < 0:
            raise UsageConventionError(
                f"{convention} usage gives {name} = {value}: a count cannot be negative; the "
                "counts are probably from another convention"
            )


def check_counts(usage: Usage, where: str = "usage") -> None:
    """Raise ``UsageConventionError`` naming ``where`` when a count of ``usage`` is negative:
    an error in the log, reported, never clamped (docs/costs.md, "Usage conventions")."""
    for field in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
        value = getattr(usage, field)
        if value < 0:
            raise UsageConventionError(
                f"{where}: a negative token count ({field} = {value}): the log is wrong, or "
                "mixes usage conventions"
            )


def inclusive_input_tokens(usage: Usage) -> int:
    """All input tokens, cached or not: what OpenTelemetry and genai-prices call input."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens


def from_agentcore(input: int, output: int, cache_read: int = 0, cache_write: int = 0) -> Usage:
    """agentcore's ``Usage``: ``Input`` includes ``CacheRead``, excludes ``CacheWrite``.

    Raises:
        UsageConventionError: a count is negative, or ``CacheRead`` exceeds ``Input``.
    """
    _check("agentcore", Input=input, Output=output, CacheRead=cache_read, CacheWrite=cache_write)
    _check("agentcore", **{"Input - CacheRead": input - cache_read})
    return Usage(input - cache_read, output, cache_read, cache_write)


def from_provider(
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int = 0,
    total_tokens: int | None = None,
    *,
    cache_write_tokens: int = 0,
) -> Usage:
    """provider's ``Usage``: ``PromptTokens`` includes ``CachedTokens``.

    Args:
        prompt_tokens, completion_tokens, cached_tokens, total_tokens: the ``Usage`` fields;
            ``TotalTokens``, when given (not 0), must be ``PromptTokens + CompletionTokens``.
        cache_write_tokens: ``CacheUsage.CacheWriteTokens``, when the provider reported it:
            tokens of the prompt that were written to the cache, so counted in ``PromptTokens``.

    Raises:
        UsageConventionError: a count is negative, the cached tokens exceed the prompt, or the
            total does not add up.
    """
    _check(
        "provider",
        PromptTokens=prompt_tokens,
        CompletionTokens=completion_tokens,
        CachedTokens=cached_tokens,
        CacheWriteTokens=cache_write_tokens,
    )
    uncached = prompt_tokens - cached_tokens - cache_write_tokens
    _check("provider", **{"PromptTokens - CachedTokens - CacheWriteTokens": uncached})
    if total_tokens and total_tokens != prompt_tokens + completion_tokens:
        raise UsageConventionError(
            f"provider usage gives TotalTokens = {total_tokens}, not PromptTokens + "
            f"CompletionTokens = {prompt_tokens + completion_tokens}"
        )
    return Usage(uncached, completion_tokens, cached_tokens, cache_write_tokens)


def from_otel(
    input_tokens: int,
    output_tokens: int,
    cache_read_input_tokens: int = 0,
    cache_creation_input_tokens: int = 0,
) -> Usage:
    """OpenTelemetry's ``gen_ai.usage.*``: the input includes every cached token.

    Raises:
        UsageConventionError: a count is negative, or the cached tokens exceed the input.
    """
    _check(
        "OpenTelemetry",
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cache_read_input_tokens=cache_read_input_tokens,
        cache_creation_input_tokens=cache_creation_input_tokens,
    )
    uncached = input_tokens - cache_read_input_tokens - cache_creation_input_tokens
    _check("OpenTelemetry", **{"input_tokens - cached": uncached})
    return Usage(uncached, output_tokens, cache_read_input_tokens, cache_creation_input_tokens)


def to_otel(usage: Usage) -> OTelUsage:
    """agentloop's counts in OpenTelemetry's convention (input includes the cached tokens)."""
    return OTelUsage(
        inclusive_input_tokens(usage),
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
    )
