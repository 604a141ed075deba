"""sessiontools: read agentloop session logs offline.

Data flows one way: bytes -> entries (``iter_entries``) -> the session model (``iter_runs``,
``read_session``) -> exporters (``trace_spans`` and ``encode_otlp_json``, or ``otlp_json`` for
both) -> the command line (``sessiontools otel``).

The errors it raises are drawn in one tree in ``sessiontools._errors``: ``SessionToolsError``,
with ``LogError`` (``DamagedLogError``, ``EntryError``) for logs that cannot be read and
``InvalidIdError`` for bad hex ids; warnings derive from ``SessionToolsWarning``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from ._entries import (
    NIL,
    NIL_MAP,
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
    Payload,
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
from ._errors import (
    DamagedLogError,
    EntryError,
    InvalidIdError,
    LabelError,
    LogError,
    LogStructureWarning,
    PinError,
    SessionToolsError,
    SessionToolsWarning,
    StoreError,
    StoreLockedError,
    TornTailWarning,
    UnknownEntryWarning,
)
from ._model import (
    FailedCall,
    LabelSource,
    Run,
    Session,
    SessionFold,
    ToolCallRecord,
    ToolModelCall,
    Turn,
    iter_runs,
    open_session,
    read_session,
)
from ._otel import (
    SCHEMA_URL,
    AttributeValue,
    Span,
    default_conversation_id,
    encode_otlp_json,
    export_otlp_json,
    otlp_json,
    parse_span_id,
    parse_trace_id,
    run_span_id,
    run_trace_id,
    span_id,
    trace_spans,
    write_otlp_json,
)
from ._reader import ClosingLine, LogReader, LogSource, TornTail, iter_entries
from ._session import (
    FORBIDDEN_DECISION,
    LABEL_SEED,
    LABEL_TOOL,
    MAX_LABEL_BYTES,
    REFUSED_RESULT,
    CallInfo,
    Decision,
    View,
    check_label,
    check_labels,
    display_id,
    forbidden,
    union_labels,
)
from ._times import format_rfc3339, parse_rfc3339
from ._usage import (
    OTelUsage,
    UsageConventionError,
    from_agentcore,
    from_otel,
    from_provider,
    inclusive_input_tokens,
    to_otel,
)
from ._version import __version__

if TYPE_CHECKING:
    from ._builder import LIMIT_RESULT, SETTLED_RESULT, SessionBuilder, SupportsAppend
    from ._frames import (
        COLUMNS,
        CostMismatchWarning,
        CostTables,
        SkippedLog,
        cost_by,
        find_logs,
        model_calls,
        read_costs,
        runs,
        tool_calls,
    )
    from ._gojson import encode_entry
    from ._prices import PriceBook, PriceFileError, Prices, PriceTable, Rates, load_prices
    from ._report import CostReport, cost_report, render
    from ._store import FileStore, MemoryStore, Store

# The cost tables need pandas and genai-prices, which take a while to import, and the writing
# side (the builder, the stores, Go's JSON writer) is not needed to read: they load on first use
# (PEP 562), so `import sessiontools` and `sessiontools otel` stay quick.
_LAZY = {
    **dict.fromkeys(
        ("LIMIT_RESULT", "SETTLED_RESULT", "SessionBuilder", "SupportsAppend"), "._builder"
    ),
    **dict.fromkeys(("FileStore", "MemoryStore", "Store"), "._store"),
    "encode_entry": "._gojson",
    **dict.fromkeys(
        (
            "COLUMNS",
            "CostMismatchWarning",
            "CostTables",
            "SkippedLog",
            "cost_by",
            "find_logs",
            "model_calls",
            "read_costs",
            "runs",
            "tool_calls",
        ),
        "._frames",
    ),
    **dict.fromkeys(
        ("PriceBook", "PriceFileError", "PriceTable", "Prices", "Rates", "load_prices"),
        "._prices",
    ),
    **dict.fromkeys(("CostReport", "cost_report", "render"), "._report"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sessiontools' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "COLUMNS",
    "FORBIDDEN_DECISION",
    "LABEL_SEED",
    "LABEL_TOOL",
    "LIMIT_RESULT",
    "MAX_LABEL_BYTES",
    "NIL",
    "NIL_MAP",
    "REFUSED_RESULT",
    "SCHEMA_URL",
    "SETTLED_RESULT",
    "AttributeValue",
    "CallInfo",
    "CallStartedEntry",
    "ClosingLine",
    "CostMismatchWarning",
    "CostReport",
    "CostTables",
    "DamagedLogError",
    "Decision",
    "DecisionEntry",
    "Display",
    "Entry",
    "EntryError",
    "FailedCall",
    "FileStore",
    "InvalidIdError",
    "LabelError",
    "LabelSource",
    "LabelsEntry",
    "LogError",
    "LogReader",
    "LogSource",
    "LogStructureWarning",
    "MemoryStore",
    "Message",
    "MessageEntry",
    "ModelError",
    "ModelErrorEntry",
    "ModelUsage",
    "Native",
    "OTelUsage",
    "Outcome",
    "Part",
    "Payload",
    "PinError",
    "PinsEntry",
    "PriceBook",
    "PriceFileError",
    "PriceTable",
    "Prices",
    "Rates",
    "Refusal",
    "Run",
    "RunStartedEntry",
    "Session",
    "SessionBuilder",
    "SessionFold",
    "SessionToolsError",
    "SessionToolsWarning",
    "SkippedLog",
    "Source",
    "Span",
    "Store",
    "StoreError",
    "StoreLockedError",
    "SupportsAppend",
    "ToolCall",
    "ToolCallRecord",
    "ToolModelCall",
    "ToolResult",
    "ToolResultEntry",
    "TornTail",
    "TornTailWarning",
    "Turn",
    "UnknownEntry",
    "UnknownEntryWarning",
    "Usage",
    "UsageConventionError",
    "View",
    "__version__",
    "check_label",
    "check_labels",
    "cost_by",
    "cost_report",
    "default_conversation_id",
    "display_id",
    "encode_entry",
    "encode_otlp_json",
    "export_otlp_json",
    "find_logs",
    "forbidden",
    "format_rfc3339",
    "from_agentcore",
    "from_otel",
    "from_provider",
    "inclusive_input_tokens",
    "iter_entries",
    "iter_runs",
    "load_prices",
    "model_calls",
    "open_session",
    "otlp_json",
    "parse_rfc3339",
    "parse_span_id",
    "parse_trace_id",
    "read_costs",
    "read_session",
    "render",
    "run_span_id",
    "run_trace_id",
    "runs",
    "span_id",
    "to_otel",
    "tool_calls",
    "trace_spans",
    "union_labels",
    "write_otlp_json",
]
