"""The HTML report in a second engine: headless Firefox (Debian's ``firefox-esr``, at
/usr/bin/firefox, or $SESSIONTOOLS_FIREFOX), driven over WebDriver BiDi (tests/html/firefox.py).

The issue asks for a report that opens in current Chromium and Firefox; the Chromium tests
(test_report_browser.py) are the thorough ones. These check what differs most between engines:
a page of one session and a page of many (packed, unpacked by the browser's own
``DecompressionStream``) load from ``file://`` quietly (no console entry, no request but the
page), draw one mark per span of the export with its kind and id, show a tool call's facts on
hover, and run nothing from a log. They never skip: a missing Firefox fails them, saying how
to install it (.ci/run does).
"""

from __future__ import annotations

import json
import os
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from sessiontools import report_html
from tests.helpers import SESSIONS
from tests.html.firefox import FIREFOX, Firefox, Page, firefox
from tests.html.report_logs import export_spans, marked_log

PAYLOAD = (
    '<script>window.__x=1</script>"><img src=x onerror="window.__x=1">'
    "'><svg onload=window.__x=1></svg>"
)
NAMES = ["02_runs_anthropic_openai_cache", "08_tool_model_calls", "10_policy_deny_and_limit"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Firefox]:
    if not os.access(FIREFOX, os.X_OK):
        pytest.fail(
            f"no browser at {FIREFOX}: install Debian's Firefox (apt-get install -y "
            "firefox-esr) or set SESSIONTOOLS_FIREFOX; these tests do not skip"
        )
    with firefox() as browser:
        yield browser


def _write(tmp_path: Path, name: str, logs: list[Path], **options: object) -> Path:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        html = report_html(logs if len(logs) > 1 else logs[0], **options)  # type: ignore[arg-type]
    out = tmp_path / name
    out.write_bytes(html)
    return out


def _open(browser: Firefox, path: Path) -> Page:
    page = browser.new_page()
    page.goto(path)
    page.drawn()
    return page


def _marks(page: Page) -> Counter[tuple[str, str]]:
    pairs = page.evaluate(
        "[...document.querySelectorAll('[data-span-id]')]"
        ".map(e => [e.dataset.spanKind, e.dataset.spanId])"
    )
    return Counter((kind, ident) for kind, ident in pairs)


def _quiet(page: Page, path: Path) -> None:
    """Nothing in the console (a refused request, an error, a CSP report), and no request but
    the page (Firefox's own ``data:`` fonts aside: a page's would be refused, and said)."""
    assert page.console == []
    page_url = path.resolve().as_uri()
    assert [u for u in page.requests if u != page_url and not u.startswith("data:")] == []


@pytest.mark.parametrize("many", [False, True], ids=["one session", "many sessions"])
def test_firefox_draws_every_span_quietly(browser: Firefox, tmp_path: Path, many: bool) -> None:
    logs = [SESSIONS / f"{name}.jsonl" for name in (NAMES if many else NAMES[2:])]
    out = _write(tmp_path, "r.html", logs)
    assert (b'id="st-packed"' in out.read_bytes()) == many
    page = _open(browser, out)
    # (logs named one by one take their path without .jsonl as conversation id, as in otel)
    want = Counter(
        span
        for log in logs
        for span in export_spans(log.read_bytes(), str(log.with_suffix("")) if many else log.stem)
    )
    assert _marks(page) == want and sum(want.values()) >= 14
    assert page.evaluate("document.querySelectorAll('section.session').length") == len(logs)
    _quiet(page, out)


def test_firefox_shows_a_tool_calls_facts_on_hover(browser: Firefox, tmp_path: Path) -> None:
    out = _write(tmp_path, "r.html", [SESSIONS / "10_policy_deny_and_limit.jsonl"])
    page = _open(browser, out)
    assert page.evaluate("getComputedStyle(document.getElementById('st-tip')).display") == "none"
    for _ in range(6):  # to 64x, as in Chromium's test: a short call is then a few pixels wide
        page.evaluate("document.querySelector('[data-zoom=\"in\"]').click()")
    tools = page.evaluate(
        "[...document.querySelectorAll('[data-span-kind=\"execute_tool\"]')]"
        ".map(e => e.dataset.spanId)"
    )
    assert len(tools) >= 2
    for i, span_id in enumerate(tools):
        page.hover('[data-span-kind="execute_tool"]', i)
        text = page.evaluate("document.getElementById('st-tip').innerText")
        assert span_id in text and "gen_ai.tool.name" in text, (i, text)
    _quiet(page, out)


@pytest.mark.parametrize("content", [False, True], ids=["without content", "with content"])
@pytest.mark.parametrize("many", [False, True], ids=["one session", "many sessions"])
def test_firefox_runs_nothing_from_a_log(
    browser: Firefox, tmp_path: Path, content: bool, many: bool
) -> None:
    """Every content field, the tool's name, the source, the title and the logs' file names
    hold markup that would set ``window.__x`` if it ran."""
    logs = []
    for i in range(3 if many else 1):
        log = tmp_path / f'x{i}"><img src=x onerror=window.__x=1>.jsonl'
        log.write_bytes(marked_log(lambda field: PAYLOAD, tool=PAYLOAD, source=PAYLOAD))
        logs.append(log)
    out = _write(tmp_path, "r.html", logs, content=content, title=PAYLOAD)
    page = _open(browser, out)
    assert page.evaluate("typeof window.__x") == "undefined"
    assert PAYLOAD in page.evaluate("document.title")
    if content:  # the payload is shown, as text
        shown = page.evaluate(
            "[...document.querySelectorAll('pre')]"
            f".filter(p => p.textContent.includes({json.dumps(PAYLOAD)})).length"
        )
        assert shown > 5
    assert page.evaluate("typeof window.__x") == "undefined"
    _quiet(page, out)


def test_the_checks_see_a_request_a_console_entry_and_a_script(
    browser: Firefox, tmp_path: Path
) -> None:
    """The checks above can fail: a page from ``file://`` that requests an image from
    127.0.0.1, logs, and runs its script is seen doing each (and one under the report's CSP
    has its script refused, said in the console)."""
    import http.server
    import threading

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        image = f"http://127.0.0.1:{server.server_address[1]}/x.png"
        loud = tmp_path / "loud.html"
        loud.write_text(
            f'<!DOCTYPE html><img src="{image}"><script>window.__x=1; console.log("hi")</script>'
        )
        page = browser.new_page()
        page.goto(loud)
        assert page.evaluate("typeof window.__x") == "number"
        assert page.requests == [image] and page.console == [("info", "hi")]
        with pytest.raises(AssertionError):
            _quiet(page, loud)
        fenced = tmp_path / "fenced.html"
        fenced.write_text(
            '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" '
            "content=\"default-src 'none'\"><script>window.__x=1</script>"
        )
        page.goto(fenced)
        assert page.evaluate("typeof window.__x") == "undefined"
        assert [level for level, _ in page.console] == ["error"]
    finally:
        server.shutdown()
        server.server_close()


def test_firefox_opens_a_packed_report_at_an_address(browser: Firefox, tmp_path: Path) -> None:
    """A run's address (``#s12-r0``) in a report of many sessions: Firefox left the page at its
    top (the run inside a section not laid out yet); a session's, too."""
    out = _write(
        tmp_path, "r.html", [p for p in sorted(SESSIONS.glob("*.jsonl")) if "damaged" not in p.name]
    )
    page = browser.new_page()
    for ident in ["s12-r0", "s7-r1", "s2-r3", "s9", "s14"]:
        page.firefox.call(
            "browsingContext.navigate",
            {
                "context": page.context,
                "url": out.resolve().as_uri() + "#" + ident,
                "wait": "complete",
            },
        )
        page.drawn()
        time.sleep(1.2)  # the page watches for a second
        top, scrolled = page.evaluate(
            f"[document.getElementById({json.dumps(ident)}).getBoundingClientRect().top, scrollY]"
        )
        assert scrolled > 0 and abs(top) <= 1, (ident, top, scrolled)
        page.firefox.call(
            "browsingContext.navigate",
            {"context": page.context, "url": "about:blank", "wait": "complete"},
        )
