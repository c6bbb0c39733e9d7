"""Helpers for the config, fixture and validation tests: small real catalogs, and the CLI in-process.

``run_main`` calls the real console entry point (``mcp_evals.cli.main``, which ends in ``sys.exit``)
and returns what a user would see: the exit code, stdout and stderr.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcp_evals.catalog.model import Catalog, ServerInfo, build_catalog
from support.in_process import run_in_process


def wire_tool(
    name: str, description: str = "", required: tuple[str, ...] = (), **properties: Any
) -> dict[str, Any]:
    """One tools/list entry; a property given as a string is a bare JSON Schema type."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            key: {"type": value} if isinstance(value, str) else value for key, value in properties.items()
        },
    }
    if required:
        schema["required"] = list(required)
    return {"name": name, "description": description or f"The {name} tool.", "inputSchema": schema}


def catalog_of(
    *tools: dict[str, Any], areas: dict[str, list[str]] | None = None, server: str = "helpdesk"
) -> Catalog:
    return build_catalog([ServerInfo(name=server, transport="stdio", tools=list(tools))], areas or {})


HELPDESK_TOOLS = (
    wire_tool("search_tickets", "Search tickets.", query="string", status={"$ref": "#/$defs/Status"}),
    wire_tool(
        "get_ticket", "Get one ticket.", ("ticket_id",), ticket_id="string", include_comments="boolean"
    ),
    wire_tool("issue_refund", "Refund an invoice.", ("invoice_id",), invoice_id="string", amount="number"),
    wire_tool("search_articles", "Search the knowledge base.", query="string", limit="integer"),
    wire_tool("debug_dump", "Internal: dump state."),
)
HELPDESK_TOOLS[0]["inputSchema"]["$defs"] = {
    "Status": {"type": "string", "enum": ["open", "pending", "solved"]}
}
AREAS = {"tickets": ["*_ticket*"], "billing": ["issue_refund"], "knowledge": ["search_articles"]}


def helpdesk_catalog(areas: dict[str, list[str]] | None = None) -> Catalog:
    return catalog_of(*HELPDESK_TOOLS, areas=AREAS if areas is None else areas)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), "utf-8")
    return path


@dataclass
class Outcome:
    code: int
    out: str
    err: str


def run_main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Outcome:
    """Run ``mcp-evals ARGS…`` in this process through the real entry point, isolated as its own
    process would be (``in_process.py``); ``capsys`` is kept for the callers, the output is captured apart."""
    ran = run_in_process(args)
    return Outcome(ran.code, *ran.text())


def listing(directory: Path) -> dict[str, bytes]:
    """Every file under ``directory`` with its content, to show a command wrote nothing."""
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }
