"""``--batch``: Message Batches end to end against the fake API."""

from __future__ import annotations

import pytest

from conftest import Cli, Project
from fakes.fake_anthropic import Call, FakeAnthropic
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import read_results


@pytest.fixture
def batch_env(anthropic_fake: FakeAnthropic, clean_env: pytest.MonkeyPatch) -> FakeAnthropic:
    clean_env.setenv("MCP_EVALS_BATCH_POLL_SECONDS", "0.01")
    anthropic_fake.batch_polls = 2
    return anthropic_fake


def batch_creations(fake: FakeAnthropic) -> list[dict]:
    return [
        request.json
        for request in fake.requests
        if request.method == "POST" and request.path == "/v1/messages/batches"
    ]


def test_results_in_any_order_are_matched_to_their_fixture_by_custom_id(
    project: Project, batch_env: FakeAnthropic, cli: Cli, helpdesk_fixtures: list[Fixture]
) -> None:
    # Every fixture gets its own answer, so a mix-up would show.
    tools = ["get_ticket", "list_invoices", "search_articles", "get_customer", "list_agents"]
    for index, fixture in enumerate(helpdesk_fixtures):
        batch_env.answers[fixture.query] = Call(tools[index % len(tools)], {"n": index})
    # named: a provider picked from the key alone runs under the $1 default cap (docs/running.md)
    result = cli(
        "run", "--config", project.config, "--results", project.results, "--batch", "--provider", "anthropic"
    )
    assert result.code == 0, result.err

    (created,) = batch_creations(batch_env)
    assert len(created["requests"]) == 56
    params = created["requests"][0]["params"]
    assert params["tools"][-1]["cache_control"] == {"type": "ephemeral"}  # caching applies to batches too
    (batch,) = batch_env.batches.values()
    returned = batch.results
    assert [entry["custom_id"] for entry in returned] != [entry["custom_id"] for entry in created["requests"]]

    by_id = {row.fixture_id: row for row in read_results(project.results).results}
    for index, fixture in enumerate(helpdesk_fixtures):
        row = by_id[fixture.id]
        assert (
            row.reached
            and row.calls[0].name == tools[index % len(tools)]
            and row.calls[0].arguments == {"n": index}
        )


def test_entries_rejected_for_forced_tool_use_are_sent_again_with_auto(
    project: Project, batch_env: FakeAnthropic, cli: Cli, helpdesk_fixtures: list[Fixture]
) -> None:
    batch_env.forced_rejecting.add("claude-sonnet-5-5")
    result = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--batch",
        "--model",
        "claude-sonnet-5-5",
    )
    assert result.code == 0, result.err
    first, second = batch_creations(batch_env)
    selects = [fixture for fixture in helpdesk_fixtures if fixture.kind == "select"]
    assert len(first["requests"]) == 56 and len(second["requests"]) == len(selects)
    assert all(entry["params"]["tool_choice"] == {"type": "auto"} for entry in second["requests"])
    data = read_results(project.results)
    assert all(row.reached for row in data.results)
    assert {row.mode for row in data.results if row.fixture_id in {f.id for f in selects}} == {
        "auto_instructed"
    }
    # found out after the header was written: the header (and so every report) still says so
    assert any("rejects forced tool use" in note for note in data.header.notes)
    assert data.header.tool_choice == "auto_instructed"
    assert "rejects forced tool use" in result.out


def test_a_killed_batch_run_resumes_polling_the_same_batch_instead_of_paying_twice(
    project: Project, batch_env: FakeAnthropic, cli: Cli
) -> None:
    batch_env.script(batch_env.unauthorized(), when=lambda request: request.method == "GET", times=None)
    first = cli(
        "run", "--config", project.config, "--results", project.results, "--batch", "--provider", "anthropic"
    )
    assert first.code == 2
    sidecar = project.root / "results.ndjson.batches.json"
    assert sidecar.exists()
    assert {row.error_kind for row in read_results(project.results).results} == {"auth"}

    batch_env.rules.clear()
    second = cli(
        "run",
        "--config",
        project.config,
        "--results",
        project.results,
        "--batch",
        "--resume",
        "--provider",
        "anthropic",
    )
    assert second.code == 0, second.err
    assert "resuming 1 batch" in second.err
    assert len(batch_creations(batch_env)) == 1  # the batch submitted before was collected, not re-sent
    assert all(row.reached for row in read_results(project.results).results)
    assert not sidecar.exists()


def test_a_batch_holds_only_what_the_budget_allows(
    project: Project, batch_env: FakeAnthropic, cli: Cli
) -> None:
    result = cli(
        "run", "--config", project.config, "--results", project.results, "--batch", "--budget-usd", "0.1"
    )
    assert result.code == 2
    (created,) = batch_creations(batch_env)
    rows = read_results(project.results).results
    assert len(created["requests"]) == sum(row.reached for row in rows) < 56
    assert {row.error_kind for row in rows if not row.reached} == {"budget"}
    assert sum(row.cost_usd or 0 for row in rows) <= 0.1
