"""``mcp-evals validate``: check the fixtures against the live catalog, offline and free."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click

from mcp_evals.catalog.classify import CLASS_LABELS
from mcp_evals.catalog.lock import LOCK_VERDICTS, UPDATE_COMMAND, LockCheck, matches_line
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog, read_lock
from mcp_evals.cli.catalog_cmd import change_lines, printable
from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, McpEvalsError
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.validate import FixtureCoverage, Problem
from mcp_evals.fixtures.validate.outcome import Validation, validate_config
from mcp_evals.github.workflow_commands import annotation, in_github_actions
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.wording import noun, number, plural


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


_SEVERITY_COLOURS = {"error": "red", "warning": "yellow"}


def _problem_line(problem: Problem) -> str:
    # The severity is coloured; click.echo drops the colour when the output is no terminal (CI logs).
    return problem.log_line(lambda severity: click.style(severity, fg=_SEVERITY_COLOURS[severity], bold=True))


def summary_line(cover: FixtureCoverage, problems: list[Problem], lock: LockCheck | None = None) -> str:
    errors = sum(1 for problem in problems if problem.severity == "error")
    warnings = len(problems) - errors
    kinds = ", ".join(
        f"{number(cover.kinds[kind])} {kind}"
        for kind in ("select", "refuse", "clarify")
        if kind in cover.kinds
    )
    parts = [
        plural(cover.fixtures, "fixture") + (f" ({kinds})" if kinds else ""),
        f"{number(cover.covered_tools)} of {plural(cover.tools, 'tool')} covered"
        + (f" ({number(cover.excluded_tools)} excluded)" if cover.excluded_tools else ""),
        f"{number(len(cover.covered_areas))} of {plural(len(cover.areas), 'area')} covered",
        f"{plural(errors, 'error')}, {plural(warnings, 'warning')}",
    ]
    if lock is not None:
        parts.append(LOCK_VERDICTS[lock.status])
    failed = errors or (lock is not None and lock.failed)
    verdict = (
        click.style("FAILED:", fg="red", bold=True) if failed else click.style("ok:", fg="green", bold=True)
    )
    return f"{verdict} " + " · ".join(parts)


def lock_lines(lock: LockCheck) -> list[str]:
    """The lock comparison for a terminal or a CI log: one line when it matches, else changes and fix."""
    if lock.status == "matches":
        return [matches_line(lock)]
    fix = f"fix: {UPDATE_COMMAND}, then commit {printable(lock.path)}"
    if lock.status == "missing":
        return [f"catalog lock {printable(lock.path)} does not exist yet", fix]
    lines = [
        f"catalog differs from the lock {printable(lock.path)} ({plural(lock.lock_tool_count or 0, 'tool')}, "
        f"hash {(lock.lock_hash or '')[:12]} -> {plural(lock.tool_count, 'tool')}, hash {lock.hash[:12]}):",
        *change_lines(lock.changes, indent="  "),
        "",
    ]
    for tool, fixture_ids in lock.exercised_by.items():
        count = len(fixture_ids)
        lines.append(f"{plural(count, 'fixture')} {noun(count, 'covers', 'cover')} `{printable(tool, 200)}`")
    if lock.rerun:
        lines.append(f"re-run them: {printable(lock.rerun)} (or dispatch the paid eval)")
    return [*lines, fix]


def render_text(problems: list[Problem], cover: FixtureCoverage, lock: LockCheck | None = None) -> str:
    """One line per problem (``str(problem)`` once unstyled), the lock comparison, then the summary;
    coloured for a terminal."""
    lines = [_problem_line(problem) for problem in problems]
    if lock is not None:
        lines += lock_lines(lock)
    return "\n".join([*lines, summary_line(cover, problems, lock)])


def validation_document(
    problems: list[Problem], cover: FixtureCoverage, catalog: Catalog, lock: LockCheck | None = None
) -> dict[str, Any]:
    """What `--format json` prints, and what `--format md` (and the GitHub Action) render.

    ``lock`` appears only when the config names a catalog lock."""
    return Validation(problems, cover, catalog, lock).document()


def render_json(
    problems: list[Problem], cover: FixtureCoverage, catalog: Catalog, lock: LockCheck | None = None
) -> str:
    return json.dumps(validation_document(problems, cover, catalog, lock), indent=2, ensure_ascii=False)


def render_markdown(
    problems: list[Problem], cover: FixtureCoverage, catalog: Catalog, lock: LockCheck | None = None
) -> str:
    """The Markdown the GitHub Action shows for a validate run (within a PR comment's size)."""
    from mcp_evals.report.validation import render_validation_markdown  # only this format needs the reports

    return render_validation_markdown(validation_document(problems, cover, catalog, lock))


def github_annotations(
    problems: list[Problem], lock: LockCheck | None = None, lock_file: str = ""
) -> list[str]:
    lines = [
        annotation(
            problem.severity,
            problem.message,
            file=problem.file,
            line=problem.line,
            title=f"mcp-evals validate: {problem.rule}",
        )
        for problem in problems
    ]
    if lock is not None and lock.failed:
        what = (
            "the catalog lock does not exist yet"
            if lock.status == "missing"
            else "the live catalog differs from the lock: "
            + ", ".join(f"{count} {CLASS_LABELS[name]}" for name, count in lock.counts.items())
        )
        lines.append(
            annotation(
                "error",
                f"{what}; run `{UPDATE_COMMAND}` and commit the lock",
                file=lock_file or None,
                title="mcp-evals validate: catalog lock",
            )
        )
    return lines


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
    With `catalog.lock` in the config, the catalog is also compared with that lock.
    Exit 0 when there are no errors (warnings allowed) and the catalog matches its lock, 1 when there
    are errors or the catalog differs from its lock, 3 on bad input.
    Under GitHub Actions each problem is also an annotation on its file and line.
    """
    github = in_github_actions()
    lock_file: Path | None = None
    locked: Catalog | None = None
    try:
        config = read_config(config_path)
        fixtures = load_fixtures(config, warn=lambda text: click.echo(f"warning: {text}", err=True))
        if config.catalog.lock:  # a broken lock is bad input, found before any server starts
            lock_file = config.resolve(config.catalog.lock)
            locked = read_lock(lock_file)
        if snapshot is not None:
            catalog = load_catalog(snapshot, areas=config.areas or None)
        else:
            catalog = extract_catalog(config)
    except McpEvalsError as error:
        if github:
            click.echo(annotation("error", str(error), title="mcp-evals validate"))
        raise
    outcome = validate_config(config, fixtures, catalog, locked, shown_config=_shown(config.path))
    problems, cover, lock = outcome.problems, outcome.cover, outcome.lock
    if output_format == "json":
        click.echo(render_json(problems, cover, catalog, lock))
    elif output_format == "md":
        click.echo(render_markdown(problems, cover, catalog, lock))
    else:
        click.echo(render_text(problems, cover, lock), color=False if os.environ.get("NO_COLOR") else None)
    if github:
        shown_lock = _shown(lock_file) if lock_file else ""
        for line in github_annotations(problems, lock, shown_lock):
            click.echo(line, err=output_format != "text")
    return EXIT_CHECK_FAILED if outcome.failed else EXIT_OK
