"""``sessiontools cost``: what the model calls of many logs cost, grouped (by session, run,
day, week, month, model, priced_as, provider, tool, label; in a time zone) and written as a
table, CSV, JSON or Markdown (docs/costs.md, "Command").

- The flags are checked before anything is read (``params``: ``--by``, ``--tz``,
  ``--max-cost``, ``--since``/``--until``).
- Only what reading needs loads before the logs are read; numpy (and genai-prices, without a
  price file) load while other processes read, tabulate only for ``table`` and ``markdown``,
  pandas never: the groups come from the columns read (``sessiontools._cost.report.summarize``).
- Exit status: 0 done; 1 a damaged or unreadable log (skipped, the others still count); 2 a
  usage error; 3 ``--max-cost``: the total is above the limit, or cannot be known to be at
  most it because calls are unpriced (the report is still written; 1 wins over 3).
"""

from __future__ import annotations

import math
import os
import sys
from decimal import Decimal
from typing import IO, TYPE_CHECKING, Any

import click

from .._cost.names import FORMATS, GROUPS
from .._errors import OutOfRangeError
from .._log.reader import MAX_LINE_BYTES
from .messages import (
    _OUT_OF_MEMORY,
    EXIT_DAMAGED,
    EXIT_OK,
    EXIT_OVER_BUDGET,
    _Failure,
    _progress,
    _reason,
    _say,
    _warnings_to_stderr,
)
from .output import _check_out, _check_out_named, _Output
from .params import _MAX_LINE_HELP, _TEXT, NO_SCHEDULER, _Groups, _Size, _stdin, _time, _Usd, _Zone

if TYPE_CHECKING:
    from .._cost.report import Summary


