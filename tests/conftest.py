"""Shared test fixtures: where things are, running the real CLI as a user would (a subprocess, or
in this process), projects on the helpdesk catalog, and the fake model APIs on loopback."""

from __future__ import annotations

import compileall
import fnmatch
import io
import multiprocessing
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml

from fakes.fake_anthropic import FakeAnthropic
from fakes.fake_github import FakeGitHub, RunningFakeGitHub
from fakes.fake_openai import FakeOpenAI
from mcp_evals.catalog.model import Catalog
from mcp_evals.catalog.snapshot import load_catalog, write_snapshot
from mcp_evals.config.load import load_config
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.fixtures.model import Fixture
from mcp_evals.servers.extract import extract_catalog
from support.in_process import run_in_process

# A suite started as a background job (`bash .ci/run &`, nohup) inherits SIGINT ignored, and every
# command a test starts would inherit that too, so the Ctrl-C tests would wait forever: give Ctrl-C
# back its meaning (a command started from here then gets the default, as from a terminal).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

REPO_ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = REPO_ROOT / "examples"
HELPDESK = EXAMPLES / "helpdesk"
REFERENCE_SERVERS = REPO_ROOT / "tests" / "reference-servers" / "node_modules"

# Machine resources that tests running side by side (pytest-xdist, scripts/test) must not share: tests
# marked with one group run on one worker, one after another (--dist loadgroup). SOURCE_TREE: what
# builds from or writes into this checkout (pip/uv/docker builds write build/ and *.egg-info, the dogfood
# case its .mcp-evals/ folder); LLAMA_CPP: one llama.cpp server and its model in memory at a time.
SOURCE_TREE = pytest.mark.xdist_group("source-tree")
LLAMA_CPP = pytest.mark.xdist_group("llama-cpp")


def one_worker(module: str) -> pytest.MarkDecorator:
    """``pytestmark = one_worker(__name__)``: every test of a module on one worker, for a module whose
    module-scoped fixture starts servers (or a browser). Without it --dist loadgroup hands the module's
    tests to both workers one by one, and each worker pays the fixture again."""
    return pytest.mark.xdist_group(module)


def pytest_configure(config: pytest.Config) -> None:
    """Bytecode caches even where the environment turns them off (PYTHONDONTWRITEBYTECODE, which this
    project's machines set): every xdist worker collects every test module, and every CLI or server
    subprocess imports the package; without caches each compiles the same sources again (collecting
    the suite: 12 CPU-s a worker, 4 with them; a CLI subprocess about 0.4 CPU-s more). The package is
    compiled once, before the workers start; the caches are ``__pycache__`` folders git ignores."""
    sys.dont_write_bytecode = False
    if not hasattr(config, "workerinput"):  # the controller (or a run without xdist)
        compileall.compile_dir(REPO_ROOT / "src", quiet=1)
        if getattr(config.option, "numprocesses", None):
            rewrite_test_modules(config, REPO_ROOT / "tests")


def rewrite_test_modules(config: pytest.Config, root: Path, *, fewest: int = 8) -> int:
    """pytest's assertion rewriting of every test module, once and on every core, before the workers
    start: on a fresh clone each worker would rewrite all of them itself (4 CPU-s each, side by side,
    writing the same caches); they read these caches instead. It calls pytest's private functions: if
    they move, it does nothing and the workers rewrite as before. Returns how many it rewrote (none when
    fewer than ``fewest`` need it: not worth the processes)."""
    try:  # every private name this and the pool use: if one moved, nothing is done here
        from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, _rewrite_test, _write_pyc, get_cache_dir  # noqa: F401
    except ImportError:
        return 0
    if config.getoption("assertmode") != "rewrite" or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    patterns = [*config.getini("python_files"), "conftest.py"]
    stale: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != "node_modules" and not name.startswith(".")]
        for name in names:
            if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
                continue
            path = Path(folder) / name
            if _read_pyc(path, _rewritten_cache(path)) is None:
                stale.append(path)
    if len(stale) < fewest:
        return 0
    global _REWRITING_CONFIG
    _REWRITING_CONFIG = config
    with multiprocessing.get_context("fork").Pool() as pool:
        pool.map(_rewrite_one, stale, chunksize=4)
    return len(stale)


_REWRITING_CONFIG: pytest.Config | None = None  # the controller's, for the forked processes


def _rewritten_cache(path: Path) -> Path:
    """Where pytest keeps the rewritten code of the test module ``path``."""
    from _pytest.assertion.rewrite import PYC_TAIL, get_cache_dir

    return get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)


def _rewrite_one(path: Path) -> None:
    from _pytest.assertion.rewrite import _rewrite_test, _write_pyc

    assert _REWRITING_CONFIG is not None
    source_hash, code = _rewrite_test(path, _REWRITING_CONFIG)
    cached = _rewritten_cache(path)
    cached.parent.mkdir(exist_ok=True)
    quiet = SimpleNamespace(trace=lambda message: None)  # the state _write_pyc reports its errors to
    _write_pyc(quiet, code, source_hash, cached)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Make the xdist_group marks take effect under pytest 9.2: pytest-xdist (3.8) puts a test's group
    after an ``@`` in the old ``_nodeid`` field, which pytest 9.2 no longer reads (its ids are
    structured), so --dist loadgroup silently ran every group's tests on both workers
    (pytest-xdist#1386). Where the two differ, the grouped id is given to pytest; elsewhere, nothing."""
    if not getattr(config.option, "loadgroup", False):
        return
    for item in items:
        grouped = getattr(item, "_nodeid", None)
        if isinstance(grouped, str) and grouped != item.nodeid and hasattr(item, "_id"):
            from _pytest.nodeid import coerce_node_id  # pytest ≥ 9.2 only

            item._id = coerce_node_id(grouped)


# Secrets the tests must never leak; removed from the CLI's environment unless a test sets them.
_SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "GH_TOKEN")


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in _SECRET_VARIABLES}
    # The host's CI (GitHub's runner sets CI=true) must not change what the CLI does under test: a test
    # that wants CI behaviour (snapshots not written, …) sets it in ``extra``.
    env.pop("GITHUB_ACTIONS", None)
    env.pop("CI", None)
    # The CLI's python must be the one running the tests, so example servers (`command: python`) find mcp.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra or {})
    return env


