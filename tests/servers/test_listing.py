"""The catalog's SDK-free listing (servers/listing.py) says and hears what an SDK session does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types.version
import pytest

from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import Config
from mcp_evals.servers.client import list_server_tools
from mcp_evals.servers.listing import HANDSHAKE_VERSION, MODERN_VERSION
from mcp_evals.servers.stdio import list_stdio_tools
from support.catalog_helpers import HELPDESK_SERVER, PYTHON, node_server, write_config
from support.sdk_session import sdk_session

CAPTURE = Path(__file__).resolve().parent / "capture_server.py"


def test_its_protocol_versions_are_the_sdks() -> None:
    assert MODERN_VERSION == mcp_types.version.LATEST_MODERN_VERSION
    assert max(mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSION


async def sdk_info(config: Config) -> ServerInfo:
    """What an SDK session (the SDK's own stdio opening, no raw handshake first) hears."""
    async with sdk_session(config.servers[0], config) as session:
        return session.info


def capture(folder: Path, log: Path, mode: str, **sections: object) -> Config:
    folder.mkdir(parents=True, exist_ok=True)
    server = {"name": "c", "command": PYTHON, "args": [str(CAPTURE), str(log), mode]}
    return write_config(folder, [server], **sections)


def messages(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_it_sends_the_sdks_handshake_and_lists_the_same(tmp_path: Path, mode: str) -> None:
    ours_log, sdk_log = tmp_path / "ours.jsonl", tmp_path / "sdk.jsonl"
    roots = {"capabilities": ["roots", "sampling", "elicitation"], "roots": [str(tmp_path)]}
    ours = capture(tmp_path / "a", ours_log, mode, client=roots)
    sdk = capture(tmp_path / "b", sdk_log, mode, client=roots)
    listed = anyio.run(list_stdio_tools, ours.servers[0], ours)
    reference = anyio.run(sdk_info, sdk)
    assert listed is not None
    assert listed.model_dump(exclude={"tools"}) == reference.model_dump(exclude={"tools"})
    assert (
        listed.tools
        == reference.tools
        == [{"name": "get_time", "description": "Current time.", "inputSchema": {"type": "object"}}]
    )
    # the same requests, in the same order, with the same parameters; the same answers to the server
    ours_sent, sdk_sent = messages(ours_log), messages(sdk_log)
    assert [m.get("method") for m in ours_sent if "method" in m] == [
        m.get("method") for m in sdk_sent if "method" in m
    ]
    for mine, theirs in zip(ours_sent, sdk_sent, strict=True):
        if "method" in mine:
            assert mine.get("params") == theirs.get("params"), mine.get("method")
        else:  # our answers to roots/list and ping
            assert (mine.get("id"), mine.get("result"), mine.get("error")) == (
                theirs.get("id"),
                theirs.get("result"),
                theirs.get("error"),
            )


def test_a_server_that_names_other_versions_is_left_to_the_sdk(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    config = write_config(
        tmp_path, [{"name": "c", "command": PYTHON, "args": [str(CAPTURE), str(log), "asks-version"]}]
    )
    assert anyio.run(list_stdio_tools, config.servers[0], config) is None
    info = anyio.run(list_server_tools, config.servers[0], config)  # the SDK session takes it from there
    assert info.protocol_version == "2025-11-25" and [tool["name"] for tool in info.tools] == ["get_time"]


@pytest.mark.parametrize("server", ["helpdesk", "memory", "everything"])
def test_real_servers_list_the_same_with_or_without_the_sdk(tmp_path: Path, server: str) -> None:
    entry = {
        "helpdesk": {"command": PYTHON, "args": [str(HELPDESK_SERVER)]},
        "memory": {
            "command": str(node_server("mcp-server-memory")),
            "env": {"MEMORY_FILE_PATH": str(tmp_path / "m.json")},
        },
        "everything": {"command": str(node_server("mcp-server-everything")), "args": ["stdio"]},
    }[server]
    config = write_config(tmp_path, [{"name": server, **entry, "timeout": 60}])
    listed = anyio.run(list_stdio_tools, config.servers[0], config)
    reference = anyio.run(sdk_info, config)
    assert listed is not None
    assert listed == reference


@pytest.mark.parametrize("server", ["helpdesk", "everything"])
def test_the_catalog_command_never_imports_the_sdk_for_a_stdio_server(tmp_path: Path, server: str) -> None:
    """Nor when it stops one: server-everything outlives its closed stdin and is ended by a signal."""
    entry = {
        "helpdesk": {"command": PYTHON, "args": [str(HELPDESK_SERVER)]},
        "everything": {"command": str(node_server("mcp-server-everything")), "args": ["stdio"]},
    }[server]
    write_config(tmp_path, [{"name": server, **entry, "timeout": 60}])
    probe = (
        "import sys\nfrom mcp_evals.cli import main\n"
        "try:\n    main(['catalog'])\nexcept SystemExit as exit_:\n    assert exit_.code == 0, exit_.code\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('mcp', 'mcp_types')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"
