"""Running a folder of a peer's cases as that tool runs them: mcp-eval-runner's (``--compat
mcp-eval-runner``) and mcp-assert's (``--compat mcp-assert``, ``contract/mcpassert.py``).

Its case files load here unchanged; what differs is how a folder runs. Without a config, when the
folder is given with ``--fixtures`` (or is its default ``./evals``) and every case uses only the keys
its format has, its semantics apply: a case without ``server:`` is simulated, a case's server starts
in the current folder with the caller's whole environment, and a case goes on after a failed step.
Where ours is stricter (a tool result with ``isError`` fails its step), ours is kept, and the run
says so once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Literal

from mcp_evals.contract.chaining import find_references
from mcp_evals.contract.load import ContractSetup, case_files, load_case
from mcp_evals.contract.model import Case, CaseServer, LlmJudge
from mcp_evals.errors import ConfigError, McpEvalsError

RUNNER = "mcp-eval-runner"
ASSERT = "mcp-assert"
CompatChoice = Literal["auto", "mcp-eval-runner", "mcp-assert", "none"]
COMPAT_CHOICES: tuple[CompatChoice, ...] = ("auto", "mcp-eval-runner", "mcp-assert", "none")

# Every key of mcp-eval-runner's case format (its fixture.ts and assertions.ts), by place.
RUNNER_KEYS: dict[str, frozenset[str]] = {
    "case": frozenset({"name", "description", "server", "steps"}),
    "server": frozenset({"command", "args", "env"}),
    "step": frozenset({"id", "tool", "description", "input", "expected_output", "expect"}),
    "expect": frozenset(
        {
            "output_contains",
            "output_not_contains",
            "output_equals",
            "output_matches",
            "tool_called",
            "latency_under",
            "schema_match",
            "llm_judge",
        }
    ),
    "llm_judge": frozenset({"prompt_template", "min_score", "model", "expected"}),
}

# What the run says once, in compatibility mode: what it does as mcp-eval-runner does, and where
# ours stays stricter.
NOTICE = (
    "mcp-eval-runner compatibility: cases without `server:` are simulated; each case's server starts in "
    "the current folder with your whole environment; a case goes on after a failed step; the judge "
    "reads LLM_JUDGE_API_KEY and LLM_JUDGE_BASE_URL. (--compat none: mcp-evals' own semantics)",
    "kept stricter than mcp-eval-runner: a tool result with isError fails its step unless the step "
    "expects `is_error: true`; simulation skips tool_called and latency_under (no tool ran); a step "
    "without a judge key or budget (--judge-budget-usd) is skipped, never passed.",
)


# The same for a folder of mcp-assert assertions (``contract/mcpassert.py``).
ASSERT_NOTICE = (
    "mcp-assert compatibility: each assertion file is a case (its setup calls, then the asserted call), "
    "its server started in the current folder with your whole environment. (--compat none: mcp-evals' "
    "own format)",
    "kept stricter than mcp-assert: a tool result with isError fails its step (a setup call's too) unless "
    "the step expects `is_error: true`; json_path compares values with their types.",
)


def notice(setup: ContractSetup) -> tuple[str, ...]:
    """What a run with a peer's semantics says once, on standard error."""
    return ASSERT_NOTICE if setup.compat == ASSERT else NOTICE if setup.compat == RUNNER else ()


