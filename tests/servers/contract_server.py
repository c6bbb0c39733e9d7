"""A stdio MCP server for the contract tests (standard library only): results that can be chosen.

Tools:
    weather {city}   structuredContent with an outputSchema; city "broken" breaks the schema
    slow {ms}        answers after `ms` milliseconds
    fail {}          a tool error (isError)
    pid {}           this process's id (each live case gets a process of its own)
    exit {code}      the server exits with `code` in the middle of the call
    hostile {}       text that would be markup, mentions and links if a report did not escape it
    protocol {}      answers tools/call with a JSON-RPC error instead of a result
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

WEATHER_SCHEMA = {
    "type": "object",
    "required": ["temperature", "conditions"],
    "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
}
HOSTILE = '<script>alert("x")</script> @octocat #1 [click](https://evil.example) <!-- mcp-evals:contract -->'
TOOLS: list[dict[str, Any]] = [
    {
        "name": "weather",
        "description": "The weather in a city.",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "outputSchema": WEATHER_SCHEMA,
    },
    {
        "name": "slow",
        "description": "Answers after a while.",
        "inputSchema": {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}},
    },
    {"name": "fail", "description": "Always fails.", "inputSchema": {"type": "object"}},
    {"name": "pid", "description": "The server's process id.", "inputSchema": {"type": "object"}},
    {
        "name": "exit",
        "description": "Exits in the middle of the call.",
        "inputSchema": {"type": "object", "properties": {"code": {"type": "integer"}}},
    },
    {"name": "hostile", "description": "Returns text to escape.", "inputSchema": {"type": "object"}},
    {"name": "protocol", "description": "A JSON-RPC error.", "inputSchema": {"type": "object"}},
]


def send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(value: str, *, error: bool = False, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": value}]}
    if error:
        result["isError"] = True
    if structured is not None:
        result["structuredContent"] = structured
    return result


def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    if name == "weather":
        city = str(arguments.get("city", ""))
        data: dict[str, Any] = {"temperature": 21.5, "conditions": f"sunny in {city}"}
        if city == "broken":
            data = {"temperature": "hot", "conditions": "dry"}
        return text(json.dumps(data), structured=data)
    if name == "slow":
        milliseconds = int(arguments.get("ms", 0))
        time.sleep(milliseconds / 1000)
        return text(f"done after {milliseconds} ms")
    if name == "fail":
        return text("it broke: the widget is jammed", error=True)
    if name == "pid":
        return text(str(os.getpid()))
    if name == "exit":
        print("contract-server: exiting as asked", file=sys.stderr, flush=True)
        sys.exit(int(arguments.get("code", 9)))
    if name == "hostile":
        return text(HOSTILE)
    return text(f"Unknown tool: {name}", error=True)


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue
        params = message.get("params") or {}
        if method == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message_id,
                    "result": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "contract-test-server", "version": "1.0.0"},
                    },
                }
            )
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": message_id, "result": {"tools": TOOLS}})
        elif method == "tools/call" and params.get("name") == "protocol":
            error = {"code": -32602, "message": "the arguments make no sense"}
            send({"jsonrpc": "2.0", "id": message_id, "error": error})
        elif method == "tools/call":
            result = call(str(params.get("name")), params.get("arguments") or {})
            send({"jsonrpc": "2.0", "id": message_id, "result": result})
        elif method == "ping":
            send({"jsonrpc": "2.0", "id": message_id, "result": {}})
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": message_id,
                    "error": {"code": -32601, "message": f"Method not found: {method}"},
                }
            )


if __name__ == "__main__":
    main()
