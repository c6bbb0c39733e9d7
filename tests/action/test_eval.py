"""The Action's eval mode end to end: entrypoint.sh → `mcp-evals run` → `mcp-evals report` → summary,
outputs and PR comment, against fake Anthropic and GitHub APIs on 127.0.0.1; and the proof that the
API key reaches the eval process and nothing else (not the build, not the MCP server, not a file)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from fakes import github_events as events

# the runner's fake Anthropic API (tests/ is on sys.path: pytest imports tests/fakes as `fakes`)
from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_github import FakeGitHub
from fakes.fake_http import after
from mcp_evals.config.load import load_config
from mcp_evals.servers.client import server_environment

from .conftest import REPO_ROOT, VENV_BIN, ActionStep, copy_example

KEY = "sk-ant-api03-KEY-SCOPING-PROOF-7c1e9a"
EVERYTHING = (
    REPO_ROOT / "tests/reference-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
MCP_EVALS = [sys.executable, "-m", "mcp_evals"]
needs_everything = pytest.mark.skipif(
    not EVERYTHING.exists() or shutil.which("node") is None,
    reason="needs node and tests/reference-servers (npm ci, run by scripts/bootstrap)",
)

FIXTURES = """\
fixtures:
  - id: echo-hello
    query: Please run echo on the words "hello there".
    expected_tool: echo
  - id: add-numbers
    query: What is 2 plus 40? Use get-sum for it.
    expected_tool: get-sum
  - id: show-environment
    query: Which variables does the server see? Call get-env.
    expected_tool: get-env
  - id: tiny-image
    query: Show me the tiny picture from get-tiny-image.
    expected_tool: get-tiny-image
