"""The GitHub Action's steps, behind ``mcp-evals action`` (the thin command is ``cli/action_cmd.py``).

``entrypoint.sh`` calls, in this order::

    mcp-evals action prepare   ::add-mask:: for every key and token, before anything else prints;
                               then the `build` input, in an environment with no API key and no token
    mcp-evals action run       the mode's mcp-evals commands → job summary, outputs, PR comment;
                               then files written into the workspace go back to its owner

The Action adds no eval logic: ``run`` calls the same ``mcp-evals`` commands a user would, as separate
processes, so each gets exactly the environment it should (only the eval sees the API key; nothing
sees the GitHub token), and turns their exit codes and report files into what GitHub shows.
"""

from __future__ import annotations

import collections
import glob
import json
import os
import shlex
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from mcp_evals._version import __version__
from mcp_evals.config.load import load_config
from mcp_evals.config.model import RunOptions
from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY, McpEvalsError
from mcp_evals.fixtures.validate import Problem
from mcp_evals.github import (
    ActionInputs,
    Event,
    GitHubApi,
    append_summary,
    comment_marker,
    default_mode,
    load_event,
    post_sticky_comment,
    read_inputs,
    restore_ownership,
    scrubbed_environment,
    secret_values,
    target_pull_request,
    write_outputs,
)
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.providers.registry import PROVIDERS, choose_provider
from mcp_evals.report.escape import md_block, md_code
from mcp_evals.report.validation import render_validation_markdown

OUT_DIR = "mcp-evals-out"
"""Where the Action writes its files, inside the working directory (visible, so artifacts pick it up)."""
_TAIL_LINES = 40
# A mode's section, like the eval report's `--max-chars`: the comment holds two with room to spare.
_SECTION_MAX_CHARS = 60_000
# modes whose commands exist in this version, in the order `all` runs them
_AVAILABLE_MODES = ("validate", "eval")
EXIT_CRASH = 70
"""`action run` crashed: a bug in mcp-evals. EX_SOFTWARE from sysexits.h, so a crash never reads as a
failed check (1), PRELIMINARY (2) or bad input (3); the `decision` output is `crash`."""


@dataclass
class ModeResult:
    """What one mode (or the build) came to: its exit code, its Markdown section and its outputs."""

    mode: str
    exit_code: int
    markdown: str
    decision: str
    top1: str = ""
    score: str = ""
    preliminary: bool = False


@dataclass
class Step:
    """Everything a mode needs to know about this run of the Action."""

    inputs: ActionInputs
    event: Event
    workspace: Path
    workdir: Path
    environ: Mapping[str, str]
    out_dir: Path = field(init=False)

    def __post_init__(self) -> None:
        self.out_dir = self.workdir / OUT_DIR

    @property
    def config(self) -> str:
        """The config's path from the repository root. The commands run there, so the paths they
        print (and annotate) are the repository's paths, which GitHub pins annotations to."""
        return self.in_workdir(self.inputs.config)

    @property
    def config_label(self) -> str:
        """How the comment marker and the headings name the config."""
        return self.config

    def in_workdir(self, path: str) -> str:
        """A path given relative to `working-directory`, as seen from the repository root."""
        return os.path.normpath(Path(self.inputs.working_directory, path).as_posix()).replace(os.sep, "/")

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.workspace.resolve()).as_posix()
        except ValueError:
            return str(path)


# -------------------------------------------------------------------------------------------- plumbing


def say(line: str) -> None:
    click.echo(line)
    sys.stdout.flush()


def _exit_code(returncode: int) -> int:
    return 128 - returncode if returncode < 0 else returncode  # killed by a signal → 128 + signal


@dataclass
class CliResult:
    exit_code: int
    tail: str  # the last lines of what it printed (stderr only when stdout was captured)
    stdout: str = ""


def run_cli(
    args: Sequence[str | Path],
    *,
    env: Mapping[str, str],
    cwd: Path,
    group: str | None = None,
    capture_stdout: bool = False,
) -> CliResult:
    """Run ``mcp-evals ARGS`` as its own process, streaming its output to the log.

    With ``capture_stdout`` its stdout (a JSON document) is returned instead of printed; stderr (the
    messages and annotations) still streams. The tail of what streamed is kept for the summary.
    """
    command = [sys.executable, "-m", "mcp_evals", *map(str, args)]
    if group:
        say(workflow_command("group", group))
    tail: collections.deque[str] = collections.deque(maxlen=_TAIL_LINES)
    with tempfile.TemporaryFile("w+", encoding="utf-8") as captured:
        with subprocess.Popen(
            command,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=captured if capture_stdout else subprocess.PIPE,
            stderr=subprocess.PIPE if capture_stdout else subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        ) as process:
            stream = process.stderr if capture_stdout else process.stdout
            assert stream is not None
            for line in stream:
                sys.stdout.write(line)
                sys.stdout.flush()
                tail.append(line.rstrip("\n"))
        captured.seek(0)
        stdout = captured.read()
    if group:
        say("::endgroup::")
    return CliResult(_exit_code(process.returncode), "\n".join(tail), stdout)


