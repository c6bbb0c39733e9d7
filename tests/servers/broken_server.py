"""A stdio "server" that misbehaves in one chosen way, for the catalog's error tests (stdlib only).

python broken_server.py exit          # says why on stderr and exits 3 at once
python broken_server.py hang          # reads stdin, never answers
python broken_server.py garbage       # writes a banner to stdout instead of JSON-RPC, then waits
python broken_server.py crash-on-list # answers the handshake, then dies on tools/list
python broken_server.py error-on-list # answers the handshake, then answers tools/list with an error
python broken_server.py crash-on-call # lists one tool, `explode`; dies when it is called
python broken_server.py whoami        # lists one tool, `whoami`, whose description is the initialize params
"""

from __future__ import annotations

import json
import sys
import time


def reply(message_id: object, result: object = None, error: object = None) -> None:
    body = {"jsonrpc": "2.0", "id": message_id}
    body.update({"error": error} if error is not None else {"result": result})
    sys.stdout.write(json.dumps(body) + "\n")
    sys.stdout.flush()


def handshake_then(on_list: str) -> None:
    initialize_params: dict[str, object] = {}
    for line in sys.stdin:
        message = json.loads(line)
        method, message_id = message.get("method"), message.get("id")
        if message_id is None:
            continue  # a notification
        if method == "initialize":
            initialize_params.update(message.get("params") or {})
            reply(
                message_id,
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "broken-test-server", "version": "0.0.1"},
                },
            )
        elif method == "tools/list":
            if on_list == "crash":
                print("fatal: the tool registry is corrupt", file=sys.stderr, flush=True)
                sys.exit(70)
            if on_list in ("crash-on-call", "whoami"):
                name = "explode" if on_list == "crash-on-call" else "whoami"
                described = json.dumps(initialize_params, sort_keys=True)
                tool = {"name": name, "description": described, "inputSchema": {"type": "object"}}
                reply(message_id, {"tools": [tool]})
                continue
            reply(message_id, error={"code": -32603, "message": "registry unavailable"})
        elif method == "tools/call" and on_list == "crash-on-call":
            print("fatal: explode was called", file=sys.stderr, flush=True)
            sys.exit(71)
        else:  # server/discover and anything else: the 2025 answer for an unknown method
            reply(message_id, error={"code": -32601, "message": f"Method not found: {method}"})


def main(mode: str) -> None:
    print(f"broken-test-server starting in mode {mode}", file=sys.stderr, flush=True)
    if mode == "exit":
        print("error: DATABASE_URL is not set", file=sys.stderr, flush=True)
        sys.exit(3)
    if mode == "hang":
        for _ in sys.stdin:
            pass
        time.sleep(3600)
    if mode == "garbage":
        print("Welcome to the broken server v0.0.1!", flush=True)
        for _ in sys.stdin:
            pass
        time.sleep(3600)
    if mode == "prompt":
        sys.stdout.write("Password: ")
        sys.stdout.flush()
        for _ in sys.stdin:
            pass
        time.sleep(3600)
    if mode == "crash-on-list":
        handshake_then("crash")
    if mode == "error-on-list":
        handshake_then("error")
    if mode in ("crash-on-call", "whoami"):
        handshake_then(mode)


if __name__ == "__main__":
    main(sys.argv[1])
