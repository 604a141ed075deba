"""Runs to spans: ``trace_spans(runs, ...)``, the second part of the traces exporter.

Each run gives its ``Span`` values: ids as bytes (``ids``), times in Unix nanoseconds,
attributes as Python values in a fixed order. One function makes each kind of span
(``_agent_span``, ``_turn_spans``, ``_failed_spans``, ``_tool_spans``) over what a run's spans
share (``_RunContext``). Attribute names follow OpenTelemetry semantic conventions 1.41.0
(GenAI spans, at Development stability), and ``agentloop.*`` for agentloop's own. The spans,
their attributes, statuses and order: docs/traces.md, "Spans", "Attributes", "Errors" and
"Identity and order". Runs not read by an exporter's reader are checked against what an export
holds as they come (``check_run``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Generic, TypeAlias, TypeVar

from .._fast import fast_maker, frozen
from .._log.entries import ModelError, Usage
from .._log.limits import check_run
from .._model.runs import Run
from .._model.usage import inclusive_input_tokens
from .ids import _span_id, _span_key_prefix, _trace_id, check_parents

__all__ = [
    "SCHEMA_URL",
    "SPAN_KIND_CLIENT",
    "SPAN_KIND_INTERNAL",
    "STATUS_CODE_ERROR",
    "STATUS_CODE_UNSET",
    "AttributeValue",
    "Span",
    "trace_spans",
]


#: The pinned semantic conventions (docs/traces.md, "Spans").
SCHEMA_URL = "https://opentelemetry.io/schemas/1.41.0"


#: ``Span.SpanKind`` values of the OTLP proto.
SPAN_KIND_INTERNAL = 1


SPAN_KIND_CLIENT = 3


#: ``Status.StatusCode`` values of the OTLP proto.
STATUS_CODE_UNSET = 0


STATUS_CODE_ERROR = 2


#: An attribute's value: a string, a bool, an int (64-bit) or an array of strings.
AttributeValue: TypeAlias = str | bool | int | tuple[str, ...]


@frozen
class Span:
    """One span, ready to encode.

    Attributes:
        trace_id: 16 bytes. span_id: 8 bytes. parent_span_id: 8 bytes, or ``b""`` for a root.
        name: such as ``chat claude-opus-5-5``.
        kind: ``SPAN_KIND_INTERNAL`` or ``SPAN_KIND_CLIENT``.
        start_time_unix_nano, end_time_unix_nano: from the log, to the nanosecond.
        attributes: ``(key, value)`` pairs in their fixed order.
        status_code: ``STATUS_CODE_UNSET`` or ``STATUS_CODE_ERROR``; status_message: why.
    """

    trace_id: bytes
    span_id: bytes
    parent_span_id: bytes
    name: str
    kind: int
    start_time_unix_nano: int
    end_time_unix_nano: int
    attributes: tuple[tuple[str, AttributeValue], ...]
    status_code: int = STATUS_CODE_UNSET
    status_message: str = ""


_new_span = fast_maker(Span)


def _add_usage(attrs: list[tuple[str, AttributeValue]], usage: Usage) -> None:
    # The conventions count cached tokens as input; agentloop's input_tokens is the uncached
    # part (the conversion lives in _model.usage: to_otel, whose other three counts are
    # agentloop's as they are, read here without making an OTelUsage for each span).
    attrs.append(("gen_ai.usage.input_tokens", inclusive_input_tokens(usage)))
    attrs.append(("gen_ai.usage.output_tokens", usage.output_tokens))
    if usage.cache_read_tokens:
        attrs.append(("gen_ai.usage.cache_read.input_tokens", usage.cache_read_tokens))
    if usage.cache_write_tokens:
        attrs.append(("gen_ai.usage.cache_creation.input_tokens", usage.cache_write_tokens))


def trace_spans(
    runs: Iterable[Run],
    *,
    conversation_id: str,
    parent_trace_id: bytes | None = None,
    parent_span_id: bytes | None = None,
    agent_name: str | None = None,
    error_messages: bool = False,
) -> Iterator[Span]:
    """The spans of each run, run by run, each run's ordered by start time, then seq.

    Args:
        runs: runs in log order (``iter_runs`` or ``Session.runs``).
        conversation_id: ``gen_ai.conversation.id`` and the key of the trace and span ids.
        parent_trace_id, parent_span_id: put every run under a span made elsewhere: every span
            gets that trace id, each ``invoke_agent`` that parent (16 and 8 bytes).
        agent_name: ``gen_ai.agent.name``, and the ``invoke_agent`` span's name suffix.
        error_messages: add the provider's message, cut to ``ERROR_MESSAGE_CHARS``
            characters, to the status message of a failed model call and of a run that ended
            with a model error (``sessiontools otel --error-messages``). By default a status
            message says the error's kind and HTTP status only (``rate_limited (429)``): a
            provider's message can quote the request (docs/traces.md, "Errors").

    Raises:
        TypeError, InvalidIdError: a parent id that is not bytes, has the wrong length or is
            all zero (as ``sessiontools otel`` checks ``--parent-trace`` / ``--parent-span``).
        ValueError: ``parent_span_id`` without ``parent_trace_id``.
        UsageConventionError, OutOfRangeError: a run holds what an export cannot (a
            negative token count; a time before 1970 or after 2262-04-11; token counts that
            add up past 2^63-1: ``sessiontools._log.limits``). ``export_otlp_json`` reports
            these as an ``EntryError`` naming the line, as it reads.
    """
    parent_trace_id, parent_span_id = check_parents(parent_trace_id, parent_span_id)
    return _trace_spans(
        runs,
        conversation_id,
        parent_trace_id,
        parent_span_id,
        agent_name,
        error_messages,
        checked=False,
    )


def _trace_spans(
    runs: Iterable[Run],
    conversation_id: str,
    parent_trace_id: bytes | None,
    parent_span_id: bytes | None,
    agent_name: str | None,
    error_messages: bool,
    *,
    checked: bool,
) -> Iterator[Span]:
    """``trace_spans`` with its arguments checked; ``checked``: the runs were read by a
    ``LogReader(..., export=True)``, which refused what ``check_run`` would."""
    for run in runs:
        if not checked:
            check_run(run, conversation_id)
        yield from _run_spans(
            run, conversation_id, parent_trace_id, parent_span_id, agent_name, error_messages
        )


#: ``--error-messages`` keeps this many characters of a provider's message.
ERROR_MESSAGE_CHARS = 1000


def _error_status(error: ModelError | None, error_messages: bool) -> str:
    """A status message: the error's kind and HTTP status (``rate_limited (429)``), and with
    ``error_messages`` the provider's message, cut to ``ERROR_MESSAGE_CHARS`` characters."""
    kind = (error.kind if error is not None else "") or "model_error"
    text = f"{kind} ({error.status})" if error is not None and error.status else kind
    if error_messages and error is not None and error.message:
        text += ": " + error.message[:ERROR_MESSAGE_CHARS]
    return text


