"""docs/running.md, *Settings*: every command reads a setting flag → environment → config → default,
through one resolver, and a malformed ``EVAL_*`` value is the same bad input (exit 3) everywhere."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, MakeProject
from mcp_evals.record.read import read_results
from session.conftest import EU_STATUS, write_tasks
from synth.scripted import write_project

# which command reads which variable (the doc's sentence, as data)
READS = {
    "EVAL_BUDGET_USD": ("run", "compare", "synth", "improve", "session"),
    "EVAL_CONCURRENCY": ("run", "compare", "synth", "improve"),
    "EVAL_LIMIT": ("run", "compare"),
}
MESSAGES = {
    "EVAL_BUDGET_USD": "EVAL_BUDGET_USD='lots': expected a number, e.g. 2.50",
    "EVAL_CONCURRENCY": "EVAL_CONCURRENCY='lots': expected a whole number",
    "EVAL_LIMIT": "EVAL_LIMIT='lots': expected a whole number",
}


def arguments(command: str, tmp_path: Path, make_project: MakeProject) -> list[str | Path]:
    if command == "synth":
        return ["synth", "--config", write_project(tmp_path), "--out", tmp_path / "s.yaml"]
    if command == "session":
        return ["session", "--tasks", write_tasks(tmp_path, "http://127.0.0.1:9/mcp", [EU_STATUS])]
    project = make_project(compare={"descriptions": {"get_ticket": "Show one ticket."}})
    return [
        command,
        "--config",
        project.config,
        "--out" if command in ("compare", "improve") else "--results",
        tmp_path / "o",
    ]


@pytest.mark.parametrize(
    ("variable", "command"),
    [(variable, command) for variable, commands in READS.items() for command in commands],
)
def test_a_malformed_variable_is_the_same_bad_input_in_every_command(
    variable: str,
    command: str,
    tmp_path: Path,
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
    cli: Cli,
) -> None:
    clean_env.setenv(variable, "lots")
    result = cli(*arguments(command, tmp_path, make_project))
    assert result.code == 3, result.err
    assert f"error: {MESSAGES[variable]}" in result.err


def test_compare_reads_eval_limit_and_eval_concurrency_and_a_flag_wins(
    tmp_path: Path, make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli
) -> None:
    clean_env.setenv("EVAL_LIMIT", "3")
    clean_env.setenv("EVAL_CONCURRENCY", "2")
    args = arguments("compare", tmp_path, make_project)
    result = cli(*args)
    assert result.code == 0, result.err
    assert "concurrency 2" in result.err
    assert read_results(tmp_path / "o" / "A.ndjson").header.limit == 3
    flagged = cli(*args[:-1], tmp_path / "flagged", "--limit", "2")
    assert flagged.code == 0, flagged.err
    assert read_results(tmp_path / "flagged" / "B.ndjson").header.limit == 2
