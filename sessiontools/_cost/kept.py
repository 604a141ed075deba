"""genai-prices' answers kept between runs: ``KeptLookups``, one small JSON file per installed
genai-prices, so that a command pricing models it priced before neither imports genai-prices
nor loads its data (0.15 to 0.3 s of every ``sessiontools report`` and ``cost``).

A ``PriceBook`` given one (``PriceBook(..., kept=KeptLookups.installed())``, what the command
line does) looks here before it asks genai-prices, and writes what it then learns. What is kept
is what ``PriceBook._lookup`` works out, per (provider, model): the days its prices change on
(its ``StartDateConstraint``s), where its time-of-day prices change (``TimeOfDateConstraint``),
and a table for each period between those days (and each segment of the day) it was asked
about, or ``null`` for a model genai-prices does not know or does not price; and the provider
genai-prices matched to a model id asked without one. The rates are kept as the exact
``Decimal`` strings genai-prices gave, and the floats made from them again as ``_probe`` makes
them: a table from here is equal to the one genai-prices' answers make. A lookup that warned
(a price that is not per token) is not kept, so it warns again next time.

**Which genai-prices.** The file's ``genai_prices`` field holds the place, and the name, size
and modification time of every file, of the installed ``genai_prices`` package (found without
importing it), and this format's number (``genai_prices_identity``); its name, a checksum of
that. A new version, another environment, or an edited data file is another file, and a file
that says another identity is not used. Only genai-prices'
bundled data is ever asked (the command line never sets a custom snapshot); a library caller
that sets one must not give a book ``kept`` lookups.

**Safety.** A file that cannot be read, is not JSON of this shape, or says another identity is
ignored (and replaced by the next save); so is anything but a regular file (a FIFO is never
waited on). It is read when first needed (``loaded``), not when made. What a command learns
is written once (``save``, after its prices are known), merged with the file as it is then,
under an exclusive ``flock`` of a lock file beside it (waited on for at most
``LOCK_SECONDS``), into a new file moved into place (``os.replace``): concurrent commands lose
nothing and a reader sees the old or the new file, never part of one; a temporary file a
killed command left is removed an hour later. Past ``MAX_MODELS`` the file starts afresh.
Nothing here raises for a cache problem: it only costs the speed. The directory is one that
no other user can change (``sessiontools._cachedir``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
import time
import zlib
from bisect import bisect_right
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # loaded when a file is read or a table made: not before the logs are read
    from decimal import Decimal

    from .price_file import Rates

__all__ = ["KeptLookups", "genai_prices_identity"]

#: The shape of the file; a change to it, or to how ``PriceBook`` works a table out of
#: genai-prices' answers, must change this number.
FORMAT: Final = 1

#: At most this many (provider, model) are kept, and as many providers: past it, a command's
#: save starts the file afresh with what it added (a file of fine-tuned ids would else grow
#: for ever).
MAX_MODELS: Final = 4096

#: How long a save waits for another command's (``flock``) before it gives up.
LOCK_SECONDS: Final = 1.0


def genai_prices_identity() -> str | None:
    """What identifies the installed genai-prices (see the module docstring), without
    importing it; ``None`` when it is not installed or cannot be read."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("genai_prices")
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    if len(places) != 1:
        return None
    try:
        with os.scandir(places[0]) as found:
            files = sorted(
                (entry.name, entry.stat()) for entry in found if entry.name.endswith(".py")
            )
    except OSError:
        return None
    if not files:
        return None
    parts = [f"format {FORMAT}", os.fsencode(places[0]).hex()]
    parts.extend(f"{name} {st.st_size} {st.st_mtime_ns}" for name, st in files)
    return "; ".join(parts)


