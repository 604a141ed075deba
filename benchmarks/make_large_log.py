"""Write a large, realistic agentloop session log, for benchmarks.

    python benchmarks/make_large_log.py --size-mb 100 --out /tmp/bench/100mb.jsonl [--seed 1]

The log is one long session: a ``labels`` and a ``pins`` entry, then runs until the file holds at
least ``--size-mb`` megabytes (10**6 bytes), finishing the run it is in. Each run follows the
loop of the agentloop seed (``002_b8baa2d9a4d5bb0e.txt``):

- ``run_started`` with the prompt, the user ``message`` (usage zeros);
- assistant turns (Anthropic or OpenAI) with reasoning, text and tool calls, each carrying the
  provider's own response object in ``native.data`` (which repeats the content), the usage with
  cache reads and writes, and the model that served it; a failed call before a turn is a
  ``model_error`` (rate limited, overloaded, unreachable), retried after ``wait_ms``;
- for each tool call ``decision`` -> ``call_started`` -> ``tool_result``, results of 1-20 KB of
  file contents, command output, JSON or web pages; a denied call is a ``decision`` deny and a
  ``tool_result`` with ``is_error`` and the reason; some tools report the model calls they made
  (``tool_result.usage``); some calls add labels; now and then a result is refused for a
  forbidden label;
- ``run_ended`` with the reason, the last text, the turns and the usage of the run (its turns
  and its tools' model calls). Some runs fail for good (``model_error``), hit a limit, are cut off
  by ``max_tokens`` or refused; about one in seventy crashes (no ``run_ended``), and the next run
  settles the call it left running.

Entries are built with ``sessiontools.SessionBuilder`` (``sessiontools._write.builder``), which
numbers them, gives each its UTC offset and computes each ``run_ended`` from what its run did;
this script draws every time, id and word and gives them to the builder. The builder keeps no
entries: each goes, as it is made, to a sink that writes it with
``sessiontools.encode_entry`` exactly as Go writes it, so memory stays flat whatever the
size. The output depends only on ``--seed`` and ``--size-mb``: every random choice comes from
one ``random.Random(seed)``, and times advance from a fixed start (2026-10-19, Europe/Berlin, so
a long log crosses the end of summer time and mixes offsets)."""

from __future__ import annotations

import argparse
import base64
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from sessiontools import (
    FORBIDDEN_DECISION,
    REFUSED_RESULT,
    Entry,
    ModelError,
    ModelUsage,
    SessionBuilder,
    ToolCall,
    Usage,
    encode_entry,
)
from sessiontools._write.native import (
    anthropic_content,
    anthropic_message,
    openai_function_call,
    openai_message_item,
    openai_reasoning_item,
    openai_response,
)

MS = 1_000_000  # nanoseconds
SECOND = 1000 * MS
#: 2026-10-19T07:12:00Z, a Monday morning in Berlin.
START_UNIX_NANO = 1_792_393_920 * SECOND
#: 2026-10-25T01:00:00Z: Europe/Berlin goes from +02:00 to +01:00.
DST_END_UNIX_NANO = 1_792_890_000 * SECOND

#: What the model is told of a call that was running when its run crashed: this generator's
#: words (the builder's default, SETTLED_RESULT, is testdata's).
SETTLED_RESULT = (
    "This call was running when the previous run stopped. It may or may not have taken effect;"
    " check before running it again."
)

B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
HEX = "0123456789abcdef"

# Word banks.

NOUNS = (
    "session", "entry", "reader", "span", "trace", "label", "policy", "result", "usage", "model",
    "turn", "call", "tool", "record", "buffer", "config", "request", "response", "token", "cache",
    "index", "offset", "line", "event", "store", "client", "worker", "queue", "batch", "schema",
    "field", "payload", "digest", "window", "limit", "budget", "price", "report", "invoice",
    "customer", "order", "shipment", "account", "ledger", "venue", "booking", "ticket", "export",
)  # fmt: skip
VERBS = (
    "load", "parse", "read", "write", "encode", "decode", "check", "build", "render", "fold",
    "split", "merge", "flush", "open", "close", "fetch", "resolve", "validate", "apply", "count",
    "format", "emit", "collect", "scan", "retry", "sync", "publish", "refresh", "compute", "trim",
)  # fmt: skip
ADJECTIVES = (
    "empty", "large", "torn", "damaged", "nested", "unicode", "cached", "stale", "partial", "late",
    "duplicate", "missing", "expired", "concurrent", "negative", "zero", "long", "mixed", "legacy",
)  # fmt: skip
PY_TYPES = ("str", "int", "bytes", "Path", "dict[str, Any]", "list[str]", "float", "Entry")
GO_TYPES = ("string", "int64", "[]byte", "time.Time", "map[string]string", "*Entry", "error")
PEOPLE = (
    "alice", "bob", "carol", "dmitri", "elena", "farah", "goran", "hiroshi", "ines", "jonas",
    "kira", "lena", "mateo", "nadia", "oskar", "priya", "quentin", "rosa", "sven", "tomasz",
)  # fmt: skip
HOSTS = (
    "docs.python.org", "pkg.go.dev", "opentelemetry.io", "github.com", "developer.mozilla.org",
    "www.rfc-editor.org", "en.wikipedia.org", "stackoverflow.com", "blog.example.org",
    "docs.anthropic.com", "platform.openai.com", "peps.python.org", "go.dev",
)  # fmt: skip
DIRS = (
    "sessiontools", "tests", "internal/reader", "cmd/agentloop", "docs", "scripts", "pkg/otel",
    "src/billing", "src/api/handlers", "services/export", "web/src/components", "config",
)  # fmt: skip

