"""Every assertion kind, passing and failing, live (real servers) and in simulation mode."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcp_evals.contract.assertions import Observed, check
from mcp_evals.contract.model import Expect
from servers.contract_server import TOOLS

from .conftest import Project, case_of, contract_server, everything, helpdesk, step_of, verdicts

# (step id, tool, input, expect, the assertion judged, its status)
EVERYTHING_STEPS: list[tuple[str, str, dict[str, Any], dict[str, Any], str, str]] = [
    (
        "contains_pass",
        "echo",
        {"message": "hello"},
        {"output_contains": "Echo: hello"},
        "output_contains",
        "passed",
    ),
    (
        "contains_fail",
        "echo",
        {"message": "hello"},
        {"output_contains": "goodbye"},
        "output_contains",
        "failed",
    ),
    (
        "contains_list",
        "echo",
        {"message": "a b"},
        {"output_contains": ["a", "z"]},
        "output_contains",
        "failed",
    ),
    (
        "not_contains_pass",
        "echo",
        {"message": "hi"},
        {"output_not_contains": "bye"},
        "output_not_contains",
        "passed",
    ),
    (
        "not_contains_fail",
        "echo",
        {"message": "hi"},
        {"output_not_contains": "hi"},
        "output_not_contains",
        "failed",
    ),
    ("equals_pass", "echo", {"message": "hi"}, {"output_equals": "Echo: hi"}, "output_equals", "passed"),
    ("equals_fail", "echo", {"message": "hi"}, {"output_equals": "Echo: h"}, "output_equals", "failed"),
    (
        "equals_json_pass",
        "get-structured-content",
        {"location": "Los Angeles"},
        {"output_equals": {"temperature": 73, "conditions": "Sunny / Clear", "humidity": 48}},
        "output_equals",
        "passed",
    ),
    (
        "equals_json_fail",
        "get-structured-content",
        {"location": "Los Angeles"},
        {"output_equals": {"temperature": 74}},
        "output_equals",
        "failed",
    ),
    (
        "matches_pass",
        "get-sum",
        {"a": 2, "b": 3},
        {"output_matches": r"sum of 2 and 3 is \d+"},
        "output_matches",
        "passed",
    ),
    ("matches_fail", "get-sum", {"a": 2, "b": 3}, {"output_matches": r"^\d+$"}, "output_matches", "failed"),
    (
        "schema_pass",
        "get-structured-content",
        {"location": "Chicago"},
        {
            "schema_match": {
                "type": "object",
                "required": ["humidity"],
                "properties": {"humidity": {"type": "number"}},
            }
        },
        "schema_match",
        "passed",
    ),
    (
        "schema_fail",
        "get-structured-content",
        {"location": "Chicago"},
        {"schema_match": {"type": "object", "required": ["wind"]}},
        "schema_match",
        "failed",
    ),
    (
        "output_schema_pass",
        "get-structured-content",
        {"location": "New York"},
        {"structured_matches_output_schema": True},
        "structured_matches_output_schema",
        "passed",
    ),
    (
        "output_schema_none",
        "echo",
        {"message": "x"},
        {"structured_matches_output_schema": True},
        "structured_matches_output_schema",
        "failed",
    ),
    ("is_error_pass", "get-sum", {"a": "two"}, {"is_error": True}, "is_error", "passed"),
    ("is_error_fail", "echo", {"message": "x"}, {"is_error": True}, "is_error", "failed"),
    ("is_error_false_fail", "get-sum", {"a": "two"}, {"is_error": False}, "is_error", "failed"),
    ("unexpected_tool_error", "get-sum", {"a": "two"}, {"output_contains": "Invalid"}, "is_error", "failed"),
    ("latency_pass", "echo", {"message": "x"}, {"latency_under": 10_000}, "latency_under", "passed"),
    ("latency_fail", "echo", {"message": "x"}, {"latency_under": 0.001}, "latency_under", "failed"),
    ("tool_called_pass", "echo", {"message": "x"}, {"tool_called": "echo"}, "tool_called", "passed"),
    ("tool_called_other", "echo", {"message": "x"}, {"tool_called": "get-sum"}, "tool_called", "failed"),
    (
        "tool_called_unlisted",
        "no-such-tool",
        {},
        {"tool_called": "no-such-tool", "is_error": True},
        "tool_called",
        "failed",
    ),
]


def test_every_assertion_against_server_everything(project: Project) -> None:
    steps = [
        {"id": step, "tool": tool, "input": arguments, "expect": expect}
        for step, tool, arguments, expect, _, _ in EVERYTHING_STEPS
    ]
    project.case("everything assertions", steps, server=everything(), continue_on_failure=True)
    run = project.run()
    case = case_of(run, "everything assertions")
    assert case.mode == "live" and case.status == "failed"
    for step_id, _, _, _, kind, status in EVERYTHING_STEPS:
        step = step_of(run, "everything assertions", step_id)
        assert verdicts(step)[kind] == status, (step_id, step.assertions)
        assert step.status == ("failed" if "failed" in verdicts(step).values() else "passed"), step_id
    # A tool error that is not expected fails the step even though its other assertion holds.
    unexpected = step_of(run, "everything assertions", "unexpected_tool_error")
    assert verdicts(unexpected) == {"is_error": "failed", "output_contains": "passed"}
    assert unexpected.status == "failed"
    assert "the tool reported an error (isError)" in unexpected.assertions[0].message
    # Messages say what was expected and what came.
    contains = step_of(run, "everything assertions", "contains_fail").assertions[0]
    assert contains.message == "'goodbye' is not in the output 'Echo: hello'"
    latency = step_of(run, "everything assertions", "latency_pass")
    assert latency.latency_ms is not None and 0 < latency.latency_ms < 10_000
    assert step_of(run, "everything assertions", "tool_called_unlisted").assertions[1].message == (
        "the server does not list 'no-such-tool': it cannot have run it"
    )


def test_structured_results_against_their_output_schema_on_a_server_that_breaks_it(project: Project) -> None:
    steps = [
        {
            "id": "fits",
            "tool": "weather",
            "input": {"city": "Lisbon"},
            "expect": {"structured_matches_output_schema": True, "is_error": False},
        },
        {
            "id": "breaks",
            "tool": "weather",
            "input": {"city": "broken"},
            "expect": {"structured_matches_output_schema": True},
        },
        {"id": "fails", "tool": "fail", "expect": {"is_error": False}},
        {"id": "fails_expected", "tool": "fail", "expect": {"is_error": True, "output_contains": "jammed"}},
    ]
    project.case("schemas", steps, server=contract_server(), continue_on_failure=True)
    run = project.run()
    assert verdicts(step_of(run, "schemas", "fits")) == {
        "is_error": "passed",
        "structured_matches_output_schema": "passed",
    }
    breaks = step_of(run, "schemas", "breaks")
    assert verdicts(breaks) == {"structured_matches_output_schema": "failed"}
    assert "at $.temperature: 'hot' is not of type 'number'" in breaks.assertions[0].message
    # The SDK's own output-schema check did not swallow the result.
    assert breaks.structured == {"temperature": "hot", "conditions": "dry"}
    assert step_of(run, "schemas", "fails").status == "failed"
    assert step_of(run, "schemas", "fails_expected").status == "passed"


def test_the_example_server_structured_results(project: Project) -> None:
    steps = [
        {
            "id": "ticket",
            "tool": "get_ticket",
            "input": {"ticket_id": "T-1041"},
            "expect": {
                "structured_matches_output_schema": True,
                "schema_match": {"required": ["ticket_id", "comments"]},
            },
        },
        {
            "id": "missing",
            "tool": "get_ticket",
            "input": {"ticket_id": "T-0000"},
            "expect": {"is_error": True},
        },
    ]
    project.case("helpdesk", steps, server=helpdesk())
    run = project.run()
    assert case_of(run, "helpdesk").status == "passed", case_of(run, "helpdesk")


SIMULATED = [
    ("contains_pass", "Echo: hello", {"output_contains": "hello"}, "output_contains", "passed"),
    ("contains_fail", "Echo: hello", {"output_contains": "bye"}, "output_contains", "failed"),
    ("not_contains_pass", "Echo: hello", {"output_not_contains": "bye"}, "output_not_contains", "passed"),
    ("not_contains_fail", "Echo: hello", {"output_not_contains": "hello"}, "output_not_contains", "failed"),
    ("equals_pass", "Echo: hello", {"output_equals": "Echo: hello"}, "output_equals", "passed"),
    ("equals_fail", "Echo: hello", {"output_equals": "Echo"}, "output_equals", "failed"),
    ("matches_pass", "total: 42", {"output_matches": r"total: \d+"}, "output_matches", "passed"),
    ("matches_fail", "total: 42", {"output_matches": r"^\d+$"}, "output_matches", "failed"),
    (
        "schema_pass",
        {"id": 7},
        {"schema_match": {"properties": {"id": {"type": "integer"}}}},
        "schema_match",
        "passed",
    ),
    (
        "schema_fail",
        {"id": "7"},
        {"schema_match": {"properties": {"id": {"type": "integer"}}}},
        "schema_match",
        "failed",
    ),
    ("schema_text", "not json", {"schema_match": {"type": "object"}}, "schema_match", "failed"),
    ("is_error_pass", "fine", {"is_error": False}, "is_error", "passed"),
    ("is_error_fail", "fine", {"is_error": True}, "is_error", "failed"),
    ("latency", "fine", {"latency_under": 100}, "latency_under", "skipped"),
    ("tool_called", "fine", {"tool_called": "weather"}, "tool_called", "skipped"),
    ("tool_called_fail", "fine", {"tool_called": "slow"}, "tool_called", "failed"),
    (
        "output_schema",
        {"x": 1},
        {"structured_matches_output_schema": True},
        "structured_matches_output_schema",
        "skipped",
    ),
]


def test_every_assertion_in_simulation_mode(project: Project) -> None:
    steps = [
        {"id": step, "tool": "weather", "expected_output": output, "expect": expect}
        for step, output, expect, _, _ in SIMULATED
    ]
    project.case("simulated", steps, continue_on_failure=True)
    run = project.run()
    case = case_of(run, "simulated")
    assert case.mode == "simulation" and case.server is None
    for step_id, _, _, kind, status in SIMULATED:
        assert verdicts(step_of(run, "simulated", step_id))[kind] == status, step_id
    latency = step_of(run, "simulated", "latency")
    assert latency.status == "skipped"  # not judged is not passed
    assert latency.assertions[0].message == "simulation mode measures no latency"


def write_snapshot(path: Path) -> Path:
    snapshot = {
        "format": "mcp-evals.catalog/1",
        "servers": [{"name": "saved", "transport": "stdio", "tools": TOOLS}],
    }
    path.write_text(json.dumps(snapshot), "utf-8")
    return path


def test_simulation_with_a_saved_catalog_judges_tools_and_output_schemas(project: Project) -> None:
    write_snapshot(project.root / "catalog.json")
    project.config([{"name": "saved", "snapshot": "catalog.json"}])
    steps = [
        {
            "id": "fits",
            "tool": "weather",
            "expected_output": {"temperature": 3, "conditions": "snow"},
            "expect": {"structured_matches_output_schema": True, "tool_called": "weather"},
        },
        {
            "id": "breaks",
            "tool": "weather",
            "expected_output": {"temperature": "cold"},
            "expect": {"structured_matches_output_schema": True},
        },
        {"id": "unlisted", "tool": "forecast", "expected_output": "x", "expect": {"tool_called": "forecast"}},
    ]
    project.case("saved catalog", steps, continue_on_failure=True)
    run = project.run()
    assert case_of(run, "saved catalog").mode == "simulation"
    assert verdicts(step_of(run, "saved catalog", "fits")) == {
        "structured_matches_output_schema": "passed",
        "tool_called": "passed",
    }
    assert verdicts(step_of(run, "saved catalog", "breaks")) == {"structured_matches_output_schema": "failed"}
    assert verdicts(step_of(run, "saved catalog", "unlisted")) == {"tool_called": "failed"}


def test_a_failing_step_stops_its_case_unless_told_to_go_on(project: Project) -> None:
    steps = [
        {"id": "one", "tool": "t", "expected_output": "a", "expect": {"output_contains": "b"}},
        {"id": "two", "tool": "t", "expected_output": "a", "expect": {"output_contains": "a"}},
    ]
    project.case("stops", steps)
    project.case("goes on", steps, continue_on_failure=True)
    run = project.run()
    assert [step.status for step in case_of(run, "stops").steps] == ["failed", "not_run"]
    assert [step.status for step in case_of(run, "goes on").steps] == ["failed", "passed"]
    again = project.run(["stops"], continue_on_failure=True)  # --continue-on-failure
    assert [step.status for step in case_of(again, "stops").steps] == ["failed", "passed"]


def observed(text: str = "", structured: Any = None, **fields: Any) -> Observed:
    values: dict[str, Any] = {
        "is_error": False,
        "latency_ms": 5.0,
        "mode": "live",
        "tool": "t",
        "listed": True,
    }
    values.update(fields)
    return Observed(text=text, structured=structured, **values)


@pytest.mark.parametrize(
    ("expect", "seen", "status"),
    [
        ({"output_equals": [1, 2]}, observed("[1, 2]"), "passed"),
        ({"output_equals": [1, 2]}, observed("1, 2"), "failed"),
        ({"schema_match": {"type": "array"}}, observed("[]"), "passed"),
        (
            {"structured_matches_output_schema": True},
            observed("{}", listed=True, output_schema={"type": "object"}),
            "failed",
        ),
        ({"latency_under": 5}, observed("x", latency_ms=5.0), "failed"),
    ],
)
def test_edges_of_the_pure_checks(expect: dict[str, Any], seen: Observed, status: str) -> None:
    [result] = check(Expect.model_validate(expect), seen)
    assert result.status == status, result.message
