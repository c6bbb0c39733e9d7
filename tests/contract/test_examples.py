"""The examples' contract cases and the repository's own dogfood case: they exist, check everything, pass."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import EXAMPLES, REPO_ROOT, SOURCE_TREE, RunCli
from mcp_evals.cli.schema_cmd import schema_document
from mcp_evals.config.documents import load_document
from mcp_evals.config.load import load_config
from mcp_evals.contract.load import ContractSetup, load_cases
from mcp_evals.contract.model import ASSERTION_KINDS

EXAMPLE_NAMES = ["helpdesk", "notes-ts"]


def needs_build(example: str) -> None:
    entry = EXAMPLES / "notes-ts" / "dist" / "index.js"
    if example == "notes-ts" and not entry.exists():
        pytest.skip(f"{entry} is missing: run `npm ci && npm run build` in examples/notes-ts")


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_each_example_has_ten_cases_using_every_assertion_kind(example: str) -> None:
    setup = ContractSetup.of(load_config(EXAMPLES / example / "mcp-evals.yaml"))
    cases = load_cases(setup)
    assert len(cases) >= 10
    used = {kind for case in cases for step in case.steps for kind in step.expect.given}
    assert used == set(ASSERTION_KINDS)
    assert any("{{steps." in json.dumps(step.input) for case in cases for step in case.steps)  # chaining
    schema = schema_document("contract")
    for path in sorted((EXAMPLES / example / "evals" / "contract").glob("*.yaml")):
        jsonschema.validate(load_document(path).data, schema)


@pytest.mark.parametrize("example", EXAMPLE_NAMES)
def test_the_example_cases_pass_against_their_servers(example: str, run_cli: RunCli) -> None:
    needs_build(example)
    config = EXAMPLES / example / "mcp-evals.yaml"
    result = run_cli("contract", "--config", config, "--no-history", "--concurrency", "4", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    summary = report["summary"]
    # The llm_judge case is skipped without a key and a budget: reported, never passed.
    assert summary["failed"] == 0 and summary["skipped"] == 1 and summary["passed"] == summary["total"] - 1
    # The example servers keep their data in memory: a new process per case is their isolation, and
    # no case wrote a file (or the report would warn).
    for case in report["run"]["cases"]:
        assert case["isolation"]["kind"] == "fresh process" and case["isolation"]["shared_writes"] == []
    validated = run_cli("contract", "validate", "--config", config)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.strip().endswith("checked against a catalog; 0 problems")


@SOURCE_TREE
def test_the_dogfood_case_drives_mcp_evals_serve_through_itself(run_cli: RunCli) -> None:
    case = REPO_ROOT / "evals" / "contract" / "dogfood.yaml"
    assert "mcp_evals" in case.read_text() and "serve" in case.read_text()
    result = run_cli("contract", "--no-history", "--format", "json", cwd=REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    [ran] = json.loads(result.stdout)["run"]["cases"]
    assert ran["mode"] == "live" and ran["status"] == "passed"
    assert [step["tool"] for step in ran["steps"]] == [
        "list_cases",
        "run_case",
        "compare_results",
        "evaluate_deployment_gate",
        "create_test_case",
    ]
    assert not (REPO_ROOT / "examples" / "helpdesk" / "evals" / "contract" / "escaped.yaml").exists()
    assert Path(REPO_ROOT / ".gitignore").read_text().count(".mcp-evals/") == 1