SENTENCES = (
    "The reader splits lines on the byte \\n only, never on U+2028 or a carriage return.",
    "A torn tail is what a write cut short by a crash leaves behind.",
    "Every span gets the trace id of its run, derived from the conversation id and the seq.",
    "The exporter writes OTLP/JSON with hex ids, integer enums and 64-bit integers as strings.",
    "Cache reads are billed at a tenth of the input price; cache writes at 1.25 times.",
    "When the provider is overloaded the loop backs off for two seconds and doubles each time.",
    "Labels are never removed, so a session that read private mail stays labelled private.",
    "The benchmark compares the exporter against a bare loop that only parses each line.",
    "Go's encoder escapes <, > and & as \\u003c, \\u003e and \\u0026 by default.",
    "The invoice total didn't match the sum of its line items after the currency conversion.",
    "Customers in the EU region are served from the Frankfurt cluster since the migration.",
    "The retry budget is shared by every worker in the pool, so one noisy tenant can drain it.",
    "A venue booking is confirmed only once the deposit clears, usually within two days.",
    "This function is called on every request, so it must not allocate in the common case.",
    "The schema allows additional properties, which is why the typo went unnoticed.",
    "We keep the original bytes so that the provider can replay its own turns unchanged.",
    "Times are kept as integer nanoseconds; a float would lose the last three digits.",
    "The nightly job exports the previous day's sessions and uploads them to the bucket.",
    "Most of the time goes into decoding JSON, which is already done in C by orjson.",
    "The migration adds a nullable column first, backfills it, then adds the constraint.",
    "Café, naïve and Zürich must survive a round trip through the encoder unchanged.",
    "The p99 latency doubled after the deploy at 14:05 \u2014 the cache was cold.",
    "An empty prompt means a bare resume: the run only settles the calls left open.",
    "Unknown fields come from a newer agentloop; they are kept and reported once.",
    "The test fixture uses a fixed seed, so the same file always gives the same bytes.",
    "Rate limits are per organisation and per model, counted in tokens per minute.",
    "The tool's model calls count toward the run's usage and its max_tokens limit.",
    "We should fail loudly on a damaged line rather than skip it and lose an entry.",
    "Streaming keeps memory flat: one run's spans at a time, plus the output itself.",
    "The quarterly report lists revenue by region, with refunds shown separately.",
    "If the lock file is stale, the second process waits and then takes it over.",
    "The dashboard \u201cErrors by kind\u201d counts each failed call once, retries included.",
)  # fmt: skip
THOUGHTS = (
    "I should look at how the reader handles the last line before changing anything.",
    "The user wants the numbers to match the provider's invoice, so cache tokens matter.",
    "Let me check the failing test first; the traceback points at the time parser.",
    "This looks like an off-by-one in the offset: the byte offset excludes the newline.",
    "I need the file's current contents before I can write a patch that applies cleanly.",
    "Running the whole suite takes a while; I'll run just the reader tests first.",
    "The JSON from the API is paginated; the first page should be enough to see the shape.",
    "The error says 'no such file', so the path is probably relative to the wrong directory.",
    "Two of the three results agree. The third is an older version of the document.",
    "Before writing the file, I should confirm the formatting rules from pyproject.toml.",
    "The policy denied the command, so I need another way to get the same information.",
    "The summary tool made its own model calls; those count toward this run's usage.",
    "This is a refactor with no behaviour change, so the existing tests should still pass.",
    "I'm fairly confident now. Let me write the answer with the figures and the caveats.",
    "The search returned many matches in vendored code; I'll narrow it to the package.",
    "It's worth checking the changelog: the field may have been renamed in a later release.",
)  # fmt: skip
PROMPTS = (
    "Why does `{v}_{n}` fail on {a} input? Find the cause and fix it, with a test.",
    "Add a `--{n}` flag to the {n} command that limits output to {a} {n}s.",
    "Summarise the open issues about the {n} {n2} and suggest which to close.",
    "Refactor {d}/{n}.py so that {v}_{n2} no longer reads the whole file into memory.",
    "The nightly export failed at 03:12 with a {a} {n}. Investigate and report back.",
    "Review the last three commits to {d} and tell me if anything looks risky.",
    "Compare our {n} handling with what the upstream docs at {h} recommend.",
    "Write a migration that adds `{n}_{n2}_id` to the {n2}s table, with a backfill.",
    "Check whether the {n} {n2} totals in last month's report match the ledger.",
    "Find every caller of `{v}_{n}` and update them for the new signature.",
    "Run the test suite and fix whatever is failing in {d}.",
    "Draft a reply to {p}'s email about the {a} {n2} and save it as a draft.",
    "How much did yesterday's sessions cost, by model? Use the cost table.",
    "Book a venue for the team offsite in Zürich for 14 people, late November.",
)  # fmt: skip


def _weighted(rng: random.Random, options: Sequence[tuple[Any, float]]) -> Any:
    values = [o for o, _ in options]
    weights = [w for _, w in options]
    return rng.choices(values, weights)[0]


def _ident(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choices(alphabet, k=n))


def _b64(rng: random.Random, nbytes: int) -> str:
    return base64.b64encode(rng.randbytes(nbytes)).decode("ascii")


