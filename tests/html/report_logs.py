"""Logs for the HTML report's tests, written with ``SessionBuilder``, and what the report's HTML
holds (parsed with the standard library)."""

from __future__ import annotations

import html.parser
import io
import warnings
from collections.abc import Callable
from typing import Any

import orjson

from sessiontools import (
    Display,
    LabelsEntry,
    ModelError,
    SessionBuilder,
    Source,
    Usage,
    otlp_json,
)

#: Every content field of the log: what the report shows only with ``--content``.
CONTENT_FIELDS = (
    "prompt",
    "assistant_text",
    "reasoning",
    "tool_input",
    "native_data",
    "refusal",
    "allow_reason",
    "deny_reason",
    "result",
    "denied_result",
    "tool_log",
    "display_title",
    "display_body",
    "source_title",
    "source_ref",
    "display_ref",
    "final_text",
    "outcome_text",
)

#: Error messages: a failed model call's and a run's that ended on one. The report shows them
#: where the traces export them (traces.md: the status message), and nowhere else.
ERROR_FIELDS = ("error_message", "outcome_error")


def marked_log(mark: Callable[[str], str], *, tool: str = "lookup", source: str = "seed") -> bytes:
    """Two runs touching every content field, each holding ``mark(field)``, plus a failed
    model call whose message is ``mark("error_message")`` and a run that ends on one with
    ``mark("outcome_error")``. ``tool`` names the tool and
    ``source`` the labels entry's source (not content: the report shows both)."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="marked", jitter=False)
    b.add(LabelsEntry(("project:apollo",), source))
    b.run(mark("prompt"))
    b.model_error(
        "rate_limited", message=mark("error_message"), status=429, retry=True, wait_ms=250
    )
    b.assistant(
        "anthropic",
        "claude-sonnet-4-5",
        {"content": [{"type": "text", "text": mark("native_data")}]},
        text=mark("assistant_text"),
        reasoning=mark("reasoning"),
        calls=[(tool, {"q": mark("tool_input")}), ("rm", {"path": "/"})],
        refusal=mark("refusal"),
        usage=Usage(1200, 80, cache_read_tokens=2048, cache_write_tokens=512),
    )
    first, second = b.calls
    b.decision("allow", call=first, reason=mark("allow_reason"), labels=["web"])
    b.call_started(call=first)
    b.tool_result(
        mark("result"),
        call=first,
        log=mark("tool_log"),
        labels=["fetched"],
        usage=[("claude-haiku-4-5", Usage(300, 20))],
        display=Display(
            mark("display_title"),
            mark("display_body"),
            (),
            (Source(mark("source_title"), mark("source_ref")),),
            mark("display_ref"),
        ),
    )
    b.decision("deny", call=second, reason=mark("deny_reason"))
    b.tool_result(mark("denied_result"), call=second, is_error=True)
    b.anthropic(text=mark("final_text"), usage=Usage(900, 40, cache_read_tokens=3000))
    b.run_ended(text=mark("outcome_text"))
    b.run("")
    b.model_error("unauthorized", message=mark("outcome_error"), status=401)
    b.run_ended("model_error", error=ModelError("unauthorized", mark("outcome_error"), 401))
    return b.to_bytes()


def many_runs_log(runs: int) -> bytes:
    """``runs`` runs of 10 spans each: 3 turns and 6 tool calls (one denied, one failing)."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed="many", keep=True)
    for i in range(runs):
        b.run(f"task {i}")
        b.anthropic(
            "claude-sonnet-4-5",
            text="on it",
            calls=[("read", {"i": i}), ("grep", {}), ("rm", {})],
            usage=Usage(500, 40, cache_read_tokens=1000),
        )
        read, grep, rm = b.calls
        b.allow("x" * 20, call=read)
        b.allow("y", call=grep, is_error=True)
        b.deny("no", call=rm)
        b.anthropic(
            text="more",
            calls=[("read", {}), ("write", {}), ("test", {})],
            usage=Usage(700, 30, cache_read_tokens=1500),
        )
        for call in b.calls:
            b.allow("ok", call=call)
        b.anthropic(text="done", usage=Usage(800, 20, cache_read_tokens=2000))
        b.run_ended()
    return b.to_bytes()


def export_spans(data: bytes, conversation_id: str) -> list[tuple[str, str]]:
    """(``gen_ai.operation.name``, span id hex) of every span ``sessiontools otel`` exports for
    ``data``, in order."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        export = orjson.loads(otlp_json(io.BytesIO(data), conversation_id=conversation_id))
    out = []
    for resource in export["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope.get("spans", []):
                kind = next(
                    a["value"]["stringValue"]
                    for a in span["attributes"]
                    if a["key"] == "gen_ai.operation.name"
                )
                out.append((kind, span["spanId"]))
    return out


class Page(html.parser.HTMLParser):
    """What a report's HTML holds: every element (tag and attributes), the text, the inline
    scripts and styles, the marks (``data-span-kind``, ``data-span-id``) in order."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.marks: list[tuple[str, str]] = []
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self._raw: tuple[str, dict[str, str | None]] | None = None
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if "data-span-id" in attributes:
            self.marks.append(
                (attributes["data-span-kind"] or "", attributes["data-span-id"] or "")
            )
        if tag in ("script", "style"):
            self._raw = (tag, attributes)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._raw = None

    def handle_endtag(self, tag: str) -> None:
        self._raw = None

    def handle_data(self, data: str) -> None:
        if self._raw is not None:
            tag, attributes = self._raw
            if tag == "script":
                self.scripts.append((attributes, data))
            else:
                self.styles.append(data)
        else:
            self.text.append(data)

    def facts(self) -> dict[str, Any]:
        """The ``st-facts`` JSON."""
        found = [data for attrs, data in self.scripts if attrs.get("id") == "st-facts"]
        assert len(found) == 1
        loaded: dict[str, Any] = orjson.loads(found[0])
        return loaded