def _code_block(text: str) -> str:
    return str(md_block(text.strip(), limit=6000))


def _combine(codes: Sequence[int]) -> int:
    """One exit code for several steps: bad input beats a failed check beats PRELIMINARY beats ok."""
    for code in (EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_PRELIMINARY):
        if code in codes:
            return code
    return max(codes, default=EXIT_OK) if any(codes) else EXIT_OK


def _read_run_options(step: Step) -> RunOptions:
    try:
        return load_config(step.workspace / step.config).run
    except McpEvalsError:
        return RunOptions()  # the command that needs the config says what is wrong with it


# --------------------------------------------------------------------------------------------- modes


def planned_modes(step: Step) -> list[str]:
    mode = step.inputs.mode or default_mode(step.event.name)
    return list(_AVAILABLE_MODES) if mode == "all" else [mode]


def eval_provider(step: Step) -> tuple[str | None, str | None]:
    """The provider the eval will use and, if it cannot run, why (no key: a fork PR, a missing secret)."""
    inputs = step.inputs
    if inputs.results:
        return "replay", None
    options = _read_run_options(step)
    # The CLI's own decision (flag → config → keys present → lexical) on the keys the inputs give.
    choice = choose_provider(
        inputs.provider, options.provider, inputs.api_keys(), inputs.model or options.model
    )
    provider = choice.name
    if not choice.explicit and provider == "lexical":  # no key at all: skip, never a silent downgrade
        return None, (
            "no API key was given, so the paid model eval was skipped. Pass "
            "`anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }}` (or `openai-api-key`), or "
            "`provider: lexical` for the free lexical baseline. Pull requests from forks get no secrets."
        )
    keyless_endpoint = provider == "openai" and inputs.openai_base_url  # a local vLLM / Ollama needs none
    if choice.entry.paid and choice.key is None and not keyless_endpoint:
        return provider, (
            f"the `{provider}-api-key` input is empty, so the paid model eval was skipped "
            "(pull requests from forks get no secrets; a missing repository secret looks the same)."
        )
    return provider, None


def skipped_for_lack_of_key(step: Step) -> bool:
    modes = planned_modes(step)
    return modes == ["eval"] and eval_provider(step)[1] is not None


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
            f"{_code_block(extracted.tail)}"
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
        markdown = render_validation_markdown(document, max_chars=_SECTION_MAX_CHARS)
        say(f"{decision}: {markdown.splitlines()[2]}")
        return ModeResult("validate", result.exit_code, markdown, decision)
    markdown = (
        f"## ⚠️ mcp-evals validate could not run (exit {result.exit_code})\n\n{_code_block(result.tail)}"
    )
    return ModeResult("validate", result.exit_code or EXIT_BAD_INPUT, markdown, "error")


