"""docs/workflows/mcp-evals-contract.yml: its contract step as GitHub runs it, cold cache and warm."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO_ROOT, cli_environment

from .conftest import Project

WORKFLOW = REPO_ROOT / "docs" / "workflows" / "mcp-evals-contract.yml"


def steps() -> dict[str, dict[str, Any]]:
    [job] = yaml.safe_load(WORKFLOW.read_text())["jobs"].values()
    return {step.get("name") or step["uses"].split("@")[0]: step for step in job["steps"]}


def run_step(script: str, folder: Path) -> tuple[dict[str, str], str]:
    """Run one `run:` script with bash, as the runner does; return its outputs and the job summary."""
    outputs, summary = folder / "github-output", folder / "github-summary"
    outputs.write_text(""), summary.write_text("")
    env = cli_environment({"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)})
    subprocess.run(
        ["bash", "-e", "-c", script], cwd=folder, env=env, check=True, capture_output=True, timeout=120
    )
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines() if "=" in line)
    return pairs, summary.read_text()


def test_history_goes_through_the_cache_and_a_cold_cache_is_no_failure(project: Project) -> None:
    by_name = steps()
    restore, save = by_name["restore the run history"], by_name["save the run history"]
    assert restore["uses"].startswith("actions/cache/restore@") and save["uses"].startswith(
        "actions/cache/save@"
    )
    assert restore["with"]["path"] == save["with"]["path"] == ".mcp-evals/history.db"
    assert restore["with"]["key"] == save["with"]["key"]
    assert "mcp-evals-contract-refs/heads/main-" in restore["with"]["restore-keys"]  # PRs start from main's
    assert save["if"].startswith("always()")
    names = list(by_name)
    assert (
        names.index("save the run history")
        < names.index("deployment gate")
        < names.index("fail when a case failed")
    )

    project.case(
        "simulated", [{"id": "s", "tool": "t", "expected_output": "ok", "expect": {"output_equals": "ok"}}]
    )
    script = by_name["run the contract cases"]["run"]
    cold, summary = run_step(script, project.root)  # no .mcp-evals/history.db: a cold cache
    assert cold == {"exit-code": "0"}
    assert summary.startswith(
        "<!-- mcp-evals:contract -->\n### ✅ Contract tests: 1 passed, 0 failed of 1 case"
    )
    assert "no earlier run to compare with yet (no history)" in summary
    assert (project.root / ".mcp-evals" / "history.db").exists()
    upload = by_name["upload the JUnit report"]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"].startswith("always()")
    junit = ET.parse(project.root / upload["with"]["path"]).getroot()
    assert [case.get("name") for case in junit.iter("testcase")] == ["simulated"]

    warm, summary = run_step(script, project.root)  # the restored history
    assert warm == {"exit-code": "0"}
    assert "**Against the previous run**" in summary and "0 regressions" in summary

    project.case(
        "simulated", [{"id": "s", "tool": "t", "expected_output": "no", "expect": {"output_equals": "ok"}}]
    )
    failing, summary = run_step(script, project.root)
    assert failing == {"exit-code": "1"}  # the step itself goes on, so the history is saved
    assert "🔻 **simulated** (passed → failed)" in summary
    gate = by_name["deployment gate"]["run"]
    result = subprocess.run(
        ["bash", "-c", gate], cwd=project.root, env=cli_environment(), capture_output=True, text=True
    )
    assert result.returncode == 1 and "gate FAILED: 2/3 cases passed (66.6%)" in result.stdout
