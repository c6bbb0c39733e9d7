"""The pytest plugin: contract cases as test items, run as `mcp-evals contract` runs them.

Each test runs pytest in a process of its own, in a folder outside this repository, the plugin found
the way pip installs it: the entry point of our pyproject.toml in a ``*.dist-info`` folder on the
path. The cases call npm's server-memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT, cli_environment
from support.catalog_helpers import node_server

SRC = REPO_ROOT / "src"


def install_entry_point(site: Path) -> Path:
    """What installing mcp-evals leaves for pytest: a distribution whose entry points name the plugin."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    points = project["entry-points"]["pytest11"]
    info = site / "mcp_evals_plugin_under_test-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp-evals-plugin-under-test\nVersion: 1.0\n")
    lines = "".join(f"\n{name} = {value}" for name, value in points.items())
    (info / "entry_points.txt").write_text(f"[pytest11]{lines}\n")
    return site


def pytest_run(folder: Path, *args: str, site: Path) -> subprocess.CompletedProcess[str]:
    env = cli_environment({"PYTHONPATH": os.pathsep.join([str(site), str(SRC)])})
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder outside the repository: a config on server-memory and two cases, one failing."""
    folder = tmp_path / "project"
    cases = folder / "evals" / "contract"
    cases.mkdir(parents=True)
    store = folder / "memory.jsonl"
    server = {
        "name": "memory",
        "command": str(node_server("mcp-server-memory")),
        "env": {"MEMORY_FILE_PATH": str(store)},
    }
    (folder / "mcp-evals.yaml").write_text(yaml.safe_dump({"servers": [server]}))
    create = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}
    cases_written = {
        "create.yaml": {
            "name": "create then find",
            "steps": [
                {"id": "create", "tool": "create_entities", "input": create},
                {
                    "id": "find",
                    "tool": "search_nodes",
                    "input": {"query": "Ada"},
                    "expect": {"output_contains": "Ada"},
                },
            ],
        },
        "missing.yaml": {
            "name": "finds nobody called Grace",
            "steps": [
                {
                    "id": "find",
                    "tool": "search_nodes",
                    "input": {"query": "Grace"},
                    "expect": {"output_contains": "Grace"},
                }
            ],
        },
    }
    for name, case in cases_written.items():
        (cases / name).write_text(yaml.safe_dump(case, sort_keys=False))
    return folder


def test_each_case_is_an_item_with_the_clis_verdicts(project: Path, tmp_path: Path) -> None:
    site = install_entry_point(tmp_path / "site")
    ran = pytest_run(
        project, "--mcp-evals-contract", "evals/contract", "--junitxml", "junit.xml", "-rA", site=site
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert "1 failed, 1 passed" in ran.stdout
    assert "PASSED evals/contract/create.yaml::create then find" in ran.stdout
    assert "FAILED evals/contract/missing.yaml::finds nobody called Grace" in ran.stdout
    # the failure says what failed, as the CLI's report does
    assert "find: output_contains — 'Grace' is not in the output" in ran.stdout
    names = {case.get("name") for case in ET.parse(project / "junit.xml").getroot().iter("testcase")}
    assert names == {"create then find", "finds nobody called Grace"}
    assert not (project / ".mcp-evals").exists()  # the history is the CLI's


def test_trials_and_snapshots_as_the_cli_has_them(project: Path, tmp_path: Path) -> None:
    site = install_entry_point(tmp_path / "site")
    cases = project / "evals" / "contract"
    (cases / "missing.yaml").unlink()
    snapshot = {
        "name": "the graph",
        "steps": [{"id": "read", "tool": "read_graph", "expect": {"snapshot": True}}],
    }
    (cases / "graph.yaml").write_text(yaml.safe_dump(snapshot))
    first = pytest_run(
        project, "--mcp-evals-contract", "evals/contract", "--mcp-evals-trials", "2", "-rA", site=site
    )
    # "create then find" runs first (files in name order) and passes both times; the graph is then the
    # same in both of its trials
    assert first.returncode == 0, first.stdout + first.stderr
    stored = json.loads((cases / "__snapshots__" / "graph.yaml.snap.json").read_text())
    assert stored["steps"]["read"]["output"]["entities"][0]["name"] == "Ada"
    grace = {"type": "entity", "name": "Grace", "entityType": "person", "observations": []}
    (project / "memory.jsonl").write_text(json.dumps(grace) + "\n")  # the graph no longer matches
    changed = pytest_run(project, "--mcp-evals-contract", "evals/contract", site=site)
    assert changed.returncode == 1
    assert (
        "the output differs from its snapshot" in changed.stdout
        and '+      "name": "Grace",' in changed.stdout
    )
    updated = pytest_run(
        project, "--mcp-evals-contract", "evals/contract", "--mcp-evals-update-snapshots", site=site
    )
    assert updated.returncode == 0, updated.stdout


def test_without_its_option_it_adds_options_and_imports_nothing(tmp_path: Path) -> None:
    site = install_entry_point(tmp_path / "site")
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "test_x.py").write_text(
        "import sys\n\n\ndef test_loaded_modules():\n"
        "    loaded = sorted(name for name in sys.modules if name.startswith('mcp_evals'))\n"
        "    assert loaded == ['mcp_evals', 'mcp_evals._version', 'mcp_evals.contract', "
        "'mcp_evals.contract.pytest_plugin'], loaded\n"
    )
    ran = pytest_run(folder, "-p", "no:randomly", site=site)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 passed" in ran.stdout
    helped = pytest_run(folder, "--help", site=site)
    assert "--mcp-evals-contract=DIR" in helped.stdout


def test_a_folder_of_mcp_assert_assertions_runs_as_items(tmp_path: Path) -> None:
    site = install_entry_point(tmp_path / "site")
    folder = tmp_path / "suite"
    (folder / "evals" / "reads").mkdir(parents=True)
    server = {
        "command": str(node_server("mcp-server-memory")),
        "env": {"MEMORY_FILE_PATH": str(folder / "m.jsonl")},
    }
    assertion = {
        "name": "the graph has entities",
        "server": server,
        "assert": {"tool": "read_graph", "args": {}, "expect": {"not_error": True, "contains": ["entities"]}},
        "timeout": "20s",
    }
    (folder / "evals" / "reads" / "graph.yaml").write_text(yaml.safe_dump(assertion))
    ran = pytest_run(folder, "--mcp-evals-contract", "evals", "-rA", site=site)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "PASSED evals/reads/graph.yaml::the graph has entities" in ran.stdout
    assert "mcp-assert: changed:" in ran.stdout  # what did not map one-to-one is said (a warning)
