"""The report as HTML: Jinja2 templates (autoescaped), one self-contained file or pages.

The page loads nothing: its style and script are inline, allowed by a Content-Security-Policy
that starts from ``default-src 'none'`` and names their SHA-256 (computed here, from the exact
text written). The runs' drawings and each span's facts travel in one JSON block
(``st-facts``): the script draws each run's timeline from it (a mark per span, with its kind
and id) and reads a mark's facts when it is hovered. Strings from the log only ever reach the
page as escaped text: Jinja2 escapes them in elements and attributes, and the JSON block has
``<``, ``>`` and ``&`` written as ``\\u003c``, ``\\u003e`` and ``\\u0026``, so it cannot end
its element (nor open a comment).

A report of many sessions in one file holds their sections, with the facts, packed (``pack``:
deflated, in base64, in an ``st-packed`` element): the page's script unpacks them with the
browser's ``DecompressionStream`` and puts them where their placeholder (``st-sessions``) was,
then draws the timelines. What it unpacks is the HTML this module wrote, escaped as above. A
page of one session (a single log, or a page of ``--out DIR/``) holds them as they are.

Characters that would not show, or would change how the text around them shows, are shown
escaped, as ``printable`` shows them on a terminal: control characters (``\\x1b``,
``\\x00``, ``\\n``...), line and paragraph separators (``\\u2028``) and the marks and
overrides that reorder text (``\\u202e``), in every value a template writes (the
environment's ``finalize``) and every string of the facts. The conversation (``--content``)
keeps its lines and tabs (``multiline``).
"""

from __future__ import annotations

import base64
import contextlib
import datetime as dt
import functools
import hashlib
import math
import os
import re
import stat
import types
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeAlias

import jinja2
import orjson
from markupsafe import Markup, escape

from .._cost.build import PriceSource
from .._cost.rows import Logs
from .._log.reader import MAX_LINE_BYTES, printable
from .._version import __version__
from . import svg
from .collect import ReportData, RunView, SessionView, collect_report, paused_gc
from .costs import Cost, Counts, Totals
from .facts import FactsTable

__all__ = ["INDEX", "page_name", "render_report_html", "render_report_pages", "report_html"]

#: The overview's file name when the report is written as pages.
INDEX = "index.html"

_NONE = "\u2013"  # an en dash: nothing to show
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: What the facts' JSON must not hold as it is, inside a script element (they can only be in
#: its strings, where these escapes mean the same).
_UNSAFE_IN_SCRIPT = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"))


def _clean(text: str) -> str:
    """``text`` as the page shows it (``printable``): control characters, separators and
    text-reordering marks escaped (``\\x1b``, ``\\u202e``), a lone surrogate (from an escape
    such as ``\\ud800`` in a log) as U+FFFD."""
    return printable(text)


def _shown(value: Any) -> Any:
    """What a template writes for ``value`` (the environment's ``finalize``, before it is
    escaped): text from a log as ``_clean`` shows it; the page's own markup (``Markup``) and
    numbers as they are."""
    if type(value) is str:
        return printable(value)
    return value


_LINE_BREAKS = re.compile("([\n\t])")


def multiline(text: str) -> Markup:
    """Text of the conversation in a ``pre`` block, escaped as HTML: as ``_clean`` shows it,
    but for its line breaks and tabs, kept (a ``\\r`` before a line break shows)."""
    return escape(
        "".join(
            part if part in ("\n", "\t") else printable(part) for part in _LINE_BREAKS.split(text)
        )
    )


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


@functools.cache
def _assets() -> tuple[str, str]:
    folder = resources.files("sessiontools._html") / "templates"
    css = (folder / "report.css").read_text(encoding="utf-8")
    js = (folder / "report.js").read_text(encoding="utf-8")
    return css, js


def content_security_policy(css: str, js: str) -> str:
    """Nothing but the page's own inline style and script, by hash: no request of any kind,
    no other script, no inline event handler, no form, no ``<base>``."""
    return (
        f"default-src 'none'; script-src '{_sha256(js)}'; style-src '{_sha256(css)}'; "
        "base-uri 'none'; form-action 'none'"
    )


# Filters: numbers for a person.


def money(cost: Cost | None) -> str:
    """``$0.0123``; ``at least $0.0123`` with unpriced calls; ``unknown`` when nothing priced."""
    if cost is None:
        return _NONE
    if not cost.known:
        return "unknown (unpriced)"
    text = usd(cost.usd)
    return f"at least {text}" if cost.lower_bound else text


