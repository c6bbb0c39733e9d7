"""A session with one MCP server through the SDK: the handshake, the listing, tool calls, the
client's identity and capabilities, and what an SDK failure means in words.

mcp-evals introduces itself as ``mcp-evals`` with its version and declares the client capabilities
the config names (``client:``), because servers may offer different tools to different clients.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc

from mcp_evals._version import __version__
from mcp_evals.catalog.model import ServerInfo
from mcp_evals.config.model import ClientOptions, Config, ServerConfig
from mcp_evals.errors import McpEvalsError, ServerError, ToolCallError
from mcp_evals.servers.model import CLIENT_NAME, ToolResult

_MAX_PAGES = 1000


_POLL = 0.01


# The SDK's own per-request timeout is a backstop behind ours, so ours always speaks first.
_SDK_TIMEOUT_SLACK = 5.0


_HANDSHAKE = "start-up and handshake"


class ServerSession:
    """An open MCP session with one server, made by ``open_session``.

    ``info`` holds what the server said in the handshake and, once listed, its tools in the wire
    shape. Every failure is a ``ServerError``: a ``ToolCallError`` when only that call failed (a
    protocol error, no answer in time), a plain ``ServerError`` when the server is gone.
    """

    def __init__(self, opening: _Opening, client: Any, info: ServerInfo) -> None:
        self._opening = opening
        self._client = client
        self.info = info
        self.called: list[str] = []  # every tool call sent, in order (what a run may have changed)

    @property
    def server(self) -> ServerConfig:
        return self._opening.server

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every page of ``tools/list`` (wire shape), within the server's ``timeout``; updates ``info``."""
        progress = _Progress("tools/list")
        timeout = self.server.timeout
        with anyio.move_on_after(timeout) as deadline:
            try:
                await self._read_tools(progress)
            except Exception as error:  # every failure becomes one clear message
                _reraise_our_own(error)
                raise await self._opening.explain(error, progress.stage) from None
        if deadline.cancelled_caught:
            raise ToolCallError(
                self.server.name, f"no answer to {progress.stage} within {timeout:g} s", timed_out=True
            )
        return self.info.tools

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float
    ) -> ToolResult:
        """Call one tool (by the server's own name) and wait at most ``timeout`` seconds.

        A tool that fails answers with ``is_error`` set: that is a result, not an exception.
        """
        stage = f"tools/call {name!r}"
        self.called.append(name)
        started = time.perf_counter()
        with anyio.move_on_after(timeout) as deadline:
            try:
                wire = await self._call(name, arguments or {}, timeout)
            except Exception as error:
                _reraise_our_own(error)
                raise await self._opening.explain(error, stage) from None
        if deadline.cancelled_caught:
            raise ToolCallError(
                self.server.name, f"no answer to {stage} within {_seconds(timeout)}", timed_out=True
            )
        latency_ms = (time.perf_counter() - started) * 1000
        return ToolResult(
            content=[block for block in wire.get("content", []) if isinstance(block, dict)],
            structured_content=wire.get("structuredContent"),
            is_error=bool(wire.get("isError", False)),
            latency_ms=latency_ms,
        )

    async def _call(self, name: str, arguments: dict[str, Any], timeout: float) -> dict[str, Any]:
        """One ``tools/call`` through the SDK: its result in the wire shape (``None`` values left out)."""
        result = await self._client.call_tool(
            name, arguments, read_timeout_seconds=timeout + _SDK_TIMEOUT_SLACK
        )
        wire: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        return wire

    async def _read_extras(self, progress: _Progress) -> None:
        """Resources, resource templates and prompts into ``info`` (as ``listing.Lister.list_extras``)."""
        from mcp_evals.servers.listing import EXTRA_LISTS, EXTRAS_TIMEOUT

        capabilities = self.info.capabilities
        readers = {
            "resources/list": self._client.list_resources,
            "resources/templates/list": self._client.list_resource_templates,
            "prompts/list": self._client.list_prompts,
        }
        found: dict[str, list[dict[str, Any]] | None] = {}
        for key, method, _, capability in EXTRA_LISTS:
            found[key] = None if capabilities is None else []
            if capabilities is None or capability not in capabilities:
                continue
            progress.stage = method
            found[key] = None
            with anyio.move_on_after(EXTRAS_TIMEOUT):
                try:
                    found[key] = await _every_page(readers[method], key)
                except Exception as error:  # not what the catalog needs: not recorded, never a failure
                    _reraise_our_own(error)
        self.info = self.info.model_copy(update=found)

    async def _read_tools(self, progress: _Progress) -> None:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen_cursors: set[str] = set()
        name = self.server.name
        for page_number in range(1, _MAX_PAGES + 1):
            progress.stage = "tools/list" if page_number == 1 else f"tools/list (page {page_number})"
            page = await self._client.list_tools(cursor=cursor)
            tools.extend(
                tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in page.tools
            )
            cursor = page.next_cursor
            if cursor is None:
                self.info = self.info.model_copy(update={"tools": tools})
                return
            if cursor in seen_cursors:
                raise ServerError(
                    name, f"tools/list returned the cursor {cursor!r} twice; it would never end"
                )
            seen_cursors.add(cursor)
        raise ServerError(name, f"tools/list returned more than {_MAX_PAGES} pages; is the cursor stuck?")


