"""The Action's session mode end to end: entrypoint.sh → `mcp-evals session` → `mcp-evals session
report` → summary, outputs and PR comment, against fake Anthropic and GitHub APIs on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fakes import github_events as events
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from fakes.fake_github import FakeGitHub

from .conftest import ActionStep, copy_example

KEY = "sk-ant-api03-SESSION-SCOPING-51d2"
EU_PROMPT = (
    "A customer in Germany says Lumen feels slow today. Is the EU region healthy, and what is its API "
    "latency right now?"
)


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic(key=KEY).start()
    fake.sessions[EU_PROMPT] = [
        Call("get_service_status", {"region": "eu"}),
        Text("The EU region is degraded; the latency figures are a stale cached reading."),
    ]
    try:
        yield fake
    finally:
        fake.stop()


def session_env(
    step: ActionStep, github: FakeGitHub, event: str = "workflow_dispatch", **inputs: str
) -> dict[str, str]:
    step.github_url = github.url
    payload = (
        events.workflow_dispatch("rename-tools")
        if event == "workflow_dispatch"
        else {"schedule": "0 6 * * 1", "repository": events.workflow_dispatch()["repository"]}
    )
    base = {
        "MODE": "session",
        "WORKING-DIRECTORY": "examples/helpdesk",
        "TASKS": "evals/session/tasks.yaml",
        "GITHUB-TOKEN": github.token,
        "PR-NUMBER": "12",
    }
    return step.environment(event, payload, {**base, **inputs})


def test_sessions_run_with_the_key_in_their_process_only_and_report_everywhere(
    step: ActionStep, fake_github: FakeGitHub, fake_anthropic: FakeAnthropic
) -> None:
    helpdesk = copy_example("helpdesk", step.workspace)
    inputs = {"ANTHROPIC-API-KEY": KEY, "BUDGET-USD": "5", "LIMIT": "1", "FAULT": "0", "ARM": "both"}
    env = session_env(step, fake_github, **inputs)
    env["ANTHROPIC_BASE_URL"] = fake_anthropic.base_url
    result = step.run_entrypoint(env, timeout=240)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log

    assert len(fake_anthropic.model_requests()) == 4  # 2 arms × 2 turns
    assert {request.headers["x-api-key"] for request in fake_anthropic.model_requests()} == {KEY}
    outputs = step.outputs()
    assert (
        outputs["decision"] == "complete"
        and outputs["preliminary"] == "false"
        and outputs["exit-code"] == "0"
    )
    summary = step.summary_text()
    assert "## mcp-evals session: helpdesk operations" in summary and "✅ complete" in summary
    assert "| A | 0% | 1/1 |" in summary and "| B | 0% | 1/1 |" in summary
    [comment] = fake_github.comments[12]
    assert "## mcp-evals session: helpdesk operations" in comment["body"]
    records = list((helpdesk / "mcp-evals-out" / "sessions").glob("sessions-*.ndjson"))
    assert len(records) == 1 and KEY not in records[0].read_text()
    assert records[0].name.endswith("-4f2a9c1e0b7d.ndjson")  # keyed by the workflow's commit (GITHUB_SHA)
    assert (helpdesk / "mcp-evals-out" / "session-report.md").exists()
    assert [line for line in log.splitlines() if KEY in line] == [f"::add-mask::{KEY}"]


def test_a_budget_stop_is_preliminary_in_the_summary_the_comment_and_the_outputs(
    step: ActionStep, fake_github: FakeGitHub, fake_anthropic: FakeAnthropic
) -> None:
    copy_example("helpdesk", step.workspace)
    inputs = {"ANTHROPIC-API-KEY": KEY, "BUDGET-USD": "0.01", "LIMIT": "1", "FAULT": "0", "ARM": "A"}
    env = session_env(step, fake_github, event="schedule", **inputs)
    env["ANTHROPIC_BASE_URL"] = fake_anthropic.base_url
    result = step.run_entrypoint(env, timeout=240)
    assert result.returncode == 2, result.stdout + result.stderr
    assert fake_anthropic.model_requests() == []  # even the first turn could have crossed $0.01
    outputs = step.outputs()
    assert (
        outputs["preliminary"] == "true"
        and outputs["decision"] == "preliminary"
        and outputs["exit-code"] == "2"
    )
    assert "⚠️ **PRELIMINARY**" in step.summary_text()
    assert "PRELIMINARY" in fake_github.comment_bodies(12)[0]


def test_without_a_key_the_sessions_are_skipped_with_a_notice(
    step: ActionStep, fake_github: FakeGitHub
) -> None:
    copy_example("helpdesk", step.workspace)
    result = step.run_entrypoint(
        session_env(step, fake_github, **{"BUDGET-USD": "5", "BUILD": "touch built"})
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::notice title=mcp-evals session skipped::no API key was given" in result.stdout
    assert "Build skipped: the sessions will be skipped for lack of an API key." in result.stdout
    assert step.outputs()["decision"] == "skipped"
    assert "⏭️ mcp-evals session: skipped" in step.summary_text()


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"BUDGET-USD": ""}, "mode `session` needs the `budget-usd` input"),
        ({"TASKS": ""}, "mode `session` needs the `tasks` input"),
        ({"PROVIDER": "lexical"}, "mode `session` needs a model that calls tools"),
    ],
    ids=["no budget", "no tasks", "lexical"],
)
def test_what_a_session_run_cannot_do_without_is_bad_input(
    step: ActionStep, fake_github: FakeGitHub, inputs: dict[str, str], message: str
) -> None:
    copy_example("helpdesk", step.workspace)
    full = {"ANTHROPIC-API-KEY": KEY, "BUDGET-USD": "5", **inputs}
    result = step.run_entrypoint(session_env(step, fake_github, **full))
    assert result.returncode == 3
    assert message in step.summary_text() and step.outputs()["decision"] == "error"
