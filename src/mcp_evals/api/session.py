"""``mcp-evals session`` as a library: ``plan_session(request) -> SessionPlan``, then
``execute_session(plan) -> SessionOutcome`` (``estimate_session`` is ``--dry``).

Every decision is here: the task set and what of it runs (arms, fault levels, tasks), the spending
(``run.spending``: a model that calls tools, a cap required when it bills — from the flag or
``EVAL_BUDGET_USD``, never the config — and a judge model with a price under it; a missing key
skips), the providers of each arm and the judge, and the records. Bad input raises (exit 3) before
the key is looked at: the config, the task set, ``--fault``, the settings. A missing key is returned,
and no server is started.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcp_evals.api.inputs import decide_for
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config, RunOptions
from mcp_evals.errors import EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.provider_registry import ProviderEntry
from mcp_evals.run.asker import Asker, generate_options
from mcp_evals.run.spending import MissingKey, Spending
from mcp_evals.session.live import LiveSettings, Plan, run_dry, run_live
from mcp_evals.session.load import arm_catalog, load_task_set, server_of
from mcp_evals.session.model import ArmName, TaskSet
from mcp_evals.session.prepare import (
    Prepared,
    choose_arms,
    choose_levels,
    choose_tasks,
    prepare,
    refuse_invalid,
)
from mcp_evals.wording import plural


def holds_sessions(entry: ProviderEntry) -> bool:
    """A provider ``mcp-evals session`` can use: a model that calls tools over several turns."""
    return entry.sessions


Say = Callable[[str], None]


def _quiet(text: str) -> None:
    """The library's default: say nothing (the command passes printers)."""


@dataclass
class SessionRequest:
    """What a session run is asked to do (``config`` None: the task set's server runs alone)."""

    tasks: Path
    config: Config | None = None
    arm: str = "both"
    fault: str | None = None
    runs: int = 1
    limit: int | None = None
    provider: str | None = None
    model: str | None = None
    judge_model: str | None = None
    budget_usd: float | None = None
    dry: bool = False
    count_tokens: bool = False
    results: Path | None = None
    base_url: str | None = None
    keep_sandbox: bool = False  # each session's sandbox folder is kept (and said where)
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)
    say: Say = _quiet  # what the task set's problems are, as they are found


@dataclass
class SessionPlan:
    """Everything decided before the first session."""

    request: SessionRequest
    spending: Spending
    task_set: TaskSet
    prepared: Prepared
    plan: Plan
    askers: dict[ArmName, Asker]
    judge_model: str | None

    @property
    def options(self) -> RunOptions:
        config = self.request.config
        return config.run if config is not None else RunOptions()


@dataclass
class SessionOutcome:
    """0 every planned session finished · 2 PRELIMINARY; the records file and the report."""

    exit_code: int
    records: Path
    markdown: str


def plan_session(request: SessionRequest) -> SessionPlan | MissingKey:
    """Decide everything a session run needs; bad input raises (exit 3), a missing key is returned."""
    config = request.config
    options = config.run if config is not None else RunOptions()
    if config is not None:
        config.check_variables()
    # The task set and the options first: bad input is exit 3 whether or not a key is set.
    task_set = load_task_set(request.tasks)
    server_of(task_set, config, request.tasks)
    arms = choose_arms(request.arm)
    levels = choose_levels(task_set, request.fault)
    tasks = choose_tasks(task_set, request.limit)
    spending = decide_for(
        "session",
        request,
        options,
        where=holds_sessions,
        configured_where=holds_sessions,
        needs_model="Sessions need a model that calls tools",
        cap="required",
        budget_in_config=False,
        usage=" --tasks …",
    )
    if spending.missing_key is not None:
        return spending.missing_key

    prepared = prepare(request.tasks, config, task_set, keep_sandbox=request.keep_sandbox)
    for problem in refuse_invalid(prepared):
        request.say(str(problem))
    judge_model = request.judge_model or task_set.judge.model
    if judge_model and not request.dry:
        spending.price_of(judge_model, options)
    provider_class = spending.provider_class
    askers = {
        name: Asker(
            provider_class(spending.settings(options)),
            arm_catalog(prepared.catalog, task_set, name),
            task_set.system_prompt_of(name),
            generate_options(options, conversation=True),
        )
        for name in arms
    }
    plan = Plan(arms=arms, levels=levels, tasks=tasks, runs=request.runs)
    return SessionPlan(request, spending, task_set, prepared, plan, askers, judge_model)


