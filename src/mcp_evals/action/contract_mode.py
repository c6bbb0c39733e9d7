"""`mode: contract`: the contract cases against the freshly built server, free, on every pull request.

The cases run as `mcp-evals contract` would locally (no key reaches them, so an `llm_judge` step is
skipped with its reason); the history file (`.mcp-evals/history.db` unless `contract.history` says
otherwise) lets the section show regressions against the previous run; a workflow keeps it from run to
run with `actions/cache` (docs/workflows/mcp-evals-contract.yml).
"""

from __future__ import annotations

from pathlib import Path

from mcp_evals.action.context import ModeResult, Step, code_block, run_cli, say
from mcp_evals.config.load import load_config
from mcp_evals.contract.load import DEFAULT_CASES
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, McpEvalsError
from mcp_evals.github import scrubbed_environment
from mcp_evals.wording import docs_url


def run_contract_mode(step: Step) -> ModeResult:
    """`mcp-evals contract --format md --junit …`: its exit code decides the step (1 when a case failed).

    The JUnit report (`mcp-evals-out/contract-junit.xml`, one testcase per case) is there for a test
    reporter or `actions/upload-artifact` in a later step of the workflow.

    Under `mode: all` a repository without contract cases skips this mode; `mode: contract` without
    them is bad input (the command says where it looked).
    """
    if step.inputs.mode == "all" and not _cases_folder(step).is_dir():
        return ModeResult(
            "contract",
            EXIT_OK,
            "## ⏭️ mcp-evals contract: skipped\n\n"
            f"Skipped: no contract cases (see {docs_url('contract.md')}).",
            "skipped",
        )
    step.out_dir.mkdir(parents=True, exist_ok=True)
    report = step.out_dir / "contract.md"
    junit = step.out_dir / "contract-junit.xml"  # for a test reporter or upload-artifact
    ran = run_cli(
        ["contract", "--config", step.config, "--format", "md", "--out", report, "--junit", junit],
        env=scrubbed_environment(step.environ),
        cwd=step.workspace,
        group="mcp-evals contract",
    )
    if ran.exit_code in (EXIT_OK, EXIT_CHECK_FAILED) and report.exists():
        markdown = report.read_text("utf-8").strip()
        decision = "passed" if ran.exit_code == EXIT_OK else "failed"
        say(f"contract: {decision}; JUnit report: {step.relative(junit)}")
        return ModeResult("contract", ran.exit_code, markdown, decision)
    markdown = f"## ⚠️ mcp-evals contract could not run (exit {ran.exit_code})\n\n{code_block(ran.tail)}"
    return ModeResult("contract", ran.exit_code or EXIT_BAD_INPUT, markdown, "error")


def _cases_folder(step: Step) -> Path:
    config_path = step.workspace / step.config
    try:
        folder = load_config(config_path).contract.cases
    except McpEvalsError:
        folder = DEFAULT_CASES  # the command that needs the config says what is wrong with it
    return config_path.parent / folder