def _approx_tokens(chars: int) -> int:
    return max(1, chars // 4)


# Text pools: blocks made once, then drawn from to build results of a given size quickly.


def _py_block(rng: random.Random) -> str:
    v, n, n2 = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
    if rng.random() < 0.2:
        cls = n.capitalize() + rng.choice(("Reader", "Store", "Client", "Fold", "Writer"))
        return (
            f"class {cls}:\n"
            f'    """{rng.choice(SENTENCES)}"""\n\n'
            f'    __slots__ = ("_{n}s", "_path", "closed")\n\n'
            f"    def __init__(self, path: Path, {n2}: {rng.choice(PY_TYPES)} | None = None) "
            f"-> None:\n"
            f"        self._path = path\n"
            f"        self._{n}s: dict[str, {n2.capitalize()}] = {{}}\n"
            f"        self.closed = False\n\n"
        )
    lines = [
        f"def {v}_{n}({n2}: {rng.choice(PY_TYPES)}, *, strict: bool = False) -> "
        f"{rng.choice(PY_TYPES)}:",
        f'    """{rng.choice(SENTENCES)}"""',
    ]
    stmts = (
        f'    if {n2} is None:\n        raise ValueError("{n2} must be set")',
        f"    total = 0\n    for i, item in enumerate({n2}.{n}s):\n"
        f"        if item.{rng.choice(NOUNS)} < 0 and not strict:\n            continue\n"
        f"        total += item.{rng.choice(NOUNS)}",
        '    with open(path, "rb") as f:\n        data = f.read()',
        f"    out = {{k: v for k, v in {n2}.items() if v is not None}}",
        f'    log.debug("{v} %s: %d {n}s", name, len(items))',
        f"    # {rng.choice(SENTENCES)}",
        f'    if len({n2}) > LIMIT and {n2}[0] != "<":\n'
        f'        raise {n.capitalize()}Error(f"{{{n2}!r}} is too long")',
        "    try:\n        value = orjson.loads(line)\n    except orjson.JSONDecodeError as e:\n"
        "        raise DamagedLogError(path, lineno, offset) from e",
        f"    result.append(({n}.seq, {n}.time_unix_nano, {n2}))",
    )
    lines.extend(rng.sample(stmts, rng.randint(2, 5)))
    lines.append(f"    return {rng.choice((n, n2, 'out', 'total', 'result'))}\n\n")
    return "\n".join(lines) + "\n"


def _go_block(rng: random.Random) -> str:
    v, n, n2 = rng.choice(VERBS).capitalize(), rng.choice(NOUNS).capitalize(), rng.choice(NOUNS)
    return (
        f"// {v}{n} {rng.choice(SENTENCES).lower()}\n"
        f"func (s *{n}Store) {v}{n}(ctx context.Context, {n2} {rng.choice(GO_TYPES)}) "
        f"(*{n}, error) {{\n"
        f"\tif err := ctx.Err(); err != nil {{\n\t\treturn nil, err\n\t}}\n"
        f"\ts.mu.Lock()\n\tdefer s.mu.Unlock()\n"
        f"\tv, ok := s.{n2}s[{n2}]\n"
        f"\tif !ok {{\n"
        f'\t\treturn nil, fmt.Errorf("{v.lower()} {n.lower()} %q: %w", {n2}, ErrNotFound)\n'
        f"\t}}\n"
        f'\tif v.Seq < s.next && len(v.Labels) > 0 && v.Kind != "<nil>" {{\n'
        f"\t\tv.Labels = UnionLabels(v.Labels, s.labels)\n\t}}\n"
        f"\treturn v, nil\n}}\n\n"
    )


def _md_block(rng: random.Random) -> str:
    title = f"{rng.choice(VERBS).capitalize()} the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
    para = " ".join(rng.choices(SENTENCES, k=rng.randint(3, 7)))
    extra = ""
    if rng.random() < 0.3:
        extra = "\n```python\n" + _py_block(rng) + "```\n"
    elif rng.random() < 0.3:
        extra = "".join(f"- {s}\n" for s in rng.choices(SENTENCES, k=rng.randint(2, 5)))
    return f"## {title}\n\n{para}\n{extra}\n"


def _yaml_block(rng: random.Random) -> str:
    n = rng.choice(NOUNS)
    return (
        f"{n}:\n"
        f"  enabled: {rng.choice(('true', 'false'))}\n"
        f"  max_{rng.choice(NOUNS)}s: {rng.randint(1, 5000)}\n"
        f"  timeout: {rng.randint(1, 120)}s\n"
        f'  endpoint: "https://{rng.choice(HOSTS)}/{n}/v{rng.randint(1, 3)}"\n'
        f"  tags: [{', '.join(rng.sample(ADJECTIVES, 3))}]\n"
    )


def _pytest_block(rng: random.Random) -> str:
    n = rng.choice(NOUNS)
    lines = []
    for _ in range(rng.randint(5, 20)):
        test = f"test_{rng.choice(VERBS)}_{n}_{rng.choice(ADJECTIVES)}"
        status = _weighted(rng, (("PASSED", 0.9), ("FAILED", 0.04), ("SKIPPED", 0.06)))
        lines.append(f"tests/test_{n}.py::{test} {status} [{rng.randint(1, 99):3d}%]")
    return "\n".join(lines) + "\n"


def _traceback_block(rng: random.Random) -> str:
    n = rng.choice(NOUNS)
    return (
        f"_____________________ test_{rng.choice(VERBS)}_{n}_{rng.choice(ADJECTIVES)} "
        f"_____________________\n\n"
        f"    def test_{n}():\n"
        f'        entries = list(iter_entries(FIXTURES / "{n}.jsonl"))\n'
        f">       assert entries[-1].time_unix_nano == {rng.randint(10**18, 2 * 10**18)}\n"
        f"E       assert {rng.randint(10**18, 2 * 10**18)} == "
        f"{rng.randint(10**18, 2 * 10**18)}\n"
        f"E        +  where {rng.randint(10**18, 2 * 10**18)} = Entry(seq={rng.randint(0, 999)},"
        f" type='{rng.choice(('message', 'tool_result', 'run_ended'))}', ...).time_unix_nano\n\n"
        f"tests/test_{n}.py:{rng.randint(10, 400)}: AssertionError\n"
    )


def _ls_block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(5, 15)):
        name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}{rng.choice(('.py', '.go', '.md', ''))}"
        mode = rng.choice(("-rw-r--r--", "drwxr-xr-x", "-rwxr-xr-x"))
        lines.append(
            f"{mode}  1 dev  dev  {rng.randint(0, 200000):7d} Oct {rng.randint(1, 31):2d} "
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d} {name}"
        )
    return "\n".join(lines) + "\n"


def _grep_block(rng: random.Random) -> str:
    path = f"{rng.choice(DIRS)}/{rng.choice(NOUNS)}.py"
    code = _py_block(rng).splitlines()
    return "".join(
        f"{path}:{rng.randint(1, 900)}:{line}\n" for line in rng.sample(code, min(4, len(code)))
    )


def _git_block(rng: random.Random) -> str:
    sha = _ident(rng, HEX, 40)
    who = rng.choice(PEOPLE)
    body = "\n".join(f"    {s}" for s in rng.choices(SENTENCES, k=rng.randint(1, 3)))
    diff = "".join(f"+{line}\n" for line in _py_block(rng).splitlines()[:6])
    return (
        f"commit {sha}\nAuthor: {who.capitalize()} <{who}@example.com>\n"
        f"Date:   Mon Oct {rng.randint(1, 31)} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        f":{rng.randint(0, 59):02d} 2026 +0200\n\n{body}\n\n"
        f"diff --git a/{rng.choice(DIRS)}/x.py b/{rng.choice(DIRS)}/x.py\n"
        f"@@ -{rng.randint(1, 300)},6 +{rng.randint(1, 300)},9 @@\n{diff}\n"
    )


