"""A server named on the command line (``--command CMD ARGS…`` or ``--url URL``), without a config file.

``init`` writes it into a new config; ``lint`` lints it as it is. One copy of how such a server is
named and checked, for both.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import click

from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.errors import ConfigError

_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
COMMAND_LINE = "(command line)"


def server_name(command: str | None, args: tuple[str, ...], url: str | None) -> str:
    """A short server name from what starts it: the script or package, else the command; the URL's host."""
    if url:
        base = urlsplit(url).hostname or "server"
    else:
        candidates = [arg for arg in args if not arg.startswith("-")] or [command or "server"]
        base = Path(candidates[-1].rstrip("/")).name
        base = re.sub(r"\.(py|js|mjs|cjs|ts)$", "", base)
        if base in ("index", "main", "server", "__main__") and len(candidates) > 1:
            base = Path(candidates[-2]).name or base
        base = base.split("@")[-1] if base.startswith("@") else base
    name = _NAME.sub("-", base).strip("-._") or "server"
    return name[:64] if name[0].isalnum() else f"s{name}"[:64]


def check_server_options(command: str | None, url: str | None, args: tuple[str, ...]) -> None:
    """``--command`` and ``--url`` exclude each other; loose arguments belong to ``--command``."""
    if command and url:
        raise ConfigError("give --command or --url, not both")
    if args and not command:
        raise click.UsageError(f"unexpected argument {args[0]!r}: arguments follow --command CMD")


def server_entry(
    command: str | None, args: tuple[str, ...], url: str | None, name: str | None
) -> dict[str, Any]:
    """The `servers:` entry of a server given by its command (and arguments) or its URL."""
    entry: dict[str, Any] = {"name": name or server_name(command, args, url)}
    if command:
        entry.update(command=command, args=list(args)) if args else entry.update(command=command)
    else:
        entry["url"] = url
    return entry


def config_of(entries: list[dict[str, Any]], path: Path | None = None, shown: str = COMMAND_LINE) -> Config:
    """A config of these servers and nothing else, as if read from ``path`` (default: here)."""
    try:
        config = Config.model_validate({"servers": entries})
    except ValueError as error:
        raise ConfigError(f"cannot use this server: {error}") from None
    config.located((path or Path(DEFAULT_CONFIG_NAME)).resolve(), shown, {})
    return config
