"""The command line's parameters: text that must be UTF-8, a size in bytes, standard input."""

from __future__ import annotations

import re
import sys
from typing import IO, Any

import click

from .._log.reader import MAX_LINE_BYTES

__all__ = ["_MAX_LINE_HELP", "_TEXT", "_Size", "_Text", "_stdin"]


# A lone surrogate: how Python gives a byte of an argument that is not UTF-8.
_NOT_UTF8 = re.compile("[\ud800-\udfff]")


class _Text(click.ParamType):  # type: ignore[type-arg]
    """A flag's text, which must be UTF-8 (it goes into the output, or is parsed)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            bad = _NOT_UTF8.search(value)
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


_SIZE_TEXT = re.compile(r"([0-9]+)([KMG]?)", re.IGNORECASE)


class _Size(_Text):
    """A number of bytes: digits, with K, M or G for KiB, MiB or GiB."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, int):
            return value
        text = super().convert(value, param, ctx).strip()
        found = _SIZE_TEXT.fullmatch(text)
        if found is None or int(found.group(1)) == 0:
            self.fail(
                f"{text!r} is not a size: give a positive number of bytes, with K, M or G for "
                "KiB, MiB or GiB (256M)",
                param,
                ctx,
            )
        return int(found.group(1)) << (10 * " KMG".index(found.group(2).upper() or " "))


_MAX_LINE_HELP = (
    "The longest line read, in bytes (K, M, G: KiB, MiB, GiB); a longer one is an error. "
    f"Default {MAX_LINE_BYTES >> 20}M."
)


def _stdin(param: str = "SESSION") -> IO[bytes]:
    """Standard input, for the argument ``-`` (a usage error when it is closed)."""
    if sys.stdin is None:
        raise click.BadParameter("stdin is closed", param_hint=param)
    return sys.stdin.buffer
