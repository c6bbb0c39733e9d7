"""The Docker image, built from the Dockerfile and run the way GitHub's runner runs a Docker action:
workspace at /github/workspace, the GITHUB_* files, inputs as INPUT_<NAME>, as root.

Where Docker works (GitHub's runners) it is used; elsewhere ``../shared/container-kit.sh`` builds and
runs the image with podman and a locally bootstrapped ``debian:trixie-slim`` (CK_SUITE=trixie), which
needs root and Debian's apt. The test skips, saying why, only where neither can run a container.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from . import events
from .conftest import REPO_ROOT, copy_example, parse_outputs
from .fake_github import FakeGitHub, RunningFakeGitHub

pytestmark = [pytest.mark.container, pytest.mark.timeout(1800)]

KIT = REPO_ROOT.parent / "shared" / "container-kit.sh"
TAG = "localhost/mcp-evals:test"
KEY = "sk-ant-api03-container-scoping-9d8e7f"
OWNER = 1001  # the runner user's uid on GitHub's hosted runners


def say(message: str) -> None:
    print(f"[container test] {message}", file=sys.stderr, flush=True)


def docker_works() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, check=False, timeout=60).returncode == 0


class Engine:
    """Build and run the image with Docker or with container-kit (podman)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.env = {**os.environ, "CK_SUITE": "trixie"}

    def build(self) -> subprocess.CompletedProcess[str]:
        if self.kind == "docker":
            command = ["docker", "build", "--tag", TAG, str(REPO_ROOT)]
        else:
            command = ["bash", str(KIT), "build", TAG, str(REPO_ROOT)]
        return subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=1500, check=False
        )

    def run(
        self, workspace: Path, files: Path, event: Path, variables: dict[str, str]
    ) -> tuple[subprocess.CompletedProcess[str], Path]:
        """Run the action; returns the process and the folder holding its set_output/step_summary."""
        options = ["-v", f"{event}:/github/workflow/event.json:ro"]
        for name, value in variables.items():
            options += ["-e", f"{name}={value}"]
        if self.kind == "docker":
            for name in ("set_output", "step_summary"):
                (files / name).write_text("")
            command = [
                "docker", "run", "--rm", "--network", "host", "--workdir", "/github/workspace",
                "-v", f"{workspace}:/github/workspace", "-v", f"{files}:/github/file_commands",
                "-e", "GITHUB_WORKSPACE=/github/workspace", "-e", "GITHUB_ACTIONS=true", "-e", "CI=true",
                "-e", "HOME=/github/home",
                "-e", "GITHUB_OUTPUT=/github/file_commands/set_output",
                "-e", "GITHUB_STEP_SUMMARY=/github/file_commands/step_summary",
                *options, TAG,
            ]  # fmt: skip
        else:
            command = ["bash", str(KIT), "run", TAG, str(workspace), *options]
        result = subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=600, check=False
        )
        if self.kind == "kit":
            found = re.search(r"run dir (\S+?)\)", result.stderr)
            assert found, result.stderr
            files = Path(found.group(1)) / "file_commands"
        return result, files


@pytest.fixture(scope="module")
def engine() -> Engine:
    if docker_works():
        return Engine("docker")
    reasons = []
    if not KIT.exists():
        reasons.append(f"no Docker engine and no {KIT}")
    elif os.geteuid() != 0:
        reasons.append("no Docker engine, and container-kit.sh needs root")
    if reasons:
        say(f"skipped: {reasons[0]}")
        pytest.skip(f"no container can run here: {reasons[0]}")
    started = time.monotonic()
    setup = subprocess.run(
        ["bash", str(KIT), "setup"],
        capture_output=True,
        text=True,
        env={**os.environ, "CK_SUITE": "trixie"},
        timeout=1200,
        check=False,
    )
    if setup.returncode != 0:  # podman cannot be installed or the base cannot be made: no container here
        tail = "\n".join(setup.stderr.strip().splitlines()[-8:])
        say(f"skipped: container-kit.sh setup failed:\n{tail}")
        pytest.skip(f"no container can run here: container-kit.sh setup failed: {tail.splitlines()[-1:]}")
    say(f"container-kit setup: {time.monotonic() - started:.1f} s")
    return Engine("kit")


def test_the_image_runs_the_action_like_the_runner_does(engine: Engine, tmp_path: Path) -> None:
    started = time.monotonic()
    built = engine.build()
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    say(f"{engine.kind} build: {time.monotonic() - started:.1f} s")

    workspace = tmp_path / "workspace"
    helpdesk = copy_example("helpdesk", workspace)
    files = tmp_path / "file_commands"
    files.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps(events.pull_request(7)))
    owner = OWNER if os.geteuid() == 0 else os.getuid()
    if os.geteuid() == 0:
        for path in [workspace, *workspace.rglob("*")]:
            os.lchown(path, OWNER, OWNER)
    toolchain = "python -c 'import mcp' && pip --version && node --version && npm --version && git --version"
    with RunningFakeGitHub(FakeGitHub()) as github:
        variables = {
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_REPOSITORY": events.REPOSITORY,
            "GITHUB_API_URL": github.url,  # the container shares the host's network, like the kit's
            "GITHUB_SHA": "4f2a9c1e0b7d3a5f6e8c9d0b1a2f3e4d5c6b7a89",
            "INPUT_WORKING-DIRECTORY": "examples/helpdesk",
            "INPUT_BUILD": f"({toolchain}) > toolchain.txt && env > build-env.txt",
            "INPUT_GITHUB-TOKEN": github.token,
            "INPUT_ANTHROPIC-API-KEY": KEY,
            "INPUT_COMMENT": "true",
        }
        started = time.monotonic()
        result, files = engine.run(workspace, files, event, variables)
        say(f"{engine.kind} run: {time.monotonic() - started:.1f} s")
        comments = github.comment_bodies(7)

    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-6000:]
    outputs = parse_outputs((files / "set_output").read_text())
    assert outputs["decision"] == "valid"
    assert outputs["exit-code"] == "0"
    assert outputs["report-path"] == "examples/helpdesk/mcp-evals-out/report.md"
    summary = (files / "step_summary").read_text()
    assert "the fixtures match the live catalog" in summary and "22 of 22 tools covered" in summary
    assert len(comments) == 1 and "the fixtures match" in comments[0]
    assert outputs["comment-url"].endswith(f"#issuecomment-{1001}")

    # the toolchain the `build` input can use: Debian's python3 (a venv with mcp and pip), node, npm, git
    toolchain = (helpdesk / "toolchain.txt").read_text()
    assert "/opt/venv/" in toolchain and "(python 3.13)" in toolchain  # pip, of the servers' venv
    assert re.search(r"^v20\.", toolchain, re.M) and re.search(r"^10\.", toolchain, re.M)  # node, npm
    assert "git version" in toolchain
    # the build saw neither the key nor the token
    build_env = (helpdesk / "build-env.txt").read_text()
    assert KEY not in build_env and github.token not in build_env and "PATH=/opt/venv/bin" in build_env
    # every file the root container wrote went back to the workspace owner
    for path in workspace.rglob("*"):
        assert path.lstat().st_uid == owner, f"{path} belongs to uid {path.lstat().st_uid}"
