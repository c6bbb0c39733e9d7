"""The Action's audit mode end to end: entrypoint.sh → `mcp-evals audit` → summary, outputs, PR comment
and SARIF, on a pull request, against the fake GitHub API on 127.0.0.1; the helpdesk example's server
started from `audit-command`, with no config involved."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from fakes import github_events as events
from fakes.fake_github import FakeGitHub
from mcp_evals.github import read_inputs

from .conftest import ActionStep, copy_example

SARIF_SCHEMA = json.loads((Path(__file__).parents[1] / "lint" / "sarif-schema-2.1.0.json").read_text("utf-8"))


def audit_env(step: ActionStep, github: FakeGitHub, **inputs: str) -> dict[str, str]:
    step.github_url = github.url
    base = {
        "MODE": "audit",
        "WORKING-DIRECTORY": "examples/helpdesk",
        "AUDIT-COMMAND": "python server.py",
        "GITHUB-TOKEN": github.token,
    }
    return step.environment("pull_request", events.pull_request(7), {**base, **inputs})


def test_a_pull_request_gets_the_audit_in_the_summary_the_comment_and_sarif(
    step: ActionStep, fake_github: FakeGitHub
) -> None:
    helpdesk = copy_example("helpdesk", step.workspace)
    (helpdesk / "mcp-evals.yaml").unlink()  # no config: the audit needs none
    result = step.run_entrypoint(audit_env(step, fake_github))
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    outputs = step.outputs()
    assert outputs["decision"] == "passed" and outputs["exit-code"] == "0" and int(outputs["score"]) > 0
    summary = step.summary_text()
    assert "## mcp-evals audit" in summary and "### 🛡️ mcp-evals audit: " in summary
    assert "<code>python server.py</code>" in summary
    [comment] = fake_github.comments[7]
    assert "### 🛡️ mcp-evals audit: " in comment["body"]
    log_file = helpdesk / "mcp-evals-out" / "audit.sarif"
    sarif = json.loads(log_file.read_text("utf-8"))
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(sarif)
    uris = {
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
    }
    assert uris == {"examples/helpdesk/server.py"}  # from the repository root, as code scanning needs


def test_fail_under_fails_the_step(step: ActionStep, fake_github: FakeGitHub) -> None:
    copy_example("helpdesk", step.workspace)
    result = step.run_entrypoint(audit_env(step, fake_github, **{"FAIL-UNDER": "100", "COMMENT": "false"}))
    assert result.returncode == 1, result.stdout + result.stderr
    outputs = step.outputs()
    assert outputs["decision"] == "failed" and outputs["exit-code"] == "1"
    assert "FAILED: score" in step.summary_text() or "below --fail-under 100" in step.summary_text()


def test_the_audit_inputs_are_checked() -> None:
    def inputs(**values: str) -> dict[str, str]:
        return {f"INPUT_{name.upper()}": value for name, value in values.items()}

    read = read_inputs(inputs(mode="audit", **{"audit-command": "node dist/index.js", "fail-under": "80"}))
    assert (read.mode, read.audit_command, read.fail_under) == ("audit", "node dist/index.js", 80)
    for bad, message in (
        ({"fail-under": "101"}, "a score from 0 to 100"),
        ({"audit-command": "x", "audit-url": "http://127.0.0.1/mcp"}, "no URL when"),
    ):
        try:
            read_inputs(inputs(mode="audit", **bad))
        except Exception as error:  # ConfigError: one message naming the input
            assert message in str(error)
        else:
            raise AssertionError(f"{bad} was accepted")
