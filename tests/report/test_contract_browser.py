"""The contract HTML report in a real browser (Debian's Chromium, driven by Playwright): a failing
case's input and output, JSON as tools return it on one line, are readable on a desktop and a phone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from conftest import one_worker
from mcp_evals.contract.model import AssertionResult, CaseResult, ContractRun, StepResult
from mcp_evals.contract.reports import render_html

from .pages import horizontal_overflow, open_page

# the module-scoped browser connection: made once, on one worker
pytestmark = one_worker(__name__)

TICKET = {
    "id": "T-1042",
    "subject": "VPN drops every 10 minutes on the Berlin office network",
    "status": "open",
    "customer": {"id": "C-77", "name": "Acme GmbH", "email": "it-support@acme.example"},
    "comments": [{"author": "agent-3", "body": "Asked for the router logs; waiting on the customer."}],
    "url": "https://helpdesk.example/tickets/T-1042?view=full&tab=history&" + "x" * 80,
}


def failing_run() -> ContractRun:
    step = StepResult(
        id="get",
        tool="get_ticket",
        status="failed",
        input={"ticket_id": "T-1042", "include": ["comments", "customer"]},
        output=json.dumps(TICKET),  # one line, as most servers answer
        latency_ms=12.3,
        assertions=[
            AssertionResult(
                kind="json_path",
                status="failed",
                message="$.status: expected 'closed', got 'open' — the ticket was not closed by "
                "close_ticket, whose answer said it was; " + "the whole answer is below. " * 8,
            ),
            AssertionResult(kind="schema", status="passed", message="the output matches the outputSchema"),
        ],
    )
    case = CaseResult(
        name="a ticket is closed after close_ticket",
        file="evals/contract/tickets-with-a-rather-long-file-name.yaml",
        mode="live",
        server="helpdesk",
        status="failed",
        steps=[step],
    )
    return ContractRun(run_id="r1", suite="helpdesk", started_at="2026-03-02T09:00:00Z", cases=[case])


@pytest.mark.parametrize(("phone", "least"), [(False, 600), (True, 300)])
def test_a_failing_steps_output_is_readable(
    browser: Browser, tmp_path: Path, phone: bool, least: int
) -> None:
    page_path = tmp_path / "contract.html"
    page_path.write_text(render_html(failing_run()), encoding="utf-8")
    with open_page(browser, page_path.as_uri(), phone=phone) as (page, watch):
        output = page.locator("details pre", has_text="VPN drops")
        box = output.bounding_box()
        assert box is not None and box["width"] >= least, box  # was ~60-70 px beside the other columns
        # indented JSON, one key a line, wrapped inside its box: nothing to scroll sideways
        assert '\n  "status": "open",\n' in output.inner_text()
        assert output.evaluate("pre => pre.scrollWidth <= pre.clientWidth")
        assert page.locator("details pre", has_text="ticket_id").evaluate(
            "pre => pre.scrollWidth <= pre.clientWidth"
        )
        assert horizontal_overflow(page) == 0
        assert watch.problems == []
