"""``mcp-evals session``: multi-step sessions against a live server, per arm and fault level.

Exit codes: 0 every session planned on the records file finished (or skipped: no key) · 2
PRELIMINARY (a dropout, a budget stop, sessions not run) · 3 bad input. ``session validate``: 0 valid
(warnings allowed) · 1 errors · 3 unreadable.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from mcp_evals.api.session import holds_sessions
from mcp_evals.cli.options import config_option, read_config, snapshot_option
from mcp_evals.cli.paid_options import paid_options
from mcp_evals.cli.vocabulary import format_option, out_option
from mcp_evals.config.model import Config
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.wording import plural


def _config(ctx: click.Context, config_path: Path) -> Config | None:
    """The config when there is one; without it (the default file missing) the task set's server runs."""
    source = ctx.get_parameter_source("config_path")
    if source == click.core.ParameterSource.DEFAULT and not config_path.exists():
        return None
    return read_config(config_path)


def _emit(text: str, out: Path | None) -> None:
    if out is None:
        click.echo(text, nl=False)
        sys.stdout.flush()
        return
    from mcp_evals.files import atomic_write

    with atomic_write(out, what="--out") as stream:
        stream.write(text)
    click.echo(f"report written to {out}", err=True)


def _say(text: str) -> None:
    click.echo(text, err=True)


@click.group(invoke_without_command=True)
@config_option
@click.option(
    "--tasks",
    "tasks_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The task-set file (YAML or JSON).",
)
@click.option(
    "--arm",
    type=click.Choice(["A", "B", "both"]),
    default="both",
    show_default=True,
    help="Which of the task set's arms to run: A, B or both.",
)
@click.option("--fault", "fault", metavar="P,…", help="Fault levels in percent, e.g. 0,20 (default: all).")
@click.option("--runs", type=click.IntRange(1, 100), default=1, show_default=True, help="Sessions per cell.")
@click.option("--limit", type=click.IntRange(1), help="Only the first N tasks.")
@paid_options(holds_sessions, concurrency=False)
@click.option("--judge-model", help="The judge of (d), same provider (default: the task set's judge.model).")
@click.option("--dry", is_flag=True, help="Play each task's script on the real server and estimate the cost.")
@click.option(
    "--count-tokens", is_flag=True, help="Count tokens with Anthropic's free endpoint instead of estimating."
)
@click.option(
    "--results",
    "results_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Records folder (default mcp-evals-sessions).",
)
@click.option("--keep-sandbox", is_flag=True, help="Keep each session's sandbox folder (and say where).")
@click.pass_context
def session(
    ctx: click.Context,
    config_path: Path,
    tasks_path: Path | None,
    arm: str,
    fault: str | None,
    runs: int,
    limit: int | None,
    provider: str | None,
    model: str | None,
    judge_model: str | None,
    budget_usd: float | None,
    dry: bool,
    count_tokens: bool,
    results_dir: Path | None,
    base_url: str | None,
    keep_sandbox: bool,
) -> int:
    """Run multi-step sessions: a model uses a live server's tools, per arm and fault level.

    \b
    Records every session (NDJSON, one file per date and commit; a finished session never runs
    again) and prints the report. A paid run needs --budget-usd or EVAL_BUDGET_USD.
    Exit codes: 0 complete (or skipped: no key) · 2 PRELIMINARY · 3 bad input.
    Subcommands: `validate` (the task set against the catalog), `report` (from the records).
    """
    if ctx.invoked_subcommand is not None:
        return EXIT_OK
    if tasks_path is None:
        raise click.UsageError("Missing option '--tasks' (the task-set file).", ctx=ctx)
    from mcp_evals.api.session import SessionRequest, estimate_session, execute_session, plan_session
    from mcp_evals.run.spending import MissingKey

    request = SessionRequest(
        tasks=tasks_path,
        config=_config(ctx, config_path),
        arm=arm,
        fault=fault,
        runs=runs,
        limit=limit,
        provider=provider,
        model=model,
        judge_model=judge_model,
        budget_usd=budget_usd,
        dry=dry,
        count_tokens=count_tokens,
        results=results_dir,
        base_url=base_url,
        keep_sandbox=keep_sandbox,
        environ=os.environ,
        say=_say,
    )
    plan = plan_session(request)
    if isinstance(plan, MissingKey):
        _say(plan.message("session", usage=" --tasks …"))
        return EXIT_OK
    if dry:
        estimate_session(plan, emit=click.echo, say=_say)
        return EXIT_OK
    outcome = execute_session(plan, say=_say)
    _emit(outcome.markdown, None)
    _say(f"records: {outcome.records}")
    return outcome.exit_code


@session.command("validate")
@config_option
@click.option(
    "--tasks",
    "tasks_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The task-set file.",
)
@snapshot_option("Check against")
@click.pass_context
def validate(ctx: click.Context, config_path: Path, tasks_path: Path, snapshot: Path | None) -> int:
    """Check a task set against the catalog: no model, no API key, no cost.

    \b
    Problems are printed as `file:line: severity [rule] field: message`, errors first.
    Exit 0 when there are no errors (warnings allowed), 1 when there are, 3 on bad input.
    """
    from mcp_evals.session.load import load_task_set
    from mcp_evals.session.prepare import prepare
    from mcp_evals.session.validate import validate_task_set

    if snapshot is not None:
        from mcp_evals.catalog.snapshot import load_catalog

        task_set = load_task_set(tasks_path)
        catalog = load_catalog(snapshot)
    else:
        prepared = prepare(tasks_path, _config(ctx, config_path))
        task_set, catalog = prepared.task_set, prepared.catalog
    problems = validate_task_set(task_set, catalog)
    for problem in problems:
        click.echo(str(problem))
    errors = sum(1 for problem in problems if problem.severity == "error")
    warnings = len(problems) - errors
    verdict = "FAILED" if errors else "ok"
    click.echo(
        f"{verdict}: {plural(len(task_set.tasks), 'task')} against {plural(len(catalog.tools), 'tool')} · "
        f"{plural(errors, 'error')}, {plural(warnings, 'warning')}"
    )
    return EXIT_CHECK_FAILED if errors else EXIT_OK


@session.command("report")
@click.argument("records", type=click.Path(exists=True, path_type=Path))
@format_option("md", "json", default="md", show_default=True, help="The report as Markdown or as JSON.")
@out_option("Write the report to this file instead of standard output.")
@click.option("--max-chars", type=click.IntRange(2000), help="Keep the Markdown within this many characters.")
def report(records: Path, report_format: str, out: Path | None, max_chars: int | None) -> int:
    """Render the report of a session run from its records (a records file, or the newest in a folder).

    \b
    Exit codes: 0 every planned session finished · 2 PRELIMINARY · 3 unreadable.
    """
    from mcp_evals.session.aggregate import summarize
    from mcp_evals.session.records_file import newest_records_file, read_records
    from mcp_evals.session.report import render_session_markdown

    path = newest_records_file(records) if records.is_dir() else records
    read = read_records(path)
    summary = summarize(read.headers, read.sessions)
    if report_format == "json":
        text = summary.model_dump_json(indent=2) + "\n"
    else:
        text = render_session_markdown(summary, max_chars=max_chars)
    _emit(text, out)
    return EXIT_PRELIMINARY if summary.preliminary else EXIT_OK
