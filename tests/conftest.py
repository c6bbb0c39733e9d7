"""Shared test helpers: where things are, and running the real CLI as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
HELPDESK = EXAMPLES / "helpdesk"
REFERENCE_SERVERS = REPO_ROOT / "tests" / "reference-servers" / "node_modules"

# Secrets the tests must never leak; removed from the CLI's environment unless a test sets them.
_SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN")


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _SECRET_VARIABLES}
    env.pop("GITHUB_ACTIONS", None)
    # The CLI's python must be the one running the tests, so example servers (`command: python`) find mcp.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra or {})
    return env


RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_cli() -> RunCli:
    """Run ``mcp-evals ARGS…`` as a real subprocess; returns the CompletedProcess (text mode)."""

    def run(
        *args: str | Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mcp_evals", *map(str, args)],
            capture_output=True,
            text=True,
            env=cli_environment(env),
            cwd=cwd,
            timeout=timeout,
            check=False,
        )

    return run
