"""What a new user met: serve's validate_fixtures said ok while `validate` failed, raw pydantic and
uvicorn text, a missing Python module without the interpreter hint, YAML 1.1 values shown converted,
a wrong base URL retried for long and reported without the URL."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import yaml

from conftest import Cli
from mcp_evals.config.load import load_config
from mcp_evals.contract.load import ContractSetup
from mcp_evals.serve.harness import Harness

from .conftest import HostileProject, tool


def locked_project(root: Path, snapshot: Path, cli: Cli) -> Path:
    """A snapshot config whose catalog lock lacks one of the live tools."""
    shutil.copy(snapshot, root / "catalog.json")
    (root / "fixtures.yaml").write_text(
        yaml.safe_dump(
            {"fixtures": [{"id": "f1", "query": "Show me ticket 4512", "expected_tools": ["get_ticket"]}]}
        )
    )
    config = root / "mcp-evals.yaml"
    document = {
        "servers": [{"name": "helpdesk", "snapshot": "catalog.json"}],
        "fixtures": "fixtures.yaml",
        "catalog": {"lock": "catalog.lock.json"},
    }
    config.write_text(yaml.safe_dump(document))
    assert cli("catalog", "--config", config, "--update-lock").code == 0
    lock = json.loads((root / "catalog.lock.json").read_text())
    lock["servers"][0]["tools"] = lock["servers"][0]["tools"][1:]
    (root / "catalog.lock.json").write_text(json.dumps(lock))
    return config


def test_serve_validate_fixtures_says_what_validate_says(
    tmp_path: Path, helpdesk_snapshot: Path, cli: Cli
) -> None:
    config = locked_project(tmp_path, helpdesk_snapshot, cli)
    command = cli("validate", "--config", config, "--format", "json")
    assert command.code == 1  # the catalog differs from its lock
    expected = json.loads(command.out)
    harness = Harness(ContractSetup.of(load_config(config)))
    served = anyio.run(harness.validate_fixtures).model_dump()
    assert served["ok"] is False and expected["ok"] is False
    assert served["coverage"] == expected["coverage"] and served["catalog_hash"] == expected["catalog_hash"]
    assert served["lock"] == expected["lock"] and served["lock"]["status"] != "matches"
    assert (served["errors"], served["warnings"]) == (expected["errors"], expected["warnings"])


def test_serve_says_which_argument_is_wrong_in_its_own_words(tmp_path: Path) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from mcp_evals.serve.app import build_server

    server = build_server(Harness(ContractSetup.of(None, cwd=tmp_path)))

    async def call() -> str:
        try:
            await server.call_tool("evaluate_deployment_gate", {"min_pass_rate": 1.5})
        except ToolError as error:
            return str(error)
        return "no error"

    message = anyio.run(call)
    assert message == (
        "evaluate_deployment_gate: bad arguments: "
        "min_pass_rate: input should be less than or equal to 1 (got 1.5)"
    )
    assert "pydantic" not in message and "validation error for" not in message


def test_serve_http_on_a_busy_port_is_one_message_and_a_free_one_prints_its_url(tmp_path: Path) -> None:
    import socket
    import subprocess
    import sys

    from conftest import cli_environment

    argv = [sys.executable, "-m", "mcp_evals", "serve", "--http-port"]  # in a folder without a config
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        busy = subprocess.run(
            [*argv, str(port)],
            env=cli_environment(),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert busy.returncode == 3, busy.stderr
    assert busy.stderr.startswith(
        f"error: --http-port {port}: cannot listen on 127.0.0.1:{port} (another program"
    )
    assert "Traceback" not in busy.stderr and "ERROR:" not in busy.stderr

    with socket.create_server(("127.0.0.1", 0)) as probe:
        free = probe.getsockname()[1]
    process = subprocess.Popen(
        [*argv, str(free)], env=cli_environment(), cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert line == f"mcp-evals serve: Streamable HTTP at http://127.0.0.1:{free}/mcp (Ctrl-C to stop)\n"


FIXTURE_TEXT = """fixtures:
  - id: a
    query: {query}
    expected_tool: book
    expected_args:
      time: 9:30
      confirm: no
      also: '9:30'
"""


def test_yaml_1_1_values_are_shown_as_written_with_quotes_suggested(
    hostile: HostileProject, cli: Cli
) -> None:
    properties = {
        "time": {"type": "string"},
        "confirm": {"type": "string", "enum": ["yes", "no"]},
        "also": {"type": "string"},
    }
    hostile.serve([tool("book", properties)])
    config = hostile.configure()
    path = hostile.root / "fixtures" / "main.yaml"
    path.write_text(FIXTURE_TEXT.format(query="Book the room at 9:30 sharp"))
    result = cli("validate", "--config", config)
    assert "expected_args.time: 570 does not fit" in result.out
    assert '(the file says 9:30: write "9:30" in quotes for the text)' in result.out
    assert '(the file says no: write "no" in quotes for the text)' in result.out
    assert "expected_args.also" not in result.out  # quoted: the text it looks like
    path.write_text(FIXTURE_TEXT.format(query="no"))
    refused = cli("validate", "--config", config)
    assert refused.code == 3
    expected = (
        'Input should be a valid string (the file says no, which YAML reads as false: write "no" in quotes'
    )
    assert expected in refused.err


def test_a_wrong_base_url_is_tried_twice_and_reported_with_the_url(
    tmp_path: Path, helpdesk_snapshot: Path, cli: Cli, clean_env: object
) -> None:
    import socket
    import time

    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed again: nothing listens there
    config = locked_project(tmp_path, helpdesk_snapshot, cli)
    document = yaml.safe_load(config.read_text())
    del document["catalog"]
    config.write_text(yaml.safe_dump(document))
    started = time.monotonic()
    result = cli(
        "run", "--config", config, "--provider", "openai", "--base-url", f"http://127.0.0.1:{port}/v1",
        "--results", tmp_path / "r.ndjson",
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert result.code == 2, result.err  # PRELIMINARY: the fixture never reached a model
    assert f"cannot connect to the API at http://127.0.0.1:{port}/v1" in result.err
    assert "check the base URL" in result.err
    assert elapsed < 15  # one retry after a short wait, not six over 26 s