def usd(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "unknown"
    if value == 0:
        return "$0"
    size = abs(value)
    digits = 2 if size >= 1 else 4 if size >= 0.01 else 6
    return f"{'-' if value < 0 else ''}${size:,.{digits}f}"


def axis_usd(value: float) -> str:
    return "$0" if value == 0 else f"${value:.6g}"


def num(value: int) -> str:
    return f"{value:,}"


def rate(value: float) -> str:
    return _NONE if math.isnan(value) else f"{value * 100:.1f}%"


def utc(time_unix_nano: int | None) -> str:
    """``2026-10-19 07:12:00.123 UTC``."""
    if time_unix_nano is None:
        return _NONE
    seconds, ns = divmod(time_unix_nano, 1_000_000_000)
    at = dt.datetime.fromtimestamp(seconds, dt.UTC)
    return f"{at:%Y-%m-%d %H:%M:%S}.{ns // 1_000_000:03d}"


@functools.cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("sessiontools._html", "templates"),
        autoescape=True,  # every template, whatever its name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_shown,
    )
    env.filters.update(
        multiline=multiline,
        money=money,
        usd=usd,
        axis_usd=axis_usd,
        num=num,
        rate=rate,
        utc=utc,
        duration=svg.format_duration,
    )
    return env


#: The templates a page is rendered from.
_TEMPLATES = ("report.html.j2", "session.html.j2", "sessions.html.j2")


def load_templates(*, keep: bool = False) -> None:
    """Compile the templates and read the style and script now (Jinja2 keeps them), for a
    caller with time to spare: ``sessiontools report`` while other processes read the logs.
    Changes nothing but when it is done.

    ``keep``: keep the compiled templates in sessiontools' cache directory
    (``sessiontools._cachedir``) for the next process, and take them from there when they
    were kept before (Jinja2's ``FileSystemBytecodeCache``, which compiles a template again
    when its source changed): 60 ms of compiling become 1 ms. Only before the first template
    is loaded in this process."""
    _assets()
    env = _environment()
    if keep and env.bytecode_cache is None and not env.cache:
        directory = _templates_kept(env)
        if directory is not None:
            env.bytecode_cache = _KeptTemplates(directory)
    for name in _TEMPLATES:
        env.get_template(name)


class _KeptTemplates(jinja2.FileSystemBytecodeCache):
    """Jinja2's ``FileSystemBytecodeCache`` for a cache that may be damaged or unwritable:
    a compiled template that cannot be read (cut short, garbage, not a regular file: a FIFO
    is never waited on) is compiled again, and one that cannot be written is not kept, where
    Jinja2 would raise or wait."""

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        try:
            fd = os.open(
                self._get_cache_filename(bucket), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
            )
        except OSError:
            return
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a directory cannot even be fdopen'ed
            os.close(fd)
            return
        with os.fdopen(fd, "rb") as f:
            try:
                bucket.load_bytecode(f)
            except Exception:  # pickle and marshal raise many kinds on damaged data
                bucket.reset()
        code: object = bucket.code  # what marshal made of the file: maybe not code
        if code is not None and not isinstance(code, types.CodeType):
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        from .._cachedir import clear_odd, sweep

        with contextlib.suppress(OSError):
            clear_odd(self._get_cache_filename(bucket))  # a FIFO, a link, an empty directory
            super().dump_bytecode(bucket)
            sweep(self.directory, "__jinja2_")  # what a killed command left


def _templates_kept(env: jinja2.Environment) -> str | None:
    """The directory of the compiled templates of this Jinja2, these environment settings and
    this sessiontools: the compiled code depends on all three, and Jinja2 checks only the
    source. ``None``: the cache is off or cannot be used."""
    from .._cachedir import cache_dir

    settings = repr(
        (
            jinja2.__version__,
            __version__,
            env.autoescape,
            env.trim_blocks,
            env.lstrip_blocks,
            env.keep_trailing_newline,
            env.undefined.__name__,
            env.finalize is None,
            sorted(env.filters),
        )
    )
    return cache_dir("templates-" + hashlib.sha256(settings.encode()).hexdigest()[:16])


