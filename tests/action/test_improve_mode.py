"""The Action's improve mode end to end: entrypoint.sh → `mcp-evals improve` → its improve.md as the job
summary (and the sticky comment when a pull request is named), against the fake Anthropic and GitHub
APIs on 127.0.0.1, on a copy of the helpdesk example (its live server)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from conftest import HELPDESK
from fakes import github_events as events
from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_github import FakeGitHub
from improve.wordy import Wordy
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.load import load_config
from mcp_evals.fixtures.load import load_fixtures

from .conftest import VENV_BIN, ActionStep, copy_example

KEY = "sk-ant-api03-IMPROVE-SCOPING-7c1e"


@pytest.fixture
def wordy_api(monkeypatch: pytest.MonkeyPatch, helpdesk_catalog: Catalog) -> Iterator[FakeAnthropic]:
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}")
    config = load_config(HELPDESK / "mcp-evals.yaml")
    wordy = Wordy({tool.name: tool.description for tool in helpdesk_catalog.tools}, load_fixtures(config))
    fake = FakeAnthropic(key=KEY, chooser=wordy.choose).start()
    try:
        yield fake
    finally:
        fake.stop()


def improve_env(
    step: ActionStep, github: FakeGitHub, event: str = "workflow_dispatch", **inputs: str
) -> dict[str, str]:
    step.github_url = github.url
    payload = events.workflow_dispatch("rewrite") if event == "workflow_dispatch" else events.pull_request(7)
    base = {"MODE": "improve", "WORKING-DIRECTORY": "examples/helpdesk", "GITHUB-TOKEN": github.token}
    return step.environment(event, payload, {**base, **inputs})


def test_the_free_loop_posts_its_report_as_the_job_summary(step: ActionStep, fake_github: FakeGitHub) -> None:
    helpdesk = copy_example("helpdesk", step.workspace)
    result = step.run_entrypoint(
        improve_env(step, fake_github, PROVIDER="lexical", **{"PR-NUMBER": "12"}), timeout=240
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    summary = step.summary_text()
    assert "## ➖ mcp-evals improve: no detectable change" in summary
    assert "Lexical gains are not model gains" in summary
    out = helpdesk / "mcp-evals-out" / "improve"
    assert (out / "improve.md").read_text("utf-8").strip() in summary
    assert (out / "descriptions.improved.yaml").exists() and (out / "proof" / "comparison.json").exists()
    outputs = step.outputs()
    assert (
        outputs["decision"] in ("improved", "no-detectable-change", "worse") and outputs["exit-code"] == "0"
    )
    assert "mcp-evals improve" in fake_github.comment_bodies(12)[0]


def test_with_a_key_only_the_improve_process_gets_it_and_the_budget_is_required(
    step: ActionStep, fake_github: FakeGitHub, wordy_api: FakeAnthropic
) -> None:
    copy_example("helpdesk", step.workspace)
    no_cap = improve_env(step, fake_github, **{"ANTHROPIC-API-KEY": KEY, "MODEL": "claude-sonnet-4-6"})
    refused = step.run_entrypoint(no_cap)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert "needs the `budget-usd` input" in step.summary_text() and wordy_api.requests == []

    step.reset_files()
    env = improve_env(
        step,
        fake_github,
        **{"ANTHROPIC-API-KEY": KEY, "MODEL": "claude-sonnet-4-6", "BUDGET-USD": "5", "COMMENT": "false"},
    )
    env["ANTHROPIC_BASE_URL"] = wordy_api.base_url
    result = step.run_entrypoint(env, timeout=300)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    requests = wordy_api.model_requests()
    assert any(not (request.json or {}).get("tools") for request in requests)  # the proposer was asked
    assert {request.headers["x-api-key"] for request in requests} == {KEY}
    assert "anthropic / claude-sonnet-4-6" in step.summary_text()
    assert [line for line in log.splitlines() if KEY in line] == [f"::add-mask::{KEY}"]


def test_improve_runs_on_dispatch_only_and_skips_without_a_key(
    step: ActionStep, fake_github: FakeGitHub
) -> None:
    copy_example("helpdesk", step.workspace)
    refused = step.run_entrypoint(improve_env(step, fake_github, event="pull_request", PROVIDER="lexical"))
    assert refused.returncode == 3 and "runs on workflow_dispatch only" in step.summary_text()
    outputs = step.outputs()  # what the CI job's improve row checks on a push or pull request
    assert outputs["exit-code"] == "3" and outputs["decision"] == "error"
    assert (step.workspace / outputs["report-path"]).stat().st_size > 0

    step.reset_files()
    skipped = step.run_entrypoint(improve_env(step, fake_github, BUILD="touch built"))
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert "::notice title=mcp-evals improve skipped::no API key was given" in skipped.stdout
    assert "Build skipped: the rewrite will be skipped for lack of an API key." in skipped.stdout
    assert step.outputs()["decision"] == "skipped"
