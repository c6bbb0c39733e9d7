"""``mcp-evals audit``: audit one MCP server with no config: catalog, lint, security, probe, protocol."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, ConfigError

FORMATS = ("text", "md", "json", "sarif")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _environment(pairs: tuple[str, ...]) -> dict[str, str]:
    """``--env NAME=VALUE`` as given, ``--env NAME`` as ``${NAME}`` (read when the server starts)."""
    env: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not _ENV_NAME.match(name):
            raise ConfigError(f"--env {pair!r}: expected NAME=VALUE or NAME", hint="e.g. --env API_KEY")
        env[name] = value if equals else "${" + name + "}"
    return env


def _headers(pairs: tuple[str, ...]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for pair in pairs:
        name, colon, value = pair.partition(":")
        if not colon or not name.strip():
            raise ConfigError(f"--header {pair[:40]!r}…: expected 'Name: Value'")
        headers[name.strip()] = value.strip()
    return headers


def _location(command: str | None, args: tuple[str, ...], url: str | None) -> str:
    """Where findings point without a config: the server's script when it is a file here, else what ran."""
    if url:
        from mcp_evals.servers.client import redact_url

        return redact_url(url)
    for arg in args:
        if not arg.startswith("-") and Path(arg).is_file():
            path = Path(arg)
            return path.as_posix() if not path.is_absolute() else str(path)
    return command or "server"


def adhoc_config(
    command: str | None,
    args: tuple[str, ...],
    url: str | None,
    *,
    name: str | None,
    env: dict[str, str],
    headers: dict[str, str],
    timeout: float,
) -> tuple[Any, str]:
    """A config with the one server the options describe, placed in the current folder (no file)."""
    from mcp_evals.cli.adhoc import config_of, server_entry

    entry = {**server_entry(command, args, url, name), "timeout": timeout}
    if command:
        entry["env"] = env
    else:
        entry["headers"] = headers
    config = config_of([entry], Path.cwd() / ".mcp-evals-audit", _location(command, args, url))
    target = redact_target(command, args, url)
    return config, target


def redact_target(command: str | None, args: tuple[str, ...], url: str | None) -> str:
    """The command line or URL as the report shows it (no URL credentials or query string)."""
    if url:
        from mcp_evals.servers.client import redact_url

        return redact_url(url)
    import shlex

    return shlex.join([command or "", *args])


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--command", "command", metavar="CMD", help="Start the server over stdio: CMD [ARGS…] (last).")
@click.option("--url", help="Reach the server over Streamable HTTP (or legacy SSE) at this URL.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Audit the servers of this config instead (its `lint:` settings apply).",
)
@click.option("--name", help="The server's short name in the report (default: from the command or URL).")
@click.option(
    "--env",
    "env_pairs",
    multiple=True,
    metavar="NAME[=VALUE]",
    help="An environment variable for a stdio server (which gets only PATH, HOME and these); a bare NAME "
    "passes its value from this environment. Repeatable.",
)
@click.option(
    "--header",
    "header_pairs",
    multiple=True,
    metavar="'NAME: VALUE'",
    help="An HTTP header (--url). Repeatable.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=60.0,
    show_default=True,
    help="Seconds the server may take to start, handshake and list.",
)
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to this file (completely or not at all) instead of standard output.",
)
@click.option(
    "--fail-under",
    type=click.IntRange(0, 100),
    help="Exit 1 when the score is below this (0–100). Default: never fail on the score.",
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def audit(
    command: str | None,
    url: str | None,
    config_path: Path | None,
    name: str | None,
    env_pairs: tuple[str, ...],
    header_pairs: tuple[str, ...],
    timeout: float,
    output_format: str,
    output: Path | None,
    fail_under: int | None,
    args: tuple[str, ...],
) -> int:
    """Audit an MCP server with no config: catalog, lint, security, probe and protocol, one score.

    \b
    mcp-evals audit --command npx -y @modelcontextprotocol/server-memory
    mcp-evals audit --format sarif --output audit.sarif --url http://127.0.0.1:8000/mcp
    mcp-evals audit --config mcp-evals.yaml          (the servers of a config)
    Put every option before --command: what follows CMD is its arguments. Read-only: the probe calls
    only tools marked read-only (or not destructive), with {}; the protocol checks call no tool.
    Exit 0 ok · 1 the score is below --fail-under · 3 bad input, or the server did not start.
    """
    chosen = [
        option
        for option, value in (("--command", command), ("--url", url), ("--config", config_path))
        if value
    ]
    if len(chosen) != 1:
        raise ConfigError(
            "give one of --command, --url or --config" + (f", not {' and '.join(chosen)}" if chosen else ""),
            hint="mcp-evals audit --command CMD [ARGS…]   (stdio; every option before --command)",
        )
    if args and not command:
        raise click.UsageError(f"unexpected argument {args[0]!r}: arguments follow --command CMD")
    if config_path is not None:
        from mcp_evals.config.load import load_config

        config = load_config(config_path)
        target = f"the servers of {config_path}"
    else:
        config, target = adhoc_config(
            command,
            args,
            url,
            name=name,
            env=_environment(env_pairs),
            headers=_headers(header_pairs),
            timeout=timeout,
        )
    config.check_variables()
    text, failed = _run(config, target, output_format, fail_under)
    if output is not None:
        from mcp_evals.files import atomic_write

        with atomic_write(output) as stream:
            stream.write(text + "\n")
    else:
        click.echo(text)
    return EXIT_CHECK_FAILED if failed else EXIT_OK


def _run(config: Any, target: str, output_format: str, fail_under: int | None) -> tuple[str, bool]:
    import anyio

    from mcp_evals.lint.audit import run_audit
    from mcp_evals.lint.render.audit import (
        render_audit_json,
        render_audit_markdown,
        render_audit_sarif,
        render_audit_text,
    )

    report = anyio.run(lambda: run_audit(config, target, fail_under=fail_under))
    if output_format == "json":
        text = render_audit_json(report)
    elif output_format == "sarif":
        text = render_audit_sarif(report, default_file=config.shown_path)
    elif output_format == "md":
        text = render_audit_markdown(report)
    else:
        text = render_audit_text(report)
    return text, report.failed
