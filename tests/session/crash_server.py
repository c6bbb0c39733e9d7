"""A tiny MCP server whose `crash` tool kills the process: a server that dies during a session."""

from __future__ import annotations

import os

from mcp.server import MCPServer

server = MCPServer("crashy")


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


@server.tool()
def crash() -> str:
    """Exit the server process at once."""
    os._exit(1)


if __name__ == "__main__":
    server.run()
