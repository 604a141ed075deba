"""``sessiontools report``: the HTML report of sessions (``sessiontools._html``).

Registered on the command group by ``sessiontools._cli.main``; Jinja2, pandas and genai-prices
load only when the command runs.
"""

from __future__ import annotations

import os
from typing import Any

import click

from .messages import (
    EXIT_DAMAGED,
    EXIT_OK,
    _Failure,
    _progress,
    _reason,
    _say,
    _warnings_to_stderr,
)
from .output import _check_out, _Output
from .params import _TEXT

__all__ = ["report"]


@click.command("report")
@click.argument("logs", metavar="LOG...", nargs=-1, required=True)
@click.option(
    "--out",
    metavar="FILE.html",
    default="report.html",
    show_default=True,
    help="- for stdout; DIR/ (or an existing directory) for index.html and a page per session.",
)
@click.option(
    "--prices", metavar="FILE", help="Prices by model id (JSON or TOML); wins over genai-prices."
)
@click.option(
    "--content",
    is_flag=True,
    help="Show the conversation too (prompts, messages, tool inputs and results): a local "
    "debugging view. Off, the report holds what the traces hold.",
)
@click.option("--title", metavar="TEXT", type=_TEXT, help="The page's title.")
def report(
    logs: tuple[str, ...], out: str, prices: str | None, content: bool, title: str | None
) -> int:
    """A self-contained HTML report of the sessions in LOG... (files, directories, globs): a
    timeline of runs, model calls and tool calls, costs, cache, labels. A damaged log is
    reported and skipped; the others still count (exit status 1)."""
    # jinja2, pandas and genai-prices load only for this command
    from .._html.collect import collect_report
    from .._html.render import render_report_html, render_report_pages
    from .._log.sources import find_logs

    try:
        try:
            found = find_logs(logs)
        except FileNotFoundError as e:
            raise click.BadParameter(str(e), param_hint="LOG") from None
        book = _price_book(prices)
        inputs = [os.fspath(log) for log in found if isinstance(log, os.PathLike)]
        as_pages = out != "-" and (out.endswith("/") or os.path.isdir(out))
        if as_pages:
            _make_directory(out, check_only=True)  # made once the logs are read
        elif out != "-":
            _check_out(out, *inputs)
        with _warnings_to_stderr("report"), _progress(2 * len(found)) as step:
            data = collect_report(
                found,
                prices=book,
                content=content,
                skip_damaged=True,
                workers=None,  # a pool of processes for many logs, two for a large one
                progress=step,
            )
        for skipped in data.skipped:
            _say(f"sessiontools report: error: {skipped.problem}; skipped")
        if as_pages:
            _make_directory(out)
            pages = render_report_pages(data, title=title)
            for page in pages:
                _check_out(os.path.join(out, page), *inputs)
            for page, html in pages.items():
                with _Output(os.path.join(out, page)) as target:
                    target.write(html)
                    target.commit()
        else:
            with _Output(None if out == "-" else out) as target:
                target.write(render_report_html(data, title=title))
                target.commit()
    except _Failure as e:
        _say(f"sessiontools report: error: {e}")
        return e.exit_code
    return EXIT_DAMAGED if data.skipped else EXIT_OK


def _price_book(prices: str | None) -> Any:
    """``--prices`` as ``sessiontools cost`` takes it (a usage error when it cannot be used)."""
    from .._cost.price_book import PriceBook
    from .._errors import PriceFileError

    try:
        return PriceBook(prices)
    except (PriceFileError, OSError) as e:
        message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
        raise click.BadParameter(message, param_hint="--prices") from None


def _make_directory(path: str, *, check_only: bool = False) -> None:
    """``--out DIR/``: an existing directory, or a new one in an existing directory (made unless
    ``check_only``; a usage error when it cannot be)."""
    if os.path.isdir(path):
        return
    if check_only:
        if os.path.lexists(path.rstrip("/")):
            raise click.BadParameter(f"{path} is not a directory", param_hint="--out")
        parent = os.path.dirname(os.path.abspath(path.rstrip("/"))) or "."
        if not os.path.isdir(parent):
            raise click.BadParameter(f"no directory {parent}", param_hint="--out")
        return
    try:
        os.mkdir(path)
    except FileExistsError:
        raise click.BadParameter(f"{path} is not a directory", param_hint="--out") from None
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path.rstrip("/"))) or "."
        raise click.BadParameter(f"no directory {parent}", param_hint="--out") from None
    except OSError as e:
        raise _Failure(f"cannot make {path}: {_reason(e)}", EXIT_DAMAGED) from None
