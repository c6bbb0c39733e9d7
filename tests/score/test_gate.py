"""The gate: boundaries, messages, fail_on, per-area minimums, advisory runs."""

from __future__ import annotations

import pytest

from mcp_evals.config.model import GateOptions
from mcp_evals.score import score_results
from mcp_evals.score.gate import GateDecision, evaluate_gate, format_percent, gate_for_run
from support.records import helpdesk_results


@pytest.mark.parametrize(
    ("top1", "decision"),
    [
        (0.0, "remediate"),
        (0.8499, "remediate"),
        (0.85, "gray_zone"),
        (17 / 20, "gray_zone"),
        (0.8999, "gray_zone"),
        (0.90, "deprioritize_refactor"),
        (9 / 10, "deprioritize_refactor"),
        (1.0, "deprioritize_refactor"),
    ],
)
def test_gate_boundaries(top1: float, decision: str) -> None:
    assert evaluate_gate(top1, tool_count=67).decision == decision


def test_gate_messages_name_the_tool_count_and_the_recommendation() -> None:
    remediate = evaluate_gate(0.8499, tool_count=67)
    assert remediate.message == (
        "Top-1 accuracy 84.99% across 67 tools is below 85%: "
        "open a remediation: deferred loading, code mode, or grouping tools."
    )
    gray = evaluate_gate(0.875, tool_count=1)
    assert gray.message == (
        "Top-1 accuracy 87.5% across 1 tool is in the gray zone (85%–90%): "
        "keep watching; re-evaluate after the next tool or description change."
    )
    high = evaluate_gate(0.9, tool_count=22)
    assert high.message == (
        "Top-1 accuracy 90.0% across 22 tools is at or above 90%: "
        "deprioritize catalog refactoring; keep consolidating through enums."
    )


def test_a_value_just_below_a_threshold_never_reads_as_the_threshold() -> None:
    assert format_percent(0.89999, (0.85, 0.9)) == "89.99%"
    assert format_percent(0.8999, (0.85, 0.9)) == "89.99%"
    assert format_percent(0.9, (0.85, 0.9)) == "90.0%"


def test_thresholds_are_configurable() -> None:
    options = GateOptions(remediate_below=0.5, deprioritize_at=0.7)
    assert evaluate_gate(0.6, options, tool_count=3).decision == "gray_zone"
    assert evaluate_gate(0.7, options, tool_count=3).decision == "deprioritize_refactor"


def test_decisions_are_advisory_unless_fail_on_lists_them() -> None:
    assert not evaluate_gate(0.5, tool_count=3).fails
    failing = evaluate_gate(0.5, GateOptions(fail_on=["remediate"]), tool_count=3)
    assert failing.fails and "fail_on" in failing.failing_reasons[0]
    assert not evaluate_gate(0.86, GateOptions(fail_on=["remediate"]), tool_count=3).fails


def _run_gate(**overrides: object) -> GateDecision:
    arguments: dict[str, object] = {
        "top1": 0.95,
        "options": GateOptions(area_minimums={"billing": 0.8, "tickets": 0.5}),
        "tool_count": 10,
        "area_accuracy": {"billing": 0.75, "tickets": 0.5},
        "preliminary": False,
        "lexical": False,
    }
    arguments.update(overrides)
    return gate_for_run(**arguments)  # type: ignore[arg-type]


def test_an_area_below_its_minimum_fails_the_job() -> None:
    gate = _run_gate()
    assert [item.area for item in gate.area_shortfalls] == ["billing"]
    assert gate.fails
    assert "area 'billing' accuracy 75.0% is below its minimum 80%" in gate.failing_reasons


def test_preliminary_runs_never_fail_and_lexical_ones_get_no_decision() -> None:
    preliminary = _run_gate(preliminary=True, options=GateOptions(fail_on=["deprioritize_refactor"]))
    assert not preliminary.fails and not preliminary.authoritative
    assert "PRELIMINARY" in (preliminary.advisory_reason or "")
    lexical = _run_gate(lexical=True, top1=0.1, options=GateOptions(fail_on=["remediate"]))
    assert lexical.decision is None and not lexical.gated and not lexical.fails
    assert lexical.label == "not gated (lexical baseline)" and lexical.message.startswith("Not gated")


def test_no_select_fixture_means_no_decision() -> None:
    gate = _run_gate(top1=None)
    assert gate.decision is None and "no gate decision" in gate.message


def test_the_scorecard_gate_uses_the_catalog_tool_count() -> None:
    scorecard = score_results(helpdesk_results(), gate_options=GateOptions(fail_on=["remediate"]))
    assert scorecard.gate.tool_count == 6 and "across 6 tools" in scorecard.gate.message
    assert scorecard.gate.fails
