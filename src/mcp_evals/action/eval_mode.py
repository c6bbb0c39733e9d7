"""`mode: eval`: the paid model eval (or a merge of shards), then its report, on dispatch or a schedule."""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

from mcp_evals.action.context import (
    SECTION_MAX_CHARS,
    ModeResult,
    Step,
    code_block,
    planned_modes,
    run_cli,
    say,
)
from mcp_evals.config.load import load_config
from mcp_evals.config.model import RunOptions
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY, McpEvalsError
from mcp_evals.github import scrubbed_environment
from mcp_evals.github.inputs import key_input
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.run.spending import Capable, MissingKey, Spending, choose


def read_run_options(step: Step) -> RunOptions:
    try:
        return load_config(step.workspace / step.config).run
    except McpEvalsError:
        return RunOptions()  # the command that needs the config says what is wrong with it


def decision_environment(step: Step) -> dict[str, str]:
    """What the eval process will see: the step's environment without secrets, the keys the inputs
    give, and the `openai-base-url` input (passed as --base-url)."""
    inputs = step.inputs
    environ = {**scrubbed_environment(step.environ), **inputs.api_keys()}
    if inputs.openai_base_url:
        environ["OPENAI_BASE_URL"] = inputs.openai_base_url
    return environ


def skip_reason(missing: MissingKey, what: str, *, lexical: bool = False) -> str:
    """The notice for a missing key, in the inputs' words (`anthropic-api-key`, not the variable);
    ``what``: what was skipped, as a clause ("the paid sessions were skipped")."""
    forks = "(pull requests from forks get no secrets; a missing repository secret looks the same)."
    if missing.kind == "provider" and missing.provider is not None:
        return f"the `{key_input(PROVIDERS[missing.provider])}` input is empty, so {what} {forks}"
    if missing.kind == "model" and missing.provider is not None:
        return (
            f"the model `{missing.model}` needs the `{key_input(PROVIDERS[missing.provider])}` input, "
            f"which is empty, so {what} {forks}"
        )
    if missing.kind == "model":
        return (
            f"the model `{missing.model}` needs an API key, so {what}. Pass "
            "`anthropic-api-key` or `openai-api-key`, and `provider` for a model mcp-evals does not know."
        )
    free = ", or `provider: lexical` for the free lexical baseline" if lexical else ""
    return (
        f"no API key was given, so {what}. Pass "
        f"`anthropic-api-key: ${{{{ secrets.ANTHROPIC_API_KEY }}}}` (or `openai-api-key`){free}. "
        "Pull requests from forks get no secrets."
    )


def step_spending(
    step: Step,
    command: str,
    skipped: str,
    *,
    needs_model: str,
    where: Capable | None = None,
    configured_where: Capable | None = None,
    lexical: bool = False,
) -> tuple[Spending, str | None]:
    """What the one spending policy decides for ``mcp-evals COMMAND`` on what its process will see
    and, if nothing may be sent, the notice (``skipped``: "the paid sessions were skipped"). Every
    paid mode asks it: a missing key is a skip, never a downgrade to the lexical baseline."""
    inputs = step.inputs
    spending = choose(
        command,
        decision_environment(step),
        read_run_options(step),
        provider=inputs.provider,
        model=inputs.model,
        where=where,
        needs_model=needs_model,
        configured_where=configured_where,
    )
    if spending.missing_key is not None:
        return spending, skip_reason(spending.missing_key, skipped, lexical=lexical)
    return spending, None


def eval_provider(step: Step) -> tuple[str | None, str | None]:
    """The provider the eval will use and, if it cannot run, why (no key: a fork PR, a missing secret);
    the lexical baseline runs only when `provider: lexical` asks for it."""
    if step.inputs.results:
        return "replay", None
    spending, skip = step_spending(
        step,
        "run",
        "the paid model eval was skipped",
        needs_model="The paid model eval needs a model",
        lexical=True,
    )
    if spending.missing_key is not None:
        return spending.missing_key.provider, skip
    return spending.name, None


def skipped_for_lack_of_key(step: Step) -> bool:
    if planned_modes(step) != ["eval"]:
        return False
    try:
        return eval_provider(step)[1] is not None
    except McpEvalsError:
        return False  # `action run` reports it


