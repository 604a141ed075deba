"""RFC 3339 times, exactly, as Go's ``time.Time`` writes and reads them in JSON: part of the
first stage, in both directions (``decode`` reads them, ``encode`` writes them).

Go writes ``time.RFC3339Nano``: ``2026-10-18T09:30:00.123456789+02:00``, trailing zeros of the
fraction trimmed (``.5``), no fraction when it is zero, ``Z`` for UTC, any other offset as
``±hh:mm``. Times are converted to integer Unix nanoseconds without passing through
``datetime`` or a float, both of which lose digits (docs/reading.md, "Times").
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

# The pieces of a time are looked up, not computed: a log's entries share their hours and
# offsets. The caches hold only strings the full pattern has checked; bounded by clearing.
# "YYYY-MM-DDTHH:" and "YYYY-MM-DDTHH:MM:" -> Unix seconds at the hour's and the minute's
# start, local time
_hour_cache: dict[str, int] = {}
_minute_cache: dict[str, int] = {}
_offset_cache: dict[str, int] = {"Z": 0}  # "Z" or "+hh:mm" -> seconds east of UTC
_SIXTY = {f"{i:02d}": i for i in range(60)}  # "MM" or "SS" -> its value
# The second ("YYYY-MM-DDTHH:MM:SS") and offset ("+hh:mm") of the last time of 35 characters
# parsed, both checked, and that second's start in Unix nanoseconds and the offset in seconds.
_last: tuple[str, str, int, int] = ("", "", 0, 0)
_SCALE = (0, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1000, 100, 10, 1)


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date."""
    y = year - 1
    days = y * 365 + y // 4 - y // 100 + y // 400
    days += _DAYS_BEFORE_MONTH[month] + (month > 2 and _is_leap(year)) + day - 1
    return days - _EPOCH_DAYS


def _slow(text: str) -> tuple[int, int]:
    """Check every field of ``text`` and fill the caches; the rules of ``parse_rfc3339``."""
    m = _RFC3339.fullmatch(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 time: {text!r}")
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
        _offset_cache[m[9] + m[10] + ":" + m[11]] = offset
    if len(_minute_cache) > 100_000:
        _minute_cache.clear()
        _hour_cache.clear()
    hour_start = _days_from_civil(year, month, day) * 86_400 + hour * 3600
    _hour_cache[text[:14]] = hour_start
    _minute_cache[text[:17]] = hour_start + minute * 60
    fraction = m[7]
    nanos = int(fraction) * _SCALE[len(fraction)] if fraction else 0
    return (hour_start + minute * 60 + second - offset) * _NS + nanos, offset


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
    # The fast path: the date, hour and minute, and the offset, were seen (and checked)
    # before; the seconds are two digits under 60 and the fraction 1 to 9 ASCII digits.
    # Anything else takes the checked path. First the layout Go writes most (nine digits of
    # fraction and an offset, 35 characters): an ASCII string (a flag, not a scan) whose
    # fraction is digits; in the second and offset of the last such time (two lines in three
    # of a log), compared, not looked up.
    global _last
    if len(text) == 35:
        fraction = text[20:29]
        if text[19] == "." and text.isascii() and fraction.isdigit():
            seen, zone, base, offset = _last
            head = text[:19]
            tail = text[29:]
            if head == seen and tail == zone:
                return base + int(fraction), offset
            try:
                offset = _offset_cache[tail]
                base = (_minute_cache[text[:17]] + _SIXTY[text[17:19]] - offset) * _NS
            except KeyError:
                pass
            else:
                _last = (head, tail, base, offset)
                return base + int(fraction), offset
    try:
        try:
            minute_start = _minute_cache[text[:17]]
        except KeyError:  # a new minute of a known hour
            minute_start = _hour_cache[text[:14]] + _SIXTY[text[14:16]] * 60
            if text[16] != ":":
                return _slow(text)
            _minute_cache[text[:17]] = minute_start
        second = _SIXTY[text[17:19]]
        if text[-1] == "Z":
            offset = 0
            end = len(text) - 1
        else:
            offset = _offset_cache[text[-6:]]
            end = len(text) - 6
    except (KeyError, IndexError):
        return _slow(text)
    if end == 19:
        return (minute_start + second - offset) * _NS, offset
    fraction = text[20:end]
    if text[19] != "." or not 0 < end - 20 <= 9 or not (fraction.isdigit() and fraction.isascii()):
        return _slow(text)
    return (minute_start + second - offset) * _NS + int(fraction) * _SCALE[end - 20], offset


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
