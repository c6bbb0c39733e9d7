"""Handmade results records for the scoring and report tests (no runner, no model)."""

from __future__ import annotations

from typing import Any

from mcp_evals.answers import ToolCall, Usage
from mcp_evals.catalog.model import Catalog, ServerInfo, Tool
from mcp_evals.config.model import GateOptions, ScoringOptions
from mcp_evals.fixtures.model import Fixture, fixture_set_hash
from mcp_evals.record.model import FixtureResult, RunHeader, SamplingSettings
from mcp_evals.record.read import Results

STARTED = "2026-11-02T09:30:00.000Z"


def tool(name: str, area: str, description: str = "", schema: dict[str, Any] | None = None) -> Tool:
    return Tool(
        name=name,
        description=description or f"The {name} tool.",
        input_schema=schema or {"type": "object", "properties": {}},
        server="helpdesk",
        wire_name=name,
        area=area,
        area_explicit=True,
    )


def catalog(*tools: Tool) -> Catalog:
    return Catalog(tools=list(tools), servers=[ServerInfo(name="helpdesk", transport="stdio")])


def header(
    cat: Catalog,
    fixtures: list[Fixture],
    *,
    provider: str = "anthropic",
    model: str = "claude-opus-4-8",
    samples: int = 1,
    scoring: ScoringOptions | None = None,
    gate: GateOptions | None = None,
    **extra: Any,
) -> RunHeader:
    return RunHeader(
        tool_version="0.1.0",
        run_id="run-0001",
        started_at=STARTED,
        provider=provider,  # type: ignore[arg-type]
        model=model,
        lexical=provider == "lexical",
        catalog=cat,
        catalog_hash=cat.hash,
        fixtures=fixtures,
        fixture_set_hash=fixture_set_hash(fixtures),
        system_prompt="You are the tool router.",
        system_prompt_hash="5ca1ab1e" * 8,
        sampling=SamplingSettings(samples=samples, temperature=0.0),
        scoring=scoring or ScoringOptions(),
        gate=gate or GateOptions(),
        **extra,
    )


def call(
    name: str, arguments: dict[str, Any] | None = None, *, raw: str | None = None, known: bool = True
) -> ToolCall:
    return ToolCall(
        name=name,
        provider_name=name,
        known=known,
        arguments=None if raw is not None else (arguments or {}),
        raw_arguments=raw,
    )


def answer(
    run: RunHeader,
    fixture_id: str,
    *calls: ToolCall,
    text: str = "",
    sample: int = 0,
    reached: bool = True,
    error_kind: str | None = None,
    usage: Usage | None = None,
    cost: float | None = 0.001,
    stop_reason: str | None = None,
) -> FixtureResult:
    fixture = next(f for f in run.fixtures if f.id == fixture_id)
    return FixtureResult(
        fixture_id=fixture_id,
        fixture_hash=fixture.hash,
        sample=sample,
        provider=run.provider,
        model=run.model,
        catalog_hash=run.catalog_hash,
        reached=reached,
        calls=list(calls),
        text=text,
        stop_reason=stop_reason or ("tool_use" if calls else "end_turn"),
        usage=usage
        or (Usage(input_tokens=120, output_tokens=30, cache_read_tokens=900) if reached else Usage()),
        cost_usd=cost if reached else None,
        latency_ms=250.0 if reached else 0.0,
        attempts=1 if reached else 6,
        mode="forced" if fixture.kind == "select" else "auto",
        error_kind=error_kind,  # type: ignore[arg-type]
        error_message=None if reached else f"{error_kind} after 6 attempts",
        finished_at=STARTED,
    )


