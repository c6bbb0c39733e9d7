"""``mcp-evals catalog``: read the live tool catalog, print it, save a snapshot."""

from __future__ import annotations

from pathlib import Path

import click

from ..catalog import Catalog, extract_catalog, write_snapshot
from .common import config_option, read_config


def summary_table(catalog: Catalog) -> str:
    rows = [("tool", "area", "server", "params", "description")]
    for tool in sorted(catalog.tools, key=lambda t: (t.area, t.name)):
        first_line = (tool.description.strip().splitlines() or [""])[0]
        rows.append((tool.name, tool.area, tool.server, str(len(tool.parameters)), first_line[:60]))
    widths = [max(len(row[index]) for row in rows) for index in range(4)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True)) + "  " + row[4]
             for row in rows]
    lines.insert(1, "  ".join("-" * width for width in widths) + "  " + "-" * 11)
    return "\n".join(lines)


@click.group(invoke_without_command=True)
@config_option
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write a catalog snapshot (JSON).")
@click.pass_context
def catalog(ctx: click.Context, config_path: Path, out: Path | None) -> int:
    """Read every configured server's tools/list and print a summary."""
    if ctx.invoked_subcommand is not None:
        return 0
    config = read_config(config_path)
    result = extract_catalog(config)
    click.echo(summary_table(result))
    servers = ", ".join(
        f"{info.name} ({info.server_name or '?'} {info.server_version or ''}, protocol {info.protocol_version})"
        for info in result.servers
    )
    click.echo(f"\n{len(result.tools)} tools in {len(result.areas)} areas from {servers}")
    click.echo(f"catalog hash {result.hash[:16]}")
    if out is not None:
        write_snapshot(result, out)
        click.echo(f"snapshot written to {out}")
    return 0
