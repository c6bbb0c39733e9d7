"""``mcp-evals action``: what the GitHub Action runs in its container (hidden from ``--help``).

The steps themselves live in ``mcp_evals.action``; see ``entrypoint.sh`` for the order they run in.
"""

from __future__ import annotations

import os

import click

from mcp_evals.action.build import hand_back, run_build
from mcp_evals.action.context import say
from mcp_evals.action.crash import guarded
from mcp_evals.github import mask_commands
from mcp_evals.wording import docs_url


@click.group(hidden=True, epilog=f"\b\nDocs: {docs_url('action.md')}")
def action() -> None:
    """What the GitHub Action runs (see entrypoint.sh)."""


@action.command()
def prepare() -> int:
    """Mask every key and token (::add-mask::), then run the `build` input without them."""
    for line in mask_commands():
        say(line)
    return run_build(os.environ)


@action.command()
@click.option("--build-status", type=int, default=0, help="Exit code of `action prepare` (the build).")
def run(build_status: int) -> int:
    """Run the mode's commands, write the job summary, outputs and PR comment, hand files back."""

    # Imported here: `action prepare` (the build) needs none of the modes (with build.py's lazy imports,
    # its imports went from 0.42 to 0.27 CPU-s).
    from mcp_evals.action.run import run_action

    def work() -> int:
        try:
            return run_action(os.environ, build_status)
        finally:
            hand_back(os.environ)

    return guarded(work, os.environ)
