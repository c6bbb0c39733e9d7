"""Protocol conformance: how a server answers what every client may send it, read-only requests only.

What is asked (``check_conformance``), on connections of its own:

- the ``initialize`` handshake (the version mcp-evals offers, the one the server settles on, the
  capabilities it declares), then every list method without and with a cursor the server never
  issued (``tools/list``, and ``resources/list``, ``resources/templates/list``, ``prompts/list``);
- ``tools/call`` of a name the server does not list: no tool of the server is ever called, so a tool
  marked destructive or one that requires a task is never run;
- on a fresh connection, a ``tools/list`` with the 2026-07-28 per-request ``_meta`` and no handshake,
  ``server/discover``, and where the server speaks 2026-07-28: an unknown method, a request at a
  version no spec has, and ``resources/read`` of a URI it does not have (the retired -32002).

Over stdio the messages are plain JSON-RPC (``listing.Lister``), so what the server sent is seen as
it was; an HTTP server is asked through an SDK session, and the readiness checks that need raw
messages on fresh connections are skipped there (``notes`` says so). The verdicts are the lint's
(``lint/rules/protocol.py``): this module only records the answers.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import anyio

from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.servers.listing import (
    EXTRA_LISTS,
    HANDSHAKE_VERSION,
    MODERN_VERSION,
    Lister,
    NotHere,
    RpcError,
)
from mcp_evals.servers.model import Conformance, Exchange, ReadinessCheck

INVALID_CURSOR = "mcp-evals-invalid-cursor"
UNKNOWN_TOOL = "mcp_evals_no_such_tool"
UNKNOWN_METHOD = "mcp-evals/no-such-method"
UNKNOWN_RESOURCE = "mcp-evals://no-such-resource"
UNKNOWN_VERSION = "2000-01-01"
REQUEST_TIMEOUT = 15.0
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNSUPPORTED_PROTOCOL_VERSION = -32022
RETIRED_RESOURCE_NOT_FOUND = -32002
# Server capabilities the 2026-07-28 specification deprecates (SEP-2577): still served, to be removed.
DEPRECATED_CAPABILITIES = ("logging",)
# (list method, result key, the capability that offers it): tools first, then the extras.
LIST_METHODS: tuple[tuple[str, str, str], ...] = (
    ("tools/list", "tools", "tools"),
    *((method, field, capability) for _, method, field, capability in EXTRA_LISTS),
)


def unknown_tool_name(names: Collection[str]) -> str:
    """A tool name the server does not list."""
    taken = set(names)
    name, number = UNKNOWN_TOOL, 1
    while name in taken:
        number += 1
        name = f"{UNKNOWN_TOOL}_{number}"
    return name


async def check_conformance(server: ServerConfig, config: Config, tool_names: Collection[str]) -> Conformance:
    """Ask one live server the conformance requests; ``tool_names``: the names it lists (wire names)."""
    if server.command:
        return await _over_stdio(server, config, tool_names)
    return await _over_http(server, config, tool_names)


# ----------------------------------------------------------------------------------------- stdio


async def _request(
    lister: Lister, method: str, params: dict[str, Any] | None, timeout: float
) -> tuple[Exchange, dict[str, Any]]:
    """One request: what it got (an ``Exchange``) and the result itself (empty unless one came)."""
    with anyio.move_on_after(timeout):
        try:
            result = await lister.request(method, params)
        except RpcError as error:
            code = error.code if isinstance(error.code, int) and not isinstance(error.code, bool) else None
            return Exchange(method=method, outcome="error", code=code, message=error.message[:500]), {}
        except NotHere as odd:
            return Exchange(method=method, outcome="result", message=f"an odd answer: {odd}"), {}
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            closed = "the server closed the connection"
            return Exchange(method=method, outcome="no answer", message=closed), {}
        is_error = result.get("isError") is True if method == "tools/call" else None
        exchange = Exchange(method=method, outcome="result", is_error=is_error, message=_result_text(result))
        return exchange, result
    return Exchange(method=method, outcome="no answer", message=f"no answer within {timeout:g} s"), {}


async def _ask(lister: Lister, method: str, params: dict[str, Any] | None, timeout: float) -> Exchange:
    """One request as an ``Exchange``: its result, its JSON-RPC error, or no answer in time."""
    exchange, _ = await _request(lister, method, params, timeout)
    return exchange


def _result_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    if not isinstance(content, list):
        return ""
    texts = [block.get("text") for block in content if isinstance(block, dict)]
    return "\n".join(text for text in texts if isinstance(text, str))[:500]


async def _over_stdio(server: ServerConfig, config: Config, tool_names: Collection[str]) -> Conformance:
    from mcp_evals.servers.stdio import _spawn

    timeout = min(server.timeout, REQUEST_TIMEOUT)
    found = Conformance(
        server=server.name, transport="stdio", offered_versions=[MODERN_VERSION, HANDSHAKE_VERSION]
    )
    async with _spawn(server, config, raw=True) as spawned:
        lister = Lister(server, config, spawned.to_server, spawned.from_server)
        with anyio.fail_after(server.timeout):
            info = await lister.initialize()
        found.negotiated_version = info.protocol_version
        found.capabilities = lister.server_capabilities
        await _lists(found, lambda method, params: _ask(lister, method, params, timeout))
        name = unknown_tool_name(tool_names)
        found.unknown_tool_name = name
        found.unknown_tool = await _ask(lister, "tools/call", {"name": name, "arguments": {}}, timeout)
        found.notifications = [method for method in lister.notifications if method.endswith("list_changed")]
    async with _spawn(server, config, raw=True) as spawned:
        fresh = Lister(server, config, spawned.to_server, spawned.from_server)
        await _readiness(found, fresh, timeout)
    return found


async def _lists(found: Conformance, ask: Any) -> None:
    """Every list method without a cursor (is it served as declared?) and with an invalid one."""
    declared = found.capabilities or {}
    for method, _, capability in LIST_METHODS:
        plain: Exchange = await ask(method, None)
        offered = capability in declared
        if offered and plain.outcome != "result":
            found.failing[method] = plain
        elif not offered and plain.outcome == "result":
            found.undeclared.append(method)
        if plain.outcome == "result":
            found.invalid_cursor[method] = await ask(method, {"cursor": INVALID_CURSOR})


def _check(id: str, title: str, passed: bool, detail: str) -> ReadinessCheck:
    return ReadinessCheck(id=id, title=title, status="pass" if passed else "fail", detail=detail)


def _skipped(id: str, title: str, detail: str) -> ReadinessCheck:
    return ReadinessCheck(id=id, title=title, status="skipped", detail=detail)


def _said(exchange: Exchange) -> str:
    if exchange.outcome == "error":
        return f"error {exchange.code}"
    return "a result" if exchange.outcome == "result" else exchange.message or "no answer"


async def _readiness(found: Conformance, lister: Lister, timeout: float) -> None:
    """The 2026-07-28 readiness checks, on a connection that never did the ``initialize`` handshake."""
    checks: list[ReadinessCheck] = []
    stateless = await _ask(lister, "tools/list", lister.modern_params(), timeout)
    checks.append(
        _check(
            "stateless",
            "answers a request without the initialize handshake",
            stateless.outcome == "result",
            f"tools/list with the per-request _meta and no handshake got {_said(stateless)}",
        )
    )
    discover, answer = await _request(lister, "server/discover", lister.modern_params(), timeout)
    listed = answer.get("supportedVersions")
    supported = (
        [version for version in listed if isinstance(version, str)] if isinstance(listed, list) else []
    )
    if found.capabilities is None and isinstance(answer.get("capabilities"), dict):
        found.capabilities = answer["capabilities"]
    modern = MODERN_VERSION in supported
    found.modern_version = MODERN_VERSION if modern else None
    checks.append(
        _check(
            "discover",
            "server/discover offers 2026-07-28",
            modern,
            f"server/discover got {_said(discover)}"
            + (f", supportedVersions {supported}" if discover.outcome == "result" else ""),
        )
    )
    need = "needs a server that speaks 2026-07-28 (server/discover)"
    if modern:
        lister.modern = MODERN_VERSION
        unknown = await _ask(lister, UNKNOWN_METHOD, lister.modern_params(), timeout)
        checks.append(
            _check(
                "unknown_method",
                "an unknown method is answered with -32601",
                unknown.outcome == "error" and unknown.code == METHOD_NOT_FOUND,
                f"{UNKNOWN_METHOD} got {_said(unknown)}",
            )
        )
        params = lister.modern_params()
        params["_meta"] = {**params["_meta"], "io.modelcontextprotocol/protocolVersion": UNKNOWN_VERSION}
        version = await _ask(lister, "tools/list", params, timeout)
        checks.append(
            _check(
                "unsupported_version",
                "a request at an unknown version is answered with -32022",
                version.outcome == "error" and version.code == UNSUPPORTED_PROTOCOL_VERSION,
                f"tools/list at protocol version {UNKNOWN_VERSION} got {_said(version)}",
            )
        )
        if "resources" in (found.capabilities or {}):
            missing = await _ask(
                lister, "resources/read", lister.modern_params({"uri": UNKNOWN_RESOURCE}), timeout
            )
            checks.append(
                _check(
                    "error_codes",
                    "no retired error code (-32002 for a missing resource)",
                    missing.outcome == "error" and missing.code != RETIRED_RESOURCE_NOT_FOUND,
                    f"resources/read of {UNKNOWN_RESOURCE} got {_said(missing)}",
                )
            )
        else:
            checks.append(_skipped("error_codes", "no retired error code", "the server offers no resources"))
    else:
        checks += [
            _skipped("unknown_method", "an unknown method is answered with -32601", need),
            _skipped("unsupported_version", "a request at an unknown version is answered with -32022", need),
            _skipped("error_codes", "no retired error code (-32002 for a missing resource)", need),
        ]
    deprecated = [name for name in DEPRECATED_CAPABILITIES if name in (found.capabilities or {})]
    checks.append(
        _check(
            "deprecated_features",
            "declares no capability 2026-07-28 deprecates",
            not deprecated,
            f"declares {', '.join(deprecated)}" if deprecated else "none declared",
        )
    )
    found.readiness = checks


# ----------------------------------------------------------------------------------------- HTTP


async def _over_http(server: ServerConfig, config: Config, tool_names: Collection[str]) -> Conformance:
    from mcp_evals.servers.client import open_session

    timeout = min(server.timeout, REQUEST_TIMEOUT)
    found = Conformance(server=server.name, transport="streamable-http", offered_versions=[MODERN_VERSION])
    async with open_session(server, config, list_tools=False) as session:
        found.transport = session.info.transport
        version = session.info.protocol_version
        found.negotiated_version = version
        found.modern_version = MODERN_VERSION if version == MODERN_VERSION else None
        if version != MODERN_VERSION:
            found.offered_versions.append(HANDSHAKE_VERSION)
        found.capabilities = session.info.capabilities
        client = session._client

        async def ask(method: str, params: dict[str, Any] | None) -> Exchange:
            cursor = (params or {}).get("cursor")
            readers = {
                "tools/list": client.list_tools,
                "resources/list": client.list_resources,
                "resources/templates/list": client.list_resource_templates,
                "prompts/list": client.list_prompts,
            }
            return await _sdk_ask(method, lambda: readers[method](cursor=cursor), timeout)

        await _lists(found, ask)
        name = unknown_tool_name(tool_names)
        found.unknown_tool_name = name
        found.unknown_tool = await _sdk_ask("tools/call", lambda: client.call_tool(name, {}), timeout)
    found.readiness = [
        _check(
            "discover",
            "server/discover offers 2026-07-28",
            found.modern_version is not None,
            f"the SDK session settled on {found.negotiated_version}",
        )
    ]
    found.notes.append(
        "over HTTP the readiness checks other than server/discover are not assessed (they need raw "
        "messages on fresh connections; mcp-evals sends those over stdio)"
    )
    return found


async def _sdk_ask(method: str, send: Any, timeout: float) -> Exchange:
    """One SDK request as an ``Exchange``."""
    from mcp import MCPError

    with anyio.move_on_after(timeout):
        try:
            result = await send()
        except MCPError as error:
            return Exchange(method=method, outcome="error", code=error.code, message=str(error.message)[:500])
        except Exception as error:  # a malformed answer the SDK refused: an answer, but not a valid one
            return Exchange(
                method=method, outcome="result", message=f"an answer the SDK refused: {error}"[:500]
            )
        wire = result.model_dump(mode="json", by_alias=True, exclude_none=True)
        is_error = bool(wire.get("isError")) if method == "tools/call" else None
        return Exchange(method=method, outcome="result", is_error=is_error, message=_result_text(wire))
    return Exchange(method=method, outcome="no answer", message=f"no answer within {timeout:g} s")


async def check_servers(config: Config, catalog: Catalog) -> list[Conformance]:
    """The conformance requests to every live server of the config, one after the other."""
    found: list[Conformance] = []
    for server in config.servers:
        if server.snapshot:
            continue
        names = [tool.wire_name for tool in catalog.tools if tool.server == server.name]
        found.append(await check_conformance(server, config, names))
    return found
