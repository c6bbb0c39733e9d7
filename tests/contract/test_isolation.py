"""Every contract case starts from the same server state: a sandbox per case, seeded state, setup and
teardown that always run, and a write to a shared store reported (docs/contract.md#isolation).

The server is the npm reference server-memory, persisting its knowledge graph to MEMORY_FILE_PATH:
the server the newcomer of issue 22 tried.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT, cli_environment
from mcp_evals.config.isolation import SHARED_WRITE
from support.catalog_helpers import node_server
from support.validate_helpers import run_main

from .conftest import Project, case_of, contract_server
from .test_watch import Output

SANDBOXED = "${MCP_EVALS_SANDBOX}/memory.jsonl"
ADA = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}


def memory(path: str, **extra: Any) -> dict[str, Any]:
    """server-memory keeping its graph in ``path``."""
    return {"command": str(node_server("mcp-server-memory")), "env": {"MEMORY_FILE_PATH": path}, **extra}


def newcomer_cases(project: Project) -> None:
    """The three cases of the issue: create an entity, read the graph, chain the created name."""
    project.case(
        "create an entity",
        [
            {
                "id": "create",
                "tool": "create_entities",
                "input": {"entities": [ADA]},
                "expect": {"output_contains": "Ada"},
            }
        ],
    )
    project.case("read the graph", [{"id": "read", "tool": "read_graph", "expect": {"is_error": False}}])
    project.case(
        "chain the created name",
        [
            {
                "id": "create",
                "tool": "create_entities",
                "input": {
                    "entities": [{"name": "Grace", "entityType": "person", "observations": ["found a moth"]}]
                },
            },
            {
                "id": "open",
                "tool": "open_nodes",
                "input": {"names": ["{{steps.create.json.entities[0].name}}"]},
                "expect": {"output_contains": "found a moth"},
            },
        ],
    )


@pytest.fixture
def sandboxes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The folder sandboxes are made in (tempfile's), to see that none is left behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    yield folder


def contract(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Any:
    return run_main(capsys, "contract", *map(str, args))


def test_server_memory_in_its_sandbox_passes_the_same_command_three_times(
    project: Project, sandboxes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config([{"name": "memory", **memory(SANDBOXED)}])
    newcomer_cases(project)
    for _ in range(3):
        outcome = contract(capsys, "--config", project.config_path, "--no-history", "--format", "json")
        assert outcome.code == 0, outcome.out
        run = json.loads(outcome.out)["run"]
        assert [case["status"] for case in run["cases"]] == ["passed"] * 3
        for case in run["cases"]:
            assert case["isolation"]["kind"] == "sandbox"
            assert case["isolation"]["shared_writes"] == [] and case["isolation"]["sandbox"] is None
    assert list(sandboxes.iterdir()) == []  # every sandbox removed


def test_without_a_sandbox_the_second_run_fails_and_the_shared_write_is_reported(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "data" / "memory.jsonl"
    shared.parent.mkdir()
    project.config([{"name": "memory", **memory(str(shared))}])
    newcomer_cases(project)
    first = contract(capsys, "--config", project.config_path, "--no-history")
    assert first.code == 0, first.out
    warning = f"warning: {SHARED_WRITE}: {shared}"
    assert "PASS  create an entity" in first.out and warning in first.out
    second = contract(capsys, "--config", project.config_path, "--no-history", "--format", "json")
    assert second.code == 1  # the issue: the entity exists already
    run = json.loads(second.out)["run"]
    create = next(case for case in run["cases"] if case["name"] == "create an entity")
    assert create["status"] == "failed" and create["isolation"]["kind"] == "fresh process"
    assert create["isolation"]["shared_writes"] == [str(shared)]
    read = next(case for case in run["cases"] if case["name"] == "read the graph")
    assert read["isolation"]["shared_writes"] == []  # reading changes nothing


def test_state_is_copied_into_every_sandbox_and_the_seed_never_changes(
    project: Project, tmp_path: Path, sandboxes: Path
) -> None:
    seed = project.root / "seed"
    seed.mkdir()
    graph = json.dumps({"type": "entity", **ADA}) + "\n"
    (seed / "graph.jsonl").write_text(graph)
    project.config(
        [{"name": "memory", **memory(SANDBOXED)}], state=[{"from": "seed/graph.jsonl", "to": "memory.jsonl"}]
    )
    project.case(
        "forget Ada",
        [
            {
                "id": "open",
                "tool": "open_nodes",
                "input": {"names": ["Ada"]},
                "expect": {"output_contains": "first program"},
            },
            {"id": "forget", "tool": "delete_entities", "input": {"entityNames": ["Ada"]}},
            {"id": "gone", "tool": "read_graph", "expect": {"output_not_contains": "Ada"}},
        ],
    )
    # a case's own `state:` replaces the config's: this one starts from an empty graph
    (seed / "empty.jsonl").write_text("")
    project.case(
        "own state",
        [{"id": "read", "tool": "read_graph", "expect": {"output_not_contains": "Ada"}}],
        state=[{"from": "../../seed/empty.jsonl", "to": "memory.jsonl"}],
    )
    for _ in range(2):
        run = project.run()
        assert [case.status for case in run.cases] == ["passed", "passed"], [c.steps for c in run.cases]
    assert (seed / "graph.jsonl").read_text() == graph
    assert list(sandboxes.iterdir()) == []


def test_a_state_path_that_does_not_exist_is_bad_input(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config([{"name": "memory", **memory(SANDBOXED)}])
    project.case("c", [{"id": "read", "tool": "read_graph"}], state=["missing.jsonl"])
    outcome = contract(capsys, "--config", project.config_path, "--no-history")
    assert outcome.code == 3
    assert "evals/contract/c.yaml:3 (state[0]): 'missing.jsonl' does not exist" in outcome.err


def test_keep_sandbox_keeps_it_and_says_where(
    project: Project, sandboxes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config([{"name": "memory", **memory(SANDBOXED)}])
    newcomer_cases(project)
    outcome = contract(
        capsys,
        "--config",
        project.config_path,
        "--no-history",
        "--keep-sandbox",
        "--case",
        "create an entity",
    )
    assert outcome.code == 0, outcome.out
    [kept] = list(sandboxes.iterdir())
    assert f"      sandbox kept: {kept}" in outcome.out
    assert "Ada" in (kept / "memory.jsonl").read_text()


def log_hooks(log: Path, *, teardown_exit: int = 0) -> dict[str, Any]:
    """Setup and teardown commands that append to ``log`` (with the sandbox they ran for)."""
    teardown = f'echo "teardown $MCP_EVALS_SANDBOX" >> "$LOG"; echo cleaning up; exit {teardown_exit}'
    return {
        "setup": [{"run": 'echo "setup $MCP_EVALS_SANDBOX" >> "$LOG"', "env": {"LOG": str(log)}}],
        "teardown": [{"run": teardown, "env": {"LOG": str(log)}}],
    }


def test_teardown_runs_after_a_failing_step_and_a_failing_teardown_fails_the_case(
    project: Project, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "hooks.log"
    project.config([{"name": "contract", **contract_server()}])
    project.case(
        "failing step",
        [{"id": "broken", "tool": "fail"}, {"id": "later", "tool": "pid"}],
        **log_hooks(log),
    )
    run = project.run()
    case = case_of(run, "failing step")
    assert case.status == "failed" and case.steps[1].status == "not_run"
    assert case.isolation is not None and case.isolation.kind == "setup/teardown"
    setup_line, teardown_line = log.read_text().splitlines()
    assert setup_line.startswith("setup ") and teardown_line == "teardown " + setup_line.removeprefix(
        "setup "
    )

    log.unlink()
    project.case(
        "passes", [{"id": "pid", "tool": "pid"}], file="failing-step.yaml", **log_hooks(log, teardown_exit=4)
    )
    outcome = contract(capsys, "--config", project.config_path, "--no-history")
    assert outcome.code == 1
    assert "FAIL  passes" in outcome.out
    assert (
        'teardown failed: echo "teardown $MCP_EVALS_SANDBOX" >> "$LOG"; echo cleaning up; exit 4: exit code 4'
        in outcome.out
    )
    assert log.read_text().count("teardown") == 1


def test_a_failing_setup_runs_no_step_and_still_tears_down(project: Project, tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    project.config([{"name": "contract", **contract_server()}])
    hooks = log_hooks(log)
    hooks["setup"] = ["echo 'seeding failed' >&2; exit 2"]  # a plain string is a shell command
    project.case("no setup", [{"id": "pid", "tool": "pid"}], **hooks)
    case = case_of(project.run(), "no setup")
    assert case.status == "failed"
    assert case.error == "setup failed: echo 'seeding failed' >&2; exit 2: exit code 2\nseeding failed"
    assert [step.status for step in case.steps] == ["not_run"]
    assert log.read_text().startswith("teardown ")


def test_a_teardown_also_runs_after_a_server_that_could_not_start_and_after_a_timeout(
    project: Project, tmp_path: Path
) -> None:
    log = tmp_path / "hooks.log"
    project.config([{"name": "contract", **contract_server()}])
    project.case(
        "cannot start",
        [{"id": "x", "tool": "pid"}],
        server={"command": "mcp-evals-no-such-binary"},
        **log_hooks(log),
    )
    project.case("slow", [{"id": "wait", "tool": "slow", "input": {"ms": 5000}}], **log_hooks(log))
    run = project.run(timeout_ms=500)
    assert "command not found" in (case_of(run, "cannot start").error or "")
    assert "no answer to tools/call 'slow'" in (case_of(run, "slow").steps[0].error or "")
    assert [line.split()[0] for line in log.read_text().splitlines()] == ["setup", "teardown"] * 2


def test_tool_call_setup_and_teardown_reset_a_shared_store(project: Project, tmp_path: Path) -> None:
    """Where the store is not ours to sandbox (a fixed file here, a service over HTTP in life),
    setup and teardown tool calls are the isolation."""
    shared = tmp_path / "memory.jsonl"
    project.config(
        [{"name": "memory", **memory(str(shared))}],
        setup=[{"tool": "create_entities", "arguments": {"entities": [ADA]}}],
        teardown=[{"tool": "delete_entities", "arguments": {"entityNames": ["Ada", "Grace"]}}],
    )
    project.case(
        "Ada is there",
        [
            {
                "id": "open",
                "tool": "open_nodes",
                "input": {"names": ["Ada"]},
                "expect": {"output_contains": "first program"},
            }
        ],
    )
    newcomer_cases(project)
    for _ in range(2):
        run = project.run()
        assert {case.name: case.status for case in run.cases} == {
            "Ada is there": "passed",
            "read the graph": "passed",
            "chain the created name": "passed",
            # the setup made Ada already: creating her again creates nothing, every time alike
            "create an entity": "failed",
        }
        assert {case.isolation.kind for case in run.cases if case.isolation} == {"setup/teardown"}
        assert all(case.isolation is not None and not case.isolation.warnings for case in run.cases)
    assert "Ada" not in shared.read_text()  # the last teardown left the store as it found it


@pytest.mark.parametrize("stop", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_sigterm_during_a_step_still_runs_the_teardown(
    project: Project, tmp_path: Path, stop: str
) -> None:
    if stop == "SIGTERM":  # SIGTERM is handled as Ctrl-C by cli/stop.py (issue 26)
        pytest.importorskip("mcp_evals.cli.stop", reason="SIGTERM handling (cli/stop.py) is not here yet")
    log = tmp_path / "hooks.log"
    project.config([{"name": "contract", **contract_server()}])
    project.case("hangs", [{"id": "wait", "tool": "slow", "input": {"ms": 60000}}], **log_hooks(log))
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_evals", "contract", "--config", str(project.config_path), "--no-history"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=cli_environment(),
    )
    try:
        output = Output(process)
        output.wait_for("mcp-evals contract: 1 case")
        started = time.monotonic()
        while not log.exists() and time.monotonic() - started < 60:
            time.sleep(0.1)
        time.sleep(1.0)  # the server is up and the slow call is in flight
        process.send_signal(getattr(signal, stop))
        assert process.wait(timeout=30) == 128 + getattr(signal, stop)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    lines = log.read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["setup", "teardown"]
    sandbox = Path(lines[0].split(maxsplit=1)[1])
    assert not sandbox.exists()  # removed on the way out


def test_server_filesystem_rooted_in_the_sandbox_starts_every_case_from_the_seeded_folder(
    project: Project, sandboxes: Path
) -> None:
    docs = project.root / "docs"
    docs.mkdir()
    (docs / "readme.md").write_text("# seeded\n")
    filesystem = {"command": str(node_server("mcp-server-filesystem")), "args": ["${MCP_EVALS_SANDBOX}"]}
    project.config([{"name": "files", **filesystem}], state=["docs"])
    project.case(
        "write a note",
        [
            {"id": "write", "tool": "write_file", "input": {"path": "notes.txt", "content": "hello"}},
            {
                "id": "list",
                "tool": "list_directory",
                "input": {"path": "."},
                "expect": {"output_contains": ["notes.txt", "docs"]},
            },
        ],
    )
    project.case(
        "no note yet",
        [
            {
                "id": "list",
                "tool": "list_directory",
                "input": {"path": "."},
                "expect": {"output_not_contains": "notes.txt"},
            },
            {
                "id": "read",
                "tool": "read_text_file",
                "input": {"path": "docs/readme.md"},
                "expect": {"output_contains": "# seeded"},
            },
        ],
    )
    for _ in range(2):
        run = project.run()
        assert [case.status for case in run.cases] == ["passed", "passed"], [c.steps for c in run.cases]
        assert all(case.isolation is not None and case.isolation.kind == "sandbox" for case in run.cases)
    assert sorted(path.name for path in docs.iterdir()) == ["readme.md"] and list(sandboxes.iterdir()) == []


def recipe(document: str) -> dict[str, Any]:
    """The first YAML block of a document's `## Isolation` section."""
    section = document.split("## Isolation", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    loaded = yaml.safe_load(block)
    assert isinstance(loaded, dict)
    return loaded


def test_the_recipe_of_docs_contract_md_passes_three_times_in_a_row(
    project: Project, sandboxes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = recipe((REPO_ROOT / "docs" / "contract.md").read_text("utf-8"))
    [server] = config["servers"]
    assert server["env"] == {"MEMORY_FILE_PATH": SANDBOXED}
    server.update(command=str(node_server("mcp-server-memory")), args=[])  # npx would fetch it: no network
    seed = project.root / config["state"][0]["from"]
    seed.parent.mkdir(parents=True)
    seed.write_text(
        json.dumps({"type": "entity", "name": "Lumen", "entityType": "company", "observations": []}) + "\n"
    )
    project.config_path.write_text(yaml.safe_dump(config))
    newcomer_cases(project)
    project.case(
        "the seed is there",
        [
            {
                "id": "open",
                "tool": "open_nodes",
                "input": {"names": ["Lumen"]},
                "expect": {"output_contains": "company"},
            }
        ],
    )
    for _ in range(3):
        outcome = contract(capsys, "--config", project.config_path, "--no-history")
        assert outcome.code == 0, outcome.out
        assert "4 passed, 0 failed of 4 cases" in outcome.out and "warning" not in outcome.out


def test_a_teardown_that_hangs_is_stopped_at_its_timeout_and_reported(project: Project) -> None:
    project.config([{"name": "contract", **contract_server()}])
    project.case(
        "hangs after", [{"id": "pid", "tool": "pid"}], teardown=[{"run": ["sleep", "30"], "timeout": 0.5}]
    )
    started = time.monotonic()
    case = case_of(project.run(), "hangs after")
    assert time.monotonic() - started < 20
    assert case.status == "failed" and case.steps[0].status == "passed"
    assert case.isolation is not None and case.isolation.teardown_errors == [
        "sleep 30: no end within 0.5 s (stopped)"
    ]


def test_a_setup_action_that_is_both_a_command_and_a_tool_call_is_bad_input(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config(
        [{"name": "contract", **contract_server()}], teardown=[{"run": "true", "arguments": {"a": 1}}]
    )
    project.case("c", [{"id": "pid", "tool": "pid"}], setup=[{"run": "true", "tool": "pid"}])
    outcome = contract(capsys, "--config", project.config_path, "--no-history")
    assert outcome.code == 3
    assert "`arguments` go with `tool`, not with `run`" in outcome.err and "mcp-evals.yaml:" in outcome.err
    project.config([{"name": "contract", **contract_server()}])
    outcome = contract(capsys, "--config", project.config_path, "--no-history")
    assert outcome.code == 3
    assert (
        "c.yaml:" in outcome.err
        and "give exactly one of `run` (a command) or `tool` (a tool call)" in outcome.err
    )
