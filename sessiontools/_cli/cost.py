"""The ``sessiontools`` command: the click group, its ``otel`` and ``cost`` commands, and
``main(args) -> int``; the last stage of the flow, a thin layer over the library.

A command parses its flags, checks what it can before anything is read (ids, paths, ``--out``)
and calls the library (``export_otlp_json``, ``cost_report``). What it says and its exit status
are in ``messages``, ``--out`` in ``output``, Ctrl-C and SIGTERM in ``signals``
(docs/traces.md, "Command"; docs/costs.md, "Command").

- Flags may come before or after the file.
- A file name (SESSION, PATH, ``--out``, ``--prices``) may be any bytes: it is used as it is
  and shown with U+FFFD for each byte that is not UTF-8; any other flag's value must be UTF-8
  (``_Text``: a usage error names the byte).
- ``cost`` imports pandas and genai-prices when it runs: ``otel`` never loads them.
"""

from __future__ import annotations

import os
from typing import Any

import click

from .._cost.names import FORMATS, GROUPS
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
from .output import _check_out, _Output
from .params import _MAX_LINE_HELP, _TEXT, _Size, _stdin, _time


@click.command("cost")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--by",
    "by",
    multiple=True,
    type=click.Choice(GROUPS),
    help=(
        "Group by this (several allowed, in order); default: model. `tool` groups the model "
        "calls tools made by tool; the agent's own turns are the group `-`."
    ),
)
@click.option(
    "--prices", metavar="FILE", help="Prices by model id (JSON or TOML); wins over genai-prices."
)
@click.option(
    "--since", metavar="TIME", type=_TEXT, help="Only calls at or after TIME (RFC 3339 or a date)."
)
@click.option(
    "--until", metavar="TIME", type=_TEXT, help="Only calls before TIME (RFC 3339 or a date)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="table",
    show_default=True,
    help="table for a person; csv and json for programs.",
)
@click.option("--out", metavar="FILE", help="Write to FILE (atomically) instead of stdout.")
@click.option(
    "--max-line-bytes", metavar="SIZE", type=_Size(), default=MAX_LINE_BYTES, help=_MAX_LINE_HELP
)
def cost(
    paths: tuple[str, ...],
    by: tuple[str, ...],
    prices: str | None,
    since: str | None,
    until: str | None,
    fmt: str,
    out: str | None,
    max_line_bytes: int,
) -> int:
    """What the model calls of the logs in PATH... cost: files, directories (their *.jsonl and
    *.jsonl.gz), globs, or - for standard input. A damaged or unreadable log is reported and
    skipped; the others still count (exit status 1)."""
    # pandas and genai-prices load only for this command (`otel` starts in a tenth of the time)
    from .._cost.price_book import PriceBook
    from .._cost.report import cost_report, render
    from .._errors import PriceFileError
    from .._log.sources import LogStream, find_logs

    try:
        since_at = _time(since, "--since")
        until_at = _time(until, "--until")
        if since_at is not None and until_at is not None and since_at >= until_at:
            raise click.UsageError(
                f"--since {since} is not before --until {until}: no call is made in between"
            )
        if paths.count("-") > 1:
            raise click.BadParameter(
                "- (standard input) is given more than once", param_hint="PATH"
            )
        if out is not None and "-" in paths:  # before anything is read from it
            _check_out(out, "-")
        items: list[Any] = [
            LogStream(_stdin("PATH"), "<stdin>") if path == "-" else path for path in paths
        ]
        try:
            logs = find_logs(items)
        except FileNotFoundError as e:
            raise click.BadParameter(str(e), param_hint="PATH") from None
        try:
            book = PriceBook(prices)
        except (PriceFileError, OSError) as e:
            message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
            raise click.BadParameter(message, param_hint="--prices") from None
        if out is not None:
            _check_out(out, *(os.fspath(log) for log in logs if isinstance(log, os.PathLike)))
        with _warnings_to_stderr("cost"), _progress(len(logs)) as step:
            report = cost_report(
                logs,
                by=by or ("model",),
                prices=book,
                since=since_at,
                until=until_at,
                progress=step,
                workers=None,  # a pool of processes for many logs (this process has no threads)
                max_line_bytes=max_line_bytes,
            )
        for skipped in report.tables.skipped:
            _say(f"sessiontools cost: error: {skipped.problem}; skipped")
        copies = report.tables.copies
        if copies:
            _say(
                f"sessiontools cost: note: {len(copies)} of {len(logs)} logs were copies of "
                "other logs given (each held only runs that another log holds as far or "
                "further): every run was counted once"
            )
        with _Output(out) as target:
            target.write(render(report, fmt).encode())
            target.commit()
    except _Failure as e:
        _say(f"sessiontools cost: error: {e}")
        return e.exit_code
    except OutOfRangeError as e:  # token sums across logs past 2^63-1
        _say(f"sessiontools cost: error: {e}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools cost: error: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return EXIT_DAMAGED if report.tables.skipped else EXIT_OK
