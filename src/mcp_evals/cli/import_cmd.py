"""``mcp-evals import``: come from another tool in one command (docs/migrating.md).

Each importer writes our config and fixture or case files (all or none, never over an existing
file), checked with our own loaders first, and says what changed meaning and what it could not map.
Exit codes: 0 imported · 3 bad input (an unreadable file, a file in the way).
"""

from __future__ import annotations

from pathlib import Path

import click

from mcp_evals.cli.options import config_option
from mcp_evals.errors import EXIT_OK, ConfigError
from mcp_evals.wording import plural

_out_option = click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The folder to write mcp-evals.yaml (and the fixture or case files) in.",
)


def _say(imported: object) -> None:
    from mcp_evals.importers.plan import Imported

    assert isinstance(imported, Imported)
    for line in imported.report():
        click.echo(line)


@click.group("import")
def import_group() -> None:
    """Import another tool's evals: mcp-eval-runner's history, MCPJam, promptfoo, mcpgrade, mcp-assert.

    \b
    Examples:
      mcp-evals import mcp-eval-runner-history ~/.mcp/evals.db
      mcp-evals import mcpjam tests.json environment.json
      mcp-evals import promptfoo promptfooconfig.yaml --out imported
      mcp-evals import mcpgrade .mcpgraderc.json --snapshot tools.json
      mcp-evals import mcp-assert evals --fixture fixtures
    Exit codes: 0 imported · 3 bad input.
    """


@import_group.command("mcp-eval-runner-history")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@config_option
@click.option(
    "--db", "--db-path", "db", type=click.Path(dir_okay=False, path_type=Path), help="Our history file."
)
@click.option(
    "--suite", help="The suite to record the runs under (default: the config's, as `contract` uses)."
)
@click.option(
    "--fixtures",
    type=click.Path(file_okay=False, path_type=Path),
    help="Its case files, for each case's mode and step ids (default: ./evals when it exists).",
)
@click.pass_context
def runner_history(
    ctx: click.Context,
    file: Path,
    config_path: Path,
    db: Path | None,
    suite: str | None,
    fixtures: Path | None,
) -> int:
    """mcp-eval-runner's SQLite history (FILE, e.g. ~/.mcp/evals.db) into our contract history."""
    from mcp_evals.cli.contract_cmd import history_of, load_setup
    from mcp_evals.files import refuse_inputs
    from mcp_evals.importers.runner_history import read_history

    setup = load_setup(ctx, config_path)
    name = suite or setup.suite
    folder = fixtures if fixtures is not None else Path("evals") if Path("evals").is_dir() else None
    history = history_of(setup, db)
    refuse_inputs(history.path, {"the mcp-eval-runner history": file}, what="our history file")
    found = read_history(file.expanduser(), suite=name, folder=folder)
    if not found.runs:
        click.echo(f"no run with case results in {file}: nothing to import")
        return EXIT_OK
    recorded = history.summaries(name, limit=1)
    if recorded:
        raise ConfigError(
            f"{history.path} already holds runs of suite {name!r}: runs imported after them would read "
            "as newer than they are",
            hint="import into a new history file (--db FILE), or under another --suite",
        )
    history.record_all(found.runs)
    cases = sum(len(run.cases) for run in found.runs)
    click.echo(
        f"imported {plural(len(found.runs), 'run')}, {plural(cases, 'case result')}, into {history.path} "
        f"as suite {name!r}"
    )
    for note in found.notes:
        click.echo(f"changed: {note}")
    click.echo("next: `mcp-evals contract history`, `mcp-evals contract gate --min-pass-rate …`")
    return EXIT_OK


@import_group.command("mcpjam")
@click.argument("tests", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("environment", type=click.Path(dir_okay=False, path_type=Path))
@_out_option
def mcpjam(tests: Path, environment: Path, out: Path) -> int:
    """MCPJam's tests file and environment file into a config and select fixtures."""
    from mcp_evals.importers.mcpjam import import_mcpjam
    from mcp_evals.importers.plan import write

    imported = import_mcpjam(tests, environment, out)
    write(imported, {"the tests file": tests, "the environment file": environment})
    _say(imported)
    click.echo(f"next: `mcp-evals validate --config {out / 'mcp-evals.yaml'}`")
    return EXIT_OK


@import_group.command("promptfoo")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@_out_option
def promptfoo(config: Path, out: Path) -> int:
    """A promptfoo config's MCP servers, and its mcp provider's tests as contract cases."""
    from mcp_evals.importers.plan import write
    from mcp_evals.importers.promptfoo import import_promptfoo

    imported = import_promptfoo(config, out)
    write(imported, {"the promptfoo config": config})
    _say(imported)
    click.echo(f"next: `mcp-evals contract validate --config {out / 'mcp-evals.yaml'}`")
    return EXIT_OK


@import_group.command("mcpgrade")
@click.argument("rc", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--snapshot", type=click.Path(dir_okay=False, path_type=Path), help="The tools/list snapshot it graded."
)
@click.option("--stdio", help="The stdio command it graded, e.g. 'node ./server.js'.")
@click.option("--url", help="The server URL it graded.")
@click.option(
    "--header", "headers", multiple=True, metavar="'NAME: VALUE'", help="An HTTP header (repeatable)."
)
@_out_option
def mcpgrade(
    rc: Path, snapshot: Path | None, stdio: str | None, url: str | None, headers: tuple[str, ...], out: Path
) -> int:
    """mcpgrade's .mcpgraderc.json (disable, tokenBudget) and the server it grades into a config."""
    from mcp_evals.importers.mcpgrade import import_mcpgrade
    from mcp_evals.importers.plan import write

    imported = import_mcpgrade(rc, out, snapshot=snapshot, stdio=stdio, url=url, headers=headers)
    write(imported, {"the .mcpgraderc.json": rc, "the snapshot": snapshot})
    _say(imported)
    click.echo(f"next: `mcp-evals lint --config {out / 'mcp-evals.yaml'}`")
    return EXIT_OK


@import_group.command("mcp-assert")
@click.argument("suite", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--fixture",
    type=click.Path(file_okay=False, path_type=Path),
    help="The folder its `{{fixture}}` stands for (mcp-assert's --fixture).",
)
@_out_option
def mcp_assert(suite: Path, fixture: Path | None, out: Path) -> int:
    """mcp-assert's assertion files (SUITE, its --suite folder) into contract cases in evals/contract/."""
    from mcp_evals.contract.mcpassert import assertion_files
    from mcp_evals.importers.mcpassert import import_mcpassert
    from mcp_evals.importers.plan import write

    imported = import_mcpassert(suite, out, fixture=fixture)
    write(imported, {f"the assertion file {path}": path for path in assertion_files(suite)})
    _say(imported)
    click.echo(f"next: `mcp-evals contract --fixtures {out / 'evals' / 'contract'}`")
    return EXIT_OK
