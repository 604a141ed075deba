"""Build realistic agentloop session logs in a few lines, for tests and examples: the session
library's writer, beside the flow (docs/session-library.md, "SessionBuilder").

``SessionBuilder`` writes ``Entry`` values one by one, as agentloop's loop would, numbering them
(``seq``) and timing them with a clock of its own. Each method writes the entries of one step of the
loop and returns the builder, so steps chain::

    b = SessionBuilder(start="2026-10-18T09:30:00+02:00", seed="clock")
    b.run("What time is it?")  # run_started, then the user's message
    b.anthropic(text="I'll check.", calls=[("clock", {})], usage=Usage(612, 41))
    b.allow("09:30")  # decision (allow), call_started, tool_result for the open call
    b.anthropic(text="It's 09:30.", usage=Usage(671, 9, cache_read_tokens=512))
    b.run_ended()  # "completed", with the run's turns, usage and last text
    b.write("session.jsonl")  # Go's bytes, one line per entry

**Calls.** An assistant turn's ``calls`` are ``(name, input)`` pairs, which get an id in the
provider's style (``toolu_01…`` for Anthropic, ``call_…`` for OpenAI), or ``ToolCall`` values
that keep theirs. ``b.calls`` is the latest turn's calls, with ids, and ``b.pending`` every call
asked for that has no result yet. The methods about one call (``decision``, ``allow``,
``tool_result``, …) take ``call=``, a ``ToolCall`` or its id; without it they take the first
pending call (for a decision, the first with no decision yet).

**Time.** Every time is Unix nanoseconds, written with a UTC offset in seconds. The first entry
is at ``start``; each later one ``ms`` milliseconds after the one before (a default for each
kind of step, such as 3.2 s for an Anthropic turn and 40 ms for a tool), plus, with ``jitter``,
under a millisecond more, so times look like a real log's. ``at=`` (or ``b.at(...)``) puts an
entry at a given time instead: an RFC 3339 text (whose offset is used from then on, as when a
session moves between zones or summer time ends) or Unix nanoseconds. ``zone=`` gives each
entry the offset of a time zone instead. ``b.wait(ms)`` lets time pass between entries.

**Determinism.** Ids, signatures and jitter come from SHA-256 of ``seed`` and a counter; nothing
reads the clock or a random source. The same calls with the same seed give the same bytes.

**Runs.** ``run_ended`` computes the ``Outcome`` from what the run did: its turns, its usage
(its turns' and the model calls its tools made), its last assistant text, the results it
refused and, for ``model_error``, the last error; any field can be given instead. A run left
without ``run_ended`` (``crash()``, or a new ``run_started``) crashed, and ``run()`` settles the
calls it left running, as agentloop's next run does.

**Output.** ``entries``, ``lines()`` and ``to_bytes()`` (Go's ``encoding/json`` lines, by
``sessiontools._log.encode``), ``write(path)``, ``read()`` (the ``Session``), and any store with an
``append(entry)`` method (``store=`` or ``into(store)``) given each entry as it is built.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Protocol, TypeAlias, cast

from .._log.content import (
    CallStartedEntry,
    DecisionEntry,
    Display,
    Message,
    MessageEntry,
    ModelUsage,
    Native,
    Part,
    Payload,
    ToolCall,
    ToolResult,
    ToolResultEntry,
    UnknownEntry,
)
from .._log.decode import PAYLOAD_TYPES
from .._log.encode import encode_entry
from .._log.entries import (
    NIL_MAP,
    Entry,
    LabelsEntry,
    ModelError,
    ModelErrorEntry,
    Outcome,
    PinsEntry,
    Refusal,
    RunStartedEntry,
    Usage,
)
from .._log.times import parse_rfc3339
from .._model.labels import FORBIDDEN_DECISION, REFUSED_RESULT, check_labels
from .._model.session import Session, SupportsLoad, open_session, read_session
from .native import (
    anthropic_content,
    anthropic_message,
    openai_function_call,
    openai_message_item,
    openai_reasoning_item,
    openai_response,
)

__all__ = ["LIMIT_RESULT", "SETTLED_RESULT", "SessionBuilder", "SupportsAppend"]

#: What the model is told of a call that was running when the process died (agentloop's
#: documentation says what, not the words; ``settle(content=...)`` takes others).
SETTLED_RESULT = (
    "This call was running when the process stopped; it may or may not have taken effect."
)
#: The result of a call beyond ``Limits.MaxToolCalls`` (not agentloop's words either).
LIMIT_RESULT = "The run's tool call limit was reached; the call was not run."

_MS = 1_000_000  # nanoseconds
_SECOND = 1_000_000_000
_B62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_HEX = "0123456789abcdef"


#: A call an assistant turn asks for: ``(tool name, input)``, given an id, or a ``ToolCall``.
CallSpec: TypeAlias = "ToolCall | tuple[str, Any]"
#: One call, named: a ``ToolCall``, its id, or ``None`` for the first pending one.
CallRef: TypeAlias = "ToolCall | str | None"
#: A time: RFC 3339 text (its offset is kept) or Unix nanoseconds.
When: TypeAlias = "str | int"
#: A model call a tool made: a ``ModelUsage`` or ``(model, Usage)``.
ToolUsage: TypeAlias = "ModelUsage | tuple[str, Usage]"


class SupportsAppend(Protocol):
    """Anything that takes entries one at a time: a store, a list, a writer of lines."""

    def append(self, entry: Entry, /) -> None: ...


@dataclass
class _OpenCall:
    call: ToolCall
    verdict: str = ""
    started: bool = False


@dataclass
class _Run:
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    refused: list[Refusal] = field(default_factory=list)
    error: ModelError | None = None


class SessionBuilder:
    """A session log, built entry by entry: see the module docstring for an example.

    Args:
        start: the first entry's time: RFC 3339 text (its offset is the log's until another is
            given) or Unix nanoseconds (written with ``offset``).
        seed: what the ids, signatures and jitter are derived from; two builders with the
            same seed and the same calls give the same bytes.
        seq: the first entry's ``seq`` (a transcript of a later run starts above 0).
        offset: the UTC offset in seconds east, for a ``start`` given in nanoseconds.
        zone: gives each entry's offset from its time instead: a ``tzinfo`` (such as
            ``zoneinfo.ZoneInfo("Europe/Berlin")``) or a function of Unix nanoseconds giving
            seconds east of UTC. RFC 3339 times given to ``at`` then set the instant only.
        jitter: add under a millisecond (1 to 999,999 ns, from ``seed``) to every step of
            the clock, as real logs have; ``False`` for steps of exactly ``ms``.
        store: given every entry as it is built (see ``into``).
        keep: keep the entries, for ``entries``, ``to_bytes`` and the rest. ``False`` to
            stream a large log into ``store`` in constant memory.
    """

    def __init__(
        self,
        start: When = "2026-10-18T09:30:00+02:00",
        *,
        seed: str = "session",
        seq: int = 0,
        offset: int = 0,
        zone: tzinfo | Callable[[int], int] | None = None,
        jitter: bool = True,
        store: SupportsAppend | None = None,
        keep: bool = True,
    ) -> None:
        if isinstance(start, str):
            self._now, self._offset = parse_rfc3339(start)
        else:
            self._now, self._offset = start, offset
        self.seed = seed
        #: The next entry's ``seq``. Set it to write a repeated or skipped number.
        self.seq = seq
        self._zone = zone
        self._jitter = jitter
        self._keep = keep
        self._pinned = True  # the first entry is at `start` exactly
        self._counter = 0
        self._entries: list[Entry] = []
        self._stores: list[SupportsAppend] = [store] if store is not None else []
        self._last: Entry | None = None
        self._run = _Run()
        self._open: dict[str, _OpenCall] = {}
        self._calls: tuple[ToolCall, ...] = ()
        self._models: dict[str, str] = {}  # the model each provider's last turn asked for

    @classmethod
    def resume(
        cls,
        source: Session | SupportsLoad,
        *,
        seed: str = "session",
        store: SupportsAppend | None = None,
        start: When = "2026-10-18T09:30:00+02:00",
        zone: tzinfo | Callable[[int], int] | None = None,
        jitter: bool = True,
    ) -> SessionBuilder:
        """A builder that carries on a session already written, as agentloop's next ``Run`` on
        it would: the next entry gets the next ``seq`` and comes after the last entry's time
        (in its offset); the calls left without a result are ``pending`` (so ``run()`` settles
        the ones that were started); an open run's turns and usage count in its
        ``run_ended``; ``anthropic()`` and ``openai()`` default to the models last used.

        Args:
            source: a ``Session``, or a store (anything with ``load()``), which is then also
                where the new entries go, unless ``store`` is given.
            seed: as for the constructor; it is combined with the next ``seq``, so ids never
                repeat those of the entries already written with the same seed.
            store: where the new entries go (see ``into``).
            start: the first entry's time, for an empty session only.
            zone, jitter: as for the constructor.

        A store with an ``open()`` method (``FileStore``) is opened first, which takes the
        writer lock: a second writer, resuming or not, is refused from then on, so no two
        writers can give out the same ``seq``.

        Raises:
            DamagedLogError, EntryError: the store's log is damaged.
            StoreLockedError: another writer holds the file.

        What the log cannot say is not carried on: results an open run refused (give
        ``run_ended(refused=...)``), and the entries themselves (``entries`` holds only the new
        ones).
        """
        if isinstance(source, Session):
            session = source
        else:
            opener = getattr(source, "open", None)
            if callable(opener):
                opener()  # a FileStore: the writer lock first, so no one appends meanwhile
            session = open_session(source)
            if store is None and hasattr(source, "append"):
                store = cast(SupportsAppend, source)
        last = session.entries[-1] if session.entries else None
        if last is None:
            return cls(start, seed=seed, store=store, zone=zone, jitter=jitter)
        builder = cls(
            last.time_unix_nano,
            seed=f"{seed}@{last.seq + 1}",
            seq=last.seq + 1,
            offset=last.utc_offset_seconds,
            zone=zone,
            jitter=jitter,
            store=store,
        )
        builder._pinned = False  # the next entry comes after the last one
        for entry in session.entries:
            builder._account(entry.payload)
            payload = entry.payload
            if isinstance(payload, MessageEntry) and payload.message.native is not None:
                native = payload.message.native
                builder._models[native.provider] = native.model
        return builder

    # What has been built.

    @property
    def entries(self) -> list[Entry]:
        """The entries built so far, in order (a copy)."""
        self._check_kept()
        return list(self._entries)

    @property
    def last(self) -> Entry | None:
        """The latest entry, ``None`` before the first."""
        return self._last

    @property
    def now(self) -> int:
        """The clock, in Unix nanoseconds: the latest entry's time, or the one pinned for the
        next entry by ``at``."""
        return self._now

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        """The tool calls of the latest assistant turn, with their ids."""
        return self._calls

    @property
    def pending(self) -> tuple[ToolCall, ...]:
        """Every call asked for, in any turn, that has no result yet, in the order they were
        asked for. Not ``Session.pending()``, which is only the last assistant turn's."""
        return tuple(o.call for o in self._open.values())

    # Determinism.

    def _hash(self, what: str) -> int:
        self._counter += 1
        digest = hashlib.sha256(f"{self.seed}/{what}/{self._counter}".encode()).digest()
        return int.from_bytes(digest, "big")

    def ident(self, prefix: str, length: int, alphabet: str = _B62) -> str:
        """A deterministic id: ``prefix`` and ``length`` characters of ``alphabet`` (base 62 by
        default), such as ``ident("toolu_01", 22)``. Each id draws on ``seed`` and a counter."""
        chars: list[str] = []
        n = 1
        while len(chars) < length:
            if n < len(alphabet):  # out of digits: hash again
                n = self._hash(prefix) | 1 << 256
            n, r = divmod(n, len(alphabet))
            chars.append(alphabet[r])
        return prefix + "".join(chars)

    def _call_id(self, provider: str) -> str:
        if provider == "anthropic":
            return self.ident("toolu_01", 22)
        return self.ident("call_", 24)

    # The clock.

    def at(self, when: When) -> SessionBuilder:
        """Put the next entry at ``when``: RFC 3339 text, whose offset is also used from then
        on, or Unix nanoseconds. A time before the latest entry is allowed (a clock stepped
        back)."""
        if isinstance(when, str):
            self._now, self._offset = parse_rfc3339(when)
        else:
            self._now = when
        self._pinned = True
        return self

    def wait(self, ms: float) -> SessionBuilder:
        """Let ``ms`` milliseconds pass: the next entry comes that much later."""
        self._now += round(ms * _MS)
        return self

    def _tick(self, ms: float) -> None:
        if self._pinned:
            self._pinned = False
            return
        self._now += round(ms * _MS)
        if self._jitter:
            self._now += self._hash("tick") % (_MS - 1) + 1

    def _offset_at(self, unix_nano: int) -> int:
        zone = self._zone
        if zone is None:
            return self._offset
        if isinstance(zone, tzinfo):
            delta = datetime.fromtimestamp(unix_nano // _SECOND, zone).utcoffset()
            return int(delta.total_seconds()) if delta is not None else 0
        return zone(unix_nano)

    # Writing.

    def add(self, payload: Payload, *, ms: float = 2, at: When | None = None) -> SessionBuilder:
        """Write one entry holding ``payload`` (its type follows from the payload's class:
        ``Outcome`` is ``run_ended``, ``UnknownEntry`` its own type), ``ms`` milliseconds after
        the latest entry or at ``at``. Every other method writes through this one, so the run's
        accounting sees entries added here too.

        The entry is given to each store first; if one raises, the builder records nothing
        (the next entry gets the same ``seq`` and time), and the stores given it before keep it.

        Raises:
            LabelError: a label in the payload is not one (``check_label``); agentloop never
                writes one.
        """
        _check_payload_labels(payload)
        clock = (self._now, self._offset, self._pinned, self._counter)
        try:
            if at is not None:
                self.at(at)
            self._tick(ms)
            etype = (
                payload.type if isinstance(payload, UnknownEntry) else PAYLOAD_TYPES[type(payload)]
            )
            entry = Entry(self.seq, self._now, etype, payload, self._offset_at(self._now))
            for store in self._stores:
                store.append(entry)
        except BaseException:
            # Not written: the builder stays where it was, so the next entry takes this seq.
            self._now, self._offset, self._pinned, self._counter = clock
            raise
        self.seq += 1
        self._account(payload)
        self._last = entry
        if self._keep:
            self._entries.append(entry)
        return self

    def _account(self, p: Payload) -> None:
        run = self._run
        if isinstance(p, RunStartedEntry):
            self._run = _Run()  # a run still open crashed
        elif isinstance(p, MessageEntry):
            if p.message.role != "assistant":
                return
            run.turns += 1
            run.usage += p.usage
            text = p.message.text
            if text:
                run.text = text
            self._calls = p.message.tool_calls
            for call in self._calls:
                self._open[call.id] = _OpenCall(call)
        elif isinstance(p, DecisionEntry):
            if p.call_id in self._open:
                self._open[p.call_id].verdict = p.verdict
        elif isinstance(p, CallStartedEntry):
            if p.call_id in self._open:
                self._open[p.call_id].started = True
        elif isinstance(p, ToolResultEntry):
            for mu in p.usage:
                run.usage += mu.usage
            self._open.pop(p.result.call_id, None)
        elif isinstance(p, ModelErrorEntry):
            run.error = p.error
        elif isinstance(p, Outcome):
            self._run = _Run()

    def _call(self, call: CallRef, want: Callable[[_OpenCall], bool] | None = None) -> ToolCall:
        if isinstance(call, ToolCall):
            return call
        if call is not None:
            if call not in self._open:
                raise ValueError(f"no pending call {call!r}")
            return self._open[call].call
        for o in self._open.values():
            if want is None or want(o):
                return o.call
        raise ValueError("no pending call: give call=")

    # Session entries.

    def labels(
        self, *labels: str, source: str = "seed", ms: float = 1, at: When | None = None
    ) -> SessionBuilder:
        """A ``labels`` entry: labels added from outside any call (``source`` ``seed``),
        written as given (Go's ``AddLabels`` writes one only when a label is new)."""
        return self.add(LabelsEntry(tuple(labels), source), ms=ms, at=at)

    def pins(
        self, pins: Mapping[str, str], *, ms: float = 1, at: When | None = None
    ) -> SessionBuilder:
        """A ``pins`` entry: tool definition digests (``sha256:<hex>``) by tool name
        (``NIL_MAP`` for Go's nil map, written ``null``)."""
        return self.add(PinsEntry(pins if pins is NIL_MAP else dict(pins)), ms=ms, at=at)

    # Runs.

    def run_started(
        self, prompt: str = "", *, ms: float = 2, at: When | None = None
    ) -> SessionBuilder:
        """A ``run_started`` entry; an empty ``prompt`` is a bare resume. A run still open has
        crashed."""
        return self.add(RunStartedEntry(prompt), ms=ms, at=at)

    def user(self, text: str, *, ms: float = 1, at: When | None = None) -> SessionBuilder:
        """The user's message (a ``message`` entry with zero usage)."""
        message = Message("user", (Part("text", text),))
        return self.add(MessageEntry(message, Usage()), ms=ms, at=at)

    def run(
        self, prompt: str = "", *, settle: bool = True, ms: float = 2, at: When | None = None
    ) -> SessionBuilder:
        """Start a run as ``Agent.Run`` does: ``run_started``; then, with ``settle``, a settled
        result for each call an earlier run started and never finished (``settle()``); then
        the prompt as the user's message, unless it is empty. ``ms``/``at`` time the first.

        A call an earlier run asked for and never started is settled by running it (or not),
        which only the caller can write: start the run without a prompt, ``allow`` or
        ``deny`` each such call, then write the prompt with ``user``.

        Raises:
            ValueError: a prompt, with ``settle``, while such a call is pending (nothing is
                written).
        """
        if prompt and settle:
            waiting = [o.call.id for o in self._open.values() if not o.started]
            if waiting:
                raise ValueError(
                    f"calls {', '.join(waiting)} were asked for and never started: start the "
                    "run without a prompt, allow or deny each, then write the prompt with user()"
                )
        self.run_started(prompt, ms=ms, at=at)
        if settle and any(o.started for o in self._open.values()):
            self.settle()
        if prompt:
            self.user(prompt)
        return self

    def run_ended(
        self,
        reason: str = "completed",
        *,
        turns: int | None = None,
        usage: Usage | None = None,
        text: str | None = None,
        error: ModelError | None = None,
        limit: str = "",
        forbidden: Iterable[str] = (),
        refused: Iterable[Refusal] | None = None,
        ms: float = 1,
        at: When | None = None,
    ) -> SessionBuilder:
        """A ``run_ended`` entry: the run's ``Outcome``.

        ``reason`` is ``completed``, ``max_tokens``, ``refused``, ``limit`` (name the limit:
        ``max_turns``, ``max_tool_calls`` or ``max_tokens``), ``model_error``, ``canceled`` or
        ``forbidden``. By default ``turns`` counts the run's assistant turns; ``usage`` adds
        their usage and the model calls of the run's tool results; ``text`` is its last
        assistant text; ``refused`` lists its refused results; ``error`` is, for
        ``model_error``, its last failed model call. Each can be given instead.
        """
        run = self._run
        if error is None and reason == "model_error":
            error = run.error
        outcome = Outcome(
            reason,
            run.turns if turns is None else turns,
            run.usage if usage is None else usage,
            run.text if text is None else text,
            error,
            limit,
            _labels_arg(forbidden, "forbidden"),
            tuple(run.refused) if refused is None else tuple(refused),
        )
        return self.add(outcome, ms=ms, at=at)

    def crash(self) -> SessionBuilder:
        """The process dies: the run ends without ``run_ended``. Nothing is written; calls left
        running stay pending for the next run to settle."""
        self._run = _Run()
        return self

    def forbidden_run(
        self, prompt: str, forbidden: Iterable[str], *, ms: float = 2, at: When | None = None
    ) -> SessionBuilder:
        """A run on a session holding labels the agent forbids: ``run_started`` and at once
        ``run_ended`` ``forbidden``, naming them (sorted); nothing runs."""
        names = sorted(set(_labels_arg(forbidden, "forbidden")))
        self.run_started(prompt, ms=ms, at=at)
        return self.run_ended("forbidden", forbidden=names)

    # Assistant turns.

    def assistant(
        self,
        provider: str,
        model: str,
        data: Any,
        *,
        text: str = "",
        reasoning: str | None = None,
        calls: Iterable[CallSpec] = (),
        usage: Usage | None = None,
        stop: str = "",
        refusal: str = "",
        served: str | None = None,
        ms: float = 3000,
        at: When | None = None,
    ) -> SessionBuilder:
        """An assistant turn with ``native.data`` given: parts ``reasoning`` (when not
        ``None``), ``text`` (when not empty) and a ``tool_call`` for each of ``calls``.

        Args:
            provider: ``native.provider``, such as ``anthropic``.
            model: the model asked for (``native.model``).
            data: the provider's response, parsed JSON or ``RawJSON`` bytes.
            usage: what the call cost: ``Usage(input, output, cache_read, cache_write)``,
                four disjoint token counts.
            stop: ``end_turn``, ``tool_use``, ``max_tokens``, ``refusal`` or ``pause``; by
                default ``refusal`` with a ``refusal``, ``tool_use`` with calls, else
                ``end_turn``.
            refusal: the provider's reason, for a refusal.
            served: the model that served the turn (the entry's ``model``); ``model`` by
                default.
            ms: how long the model call took: milliseconds after the previous entry.
        """
        if at is not None:
            self.at(at)
        resolved = [self._spec(c, provider) for c in calls]
        return self._turn(
            provider, model, data, text, reasoning, resolved, usage, stop, refusal, served, ms
        )

    def _model(self, provider: str, model: str | None, default: str) -> str:
        if model is None:
            return self._models.get(provider, default)
        self._models[provider] = model
        return model

    def _spec(self, c: CallSpec, provider: str) -> ToolCall:
        if isinstance(c, ToolCall):
            return c if c.id else ToolCall(self._call_id(provider), c.name, c.input)
        name, inp = c
        return ToolCall(self._call_id(provider), name, inp)

    def _turn(
        self,
        provider: str,
        model: str,
        data: Any,
        text: str,
        reasoning: str | None,
        calls: list[ToolCall],
        usage: Usage | None,
        stop: str,
        refusal: str,
        served: str | None,
        ms: float,
    ) -> SessionBuilder:
        parts: list[Part] = []
        if reasoning is not None:
            parts.append(Part("reasoning", reasoning))
        if text:
            parts.append(Part("text", text))
        parts.extend(Part("tool_call", tool_call=c) for c in calls)
        if not stop:
            stop = "refusal" if refusal else ("tool_use" if calls else "end_turn")
        message = Message("assistant", tuple(parts), Native(provider, model, data))
        entry = MessageEntry(message, usage or Usage(), stop, served or model, refusal)
        return self.add(entry, ms=ms)

    def anthropic(
        self,
        model: str | None = None,
        *,
        text: str = "",
        reasoning: str | None = None,
        calls: Iterable[CallSpec] = (),
        usage: Usage | None = None,
        stop: str = "",
        served: str | None = None,
        ms: float = 3200,
        at: When | None = None,
    ) -> SessionBuilder:
        """An assistant turn from Anthropic's Messages API, with its response in
        ``native.data``: ``msg_01…`` id, ``thinking`` (with a signature), ``text`` and
        ``tool_use`` blocks, ``stop_reason`` and the usage in Anthropic's names.

        ``reasoning`` is the thinking block's text (``""`` for a redacted summary, ``None`` for
        none); ``calls`` get ``toolu_01…`` ids. ``usage``'s ``input_tokens`` is the uncached
        input, as Anthropic counts it. ``ms``: how long the call took. ``model``: the model
        asked for; by default the one this builder's last Anthropic turn asked for, else
        ``claude-sonnet-4-5``. See ``assistant``.
        """
        model = self._model("anthropic", model, "claude-sonnet-4-5")
        if at is not None:
            self.at(at)
        signature = self.ident("", 94, _B62 + "+/") + "==" if reasoning is not None else ""
        resolved = [self._spec(c, "anthropic") for c in calls]
        content = anthropic_content(
            thinking=reasoning, signature=signature, text=text, calls=resolved
        )
        stop = stop or ("tool_use" if resolved else "end_turn")
        u = usage or Usage()
        data = anthropic_message(
            id=self.ident("msg_01", 22),
            model=served or model,
            content=content,
            stop_reason=stop,
            usage=u,
        )
        return self._turn(
            "anthropic", model, data, text, reasoning, resolved, u, stop, "", served, ms
        )

    def openai(
        self,
        model: str | None = None,
        *,
        text: str = "",
        reasoning: str | None = None,
        reasoning_tokens: int = 0,
        calls: Iterable[CallSpec] = (),
        usage: Usage | None = None,
        stop: str = "",
        refusal: str = "",
        served: str | None = None,
        ms: float = 4100,
        at: When | None = None,
    ) -> SessionBuilder:
        """An assistant turn from OpenAI's Responses API, with its response in ``native.data``:
        ``resp_…`` id, ``reasoning`` (with a summary unless ``reasoning`` is ``""``),
        ``message`` (``output_text``, or ``refusal``) and ``function_call`` items.

        ``calls`` get ``call_…`` ids. ``usage`` is agentloop's: OpenAI's ``input_tokens`` is
        written as the uncached and cached input together, as OpenAI counts it, and
        ``reasoning_tokens`` is part of the output. A ``refusal`` is also the turn's text. A
        ``max_tokens`` stop makes the response ``incomplete``. ``ms``: how long the call took;
        ``created_at`` is halfway through, in Unix seconds. ``model``: the model asked for; by
        default the one this builder's last OpenAI turn asked for, else ``gpt-5``. See
        ``assistant``.
        """
        model = self._model("openai", model, "gpt-5")
        if at is not None:
            self.at(at)
        output: list[dict[str, Any]] = []
        if reasoning is not None:
            output.append(openai_reasoning_item(self.ident("rs_", 50, _HEX), reasoning))
        incomplete = stop == "max_tokens"
        if refusal:
            text = refusal
        if text:
            item_id = self.ident("msg_", 50, _HEX)
            output.append(
                openai_message_item(
                    item_id, text=text, refusal=refusal, incomplete=incomplete and not refusal
                )
            )
        resolved = []
        for c in calls:
            call = self._spec(c, "openai")
            resolved.append(call)
            output.append(openai_function_call(self.ident("fc_", 50, _HEX), call))
        u = usage or Usage()
        data = openai_response(
            id=self.ident("resp_", 50, _HEX),
            created_at=(self._now + round(ms * _MS) // 2) // _SECOND,
            model=served or model,
            output=output,
            usage=u,
            reasoning_tokens=reasoning_tokens,
            incomplete=incomplete,
        )
        return self._turn(
            "openai", model, data, text, reasoning, resolved, u, stop, refusal, served, ms
        )

    # Model errors.

    def model_error(
        self,
        kind: str,
        message: str = "",
        *,
        status: int = 0,
        retry: bool = False,
        wait_ms: int = 0,
        retry_after: When | None = None,
        resets_at: When | None = None,
        ms: float = 400,
        at: When | None = None,
    ) -> SessionBuilder:
        """A failed model call (``model_error``).

        Args:
            kind: ``rate_limited``, ``overloaded``, ``unreachable``, ``unauthorized``,
                ``billing``, ``not_found`` or ``invalid_request``.
            message: the provider's message.
            status: the HTTP status, 0 when there was no answer.
            retry: whether the loop tries again; it then sleeps ``wait_ms`` milliseconds, and
                the clock moves on by as much.
            retry_after, resets_at: when the provider asked to be retried, and when the limit
                resets: RFC 3339 text or Unix nanoseconds; ``None`` when it did not say.
            ms: how long the failed call took.
        """
        error = ModelError(kind, message, status, _instant(retry_after), _instant(resets_at))
        self.add(ModelErrorEntry(error, retry, wait_ms), ms=ms, at=at)
        if retry:
            self.wait(wait_ms)
        return self

    # Tool calls.

    def decision(
        self,
        verdict: str = "allow",
        *,
        call: CallRef = None,
        reason: str = "",
        labels: Iterable[str] = (),
        ms: float = 1,
        at: When | None = None,
    ) -> SessionBuilder:
        """A policy's ``decision`` on a call: ``allow`` (its ``labels`` are added to the
        session) or ``deny`` (the ``reason`` is shown to the model). ``call`` defaults to the
        first pending call with no decision."""
        c = self._call(call, lambda o: not o.verdict)
        labels = _labels_arg(labels)
        return self.add(DecisionEntry(c.id, c.name, verdict, reason, labels), ms=ms, at=at)

    def call_started(
        self, *, call: CallRef = None, ms: float = 0.3, at: When | None = None
    ) -> SessionBuilder:
        """``call_started``: written just before the tool runs. ``call`` defaults to the first
        pending call not started."""
        c = self._call(call, lambda o: not o.started)
        return self.add(CallStartedEntry(c.id), ms=ms, at=at)

    def tool_result(
        self,
        content: str,
        *,
        call: CallRef = None,
        is_error: bool = False,
        labels: Iterable[str] = (),
        log: str = "",
        usage: Iterable[ToolUsage] = (),
        display: Display | None = None,
        ms: float = 40,
        at: When | None = None,
    ) -> SessionBuilder:
        """A ``tool_result``: ``content`` for the model, ``is_error``, the ``labels`` it adds
        to the session, the operator's ``log`` and ``display``, and the model calls the tool
        made (``usage``: ``ModelUsage`` or ``(model, Usage)``; they count in the run's usage).
        ``call`` defaults to the first pending call; ``ms`` is how long the tool ran."""
        c = self._call(call)
        model_usage = tuple(u if isinstance(u, ModelUsage) else ModelUsage(*u) for u in usage)
        entry = ToolResultEntry(
            ToolResult(c.id, content, is_error), _labels_arg(labels), log, model_usage, display
        )
        return self.add(entry, ms=ms, at=at)

    def allow(
        self,
        content: str,
        *,
        call: CallRef = None,
        decision_labels: Iterable[str] = (),
        labels: Iterable[str] = (),
        is_error: bool = False,
        log: str = "",
        usage: Iterable[ToolUsage] = (),
        display: Display | None = None,
        ms: float = 1,
        took: float = 40,
        at: When | None = None,
    ) -> SessionBuilder:
        """A call allowed and run: ``decision`` allow (with ``decision_labels``), 0.3 ms later
        ``call_started``, and after ``took`` milliseconds its ``tool_result`` (see
        ``tool_result``). ``ms``/``at`` time the decision. Labels are checked before anything
        is written (``LabelError``)."""
        decision_labels = _labels_arg(decision_labels, "decision_labels")
        labels = _labels_arg(labels)
        if display is not None:
            check_labels(display.labels)
        c = self._call(call, lambda o: not o.verdict)
        self.decision("allow", call=c, labels=decision_labels, ms=ms, at=at)
        self.call_started(call=c)
        return self.tool_result(
            content,
            call=c,
            is_error=is_error,
            labels=labels,
            log=log,
            usage=usage,
            display=display,
            ms=took,
        )

    def deny(
        self,
        reason: str,
        *,
        call: CallRef = None,
        labels: Iterable[str] = (),
        ms: float = 1,
        at: When | None = None,
    ) -> SessionBuilder:
        """A call the policy denies: ``decision`` deny, then a ``tool_result`` that tells the
        model the ``reason`` (``is_error``)."""
        labels = _labels_arg(labels)
        c = self._call(call, lambda o: not o.verdict)
        self.decision("deny", call=c, reason=reason, labels=labels, ms=ms, at=at)
        return self.tool_result(reason, call=c, is_error=True, ms=0.2)

    def deny_forbidden(
        self,
        labels: Iterable[str],
        *,
        call: CallRef = None,
        ms: float = 1,
        at: When | None = None,
    ) -> SessionBuilder:
        """An allow whose ``labels`` include one the session may not hold, which agentloop
        turns into a deny with agentloop's ``ForbiddenDecision`` (``FORBIDDEN_DECISION``)."""
        return self.deny(FORBIDDEN_DECISION, call=call, labels=labels, ms=ms, at=at)

    def refused_result(
        self,
        forbidden: Iterable[str],
        *,
        call: CallRef = None,
        is_error: bool = False,
        log: str = "",
        usage: Iterable[ToolUsage] = (),
        ms: float = 60,
        at: When | None = None,
    ) -> SessionBuilder:
        """A result refused because it carried ``forbidden`` labels: the model is told the
        agentloop's ``RefusedResult``, the session takes none of its labels, its ``log`` and
        ``usage`` are kept, and the run's ``Outcome.refused`` will name it."""
        forbidden = _labels_arg(forbidden, "forbidden")
        c = self._call(call)
        self.tool_result(
            REFUSED_RESULT, call=c, is_error=is_error, log=log, usage=usage, ms=ms, at=at
        )
        self._run.refused.append(Refusal(c.id, c.name, tuple(sorted(set(forbidden)))))
        return self

    def refuse(
        self,
        forbidden: Iterable[str],
        *,
        call: CallRef = None,
        is_error: bool = False,
        log: str = "",
        usage: Iterable[ToolUsage] = (),
        ms: float = 1,
        took: float = 60,
        at: When | None = None,
    ) -> SessionBuilder:
        """A call allowed and run whose result is refused: ``decision`` allow,
        ``call_started`` and, ``took`` milliseconds later, ``refused_result``."""
        forbidden = _labels_arg(forbidden, "forbidden")
        c = self._call(call, lambda o: not o.verdict)
        self.decision("allow", call=c, ms=ms, at=at)
        self.call_started(call=c)
        return self.refused_result(
            forbidden, call=c, is_error=is_error, log=log, usage=usage, ms=took
        )

    def settle(
        self,
        *,
        call: CallRef = None,
        content: str = SETTLED_RESULT,
        ms: float = 1,
        at: When | None = None,
    ) -> SessionBuilder:
        """Settle a call an earlier run started and never finished: a ``tool_result``
        (``is_error``) telling the model it may or may not have taken effect. Without
        ``call``, every pending call that was started, in order."""
        if call is not None:
            return self.tool_result(content, call=call, is_error=True, ms=ms, at=at)
        started = [o.call for o in self._open.values() if o.started]
        if not started:
            raise ValueError("no started call to settle")
        for i, c in enumerate(started):
            self.tool_result(content, call=c, is_error=True, ms=ms, at=at if i == 0 else None)
        return self

    def over_limit(
        self,
        *,
        call: CallRef = None,
        content: str = LIMIT_RESULT,
        ms: float = 0.2,
        at: When | None = None,
    ) -> SessionBuilder:
        """A call beyond ``Limits.MaxToolCalls``: refused without a decision (``is_error``);
        end the run with ``run_ended("limit", limit="max_tool_calls")``."""
        return self.tool_result(content, call=call, is_error=True, ms=ms, at=at)

    # Output.

    def into(self, store: SupportsAppend) -> SessionBuilder:
        """Give ``store`` (anything with ``append(entry)``) the entries built so far, then each
        later entry as it is built."""
        self._check_kept()
        for entry in self._entries:
            store.append(entry)
        self._stores.append(store)
        return self

    def lines(self) -> list[bytes]:
        """Each entry as the line Go's ``encoding/json`` writes, without the ``\\n``."""
        self._check_kept()
        return [encode_entry(e) for e in self._entries]

    def to_bytes(self) -> bytes:
        """The log: every entry's line, each ending in ``\\n``."""
        return b"".join(line + b"\n" for line in self.lines())

    def write(self, path: str | Path) -> Path:
        """Write the log to ``path`` (replacing it) and return the path."""
        path = Path(path)
        path.write_bytes(self.to_bytes())
        return path

    def read(self, name: str = "<builder>") -> Session:
        """The log read back with ``read_session``: the ``Session`` a reader sees."""
        return read_session(io.BytesIO(self.to_bytes()), name=name)

    def _check_kept(self) -> None:
        if not self._keep and self._last is not None:
            raise ValueError("this builder does not keep its entries (keep=False)")


def _labels_arg(labels: Iterable[str], name: str = "labels") -> tuple[str, ...]:
    """Labels given to a step, as a tuple, checked (``LabelError``); a bare string is refused,
    not taken for its characters."""
    if isinstance(labels, str):
        raise TypeError(f"{name} takes a list of labels, not the string {labels!r}")
    out = tuple(labels)
    check_labels(out)
    return out


def _check_payload_labels(p: Payload) -> None:
    """Every label a payload gives, checked as agentloop checks them (``CheckLabels``)."""
    if isinstance(p, LabelsEntry | DecisionEntry):
        check_labels(p.labels)
    elif isinstance(p, ToolResultEntry):
        check_labels(p.labels)
        if p.display is not None:
            check_labels(p.display.labels)
    elif isinstance(p, Outcome):
        check_labels(p.forbidden)
        for refusal in p.refused:
            check_labels(refusal.labels)


def _instant(when: When | None) -> int | None:
    if when is None or isinstance(when, int):
        return when
    return parse_rfc3339(when)[0]
