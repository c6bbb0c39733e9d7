"""The Docker image, built from the Dockerfile and run the way GitHub's runner runs a Docker action:
workspace at /github/workspace, the GITHUB_* files, inputs as INPUT_<NAME>, as root.

Where Docker works (GitHub's runners) it is used; elsewhere ``container-kit.sh`` (``../shared/`` next
to the checkout, else the copy in this folder) builds and runs the image with podman and a locally
bootstrapped ``debian:trixie-slim`` (CK_SUITE=trixie), which needs root (or password-less sudo) and
Debian's apt. The tests skip, saying why, only where neither can run a container.
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

from conftest import SOURCE_TREE
from fakes import github_events as events

# the runner's fake Anthropic API (tests/ is on sys.path: pytest imports tests/runner as `runner`)
from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_github import FakeGitHub, RunningFakeGitHub
from fakes.fake_http import after
from support.step_files import parse_outputs

from .conftest import REPO_ROOT, copy_example

pytestmark = [pytest.mark.container, pytest.mark.timeout(1800), SOURCE_TREE]

SHARED_KIT = REPO_ROOT.parent / "shared" / "container-kit.sh"
KIT = SHARED_KIT if SHARED_KIT.exists() else Path(__file__).with_name("container-kit.sh")
TAG = "localhost/mcp-evals:test"
KEY = "sk-ant-api03-container-scoping-9d8e7f"
OWNER = 1001  # the runner user's uid on GitHub's hosted runners
IMAGE_LIMIT = 500 * 1000 * 1000  # the target: under 500 MB


def say(message: str) -> None:
    print(f"[container test] {message}", file=sys.stderr, flush=True)


def docker_works() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True, check=False, timeout=60).returncode == 0


def as_root() -> list[str]:
    """The prefix that runs container-kit.sh as root: none for root, `sudo -n` where it needs no password."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n", "--preserve-env=CK_SUITE,CK_HOME"]
    raise LookupError("no Docker engine, and container-kit.sh needs root (or password-less sudo)")


class Engine:
    """Build and run the image with Docker or with container-kit (podman)."""

    def __init__(self, kind: str, prefix: list[str] | None = None) -> None:
        self.kind = kind
        self.kit = [*(prefix or []), "bash", str(KIT)]
        self.env = {**os.environ, "CK_SUITE": "trixie"}

    def _run(self, command: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            command, capture_output=True, text=True, env=self.env, timeout=timeout, check=False
        )

    def build(self) -> subprocess.CompletedProcess[str]:
        if self.kind == "docker":
            return self._run(["docker", "build", "--tag", TAG, str(REPO_ROOT)], 1500)
        return self._run([*self.kit, "build", TAG, str(REPO_ROOT)], 1500)

    def image_size(self) -> int:
        engine = ["docker"] if self.kind == "docker" else [*self.kit, "podman"]
        inspected = self._run([*engine, "image", "inspect", "--format", "{{.Size}}", TAG], 120)
        assert inspected.returncode == 0, inspected.stderr
        return int(inspected.stdout.strip())

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
            command = [*self.kit, "run", TAG, str(workspace), *options]
        result = self._run(command, 600)
        if self.kind == "kit":
            found = re.search(r"run dir (\S+?)\)", result.stderr)
            assert found, result.stderr
            files = Path(found.group(1)) / "file_commands"
        return result, files


