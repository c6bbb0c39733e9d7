"""``{{steps.<id>.output}}`` and JSON paths: resolved in live and simulation runs, checked before any run."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_evals.contract.chaining import ChainingError, Output, find_references, resolve
from mcp_evals.contract.load import ContractSetup, load_cases
from mcp_evals.errors import InputFileError

from .conftest import Project, case_of, contract_server, everything, helpdesk, step_of


def test_references_reach_any_nested_string_and_keep_json_types() -> None:
    outputs = {
        "sum": Output("The sum is 5."),
        "list": Output('{"items": [{"id": "T-1", "tags": ["a", "b"]}], "total": 1}'),
        "weather": Output("ignored", structured={"temperature": 21.5, "odd key": {"x": True}}),
    }
    value = {
        "text": "{{steps.sum.output}}",
        "nested": {
            "deeper": ["first: {{ steps.list.json.items[0].id }}", {"n": "{{steps.list.json.total}}"}]
        },
        "typed": "{{steps.weather.json.temperature}}",
        "quoted": '{{steps.weather.json["odd key"].x}}',
        "whole": "{{steps.list.json.items[0].tags}}",
        "inline": "tags={{steps.list.json.items[0].tags}}",
        "untouched": 7,
    }
    assert resolve(value, outputs) == {
        "text": "The sum is 5.",
        "nested": {"deeper": ["first: T-1", {"n": 1}]},
        "typed": 21.5,  # a whole-string reference keeps the number a number
        "quoted": True,
        "whole": ["a", "b"],
        "inline": 'tags=["a", "b"]',
        "untouched": 7,
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{{steps.list.json.items[3].id}}", "the JSON of step 'list' has no items[3]"),
        ("{{steps.list.json.missing}}", "the JSON of step 'list' has no missing"),
        ("{{steps.sum.json.x}}", "step 'sum': its output is not JSON"),
        ("{{steps.gone.output}}", "step 'gone' has no output"),
    ],
)
def test_a_reference_that_finds_nothing_says_what_is_missing(text: str, message: str) -> None:
    outputs = {"sum": Output("The sum is 5."), "list": Output('{"items": []}')}
    with pytest.raises(ChainingError, match=message.replace("[", r"\[").replace("]", r"\]")):
        resolve({"x": text}, outputs)


@pytest.mark.parametrize(
    "text",
    [
        "{{steps.a.outputs}}",
        "{{steps.a.output.x}}",
        "{{steps.a.json..x}}",
        "{{ steps.a.output",
    ],
)
def test_unreadable_references_are_errors(text: str) -> None:
    with pytest.raises(ChainingError):
        list(find_references({"x": [text]}))


def test_other_double_braces_are_left_alone() -> None:
    template = {"template": "Hello {{name}}, {{ user.id }}"}
    assert list(find_references(template)) == []
    assert resolve(template, {}) == template


def test_chaining_against_a_live_server(project: Project) -> None:
    steps = [
        {"id": "sum", "tool": "get-sum", "input": {"a": 20, "b": 22}},
        {
            "id": "echo",
            "tool": "echo",
            "input": {"message": "got: {{steps.sum.output}}"},
            "expect": {"output_equals": "Echo: got: The sum of 20 and 22 is 42."},
        },
        {"id": "weather", "tool": "get-structured-content", "input": {"location": "Chicago"}},
        {
            "id": "again",
            "tool": "get-sum",
            "input": {"a": "{{steps.weather.json.temperature}}", "b": "{{steps.weather.json.humidity}}"},
            "expect": {"output_contains": "is 118"},
        },
    ]
    project.case("chained", steps, server=everything())
    run = project.run()
    assert case_of(run, "chained").status == "passed", case_of(run, "chained")
    assert step_of(run, "chained", "again").input == {"a": 36, "b": 82}


def test_chaining_through_a_json_path_into_the_example_server(project: Project) -> None:
    steps = [
        {"id": "search", "tool": "search_tickets", "input": {"query": "charged twice"}},
        {
            "id": "ticket",
            "tool": "get_ticket",
            "input": {"ticket_id": "{{steps.search.json.tickets[0].ticket_id}}"},
            "expect": {"output_contains": "Charged twice for February"},
        },
        {
            "id": "customer",
            "tool": "get_customer",
            "input": {"customer_id": "{{steps.ticket.json.customer_id}}"},
            "expect": {"output_contains": "Ruiz & Hale LLP"},
        },
    ]
    project.case("ticket to customer", steps, server=helpdesk())
    run = project.run()
    assert case_of(run, "ticket to customer").status == "passed", case_of(run, "ticket to customer")
    assert step_of(run, "ticket to customer", "customer").input == {"customer_id": "cus_1002"}


def test_chaining_in_simulation_mode(project: Project) -> None:
    steps = [
        {"id": "create", "tool": "create_note", "expected_output": {"id": "n-109", "title": "Milk"}},
        {
            "id": "append",
            "tool": "append_to_note",
            "input": {"note_id": "{{steps.create.json.id}}", "text": "after {{steps.create.output}}"},
            "expected_output": "ok",
        },
    ]
    project.case("simulated chain", steps)
    run = project.run()
    assert step_of(run, "simulated chain", "append").input == {
        "note_id": "n-109",
        "text": 'after {"id": "n-109", "title": "Milk"}',
    }


def test_a_missing_path_at_run_time_fails_the_step(project: Project) -> None:
    steps = [
        {"id": "weather", "tool": "weather", "input": {"city": "Oslo"}},
        {"id": "use", "tool": "weather", "input": {"city": "{{steps.weather.json.city}}"}},
    ]
    project.case("missing path", steps, server=contract_server())
    run = project.run()
    use = step_of(run, "missing path", "use")
    assert use.status == "failed"
    assert use.error == "{{steps.weather.json.city}}: the JSON of step 'weather' has no city"


@pytest.mark.parametrize(
    ("reference", "reason"),
    [
        ("{{steps.nowhere.output}}", "no step 'nowhere' in this case"),
        ("{{steps.second.output}}", "step 'second' comes later; a step can only use the steps before it"),
    ],
)
def test_unknown_references_are_errors_before_anything_runs(
    project: Project, reference: str, reason: str
) -> None:
    path = project.case(
        "bad reference",
        [
            {"id": "first", "tool": "t", "input": {"deep": {"list": ["ok", reference]}}},
            {"id": "second", "tool": "t"},
        ],
    )
    with pytest.raises(InputFileError) as caught:
        load_cases(ContractSetup.of(None, cwd=project.root))
    message = str(caught.value)
    line = next(number for number, text in enumerate(path.read_text().splitlines(), 1) if reference in text)
    assert message.startswith(f"{shown(path)}:{line} (steps[0].input.deep.list[1]): {reference}: {reason}")


def shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
