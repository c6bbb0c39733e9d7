"""What every mode of the GitHub Action shares: the ``Step`` it runs in, a mode's ``ModeResult``, and
running an ``mcp-evals`` command as a child process with exactly the environment it needs.

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
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import click

from mcp_evals.errors import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY
from mcp_evals.github import ActionInputs, Event, default_mode
from mcp_evals.github.workflow_commands import workflow_command
from mcp_evals.report.escape import md_block

OUT_DIR = "mcp-evals-out"
"""Where the Action writes its files, inside the working directory (visible, so artifacts pick it up)."""
TAIL_LINES = 40
# A mode's section, like the eval report's `--max-chars`: the comment holds two with room to spare.
SECTION_MAX_CHARS = 60_000
# modes whose commands exist in this version, in the order `all` runs them (`session` is left out of `all`:
# it is paid, needs its own inputs and runs on dispatch or a schedule only; `audit` too: it audits
# one server with no config, what `validate` already lints for a project)
AVAILABLE_MODES = ("validate", "contract", "eval", "session", "audit")
ALL_MODES = ("validate", "contract", "eval")
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


def exit_code_of(returncode: int) -> int:
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
    tail: collections.deque[str] = collections.deque(maxlen=TAIL_LINES)
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
    return CliResult(exit_code_of(process.returncode), "\n".join(tail), stdout)


def code_block(text: str) -> str:
    return str(md_block(text.strip(), limit=6000))


def combine_exit_codes(codes: Sequence[int]) -> int:
    """One exit code for several steps: bad input beats a failed check beats PRELIMINARY beats ok."""
    for code in (EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_PRELIMINARY):
        if code in codes:
            return code
    return max(codes, default=EXIT_OK) if any(codes) else EXIT_OK


# --------------------------------------------------------------------------------------------- modes


# ------------------------------------------------------------------------------------- the whole run


# ------------------------------------------------------------------------------------------ crashes


# ---------------------------------------------------------------------------------------- commands


def planned_modes(step: Step) -> list[str]:
    mode = step.inputs.mode or default_mode(step.event.name)
    return list(ALL_MODES) if mode == "all" else [mode]
