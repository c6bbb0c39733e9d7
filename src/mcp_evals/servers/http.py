"""HTTP servers: the SDK's Streamable HTTP transport, falling back to legacy SSE where the endpoint
rejects the Streamable HTTP POST; every failure described without a secret (no header value, no URL
query or credentials)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.config.variables import expand_variables
from mcp_evals.errors import McpEvalsError, ServerError, ToolCallError
from mcp_evals.redact import scrub as scrub_secrets
from mcp_evals.servers.session import (
    _HANDSHAKE,
    _client,
    _describe,
    _is_connection_closed,
    _leaf,
    _Opening,
    _Progress,
    _reraise_our_own,
)

# HTTP statuses that mean "no Streamable HTTP endpoint here" rather than "go away".
_SSL_REASON = re.compile(r"\[SSL(?:: ([A-Z0-9_]+))?\]")


_NOT_STREAMABLE = {400, 404, 405, 406, 415}


def redact_url(url: str) -> str:
    """The URL without credentials or query string, safe to print."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass
class _HttpTrace:
    """The HTTP answers seen, to explain an MCP error that lost its status code on the way up."""

    first_post_status: int | None = None
    error_status: int | None = None
    error_reason: str = ""

    async def on_response(self, response: Any) -> None:
        if response.request.method == "POST" and self.first_post_status is None:
            self.first_post_status = response.status_code
        if response.status_code >= 400 and self.error_status is None:
            self.error_status = response.status_code
            self.error_reason = response.reason_phrase or ""


class _NotStreamableHttp(Exception):
    """The endpoint rejected the Streamable HTTP POST in a way that means "not here"."""


class _HttpOpening(_Opening):
    def __init__(self, server: ServerConfig, config: Config) -> None:
        super().__init__(server, config)
        assert server.url is not None
        self.url = expand_variables(server.url, what=f"servers.{server.name}.url", header=True)
        self.headers = {
            key: expand_variables(value, what=f"servers.{server.name}.headers.{key}", header=True)
            for key, value in server.headers.items()
        }
        self.shown = redact_url(self.url)
        if urlsplit(self.url).scheme not in ("http", "https"):
            raise ServerError(server.name, f"url must start with http:// or https://, got {self.shown!r}")
        self.trace = _HttpTrace()
        self.fell_back_from: int | None = None
        self.used = "streamable-http" if server.transport != "sse" else "sse"

    async def connect(self, list_tools: bool) -> None:
        if self.used == "streamable-http":
            try:
                await self._over_streamable_http(list_tools)
                return
            except _NotStreamableHttp:
                if self.server.transport != "auto":
                    raise
            self.fell_back_from = self.trace.first_post_status
            self.used, self.trace, self.progress = "sse", _HttpTrace(), _Progress()
        await self._over_sse(list_tools)

    async def _over_streamable_http(self, list_tools: bool) -> None:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(
            headers=self.headers,
            timeout=self.server.timeout,
            event_hooks={"response": [self.trace.on_response]},
        ) as http:
            try:
                async with _client(
                    streamable_http_client(self.url, http_client=http),
                    "auto",
                    self.server.timeout,
                    self.config,
                ) as client:
                    await self.hold(client, "streamable-http", list_tools)
            except Exception as error:
                if (
                    self.session is None
                    and self.trace.first_post_status in _NOT_STREAMABLE
                    and self.progress.stage == _HANDSHAKE
                ):
                    raise _NotStreamableHttp from error
                raise

    async def _over_sse(self, list_tools: bool) -> None:
        import httpx2
        from mcp.client.sse import sse_client

        trace = self.trace

        def http_client(
            headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
        ) -> httpx2.AsyncClient:
            return httpx2.AsyncClient(
                headers=headers, timeout=timeout, auth=auth, event_hooks={"response": [trace.on_response]}
            )

        transport = sse_client(
            self.url, headers=self.headers, timeout=self.server.timeout, httpx_client_factory=http_client
        )
        # SSE is the 2024 transport; servers that still speak only it speak only the handshake.
        async with _client(transport, "legacy", self.server.timeout, self.config) as client:
            await self.hold(client, "sse", list_tools)

    async def failure_error(self) -> McpEvalsError:
        failure = self.failure
        if failure is not None:
            _reraise_our_own(failure)
        if isinstance(failure, _NotStreamableHttp):
            return ServerError(
                self.server.name,
                f"HTTP {self.trace.first_post_status} for the Streamable HTTP POST to {self.shown}",
                hint="check the URL path (often /mcp), or set `transport: sse` for a legacy SSE server",
            )
        if self.timed_out or failure is None:
            return ServerError(
                self.server.name,
                f"no answer from {self.shown} within {self.server.timeout:g} s "
                f"(stuck in {self.progress.stage}, over {self.used})",
                hint="raise `timeout:` for this server if it is only slow",
            )
        message, hint = _describe_http_failure(
            failure, self.trace, self.url, self.shown, self.used, self.progress.stage
        )
        message = self.scrub(message)
        if self.fell_back_from is not None:
            message += f"; the Streamable HTTP POST before it got HTTP {self.fell_back_from}"
            hint = "check the URL path (Streamable HTTP servers often serve /mcp, SSE servers /sse)"
        return ServerError(self.server.name, message, hint=hint)

    async def explain(self, error: BaseException, stage: str) -> ServerError:
        from mcp import MCPError

        leaf = _leaf(error)
        if isinstance(leaf, MCPError) and not _is_connection_closed(leaf):
            return ToolCallError(
                self.server.name, self.scrub(f"{stage} failed: {_describe(leaf)}"), code=leaf.code
            )
        message, hint = _describe_http_failure(error, self.trace, self.url, self.shown, self.used, stage)
        return ServerError(self.server.name, self.scrub(message), hint=hint)

    def scrub(self, text: str) -> str:
        """No header value and no part of the URL past what ``redact_url`` shows reaches a message."""
        parts = urlsplit(self.url)
        hidden = [parts.query, parts.netloc.rpartition("@")[0], self.url if self.url != self.shown else ""]
        return scrub_secrets(text, [*self.headers.values(), *hidden])


