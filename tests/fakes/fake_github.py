"""A fake GitHub REST API: a real HTTP server on 127.0.0.1 speaking the wire format the Action uses.

Issue comments (list with ``Link`` paging, create, update), the open-PR lookup, token checks, and
scriptable failures: a read-only token (403), rate limits (primary and secondary), and GitHub's 422 for
a body over 65,536 characters. Every request is recorded for assertions.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
PERSON = {"login": "octocat", "id": 583231, "type": "User"}


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    at: float = field(default_factory=time.monotonic)


@dataclass
class FakeGitHub:
    """State and knobs of the fake; ``url`` is the API root to put in ``GITHUB_API_URL``."""

    token: str = "ghs_fake-workflow-token-0123456789"
    comments: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # issue number → comments
    pulls: list[dict[str, Any]] = field(default_factory=list)  # open PRs: {"number", "head": {"label"}}
    read_only: bool = False  # writes answer 403 like a fork PR's token
    secondary_rate_limited: int = 0  # this many next requests answer 403 + retry-after (secondary limit)
    rate_limited: int = 0  # this many next requests answer 429 + retry-after
    retry_after: str = "0"  # the retry-after of those two limits, in seconds
    primary_rate_limited: int = 0  # this many next requests answer 403 + x-ratelimit-remaining: 0 …
    resets_in: float = 0.0  # … and an x-ratelimit-reset (epoch seconds) this far from now
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _next_id: int = 1000
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- helpers for tests
    def add_comment(
        self, number: int, body: str, user: dict[str, Any] | None = None, association: str = "CONTRIBUTOR"
    ) -> dict[str, Any]:
        with self._lock:
            self._next_id += 1
            comment = {
                "id": self._next_id,
                "node_id": f"IC_{self._next_id}",
                "html_url": f"https://github.com/octo/helpdesk/pull/{number}#issuecomment-{self._next_id}",
                "body": body,
                "user": user or PERSON,
                "author_association": association,  # the author's relation to the repository
                "created_at": "2026-11-30T12:00:00Z",
                "updated_at": "2026-11-30T12:00:00Z",
            }
            self.comments.setdefault(number, []).append(comment)
            return comment

    def writes(self) -> list[Request]:
        return [request for request in self.requests if request.method in ("POST", "PATCH")]

    def comment_bodies(self, number: int) -> list[str]:
        return [str(comment["body"]) for comment in self.comments.get(number, [])]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # -- plumbing
    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("X-GitHub-Request-Id", "F00D:1234:5678")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        self._send(
            status,
            {"message": message, "documentation_url": "https://docs.github.com/rest", "status": str(status)},
            headers,
        )

    def _handle(self, method: str) -> None:
        fake = self.server.fake
        parsed = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        fake.requests.append(
            Request(
                method, parsed.path, urllib.parse.parse_qs(parsed.query), dict(self.headers.items()), body
            )
        )
        if self.headers.get("Authorization") not in (f"Bearer {fake.token}", f"token {fake.token}"):
            return self._error(401, "Bad credentials")
        if fake.rate_limited:
            fake.rate_limited -= 1
            return self._error(429, "API rate limit exceeded", {"retry-after": fake.retry_after})
        if fake.secondary_rate_limited:
            fake.secondary_rate_limited -= 1
            return self._error(
                403,
                "You have exceeded a secondary rate limit. Please wait a few minutes.",
                {"retry-after": fake.retry_after},
            )
        if fake.primary_rate_limited:
            fake.primary_rate_limited -= 1
            reset = int(time.time() + fake.resets_in)
            return self._error(
                403,
                "API rate limit exceeded for installation ID 41898282.",
                {
                    "x-ratelimit-limit": "1000",
                    "x-ratelimit-remaining": "0",
                    "x-ratelimit-used": "1000",
                    "x-ratelimit-reset": str(reset),
                    "x-ratelimit-resource": "core",
                },
            )
        parts = parsed.path.strip("/").split("/")
        # /repos/{owner}/{repo}/issues/{n}/comments
        if len(parts) == 6 and parts[0] == "repos" and parts[3] == "issues" and parts[5] == "comments":
            number = int(parts[4])
            if method == "GET":
                return self._list_comments(number, urllib.parse.parse_qs(parsed.query), parsed.path)
            if method == "POST":
                return self._create(number, body)
        # /repos/{owner}/{repo}/issues/comments/{id}
        if len(parts) == 6 and parts[3] == "issues" and parts[4] == "comments" and method == "PATCH":
            return self._update(int(parts[5]), body)
        # /repos/{owner}/{repo}/pulls?head=owner:branch&state=open
        if len(parts) == 4 and parts[3] == "pulls" and method == "GET":
            query = urllib.parse.parse_qs(parsed.query)
            head = query.get("head", [""])[0]
            found = [
                pull for pull in fake.pulls if pull["head"]["label"] == head and pull.get("state") == "open"
            ]
            return self._send(200, found)
        return self._error(404, "Not Found")

    def _list_comments(self, number: int, query: dict[str, list[str]], path: str) -> None:
        fake = self.server.fake
        per_page = min(int(query.get("per_page", ["30"])[0]), 100)
        page = int(query.get("page", ["1"])[0])
        comments = fake.comments.get(number, [])
        chunk = comments[(page - 1) * per_page : page * per_page]
        last = max((len(comments) + per_page - 1) // per_page, 1)
        links = []
        if page < last:
            links.append(f'<{fake.url}{path}?per_page={per_page}&page={page + 1}>; rel="next"')
            links.append(f'<{fake.url}{path}?per_page={per_page}&page={last}>; rel="last"')
        if page > 1:
            links.append(f'<{fake.url}{path}?per_page={per_page}&page=1>; rel="first"')
            links.append(f'<{fake.url}{path}?per_page={per_page}&page={page - 1}>; rel="prev"')
        self._send(200, chunk, {"Link": ", ".join(links)} if links else None)

    def _check_write(self, body: Any) -> str | None:
        fake = self.server.fake
        if fake.read_only:
            self._error(403, "Resource not accessible by integration")
            return None
        if not isinstance(body, dict) or not isinstance(body.get("body"), str):
            self._error(422, "Invalid request.\n\nNo body given.")
            return None
        text = str(body["body"])
        if len(text) > 65536:
            self._error(422, "Validation Failed: body is too long (maximum is 65536 characters)")
            return None
        return text

    def _create(self, number: int, body: Any) -> None:
        text = self._check_write(body)
        if text is not None:
            self._send(201, self.server.fake.add_comment(number, text, BOT, "NONE"))

    def _update(self, comment_id: int, body: Any) -> None:
        text = self._check_write(body)
        if text is None:
            return
        for comments in self.server.fake.comments.values():
            for comment in comments:
                if comment["id"] == comment_id:
                    comment["body"] = text
                    comment["updated_at"] = "2026-11-30T13:00:00Z"
                    return self._send(200, comment)
        self._error(404, "Not Found")

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, fake: FakeGitHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.fake = fake


class RunningFakeGitHub:
    """Context manager: serve a ``FakeGitHub`` on a free loopback port in a background thread."""

    def __init__(self, fake: FakeGitHub | None = None) -> None:
        self.fake = fake or FakeGitHub()
        self._server = _Server(self.fake)
        self.fake.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self.fake

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
