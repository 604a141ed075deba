"""RFC 3339 times, exactly, as Go's ``time.Time`` writes and reads them in JSON.

Go writes ``time.RFC3339Nano``: ``2026-10-18T09:30:00.123456789+02:00``, trailing zeros of the
fraction trimmed (``.5``), no fraction when it is zero, ``Z`` for UTC, any other offset as
``±hh:mm``. Times are converted to integer Unix nanoseconds without passing through
``datetime`` or a float, both of which lose digits (reading.md, "Times").
"""

from __future__ import annotations

import re

__all__ = ["ZERO_TIME_UNIX_NANO", "format_rfc3339", "parse_rfc3339"]

_NS = 1_000_000_000

# Days from 0001-01-01 to 1970-01-01 in the proleptic Gregorian calendar.
_EPOCH_DAYS = 719_162

#: Go's zero ``time.Time``, ``0001-01-01T00:00:00Z``, in Unix nanoseconds: "not set".
ZERO_TIME_UNIX_NANO = -_EPOCH_DAYS * 86_400 * _NS

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9})\d*)?(?:(Z)|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)

_DAYS_BEFORE_MONTH = (0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)

# Unix seconds of "YYYY-MM-DDTHH:MM:SS" plus the offset, for the seconds already seen. Entries
# of one log share dates and offsets, so the calendar arithmetic is done once per second.
_seconds_cache: dict[str, tuple[int, int]] = {}


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date."""
    y = year - 1
    days = y * 365 + y // 4 - y // 100 + y // 400
    days += _DAYS_BEFORE_MONTH[month] + (month > 2 and _is_leap(year)) + day - 1
    return days - _EPOCH_DAYS


def _seconds(text: str, m: re.Match[str]) -> tuple[int, int]:
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    hour, minute, second = int(m[4]), int(m[5]), int(m[6])
    if not 1 <= month <= 12:
        raise ValueError(f"month out of range in time {text!r}")
    days_in_month = _DAYS_IN_MONTH[month] + (month == 2 and _is_leap(year))
    if not 1 <= day <= days_in_month:
        raise ValueError(f"day out of range in time {text!r}")
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"clock out of range in time {text!r}")
    if m[8]:
        offset = 0
    else:
        off_h, off_m = int(m[10]), int(m[11])
        if off_h > 23 or off_m > 59:
            raise ValueError(f"offset out of range in time {text!r}")
        offset = (off_h * 3600 + off_m * 60) * (-1 if m[9] == "-" else 1)
    local = _days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
    return local - offset, offset


def parse_rfc3339(text: str) -> tuple[int, int]:
    """Parse a Go RFC 3339 time exactly.

    Args:
        text: ``YYYY-MM-DDTHH:MM:SS[.fraction](Z|±hh:mm)``, as Go's ``time.Time`` marshals it.
            A fraction longer than nine digits is truncated to nanoseconds, as Go does.

    Returns:
        ``(unix_nano, utc_offset_seconds)``: the instant in integer nanoseconds since the Unix
        epoch, and the offset the time was written with (``0`` for ``Z``).

    Raises:
        ValueError: ``text`` is not such a time, or a field is out of range.
    """
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
    key = text[:19] + (m[8] or m[9] + m[10] + m[11])
    cached = _seconds_cache.get(key)
    if cached is None:
        cached = _seconds(text, m)
        if len(_seconds_cache) > 4096:
            _seconds_cache.clear()
        _seconds_cache[key] = cached
    seconds, offset = cached
    fraction = m[7]
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    return seconds * _NS + nanos, offset


def format_rfc3339(unix_nano: int, utc_offset_seconds: int = 0) -> str:
    """Write a time as Go's ``time.RFC3339Nano`` does: the inverse of ``parse_rfc3339``.

    Args:
        unix_nano: nanoseconds since the Unix epoch.
        utc_offset_seconds: the offset to show the time in; ``0`` is written ``Z``.

    Returns:
        For example ``2026-10-18T09:30:00.5+02:00``.
    """
    seconds, nanos = divmod(unix_nano + utc_offset_seconds * _NS, _NS)
    days, rem = divmod(seconds, 86_400)
    hour, rem = divmod(rem, 3600)
    minute, second = divmod(rem, 60)
    year, month, day = _civil_from_days(days)
    out = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
    if nanos:
        out += "." + f"{nanos:09d}".rstrip("0")
    if utc_offset_seconds == 0:
        return out + "Z"
    sign = "-" if utc_offset_seconds < 0 else "+"
    off_h, off_m = divmod(abs(utc_offset_seconds) // 60, 60)
    return f"{out}{sign}{off_h:02d}:{off_m:02d}"


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian date ``days`` after 1970-01-01 (Howard Hinnant's algorithm)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d
