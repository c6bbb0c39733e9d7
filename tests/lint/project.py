"""A crafted project with known defects: a catalog snapshot, a config and a fixture file, on disk."""

from __future__ import annotations

import textwrap
from pathlib import Path

from mcp_evals.catalog.snapshot import write_snapshot

from .helpers import catalog, tool

# The defects, by the rule that must report them.
KNOWN_DEFECTS = {
    "N001": "getInvoice among snake_case names",
    "N002": "get_user / get_users",
    "N003": "run",
    "D001": "run has no description",
    "D002": "get_users: 'Gets users.'",
    "S001": "get_user.user_id has no description",
    "S006": "tag_ticket.tags is an array without items",
    "S008": "tag_ticket.kind refers to a missing $defs entry",
    "F001": "a query that names search_tickets",
    "F002": "a refund query without an invoice id",
    "F005": "no refuse fixture",
}


def crafted_catalog():  # type: ignore[no-untyped-def]
    return catalog(
        tool(
            "search_tickets",
            "Full-text search across support tickets; returns the best matches first.",
            params={"query": "string"},
            required=["query"],
        ),
        tool(
            "get_user",
            "Get one user profile by id, with plan and contact details.",
            schema={"type": "object", "properties": {"user_id": {"type": "string"}}, "required": ["user_id"]},
        ),
        tool("get_users", "Gets users."),
        tool("run", ""),
        tool(
            "getInvoice",
            "Return one invoice with its line items and totals.",
            params={"invoice_id": {"type": "string", "description": "The invoice id, e.g. INV-7."}},
            required=["invoice_id"],
        ),
        tool(
            "issue_refund",
            "Refund a paid invoice back to the original card and return the refund receipt.",
            params={"invoice_id": {"type": "string", "description": "The invoice id, e.g. INV-7."}},
            required=["invoice_id"],
        ),
        tool(
            "tag_ticket",
            "Add tags to a ticket and return the ticket's new tag list.",
            params={
                "tags": {"type": "array", "description": "Tags to add."},
                "kind": {"$ref": "#/$defs/Kind", "description": "The kind of tag."},
            },
        ),
    )


CONFIG = """\
servers:
  - name: crafted
    snapshot: catalog.json
fixtures: fixtures/*.yaml
lint:
  fail_on: error
"""

FIXTURES = """\
fixtures:
  - id: leak
    query: "use search_tickets to find reports about the android logout"
    expected_tool: search_tickets

  - id: refund-without-id
    query: "Give the customer their money back for last month"
    expected_tool: issue_refund

  - id: user
    query: "Show me the profile of user u-123"
    expected_tool: get_user
"""


def write_project(directory: Path, *, lint: str | None = None) -> Path:
    """Write the crafted project; ``lint`` replaces the config's `lint:` section. Returns the config."""
    write_snapshot(crafted_catalog(), directory / "catalog.json")
    config = CONFIG if lint is None else CONFIG.split("lint:")[0] + textwrap.dedent(lint)
    (directory / "mcp-evals.yaml").write_text(config, "utf-8")
    (directory / "fixtures").mkdir(exist_ok=True)
    (directory / "fixtures" / "cases.yaml").write_text(FIXTURES, "utf-8")
    return directory / "mcp-evals.yaml"
