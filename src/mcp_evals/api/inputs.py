"""The files a command reads through its config: no output may replace one of them."""

from __future__ import annotations

from pathlib import Path

from mcp_evals.config.model import Config
from mcp_evals.errors import McpEvalsError


def config_inputs(config: Config) -> dict[str, Path | None]:
    """The files a command reads through the config (label → path): no output may replace them."""
    from mcp_evals.fixtures.load import fixture_files

    inputs: dict[str, Path | None] = {"the config file": config.path}
    for server in config.servers:
        if server.snapshot:
            inputs[f"the snapshot of server {server.name!r}"] = config.resolve(server.snapshot)
    try:
        files = fixture_files(config) if config.fixture_globs else []
    except McpEvalsError:
        files = []  # no fixture to protect; the command that needs them says what is wrong
    for path in files:
        inputs[f"the fixture file {path.name}"] = path
    if config.baseline.path:
        inputs["the baseline file"] = config.resolve(config.baseline.path)
    return inputs
