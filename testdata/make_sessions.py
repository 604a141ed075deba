"""Write the session logs in ``testdata/sessions``: what agentloop's Go code writes.

Each scenario is built with ``sessiontools.SessionBuilder`` (``sessiontools._write.builder``), which
writes typed entries (``sessiontools._log.entries``) with ``sessiontools.encode_entry``
(``sessiontools._log.encode``): the bytes Go's ``encoding/json`` writes for agentloop's types. A few
lines are meant to be bad (a torn tail, a damaged line, a transcript's outcome line, entries from a
newer agentloop) and are made from those bytes by hand.

Deterministic: ids and sub-millisecond jitter come from SHA-256 of the file name (the builder's
``seed``) and a counter; nothing reads the clock or an unseeded random source.

    python testdata/make_sessions.py          # write testdata/sessions/
    python testdata/make_sessions.py --check  # exit 1, naming the files, if any differs

``testdata/gocheck`` reads the files back with Go's ``encoding/json`` and checks every line
that is not meant to be bad is byte-identical after a round trip.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from sessiontools import (
    NIL,
    Display,
    ModelUsage,
    Outcome,
    SessionBuilder,
    Source,
    ToolCall,
    UnknownEntry,
    Usage,
)
from sessiontools._log.encode import RawJSON, dumps

HERE = Path(__file__).resolve().parent
OUT = HERE / "sessions"

# The seed's names of the limits (002_b8baa2d9a4d5bb0e.txt).
LIMIT_TURNS = "max_turns"
LIMIT_TOOL_CALLS = "max_tool_calls"
LIMIT_TOKENS = "max_tokens"


def U(inp: int, out: int, cache_read: int = 0, cache_write: int = 0) -> Usage:
    """agentloop's four disjoint counts: ``inp`` is the uncached input."""
    return Usage(inp, out, cache_read, cache_write)


