"""sessiontools: read agentloop session logs offline.

Data flows one way, one stage per folder: bytes -> entries (``_log``: ``iter_entries``) -> the
session model (``_model``: ``iter_runs``, ``read_session``) -> exporters: traces (``_otel``:
``trace_spans``, ``encode_otlp_json``, ``otlp_json``) and priced frames (``_cost``:
``read_costs``) -> the command line (``_cli``: ``sessiontools otel``, ``sessiontools cost``).
Beside the flow: ``_parallel`` (a log read in two processes, many logs in a pool) and
``_write`` (the session library's stores and ``SessionBuilder``). The rules each stage follows
are in the repository's ``docs/``; the README's "Layout" maps the folders.

The errors it raises are drawn in one tree in ``sessiontools._errors``: ``SessionToolsError``,
with ``LogError`` (``DamagedLogError``, ``EntryError``) for logs that cannot be read,
``InvalidIdError`` for bad ids and ``OutOfRangeError`` for what an export cannot hold;
warnings derive from ``SessionToolsWarning``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from ._cost.build import (
        SkippedLog,
    )
    from ._cost.frames import (
        CostTables,
        cost_by,
        model_calls,
        read_costs,
        runs,
        tool_calls,
    )
    from ._cost.price_book import (
        PriceBook,
        PriceTable,
    )
    from ._cost.price_file import (
        Prices,
        Rates,
        load_prices,
    )
    from ._cost.report import (
        CostReport,
        cost_report,
        render,
    )
    from ._cost.rows import (
        COLUMNS,
    )
    from ._errors import (
        CostMismatchWarning,
        DamagedLogError,
        EntryError,
        InvalidIdError,
        LabelError,
        LogError,
        LogStructureWarning,
        OutOfRangeError,
        PinError,
        PriceFileError,
        SendError,
        SessionToolsError,
        SessionToolsWarning,
        StateError,
        StoreError,
        StoreLockedError,
        TornTailWarning,
        UnknownEntryWarning,
        UsageConventionError,
    )
    from ._html.collect import (
        ReportData,
        collect_report,
    )
    from ._html.render import (
        render_report_html,
        render_report_pages,
        report_html,
    )
    from ._log.content import (
        CallStartedEntry,
        DecisionEntry,
        Display,
        Message,
        MessageEntry,
        ModelUsage,
        Native,
        Part,
        Payload,
        Source,
        ToolCall,
        ToolResult,
        ToolResultEntry,
        UnknownEntry,
    )
    from ._log.encode import (
        encode_entry,
    )
    from ._log.entries import (
        NIL,
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
    from ._log.reader import (
        MAX_LINE_BYTES,
        ClosingLine,
        LogReader,
        LogSource,
        TornTail,
        iter_entries,
    )
    from ._log.sources import (
        default_conversation_id,
        find_logs,
    )
    from ._log.times import (
        format_rfc3339,
        parse_rfc3339,
    )
    from ._model.conversation import (
        CallInfo,
        Decision,
        View,
    )
    from ._model.fold import (
        SessionFold,
        iter_runs,
    )
    from ._model.labels import (
        FORBIDDEN_DECISION,
        LABEL_SEED,
        LABEL_TOOL,
        MAX_LABEL_BYTES,
        REFUSED_RESULT,
        check_label,
        check_labels,
        display_id,
        forbidden,
        union_labels,
    )
    from ._model.runs import (
        FailedCall,
        LabelSource,
        Run,
        ToolCallRecord,
        ToolModelCall,
        Turn,
    )
    from ._model.session import (
        Session,
        open_session,
        read_session,
    )
    from ._model.usage import (
        OTelUsage,
        from_agentcore,
        from_otel,
        from_provider,
        inclusive_input_tokens,
        to_otel,
    )
    from ._otel.chrome_trace import (
        chrome_trace,
        encode_chrome_trace,
        export_chrome_trace,
    )
    from ._otel.export import (
        export_otlp_json,
        otlp_json,
    )
    from ._otel.ids import (
        parse_span_id,
        parse_trace_id,
        run_span_id,
        run_trace_id,
        span_id,
    )
    from ._otel.otlp_json import (
        encode_otlp_json,
        write_otlp_json,
    )
    from ._otel.otlp_proto import (
        encode_otlp_protobuf,
    )
    from ._otel.sdk import (
        emit_spans,
    )
    from ._otel.spans import (
        SCHEMA_URL,
        AttributeValue,
        Span,
        trace_spans,
    )
    from ._send.send import (
        SendReport,
        export_sessions,
        send_otlp,
    )
    from ._write.builder import (
        LIMIT_RESULT,
        SETTLED_RESULT,
        SessionBuilder,
        SupportsAppend,
    )
    from ._write.store import (
        FileStore,
        MemoryStore,
        Store,
    )

# Where each public name lives: it is imported from there when first used (PEP 562), so
# `import sessiontools` loads none of the stages, and `sessiontools otel` none of the cost
# tables (pandas, genai-prices). tests/test_public_api.py checks that this table, the imports
# above (for type checkers) and `__all__` (for strict type checkers, a literal) agree.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "._cost.build": ("SkippedLog",),
    "._cost.frames": (
        "CostTables",
        "cost_by",
        "model_calls",
        "read_costs",
        "runs",
        "tool_calls",
    ),
    "._cost.price_book": (
        "PriceBook",
        "PriceTable",
    ),
    "._cost.price_file": (
        "Prices",
        "Rates",
        "load_prices",
    ),
    "._cost.report": (
        "CostReport",
        "cost_report",
        "render",
    ),
    "._cost.rows": ("COLUMNS",),
    "._errors": (
        "CostMismatchWarning",
        "DamagedLogError",
        "EntryError",
        "InvalidIdError",
        "LabelError",
        "LogError",
        "LogStructureWarning",
        "OutOfRangeError",
        "PinError",
        "PriceFileError",
        "SendError",
        "SessionToolsError",
        "SessionToolsWarning",
        "StateError",
        "StoreError",
        "StoreLockedError",
        "TornTailWarning",
        "UnknownEntryWarning",
        "UsageConventionError",
    ),
    "._html.collect": (
        "ReportData",
        "collect_report",
    ),
    "._html.render": (
        "render_report_html",
        "render_report_pages",
        "report_html",
    ),
    "._log.content": (
        "CallStartedEntry",
        "DecisionEntry",
        "Display",
        "Message",
        "MessageEntry",
        "ModelUsage",
        "Native",
        "Part",
        "Payload",
        "Source",
        "ToolCall",
        "ToolResult",
        "ToolResultEntry",
        "UnknownEntry",
    ),
    "._log.encode": ("encode_entry",),
    "._log.entries": (
        "Entry",
        "LabelsEntry",
        "ModelError",
        "ModelErrorEntry",
        "NIL",
        "NIL_MAP",
        "Outcome",
        "PinsEntry",
        "Refusal",
        "RunStartedEntry",
        "Usage",
    ),
    "._log.reader": (
        "ClosingLine",
        "LogReader",
        "LogSource",
        "MAX_LINE_BYTES",
        "TornTail",
        "iter_entries",
    ),
    "._log.sources": (
        "default_conversation_id",
        "find_logs",
    ),
    "._log.times": (
        "format_rfc3339",
        "parse_rfc3339",
    ),
    "._model.conversation": (
        "CallInfo",
        "Decision",
        "View",
    ),
    "._model.fold": (
        "SessionFold",
        "iter_runs",
    ),
    "._model.labels": (
        "FORBIDDEN_DECISION",
        "LABEL_SEED",
        "LABEL_TOOL",
        "MAX_LABEL_BYTES",
        "REFUSED_RESULT",
        "check_label",
        "check_labels",
        "display_id",
        "forbidden",
        "union_labels",
    ),
    "._model.runs": (
        "FailedCall",
        "LabelSource",
        "Run",
        "ToolCallRecord",
        "ToolModelCall",
        "Turn",
    ),
    "._model.session": (
        "Session",
        "open_session",
        "read_session",
    ),
    "._model.usage": (
        "OTelUsage",
        "from_agentcore",
        "from_otel",
        "from_provider",
        "inclusive_input_tokens",
        "to_otel",
    ),
    "._otel.chrome_trace": (
        "chrome_trace",
        "encode_chrome_trace",
        "export_chrome_trace",
    ),
    "._otel.export": (
        "export_otlp_json",
        "otlp_json",
    ),
    "._otel.ids": (
        "parse_span_id",
        "parse_trace_id",
        "run_span_id",
        "run_trace_id",
        "span_id",
    ),
    "._otel.otlp_json": (
        "encode_otlp_json",
        "write_otlp_json",
    ),
    "._otel.otlp_proto": ("encode_otlp_protobuf",),
    "._otel.sdk": ("emit_spans",),
    "._otel.spans": (
        "AttributeValue",
        "SCHEMA_URL",
        "Span",
        "trace_spans",
    ),
    "._send.send": (
        "SendReport",
        "export_sessions",
        "send_otlp",
    ),
    "._write.builder": (
        "LIMIT_RESULT",
        "SETTLED_RESULT",
        "SessionBuilder",
        "SupportsAppend",
    ),
    "._write.store": (
        "FileStore",
        "MemoryStore",
        "Store",
    ),
}
_LAZY = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sessiontools' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names (those not loaded yet too), for ``dir()`` and tab completion."""
    return sorted(__all__)


__all__ = [
    "COLUMNS",
    "FORBIDDEN_DECISION",
    "LABEL_SEED",
    "LABEL_TOOL",
    "LIMIT_RESULT",
    "MAX_LABEL_BYTES",
    "MAX_LINE_BYTES",
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
    "OutOfRangeError",
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
    "ReportData",
    "Run",
    "RunStartedEntry",
    "SendError",
    "SendReport",
    "Session",
    "SessionBuilder",
    "SessionFold",
    "SessionToolsError",
    "SessionToolsWarning",
    "SkippedLog",
    "Source",
    "Span",
    "StateError",
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
    "chrome_trace",
    "collect_report",
    "cost_by",
    "cost_report",
    "default_conversation_id",
    "display_id",
    "emit_spans",
    "encode_chrome_trace",
    "encode_entry",
    "encode_otlp_json",
    "encode_otlp_protobuf",
    "export_chrome_trace",
    "export_otlp_json",
    "export_sessions",
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
    "render_report_html",
    "render_report_pages",
    "report_html",
    "run_span_id",
    "run_trace_id",
    "runs",
    "send_otlp",
    "span_id",
    "to_otel",
    "tool_calls",
    "trace_spans",
    "union_labels",
    "write_otlp_json",
]
