"""Live extraction: every configured server's tools (over MCP, or from its snapshot) into one catalog."""

from __future__ import annotations

from mcp_evals.catalog.model import Catalog, ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import read_snapshot
from mcp_evals.config.model import Config, ServerConfig
from mcp_evals.errors import ConfigError, where


def _snapshot_server(server: ServerConfig, config: Config) -> ServerInfo:
    """A config server with ``snapshot:``: its listing from the file, under the config's name and prefix."""
    path = config.resolve(server.snapshot or "")
    index = config.servers.index(server)
    setting = where(config.path, config.line_of(("servers", index, "snapshot")), f"servers[{index}].snapshot")
    if not path.is_file():
        raise ConfigError(
            f"{setting}: {path} {'is a folder, not a file' if path.is_dir() else 'not found'}",
            hint="write one with `mcp-evals catalog --out FILE`; the path is relative to the config's folder",
        )
    servers = read_snapshot(path).servers
    match = [info for info in servers if info.name == server.name]
    if not match and len(servers) == 1:
        match = servers
    if not match:
        raise ConfigError(
            f"{setting}: {path} has no server named {server.name!r} "
            f"(it has: {', '.join(info.name for info in servers)})",
            hint="name the config server like the snapshot's server",
        )
    return match[0].model_copy(update={"name": server.name, "prefix": server.prefix, "transport": "snapshot"})


async def extract_catalog_async(config: Config) -> Catalog:
    """Read every configured server's tools (live over MCP, or from its snapshot) into one catalog.

    Live servers are read at the same time; when some fail, the first failing one (in config
    order) is raised. An unset ``${VAR}`` fails first, naming its config line, before any server
    is contacted; so does a config that lists no server (``servers: []``, for contract cases only).
    """
    import anyio

    config.check_variables()
    if not config.servers:
        raise ConfigError(
            f"{where(config.shown_path, config.line_of(('servers',)), 'servers')}: the config lists no "
            "server, and this command reads the tools of at least one",
            hint="add a server under `servers:` (`servers: []` serves only contract cases with their own "
            "`server:`)",
        )

    from mcp_evals.errors import McpEvalsError
    from mcp_evals.servers import client as _mcp  # the one module that imports the MCP SDK

    listings: list[ServerInfo | McpEvalsError | None] = [None] * len(config.servers)

    async def read(index: int, server: ServerConfig) -> None:
        try:
            if server.snapshot:
                listings[index] = _snapshot_server(server, config)
            else:
                listings[index] = await _mcp.list_server_tools(server, config)
        except McpEvalsError as error:
            listings[index] = error

    async with anyio.create_task_group() as group:
        for index, server in enumerate(config.servers):
            group.start_soon(read, index, server)
    servers: list[ServerInfo] = []
    for listing in listings:
        if isinstance(listing, McpEvalsError):
            raise listing
        assert listing is not None
        servers.append(listing)
    return build_catalog(servers, config.areas, source=config.path)


def extract_catalog(config: Config) -> Catalog:
    """Synchronous wrapper of ``extract_catalog_async`` for the CLI and scripts."""
    import anyio

    return anyio.run(extract_catalog_async, config)
