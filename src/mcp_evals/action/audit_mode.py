"""`mode: audit`: `mcp-evals audit` on a pull request, free: the catalog, the lint with its security
rules, the probe of the tools marked safe and the protocol checks, one score, SARIF for code scanning.

The server is the `audit-command` (stdio, run in `working-directory` after the build) or `audit-url`;
without either, the servers of the config. `fail-under` fails the step below that score.
"""

from __future__ import annotations

import shlex

from mcp_evals.action.context import ModeResult, Step, code_block, run_cli, say
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK
from mcp_evals.github import scrubbed_environment
from mcp_evals.lint.audit import AuditReport
from mcp_evals.lint.render.audit import render_audit_markdown, render_audit_sarif


def run_audit_mode(step: Step) -> ModeResult:
    """`mcp-evals audit --format json`, then its Markdown section and `audit.sarif` from that report."""
    inputs = step.inputs
    step.out_dir.mkdir(parents=True, exist_ok=True)
    report_path = step.out_dir / "audit.json"
    args: list[str] = ["audit", "--format", "json", "--output", str(report_path)]
    if inputs.fail_under is not None:
        args += ["--fail-under", str(inputs.fail_under)]
    if inputs.audit_url:
        args += ["--url", inputs.audit_url]
        cwd = step.workdir
    elif inputs.audit_command:
        args += ["--command", *shlex.split(inputs.audit_command)]
        cwd = step.workdir
    else:
        args += ["--config", step.config]
        cwd = step.workspace
    ran = run_cli(args, env=scrubbed_environment(step.environ), cwd=cwd, group="mcp-evals audit")
    if ran.exit_code not in (EXIT_OK, EXIT_CHECK_FAILED) or not report_path.exists():
        markdown = f"## ⚠️ mcp-evals audit could not run (exit {ran.exit_code})\n\n{code_block(ran.tail)}"
        return ModeResult("audit", ran.exit_code or EXIT_BAD_INPUT, markdown, "error")
    report = AuditReport.model_validate_json(report_path.read_text("utf-8"))
    if cwd == step.workdir:  # findings point at the server's script, relative to working-directory
        report = _from_the_root(report, step)
    sarif = render_audit_sarif(report, default_file=step.config)
    (step.out_dir / "audit.sarif").write_text(sarif, "utf-8")
    decision = "failed" if ran.exit_code == EXIT_CHECK_FAILED else "passed"
    say(f"audit: score {report.score}/100 ({report.letter}), {decision}")
    markdown = "## mcp-evals audit\n\n" + render_audit_markdown(report)
    return ModeResult("audit", ran.exit_code, markdown, decision, score=str(report.score))


def _from_the_root(report: AuditReport, step: Step) -> AuditReport:
    """The report with its findings' files as paths from the repository root (code scanning's)."""
    findings = [
        finding.model_copy(update={"file": step.in_workdir(finding.file)})
        if finding.file and "://" not in finding.file and not finding.file.startswith("/")
        else finding
        for finding in report.lint.findings
    ]
    return report.model_copy(update={"lint": report.lint.model_copy(update={"findings": findings})})
