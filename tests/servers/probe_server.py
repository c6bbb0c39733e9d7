"""A raw stdio MCP server (standard library only) whose tools check their input more or less well.

lenient   declares `ticket_id` required, but answers {} as if all was fine (schema not enforced)
vague     refuses {} with "Internal error" (names neither the parameter nor what was expected)
strict    refuses {} with "missing required argument: invoice_id"
ping      no parameters (never probed)
"""

from __future__ import annotations

import json
import sys
from typing import Any


def schema(required: str | None) -> dict[str, Any]:
    if required is None:
        return {"type": "object", "properties": {}}
    return {"type": "object", "properties": {required: {"type": "string"}}, "required": [required]}


TOOLS = [
    {"name": "lenient", "description": "Look up a ticket by its id.", "inputSchema": schema("ticket_id")},
    {"name": "vague", "description": "Close a ticket by its id.", "inputSchema": schema("ticket_id")},
    {"name": "strict", "description": "Refund an invoice by its id.", "inputSchema": schema("invoice_id")},
    {"name": "ping", "description": "Check that the server answers.", "inputSchema": schema(None)},
]
ANSWERS = {
    "lenient": (False, "ticket: none"),
    "vague": (True, "Internal error"),
    "strict": (True, "missing required argument: invoice_id"),
    "ping": (False, "pong"),
}


def reply(message_id: Any, result: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue  # notifications
        if method == "initialize":
            reply(
                message_id,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "probe-test-server", "version": "1.0.0"},
                },
            )
        elif method == "tools/list":
            reply(message_id, {"tools": TOOLS})
        elif method == "tools/call":
            is_error, text = ANSWERS[message["params"]["name"]]
            reply(message_id, {"content": [{"type": "text", "text": text}], "isError": is_error})
        else:
            reply(message_id, {})


if __name__ == "__main__":
    main()
