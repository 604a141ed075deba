"""The providers' own responses, as agentloop keeps them in ``native.data``: the shapes of
Anthropic's Messages API and OpenAI's Responses API, in their key order.

Pure values: the caller chooses every id, time and text (``SessionBuilder`` from its seeded
clock, ``benchmarks/make_large_log.py`` from its random generator), so the same arguments give
the same bytes. Token counts arrive as agentloop's ``Usage`` (four disjoint counts) and leave
in each provider's own convention (``docs/costs.md``, "Usage conventions"): Anthropic's
``input_tokens`` is the uncached input; OpenAI's counts the cached tokens in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from .._log.content import ToolCall
from .._log.entries import Usage

__all__ = [
    "anthropic_content",
    "anthropic_message",
    "openai_function_call",
    "openai_message_item",
    "openai_reasoning_item",
    "openai_response",
]


def anthropic_content(
    *,
    thinking: str | None = None,
    signature: str = "",
    text: str = "",
    calls: Iterable[ToolCall] = (),
) -> list[dict[str, Any]]:
    """A message's ``content`` blocks: ``thinking`` (when not ``None``, with its signature),
    ``text`` (when not empty), then a ``tool_use`` block for each call."""
    content: list[dict[str, Any]] = []
    if thinking is not None:
        content.append({"type": "thinking", "thinking": thinking, "signature": signature})
    if text:
        content.append({"type": "text", "text": text})
    for c in calls:
        content.append({"type": "tool_use", "id": c.id, "name": c.name, "input": c.input})
    return content


def anthropic_message(
    *,
    id: str,
    model: str,
    content: list[dict[str, Any]],
    stop_reason: str,
    usage: Usage,
    cache_creation: bool = False,
) -> dict[str, Any]:
    """A Messages API response. ``cache_creation``: also the breakdown of the cache writes by
    lifetime (all five-minute writes), as newer API versions send it."""
    counts: dict[str, Any] = {
        "input_tokens": usage.input_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
    }
    if cache_creation:
        counts["cache_creation"] = {
            "ephemeral_5m_input_tokens": usage.cache_write_tokens,
            "ephemeral_1h_input_tokens": 0,
        }
    counts["output_tokens"] = usage.output_tokens
    counts["service_tier"] = "standard"
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": counts,
    }


def openai_reasoning_item(
    id: str, summary: str, *, encrypted_content: str | None = None
) -> dict[str, Any]:
    """A ``reasoning`` output item; its summary is empty when ``summary`` is."""
    item: dict[str, Any] = {"id": id, "type": "reasoning"}
    if encrypted_content is not None:
        item["encrypted_content"] = encrypted_content
    item["summary"] = [{"type": "summary_text", "text": summary}] if summary else []
    return item


def openai_message_item(
    id: str, *, text: str = "", refusal: str = "", incomplete: bool = False
) -> dict[str, Any]:
    """A ``message`` output item holding ``output_text``, or a ``refusal``."""
    if refusal:
        part: dict[str, Any] = {"type": "refusal", "refusal": refusal}
    else:
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    return {
        "id": id,
        "type": "message",
        "status": "incomplete" if incomplete else "completed",
        "content": [part],
        "role": "assistant",
    }


def openai_function_call(id: str, call: ToolCall) -> dict[str, Any]:
    """A ``function_call`` output item: the call's input as a JSON string, as OpenAI sends it."""
    return {
        "id": id,
        "type": "function_call",
        "status": "completed",
        "arguments": json.dumps(call.input, separators=(",", ":"), ensure_ascii=False),
        "call_id": call.id,
        "name": call.name,
    }


# The order of a response's keys, as the API writes them.
_RESPONSE_KEYS = (
    "id",
    "object",
    "created_at",
    "status",
    "background",
    "error",
    "incomplete_details",
    "max_output_tokens",
    "model",
    "output",
    "parallel_tool_calls",
    "reasoning",
    "service_tier",
    "store",
    "temperature",
    "tool_choice",
    "top_p",
    "truncation",
    "usage",
)


def openai_response(
    *,
    id: str,
    created_at: int,
    model: str,
    output: list[dict[str, Any]],
    usage: Usage,
    reasoning_tokens: int = 0,
    incomplete: bool = False,
    settings: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A Responses API response. ``incomplete``: cut at the output limit. ``settings``: the
    request's settings the API echoes (``background``, ``max_output_tokens``,
    ``parallel_tool_calls``, ``reasoning``, ``service_tier``, ``store``, ``temperature``,
    ``tool_choice``, ``top_p``, ``truncation``), each written in its place."""
    total_in = usage.input_tokens + usage.cache_read_tokens
    values: dict[str, Any] = {
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "model": model,
        "output": output,
        "usage": {
            "input_tokens": total_in,
            "input_tokens_details": {"cached_tokens": usage.cache_read_tokens},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": total_in + usage.output_tokens,
        },
    }
    for key, value in (settings or {}).items():
        if key not in _RESPONSE_KEYS or key in values:
            raise ValueError(f"{key!r} is not a setting a response echoes")
        values[key] = value
    return {key: values[key] for key in _RESPONSE_KEYS if key in values}
