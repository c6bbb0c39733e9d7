"""A stdio MCP server (standard library only) that lists whatever tools a JSON file names, for the
hostile-server tests: schemas with remote references, names with line breaks or lone surrogates,
listings that page forever.

    python hostile_server.py SPEC.json

SPEC: ``{"tools": [...], "paging": null | "same-cursor" | "endless", "calls": {"tool": BEHAVIOUR}}``
where BEHAVIOUR is ``"hang"`` (never answers), ``{"text": "..."}`` or ``{"structured": {...}}``;
a tool not named there answers its arguments back as JSON text. Each started process appends its
pid to SPEC.pids, so a test can tell whether it is still alive, and each call's tool to SPEC.calls.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any


def reply(message_id: object, result: object) -> None:
    # ensure_ascii keeps lone surrogates as \\ud800 escapes, as a hostile server may send them
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message_id, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    spec_path = Path(sys.argv[1])
    spec: dict[str, Any] = json.loads(spec_path.read_text("utf-8"))
    with open(f"{spec_path}.pids", "a", encoding="utf-8") as pids:
        pids.write(f"{os.getpid()}\n")
    tools = spec.get("tools", [])
    paging = spec.get("paging")
    calls: dict[str, Any] = spec.get("calls", {})
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            reply(
                message_id,
                {
                    "protocolVersion": params.get("protocolVersion", "2025-06-18"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "0.0.1"},
                },
            )
        elif method == "tools/list":
            if paging == "same-cursor":
                reply(message_id, {"tools": tools, "nextCursor": "same-cursor"})
            elif paging == "endless":
                page = int(params.get("cursor") or 0)
                reply(message_id, {"tools": tools if page == 0 else [], "nextCursor": str(page + 1)})
            else:
                reply(message_id, {"tools": tools})
        elif method == "tools/call":
            name = params.get("name")
            with open(f"{spec_path}.calls", "a", encoding="utf-8") as called:
                called.write(f"{name}\n")
            behaviour = calls.get(name)
            if behaviour == "hang":
                continue
            if isinstance(behaviour, dict) and "structured" in behaviour:
                structured = behaviour["structured"]
                content = [{"type": "text", "text": json.dumps(structured)}]
                reply(message_id, {"content": content, "structuredContent": structured})
            elif isinstance(behaviour, dict):
                reply(message_id, {"content": [{"type": "text", "text": behaviour.get("text", "")}]})
            else:
                text = json.dumps(params.get("arguments") or {})
                reply(message_id, {"content": [{"type": "text", "text": text}]})
        elif method == "ping":
            reply(message_id, {})
        else:
            sys.stdout.write(
                json.dumps({"jsonrpc": "2.0", "id": message_id, "error": {"code": -32601, "message": "no"}})
                + "\n"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