"""


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic(key=KEY).start()
    try:
        yield fake
    finally:
        fake.stop()


def keys_seen(fake: FakeAnthropic) -> list[str]:
    return [request.headers.get("x-api-key", "") for request in fake.model_requests()]


def everything_project(workspace: Path, probe: Path) -> Path:
    """A repository whose MCP server is server-everything, started through `sh` so the exact
    environment the server process gets is written to ``probe`` first (exec keeps it)."""
    project = workspace / "server"
    (project / "fixtures").mkdir(parents=True)
    (project / "fixtures" / "basics.yaml").write_text(FIXTURES)
    config = {
        "servers": [
            {
                "name": "everything",
                "command": "sh",
                "args": ["-c", 'env > "$ENV_PROBE"; exec node "$EVERYTHING" stdio'],
                "env": {"ENV_PROBE": str(probe), "EVERYTHING": str(EVERYTHING)},
            }
        ],
        "fixtures": "fixtures/*.yaml",
        "gate": {"fail_on": []},
    }
    (project / "mcp-evals.yaml").write_text(json.dumps(config, indent=2))
    return project


def dispatch_env(
    step: ActionStep, github: FakeGitHub, inputs: dict[str, str], **extra: str
) -> dict[str, str]:
    step.github_url = github.url
    return step.environment(
        "workflow_dispatch",
        events.workflow_dispatch("rename-tools"),
        {"GITHUB-TOKEN": github.token, "PR-NUMBER": "12", **inputs},
        extra,
    )


def files_under(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file() and "node_modules" not in path.parts]


@needs_everything
def test_the_key_reaches_the_eval_and_nothing_else(
    step: ActionStep, fake_github: FakeGitHub, fake_anthropic: FakeAnthropic
) -> None:
    probe = step.root / "server-env.txt"
    project = everything_project(step.workspace, probe)
    env = dispatch_env(
        step,
        fake_github,
        {
            "WORKING-DIRECTORY": "server",
            "ANTHROPIC-API-KEY": KEY,
            "BUILD": "env > build-env.txt",
            "PROVIDER": "",
        },
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
    )
    result = step.run_entrypoint(env, timeout=180)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log

    # the eval process had the key: every model request carried it
    assert len(keys_seen(fake_anthropic)) == 4 and set(keys_seen(fake_anthropic)) == {KEY}
    # … the build did not
    build_env = (project / "build-env.txt").read_text()
    assert "GITHUB_WORKSPACE=" in build_env and KEY not in build_env and fake_github.token not in build_env
    # … nor the MCP server process the eval started
    server_env = dict(line.split("=", 1) for line in probe.read_text().splitlines() if "=" in line)
    assert KEY not in probe.read_text() and fake_github.token not in probe.read_text()
    assert "ANTHROPIC_API_KEY" not in server_env and "GITHUB_TOKEN" not in server_env
    assert not any(name.startswith("INPUT_") for name in server_env)
    # … nor any file, the summary, the outputs, the comment, or the log (the mask command aside)
    for path in [*files_under(step.workspace), step.summary, step.output]:
        assert KEY not in path.read_text(errors="replace"), path
    assert all(KEY not in body for body in fake_github.comment_bodies(12))
    assert [line for line in log.splitlines() if KEY in line] == [f"::add-mask::{KEY}"]
    assert not any(KEY.encode() in request.body for request in fake_anthropic.requests)

    # and the run itself went through: the report is the summary, the comment and the outputs
    outputs = step.outputs()
    assert outputs["decision"] == "deprioritize_refactor"
    # The workflow passed the key: that is the decision to pay. Without `budget-usd` the run is not capped.
    assert "budget: capped" not in step.summary_text()
    assert outputs["top1"] == "1.0000"
    assert outputs["preliminary"] == "false"
    assert outputs["exit-code"] == "0"
    summary = step.summary_text()
    assert "claude-opus-4-8" in summary and "100.0%" in summary
    [comment] = fake_github.comments[12]
    assert "deprioritize" in comment["body"] and outputs["comment-url"] == comment["html_url"]
    assert (project / "mcp-evals-out" / "results.ndjson").exists()


@needs_everything
@pytest.mark.parametrize("named_in_config", [False, True], ids=["scoped", "control-named-in-env"])
def test_get_env_shows_the_server_got_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named_in_config: bool
) -> None:
    """server-everything's `get-env` returns the server process's own environment. The server is
    started, through the public MCP client, with `server_environment` (what mcp-evals gives every
    stdio server it spawns) from a process that holds the key, the token and the inputs, as
    `mcp-evals run` does inside the Action. The control names the key in the server's `env:`: then
    get-env shows it, so the first case would fail if the scoping let the key through."""
    from mcp import Client, StdioServerParameters

    token = "ghs_token_that_must_not_leak"
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("INPUT_ANTHROPIC-API-KEY", KEY)
    server: dict[str, object] = {"name": "everything", "command": "node", "args": [str(EVERYTHING), "stdio"]}
    if named_in_config:
        server["env"] = {"ANTHROPIC_API_KEY": "${ANTHROPIC_API_KEY}"}
    config_path = tmp_path / "mcp-evals.yaml"
    config_path.write_text(json.dumps({"servers": [server]}))
    [spec] = load_config(config_path).servers
    assert spec.command is not None
    parameters = StdioServerParameters(
        command=spec.command, args=list(spec.args), env=server_environment(spec), cwd=tmp_path
    )

    async def get_env() -> str:
        async with Client(parameters) as client:
            result = await client.call_tool("get-env", {})
            return "".join(getattr(block, "text", "") for block in result.content)

    text = anyio.run(get_env)
    environment = json.loads(text)
    assert "PATH" in environment and token not in text
    assert not {"GITHUB_TOKEN", "INPUT_ANTHROPIC-API-KEY"} & set(environment)
    if named_in_config:
        assert environment["ANTHROPIC_API_KEY"] == KEY
    else:
        assert KEY not in text and "ANTHROPIC_API_KEY" not in environment


@needs_everything
def test_a_revoked_key_mid_run_is_preliminary_everywhere(
    step: ActionStep, fake_github: FakeGitHub, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.script(fake_anthropic.unauthorized(), when=after(2), times=None)  # revoked
    everything_project(step.workspace, step.root / "probe.txt")
    inputs = {
        "WORKING-DIRECTORY": "server",
        "ANTHROPIC-API-KEY": KEY,
        "CONCURRENCY": "1",
        "FAIL-ON": "remediate, gray_zone, deprioritize_refactor",  # never applies to a PRELIMINARY run
    }
    result = step.run_entrypoint(
        dispatch_env(step, fake_github, inputs, ANTHROPIC_BASE_URL=fake_anthropic.base_url)
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "fail-on" not in step.summary_text()
    outputs = step.outputs()
    assert outputs["preliminary"] == "true" and outputs["exit-code"] == "2"
    assert "PRELIMINARY" in step.summary_text().split("\n\n")[1]  # the report's first line
    assert "PRELIMINARY" in fake_github.comment_bodies(12)[0]


@needs_everything
def test_fail_on_turns_a_gate_decision_into_a_failed_step(
    step: ActionStep, fake_github: FakeGitHub, fake_anthropic: FakeAnthropic
) -> None:
    everything_project(step.workspace, step.root / "probe.txt")
    inputs = {
        "WORKING-DIRECTORY": "server",
        "ANTHROPIC-API-KEY": KEY,
        "FAIL-ON": "deprioritize_refactor",
        "BUDGET-USD": "$3",
    }
    result = step.run_entrypoint(
        dispatch_env(step, fake_github, inputs, ANTHROPIC_BASE_URL=fake_anthropic.base_url)
    )
    assert result.returncode == 1
    assert step.outputs()["decision"] == "deprioritize_refactor"
    assert "listed in the `fail-on` input" in step.summary_text()
    assert "budget: capped at \\$3" in step.summary_text()  # the cap input, stated in the report


def test_shards_run_apart_then_merge_and_report(step: ActionStep, fake_github: FakeGitHub) -> None:
    """The matrix jobs run `mcp-evals run --shard I/N`; the last job reports on all their results."""
    helpdesk = copy_example("helpdesk", step.workspace)
    for index in (1, 2):
        ran = subprocess.run(
            [
                *MCP_EVALS,
                "run",
                "--provider",
                "lexical",
                "--shard",
                f"{index}/2",
                "--results",
                f"shards/{index}.ndjson",
            ],
            cwd=helpdesk,
            env={**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"},
            capture_output=True,
            text=True,
            check=False,
        )
        assert ran.returncode == 0, ran.stderr
    inputs = {
        "WORKING-DIRECTORY": "examples/helpdesk",
        "MODE": "eval",
        "RESULTS": "shards/*.ndjson",
        "FAIL-ON": "remediate, gray_zone, deprioritize_refactor",  # the lexical baseline is advisory
    }
    result = step.run_entrypoint(dispatch_env(step, fake_github, inputs))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "merged 2 files" in result.stdout
    summary = step.summary_text()
    assert "56/56 answers reached" in summary and "lexical baseline" in summary
    assert step.outputs()["top1"] != "" and step.outputs()["decision"] == "not_gated"
    assert len(fake_github.comments[12]) == 1
    assert (helpdesk / "mcp-evals-out" / "results.ndjson").exists()  # the merged record, for an artifact
