"""Helpers for the catalog tests: configs, test servers on loopback, and an independent listing.

The independent listing uses the MCP SDK's own client and stdio transport, so the catalog tests
compare our extraction with what the SDK sees, not with our own code.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.load import load_config
from mcp_evals.config.model import Config

TESTS = Path(__file__).resolve().parents[1]
SERVERS = TESTS / "servers"
REPO_ROOT = TESTS.parent
HELPDESK_SERVER = REPO_ROOT / "examples" / "helpdesk" / "server.py"
NODE_BIN = TESTS / "reference-servers" / "node_modules" / ".bin"
PYTHON = sys.executable


def python_server(script: str | Path, *args: str, **options: Any) -> dict[str, Any]:
    """A `servers:` entry that runs one of our Python test servers with the test interpreter."""
    path = script if isinstance(script, Path) else SERVERS / script
    return {"command": PYTHON, "args": [str(path), *args], **options}


def write_config(directory: Path, servers: Sequence[Mapping[str, Any]], **sections: Any) -> Config:
    """Write an mcp-evals.yaml with these servers (each needs a `name`) and load it, as a user would."""
    path = directory / "mcp-evals.yaml"
    path.write_text(yaml.safe_dump({"servers": [dict(server) for server in servers], **sections}), "utf-8")
    return load_config(path)


def node_server(package_bin: str) -> Path:
    """The path of an npm reference server's executable; skips locally when `npm ci` has not run."""
    path = NODE_BIN / package_bin
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: scripts/bootstrap must run `npm ci` in tests/reference-servers")
        pytest.skip(f"{path} is missing: run `npm ci` in tests/reference-servers (scripts/bootstrap does)")
    return path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def serve_http(argv: Sequence[str], port: int, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """Run an HTTP MCP server as a subprocess until it accepts connections; yield its base URL."""
    process = subprocess.Popen(
        [str(part) for part in argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            if process.poll() is not None:
                assert process.stderr is not None
                raise RuntimeError(f"test server exited: {process.stderr.read().decode(errors='replace')}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"test server did not listen on port {port}") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def independent_listing(
    command: str | Path, args: Sequence[str] = (), cwd: Path | None = None, *, capabilities: bool = True
) -> dict[str, Any]:
    """tools/list (every page) straight through the SDK's own stdio client and `initialize` handshake.

    With ``capabilities`` the client declares roots, sampling and elicitation, as mcp-evals does by
    default (servers may list more tools to such a client).
    """
    from mcp import Client, StdioServerParameters
    from mcp.types import INVALID_REQUEST, ErrorData

    async def refuse(*_: Any) -> ErrorData:
        return ErrorData(code=INVALID_REQUEST, message="not in this test")

    callbacks: dict[str, Any] = {}
    if capabilities:
        callbacks = {
            "list_roots_callback": refuse,
            "sampling_callback": refuse,
            "elicitation_callback": refuse,
        }

    async def listing() -> dict[str, Any]:
        params = StdioServerParameters(command=str(command), args=list(args), cwd=cwd)
        with open(os.devnull, "w") as errlog:
            from mcp.client.stdio import stdio_client

            async with Client(stdio_client(params, errlog=errlog), mode="legacy", **callbacks) as client:
                tools: list[dict[str, Any]] = []
                cursor = None
                while True:
                    page = await client.list_tools(cursor=cursor)
                    tools += [
                        tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools
                    ]
                    cursor = page.next_cursor
                    if cursor is None:
                        info = client.server_info
                        return {"name": info.name, "version": info.version, "tools": tools}

    return anyio.run(listing)


def model_view(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a wire-shape tool a model sees (protocol versions differ in the rest)."""
    annotations = wire.get("annotations")
    return {
        "name": wire["name"],
        "title": wire.get("title") or (annotations or {}).get("title"),
        "description": wire.get("description") or "",
        "input_schema": wire["inputSchema"],
        "output_schema": wire.get("outputSchema"),
        "annotations": annotations,
    }


def wire_tool(name: str, description: str = "", **properties: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description or f"Does {name}.",
        "inputSchema": {
            "type": "object",
            "properties": {key: {"type": kind} for key, kind in properties.items()},
            "required": list(properties)[:1],
        },
    }


def server(name: str, *tools: dict[str, Any], prefix: bool = False) -> ServerInfo:
    return ServerInfo(
        name=name,
        transport="stdio",
        server_name=f"{name}-server",
        server_version="1.2.3",
        protocol_version="2025-11-25",
        prefix=prefix,
        tools=list(tools),
    )
