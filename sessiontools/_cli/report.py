"""``sessiontools report``: the HTML report of sessions (``sessiontools._html``).

Registered on the command group by ``sessiontools._cli.main``; Jinja2 and genai-prices load
only when the command runs (pandas never: the report sums its tables without it).
"""

from __future__ import annotations

import functools
import os
from typing import Any

import click

from .._errors import OutOfRangeError
from .._log.reader import MAX_LINE_BYTES
from .messages import (
    _OUT_OF_MEMORY,
    EXIT_DAMAGED,
    EXIT_OK,
    _Failure,
    _progress,
    _reason,
    _say,
    _warnings_to_stderr,
)
from .output import _BeingRead, _check_out, _check_out_named, _Output, _Pages
from .params import _MAX_LINE_HELP, _TEXT, _Size, _stdin

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
@click.option(
    "--max-line-bytes", metavar="SIZE", type=_Size(), default=MAX_LINE_BYTES, help=_MAX_LINE_HELP
)
def report(
    logs: tuple[str, ...],
    out: str,
    prices: str | None,
    content: bool,
    title: str | None,
    max_line_bytes: int,
) -> int:
    """A self-contained HTML report of the sessions in LOG... (files, directories, globs, or -
    for standard input): a timeline of runs, model calls and tool calls, costs, cache, labels.
    A damaged log is reported and skipped; the others still count (exit status 1)."""
    from .._cost.kept import KeptLookups
    from .._html.read import REPORT_CUT_AT_KEPT, ReportReads, paused_gc
    from .._log.sources import LogStream, find_named_logs

    try:
        _check_out_named(out, "DIR/ for pages, or - for stdout")
        if title == "":
            raise click.BadParameter("must not be empty", param_hint="--title")
        if logs.count("-") > 1:
            raise click.BadParameter("- (standard input) is given more than once", param_hint="LOG")
        items: list[Any] = [
            LogStream(_stdin("LOG"), "<stdin>") if log == "-" else log for log in logs
        ]
        try:
            named = find_named_logs(items)  # the conversation ids sessiontools otel gives
        except FileNotFoundError as e:
            raise click.BadParameter(str(e), param_hint="LOG") from None
        found = [log for log, _ in named]
        # genai-prices' answers kept by an earlier run, if any (a few ms); a price file is
        # checked now (a usage error before any log is read); genai-prices' book is made
        # with the modules the report loads while the logs are read
        kept = KeptLookups.installed()
        book = _price_book(prices, kept) if prices is not None else None
        inputs = [os.fspath(log) for log in found if isinstance(log, os.PathLike)]
        if "-" in logs:
            inputs.append("-")
        as_pages = out != "-" and (out.endswith("/") or os.path.isdir(out))
        if as_pages:
            _check_directory(out)  # made once the site is written (_Pages)
        elif out != "-":
            _check_out(out, *inputs)
        try:
            # A pool of processes for many logs starts reading now (one log is read here, by
            # collect_report) ...
            reads = ReportReads(
                found,
                content=content,
                workers=None,
                max_line_bytes=max_line_bytes,
                conversation_ids=[cid for _, cid in named],
            )
        except ValueError as e:  # two logs that would take the same conversation id
            raise click.BadParameter(str(e), param_hint="LOG") from None
        with (
            reads,
            paused_gc(),  # what is read stays until it is written (see paused_gc)
            _warnings_to_stderr("report"),
            _progress(len(found)) as step,
        ):
            # ... while this process loads genai-prices (the price book asks it) and Jinja2,
            # which only this command needs. A large log read here is read in two
            # processes: this one loads them while the child reads the second part.
            reads.idle = functools.partial(_load_report_modules, book, kept)
            if kept is not None and kept.exists():  # genai-prices will not load: less to do
                reads.cut_at = REPORT_CUT_AT_KEPT
            reads.read_now()
            book = _load_report_modules(book, kept)
            from .._html.collect import collect_report
            from .._html.render import render_report_html, render_report_pages

            data = collect_report(reads, prices=book, skip_damaged=True, progress=step)
            book.keep()  # genai-prices' answers, for the next command
        for skipped in data.skipped:
            _say(f"sessiontools report: error: {skipped.problem}; skipped")
        if as_pages:
            _check_directory(out)  # still as it was before the logs were read
            pages = render_report_pages(data, title=title)
            being_read = _BeingRead(inputs)  # looked up once, not once a page
            for page in pages if os.path.isdir(out) else ():  # a new DIR holds nothing yet
                _check_out(os.path.join(out, page), being_read=being_read)
            # every page is written aside first, then all are put in place at once: a signal
            # or a failure before that leaves DIR as it was (_Pages)
            with _Pages(out) as site:
                for page, html in pages.items():
                    site.write(page, html)
                site.commit()
        else:
            with _Output(None if out == "-" else out) as target:
                target.write(render_report_html(data, title=title))
                target.commit()
    except _Failure as e:
        _say(f"sessiontools report: error: {e}")
        return e.exit_code
    except OutOfRangeError as e:  # token sums across logs past 2^63-1
        _say(f"sessiontools report: error: {e}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools report: error: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return EXIT_DAMAGED if data.skipped else EXIT_OK


def _load_report_modules(book: Any, kept: Any) -> Any:
    """Import what the report needs once the logs are read (numpy, Jinja2), load genai-prices
    and its data for ``book`` unless its answers were kept by an earlier run
    (``PriceBook.warm``), and compile the templates or load them as an earlier run kept them:
    work the report does anyway, done while other processes read. Returns ``book``, or when
    it is ``None`` a new ``PriceBook`` of genai-prices' with the ``kept`` answers."""
    from .._cost.price_book import PriceBook
    from .._html import collect, render  # noqa: F401

    if book is None:
        book = PriceBook(None, kept=kept)
    book.warm()
    render.load_templates(keep=True)
    return book


def _price_book(prices: str | None, kept: Any) -> Any:
    """``--prices`` as ``sessiontools cost`` takes it (a usage error when it cannot be used),
    with genai-prices' ``kept`` answers for the models it does not name."""
    from .._cost.price_book import PriceBook
    from .._errors import PriceFileError

    try:
        return PriceBook(prices, kept=kept)
    except (PriceFileError, OSError) as e:
        message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
        raise click.BadParameter(message, param_hint="--prices") from None


def _check_directory(path: str) -> None:
    """``--out DIR/``: an existing directory, or a new one in an existing directory (a usage
    error else). A new one is made only once the whole site is written (``_Pages``)."""
    if os.path.isdir(path):
        return
    if os.path.lexists(path.rstrip("/")):
        raise click.BadParameter(f"{path} is not a directory", param_hint="--out")
    parent = os.path.dirname(os.path.abspath(path.rstrip("/"))) or "."
    if not os.path.isdir(parent):
        raise click.BadParameter(f"no directory {parent}", param_hint="--out")
