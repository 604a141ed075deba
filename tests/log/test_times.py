"""RFC 3339 times to the nanosecond (reading.md, "Times")."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessiontools import format_rfc3339, parse_rfc3339
from sessiontools._log.times import ZERO_TIME_UNIX_NANO


@pytest.mark.parametrize(
    ("text", "unix_nano", "offset"),
    [
        # 2026-10-18T07:30:00Z is 1792308600 s after the epoch (checked with `date -d`).
        ("2026-10-18T07:30:00Z", 1_792_308_600_000_000_000, 0),
        ("2026-10-18T09:30:00.123456789+02:00", 1_792_308_600_123_456_789, 7200),
        ("2026-10-18T09:30:00.5+02:00", 1_792_308_600_500_000_000, 7200),
        ("2026-10-18T00:30:00.000000001-07:00", 1_792_308_600_000_000_001, -25200),
        ("2026-10-18T13:15:00+05:45", 1_792_308_600_000_000_000, 20700),
        ("1970-01-01T00:00:00Z", 0, 0),
        ("1969-12-31T23:59:59.999999999Z", -1, 0),
        ("0001-01-01T00:00:00Z", ZERO_TIME_UNIX_NANO, 0),
    ],
)
def test_parse_exact(text: str, unix_nano: int, offset: int) -> None:
    assert parse_rfc3339(text) == (unix_nano, offset)
    assert format_rfc3339(unix_nano, offset) == text


def test_four_hundred_nanoseconds_apart_stay_apart() -> None:
    a, _ = parse_rfc3339("2026-10-18T09:30:00.123456789+02:00")
    b, _ = parse_rfc3339("2026-10-18T09:30:00.123457189+02:00")
    assert b - a == 400


def test_same_instant_in_two_offsets() -> None:
    # The night clocks go back in Europe: +02:00 before, +01:00 after.
    before, _ = parse_rfc3339("2026-10-25T02:59:59.9+02:00")
    after, _ = parse_rfc3339("2026-10-25T02:00:00.1+01:00")
    assert after - before == 200_000_000


def test_zero_time_is_go_zero() -> None:
    assert ZERO_TIME_UNIX_NANO == -62_135_596_800 * 10**9


def test_fraction_longer_than_nine_digits_is_truncated_like_go() -> None:
    assert parse_rfc3339("2026-10-18T07:30:00.1234567899Z")[0] == 1_792_308_600_123_456_789


@pytest.mark.parametrize(
    "text",
    [
        "2026-10-18 09:30:00Z",
        "2026-10-18T09:30:00",
        "2026-13-01T00:00:00Z",
        "2026-02-29T00:00:00Z",
        "2026-10-18T24:00:00Z",
        "2026-10-18T09:60:00Z",
        "2026-10-18T09:30:60Z",
        "2026-10-18T09:30:00+24:00",
        "2026-10-18T09:30:00.Z",
        "2026-10-18T09:30:00+0200",
        "",
    ],
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rfc3339(text)


def test_leap_day() -> None:
    assert parse_rfc3339("2024-02-29T00:00:00Z")[0] == 1_709_164_800 * 10**9


@given(
    st.integers(min_value=ZERO_TIME_UNIX_NANO, max_value=253_402_300_799 * 10**9),
    st.integers(min_value=-(23 * 60 + 59), max_value=23 * 60 + 59).map(lambda m: m * 60),
)
def test_round_trip(unix_nano: int, offset: int) -> None:
    text = format_rfc3339(unix_nano, offset)
    if 1 <= int(text[:4]) <= 9999 and text[4] == "-":  # the years RFC 3339 can write
        assert parse_rfc3339(text) == (unix_nano, offset)


@given(st.datetimes(timezones=st.just(dt.UTC)), st.integers(0, 999))
def test_agrees_with_datetime_to_the_microsecond(when: dt.datetime, nanos: int) -> None:
    text = (
        f"{when.year:04d}-"
        + when.strftime("%m-%dT%H:%M:%S")
        + f".{when.microsecond:06d}{nanos:03d}Z"
    )
    unix_nano, _ = parse_rfc3339(text)
    delta = when - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    expected = (delta.days * 86_400 + delta.seconds) * 10**9 + delta.microseconds * 1000 + nanos
    assert unix_nano == expected
