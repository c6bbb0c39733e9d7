"""JUnit XML: one testcase per fixture, for CI test-report viewers.

A fixture that passes is a passed testcase, one that fails a ``<failure>`` (type = its outcome), and
a dropout is ``<skipped>``: it never reached the model, so it says nothing about the catalog. The
lexical baseline never gates, so its misses are ``<skipped>`` too (message ``lexical baseline
(advisory): …``): a CI test reporter shows them without failing the job.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mcp_evals.baseline.compare import BaselineComparison
from mcp_evals.report.escape import xml_text
from mcp_evals.report.formatting import arguments_text, failing_fixtures
from mcp_evals.report.verdict import verdict_text, who
from mcp_evals.score import FixtureScore, Scorecard, outcome_label


def _failure_message(fixture: FixtureScore) -> str:
    sample = fixture.representative
    label = outcome_label(fixture.outcome)
    expected = " or ".join(fixture.expected_tools) if fixture.kind == "select" else f"({fixture.kind})"
    chosen = sample.chosen if sample and sample.chosen else "(no call)"
    if fixture.outcome == "correct_call":
        problems = "; ".join(sample.argument_problems[:3]) if sample else ""
        return f"argument problems: {problems}"
    if sample and sample.forbidden_calls:
        return f"{label}: called forbidden {', '.join(sample.forbidden_calls)} (expected {expected})"
    if fixture.outcome == "unknown_tool":
        return f"{label}: expected {expected}, chose {chosen} (not in the catalog)"
    return f"{label}: expected {expected}, chose {chosen}"


def _failure_details(fixture: FixtureScore) -> str:
    lines = [f"query: {fixture.query}", f"kind: {fixture.kind}", f"area: {fixture.area}"]
    for sample in fixture.samples:
        head = f"sample {sample.sample}: {outcome_label(sample.outcome)}"
        if sample.calls:
            head += f" — calls {', '.join(call.name for call in sample.calls)} {arguments_text(sample)}"
        elif sample.reached:
            head += f" — text: {sample.text}"
        lines.append(head)
        lines.extend(f"  {problem}" for problem in sample.argument_problems)
    return "\n".join(lines)


def render_junit(scorecard: Scorecard, *, baseline_comparison: BaselineComparison | None = None) -> str:
    """The JUnit XML report as text."""
    failing = {fixture.id for fixture in failing_fixtures(scorecard)}
    skipped = [fixture for fixture in scorecard.fixtures if fixture.passed is None]
    if scorecard.run.lexical:
        skipped += [fixture for fixture in scorecard.fixtures if fixture.id in failing]
    failures = 0 if scorecard.run.lexical else len(failing)
    suites = ET.Element(
        "testsuites",
        {
            "name": "mcp-evals",
            "tests": str(len(scorecard.fixtures)),
            "failures": str(failures),
            "errors": "0",
            "skipped": str(len(skipped)),
        },
    )
    latency = sum(sample.latency_ms for fixture in scorecard.fixtures for sample in fixture.samples)
    suite = ET.SubElement(
        suites,
        "testsuite",
        {
            "name": xml_text(f"mcp-evals tool selection ({who(scorecard)})", 300),
            "tests": str(len(scorecard.fixtures)),
            "failures": str(failures),
            "errors": "0",
            "skipped": str(len(skipped)),
            "time": f"{latency / 1000:.3f}",
            "timestamp": xml_text(scorecard.run.started_at, 40),
        },
    )
    properties = ET.SubElement(suite, "properties")
    values = {
        "verdict": verdict_text(scorecard, baseline_comparison),
        "provider": scorecard.run.provider,
        "model": scorecard.run.model,
        "lexical_baseline": str(scorecard.run.lexical).lower(),
        "preliminary": str(scorecard.preliminary).lower(),
        "decision": scorecard.gate.decision or ("not_gated" if not scorecard.gate.gated else ""),
        "top1": "" if scorecard.metrics.top1.value is None else f"{scorecard.metrics.top1.value:.4f}",
        "score": "" if scorecard.metrics.score is None else f"{scorecard.metrics.score:.2f}",
        "catalog_hash": scorecard.run.catalog_hash,
    }
    if baseline_comparison is not None:
        values["baseline"] = baseline_comparison.verdict
    for name, value in values.items():
        ET.SubElement(properties, "property", {"name": name, "value": xml_text(value, 500)})
    for fixture in scorecard.fixtures:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": xml_text(f"mcp_evals.{fixture.area}", 200),
                "name": xml_text(fixture.id, 200),
                "time": f"{sum(sample.latency_ms for sample in fixture.samples) / 1000:.3f}",
            },
        )
        if fixture.passed is None:
            kinds = sorted({sample.error_kind or "unknown" for sample in fixture.samples})
            ET.SubElement(
                case,
                "skipped",
                {"message": xml_text(f"dropout: never reached the model ({', '.join(kinds)})")},
            )
        elif fixture.id in failing and scorecard.run.lexical:
            # The lexical baseline never gates: a CI test reporter must not turn its misses red.
            advisory = ET.SubElement(
                case,
                "skipped",
                {"message": xml_text(f"lexical baseline (advisory): {_failure_message(fixture)}", 500)},
            )
            advisory.text = xml_text(_failure_details(fixture), 20_000)
        elif fixture.id in failing:
            failure = ET.SubElement(
                case,
                "failure",
                {
                    "message": xml_text(_failure_message(fixture), 500),
                    "type": "argument_problems" if fixture.outcome == "correct_call" else fixture.outcome,
                },
            )
            failure.text = xml_text(_failure_details(fixture), 20_000)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
