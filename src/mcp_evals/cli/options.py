"""Options and helpers shared by the commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from mcp_evals.config.load import load_config
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.errors import McpEvalsError

F = TypeVar("F", bound=Callable[..., Any])


def config_option(function: F) -> F:
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False, path_type=Path),
        default=DEFAULT_CONFIG_NAME,
        show_default=True,
        envvar="MCP_EVALS_CONFIG",
        help="The config file.",
    )(function)


def read_config(config_path: Path) -> Config:
    return load_config(config_path)


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