def _gotest_block(rng: random.Random) -> str:
    lines = []
    for _ in range(rng.randint(4, 12)):
        name = f"Test{rng.choice(VERBS).capitalize()}{rng.choice(NOUNS).capitalize()}"
        lines.append(f"=== RUN   {name}")
        if rng.random() < 0.05:
            where = f"{name.lower()}_test.go:{rng.randint(10, 500)}"
            lines.append(f'    {where}: got "<nil>", want "{rng.choice(NOUNS)}"')
            lines.append(f"--- FAIL: {name} (0.{rng.randint(0, 99):02d}s)")
        else:
            lines.append(f"--- PASS: {name} (0.{rng.randint(0, 99):02d}s)")
    return "\n".join(lines) + "\n"


def _json_record(rng: random.Random) -> dict[str, Any]:
    who = rng.choice(PEOPLE)
    kind = rng.random()
    if kind < 0.4:
        return {
            "number": rng.randint(1, 5000),
            "title": rng.choice(SENTENCES)[:70],
            "state": rng.choice(("open", "closed")),
            "user": {"login": who, "id": rng.randint(10000, 9999999), "type": "User"},
            "labels": [{"name": a, "color": _ident(rng, HEX, 6)} for a in rng.sample(NOUNS, 2)],
            "comments": rng.randint(0, 40),
            "created_at": f"2026-{rng.randint(1, 10):02d}-{rng.randint(1, 28):02d}T"
            f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
            "body": " ".join(rng.choices(SENTENCES, k=rng.randint(1, 4))),
        }
    if kind < 0.7:
        return {
            "id": f"{rng.choice(NOUNS)}_{_ident(rng, B62, 14)}",
            "object": rng.choice(NOUNS),
            "amount": rng.randint(100, 10**7),
            "currency": rng.choice(("eur", "usd", "chf")),
            "customer": f"cus_{_ident(rng, B62, 14)}",
            "metadata": {"region": rng.choice(("eu-central-1", "us-east-1")), "owner": who},
            "paid": rng.random() < 0.8,
            "ratio": round(rng.random(), 4),
        }
    return {
        "title": rng.choice(SENTENCES)[:60],
        "url": f"https://{rng.choice(HOSTS)}/{rng.choice(NOUNS)}/{rng.choice(VERBS)}",
        "snippet": " ".join(rng.choices(SENTENCES, k=2)),
        "score": round(rng.uniform(0.2, 1.0), 3),
    }


@dataclass(frozen=True, slots=True)
class _Pools:
    py: tuple[str, ...]
    go: tuple[str, ...]
    md: tuple[str, ...]
    yaml: tuple[str, ...]
    pytest: tuple[str, ...]
    traceback: tuple[str, ...]
    ls: tuple[str, ...]
    grep: tuple[str, ...]
    git: tuple[str, ...]
    gotest: tuple[str, ...]
    records: tuple[dict[str, Any], ...]

    @classmethod
    def make(cls, rng: random.Random, n: int = 400) -> _Pools:
        def pool(f: Callable[[random.Random], str]) -> tuple[str, ...]:
            return tuple(f(rng) for _ in range(n))

        return cls(
            py=pool(_py_block),
            go=pool(_go_block),
            md=pool(_md_block),
            yaml=pool(_yaml_block),
            pytest=pool(_pytest_block),
            traceback=pool(_traceback_block),
            ls=pool(_ls_block),
            grep=pool(_grep_block),
            git=pool(_git_block),
            gotest=pool(_gotest_block),
            records=tuple(_json_record(rng) for _ in range(n)),
        )


# Tools: what each call's input and result look like.


@dataclass(slots=True)
class _ToolOutput:
    content: str
    is_error: bool = False
    labels: tuple[str, ...] = ()
    log: str = ""
    usage: tuple[ModelUsage, ...] = ()
    latency_ms: tuple[float, float] = (2.0, 40.0)


TOOLS = (
    ("read_file", 0.28),
    ("run_command", 0.22),
    ("search_code", 0.12),
    ("web_fetch", 0.08),
    ("http_get_json", 0.08),
    ("write_file", 0.08),
    ("summarize", 0.05),
    ("web_search", 0.06),
    ("mail_read", 0.03),
)
TOOL_LABELS = {
    "web_fetch": ("web",),
    "web_search": ("web",),
    "mail_read": ("private",),
}
TOOL_MODELS = {
    "anthropic": "claude-haiku-4-5-20251001",
    "openai": "gpt-5-nano-2025-08-07",
}
DENY_REASONS = (
    "run_command: commands that write outside the workspace are not allowed",
    "write_file: path is outside the workspace (/etc/hosts)",
    FORBIDDEN_DECISION,
    "input does not match the tool's schema: at '': missing property 'path'",
    "web_fetch: only https URLs are allowed",
)
#: How many turns a run plans, and how often; a run that plans MAX_TURNS hits its limit.
MAX_TURNS = 12
TURNS = tuple(zip(range(1, MAX_TURNS + 1), (3, 6, 9, 10, 9, 8, 6, 5, 4, 3, 2, 2), strict=True))
#: How many tool calls a turn that calls tools makes, and how often.
CALLS = ((1, 6), (2, 3), (3, 1), (4, 0.4))
#: The dense setting's (``--dense``): shorter runs, turns that call more tools.
DENSE_TURNS = ((2, 3), (3, 4), (4, 3), (5, 2), (6, 1))
DENSE_CALLS = ((1, 4), (2, 3), (3, 2), (4, 1))
COMMANDS = (
    ("python -m pytest -q tests", "pytest"),
    ("go test ./... -run Test -v", "gotest"),
    ("git log -p -n 5", "git"),
    ("ls -la", "ls"),
    ("grep -rn 'def ' sessiontools", "grep"),
    ("python -m pytest -x tests/log/test_reader.py", "traceback"),
)


class _Sink:
    """Where the builder puts each entry: Go's line, written at once, its bytes counted."""

    __slots__ = ("bytes", "out")

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.bytes = 0

    def append(self, entry: Entry) -> None:
        line = encode_entry(entry) + b"\n"
        self.out.write(line)
        self.bytes += len(line)