class _Facts:
    """Every run's drawing and every mark's facts, as the compact JSON ``report.js`` reads and
    draws the timelines from.

    ``{"k": [shape, ...], "s": [string, ...], "f": [record, ...], "r": [run, ...]}``: every
    string once, in
    ``s``; records refer to them by index. A shape lists a span's attribute keys in their (the
    export's) order, each as a type letter, ``:`` and the key; spans of one kind share a few
    shapes. Type letters: ``s`` a string (its value: a string index), ``i`` an integer, ``b``
    a bool (0 or 1), ``a`` an array of strings (a list of string indexes); and three whose
    value the page knows without a copy in each record: ``o`` the operation name
    (``gen_ai.operation.name``: the mark's ``data-span-kind``), ``c`` the conversation id (its
    run's, a string index), and ``!:status``, first, for a span whose status is ERROR (its
    value: the status message's string index).

    A run is ``[first, length, origin, conversation, height, index, rows, ids]``: its first
    record's index (its records follow, up to the next run's first), its time axis' length
    and start after the run's (ns), its conversation id (a string index), the drawing's
    height (px), the run's number, its rows as ``lane, y, lane, y...`` (``svg.Timeline``),
    and its records' span ids, 8 bytes each, in their order, in one base64 string (a mark's
    ``data-span-id`` is its id in hex; 11 bytes a span rather than 19 as hex strings).

    A record is ``[shape, name, start, duration, cost, place, value, ...]``: the
    span's name (a string index), its start (ns after its run started) and duration (ns), to
    the nanosecond (the script draws the mark from them too), its cost (``null``: none; a
    number of US dollars, rounded as the page shows it; ``[number]``: at least that, some of
    its model calls unpriced; ``"?"``: unknown, none could be priced), its place (its row's
    number in its run times 16, plus the
    number of its classes in ``facts.MARK_CLASSES``; the row's lane gives the mark's
    ``data-span-kind``), then a value for each key of its shape that has one.

    Each run's records are made where its log was read (``read.RunDraft``), their strings
    and shapes indexes in that process's ``FactsTable``: here they take the page's (a table's
    first run maps its strings and shapes, in the order of their first use, to the page's),
    and their costs.
    """

    def __init__(self) -> None:
        self.shapes: dict[tuple[str, ...], int] = {}
        self.strings: dict[str, int] = {}
        self.records: list[list[Any]] = []
        self.runs: list[list[Any]] = []
        self._tables: dict[FactsTable, _Mapping] = {}

    def _s(self, text: str) -> int:
        strings = self.strings
        index = strings.get(text)
        if index is None:
            index = strings[text] = len(strings)
        return index

    def add(self, session: SessionView) -> None:
        """A session's runs: each run's drawing (``r``), and its marks' facts in the drawing's
        order (the page's: ``report.js`` makes the marks of the records, in their order)."""
        c = self._s(session.conversation_id)
        for run in session.runs:
            lanes, height, origin, length = run.drawing
            self.runs.append(
                [
                    len(self.records),
                    length,
                    origin,
                    c,
                    height,
                    run.index,
                    lanes,
                    base64.b64encode(run.ids).decode(),
                ]
            )
            self._run(run)

    def _mapping(self, table: FactsTable) -> _Mapping:
        """A table's strings and shapes as the page's, made with its first run (its runs
        follow each other in the page); ``None`` where they are the same."""
        s, shapes = self._s, self.shapes
        strings = table.strings
        remap = [0] * len(strings)
        for i in table.first_use():
            remap[i] = s(strings[i])
        shape_map = []
        for shape in table.shapes:
            index = shapes.get(shape)
            if index is None:
                index = shapes[shape] = len(shapes)
            shape_map.append(index)
        if remap == list(range(len(remap))) and shape_map == list(range(len(shape_map))):
            return None
        spots = [table.spots(i) for i in range(len(table.shapes))]
        return remap, shape_map, spots

    def _run(self, run: RunView) -> None:
        # the hot loop of the render (once per span)
        table = run.table
        if table in self._tables:
            mapping = self._tables[table]
        else:
            mapping = self._tables[table] = self._mapping(table)
        add = self.records.append
        if mapping is None:
            for record, cost in zip(run.records, run.mark_costs, strict=True):
                record = record.copy()
                record[4] = _cost_fact(cost)
                add(record)
            return
        remap, shape_map, spots = mapping
        for record, cost in zip(run.records, run.mark_costs, strict=True):
            record = record.copy()
            shape = record[0]
            record[0] = shape_map[shape]
            record[1] = remap[record[1]]
            record[4] = _cost_fact(cost)
            for position, many in spots[shape]:
                if many:
                    record[position] = [remap[i] for i in record[position]]
                else:
                    record[position] = remap[record[position]]
            add(record)

    def json(self) -> Markup:
        data = {
            "k": [list(shape) for shape in self.shapes],
            "s": [_clean(text) for text in self.strings],
            "f": self.records,
            "r": self.runs,
        }
        text = orjson.dumps(data)
        for unsafe, escaped in _UNSAFE_IN_SCRIPT:
            text = text.replace(unsafe, escaped)
        return Markup(text.decode())  # JSON with <, > and & escaped: it cannot end the element


