"""What model calls cost: a user's price file, else genai-prices (contract: design/costs.md).

Three layers, each usable alone:

- ``Prices``: agentloop's ``Prices`` (seed 002), US dollars per *million* tokens for each of
  its four token counts, ``None`` where not known. ``load_prices`` reads a file of them.
- ``Rates`` and ``PriceTable``: US dollars per *token*, for one tier of one model's prices on
  one UTC day. A table is what a cost frame multiplies token counts by.
- ``PriceBook``: the look-up. Sources, first that knows wins (costs.md, "Prices"):

  1. the price file (or mapping) the user gives, by model id, which always wins;
  2. genai-prices' bundled snapshot (offline; nothing is ever fetched), at the call's own time;
  3. otherwise the call is unpriced: ``table`` and ``rates`` return ``None`` and ``cost_usd``
     returns NaN, never 0.

**Token counts.** agentloop's ``Usage`` is four disjoint counts: ``input_tokens`` is the
uncached input only (reading.md; seed 002). genai-prices expects ``input_tokens`` to be the
*inclusive* input (uncached + cache reads + cache writes) and subtracts the cached counts
itself. ``_genai_usage`` is the one place that converts; ``_inclusive_input`` is the one
formula for the inclusive input, which also picks the tier.

**Tiers.** genai-prices' ``TieredPrices`` is the "cliff" model the providers bill by: a request
whose inclusive input is strictly *above* a tier's ``start`` pays that tier's rate on all its
tokens (``calc_unit_price``: ``total_input_tokens > tier.start``). For claude-sonnet-4-5
(start 200,000) a request of 200,000 inclusive input tokens pays the base rates and one of
200,001 the long-context rates. ``Rates.tier_start`` is that ``start`` (0 for the base tier).

**How a table is built.** ``calc_price`` is the authority. For each (provider, model, UTC day)
the book asks it once for the model and the price in force (``StartDateConstraint`` switches
on the UTC date), reads the tier starts from the model's ``TieredPrices``, and within each tier
prices five probe usages to get the per-token rates (input, output, cache read, cache write
and any per-request fee, as differences of probe prices in ``Decimal``); a sixth, mixed probe
checks that ``calc_price`` is linear in the four counts within the tier. A model whose price is
not (none in the bundled snapshot) is left unpriced, with a ``SessionToolsWarning``.

**Time of day.** Some models have a ``TimeOfDateConstraint`` (in genai-prices 0.2.3's snapshot:
deepseek-chat, deepseek-reasoner, deepseek-v4-flash and deepseek-v4-pro, off-peak/peak
prices). For those a per-day table would be wrong, so the book keys their tables by (provider,
model, UTC day, time-of-day segment), the segments cut at every start and end time of the
model's time-of-day constraints: exact, and a handful of look-ups a day. A ``PriceTable`` of
such a model holds only within its segment of the day; a caller that reuses one table for a
whole day's calls must check ``PriceBook.whole_day``.

**Unknown prices.** A rate is NaN when nobody knows it: a price file entry without it, or a
genai-prices model with no price for that kind of token nor for a broader kind that includes it
(cache reads and writes are input tokens, so a model with an input price but no cache price
charges them at the input price: genai-prices' rule, and how OpenAI bills cache writes). A
genai-prices model with no token price at all (an empty price, as for github-copilot's models or
some ``:free`` ones) is unpriced, ``None``: ``calc_price`` would say 0, which costs.md forbids
for a price nobody knows. A cost is NaN exactly when a count above zero meets a NaN rate; a
count of zero never makes NaN. These are the only places the book departs from ``calc_price``.

**Per-request fees.** A price that every request pays whatever its tokens (genai-prices'
``requests_kcount``; perplexity's sonar models) is ``Rates.request``, an addition to agentloop's
four prices so that a table prices exactly what ``calc_price`` does.

Precision: per-token rates are ``Decimal`` differences converted to ``float`` once; nothing is
rounded (costs.md, "Keep full precision").
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._errors import PriceFileError
from .._log.entries import Usage
from .._model.usage import check_counts

if TYPE_CHECKING:
    pass

__all__ = ["SOURCE_FILE", "SOURCE_GENAI_PRICES", "Prices", "Rates", "load_prices"]


def _per_token(per_million: float | None) -> float:
    """US dollars per million tokens -> per token, in ``Decimal`` then one rounding to float."""
    if per_million is None:
        return _NAN
    return float(Decimal(repr(float(per_million))) / _MILLION)


#: The names a model's entry may use for each ``Prices`` field: agentloop's snake case, and
#: the Go field names (``Prices`` has no JSON tags, so Go's encoding/json writes these).
_FIELD_NAMES: Final[Mapping[str, str]] = {
    "input": "input",
    "output": "output",
    "cache_write": "cache_write",
    "cache_read": "cache_read",
    "Input": "input",
    "Output": "output",
    "CacheWrite": "cache_write",
    "CacheRead": "cache_read",
}


class _Bad(Exception):
    """A problem found while parsing JSON, raised from a hook; becomes a ``PriceFileError``."""


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Bad(f"the name {key!r} is given twice in one object")
        out[key] = value
    return out


def _json_constant(name: str) -> Any:
    raise _Bad(f"{name} is not a price (JSON has no {name})")


def _parse(name: str, data: bytes, toml: bool) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise PriceFileError(name, f"not UTF-8 (byte {e.start})") from None
    if toml:
        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise PriceFileError(name, f"not valid TOML: {e}") from None
    try:
        return json.loads(text, object_pairs_hook=_json_pairs, parse_constant=_json_constant)
    except _Bad as e:
        raise PriceFileError(name, f"not usable JSON: {e}") from None
    except json.JSONDecodeError as e:
        raise PriceFileError(
            name, f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return f"{value!r}"


def _model_prices(name: str, model: str, entry: object, toml: bool) -> Prices:
    if not isinstance(entry, dict):
        what = "a table" if toml else "an object"
        raise PriceFileError(
            name,
            f"is {_kind(entry)}, not {what} of prices (input, output, cache_write, cache_read)",
            model=model,
        )
    values: dict[str, float | None] = {}
    spelled: dict[str, str] = {}
    for key, value in entry.items():
        target = _FIELD_NAMES.get(key)
        if target is None:
            hint = ""
            if toml and isinstance(value, dict):
                hint = (
                    f"; a model id with dots must be quoted in TOML, "
                    f'as ["{model}.{key}"], not [{model}.{key}]'
                )
            raise PriceFileError(
                name,
                "unknown field; the fields are input, output, cache_write and cache_read "
                f"(or Go's Input, Output, CacheWrite and CacheRead){hint}",
                model=model,
                field=key,
            )
        if target in spelled:
            raise PriceFileError(
                name,
                f"the same price as {spelled[target]!r}; give each price once",
                model=model,
                field=key,
            )
        spelled[target] = key
        if value is None:  # JSON null: not known, as if left out
            values[target] = None
        elif value.__class__ not in (int, float):
            raise PriceFileError(
                name,
                f"is {_kind(value)}, not a number of US dollars per million tokens",
                model=model,
                field=key,
            )
        elif not math.isfinite(value):
            raise PriceFileError(name, f"{value!r} is not a price", model=model, field=key)
        elif value < 0:
            raise PriceFileError(
                name,
                f"{value!r} is negative; a price is US dollars per million tokens, 0 or more",
                model=model,
                field=key,
            )
        else:
            values[target] = float(value)
    return Prices(**values)


def load_prices(path: str | os.PathLike[str]) -> dict[str, Prices]:
    """Read a price file: agentloop's ``Prices`` by model id.

    The format is chosen by the extension, ``.json`` or ``.toml`` (any case). JSON::

        {"claude-sonnet-4-5": {"input": 3, "output": 15, "cache_write": 3.75, "cache_read": 0.3},
         "gpt-5": {"Input": 1.25, "Output": 10, "CacheRead": 0.125}}

    TOML, one table per model id; an id with a dot must be quoted (``["gpt-4.1"]``; unquoted,
    TOML reads ``[gpt-4.1]`` as table ``1`` inside table ``gpt-4``)::

        [claude-sonnet-4-5]
        input = 3
        output = 15

        ["gpt-4.1"]
        input = 2
        output = 8

    Prices are US dollars per million tokens. Each field may be spelled agentloop's way
    (``input``, ``output``, ``cache_write``, ``cache_read``) or Go's (``Input``, ``Output``,
    ``CacheWrite``, ``CacheRead``: Go's ``Prices`` has no JSON tags). A price left out, or
    JSON ``null``, is not known: a call with tokens of that kind costs NaN. Model ids are
    matched exactly as the log writes them (no date suffixes, no case folding). The file is the
    model ids at the top level: the seed documents no wrapper (such as ``{"models": ...}``) for
    agentloop's request files, so none is read.

    Raises:
        PriceFileError: an extension other than .json or .toml, a file that is not UTF-8 or not
            valid JSON/TOML (JSON: also a name given twice in one object, NaN or Infinity), a
            top level that is not an object, a model entry that is not an object, an unknown
            field, one price given twice (``input`` and ``Input``), or a price that is not a
            finite number of 0 or more.
        OSError: the file cannot be read, passed through unchanged (as for logs, _errors.py).
    """
    name = os.fspath(path)
    suffix = Path(name).suffix.lower()
    if suffix not in (".json", ".toml"):
        raise PriceFileError(
            name, "a price file's name must end in .json or .toml, which says its format"
        )
    toml = suffix == ".toml"
    with open(name, "rb") as f:
        document = _parse(name, f.read(), toml)
    if not isinstance(document, dict):
        raise PriceFileError(
            name, f"the file holds {_kind(document)}, not an object of prices by model id"
        )
    return {model: _model_prices(name, model, entry, toml) for model, entry in document.items()}


#: ``Rates.source`` / ``PriceTable.source`` of prices from the user's file or mapping.
SOURCE_FILE: Final = "prices file"


#: ``Rates.source`` / ``PriceTable.source`` of prices from genai-prices' snapshot.
SOURCE_GENAI_PRICES: Final = "genai-prices"


_NAN: Final = math.nan


_MILLION: Final = Decimal(1_000_000)


@dataclass(frozen=True, slots=True)
class Rates:
    """USD per token for each of agentloop's four counts, in force for some requests.

    ``input`` is per *uncached* input token (agentloop's ``input_tokens``). A rate is
    ``float('nan')`` when the price is not known.

    ``tier_start``: these rates apply to a request whose *inclusive* input (input + cache read +
    cache write tokens) is strictly above ``tier_start`` (genai-prices: ``total_input_tokens >
    tier.start``) and not above the next tier's start; 0 for the base tier, which also takes a
    request of no input at all.

    ``source``: ``"prices file"`` or ``"genai-prices"``.

    ``request``: US dollars every request pays whatever its tokens (genai-prices'
    ``requests_kcount`` / 1000; in the bundled snapshot only perplexity's sonar models have
    one); 0 for almost every model and always 0 from a price file. Not one of agentloop's
    four prices: an addition here, so that a table prices exactly what ``calc_price`` does.
    """

    input: float
    output: float
    cache_read: float
    cache_write: float
    tier_start: int
    source: str
    request: float = 0.0

    def cost_usd(self, usage: Usage) -> float:
        """What ``usage`` costs at these rates, in US dollars (the tier is the caller's choice).

        ``request`` plus each count times its rate; NaN when a count above zero has a NaN rate
        (a zero count never makes NaN). Raises ``ValueError`` for a negative count.
        """
        check_counts(usage)
        total = self.request
        if usage.input_tokens:
            total += usage.input_tokens * self.input
        if usage.output_tokens:
            total += usage.output_tokens * self.output
        if usage.cache_read_tokens:
            total += usage.cache_read_tokens * self.cache_read
        if usage.cache_write_tokens:
            total += usage.cache_write_tokens * self.cache_write
        return total


def _is_price(value: object) -> bool:
    """A usable price: an ``int`` or ``float`` (not ``bool``), finite and 0 or more."""
    if value.__class__ not in (int, float):
        return False
    assert isinstance(value, int | float)
    return math.isfinite(value) and value >= 0


@dataclass(frozen=True, slots=True)
class Prices:
    """A model's prices, agentloop's ``Prices``: US dollars per million tokens. ``None``: not known.

    Go's ``Prices{Input, Output, CacheWrite, CacheRead float64}`` (seed 002) has no "not
    known"; here ``None`` is, and a count above zero at an unknown price costs NaN, never 0.

    Raises:
        ValueError: a price that is not ``None`` or a finite number of 0 or more.
    """

    input: float | None = None
    output: float | None = None
    cache_write: float | None = None
    cache_read: float | None = None

    def __post_init__(self) -> None:
        for name in ("input", "output", "cache_write", "cache_read"):
            value = getattr(self, name)
            if value is not None and not _is_price(value):
                raise ValueError(
                    f"Prices.{name} must be None or a finite number of 0 or more, not {value!r}"
                )

    def cost_usd(self, usage: Usage) -> float:
        """What ``usage`` costs at these prices, in US dollars: agentloop's ``Prices.Cost``.

        Each count times its price, divided by 1e6 (prices are per million tokens). NaN when a
        count above zero has no price. Raises ``ValueError`` for a negative count.
        """
        check_counts(usage)
        total = 0.0
        for count, price in (
            (usage.input_tokens, self.input),
            (usage.output_tokens, self.output),
            (usage.cache_write_tokens, self.cache_write),
            (usage.cache_read_tokens, self.cache_read),
        ):
            if count:
                if price is None:
                    return _NAN
                total += count * price / 1e6
        return total

    def rates(self, source: str = SOURCE_FILE) -> Rates:
        """These prices per token, as the single (base) tier of a table; NaN where ``None``."""
        return Rates(
            input=_per_token(self.input),
            output=_per_token(self.output),
            cache_read=_per_token(self.cache_read),
            cache_write=_per_token(self.cache_write),
            tier_start=0,
            source=source,
        )
