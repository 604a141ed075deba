"""The price look-up: a price file, else genai-prices, else unpriced (docs/costs.md, "Prices").

Part of the cost exporter. ``PriceBook`` answers for a (provider, model, time) with a
``PriceTable``: every tier of that model's ``Rates`` in force on that UTC day. Sources, the
first that knows wins:

1. the price file (or mapping) the user gives, by model id, which always wins;
2. genai-prices' bundled snapshot (offline; nothing is ever fetched), at the call's own time;
3. otherwise the call is unpriced: ``table`` and ``rates`` return ``None`` and ``cost_usd``
   returns NaN, never 0.

**Token counts.** agentloop's ``Usage`` is four disjoint counts: ``input_tokens`` is the
uncached input only (docs/reading.md, "The log format"). genai-prices expects ``input_tokens``
to be the *inclusive* input (uncached + cache reads + cache writes) and subtracts the cached
counts itself. ``_genai_usage`` is the one place that converts; ``inclusive_input_tokens``
(``sessiontools._model.usage``) is the one formula for the inclusive input, which also picks
the tier.

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

**Unknown prices.** A genai-prices model with no price for a kind of token, nor for a broader
kind that includes it, has a NaN rate for it (cache reads and writes are input tokens, so a
model with an input price but no cache price charges them at the input price: genai-prices'
rule, and how OpenAI bills cache writes). A genai-prices model with no token price at all (an
empty price, as for github-copilot's models or some ``:free`` ones) is unpriced, ``None``:
``calc_price`` would say 0, which docs/costs.md forbids for a price nobody knows. These are the
only places the book departs from ``calc_price``.

**Per-request fees.** A price that every request pays whatever its tokens (genai-prices'
``requests_kcount``; perplexity's sonar models) is ``Rates.request``, an addition to agentloop's
four prices so that a table prices exactly what ``calc_price`` does.

Precision: per-token rates are ``Decimal`` differences converted to ``float`` once; nothing is
rounded (docs/costs.md, "Prices").
"""

from __future__ import annotations

import os
import warnings
from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Final

from .._errors import SessionToolsWarning
from .._log.entries import Usage
from .._model.usage import check_counts, inclusive_input_tokens
from .price_file import (
    _NAN,
    SOURCE_FILE,
    SOURCE_GENAI_PRICES,
    ExactRates,
    Prices,
    Rates,
    load_prices,
    rates_of,
)

if TYPE_CHECKING:
    import genai_prices.types as gp_types

    from .kept import KeptLookups

__all__ = ["PriceBook", "PriceTable"]


_NS_PER_DAY: Final = 86_400_000_000_000


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


_EPOCH_ORDINAL: Final = date(1970, 1, 1).toordinal()


@dataclass(frozen=True, slots=True)
class PriceTable:
    """Every tier of one model's prices on one day (UTC), lowest first.

    ``tiers[0].tier_start == 0``; starts strictly increase. A table from a price file has one
    tier. ``provider`` and ``model`` are as asked (the provider may be ``""``); ``source`` is
    ``"prices file"`` or ``"genai-prices"``. For a model with time-of-day prices the table
    holds only for part of ``day`` (see ``PriceBook.whole_day``).

    ``priced_as``: the model id the prices are those of: the price file's key (the model id
    as asked: the file matches exactly), or the model genai-prices matched the id to
    (``gpt-5`` for ``gpt-5-2025-08-07``). ``""`` when not said (a table made by hand): the
    model as asked.
    """

    provider: str
    model: str
    day: date
    tiers: tuple[Rates, ...]
    source: str
    priced_as: str = ""

    def __post_init__(self) -> None:
        if not self.tiers or self.tiers[0].tier_start != 0:
            raise ValueError("a PriceTable's first tier must start at 0")
        for low, high in zip(self.tiers, self.tiers[1:], strict=False):
            if high.tier_start <= low.tier_start:
                raise ValueError("a PriceTable's tiers must start in increasing order")

    def rates_for(self, inclusive_input_tokens: int) -> Rates:
        """The rates of a request with this inclusive input (input + cache read + cache write).

        The last tier whose ``tier_start`` the input is strictly above; else the base tier.
        """
        tiers = self.tiers
        for rates in reversed(tiers):
            if inclusive_input_tokens > rates.tier_start:
                return rates
        return tiers[0]


