"""Options and helpers shared by the commands."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from mcp_evals.api.inputs import config_inputs as config_inputs
from mcp_evals.config.load import load_config
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry

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


def snapshot_option(purpose: str) -> Callable[[F], F]:
    """``--catalog FILE``: a snapshot (from `mcp-evals catalog --out`) instead of the live servers."""

    def decorate(function: F) -> F:
        return click.option(
            "--catalog",
            "snapshot",
            type=click.Path(dir_okay=False, path_type=Path),
            help=f"{purpose} a catalog snapshot (from `mcp-evals catalog --out`) instead of the live "
            "servers.",
        )(function)

    return decorate


class ProviderChoice(click.Choice[str]):
    """``--provider``'s values: the registry's providers that ``where`` keeps (a plugin's included),
    read when the option is first shown or parsed, not when the command's module is imported."""

    def __init__(self, where: Callable[[ProviderEntry], bool] | None = None) -> None:
        self.where = where
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:
        return PROVIDERS.names(self.where)

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        """Ignored: the registry is the list."""


def read_config(config_path: Path) -> Config:
    return load_config(config_path)


def on_terminal() -> bool:
    """Standard output is a terminal (a person reads it), not a pipe or a file."""
    return sys.stdout.isatty()


def colour_wanted() -> bool:
    """Colours on a terminal, unless NO_COLOR is set (https://no-color.org)."""
    return on_terminal() and not os.environ.get("NO_COLOR")


def output_format(asked: str | None, *, written_to_file: bool = False) -> str:
    """The report format to print: the one asked for, else text on a terminal and Markdown otherwise.

    Piped output keeps the Markdown it always had (what CI logs and the GitHub Action read).
    """
    if asked is not None:
        return asked
    return "text" if on_terminal() and not written_to_file else "md"


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns
