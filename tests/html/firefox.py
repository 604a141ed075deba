"""Debian's Firefox (``firefox-esr``), driven headless over WebDriver BiDi, the W3C protocol
Firefox speaks itself, for the report's tests in a second browser engine.

Playwright's Firefox needs Playwright's own build; its BiDi channel (``moz-firefox``) sends
commands this ESR does not know (``emulation.setMediaFeaturesOverride``), and Selenium needs
geckodriver, which Debian does not package. So this is a small client of the standard
protocol on ``websockets``: start Firefox with ``--remote-debugging-port`` and a fresh
profile, open a session, navigate, evaluate script, move the pointer, and collect the
console's entries and the page's requests (``log.entryAdded``,
``network.beforeRequestSent``). Firefox runs on 127.0.0.1 only; the profile turns off what
Firefox would fetch by itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIREFOX = os.environ.get("SESSIONTOOLS_FIREFOX", "/usr/bin/firefox")

#: What a fresh profile would otherwise fetch or show on its own.
PREFS = {
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "services.settings.server": "http://127.0.0.1:9/",
    "extensions.update.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "remote.prefs.recommended": True,
}


class BiDiError(AssertionError):
    """A command Firefox refused, or a page that never got where it was expected to."""


@dataclass
class Page:
    """One tab, what its console said and what it requested since ``goto``."""

    firefox: Firefox
    context: str
    console: list[tuple[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def goto(self, path: Path) -> None:
        self.console.clear()
        self.requests.clear()
        self.firefox.call(
            "browsingContext.navigate",
            {"context": self.context, "url": path.resolve().as_uri(), "wait": "complete"},
        )

    def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` (awaited when a promise), as JSON came back."""
        result = self.firefox.call(
            "script.evaluate",
            {
                "expression": f"(async () => JSON.stringify(await ({expression})))()",
                "target": {"context": self.context},
                "awaitPromise": True,
            },
        )
        if result.get("type") == "exception":
            raise BiDiError(f"{expression}: {result['exceptionDetails']['text']}")
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    def drawn(self, timeout: float = 20.0) -> float:
        """When the page's script drew the timelines (its ``st-drawn`` mark), waited for."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            at = self.evaluate("performance.getEntriesByName('st-drawn').map(e => e.startTime)")
            if at:
                return float(at[0])
            time.sleep(0.025)
        raise BiDiError("the page's script never drew the timelines")

    def hover(self, selector: str, index: int) -> None:
        """The pointer moved to the middle of the ``index``-th element ``selector`` finds
        (real input: the page sees mouseover as from a mouse), scrolled into view first."""
        found = self.firefox.call(
            "script.evaluate",
            {
                "expression": (
                    f"(() => {{ const e = document.querySelectorAll({json.dumps(selector)})"
                    f"[{index}]; e.scrollIntoView({{block: 'center'}}); return e; }})()"
                ),
                "target": {"context": self.context},
                "awaitPromise": False,
            },
        )
        element = found["result"]
        if "sharedId" not in element:
            raise BiDiError(f"no element {selector} #{index}")
        self.firefox.call(
            "input.performActions",
            {
                "context": self.context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "parameters": {"pointerType": "mouse"},
                        "actions": [
                            {
                                "type": "pointerMove",
                                "x": 0,
                                "y": 0,
                                "origin": {
                                    "type": "element",
                                    "element": {"sharedId": element["sharedId"]},
                                },
                            }
                        ],
                    }
                ],
            },
        )


class Firefox:
    """A headless Firefox and one BiDi session with it."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.next_id = 0
        self.pages: dict[str, Page] = {}
        self.version = ""

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        ident = self.next_id
        self.connection.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.connection.recv(timeout=60))
            if message.get("id") == ident:
                if message.get("type") == "error":
                    raise BiDiError(f"{method}: {message.get('error')}: {message.get('message')}")
                return message["result"]  # type: ignore[no-any-return]
            self._event(message)

    def _event(self, message: dict[str, Any]) -> None:
        params = message.get("params", {})
        if message.get("method") == "log.entryAdded":
            page = self.pages.get(params.get("source", {}).get("context", ""))
            if page is not None:
                page.console.append((params.get("level", ""), params.get("text", "")))
        elif message.get("method") == "network.beforeRequestSent":
            page = self.pages.get(params.get("context", ""))
            if page is not None:
                page.requests.append(params["request"]["url"])

    def new_page(self) -> Page:
        context = self.call("browsingContext.create", {"type": "tab"})["context"]
        page = Page(self, context)
        self.pages[context] = page
        self.call(
            "browsingContext.setViewport",
            {"context": context, "viewport": {"width": 1280, "height": 900}},
        )
        return page


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def firefox() -> Iterator[Firefox]:
    """A headless Firefox with a fresh profile, its BiDi session open; all removed after."""
    from websockets.sync.client import connect

    profile = Path(tempfile.mkdtemp(prefix="sessiontools-firefox-"))
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in PREFS.items())
    )
    port = _free_port()
    process = subprocess.Popen(
        [FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
         "--remote-debugging-port", str(port), "--remote-allow-hosts", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                connection = connect(f"ws://127.0.0.1:{port}/session", max_size=None)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise BiDiError(f"Firefox ({FIREFOX}) did not start its BiDi server") from None
                time.sleep(0.1)
        with connection:
            browser = Firefox(connection)
            session = browser.call("session.new", {"capabilities": {}})
            browser.version = session["capabilities"]["browserVersion"]
            browser.call(
                "session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]}
            )
            try:
                yield browser
            finally:
                with contextlib.suppress(Exception):  # Firefox may close the socket first
                    browser.call("session.end", {})
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(profile, ignore_errors=True)