RunCli = Callable[..., subprocess.CompletedProcess[str]]


def _as_text(data: bytes) -> str:
    """Bytes read from a pipe as ``subprocess.run(text=True)`` reads them (universal newlines)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", newline=None).read()


@pytest.fixture
def run_cli() -> RunCli:
    """Run ``mcp-evals ARGS…`` as its own process would (``support/in_process.py``), but in this one;
    returns a CompletedProcess (text mode) as ``run_cli_process`` does. ``timeout`` is pytest-timeout's."""

    def run(
        *args: str | Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> subprocess.CompletedProcess[str]:
        ran = run_in_process(args, environ=cli_environment(env), cwd=cwd, uncaught=True)
        argv = [sys.executable, "-m", "mcp_evals", *map(str, args)]
        return subprocess.CompletedProcess(argv, ran.code, _as_text(ran.out), _as_text(ran.err))

    return run


@pytest.fixture
def run_cli_process() -> RunCli:
    """Run ``mcp-evals ARGS…`` as a real subprocess (``python -m mcp_evals``): for what only a process
    shows (signals, the exit status the OS sees, output of the command's own children)."""

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


# -- the run's fixtures: the helpdesk catalog (read once), projects, fake model APIs, the CLI in-process --

SECRETS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
EVAL_VARIABLES = ("EVAL_MODEL", "EVAL_CONCURRENCY", "EVAL_LIMIT", "EVAL_BUDGET_USD", "MCP_EVALS_CONFIG")


@pytest.fixture(scope="session")
def helpdesk_snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The helpdesk example's live catalog, read once over stdio and saved as a snapshot."""
    path = tmp_path_factory.mktemp("catalog") / "helpdesk.catalog.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        catalog = extract_catalog(load_config(HELPDESK / "mcp-evals.yaml"))
    write_snapshot(catalog, path)
    return path


@pytest.fixture(scope="session")
def helpdesk_catalog(helpdesk_snapshot: Path) -> Catalog:
    config = load_config(HELPDESK / "mcp-evals.yaml")
    return load_catalog(helpdesk_snapshot, areas=config.areas)


@pytest.fixture(scope="session")
def helpdesk_fixtures() -> list[Fixture]:
    return load_fixtures(load_config(HELPDESK / "mcp-evals.yaml"))


@dataclass
class Project:
    """A folder with an mcp-evals.yaml reading the helpdesk catalog from a snapshot."""

    root: Path
    config: Path
    results: Path

    def write_fixtures(self, fixtures: list[dict[str, Any]]) -> None:
        (self.root / "fixtures.yaml").write_text(yaml.safe_dump({"fixtures": fixtures}, sort_keys=False))


MakeProject = Callable[..., Project]


@pytest.fixture
def make_project(tmp_path: Path, helpdesk_snapshot: Path) -> MakeProject:
    def make(*, run: dict[str, Any] | None = None, own_fixtures: bool = False, **extra: Any) -> Project:
        example = yaml.safe_load((HELPDESK / "mcp-evals.yaml").read_text())
        document: dict[str, Any] = {
            "servers": [{"name": "helpdesk", "snapshot": str(helpdesk_snapshot)}],
            "areas": example["areas"],
            "fixtures": "fixtures.yaml" if own_fixtures else str(HELPDESK / "fixtures" / "*.yaml"),
            "system_prompt": example["system_prompt"],
            "run": {"max_wait": 0.05, "timeout": 5, **(run or {})},
            **extra,
        }
        if not own_fixtures:
            document["validation"] = example.get("validation", {})
        config = tmp_path / "mcp-evals.yaml"
        config.write_text(yaml.safe_dump(document, sort_keys=False))
        return Project(root=tmp_path, config=config, results=tmp_path / "results.ndjson")

    return make


@pytest.fixture
def project(make_project: MakeProject) -> Project:
    return make_project()


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No keys, no base URLs, no EVAL_* settings from the developer's shell."""
    for name in (*SECRETS, *EVAL_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MCP_EVALS_PROGRESS_SECONDS", "0.2")
    return monkeypatch


@pytest.fixture
def anthropic_fake(clean_env: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    fake = FakeAnthropic().start()
    clean_env.setenv("ANTHROPIC_API_KEY", fake.key)
    clean_env.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def openai_fake(clean_env: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI().start()
    assert fake.key is not None
    clean_env.setenv("OPENAI_API_KEY", fake.key)
    clean_env.setenv("OPENAI_BASE_URL", fake.base_url + "/v1")
    try:
        yield fake
    finally:
        fake.stop()


@dataclass
class CliResult:
    code: int
    out: str
    err: str


Cli = Callable[..., CliResult]


@pytest.fixture
def cli() -> Cli:
    """Run ``mcp-evals ARGS…`` in this process (fast), in the test's environment as it is; returns the
    exit code and the output."""

    def run(*args: str | Path) -> CliResult:
        ran = run_in_process(args)
        return CliResult(ran.code, *ran.text())

    return run


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """A fake GitHub REST API on loopback (comments, pull requests), as the Action's tests use it."""
    with RunningFakeGitHub() as fake:
        yield fake
