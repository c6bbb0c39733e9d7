"""The live probe's verdicts, as pure functions over (tool, answer) pairs, and its adapter."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from mcp_evals.catalog.model import Tool
from mcp_evals.lint.context import ProbeResult
from mcp_evals.lint.probe import is_actionable, probe_targets, run_probe
from support.validate_helpers import run_main

from .helpers import catalog, tool
from .project import write_project


@pytest.mark.parametrize(
    ("text", "actionable"),
    [
        ("1 validation error for call[issue_refund]\ninvoice_id\n  Field required", True),
        ("Missing required argument: invoice_id", True),
        ("Invalid arguments: expected an object with a string", True),
        ("the amount must be a positive number", True),
        ("Internal server error", False),
        ("Error", False),
        ("Something went wrong, try again later", False),
    ],
)
def test_an_error_is_actionable_when_it_names_the_parameter_or_what_was_expected(
    text: str, actionable: bool
) -> None:
    assert is_actionable(text, ["invoice_id"]) is actionable


def test_only_tools_with_required_parameters_are_called_once_with_nothing() -> None:
    source = catalog(
        tool("issue_refund", params={"invoice_id": "string"}, required=["invoice_id"]),
        tool("list_agents", params={"team": "string"}),  # {} would be a real call: never probed
    )
    assert [target.name for target in probe_targets(source)] == ["issue_refund"]
    calls: list[tuple[str, dict[str, object]]] = []

    async def call(target: Tool, arguments: dict[str, object]) -> ProbeResult:
        calls.append((target.name, arguments))
        return ProbeResult(target.name, is_error=True, text="invoice_id: Field required")

    results = anyio.run(run_probe, source, call)
    assert calls == [("issue_refund", {})]
    assert results == [ProbeResult("issue_refund", is_error=True, text="invoice_id: Field required")]


def test_probe_on_the_command_line_says_it_is_not_available_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path)
    outcome = run_main(capsys, "lint", "--probe")
    assert outcome.code == 3
    assert "--probe is not available yet" in outcome.err and "Traceback" not in outcome.err
