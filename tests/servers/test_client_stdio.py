"""Reading a catalog from stdio servers: every page, a scoped environment, and one clear error per failure."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
import yaml

from mcp_evals import ServerError, extract_catalog
from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.config.model import ServerConfig
from mcp_evals.errors import ConfigError
from mcp_evals.servers.client import server_environment
from servers.paging_server import AWKWARD_NAMES
from support.catalog_helpers import PYTHON, SERVERS, independent_listing, python_server, write_config
from support.validate_helpers import run_main


def test_a_paginating_server_yields_every_tool(tmp_path: Path) -> None:
    config = write_config(
        tmp_path, [{"name": "paging", **python_server("paging_server.py", "--tools", "23")}]
    )
    catalog = extract_catalog(config)
    assert catalog.tool_names == [f"tool_{index:03d}" for index in range(23)]
    # The SDK's own client, following the same cursors, sees the same tools.
    reference = independent_listing(PYTHON, [str(SERVERS / "paging_server.py"), "--tools", "23"])
    assert catalog.servers[0].tools == reference["tools"]
    info = catalog.servers[0]
    assert (info.server_name, info.server_version, info.transport) == ("paging-test-server", "1.0.0", "stdio")
    assert info.protocol_version  # negotiated, e.g. 2026-07-28 for a 2.x server


def test_a_stdio_server_gets_only_path_home_locale_and_its_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-must-not-leak")
    monkeypatch.setenv("SOME_TOKEN", "also-secret")
    monkeypatch.setenv("USER_TOKEN_FOR_SERVER", "passed-on-purpose")
    monkeypatch.setenv("LANG", "C.UTF-8")
    server = python_server(
        "toy_server.py",
        "--describe-environment",
        env={"GREETING": "hello", "SERVER_TOKEN": "${USER_TOKEN_FOR_SERVER}", "PRICE": "$$5"},
    )
    catalog = extract_catalog(write_config(tmp_path, [{"name": "toy", **server}]))
    tool = catalog.get("started_with")
    assert tool is not None
    seen = json.loads(tool.description)
    assert "ANTHROPIC_API_KEY" not in seen
    assert "SOME_TOKEN" not in seen
    assert "sk-ant-must-not-leak" not in tool.description
    assert seen["GREETING"] == "hello"
    assert seen["SERVER_TOKEN"] == "passed-on-purpose"
    assert seen["PRICE"] == "$5"
    assert seen["LANG"] == "C.UTF-8"
    allowed = {"PATH", "HOME", "LANG", "LANGUAGE", "GREETING", "SERVER_TOKEN", "PRICE"}
    # Python itself may add a couple of its own (e.g. LC_CTYPE coercion); nothing of the caller's.
    assert {name for name in seen if not name.startswith("LC_")} <= allowed


def test_server_environment_is_an_allow_list() -> None:
    server = ServerConfig(name="s", command="x", env={"A": "${B}"})
    caller = {"PATH": "/bin", "HOME": "/root", "LC_ALL": "C", "B": "b", "OPENAI_API_KEY": "k", "USER": "me"}
    assert server_environment(server, caller) == {"PATH": "/bin", "HOME": "/root", "LC_ALL": "C", "A": "b"}


def test_an_unset_variable_in_env_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_UNSET", raising=False)
    server = python_server("toy_server.py", env={"TOKEN": "${MCP_EVALS_TEST_UNSET}"})
    config = write_config(tmp_path, [{"name": "toy", **server}])
    with pytest.raises(
        ConfigError,
        match=r"mcp-evals.yaml:\d+ \(servers\[0\]\.env\.TOKEN\): environment variable MCP_EVALS_TEST_UNSET",
    ):
        extract_catalog(config)


def extract_error(tmp_path: Path, server: dict[str, object]) -> ServerError:
    config = write_config(tmp_path, [{"name": "broken", **server}])
    with pytest.raises(ServerError) as caught:
        extract_catalog(config)
    return caught.value


def test_a_missing_command_is_named(tmp_path: Path) -> None:
    error = extract_error(tmp_path, {"command": "mcp-evals-no-such-server", "args": ["--stdio"]})
    assert "server 'broken': command not found: 'mcp-evals-no-such-server'" in str(error)
    assert error.exit_code == 3


def test_a_missing_working_directory_is_named(tmp_path: Path) -> None:
    error = extract_error(tmp_path, python_server("paging_server.py", cwd="no/such/dir"))
    assert "working directory" in str(error) and "does not exist" in str(error)


def test_an_unbuilt_server_says_which_file_is_missing(tmp_path: Path) -> None:
    error = extract_error(tmp_path, {"command": PYTHON, "args": ["-u", "dist/server.py"]})
    assert "server 'broken': exited with exit code 2" in str(error)
    assert error.hint is not None
    assert error.hint.startswith(f"'dist/server.py' does not exist in {tmp_path}: build the server first")
    remote = extract_error(
        tmp_path, {"command": PYTHON, "args": ["-c", "raise SystemExit(2)", "https://x/y.ts"]}
    )
    assert remote.hint is None or "does not exist" not in remote.hint


def test_a_server_that_exits_at_once_shows_its_exit_code_and_stderr(tmp_path: Path) -> None:
    error = extract_error(tmp_path, python_server("broken_server.py", "exit"))
    text = str(error)
    assert "server 'broken': exited with exit code 3 during start-up and handshake" in text
    assert "| error: DATABASE_URL is not set" in text  # the last lines of its stderr


def test_a_server_that_never_answers_fails_at_the_timeout(tmp_path: Path) -> None:
    started = time.monotonic()
    error = extract_error(tmp_path, python_server("broken_server.py", "hang", timeout=1.5))
    elapsed = time.monotonic() - started
    assert "no answer within 1.5 s (stuck in start-up and handshake)" in str(error)
    assert "| broken-test-server starting in mode hang" in str(error)
    assert "raise `timeout:`" in str(error)
    assert 1.4 < elapsed < 6


def test_garbage_on_stdout_fails_fast_and_quotes_the_line(tmp_path: Path) -> None:
    started = time.monotonic()
    error = extract_error(tmp_path, python_server("broken_server.py", "garbage", timeout=30))
    assert time.monotonic() - started < 10  # not the 30 s timeout
    text = str(error)
    assert "wrote something that is not MCP JSON-RPC on stdout" in text
    assert "'Welcome to the broken server v0.0.1!'" in text
    assert "logs and banners go to stderr" in text


def test_an_unfinished_line_on_stdout_is_named_at_the_timeout(tmp_path: Path) -> None:
    error = extract_error(tmp_path, python_server("broken_server.py", "prompt", timeout=1))
    assert "its stdout holds an unfinished line that is not MCP JSON-RPC: 'Password:'" in str(error)


def test_a_server_that_dies_during_tools_list(tmp_path: Path) -> None:
    error = extract_error(tmp_path, python_server("broken_server.py", "crash-on-list"))
    assert "exited with exit code 70 during tools/list" in str(error)
    assert "| fatal: the tool registry is corrupt" in str(error)


def test_a_server_that_answers_tools_list_with_an_error(tmp_path: Path) -> None:
    error = extract_error(tmp_path, python_server("broken_server.py", "error-on-list"))
    assert "tools/list failed: the server answered with error -32603: 'registry unavailable'" in str(error)


def test_several_servers_are_read_together_and_the_first_failure_is_reported(tmp_path: Path) -> None:
    servers = [
        {"name": "paging", **python_server("paging_server.py", "--tools", "3")},
        {"name": "dead", **python_server("broken_server.py", "exit")},
        {"name": "also_dead", "command": "mcp-evals-no-such-server"},
    ]
    with pytest.raises(ServerError, match="server 'dead': exited with exit code 3"):
        extract_catalog(write_config(tmp_path, servers))


def test_the_cli_reports_a_server_failure_in_one_message(tmp_path: Path, run_cli_process) -> None:  # type: ignore[no-untyped-def]
    """A real process: the server's own stderr and the command's exit status as the OS sees them."""
    write_config(tmp_path, [{"name": "broken", **python_server("broken_server.py", "exit")}])
    config, out = tmp_path / "mcp-evals.yaml", tmp_path / "out.json"
    result = run_cli_process("catalog", "--config", config, "--out", out)
    assert result.returncode == 3
    assert result.stderr.startswith("error: server 'broken': exited with exit code 3")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_the_cli_summary_shows_servers_tools_and_renamed_names(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    write_config(tmp_path, [{"name": "toy", **python_server("toy_server.py")}])
    result = run_cli("catalog", "--config", tmp_path / "mcp-evals.yaml")
    assert result.returncode == 0, result.stderr
    assert re.search(r"toy\s+toy-test-server\s+0\.3\.1\s+\d{4}-\d\d-\d\d\s+stdio\s+3", result.stdout)
    assert re.search(r"echo\s+toy\s+toy\s+2\s+1\s+Repeat the given text", result.stdout)
    assert "1 tool name does not fit the model APIs" in result.stdout
    assert "  files.read -> files_read" in result.stdout
    assert "3 tools in 1 area from 1 server; catalog hash " in result.stdout


def test_awkward_names_go_through_catalog_snapshot_and_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [*AWKWARD_NAMES, "tool_006"]
    server = python_server("paging_server.py", "--tools", "7", "--page-size", "3", "--awkward-names")
    config = write_config(
        tmp_path,
        [{"name": "odd", **server}],
        areas={"international": ["résumé_*", "検索"], "paths": ["files/*", "tickets.search"]},
        fixtures="fixtures.yaml",
        validation={"require_all_tools": True},
    )
    fixtures = [
        {
            "id": f"f{index}",
            "query": f"please run number {index}",
            "expected_tool": name,
            "expected_args": {"value": 1},
        }
        for index, name in enumerate(names)
    ]
    (tmp_path / "fixtures.yaml").write_text(yaml.safe_dump(fixtures, allow_unicode=True), "utf-8")
    snapshot = tmp_path / "catalog.json"

    listed = run_main(capsys, "catalog", "--config", config.path, "--out", snapshot)
    assert listed.code == 0, listed.err
    catalog = load_catalog(snapshot)
    assert catalog.tool_names == names  # every page, in order, names untouched
    assert catalog.area_by_name["検索"] == "international"
    for name in names:
        provider_name = catalog.names.provider(name)
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", provider_name)
        assert catalog.names.mcp(provider_name) == name
        assert f"  {name} -> {provider_name}\n" in listed.out or name == provider_name

    for source in ((), ("--catalog", snapshot)):
        checked = run_main(capsys, "validate", "--config", config.path, *source)
        assert checked.code == 0, checked.out + checked.err
        assert "7 of 7 tools covered" in checked.out
        assert "[area-not-explicit] tool 'send message'" in checked.out
        assert "unknown-tool" not in checked.out


def test_args_expand_variables_and_their_defaults_when_the_server_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_FLAG", raising=False)
    monkeypatch.setenv("MCP_EVALS_TEST_GREETING", "from-the-caller")
    server = python_server(
        "toy_server.py",
        "${MCP_EVALS_TEST_FLAG:---describe-environment}",
        env={"GREETING": "${MCP_EVALS_TEST_GREETING}"},
    )
    catalog = extract_catalog(write_config(tmp_path, [{"name": "toy", **server}]))
    seen = json.loads(catalog.get("started_with").description)
    assert seen["GREETING"] == "from-the-caller"
    monkeypatch.setenv("MCP_EVALS_TEST_FLAG", "--no-such-flag")
    with pytest.raises(ServerError, match="exited"):
        extract_catalog(write_config(tmp_path, [{"name": "toy", **server}]))


def test_a_server_asked_for_the_whole_environment_gets_it() -> None:
    server = ServerConfig(name="s", command="x", env={"A": "${B}"}).with_whole_environment()
    caller = {"PATH": "/bin", "B": "b", "OPENAI_API_KEY": "k", "USER": "me"}
    assert server_environment(server, caller) == {**caller, "A": "b"}
    assert not ServerConfig(name="s", command="x").whole_environment