def in_runner_format(case: Case) -> bool:
    """True when the case uses only what mcp-eval-runner's format has (keys, value shapes, references)."""
    if not case.model_fields_set <= RUNNER_KEYS["case"]:
        return False
    if case.server is not None and not (
        isinstance(case.server, CaseServer) and case.server.model_fields_set <= RUNNER_KEYS["server"]
    ):
        return False
    for step in case.steps:
        expect = step.expect
        if (
            not step.model_fields_set <= RUNNER_KEYS["step"]
            or not expect.model_fields_set <= RUNNER_KEYS["expect"]
        ):
            return False
        if step.expected_output is not None and not isinstance(step.expected_output, str):
            return False
        texts: Iterable[object] = (expect.output_contains, expect.output_not_contains, expect.output_equals)
        if any(value is not None and not isinstance(value, str) for value in texts):
            return False
        if (
            isinstance(expect.llm_judge, LlmJudge)
            and not expect.llm_judge.model_fields_set <= RUNNER_KEYS["llm_judge"]
        ):
            return False
        if any(reference.part != "output" for _, reference in find_references(step.input)):
            return False
    return True


def decide(
    setup: ContractSetup, cases: Callable[[], list[Case]], asked: CompatChoice, *, folder_given: bool
) -> ContractSetup:
    """The setup to run with: as it is, or with mcp-eval-runner's semantics (asked, or detected).

    Detected only without a config, for a folder given with ``--fixtures`` (or its default
    ``./evals``) whose every case is in its format.
    """
    if asked in (RUNNER, ASSERT) and setup.config is not None:
        raise ConfigError(
            f"--compat {asked} runs a folder of cases as {asked} does, without a config; "
            f"{setup.config.shown_path} is one",
            hint="drop --config (and run where no mcp-evals.yaml is), or drop --compat",
        )
    if asked == "none" or setup.config is not None:
        return setup
    if asked == RUNNER:
        return runner_setup(setup)
    if asked == ASSERT or (folder_given and assert_folder(setup.cases_dir)):
        return replace(setup, compat=ASSERT)
    found = cases() if folder_given else []
    if found and all(in_runner_format(case) for case in found):
        return runner_setup(setup)
    return setup


def assert_folder(folder: Path) -> bool:
    """True when every YAML file of the folder (and one level below, as mcp-assert reads it) is an
    mcp-assert assertion, and there is one."""
    from mcp_evals.config.documents import load_document
    from mcp_evals.contract.mcpassert import assertion_files, is_assertion

    files = assertion_files(folder)
    if not files:
        return False
    for path in files:
        try:
            data = load_document(path).data
        except McpEvalsError:
            return False
        if not is_assertion(data):
            return False
    return True


def default_folder(setup: ContractSetup) -> Path | None:
    """Without a config or ``--fixtures``: ``./evals`` (mcp-eval-runner's default) when it holds case
    files and ``./evals/contract`` (ours) does not exist; else None (the usual folder)."""
    if setup.config is not None or setup.cases_folder is not None or setup.cases_dir.exists():
        return None
    folder = setup.base_dir / "evals"
    if folder.is_dir() and any(_loads(path) for path in case_files(folder)):
        return folder
    return None


def _loads(path: Path) -> bool:
    """True when the file is a case (a lock file or a fixture list beside it is not)."""
    try:
        load_case(path)
    except McpEvalsError:
        return False
    return True


def folder_setup(setup: ContractSetup, folder: Path | None, asked: CompatChoice) -> ContractSetup:
    """The setup to run or check cases with: ``setup`` (the config's, or none) with the cases folder
    given (``--fixtures``), else the config's, else ``./evals/contract`` or mcp-eval-runner's
    ``./evals``; and its semantics, ours or a peer's when asked for or detected. The CLI and the
    pytest plugin both decide here."""
    from mcp_evals.contract.load import read_cases

    if folder is not None:
        setup = replace(setup, cases_folder=folder)
    fallback = default_folder(setup)
    if fallback is not None:
        setup = replace(setup, cases_folder=fallback)
    return decide(setup, lambda: read_cases(setup).cases, asked, folder_given=setup.cases_folder is not None)


def runner_setup(setup: ContractSetup) -> ContractSetup:
    """``setup`` with mcp-eval-runner's semantics: a case goes on after a failed step, and so on."""
    options = setup.options.model_copy(update={"continue_on_failure": True})
    return replace(setup, options=options, compat=RUNNER)
