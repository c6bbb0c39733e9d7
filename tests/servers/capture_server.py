"""A raw stdio MCP server (standard library only) that writes every message it receives to a file.

    python capture_server.py LOG [legacy|modern|asks-version]

legacy: answers `server/discover` with "method not found", then the `initialize` handshake;
modern: answers `server/discover` at 2026-07-28; asks-version: answers `server/discover` with
-32022 naming only 2025-11-25. It asks the client for `roots/list` and `ping` while listing, and
(legacy) for `ping` during the first tool call; `tools/call` answers by its `how` argument.
"""

from __future__ import annotations

import json
import sys

LOG, MODE = sys.argv[1], sys.argv[2]
TOOLS = [
    {"name": "get_time", "description": "Current time.", "inputSchema": {"type": "object"}, "title": None}
]
NOT_FOUND = {"code": -32601, "message": "Method not found"}
# tools/call answers, by the `how` argument (`silent` never answers, `rpc-error` is a JSON-RPC error).
CALL_RESULTS: dict[str, dict[str, object]] = {
    "text": {"content": [{"type": "text", "text": "12:00"}]},
    "structured": {
        "content": [{"type": "text", "text": '{"hour": 12}'}],
        "structuredContent": {"hour": 12},
        "isError": False,
    },
    "tool-error": {"content": [{"type": "text", "text": "no clock"}], "isError": True},
    "annotated": {
        "content": [
            {"type": "text", "text": "12:00", "annotations": {"audience": ["user"]}, "extra": 1},
            {"type": "resource_link", "uri": "file:///clock", "name": "clock", "title": None},
        ],
        "_meta": {"trace": "x"},
    },
    "image": {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
    "malformed": {"content": [{"type": "text"}]},
    "no-content": {"structuredContent": {"hour": 12}},
    "list-structured": {"content": [], "structuredContent": [1, 2]},
}
asked: set[str] = set()


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    with open(LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(message) + "\n")
    method, message_id = message.get("method"), message.get("id")
    if method is None or message_id is None or str(message_id).startswith("srv"):
        continue  # a notification, or the client's answer to our own request
    if method == "server/discover":
        if MODE == "modern":
            meta = {"io.modelcontextprotocol/serverInfo": {"name": "capture", "version": "2.0"}}
            result = {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "cacheScope": "private",
                "resultType": "complete",
                "ttlMs": 0,
                "_meta": meta,
            }
            send({"jsonrpc": "2.0", "id": message_id, "result": result})
        elif MODE == "asks-version":
            error = {"code": -32022, "message": "unsupported", "data": {"supported": ["2025-11-25"]}}
            send({"jsonrpc": "2.0", "id": message_id, "error": error})
        else:
            send(
                {"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": "Method not found"}}
            )
    elif method == "initialize":
        result = {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "capture", "version": "1.0"},
            "instructions": "Ask for the time.",
        }
        send({"jsonrpc": "2.0", "id": message_id, "result": result})
    elif method == "tools/list":
        for ask in ("roots/list", "ping"):
            if ask not in asked:
                asked.add(ask)
                send({"jsonrpc": "2.0", "id": f"srv-{ask}", "method": ask})
        page: dict[str, object] = {"tools": TOOLS}
        if MODE == "modern":
            page |= {"cacheScope": "private", "resultType": "complete", "ttlMs": 0}
        send({"jsonrpc": "2.0", "id": message_id, "result": page})
    elif method == "tools/call":
        if MODE != "modern" and "srv-call" not in asked:  # a server request while a call is open
            asked.add("srv-call")
            send({"jsonrpc": "2.0", "id": "srv-call", "method": "ping"})
        how = (message.get("params") or {}).get("arguments", {}).get("how", "text")
        if how == "silent":
            continue  # never answers: the client gives up and says so
        if how == "rpc-error":
            error = {"code": -32602, "message": "Invalid params: how"}
            send({"jsonrpc": "2.0", "id": message_id, "error": error})
            continue
        result = CALL_RESULTS[how]
        if MODE == "modern":
            result = {**result, "resultType": "complete"}
        send({"jsonrpc": "2.0", "id": message_id, "result": result})
    else:
        send({"jsonrpc": "2.0", "id": message_id, "error": NOT_FOUND})