def sha256_pin(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def log(lines: list[bytes], *, final_newline: bool = True) -> bytes:
    """Lines (without ``\\n``) as a log's bytes."""
    text = b"\n".join(lines)
    return text + b"\n" if lines and final_newline else text


def disp(
    title: str,
    body: str,
    labels: Iterable[str],
    sources: Iterable[tuple[str, str]],
    ref: str = "",
) -> Display:
    """A display; ``sources`` ``NIL`` is Go's nil slice (written ``null``)."""
    return Display(
        title,
        body,
        tuple(sorted(set(labels))),
        NIL if sources is NIL else tuple(Source(t, r) for t, r in sources),
        ref,
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


# The scenarios. Each returns the file's bytes. Without call=, the builder's tool call methods
# take the first call still waiting for its result (for a decision, for its decision).

SONNET = "claude-sonnet-4-5"
HAIKU = "claude-haiku-4-5"
OPUS = "claude-opus-5-5"  # the seed's example model
GPT5 = "gpt-5"
GPT5_MINI = "gpt-5-mini"
GPT41 = "gpt-4.1"


def s01_one_run_tool() -> bytes:
    b = SessionBuilder("2026-10-18T09:30:00.118402213+02:00", seed="01_one_run_tool")
    b.run("What time is it?")
    b.anthropic(
        SONNET, text="I'll check the clock.", calls=[("clock", {})], usage=U(612, 41), ms=1_900
    )
    b.allow("09:30", took=0.4)
    b.anthropic(SONNET, text="It's 09:30.", usage=U(671, 9), ms=1_100)
    b.run_ended()
    return b.to_bytes()


def s02_runs_anthropic_openai_cache() -> bytes:
    b = SessionBuilder("2026-10-12T14:02:11.507118930+02:00", seed="02_runs_anthropic_openai_cache")
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
    b.run("Plan our team offsite: pick a venue from notes/venues.md and a week in November.")
    b.anthropic(
        SONNET,
        reasoning="The user wants a venue and a week. Read the venue list and the availability "
        "notes first, both at once.",
        text="Let me read the venue list and the team's availability.",
        calls=[
            ("file_read", {"path": "notes/venues.md"}),
            ("file_read", {"path": "notes/availability.md"}),
        ],
        usage=U(214, 163, cache_write=3_917),
        ms=4_600,
    )
    b.allow(venues, took=3)
    b.allow(dates, took=2)
    b.anthropic(
        SONNET,
        reasoning="All 12 are free 16-20 Nov. Berlin seats 120, more than needed; Dresden is "
        "cheapest for 12 but Essen is cheaper overall.",
        text="I suggest **Zeche Zollverein, Essen**, 16-20 November: everyone is free that "
        "week, and at EUR 2,950/day it is the cheapest venue with room for all 12.",
        usage=U(402, 288, cache_read=3_917),
        ms=6_300,
    )
    b.run_ended()

    # Run 2: OpenAI gpt-5 (the response names the snapshot that served it); cached input.
    b.at("2026-10-12T14:09:47.002215871+02:00")
    b.run("How long is the train from Berlin to Essen? Check the DB timetable.")
    served = "gpt-5-2025-08-07"
    b.openai(
        served,
        reasoning="Need a current timetable; fetch the DB connection page for Berlin Hbf to "
        "Essen Hbf.",
        reasoning_tokens=192,
        calls=[
            (
                "web_fetch",
                {"url": "https://int.bahn.de/en/connections?from=Berlin+Hbf&to=Essen+Hbf"},
            )
        ],
        usage=U(1_188, 311, cache_read=3_840),
        ms=7_900,
    )
    b.allow(
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
        ms=5_200,
    )
    b.run_ended()

    # Run 3: Anthropic haiku with MaxTurns 2: reads the calendar twice and runs out of turns.
    b.at("2026-10-12T16:30:05.330000412+02:00")
    b.run("Block 16-20 Nov in everyone's calendar and check for clashes.")
    b.anthropic(
        HAIKU,
        text="Checking the calendars first.",
        calls=[("calendar_list", {"from": "2026-11-16", "to": "2026-11-20"})],
        usage=U(96, 77, cache_read=3_917, cache_write=1_210),
        ms=2_100,
    )
    b.allow(
        '[{"who":"ana","what":"dentist","when":"2026-11-18T08:00"},'
        '{"who":"li","what":"conference talk (remote)","when":"2026-11-19T15:00"}]',
        took=320,
    )
    b.anthropic(
        HAIKU,
        text="Two small clashes (Ana's dentist, Li's remote talk); blocking the week anyway.",
        calls=[
            (
                "calendar_block",
                {"from": "2026-11-16", "to": "2026-11-20", "title": "Team offsite, Essen"},
            )
        ],
        usage=U(233, 118, cache_read=5_127),
        ms=2_400,
    )
    b.allow("blocked for 12 people", took=870)
    b.run_ended("limit", limit=LIMIT_TURNS)

    # Run 4: gpt-4.1 carries on.
    b.at("2026-10-12T16:41:19.908127004+02:00")
    b.run("Go on: summarise what's settled.")
    b.openai(
        GPT41,
        text="Settled: Zeche Zollverein in Essen, 16-20 November 2026, calendars blocked for "
        "all 12. Open: Ana's dentist appointment (18 Nov, 08:00) and Li's remote talk "
        "(19 Nov, 15:00) need a quiet room or a late start.",
        usage=U(2_190, 74, cache_read=4_096),
        ms=2_800,
    )
    b.run_ended()

    # Run 5: gpt-5-mini refuses.
    b.at("2026-10-12T16:44:02.71+02:00")
    b.run("Find Li's home address so we can send the train tickets there.")
    b.openai(
        GPT5_MINI,
        reasoning="",
        reasoning_tokens=128,
        refusal="I can't look up a colleague's home address. Please ask Li for a delivery "
        "address, or send the tickets by e-mail.",
        usage=U(2_431, 171),
        ms=3_000,
    )
    b.run_ended("refused")
    return b.to_bytes()


def s03_crash_while_call_runs() -> bytes:
    b = SessionBuilder("2026-10-14T11:05:42.004173266+02:00", seed="03_crash_while_call_runs")
    b.run(
        "The nightly build failed again. Open a ticket for it and write the failing test "
        "names to reports/nightly.txt."
    )
    b.anthropic(
        SONNET,
        text="I'll open the ticket and write the report.",
        calls=[
            (
                "http_post",
                {
                    "url": "https://tracker.example.com/api/issues",
                    "body": {
                        "title": "Nightly build failing: test_resume_after_crash",
                        "labels": ["ci", "nightly"],
                    },
                },
            ),
            (
                "file_write",
                {"path": "reports/nightly.txt", "content": "test_resume_after_crash\n"},
            ),
        ],
        usage=U(1_337, 212, cache_write=2_048),
        ms=3_700,
    )
    b.decision("allow")
    b.call_started()
    # The process dies here: no tool_result, no run_ended.
    b.crash()

    # Run 2, a bare resume some minutes later: settles the call that was running (the
    # builder's run() does, as agentloop's does), then runs the one that never started.
    b.at("2026-10-14T11:19:03.550127998+02:00")
    b.run()
    b.allow("wrote 24 bytes to reports/nightly.txt", took=2)
    b.anthropic(
        SONNET,
        text="The ticket request was interrupted, so it may or may not exist. Let me check "
        "before opening another.",
        calls=[
            (
                "http_get",
                {
                    "url": "https://tracker.example.com/api/issues?q="
                    "test_resume_after_crash&state=open"
                },
            )
        ],
        usage=U(1_602, 119, cache_read=2_048),
        ms=2_900,
    )
    b.allow(
        '{"issues":[{"id":4172,"title":"Nightly build failing: test_resume_after_crash",'
        '"state":"open","created":"2026-10-14T09:05:49Z"}]}',
        took=410,
    )
    b.anthropic(
        SONNET,
        text="The ticket was created before the interruption: #4172. I did not open a "
        "duplicate. The failing test is written to reports/nightly.txt.",
        usage=U(1_811, 58, cache_read=2_048),
        ms=2_200,
    )
    b.run_ended()
    return b.to_bytes()


def s04_torn_tail() -> bytes:
    b = SessionBuilder("2026-10-15T18:20:07.731226004+02:00", seed="04_torn_tail")
    b.run("What's on the menu at Café Müller this week?")
    b.anthropic(
        HAIKU,
        calls=[("web_fetch", {"url": "https://cafe-mueller.example.de/wochenkarte"})],
        usage=U(544, 61),
        ms=1_400,
    )
    menu = (
        "Wochenkarte 12.\u201316. Oktober\n"
        "Mo: Kürbissuppe mit Ingwer \u2013 6,50 €\n"
        "Di: Käsespätzle \u2013 9,80 €\n"
        "Mi: Flammkuchen „Elsässer Art“ \u2013 8,90 €\n"
    )
    b.allow(menu, took=612)
    b.anthropic(
        HAIKU,
        text="This week: pumpkin soup with ginger (Mon, €6.50), Käsespätzle (Tue, €9.80) "
        "and Alsatian Flammkuchen (Wed, €8.90).",
        usage=U(702, 64),
        ms=1_800,
    )
    b.run_ended()

    b.at("2026-10-19T08:02:55.409871332+02:00")
    b.run("And next week's?")
    b.anthropic(
        HAIKU,
        calls=[("web_fetch", {"url": "https://cafe-mueller.example.de/wochenkarte?woche=43"})],
        usage=U(771, 66),
        ms=1_300,
    )
    menu = (
        "Wochenkarte 19.\u201323. Oktober\n"
        "Mo: Linsensuppe \u2013 6,20 €\n"
        "Di: Rösti mit Spiegelei \u2013 9,40 €\n"
        "Mi: Maultaschen in Brühe \u2013 8,70 €\n"
        "Do: Zwiebelkuchen & Federweißer \u2013 7,90 €\n"
    )
    b.allow(menu, took=530)
    # The machine lost power in the middle of this write: cut inside "ö" of "Rösti".
    lines = b.lines()
    last = lines[-1]
    cut = last.index("Rösti".encode()) + 2  # after "R" and the first byte of "ö"
    assert last[cut - 1] >= 0xC0  # a lead byte: the character is cut in two
    lines[-1] = last[:cut]
    return log(lines, final_newline=False)


def s05_damaged_middle_line() -> bytes:
    b = SessionBuilder("2026-10-16T10:11:12.131415161+02:00", seed="05_damaged_middle_line")
    b.run("Count the TODO comments under src/ and list the files with the most.")
    b.anthropic(
        SONNET,
        calls=[("grep", {"pattern": "TODO", "path": "src/", "count": True})],
        usage=U(488, 52, cache_write=1_536),
        ms=1_700,
    )
    b.allow("src/loop.go:14\nsrc/session.go:9\nsrc/store.go:3\nsrc/policy.go:1\n", took=88)
    b.anthropic(
        SONNET,
        text="27 TODOs in 4 files; most in src/loop.go (14) and src/session.go (9).",
        usage=U(603, 37, cache_read=1_536),
        ms=1_500,
    )
    b.run_ended()

    b.at("2026-10-16T10:40:01.000918273+02:00")
    b.run("Open an issue for each file with more than 5.")
    _, issue2 = b.anthropic(
        SONNET,
        calls=[
            ("issue_create", {"title": "Clean up TODOs in src/loop.go (14)"}),
            ("issue_create", {"title": "Clean up TODOs in src/session.go (9)"}),
        ],
        usage=U(702, 96, cache_read=1_536),
        ms=2_000,
    ).calls
    b.allow("created issue #212", took=300)
    b.allow("created issue #213", call=issue2, took=280)
    # The writer died in the middle of that line. A later run found it at the end of the log
    # (where a torn line is ignored) and appended after it, on a new line, with the same seq.
    torn = len(b.entries) - 1
    b.seq -= 1
    b.crash()

    b.at("2026-10-16T11:02:30.77+02:00")
    b.run_started()
    b.settle(call=issue2)  # the builder saw its result; the log holds it torn
    b.anthropic(
        SONNET,
        text="The second issue may or may not have been created; checking.",
        calls=[("issue_search", {"query": "TODOs in src/session.go"})],
        usage=U(811, 61, cache_read=1_536),
        ms=1_900,
    )
    b.allow("#213 Clean up TODOs in src/session.go (9) [open]", took=190)
    b.anthropic(
        SONNET,
        text="Both exist: #212 (src/loop.go) and #213 (src/session.go).",
        usage=U(884, 29, cache_read=1_536),
        ms=1_200,
    )
    b.run_ended()
    lines = b.lines()
    lines[torn] = lines[torn][: lines[torn].index(b'"content"') + 14]
    return log(lines)


def s06_transcript() -> bytes:
    # `agentloop run` on an existing session whose next entry is seq 17: it prints that run's
    # entries, then the outcome with the run's cost.
    b = SessionBuilder("2026-10-20T15:45:30.250917443+02:00", seed="06_transcript", seq=17)
    b.run("Which of yesterday's invoices are still unpaid?")
    b.anthropic(
        SONNET,
        reasoning="Query the invoices table for yesterday, status not paid.",
        calls=[
            (
                "sql_query",
                {
                    "query": "SELECT number, customer, amount_eur FROM invoices "
                    "WHERE issued = DATE '2026-10-19' AND paid_at IS NULL ORDER BY number"
                },
            )
        ],
        usage=U(318, 121, cache_read=6_144),
        ms=3_400,
    )
    b.allow(
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
        ms=2_600,
    )
    b.run_ended()
    assert b.last is not None and isinstance(b.last.payload, Outcome)
    outcome = b.last.payload
    # The closing line: the Outcome's fields, then cost_usd.
    lines = b.lines()
    line = lines[-1]
    start = line.index(b',"run_ended":') + len(b',"run_ended":')
    body = line[start:-1]
    cost = dumps(cost_usd(outcome.usage, SONNET_PRICES))
    lines.append(body[:-1] + b',"cost_usd":' + cost + b"}")
    return log(lines)


def s07_model_errors() -> bytes:
    b = SessionBuilder("2026-10-17T07:58:03.090807060Z", seed="07_model_errors")
    b.run("Summarise the overnight alerts from #ops-alerts.")
    b.model_error(
        "rate_limited",
        "rate_limit_error: This request would exceed the rate limit for your organization "
        "of 30,000 input tokens per minute.",
        status=429,
        retry=True,
        wait_ms=2_000,
        retry_after="2026-10-17T07:58:05.493120877Z",
        resets_at="2026-10-17T07:59:00Z",
        ms=400,
    )
    b.model_error(
        "overloaded",
        "overloaded_error: Overloaded",
        status=529,
        retry=True,
        wait_ms=4_000,
        ms=900,
    )
    b.anthropic(
        SONNET,
        calls=[("slack_history", {"channel": "#ops-alerts", "since": "2026-10-16T20:00:00Z"})],
        usage=U(1_402, 73, cache_write=2_560),
        ms=2_300,
    )
    b.allow(
        "[02:14] disk usage > 90% on db-2\n[02:31] disk usage back to 71% on db-2\n"
        "[05:02] p99 latency > 800ms on api (5 min)\n",
        took=260,
    )
    b.anthropic(
        SONNET,
        text="Two alerts overnight, both resolved: db-2's disk passed 90% at 02:14 and was "
        "back to 71% by 02:31; the API's p99 latency passed 800 ms for five minutes at 05:02.",
        usage=U(1_577, 66, cache_read=2_560),
        ms=2_500,
    )
    b.run_ended()

    # Run 2: OpenAI, the first attempt never gets an answer.
    b.at("2026-10-17T09:12:40.600100200Z")
    b.run("Draft a short status update from that for the team.")
    b.model_error(
        "unreachable",
        'Post "https://api.openai.com/v1/responses": read tcp '
        "10.0.3.15:51234->162.159.140.245:443: read: connection reset by peer",
        retry=True,
        wait_ms=2_000,
        ms=30_000,
    )
    b.openai(
        GPT5_MINI,
        reasoning="",
        reasoning_tokens=64,
        text="Status: quiet night. db-2's disk briefly passed 90% (02:14-02:31) and API p99 "
        "latency spiked to >800 ms for 5 min at 05:02. No action needed; watching db-2.",
        usage=U(2_306, 140),
        ms=3_300,
    )
    b.run_ended()

    # Run 3: the key was revoked; the run ends with that error.
    b.at("2026-10-17T16:00:00.000201Z")
    b.run("Post it to #team.")
    b.model_error("unauthorized", "authentication_error: invalid x-api-key", status=401, ms=200)
    b.run_ended("model_error")
    return b.to_bytes()


def s08_tool_model_calls() -> bytes:
    b = SessionBuilder("2026-10-21T13:00:00.999000001+02:00", seed="08_tool_model_calls")
    b.run("Summarise the three design docs in docs/rfc/ in a paragraph each.")
    b.anthropic(
        SONNET,
        text="I'll have the summarizer read them.",
        calls=[("summarize", {"paths": ["docs/rfc/0007.md", "docs/rfc/0008.md"]})],
        usage=U(702, 88, cache_write=1_024),
        ms=2_200,
    )
    b.allow(
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
    b.anthropic(
        SONNET,
        text="That was two; the third is 0009.",
        calls=[("summarize", {"paths": ["docs/rfc/0009.md"]})],
        usage=U(944, 61, cache_read=1_024),
        ms=1_900,
    )
    b.allow(
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
        ms=4_400,
    )
    b.run_ended()

    # Run 2, with Limits.MaxTokens 40000: the tool's model calls use up the budget.
    b.at("2026-10-21T13:20:12.5+02:00")
    b.run("Now summarise every RFC in docs/rfc/archive/.")
    b.anthropic(
        SONNET,
        calls=[("summarize", {"paths": ["docs/rfc/archive/"]})],
        usage=U(1_402, 47, cache_read=1_024),
        ms=1_600,
    )
    b.allow(
        "41 files summarised; the summaries are in out/archive-summaries.md (38 KB).",
        took=48_000,
        usage=[ModelUsage(HAIKU, U(31_877, 2_950)), ModelUsage(HAIKU, U(8_102, 1_433))],
        log="summarize: 41 files, 2 model calls (claude-haiku-4-5), batched",
    )
    b.run_ended("limit", limit=LIMIT_TOKENS)
    return b.to_bytes()


def s09_refused_and_forbidden() -> bytes:
    # The agent forbids "private".
    b = SessionBuilder("2026-10-22T10:00:05.123+02:00", seed="09_refused_and_forbidden")
    b.run("Who is on call this week, and what's their phone number?")
    rota, hr = b.anthropic(
        OPUS,
        reasoning="The rota says who; the phone number is in the HR directory.",
        calls=[
            ("wiki_read", {"page": "ops/on-call-rota"}),
            ("hr_lookup", {"name": "Jonas Weber", "fields": ["phone"]}),
        ],
        usage=U(690, 133, cache_write=1_800),
        ms=3_900,
    ).calls
    b.allow(
        "Week 43 (19-25 Oct): Jonas Weber; backup: Priya Raman",
        call=rota,
        labels=["wiki"],
        took=90,
    )
    b.refuse(
        ["private"],  # the result carried "hr" and "private"
        call=hr,
        took=140,
        log="hr_lookup: 1 record from hr.internal (fields: phone)",
    )
    b.anthropic(
        OPUS,
        text="Jonas Weber is on call this week (backup: Priya Raman). I can't give you the "
        "phone number: that result was withheld from me. The on-call page in PagerDuty has it.",
        usage=U(841, 62, cache_read=1_800),
        ms=2_700,
    )
    b.run_ended()  # refused: the hr_lookup result

    # The operator attached the session to a private case file: the session now holds
    # "private", which the agent forbids.
    b.at("2026-10-22T10:31:44.270635109+02:00")
    b.labels("case:2026-118", "private")
    b.at("2026-10-22T10:32:10.004001+02:00")
    b.forbidden_run("Draft the on-call handover note.", ["private"])
    return b.to_bytes()


def s10_policy_deny_and_limit() -> bytes:
    # The policy: shell runs only read-only commands; web_fetch labels "untrusted" and "web",
    # and the agent forbids "untrusted".
    b = SessionBuilder("2026-10-23T09:14:00.000000009+02:00", seed="10_policy_deny_and_limit")
    b.run("Clean the build directory, then check whether go 1.27.3 is out.")
    rm, fetch = b.anthropic(
        SONNET,
        calls=[
            ("shell", {"command": "rm -rf build/"}),
            ("web_fetch", {"url": "https://go.dev/dl/?mode=json"}),
        ],
        usage=U(905, 90, cache_write=2_300),
        ms=2_400,
    ).calls
    b.deny("shell: only read-only commands may run in this session (rm is not one)", call=rm)
    b.deny_forbidden(["untrusted", "web"], call=fetch)
    b.anthropic(
        SONNET,
        text="I may not delete files or fetch web pages here. I'll list what's in build/ instead.",
        calls=[("shell", {"command": "ls -la build/"})],
        usage=U(1_149, 71, cache_read=2_300),
        ms=2_000,
    )
    b.allow(
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
        ms=2_200,
    )
    b.run_ended()

    # Run 2 with Limits.MaxToolCalls 3.
    b.at("2026-10-23T09:30:00.1+02:00")
    b.run("Read the four config files in conf/ and tell me which sets a proxy.")
    names = ["app.toml", "db.toml", "net.toml", "log.toml"]
    b.anthropic(
        SONNET,
        calls=[("file_read", {"path": f"conf/{n}"}) for n in names[:2]],
        usage=U(1_480, 84, cache_read=2_300),
        ms=1_800,
    )
    b.allow('name = "agentloop"\nlisten = ":8080"\n', took=2)
    b.allow('dsn = "postgres://db:5432/app"\npool = 10\n', took=2)
    b.anthropic(
        SONNET,
        text="Neither sets a proxy; reading the other two.",
        calls=[("file_read", {"path": f"conf/{n}"}) for n in names[2:]],
        usage=U(1_650, 92, cache_read=2_300),
        ms=1_900,
    )
    b.allow('proxy = "http://proxy.internal:3128"\nno_proxy = "localhost"\n', took=2)
    b.over_limit()  # the fourth call
    b.run_ended("limit", limit=LIMIT_TOOL_CALLS)
    return b.to_bytes()


def s11_nanosecond_offsets() -> bytes:
    # One session resumed from machines in several zones, across the end of summer time in
    # Berlin (2026-10-25 03:00 CEST = 02:00 CET = 01:00 UTC).
    b = SessionBuilder("2026-10-25T02:58:59.999999999+02:00", seed="11_nanosecond_offsets")
    prompt = "Start the nightly export and tell me when it's done."
    b.run_started(prompt)
    b.user(prompt, at="2026-10-25T02:59:00+02:00")
    b.anthropic(
        HAIKU,
        calls=[("export_start", {"dataset": "events"})],
        usage=U(377, 40),
        ms=2_000,
        at="2026-10-25T02:59:02.5+02:00",
    )
    b.decision(at="2026-10-25T02:59:02.500000001+02:00")
    b.call_started(at="2026-10-25T02:59:02.500000401+02:00")  # 400 ns later
    b.tool_result("export 7731 started", at="2026-10-25T02:00:01.000000001+01:00")
    b.anthropic(
        HAIKU,
        calls=[("export_wait", {"id": 7731, "timeout_s": 3600})],
        usage=U(431, 44),
        ms=2_000,
        at="2026-10-25T02:00:02.87+01:00",
    )
    b.decision(at="2026-10-25T02:00:02.870004+01:00")
    b.call_started(at="2026-10-25T02:00:02.8700044+01:00")
    b.tool_result("export 7731 done: 1.2 GB", at="2026-10-25T02:41:10.123456789+01:00")
    b.anthropic(
        HAIKU,
        text="The export finished at 02:41 (1.2 GB).",
        usage=U(489, 17),
        ms=2_000,
        at="2026-10-25T02:41:13.000000001+01:00",
    )
    b.run_ended(at="2026-10-25T02:41:13.1+01:00")

    # From a CI runner in UTC.
    b.at("2026-10-25T08:00:00Z")
    b.run("Is export 7731 downloadable?")
    b.anthropic(HAIKU, calls=[("export_status", {"id": 7731})], usage=U(540, 35), ms=1_400)
    b.allow("ready; url expires 2026-10-26T01:00:00Z", took=60)
    b.anthropic(HAIKU, text="Yes, until 01:00 UTC tomorrow.", usage=U(601, 12), ms=1_000)
    b.run_ended()

    # From San Francisco (still on summer time, -07:00).
    b.at("2026-10-25T09:15:30.000000001-07:00")
    b.run("Share the export link with the analytics team.")
    b.anthropic(
        HAIKU,
        calls=[("export_share", {"id": 7731, "group": "analytics"})],
        usage=U(655, 41),
        ms=1_500,
    )
    b.allow("shared with analytics (9 people)", took=210)
    b.anthropic(HAIKU, text="Shared with the 9 people in analytics.", usage=U(712, 14), ms=1_000)
    b.run_ended()

    # From Bengaluru (+05:30), then Kathmandu (+05:45).
    b.at("2026-10-26T06:00:00.25+05:30")
    b.run("Did anyone download it yet?")
    b.anthropic(
        HAIKU,
        text="I can't see download logs from here; the export service doesn't expose them.",
        usage=U(738, 23),
        ms=1_200,
    )
    b.run_ended()
    b.at("2026-10-26T06:30:00.000000100+05:45")
    b.run("Then delete it at the end of the week.")
    b.anthropic(
        HAIKU,
        calls=[("export_expire", {"id": 7731, "at": "2026-10-30T18:00:00+01:00"})],
        usage=U(790, 47),
        ms=1_400,
    )
    b.allow("expiry set to 2026-10-30T17:00:00Z", took=95)
    b.anthropic(HAIKU, text="It will be deleted on Friday at 18:00 CET.", usage=U(851, 16))
    b.run_ended()
    return b.to_bytes()


def s12_odd_bytes() -> bytes:
    # Lines from an earlier agentloop that logged tool inputs and provider data verbatim: the
    # provider data is given as raw bytes (RawJSON), and the calls with their ids.
    b = SessionBuilder("2026-10-24T16:20:00.204060801+02:00", seed="12_odd_bytes")
    b.run("Copy the notes files into archive/ and tell me what they say.")

    # A tool input holding a byte that is not UTF-8 (Latin-1 "é"), in the part and the data.
    latin1 = RawJSON(b'{"path":"notes/caf\xe9.txt","dest":"archive/"}')
    data = RawJSON(
        b'{"id":"msg_01XaFvM3kQ9tTb2rWc8ZyLp4","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01HbqK8y2Vd5pYw3RtNc7LmE","name":"file_copy",'
        b'"input":{"path":"notes/caf\xe9.txt","dest":"archive/"}}],'
        b'"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":812,"output_tokens":77}}'
    )
    call = ToolCall("toolu_01HbqK8y2Vd5pYw3RtNc7LmE", "file_copy", latin1)
    b.assistant("anthropic", SONNET, data, calls=[call], usage=U(812, 77), ms=2_100)
    b.allow("copied 1 file (1.4 KB)", took=12)

    # A tool input naming "path" twice (Go's decoder takes the last).
    dup = RawJSON(b'{"path":"a.txt","path":"b.txt"}')
    data = RawJSON(
        b'{"id":"msg_01Rz7nW2cQ8vXp5tLm3KbJy6","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01Pm4sXe8NcVb7QwTr2JyKd9","name":"file_read",'
        b'"input":{"path":"a.txt","path":"b.txt"}}],'
        b'"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":905,"output_tokens":58}}'
    )
    call = ToolCall("toolu_01Pm4sXe8NcVb7QwTr2JyKd9", "file_read", dup)
    b.assistant("anthropic", SONNET, data, calls=[call], usage=U(905, 58), ms=1_800)
    # Through normal strings: <, >, & and U+2028 are escaped by Go; U+0085 is not.
    b.allow("b.txt: if a < b && b > c {\u2028return\u2028}\u0085(next line)", took=3)

    # A tool input with a raw U+2028 and a raw U+0085 inside a string. Go's encoder escapes
    # U+2028 when it writes a RawMessage, so a current agentloop would not write this line.
    raw_seps = RawJSON(
        '{"path":"archive/notes.txt","content":"line one\u2028line two\u0085line three"}'.encode()
    )
    data = RawJSON(
        b'{"id":"msg_01Ln5bT8rWq2XvKc7MzPj3Fy","type":"message","role":"assistant",'
        b'"model":"claude-sonnet-4-5","content":[{"type":"tool_use",'
        b'"id":"toolu_01Wq3vBn6TcXk9PzLr4MdHs2","name":"file_write",'
        b'"input":{"path":"archive/notes.txt","content":"line one\\u2028line two\\u0085line '
        b'three"}}],"stop_reason":"tool_use","stop_sequence":null,'
        b'"usage":{"input_tokens":1010,"output_tokens":64}}'
    )
    call = ToolCall("toolu_01Wq3vBn6TcXk9PzLr4MdHs2", "file_write", raw_seps)
    b.assistant("anthropic", SONNET, data, calls=[call], usage=U(1_010, 64), ms=1_900)
    b.allow("wrote 35 bytes to archive/notes.txt", took=4)

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
    b.assistant("anthropic", SONNET, data, text=text, usage=U(1_102, 21), ms=1_300)
    b.run_ended()
    return b.to_bytes()


def s13_labels_and_pins() -> bytes:
    b = SessionBuilder("2026-10-18T08:59:59.000000001+02:00", seed="13_labels_and_pins")
    # The session is created with a starting label, before any run.
    b.labels("project:apollo")
    prompt = "Find a venue for the Apollo kickoff in notes/ and draft an invitation."
    b.run_started(prompt, at="2026-10-18T09:00:04.417263112+02:00")
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
        reasoning="Read the venue notes.",
        calls=[("file_read", {"path": "notes/venues.md"})],
        usage=U(1_220, 70, cache_write=3_072),
        ms=3_100,
    ).calls
    ref = "shown:2026-10-18/" + read.id.lower()
    b.allow(
        "Kulturbrauerei (Berlin, 120 seats, EUR 4,200/day); Zeche Zollverein (Essen, 80 "
        "seats, EUR 2,950/day). Both free on 12 Nov.",
        decision_labels=["private"],
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
        took=35,
    )
    b.anthropic(
        OPUS,
        text="Zeche Zollverein fits and is cheaper. Drafting the invitation.",
        calls=[
            (
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
        ms=4_000,
    )
    b.allow(
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
        ms=2_200,
    )
    b.run_ended()

    # Between runs the operator gives the session another label.
    b.labels("reviewed:kira", at="2026-10-18T09:30:00+02:00")
    b.at("2026-10-18T09:41:27.31+02:00")
    b.run("Add the agenda from notes/agenda.md to the draft.")
    b.anthropic(
        OPUS,
        calls=[("file_read", {"path": "notes/agenda.md"})],
        usage=U(1_631, 52, cache_read=3_072),
        ms=2_000,
    )
    b.allow(
        "09:30 welcome\n10:00 roadmap\n12:30 lunch\n14:00 workshops\n17:00 drinks\n",
        decision_labels=["private"],
        labels=["doc:notes/agenda.md"],
        took=30,
    )
    b.anthropic(
        OPUS,
        calls=[("mail_draft", {"id": "d-5521", "append": "Agenda: 09:30 welcome ..."})],
        usage=U(1_742, 96, cache_read=3_072),
        ms=2_600,
    )
    b.allow(
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
            NIL,  # Go's nil Sources, written null (the field is not omitempty)
        ),
        took=240,
    )
    b.anthropic(
        OPUS,
        text="Added the agenda to draft d-5521.",
        usage=U(1_870, 13, cache_read=3_072),
        ms=1_400,
    )
    b.run_ended()
    return b.to_bytes()


def s14_empty() -> bytes:
    return b""


def s15_unknown_entry() -> bytes:
    b = SessionBuilder("2026-10-26T11:11:11.111111111+01:00", seed="15_unknown_entry")
    b.run("Translate README.md into German.")
    b.openai(
        GPT5,
        reasoning="Read the file first.",
        reasoning_tokens=128,
        calls=[("file_read", {"path": "README.md"})],
        usage=U(1_450, 190, cache_read=1_024),
        ms=4_000,
    )
    # A newer agentloop: a tool_result with a field this version does not know (added to its
    # line below)...
    b.allow("# agentloop\n\nagentloop runs a language model in a loop with tools.")
    result = len(b.entries) - 1
    # ... and an entry of a type it does not know.
    checkpoint = {
        "messages": 3,
        "labels": [],
        "usage": {"input_tokens": 1450, "output_tokens": 190, "cache_read_tokens": 1024},
        "digest": sha256_pin("checkpoint/15/3"),
    }
    b.add(UnknownEntry("checkpoint", checkpoint), ms=1)
    b.openai(
        GPT5,
        reasoning="",
        reasoning_tokens=512,
        text="# agentloop\n\nagentloop führt ein Sprachmodell in einer Schleife mit "
        "Werkzeugen aus.",
        usage=U(1_560, 830, cache_read=1_024),
        ms=9_500,
    )
    b.run_ended()

    b.at("2026-10-26T11:30:00.000000002+01:00")
    b.run("Now the whole of DESIGN.md.")
    b.openai(
        GPT5,
        reasoning="Long document; translate section by section.",
        reasoning_tokens=900,
        text="# Entwurf\n\nDieses Dokument beschreibt den Entwurf von agentloop: die Sitzung, "
        "die Schleife, die Richtlinien und",
        usage=U(14_022, 4_096, cache_read=1_536),
        stop="max_tokens",
        ms=61_000,
    )
    b.run_ended("max_tokens")
    lines = b.lines()
    assert lines[result].endswith(b"}}")
    lines[result] = lines[result][:-2] + b',"duration_ms":412}}'
    return log(lines)


def s16_canceled_pending() -> bytes:
    b = SessionBuilder("2026-10-27T17:45:12.360912488+01:00", seed="16_canceled_pending")
    b.run("Run the full test suite and tell me what fails.")
    b.anthropic(
        OPUS,
        text="Running the whole suite; this takes a while.",
        calls=[("command", {"args": ["make", "test"]})],
        usage=U(960, 58, cache_write=1_900),
        ms=2_300,
    )
    b.decision()
    b.call_started()
    # The operator pressed Ctrl-C while `make test` ran: the run ends, the call has no result.
    b.run_ended("canceled", ms=95_000)

    # The next run settles the call first, then takes the prompt.
    b.at("2026-10-27T17:48:03.119+01:00")
    b.run("Just the unit tests then.")
    b.anthropic(
        OPUS,
        text="The full run was interrupted and may have partly run. Running the unit tests only.",
        calls=[("command", {"args": ["go", "test", "-short", "./..."]})],
        usage=U(1_102, 75, cache_read=1_900),
        ms=2_500,
    )
    b.allow(
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
        ms=2_800,
    )
    b.run_ended()
    return b.to_bytes()


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
