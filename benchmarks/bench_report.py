"""Time ``sessiontools report`` against the ``otel`` export of the same logs, measure the
report's size against the logs', and the browser's time to interactive (issue 13).

    python benchmarks/bench_report.py [--log LOG] [--many DIR] [--repeat K] [--part large|many|both]

(a) One large log (default ``/tmp/bench/100mb.jsonl``, ``make_large_log.py --size-mb 100``),
    K times, alternating, each a fresh subprocess:

    - ``sessiontools otel LOG --out FILE``;
    - ``sessiontools report LOG --out FILE.html``.

(b) Many small logs (default ``/tmp/bench/many``, ``make_many_logs.py --count 1000``), K
    times, alternating:

    - the export of every log, in one fresh ``python -c``: ``export_otlp_json(LOG, f.write,
      workers=None)`` for each log into its own file, what ``sessiontools otel`` does for one
      log (the command takes one log per process; a thousand processes would time start-up);
    - ``sessiontools report DIR --out FILE.html``.

Goals: the report at most 2.0 times the export's wall time, and (without ``--content``) a
file under 5% of the logs' size. Printed: the minimum wall time of the K runs, CPU time over
wall time, the maximum peak RSS (``os.wait4``), the sizes, and the number of marks in the
report (it must equal the number of spans exported). As in ``bench_otel.py``, the children
get a bytecode cache in a temporary directory, filled by an untimed first round, and so is
the report's own cache (``SESSIONTOOLS_CACHE_DIR``: genai-prices' answers and the compiled
templates kept between runs, README "Reading and writing files"): the ratio is that of a
later run. Each round also times the report with nothing kept (``SESSIONTOOLS_NO_CACHE=1``),
what a first run takes, printed as ``nothing kept``.

Then the browser (unless ``--no-browser``): each report is opened K times from ``file://`` in
headless Chromium (``/usr/bin/chromium`` through Playwright, as the tests do), in a new page
each time, and the Navigation Timing of the fastest load is printed: DOM interactive, DOM
content loaded, the load event, when the page's script had drawn the timelines (its
``st-drawn`` mark: it has read the facts and listens for hovers, interactive; in a report of
many sessions in one file, after unpacking them, which ends after the load event) and the
first contentful paint, in milliseconds from the start of navigation, and the number of
marks the page's script drew (the spans the export holds).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import shutil
import sys
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _children import (
    Child,
    bytecode_cache_env,
    count_lines,
    run_child,
    sessiontools_command,
)

HERE = Path(__file__).resolve().parent
DEFAULT_LOG = Path("/tmp/bench/100mb.jsonl")
DEFAULT_MANY = Path("/tmp/bench/many")
RATIO_GOAL = 2.0
SIZE_GOAL = 0.05
CHROMIUM = os.environ.get("SESSIONTOOLS_CHROMIUM", "/usr/bin/chromium")

#: The export of many logs in one process: one OTLP/JSON file per log; prints the span count.
EXPORT_MANY = """\
import sys
from pathlib import Path

import sessiontools

out = Path(sys.argv[2])
for log in sorted(Path(sys.argv[1]).rglob("*.jsonl")):
    with open(out / (log.stem + ".json"), "wb") as f:
        sessiontools.export_otlp_json(log, f.write, workers=None)