#: The attribute every ``invoke_agent`` span ends with: the labels the session holds when its
#: run ends. It is the last attribute, so that a part of a log exported elsewhere (the split's
#: child, which knows only its own part's labels) can have it written again (``_otel.export``).
SESSION_LABELS = "agentloop.session.labels"

_Order = tuple[int, int, int, int]
#: What a run's spans are made into: ``Span`` values, or their OTLP/JSON (``otlp_json``).
T = TypeVar("T")
_Keyed = list[tuple[_Order, T]]


class _RunContext(Generic[T]):
    """What every span of one run shares: its trace, the key prefix of its span ids, its
    ``invoke_agent`` span's id, the conversation attribute, and the options; ``span`` makes
    each span (a ``Span`` here; ``otlp_json`` writes its JSON instead)."""

    __slots__ = (
        "agent_name",
        "conv",
        "conversation_id",
        "error_messages",
        "parent_span_id",
        "prefix",
        "run_id",
        "trace_id",
    )

    def __init__(
        self,
        run: Run,
        conversation_id: str,
        parent_trace_id: bytes | None,
        parent_span_id: bytes | None,
        agent_name: str | None,
        error_messages: bool,
    ) -> None:
        self.trace_id = parent_trace_id or _trace_id(conversation_id, run.start_seq)
        self.prefix = _span_key_prefix(self.trace_id, conversation_id)
        self.run_id = _span_id(self.prefix, "invoke_agent", run.start_seq, 0)
        self.conv: tuple[str, AttributeValue] = ("gen_ai.conversation.id", conversation_id)
        self.conversation_id = conversation_id
        self.parent_span_id = parent_span_id or b""
        self.agent_name = agent_name
        self.error_messages = error_messages

    def span(
        self,
        ident: bytes,
        parent: bytes,
        name: str,
        kind: int,
        start: int,
        end: int,
        attrs: list[tuple[str, AttributeValue]],
        status_code: int = STATUS_CODE_UNSET,
        status_message: str = "",
    ) -> T:
        raise NotImplementedError

    def add_usage(self, attrs: list[tuple[str, AttributeValue]], usage: Usage) -> None:
        """Add a model call's token counts to a span's attributes (``_add_usage``; the OTLP/JSON
        context adds them written already)."""
        _add_usage(attrs, usage)


