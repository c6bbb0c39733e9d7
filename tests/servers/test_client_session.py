"""Tool-calling sessions against real servers: the example, server-everything, and misbehaving ones.

Over stdio and Streamable HTTP on loopback; every result is our own ``ToolResult`` in the wire shape.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest

from conftest import one_worker
from mcp_evals import __version__
from mcp_evals.config.model import Config
from mcp_evals.errors import ConfigError, ServerError, ToolCallError
from mcp_evals.servers.client import ServerSession, list_server_tools, open_session
from mcp_evals.servers.model import ToolResult
from support.catalog_helpers import (
    HELPDESK_SERVER,
    PYTHON,
    SERVERS,
    free_port,
    node_server,
    serve_http,
    write_config,
)

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

T = TypeVar("T")
TOKEN = "session-test-token-77c1"
LOOPBACK = SERVERS / "loopback.cjs"


def in_session(config: Config, use: Callable[[ServerSession], Awaitable[T]], index: int = 0) -> T:
    async def main() -> T:
        async with open_session(config.servers[index], config) as session:
            return await use(session)

    return anyio.run(main)


def everything(tmp_path: Path, **sections: Any) -> Config:
    command = str(node_server("mcp-server-everything"))
    return write_config(tmp_path, [{"name": "everything", "command": command, "args": ["stdio"]}], **sections)


@pytest.fixture(scope="module")
def helpdesk_http() -> Iterator[str]:
    port = free_port()
    argv = [PYTHON, HELPDESK_SERVER, "--http", "--host", "127.0.0.1", "--port", str(port)]
    with serve_http(argv, port, env={"HELPDESK_TOKEN": TOKEN}) as base:
        yield f"{base}/mcp"


@pytest.fixture(scope="module")
def everything_http() -> Iterator[str]:
    port = free_port()
    argv = [str(node_server("mcp-server-everything")), "streamableHttp"]
    env = {"PORT": str(port), "NODE_OPTIONS": f"--require {LOOPBACK}"}
    with serve_http(argv, port, env=env) as base:
        yield f"{base}/mcp"


# --------------------------------------------------------------------------- calling tools


def test_the_example_server_over_stdio_returns_structured_results_and_tool_errors(tmp_path: Path) -> None:
    config = write_config(tmp_path, [{"name": "helpdesk", "command": PYTHON, "args": [str(HELPDESK_SERVER)]}])

    async def use(session: ServerSession) -> tuple[ToolResult, ToolResult, list[str]]:
        found = await session.call_tool("get_ticket", {"ticket_id": "T-1041"}, timeout=10)
        missing = await session.call_tool("get_ticket", {"ticket_id": "T-0000"}, timeout=10)
        return found, missing, [tool["name"] for tool in session.info.tools]

    found, missing, names = in_session(config, use)
    assert "get_ticket" in names and len(names) >= 12
    assert found.is_error is False
    assert found.structured_content["ticket_id"] == "T-1041"
    assert found.structured_content["subject"] == "Charged twice for February"
    assert json.loads(found.text)["customer_id"] == "cus_1002"  # the text block mirrors the structure
    assert found.content[0]["type"] == "text"
    assert 0 < found.latency_ms < 10_000
    # A tool that fails is a result with is_error, not an exception.
    assert missing.is_error is True
    assert "T-0000" in missing.text


def test_server_everything_over_stdio(tmp_path: Path) -> None:
    async def use(session: ServerSession) -> list[ToolResult]:
        return [
            await session.call_tool("echo", {"message": "hello"}, timeout=10),
            await session.call_tool("get-sum", {"a": 2, "b": 3}, timeout=10),
            await session.call_tool("get-structured-content", {"location": "Chicago"}, timeout=10),
            await session.call_tool("get-sum", {"a": "two"}, timeout=10),
        ]

    echo, total, weather, wrong = in_session(everything(tmp_path), use)
    assert (echo.text, echo.is_error, echo.structured_content) == ("Echo: hello", False, None)
    assert total.text == "The sum of 2 and 3 is 5."
    assert weather.structured_content == {
        "temperature": 36,
        "conditions": "Light rain / drizzle",
        "humidity": 82,
    }
    assert json.loads(weather.text) == weather.structured_content
    assert wrong.is_error is True and "Invalid arguments for tool get-sum" in wrong.text
    assert ToolResult.model_validate(weather.model_dump()).text == weather.text  # `text` round-trips


def test_server_everything_over_streamable_http(tmp_path: Path, everything_http: str) -> None:
    config = write_config(tmp_path, [{"name": "everything", "url": everything_http}])

    async def use(session: ServerSession) -> tuple[str, ToolResult]:
        return session.info.transport, await session.call_tool("get-sum", {"a": 40, "b": 2}, timeout=10)

    transport, total = in_session(config, use)
    assert transport == "streamable-http"
    assert total.text == "The sum of 40 and 2 is 42."


def test_the_example_server_over_streamable_http_with_a_token(
    tmp_path: Path, helpdesk_http: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_TEST_TOKEN", TOKEN)
    server = {
        "name": "helpdesk",
        "url": helpdesk_http,
        "headers": {"Authorization": "Bearer ${SESSION_TEST_TOKEN}"},
    }

    async def use(session: ServerSession) -> ToolResult:
        return await session.call_tool("get_customer", {"customer_id": "cus_1003"}, timeout=10)

    customer = in_session(write_config(tmp_path, [server]), use)
    assert customer.structured_content["company"] == "Kestrel Robotics"


def test_a_call_that_takes_too_long_times_out_and_the_session_lives_on(tmp_path: Path) -> None:
    async def use(session: ServerSession) -> tuple[ToolCallError, float, ToolResult]:
        started = time.monotonic()
        with pytest.raises(ToolCallError) as caught:
            await session.call_tool(
                "trigger-long-running-operation", {"duration": 10, "steps": 2}, timeout=0.5
            )
        elapsed = time.monotonic() - started
        return caught.value, elapsed, await session.call_tool("echo", {"message": "still here"}, timeout=10)

    error, elapsed, after = in_session(everything(tmp_path), use)
    assert error.timed_out
    assert (
        str(error)
        == "server 'everything': no answer to tools/call 'trigger-long-running-operation' within 500 ms"
    )
    assert elapsed < 5
    assert after.text == "Echo: still here"


def test_a_server_that_dies_during_a_call_names_its_exit_code_and_stderr(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        [
            {
                "name": "fragile",
                "command": PYTHON,
                "args": [str(SERVERS / "broken_server.py"), "crash-on-call"],
            }
        ],
    )

    async def use(session: ServerSession) -> ServerError:
        with pytest.raises(ServerError) as caught:
            await session.call_tool("explode", {}, timeout=10)
        return caught.value

    error = in_session(config, use)
    assert not isinstance(error, ToolCallError)  # the server is gone, not just this call
    assert "server 'fragile': exited with exit code 71 during tools/call 'explode'" in str(error)
    assert "| fatal: explode was called" in str(error)


def test_a_snapshot_server_cannot_open_a_session(tmp_path: Path) -> None:
    config = write_config(tmp_path, [{"name": "saved", "snapshot": "catalog.json"}])
    with pytest.raises(
        ConfigError, match="server 'saved' is a saved snapshot; calling tools needs a live server"
    ):
        in_session(config, lambda session: session.list_tools())


def test_errors_of_the_callers_own_code_come_out_unwrapped(tmp_path: Path) -> None:
    config = write_config(
        tmp_path, [{"name": "toy", "command": PYTHON, "args": [str(SERVERS / "toy_server.py")]}]
    )

    async def use(session: ServerSession) -> None:
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        in_session(config, use)


def test_list_server_tools_is_a_session_that_lists(tmp_path: Path) -> None:
    config = write_config(
        tmp_path, [{"name": "toy", "command": PYTHON, "args": [str(SERVERS / "toy_server.py")]}]
    )
    listed = anyio.run(list_server_tools, config.servers[0], config)

    async def use(session: ServerSession) -> list[dict[str, Any]]:
        return await session.list_tools()

    assert in_session(config, use) == listed.tools
    assert [tool["name"] for tool in listed.tools] == ["environment", "echo", "files.read"]


# --------------------------------------------------------------------------- issue #9: exits seen at once


def held_pipes_server(
    tmp_path: Path, script: str, timeout: float = 20, helper: str = "sleep 60"
) -> tuple[Config, Path]:
    """A shell that starts a helper holding its pipes (its pid written to a file), then runs `script`."""
    pid_file = tmp_path / "helper.pid"
    command = f"{helper} & echo $! > {pid_file}; {script}"
    return write_config(
        tmp_path, [{"name": "held", "command": "sh", "args": ["-c", command], "timeout": timeout}]
    ), pid_file


def helper_is_gone(pid_file: Path) -> bool:
    pid = int(pid_file.read_text().strip())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # dead, waiting for whoever adopted it to reap it
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and process groups")
def test_a_server_that_exits_while_a_helper_holds_its_pipes_is_reported_at_once(
    tmp_path: Path, run_cli: Any
) -> None:
    config, pid_file = held_pipes_server(tmp_path, "echo 'cannot open the database' >&2; exit 1")
    started = time.monotonic()
    result = run_cli("catalog", "--config", config.path)
    elapsed = time.monotonic() - started
    assert result.returncode == 3
    assert result.stderr.startswith(
        "error: server 'held': exited with exit code 1 during start-up and handshake"
    )
    assert "| cannot open the database" in result.stderr
    assert elapsed < 10  # not the 20 s start-up timeout
    assert "Exception ignored" not in result.stderr and "Event loop is closed" not in result.stderr
    assert helper_is_gone(pid_file)  # the helper does not outlive the run


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and process groups")
def test_a_working_server_with_a_helper_holding_its_pipes_closes_cleanly(
    tmp_path: Path, run_cli: Any
) -> None:
    config, pid_file = held_pipes_server(tmp_path, f"exec {PYTHON} {SERVERS / 'toy_server.py'}")
    result = run_cli("catalog", "--config", config.path)
    assert result.returncode == 0, result.stderr
    assert "3 tools in 1 area from 1 server" in result.stdout
    assert result.stderr == ""  # in particular no BaseSubprocessTransport.__del__ traceback
    assert helper_is_gone(pid_file)


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid(1)")
def test_a_helper_that_left_the_process_group_leaves_no_traceback(tmp_path: Path, run_cli: Any) -> None:
    # A helper in a session of its own is out of our reach (by design); its pipes stay open after
    # the run, and the subprocess transport must still be closed while the event loop runs.
    config, pid_file = held_pipes_server(tmp_path, "exit 4", helper="setsid sleep 60")
    try:
        result = run_cli("catalog", "--config", config.path)
        assert result.returncode == 3
        assert "exited with exit code 4 during start-up and handshake" in result.stderr
        assert "Exception ignored" not in result.stderr and "Event loop is closed" not in result.stderr
    finally:
        with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


# --------------------------------------------------------------------------- issue #9: who the client is


def test_the_client_introduces_itself_and_declares_its_capabilities(tmp_path: Path) -> None:
    server = {"name": "who", "command": PYTHON, "args": [str(SERVERS / "broken_server.py"), "whoami"]}
    config = write_config(tmp_path, [server])
    info = anyio.run(list_server_tools, config.servers[0], config)
    params = json.loads(info.tools[0]["description"])
    assert params["clientInfo"] == {"name": "mcp-evals", "version": __version__}
    assert set(params["capabilities"]) == {"roots", "sampling", "elicitation"}
    assert info.client_capabilities == ["roots", "sampling", "elicitation"]

    bare = write_config(tmp_path, [server], client={"capabilities": []})
    params = json.loads(anyio.run(list_server_tools, bare.servers[0], bare).tools[0]["description"])
    assert params["capabilities"] == {}


def test_declared_capabilities_decide_which_tools_server_everything_lists(tmp_path: Path) -> None:
    config = everything(tmp_path)
    full = {tool["name"] for tool in anyio.run(list_server_tools, config.servers[0], config).tools}
    bare_config = everything(tmp_path, client={"capabilities": []})
    bare = {tool["name"] for tool in anyio.run(list_server_tools, bare_config.servers[0], bare_config).tools}
    assert {"get-roots-list", "trigger-sampling-request", "trigger-elicitation-request"} <= full - bare
    assert {"echo", "get-sum", "get-structured-content"} <= bare
    roots_only = everything(tmp_path, client={"capabilities": ["roots"]})
    listed = {tool["name"] for tool in anyio.run(list_server_tools, roots_only.servers[0], roots_only).tools}
    assert "get-roots-list" in listed and "trigger-sampling-request" not in listed


def test_roots_sampling_and_elicitation_get_the_answers_docs_promise(tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir()
    config = everything(tmp_path, client={"roots": ["workspace"]})

    async def use(session: ServerSession) -> list[ToolResult]:
        return [
            await session.call_tool("get-roots-list", {}, timeout=10),
            await session.call_tool("trigger-sampling-request", {"prompt": "hi"}, timeout=10),
            await session.call_tool("trigger-elicitation-request", {}, timeout=10),
        ]

    roots, sampling, elicitation = in_session(config, use)
    assert f"URI: {(tmp_path / 'workspace').resolve().as_uri()}" in roots.text
    assert sampling.is_error and "it does not answer sampling requests" in sampling.text
    assert '"action": "decline"' in elicitation.text


def test_an_unknown_capability_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"mcp-evals.yaml:\d+ \(client.capabilities\[0\]\)"):
        write_config(tmp_path, [{"name": "x", "command": "x"}], client={"capabilities": ["tasks"]})


def test_the_catalog_header_shows_the_client_and_marks_tools_that_require_tasks(
    tmp_path: Path, run_cli: Any
) -> None:
    config = everything(tmp_path)
    result = run_cli("catalog", "--config", config.path)
    assert result.returncode == 0, result.stderr
    first = result.stdout.splitlines()[0]
    assert first == f"client: mcp-evals {__version__}, declaring roots, sampling, elicitation"
    assert "1 tool requires task-based execution (execution.taskSupport: required):" in result.stdout
    assert "  simulate-research-query" in result.stdout
    bare = everything(tmp_path, client={"capabilities": []})
    assert run_cli("catalog", "--config", bare.path).stdout.splitlines()[0] == (
        f"client: mcp-evals {__version__}, declaring no capabilities"
    )


# --------------------------------------------------------------------------- issue #10: clearer failures


def test_an_import_error_names_the_interpreter_and_the_fix(tmp_path: Path) -> None:
    script = "import no_such_module_for_mcp_evals"
    config = write_config(tmp_path, [{"name": "py", "command": PYTHON, "args": ["-c", script]}])
    with pytest.raises(ServerError) as caught:
        anyio.run(list_server_tools, config.servers[0], config)
    assert "exited with exit code 1" in str(caught.value)
    assert "ModuleNotFoundError" in str(caught.value)
    hint = caught.value.hint or ""
    assert f"the interpreter that ran it, {PYTHON}:" in hint
    assert "activate the server's virtual environment" in hint and "full path" in hint


def test_python_dash_m_of_a_missing_module_gets_the_interpreter_hint_too(tmp_path: Path) -> None:
    """`python -m package` prints only "…: No module named package" (no traceback) and exits 1."""
    config = write_config(
        tmp_path, [{"name": "py", "command": PYTHON, "args": ["-m", "no_such_module_for_mcp_evals"]}]
    )
    with pytest.raises(ServerError) as caught:
        anyio.run(list_server_tools, config.servers[0], config)
    assert "No module named no_such_module_for_mcp_evals" in str(caught.value)
    assert f"the interpreter that ran it, {PYTHON}:" in (caught.value.hint or "")


def test_an_import_error_of_a_bare_command_names_what_path_found(tmp_path: Path) -> None:
    name = Path(PYTHON).name
    server = {
        "name": "py",
        "command": name,
        "args": ["-c", "import no_such_module_for_mcp_evals"],
        "env": {"PATH": f"{Path(PYTHON).parent}{os.pathsep}{os.environ.get('PATH', '')}"},
    }
    config = write_config(tmp_path, [server])
    with pytest.raises(ServerError) as caught:
        anyio.run(list_server_tools, config.servers[0], config)
    assert f"{Path(PYTHON).parent / name} (`command: {name}`)" in (caught.value.hint or "")


def test_https_to_a_plain_http_port_says_tls_failed(tmp_path: Path, helpdesk_http: str) -> None:
    url = helpdesk_http.replace("http://", "https://")
    config = write_config(tmp_path, [{"name": "helpdesk", "url": url, "timeout": 10}])
    with pytest.raises(ServerError) as caught:
        anyio.run(list_server_tools, config.servers[0], config)
    message = caught.value.message
    # e.g. (WRONG_VERSION_NUMBER); the reason's name depends on the OpenSSL version
    assert re.match(
        rf"server 'helpdesk': the TLS handshake with {re.escape(url)} failed \([A-Z_]+\)$", message
    )
    assert "connection refused" not in message
    assert "try an http:// URL" in (caught.value.hint or "")