#: A table's strings and shapes as the page's (``_Facts._mapping``): each string's index, each
#: shape's, and where each shape's records hold strings; ``None`` where they are the same.
_Mapping: TypeAlias = tuple[list[int], list[int], list[list[tuple[int, bool]]]] | None


def _cost_fact(cost: Cost | None) -> Any:
    """A mark's cost in the facts (``_Facts``): rounded as ``usd`` shows it, which is what the
    page shows (report.js, ``money``)."""
    if cost is None:
        return None
    if not cost.known:
        return "?"
    size = abs(cost.usd)
    shown = round(cost.usd, 2 if size >= 1 else 4 if size >= 0.01 else 6) if size else 0
    return [shown] if cost.lower_bound else shown


@dataclass(frozen=True, slots=True)
class _Overview:
    sessions: tuple[SessionView, ...]
    counts: Counts
    totals: Totals
    chart: svg.Chart | None
    day_model_costs: tuple[tuple[str, str, Cost], ...]
    costliest_sessions: tuple[SessionView, ...]
    costliest_runs: tuple[tuple[SessionView, RunView], ...]


def _overview(data: ReportData) -> _Overview:
    sessions = data.sessions
    by_number = {s.number: s for s in sessions}
    costliest = sorted(
        (s for s in sessions if s.totals.cost.usd > 0),
        key=lambda s: (-s.totals.cost.usd, s.number),
    )
    runs = []
    for number, index in data.costliest_runs:
        session = by_number[number]
        runs.append((session, next(r for r in session.runs if r.index == index)))
    return _Overview(
        sessions=sessions,
        counts=data.counts,
        totals=data.totals,
        chart=svg.cost_chart(data.day_model_costs),
        day_model_costs=data.day_model_costs,
        costliest_sessions=tuple(costliest[:10]),
        costliest_runs=tuple(runs),
    )


def _page(
    data: ReportData,
    title: str,
    sessions: Sequence[SessionView],
    overview: _Overview | None,
    href: Callable[..., str],
    back: str | None,
) -> bytes:
    with paused_gc():
        return _render(data, title, sessions, overview, href, back)


def _render(
    data: ReportData,
    title: str,
    sessions: Sequence[SessionView],
    overview: _Overview | None,
    href: Callable[..., str],
    back: str | None,
) -> bytes:
    css, js = _assets()
    facts = _Facts()
    for session in sessions:
        facts.add(session)
    env = _environment()
    context = dict(
        title=title,
        csp=content_security_policy(css, js),
        css=Markup(css),  # the package's own file, hashed as written
        js=Markup(js),  # the package's own file, hashed as written
        version=__version__,
        logs=len(data.sessions) + len(data.skipped),
        content=data.content,
        skipped=data.skipped,
        overview=overview,
        sessions=sessions,
        facts=facts.json(),
        href=href,
        back=back,
        legend=bool(sessions),
    )
    packed = None
    if overview is not None and sessions:
        packed = pack(_utf8(env.get_template("sessions.html.j2").render(context)))
    return _utf8(env.get_template("report.html.j2").render(context, packed=packed))


def _utf8(html: str) -> bytes:
    try:
        return html.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a log
        return _LONE_SURROGATE.sub("\ufffd", html).encode("utf-8")


#: zlib's level for the packed sections. 1,000 small logs' sections (4.93 MB of HTML): level 1
#: packs them to 2.00 MB of base64 in 0.04 s, 6 (zlib's default) to 1.67 MB in 0.15 s, 9 to
#: 1.63 MB in 0.28 s (CPU time); 1 keeps the report under 4 % of the logs and the time off the
#: command's.
_PACK_LEVEL = 1


