"""`mode: improve`: `mcp-evals improve` on a workflow_dispatch, its improve.md as the job summary.

A model rewrites the descriptions of the tools it confuses and the rewrite is proven on the test
split; only the `mcp-evals improve` process gets the API key, and `budget-usd` is required with a
paid model. `provider: lexical` runs the whole loop free (the lexical baseline and the rule-based
rewriter); without a key and without it, the mode is skipped with a notice.
"""

from __future__ import annotations

import json
from pathlib import Path

from mcp_evals.action.context import SECTION_MAX_CHARS, ModeResult, Step, code_block, run_cli, say
from mcp_evals.action.eval_mode import read_run_options, step_spending
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.github import scrubbed_environment
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.provider_registry import FALLBACK, PROVIDERS, ProviderEntry
from mcp_evals.run.spending import Spending

IMPROVE_EVENTS = ("workflow_dispatch",)


def _refused(message: str) -> ModeResult:
    say(workflow_command("error", message, title="mcp-evals: bad input"))
    return ModeResult("improve", EXIT_BAD_INPUT, f"## ⚠️ mcp-evals improve: bad input\n\n{message}", "error")


def _improves_with_a_model(entry: ProviderEntry) -> bool:
    """What the Action runs without `provider: lexical`: a provider whose model writes the rewrite."""
    return entry.improves and entry.name != FALLBACK


def improve_spending(step: Step) -> tuple[Spending, str | None]:
    """What the one spending policy decides for `mcp-evals improve` and, if it cannot run, why. As in
    mode `eval`, the free loop runs only when `provider: lexical` asks for it."""
    return step_spending(
        step,
        "improve",
        "the paid rewrite was skipped",
        needs_model="The paid rewrite needs a model that writes text",
        where=_improves_with_a_model,
        lexical=True,
    )


def improve_provider(step: Step) -> tuple[str | None, str | None]:
    """The provider improve will use and, if it cannot run, why (no key and no `provider: lexical`)."""
    spending, skip = improve_spending(step)
    if spending.missing_key is not None:
        return spending.missing_key.provider, skip
    return spending.name, None


def run_improve_mode(step: Step) -> ModeResult:
    """`mcp-evals improve` with the inputs' provider, model and budget; its improve.md is the section."""
    inputs = step.inputs
    if step.event.name not in IMPROVE_EVENTS:
        return _refused(
            f"mode `improve` runs on {' or '.join(IMPROVE_EVENTS)} only, not on `{step.event.name}`: it "
            "calls a model many times, and a person asks for it."
        )
    usable = PROVIDERS.names(lambda entry: entry.improves)
    if inputs.provider is not None and inputs.provider not in usable:
        return _refused(
            f"mode `improve` needs a model that writes text, or `provider: lexical`; not `{inputs.provider}`."
        )
    spending, skip = improve_spending(step)
    if skip is not None:
        say(workflow_command("notice", skip, title="mcp-evals improve skipped"))
        return ModeResult(
            "improve", EXIT_OK, f"## ⏭️ mcp-evals improve: skipped\n\nSkipped: {skip}", "skipped"
        )
    provider, paid = spending.name, spending.billable
    if paid and inputs.budget_usd is None and read_run_options(step).budget_usd is None:
        return _refused(
            "mode `improve` with a paid model needs the `budget-usd` input (or `run.budget_usd` in the "
            "config): one cap over the dev run, the proposals and the proof (e.g. `budget-usd: 5`)."
        )
    out = step.out_dir / "improve"
    args: list[str | Path] = ["improve", "--config", step.config, "--provider", provider, "--out", out]
    for flag, value in (
        ("--budget-usd", inputs.budget_usd if paid else None),
        ("--model", inputs.model),
        ("--concurrency", inputs.concurrency),
        ("--samples", inputs.samples),
        ("--base-url", inputs.openai_base_url if provider == "openai" else None),
    ):
        if value is not None:
            args += [flag, str(value)]
    env = scrubbed_environment(step.environ)
    variable = PROVIDERS[provider].key_env_var
    if variable and variable in inputs.api_keys():  # the one process that gets a key
        env[variable] = inputs.api_keys()[variable]
    ran = run_cli(
        args, env=env, cwd=step.workspace, group=f"mcp-evals improve ({provider})", capture_stdout=True
    )
    markdown_path, json_path = out / "improve.md", out / "improve.json"
    if ran.exit_code not in (EXIT_OK, EXIT_PRELIMINARY) or not markdown_path.exists():
        markdown = f"## ⚠️ mcp-evals improve could not run (exit {ran.exit_code})\n\n{code_block(ran.tail)}"
        return ModeResult("improve", ran.exit_code or EXIT_BAD_INPUT, markdown, "error")
    markdown = markdown_path.read_text("utf-8")
    if len(markdown) > SECTION_MAX_CHARS:
        shown = step.relative(markdown_path)
        markdown = markdown[:SECTION_MAX_CHARS].rsplit("\n", 1)[0] + f"\n\n*… the whole report: `{shown}`*\n"
    overall = str(json.loads(json_path.read_text("utf-8")).get("overall", "")) if json_path.exists() else ""
    preliminary = ran.exit_code == EXIT_PRELIMINARY
    decision = overall.replace(" ", "-") or "error"
    say(f"improve: {overall}" + (" (incomplete)" if preliminary else ""))
    return ModeResult("improve", ran.exit_code, markdown, decision, preliminary=preliminary)
