"""A small test MCP server (``MCPServer``) that can serve stdio, Streamable HTTP or legacy SSE only.

    python toy_server.py                               # stdio
    python toy_server.py --http PORT [--token TOKEN]   # Streamable HTTP at /mcp
    python toy_server.py --sse PORT [--token TOKEN]    # legacy SSE only, at /sse (POSTs to /mcp get 404)

Its ``environment`` tool returns the environment the server process was given, so a test can check
what reaches a server. With ``--token`` every HTTP request needs ``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

import argparse
import hmac
import json
import os
from typing import Any

from mcp.server import MCPServer

server = MCPServer("toy-test-server", version="0.3.1")


@server.tool()
def environment() -> str:
    """Return the names and values of the environment variables this server process sees, as JSON."""
    return json.dumps(dict(os.environ), sort_keys=True)


@server.tool()
def echo(text: str, times: int = 1) -> str:
    """Repeat the given text a number of times."""
    return " ".join([text] * times)


@server.tool(name="files.read", title="Read a file")
def files_read(path: str) -> str:
    """Read a text file (a name with a dot, as some servers use)."""
    return f"contents of {path}"


class BearerToken:
    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                headers = [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]
                await send({"type": "http.response.start", "status": 401, "headers": headers})
                await send({"type": "http.response.body", "body": b'{"error":"invalid_token"}'})
                return
        await self.app(scope, receive, send)


def serve(app: Any, port: int, token: str | None) -> None:
    import uvicorn

    uvicorn.run(BearerToken(app, token) if token else app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, metavar="PORT")
    parser.add_argument("--sse", type=int, metavar="PORT")
    parser.add_argument("--token")
    parser.add_argument(
        "--describe-environment",
        action="store_true",
        help="add a tool whose description is this process's environment (JSON), visible in tools/list",
    )
    arguments = parser.parse_args()
    if arguments.describe_environment:
        described = json.dumps(dict(os.environ), sort_keys=True)
        server.add_tool(environment, name="started_with", description=described)
    if arguments.http:
        serve(server.streamable_http_app(host="127.0.0.1"), arguments.http, arguments.token)
    elif arguments.sse:
        serve(server.sse_app(host="127.0.0.1"), arguments.sse, arguments.token)
    else:
        server.run()
