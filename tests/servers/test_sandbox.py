"""The sandbox of one run (servers/sandbox.py): the server config pointed at it, the isolation rule,
and a throwaway sandbox for a server started only to list its tools."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from mcp_evals.config.isolation import IsolationReport
from mcp_evals.config.model import ServerConfig
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.servers.sandbox import Isolation, PlacedHook, apply_sandbox, isolation_kind, refers_to_sandbox
from support.catalog_helpers import node_server, write_config


def test_every_place_of_a_server_config_names_the_sandbox() -> None:
    sandbox = Path("/tmp/mcp-evals-sandbox-x")
    stdio = ServerConfig(
        name="s",
        command="server",
        args=["--db=${MCP_EVALS_SANDBOX}/app.db", "$${MCP_EVALS_SANDBOX}", "${MCP_EVALS_SANDBOX:-unused}"],
        env={"DATA": "${MCP_EVALS_SANDBOX}", "TOKEN": "${TOKEN}"},
        cwd="${MCP_EVALS_SANDBOX}/work",
    )
    applied = apply_sandbox(stdio, sandbox)
    assert applied.args == [f"--db={sandbox}/app.db", "$${MCP_EVALS_SANDBOX}", str(sandbox)]
    assert applied.env == {"DATA": str(sandbox), "TOKEN": "${TOKEN}"}  # other variables expand later
    assert applied.cwd == f"{sandbox}/work"
    assert stdio.cwd == "${MCP_EVALS_SANDBOX}/work"  # the config itself is never changed
    http = ServerConfig(
        name="h",
        url="http://127.0.0.1:9/mcp/${MCP_EVALS_SANDBOX}",
        headers={"X-Tenant": "${MCP_EVALS_SANDBOX}"},
    )
    assert apply_sandbox(http, sandbox).url == f"http://127.0.0.1:9/mcp/{sandbox}"
    assert apply_sandbox(http, sandbox).headers == {"X-Tenant": str(sandbox)}
    assert refers_to_sandbox(stdio) and refers_to_sandbox(http)
    assert not refers_to_sandbox(ServerConfig(name="n", command="x", args=["$${MCP_EVALS_SANDBOX}"]))


def test_the_isolation_of_a_run_follows_what_it_declares(tmp_path: Path) -> None:
    from mcp_evals.config.isolation import Hook

    hooks = Isolation(setup=(PlacedHook(Hook(run="true"), tmp_path),))
    sandboxed = ServerConfig(name="s", command="x", env={"F": "${MCP_EVALS_SANDBOX}/f"})
    plain = ServerConfig(name="p", command="x")
    http = ServerConfig(name="h", url="http://127.0.0.1:9/mcp")
    assert isolation_kind(sandboxed, Isolation()) == "sandbox"
    assert isolation_kind(sandboxed, hooks) == "sandbox + setup/teardown"
    assert isolation_kind(plain, Isolation()) == "fresh process"
    assert isolation_kind(http, hooks) == "setup/teardown"
    assert isolation_kind(http, Isolation()) == "shared"
    report = IsolationReport(kind="shared", teardown_errors=["reset: exit code 1"], unmarked_calls=["wipe"])
    assert report.failed and report.warnings == [
        "teardown failed: reset: exit code 1",
        "called tools not marked read-only on a shared server (later runs may see what they changed): wipe",
    ]


def test_a_server_listed_for_its_catalog_gets_a_throwaway_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    config = write_config(
        tmp_path,
        [
            {
                "name": "files",
                "command": str(node_server("mcp-server-filesystem")),
                "args": ["${MCP_EVALS_SANDBOX}"],
            }
        ],
    )
    catalog = extract_catalog(config)  # `${MCP_EVALS_SANDBOX}` is set: no "variable is not set"
    assert "write_file" in {tool.name for tool in catalog.tools}
    assert list(folder.iterdir()) == []


def test_a_command_gets_the_sandbox_its_env_and_nothing_else_of_the_callers_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio

    from mcp_evals.config.isolation import Hook
    from mcp_evals.servers.sandbox import Sandbox, run_command

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    monkeypatch.setenv("SEED_NAME", "Ada")
    sandbox = Sandbox.create()
    (sandbox.path / "work").mkdir()
    script = 'pwd > out.txt; echo "$MCP_EVALS_SANDBOX|$NAME|${ANTHROPIC_API_KEY:-none}|$1" >> out.txt'
    hook = Hook(
        run=["sh", "-c", script, "sh", "${MCP_EVALS_SANDBOX}/arg"],
        env={"NAME": "${SEED_NAME}"},
        cwd="${MCP_EVALS_SANDBOX}/work",
    )
    try:
        assert anyio.run(lambda: run_command(PlacedHook(hook, tmp_path), sandbox.path, shielded=True)) is None
        where, seen = (sandbox.path / "work" / "out.txt").read_text().splitlines()
        assert where == str(sandbox.path / "work")
        assert seen == f"{sandbox.path}|Ada|none|{sandbox.path}/arg"
        relative = Hook(run="pwd > here.txt", cwd="sub")
        (tmp_path / "sub").mkdir()
        assert (
            anyio.run(lambda: run_command(PlacedHook(relative, tmp_path), sandbox.path, shielded=False))
            is None
        )
        assert (tmp_path / "sub" / "here.txt").read_text().strip() == str(
            tmp_path / "sub"
        )  # the file's folder
    finally:
        sandbox.remove()