print("ok")
"""


@dataclass(frozen=True, slots=True)
class Pair:
    otel: Child
    report: Child
    first: Child  # the report with nothing kept by an earlier run (SESSIONTOOLS_NO_CACHE)


def _best(children: Sequence[Child]) -> Child:
    return min(children, key=lambda c: c.seconds)


def _mib(kib: int) -> str:
    return f"{kib / 1024:.1f}"


def _ok(ratio: float, goal: float) -> str:
    return "meets the goal" if ratio <= goal else "over the goal"


def _marks(path: Path) -> int:
    """The marks the page's script draws: one per span id in the runs' drawings (each run's
    ids, 8 bytes each, in one base64 string: sessiontools/_html/render.py, ``_Facts``), in the
    facts of the page or of its packed sections (``pack``)."""
    text = path.read_text(encoding="utf-8")
    if 'id="st-packed"' in text:
        start = text.index(">", text.index('id="st-packed"')) + 1
        text = zlib.decompress(base64.b64decode(text[start : text.index("<", start)])).decode()
    start = text.index(">", text.index('id="st-facts"')) + 1
    facts = json.loads(text[start : text.index("</script>", start)])
    return sum(len(base64.b64decode(run[7])) // 8 for run in facts["r"])


def _spans(paths: Sequence[Path]) -> int:
    count = 0
    for path in paths:
        count += path.read_bytes().count(b'"spanId":')
    return count


def _rounds(repeat: int, otel: list[str], report: list[str], env: dict[str, str]) -> list[Pair]:
    run_child(otel, env=env)  # untimed: fills the bytecode cache ...
    run_child(report, env=env, ok=(0, 1))  # ... and what the report keeps (SESSIONTOOLS_CACHE_DIR)
    first = {**env, "SESSIONTOOLS_NO_CACHE": "1"}
    return [
        Pair(
            run_child(otel, env=env),
            run_child(report, env=env, ok=(0, 1)),
            run_child(report, env=first, ok=(0, 1)),
        )
        for _ in range(repeat)
    ]


def _print_times(pairs: Sequence[Pair], what: str) -> None:
    otel = _best([p.otel for p in pairs])
    report = _best([p.report for p in pairs])
    ratio = report.seconds / otel.seconds
    print(f"  {what:<18}{otel.seconds:10.2f} s    CPU / wall {otel.cpu_seconds / otel.seconds:.2f}")
    print(
        f"  report time       {report.seconds:10.2f} s    CPU / wall "
        f"{report.cpu_seconds / report.seconds:.2f}"
    )
    print(f"  ratio report/otel {ratio:10.2f}      ({_ok(ratio, RATIO_GOAL)} of {RATIO_GOAL})")
    first = _best([p.first for p in pairs])
    print(
        f"  nothing kept      {first.seconds:10.2f} s    ratio {first.seconds / otel.seconds:.2f}"
        "  (a first run: genai-prices loaded, templates compiled; SESSIONTOOLS_NO_CACHE=1)"
    )
    print(
        f"  peak RSS          {_mib(max(p.otel.max_rss_kib for p in pairs)):>10} MiB otel, "
        f"{_mib(max(p.report.max_rss_kib for p in pairs))} MiB report"
    )


def _print_sizes(log_bytes: int, report: Path, exported: int, spans: int) -> None:
    size = report.stat().st_size
    share = size / log_bytes
    print(
        f"  report size       {size / 1e6:10.2f} MB   {share:.2%} of the logs "
        f"({_ok(share, SIZE_GOAL)} of {SIZE_GOAL:.0%}); the OTLP/JSON: {exported / 1e6:.2f} MB"
    )
    marks = _marks(report)
    same = "the same" if marks == spans else "DIFFERENT"
    print(f"  marks             {marks:10,}      {spans:,} spans exported ({same})")


def bench_large(log: Path, repeat: int, tmp: Path, env: dict[str, str]) -> Path:
    size = log.stat().st_size
    lines = count_lines(log)
    otlp = tmp / "large.otlp.json"
    html = tmp / "large.html"
    st = sessiontools_command()
    pairs = _rounds(
        repeat,
        [*st, "otel", str(log), "--out", str(otlp)],
        [*st, "report", str(log), "--out", str(html)],
        env,
    )
    print(f"(a) one large log: {log}")
    print(f"  log               {size / 1e6:10.1f} MB   {lines:,} lines")
    _print_times(pairs, "otel time")
    _print_sizes(size, html, otlp.stat().st_size, _spans([otlp]))
    return html


def bench_many(directory: Path, repeat: int, tmp: Path, env: dict[str, str]) -> Path:
    paths = sorted(directory.rglob("*.jsonl"))
    size = sum(p.stat().st_size for p in paths)
    lines = sum(count_lines(p) for p in paths)
    exports = tmp / "exports"
    exports.mkdir()
    html = tmp / "many.html"
    pairs = _rounds(
        repeat,
        [sys.executable, "-c", EXPORT_MANY, str(directory), str(exports)],
        [*sessiontools_command(), "report", str(directory), "--out", str(html)],
        env,
    )
    outputs = sorted(exports.glob("*.json"))
    print(f"(b) {len(paths):,} small logs: {directory}")
    print(f"  logs              {size / 1e6:10.1f} MB   {lines:,} lines")
    _print_times(pairs, "export time")
    _print_sizes(size, html, sum(p.stat().st_size for p in outputs), _spans(outputs))
    return html


def bench_browser(reports: Sequence[tuple[str, Path]], repeat: int) -> None:
    from playwright.sync_api import sync_playwright

    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
    ]
    profile = tempfile.mkdtemp(prefix="bench_report.chromium.")
    script = """() => {
        const nav = performance.getEntriesByType('navigation')[0];
        const paint = performance.getEntriesByName('first-contentful-paint')[0];
        const drawn = performance.getEntriesByName('st-drawn')[0];
        return [nav.domInteractive, nav.domContentLoadedEventEnd, nav.loadEventEnd,
                drawn ? drawn.startTime : -1, paint ? paint.startTime : -1,
                document.querySelectorAll('[data-span-id]').length];
    }"""
    ready = "() => performance.getEntriesByName('st-drawn').length"
    print(f"browser: headless {CHROMIUM}, {repeat} loads each from file://, the fastest load (ms)")
    heads = ("interactive", "DOM loaded", "load event", "drawn", "first paint", "marks")
    print(f"  {'report':<10}" + "".join(f"{h:>12}" for h in heads))
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=args
            )
            for name, path in reports:
                timings: list[Any] = []
                for _ in range(repeat):
                    page = context.new_page()
                    page.goto(path.resolve().as_uri(), wait_until="load", timeout=120_000)
                    # the timelines drawn (a page of many sessions unpacks them after its load
                    # event); polled: wait_for_function evaluates a string, which the CSP refuses
                    for _ in range(2400):
                        if page.evaluate(ready):
                            break
                        page.wait_for_timeout(25)
                    timings.append(page.evaluate(script))
                    page.close()
                best = min(timings, key=lambda t: t[3])
                print(f"  {name:<10}" + "".join(f"{v:12,.0f}" for v in best))
            context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--log", type=Path, default=DEFAULT_LOG, help=f"(a) ({DEFAULT_LOG})")
    parser.add_argument("--many", type=Path, default=DEFAULT_MANY, help=f"(b) ({DEFAULT_MANY})")
    parser.add_argument("--repeat", type=int, default=3, metavar="K", help="runs of each (3)")
    parser.add_argument("--part", choices=("large", "many", "both"), default="both")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser's timings")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    for path, how in (
        (args.log, "make_large_log.py --size-mb 100"),
        (args.many, "make_many_logs.py --count 1000"),
    ):
        wanted = args.part == "both" or (args.part == "large") == (path == args.log)
        if wanted and not path.exists():
            parser.error(f"{path} is missing: write it with benchmarks/{how} --out {path}")
    print(
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"min wall time and max peak RSS of {args.repeat} runs each, each a fresh subprocess"
    )
    reports: list[tuple[str, Path]] = []
    with tempfile.TemporaryDirectory(prefix="bench_report.") as tmp_name:
        tmp = Path(tmp_name)
        env = bytecode_cache_env(tmp / "pycache")
        env["SESSIONTOOLS_CACHE_DIR"] = str(tmp / "kept")  # filled by the untimed first round
        env.pop("SESSIONTOOLS_NO_CACHE", None)
        if args.part in ("large", "both"):
            reports.append(("large", bench_large(args.log, args.repeat, tmp, env)))
        if args.part in ("many", "both"):
            reports.append(("many", bench_many(args.many, args.repeat, tmp, env)))
        if not args.no_browser:
            bench_browser(reports, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
