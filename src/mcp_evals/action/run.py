"""`action run`: the modes in order, then one job summary, the step outputs and the sticky PR comment."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from mcp_evals._version import __version__
from mcp_evals.action.context import AVAILABLE_MODES, ModeResult, Step, combine_exit_codes, planned_modes, say
from mcp_evals.action.crash import report_failure
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, McpEvalsError
from mcp_evals.github import (
    GitHubApi,
    append_summary,
    comment_marker,
    default_mode,
    load_event,
    post_sticky_comment,
    read_inputs,
    target_pull_request,
    write_outputs,
)
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.report.escape import md_block


def mode_runner(mode: str) -> Callable[[Step], ModeResult]:
    """The function that runs ``mode``, its module imported only now: a step runs one or two of the
    six modes, and need not pay the start-up of the others."""
    if mode == "validate":
        from mcp_evals.action.validate_mode import run_validate_mode

        return run_validate_mode
    if mode == "contract":
        from mcp_evals.action.contract_mode import run_contract_mode

        return run_contract_mode
    if mode == "eval":
        from mcp_evals.action.eval_mode import run_eval_mode

        return run_eval_mode
    if mode == "session":
        from mcp_evals.action.session_mode import run_session_mode

        return run_session_mode
    if mode == "improve":
        from mcp_evals.action.improve_mode import run_improve_mode

        return run_improve_mode
    if mode == "audit":
        from mcp_evals.action.audit_mode import run_audit_mode

        return run_audit_mode
    raise KeyError(mode)


def _footer(step: Step) -> str:
    parts = [f"mcp-evals {__version__}"]
    if step.event.sha:
        parts.append(f"commit `{step.event.sha[:7]}`")
    if step.event.run_url:
        parts.append(f"[run]({step.event.run_url})")
    return "<sub>" + " · ".join(parts) + "</sub>"


def _sections(step: Step, outcomes: Sequence[ModeResult]) -> dict[str, str]:
    footer = _footer(step)
    return {outcome.mode: f"{outcome.markdown.rstrip()}\n\n{footer}" for outcome in outcomes}


def _outputs(
    step: Step, outcomes: Sequence[ModeResult], exit_code: int, report: Path, comment_url: str
) -> dict[str, str]:
    decisive = next((o for o in outcomes if o.mode == "eval" and o.decision != "skipped"), None)
    decisive = (
        decisive
        or next((o for o in outcomes if o.mode in ("build", "validate")), None)
        or (outcomes[-1] if outcomes else None)
    )
    return {
        "decision": decisive.decision if decisive else "",
        "top1": decisive.top1 if decisive else "",
        "score": decisive.score if decisive else "",
        "preliminary": "true" if any(o.preliminary for o in outcomes) else "false",
        "exit-code": str(exit_code),
        "report-path": step.relative(report),
        "comment-url": comment_url,
    }


def _comment(step: Step, title: str, sections: Mapping[str, str], placeholders: Mapping[str, str]) -> str:
    inputs = step.inputs
    if not inputs.comment:
        say("PR comment: off (comment: false)")
        return ""
    if not inputs.github_token:
        say(
            workflow_command(
                "warning", "no github-token: the report is in the job summary only", title="mcp-evals"
            )
        )
        return ""
    with GitHubApi(step.event.api_url, inputs.github_token) as api:
        number, why = target_pull_request(step.event, inputs.pr_number, api)
        if number is None:
            say(f"PR comment: none ({why})")
            return ""
        outcome = post_sticky_comment(
            api,
            step.event.repository,
            number,
            marker=comment_marker(step.config_label),
            title=title,
            sections=sections,
            placeholders=placeholders,
        )
    if outcome.action == "failed":
        say(workflow_command("warning", outcome.message, title="mcp-evals: no PR comment"))
        return ""
    say(f"PR comment: {outcome.action} on #{number} ({why}): {outcome.url}")
    return outcome.url


def run_action(environ: Mapping[str, str], build_status: int = 0) -> int:
    """The Action from inputs to exit code; writes the summary, outputs and comment on the way."""
    summary_path = environ.get("GITHUB_STEP_SUMMARY")
    output_path = environ.get("GITHUB_OUTPUT")
    try:
        inputs = read_inputs(environ)
    except McpEvalsError as error:
        say(workflow_command("error", str(error), title="mcp-evals: bad input"))
        markdown = f"## ⚠️ mcp-evals: bad input\n\n{md_block(str(error))}\n"
        report_failure(environ, markdown, "error", EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT
    event = load_event(environ)
    workspace = event.workspace.resolve()
    step = Step(inputs, event, workspace, workspace / inputs.working_directory, environ)
    title = f"**mcp-evals** · `{step.config_label}`"

    outcomes: list[ModeResult] = []
    mode = inputs.mode or default_mode(event.name)
    if mode not in (*AVAILABLE_MODES, "all"):
        message = (
            f"mode `{mode}` is not available in mcp-evals {__version__}: its command does not exist yet. "
            f"Use one of: {', '.join((*AVAILABLE_MODES, 'all'))}."
        )
        say(workflow_command("error", message, title="mcp-evals: mode not available"))
        outcomes.append(ModeResult(mode, EXIT_BAD_INPUT, f"## ⚠️ mcp-evals: bad input\n\n{message}", "error"))
    elif not step.workdir.is_dir():
        message = f"working-directory `{inputs.working_directory}` does not exist in the repository"
        say(workflow_command("error", message, title="mcp-evals: bad input"))
        outcomes.append(
            ModeResult("validate", EXIT_BAD_INPUT, f"## ⚠️ mcp-evals: bad input\n\n{message}", "error")
        )
    elif build_status != 0:
        command = shlex.quote(inputs.build) if "`" in inputs.build else f"`{inputs.build}`"
        outcomes.append(
            ModeResult(
                "build",
                EXIT_CHECK_FAILED,
                f"## ❌ mcp-evals: the build failed\n\nThe build command {command} failed with exit code "
                f"{build_status}; nothing was evaluated. Its output is in the step log.",
                "build-failed",
            )
        )
    else:
        for name in planned_modes(step):
            if name == "eval" and outcomes and outcomes[-1].exit_code in (EXIT_CHECK_FAILED, EXIT_BAD_INPUT):
                outcomes.append(
                    ModeResult(
                        "eval",
                        EXIT_OK,
                        "## ⏭️ mcp-evals eval: skipped\n\nSkipped: the fixtures are not valid.",
                        "skipped",
                    )
                )
                continue
            outcomes.append(mode_runner(name)(step))

    exit_code = combine_exit_codes([outcome.exit_code for outcome in outcomes])
    sections = _sections(step, outcomes)
    summary = title + "\n\n" + "\n\n".join(sections[o.mode] for o in outcomes) + "\n"
    report = step.out_dir / "report.md"
    if step.workdir.is_dir():
        step.out_dir.mkdir(parents=True, exist_ok=True)
        report.write_text(summary, "utf-8")
    append_summary(summary_path, summary)
    skipped = {o.mode for o in outcomes if o.decision == "skipped"}
    comment_url = _comment(
        step,
        title,
        {name: text for name, text in sections.items() if name not in skipped},
        {name: text for name, text in sections.items() if name in skipped},
    )
    write_outputs(output_path, _outputs(step, outcomes, exit_code, report, comment_url))
    say(f"mcp-evals action: exit code {exit_code}")
    return exit_code