class _SpanContext(_RunContext[Span]):
    """Makes each span a ``Span``."""

    __slots__ = ()

    def span(
        self,
        ident: bytes,
        parent: bytes,
        name: str,
        kind: int,
        start: int,
        end: int,
        attrs: list[tuple[str, AttributeValue]],
        status_code: int = STATUS_CODE_UNSET,
        status_message: str = "",
    ) -> Span:
        return _new_span(
            self.trace_id,
            ident,
            parent,
            name,
            kind,
            start,
            end,
            tuple(attrs),
            status_code,
            status_message,
        )


_OP_AGENT: tuple[str, AttributeValue] = ("gen_ai.operation.name", "invoke_agent")
_OP_CHAT: tuple[str, AttributeValue] = ("gen_ai.operation.name", "chat")
_OP_TOOL: tuple[str, AttributeValue] = ("gen_ai.operation.name", "execute_tool")
_TOOL_TYPE: tuple[str, AttributeValue] = ("gen_ai.tool.type", "function")


def _run_spans(
    run: Run,
    conversation_id: str,
    parent_trace_id: bytes | None,
    parent_span_id: bytes | None,
    agent_name: str | None,
    error_messages: bool,
) -> list[Span]:
    """The spans of one run, ordered by start time, then seq (then kind and index)."""
    ctx = _SpanContext(
        run, conversation_id, parent_trace_id, parent_span_id, agent_name, error_messages
    )
    return [span for _, span in run_items(ctx, run)]


def run_items(ctx: _RunContext[T], run: Run) -> _Keyed[T]:
    """What ``ctx`` makes of each span of ``run``, in order, each after its order key: by start
    time, then seq, then kind (0 the run's ``invoke_agent`` span, 1 a model call, 2 a tool
    call, 3 a tool's model call) and index."""
    keyed: _Keyed[T] = [_agent_span(ctx, run)]
    _turn_spans(ctx, run, keyed)
    _failed_spans(ctx, run, keyed)
    _tool_spans(ctx, run, keyed)
    keyed.sort(key=_FIRST)
    return keyed


def _agent_span(ctx: _RunContext[T], run: Run) -> tuple[_Order, T]:
    """The run's ``invoke_agent`` span."""
    attrs: list[tuple[str, AttributeValue]] = [_OP_AGENT, ctx.conv]
    if ctx.agent_name is not None:
        attrs.append(("gen_ai.agent.name", ctx.agent_name))
    if run.provider:
        attrs.append(("gen_ai.provider.name", run.provider))
    if run.request_model:
        attrs.append(("gen_ai.request.model", run.request_model))
    ctx.add_usage(attrs, run.usage)
    status_code, status_message = STATUS_CODE_UNSET, ""
    outcome = run.outcome
    if outcome is None:
        attrs.append(("error.type", "crashed"))
        status_code, status_message = STATUS_CODE_ERROR, "the run has no run_ended: it crashed"
    elif outcome.reason == "model_error":
        kind = outcome.error.kind if outcome.error is not None and outcome.error.kind else ""
        attrs.append(("error.type", kind or "model_error"))
        status_code = STATUS_CODE_ERROR
        status_message = _error_status(outcome.error, ctx.error_messages)
    attrs.append(("agentloop.run.reason", run.reason))
    attrs.append(("agentloop.run.turns", run.turn_count))
    if outcome is not None and outcome.limit:
        attrs.append(("agentloop.run.limit", outcome.limit))
    if outcome is not None and outcome.forbidden:
        attrs.append(("agentloop.run.forbidden", outcome.forbidden))
    attrs.append((SESSION_LABELS, run.labels))  # last: see SESSION_LABELS
    name = "invoke_agent" if ctx.agent_name is None else f"invoke_agent {ctx.agent_name}"
    span = ctx.span(
        ctx.run_id,
        ctx.parent_span_id,
        name,
        SPAN_KIND_INTERNAL,
        run.start_time_unix_nano,
        run.end_time_unix_nano,
        attrs,
        status_code,
        status_message,
    )
    return (run.start_time_unix_nano, run.start_seq, 0, 0), span


def _turn_spans(ctx: _RunContext[T], run: Run, keyed: _Keyed[T]) -> None:
    """A ``chat`` span for each turn (a successful model call)."""
    prefix, conv, run_id, span_of, add = ctx.prefix, ctx.conv, ctx.run_id, ctx.span, keyed.append
    add_usage = ctx.add_usage
    for t in run.turns:
        attrs = [_OP_CHAT, conv]
        if t.provider:
            attrs.append(("gen_ai.provider.name", t.provider))
        if t.request_model:
            attrs.append(("gen_ai.request.model", t.request_model))
        if t.model:
            attrs.append(("gen_ai.response.model", t.model))
        if t.stop:
            attrs.append(("gen_ai.response.finish_reasons", (t.stop,)))
        add_usage(attrs, t.usage)
        span = span_of(
            _span_id(prefix, "chat", t.seq, 0),
            run_id,
            "chat " + t.request_model if t.request_model else "chat",
            SPAN_KIND_CLIENT,
            t.start_time_unix_nano,
            t.time_unix_nano,
            attrs,
        )
        add(((t.start_time_unix_nano, t.seq, 1, 0), span))


