"""Both arms of a session start from the same state: each session in a sandbox of its own, the arms
alternating which goes first, the isolation stated in the report, writes to a shared store warned
about (docs/sessions.md#isolation).

The server is the npm reference server-memory, persisting its knowledge graph to MEMORY_FILE_PATH;
the model is the fake Anthropic API on loopback, scripted the same way for every session.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT, Cli, cli_environment
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from mcp_evals.config.isolation import SHARED_WRITE
from mcp_evals.session.records_file import SessionRecords, newest_records_file, read_records
from support.catalog_helpers import SERVERS, node_server

from .conftest import SALESFORCE, write_tasks

ADA = {"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}
REMEMBER = {
    "id": "remember",
    "prompt": "Remember that Ada wrote the first program.",
    "expected_tools": ["create_entities"],
    "script": [{"tool": "create_entities", "arguments": {"entities": [ADA]}}],
    "max_steps": 4,
}


def memory_tasks(folder: Path, memory_file: str, **extra: Any) -> Path:
    """A two-arm task set against server-memory keeping its graph in ``memory_file``."""
    document: dict[str, Any] = {
        "name": "memory",
        "server": {
            "command": str(node_server("mcp-server-memory")),
            "env": {"MEMORY_FILE_PATH": memory_file},
        },
        "system_prompt": "You keep a knowledge graph.",
        "arms": {"A": {"system_prompt_addition": "Be brief."}, "B": {}},
        "tasks": [REMEMBER],
        **extra,
    }
    path = folder / "tasks.yaml"
    path.write_text(json.dumps(document, indent=2))
    return path


def records_of(folder: Path) -> SessionRecords:
    return read_records(newest_records_file(folder))


def first_create(records: SessionRecords) -> list[tuple[int, str, str]]:
    """(run, arm, the first create_entities result's text) for every session, in the order they ran."""
    return [
        (
            record.key.run,
            record.key.arm,
            next(c for c in record.calls if c.tool == "create_entities").result.text,
        )
        for record in records.sessions
    ]


def script_ada(fake: FakeAnthropic) -> None:
    fake.sessions[REMEMBER["prompt"]] = [Call("create_entities", {"entities": [ADA]}), Text("Remembered.")]


def test_both_arms_first_create_entities_results_are_identical_in_either_order(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_ada(anthropic_fake)
    tasks = memory_tasks(tmp_path, "${MCP_EVALS_SANDBOX}/memory.jsonl")
    result = cli(
        "session", "--tasks", tasks, "--runs", "2", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    records = records_of(tmp_path / "out")
    seen = first_create(records)
    assert [(run, arm) for run, arm, _ in seen] == [(1, "A"), (1, "B"), (2, "B"), (2, "A")]  # both orders
    texts = {text for _, _, text in seen}
    assert len(texts) == 1 and '"name": "Ada"' in texts.pop()  # created afresh in every session
    assert all(
        record.isolation is not None and record.isolation.kind == "sandbox" for record in records.sessions
    )
    assert "isolation: sandbox — a fresh folder for each run" in result.err  # said when the run starts
    assert "isolation: sandbox — a fresh folder for each run" in result.out  # and in the report
    assert "### Isolation" not in result.out
    assert not (tmp_path / "memory.jsonl").exists()


def test_a_shared_store_makes_the_arms_differ_and_the_report_says_so(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_ada(anthropic_fake)
    shared = tmp_path / "memory.jsonl"
    tasks = memory_tasks(tmp_path, str(shared))
    result = cli("session", "--tasks", tasks, "--budget-usd", "5", "--results", tmp_path / "out")
    assert result.code == 0, result.err
    records = records_of(tmp_path / "out")
    (_, _, first), (_, _, second) = first_create(records)
    assert '"name": "Ada"' in first and "Ada" not in second  # arm B found Ada made already: nothing new
    for record in records.sessions:
        assert record.isolation is not None and record.isolation.shared_writes == [str(shared)]
    assert "isolation: fresh process — a new server process for each run" in result.out
    assert "### Isolation" in result.out
    assert "- ⚠️ remember · arm A · faults 0% · run 1: wrote to a shared store that later runs" in result.out
    assert f"  warning: {SHARED_WRITE}: {shared}" in result.err


def test_dry_runs_in_sandboxes_and_both_arms_see_the_same_result(
    tmp_path: Path, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    tasks = memory_tasks(tmp_path, "${MCP_EVALS_SANDBOX}/memory.jsonl", arms={"A": {}, "B": {}})
    result = cli("session", "--tasks", tasks, "--dry")
    assert result.code == 0, result.err
    assert "isolation: sandbox — a fresh folder for each run" in result.out
    lines = [line for line in result.out.splitlines() if line.startswith("  remember · arm")]
    assert len(lines) == 2
    assert lines[0].removeprefix("  remember · arm A") == lines[1].removeprefix("  remember · arm B")
    assert "tool results create_entities 1 tokens" not in result.out
    assert "warning" not in result.err


def test_dry_on_a_shared_store_warns_for_each_session_that_wrote(
    tmp_path: Path, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "memory.jsonl"
    tasks = memory_tasks(tmp_path, str(shared), arms={"A": {}, "B": {}})
    result = cli("session", "--tasks", tasks, "--dry")
    assert result.code == 0, result.err
    assert "isolation: fresh process" in result.out
    assert f"remember · arm B: warning: {SHARED_WRITE}: {shared}" in result.err
    a, b = [line for line in result.out.splitlines() if line.startswith("  remember · arm")]
    assert "tool results create_entities 34 tokens" in a  # Ada, created
    assert "tool results create_entities 1 tokens" in b  # the issue itself: nothing left to create


def test_a_shared_http_server_called_with_a_write_tool_is_warned_about(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    writes = {**SALESFORCE, "script": [{"tool": "retry_sync_job", "arguments": {"job_id": "SYNC-7"}}]}
    anthropic_fake.sessions[SALESFORCE["prompt"]] = [
        Call("get_sync_job", {"job_id": "SYNC-7"}),
        Call("retry_sync_job", {"job_id": "SYNC-7"}),
        Text("Reconnect it."),
    ]
    tasks = write_tasks(tmp_path, ops_url, [writes])
    dry = cli("session", "--tasks", tasks, "--dry", "--arm", "A")
    assert dry.code == 0, dry.err
    assert "isolation: shared — results may depend on order" in dry.out
    warning = "warning: the scripts call tools not marked read-only (retry_sync_job) on a server every"
    assert warning in dry.err
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    [record] = records_of(tmp_path / "out").sessions
    assert record.isolation is not None and record.isolation.kind == "shared"
    assert record.isolation.unmarked_calls == ["retry_sync_job"]  # get_sync_job is marked read-only
    assert "isolation: shared — results may depend on order" in result.out
    assert "called tools not marked read-only on a shared server" in result.out


def test_setup_that_fails_is_a_dropout_and_a_failed_teardown_makes_the_run_preliminary(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_ada(anthropic_fake)
    log = tmp_path / "hooks.log"
    tasks = memory_tasks(
        tmp_path,
        "${MCP_EVALS_SANDBOX}/memory.jsonl",
        setup=[f"test -e {tmp_path / 'ready'} || exit 5"],
        teardown=[f'echo "teardown $MCP_EVALS_SANDBOX" >> {log}; exit 7'],
    )
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 2  # PRELIMINARY
    [record] = records_of(tmp_path / "out").sessions
    assert record.status == "dropout" and record.error_kind == "setup"
    assert record.error_message is not None and record.error_message.endswith("exit code 5")
    assert record.calls == []  # the model was never asked
    assert log.read_text().startswith("teardown ")  # the teardown ran all the same

    (tmp_path / "ready").touch()
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 2
    assert "The teardown failed in 1 session" in result.out
    assert "teardown failed: echo" in result.out and "exit code 7" in result.out
    assert "warning: teardown failed:" in result.err


def test_the_recipe_of_docs_sessions_md_gives_both_arms_the_same_start(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    document = (REPO_ROOT / "docs" / "sessions.md").read_text("utf-8")
    block = document.split("## Isolation", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    task_set = yaml.safe_load(block)
    assert task_set["server"]["env"] == {"MEMORY_FILE_PATH": "${MCP_EVALS_SANDBOX}/memory.jsonl"}
    task_set["server"].update(command=str(node_server("mcp-server-memory")), args=[])  # no network
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(yaml.safe_dump(task_set))
    [task] = task_set["tasks"]
    anthropic_fake.sessions[task["prompt"]] = [
        Call("create_entities", task["script"][0]["arguments"]),
        Text("Remembered."),
    ]
    result = cli(
        "session", "--tasks", tasks, "--runs", "2", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    seen = first_create(records_of(tmp_path / "out"))
    assert [(run, arm) for run, arm, _ in seen] == [(1, "A"), (1, "B"), (2, "B"), (2, "A")]
    assert len({text for _, _, text in seen}) == 1
    dry = cli("session", "--tasks", tasks, "--dry")
    a, b = [line for line in dry.out.splitlines() if line.startswith("  remember · arm")]
    assert "tool results create_entities 34 tokens" in a and "tool results create_entities 34 tokens" in b


def test_ctrl_c_during_a_session_still_runs_its_teardown(
    tmp_path: Path, anthropic_fake: FakeAnthropic
) -> None:
    log = tmp_path / "hooks.log"
    hang = {
        "id": "hang",
        "prompt": "Wait for the slow job.",
        "script": [{"tool": "slow", "arguments": {"ms": 60000}}],
        "max_steps": 3,
    }
    anthropic_fake.sessions[hang["prompt"]] = [Call("slow", {"ms": 60000}), Text("Done.")]
    tasks = tmp_path / "tasks.yaml"
    tasks.write_text(
        json.dumps(
            {
                "server": {"command": sys.executable, "args": [str(SERVERS / "contract_server.py")]},
                "system_prompt": "You wait.",
                "timeouts": {"step_seconds": 120, "session_seconds": 300},
                "setup": [f'echo "setup $MCP_EVALS_SANDBOX" >> {log}'],
                "teardown": [f'echo "teardown $MCP_EVALS_SANDBOX" >> {log}'],
                "tasks": [hang],
            }
        )
    )
    keys = {"ANTHROPIC_API_KEY": anthropic_fake.key, "ANTHROPIC_BASE_URL": anthropic_fake.base_url}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcp_evals",
            "session",
            "--tasks",
            str(tasks),
            "--arm",
            "A",
            "--budget-usd",
            "5",
            "--results",
            str(tmp_path / "out"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=cli_environment(keys),
    )
    try:
        started = time.monotonic()
        while not log.exists() and time.monotonic() - started < 60:
            time.sleep(0.1)
        while not any(request.json.get("messages") for request in anthropic_fake.model_requests()):
            assert time.monotonic() - started < 60
            time.sleep(0.1)
        time.sleep(1.0)  # the model asked for the slow call: it is in flight
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
    lines = log.read_text().splitlines()
    assert [line.split()[0] for line in lines] == ["setup", "teardown"]
    assert not Path(lines[0].split(maxsplit=1)[1]).exists()
