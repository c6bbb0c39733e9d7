"""Listing a stdio server's tools with plain JSON-RPC: the catalog path, without importing the SDK.

``mcp-evals catalog`` and ``validate`` only need the handshake and ``tools/list``. Importing the MCP
SDK costs more than most servers take to start (0.6–1 s on a 2-core machine: ``import mcp`` loads
its client, its server and every protocol version's models), so this path speaks the few messages
itself over our own stdio transport, the way the SDK's ``mode="auto"`` does: ``server/discover`` at
the newest protocol version, and the ``initialize`` handshake where the server does not know it.

Anything off the common road — a server that names other protocol versions, an answer this module
does not recognise — is not guessed at: the caller falls back to a full SDK session, which knows
every case (``NotHere``). Answers to the server's own requests (``roots/list``, ``ping``, sampling,
elicitation) are the same as the SDK session gives. tests/servers/test_listing.py checks that both
paths send the same handshake and list the same tools, and that the protocol versions here are the
SDK's.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from typing import Any

import anyio

from mcp_evals._version import __version__
from mcp_evals.catalog.model import ServerInfo, wire_problem
from mcp_evals.config.model import ClientOptions, Config, ServerConfig
from mcp_evals.errors import ServerError
from mcp_evals.servers.model import CLIENT_NAME

# The SDK's LATEST_MODERN_VERSION and the newest handshake version (mcp_types.version).
MODERN_VERSION = "2026-07-28"
HANDSHAKE_VERSION = "2025-11-25"
_META = "io.modelcontextprotocol/"
_MAX_PAGES = 1000
# How long one of the lists beside the tools (resources, templates, prompts) may take: a server that
# hangs on one of them still gives its tools.
EXTRAS_TIMEOUT = 5.0
_METHOD_NOT_FOUND = -32601
_INVALID_REQUEST = -32600


class NotHere(Exception):
    """This server needs what only the SDK does (another protocol version, an odd answer)."""


class RpcError(Exception):
    """The server answered a request with a JSON-RPC error."""

    def __init__(self, code: Any, message: Any) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = str(message)


def client_capabilities(options: ClientOptions) -> dict[str, Any]:
    """What the SDK declares for the capabilities the config names (one per callback it is given)."""
    declared: dict[str, Any] = {}
    if "sampling" in options.capabilities:
        declared["sampling"] = {}
    if "elicitation" in options.capabilities:
        declared["elicitation"] = {"form": {}, "url": {}}
    if "roots" in options.capabilities:
        declared["roots"] = {"listChanged": True}
    return declared


class Lister:
    """One stdio server's handshake and listing over raw JSON-RPC messages (dicts)."""

    def __init__(self, server: ServerConfig, config: Config, send: Any, receive: Any) -> None:
        self.server = server
        self.config = config
        self.send_stream = send
        self.receive_stream = receive
        self.next_id = 0
        self.capabilities = client_capabilities(config.client)
        self.client_info = {"name": CLIENT_NAME, "version": __version__}
        self.modern: str | None = None  # the modern protocol version, once adopted
        self.stage = "start-up and handshake"
        self.server_capabilities: dict[str, Any] | None = None  # as the handshake declared them
        self.notifications: list[str] = []  # the methods of the server's notifications, in order

    # -- requests ----------------------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        await self.send_stream.send(message)
        while True:
            incoming = await self.receive_stream.receive()
            if not isinstance(incoming, dict):
                raise NotHere("a message that is not a JSON object")
            if "method" in incoming:
                await self.answer(incoming)
                continue
            if incoming.get("id") != self.next_id:
                continue  # an answer to nothing we asked: the SDK ignores it too
            if "error" in incoming:
                error = incoming["error"] if isinstance(incoming["error"], dict) else {}
                raise RpcError(error.get("code"), error.get("message", ""))
            result = incoming.get("result")
            if not isinstance(result, dict):
                raise NotHere("a result that is not an object")
            return result

    async def answer(self, incoming: Mapping[str, Any]) -> None:
        """The server's own request (or notification) while we wait: answered as the SDK session does."""
        if "id" not in incoming:
            self.notifications.append(str(incoming.get("method")))
            return  # a notification (log messages, list changes)
        method = incoming.get("method")
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": incoming["id"]}
        if self.modern:  # a modern session takes no server requests over stdio: the SDK refuses them
            reply["error"] = {"code": _METHOD_NOT_FOUND, "message": "Method not found", "data": method}
        elif method == "ping":
            reply["result"] = {}
        elif method == "roots/list" and "roots" in self.config.client.capabilities:
            roots = [self.config.resolve(folder).resolve() for folder in self.config.client.roots]
            reply["result"] = {"roots": [{"uri": path.as_uri(), "name": path.name} for path in roots]}
        elif method == "elicitation/create" and "elicitation" in self.config.client.capabilities:
            reply["result"] = {"action": "decline"}
        elif method == "sampling/createMessage" and "sampling" in self.config.client.capabilities:
            message = "mcp-evals is a test client: it does not answer sampling requests"
            reply["error"] = {"code": _INVALID_REQUEST, "message": message}
        else:
            reply["error"] = {"code": _METHOD_NOT_FOUND, "message": "Method not found"}
        await self.send_stream.send(reply)

    def modern_params(self, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        meta = {
            f"{_META}protocolVersion": self.modern or MODERN_VERSION,
            f"{_META}clientInfo": self.client_info,
            f"{_META}clientCapabilities": self.capabilities,
        }
        return {**(extra or {}), "_meta": meta}

    # -- the handshake and the listing -------------------------------------------------------------

    async def handshake(self) -> ServerInfo:
        """``server/discover`` at the newest version, else the ``initialize`` handshake."""
        try:
            discovered = await self.request("server/discover", self.modern_params())
        except RpcError as error:
            if error.code == -32022:  # names the versions it speaks: the SDK's re-probe knows those
                raise NotHere("the server asks for another protocol version") from None
            return await self.initialize()
        supported = discovered.get("supportedVersions")
        if not isinstance(supported, list) or MODERN_VERSION not in supported:
            return await self.initialize()  # a legacy advertisement, as the SDK reads it
        self.modern = MODERN_VERSION
        self.server_capabilities = _capabilities(discovered)
        meta = discovered.get("_meta")
        server_info = meta.get(f"{_META}serverInfo") if isinstance(meta, dict) else None
        return self.info(server_info, MODERN_VERSION, discovered.get("instructions"))

    async def initialize(self) -> ServerInfo:
        params = {
            "protocolVersion": HANDSHAKE_VERSION,
            "capabilities": self.capabilities,
            "clientInfo": self.client_info,
        }
        try:
            result = await self.request("initialize", params)
        except RpcError as error:
            if error.code == -32022:
                raise NotHere("the server asks for another protocol version") from None
            raise
        await self.send_stream.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.server_capabilities = _capabilities(result)
        version = result.get("protocolVersion")
        if not isinstance(version, str):
            raise NotHere("an initialize result without a protocol version")
        return self.info(result.get("serverInfo"), version, result.get("instructions"))

    def info(self, server_info: Any, version: str, instructions: Any) -> ServerInfo:
        details = server_info if isinstance(server_info, dict) else {}
        name, server_version = details.get("name"), details.get("version")
        return ServerInfo(
            name=self.server.name,
            transport="stdio",
            server_name=name if isinstance(name, str) else None,
            server_version=server_version if isinstance(server_version, str) else None,
            protocol_version=version,
            instructions=instructions if isinstance(instructions, str) else None,
            prefix=self.server.prefix,
            client_capabilities=list(self.config.client.capabilities),
            capabilities=self.server_capabilities,
        )

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for page_number in range(1, _MAX_PAGES + 1):
            self.stage = "tools/list" if page_number == 1 else f"tools/list (page {page_number})"
            params: dict[str, Any] | None = {"cursor": cursor} if cursor is not None else None
            if self.modern:
                params = self.modern_params(params)
            page = await self.request("tools/list", params)
            listed = page.get("tools")
            if not isinstance(listed, list) or not all(
                isinstance(tool, dict) and isinstance(tool.get("name"), str) for tool in listed
            ):
                raise NotHere("a tools/list result the SDK must judge")
            for tool in listed:
                problem = wire_problem(tool)
                if problem is not None:  # what the SDK refuses too, said plainly
                    raise ServerError(self.server.name, f"{self.stage}: {problem}", hint="fix the server")
            # the wire shape, as the SDK hands it out: top-level keys without a value are left out
            tools.extend({key: value for key, value in tool.items() if value is not None} for tool in listed)
            next_cursor = page.get("nextCursor")
            if next_cursor is None:
                return tools
            if not isinstance(next_cursor, str):
                raise NotHere("a cursor that is not text")
            if next_cursor in seen:
                raise ServerError(
                    self.server.name,
                    f"tools/list returned the cursor {next_cursor!r} twice; it would never end",
                )
            seen.add(next_cursor)
            cursor = next_cursor
        raise ServerError(
            self.server.name, f"tools/list returned more than {_MAX_PAGES} pages; is the cursor stuck?"
        )

    async def list_extras(self) -> dict[str, list[dict[str, Any]] | None]:
        """Resources, resource templates and prompts, each ``[]`` when its capability is not declared.

        They are what a model may also be shown, not what the catalog needs: a list the server fails
        to give is ``None`` (not recorded), never an error, and the conformance checks say why.
        """
        found: dict[str, list[dict[str, Any]] | None] = {}
        for key, method, field, capability in EXTRA_LISTS:
            if self.server_capabilities is None or capability not in self.server_capabilities:
                found[key] = None if self.server_capabilities is None else []
                continue
            self.stage = method
            found[key] = None
            with anyio.move_on_after(EXTRAS_TIMEOUT), suppress(RpcError, NotHere):
                found[key] = await self._every_page(method, field)
        return found

    async def _every_page(self, method: str, field: str) -> list[dict[str, Any]] | None:
        entries: list[dict[str, Any]] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(_MAX_PAGES):
            params: dict[str, Any] | None = {"cursor": cursor} if cursor is not None else None
            if self.modern:
                params = self.modern_params(params)
            page = await self.request(method, params)
            listed = page.get(field)
            if not isinstance(listed, list):
                return None
            entries += [entry for entry in listed if isinstance(entry, dict)]
            next_cursor = page.get("nextCursor")
            if next_cursor is None:
                return entries
            if not isinstance(next_cursor, str) or next_cursor in seen:
                return None
            seen.add(next_cursor)
            cursor = next_cursor
        return None


# ServerInfo field, list method, result key, the server capability that offers it.
EXTRA_LISTS: tuple[tuple[str, str, str, str], ...] = (
    ("resources", "resources/list", "resources", "resources"),
    ("resource_templates", "resources/templates/list", "resourceTemplates", "resources"),
    ("prompts", "prompts/list", "prompts", "prompts"),
)


def _capabilities(result: Mapping[str, Any]) -> dict[str, Any] | None:
    capabilities = result.get("capabilities")
    return capabilities if isinstance(capabilities, dict) else None


async def list_over_stdio(lister: Lister) -> ServerInfo:
    """The handshake, then every page of tools, resources, resource templates and prompts."""
    info = await lister.handshake()
    tools = await lister.list_tools()
    extras = await lister.list_extras()
    return info.model_copy(update={"tools": tools, **extras})


__all__ = [
    "EXTRA_LISTS",
    "HANDSHAKE_VERSION",
    "MODERN_VERSION",
    "Lister",
    "NotHere",
    "RpcError",
    "list_over_stdio",
]
