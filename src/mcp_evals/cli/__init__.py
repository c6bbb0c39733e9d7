"""The ``mcp-evals`` command line.

Each command lives in its own module and is imported only when it runs, so ``mcp-evals validate``
never pays for the HTTP or report machinery. This module owns the one place where errors become
output and exit codes: 0 ok · 1 a check or gate failed · 2 PRELIMINARY run · 3 bad input/config/usage.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import sys
import traceback
from typing import Any

import click

from mcp_evals._version import __version__
from mcp_evals.cli import stop
from mcp_evals.cli.vocabulary import accept_global_options
from mcp_evals.errors import EXIT_BAD_INPUT, McpEvalsError, user_facing
from mcp_evals.files import command_inputs

# command name -> "module:attribute" (relative to this package)
COMMANDS: dict[str, str] = {
    "init": "init_cmd:init",
    "catalog": "catalog_cmd:catalog",
    "validate": "validate_cmd:validate",
    "schema": "schema_cmd:schema",
    "run": "run_cmd:run",
    "merge": "merge_cmd:merge",
    "action": "action_cmd:action",
    "report": "report_cmd:report",
    "baseline": "baseline_cmd:baseline",
    "contract": "contract_cmd:contract",
    "serve": "serve_cmd:serve",
    "lint": "lint_cmd:lint",
    "audit": "audit_cmd:audit",
    "synth": "synth_cmd:synth",
    "compare": "compare_cmd:compare",
    "improve": "improve_cmd:improve",
    "session": "session_cmd:session",
    "import": "import_cmd:import_group",
}


# command name -> the first sentence of its help, so `mcp-evals --help` lists the commands without importing
# them (tests/cli/test_cli.py checks each against the command's own help). `action` is hidden.
SUMMARIES: dict[str, str] = {
    "init": "Start a project from a live server: a config and one fixture stub per tool.",
    "catalog": (
        "Read every configured server's tools (handshake, tools/list to the last page) and print them."
    ),
    "validate": "Check the fixtures against the live catalog (or a snapshot): no model, no API key, no cost.",
    "schema": "Print the JSON Schema of the config file, a fixture file, a contract case file or a task set.",
    "run": "Ask a model to pick a tool for every fixture; write results and print the verdict.",
    "merge": "Join the results files of one run's shards into one.",
    "report": "Render a report from one results file, or from the shards of one run.",
    "baseline": "Accept a run as the baseline, or compare a run with it.",
    "contract": "Run contract cases: call tools on live servers (or simulate) and check every step's result.",
    "serve": "Serve the harness over MCP: run, list, create and compare contract cases, and more.",
    "lint": "Lint the tool catalog and the fixtures: naming, descriptions, schemas, token cost, consistency.",
    "audit": "Audit an MCP server with no config: catalog, lint, security, probe and protocol, one score.",
    "synth": "Write fixtures with a model: held-out, concrete-valued queries, a frozen test split.",
    "compare": "Run the same fixtures against two catalogs, or one catalog delivered several ways, paired.",
    "improve": "Rewrite the descriptions of confused tools, and prove the rewrite on held-out fixtures.",
    "session": "Run multi-step sessions: a model uses a live server's tools, per arm and fault level.",
    "import": (
        "Import another tool's evals: mcp-eval-runner's history, MCPJam, promptfoo, mcpgrade, mcp-assert."
    ),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (not even for ``--help``)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: list[tuple[str, str]] = []
        names = [name for name in self.list_commands(ctx) if name in SUMMARIES or name not in COMMANDS]
        width = formatter.width - 6 - max((len(name) for name in names), default=0)
        for name in names:
            if name in SUMMARIES:
                rows.append((name, click.Command(name, help=SUMMARIES[name]).get_short_help_str(width)))
                continue
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(width)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS:
            module_name, attribute = COMMANDS[cmd_name].split(":")
            module = importlib.import_module(f"{__name__}.{module_name}")
            command = getattr(module, attribute)
            assert isinstance(command, click.Command)
            return accept_global_options(command)
        return super().get_command(ctx, cmd_name)


@click.group(
    cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.version_option(__version__, prog_name="mcp-evals")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Tool-selection evals for MCP servers.

    \b
    Exit codes: 0 ok · 1 a check or gate failed · 2 PRELIMINARY run (some fixtures never
    reached the model) · 3 bad input, config or usage · 130 Ctrl-C, 143 SIGTERM (servers stopped,
    finished work kept).
    """
    # `--debug` is read by `main` before click parses anything (an error may come from parsing).


def show_click_error(error: click.ClickException) -> None:
    """Print a usage error in the same shape as every other error: usage, ``error:``, ``hint:``."""
    context = getattr(error, "ctx", None)
    if context is not None:
        click.echo(context.get_usage(), err=True)
    click.echo(f"error: {error.format_message()}", err=True)
    if context is not None:
        click.echo(f"  hint: run '{context.command_path} --help' for the options", err=True)


_EXIT_UNCOLLECTED: list[bool] = []


def leave_exit_uncollected() -> None:
    """At exit, spare the interpreter's last garbage collections (once per process).

    Shutdown walks every object the imports made, several times: about 4 % of a short contract run's
    CPU. Frozen (``gc.freeze``) they are skipped; the process's memory goes back all the same, and
    files, servers and the history are closed by the command itself, never by a collector.
    """
    if not _EXIT_UNCOLLECTED:
        _EXIT_UNCOLLECTED.append(True)
        atexit.register(gc.freeze)


def main(argv: list[str] | None = None) -> Any:
    """Console entry point: run the CLI and translate every outcome into an exit code."""
    args = sys.argv[1:] if argv is None else argv
    leave_exit_uncollected()
    debug = "--debug" in args
    stop.install()  # SIGTERM stops the command as Ctrl-C does (stop.py)
    try:
        # the files this command reads are registered as it reads them, and never written over (files.py)
        with command_inputs():
            try:
                result = cli.main(args=args, prog_name="mcp-evals", standalone_mode=False)
            except BaseExceptionGroup as group:  # errors from concurrent code: one exit path for all
                raise user_facing(group) from None
    except click.exceptions.Exit as exit_:
        sys.exit(exit_.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted." if stop.exit_code() == 130 else stop.word(), err=True)
        sys.exit(stop.exit_code())
    except click.ClickException as error:  # usage errors: click says 2, we say 3
        show_click_error(error)
        sys.exit(EXIT_BAD_INPUT)
    except McpEvalsError as error:
        if debug:
            traceback.print_exc()
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        click.echo(stop.word(), err=True)
        sys.exit(stop.exit_code())
    sys.exit(result if isinstance(result, int) else 0)