async def _every_page(read: Any, attribute: str) -> list[dict[str, Any]] | None:
    """Every page of one SDK list call, in the wire shape; None when its cursors never end."""
    entries: list[dict[str, Any]] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(_MAX_PAGES):
        page = await read(cursor=cursor)
        entries += [
            entry.model_dump(mode="json", by_alias=True, exclude_none=True)
            for entry in getattr(page, attribute)
        ]
        cursor = page.next_cursor
        if cursor is None:
            return entries
        if cursor in seen:
            return None
        seen.add(cursor)
    return None


@dataclass
class _Progress:
    """How far a connection got, so a failure can say where it stopped."""

    stage: str = _HANDSHAKE


class _Opening:
    """Opens one connection in its own task and holds it open until ``closing`` is set."""

    def __init__(self, server: ServerConfig, config: Config) -> None:
        self.server = server
        self.config = config
        self.ready = anyio.Event()
        self.closing = anyio.Event()
        self.session: ServerSession | None = None
        self.failure: BaseException | None = None
        self.timed_out = False
        self.progress = _Progress()

    async def run(self, list_tools: bool) -> None:
        try:
            await self.connect(list_tools)
        except Exception as error:
            if self.session is None:
                self.failure = error
            # Once a session was handed out, errors while closing it tell the caller nothing.
        finally:
            self.ready.set()

    async def connect(self, list_tools: bool) -> None:
        raise NotImplementedError

    async def hold(self, client: Any, transport: str, list_tools: bool) -> None:
        """The handshake is done: list the tools, hand the session out, wait until it is closed."""
        info = client.server_info
        session = ServerSession(
            self,
            client,
            ServerInfo(
                name=self.server.name,
                transport=transport,
                server_name=getattr(info, "name", None),
                server_version=getattr(info, "version", None),
                protocol_version=client.protocol_version,
                instructions=client.instructions,
                prefix=self.server.prefix,
                client_capabilities=list(self.config.client.capabilities),
                capabilities=_declared(client),
            ),
        )
        # The SDK checks structured results against the tool's output schema and turns a mismatch
        # into a RuntimeError that loses the result; contract tests judge that themselves and must
        # see what the server sent.
        client.session.validate_tool_result = _accept_result
        if list_tools:
            await session._read_tools(self.progress)
            await session._read_extras(self.progress)
        self.session = session
        self.ready.set()
        await self.closing.wait()

    async def failure_error(self) -> McpEvalsError:
        """The one error that explains why the session could not be opened."""
        raise NotImplementedError

    async def explain(self, error: BaseException, stage: str) -> ServerError:
        """The error for a request that failed in an open session."""
        raise NotImplementedError


def _declared(client: Any) -> dict[str, Any] | None:
    """The server's capabilities in the wire shape (None when the SDK has none to give)."""
    try:
        capabilities = client.server_capabilities
    except Exception:  # not connected in the way the SDK expects: nothing recorded
        return None
    dumped = capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped if isinstance(dumped, dict) else None


async def _accept_result(name: str, result: Any) -> None:
    """Stands in for the SDK's output-schema check (see ``_Opening.hold``)."""


