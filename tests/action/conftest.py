"""Fixtures for the Action's tests: a fake GitHub API on loopback and a runner-like step environment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fakes.github_events import REPOSITORY
from support.step_files import parse_outputs

REPO_ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = REPO_ROOT / "entrypoint.sh"
VENV_BIN = Path(sys.executable).parent


@dataclass
class ActionStep:
    """One step of a job, as the runner sets it up for a Docker action (files, variables, event)."""

    root: Path
    workspace: Path
    summary: Path
    output: Path
    event_path: Path
    github_url: str = "http://127.0.0.1:9"  # discard port: any call fails fast unless a fake is given

    def environment(
        self,
        event_name: str,
        payload: Mapping[str, Any],
        inputs: Mapping[str, str] | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        self.event_path.write_text(json.dumps(payload), "utf-8")
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN")
            and not key.startswith(("INPUT_", "GITHUB_", "RUNNER_"))
        }
        ref = str(payload.get("ref", "refs/heads/main"))
        head = ""
        if "pull_request" in payload:
            number = payload["pull_request"]["number"]
            ref = f"refs/pull/{number}/merge"
            head = payload["pull_request"]["head"]["ref"]
        env.update(
            {
                "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                "CI": "true",
                "GITHUB_ACTIONS": "true",
                "GITHUB_WORKSPACE": str(self.workspace),
                "GITHUB_EVENT_NAME": event_name,
                "GITHUB_EVENT_PATH": str(self.event_path),
                "GITHUB_STEP_SUMMARY": str(self.summary),
                "GITHUB_OUTPUT": str(self.output),
                "GITHUB_REPOSITORY": REPOSITORY,
                "GITHUB_REPOSITORY_OWNER": REPOSITORY.split("/")[0],
                "GITHUB_REF": ref,
                "GITHUB_REF_NAME": ref.removeprefix("refs/heads/"),
                "GITHUB_HEAD_REF": head,
                "GITHUB_SHA": "4f2a9c1e0b7d3a5f6e8c9d0b1a2f3e4d5c6b7a89",
                "GITHUB_RUN_ID": "9876543210",
                "GITHUB_SERVER_URL": "https://github.com",
                "GITHUB_API_URL": self.github_url,
                "RUNNER_TEMP": str(self.root / "runner-temp"),
                "HOME": str(self.root / "home"),
            }
        )
        for name, value in (inputs or {}).items():
            env["INPUT_" + name.upper()] = value
        env.update(extra or {})
        return env

    def outputs(self) -> dict[str, str]:
        return parse_outputs(self.output.read_text("utf-8")) if self.output.exists() else {}

    def summary_text(self) -> str:
        return self.summary.read_text("utf-8") if self.summary.exists() else ""

    def reset_files(self) -> None:
        self.summary.write_text("", "utf-8")
        self.output.write_text("", "utf-8")

    def run_entrypoint(
        self, env: Mapping[str, str], *args: str, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(ENTRYPOINT), *args],
            cwd=self.workspace,
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture
def step(tmp_path: Path) -> ActionStep:
    """A fresh workspace (empty) and the runner's per-step files."""
    workspace = tmp_path / "workspace"
    commands = tmp_path / "file_commands"
    for folder in (workspace, commands, tmp_path / "home", tmp_path / "runner-temp"):
        folder.mkdir()
    result = ActionStep(
        root=tmp_path,
        workspace=workspace,
        summary=commands / "step_summary",
        output=commands / "set_output",
        event_path=tmp_path / "event.json",
    )
    result.reset_files()
    return result


def copy_example(name: str, workspace: Path) -> Path:
    """Copy ``examples/<name>`` into the workspace (without build output) and return its folder."""
    target = workspace / "examples" / name
    shutil.copytree(
        REPO_ROOT / "examples" / name,
        target,
        ignore=shutil.ignore_patterns("node_modules", "dist", "__pycache__", "mcp-evals-out"),
    )
    return target
