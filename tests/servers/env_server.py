"""An MCP server (stdio) whose one tool says which API keys its own environment holds.

The runner never calls tools, so the answer is put where a run records it: the tool description.
"""

from __future__ import annotations

import os

from mcp.server import MCPServer

server = MCPServer("env-probe", version="1.0.0")
SEEN = ", ".join(
    f"{name}={'present' if os.environ.get(name) else 'absent'}"
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "EVAL_MODEL")
)


@server.tool(description=f"Look up a ticket by its id. Environment seen by the server: {SEEN}.")
def get_ticket(ticket_id: str) -> str:
    return ticket_id


if __name__ == "__main__":
    server.run()
