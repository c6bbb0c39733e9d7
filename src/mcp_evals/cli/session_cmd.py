"""``mcp-evals session``: multi-step sessions against a live server, per arm and fault level.

Exit codes: 0 every session planned on the records file finished (or skipped: no key) · 2
PRELIMINARY (a dropout, a budget stop, sessions not run) · 3 bad input. ``session validate``: 0 valid
(warnings allowed) · 1 errors · 3 unreadable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

import click

from mcp_evals.cli.options import ProviderChoice, config_option, read_config, snapshot_option
from mcp_evals.config.model import Config, RunOptions
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY, ConfigError
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.wording import alternatives, plural


def holds_sessions(entry: ProviderEntry) -> bool:
    return entry.sessions


def _config(ctx: click.Context, config_path: Path) -> Config | None:
    """The config when there is one; without it (the default file missing) the task set's server runs."""
    source = ctx.get_parameter_source("config_path")
    if source == click.core.ParameterSource.DEFAULT and not config_path.exists():
        return None
    return read_config(config_path)


def _budget(option: float | None, environ: Mapping[str, str]) -> float | None:
    if option is not None:
        return option
    from mcp_evals.cli.run_cmd import _env_number

    return _env_number(environ, "EVAL_BUDGET_USD", float)


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
@click.option("--arm", type=click.Choice(["A", "B", "both"]), default="both", show_default=True)
@click.option("--fault", "fault", metavar="P,…", help="Fault levels in percent, e.g. 0,20 (default: all).")
@click.option("--runs", type=click.IntRange(1, 100), default=1, show_default=True, help="Sessions per cell.")
@click.option("--limit", type=click.IntRange(1), help="Only the first N tasks.")
@click.option("--provider", type=ProviderChoice(holds_sessions), help="Default: by the key present.")
@click.option("--model", help="Model id (env EVAL_MODEL; default the provider's).")
@click.option("--judge-model", help="The judge of (d), same provider (default: the task set's judge.model).")
@click.option(
    "--budget-usd",
    type=click.FloatRange(0, min_open=True),
    help="Required for a paid run: stop before the next request could cross it (env EVAL_BUDGET_USD).",
)
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
@click.option("--base-url", help="API base URL (env ANTHROPIC_BASE_URL / OPENAI_BASE_URL).")
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
    from mcp_evals.cli.paid import billable
    from mcp_evals.providers.base import ProviderSettings
    from mcp_evals.providers.pricing import find_price, provider_of, require_price
    from mcp_evals.providers.registry import choose_provider
    from mcp_evals.run.asker import Asker, generate_options, own_settings
    from mcp_evals.session.load import arm_catalog, load_task_set, server_of
    from mcp_evals.session.prepare import choose_arms, choose_levels, choose_tasks, prepare, refuse_invalid

    environ = os.environ
    config = _config(ctx, config_path)
    options = config.run if config is not None else RunOptions()
    if config is not None:
        config.check_variables()
    # The task set and the options first: bad input is exit 3 whether or not a key is set.
    task_set = load_task_set(tasks_path)
    server_of(task_set, config, tasks_path)
    arms = choose_arms(arm)
    levels = choose_levels(task_set, fault)
    tasks = choose_tasks(task_set, limit)
    budget = _budget(budget_usd, environ)
    model_asked = model or environ.get("EVAL_MODEL", "").strip() or options.model
    session_providers = PROVIDERS.names(holds_sessions)
    configured = options.provider if options.provider in session_providers else None
    choice = choose_provider(provider, configured, environ, model_asked)
    endpoint = base_url or choice.base_url or options.base_url or ""
    if endpoint and not endpoint.lower().startswith(("http://", "https://")):
        raise ConfigError(f"base URL {endpoint!r} has no http:// or https:// scheme")
    if choice.name not in session_providers:
        if not dry:
            _say(
                "mcp-evals session: skipped: no API key. Sessions need a model that calls tools: set "
                f"{alternatives(PROVIDERS.key_variables(holds_sessions))} (read from the environment only, "
                "never logged).\n"
                "  Estimate the cost first, without a key: mcp-evals session --tasks … --dry"
            )
            return EXIT_OK
        by_model = provider_of(model_asked) if model_asked else None  # `--dry --model gpt-5.4` with no key
        fallback = by_model if by_model in session_providers else session_providers[0]
        choice = choose_provider(fallback, None, environ)
        endpoint = base_url or choice.base_url or options.base_url or ""
    entry = choice.entry
    paid = billable(choice, endpoint)
    if choice.key is None and paid and not dry:
        variable = entry.key_env_var
        _say(
            f"mcp-evals session: skipped: the {choice.name} provider was asked for, "
            f"but {variable} is not set.\n"
            f"  Set it to run sessions (it is read from the environment only, never logged), or estimate "
            f"the cost first: mcp-evals session --tasks … --provider {choice.name} --dry"
        )
        return EXIT_OK
    model_name = model_asked or entry.default_model or ""
    if not paid:
        budget = None  # an endpoint of your own with no key bills nothing: there is nothing to cap
    if paid and not dry and budget is None:
        raise ConfigError(
            "a paid session run needs a budget cap: --budget-usd X or EVAL_BUDGET_USD=X",
            hint="sessions are long and there is no default; `mcp-evals session --tasks … --dry` estimates "
            "the cost first",
        )
    price = (
        require_price(model_name, options.prices)
        if budget is not None
        else find_price(model_name, options.prices)
    )

    prepared = prepare(tasks_path, config, task_set, keep_sandbox=keep_sandbox)
    for problem in refuse_invalid(prepared):
        _say(str(problem))
    judge_name = judge_model or task_set.judge.model
    if judge_name and budget is not None and not dry:
        require_price(judge_name, options.prices)

    def settings(model_id: str) -> ProviderSettings:
        return ProviderSettings(
            model=model_id,
            base_url=endpoint or entry.load().default_base_url,
            api_key=choice.key,
            timeout=options.timeout,
            max_connections=4,
            own=own_settings(options),
        )

    provider_class = entry.load()
    askers = {
        name: Asker(
            provider_class(settings(model_name)),
            arm_catalog(prepared.catalog, task_set, name),
            task_set.system_prompt_of(name),
            generate_options(options, conversation=True),
        )
        for name in arms
    }
    from mcp_evals.session.live import LiveSettings, Plan, run_dry, run_live

    plan = Plan(arms=arms, levels=levels, tasks=tasks, runs=runs)
    if dry:
        run_dry(
            prepared,
            askers,
            plan,
            price=price,
            budget_usd=budget,
            count_tokens=count_tokens,
            max_tokens=options.max_tokens,
            emit=click.echo,
            say=_say,
        )
        return EXIT_OK

    from mcp_evals.catalog.model import Catalog
    from mcp_evals.contract.runner import git_sha
    from mcp_evals.run.retry import RetryPolicy
    from mcp_evals.session.judge import JUDGE_SYSTEM
    from mcp_evals.session.prepare import today
    from mcp_evals.session.records_file import DEFAULT_RESULTS_DIR
    from mcp_evals.session.report import render_session_markdown

    judge = (
        Asker(
            provider_class(settings(judge_name)),
            Catalog(tools=[]),
            JUDGE_SYSTEM,
            generate_options(options, conversation=True, max_tokens=task_set.judge.max_tokens),
        )
        if judge_name
        else None
    )
    sha = git_sha(tasks_path.resolve().parent) or "unknown"
    live = LiveSettings(
        date=today(),
        git_sha=sha,
        results_dir=results_dir or Path(DEFAULT_RESULTS_DIR),
        budget_usd=budget,
        price=price,
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        retry=RetryPolicy(max_attempts=options.max_attempts, max_wait=options.max_wait),
        request_deadline=options.timeout * 3,
        count_tokens=count_tokens,
        notes=[],
    )
    _say(
        f"mcp-evals session: {plural(plan.sessions, 'session')} ({plural(len(tasks), 'task')} × "
        f"{plural(len(arms), 'arm')} × {plural(len(levels), 'fault level')} × {plural(runs, 'run')}) · "
        f"{choice.name}/{model_name} · " + (f"budget ${budget:g}" if budget is not None else "no budget")
    )
    try:
        path, outcome = run_live(prepared, askers, judge, plan, live, _say)
    except KeyboardInterrupt:
        _say(
            "mcp-evals session: interrupted; finished sessions are kept in the records folder: run the "
            "same command again (same day, same commit) to run only the rest"
        )
        raise
    if outcome.fatal is not None:
        _say(f"mcp-evals session: stopped by a fatal error: {outcome.fatal.message}")
    if outcome.budget_stopped:
        _say(f"mcp-evals session: the budget (${budget:g}) stopped the run; spent ${outcome.spent_usd:.4f}")
    from mcp_evals.session.aggregate import summarize
    from mcp_evals.session.records_file import read_records

    records = read_records(path)
    summary = summarize(records.headers, records.sessions)
    _emit(render_session_markdown(summary), None)
    _say(f"records: {path}")
    return EXIT_PRELIMINARY if summary.preliminary else EXIT_OK


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
@click.option("--format", "report_format", type=click.Choice(["md", "json"]), default="md", show_default=True)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="Write here (default stdout).")
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
