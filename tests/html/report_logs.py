"""Logs for the HTML report's tests, written with ``SessionBuilder``, and what the report's HTML
holds (parsed with the standard library)."""

from __future__ import annotations

import base64
import html.parser
import io
import re
import warnings
from collections.abc import Callable
from typing import Any

import orjson

from sessiontools import (
    Display,
    LabelsEntry,
    LogReader,
    ModelError,
    SessionBuilder,
    Source,
    Usage,
    iter_runs,
    otlp_json,
    trace_spans,
)
from sessiontools._html.render import unpack

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


def many_runs_log(runs: int, seed: str = "many") -> bytes:
    """``runs`` runs of 10 spans each: 3 turns and 6 tool calls (one denied, one failing);
    ``seed`` the builder's (its ids: logs of other seeds share no id)."""
    b = SessionBuilder("2026-10-18T09:30:00+02:00", seed=seed, keep=True)
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


#: A mark's kind by its lane (report.js: KINDS).
LANE_KINDS = ("invoke_agent", "chat", "execute_tool", "chat")


#: The placeholder of a report's packed sections and the packed sections (render.py, pack).
PACKED = re.compile(
    r'<div id="st-sessions">.*?</div>\n'
    r'<script type="application/octet-stream" id="st-packed">(?P<packed>[A-Za-z0-9+/=]*)</script>\n'
)


class Page(html.parser.HTMLParser):
    """What a report's HTML holds: every element (tag and attributes), the text, the inline
    scripts and styles, the runs' timeline boxes (``.tl-scroll``), and the marks the page's
    script draws in them (``data-span-kind``, ``data-span-id``) in order, decoded from the
    facts as the script decodes them (report.js, ``draw``), with the conversation id's string
    index of each mark's drawing (``drawings``, one per mark). The browser tests check the
    marks the script draws."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        #: The packed sections (a report of many sessions in one file), or None; ``text`` is
        #: parsed with them unpacked in place of their placeholder, as the page's script does.
        self.packed: str | None = None
        found = PACKED.search(text)
        if found:
            self.packed = found["packed"]
            text = text[: found.start()] + unpack(self.packed) + text[found.end() :]
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.boxes = 0
        self.text: list[str] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self._raw: tuple[str, dict[str, str | None]] | None = None
        self.feed(text)
        self.close()
        self.marks: list[tuple[str, str]] = []
        self.drawings: list[int] = []
        if not any(a.get("id") == "st-facts" for a, _ in self.scripts):
            return
        facts = self.facts()
        runs, records = facts["r"], facts["f"]
        assert len(runs) == self.boxes, "a drawing for each run's box"
        for i, run in enumerate(runs):
            end = runs[i + 1][0] if i + 1 < len(runs) else len(records)
            rows, ids = run[6], base64.b64decode(run[7], validate=True)
            assert len(ids) == 8 * (end - run[0])
            for i, record in enumerate(records[run[0] : end]):
                row = record[5] // 16
                assert 0 <= row < len(rows) // 2 and record[5] % 16 <= 10, record
                self.marks.append((LANE_KINDS[rows[2 * row]], ids[8 * i : 8 * i + 8].hex()))
                self.drawings.append(run[3])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if (attributes.get("class") or "").split() == ["tl-scroll"]:
            self.boxes += 1
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

    def hover(self) -> list[dict[str, Any]]:
        """What hovering each mark shows, decoded from the facts as the page's script decodes
        them (report.js, ``fill``): name, status (code 2 and message, or 0), start (ns after
        its run started), duration, cost, and the attributes as (key, value) in order."""
        facts = self.facts()
        shapes, strings = facts["k"], facts["s"]
        out = []
        for (kind, _), drawing, record in zip(self.marks, self.drawings, facts["f"], strict=True):
            at = 6
            status: tuple[int, str] = (0, "")
            attributes: list[tuple[str, Any]] = []
            for typed in shapes[record[0]]:
                letter, key = typed[0], typed[2:]
                if letter == "!":
                    status = (2, strings[record[at]])
                    at += 1
                    continue
                if letter == "o":
                    value: Any = kind
                elif letter == "c":
                    value = strings[drawing]
                else:
                    value = record[at]
                    at += 1
                    if letter == "s":
                        value = strings[value]
                    elif letter == "b":
                        value = bool(value)
                    elif letter == "a":
                        value = [strings[v] for v in value]
                attributes.append((key, value))
            assert at == len(record), record
            out.append(
                {
                    "name": strings[record[1]],
                    "status": status,
                    "start": record[2],
                    "duration": record[3],
                    "cost": record[4],
                    "attributes": attributes,
                }
            )
        return out


def span_facts(log: Any, conversation_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(span id, facts) of every span the export makes of ``log``, run by run (two spans can
    have one id in a log whose seq repeats), in the form ``Page.hover`` gives: the start
    counted from its run's start."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with LogReader(log, export=True) as reader:
            for run in iter_runs(reader):
                for span in trace_spans([run], conversation_id=conversation_id):
                    start = span.start_time_unix_nano
                    facts = {
                        "name": span.name,
                        "status": (span.status_code, span.status_message),
                        "start": start - run.start_time_unix_nano,
                        "duration": span.end_time_unix_nano - start,
                        "attributes": [
                            (key, list(value) if isinstance(value, tuple) else value)
                            for key, value in span.attributes
                        ],
                    }
                    out.append((span.span_id.hex(), facts))
    return out


def export_facts(export: bytes) -> dict[str, dict[str, Any]]:
    """What the OTLP export says of each span, by span id, in the form ``Page.hover`` gives:
    the start counted from its run's start (its ``invoke_agent`` span's). Span ids must be
    unique (``span_facts`` for logs whose seq repeats)."""
    document = orjson.loads(export)
    spans = [
        span
        for resource in document["resourceSpans"]
        for scope in resource["scopeSpans"]
        for span in scope.get("spans", [])
    ]
    by_id = {span["spanId"]: span for span in spans}
    assert len(by_id) == len(spans), "two spans with one id: use span_facts"

    def run_start(span: dict[str, Any]) -> int:
        while span.get("parentSpanId") in by_id:
            span = by_id[span["parentSpanId"]]
        return int(span["startTimeUnixNano"])

    def value(v: dict[str, Any]) -> Any:
        if "stringValue" in v:
            return v["stringValue"]
        if "intValue" in v:
            return int(v["intValue"])
        if "boolValue" in v:
            return v["boolValue"]
        return [x["stringValue"] for x in v["arrayValue"].get("values", [])]

    out = {}
    for span in spans:
        start = int(span["startTimeUnixNano"])
        status = span.get("status", {})
        facts = {
            "name": span["name"],
            "status": (2, status.get("message", "")) if status.get("code") == 2 else (0, ""),
            "start": start - run_start(span),
            "duration": int(span["endTimeUnixNano"]) - start,
            "attributes": [(a["key"], value(a["value"])) for a in span["attributes"]],
        }
        out[span["spanId"]] = facts
    return out
