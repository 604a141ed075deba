"""Days, ISO weeks and months of model calls in a time zone, without pandas: the calendar keys
of the cost groups (``groups``) and the times ``--since`` / ``--until`` give (docs/costs.md,
"Time zones").

A zone is ``"UTC"``, an IANA name (``"Europe/Berlin"``, from the system's or the ``tzdata``
package's database through ``zoneinfo``), or ``"log"``: each entry's own UTC offset, as
agentloop wrote it (``2026-10-18T09:30:00+02:00`` is on the 18th, whatever the reader's zone).
Times stay UTC nanoseconds; only the calendar keys follow the zone:

- ``day``: ``2026-10-18``;
- ``week``: the ISO 8601 week, ``2026-W43`` (weeks start on Monday; week 1 is the week with the
  year's first Thursday, so 2027-01-01, a Friday, is in ``2026-W53``);
- ``month``: ``2026-10``.

An IANA zone's offset is looked up once per UTC hour the calls fall in, and per call only in
an hour in which it changes (a daylight-saving switch), so a million calls cost a few thousand
look-ups. numpy loads only for the calendar keys: ``sessiontools cost`` checks ``--tz`` and
reads ``--since`` before it loads what grouping needs.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from typing import Any

from .._log.times import _civil_from_days, _days_from_civil

__all__ = [
    "CALENDAR",
    "LOG_ZONE",
    "Zone",
    "calendar_keys",
    "check_zone",
    "local_ns",
    "parse_time",
    "zone_name",
]

#: What ``tz=`` takes: a zone's name (``"UTC"``, an IANA name, ``"log"``) or a ``tzinfo``
#: that has one (``zone_name``).
Zone = str | tzinfo


#: The calendar groups.
CALENDAR = ("day", "week", "month")
#: The zone that is each entry's own UTC offset.
LOG_ZONE = "log"

_NS = 1_000_000_000
_HOUR_NS = 3600 * _NS
_DAY_NS = 86_400 * _NS
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@lru_cache(maxsize=64)
def _zone(name: str) -> zoneinfo.ZoneInfo | None:
    """The IANA zone ``name``; ``None`` for UTC (no look-up needed)."""
    if name == "UTC":
        return None
    return zoneinfo.ZoneInfo(name)


def zone_name(tz: object) -> str:
    """The name of a zone given as ``tz=``: a name as it is; a ``zoneinfo.ZoneInfo`` its IANA
    key (``ZoneInfo("Europe/Berlin")``: ``Europe/Berlin``); ``datetime.timezone.utc`` (or
    any offset of zero) ``UTC``; a fixed ``datetime.timezone`` of whole hours the IANA zone
    of that fixed offset (UTC+02:00: ``Etc/GMT-2``, whose sign is POSIX's); a pytz zone its
    ``zone``. The name is then checked as ``check_zone`` checks it.

    Raises:
        TypeError: ``tz`` is neither text nor a zone with a name (a ``ZoneInfo`` read from a
            file, a ``dateutil`` zone, an offset that is not whole hours, a number...).
    """
    if isinstance(tz, str):
        return tz
    if isinstance(tz, zoneinfo.ZoneInfo) and tz.key:
        return tz.key
    if isinstance(tz, timezone):
        offset = tz.utcoffset(None)
        hours, rest = divmod(int(offset.total_seconds()), 3600)
        if offset == timedelta(0):
            return "UTC"
        if not rest and -12 <= hours <= 14:
            return f"Etc/GMT{-hours:+d}"
    name = getattr(tz, "zone", None)  # pytz's zones
    if isinstance(tz, tzinfo) and isinstance(name, str) and name:
        return name
    raise TypeError(
        f"tz must be a time zone's name (UTC, an IANA name such as Europe/Berlin, or log), a "
        f"zoneinfo.ZoneInfo or datetime.timezone.utc, not {type(tz).__name__} {tz!r}"
    )


def check_zone(name: str) -> str:
    """``name`` if it is a zone ``calendar_keys`` takes (``UTC``, ``log`` or an IANA name).

    Raises:
        ValueError: not such a zone, in one line saying what is.
    """
    if name in ("UTC", LOG_ZONE):
        return name
    problem = None
    if not name or name != name.strip() or "\x00" in name:
        problem = "not a time zone name"
    else:
        try:
            _zone(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as e:
            # a name not in the database, or one of its directories (Europe)
            problem = "not a time zone name" if isinstance(e, ValueError) else "no such time zone"
    if problem is not None:
        raise ValueError(
            f"{problem}: {name!r}; give an IANA name such as Europe/Berlin, UTC, or log (each "
            "entry's own UTC offset)"
        )
    return name


def _offset_seconds(zone: zoneinfo.ZoneInfo, time_ns: int) -> int:
    """The zone's UTC offset at ``time_ns``, in seconds (to the microsecond: offsets change on
    whole seconds)."""
    moment = _EPOCH + timedelta(microseconds=time_ns // 1000)
    offset = moment.astimezone(zone).utcoffset()
    assert offset is not None
    return int(offset.total_seconds())


def local_ns(time_ns: Any, zone: str, offsets: Any = None) -> Any:
    """Each UTC time (``int64`` nanoseconds) as the local clock of ``zone`` reads it, in
    nanoseconds since the local 1970-01-01T00:00. ``offsets`` (seconds, one per time) is
    needed for ``log``."""
    import numpy as np  # here: checking a zone or reading a time needs no numpy

    times = np.asarray(time_ns, dtype=np.int64)
    if zone == "UTC":
        return times
    if zone == LOG_ZONE:
        if offsets is None:
            raise ValueError("the log's own offsets are needed for the zone 'log'")
        return times + np.asarray(offsets, dtype=np.int64) * _NS
    tz = _zone(check_zone(zone))
    assert tz is not None
    if len(times) == 0:
        return times
    hours, where = np.unique(times // _HOUR_NS, return_inverse=True)
    shift = np.empty(len(hours), dtype=np.int64)
    changing: list[int] = []
    for i, hour in enumerate(hours.tolist()):
        first = _offset_seconds(tz, hour * _HOUR_NS)
        last = _offset_seconds(tz, (hour + 1) * _HOUR_NS - 1000)
        shift[i] = first
        if first != last:
            changing.append(i)
    out = times + shift[where] * _NS
    for i in changing:  # an hour in which the offset changes: each call on its own
        rows = np.flatnonzero(where == i)
        out[rows] = (
            times[rows]
            + np.array([_offset_seconds(tz, int(t)) for t in times[rows].tolist()], dtype=np.int64)
            * _NS
        )
    return out


def _day_text(day: int) -> str:
    year, month, dom = _civil_from_days(day)
    return f"{year:04d}-{month:02d}-{dom:02d}"


def _month_text(day: int) -> str:
    year, month, _ = _civil_from_days(day)
    return f"{year:04d}-{month:02d}"


def _week_text(day: int) -> str:
    """The ISO week of a day: the year of its week's Thursday, and that Thursday's week."""
    thursday = day - (day + 3) % 7 + 3  # 1970-01-01 was a Thursday: (day + 3) % 7 is Monday=0
    year, _, _ = _civil_from_days(thursday)
    week = (thursday - _days_from_civil(year, 1, 1)) // 7 + 1
    return f"{year:04d}-W{week:02d}"


_TEXT = {"day": _day_text, "week": _week_text, "month": _month_text}


def calendar_keys(local: Any, name: str) -> tuple[Any, list[str]]:
    """The ``day``, ``week`` or ``month`` of each local time (``local_ns``): ``(codes,
    values)``, ``values`` sorted (as text: they sort as the calendar does) and ``codes`` the
    index of each time's value."""
    import numpy as np

    days = np.floor_divide(np.asarray(local, dtype=np.int64), _DAY_NS)
    unique_days, where = np.unique(days, return_inverse=True)
    texts = [_TEXT[name](int(d)) for d in unique_days.tolist()]
    values = sorted(set(texts))
    index = {text: i for i, text in enumerate(values)}
    of_day = np.array([index[text] for text in texts], dtype=np.int64)
    return of_day[where] if len(where) else np.zeros(0, dtype=np.int64), values