def _berlin_offset(unix_nano: int) -> int:
    """Europe/Berlin's UTC offset in seconds, in the weeks around the end of summer time."""
    return 7200 if unix_nano < DST_END_UNIX_NANO else 3600


#: The request settings an OpenAI response echoes, as agents commonly send them.
OPENAI_SETTINGS = {
    "background": False,
    "max_output_tokens": 32000,
    "parallel_tool_calls": True,
    "reasoning": {"effort": "medium", "summary": "auto"},
    "service_tier": "default",
    "store": False,
    "temperature": 1.0,
    "tool_choice": "auto",
    "top_p": 1.0,
    "truncation": "disabled",
}


class _Session:
    """Writes one session, entry by entry."""

    def __init__(self, rng: random.Random, out: BinaryIO, dense: bool = False) -> None:
        self.rng = rng
        #: The dense setting (``--dense``): short turns, small provider data, more lines a MB.
        self.dense = dense
        self.pools = _Pools.make(rng)
        self.sink = _Sink(out)
        # Every entry's time is drawn here (`_after`) and given to the builder as `at`.
        self.log = SessionBuilder(
            START_UNIX_NANO, zone=_berlin_offset, jitter=False, store=self.sink, keep=False
        )
        #: The clock: the latest entry's time, in Unix nanoseconds.
        self.now = START_UNIX_NANO
        self.runs = 0
        self.crashed = 0
        self.tool_calls = 0
        #: Calls a crashed run left open, for the next run to settle: (call, started).
        self.pending: list[tuple[ToolCall, bool]] = []
        self.labels: set[str] = set()

    @property
    def bytes(self) -> int:
        """The bytes written so far."""
        return self.sink.bytes

    @property
    def seq(self) -> int:
        """The next entry's seq: how many entries were written."""
        return self.log.seq

    def _after(self, after_ms: tuple[float, float]) -> int:
        """The next entry's time: ``lo`` to ``hi`` milliseconds after the latest entry's, and
        up to a microsecond more."""
        lo, hi = after_ms
        self.now += int(self.rng.uniform(lo, hi) * MS) + self.rng.randrange(1000)
        return self.now

    def header(self) -> None:
        """The session's starting labels and pins, before any run."""
        labels = ("repo:acme/api", "workspace")
        self.labels.update(labels)
        self.log.labels(*labels, at=self._after((0, 0)))
        pins = {name: "sha256:" + _ident(self.rng, HEX, 64) for name, _ in TOOLS}
        self.log.pins(pins, at=self._after((0.01, 0.5)))

    # Text.

    def _fill(self, pool: Sequence[str], target: int, head: str = "") -> str:
        parts = [head]
        n = len(head)
        while n < target:
            block = self.rng.choice(pool)
            parts.append(block)
            n += len(block)
        return "".join(parts)

    def _result_size(self) -> int:
        if self.dense:
            # Log-uniform between 200 bytes and 30 KB; one in 3,000 between 0.2 and 6 MB.
            if self.rng.random() < 1 / 3000:
                return int(200_000 * 30 ** self.rng.random())
            return int(200 * 150 ** self.rng.random())
        # Log-uniform between 1 and 20 KB.
        return int(1000 * 20 ** self.rng.random())

    def _prose(self, lo: int, hi: int, bank: Sequence[str] = SENTENCES) -> str:
        return " ".join(self.rng.choices(bank, k=self.rng.randint(lo, hi)))

    def _prompt(self) -> str:
        rng = self.rng
        text = rng.choice(PROMPTS).format(
            v=rng.choice(VERBS),
            n=rng.choice(NOUNS),
            n2=rng.choice(NOUNS),
            a=rng.choice(ADJECTIVES),
            d=rng.choice(DIRS),
            h=rng.choice(HOSTS),
            p=rng.choice(PEOPLE).capitalize(),
        )
        if rng.random() < 0.3:
            text += "\n\n" + self._prose(1, 4)
        if rng.random() < 0.1:
            text += "\n\n```\n" + rng.choice(self.pools.traceback) + "```"
        return text

    def _final_text(self) -> str:
        rng = self.rng
        paras = [self._prose(2, 5) for _ in range(rng.randint(1, 4))]
        if rng.random() < 0.5:
            paras.append("".join(f"- {s}\n" for s in rng.choices(SENTENCES, k=rng.randint(2, 6))))
        if rng.random() < 0.25:
            paras.append("```python\n" + rng.choice(self.pools.py) + "```")
        return "\n\n".join(paras)

    # Tools.

    def _path(self) -> str:
        rng = self.rng
        ext = _weighted(rng, ((".py", 5), (".go", 3), (".md", 2), (".yaml", 1), (".json", 1)))
        return f"{rng.choice(DIRS)}/{rng.choice(VERBS)}_{rng.choice(NOUNS)}{ext}"

    def _file_content(self, path: str, target: int) -> str:
        pools = self.pools
        if path.endswith(".py"):
            return self._fill(pools.py, target, '"""' + self.rng.choice(SENTENCES) + '"""\n\n')
        if path.endswith(".go"):
            return self._fill(pools.go, target, 'package reader\n\nimport (\n\t"context"\n)\n\n')
        if path.endswith(".md"):
            return self._fill(pools.md, target, f"# {path}\n\n")
        if path.endswith(".yaml"):
            return self._fill(pools.yaml, target)
        return self._json_content(target, indent=True)

    def _json_content(self, target: int, *, indent: bool) -> str:
        records: list[dict[str, Any]] = []
        n = 0
        while n < target:
            r = self.rng.choice(self.pools.records)
            records.append(r)
            n += 200 + len(r.get("body", "")) + len(r.get("snippet", ""))
        doc = {"object": "list", "has_more": self.rng.random() < 0.3, "data": records}
        opt = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(doc, option=opt).decode("utf-8")

    def _plan_call(self, provider: str) -> ToolCall:
        rng = self.rng
        name = _weighted(rng, TOOLS)
        inp: dict[str, Any]
        if name == "read_file":
            inp = {"path": self._path()}
            if rng.random() < 0.2:
                inp["offset"] = rng.randint(1, 400)
                inp["limit"] = rng.choice((100, 200, 500))
        elif name == "run_command":
            cmd = rng.choice(COMMANDS)[0]
            inp = {"command": ["sh", "-c", cmd], "cwd": "/work/acme", "timeout_ms": 120000}
        elif name == "search_code":
            inp = {
                "pattern": f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}",
                "path": rng.choice(DIRS),
                "glob": rng.choice(("*.py", "*.go", "**/*")),
            }
        elif name == "web_fetch":
            inp = {"url": f"https://{rng.choice(HOSTS)}/{rng.choice(NOUNS)}/{rng.choice(VERBS)}"}
        elif name == "http_get_json":
            inp = {
                "method": "GET",
                "url": f"https://api.example.com/v1/{rng.choice(NOUNS)}s?limit=50&state=open",
                "headers": {"Accept": "application/json"},
            }
        elif name == "write_file":
            path = self._path()
            size = rng.randint(100, 1500) if self.dense else rng.randint(300, 6000)
            inp = {"path": path, "content": self._file_content(path, size)}
        elif name == "summarize":
            inp = {
                "source": f"https://{rng.choice(HOSTS)}/{rng.choice(NOUNS)}",
                "question": self._prose(1, 2, THOUGHTS),
            }
        elif name == "web_search":
            inp = {"query": f"{rng.choice(NOUNS)} {rng.choice(VERBS)} {rng.choice(ADJECTIVES)}"}
        else:
            inp = {"folder": "INBOX", "limit": rng.randint(5, 25), "unread_only": True}
        if provider == "anthropic":
            call_id = "toolu_01" + _ident(rng, B62, 22)
        else:
            call_id = "call_" + _ident(rng, B62, 24)
        return ToolCall(call_id, name, inp)

    def _run_tool(self, call: ToolCall, provider: str) -> _ToolOutput:
        rng = self.rng
        pools = self.pools
        size = self._result_size()
        name = call.name
        if name == "read_file":
            path = call.input["path"]
            if rng.random() < 0.05:
                return _ToolOutput(f"open {path}: no such file or directory", is_error=True)
            return _ToolOutput(self._file_content(path, size), latency_ms=(0.5, 30))
        if name == "run_command":
            cmd = call.input["command"][2]
            kind = dict(COMMANDS)[cmd]
            pool = getattr(pools, kind)
            failed = kind == "traceback" or rng.random() < 0.1
            head = f"$ {cmd}\n"
            text = self._fill(pool, size, head)
            log = ""
            if failed:
                text += f"\nexit status {rng.choice((1, 2, 124))}"
                log = "stderr: " + rng.choice(pools.traceback)[:400]
            return _ToolOutput(text, is_error=failed, log=log, latency_ms=(40, 45_000))
        if name == "search_code":
            return _ToolOutput(self._fill(pools.grep, size), latency_ms=(5, 800))
        if name == "web_fetch":
            host = call.input["url"].split("/")[2]
            return _ToolOutput(
                self._fill(pools.md, size, f"# {rng.choice(SENTENCES)}\n\n"),
                labels=(f"web:{host}",),
                latency_ms=(150, 6000),
            )
        if name == "http_get_json":
            return _ToolOutput(
                self._json_content(size, indent=rng.random() < 0.5), latency_ms=(80, 2500)
            )
        if name == "write_file":
            n = len(call.input["content"].encode("utf-8"))
            return _ToolOutput(f"Wrote {n} bytes to {call.input['path']}", latency_ms=(0.5, 10))
        model = TOOL_MODELS[provider]
        if name == "summarize":
            usage = tuple(
                ModelUsage(
                    model,
                    Usage(
                        input_tokens=rng.randint(2000, 40000),
                        output_tokens=rng.randint(100, 1500),
                        cache_read_tokens=rng.choice((0, 0, rng.randint(1000, 8000))),
                    ),
                )
                for _ in range(rng.randint(1, 3))
            )
            text = "\n\n".join(self._prose(3, 8) for _ in range(max(1, size // 1500)))
            return _ToolOutput(text, usage=usage, latency_ms=(1500, 25_000))
        if name == "web_search":
            usage = (ModelUsage(model, Usage(rng.randint(500, 3000), rng.randint(50, 400))),)
            text = self._json_content(size, indent=False)
            return _ToolOutput(text, labels=("web",), usage=usage, latency_ms=(300, 4000))
        # mail_read
        mails = []
        n = 0
        while n < size:
            who = rng.choice(PEOPLE)
            mail = (
                f"From: {who.capitalize()} <{who}@example.com>\nSubject: "
                f"{rng.choice(SENTENCES)[:60]}\nDate: Mon, {rng.randint(1, 28)} Oct 2026\n\n"
                f"{self._prose(2, 6)}\n\n-- \n"
            )
            mails.append(mail)
            n += len(mail)
        sender = rng.choice(PEOPLE)
        return _ToolOutput(
            "".join(mails), labels=(f"mail:{sender}@example.com",), latency_ms=(100, 1500)
        )

    # Model calls.

    def _model_error(self, provider: str, attempt: int) -> tuple[ModelError, int, bool]:
        """A failed call: the error, the wait before the next attempt, and whether it is retried."""
        rng = self.rng
        kind = _weighted(
            rng,
            (("overloaded", 5), ("rate_limited", 4), ("unreachable", 2), ("unauthorized", 0.15)),
        )
        host = "api.anthropic.com" if provider == "anthropic" else "api.openai.com"
        if kind == "unauthorized":
            msg = "invalid x-api-key" if provider == "anthropic" else "Incorrect API key provided"
            return ModelError(kind, msg, 401), 0, False
        retry = attempt < 3
        if kind == "overloaded":
            status = 529 if provider == "anthropic" else rng.choice((500, 503))
            msg = (
                "Overloaded"
                if provider == "anthropic"
                else "The server had an error while processing your request. Sorry about that!"
            )
            return ModelError(kind, msg, status), 2000 * 2**attempt if retry else 0, retry
        if kind == "rate_limited":
            wait = rng.randint(1, 40) * 1000
            msg = (
                "This request would exceed the rate limit for your organization of 450,000 input "
                "tokens per minute. For details, refer to: https://docs.claude.com/en/api/rate-"
                "limits. You can see the response headers for current usage."
                if provider == "anthropic"
                else f"Rate limit reached for gpt-5.1 in organization org-{_ident(rng, B62, 24)} "
                f"on tokens per min (TPM): Limit 500000, Used 498211, Requested 9120. "
                f"Please try again in {wait // 1000}s."
            )
            err = ModelError(
                kind,
                msg,
                429,
                retry_after_unix_nano=self.now + wait * MS,
                resets_at_unix_nano=self.now + 60 * SECOND if rng.random() < 0.5 else None,
            )
            return err, wait if retry else 0, retry
        port = rng.randint(40000, 65000)
        msg = (
            f'Post "https://{host}/v1/messages": read tcp 10.0.3.7:{port}->160.79.104.10:443: '
            "read: connection reset by peer"
        )
        return ModelError(kind, msg), 2000 * 2**attempt if retry else 0, retry

    def _turn_usage(self, provider: str, prefix: int, new: int, out: int) -> Usage:
        """A turn's usage, for a context of ``prefix`` tokens cached before and ``new`` since.

        Anthropic reports cache reads and writes apart from the uncached input; OpenAI counts
        cached tokens (in steps of 128) inside its input and reports no cache writes. Either way
        agentloop keeps four disjoint counts.
        """
        rng = self.rng
        if provider == "anthropic":
            return Usage(
                input_tokens=rng.randint(1, 40),
                output_tokens=out,
                cache_read_tokens=prefix,
                cache_write_tokens=new,
            )
        cached = (prefix // 128) * 128 if rng.random() < 0.85 else 0
        return Usage(
            input_tokens=prefix + new - cached, output_tokens=out, cache_read_tokens=cached
        )

    def _native_data(
        self,
        provider: str,
        model: str,
        stop: str,
        reasoning: str,
        text: str,
        calls: Sequence[ToolCall],
        usage: Usage,
        refusal: str,
    ) -> dict[str, Any]:
        """The provider's response for a turn (``native.data``), with its ids and signature."""
        rng = self.rng
        if provider == "anthropic":
            signature = _b64(rng, rng.randint(200, 700)) if reasoning else ""
            return anthropic_message(
                id="msg_01" + _ident(rng, B62, 22),
                model=model,
                content=anthropic_content(
                    thinking=reasoning or None, signature=signature, text=text, calls=calls
                ),
                stop_reason="refusal" if refusal else stop,
                usage=usage,
                cache_creation=True,
            )
        output = [
            openai_reasoning_item(
                "rs_" + _ident(rng, HEX, 48),
                reasoning,
                encrypted_content="gAAAAAB" + _b64(rng, rng.randint(600, 2400)),
            )
        ]
        if text or refusal:
            output.append(
                openai_message_item(
                    "msg_" + _ident(rng, HEX, 48),
                    text=text,
                    refusal=refusal,
                    incomplete=stop == "max_tokens",
                )
            )
        for c in calls:
            output.append(openai_function_call("fc_" + _ident(rng, HEX, 48), c))
        return openai_response(
            id="resp_" + _ident(rng, HEX, 48),
            created_at=self.now // SECOND,
            model=model,
            output=output,
            usage=usage,
            reasoning_tokens=len(reasoning) // 3,
            incomplete=stop == "max_tokens",
            settings=OPENAI_SETTINGS,
        )

    def _small_native_data(
        self, provider: str, model: str, stop: str, usage: Usage, refusal: str
    ) -> dict[str, Any]:
        """The dense setting's ``native.data``: the response's ids, model, stop reason and
        usage, without the content (agents that keep their own transcript log no more)."""
        rng = self.rng
        if provider == "anthropic":
            return anthropic_message(
                id="msg_01" + _ident(rng, B62, 22),
                model=model,
                content=[],
                stop_reason="refusal" if refusal else stop,
                usage=usage,
            )
        return {
            "id": "resp_" + _ident(rng, HEX, 48),
            "object": "response",
            "created_at": self.now // SECOND,
            "status": "incomplete" if stop == "max_tokens" else "completed",
            "model": model,
            "usage": {
                "input_tokens": usage.input_tokens + usage.cache_read_tokens,
                "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
                "output_tokens": usage.output_tokens,
            },
        }

    # Runs.

    def _call(self, call: ToolCall, provider: str, run: _RunState) -> bool:
        """Decide, start and finish one call; False when the process "crashes" while it runs."""
        rng = self.rng
        self.tool_calls += 1
        log = self.log
        if rng.random() < 0.03:
            reason = rng.choice(DENY_REASONS)
            log.decision("deny", call=call, reason=reason, at=self._after((0.1, 3)))
            log.tool_result(reason, call=call, is_error=True, at=self._after((0.05, 1)))
            return True
        labels = TOOL_LABELS.get(call.name, ())
        new = tuple(label for label in labels if label not in self.labels)
        self.labels.update(new)
        log.decision("allow", call=call, labels=new, at=self._after((0.1, 3)))
        log.call_started(call=call, at=self._after((0.05, 1)))
        if run.crash_at_call == self.tool_calls:
            self.pending.append((call, True))
            return False
        result = self._run_tool(call, provider)
        if call.name == "mail_read" and rng.random() < 0.15:
            # A label the session may not hold: the result is refused, its usage kept (and
            # counted in the run's), and run_ended names it.
            forbidden = ["mail:stranger@example.com"]
            at = self._after(result.latency_ms)
            log.refused_result(forbidden, call=call, is_error=True, usage=result.usage, at=at)
            content = REFUSED_RESULT
        else:
            new = tuple(label for label in result.labels if label not in self.labels)
            self.labels.update(new)
            log.tool_result(
                result.content,
                call=call,
                is_error=result.is_error,
                labels=new,
                log=result.log,
                usage=result.usage,
                at=self._after(result.latency_ms),
            )
            content = result.content
        run.context += _approx_tokens(len(content))
        return True

    def _settle(self, provider: str, run: _RunState) -> None:
        """Settle the calls a crashed run left open, as a resumed run does first."""
        pending, self.pending = self.pending, []
        for call, started in pending:
            if started:
                self.log.settle(call=call, content=SETTLED_RESULT, at=self._after((0.2, 5)))
            else:
                self._call(call, provider, run)

    def run(self) -> None:
        rng = self.rng
        log = self.log
        self.runs += 1
        anthropic = rng.random() < 0.65
        provider = "anthropic" if anthropic else "openai"
        model = _weighted(
            rng,
            (("claude-opus-4-5-20251101", 2), ("claude-sonnet-4-5-20250929", 3))
            if anthropic
            else (("gpt-5.1-2025-11-13", 3), ("gpt-5-mini-2025-08-07", 1)),
        )
        resume = bool(self.pending)
        prompt = "" if resume and rng.random() < 0.5 else self._prompt()
        gap = (5_000, 1_200_000) if not resume else (2_000, 60_000)
        log.run_started(prompt, at=self._after(gap))
        if rng.random() < 0.005:
            new = (f"reviewed-by:{rng.choice(PEOPLE)}",)
            self.labels.update(new)
            log.labels(*new, at=self._after((0.05, 1)))
        planned: int = _weighted(rng, DENSE_TURNS if self.dense else TURNS)
        state = _RunState(context=rng.randint(4000, 14000))
        self._settle(provider, state)
        if rng.random() < 0.02:
            # This run crashes: at one of its next tool calls, or else after its last turn.
            state.crash_at_call = self.tool_calls + rng.randint(1, 2 * planned)
        if prompt:
            log.user(prompt, at=self._after((0.05, 2)))
            state.context += _approx_tokens(len(prompt))
        # The system prompt and tools are often still in the provider's cache from the last run.
        cached = rng.choice((0, 3500))
        limit = planned == MAX_TURNS
        for t in range(planned):
            final = t == planned - 1 and not limit
            # Failed attempts, each retried after its wait.
            attempt = 0
            wait_ms = 0
            while rng.random() < (0.01 if self.dense else 0.05):
                error, wait_ms, retry = self._model_error(provider, attempt)
                lo, hi = (50, 400) if error.kind == "rate_limited" else (300, 20_000)
                after = (lo + wait_ms, hi + wait_ms)
                log.model_error(
                    error.kind,
                    error.message,
                    status=error.status,
                    retry=retry,
                    wait_ms=wait_ms,
                    retry_after=error.retry_after_unix_nano,
                    resets_at=error.resets_at_unix_nano,
                    at=self._after(after),
                )
                if not retry:
                    # The outcome names the error; it lists no refused results, though agentloop
                    # would (kept so that the same seed gives the same bytes as before).
                    log.run_ended("model_error", refused=(), at=self._after((0.05, 1)))
                    return
                attempt += 1
            stop = "end_turn" if final else "tool_use"
            refusal = ""
            calls: list[ToolCall] = []
            if final and rng.random() < 0.02:
                stop = "max_tokens"
            elif final and rng.random() < 0.005:
                stop, refusal = "refusal", "I can't help with that request."
            if stop == "tool_use":
                n_calls = _weighted(rng, DENSE_CALLS if self.dense else CALLS)
                calls = [self._plan_call(provider) for _ in range(n_calls)]
                text = self._prose(1, 2, THOUGHTS) if rng.random() < 0.6 else ""
            elif refusal:
                text = ""
            else:
                text = self._prose(1, 3) if self.dense else self._final_text()
                if stop == "max_tokens":
                    text = text[: len(text) // 2]
            most = 3 if self.dense else 12
            reasoning = self._prose(2, most, THOUGHTS) if rng.random() < 0.85 else ""
            if not anthropic and rng.random() < 0.3:
                reasoning = ""  # encrypted only, no summary
            out_chars = len(text) + len(reasoning) + sum(len(orjson.dumps(c.input)) for c in calls)
            fresh = max(1, state.context - cached)
            usage = self._turn_usage(provider, cached, fresh, _approx_tokens(out_chars) + 20)
            cached = state.context
            took_ms = 600 + usage.output_tokens * rng.uniform(8, 30)
            if self.dense:
                data = self._small_native_data(provider, model, stop, usage, refusal)
            else:
                data = self._native_data(
                    provider, model, stop, reasoning, text, calls, usage, refusal
                )
            log.assistant(
                provider,
                model,
                data,
                text=text,
                reasoning=reasoning or None,
                calls=calls,
                usage=usage,
                stop=stop,
                refusal=refusal,
                at=self._after((wait_ms + took_ms * 0.8, wait_ms + took_ms * 1.2)),
            )
            state.context += usage.output_tokens
            for i, call in enumerate(calls):
                if not self._call(call, provider, state):
                    self.pending.extend((c, False) for c in calls[i + 1 :])
                    self.crashed += 1
                    log.crash()
                    return
        crash_pending = state.crash_at_call is not None and state.crash_at_call > self.tool_calls
        if crash_pending and rng.random() < 0.5:
            # The process dies after the last turn, before run_ended is written.
            self.crashed += 1
            log.crash()
            return
        if limit:
            reason, limit_name = "limit", "max_turns"
        else:
            reason = {"end_turn": "completed", "max_tokens": "max_tokens", "refusal": "refused"}[
                stop
            ]
            limit_name = ""
        # The builder counts the run's turns, its usage (its tools' model calls included), its
        # last text and its refused results.
        log.run_ended(reason, limit=limit_name, at=self._after((0.05, 2)))


@dataclass(slots=True)
class _RunState:
    #: The conversation's size in tokens, roughly: what the next turn's input is made of.
    context: int
    #: The number of the session's tool call at which the process dies, if it does.
    crash_at_call: int | None = None


def generate(out: BinaryIO, size_bytes: int, seed: int, dense: bool = False) -> _Session:
    """Write a session of at least ``size_bytes`` bytes to ``out`` (``dense``: ``--dense``)."""
    session = _Session(random.Random(seed), out, dense)
    session.header()
    while session.bytes < size_bytes:
        session.run()
    return session


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, required=True, help="at least this many MB")
    parser.add_argument("--out", type=Path, required=True, help="the log to write")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--dense",
        action="store_true",
        help="agents with short turns: about 560 lines a MB, small provider data",
    )
    args = parser.parse_args(argv)
    size = int(args.size_mb * 1_000_000)
    started = time.perf_counter()  # for the summary only; the output never depends on it
    with open(args.out, "wb", buffering=1 << 20) as f:
        s = generate(f, size, args.seed, args.dense)
    took = time.perf_counter() - started
    print(
        f"{args.out}: {s.bytes:,} bytes, {s.seq:,} entries, {s.runs:,} runs "
        f"({s.crashed} crashed), {s.tool_calls:,} tool calls, in {took:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
