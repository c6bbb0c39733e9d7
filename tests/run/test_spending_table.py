"""docs/running.md's *A missing key* table, cell by cell: every command that may call a paid model,
in every situation the table lists, does what its cell says.

The table is read from the doc and each cell becomes a test, so the doc and the behaviour cannot
drift: a new row or column with no way to check it fails here, and so does a cell that says
something the command does not do.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import anyio
import pytest
import yaml

from conftest import Cli, MakeProject
from mcp_evals.action.context import Step
from mcp_evals.action.eval_mode import run_eval_mode
from mcp_evals.action.run import run_action
from mcp_evals.action.session_mode import run_session_mode
from mcp_evals.config.model import JudgeOptions
from mcp_evals.contract.judge import Judge
from mcp_evals.contract.model import LlmJudge
from mcp_evals.errors import ConfigError
from mcp_evals.github.event import Event
from mcp_evals.github.inputs import read_inputs
from mcp_evals.provider_registry import PROVIDERS
from mcp_evals.record.read import read_results
from session.conftest import EU_STATUS, write_tasks
from synth.scripted import write_project

RUNNING = Path(__file__).resolve().parents[2] / "docs" / "running.md"
SITUATIONS = {
    "no key at all": "none",
    "a paid provider named, its key not set": "provider",
    "a model named, its provider's key not set": "model",
    "bad input, no key": "bad",
}
COMMANDS = {
    "`run`": "run",
    "`compare`": "compare",
    "`session`": "session",
    "`synth`": "synth",
    "`improve`": "improve",
    "contract `llm_judge`": "judge",
    "Action `mode: eval`": "action-eval",
    "Action `mode: session`": "action-session",
}


def table() -> list[tuple[str, str, str]]:
    """(command, situation, cell) for every cell of the table under ``## A missing key``."""
    section = RUNNING.read_text("utf-8").split("## A missing key", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header[0] == "situation" and set(header[1:]) == set(COMMANDS), header
    cells = []
    for row in rows[1:]:
        values = [cell.strip() for cell in row.strip("|").split("|")]
        if set(values) <= {"---"}:
            continue
        assert values[0] in SITUATIONS, f"a situation this test cannot set up: {values[0]!r}"
        cells += [
            (COMMANDS[name], SITUATIONS[values[0]], cell)
            for name, cell in zip(header[1:], values[1:], strict=True)
        ]
    return cells


def outcome_of(cell: str) -> str:
    """A cell's outcome: what it says first (the rest explains, and is checked where it says more)."""
    for outcome in ("lexical baseline", "step skipped", "skipped", "exit 3"):
        if cell.startswith(outcome):
            return outcome
    raise AssertionError(f"a cell this test cannot check: {cell!r}")


def test_the_table_has_every_situation_for_every_command() -> None:
    cells = table()
    assert {(command, situation) for command, situation, _ in cells} == {
        (command, situation) for command in COMMANDS.values() for situation in SITUATIONS.values()
    }


# -- what each command does ------------------------------------------------------------------------------


@dataclass
class Seen:
    """What a command did: its outcome (the table's words) and the line that said so."""

    outcome: str
    said: str = ""


def skipped_line(command: str, err: str, variable: str) -> Seen:
    """A CLI skip: one line says it (after any note or warning) and names the variable."""
    said = [line for line in err.splitlines() if not line.startswith(("note: ", "warning: "))]
    first = said[0] if said else ""
    assert first.startswith(f"mcp-evals {command}: skipped: "), err
    assert variable in first, first
    return Seen("skipped", first)


@dataclass
class Context:
    tmp_path: Path
    cli: Cli
    make_project: MakeProject
    env: pytest.MonkeyPatch


def run_command(context: Context, situation: str) -> Seen:
    project = context.make_project()
    results = project.results
    results.write_text("an earlier run's results: a skipped run leaves them alone\n")
    args = ["run", "--config", project.config, "--results", results]
    if situation == "none":
        result = context.cli(*args)
        assert result.code == 0, result.err
        assert read_results(results).header.provider == "lexical"
        return Seen("lexical baseline")
    if situation == "bad":
        context.env.setenv("EVAL_BUDGET_USD", "lots")
        result = context.cli(*args, "--provider", "anthropic")
        assert result.code == 3 and "EVAL_BUDGET_USD='lots'" in result.err, result.err
        return Seen("exit 3")
    extra = ["--provider", "anthropic"] if situation == "provider" else ["--model", "claude-sonnet-4-6"]
    result = context.cli(*args, *extra)
    assert result.code == 0, result.err
    assert results.read_text() == "an earlier run's results: a skipped run leaves them alone\n"
    seen = skipped_line("run", result.err, "ANTHROPIC_API_KEY")
    if situation == "model":
        assert "claude-sonnet-4-6" in seen.said and "lexical baseline" in seen.said
    return seen


def named_without_key(
    context: Context, situation: str, args: list[object], out: Path, provider: str, model: str
) -> Seen:
    """A capped command with a provider (or a model) named and no key: a malformed cap is exit 3,
    else it skips naming the provider's variable and writes nothing to ``out``."""
    command = str(args[0])
    if situation == "bad":
        context.env.setenv("EVAL_BUDGET_USD", "lots")
        result = context.cli(*args, "--provider", provider)
        assert result.code == 3 and "EVAL_BUDGET_USD='lots'" in result.err, result.err
        return Seen("exit 3")
    extra = ["--provider", provider] if situation == "provider" else ["--model", model]
    result = context.cli(*args, *extra, "--budget-usd", "1")
    assert result.code == 0, result.err
    assert not out.exists()
    return skipped_line(command, result.err, PROVIDERS[provider].key_env_var or "")


def compare_command(context: Context, situation: str) -> Seen:
    project = context.make_project(compare={"descriptions": {"get_ticket": "Show one ticket."}})
    out = context.tmp_path / "compared"
    args = ["compare", "--config", project.config, "--out", out]
    if situation == "none":
        result = context.cli(*args)
        assert result.code == 0, result.err
        assert read_results(out / "A.ndjson").header.provider == "lexical"
        # … and the deferred and grouped arms, which need a model, are skipped
        plain = context.make_project().config
        arms = context.cli(
            "compare", "--config", plain, "--out", context.tmp_path / "arms", "--arms", "full,deferred"
        )
        assert arms.code == 0, arms.err
        line = skipped_line("compare", arms.err, "ANTHROPIC_API_KEY or OPENAI_API_KEY").said
        assert "deferred and grouped arms need a model" in line
        assert not (context.tmp_path / "arms").exists()
        return Seen("lexical baseline")
    return named_without_key(context, situation, args, out, "openai", "gpt-5.4")


def improve_command(context: Context, situation: str) -> Seen:
    project = context.make_project()
    out = context.tmp_path / "improved"
    args = ["improve", "--config", project.config, "--out", out]
    if situation == "none":
        result = context.cli(*args)
        assert result.code in (0, 2), result.err  # 2: a proof left incomplete, never a skip
        assert "mcp-evals improve: lexical/" in result.err, result.err
        assert (out / "improve.md").exists()
        return Seen("lexical baseline")
    return named_without_key(context, situation, args, out, "anthropic", "claude-sonnet-4-6")


def tasks_file(folder: Path) -> Path:
    """A task set whose server is never contacted: a skipped session starts nothing."""
    return write_tasks(folder, "http://127.0.0.1:9/mcp", [EU_STATUS])


def session_command(context: Context, situation: str) -> Seen:
    out = context.tmp_path / "sessions"
    args = ["session", "--tasks", tasks_file(context.tmp_path), "--results", out]
    if situation == "bad":
        context.env.setenv("EVAL_BUDGET_USD", "lots")
        result = context.cli(*args)
        assert result.code == 3 and "EVAL_BUDGET_USD='lots'" in result.err, result.err
        return Seen("exit 3")
    extra = {"none": [], "provider": ["--provider", "openai"], "model": ["--model", "gpt-5.4"]}[situation]
    result = context.cli(*args, *extra, "--budget-usd", "1")
    assert result.code == 0, result.err
    assert not out.exists()
    variable = "ANTHROPIC_API_KEY or OPENAI_API_KEY" if situation == "none" else "OPENAI_API_KEY"
    return skipped_line("session", result.err, variable)


def synth_command(context: Context, situation: str) -> Seen:
    config = write_project(context.tmp_path)
    out = context.tmp_path / "synth.yaml"
    args = ["synth", "--config", config, "--out", out, "--budget-usd", "1"]
    if situation == "bad":
        result = context.cli(*args, "--provider", "anthropic", "--base-url", "localhost:8000")
        assert result.code == 3 and "has no http:// or https:// scheme" in result.err, result.err
        return Seen("exit 3")
    extra = {"none": [], "provider": ["--provider", "anthropic"], "model": ["--model", "claude-sonnet-4-6"]}
    result = context.cli(*args, *extra[situation])
    assert result.code == 0, result.err
    assert not out.exists()
    variable = "ANTHROPIC_API_KEY or OPENAI_API_KEY" if situation == "none" else "ANTHROPIC_API_KEY"
    return skipped_line("synth", result.err, variable)


def judge_command(context: Context, situation: str) -> Seen:
    environ = {"PATH": "/usr/bin"}  # no key, no base URL
    if situation == "bad":
        with pytest.raises(ConfigError, match="has no http:// or https:// scheme") as caught:
            Judge(JudgeOptions(budget_usd=1.0, base_url="localhost:8000"), environ)
        assert caught.value.exit_code == 3
        return Seen("exit 3")
    judge = Judge(JudgeOptions(budget_usd=1.0), environ)
    model = "gpt-5.4" if situation == "model" else None
    assertion = LlmJudge(prompt_template="Is {actual} a greeting?", model=model)
    result = anyio.run(judge.score, assertion, "hello", "hello")
    assert result.status == "skipped" and judge.spend.requests == 0
    assert result.message == "OPENAI_API_KEY is not set: the judge was not asked"
    return Seen("step skipped", result.message)


def action_step(context: Context, mode: str, inputs: dict[str, str], event: str = "schedule") -> Step:
    workspace = context.tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    config = workspace / "mcp-evals.yaml"
    config.write_text(yaml.safe_dump({"servers": [{"name": "s", "url": "http://127.0.0.1:9/mcp"}]}))
    tasks_file(workspace)
    environ = {f"INPUT_{name.upper()}": value for name, value in {"mode": mode, **inputs}.items()}
    return Step(read_inputs(environ), Event(event, {}, "o/r"), workspace, workspace, environ)


def action_command(mode: str) -> Callable[[Context, str], Seen]:
    def check(context: Context, situation: str) -> Seen:
        inputs = {"budget-usd": "1", "tasks": "tasks.yaml"} if mode == "session" else {}
        if situation == "bad":
            summary, output = context.tmp_path / "summary.md", context.tmp_path / "output"
            environ = {
                "INPUT_MODE": mode,
                "INPUT_BUDGET-USD": "lots",
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_OUTPUT": str(output),
            }
            assert run_action(environ) == 3
            assert "input `budget-usd`: expected an amount in US dollars" in summary.read_text()
            return Seen("exit 3")
        if situation == "provider":
            inputs["provider"] = "openai"
        if situation == "model":
            inputs["model"] = "gpt-5.4"
        step = action_step(context, mode, inputs)
        result = run_eval_mode(step) if mode == "eval" else run_session_mode(step)
        assert result.exit_code == 0 and result.decision == "skipped", result.markdown
        assert not step.out_dir.exists()  # nothing written, nothing run
        assert ("openai-api-key" if situation != "none" else "anthropic-api-key") in result.markdown
        return Seen("skipped", result.markdown)

    return check


CHECKS: dict[str, Callable[[Context, str], Seen]] = {
    "run": run_command,
    "compare": compare_command,
    "session": session_command,
    "synth": synth_command,
    "improve": improve_command,
    "judge": judge_command,
    "action-eval": action_command("eval"),
    "action-session": action_command("session"),
}


@pytest.mark.parametrize(
    ("command", "situation", "cell"),
    table(),
    ids=[f"{command}-{situation}" for command, situation, _ in table()],
)
def test_each_command_does_what_its_cell_says(
    command: str,
    situation: str,
    cell: str,
    tmp_path: Path,
    cli: Cli,
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
) -> None:
    seen = CHECKS[command](Context(tmp_path, cli, make_project, clean_env), situation)
    assert seen.outcome == outcome_of(cell), (cell, seen)
    if seen.outcome == "skipped" and command.startswith("action"):
        assert re.search(r"`(anthropic|openai)-api-key", seen.said), seen.said