def _report_document(path: Path) -> dict[str, Any]:
    """The JSON report `mcp-evals report --format json` wrote (docs/report.schema.json), or {}."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def eval_failed(code: int, tail: str, what: str) -> ModeResult:
    markdown = f"## ⚠️ mcp-evals eval: {what} (exit {code})\n\n{code_block(tail)}"
    return ModeResult(
        "eval", code if code not in (EXIT_OK, EXIT_PRELIMINARY) else EXIT_BAD_INPUT, markdown, "error"
    )


def _results_files(step: Step) -> list[str]:
    patterns = (step.inputs.results or "").split()
    found = {path for pattern in patterns for path in glob.glob(pattern, root_dir=step.workdir)}
    return sorted(step.in_workdir(path) for path in found)


def run_eval_mode(step: Step) -> ModeResult:
    """`mcp-evals run` (or `merge` of earlier shards' results), then `mcp-evals report` in md and json."""
    inputs = step.inputs
    try:
        provider, skip = eval_provider(step)
    except McpEvalsError as error:  # a key no header can carry, a base URL with no scheme
        return eval_failed(EXIT_BAD_INPUT, str(error), "the eval could not run")
    if skip is not None:
        say(workflow_command("notice", skip, title="mcp-evals eval skipped"))
        return ModeResult("eval", EXIT_OK, f"## ⏭️ mcp-evals eval: skipped\n\nSkipped: {skip}", "skipped")
    step.out_dir.mkdir(parents=True, exist_ok=True)
    results = step.out_dir / "results.ndjson"
    base_env = scrubbed_environment(step.environ)  # no key, no token: merge and report need neither
    if inputs.results:
        files = _results_files(step)
        if not files:
            message = (
                f"input `results`: no file matches `{inputs.results}` in `{step.relative(step.workdir)}`"
            )
            return eval_failed(EXIT_BAD_INPUT, message, "no results to report on")
        ran = run_cli(
            ["merge", *files, "--out", results], env=base_env, cwd=step.workspace, group="mcp-evals merge"
        )
    else:
        assert provider is not None
        args: list[str | Path] = [
            "run",
            "--config",
            step.config,
            "--provider",
            provider,
            "--results",
            results,
        ]
        for flag, value in (
            ("--model", inputs.model),
            ("--concurrency", inputs.concurrency),
            ("--limit", inputs.limit),
            ("--samples", inputs.samples),
            ("--budget-usd", inputs.budget_usd),
            ("--shard", inputs.shard),
            ("--base-url", inputs.openai_base_url if provider == "openai" else None),
        ):
            if value is not None:
                args += [flag, str(value)]
        env = dict(base_env)
        variable = PROVIDERS[provider].key_env_var
        if variable and variable in inputs.api_keys():  # the one process that gets a key
            env[variable] = inputs.api_keys()[variable]
        ran = run_cli(args, env=env, cwd=step.workspace, group=f"mcp-evals run ({provider})")
    if ran.exit_code == EXIT_BAD_INPUT or not results.exists():
        return eval_failed(ran.exit_code, ran.tail, "the eval could not run")

    # The report decides the exit code: gate (gate.fail_on, area minimums), baseline, PRELIMINARY.
    report_args: list[str | Path] = ["report", results, "--config", step.config]
    report_args += ["--max-chars", str(SECTION_MAX_CHARS)]
    if inputs.baseline:
        report_args += ["--baseline", step.in_workdir(inputs.baseline)]
    markdown_path, json_path = step.out_dir / "eval-report.md", step.out_dir / "eval-report.json"
    reported = run_cli(
        [*report_args, "--format", "md", "--out", markdown_path],
        env=base_env,
        cwd=step.workspace,
        group="mcp-evals report",
    )
    if reported.exit_code == EXIT_BAD_INPUT or not markdown_path.exists():
        return eval_failed(reported.exit_code, reported.tail, "the report could not be written")
    run_cli([*report_args, "--format", "json", "--out", json_path], env=base_env, cwd=step.workspace)
    document = _report_document(json_path)
    markdown = markdown_path.read_text("utf-8")
    code = reported.exit_code
    decision = document.get("decision")
    preliminary = bool(document.get("preliminary", code == EXIT_PRELIMINARY))
    authoritative = not preliminary and not document.get("baseline_only")
    if code == EXIT_OK and authoritative and decision in inputs.fail_on:
        code = EXIT_CHECK_FAILED
        markdown += (
            f"\n\n❌ The gate decision `{decision}` is listed in the `fail-on` input: the step fails.\n"
        )
    top1, score = document.get("top1"), document.get("score")
    return ModeResult(
        "eval",
        code,
        markdown,
        str(decision or ("preliminary" if preliminary else "none")),
        top1=f"{top1:.4f}" if isinstance(top1, int | float) else "",
        score=f"{score:.2f}" if isinstance(score, int | float) else "",
        preliminary=preliminary,
    )
