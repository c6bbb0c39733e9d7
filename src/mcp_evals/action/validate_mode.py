"""`mode: validate`: the live catalog and offline fixture validation, free, on every pull request."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_evals.action.context import (
    SECTION_MAX_CHARS,
    ModeResult,
    Step,
    code_block,
    combine_exit_codes,
    run_cli,
    say,
)
from mcp_evals.catalog.lock import LOCK_VERDICTS
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK
from mcp_evals.fixtures.validate import Problem
from mcp_evals.github import scrubbed_environment
from mcp_evals.lint.model import LintReport
from mcp_evals.lint.render import render_lint_markdown, render_sarif
from mcp_evals.report.validation import render_validation_markdown
from mcp_evals.wording import plural

# The validation section and the lint section share the mode's room in the comment.
_LINT_MAX_CHARS = 20_000


def run_validate_mode(step: Step) -> ModeResult:
    """`mcp-evals catalog --out` (the live catalog, kept as a snapshot for artifacts and `catalog
    diff`), then `mcp-evals validate --catalog` and `mcp-evals lint --catalog` against that snapshot:
    the server starts once. A lint finding at `lint.fail_on` fails the step like a validation error;
    with `catalog.lock` set, so does a live catalog that differs from the lock (its "Tool surface"
    section is part of validate's Markdown)."""
    env = scrubbed_environment(step.environ)
    step.out_dir.mkdir(parents=True, exist_ok=True)
    snapshot = step.out_dir / "catalog.json"
    extracted = run_cli(
        ["catalog", "--config", step.config, "--out", snapshot],
        env=env,
        cwd=step.workspace,
        group="mcp-evals catalog",
    )
    if extracted.exit_code != EXIT_OK or not snapshot.exists():
        markdown = (
            f"## ⚠️ mcp-evals validate could not run (exit {extracted.exit_code})\n\n"
            f"{code_block(extracted.tail)}"
        )
        return ModeResult("validate", extracted.exit_code or EXIT_BAD_INPUT, markdown, "error")
    result = run_cli(
        ["validate", "--config", step.config, "--catalog", snapshot, "--format", "json"],
        env=env,
        cwd=step.workspace,
        group="mcp-evals validate",
        capture_stdout=True,
    )
    try:
        document = json.loads(result.stdout) if result.stdout.strip() else None
    except ValueError:
        document = None
    if result.exit_code in (EXIT_OK, EXIT_CHECK_FAILED) and isinstance(document, dict):
        (step.out_dir / "validate.json").write_text(result.stdout, "utf-8")
        for problem in document.get("problems") or []:
            say(Problem.model_validate(problem).log_line())
        decision = "valid" if result.exit_code == EXIT_OK else "invalid"
        markdown = render_validation_markdown(document, max_chars=SECTION_MAX_CHARS - _LINT_MAX_CHARS)
        say(f"{decision}: {markdown.splitlines()[2]}")
        lock = document.get("lock")
        if isinstance(lock, dict):  # `catalog.lock` is set: the tool surface against the committed lock
            say(f"catalog lock {lock.get('path')}: {LOCK_VERDICTS.get(str(lock.get('status')), '?')}")
        lint_code, lint_markdown = run_lint(step, snapshot, env)
        if lint_code == EXIT_CHECK_FAILED and decision == "valid":
            decision = "lint-failed"
        code = combine_exit_codes([result.exit_code, lint_code])
        return ModeResult("validate", code, f"{markdown}\n\n{lint_markdown}", decision)
    markdown = f"## ⚠️ mcp-evals validate could not run (exit {result.exit_code})\n\n{code_block(result.tail)}"
    return ModeResult("validate", result.exit_code or EXIT_BAD_INPUT, markdown, "error")


def run_lint(step: Step, snapshot: Path, env: dict[str, str]) -> tuple[int, str]:
    """`mcp-evals lint` on the snapshot: its exit code and its Markdown section; the JSON report and
    SARIF 2.1.0 (for `github/codeql-action/upload-sarif`) are left in the out folder."""
    report_path = step.out_dir / "lint.json"
    linted = run_cli(
        ["lint", "--config", step.config, "--catalog", snapshot, "--format", "json", "--output", report_path],
        env=env,
        cwd=step.workspace,
        group="mcp-evals lint",
    )
    if linted.exit_code not in (EXIT_OK, EXIT_CHECK_FAILED) or not report_path.exists():
        return linted.exit_code or EXIT_BAD_INPUT, (
            f"### ⚠️ mcp-evals lint could not run (exit {linted.exit_code})\n\n{code_block(linted.tail)}"
        )
    report = LintReport.model_validate_json(report_path.read_text("utf-8"))
    (step.out_dir / "lint.sarif").write_text(render_sarif(report, default_file=step.config), "utf-8")
    grade = report.grade
    say(f"lint: grade {grade.letter} ({grade.score}/100), {plural(len(report.findings), 'finding')}")
    return linted.exit_code, render_lint_markdown(report, max_chars=_LINT_MAX_CHARS)
