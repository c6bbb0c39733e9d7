"""The `build` input (run with no key and no token) and handing the workspace back to its owner."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from mcp_evals.action.context import Step, exit_code_of, planned_modes, say
from mcp_evals.errors import EXIT_OK, McpEvalsError
from mcp_evals.github import load_event, read_inputs, restore_ownership, scrubbed_environment
from mcp_evals.github.workflow_commands import workflow_command


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
    # The modes' rules on keys, imported only when there is a build to skip or run: without a `build`
    # input (most workflows) `action prepare` imports 0.27 CPU-s instead of 0.42.
    from mcp_evals.action.eval_mode import skipped_for_lack_of_key
    from mcp_evals.action.improve_mode import improve_provider

    if skipped_for_lack_of_key(step):
        say("Build skipped: the model eval will be skipped for lack of an API key.")
        return EXIT_OK
    if planned_modes(step) == ["session"] and _sessions_skipped(step):
        say("Build skipped: the sessions will be skipped for lack of an API key.")
        return EXIT_OK
    if planned_modes(step) == ["improve"] and improve_provider(step)[1] is not None:
        say("Build skipped: the rewrite will be skipped for lack of an API key.")
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
    status = exit_code_of(returncode)
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


def _sessions_skipped(step: Step) -> bool:
    from mcp_evals.action.session_mode import session_provider

    try:
        return session_provider(step)[1] is not None
    except McpEvalsError:
        return False  # `action run` reports it