# a date, or a date and time with an optional fraction and offset (RFC 3339, or without offset)
_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
    r"(Z|z|[+-]\d{2}:\d{2})?)?",
    re.ASCII,
)


def parse_time(text: str, zone: str = "UTC") -> int:
    """A ``--since`` / ``--until`` time as UTC nanoseconds: RFC 3339
    (``2026-10-18T09:30:00+02:00``), or a date or a time without an offset (``2026-10-18``,
    ``2026-10-18T09:30``), which is read in ``zone`` (midnight for a date; in UTC for the
    zone ``log``, which has no clock of its own). A local time a daylight-saving switch skips
    or repeats is read with the offset in force before the switch.

    Raises:
        ValueError: not such a time, or a field out of range.
    """
    m = _TIME.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 time or a YYYY-MM-DD date: {text!r}")
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    hour, minute = int(m[4] or 0), int(m[5] or 0)
    second = int(m[6] or 0)
    try:
        naive = datetime(year, month, day, hour, minute, second)
    except ValueError as e:
        raise ValueError(f"not a time or date: {text!r} ({e})") from None
    fraction = m[7] or ""
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    local = (
        _days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
    ) * _NS + nanos
    designator = m[8]
    if designator is not None:
        if designator in ("Z", "z"):
            offset = 0
        else:
            off_h, off_m = int(designator[1:3]), int(designator[4:6])
            if off_h > 23 or off_m > 59:
                raise ValueError(f"offset out of range in time {text!r}")
            offset = (off_h * 3600 + off_m * 60) * (-1 if designator[0] == "-" else 1)
    elif zone in ("UTC", LOG_ZONE):
        offset = 0
    else:
        tz = _zone(check_zone(zone))
        assert tz is not None
        utc_offset = naive.replace(tzinfo=tz).utcoffset()
        assert utc_offset is not None
        offset = int(utc_offset.total_seconds())
    return local - offset * _NS
