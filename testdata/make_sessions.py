"""Write the session logs in ``testdata/sessions``: what agentloop's Go code writes.

Each scenario is built from typed entries (``sessiontools._entries``) and written with
``sessiontools._gojson.encode_entry``, which writes the bytes Go's ``encoding/json`` writes for
the seed's types. A few lines are meant to be bad (a torn tail, a damaged line, a transcript's
outcome line, entries from a newer agentloop) and are made from those bytes by hand.

Deterministic: ids and sub-millisecond jitter come from SHA-256 of the file name and a counter;
nothing reads the clock or an unseeded random source.

    python testdata/make_sessions.py          # write testdata/sessions/
    python testdata/make_sessions.py --check  # exit 1, naming the files, if any differs

``testdata/gocheck`` reads the files back with Go's ``encoding/json`` and checks every line
that is not meant to be bad is byte-identical after a round trip.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sessiontools._entries import (
    CallStartedEntry,
    DecisionEntry,
    Display,
    Entry,
    LabelsEntry,
    Message,
    MessageEntry,
    ModelError,
    ModelErrorEntry,
    ModelUsage,
    Native,
    Outcome,
    Part,
    PinsEntry,
    Refusal,
    RunStartedEntry,
    Source,
    ToolCall,
    ToolResult,
    ToolResultEntry,
    UnknownEntry,
    Usage,
)
from sessiontools._gojson import RawJSON, dumps, encode_entry
from sessiontools._times import parse_rfc3339

HERE = Path(__file__).resolve().parent
OUT = HERE / "sessions"

# The seed's constants (002_b8baa2d9a4d5bb0e.txt) and the loop's fixed texts.
FORBIDDEN_DECISION = "This call would give the session a label it may not hold, so it was not run."
REFUSED_RESULT = "This result was refused: it carries a label this session may not hold."
SETTLED_RESULT = (
    "This call was running when the process stopped; it may or may not have taken effect."
)
LIMIT_RESULT = "The run's tool call limit was reached; the call was not run."
LIMIT_TURNS = "max_turns"
LIMIT_TOOL_CALLS = "max_tool_calls"
LIMIT_TOKENS = "max_tokens"

MS = 1_000_000  # nanoseconds
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def U(inp: int, out: int, cache_read: int = 0, cache_write: int = 0) -> Usage:
    """agentloop's four disjoint counts: ``inp`` is the uncached input."""
    return Usage(inp, out, cache_read, cache_write)


