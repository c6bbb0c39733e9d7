"""The live probe's verdicts, as pure functions over (tool, answer) pairs, and its adapter."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest

from mcp_evals.catalog.model import ServerInfo, Tool, build_catalog
from mcp_evals.lint.context import ProbeResult
from mcp_evals.lint.model import LintReport
from mcp_evals.lint.probe import (
    DESTRUCTIVE,
    TASK_REQUIRED,
    is_actionable,
    probe_plan,
    probe_targets,
    run_probe,
)
from support.catalog_helpers import node_server
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


def test_the_probe_on_a_live_server_finds_the_unenforced_schema_and_the_vague_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = Path(__file__).resolve().parents[1] / "servers" / "probe_server.py"
    (tmp_path / "mcp-evals.yaml").write_text(
        f"servers:\n  - name: probe\n    command: {sys.executable}\n    args: [{server}]\n"
    )
    monkeypatch.chdir(tmp_path)
    outcome = run_main(capsys, "lint", "--probe", "--format", "json")
    findings = json.loads(outcome.out)["findings"]
    by_rule = {(finding["rule"], tool) for finding in findings for tool in finding["tools"] or [None]}
    assert ("C006", "lenient") in by_rule  # accepted {} despite `required`
    assert ("C007", "vague") in by_rule  # "Internal error" names nothing
    assert not {rule for rule, tool in by_rule if tool in ("strict", "ping") and rule in ("C006", "C007")}
    assert outcome.code == 1  # C006 is an error


def test_probe_needs_the_live_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path)
    (tmp_path / "catalog.json").write_text('{"tools": []}')
    outcome = run_main(capsys, "lint", "--probe", "--catalog", "catalog.json")
    assert outcome.code == 3
    assert "--probe calls tools on the live servers" in outcome.err and "Traceback" not in outcome.err


def test_tools_that_require_tasks_or_destroy_are_skipped_and_said_so() -> None:
    listing = [
        tool("issue_refund", params={"invoice_id": "string"}, required=["invoice_id"]),
        {
            **tool("research", params={"topic": "string"}, required=["topic"]),
            "execution": {"taskSupport": "required"},
        },
        {
            **tool("drop_table", params={"table": "string"}, required=["table"]),
            "annotations": {"destructiveHint": True},
        },
    ]
    source = build_catalog([ServerInfo(name="s", transport="stdio", tools=listing)])
    targets, skipped = probe_plan(source)
    assert [target.name for target in targets] == ["issue_refund"]
    assert [(skip.tool, skip.reason) for skip in skipped] == [
        ("research", TASK_REQUIRED),
        ("drop_table", DESTRUCTIVE),
    ]
    targets, skipped = probe_plan(source, destructive=True)
    assert [target.name for target in targets] == ["issue_refund", "drop_table"]
    assert [skip.tool for skip in skipped] == ["research"]  # a task-required tool refuses a plain call anyway


def test_the_probe_on_server_everything_skips_its_task_only_tool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """simulate-research-query refuses any plain call ("requires task augmentation"): calling it made a
    false C007."""
    monkeypatch.chdir(tmp_path)
    everything = node_server("mcp-server-everything")
    outcome = run_main(capsys, "lint", "--probe", "--format", "json", "--command", everything, "stdio")
    report = LintReport.model_validate_json(outcome.out)
    assert not [finding for finding in report.findings if finding.rule in ("C006", "C007")]
    assert (
        "The probe did not call 'simulate-research-query': it requires task-based execution "
        "(execution.taskSupport: required)." in report.notes
    )


def test_destructive_tools_are_probed_only_when_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "root").mkdir()
    filesystem = node_server("mcp-server-filesystem")
    skipped = {"write_file", "edit_file", "move_file"}  # annotated destructiveHint: true
    default = run_main(
        capsys, "lint", "--probe", "--format", "json", "--command", filesystem, tmp_path / "root"
    )
    notes = LintReport.model_validate_json(default.out).notes
    assert {note.split("'")[1] for note in notes if note.startswith("The probe did not call")} == skipped
    asked = run_main(
        capsys, "lint", "--probe-destructive", "--format", "json", "--command", filesystem, tmp_path / "root"
    )
    report = LintReport.model_validate_json(asked.out)
    assert not [note for note in report.notes if note.startswith("The probe did not call")]
    assert not [finding for finding in report.findings if finding.rule in ("C006", "C007")]  # it checks input
    assert list((tmp_path / "root").iterdir()) == []  # {} wrote nothing
