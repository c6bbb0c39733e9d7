"""A small fake Anthropic Messages API on 127.0.0.1 for the Action's tests.

It speaks the real wire format (``x-api-key``, ``request-id``, ``tool_use`` content blocks, usage with
the cache counters) and picks the tool whose name appears in the user's query (else the first tool),
so a run's outcome is predictable. It records the key each request carried: that is how the tests
see that the key reached the eval, and only the eval. ``fail_after`` answers 401 from that request on
(a revoked key mid-run: the runner stops and the run is PRELIMINARY).
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeAnthropic:
    key: str
    fail_after: int | None = None
    keys_seen: list[str] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)


def _query(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content if isinstance(block, dict))


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        fake = self.server.fake
        body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        with fake._lock:
            fake.keys_seen.append(self.headers.get("x-api-key", ""))
            fake.bodies.append(body)
            count = len(fake.bodies)
        if self.path != "/v1/messages":
            return self._send(
                404, {"type": "error", "error": {"type": "not_found_error", "message": "Not found"}}
            )
        revoked = fake.fail_after is not None and count > fake.fail_after
        if self.headers.get("x-api-key") != fake.key or revoked:
            error = {"type": "authentication_error", "message": "invalid x-api-key"}
            return self._send(401, {"type": "error", "error": error, "request_id": "req_401"})
        tools = [tool["name"] for tool in body.get("tools", [])]
        query = _query(body)
        chosen = next((name for name in sorted(tools, key=len, reverse=True) if name in query), tools[0])
        self._send(
            200,
            {
                "id": f"msg_{uuid.uuid4().hex[:24]}",
                "type": "message",
                "role": "assistant",
                "model": body.get("model", "claude-opus-4-8"),
                "content": [{"type": "tool_use", "id": f"toolu_{count:04d}", "name": chosen, "input": {}}],
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {
                    "input_tokens": 1200,
                    "output_tokens": 40,
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                },
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeAnthropic) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class RunningFakeAnthropic:
    def __init__(self, fake: FakeAnthropic) -> None:
        self.fake = fake
        self._server = _Server(fake)
        fake.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self.fake

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