def _describe_http_failure(
    failure: BaseException, trace: _HttpTrace, url: str, shown: str, used: str, stage: str
) -> tuple[str, str | None]:
    """What went wrong over HTTP, and what to do about it."""
    import httpx2

    leaf = _leaf(failure)
    status = trace.error_status
    if isinstance(leaf, httpx2.HTTPStatusError):
        status = leaf.response.status_code
        trace.error_reason = leaf.response.reason_phrase or trace.error_reason
    if status in (401, 403):
        return (
            f"HTTP {status} {trace.error_reason} from {shown}: the server refused our credentials",
            "check `headers:` (e.g. `Authorization: Bearer ${TOKEN}`) and that the token is valid",
        )
    if status is not None:
        return f"HTTP {status} {trace.error_reason} from {shown} during {stage} (over {used})", None
    if isinstance(leaf, httpx2.ConnectError):
        tls = _tls_failure(leaf)
        if tls is not None and urlsplit(url).scheme == "https":
            return (
                f"the TLS handshake with {shown} failed ({tls})",
                "the port may serve plain HTTP: try an http:// URL, or check the server's certificate",
            )
        return (
            f"cannot connect to {shown} (connection refused or host unreachable)",
            "is the server running? Check `url:`",
        )
    if isinstance(leaf, httpx2.TimeoutException):
        return (
            f"{shown} did not answer in time during {stage} (over {used})",
            "raise `timeout:` for this server if it is only slow",
        )
    if _is_connection_closed(leaf):
        return f"the connection to {shown} closed during {stage} (over {used})", None
    return f"{stage} over {used} at {shown} failed: {_describe(leaf)}", None


def _tls_failure(error: BaseException) -> str | None:
    """The TLS reason behind a connection error (``WRONG_VERSION_NUMBER`` …), if TLS is what failed."""
    import ssl

    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    for link in chain:
        if isinstance(link, ssl.SSLError):
            return link.reason or type(link).__name__
    for link in chain:  # some transports keep only the text: "[SSL: WRONG_VERSION_NUMBER] wrong …"
        found = _SSL_REASON.search(str(link))
        if found:
            return found.group(1) or "SSL error"
    return None
