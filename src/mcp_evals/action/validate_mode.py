"""`mode: validate`: the live catalog and offline fixture validation, free, on every pull request."""

from __future__ import annotations

import json

from mcp_evals.action.context import SECTION_MAX_CHARS, ModeResult, Step, code_block, run_cli, say
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK
from mcp_evals.fixtures.validate import Problem
from mcp_evals.github import scrubbed_environment
from mcp_evals.report.validation import render_validation_markdown


def run_validate_mode(step: Step) -> ModeResult:
    """`mcp-evals catalog --out` (the live catalog, kept as a snapshot for artifacts and `catalog
    diff`), then `mcp-evals validate --catalog` against that snapshot: the server starts once."""
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
        markdown = render_validation_markdown(document, max_chars=SECTION_MAX_CHARS)
        say(f"{decision}: {markdown.splitlines()[2]}")
        return ModeResult("validate", result.exit_code, markdown, decision)
    markdown = f"## ⚠️ mcp-evals validate could not run (exit {result.exit_code})\n\n{code_block(result.tail)}"
    return ModeResult("validate", result.exit_code or EXIT_BAD_INPUT, markdown, "error")