def pack(html: bytes) -> Markup:
    """The sessions' sections of a report of many sessions in one file, as the page holds them
    (``st-packed``): zlib's deflate (RFC 1950, what the browser's ``DecompressionStream("deflate")``
    inflates) in base64, which holds no character that could end its element. The page's
    script unpacks them in place (report.js); ``unpack`` does what it does.

    The sections of sessions that share their tables' headings, attribute names, models and
    tools pack into about a tenth of their size: a report of 1,000 small logs was 8.9 % of
    the logs' size with them as HTML (issue 13's goal: under 5 %)."""
    return Markup(base64.b64encode(zlib.compress(html, _PACK_LEVEL)).decode("ascii"))


def unpack(packed: str) -> str:
    """The HTML ``pack`` packed (for tests and tools that read a report's file)."""
    return zlib.decompress(base64.b64decode(packed, validate=True)).decode("utf-8")


def _title(data: ReportData, title: str | None) -> str:
    if title is not None:
        return title
    if len(data.sessions) == 1 and not data.skipped:
        return f"sessiontools report: {data.sessions[0].name}"
    return f"sessiontools report: {len(data.sessions)} sessions"


def render_report_html(data: ReportData, *, title: str | None = None) -> bytes:
    """One self-contained HTML file: with several sessions (or skipped logs), an overview
    first, each session linking to its section below it.

    Args:
        data: from ``collect_report``.
        title: the page's title; default ``sessiontools report: NAME`` (or ``N sessions``).

    Returns:
        UTF-8 HTML; the same data always gives the same bytes.
    """
    many = len(data.sessions) != 1 or bool(data.skipped)

    def href(session: SessionView, run: RunView | None = None) -> str:
        return f"#s{session.number}" + (f"-r{run.index}" if run is not None else "")

    overview = _overview(data) if many else None
    return _page(data, _title(data, title), data.sessions, overview, href, None)


def page_name(session: SessionView) -> str:
    """A session's page when the report is written as pages: ``0001-NAME.html``, ``NAME`` its
    conversation id with every run of characters but letters, digits, ``.``, ``_`` and ``-``
    as one ``-`` (``a/s`` is ``a-s``), its last 60 characters (where ids of many logs differ:
    ``evals/run-7/case-12/session``)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", session.conversation_id)[-60:].strip("-.")
    return f"{session.number:04d}-{slug or 'session'}.html"


def render_report_pages(data: ReportData, *, title: str | None = None) -> dict[str, bytes]:
    """The report as pages for a directory: ``index.html`` (the overview) and one page per
    session (``page_name``), each self-contained, linking to each other.

    Returns:
        File name to UTF-8 HTML, ``index.html`` first, then the sessions in order.
    """

    def href(session: SessionView, run: RunView | None = None) -> str:
        return page_name(session) + (f"#s{session.number}-r{run.index}" if run else "")

    name = _title(data, title)
    pages = {INDEX: _page(data, name, (), _overview(data), href, None)}
    for session in data.sessions:
        pages[page_name(session)] = _page(
            data, f"{name}: {session.name}", (session,), None, href, INDEX
        )
    return pages


def report_html(
    logs: Logs,
    *,
    prices: PriceSource = None,
    content: bool = False,
    title: str | None = None,
    workers: int | None = 1,
    max_line_bytes: int | None = MAX_LINE_BYTES,
) -> bytes:
    """A self-contained HTML report of session logs: what ``sessiontools report LOG...`` writes
    (``collect_report`` then ``render_report_html``).

    Args:
        logs: a path, a directory (its ``*.jsonl``, recursively), a glob, a ``Session``, or a
            list of these.
        prices: a price file or ``Prices`` by model id, which win over genai-prices.
        content: show the conversation too (prompts, messages, reasoning, tool inputs and
            results, displays): for a local debugging view; off by default, as in the traces.
        title: the page's title.
        workers: how many processes read the logs (``collect_report``).
        max_line_bytes: the longest line read (see ``LogReader``); ``None``: no limit.

    Raises:
        As ``read_costs``: a log that cannot be read raises (``collect_report`` with
        ``skip_damaged=True`` lists it instead).
    """
    data = collect_report(
        logs, prices=prices, content=content, workers=workers, max_line_bytes=max_line_bytes
    )
    return render_report_html(data, title=title)
