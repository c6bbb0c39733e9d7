"""A tiny MCP server whose tools declare no output schema: their results are JSON text only."""

from __future__ import annotations

import json

from mcp.server import MCPServer

server = MCPServer("plain")


@server.tool(structured_output=False)
def get_job(job_id: str) -> str:
    """A sync job, as JSON text, with a `diagnostics` object."""
    return json.dumps({"job_id": job_id, "state": "failed", "diagnostics": {"retryable": False}})


if __name__ == "__main__":
    server.run()