def _genai_usage(usage: Usage) -> Any:
    """agentloop's disjoint ``Usage`` as genai-prices' ``Usage``: THE one conversion.

    genai-prices' ``input_tokens`` is inclusive of cache reads and cache writes (its
    ``compute_leaf_values`` subtracts them from it); agentloop's is the uncached part.
    """
    from genai_prices import Usage as GenaiUsage

    return GenaiUsage(
        input_tokens=inclusive_input_tokens(usage),
        output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cache_read_tokens,
        cache_write_tokens=usage.cache_write_tokens,
    )


_priced_by_cache: dict[str, frozenset[str]] = {}


def _price_keys_covering(usage_key: str) -> frozenset[str]:
    """The genai-prices price keys that price ``usage_key``: its own and its ancestors'.

    From genai-prices' unit registry (``data_units.unit_data``): a unit prices a usage key when
    its dimensions are a subset of the key's (``input_mtok`` prices cache reads and writes).
    """
    keys = _priced_by_cache.get(usage_key)
    if keys is None:
        from genai_prices.data_units import unit_data

        own = unit_data[usage_key].get("dimensions", {}).items()
        keys = frozenset(
            unit.get("price_key", key)
            for key, unit in unit_data.items()
            if unit.get("dimensions", {}).items() <= own
        )
        _priced_by_cache[usage_key] = keys
    return keys


def _has_price(model_price: gp_types.ModelPrice, usage_key: str) -> bool:
    prices = vars(model_price)
    return any(prices.get(key) is not None for key in _price_keys_covering(usage_key))


def _tier_starts(model_price: gp_types.ModelPrice) -> list[int]:
    """Every tier start of every ``TieredPrices`` in the price, sorted, without 0 (the base)."""
    from genai_prices.types import TieredPrices

    starts = {
        tier.start
        for value in vars(model_price).values()
        if isinstance(value, TieredPrices)
        for tier in value.tiers
    }
    return sorted(start for start in starts if start != 0)


def _us_of_day(t: time) -> int:
    """A time of day as microseconds after UTC midnight (a naive time is UTC, as genai-prices)."""
    if t.tzinfo is not None:
        t = datetime.combine(date(1970, 1, 1), t).astimezone(UTC).time()
    return ((t.hour * 60 + t.minute) * 60 + t.second) * 1_000_000 + t.microsecond


def _time_of_day_cuts(model: gp_types.ModelInfo) -> tuple[int, ...]:
    """Where the model's time-of-day prices start or end, as microseconds after UTC midnight.

    Empty for a model without ``TimeOfDateConstraint``. Only the standard prices count:
    ``price_variants`` are chosen by a ``price_context``, which the book never passes.
    """
    from genai_prices.types import TimeOfDateConstraint

    if not isinstance(model.prices, list):
        return ()
    cuts = set()
    for conditional in model.prices:
        constraint = conditional.constraint
        if isinstance(constraint, TimeOfDateConstraint):
            cuts.add(_us_of_day(constraint.start_time))
            cuts.add(_us_of_day(constraint.end_time))
    return tuple(sorted(cuts))


def _start_days(model: gp_types.ModelInfo) -> tuple[int, ...]:
    """The UTC days (since the Unix epoch) on which the model's standard prices change: its
    ``StartDateConstraint`` dates, sorted. Between two of them its prices are the same."""
    from genai_prices.types import StartDateConstraint

    if not isinstance(model.prices, list):
        return ()
    days = {
        c.constraint.start_date.toordinal() - _EPOCH_ORDINAL
        for c in model.prices
        if isinstance(c.constraint, StartDateConstraint)
    }
    return tuple(sorted(days))


