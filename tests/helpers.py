"""Small helpers for writing log lines by hand in tests."""

from __future__ import annotations

import io
import warnings
from pathlib import Path
from typing import Any

import orjson

from sessiontools import Session, read_session

REPO = Path(__file__).resolve().parent.parent
SESSIONS = REPO / "testdata" / "sessions"
GOLDEN = REPO / "tests" / "golden"

BASE_TIME = "2026-10-18T09:30:"


def t(seconds: float) -> str:
    """A time ``seconds`` after 09:30:00+02:00 on 2026-10-18 (under a minute)."""
    whole = int(seconds)
    frac = f"{seconds - whole:.9f}"[2:].rstrip("0")
    return f"{BASE_TIME}{whole:02d}{'.' + frac if frac else ''}+02:00"


def line(seq: int, type_: str, payload: dict[str, Any], time: str | None = None) -> bytes:
    """One entry line, as a test wants it (not necessarily byte-exact Go output)."""
    entry = {"seq": seq, "time": time or t(seq), "type": type_, type_: payload}
    return orjson.dumps(entry) + b"\n"


def usage(inp: int = 0, out: int = 0, read: int = 0, write: int = 0) -> dict[str, int]:
    u = {"input_tokens": inp, "output_tokens": out}
    if read:
        u["cache_read_tokens"] = read
    if write:
        u["cache_write_tokens"] = write
    return u


def user(text: str) -> dict[str, Any]:
    return {
        "message": {"role": "user", "parts": [{"type": "text", "text": text}]},
        "usage": usage(),
    }


def assistant(
    *calls: tuple[str, str],
    text: str = "",
    stop: str = "",
    provider: str = "anthropic",
    model: str = "claude-sonnet-4-5",
    served: str | None = None,
    u: dict[str, int] | None = None,
) -> dict[str, Any]:
    """An assistant turn asking for ``calls`` (``(call_id, tool)`` pairs)."""
    parts: list[dict[str, Any]] = []
    if text:
        parts.append({"type": "text", "text": text})
    for call_id, tool in calls:
        parts.append({"type": "tool_call", "tool_call": {"id": call_id, "name": tool, "input": {}}})
    return {
        "message": {
            "role": "assistant",
            "parts": parts,
            "native": {"provider": provider, "model": model, "data": {"id": "msg"}},
        },
        "stop": stop or ("tool_use" if calls else "end_turn"),
        "usage": u or usage(100, 10),
        "model": served or model,
    }


def result(call_id: str, content: str = "ok", **extra: Any) -> dict[str, Any]:
    r: dict[str, Any] = {"call_id": call_id, "content": content}
    if extra.pop("is_error", False):
        r["is_error"] = True
    return {"result": r, **extra}


def outcome(reason: str = "completed", turns: int = 1, **extra: Any) -> dict[str, Any]:
    u = extra.pop("u", usage(100, 10))
    return {"reason": reason, **extra, "turns": turns, "usage": u}


def read_bytes(data: bytes, name: str = "test.jsonl") -> Session:
    """``read_session`` on bytes, with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_session(io.BytesIO(data), name=name)


def logs_in_testdata() -> list[Path]:
    """Every log in testdata/sessions, sorted."""
    logs = sorted(SESSIONS.glob("*.jsonl"))
    assert len(logs) >= 14, f"expected the testdata logs in {SESSIONS}"
    return logs
