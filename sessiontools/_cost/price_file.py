"""Prices from a user's price file: agentloop's ``Prices``, and the per-token ``Rates`` that a
cost frame multiplies token counts by; part of the cost exporter, looked up by ``price_book``
(docs/costs.md, "Prices").

- ``Prices``: US dollars per *million* tokens for each of agentloop's four token counts,
  ``None`` where not known (Go's ``Prices`` has no "not known"). ``load_prices`` reads a file
  of them by model id (JSON or TOML; what it takes and refuses is in its docstring).
- ``Rates``: US dollars per *token* for one tier of one model's prices, ``input`` per
  *uncached* input token, with where the rates apply (``tier_start``), where they come from
  (``source``) and a fee every request pays (``request``, always 0 from a price file).
- A price a file's entry leaves out is not known: its rate is NaN. A cost is NaN exactly when
  a count above zero meets a NaN rate; a count of zero never makes NaN.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Context, Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .._errors import PriceFileError
from .._log.entries import Usage
from .._model.usage import check_counts

if TYPE_CHECKING:
    pass

__all__ = [
    "EXACT",
    "SOURCE_FILE",
    "SOURCE_GENAI_PRICES",
    "ExactRates",
    "Prices",
    "Rates",
    "load_prices",
]


def _exact_per_token(per_million: float | None) -> Decimal | None:
    """US dollars per million tokens -> per token, exactly, as a ``Decimal`` (the price as
    its shortest decimal text: ``0.3`` is 0.3, not the binary float nearest it)."""
    if per_million is None:
        return None
    return Decimal(repr(float(per_million))) / _MILLION


def _per_token(exact: Decimal | None) -> float:
    """An exact per-token rate as a float: one rounding; NaN when not known."""
    return _NAN if exact is None else float(exact)


def rates_of(exact: ExactRates, tier_start: int, source: str) -> Rates:
    """The ``Rates`` of exact rates (a price file's, genai-prices' probed, a kept table's):
    each float made from its ``Decimal`` once, NaN when not known."""
    return Rates(
        input=_per_token(exact.input),
        output=_per_token(exact.output),
        cache_read=_per_token(exact.cache_read),
        cache_write=_per_token(exact.cache_write),
        tier_start=tier_start,
        source=source,
        request=float(exact.request),
        exact=exact,
    )


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
        import tomllib  # only for a TOML price file

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
    model ids at the top level: agentloop documents no wrapper (such as ``{"models": ...}``) for
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


#: Enough digits for any count (below 2^64) times any rate, added up: ``Decimal`` sums of
#: costs are exact in it.
EXACT = Context(prec=200, Emax=999_999, Emin=-999_999)


@dataclass(frozen=True, slots=True)
class ExactRates:
    """``Rates`` as exact ``Decimal`` US dollars per token (``None``: not known), and
    ``request`` per request: where the floats of ``Rates`` come from, each rounded once.

    ``cost`` is the exact cost of one request, and ``scaled`` the same rates as whole numbers
    of ``10**-scale`` dollars, which the frames multiply token counts by in integers
    (``pricing``): a cost that is a whole number of such units below 2^50 is worked out
    exactly and rounded to a float once (``units / 10**scale``: both exact floats, so the
    division is correctly rounded).
    """

    input: Decimal | None
    output: Decimal | None
    cache_read: Decimal | None
    cache_write: Decimal | None
    request: Decimal = Decimal(0)

    def cost(self, input: int, output: int, cache_read: int, cache_write: int) -> Decimal | None:
        """The exact cost of a request of these counts; ``None`` when a count above zero has
        no known rate."""
        total = self.request
        for count, rate in (
            (input, self.input),
            (output, self.output),
            (cache_read, self.cache_read),
            (cache_write, self.cache_write),
        ):
            if count:
                if rate is None:
                    return None
                total = EXACT.add(total, EXACT.multiply(Decimal(count), rate))
        return total

    def scaled(self) -> tuple[int, tuple[int | None, int | None, int | None, int | None], int]:
        """``(scale, (input, output, cache_read, cache_write), request)``: each rate as a whole
        number of ``10**-scale`` US dollars (``None``: not known), with the smallest scale
        that makes every rate whole."""
        known = [
            r.normalize(EXACT)
            for r in (self.input, self.output, self.cache_read, self.cache_write, self.request)
            if r is not None
        ]
        scale = max([0, *(-int(r.as_tuple().exponent) for r in known)])

        def units(rate: Decimal | None) -> int | None:
            return None if rate is None else int(EXACT.scaleb(rate, scale))

        return (
            scale,
            (
                units(self.input),
                units(self.output),
                units(self.cache_read),
                units(self.cache_write),
            ),
            int(EXACT.scaleb(self.request, scale)),
        )


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

    ``exact``: the same rates as exact ``Decimal`` values (``ExactRates``), which the price
    file and genai-prices give; ``None`` for rates made by hand, which are then used as the
    floats they are.
    """

    input: float
    output: float
    cache_read: float
    cache_write: float
    tier_start: int
    source: str
    request: float = 0.0
    exact: ExactRates | None = None

    def cost_usd(self, usage: Usage) -> float:
        """What ``usage`` costs at these rates, in US dollars (the tier is the caller's choice).

        ``request`` plus each count times its rate; NaN when a count above zero has a NaN rate
        (a zero count never makes NaN). With ``exact`` rates the sum is worked out in
        ``Decimal`` and rounded to a float once (the float nearest the exact cost). Raises
        ``ValueError`` for a negative count.
        """
        check_counts(usage)
        if self.exact is not None:
            value = self.exact.cost(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
            )
            return _NAN if value is None else float(value)
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

    Go's ``Prices{Input, Output, CacheWrite, CacheRead float64}`` has no "not
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
        exact = ExactRates(
            input=_exact_per_token(self.input),
            output=_exact_per_token(self.output),
            cache_read=_exact_per_token(self.cache_read),
            cache_write=_exact_per_token(self.cache_write),
        )
        return rates_of(exact, 0, source)