def sha256_pin(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@dataclass
class Call:
    """A tool call the model asked for: ``name`` and ``input`` (dict or ``RawJSON``)."""

    name: str
    input: Any
    id: str = ""


@dataclass
class _Run:
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    refused: list[Refusal] = field(default_factory=list)


class LogBuilder:
    """One session log, entry by entry, with a clock that only moves forward.

    Every method writes one or more entries, each a little after the one before: ``tick``
    milliseconds (plus sub-millisecond jitter) unless ``at`` pinned the next entry's time.
    """

    def __init__(self, name: str, start: str, *, seq: int = 0) -> None:
        self.name = name
        self.now, self.offset = parse_rfc3339(start)
        self.seq = seq
        self.lines: list[bytes] = []
        self.final_newline = True
        self._counter = 0
        self._pinned = True  # the first entry is at `start` exactly
        self.run = _Run()

    # Determinism: every "random" thing is a hash of the file name and a counter.

    def _hash(self, what: str) -> int:
        self._counter += 1
        digest = hashlib.sha256(f"{self.name}/{what}/{self._counter}".encode()).digest()
        return int.from_bytes(digest, "big")

    def ident(self, prefix: str, length: int, alphabet: str = _B62) -> str:
        """``prefix`` and ``length`` characters of ``alphabet``, such as ``toolu_01...``."""
        chars = []
        n = 1
        while len(chars) < length:
            if n < len(alphabet):  # out of digits: hash again
                n = self._hash(prefix) | 1 << 256
            n, r = divmod(n, len(alphabet))
            chars.append(alphabet[r])
        return prefix + "".join(chars)

    def hexid(self, prefix: str, length: int) -> str:
        return self.ident(prefix, length, "0123456789abcdef")

    # The clock.

    def at(self, text: str) -> LogBuilder:
        """Pin the next entry's time (and the offset from then on) to ``text``."""
        t, offset = parse_rfc3339(text)
        if t < self.now:
            raise ValueError(f"{self.name}: {text} is before the previous entry")
        self.now, self.offset, self._pinned = t, offset, True
        return self

    def tick(self, ms: float) -> None:
        """Move the clock ``ms`` milliseconds on, give or take under a millisecond."""
        if self._pinned:
            self._pinned = False
            return
        self.now += int(ms * MS) + self._hash("tick") % (MS - 1) + 1

    # Writing.

    def add(self, etype: str, payload: Any, ms: float = 2) -> Entry:
        self.tick(ms)
        entry = Entry(self.seq, self.now, etype, payload, self.offset)
        self.lines.append(encode_entry(entry))
        self.seq += 1
        return entry

    def bytes(self) -> bytes:
        text = b"\n".join(self.lines)
        return text + b"\n" if self.lines and self.final_newline else text

    # Session-level entries.

    def labels(self, *labels: str, source: str = "seed", ms: float = 1) -> None:
        self.add("labels", LabelsEntry(tuple(labels), source), ms)

    def pins(self, pins: Mapping[str, str], ms: float = 1) -> None:
        self.add("pins", PinsEntry(dict(pins)), ms)

    # A run.

    def run_started(self, prompt: str = "", ms: float = 2) -> None:
        self.run = _Run()
        self.add("run_started", RunStartedEntry(prompt), ms)

    def user(self, text: str, ms: float = 1) -> None:
        message = Message("user", (Part("text", text),))
        self.add("message", MessageEntry(message, Usage()), ms)

    def assistant(
        self,
        provider: str,
        model: str,
        parts: Iterable[Part],
        data: Any,
        *,
        stop: str,
        usage: Usage,
        took: float,
        refusal: str = "",
    ) -> None:
        message = Message("assistant", tuple(parts), Native(provider, model, data))
        self.add("message", MessageEntry(message, usage, stop, model, refusal), took * 1000)
        self.run.turns += 1
        self.run.usage += usage
        text = message.text
        if text:
            self.run.text = text

    def anthropic(
        self,
        model: str,
        *,
        text: str = "",
        thinking: str | None = None,
        calls: Iterable[Call] = (),
        usage: Usage,
        stop: str = "",
        took: float = 3.2,
    ) -> list[Call]:
        """An assistant turn from the Anthropic Messages API; returns its calls, with ids."""
        calls = list(calls)
        parts: list[Part] = []
        content: list[dict[str, Any]] = []
        if thinking is not None:
            parts.append(Part("reasoning", thinking))
            signature = self.ident("", 94, _B62 + "+/") + "=="
            content.append({"type": "thinking", "thinking": thinking, "signature": signature})
        if text:
            parts.append(Part("text", text))
            content.append({"type": "text", "text": text})
        for call in calls:
            call.id = call.id or self.ident("toolu_01", 22)
            parts.append(Part("tool_call", tool_call=ToolCall(call.id, call.name, call.input)))
            content.append(
                {"type": "tool_use", "id": call.id, "name": call.name, "input": call.input}
            )
        stop = stop or ("tool_use" if calls else "end_turn")
        data = {
            "id": self.ident("msg_01", 22),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": usage.input_tokens,
                "cache_creation_input_tokens": usage.cache_write_tokens,
                "cache_read_input_tokens": usage.cache_read_tokens,
                "output_tokens": usage.output_tokens,
                "service_tier": "standard",
            },
        }
        self.assistant("anthropic", model, parts, data, stop=stop, usage=usage, took=took)
        return calls

    def openai(
        self,
        model: str,
        *,
        text: str = "",
        reasoning: str | None = None,
        reasoning_tokens: int = 0,
        calls: Iterable[Call] = (),
        usage: Usage,
        stop: str = "",
        refusal: str = "",
        took: float = 4.1,
    ) -> list[Call]:
        """An assistant turn from the OpenAI Responses API; returns its calls, with ids.

        OpenAI's ``input_tokens`` includes the cached ones; agentloop's does not.
        """
        calls = list(calls)
        parts: list[Part] = []
        output: list[dict[str, Any]] = []
        if reasoning is not None:
            parts.append(Part("reasoning", reasoning))
            summary = [{"type": "summary_text", "text": reasoning}] if reasoning else []
            output.append({"id": self.hexid("rs_", 50), "type": "reasoning", "summary": summary})
        if refusal:
            parts.append(Part("text", refusal))
            output.append(
                {
                    "id": self.hexid("msg_", 50),
                    "type": "message",
                    "status": "completed",
                    "content": [{"type": "refusal", "refusal": refusal}],
                    "role": "assistant",
                }
            )
        elif text:
            parts.append(Part("text", text))
            output.append(
                {
                    "id": self.hexid("msg_", 50),
                    "type": "message",
                    "status": "incomplete" if stop == "max_tokens" else "completed",
                    "content": [
                        {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
                    ],
                    "role": "assistant",
                }
            )
        for call in calls:
            call.id = call.id or self.ident("call_", 24)
            parts.append(Part("tool_call", tool_call=ToolCall(call.id, call.name, call.input)))
            output.append(
                {
                    "id": self.hexid("fc_", 50),
                    "type": "function_call",
                    "status": "completed",
                    "arguments": json.dumps(call.input, separators=(",", ":"), ensure_ascii=False),
                    "call_id": call.id,
                    "name": call.name,
                }
            )
        if not stop:
            stop = "refusal" if refusal else ("tool_use" if calls else "end_turn")
        took_ns = int(took * 1_000_000_000)
        data: dict[str, Any] = {
            "id": self.hexid("resp_", 50),
            "object": "response",
            "created_at": (self.now + took_ns // 2) // 1_000_000_000,
            "status": "incomplete" if stop == "max_tokens" else "completed",
            "error": None,
            "incomplete_details": {"reason": "max_output_tokens"} if stop == "max_tokens" else None,
            "model": model,
            "output": output,
            "usage": {
                "input_tokens": usage.input_tokens + usage.cache_read_tokens,
                "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
                "total_tokens": usage.input_tokens + usage.cache_read_tokens + usage.output_tokens,
            },
        }
        self.assistant(
            "openai", model, parts, data, stop=stop, usage=usage, took=took, refusal=refusal
        )
        return calls

    # Tool calls.

    def decision(
        self, call: Call, verdict: str, reason: str = "", labels: Iterable[str] = (), ms: float = 1
    ) -> None:
        self.add("decision", DecisionEntry(call.id, call.name, verdict, reason, tuple(labels)), ms)

    def call_started(self, call: Call, ms: float = 0.3) -> None:
        self.add("call_started", CallStartedEntry(call.id), ms)

    def tool_result(
        self,
        call: Call,
        content: str,
        *,
        is_error: bool = False,
        labels: Iterable[str] = (),
        log: str = "",
        usage: Iterable[ModelUsage] = (),
        display: Display | None = None,
        ms: float = 40,
    ) -> None:
        usage = tuple(usage)
        entry = ToolResultEntry(
            ToolResult(call.id, content, is_error), tuple(labels), log, usage, display
        )
        self.add("tool_result", entry, ms)
        for mu in usage:
            self.run.usage += mu.usage

    def allow(
        self,
        call: Call,
        content: str,
        *,
        decision_labels: Iterable[str] = (),
        took: float = 40,
        **result: Any,
    ) -> None:
        """A call the policy allows, run to its result."""
        self.decision(call, "allow", labels=decision_labels)
        self.call_started(call)
        self.tool_result(call, content, ms=took, **result)

    def deny(self, call: Call, reason: str, labels: Iterable[str] = ()) -> None:
        """A call the policy denies: the model is told the reason."""
        self.decision(call, "deny", reason, labels)
        self.tool_result(call, reason, is_error=True, ms=0.2)

    def forbid_decision(self, call: Call, labels: Iterable[str]) -> None:
        """An allow whose labels the session may not hold: a deny."""
        self.deny(call, FORBIDDEN_DECISION, labels)

    def refuse(self, call: Call, forbidden: Iterable[str], took: float = 60, **kw: Any) -> None:
        """A call that ran and whose result carried labels the session may not hold
        (``forbidden``): the model is told ``RefusedResult``, the session does not take the
        result's labels, and the log and usage are kept."""
        self.decision(call, "allow")
        self.call_started(call)
        self.tool_result(call, REFUSED_RESULT, ms=took, **kw)
        self.run.refused.append(Refusal(call.id, call.name, tuple(sorted(forbidden))))

    def settle(self, call: Call) -> None:
        """A call an earlier run started and never finished, settled by this run."""
        self.tool_result(call, SETTLED_RESULT, is_error=True, ms=1)

    def over_limit(self, call: Call) -> None:
        """A call beyond ``max_tool_calls``: refused without a decision."""
        self.tool_result(call, LIMIT_RESULT, is_error=True, ms=0.2)

    # Model errors.

    def model_error(
        self,
        kind: str,
        message: str,
        *,
        status: int = 0,
        retry: bool,
        wait_ms: int = 0,
        retry_after: str | None = None,
        resets_at: str | None = None,
        took: float = 0.4,
    ) -> ModelError:
        error = ModelError(
            kind,
            message,
            status,
            parse_rfc3339(retry_after)[0] if retry_after else None,
            parse_rfc3339(resets_at)[0] if resets_at else None,
        )
        self.add("model_error", ModelErrorEntry(error, retry, wait_ms), took * 1000)
        if retry:
            self.now += wait_ms * MS  # the loop sleeps before the next attempt
        return error

    def run_ended(self, reason: str, ms: float = 1, **fields: Any) -> Outcome:
        run = self.run
        defaults: dict[str, Any] = {
            "turns": run.turns,
            "usage": run.usage,
            "text": run.text,
            "refused": tuple(run.refused),
        }
        defaults.update(fields)
        outcome = Outcome(reason, **defaults)
        self.add("run_ended", outcome, ms)
        return outcome

    def forbidden_run(self, prompt: str, forbidden: Iterable[str]) -> None:
        """A run on a session that holds a label it may not: nothing runs."""
        self.run_started(prompt)
        self.run_ended("forbidden", forbidden=tuple(sorted(forbidden)), text="", refused=())


def disp(
    title: str,
    body: str,
    labels: Iterable[str],
    sources: Iterable[tuple[str, str]],
    ref: str = "",
) -> Display:
    return Display(
        title, body, tuple(sorted(set(labels))), tuple(Source(t, r) for t, r in sources), ref
    )


# Anthropic list prices (USD per million tokens): input, output, cache write, cache read.
SONNET_PRICES = (3.0, 15.0, 3.75, 0.30)


def cost_usd(usage: Usage, prices: tuple[float, float, float, float]) -> float:
    """What ``Prices.Cost`` gives, summed in the order of the seed's ``Prices`` fields."""
    p_in, p_out, p_cw, p_cr = prices
    return (
        float(usage.input_tokens) * p_in
        + float(usage.output_tokens) * p_out
        + float(usage.cache_write_tokens) * p_cw
        + float(usage.cache_read_tokens) * p_cr
    ) / 1e6


# The scenarios. Each returns the file's bytes.

SONNET = "claude-sonnet-4-5"
HAIKU = "claude-haiku-4-5"
OPUS = "claude-opus-5-5"  # the seed's example model
GPT5 = "gpt-5"
GPT5_MINI = "gpt-5-mini"
GPT41 = "gpt-4.1"


def s01_one_run_tool() -> bytes:
    b = LogBuilder("01_one_run_tool", "2026-10-18T09:30:00.118402213+02:00")
    b.run_started("What time is it?")
    b.user("What time is it?")
    [clock] = b.anthropic(
        SONNET,
        text="I'll check the clock.",
        calls=[Call("clock", {})],
        usage=U(612, 41),
        took=1.9,
    )
    b.allow(clock, "09:30", took=0.4)
    b.anthropic(SONNET, text="It's 09:30.", usage=U(671, 9), took=1.1)
    b.run_ended("completed")
    return b.bytes()


def s02_runs_anthropic_openai_cache() -> bytes:
    b = LogBuilder("02_runs_anthropic_openai_cache", "2026-10-12T14:02:11.507118930+02:00")
    venues = (
        "# Venues\n\n"
        "| venue | city | seats | price/day |\n"
        "| --- | --- | --- | --- |\n"
        "| Kulturbrauerei | Berlin | 120 | EUR 4,200 |\n"
        "| Zeche Zollverein | Essen | 80 | EUR 2,950 |\n"
        "| Gläserne Manufaktur | Dresden | 60 | EUR 3,100 |\n"
    )
    dates = "Team availability, November 2026:\n- 9-13 Nov: 11 of 12\n- 16-20 Nov: 12 of 12\n"

    # Run 1: Anthropic, with extended thinking; the first call writes the prompt cache.
    prompt = "Plan our team offsite: pick a venue from notes/venues.md and a week in November."
    b.run_started(prompt)
    b.user(prompt)
    read1, read2 = b.anthropic(
        SONNET,
        thinking="The user wants a venue and a week. Read the venue list and the availability "
        "notes first, both at once.",
        text="Let me read the venue list and the team's availability.",
        calls=[
            Call("file_read", {"path": "notes/venues.md"}),
            Call("file_read", {"path": "notes/availability.md"}),
        ],
        usage=U(214, 163, cache_write=3_917),
        took=4.6,
    )
    b.allow(read1, venues, took=3)
    b.allow(read2, dates, took=2)
    b.anthropic(
        SONNET,
        thinking="All 12 are free 16-20 Nov. Berlin seats 120, more than needed; Dresden is "
        "cheapest for 12 but Essen is cheaper overall.",
        text="I suggest **Zeche Zollverein, Essen**, 16-20 November: everyone is free that "
        "week, and at EUR 2,950/day it is the cheapest venue with room for all 12.",
        usage=U(402, 288, cache_read=3_917),
        took=6.3,
    )
    b.run_ended("completed")

    # Run 2: OpenAI gpt-5 (the response names the snapshot that served it); cached input.
    b.at("2026-10-12T14:09:47.002215871+02:00")
    prompt = "How long is the train from Berlin to Essen? Check the DB timetable."
    b.run_started(prompt)
    b.user(prompt)
    served = "gpt-5-2025-08-07"
    [fetch] = b.openai(
        served,
        reasoning="Need a current timetable; fetch the DB connection page for Berlin Hbf to "
        "Essen Hbf.",
        reasoning_tokens=192,
        calls=[
            Call(
                "web_fetch",
                {"url": "https://int.bahn.de/en/connections?from=Berlin+Hbf&to=Essen+Hbf"},
            )
        ],
        usage=U(1_188, 311, cache_read=3_840),
        took=7.9,
    )
    b.allow(
        fetch,
        "ICE 945 Berlin Hbf 08:49 -> Essen Hbf 12:54 (4h05, direct)\n"
        "ICE 1041 Berlin Hbf 10:49 -> Essen Hbf 14:52 (4h03, direct)\n",
        took=1_450,
    )
    b.openai(
        served,
        reasoning="Two direct ICEs, just over four hours.",
        reasoning_tokens=64,
        text="About 4 hours: direct ICE trains take 4h03 to 4h05 (e.g. ICE 945 at 08:49, "
        "arriving 12:54).",
        usage=U(1_317, 145, cache_read=4_864),
        took=5.2,
    )
    b.run_ended("completed")

    # Run 3: Anthropic haiku with MaxTurns 2: reads the calendar twice and runs out of turns.
    b.at("2026-10-12T16:30:05.330000412+02:00")
    prompt = "Block 16-20 Nov in everyone's calendar and check for clashes."
    b.run_started(prompt)
    b.user(prompt)
    [cal] = b.anthropic(
        HAIKU,
        text="Checking the calendars first.",
        calls=[Call("calendar_list", {"from": "2026-11-16", "to": "2026-11-20"})],
        usage=U(96, 77, cache_read=3_917, cache_write=1_210),
        took=2.1,
    )
    b.allow(
        cal,
        '[{"who":"ana","what":"dentist","when":"2026-11-18T08:00"},'
        '{"who":"li","what":"conference talk (remote)","when":"2026-11-19T15:00"}]',
        took=320,
    )
    [block] = b.anthropic(
        HAIKU,
        text="Two small clashes (Ana's dentist, Li's remote talk); blocking the week anyway.",
        calls=[
            Call(
                "calendar_block",
                {"from": "2026-11-16", "to": "2026-11-20", "title": "Team offsite, Essen"},
            )
        ],
        usage=U(233, 118, cache_read=5_127),
        took=2.4,
    )
    b.allow(block, "blocked for 12 people", took=870)
    b.run_ended("limit", limit=LIMIT_TURNS)

    # Run 4: gpt-4.1 carries on.
    b.at("2026-10-12T16:41:19.908127004+02:00")
    prompt = "Go on: summarise what's settled."
    b.run_started(prompt)
    b.user(prompt)
    b.openai(
        GPT41,
        text="Settled: Zeche Zollverein in Essen, 16-20 November 2026, calendars blocked for "
        "all 12. Open: Ana's dentist appointment (18 Nov, 08:00) and Li's remote talk "
        "(19 Nov, 15:00) need a quiet room or a late start.",
        usage=U(2_190, 74, cache_read=4_096),
        took=2.8,
    )
    b.run_ended("completed")

    # Run 5: gpt-5-mini refuses.
    b.at("2026-10-12T16:44:02.71+02:00")
    prompt = "Find Li's home address so we can send the train tickets there."
    b.run_started(prompt)
    b.user(prompt)
    b.openai(
        GPT5_MINI,
        reasoning="",
        reasoning_tokens=128,
        refusal="I can't look up a colleague's home address. Please ask Li for a delivery "
        "address, or send the tickets by e-mail.",
        usage=U(2_431, 171),
        took=3.0,
    )
    b.run_ended("refused")
    return b.bytes()


def s03_crash_while_call_runs() -> bytes:
    b = LogBuilder("03_crash_while_call_runs", "2026-10-14T11:05:42.004173266+02:00")
    prompt = (
        "The nightly build failed again. Open a ticket for it and write the failing test "
        "names to reports/nightly.txt."
    )
    b.run_started(prompt)
    b.user(prompt)
    ticket, write = b.anthropic(
        SONNET,
        text="I'll open the ticket and write the report.",
        calls=[
            Call(
                "http_post",
                {
                    "url": "https://tracker.example.com/api/issues",
                    "body": {
                        "title": "Nightly build failing: test_resume_after_crash",
                        "labels": ["ci", "nightly"],
                    },
                },
            ),
            Call(
                "file_write",
                {"path": "reports/nightly.txt", "content": "test_resume_after_crash\n"},
            ),
        ],
        usage=U(1_337, 212, cache_write=2_048),
        took=3.7,
    )
    b.decision(ticket, "allow")
    b.call_started(ticket)
    # The process dies here: no tool_result, no run_ended.

    # Run 2, a bare resume some minutes later: settle the call that was running, run the one
    # that never started.
    b.at("2026-10-14T11:19:03.550127998+02:00")
    b.run_started()
    b.settle(ticket)
    b.allow(write, "wrote 24 bytes to reports/nightly.txt", took=2)
    [check] = b.anthropic(
        SONNET,
        text="The ticket request was interrupted, so it may or may not exist. Let me check "
        "before opening another.",
        calls=[
            Call(
                "http_get",
                {
                    "url": "https://tracker.example.com/api/issues?q="
                    "test_resume_after_crash&state=open"
                },
            )
        ],
        usage=U(1_602, 119, cache_read=2_048),
        took=2.9,
    )
    b.allow(
        check,
        '{"issues":[{"id":4172,"title":"Nightly build failing: test_resume_after_crash",'
        '"state":"open","created":"2026-10-14T09:05:49Z"}]}',
        took=410,
    )
    b.anthropic(
        SONNET,
        text="The ticket was created before the interruption: #4172. I did not open a "
        "duplicate. The failing test is written to reports/nightly.txt.",
        usage=U(1_811, 58, cache_read=2_048),
        took=2.2,
    )
    b.run_ended("completed")
    return b.bytes()


def s04_torn_tail() -> bytes:
    b = LogBuilder("04_torn_tail", "2026-10-15T18:20:07.731226004+02:00")
    prompt = "What's on the menu at Café Müller this week?"
    b.run_started(prompt)
    b.user(prompt)
    [fetch] = b.anthropic(
        HAIKU,
        calls=[Call("web_fetch", {"url": "https://cafe-mueller.example.de/wochenkarte"})],
        usage=U(544, 61),
        took=1.4,
    )
    menu = (
        "Wochenkarte 12.\u201316. Oktober\n"
        "Mo: Kürbissuppe mit Ingwer \u2013 6,50 €\n"
        "Di: Käsespätzle \u2013 9,80 €\n"
        "Mi: Flammkuchen „Elsässer Art“ \u2013 8,90 €\n"
    )
    b.allow(fetch, menu, took=612)
    b.anthropic(
        HAIKU,
        text="This week: pumpkin soup with ginger (Mon, €6.50), Käsespätzle (Tue, €9.80) "
        "and Alsatian Flammkuchen (Wed, €8.90).",
        usage=U(702, 64),
        took=1.8,
    )
    b.run_ended("completed")

    b.at("2026-10-19T08:02:55.409871332+02:00")
    prompt = "And next week's?"
    b.run_started(prompt)
    b.user(prompt)
    [fetch] = b.anthropic(
        HAIKU,
        calls=[Call("web_fetch", {"url": "https://cafe-mueller.example.de/wochenkarte?woche=43"})],
        usage=U(771, 66),
        took=1.3,
    )
    b.decision(fetch, "allow")
    b.call_started(fetch)
    menu = (
        "Wochenkarte 19.\u201323. Oktober\n"
        "Mo: Linsensuppe \u2013 6,20 €\n"
        "Di: Rösti mit Spiegelei \u2013 9,40 €\n"
        "Mi: Maultaschen in Brühe \u2013 8,70 €\n"
        "Do: Zwiebelkuchen & Federweißer \u2013 7,90 €\n"
    )
    b.tool_result(fetch, menu, ms=530)
    # The machine lost power in the middle of this write: cut inside "ö" of "Rösti".
    last = b.lines[-1]
    cut = last.index("Rösti".encode()) + 2  # after "R" and the first byte of "ö"
    assert last[cut - 1] >= 0xC0  # a lead byte: the character is cut in two
    b.lines[-1] = last[:cut]
    b.final_newline = False
    return b.bytes()


def s05_damaged_middle_line() -> bytes:
    b = LogBuilder("05_damaged_middle_line", "2026-10-16T10:11:12.131415161+02:00")
    prompt = "Count the TODO comments under src/ and list the files with the most."
    b.run_started(prompt)
    b.user(prompt)
    [grep] = b.anthropic(
        SONNET,
        calls=[Call("grep", {"pattern": "TODO", "path": "src/", "count": True})],
        usage=U(488, 52, cache_write=1_536),
        took=1.7,
    )
    b.allow(grep, "src/loop.go:14\nsrc/session.go:9\nsrc/store.go:3\nsrc/policy.go:1\n", took=88)
    b.anthropic(
        SONNET,
        text="27 TODOs in 4 files; most in src/loop.go (14) and src/session.go (9).",
        usage=U(603, 37, cache_read=1_536),
        took=1.5,
    )
    b.run_ended("completed")

    b.at("2026-10-16T10:40:01.000918273+02:00")
    prompt = "Open an issue for each file with more than 5."
    b.run_started(prompt)
    b.user(prompt)
    issue1, issue2 = b.anthropic(
        SONNET,
        calls=[
            Call("issue_create", {"title": "Clean up TODOs in src/loop.go (14)"}),
            Call("issue_create", {"title": "Clean up TODOs in src/session.go (9)"}),
        ],
        usage=U(702, 96, cache_read=1_536),
        took=2.0,
    )
    b.allow(issue1, "created issue #212", took=300)
    b.decision(issue2, "allow")
    b.call_started(issue2)
    b.tool_result(issue2, "created issue #213", ms=280)
    # The writer died in the middle of that line. A later run found it at the end of the log
    # (where a torn line is ignored) and appended after it, on a new line, with the same seq.
    torn = b.lines[-1]
    b.lines[-1] = torn[: torn.index(b'"content"') + 14]
    b.seq -= 1

    b.at("2026-10-16T11:02:30.77+02:00")
    b.run_started()
    b.settle(issue2)
    [search] = b.anthropic(
        SONNET,
        text="The second issue may or may not have been created; checking.",
        calls=[Call("issue_search", {"query": "TODOs in src/session.go"})],
        usage=U(811, 61, cache_read=1_536),
        took=1.9,
    )
    b.allow(search, "#213 Clean up TODOs in src/session.go (9) [open]", took=190)
    b.anthropic(
        SONNET,
        text="Both exist: #212 (src/loop.go) and #213 (src/session.go).",
        usage=U(884, 29, cache_read=1_536),
        took=1.2,
    )
    b.run_ended("completed")
    return b.bytes()


def s06_transcript() -> bytes:
    # `agentloop run` on an existing session whose next entry is seq 17: it prints that run's
    # entries, then the outcome with the run's cost.
    b = LogBuilder("06_transcript", "2026-10-20T15:45:30.250917443+02:00", seq=17)
    prompt = "Which of yesterday's invoices are still unpaid?"
    b.run_started(prompt)
    b.user(prompt)
    [query] = b.anthropic(
        SONNET,
        thinking="Query the invoices table for yesterday, status not paid.",
        calls=[
            Call(
                "sql_query",
                {
                    "query": "SELECT number, customer, amount_eur FROM invoices "
                    "WHERE issued = DATE '2026-10-19' AND paid_at IS NULL ORDER BY number"
                },
            )
        ],
        usage=U(318, 121, cache_read=6_144),
        took=3.4,
    )
    b.allow(
        query,
        "number  customer          amount_eur\n"
        "R-1041  Brandt & Söhne    1,240.00\n"
        "R-1044  Lumen GmbH          385.50\n",
        took=145,
    )
    b.anthropic(
        SONNET,
        text="Two of yesterday's invoices are unpaid: R-1041 (Brandt & Söhne, EUR 1,240.00) "
        "and R-1044 (Lumen GmbH, EUR 385.50).",
        usage=U(441, 58, cache_read=6_144),
        took=2.6,
    )
    outcome = b.run_ended("completed")
    # The closing line: the Outcome's fields, then cost_usd.
    line = b.lines[-1]
    start = line.index(b',"run_ended":') + len(b',"run_ended":')
    body = line[start:-1]
    cost = dumps(cost_usd(outcome.usage, SONNET_PRICES))
    b.lines.append(body[:-1] + b',"cost_usd":' + cost + b"}")
    return b.bytes()


def s07_model_errors() -> bytes:
    b = LogBuilder("07_model_errors", "2026-10-17T07:58:03.090807060Z")
    prompt = "Summarise the overnight alerts from #ops-alerts."
    b.run_started(prompt)
    b.user(prompt)
    b.model_error(
        "rate_limited",
        "rate_limit_error: This request would exceed the rate limit for your organization "
        "of 30,000 input tokens per minute.",
        status=429,
        retry=True,
        wait_ms=2_000,
        retry_after="2026-10-17T07:58:05.493120877Z",
        resets_at="2026-10-17T07:59:00Z",
        took=0.4,
    )
    b.model_error(
        "overloaded",
        "overloaded_error: Overloaded",
        status=529,
        retry=True,
        wait_ms=4_000,
        took=0.9,
    )
    [read] = b.anthropic(
        SONNET,
        calls=[Call("slack_history", {"channel": "#ops-alerts", "since": "2026-10-16T20:00:00Z"})],
        usage=U(1_402, 73, cache_write=2_560),
        took=2.3,
    )
    b.allow(
        read,
        "[02:14] disk usage > 90% on db-2\n[02:31] disk usage back to 71% on db-2\n"
        "[05:02] p99 latency > 800ms on api (5 min)\n",
        took=260,
    )
    b.anthropic(
        SONNET,
        text="Two alerts overnight, both resolved: db-2's disk passed 90% at 02:14 and was "
        "back to 71% by 02:31; the API's p99 latency passed 800 ms for five minutes at 05:02.",
        usage=U(1_577, 66, cache_read=2_560),
        took=2.5,
    )
    b.run_ended("completed")

    # Run 2: OpenAI, the first attempt never gets an answer.
    b.at("2026-10-17T09:12:40.600100200Z")
    prompt = "Draft a short status update from that for the team."
    b.run_started(prompt)
    b.user(prompt)
    b.model_error(
        "unreachable",
        'Post "https://api.openai.com/v1/responses": read tcp '
        "10.0.3.15:51234->162.159.140.245:443: read: connection reset by peer",
        retry=True,
        wait_ms=2_000,
        took=30.0,
    )
    b.openai(
        GPT5_MINI,
        reasoning="",
        reasoning_tokens=64,
        text="Status: quiet night. db-2's disk briefly passed 90% (02:14-02:31) and API p99 "
        "latency spiked to >800 ms for 5 min at 05:02. No action needed; watching db-2.",
        usage=U(2_306, 140),
        took=3.3,
    )
    b.run_ended("completed")

    # Run 3: the key was revoked.
    b.at("2026-10-17T16:00:00.000201Z")
    prompt = "Post it to #team."
    b.run_started(prompt)
    b.user(prompt)
    error = b.model_error(
        "unauthorized",
        "authentication_error: invalid x-api-key",
        status=401,
        retry=False,
        took=0.2,
    )
    b.run_ended("model_error", error=error)
    return b.bytes()


def s08_tool_model_calls() -> bytes:
    b = LogBuilder("08_tool_model_calls", "2026-10-21T13:00:00.999000001+02:00")
    prompt = "Summarise the three design docs in docs/rfc/ in a paragraph each."
    b.run_started(prompt)
    b.user(prompt)
    [summ] = b.anthropic(
        SONNET,
        text="I'll have the summarizer read them.",
        calls=[Call("summarize", {"paths": ["docs/rfc/0007.md", "docs/rfc/0008.md"]})],
        usage=U(702, 88, cache_write=1_024),
        took=2.2,
    )
    b.allow(
        summ,
        "0007 (session log): every entry is one JSON line, appended and synced; a crash loses "
        "at most the line being written.\n"
        "0008 (policies): a policy sees the call and the session's labels, never the "
        "conversation; labels are never removed.",
        took=9_800,
        usage=[
            ModelUsage(HAIKU, U(18_240, 412)),
            ModelUsage(HAIKU, U(9_876, 305, cache_read=2_048)),
        ],
        log="summarize: 2 files, 2 model calls (claude-haiku-4-5)",
    )
    [summ] = b.anthropic(
        SONNET,
        text="That was two; the third is 0009.",
        calls=[Call("summarize", {"paths": ["docs/rfc/0009.md"]})],
        usage=U(944, 61, cache_read=1_024),
        took=1.9,
    )
    b.allow(
        summ,
        "0009 (retries): rate limits wait until the provider's retry-after; overloaded and "
        "unreachable back off from 2 s, doubling, capped by MaxWait.",
        took=5_100,
        usage=[ModelUsage(HAIKU, U(7_410, 188))],
        log="summarize: 1 file, 1 model call (claude-haiku-4-5)",
    )
    b.anthropic(
        SONNET,
        text="**RFC 0007** keeps the session as an append-only JSON-lines log...\n\n"
        "**RFC 0008** gives policies the call and the labels only...\n\n"
        "**RFC 0009** sorts failures by what to do about them...",
        usage=U(1_130, 245, cache_read=1_024),
        took=4.4,
    )
    b.run_ended("completed")

    # Run 2, with Limits.MaxTokens 40000: the tool's model calls use up the budget.
    b.at("2026-10-21T13:20:12.5+02:00")
    prompt = "Now summarise every RFC in docs/rfc/archive/."
    b.run_started(prompt)
    b.user(prompt)
    [summ] = b.anthropic(
        SONNET,
        calls=[Call("summarize", {"paths": ["docs/rfc/archive/"]})],
        usage=U(1_402, 47, cache_read=1_024),
        took=1.6,
    )
    b.allow(
        summ,
        "41 files summarised; the summaries are in out/archive-summaries.md (38 KB).",
        took=48_000,
        usage=[ModelUsage(HAIKU, U(31_877, 2_950)), ModelUsage(HAIKU, U(8_102, 1_433))],
        log="summarize: 41 files, 2 model calls (claude-haiku-4-5), batched",
    )
    b.run_ended("limit", limit=LIMIT_TOKENS)
    return b.bytes()


def s09_refused_and_forbidden() -> bytes:
    # The agent forbids "private".
    b = LogBuilder("09_refused_and_forbidden", "2026-10-22T10:00:05.123+02:00")
    prompt = "Who is on call this week, and what's their phone number?"
    b.run_started(prompt)
    b.user(prompt)
    rota, hr = b.anthropic(
        OPUS,
        thinking="The rota says who; the phone number is in the HR directory.",
        calls=[
            Call("wiki_read", {"page": "ops/on-call-rota"}),
            Call("hr_lookup", {"name": "Jonas Weber", "fields": ["phone"]}),
        ],
        usage=U(690, 133, cache_write=1_800),
        took=3.9,
    )
    b.allow(rota, "Week 43 (19-25 Oct): Jonas Weber; backup: Priya Raman", labels=["wiki"], took=90)
    b.refuse(
        hr,
        forbidden=["private"],  # the result carried "hr" and "private"
        took=140,
        log="hr_lookup: 1 record from hr.internal (fields: phone)",
    )
    b.anthropic(
        OPUS,
        text="Jonas Weber is on call this week (backup: Priya Raman). I can't give you the "
        "phone number: that result was withheld from me. The on-call page in PagerDuty has it.",
        usage=U(841, 62, cache_read=1_800),
        took=2.7,
    )
    b.run_ended("completed")

    # The operator attached the session to a private case file: the session now holds
    # "private", which the agent forbids.
    b.at("2026-10-22T10:31:44.270635109+02:00")
    b.labels("case:2026-118", "private")
    b.at("2026-10-22T10:32:10.004001+02:00")
    b.forbidden_run("Draft the on-call handover note.", ["private"])
    return b.bytes()


def s10_policy_deny_and_limit() -> bytes:
    # The policy: shell runs only read-only commands; web_fetch labels "untrusted" and "web",
    # and the agent forbids "untrusted".
    b = LogBuilder("10_policy_deny_and_limit", "2026-10-23T09:14:00.000000009+02:00")
    prompt = "Clean the build directory, then check whether go 1.27.3 is out."
    b.run_started(prompt)
    b.user(prompt)
    rm, fetch = b.anthropic(
        SONNET,
        calls=[
            Call("shell", {"command": "rm -rf build/"}),
            Call("web_fetch", {"url": "https://go.dev/dl/?mode=json"}),
        ],
        usage=U(905, 90, cache_write=2_300),
        took=2.4,
    )
    b.deny(rm, "shell: only read-only commands may run in this session (rm is not one)")
    b.forbid_decision(fetch, ["untrusted", "web"])
    [ls] = b.anthropic(
        SONNET,
        text="I may not delete files or fetch web pages here. I'll list what's in build/ instead.",
        calls=[Call("shell", {"command": "ls -la build/"})],
        usage=U(1_149, 71, cache_read=2_300),
        took=2.0,
    )
    b.allow(
        ls,
        "total 16\ndrwxr-xr-x 2 dev dev 4096 Oct 23 09:10 .\n"
        "-rw-r--r-- 1 dev dev 5120 Oct 23 09:10 agentloop.tar\n",
        took=18,
        log="$ ls -la build/\nexit status 0",
    )
    b.anthropic(
        SONNET,
        text="I couldn't do either: deleting is not allowed here, and web pages are off "
        "limits for this session. build/ holds one file, agentloop.tar (5 KB); run "
        "`rm -rf build/` yourself if you want it gone.",
        usage=U(1_321, 79, cache_read=2_300),
        took=2.2,
    )
    b.run_ended("completed")

    # Run 2 with Limits.MaxToolCalls 3.
    b.at("2026-10-23T09:30:00.1+02:00")
    prompt = "Read the four config files in conf/ and tell me which sets a proxy."
    b.run_started(prompt)
    b.user(prompt)
    names = ["app.toml", "db.toml", "net.toml", "log.toml"]
    c1, c2 = b.anthropic(
        SONNET,
        calls=[Call("file_read", {"path": f"conf/{n}"}) for n in names[:2]],
        usage=U(1_480, 84, cache_read=2_300),
        took=1.8,
    )
    b.allow(c1, 'name = "agentloop"\nlisten = ":8080"\n', took=2)
    b.allow(c2, 'dsn = "postgres://db:5432/app"\npool = 10\n', took=2)
    c3, c4 = b.anthropic(
        SONNET,
        text="Neither sets a proxy; reading the other two.",
        calls=[Call("file_read", {"path": f"conf/{n}"}) for n in names[2:]],
        usage=U(1_650, 92, cache_read=2_300),
        took=1.9,
    )
    b.allow(c3, 'proxy = "http://proxy.internal:3128"\nno_proxy = "localhost"\n', took=2)
    b.over_limit(c4)
    b.run_ended("limit", limit=LIMIT_TOOL_CALLS)
    return b.bytes()


def s11_nanosecond_offsets() -> bytes:
    # One session resumed from machines in several zones, across the end of summer time in
    # Berlin (2026-10-25 03:00 CEST = 02:00 CET = 01:00 UTC).
    b = LogBuilder("11_nanosecond_offsets", "2026-10-25T02:58:59.999999999+02:00")
    prompt = "Start the nightly export and tell me when it's done."
    b.run_started(prompt)
    b.at("2026-10-25T02:59:00+02:00").user(prompt)
    [start] = b.at("2026-10-25T02:59:02.5+02:00").anthropic(
        HAIKU, calls=[Call("export_start", {"dataset": "events"})], usage=U(377, 40), took=2
    )
    b.at("2026-10-25T02:59:02.500000001+02:00").decision(start, "allow")
    b.at("2026-10-25T02:59:02.500000401+02:00").call_started(start)  # 400 ns later
    b.at("2026-10-25T02:00:01.000000001+01:00").tool_result(start, "export 7731 started")
    [wait] = b.at("2026-10-25T02:00:02.87+01:00").anthropic(
        HAIKU,
        calls=[Call("export_wait", {"id": 7731, "timeout_s": 3600})],
        usage=U(431, 44),
        took=2,
    )
    b.at("2026-10-25T02:00:02.870004+01:00").decision(wait, "allow")
    b.at("2026-10-25T02:00:02.8700044+01:00").call_started(wait)
    b.at("2026-10-25T02:41:10.123456789+01:00").tool_result(wait, "export 7731 done: 1.2 GB")
    b.at("2026-10-25T02:41:13.000000001+01:00").anthropic(
        HAIKU, text="The export finished at 02:41 (1.2 GB).", usage=U(489, 17), took=2
    )
    b.at("2026-10-25T02:41:13.1+01:00").run_ended("completed")

    # From a CI runner in UTC.
    b.at("2026-10-25T08:00:00Z")
    prompt = "Is export 7731 downloadable?"
    b.run_started(prompt)
    b.user(prompt)
    [head] = b.anthropic(
        HAIKU, calls=[Call("export_status", {"id": 7731})], usage=U(540, 35), took=1.4
    )
    b.allow(head, "ready; url expires 2026-10-26T01:00:00Z", took=60)
    b.anthropic(HAIKU, text="Yes, until 01:00 UTC tomorrow.", usage=U(601, 12), took=1.0)
    b.run_ended("completed")

    # From San Francisco (still on summer time, -07:00).
    b.at("2026-10-25T09:15:30.000000001-07:00")
    prompt = "Share the export link with the analytics team."
    b.run_started(prompt)
    b.user(prompt)
    [share] = b.anthropic(
        HAIKU,
        calls=[Call("export_share", {"id": 7731, "group": "analytics"})],
        usage=U(655, 41),
        took=1.5,
    )
    b.allow(share, "shared with analytics (9 people)", took=210)
    b.anthropic(HAIKU, text="Shared with the 9 people in analytics.", usage=U(712, 14), took=1)
    b.run_ended("completed")

    # From Bengaluru (+05:30), then Kathmandu (+05:45).
    b.at("2026-10-26T06:00:00.25+05:30")
    prompt = "Did anyone download it yet?"
    b.run_started(prompt)
    b.user(prompt)
    b.anthropic(
        HAIKU,
        text="I can't see download logs from here; the export service doesn't expose them.",
        usage=U(738, 23),
        took=1.2,
    )
    b.run_ended("completed")
    b.at("2026-10-26T06:30:00.000000100+05:45")
    prompt = "Then delete it at the end of the week."
    b.run_started(prompt)
    b.user(prompt)
    [sched] = b.anthropic(
        HAIKU,
        calls=[Call("export_expire", {"id": 7731, "at": "2026-10-30T18:00:00+01:00"})],
        usage=U(790, 47),
        took=1.4,
    )
    b.allow(sched, "expiry set to 2026-10-30T17:00:00Z", took=95)
    b.anthropic(HAIKU, text="It will be deleted on Friday at 18:00 CET.", usage=U(851, 16))
    b.run_ended("completed")
    return b.bytes()


def s12_odd_bytes() -> bytes:
    # Lines from an earlier agentloop that logged tool inputs and provider data verbatim.
    b = LogBuilder("12_odd_bytes", "2026-10-24T16:20:00.204060801+02:00")
    prompt = "Copy the notes files into archive/ and tell me what they say."
    b.run_started(prompt)
    b.user(prompt)

    # A tool input holding a byte that is not UTF-8 (Latin-1 "é"), in the part and the data.
    latin1 = RawJSON(b'{"path":"notes/caf\xe9.txt","dest":"archive/"}')
    call1 = Call("file_copy", latin1, "toolu_01HbqK8y2Vd5pYw3RtNc7LmE")
    data = RawJSON(
        b'{"id":"msg_01XaFvM3kQ9tTb2rWc8ZyLp4","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01HbqK8y2Vd5pYw3RtNc7LmE","name":"file_copy",'
        b'"input":{"path":"notes/caf\xe9.txt","dest":"archive/"}}],'
        b'"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":812,"output_tokens":77}}'
    )
    part = Part("tool_call", tool_call=ToolCall(call1.id, call1.name, call1.input))
    b.assistant("anthropic", SONNET, [part], data, stop="tool_use", usage=U(812, 77), took=2.1)
    b.allow(call1, "copied 1 file (1.4 KB)", took=12)

    # A tool input naming "path" twice (Go's decoder takes the last).
    dup = RawJSON(b'{"path":"a.txt","path":"b.txt"}')
    call2 = Call("file_read", dup, "toolu_01Pm4sXe8NcVb7QwTr2JyKd9")
    data = RawJSON(
        b'{"id":"msg_01Rz7nW2cQ8vXp5tLm3KbJy6","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01Pm4sXe8NcVb7QwTr2JyKd9","name":"file_read",'
        b'"input":{"path":"a.txt","path":"b.txt"}}],'
        b'"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":905,"output_tokens":58}}'
    )
    part = Part("tool_call", tool_call=ToolCall(call2.id, call2.name, call2.input))
    b.assistant("anthropic", SONNET, [part], data, stop="tool_use", usage=U(905, 58), took=1.8)
    # Through normal strings: <, >, & and U+2028 are escaped by Go; U+0085 is not.
    b.allow(
        call2,
        "b.txt: if a < b && b > c {\u2028return\u2028}\u0085(next line)",
        took=3,
    )

    # A tool input with a raw U+2028 and a raw U+0085 inside a string. Go's encoder escapes
    # U+2028 when it writes a RawMessage, so a current agentloop would not write this line.
    raw_seps = RawJSON(
        '{"path":"archive/notes.txt","content":"line one\u2028line two\u0085line three"}'.encode()
    )
    call3 = Call("file_write", raw_seps, "toolu_01Wq3vBn6TcXk9PzLr4MdHs2")
    data = RawJSON(
        b'{"id":"msg_01Ln5bT8rWq2XvKc7MzPj3Fy","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01Wq3vBn6TcXk9PzLr4MdHs2","name":"file_write",'
        b'"input":{"path":"archive/notes.txt","content":"line one\\u2028line two\\u0085line '
        b'three"}}],"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":1010,"output_tokens":64}}'
    )
    part = Part("tool_call", tool_call=ToolCall(call3.id, call3.name, call3.input))
    b.assistant("anthropic", SONNET, [part], data, stop="tool_use", usage=U(1_010, 64), took=1.9)
    b.allow(call3, "wrote 35 bytes to archive/notes.txt", took=4)

    # Provider data holding an escaped lone surrogate (a truncated emoji); the neutral text
    # has U+FFFD where Go's decoder put it.
    data = RawJSON(
        b'{"id":"msg_01Tg6mP4xZw9KcVb2Nr8Lq3J","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"text","text":'
        b'"Copied both files. a.txt and b.txt say the same thing \\ud83d"}],'
        b'"stop_reason":"end_turn","stop_sequence":null,'
        b'"usage":{"input_tokens":1102,"output_tokens":21}}'
    )
    text = "Copied both files. a.txt and b.txt say the same thing \ufffd"
    b.assistant(
        "anthropic",
        SONNET,
        [Part("text", text)],
        data,
        stop="end_turn",
        usage=U(1_102, 21),
        took=1.3,
    )
    b.run_ended("completed")
    return b.bytes()


def s13_labels_and_pins() -> bytes:
    b = LogBuilder("13_labels_and_pins", "2026-10-18T08:59:59.000000001+02:00")
    # The session is created with a starting label, before any run.
    b.labels("project:apollo")
    prompt = "Find a venue for the Apollo kickoff in notes/ and draft an invitation."
    b.at("2026-10-18T09:00:04.417263112+02:00")
    b.run_started(prompt)
    # The MCP tools' definitions, pinned by their first run.
    b.pins(
        {
            "mail_draft": sha256_pin('{"name":"draft","inputSchema":{"type":"object"}}'),
            "file_read": sha256_pin('{"name":"read","inputSchema":{"type":"object"}}'),
        }
    )
    b.user(prompt)
    [read] = b.anthropic(
        OPUS,
        thinking="Read the venue notes.",
        calls=[Call("file_read", {"path": "notes/venues.md"})],
        usage=U(1_220, 70, cache_write=3_072),
        took=3.1,
    )
    ref = "shown:2026-10-18/" + read.id.lower()
    b.decision(read, "allow", labels=["private"])
    b.call_started(read)
    b.tool_result(
        read,
        "Kulturbrauerei (Berlin, 120 seats, EUR 4,200/day); Zeche Zollverein (Essen, 80 "
        "seats, EUR 2,950/day). Both free on 12 Nov.",
        labels=["doc:notes/venues.md"],
        log="files-mcp: read notes/venues.md (2.1 KB)",
        display=disp(
            "Venues for the Apollo kickoff",
            "## Venues\n\n- **Kulturbrauerei**, Berlin: 120 seats, EUR 4,200/day\n"
            "- **Zeche Zollverein**, Essen: 80 seats, EUR 2,950/day\n\n"
            "_Both are free on 12 November._",
            ["doc:notes/venues.md", "private", "project:apollo"],
            [
                ("Venue notes", "doc:notes/venues.md"),
                ("Kulturbrauerei", "web:https://www.kulturbrauerei.de/"),
            ],
            ref,
        ),
        ms=35,
    )
    [draft] = b.anthropic(
        OPUS,
        text="Zeche Zollverein fits and is cheaper. Drafting the invitation.",
        calls=[
            Call(
                "mail_draft",
                {
                    "to": ["apollo-team@example.com"],
                    "subject": "Apollo kickoff, 12 Nov, Zeche Zollverein",
                    "body": "Hi all, the Apollo kickoff is on 12 November at Zeche "
                    "Zollverein in Essen. Details follow.",
                },
            )
        ],
        usage=U(1_388, 142, cache_read=3_072),
        took=4.0,
    )
    b.allow(
        draft,
        "draft saved (id d-5521)",
        decision_labels=["mail:apollo-team@example.com"],
        labels=["mail:draft"],
        took=260,
    )
    b.anthropic(
        OPUS,
        text="The invitation is drafted (d-5521), for Zeche Zollverein in Essen on 12 "
        "November. It is not sent.",
        usage=U(1_540, 40, cache_read=3_072),
        took=2.2,
    )
    b.run_ended("completed")

    # Between runs the operator gives the session another label.
    b.at("2026-10-18T09:30:00+02:00")
    b.labels("reviewed:kira")
    b.at("2026-10-18T09:41:27.31+02:00")
    prompt = "Add the agenda from notes/agenda.md to the draft."
    b.run_started(prompt)
    b.user(prompt)
    [read] = b.anthropic(
        OPUS,
        calls=[Call("file_read", {"path": "notes/agenda.md"})],
        usage=U(1_631, 52, cache_read=3_072),
        took=2.0,
    )
    b.allow(
        read,
        "09:30 welcome\n10:00 roadmap\n12:30 lunch\n14:00 workshops\n17:00 drinks\n",
        decision_labels=["private"],
        labels=["doc:notes/agenda.md"],
        took=30,
    )
    [upd] = b.anthropic(
        OPUS,
        calls=[Call("mail_draft", {"id": "d-5521", "append": "Agenda: 09:30 welcome ..."})],
        usage=U(1_742, 96, cache_read=3_072),
        took=2.6,
    )
    b.allow(
        upd,
        "draft d-5521 updated",
        decision_labels=["mail:apollo-team@example.com"],
        display=disp(
            "Draft d-5521",
            "**To:** apollo-team@example.com\n\n**Subject:** Apollo kickoff, 12 Nov\n\n"
            "Hi all, ... Agenda: 09:30 welcome, 10:00 roadmap, 12:30 lunch, 14:00 "
            "workshops, 17:00 drinks.",
            [
                "doc:notes/agenda.md",
                "doc:notes/venues.md",
                "mail:apollo-team@example.com",
                "mail:draft",
                "private",
                "project:apollo",
                "reviewed:kira",
            ],
            [],
        ),
        took=240,
    )
    # Go writes a display's nil Sources as null (the field is not omitempty); the encoder
    # writes an empty tuple as [], so this line is finished by hand.
    line = b.lines[-1]
    assert line.count(b'"sources":[]') == 1
    b.lines[-1] = line.replace(b'"sources":[]', b'"sources":null')
    b.anthropic(
        OPUS,
        text="Added the agenda to draft d-5521.",
        usage=U(1_870, 13, cache_read=3_072),
        took=1.4,
    )
    b.run_ended("completed")
    return b.bytes()


def s14_empty() -> bytes:
    return b""


def s15_unknown_entry() -> bytes:
    b = LogBuilder("15_unknown_entry", "2026-10-26T11:11:11.111111111+01:00")
    prompt = "Translate README.md into German."
    b.run_started(prompt)
    b.user(prompt)
    [read] = b.openai(
        GPT5,
        reasoning="Read the file first.",
        reasoning_tokens=128,
        calls=[Call("file_read", {"path": "README.md"})],
        usage=U(1_450, 190, cache_read=1_024),
        took=4.0,
    )
    b.decision(read, "allow")
    b.call_started(read)
    # A newer agentloop: a tool_result with a field this version does not know...
    b.tool_result(read, "# agentloop\n\nagentloop runs a language model in a loop with tools.")
    line = b.lines[-1]
    assert line.endswith(b"}}")
    b.lines[-1] = line[:-2] + b',"duration_ms":412}}'
    # ... and an entry of a type it does not know.
    checkpoint = {
        "messages": 3,
        "labels": [],
        "usage": {"input_tokens": 1450, "output_tokens": 190, "cache_read_tokens": 1024},
        "digest": sha256_pin("checkpoint/15/3"),
    }
    b.add("checkpoint", UnknownEntry("checkpoint", checkpoint), ms=1)
    b.openai(
        GPT5,
        reasoning="",
        reasoning_tokens=512,
        text="# agentloop\n\nagentloop führt ein Sprachmodell in einer Schleife mit "
        "Werkzeugen aus.",
        usage=U(1_560, 830, cache_read=1_024),
        took=9.5,
    )
    b.run_ended("completed")

    b.at("2026-10-26T11:30:00.000000002+01:00")
    prompt = "Now the whole of DESIGN.md."
    b.run_started(prompt)
    b.user(prompt)
    b.openai(
        GPT5,
        reasoning="Long document; translate section by section.",
        reasoning_tokens=900,
        text="# Entwurf\n\nDieses Dokument beschreibt den Entwurf von agentloop: die Sitzung, "
        "die Schleife, die Richtlinien und",
        usage=U(14_022, 4_096, cache_read=1_536),
        stop="max_tokens",
        took=61.0,
    )
    b.run_ended("max_tokens")
    return b.bytes()


def s16_canceled_pending() -> bytes:
    b = LogBuilder("16_canceled_pending", "2026-10-27T17:45:12.360912488+01:00")
    prompt = "Run the full test suite and tell me what fails."
    b.run_started(prompt)
    b.user(prompt)
    [test] = b.anthropic(
        OPUS,
        text="Running the whole suite; this takes a while.",
        calls=[Call("command", {"args": ["make", "test"]})],
        usage=U(960, 58, cache_write=1_900),
        took=2.3,
    )
    b.decision(test, "allow")
    b.call_started(test)
    # The operator pressed Ctrl-C while `make test` ran: the run ends, the call has no result.
    b.run_ended("canceled", ms=95_000)

    b.at("2026-10-27T17:48:03.119+01:00")
    prompt = "Just the unit tests then."
    b.run_started(prompt)
    b.settle(test)
    b.user(prompt)
    [unit] = b.anthropic(
        OPUS,
        text="The full run was interrupted and may have partly run. Running the unit tests only.",
        calls=[Call("command", {"args": ["go", "test", "-short", "./..."]})],
        usage=U(1_102, 75, cache_read=1_900),
        took=2.5,
    )
    b.allow(
        unit,
        "ok  \tgithub.com/kirahowe/agentloop\t3.112s\n"
        "--- FAIL: TestResumeAfterCrash (0.02s)\n"
        "    session_test.go:212: settled result missing\n"
        "FAIL\tgithub.com/kirahowe/agentloop/internal/scenario\t1.907s\n",
        is_error=True,
        log="$ go test -short ./...\nexit status 1",
        took=12_400,
    )
    b.anthropic(
        OPUS,
        text="One unit test fails: TestResumeAfterCrash in internal/scenario "
        '(session_test.go:212, "settled result missing"). Everything else passes.',
        usage=U(1_290, 64, cache_read=1_900),
        took=2.8,
    )
    b.run_ended("completed")
    return b.bytes()


SCENARIOS: dict[str, tuple[Callable[[], bytes], str]] = {
    "01_one_run_tool.jsonl": (
        s01_one_run_tool,
        "one run, one tool call (clock), Anthropic claude-sonnet-4-5.",
    ),
    "02_runs_anthropic_openai_cache.jsonl": (
        s02_runs_anthropic_openai_cache,
        "five runs alternating Anthropic (sonnet with thinking, haiku; cache read and write) "
        "and OpenAI (gpt-5 served as gpt-5-2025-08-07, gpt-4.1, gpt-5-mini; cache read), "
        "reasoning parts, two calls in one turn, several tools; the runs end completed, "
        "completed, limit max_turns, completed, refused (stop refusal).",
    ),
    "03_crash_while_call_runs.jsonl": (
        s03_crash_while_call_runs,
        "run 1 asks for two calls and dies after call 1's call_started (no run_ended); run 2 "
        "(no prompt) settles call 1 as possibly done, runs call 2, completes.",
    ),
    "04_torn_tail.jsonl": (
        s04_torn_tail,
        'two runs; the last line (a tool_result) is cut short inside the UTF-8 of "ö", no '
        "trailing newline: a torn tail, run 2 crashed.",
    ),
    "05_damaged_middle_line.jsonl": (
        s05_damaged_middle_line,
        "a tool_result line cut short in the middle of the log, followed by a later run "
        "(same seq) that settled the call: a damaged log.",
    ),
    "06_transcript.jsonl": (
        s06_transcript,
        "what `agentloop run` prints: one run's entries (seq 17 on) and a closing outcome "
        "line with cost_usd.",
    ),
    "07_model_errors.jsonl": (
        s07_model_errors,
        "model errors: rate_limited 429 (retry_after, resets_at) and overloaded 529, both "
        "retried, then success; unreachable (no status) retried on OpenAI; unauthorized 401 "
        "not retried, run ends model_error.",
    ),
    "08_tool_model_calls.jsonl": (
        s08_tool_model_calls,
        "a summarize tool whose results carry the usage of its own model calls "
        "(claude-haiku-4-5, two and one); run 2 ends limit max_tokens because of them.",
    ),
    "09_refused_and_forbidden.jsonl": (
        s09_refused_and_forbidden,
        "run 1 has a result refused for carrying a forbidden label (listed in run_ended's "
        "refused); a labels entry between runs adds that label; run 2 ends forbidden.",
    ),
    "10_policy_deny_and_limit.jsonl": (
        s10_policy_deny_and_limit,
        "a policy deny and a forbidden-decision deny in run 1; run 2 refuses its fourth call "
        "and ends limit max_tool_calls.",
    ),
    "11_nanosecond_offsets.jsonl": (
        s11_nanosecond_offsets,
        "times: nine-digit and trimmed fractions, none, Z, +02:00 then +01:00 (DST ends), "
        "-07:00, +05:30, +05:45; a decision and call_started 400 ns apart.",
    ),
    "12_odd_bytes.jsonl": (
        s12_odd_bytes,
        "raw bytes from an earlier agentloop: invalid UTF-8 in a tool input, a name given "
        "twice, raw U+2028/U+0085 in a raw string, an escaped lone surrogate in native.data; "
        "<, >, &, U+2028 escaped in normal strings.",
    ),
    "13_labels_and_pins.jsonl": (
        s13_labels_and_pins,
        "a seed labels entry before run 1, pins, decision labels, result labels, displays "
        "(one with a ref, one with sources null) and a log; a labels entry between runs.",
    ),
    "14_empty.jsonl": (s14_empty, "a 0-byte file."),
    "15_unknown_entry.jsonl": (
        s15_unknown_entry,
        'from a newer agentloop: a "checkpoint" entry and a tool_result with an unknown '
        "field; run 2 ends max_tokens (OpenAI incomplete).",
    ),
    "16_canceled_pending.jsonl": (
        s16_canceled_pending,
        "run 1 canceled while its call had call_started and no result; run 2 settles it, "
        "then takes the new prompt and completes.",
    ),
}


def render() -> dict[str, bytes]:
    files = {name: make() for name, (make, _) in SCENARIOS.items()}
    readme = [
        "# Session logs",
        "",
        "Written by `python testdata/make_sessions.py`; do not edit by hand. Checked against Go's",
        "`encoding/json` by `testdata/gocheck`.",
        "",
    ]
    readme += [f"- `{name}`: {what}" for name, (_, what) in SCENARIOS.items()]
    files["README.md"] = ("\n".join(readme) + "\n").encode()
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if a file differs from what would be written"
    )
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        present = {p.name for p in OUT.iterdir() if p.is_file()} if OUT.is_dir() else set()
        bad = []
        for name in sorted(present | set(files)):
            if name not in files:
                bad.append(f"{name}: not written by make_sessions.py")
            elif name not in present:
                bad.append(f"{name}: missing")
            elif (OUT / name).read_bytes() != files[name]:
                bad.append(f"{name}: differs from what make_sessions.py writes")
        for problem in bad:
            print(f"testdata/sessions/{problem}", file=sys.stderr)
        return 1 if bad else 0
    OUT.mkdir(exist_ok=True)
    for name, data in files.items():
        (OUT / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