def estimate_session(plan: SessionPlan, *, emit: Say = _quiet, say: Say = _quiet) -> None:
    """``--dry``: play each task's script on the real server, count the tokens, price the run."""
    spending, options = plan.spending, plan.options
    run_dry(
        plan.prepared,
        plan.askers,
        plan.plan,
        price=spending.price,
        budget_usd=spending.budget_usd,
        count_tokens=plan.request.count_tokens,
        max_tokens=options.max_tokens,
        emit=emit,
        say=say,
    )


def execute_session(plan: SessionPlan, *, say: Say = _quiet) -> SessionOutcome:
    """Run every planned session (a finished one never runs again) and report from the records."""
    from mcp_evals.contract.runner import git_sha
    from mcp_evals.run.retry import RetryPolicy
    from mcp_evals.session.aggregate import summarize
    from mcp_evals.session.judge import JUDGE_SYSTEM
    from mcp_evals.session.prepare import today
    from mcp_evals.session.records_file import DEFAULT_RESULTS_DIR, read_records
    from mcp_evals.session.report import render_session_markdown

    request, spending, options = plan.request, plan.spending, plan.options
    budget = spending.budget_usd
    judge = None
    if plan.judge_model:
        judge = Asker(
            spending.provider_class(spending.settings(options, model=plan.judge_model)),
            Catalog(tools=[]),
            JUDGE_SYSTEM,
            generate_options(options, conversation=True, max_tokens=plan.task_set.judge.max_tokens),
        )
    live = LiveSettings(
        date=today(),
        git_sha=git_sha(request.tasks.resolve().parent) or "unknown",
        results_dir=request.results or Path(DEFAULT_RESULTS_DIR),
        budget_usd=budget,
        price=spending.price,
        max_tokens=options.max_tokens,
        temperature=options.temperature,
        retry=RetryPolicy(max_attempts=options.max_attempts, max_wait=options.max_wait),
        request_deadline=options.timeout * 3,
        count_tokens=request.count_tokens,
        notes=[],
    )
    sessions = plan.plan
    say(
        f"mcp-evals session: {plural(sessions.sessions, 'session')} "
        f"({plural(len(sessions.tasks), 'task')} × "
        f"{plural(len(sessions.arms), 'arm')} × {plural(len(sessions.levels), 'fault level')} × "
        f"{plural(sessions.runs, 'run')}) · "
        f"{spending.name}/{spending.model} · "
        + (f"budget ${budget:g}" if budget is not None else "no budget")
    )
    try:
        path, outcome = run_live(plan.prepared, plan.askers, judge, sessions, live, say)
    except KeyboardInterrupt:
        say(
            "mcp-evals session: interrupted; finished sessions are kept in the records folder: run the "
            "same command again (same day, same commit) to run only the rest"
        )
        raise
    if outcome.fatal is not None:
        say(f"mcp-evals session: stopped by a fatal error: {outcome.fatal.message}")
    if outcome.budget_stopped:
        say(f"mcp-evals session: the budget (${budget:g}) stopped the run; spent ${outcome.spent_usd:.4f}")
    records = read_records(path)
    summary = summarize(records.headers, records.sessions)
    code = EXIT_PRELIMINARY if summary.preliminary else EXIT_OK
    return SessionOutcome(code, path, render_session_markdown(summary))
