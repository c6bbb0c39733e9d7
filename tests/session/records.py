"""Handmade session records: traces written by hand, so each metric is checked against a known count."""

from __future__ import annotations

from typing import Any

from mcp_evals.catalog.model import Catalog, ServerInfo, build_catalog
from mcp_evals.session.model import FaultKind
from mcp_evals.session.record import CallRecord, CallResult, SessionKey, SessionRecord, TurnRecord

TOOLS = [
    {
        "name": "get_sync_job",
        "description": "Get a sync job.",
        "inputSchema": {
            "type": "object",
            "properties": {"job_id": {"type": "string", "pattern": "^SYNC-[0-9]+$"}},
            "required": ["job_id"],
            "additionalProperties": False,
        },
    },
    {
        "name": "retry_sync_job",
        "description": "Run a failed sync job again.",
        "inputSchema": {
            "type": "object",
            "properties": {"job_id": {"type": "string"}},
            "required": ["job_id"],
        },
    },
    {
        "name": "get_service_status",
        "description": "The status of a region.",
        "inputSchema": {
            "type": "object",
            "properties": {"region": {"enum": ["us", "eu", "ap"]}},
            "required": ["region"],
        },
    },
]


def catalog() -> Catalog:
    return build_catalog([ServerInfo(name="ops", transport="stdio", tools=TOOLS)])


def ok(text: str = '{"state": "running"}') -> CallResult:
    return CallResult(content=[{"type": "text", "text": text}])


def error(text: str) -> CallResult:
    return CallResult(content=[{"type": "text", "text": text}], is_error=True)


def call(
    tool: str,
    arguments: dict[str, Any] | None,
    result: CallResult,
    *,
    fault: FaultKind | None = None,
    error_kind: str | None = None,
    known: bool = True,
    raw: str | None = None,
) -> CallRecord:
    return CallRecord(
        id=f"call_{id(result)}",
        tool=tool,
        provider_name=tool,
        known=known,
        arguments=arguments,
        raw_arguments=raw,
        call_number=1,
        result=result,
        fault=fault,
        error=error_kind,  # type: ignore[arg-type]
    )


def session(*turns: list[CallRecord], answer: str = "done", status: str = "finished") -> SessionRecord:
    key = SessionKey(date="2026-12-01", git_sha="abc1234", arm="A", fault_percent=0, task_id="t", run=1)
    records = [TurnRecord(index=index, calls=calls) for index, calls in enumerate(turns, start=1)]
    records.append(TurnRecord(index=len(records) + 1, text=answer))
    return SessionRecord(
        key=key,
        setup_hash="x",
        status=status,  # type: ignore[arg-type]
        end="answered",
        turns=records,
        final_answer=answer,
    )