class _Model:
    """What is kept of one (provider, model): see ``KeptLookups``."""

    __slots__ = ("changes", "cuts", "tables")

    def __init__(
        self,
        changes: tuple[int, ...],
        cuts: tuple[int, ...],
        tables: dict[str, tuple[str, tuple[Rates, ...]] | None],
    ) -> None:
        self.changes = changes
        self.cuts = cuts
        self.tables = tables  # period (or "period:segment") -> (priced_as, tiers) or None

    def place(self, time_unix_nano: int) -> str:
        """The period (and segment of the day) of this time, as ``PriceBook`` finds them."""
        from .price_book import _NS_PER_DAY, _segment  # loaded by then: the book asks

        period = bisect_right(self.changes, time_unix_nano // _NS_PER_DAY)
        if not self.cuts:
            return str(period)
        return f"{period}:{_segment(self.cuts, time_unix_nano)}"


class KeptLookups:
    """genai-prices' answers kept in ``path`` (see the module docstring). Made by
    ``installed()`` for the command line, or for a given file by a test."""

    def __init__(self, path: str, identity: str) -> None:
        self.path = path
        self.identity = identity
        self._models: dict[str, _Model] = {}
        self._providers: dict[str, str | None] = {}
        self._loaded: bool | None = None
        self._added: set[str] = set()  # the models' keys added since the last save
        self._added_providers: set[str] = set()

    @property
    def loaded(self) -> bool:
        """Whether the file held sound answers of this genai-prices (read the first time)."""
        return self._read_once()

    def _read_once(self) -> bool:
        """Read the file the first time anything is asked or added: what it holds first,
        what is added on top."""
        if self._loaded is None:
            self._loaded = self._read_into(self._models, self._providers)
        return self._loaded

    def exists(self) -> bool:
        """Whether there is a file to read (without reading it: a few microseconds)."""
        return os.path.isfile(self.path)

    @classmethod
    def installed(cls) -> KeptLookups | None:
        """The kept answers of the installed genai-prices in sessiontools' cache directory
        (``sessiontools._cachedir``); ``None`` when the cache is off or unusable, or
        genai-prices is not installed."""
        from .._cachedir import cache_dir

        directory = cache_dir("prices")
        if directory is None:
            return None
        identity = genai_prices_identity()
        if identity is None:
            return None
        name = f"genai-prices-{zlib.crc32(identity.encode()):08x}.json"
        return cls(os.path.join(directory, name), identity)

    def answer(
        self, provider: str, model: str, time_unix_nano: int
    ) -> tuple[tuple[str, tuple[Rates, ...]] | None, tuple[int, ...], tuple[int, ...]] | None:
        """What ``PriceBook._lookup`` would work out at this time: the table (priced as, tiers)
        or ``None`` (unpriced), the time-of-day cuts, the days the prices change on. ``None``
        when it is not kept."""
        self._read_once()
        kept = self._models.get(_key(provider, model))
        if kept is None:
            return None
        place = kept.place(time_unix_nano)
        if place not in kept.tables:
            return None
        return kept.tables[place], kept.cuts, kept.changes

    def provider(self, model: str) -> tuple[str | None] | None:
        """The provider genai-prices matched to ``model`` (in a 1-tuple: ``(None,)`` when it
        did not know the model id), or ``None`` when it is not kept."""
        self._read_once()
        if model in self._providers:
            return (self._providers[model],)
        return None

    def add(
        self,
        provider: str,
        model: str,
        time_unix_nano: int,
        table: tuple[str, tuple[Rates, ...]] | None,
        cuts: tuple[int, ...],
        changes: tuple[int, ...],
        matched: tuple[str | None] | None = None,
    ) -> None:
        """Keep what genai-prices answered at this time (as ``answer`` gives it) and, asked
        without a provider, the provider it matched (``matched``, as ``provider`` gives it),
        until ``save``."""
        self._read_once()
        key = _key(provider, model)
        kept = self._models.get(key)
        if kept is None or kept.cuts != cuts or kept.changes != changes:
            kept = self._models[key] = _Model(changes, cuts, {})
        kept.tables[kept.place(time_unix_nano)] = table
        self._added.add(key)
        if matched is not None:
            self.add_provider(model, matched[0])

    def add_provider(self, model: str, provider: str | None) -> None:
        """Keep the provider genai-prices matched to ``model`` (``None``: none), until
        ``save``."""
        self._read_once()
        self._providers[model] = provider
        self._added_providers.add(model)

    def save(self) -> None:
        """Write what was added since the last ``save`` (nothing when nothing was): merged
        with the file as it is now, put in its place (module docstring). Gives up quietly on
        any error of the file system, or when another command holds the file's lock for
        more than ``LOCK_SECONDS``. Once per command, when its prices are known: a write a
        look-up would cost as much as the file is long, for each new model."""
        if not self._added and not self._added_providers:
            return
        with contextlib.suppress(OSError):
            self._write()
        self._added.clear()
        self._added_providers.clear()

    def _write(self) -> None:
        """``save``'s work; raises ``OSError``."""
        import orjson

        from .._cachedir import clear_odd, sweep

        temp = f"{self.path}.{os.getpid()}.tmp"
        for odd in (self.path + ".lock", self.path):
            clear_odd(odd)
        lock = os.open(
            self.path + ".lock",
            os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW,
            0o600,
        )
        try:
            if not _regular(lock) or not _locked(lock):
                return
            models: dict[str, _Model] = {}
            providers: dict[str, str | None] = {}
            self._read_into(models, providers)
            if len(models) + len(self._added) > MAX_MODELS:
                models.clear()  # start afresh with this command's
            if len(providers) + len(self._added_providers) > MAX_MODELS:
                providers.clear()
            for key in self._added:
                kept = self._models[key]
                there = models.get(key)
                if there is None or there.cuts != kept.cuts or there.changes != kept.changes:
                    models[key] = kept
                else:
                    there.tables.update(kept.tables)
            for model in self._added_providers:
                providers[model] = self._providers[model]
            data = orjson.dumps(
                {
                    "format": FORMAT,
                    "genai_prices": self.identity,
                    "models": {key: _dump_model(kept) for key, kept in models.items()},
                    "providers": providers,
                },
                option=orjson.OPT_SORT_KEYS,
            )
            flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(temp, flags | os.O_NONBLOCK, 0o600)
            try:
                with os.fdopen(fd, "wb") as f:
                    if not _regular(fd):
                        return
                    f.write(data)
                os.replace(temp, self.path)
            except BaseException:
                _remove(temp)
                raise
            sweep(os.path.dirname(self.path), os.path.basename(self.path))
        finally:
            os.close(lock)  # and the lock with it

    def _read_into(self, models: dict[str, _Model], providers: dict[str, str | None]) -> bool:
        """Fill ``models`` and ``providers`` from the file: whether it was of this identity
        and sound (else they are left empty)."""
        from decimal import InvalidOperation

        import orjson

        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as f:
                if not _regular(fd):  # a FIFO, a device: never waited on
                    return False
                data = orjson.loads(f.read())
        except (OSError, ValueError):  # orjson.JSONDecodeError is a ValueError
            return False
        try:
            if data["format"] != FORMAT or data["genai_prices"] != self.identity:
                return False
            read_models = {
                _checked_key(key): _load_model(value) for key, value in data["models"].items()
            }
            read_providers = {
                _string(model): None if provider is None else _string(provider)
                for model, provider in data["providers"].items()
            }
        except (KeyError, TypeError, ValueError, AttributeError, InvalidOperation):
            return False
        models.update(read_models)
        providers.update(read_providers)
        return True


def _key(provider: str, model: str) -> str:
    return f"{provider}\0{model}"


def _checked_key(key: Any) -> str:
    if _string(key).count("\0") != 1:
        raise ValueError(key)
    return str(key)


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _days(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(day, int) and not isinstance(day, bool) for day in value
    ):
        raise TypeError(value)
    if sorted(set(value)) != value:
        raise ValueError(value)
    return tuple(value)


def _dump_model(kept: _Model) -> dict[str, Any]:
    return {
        "changes": list(kept.changes),
        "cuts": list(kept.cuts),
        "tables": {
            place: None
            if table is None
            else {"priced_as": table[0], "tiers": _dump_tiers(table[1])}
            for place, table in kept.tables.items()
        },
    }


def _dump_tiers(tiers: tuple[Rates, ...]) -> list[list[Any]]:
    dumped = []
    for rates in tiers:
        exact = rates.exact
        assert exact is not None  # genai-prices' rates are exact
        dumped.append(
            [
                rates.tier_start,
                *(
                    None if value is None else str(value)
                    for value in (exact.input, exact.output, exact.cache_read, exact.cache_write)
                ),
                str(exact.request),
            ]
        )
    return dumped


def _load_model(value: Any) -> _Model:
    tables: dict[str, tuple[str, tuple[Rates, ...]] | None] = {}
    for place, table in value["tables"].items():
        _string(place)
        if table is None:
            tables[place] = None
            continue
        tiers = tuple(_load_rates(tier) for tier in table["tiers"])
        if not tiers or tiers[0].tier_start != 0:
            raise ValueError(tiers)
        if any(high.tier_start <= low.tier_start for low, high in itertools.pairwise(tiers)):
            raise ValueError(tiers)
        tables[place] = (_string(table["priced_as"]), tiers)
    return _Model(_days(value["changes"]), _days(value["cuts"]), tables)


def _load_rates(tier: Any) -> Rates:
    from decimal import Decimal

    from .price_file import SOURCE_GENAI_PRICES, ExactRates, rates_of

    start, input, output, cache_read, cache_write, request = tier
    if not isinstance(start, int) or isinstance(start, bool) or start < 0:
        raise ValueError(start)
    exact = ExactRates(
        input=_decimal(input, True),
        output=_decimal(output, True),
        cache_read=_decimal(cache_read, True),
        cache_write=_decimal(cache_write, True),
        request=_decimal(request, False) or Decimal(0),
    )
    return rates_of(exact, start, SOURCE_GENAI_PRICES)


def _decimal(value: Any, may_be_none: bool) -> Decimal | None:
    from decimal import Decimal

    if value is None and may_be_none:
        return None
    number = Decimal(_string(value))
    if not number.is_finite():
        raise ValueError(value)
    return number


def _regular(fd: int) -> bool:
    return stat.S_ISREG(os.fstat(fd).st_mode)


def _locked(fd: int) -> bool:
    """Take the exclusive ``flock`` on ``fd``, waiting at most ``LOCK_SECONDS``."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        return True
    deadline = time.monotonic() + LOCK_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(path)
