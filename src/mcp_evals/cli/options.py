"""Options and helpers shared by the commands."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from mcp_evals.config.load import load_config
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config

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
