"""A stdio MCP server (standard library only) that checks its arguments badly, each tool its own way.

    python sloppy_server.py CALLS_LOG

lookup: takes anything (no isError, whatever the arguments) · crashy: exits when `n` is null ·
sleepy: never answers a long `text` · strict: answers bad arguments with -32603, not -32602 ·
fine: refuses bad arguments with isError · wipe (destructive) and note (unannotated) append their
arguments to CALLS_LOG when called, so a test can see they never were.
"""

from __future__ import annotations

import json
import sys

LOG = sys.argv[1]
READ_ONLY = {"readOnlyHint": True}
TOOLS = [
    {
        "name": "lookup",
        "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "annotations": READ_ONLY,
    },
    {
        "name": "crashy",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        "annotations": READ_ONLY,
    },
    {
        "name": "sleepy",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "annotations": READ_ONLY,
    },
    {
        "name": "strict",
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string", "enum": ["a", "b"]}},
            "required": ["q"],
            "additionalProperties": False,
        },
        "annotations": READ_ONLY,
    },
    {
        "name": "fine",
        "inputSchema": {"type": "object", "properties": {"flag": {"type": "boolean"}}, "required": ["flag"]},
        "annotations": READ_ONLY,
    },
    {
        "name": "wipe",
        "inputSchema": {"type": "object", "properties": {"all": {"type": "boolean"}}},
        "annotations": {"destructiveHint": True},
    },
    {"name": "note", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value: str, *, error: bool = False) -> dict[str, object]:
    return {"content": [{"type": "text", "text": value}], "isError": error}


for line in sys.stdin:
    message = json.loads(line)
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        continue
    if method == "initialize":
        info = {"name": "sloppy", "version": "1"}
        send(
            {
                "jsonrpc": "2.0",
                "id": ident,
                "result": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": info,
                },
            }
        )
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": TOOLS}})
    elif method == "tools/call":
        name = message["params"]["name"]
        arguments = message["params"].get("arguments") or {}
        if name in ("wipe", "note"):
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(json.dumps({"tool": name, "arguments": arguments}) + "\n")
            send({"jsonrpc": "2.0", "id": ident, "result": text("done")})
        elif name == "lookup":
            send({"jsonrpc": "2.0", "id": ident, "result": text("found")})
        elif name == "crashy":
            if arguments.get("n", 0) is None:
                sys.exit(3)
            ok = isinstance(arguments.get("n"), int)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": text("ok" if ok else "n must be an integer", error=not ok),
                }
            )
        elif name == "sleepy":
            if len(str(arguments.get("text", ""))) > 1000:
                continue  # never answers
            ok = isinstance(arguments.get("text", ""), str)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": text("ok" if ok else "text must be text", error=not ok),
                }
            )
        elif name == "strict":
            if set(arguments) != {"q"} or arguments["q"] not in ("a", "b"):
                send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": "bad q"}})
            else:
                send({"jsonrpc": "2.0", "id": ident, "result": text("ok")})
        elif name == "fine":
            ok = isinstance(arguments.get("flag"), bool)
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": text("ok" if ok else "flag must be true or false", error=not ok),
                }
            )
    else:
        send({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "Method not found"}})