def helpdesk_catalog() -> Catalog:
    ticket_schema = {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "priority": {"type": "string", "enum": ["low", "normal", "high"]},
        },
        "required": ["title"],
    }
    return catalog(
        tool("create_ticket", "tickets", "Open a new support ticket.", ticket_schema),
        tool(
            "search_tickets",
            "tickets",
            "Search tickets by text.",
            {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
        ),
        tool(
            "close_ticket",
            "tickets",
            "Close a ticket by id.",
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        ),
        tool(
            "refund_invoice",
            "billing",
            "Refund an invoice.",
            {"type": "object", "properties": {"invoice": {"type": "string"}}, "required": ["invoice"]},
        ),
        tool(
            "get_invoice",
            "billing",
            "Fetch one invoice.",
            {"type": "object", "properties": {"invoice": {"type": "string"}}, "required": ["invoice"]},
        ),
        tool("list_users", "users", "List the users of an organisation."),
    )


def helpdesk_fixtures() -> list[Fixture]:
    return [
        Fixture(
            id="create-basic",
            query="Open a ticket: printer on floor 3 is jammed",
            expected_tool="create_ticket",
            expected_args={"title": {"contains": "printer"}},
        ),
        Fixture(
            id="create-priority",
            query="Urgent: open a high priority ticket for the VPN outage",
            expected_tool="create_ticket",
            expected_args={"priority": "high"},
        ),
        Fixture(id="search-vpn", query="Any tickets mentioning the VPN?", expected_tool="search_tickets"),
        Fixture(
            id="close-42", query="Close ticket 42", expected_tool="close_ticket", expected_args={"id": 42}
        ),
        Fixture(
            id="refund-inv",
            query="Refund invoice INV-7",
            expected_tool="refund_invoice",
            expected_args={"invoice": "INV-7"},
        ),
        Fixture(id="invoice-show", query="Show me invoice INV-9", expected_tool="get_invoice"),
        Fixture(id="users-acme", query="Who are the users at Acme?", expected_tool="list_users"),
        Fixture(
            id="refuse-weather", query="What's the weather in Lisbon?", kind="refuse", area="out-of-scope"
        ),
        Fixture(
            id="refuse-delete-all", query="Delete every ticket in the system", kind="refuse", area="tickets"
        ),
        Fixture(id="clarify-refund", query="Refund it", kind="clarify", area="billing"),
        Fixture(id="clarify-close", query="Close my ticket", kind="clarify", area="tickets"),
    ]


def helpdesk_results(*, dropout: bool = False) -> Results:
    """A fixed run with one of every outcome (and, optionally, a dropout)."""
    run = header(helpdesk_catalog(), helpdesk_fixtures())
    rows = [
        answer(run, "create-basic", call("create_ticket", {"title": "Printer jammed", "priority": "normal"})),
        answer(run, "create-priority", call("create_ticket", {"title": "VPN outage", "priority": "HIGH "})),
        answer(run, "search-vpn", call("create_ticket", {"title": "VPN"})),
        answer(run, "close-42", call("close_ticket", raw='{"id": 42')),
        answer(run, "refund-inv", call("refund_invoice", {"invoice": " 'inv-7' "})),
        answer(run, "invoice-show", text="I can't look up invoices, sorry."),
        answer(run, "users-acme", call("list_members", {"org": "Acme"}, known=False)),
        answer(
            run,
            "refuse-weather",
            text="I can't help with the weather. Is there anything else I can help with?",
        ),
        answer(run, "refuse-delete-all", call("close_ticket", {"id": 1})),
        answer(run, "clarify-refund", text="Which invoice would you like me to refund?"),
        answer(run, "clarify-close", text="I cannot close tickets without more context."),
    ]
    if dropout:
        rows[2] = answer(run, "search-vpn", reached=False, error_kind="rate_limited")
    return Results(header=run, results=rows)


def helpdesk_perfect_results() -> Results:
    """The same plan as ``helpdesk_results``, every answer right (a baseline to regress from)."""
    run = header(helpdesk_catalog(), helpdesk_fixtures())
    rows = [
        answer(run, "create-basic", call("create_ticket", {"title": "Printer jammed"})),
        answer(run, "create-priority", call("create_ticket", {"title": "VPN outage", "priority": "high"})),
        answer(run, "search-vpn", call("search_tickets", {"query": "VPN"})),
        answer(run, "close-42", call("close_ticket", {"id": 42})),
        answer(run, "refund-inv", call("refund_invoice", {"invoice": "INV-7"})),
        answer(run, "invoice-show", call("get_invoice", {"invoice": "INV-9"})),
        answer(run, "users-acme", call("list_users", {})),
        answer(run, "refuse-weather", text="I can't help with the weather."),
        answer(run, "refuse-delete-all", text="I won't delete every ticket."),
        answer(run, "clarify-refund", text="Which invoice?"),
        answer(run, "clarify-close", text="Which ticket should I close?"),
    ]
    return Results(header=run, results=rows)


def with_samples(results: Results, samples: int) -> Results:
    """Repeat every answer as samples 0…samples-1 (the same answer each time)."""
    run = results.header.model_copy(
        update={"sampling": results.header.sampling.model_copy(update={"samples": samples})}
    )
    rows = [row.model_copy(update={"sample": index}) for row in results.results for index in range(samples)]
    return Results(header=run, results=rows)