def _failed_spans(ctx: _RunContext[T], run: Run, keyed: _Keyed[T]) -> None:
    """A ``chat`` span, status ERROR, for each failed model call."""
    for f in run.failed_calls:
        attrs = [_OP_CHAT, ctx.conv]
        if f.provider:
            attrs.append(("gen_ai.provider.name", f.provider))
        if f.request_model:
            attrs.append(("gen_ai.request.model", f.request_model))
        attrs.append(("error.type", f.error.kind or "model_error"))
        if f.error.status:
            attrs.append(("http.response.status_code", f.error.status))
        attrs.append(("agentloop.retry", f.retry))
        if f.retry:
            attrs.append(("agentloop.retry.wait_ms", f.wait_ms))
        span = ctx.span(
            _span_id(ctx.prefix, "chat", f.seq, 0),
            ctx.run_id,
            _chat_name(f.request_model),
            SPAN_KIND_CLIENT,
            f.start_time_unix_nano,
            f.time_unix_nano,
            attrs,
            STATUS_CODE_ERROR,
            _error_status(f.error, ctx.error_messages),
        )
        keyed.append(((f.start_time_unix_nano, f.seq, 1, 0), span))


def _tool_spans(ctx: _RunContext[T], run: Run, keyed: _Keyed[T]) -> None:
    """An ``execute_tool`` span for each tool call, and under it a ``chat`` span for each
    model call the tool made."""
    prefix, conv, run_id, span_of, add = ctx.prefix, ctx.conv, ctx.run_id, ctx.span, keyed.append
    for c in run.tool_calls:
        # a call settled by a later run is keyed on that run's tool_result (index 0)
        if c.resumed and c.result_seq is not None:
            key_seq, key_index = c.result_seq, 0
        else:
            key_seq, key_index = c.open_seq, c.open_index
        tool_id = _span_id(prefix, "execute_tool", key_seq, key_index)
        attrs = [
            _OP_TOOL,
            conv,
            ("gen_ai.tool.name", c.tool),
            ("gen_ai.tool.call.id", c.call_id),
            _TOOL_TYPE,
        ]
        if c.verdict == "deny":
            error = "denied"
        elif not c.has_result:
            error = "crashed"
        elif c.refused:
            error = "refused"
        elif c.is_error:
            error = "tool_error"
        else:
            error = ""
        if error:
            attrs.append(("error.type", error))
        if c.verdict:
            attrs.append(("agentloop.decision.verdict", c.verdict))
        attrs.append(("agentloop.call.labels", c.labels))
        attrs.append(("agentloop.call.resumed", c.resumed))
        start, end = c.start_time_unix_nano, c.end_time_unix_nano
        span = span_of(
            tool_id,
            run_id,
            "execute_tool " + c.tool if c.tool else "execute_tool",
            SPAN_KIND_INTERNAL,
            start,
            end,
            attrs,
            STATUS_CODE_ERROR if error else STATUS_CODE_UNSET,
            _TOOL_ERRORS.get(error, ""),
        )
        add(((start, key_seq, 2, key_index), span))
        if not c.model_calls:
            continue
        result_seq = c.result_seq if c.result_seq is not None else c.open_seq
        for m in c.model_calls:
            attrs = [_OP_CHAT, conv]
            if m.model:
                attrs.append(("gen_ai.request.model", m.model))
                attrs.append(("gen_ai.response.model", m.model))
            ctx.add_usage(attrs, m.usage)
            span = span_of(
                _span_id(prefix, "tool_chat", result_seq, m.index),
                tool_id,
                _chat_name(m.model),
                SPAN_KIND_CLIENT,
                start,
                end,
                attrs,
            )
            add(((start, result_seq, 3, m.index), span))


def _chat_name(model: str) -> str:
    return f"chat {model}" if model else "chat"


#: A span's order key, first in each ``(order, span)`` pair.
_FIRST = itemgetter(0)


_TOOL_ERRORS = {
    "denied": "the policy denied the call",
    "crashed": "the call has no result in its run: it was cut off",
    "refused": "the result carried a label the session may not hold, and was refused",
    "tool_error": "the tool reported an error",
}
