"""``mcp-evals validate``: check the fixtures against the live catalog, offline and free."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from mcp_evals.catalog.extract import extract_catalog
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, McpEvalsError
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.validate import (
    FixtureCoverage,
    Problem,
    coverage,
    has_errors,
    locate_in_config,
    validate_fixtures,
)
from mcp_evals.github.workflow_commands import annotation, in_github_actions
from mcp_evals.wording import plural


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


_SEVERITY_COLOURS = {"error": "red", "warning": "yellow"}


def _problem_line(problem: Problem) -> str:
    # The severity is coloured; click.echo drops the colour when the output is no terminal (CI logs).
    return problem.log_line(lambda severity: click.style(severity, fg=_SEVERITY_COLOURS[severity], bold=True))


def summary_line(cover: FixtureCoverage, problems: list[Problem]) -> str:
    errors = sum(1 for problem in problems if problem.severity == "error")
    warnings = len(problems) - errors
    kinds = ", ".join(
        f"{cover.kinds[kind]} {kind}" for kind in ("select", "refuse", "clarify") if kind in cover.kinds
    )
    parts = [
        plural(cover.fixtures, "fixture") + (f" ({kinds})" if kinds else ""),
        f"{cover.covered_tools} of {plural(cover.tools, 'tool')} covered"
        + (f" ({cover.excluded_tools} excluded)" if cover.excluded_tools else ""),
        f"{len(cover.covered_areas)} of {plural(len(cover.areas), 'area')} covered",
        f"{plural(errors, 'error')}, {plural(warnings, 'warning')}",
    ]
    verdict = (
        click.style("FAILED:", fg="red", bold=True) if errors else click.style("ok:", fg="green", bold=True)
    )
    return f"{verdict} " + " · ".join(parts)


def render_text(problems: list[Problem], cover: FixtureCoverage) -> str:
    """One line per problem (``str(problem)`` once unstyled), then the summary; coloured for a terminal."""
    return "\n".join([*(_problem_line(problem) for problem in problems), summary_line(cover, problems)])


def validation_document(problems: list[Problem], cover: FixtureCoverage, catalog: Catalog) -> dict[str, Any]:
    """What `--format json` prints, and what `--format md` (and the GitHub Action) render."""
    return {
        "ok": not has_errors(problems),
        "errors": sum(1 for problem in problems if problem.severity == "error"),
        "warnings": sum(1 for problem in problems if problem.severity == "warning"),
        "coverage": cover.model_dump(mode="json"),
        "catalog_hash": catalog.hash,
        "problems": [problem.model_dump(mode="json") for problem in problems],
    }


def render_json(problems: list[Problem], cover: FixtureCoverage, catalog: Catalog) -> str:
    return json.dumps(validation_document(problems, cover, catalog), indent=2, ensure_ascii=False)


def render_markdown(problems: list[Problem], cover: FixtureCoverage, catalog: Catalog) -> str:
    """The Markdown the GitHub Action shows for a validate run (within a PR comment's size)."""
    from mcp_evals.report.validation import render_validation_markdown  # only this format needs the reports

    return render_validation_markdown(validation_document(problems, cover, catalog))


def github_annotations(problems: list[Problem]) -> list[str]:
    return [
        annotation(
            problem.severity,
            problem.message,
            file=problem.file,
            line=problem.line,
            title=f"mcp-evals validate: {problem.rule}",
        )
        for problem in problems
    ]


@click.command()
@config_option
@snapshot_option("Check against")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "md"]),
    default="text",
    show_default=True,
    help="Output: one line per problem, a JSON document, or the Markdown the GitHub Action comments.",
)
def validate(config_path: Path, snapshot: Path | None, output_format: str) -> int:
    """Check the fixtures against the live catalog (or a snapshot): no model, no API key, no cost.

    \b
    Problems are printed as `file:line: severity [rule] message`, errors first.
    Exit 0 when there are no errors (warnings allowed), 1 when there are, 3 on bad input.
    Under GitHub Actions each problem is also an annotation on its file and line.
    """
    github = in_github_actions()
    try:
        config = read_config(config_path)
        fixtures = load_fixtures(config, warn=lambda text: click.echo(f"warning: {text}", err=True))
        if snapshot is not None:
            catalog = load_catalog(snapshot, areas=config.areas or None)
        else:
            catalog = extract_catalog(config)
    except McpEvalsError as error:
        if github:
            click.echo(annotation("error", str(error), title="mcp-evals validate"))
        raise
    problems = validate_fixtures(
        fixtures, catalog, config.validation, exclude_tools=config.exclude_tools, areas=config.areas
    )
    problems = locate_in_config(problems, _shown(config.path), config.line_of)
    cover = coverage(fixtures, catalog, exclude_tools=config.exclude_tools)
    if output_format == "json":
        click.echo(render_json(problems, cover, catalog))
    elif output_format == "md":
        click.echo(render_markdown(problems, cover, catalog))
    else:
        click.echo(render_text(problems, cover), color=False if os.environ.get("NO_COLOR") else None)
    if github:
        for line in github_annotations(problems):
            click.echo(line, err=output_format != "text")
    return EXIT_CHECK_FAILED if has_errors(problems) else EXIT_OK
