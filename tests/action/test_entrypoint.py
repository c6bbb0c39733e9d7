"""entrypoint.sh end to end, outside Docker: the runner's files and variables, real-shaped event
payloads, the bundled example server, and a fake GitHub REST API on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fakes import github_events as events
from fakes.fake_github import FakeGitHub

from .conftest import VENV_BIN, ActionStep, copy_example

KEY = "sk-ant-api03-scoping-proof-5f9d2c"
HELPDESK_INPUTS = {"WORKING-DIRECTORY": "examples/helpdesk"}


@pytest.fixture
def helpdesk(step: ActionStep) -> Path:
    return copy_example("helpdesk", step.workspace)


LIVE_SERVER = """\
    command: python        # resolved from PATH; needs the `mcp` package installed
    args: [server.py]
    cwd: .
"""


@pytest.fixture
def helpdesk_offline(step: ActionStep, helpdesk_snapshot: Path) -> Path:
    """The helpdesk example with its server's catalog read from a snapshot of it (taken once per
    session), for the tests about the step around validation (tokens, events, builds, annotations), not
    about the server: starting it is most of a validate-mode run's CPU. The live server's own runs are
    the tests that use ``helpdesk``."""
    project = copy_example("helpdesk", step.workspace)
    shutil.copy(helpdesk_snapshot, project / "catalog.snapshot.json")
    config = project / "mcp-evals.yaml"
    text = config.read_text("utf-8")
    assert text.count(LIVE_SERVER) == 1
    config.write_text(text.replace(LIVE_SERVER, "    snapshot: catalog.snapshot.json\n"), "utf-8")
    return project


def pr_env(step: ActionStep, fake: FakeGitHub, **inputs: str) -> dict[str, str]:
    step.github_url = fake.url
    return step.environment(
        "pull_request",
        events.pull_request(7),
        {**HELPDESK_INPUTS, "GITHUB-TOKEN": fake.token, **inputs},
    )


def test_validate_on_a_pull_request_comments_once_and_updates_in_place(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    env = pr_env(step, fake_github)
    first = step.run_entrypoint(env)
    assert first.returncode == 0, first.stdout + first.stderr
    summary = step.summary_text()
    assert summary.startswith("**mcp-evals** · `examples/helpdesk/mcp-evals.yaml`")
    assert "✅ mcp-evals validate: the fixtures match" in summary and "22 of 22 tools covered" in summary
    outputs = step.outputs()
    assert outputs["decision"] == "valid"
    assert outputs["exit-code"] == "0"
    assert outputs["preliminary"] == "false"
    assert outputs["report-path"] == "examples/helpdesk/mcp-evals-out/report.md"
    assert (step.workspace / outputs["report-path"]).read_text() == summary
    out = helpdesk / "mcp-evals-out"
    assert {path.name for path in out.iterdir()} == {
        "report.md",
        "catalog.json",
        "validate.json",
        "lint.json",
        "lint.sarif",
    }
    assert "### 🔎 mcp-evals lint: grade" in summary and "\nlint: grade " in first.stdout
    sarif = json.loads((out / "lint.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    located = [result["locations"][0]["physicalLocation"] for result in sarif["runs"][0]["results"]]
    assert all(place["artifactLocation"]["uri"].startswith("examples/helpdesk/") for place in located)
    [comment] = fake_github.comments[7]
    assert outputs["comment-url"] == comment["html_url"]
    assert "the fixtures match" in comment["body"]
    assert "created on #7" in first.stdout

    step.reset_files()
    second = step.run_entrypoint(env)
    assert second.returncode == 0
    assert len(fake_github.comments[7]) == 1
    assert "updated on #7" in second.stdout
    assert step.outputs()["comment-url"] == comment["html_url"]
    assert [request.method for request in fake_github.writes()] == ["POST", "PATCH"]


def test_a_lint_at_its_fail_on_level_fails_the_step_like_a_validation_error(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    config = helpdesk_offline / "mcp-evals.yaml"
    config.write_text(config.read_text() + "\nlint:\n  fail_on: warning\n")
    result = step.run_entrypoint(pr_env(step, fake_github))
    assert result.returncode == 1
    assert step.outputs()["decision"] == "lint-failed" and step.outputs()["exit-code"] == "1"
    summary = step.summary_text()
    assert "✅ mcp-evals validate: the fixtures match" in summary and "### 🔎 mcp-evals lint" in summary


def test_a_renamed_tool_fails_validation_with_annotations_and_says_so(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    tickets = helpdesk_offline / "fixtures" / "tickets.yaml"
    tickets.write_text(tickets.read_text().replace("get_ticket", "fetch_ticket", 1))
    result = step.run_entrypoint(pr_env(step, fake_github))
    assert result.returncode == 1
    assert step.outputs()["decision"] == "invalid"
    assert step.outputs()["exit-code"] == "1"
    summary = step.summary_text()
    assert (
        "❌ mcp-evals validate: the fixtures do not match" in summary
        and "unknown-tool" in summary
        and "did you mean &#x27;get\\_ticket" in summary
    )
    # annotations reach the log with repository paths, so GitHub pins them on the file and line
    assert "::error file=examples/helpdesk/fixtures/tickets.yaml,line=" in result.stdout
    assert "do not match" in fake_github.comment_bodies(7)[0]


def test_a_read_only_token_is_a_warning_not_a_failure(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    fake_github.read_only = True
    result = step.run_entrypoint(pr_env(step, fake_github))
    assert result.returncode == 0
    assert "::warning title=mcp-evals%3A no PR comment::could not comment on #7: 403" in result.stdout
    assert "pull-requests: write" in result.stdout
    assert step.outputs()["comment-url"] == ""
    assert "the fixtures match" in step.summary_text()


def test_bad_input_exits_3_with_the_reason_everywhere(step: ActionStep, fake_github: FakeGitHub) -> None:
    result = step.run_entrypoint(pr_env(step, fake_github, CONCURRENCY="lots"))
    assert result.returncode == 3
    assert "input `concurrency`: expected a whole number ≥ 1, got 'lots'" in step.summary_text()
    assert step.outputs()["exit-code"] == "3"
    assert "::error title=mcp-evals%3A bad input::input `concurrency`" in result.stdout


def test_session_mode_on_a_pull_request_is_refused(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    """Sessions are paid: a workflow that runs them on every pull request is a mistake, said at once."""
    inputs = {"MODE": "session", "COMMENT": "false", "BUDGET-USD": "1", "TASKS": "evals/session/tasks.yaml"}
    result = step.run_entrypoint(pr_env(step, fake_github, **inputs))
    assert result.returncode == 3
    summary = step.summary_text()
    assert "mode `session` runs paid sessions: only on workflow_dispatch or schedule" in summary
    assert "not on `pull_request`" in summary
    assert step.outputs()["decision"] == "error"


def test_a_missing_config_is_bad_input(step: ActionStep, helpdesk: Path, fake_github: FakeGitHub) -> None:
    result = step.run_entrypoint(pr_env(step, fake_github, CONFIG="nope.yaml", COMMENT="false"))
    assert result.returncode == 3
    assert "config file not found" in step.summary_text()


def test_the_build_runs_without_keys_or_token(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    env = pr_env(
        step, fake_github, BUILD="env > build-env.txt", **{"ANTHROPIC-API-KEY": KEY}, COMMENT="false"
    )
    env.update({"ANTHROPIC_API_KEY": KEY, "GITHUB_TOKEN": fake_github.token, "RENAMED_SECRET": KEY})
    result = step.run_entrypoint(env)
    assert result.returncode == 0, result.stdout + result.stderr
    build_env = (helpdesk_offline / "build-env.txt").read_text()
    assert "GITHUB_REPOSITORY=octo/helpdesk" in build_env  # the context is there …
    assert KEY not in build_env and fake_github.token not in build_env  # … the secrets are not
    assert "INPUT_" not in build_env
    masks = [f"::add-mask::{KEY}", f"::add-mask::{fake_github.token}"]
    assert result.stdout.splitlines()[:2] == masks  # masked before anything else is printed
    assert result.stdout.count(KEY) == 1 and KEY not in result.stderr  # and printed nowhere else


def test_a_failing_build_stops_the_run_and_fails_the_step(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    result = step.run_entrypoint(pr_env(step, fake_github, BUILD="echo compiling; exit 7"))
    assert result.returncode == 1
    assert "compiling" in result.stdout
    assert "::error title=mcp-evals build::the build command failed with exit code 7" in result.stdout
    assert step.outputs()["decision"] == "build-failed"
    assert "failed with exit code 7" in step.summary_text()
    assert "failed with exit code 7" in fake_github.comment_bodies(7)[0]


def test_a_dispatch_without_a_key_skips_the_paid_eval_with_a_notice(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    fake_github.pulls.append({"number": 31, "state": "open", "head": {"label": "octo:rename-tools"}})
    step.github_url = fake_github.url
    env = step.environment(
        "workflow_dispatch",
        events.workflow_dispatch("rename-tools"),
        {
            **HELPDESK_INPUTS,
            "GITHUB-TOKEN": fake_github.token,
            "BUILD": "touch built",
            "ANTHROPIC-API-KEY": "",
        },
    )
    result = step.run_entrypoint(env)
    assert result.returncode == 0
    assert "::notice title=mcp-evals eval skipped::" in result.stdout
    assert not (helpdesk / "built").exists()  # nothing to build for a skipped eval
    assert step.outputs()["decision"] == "skipped"
    assert "Skipped" in step.summary_text() and "forks get no secrets" in step.summary_text()
    assert "Skipped" in fake_github.comment_bodies(31)[0]  # the open PR of the dispatched branch


def test_a_schedule_without_pr_writes_the_summary_only(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    step.github_url = fake_github.url
    env = step.environment(
        "schedule",
        events.schedule(),
        {**HELPDESK_INPUTS, "GITHUB-TOKEN": fake_github.token, "MODE": "validate"},
    )
    result = step.run_entrypoint(env)
    assert result.returncode == 0
    assert "the fixtures match" in step.summary_text()
    assert fake_github.requests == []
    assert "summary only" in result.stdout


def test_all_runs_validate_then_eval(step: ActionStep, helpdesk: Path, fake_github: FakeGitHub) -> None:
    """With one contract case of the example's twelve: each starts its own server (all twelve pass in
    tests/contract/test_examples.py)."""
    for case in (helpdesk / "evals" / "contract").glob("*.yaml"):
        if case.name != "ticket-lookup.yaml":
            case.unlink()
    result = step.run_entrypoint(pr_env(step, fake_github, MODE="all"))
    assert result.returncode == 0
    summary = step.summary_text()
    assert "Contract tests: 1 passed, 0 failed" in summary
    assert (
        summary.index("mcp-evals validate")
        < summary.index("Contract tests")
        < summary.index("mcp-evals eval")
    )
    assert step.outputs()["decision"] == "valid"  # the eval was skipped (no key): validation decides


def test_contract_mode_runs_the_cases_free(step: ActionStep, helpdesk: Path, fake_github: FakeGitHub) -> None:
    """Three of the example's twelve cases, the judged one among them: each case starts its own
    server, and all twelve pass in tests/contract/test_examples.py."""
    for case in (helpdesk / "evals" / "contract").glob("*.yaml"):
        if case.name not in ("agents-online.yaml", "judged-answer.yaml", "ticket-lookup.yaml"):
            case.unlink()
    result = step.run_entrypoint(pr_env(step, fake_github, MODE="contract"))
    assert result.returncode == 0, result.stdout + result.stderr
    summary = step.summary_text()
    assert "### ✅ Contract tests: 2 passed, 0 failed, 1 skipped of 3 cases" in summary
    assert "OPENAI\\_API\\_KEY is not set: the judge was not asked" in summary  # no key reached it
    assert step.outputs()["decision"] == "passed"
    assert (helpdesk / "mcp-evals-out" / "contract.md").exists()
    assert (helpdesk / ".mcp-evals" / "history.db").exists()  # what actions/cache keeps
    junit = ET.parse(helpdesk / "mcp-evals-out" / "contract-junit.xml").getroot()
    assert len(list(junit.iter("testcase"))) == 3 and junit.get("skipped") == "1"
    assert "contract: passed; JUnit report: " in result.stdout and "contract-junit.xml" in result.stdout


def test_a_failing_contract_case_fails_the_step(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    """Beside a case that passes (each case starts its own server: two are enough here)."""
    cases = helpdesk / "evals" / "contract"
    for case in cases.glob("*.yaml"):
        if case.name not in ("agents-online.yaml", "ticket-lookup.yaml"):
            case.unlink()
    case = cases / "agents-online.yaml"
    case.write_text(case.read_text().replace("const: online", "const: offline"))
    failed = step.run_entrypoint(pr_env(step, fake_github, MODE="contract"))
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert step.outputs()["decision"] == "failed" and step.outputs()["exit-code"] == "1"
    assert "❌" in step.summary_text()
    junit = ET.parse(helpdesk / "mcp-evals-out" / "contract-junit.xml").getroot()
    assert len(list(junit.iter("testcase"))) == 2
    [failure] = [case for case in junit.iter("testcase") if case.find("failure") is not None]
    assert failure.get("name") == "who is online"
    assert "schema_match" in (failure.find("failure").get("message") or "")  # type: ignore[union-attr]


def test_the_image_doubles_as_the_cli(step: ActionStep) -> None:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
    result = step.run_entrypoint(env, "mcp-evals", "--version")
    assert result.returncode == 0 and "mcp-evals" in result.stdout


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root, as in the container")
def test_files_written_into_the_workspace_are_handed_back(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    for path in [step.workspace, *step.workspace.rglob("*")]:
        os.lchown(path, 1001, 1001)
    result = step.run_entrypoint(pr_env(step, fake_github, BUILD="mkdir -p dist && touch dist/server.js"))
    assert result.returncode == 0
    written = [helpdesk_offline / "dist" / "server.js", helpdesk_offline / "mcp-evals-out" / "report.md"]
    for path in [*written, *step.workspace.rglob("*")]:
        assert (path.lstat().st_uid, path.lstat().st_gid) == (1001, 1001), path


def test_with_a_catalog_lock_a_changed_tool_surface_is_in_the_comment_and_fails_the_step(
    step: ActionStep, helpdesk: Path, fake_github: FakeGitHub
) -> None:
    config = helpdesk / "mcp-evals.yaml"
    config.write_text(config.read_text() + "\ncatalog:\n  lock: evals/catalog.lock.json\n")
    env = pr_env(step, fake_github)
    locked = subprocess.run(
        [str(VENV_BIN / "mcp-evals"), "catalog", "--update-lock"],
        cwd=helpdesk,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert locked.returncode == 0, locked.stderr
    first = step.run_entrypoint(env)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "catalog lock evals/catalog.lock.json: catalog matches the lock" in first.stdout
    assert "### Tool surface\n\n✅ catalog matches the lock (22 tools, hash" in step.summary_text()

    # The pull request rewrites a description and tightens a bound, and forgets the lock.
    server = helpdesk / "server.py"
    source = server.read_text("utf-8")
    source = source.replace("Full-text search across ticket subjects", "Search ticket subjects", 1)
    server.write_text(
        source.replace(
            'le=50, description="Maximum number of tickets',
            'le=20, description="Maximum number of tickets',
            1,
        ),
        "utf-8",
    )
    step.reset_files()
    second = step.run_entrypoint(env)
    assert second.returncode == 1
    assert step.outputs()["decision"] == "invalid" and step.outputs()["exit-code"] == "1"
    assert "catalog lock evals/catalog.lock.json: catalog differs from the lock" in second.stdout
    assert (
        "::error file=examples/helpdesk/evals/catalog.lock.json,title=mcp-evals validate%3A catalog lock::"
        in second.stdout
    )
    body = fake_github.comment_bodies(7)[0]
    assert body.count("### Tool surface") == 1
    assert "❌ mcp-evals validate: the live catalog differs from its lock" in body
    assert "**1 breaking** · 1 selection-affecting · 0 compatible" in body
    assert (
        "- **breaking** · <code>search\\_tickets</code>: parameter <code>limit</code>: "
        "<code>maximum</code> tightened" in body
    )
    assert "re-run <code>mcp-evals run --only-tools search\\_tickets</code> or dispatch the paid eval" in body
    document = json.loads((helpdesk / "mcp-evals-out" / "validate.json").read_text("utf-8"))
    assert document["lock"]["status"] == "differs"


def test_all_skips_the_contract_mode_where_there_are_no_cases(
    step: ActionStep, helpdesk_offline: Path, fake_github: FakeGitHub
) -> None:
    shutil.rmtree(helpdesk_offline / "evals" / "contract")
    result = step.run_entrypoint(pr_env(step, fake_github, MODE="all"))
    assert result.returncode == 0
    assert "mcp-evals contract: skipped" in step.summary_text()
