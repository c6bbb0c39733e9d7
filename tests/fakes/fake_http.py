"""A scriptable HTTP server on 127.0.0.1 for the fake model APIs.

A real server (stdlib ``ThreadingHTTPServer`` in a thread, HTTP/1.1 keep-alive), so the providers'
real httpx code, headers, timeouts and connection handling are exercised. Each request is recorded;
``script`` queues misbehaviours for requests that match a predicate:

    fake.script(fake.rate_limited(retry_after="0"), when=query_is("…"), times=2)
    fake.script(Drop(), times=1)                  # the next request loses its connection
    fake.script(Slow(2.0))                        # answers after the client's timeout
    fake.script(fake.unauthorized(), when=after(5), times=None)   # 401 from the 6th request on
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    number: int  # 1-based arrival order
    at: float = field(default_factory=time.monotonic)

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None

    @property
    def query(self) -> str | None:
        """The user message of a Messages / Chat Completions request."""
        data = self.json
        if not isinstance(data, dict):
            return None
        for message in reversed(data.get("messages") or []):
            if isinstance(message, dict) and message.get("role") == "user":
                content = message.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return None


@dataclass
class Reply:
    """A complete HTTP response. ``on_send`` runs just before it is sent: what the answer changes in
    the fake (a prompt cache entry) exists from then on, as with the real APIs."""

    status: int
    body: Any = None  # JSON-serializable, or bytes
    headers: dict[str, str] = field(default_factory=dict)
    on_send: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body).encode("utf-8") if self.body is not None else b""


@dataclass
class Slow:
    """Answer normally, but only after ``seconds`` (longer than the client's timeout)."""

    seconds: float


@dataclass
class Drop:
    """Close the connection without answering."""


@dataclass
class Truncated:
    """Promise a long body, send a piece of it, close."""


@dataclass
class Malformed:
    """A 200 whose body is not valid JSON."""


Action = Reply | Slow | Drop | Truncated | Malformed
Predicate = Callable[[Recorded], bool]


@dataclass
class Rule:
    action: Action
    when: Predicate
    times: int | None  # None: forever


def query_is(text: str) -> Predicate:
    return lambda request: request.query == text


def query_contains(text: str) -> Predicate:
    return lambda request: text in (request.query or "")


def after(count: int) -> Predicate:
    """Requests after the first ``count`` (to the model endpoint)."""
    return lambda request: request.number > count


def path_is(path: str) -> Predicate:
    return lambda request: request.path == path


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and the client's
        # delayed ACK add ~40 ms to every response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        self.server.fake.dispatch(self)

    def do_GET(self) -> None:
        self.server.fake.dispatch(self)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    fake: FakeServer


class FakeServer:
    """Base of the fake APIs: recording, scripting, latency, and the HTTP plumbing."""

    def __init__(self, *, latency: float = 0.0) -> None:
        self.latency = latency
        self.requests: list[Recorded] = []
        self.rules: list[Rule] = []
        self.lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._counter = 0
        self._model_requests = 0

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self, port: int = 0) -> FakeServer:
        server = _Server(("127.0.0.1", port), _Handler)
        server.fake = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *_: Any) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting -------------------------------------------------------------------------------

    def script(self, action: Action, *, when: Predicate | None = None, times: int | None = 1) -> None:
        """Misbehave for matching requests (by default: requests to the model endpoint)."""
        with self.lock:
            self.rules.append(Rule(action, when or self.is_model_request, times))

    def model_requests(self) -> list[Recorded]:
        """Requests to the answering endpoint (not counting, batches or polls)."""
        return [request for request in self.requests if self.is_model_request(request)]

    def is_model_request(self, request: Recorded) -> bool:
        return False

    def _rule_for(self, request: Recorded) -> Action | None:
        with self.lock:
            for rule in self.rules:
                if rule.times == 0 or not rule.when(request):
                    continue
                if rule.times is not None:
                    rule.times -= 1
                return rule.action
        return None

    # -- HTTP --------------------------------------------------------------------------------------

    def handle(self, request: Recorded) -> Reply:
        raise NotImplementedError

    def dispatch(self, handler: _Handler) -> None:
        arrived = time.monotonic()
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in handler.headers.items()}
        with self.lock:
            request = Recorded(handler.command, handler.path, headers, body, number=0, at=arrived)
            if self.is_model_request(request):
                self._model_requests += 1
                request.number = self._model_requests
            self.requests.append(request)
        action = self._rule_for(request)
        # The latency runs from the request's arrival and the answer is made meanwhile, so it leaves
        # after exactly `latency` however long making it took: a benchmark must not time its fake.
        ready = arrived + (self.latency if self.latency and self.is_model_request(request) else 0.0)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
            if isinstance(action, Drop):
                _sleep_until(ready)
                self._drop(handler)
                return
            if isinstance(action, Slow):
                _sleep_until(ready)
                time.sleep(action.seconds)
                self._send(handler, self.handle(request))
                return
            if isinstance(action, Truncated):
                _sleep_until(ready)
                handler.send_response(200)
                handler.send_header("content-type", "application/json")
                handler.send_header("content-length", "4096")
                handler.end_headers()
                handler.wfile.write(b'{"id":"msg_truncated","type":"message","content":[{"type":')
                handler.wfile.flush()
                self._drop(handler)
                return
            if isinstance(action, Malformed):
                _sleep_until(ready)
                self._send(handler, Reply(200, b'{"id": "x", "content": [ {"type": "tool_use", "name"'))
                return
            reply = action if isinstance(action, Reply) else self.handle(request)
            _sleep_until(ready)
            self._send(handler, reply)

    def _drop(self, handler: _Handler) -> None:
        handler.close_connection = True
        with contextlib.suppress(OSError):
            handler.connection.shutdown(socket.SHUT_RDWR)

    def request_id(self, prefix: str) -> str:
        with self.lock:
            self._counter += 1
            return f"{prefix}{self._counter:06d}"

    def _send(self, handler: _Handler, reply: Reply) -> None:
        if reply.on_send is not None:
            reply.on_send()
        payload = reply.payload()
        handler.send_response(reply.status)
        headers = {"content-type": "application/json", **reply.headers}
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.send_header("content-length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)
        handler.wfile.flush()


def _sleep_until(moment: float) -> None:
    left = moment - time.monotonic()
    if left > 0:
        time.sleep(left)


@contextlib.contextmanager
def running(fake: FakeServer) -> Iterator[FakeServer]:
    fake.start()
    try:
        yield fake
    finally:
        fake.stop()