@click.command("cost")
@click.argument("paths", metavar="PATH...", nargs=-1, required=True)
@click.option(
    "--by",
    "by",
    multiple=True,
    type=_Groups(),
    metavar="|".join(GROUPS),
    help=(
        "Group by this; several in order (--by day,model, or --by day --by model); default: "
        "model. `tool` groups the model calls tools made by tool (the agent's own turns are "
        "the group `-`); `label` counts a call under each label the session held then; "
        "`priced_as` by the model id the price came from."
    ),
)
@click.option(
    "--tz",
    "tz",
    type=_Zone(),
    default="UTC",
    show_default=True,
    metavar="ZONE",
    help=(
        "The time zone of days, weeks and months, and of --since/--until without an offset: "
        "an IANA name (Europe/Berlin), UTC, or log (each entry's own UTC offset)."
    ),
)
@click.option(
    "--prices",
    metavar="FILE",
    help=(
        "Prices by model id (JSON or TOML), in US dollars per million tokens; wins over "
        "genai-prices."
    ),
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
@click.option(
    "--max-cost",
    "max_cost",
    type=_Usd(),
    metavar="USD",
    help=(
        "Exit 3 when the total cost is above USD (equal passes), or cannot be known to be "
        "at most USD because calls are unpriced; the report is still written."
    ),
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    envvar="DASK_SCHEDULER_ADDRESS",
    type=_TEXT,
    help=(
        "Read on a Dask cluster: the scheduler's address (tcp://HOST:8786), or local to start "
        "one here with a worker per core, or none to read here (whatever "
        "$DASK_SCHEDULER_ADDRESS says); default: $DASK_SCHEDULER_ADDRESS. PATHs may be "
        "fsspec URLs (s3://...). The output is the same. Needs sessiontools[dask]."
    ),
)
def cost(
    paths: tuple[str, ...],
    by: tuple[tuple[str, ...], ...],
    tz: str,
    prices: str | None,
    since: str | None,
    until: str | None,
    fmt: str,
    out: str | None,
    max_line_bytes: int,
    max_cost: tuple[float, str] | None,
    scheduler: str | None = None,
) -> int:
    """What the model calls of the logs in PATH... cost: files, directories (their *.jsonl and
    *.jsonl.gz), globs, or - for standard input. A damaged or unreadable log is reported and
    skipped; the others still count (exit status 1). With --max-cost, exit status 3 when the
    total is above the limit or cannot be known to be under it."""
    # Only what reading needs loads before the logs are read: numpy, and genai-prices (when no
    # price file is given; else when a model needs its price), load while other processes
    # read (`otel` starts in a tenth of the time); pandas not at all. genai-prices' answers
    # kept by an earlier run spare loading it at all (sessiontools._cost.kept).
    from .._cost.kept import KeptLookups
    from .._cost.price_book import PriceBook
    from .._cost.rows import LogReads, _no_cycles
    from .._errors import PriceFileError
    from .._log.sources import LogStream, find_logs

    groups = tuple(name for names in by for name in names) or ("model",)
    try:
        _check_out_named(out)
        since_at = _time(since, "--since", tz)
        until_at = _time(until, "--until", tz)
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
        if scheduler == NO_SCHEDULER:
            scheduler = None
        if scheduler is not None:
            return _on_cluster(
                scheduler, paths, groups, prices, since_at, until_at, tz, fmt, out,
                max_line_bytes, max_cost,
            )  # fmt: skip
        items: list[Any] = [
            LogStream(_stdin("PATH"), "<stdin>") if path == "-" else path for path in paths
        ]
        try:
            logs = find_logs(items)
        except FileNotFoundError as e:
            raise click.BadParameter(str(e), param_hint="PATH") from None
        try:
            book = PriceBook(prices, kept=KeptLookups.installed())
        except (PriceFileError, OSError) as e:
            message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
            raise click.BadParameter(message, param_hint="--prices") from None
        if out is not None:
            _check_out(out, *(os.fspath(log) for log in logs if isinstance(log, os.PathLike)))
        # the pool of processes starts now, for many logs (this process has no threads)
        reads = LogReads(logs, workers=None, max_line_bytes=max_line_bytes)
        # the command's own process: the cyclic garbage collector waits while it reads
        with reads, _no_cycles(), _warnings_to_stderr("cost"), _progress(len(logs)) as step:
            from .._cost.report import summarize  # numpy, while the pool reads

            reads.idle = book.warm  # while other processes read: genai-prices' data
            report = summarize(
                reads,
                by=groups,
                prices=book,
                since=since_at,
                until=until_at,
                tz=tz,
                progress=step,
            )
        book.keep()  # genai-prices' answers, for the next command
        _write(report, len(logs), fmt, out)
    except _Failure as e:
        _say(f"sessiontools cost: error: {e}")
        return e.exit_code
    except OutOfRangeError as e:  # token sums across logs past 2^63-1
        _say(f"sessiontools cost: error: {e}")
        return EXIT_DAMAGED
    except MemoryError:
        _say(f"sessiontools cost: error: {_OUT_OF_MEMORY}")
        return EXIT_DAMAGED
    return _exit_status(report, max_cost)


def _write(report: Summary, logs: int, fmt: str, out: str | None) -> None:
    """The report's notes on stderr (the logs skipped, the copies) and the report itself."""
    from .._cost.report import render

    for skipped in report.skipped:
        _say(f"sessiontools cost: error: {skipped.problem}; skipped")
    copies = report.copies
    if copies:
        _say(
            f"sessiontools cost: note: {len(copies)} of {logs} logs were copies of "
            "other logs given (each held only runs that another log holds as far or "
            "further): every run was counted once"
        )
    colour = out is None and fmt == "table" and _colour(sys.stdout)
    with _Output(out, what="output") as target:
        target.write(render(report, fmt, colour=colour).encode())
        target.commit()


def _exit_status(report: Summary, max_cost: tuple[float, str] | None) -> int:
    over = None
    if max_cost is not None:
        over = _over_budget(report.groups.total, report.groups.exact_cost_usd(), *max_cost)
    if over is not None:
        _say(f"sessiontools cost: error: {over}")
    if report.skipped:
        return EXIT_DAMAGED  # a damaged log says more than a budget
    return EXIT_OK if over is None else EXIT_OVER_BUDGET


def _over_budget(
    total: dict[str, Any], exact: Decimal | None, limit: float, shown: str
) -> str | None:
    """Why the total fails ``--max-cost``, in one line; ``None`` when it passes: the priced
    total is at most the limit and nothing is unpriced. The total is compared exactly
    (``exact``, the sum of the calls' exact costs, with the limit as written): a total equal
    to the limit passes, though its float sum may be a hair above it."""
    from .._cost.build import usd_text

    cost = float(total["cost_usd"])
    above = cost > limit if exact is None else exact > Decimal(shown)
    models = _models(total["unpriced_models"])
    if total["lower_bound"]:
        if math.isnan(cost):
            return (
                f"no call could be priced ({models}), so the total cost cannot be known to be "
                f"at most the limit of ${shown} (--max-cost); give their prices with --prices"
            )
        if above:
            return (
                f"the total cost is at least ${usd_text(cost)}, above the limit of ${shown} "
                f"(--max-cost); calls of {models} are unpriced"
            )
        return (
            f"the total cost is at least ${usd_text(cost)}, and calls of {models} could not "
            f"be priced, so it cannot be known to be at most the limit of ${shown} "
            "(--max-cost); give their prices with --prices"
        )
    if above:
        return f"the total cost ${usd_text(cost)} is above the limit of ${shown} (--max-cost)"
    return None


#: How many unpriced models the --max-cost line names.
_NAMED_MODELS = 5


def _models(models: tuple[str, ...]) -> str:
    """The unpriced models as the --max-cost line names them: the first few, each cut as the
    table cuts a name (a model id can be megabytes long), and how many more."""
    from .._cost.report import _fit

    if not models:
        return "(no model named)"
    named = ", ".join(_fit(model) for model in models[:_NAMED_MODELS])
    more = len(models) - _NAMED_MODELS
    return named + (f" and {more} more" if more > 0 else "")


def _colour(stream: IO[str] | None) -> bool:
    """Colour for a terminal that takes it: not with ``NO_COLOR`` set to anything but the
    empty string (no-color.org: an empty ``NO_COLOR`` does not count), or ``TERM=dumb``."""
    if stream is None or os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def _on_cluster(
    scheduler: str,
    paths: tuple[str, ...],
    groups: tuple[str, ...],
    prices: str | None,
    since: int | None,
    until: int | None,
    tz: str,
    fmt: str,
    out: str | None,
    max_line_bytes: int,
    max_cost: tuple[float, str] | None,
) -> int:
    """``--scheduler``: the same report, its logs read on a Dask cluster
    (``sessiontools._dask.costs.run_summary``). Exit status as without it; a scheduler address
    Dask cannot read is a usage error (2), a scheduler that does not answer or a cluster that
    fails while reading is 1."""
    import importlib.util

    from .._cost.price_book import PriceBook
    from .._errors import PriceFileError

    if "-" in paths:
        raise click.BadParameter(
            "- (standard input) cannot be read on a cluster: give files, directories, globs or "
            "URLs the workers can read, or leave out --scheduler",
            param_hint="PATH",
        )
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        raise click.BadParameter(
            "reading on a Dask cluster needs dask and distributed: pip install "
            "'sessiontools[dask]' (or unset DASK_SCHEDULER_ADDRESS)",
            param_hint="--scheduler",
        )
    from .._dask.cluster import Connection, SchedulerError
    from .._dask.costs import run_summary
    from .._dask.sources import find_sources
    from .params import scheduler_hint
    from .signals import stoppable

    try:
        sources = find_sources(paths)
    except FileNotFoundError as e:
        raise click.BadParameter(str(e), param_hint="PATH") from None
    except (ImportError, ValueError) as e:  # a URL of a protocol fsspec cannot read here
        raise click.BadParameter(_one_line_error(e), param_hint="PATH") from None
    try:
        book = PriceBook(prices)
    except (PriceFileError, OSError) as e:
        message = str(e) if isinstance(e, PriceFileError) else f"{prices}: {_reason(e)}"
        raise click.BadParameter(message, param_hint="--prices") from None
    if out is not None:
        _check_out(out, *(s.url for s in sources if "://" not in s.url))
    try:
        connection = Connection(scheduler)
        with _warnings_to_stderr("cost"):
            # in another thread: Ctrl-C and SIGTERM close the connection from this one
            report = stoppable(
                lambda: run_summary(
                    connection,
                    sources,
                    by=groups,
                    prices=book,
                    since=since,
                    until=until,
                    tz=tz,
                    max_line_bytes=max_line_bytes,
                ),
                connection.stop,
            )
    except SchedulerError as e:
        if e.usage and e.setting:
            raise click.UsageError(str(e)) from None
        if e.usage:
            raise click.BadParameter(str(e), param_hint=scheduler_hint()) from None
        _say(f"sessiontools cost: error: {e}")
        return EXIT_DAMAGED
    except FileNotFoundError as e:  # the logs changed since they were listed
        raise click.BadParameter(str(e), param_hint="PATH") from None
    except OutOfRangeError as e:
        _say(f"sessiontools cost: error: {e}")
        return EXIT_DAMAGED
    _write(report, len(sources), fmt, out)
    return _exit_status(report, max_cost)


def _one_line_error(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__