def _segment(cuts: tuple[int, ...], time_unix_nano: int) -> int:
    return bisect_right(cuts, (time_unix_nano % _NS_PER_DAY) // 1000)


@dataclass(slots=True)
class _TimeOfDay:
    """A model with time-of-day prices, on one UTC day: a table per segment of the day."""

    cuts: tuple[int, ...]
    tables: dict[int, PriceTable | None] = field(default_factory=dict)


def _utc_datetime(time_unix_nano: int) -> datetime:
    """Unix nanoseconds as an aware UTC datetime (to the microsecond, rounded down)."""
    return _EPOCH + timedelta(microseconds=time_unix_nano // 1000)


def _close(got: Decimal, want: Decimal) -> bool:
    return abs(got - want) <= abs(want) * Decimal("1e-15")


class PriceBook:
    """Prices for model calls: the user's prices, else genai-prices, else unpriced (docs/costs.md,
    "Prices").

    Args:
        prices: a price file (``.json`` or ``.toml``; see ``load_prices``) or a mapping of model
            id to ``Prices``. A model it names is always priced from it, whole, whatever
            genai-prices says (a price the entry leaves out is NaN, not genai-prices' price).
        genai_prices: whether to ask genai-prices about models the prices do not name.
        kept: genai-prices' answers kept between runs (``sessiontools._cost.kept``), looked
            in before genai-prices is asked, and given what it then answers (the command
            line's; not for a process that set genai-prices' custom snapshot).

    Raises:
        PriceFileError: the price file cannot be used (``OSError`` if it cannot be read).
        TypeError: a mapping whose keys are not strings or values not ``Prices``.

    Attributes:
        lookups: how many times genai-prices was asked: once per table built from it (each
            takes a handful of ``calc_price`` calls), once per (provider, model, UTC day) it
            did not know. Repeated calls for a key already asked cost no look-up.

    The cache is per (provider, model, UTC day), per time-of-day segment for the models whose
    prices depend on the time of day (module docstring). A book is not thread-safe.
    """

    lookups: int

    def __init__(
        self,
        prices: str | os.PathLike[str] | Mapping[str, Prices] | None = None,
        *,
        genai_prices: bool = True,
        kept: KeptLookups | None = None,
    ) -> None:
        if prices is None:
            table: dict[str, Prices] = {}
        elif isinstance(prices, Mapping):
            table = {}
            for model, entry in prices.items():
                if not isinstance(model, str) or not isinstance(entry, Prices):
                    raise TypeError(
                        f"prices must map model ids (str) to Prices, not {model!r}: {entry!r}"
                    )
                table[model] = entry
        else:
            table = load_prices(prices)
        #: the price file's name as given (``None``: no file; a mapping is ``"the prices given"``)
        self.file_name: str | None = (
            None if prices is None else "the prices given" if isinstance(prices, Mapping)
            else os.fspath(prices)
        )  # fmt: skip
        self._file = table
        self._genai = genai_prices
        self._cache: dict[tuple[str, str, int], PriceTable | _TimeOfDay | None] = {}
        # For a model without time-of-day prices: the days its prices change on, and the table
        # of each period between them, so a log of many days asks genai-prices once a period.
        self._changes: dict[tuple[str, str], tuple[int, ...]] = {}
        self._periods: dict[tuple[str, str, int], PriceTable | None] = {}
        self._providers: dict[str, str | None] = {}  # model id -> genai-prices' provider
        self._kept = kept if genai_prices else None
        self.lookups = 0

    def keep(self) -> None:
        """Write what genai-prices answered this book to its ``kept`` answers, for the next
        command (``KeptLookups.save``: once, when the prices are known); nothing without
        them. Never raises for the cache."""
        if self._kept is not None:
            self._kept.save()

    def sources(self) -> tuple[dict[str, Prices], bool]:
        """What this book prices from, to make the same book elsewhere (a Dask worker:
        ``PriceBook(prices or None, genai_prices=genai_prices)``): the prices the file or
        mapping gave, by model id (a copy; empty without one), and whether genai-prices is
        asked about the others. Nothing of what the book has looked up."""
        return dict(self._file), self._genai

    def warm(self) -> None:
        """Load genai-prices and its data now, for a caller with time to spare (such as while
        other processes read the logs): only when this book has no price file (with one,
        genai-prices loads when a model the file does not name needs a price) and no kept
        answers were found (with them, genai-prices loads for a model asked about the first
        time). Gives no warning; changes nothing but when the loading happens."""
        if self._genai and not self._file and not (self._kept is not None and self._kept.loaded):
            from genai_prices import data_snapshot

            data_snapshot.get_snapshot()

    def table(self, provider: str, model: str, time_unix_nano: int) -> PriceTable | None:
        """Every tier of ``model``'s prices in force at ``time_unix_nano``, or ``None``: unpriced.

        Args:
            provider: agentloop's ``native.provider`` (``anthropic``, ``openai``), or ``""``
                when not known (a tool's own model calls): genai-prices then finds the provider
                from the model id. A provider genai-prices does not know is unpriced.
            model: the model id as the log gives it; genai-prices matches dated ids
                (``gpt-5-2025-08-07`` is ``gpt-5``). The price file matches it exactly.
            time_unix_nano: when the call was made.

        ``None`` when the price file does not name the model and genai-prices does not know it
        (or ``genai_prices`` is off), never a table of zeros. Cached per (provider, model, UTC
        day), and per time-of-day segment where prices depend on it; genai-prices is asked once
        per period between the days the model's prices change (its ``StartDateConstraint``s).
        """
        day = time_unix_nano // _NS_PER_DAY
        key = (provider, model, day)
        try:
            hit = self._cache[key]
        except KeyError:
            pass
        else:
            if not isinstance(hit, _TimeOfDay):
                return hit
            segment = _segment(hit.cuts, time_unix_nano)
            try:
                return hit.tables[segment]
            except KeyError:
                found, _, _ = self._lookup(provider, model, time_unix_nano, day)
                hit.tables[segment] = found
                return found
        entry = self._file.get(model)
        if entry is not None:
            found = PriceTable(
                provider, model, _date(day), (entry.rates(),), SOURCE_FILE, priced_as=model
            )
            self._cache[key] = found
            return found
        if not self._genai:
            self._cache[key] = None
            return None
        changes = self._changes.get((provider, model))
        if changes is not None:
            period = (provider, model, bisect_right(changes, day))
            if period in self._periods:
                known = self._periods[period]
                found = None if known is None else replace(known, day=_date(day))
                self._cache[key] = found
                return found
        found, cuts, changes = self._lookup(provider, model, time_unix_nano, day)
        if cuts:
            self._cache[key] = _TimeOfDay(cuts, {_segment(cuts, time_unix_nano): found})
        else:
            self._cache[key] = found
            self._changes[(provider, model)] = changes
            self._periods[(provider, model, bisect_right(changes, day))] = found
        return found

    def whole_day(self, provider: str, model: str, time_unix_nano: int) -> bool:
        """Whether ``table(provider, model, time_unix_nano)`` holds for the whole UTC day.

        False only for a model genai-prices prices by time of day (deepseek's off-peak prices):
        its calls on one day must each be looked up (cheap: the book caches every segment).
        """
        self.table(provider, model, time_unix_nano)
        return not isinstance(
            self._cache[(provider, model, time_unix_nano // _NS_PER_DAY)], _TimeOfDay
        )

    def rates(
        self, provider: str, model: str, time_unix_nano: int, inclusive_input_tokens: int
    ) -> Rates | None:
        """The rates of one request: its table's tier for its inclusive input; ``None``: unpriced.

        ``inclusive_input_tokens`` is input + cache read + cache write tokens.
        """
        table = self.table(provider, model, time_unix_nano)
        return None if table is None else table.rates_for(inclusive_input_tokens)

    def cost_usd(self, provider: str, model: str, time_unix_nano: int, usage: Usage) -> float:
        """What one model call cost, in US dollars; NaN when unpriced or a used price is unknown
        (a call of no tokens costs 0 even unpriced).

        The whole request at its tier's rates (docs/costs.md, "Prices": providers bill the whole
        request at the tier rate when its inclusive input passes the threshold). Raises
        ``ValueError`` for a negative count.
        """
        table = self.table(provider, model, time_unix_nano)
        if table is None:
            check_counts(usage)
            # no tokens cost nothing, whoever prices them (a count of zero never makes NaN)
            return 0.0 if usage == Usage() else _NAN
        return table.rates_for(inclusive_input_tokens(usage)).cost_usd(usage)

    def missing_prices(self, model: str) -> tuple[str, ...] | None:
        """The prices the price file leaves out for ``model`` (``input``, ``output``,
        ``cache_read``, ``cache_write``, in that order; a price left out or ``null`` is not
        known), or ``None`` when the file does not name the model. A call of that model with
        tokens of such a kind is unpriced: the file wins whole, genai-prices is not asked.
        """
        entry = self._file.get(model)
        if entry is None:
            return None
        return tuple(
            name
            for name in ("input", "output", "cache_read", "cache_write")
            if getattr(entry, name) is None
        )

    def provider(self, model: str, time_unix_nano: int) -> str | None:
        """The provider genai-prices matches to a model id when the log names none (a tool's
        own model calls): ``anthropic`` for ``claude-haiku-4-5``, ``openai`` for
        ``gpt-5-2025-08-07``. ``None`` when genai-prices does not know the model id, or is
        off. Whether the price comes from the price file does not matter: a file has no
        providers. Cached per model id (the match does not depend on the time, which is only
        what genai-prices is asked with the first time).
        """
        try:
            return self._providers[model]
        except KeyError:
            pass
        found: str | None = None
        kept = self._kept.provider(model) if self._kept is not None and model else None
        if kept is not None:
            found = kept[0]
        elif self._genai and model:
            from genai_prices import calc_price

            self.lookups += 1
            try:
                found = calc_price(
                    _genai_usage(Usage()),
                    model,
                    genai_request_timestamp=_utc_datetime(time_unix_nano),
                ).provider.id
            except LookupError:
                found = None
            if self._kept is not None:
                self._kept.add_provider(model, found)
        self._providers[model] = found
        return found

    def _lookup(
        self, provider: str, model: str, time_unix_nano: int, day: int
    ) -> tuple[PriceTable | None, tuple[int, ...], tuple[int, ...]]:
        """What genai-prices says, as kept (``kept``) or asked now: the table in force at this
        time, the model's time-of-day cuts, and the days its prices change on."""
        kept = self._kept
        if kept is not None:
            answer = kept.answer(provider, model, time_unix_nano)
            if answer is not None:
                table, cuts, changes = answer
                if not provider and model not in self._providers:
                    matched = kept.provider(model)
                    if matched is not None:
                        self._providers[model] = matched[0]
                if table is None:
                    return None, cuts, changes
                priced_as, tiers = table
                made = PriceTable(
                    provider, model, _date(day), tiers, SOURCE_GENAI_PRICES, priced_as=priced_as
                )
                return made, cuts, changes
        found, cuts, changes, clean = self._ask(provider, model, time_unix_nano, day)
        if kept is not None and clean:
            kept.add(
                provider,
                model,
                time_unix_nano,
                None if found is None else (found.priced_as, found.tiers),
                cuts,
                changes,
                matched=(self._providers.get(model),) if not provider else None,
            )
        return found, cuts, changes

    def _ask(
        self, provider: str, model: str, time_unix_nano: int, day: int
    ) -> tuple[PriceTable | None, tuple[int, ...], tuple[int, ...], bool]:
        """Ask genai-prices: the table in force at this time, the model's time-of-day cuts, the
        days its prices change on, and whether it gave no warning."""
        try:
            from genai_prices import calc_price
        except ImportError as e:  # pragma: no cover - genai-prices is a dependency
            raise ImportError(
                "pricing needs the genai-prices package (pip install genai-prices), "
                "or PriceBook(..., genai_prices=False)"
            ) from e

        self.lookups += 1
        when = _utc_datetime(time_unix_nano)
        provider_id = provider or None

        def price(usage: Usage) -> Decimal:
            return calc_price(
                _genai_usage(usage), model, provider_id=provider_id, genai_request_timestamp=when
            ).total_price

        try:
            first = calc_price(
                _genai_usage(Usage()),
                model,
                provider_id=provider_id,
                genai_request_timestamp=when,
            )
        except LookupError:  # "Unable to find provider ..." / "Unable to find model ..."
            if not provider:
                self._providers.setdefault(model, None)
            return None, (), (), True
        if not provider:
            self._providers.setdefault(model, first.provider.id)
        model_price = first.model_price
        cuts = _time_of_day_cuts(first.model)
        changes = _start_days(first.model)
        starts = [0, *_tier_starts(model_price)]
        known = {
            name: _has_price(model_price, f"{name}_tokens")
            for name in ("input", "output", "cache_read", "cache_write")
        }
        if not any(known.values()) and not _has_price(model_price, "requests"):
            # genai-prices knows the model but not its price (an empty price: subscription or
            # unlisted); calc_price would say 0, which docs/costs.md forbids for an unknown price.
            return None, cuts, changes, True
        tiers: list[Rates] = []
        for index, start in enumerate(starts):
            end = starts[index + 1] if index + 1 < len(starts) else None
            rates = _probe(price, start, end, known)
            if rates is None:
                warnings.warn(
                    f"genai-prices' price of {model!r} (provider {provider!r}) on "
                    f"{_date(day)} is not a price per token; its calls are left unpriced",
                    SessionToolsWarning,
                    stacklevel=4,
                )
                return None, cuts, changes, False
            tiers.append(rates)
        table = PriceTable(
            provider,
            model,
            _date(day),
            tuple(tiers),
            SOURCE_GENAI_PRICES,
            priced_as=first.model.id,
        )
        return table, cuts, changes, True


def _probe(price: Any, start: int, end: int | None, known: Mapping[str, bool]) -> Rates | None:
    """The per-token rates of the tier of requests with inclusive input in (start, end].

    ``price(usage)`` is ``calc_price``'s total for an agentloop ``Usage``. With ``n`` =
    start + 1 inclusive input tokens (all in the tier)::

        fee + n*input                                    = price(input=n)
        fee + (n+1)*input                                = price(input=n+1)
        fee + n*input + output                           = price(input=n, output=1)
        fee + (n-1)*input + cache_read                   = price(input=n-1, cache_read=1)
        fee + (n-1)*input + cache_write                  = price(input=n-1, cache_write=1)

    and a mixed usage at the tier's top checks the result. ``None`` when the tier is too narrow
    to probe or the check fails: the price is not linear in the four counts.
    """
    n = start + 1
    if end is not None and end < n + 1:
        return None
    base = price(Usage(input_tokens=n))
    input_rate = price(Usage(input_tokens=n + 1)) - base
    fee = base - n * input_rate
    output_rate = price(Usage(input_tokens=n, output_tokens=1)) - base
    cache_read_rate = price(Usage(input_tokens=n - 1, cache_read_tokens=1)) - base + input_rate
    cache_write_rate = price(Usage(input_tokens=n - 1, cache_write_tokens=1)) - base + input_rate
    top = end if end is not None else start + 1_000_000
    cache_read, cache_write, output = top // 3, top // 7, 4321
    uncached = top - cache_read - cache_write
    want = (
        fee
        + uncached * input_rate
        + output * output_rate
        + cache_read * cache_read_rate
        + cache_write * cache_write_rate
    )
    got = price(
        Usage(
            input_tokens=uncached,
            output_tokens=output,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
        )
    )
    if not _close(got, want):
        return None

    def rate(value: Decimal, name: str) -> Decimal | None:
        return value if value or known[name] else None

    exact = ExactRates(
        input=rate(input_rate, "input"),
        output=rate(output_rate, "output"),
        cache_read=rate(cache_read_rate, "cache_read"),
        cache_write=rate(cache_write_rate, "cache_write"),
        request=fee,
    )
    return rates_of(exact, start, SOURCE_GENAI_PRICES)


def _date(day: int) -> date:
    return date.fromordinal(_EPOCH_ORDINAL + day)
