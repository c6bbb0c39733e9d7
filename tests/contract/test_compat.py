"""A folder of mcp-eval-runner cases, run as that tool runs it: `mcp-evals contract --fixtures DIR`.

The case files are written in mcp-eval-runner's documented format (its README's fixture format and
its fixture.ts schema), with our own content; the servers are npm's server-memory and
server-everything from tests/reference-servers, started as its cases start them (`command: node`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.catalog_helpers import NODE_BIN, PYTHON, node_server
from support.validate_helpers import run_main

from .conftest import CONTRACT_SERVER


def write_case(folder: Path, name: str, case: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(case, sort_keys=False), "utf-8")
    return path


def memory_script() -> str:
    return str(node_server("mcp-server-memory").resolve())


def everything_script() -> str:
    return str(node_server("mcp-server-everything").resolve())


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder to run in, with no config: node_modules linked in, as a Node project has it."""
    (tmp_path / "node_modules").symlink_to(NODE_BIN.parent)
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_JUDGE_API_KEY", "LLM_JUDGE_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def runner_folder(root: Path) -> Path:
    """A simulated case, a live case against server-memory and a chained live case."""
    memory_script()  # skips when the reference servers are not installed
    folder = root / "evals"
    write_case(
        folder,
        "simulated",
        {
            "name": "search_and_summarize",
            "description": "Simulation: no server block, each step's output is its expected_output.",
            "steps": [
                {
                    "id": "search",
                    "tool": "search_docs",
                    "input": {"query": "release notes"},
                    "expected_output": '{"hits": 2, "top": "release notes 4.2"}',
                    "expect": {
                        "output_contains": "release notes",
                        "output_matches": '"hits": \\d+',
                        "schema_match": {"type": "object", "required": ["hits"]},
                    },
                },
                {
                    "id": "summarize",
                    "tool": "summarize",
                    "input": {"text": "{{steps.search.output}}"},
                    "expected_output": "Summary: two hits",
                    "expect": {"output_equals": "Summary: two hits", "output_not_contains": "error"},
                },
            ],
        },
    )
    write_case(
        folder,
        "memory",
        {
            "name": "knowledge_graph",
            "description": "Live: npm's server-memory, started from the current folder.",
            "server": {
                "command": "node",
                # relative to the folder the command runs in, as mcp-eval-runner resolves it
                "args": ["${MEMORY_SERVER:-node_modules/@modelcontextprotocol/server-memory/dist/index.js}"],
            },
            "steps": [
                {
                    "id": "create",
                    "tool": "create_entities",
                    "input": {
                        "entities": [
                            {"name": "Lovelace", "entityType": "person", "observations": ["wrote notes"]}
                        ]
                    },
                    "expect": {"output_contains": "Lovelace", "latency_under": 10000},
                },
                {
                    "id": "find",
                    "tool": "search_nodes",
                    "input": {"query": "Lovelace"},
                    "expect": {"output_contains": "wrote notes", "tool_called": "search_nodes"},
                },
            ],
        },
    )
    write_case(
        folder,
        "chained",
        {
            "name": "echo_chain",
            "server": {"command": "node", "args": [everything_script(), "stdio"]},
            "steps": [
                {"id": "first", "tool": "echo", "input": {"message": "ping"}},
                {
                    "id": "second",
                    "tool": "echo",
                    "input": {"message": "{{steps.first.output}}"},
                    "expect": {"output_equals": "Echo: Echo: ping"},
                },
            ],
        },
    )
    return folder