def _report_document(path: Path) -> dict[str, Any]:
    """The JSON report `mcp-evals report --format json` wrote (docs/report.schema.json), or {}."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _eval_failed(code: int, tail: str, what: str) -> ModeResult:
    markdown = f"## ⚠️ mcp-evals eval: {what} (exit {code})\n\n{_code_block(tail)}"
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
    provider, skip = eval_provider(step)
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
            return _eval_failed(EXIT_BAD_INPUT, message, "no results to report on")
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
        return _eval_failed(ran.exit_code, ran.tail, "the eval could not run")

    # The report decides the exit code: gate (gate.fail_on, area minimums), baseline, PRELIMINARY.
    report_args: list[str | Path] = ["report", results, "--config", step.config]
    report_args += ["--max-chars", str(_SECTION_MAX_CHARS)]
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
        return _eval_failed(reported.exit_code, reported.tail, "the report could not be written")
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


_MODE_RUNNERS = {"validate": run_validate_mode, "eval": run_eval_mode}


# ------------------------------------------------------------------------------------- the whole run


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
        _report_failure(environ, markdown, "error", EXIT_BAD_INPUT)
        return EXIT_BAD_INPUT
    event = load_event(environ)
    workspace = event.workspace.resolve()
    step = Step(inputs, event, workspace, workspace / inputs.working_directory, environ)
    title = f"**mcp-evals** · `{step.config_label}`"

    outcomes: list[ModeResult] = []
    mode = inputs.mode or default_mode(event.name)
    if mode not in (*_AVAILABLE_MODES, "all"):
        message = (
            f"mode `{mode}` is not available in mcp-evals {__version__}: its command does not exist yet. "
            f"Use one of: {', '.join((*_AVAILABLE_MODES, 'all'))}."
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
            outcomes.append(_MODE_RUNNERS[name](step))

    exit_code = _combine([outcome.exit_code for outcome in outcomes])
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


# ------------------------------------------------------------------------------------------ crashes


def _redacted(text: str, environ: Mapping[str, str]) -> str:
    """``text`` without any secret the Action was given: the log masks them, a summary does not."""
    for secret in secret_values(environ):
        for value in (secret, *secret.splitlines()):
            if len(value.strip()) >= 4:
                text = text.replace(value.strip(), "***")
    return text


def crash_markdown(error: BaseException, environ: Mapping[str, str]) -> str:
    """The job summary of a crashed run: what was raised (escaped, no secrets) and what to do."""
    kind = type(error).__qualname__
    if type(error).__module__ not in ("builtins", "__main__"):
        kind = f"{type(error).__module__}.{kind}"
    message = _redacted(str(error), environ) or "(no message)"
    return (
        "## 💥 mcp-evals crashed\n\n"
        f"The Action stopped on an unexpected {md_code(kind)}. This is a bug in mcp-evals, not a problem "
        "with your server, fixtures or inputs; what had not run yet did not run, and this step fails.\n\n"
        f"{md_block(message, limit=2000)}\n\n"
        "Please report it in the mcp-evals issue tracker with the traceback this step's log shows right "
        "after the `mcp-evals crashed` error, and the mcp-evals version "
        f"({md_code(__version__)}).\n"
    )


def _report_failure(environ: Mapping[str, str], markdown: str, decision: str, exit_code: int) -> None:
    """A summary and outputs for a run that ended before its modes could report; never raises."""
    outputs = {"decision": decision, **dict.fromkeys(("top1", "score", "report-path", "comment-url"), "")}
    outputs |= {"preliminary": "false", "exit-code": str(exit_code)}
    writers: dict[str, Callable[[], None]] = {
        "the job summary": lambda: append_summary(environ.get("GITHUB_STEP_SUMMARY"), markdown),
        "the step outputs": lambda: write_outputs(environ.get("GITHUB_OUTPUT"), outputs),
    }
    for what, write in writers.items():
        try:
            write()
        except Exception as failure:  # what went wrong first is what to report
            say(f"mcp-evals: could not write {what} either: {type(failure).__name__}: {failure}")


def guarded(work: Callable[[], int], environ: Mapping[str, str]) -> int:
    """``work()``'s exit code; should it raise, the job still gets a summary and outputs.

    A ``McpEvalsError`` is reported like bad input: its message, its exit code. Anything else is a bug:
    an error annotation and the traceback go to the log, the summary says mcp-evals crashed (with the
    exception, escaped and without secrets), ``decision`` is ``crash`` and the step exits with
    ``EXIT_CRASH``.
    """
    try:
        return work()
    except McpEvalsError as error:
        message = _redacted(str(error), environ)
        say(workflow_command("error", message, title="mcp-evals"))
        _report_failure(environ, f"## ⚠️ mcp-evals: error\n\n{md_block(message)}\n", "error", error.exit_code)
        return error.exit_code
    except Exception as error:  # a bug: reported, not swallowed (the step fails)
        headline = _redacted(f"{type(error).__name__}: {error}", environ)
        say(workflow_command("error", headline, title="mcp-evals crashed"))
        sys.stdout.flush()
        traceback.print_exception(error)
        sys.stderr.flush()
        _report_failure(environ, crash_markdown(error, environ), "crash", EXIT_CRASH)
        say(f"mcp-evals action: exit code {EXIT_CRASH} (crash)")
        return EXIT_CRASH


# ---------------------------------------------------------------------------------------- commands


def run_build(environ: Mapping[str, str]) -> int:
    """Run the `build` input with no API key and no GitHub token in its environment; its exit code."""
    try:
        inputs = read_inputs(environ)
    except McpEvalsError:
        return EXIT_OK  # `action run` reports bad inputs
    if not inputs.build:
        return EXIT_OK
    event = load_event(environ)
    workspace = event.workspace.resolve()
    step = Step(inputs, event, workspace, workspace / inputs.working_directory, environ)
    if not step.workdir.is_dir():
        return EXIT_OK  # `action run` says so
    if skipped_for_lack_of_key(step):
        say("Build skipped: the model eval will be skipped for lack of an API key.")
        return EXIT_OK
    lines = inputs.build.strip().splitlines()  # a `build: |` block has several
    say(workflow_command("group", f"Build: {lines[0]}" + (" …" if len(lines) > 1 else "")))
    returncode = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", inputs.build],
        cwd=step.workdir,
        env=scrubbed_environment(environ),
        stdin=subprocess.DEVNULL,
        check=False,
    ).returncode
    say("::endgroup::")
    status = _exit_code(returncode)
    if status:
        message = f"the build command failed with exit code {status}"
        say(workflow_command("error", message, title="mcp-evals build"))
    return status


def hand_back(environ: Mapping[str, str]) -> None:
    """Give files this (root) container wrote into the workspace, and the runner's HOME, back to
    their owner, so later steps (run as the runner's user) can change and delete them."""
    folders = [environ.get("GITHUB_WORKSPACE", "")]
    home = environ.get("HOME", "")
    if home.startswith("/github/"):  # the runner's mounted home (npm and pip caches land there)
        folders.append(home)
    for folder in filter(None, folders):
        restore_ownership(Path(folder))