@pytest.fixture(scope="module")
def engine() -> Engine:
    if docker_works():
        return Engine("docker")
    try:
        if not KIT.exists():
            raise LookupError(f"no Docker engine and no {KIT}")
        prefix = as_root()
    except LookupError as reason:
        say(f"skipped: {reason}")
        pytest.skip(f"no container can run here: {reason}")
    started = time.monotonic()
    setup = subprocess.run(
        [*prefix, "bash", str(KIT), "setup"],
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
    return Engine("kit", prefix)


@pytest.fixture(scope="module")
def image(engine: Engine) -> Engine:
    """The image, built once from this checkout's Dockerfile; it stays under 500 MB."""
    started = time.monotonic()
    built = engine.build()
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    say(f"{engine.kind} build: {time.monotonic() - started:.1f} s")
    size = engine.image_size()
    say(f"image size: {size / 1e6:.0f} MB")
    assert size < IMAGE_LIMIT, f"the image is {size / 1e6:.0f} MB"
    return engine


def workspace_with_helpdesk(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A workspace owned by the runner's user, holding the helpdesk example; the event and files folder."""
    workspace = tmp_path / "workspace"
    helpdesk = copy_example("helpdesk", workspace)
    files = tmp_path / "file_commands"
    files.mkdir()
    event = tmp_path / "event.json"
    if os.geteuid() == 0:
        for path in [workspace, *workspace.rglob("*")]:
            os.lchown(path, OWNER, OWNER)
    return workspace, helpdesk, files, event


def test_the_image_runs_the_action_like_the_runner_does(image: Engine, tmp_path: Path) -> None:
    engine = image
    workspace, helpdesk, files, event = workspace_with_helpdesk(tmp_path)
    event.write_text(json.dumps(events.pull_request(7)))
    owner = OWNER if os.geteuid() == 0 else os.getuid()
    toolchain = "python -c 'import mcp' && pip --version && node --version && npm --version && git --version"
    # a Python server built the usual way: `pip install -e .` lands in the servers' venv
    (helpdesk / "pyproject.toml").write_text(
        '[project]\nname = "helpdesk-example"\nversion = "1.0"\ndependencies = ["mcp"]\n'
        '[tool.setuptools]\npy-modules = ["server"]\n'
    )
    if os.geteuid() == 0:
        os.lchown(helpdesk / "pyproject.toml", OWNER, OWNER)
    toolchain += " && pip install --quiet -e . && pip show helpdesk-example"
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
    # the key and the token are masked before the container prints anything else
    assert result.stdout.splitlines()[:2] == [f"::add-mask::{KEY}", f"::add-mask::{github.token}"]
    assert log.count(KEY) == 1
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
    assert "Name: helpdesk-example" in toolchain and "Editable project location" in toolchain
    assert re.search(r"^v20\.", toolchain, re.M) and re.search(r"^10\.", toolchain, re.M)  # node, npm
    assert "git version" in toolchain
    # the build saw neither the key nor the token
    build_env = (helpdesk / "build-env.txt").read_text()
    assert KEY not in build_env and github.token not in build_env and "PATH=/opt/venv/bin" in build_env
    # every file the root container wrote went back to the workspace owner
    for path in workspace.rglob("*"):
        assert path.lstat().st_uid == owner, f"{path} belongs to uid {path.lstat().st_uid}"


def test_a_preliminary_eval_in_the_image_exits_2_and_says_so(image: Engine, tmp_path: Path) -> None:
    """A dispatch whose key is revoked after two answers: the step's exit code is mcp-evals' 2."""
    workspace, helpdesk, files, event = workspace_with_helpdesk(tmp_path)
    event.write_text(json.dumps(events.workflow_dispatch("main")))
    anthropic = FakeAnthropic(key=KEY).start()
    anthropic.script(anthropic.unauthorized(), when=after(2), times=None)
    try:
        variables = {
            "GITHUB_EVENT_NAME": "workflow_dispatch",
            "GITHUB_EVENT_PATH": "/github/workflow/event.json",
            "GITHUB_REPOSITORY": events.REPOSITORY,
            "INPUT_WORKING-DIRECTORY": "examples/helpdesk",
            "INPUT_ANTHROPIC-API-KEY": KEY,
            "INPUT_CONCURRENCY": "1",
            "INPUT_COMMENT": "false",
            "ANTHROPIC_BASE_URL": anthropic.base_url,  # the container shares the host's network
        }
        result, files = image.run(workspace, files, event, variables)
        seen = {request.headers.get("x-api-key") for request in anthropic.model_requests()}
    finally:
        anthropic.stop()
    assert result.returncode == 2, (result.stdout + result.stderr)[-6000:]
    assert seen == {KEY}
    outputs = parse_outputs((files / "set_output").read_text())
    assert (outputs["exit-code"], outputs["preliminary"]) == ("2", "true")
    assert "PRELIMINARY" in (files / "step_summary").read_text()
    assert (helpdesk / "mcp-evals-out" / "results.ndjson").exists()


def test_the_image_builds_a_typescript_server_with_the_build_input(image: Engine, tmp_path: Path) -> None:
    """`npm ci && npm run build` inside the image (Node.js 20, npm), then validate: the notes example."""
    workspace = tmp_path / "workspace"
    notes = copy_example("notes-ts", workspace)  # without node_modules and dist
    files = tmp_path / "file_commands"
    files.mkdir()
    event = tmp_path / "event.json"
    event.write_text(json.dumps(events.push()))
    variables = {
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "INPUT_WORKING-DIRECTORY": "examples/notes-ts",
        "INPUT_BUILD": "npm ci --no-audit --no-fund && npm run build",
    }
    started = time.monotonic()
    result, files = image.run(workspace, files, event, variables)
    say(f"{image.kind} run with npm build: {time.monotonic() - started:.1f} s")
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]
    assert (notes / "dist" / "index.js").exists()
    outputs = parse_outputs((files / "set_output").read_text())
    assert (outputs["decision"], outputs["exit-code"]) == ("valid", "0")
