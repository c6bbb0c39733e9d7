"""`mode: session`: paid multi-step sessions (`mcp-evals session`), then their report, on dispatch or a
schedule only.

Like the eval, only the `mcp-evals session` process gets the API key; a fork or a missing key skips
with a notice. `budget-usd` and `tasks` are required: sessions are long, and there is no default cap.
"""

from __future__ import annotations

from pathlib import Path

from mcp_evals.action.context import SECTION_MAX_CHARS, ModeResult, Step, code_block, run_cli, say
from mcp_evals.action.eval_mode import step_spending
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_PRELIMINARY, McpEvalsError
from mcp_evals.github import scrubbed_environment
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.provider_registry import PROVIDERS, ProviderEntry
from mcp_evals.wording import alternatives

SESSION_EVENTS = ("workflow_dispatch", "schedule")


def holds_sessions(entry: ProviderEntry) -> bool:
    return entry.sessions


def session_provider(step: Step) -> tuple[str | None, str | None]:
    """The provider the sessions will use and, if they cannot run, why (no key: a fork, a missing secret)."""
    spending, skip = step_spending(
        step,
        "session",
        "the paid sessions were skipped",
        needs_model="Sessions need a model that calls tools",
        where=holds_sessions,
        configured_where=holds_sessions,
    )
    if spending.missing_key is not None:
        return spending.missing_key.provider, skip
    return spending.name, None


def _refused(message: str) -> ModeResult:
    say(workflow_command("error", message, title="mcp-evals: bad input"))
    return ModeResult("session", EXIT_BAD_INPUT, f"## ⚠️ mcp-evals session: bad input\n\n{message}", "error")


def _failed(code: int, tail: str, what: str) -> ModeResult:
    markdown = f"## ⚠️ mcp-evals session: {what} (exit {code})\n\n{code_block(tail)}"
    return ModeResult(
        "session", code if code not in (EXIT_OK, EXIT_PRELIMINARY) else EXIT_BAD_INPUT, markdown, "error"
    )


def run_session_mode(step: Step) -> ModeResult:
    """`mcp-evals session` with the inputs' plan and budget, then `mcp-evals session report` in Markdown."""
    inputs = step.inputs
    if step.event.name not in SESSION_EVENTS:
        return _refused(
            f"mode `session` runs paid sessions: only on {' or '.join(SESSION_EVENTS)}, "
            f"not on `{step.event.name}`. Use it in a workflow triggered by one of those."
        )
    if inputs.budget_usd is None:
        return _refused(
            "mode `session` needs the `budget-usd` input: sessions are long and there is no default cap "
            "(e.g. `budget-usd: 5`)."
        )
    if not inputs.tasks:
        return _refused(
            "mode `session` needs the `tasks` input: the task-set file, relative to `working-directory`."
        )
    session_providers = PROVIDERS.names(holds_sessions)
    if inputs.provider is not None and inputs.provider not in session_providers:
        named = alternatives([f"`{name}`" for name in session_providers])
        return _refused(
            f"mode `session` needs a model that calls tools: `provider:` {named}, not `{inputs.provider}`."
        )
    try:
        provider, skip = session_provider(step)
    except McpEvalsError as error:  # a key no header can carry, a base URL with no scheme
        return _refused(str(error))
    if skip is not None:
        say(workflow_command("notice", skip, title="mcp-evals session skipped"))
        return ModeResult(
            "session", EXIT_OK, f"## ⏭️ mcp-evals session: skipped\n\nSkipped: {skip}", "skipped"
        )
    assert provider is not None
    step.out_dir.mkdir(parents=True, exist_ok=True)
    records = step.out_dir / "sessions"
    args: list[str | Path] = [
        "session",
        "--config",
        step.config,
        "--tasks",
        step.in_workdir(inputs.tasks),
        "--provider",
        provider,
        "--budget-usd",
        str(inputs.budget_usd),
        "--results",
        records,
    ]
    for flag, value in (
        ("--model", inputs.model),
        ("--limit", inputs.limit),
        ("--arm", inputs.arm),
        ("--fault", inputs.fault),
        ("--runs", inputs.runs),
        ("--base-url", inputs.openai_base_url if provider == "openai" else None),
    ):
        if value is not None:
            args += [flag, str(value)]
    base_env = scrubbed_environment(step.environ)
    env = dict(base_env)
    variable = PROVIDERS[provider].key_env_var
    if variable and variable in inputs.api_keys():  # the one process that gets a key
        env[variable] = inputs.api_keys()[variable]
    ran = run_cli(args, env=env, cwd=step.workspace, group=f"mcp-evals session ({provider})")
    if ran.exit_code == EXIT_BAD_INPUT or not records.is_dir():
        return _failed(ran.exit_code, ran.tail, "the sessions could not run")
    markdown_path = step.out_dir / "session-report.md"
    reported = run_cli(
        ["session", "report", records, "--max-chars", str(SECTION_MAX_CHARS), "--out", markdown_path],
        env=base_env,
        cwd=step.workspace,
        group="mcp-evals session report",
    )
    if reported.exit_code == EXIT_BAD_INPUT or not markdown_path.exists():
        return _failed(reported.exit_code, reported.tail, "the report could not be written")
    preliminary = reported.exit_code == EXIT_PRELIMINARY or ran.exit_code == EXIT_PRELIMINARY
    return ModeResult(
        "session",
        EXIT_PRELIMINARY if preliminary else EXIT_OK,
        markdown_path.read_text("utf-8"),
        "preliminary" if preliminary else "complete",
        preliminary=preliminary,
    )