def test_a_runner_folder_runs_as_it_is_with_no_config(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = runner_folder(project)
    memory_file = project / "graph.jsonl"
    monkeypatch.setenv("MEMORY_FILE_PATH", str(memory_file))  # reaches the server: the whole environment
    outcome = run_main(
        capsys,
        "contract",
        "--fixtures",
        "evals",
        "--db-path",
        "runs.db",
        "--timeout",
        "20000",
        "--format",
        "json",
    )
    assert outcome.code == 0, outcome.out + outcome.err
    # the runner's --timeout is milliseconds: a bare number still is for one release, and says so
    assert "deprecated: `contract --timeout 20000` is read as 20000ms" in outcome.err
    run = json.loads(outcome.out)["run"]
    assert {case["name"]: (case["mode"], case["status"]) for case in run["cases"]} == {
        "echo_chain": ("live", "passed"),
        "knowledge_graph": ("live", "passed"),
        "search_and_summarize": ("simulation", "passed"),
    }
    chained = next(case for case in run["cases"] if case["name"] == "echo_chain")
    assert chained["steps"][1]["input"] == {"message": "Echo: ping"}
    assert "Lovelace" in memory_file.read_text("utf-8")
    assert (project / "runs.db").exists() and not (project / ".mcp-evals").exists()
    assert outcome.err.count("mcp-eval-runner compatibility:") == 1
    assert outcome.err.count("kept stricter than mcp-eval-runner: a tool result with isError fails") == 1
    assert folder.is_dir()

    history = run_main(capsys, "contract", "history", "--db-path", "runs.db")
    assert history.code == 0 and "3 passed, 0 failed, 0 skipped" in history.out


def test_the_default_folder_is_evals_as_there(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_case(
        project / "evals",
        "one",
        {
            "name": "one",
            "steps": [{"id": "a", "tool": "t", "expected_output": "ok", "expect": {"output_equals": "ok"}}],
        },
    )
    outcome = run_main(capsys, "contract", "--no-history")
    assert outcome.code == 0
    assert "PASS  one  (simulation, 1 step" in outcome.out
    assert "mcp-eval-runner compatibility:" in outcome.err
    (project / "evals" / "one.yaml").unlink()
    (project / "evals" / "catalog.lock.json").write_text('{"format": "mcp-evals.catalog/1"}')
    ours = run_main(capsys, "contract", "--no-history")  # a folder without cases is not its folder
    assert ours.code == 3 and ours.err.startswith("error: evals/contract: cases folder not found")


def runner_server(**extra: Any) -> dict[str, Any]:
    return {"command": PYTHON, "args": [str(CONTRACT_SERVER)], **extra}


def test_its_semantics_cwd_environment_and_going_on_after_a_failed_step(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = project / "cases"
    (project / "marker.txt").write_text("the current folder\n")
    monkeypatch.setenv("MCP_EVALS_TEST_SECRET", "from-the-caller")
    script = (
        "import os, sys; "
        "sys.exit(0 if os.path.exists('marker.txt') and os.environ.get('MCP_EVALS_TEST_SECRET') else 7)"
    )
    write_case(
        folder,
        "where",
        {
            "name": "where",
            "server": {"command": PYTHON, "args": ["-c", script]},
            "steps": [{"id": "x", "tool": "pid"}],
        },
    )
    write_case(
        folder,
        "goes_on",
        {
            "name": "goes_on",
            "server": runner_server(),
            "steps": [
                {
                    "id": "bad",
                    "tool": "weather",
                    "input": {"city": "Oslo"},
                    "expect": {"output_contains": "Lima"},
                },
                {
                    "id": "later",
                    "tool": "weather",
                    "input": {"city": "Rome"},
                    "expect": {"output_contains": "Rome"},
                },
                {"id": "tool_error", "tool": "fail"},
            ],
        },
    )
    outcome = run_main(capsys, "contract", "--fixtures", folder, "--no-history", "--format", "json")
    assert outcome.code == 1
    cases = {case["name"]: case for case in json.loads(outcome.out)["run"]["cases"]}
    # It started in the current folder with the caller's environment: had it not, it would exit 7.
    assert "exit code 0" in (cases["where"]["error"] or "")
    statuses = [step["status"] for step in cases["goes_on"]["steps"]]
    assert statuses == ["failed", "passed", "failed"]  # went on after the failed step
    tool_error = cases["goes_on"]["steps"][2]["assertions"]
    assert tool_error[0]["kind"] == "is_error" and tool_error[0]["status"] == "failed"  # ours: stricter

    # Our own semantics, asked for: the case's folder, PATH/HOME/locale only, stop at the first failure.
    ours = run_main(
        capsys, "contract", "--fixtures", folder, "--compat", "none", "--no-history", "--format", "json"
    )
    cases = {case["name"]: case for case in json.loads(ours.out)["run"]["cases"]}
    assert "exit code 7" in (cases["where"]["error"] or "")
    assert [step["status"] for step in cases["goes_on"]["steps"]] == ["failed", "not_run", "not_run"]
    assert "mcp-eval-runner compatibility" not in ours.err


def test_a_folder_with_our_own_keys_runs_with_our_semantics(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = project / "cases"
    write_case(
        folder,
        "ours",
        {
            "name": "ours",
            "simulate": True,
            "steps": [
                {"id": "a", "tool": "t", "expected_output": {"n": 1}, "expect": {"output_equals": {"n": 1}}}
            ],
        },
    )
    outcome = run_main(capsys, "contract", "--fixtures", folder, "--no-history")
    assert outcome.code == 0 and "mcp-eval-runner compatibility" not in outcome.err
    asked = run_main(capsys, "contract", "--fixtures", folder, "--no-history", "--compat", "mcp-eval-runner")
    assert asked.code == 0 and "mcp-eval-runner compatibility" in asked.err


def test_compatibility_is_without_a_config(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "mcp-evals.yaml").write_text(
        f"servers:\n  - name: c\n    command: {PYTHON}\n    args: [{CONTRACT_SERVER}]\n"
    )
    outcome = run_main(capsys, "contract", "--compat", "mcp-eval-runner", "--no-history")
    assert outcome.code == 3
    assert (
        "--compat mcp-eval-runner runs a folder of cases as mcp-eval-runner does, without a config"
        in outcome.err
    )


def test_an_unset_variable_without_a_default_is_one_message_before_anything_runs(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_NOT_SET", raising=False)
    folder = project / "cases"
    write_case(
        folder,
        "unset",
        {
            "name": "unset",
            "server": {"command": "node", "args": ["${MCP_EVALS_TEST_NOT_SET}"]},
            "steps": [{"id": "a", "tool": "t"}],
        },
    )
    outcome = run_main(capsys, "contract", "--fixtures", folder, "--no-history")
    assert outcome.code == 3
    assert outcome.err.startswith(
        "error: cases/unset.yaml:5 (server.args[0]): environment variable MCP_EVALS_TEST_NOT_SET is not set"
    )
    assert (
        "hint: export MCP_EVALS_TEST_NOT_SET=… before running, "
        "or remove ${MCP_EVALS_TEST_NOT_SET} from the case file" in outcome.err
    )


def test_a_config_without_servers_serves_cases_that_name_their_own(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "mcp-evals.yaml").write_text("servers: []\ncontract:\n  cases: cases\n")
    write_case(
        project / "cases",
        "own",
        {
            "name": "own",
            "server": runner_server(),
            "steps": [{"id": "w", "tool": "weather", "input": {"city": "Oslo"}}],
        },
    )
    outcome = run_main(capsys, "contract", "--no-history")
    assert outcome.code == 0 and "PASS  own  (live" in outcome.out
    write_case(project / "cases", "none", {"name": "none", "steps": [{"id": "a", "tool": "t"}]})
    refused = run_main(capsys, "contract", "--no-history")
    assert refused.code == 3
    assert "cases/none.yaml: the config lists no server; give this case a `server:` block" in refused.err
    catalog = run_main(capsys, "catalog")
    assert catalog.code == 3
    assert (
        "mcp-evals.yaml:1 (servers): the config lists no server, and this command reads the tools"
        in catalog.err
    )


def test_environment_isolation_is_kept_outside_compatibility(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCP_EVALS_TEST_SECRET", "must-not-reach")
    script = "import os, sys; sys.exit(3 if 'MCP_EVALS_TEST_SECRET' in os.environ else 4)"
    (project / "mcp-evals.yaml").write_text("servers: []\ncontract:\n  cases: cases\n")
    write_case(
        project / "cases",
        "c",
        {
            "name": "c",
            "server": {"command": PYTHON, "args": ["-c", script]},
            "steps": [{"id": "x", "tool": "pid"}],
        },
    )
    outcome = run_main(capsys, "contract", "--no-history", "--format", "json")
    assert "exit code 4" in json.loads(outcome.out)["run"]["cases"][0]["error"]
    assert os.environ["MCP_EVALS_TEST_SECRET"] == "must-not-reach"
