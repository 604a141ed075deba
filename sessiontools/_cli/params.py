"""The command line's parameters: text that must be UTF-8, a size in bytes, times, ids, the
session file or standard input.

- A file name (a log, ``--out``, ``--prices``) may be any bytes: it is used as it is and shown
  with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8 (``_Text``:
  a usage error names the byte).
"""

from __future__ import annotations

import math
import re
import sys
from typing import IO, Any

import click

from .._cost.names import GROUPS
from .._errors import InvalidIdError
from .._log.reader import MAX_LINE_BYTES, READ_BUFFER_BYTES
from .messages import (
    EXIT_DAMAGED,
    _Failure,
    _reason,
)

__all__ = [
    "_MAX_LINE_HELP",
    "_TEXT",
    "_Size",
    "_Text",
    "_id",
    "_open_session",
    "_stdin",
    "_time",
]


# A lone surrogate: how Python gives a byte of an argument that is not UTF-8. The patterns
# here are compiled when first used (``re``'s cache), not by every command's start-up.
_NOT_UTF8 = "[\ud800-\udfff]"


class _Text(click.ParamType):  # type: ignore[type-arg]
    """A flag's text, which must be UTF-8 (it goes into the output, or is parsed)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            bad = None if value.isascii() else re.search(_NOT_UTF8, value)
            if bad is not None:
                code = ord(bad.group())
                what = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "a surrogate"
                self.fail(
                    f"not valid UTF-8 ({what} at character {bad.start() + 1}); give it in UTF-8",
                    param,
                    ctx,
                )
        return value


_TEXT = _Text()


_SIZE_TEXT = r"([0-9]+)([KMG]?)"


class _Size(_Text):
    """A number of bytes: digits, with K, M or G for KiB, MiB or GiB."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        text = super().convert(value, param, ctx).strip()
        found = re.fullmatch(_SIZE_TEXT, text, re.IGNORECASE)
        if found is None or int(found.group(1)) == 0:
            self.fail(
                f"{text!r} is not a size: give a positive number of bytes, with K, M or G for "
                "KiB, MiB or GiB (256M)",
                param,
                ctx,
            )
        return int(found.group(1)) << (10 * " KMG".index(found.group(2).upper() or " "))


#: ``--scheduler none``: read (send) here, whatever ``DASK_SCHEDULER_ADDRESS`` says.
NO_SCHEDULER = "none"


def scheduler_hint() -> str:
    """How an error about ``--scheduler`` names it: with the environment variable its value
    came from, when it came from there (``DASK_SCHEDULER_ADDRESS``)."""
    ctx = click.get_current_context(silent=True)
    source = ctx.get_parameter_source("scheduler") if ctx is not None else None
    if source is click.core.ParameterSource.ENVIRONMENT:
        return "--scheduler (from DASK_SCHEDULER_ADDRESS)"
    return "--scheduler"


_MAX_LINE_HELP = (
    "The longest line read, in bytes (K, M, G: KiB, MiB, GiB); a longer one is an error. "
    f"Default {MAX_LINE_BYTES >> 20}M."
)


def _invalid(message: str, param: click.Parameter | None) -> click.BadParameter:
    """A usage error naming the flag as the command's own checks do (``--tz``, unquoted)."""
    hint = param.opts[0] if param is not None and param.opts else None
    return click.BadParameter(message, param_hint=hint)


class _Groups(_Text):
    """``cost --by``: one group, or several with commas (``day,model``), in order; each one
    of ``GROUPS``. Gives a tuple of names."""

    name = "groups"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        text = super().convert(value, param, ctx)
        names = tuple(name.strip() for name in text.split(","))
        for name in names:
            if name not in GROUPS:
                raise _invalid(f"{name!r} is not a group; choose from {', '.join(GROUPS)}", param)
        return names


class _Zone(_Text):
    """``cost --tz``: ``UTC``, ``log`` (each entry's own UTC offset) or an IANA name."""

    name = "zone"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        # only for `cost`: the zone database and the calendar load when a zone is given
        from .._cost.calendar import check_zone

        text = super().convert(value, param, ctx)
        try:
            return check_zone(text)
        except ValueError as e:
            raise _invalid(str(e), param) from None


#: A ``--max-cost``: US dollars, a plain decimal number (``5``, ``0.25``, ``1e-3``).
_USD_TEXT = r"(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?"


class _Usd(_Text):
    """``cost --max-cost``: an amount of US dollars, 0 or more. Gives the amount and how it
    was written (what the message about it shows)."""

    name = "usd"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, tuple):
            return value
        shown = super().convert(value, param, ctx).strip()
        if not re.fullmatch(_USD_TEXT, shown, re.ASCII) or not math.isfinite(float(shown)):
            raise _invalid(
                f"{value!r} is not an amount of US dollars (0 or more, such as 5 or 0.25)", param
            )
        return float(shown), shown


def _time(text: str | None, flag: str, zone: str = "UTC") -> int | None:
    """``--since`` / ``--until`` as UTC nanoseconds (without an offset: in ``zone``)."""
    from .._cost.calendar import parse_time

    if text is None:
        return None
    try:
        return parse_time(text, zone)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None


def _id(parse: Any, text: str | None, flag: str) -> bytes | None:
    if text is None:
        return None
    try:
        ident: bytes = parse(text)
    except InvalidIdError as e:
        raise click.BadParameter(str(e), param_hint=flag) from None
    return ident


def _stdin(param: str = "SESSION") -> IO[bytes]:
    """Standard input, for the argument ``-`` (a usage error when it is closed)."""
    if sys.stdin is None:
        raise click.BadParameter("stdin is closed", param_hint=param)
    return sys.stdin.buffer


def _open_session(session: str) -> tuple[IO[bytes], str]:
    """The session file, opened for reading. A path that names no file is a usage error (2);
    a file that exists and cannot be read is an unreadable log (1)."""
    if session == "-":
        return _stdin(), "<stdin>"
    try:
        return open(session, "rb", buffering=READ_BUFFER_BYTES), session
    except IsADirectoryError:
        raise click.BadParameter(f"{session} is a directory", param_hint="SESSION") from None
    except (FileNotFoundError, NotADirectoryError) as e:
        raise click.BadParameter(
            f"cannot open {session}: {_reason(e)}", param_hint="SESSION"
        ) from None
    except OSError as e:
        raise _Failure(f"{session}: cannot read: {_reason(e)}", EXIT_DAMAGED) from None