def _client(target: Any, mode: str, timeout: float, config: Config) -> Any:
    from mcp import Client
    from mcp.types import Implementation

    # `auto` probes the 2026 `server/discover` and falls back to the `initialize` handshake, which
    # is what servers on older SDKs (most npm servers) speak; checked against both eras.
    return Client(
        target,
        mode=mode,
        cache=None,
        read_timeout_seconds=timeout,
        client_info=Implementation(name=CLIENT_NAME, version=__version__),
        **_capability_callbacks(config.client, config),
    )


def _capability_callbacks(options: ClientOptions, config: Config) -> dict[str, Any]:
    """The SDK declares a capability when its callback is given: one per declared capability.

    mcp-evals is a test harness, not an agent: it answers ``roots/list`` with the configured
    folders, declines elicitations and refuses sampling, so a tool that needs them reports it.
    """
    from mcp.types import INVALID_REQUEST, ElicitResult, ErrorData, ListRootsResult, Root

    callbacks: dict[str, Any] = {}
    if "roots" in options.capabilities:
        roots = [config.resolve(folder).resolve() for folder in options.roots]

        async def list_roots(context: Any) -> Any:
            return ListRootsResult(roots=[Root(uri=path.as_uri(), name=path.name) for path in roots])

        callbacks["list_roots_callback"] = list_roots
    if "sampling" in options.capabilities:

        async def sampling(context: Any, params: Any) -> Any:
            return ErrorData(
                code=INVALID_REQUEST,
                message="mcp-evals is a test client: it does not answer sampling requests",
            )

        callbacks["sampling_callback"] = sampling
    if "elicitation" in options.capabilities:

        async def elicitation(context: Any, params: Any) -> Any:
            return ElicitResult(action="decline")

        callbacks["elicitation_callback"] = elicitation
    return callbacks


def _seconds(timeout: float) -> str:
    return f"{timeout * 1000:g} ms" if timeout < 1 else f"{timeout:g} s"


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _leaf(error: BaseException) -> BaseException:
    """The most telling exception inside nested ExceptionGroups (anyio task groups wrap every error)."""
    leaves = [leaf for leaf in _leaves(error) if not isinstance(leaf, anyio.get_cancelled_exc_class())]
    return leaves[0] if leaves else error


def _reraise_our_own(error: BaseException) -> None:
    """An McpEvalsError raised inside the SDK's task groups comes back wrapped; raise it as it was."""
    for leaf in _leaves(error):
        if isinstance(leaf, McpEvalsError):
            raise leaf from None


def _is_connection_closed(error: BaseException) -> bool:
    leaf = _leaf(error)
    if isinstance(leaf, anyio.EndOfStream | anyio.ClosedResourceError | anyio.BrokenResourceError):
        return True
    if "mcp" not in sys.modules:  # the catalog path never loads the SDK: none of its errors exist
        return False
    from mcp import MCPError
    from mcp.types import CONNECTION_CLOSED

    return isinstance(leaf, MCPError) and leaf.code == CONNECTION_CLOSED


def _describe(error: BaseException) -> str:
    from pydantic import ValidationError

    from mcp_evals.servers.listing import RpcError

    leaf = _leaf(error)
    if isinstance(leaf, RpcError):
        return f"the server answered with error {leaf.code}: {_quote(leaf.message.encode('utf-8'))}"
    if "mcp" in sys.modules and isinstance(leaf, sys.modules["mcp"].MCPError):
        return f"the server answered with error {leaf.code}: {_quote(leaf.message.encode('utf-8'))}"
    if isinstance(leaf, ValidationError):
        problems = leaf.errors()
        if not problems:
            return f"its answer is not a valid MCP message ({leaf})"
        location = ".".join(str(part) for part in problems[0]["loc"])
        return f"its answer is not a valid MCP message ({location}: {problems[0]['msg']})"
    return f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__


def _rpc_code(error: BaseException) -> int | None:
    """The JSON-RPC error code the server answered with, if that is what ``error`` is."""
    from mcp_evals.servers.listing import RpcError

    leaf = _leaf(error)
    if isinstance(leaf, RpcError) or ("mcp" in sys.modules and isinstance(leaf, sys.modules["mcp"].MCPError)):
        return leaf.code if isinstance(leaf.code, int) else None
    return None


def _quote(raw: bytes, limit: int = 200) -> str:
    """Untrusted server output, shortened and with control characters made visible."""
    text = raw.decode("utf-8", errors="replace")
    shown = text[:limit] + ("…" if len(text) > limit else "")
    return repr(shown)
