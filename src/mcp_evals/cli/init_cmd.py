"""``mcp-evals init``: start a project from a live server — a config and one fixture stub per tool."""

from __future__ import annotations

import os
import re
from pathlib import Path

import click

from mcp_evals.catalog.model import Catalog, Tool
from mcp_evals.cli.adhoc import check_server_options, config_of, server_entry
from mcp_evals.config.load import load_config
from mcp_evals.config.model import DEFAULT_CONFIG_NAME, Config
from mcp_evals.errors import EXIT_OK, ConfigError, McpEvalsError
from mcp_evals.files import atomic_write
from mcp_evals.fixtures.scaffold import config_text, propose_areas, stubs_text
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.wording import noun, number, plural

DEFAULT_FIXTURES = "evals"
_VALID_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _write_new(path: Path, text: str, shown: str) -> bool:
    """Write a file that does not exist yet; never replace one."""
    if path.exists():
        click.echo(f"kept {shown}: it exists (init never overwrites a file)", err=True)
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(path) as stream:
        stream.write(text)
    click.echo(f"wrote {shown}", err=True)
    return True


def _fixture_folder(config: Config) -> tuple[Path, str] | None:
    """Where stubs go for an existing config: the folder of its first `folder/*.yaml` glob."""
    for pattern in config.fixture_globs:
        folder, _, name = pattern.replace("\\", "/").rpartition("/")
        if name in ("*.yaml", "*.yml") and "*" not in folder:
            return config.resolve(folder or "."), (folder or ".")
    return None


def _covered(config: Config) -> set[str]:
    """Tools the existing fixtures already expect (none when they cannot be read yet)."""
    from mcp_evals.fixtures.load import load_fixtures

    try:
        return {name for fixture in load_fixtures(config) for name in fixture.expected_tools}
    except McpEvalsError:
        return set()


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--command", "command", metavar="CMD", help="Start the server over stdio: CMD [ARGS…].")
@click.option("--url", help="Reach the server over Streamable HTTP (or legacy SSE) at this URL.")
@click.option("--name", help="The server's short name in the config (default: from the command or URL).")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=DEFAULT_CONFIG_NAME,
    show_default=True,
    help="The config to write, or (without --command and --url) the existing config whose server to read.",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def init(
    command: str | None, url: str | None, name: str | None, config_path: Path, args: tuple[str, ...]
) -> int:
    """Start a project from a live server: a config and one fixture stub per tool.

    \b
    mcp-evals init --command node dist/index.js     (stdio: everything after CMD is its arguments)
    mcp-evals init --url http://127.0.0.1:8000/mcp
    mcp-evals init                                    (the server of an existing mcp-evals.yaml)
    Reads the live catalog, then writes mcp-evals.yaml (the server, areas proposed from the tool
    names, the schema modeline) and evals/<area>.yaml with one stub per tool: `query: ""` and a comment
    naming the tool's required parameters. `validate` fails until every query is written.
    Never overwrites a file.
    """
    check_server_options(command, url, args)
    if command or url:
        entry = server_entry(command, args, url, name)
        config = config_of([entry], config_path, str(config_path))
        catalog = extract_catalog(config)
        reported = catalog.servers[0].server_name if catalog.servers else None
        reported = reported.rsplit("/", 1)[-1] if reported else None  # "mcp-servers/everything"
        if name is None and reported and _VALID_NAME.match(reported):
            entry["name"] = reported  # what the server calls itself beats a guess from its command
        fallback = entry["name"]
        folder, glob_folder = config_path.parent / DEFAULT_FIXTURES, DEFAULT_FIXTURES
        areas = propose_areas(catalog, fallback)
        config_written = _write_new(
            config_path, config_text(entry, areas, f"{glob_folder}/*.yaml"), str(config_path)
        )
        if not config_written:
            click.echo(
                "  hint: to stub the fixtures of the server that config names, run `mcp-evals init` "
                "without --command / --url",
                err=True,
            )
            return EXIT_OK
        covered: set[str] = set()
    else:
        if not config_path.exists():
            raise ConfigError(
                f"{config_path}: no config to read a server from",
                hint="mcp-evals init --command CMD [ARGS…] (stdio) or --url URL (HTTP) writes one",
            )
        config = load_config(config_path)
        config.check_variables()
        catalog = extract_catalog(config)
        located = _fixture_folder(config)
        if located is None:
            folder, glob_folder = config.resolve(DEFAULT_FIXTURES), DEFAULT_FIXTURES
            click.echo(
                f"note: {config_path} has no `fixtures: <folder>/*.yaml`; add `fixtures: "
                f"{DEFAULT_FIXTURES}/*.yaml` to it so validate and run read the stubs",
                err=True,
            )
        else:
            folder, glob_folder = located
        areas = {area: [t.name for t in catalog.tools if t.area == area] for area in catalog.areas}
        covered = _covered(config)
    if not _write_stubs(catalog, areas, covered, folder, glob_folder):
        return EXIT_OK  # nothing written: no `query` to write
    default = config_path == Path(DEFAULT_CONFIG_NAME)
    validate = "mcp-evals validate" + ("" if default else f" --config {config_path}")
    click.echo(
        f"next: write each `query` (what a user would say, with concrete values), then `{validate}`",
        err=True,
    )
    return EXIT_OK


def _write_stubs(
    catalog: Catalog, areas: dict[str, list[str]], covered: set[str], folder: Path, shown_folder: str
) -> int:
    """Write a stub file per area for the tools no fixture covers; returns how many stubs it wrote."""
    by_name = catalog.by_name
    taken: set[str] = set()
    stubbed = 0
    for area, names in areas.items():
        tools: list[Tool] = [by_name[name] for name in names if name in by_name and name not in covered]
        if not tools:
            continue
        file_name = re.sub(r"[^A-Za-z0-9_.-]+", "-", area).strip("-.") or "area"
        shown = os.path.join(shown_folder, f"{file_name}.yaml")
        if _write_new(folder / f"{file_name}.yaml", stubs_text(tools, area, taken), shown):
            stubbed += len(tools)
    skipped = len(covered & set(catalog.tool_names))
    if not stubbed:
        left = len(catalog.tools) - skipped
        why = "every tool has a fixture" if not left else f"the stub files of {plural(left, 'tool')} exist"
        click.echo(f"no fixture stub written: {why}", err=True)
        return 0
    click.echo(
        f"{plural(stubbed, 'fixture stub')} for {plural(len(catalog.tools), 'tool')}"
        + (f" ({number(skipped)} already {noun(skipped, 'has', 'have')} fixtures)" if skipped else ""),
        err=True,
    )
    return stubbed
