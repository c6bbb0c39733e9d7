"""A provider added in one file is accepted everywhere a provider is named.

The plugin is examples/provider-plugin/: one module and the entry-point line of its pyproject.toml.
It is installed here the way pip installs it (the module, and a ``*.dist-info`` folder holding its
entry points) into a folder on ``sys.path``; nothing of mcp-evals is told about it but the registry's
entry-point group. Then config validation, the CLI's options and help, the Action's inputs, the JSON
schema and ``serve``'s tool take ``dummy``, and a real run (a separate process) is answered by it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import write_snapshot
from mcp_evals.cli import cli
from mcp_evals.cli.schema_cmd import schema_document
from mcp_evals.config.load import load_config
from mcp_evals.errors import ConfigError
from mcp_evals.github.inputs import read_inputs
from mcp_evals.provider_registry import ENTRY_POINT_GROUP, PROVIDERS

REPO_ROOT = Path(__file__).resolve().parents[2]
PLUGIN = REPO_ROOT / "examples" / "provider-plugin"
MODULE = "mcp_evals_dummy"


def install(plugin: Path, site: Path) -> None:
    """What ``pip install examples/provider-plugin`` leaves in site-packages: the module, and its
    distribution's metadata with the entry points of its pyproject.toml."""
    project = tomllib.loads((plugin / "pyproject.toml").read_text("utf-8"))["project"]
    site.mkdir(parents=True)
    for module in tomllib.loads((plugin / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"][
        "py-modules"
    ]:
        shutil.copy(plugin / f"{module}.py", site / f"{module}.py")
    info = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", "utf-8"
    )
    lines = [f"[{group}]" + "".join(f"\n{name} = {value}" for name, value in points.items())
             for group, points in project["entry-points"].items()]  # fmt: skip
    (info / "entry_points.txt").write_text("\n\n".join(lines) + "\n", "utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    """The example plugin installed into a folder on ``sys.path`` (and uninstalled afterwards)."""
    folder = tmp_path / "site-packages"
    install(PLUGIN, folder)
    sys.path.insert(0, str(folder))
    PROVIDERS.refresh()
    try:
        yield folder
    finally:
        sys.path.remove(str(folder))
        sys.modules.pop(MODULE, None)
        PROVIDERS.refresh()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A config on a catalog snapshot of two tools, and fixtures that name the tool they want."""
    server = ServerInfo(
        name="notes",
        transport="stdio",
        tools=[
            {"name": "search_notes", "description": "Find notes.", "inputSchema": {"type": "object"}},
            {"name": "create_note", "description": "Write a note.", "inputSchema": {"type": "object"}},
        ],
    )
    write_snapshot(build_catalog([server]), tmp_path / "catalog.json")
    fixtures = [
        {"id": "find", "query": "search_notes for my dentist note", "expected_tool": "search_notes"},
        {"id": "write", "query": "create_note: buy milk", "expected_tool": "create_note"},
        {"id": "vague", "query": "find my dentist note", "expected_tool": "search_notes"},
    ]
    (tmp_path / "fixtures.yaml").write_text(yaml.safe_dump(fixtures), "utf-8")
    config = {
        "servers": [{"name": "notes", "snapshot": "catalog.json"}],
        "fixtures": "fixtures.yaml",
        "run": {"provider": "dummy"},
    }
    (tmp_path / "mcp-evals.yaml").write_text(yaml.safe_dump(config), "utf-8")
    return tmp_path / "mcp-evals.yaml"


def test_the_entry_point_group_is_the_one_the_example_declares() -> None:
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text("utf-8"))["project"]
    assert list(project["entry-points"]) == [ENTRY_POINT_GROUP]


def test_without_the_plugin_nobody_knows_dummy(project: Path) -> None:
    assert "dummy" not in PROVIDERS
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    assert "unknown provider 'dummy' (known: anthropic, openai, lexical, replay)" in str(caught.value)


def test_listing_names_imports_no_plugin(site: Path) -> None:
    assert "dummy" in PROVIDERS.names()
    assert MODULE not in sys.modules
    entry = PROVIDERS["dummy"]
    assert MODULE in sys.modules and entry.load().name == "dummy"
    assert not entry.paid and not entry.sessions


def test_the_config_accepts_it_and_suggests_it(site: Path, project: Path) -> None:
    assert load_config(project).run.provider == "dummy"
    project.write_text(project.read_text("utf-8").replace("provider: dummy", "provider: dumy"), "utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(project)
    known = "anthropic, openai, lexical, replay, dummy"
    assert f"unknown provider 'dumy' (known: {known}); did you mean 'dummy'?" in str(caught.value)


def test_the_json_schema_lists_it(site: Path, project: Path) -> None:
    schema = schema_document("config")
    provider = schema["$defs"]["RunOptions"]["properties"]["provider"]
    assert "dummy" in json.dumps(provider)
    jsonschema.validate(yaml.safe_load(project.read_text("utf-8")), schema)


def test_the_cli_offers_it_where_its_capabilities_allow(site: Path) -> None:
    runner = CliRunner()
    assert "anthropic|openai|lexical|replay|dummy" in runner.invoke(cli, ["run", "--help"]).output
    assert "anthropic|openai|lexical|dummy" in runner.invoke(cli, ["compare", "--help"]).output
    session = runner.invoke(cli, ["session", "--tasks", "t.yaml", "--provider", "dummy"])
    assert session.exit_code == 2 and "'dummy' is not one of 'anthropic', 'openai'" in session.output
    synth = runner.invoke(cli, ["synth", "--provider", "dummy"])
    assert synth.exit_code == 2 and "'dummy' is not one of 'anthropic', 'openai'" in synth.output


def test_the_action_input_accepts_it(site: Path) -> None:
    assert read_inputs({"INPUT_PROVIDER": "dummy"}).provider == "dummy"
    with pytest.raises(ConfigError) as caught:
        read_inputs({"INPUT_PROVIDER": "dumm"})
    assert "anthropic | openai | lexical | replay | dummy" in str(caught.value)


def test_serve_offers_it_to_run_selection_eval(site: Path) -> None:
    from mcp_evals.serve.app import build_server

    async def schema() -> dict[str, Any]:
        tools = await build_server(None).list_tools()  # type: ignore[arg-type]  # listing reads no harness
        return next(tool.input_schema for tool in tools if tool.name == "run_selection_eval")

    provider = anyio.run(schema)["properties"]["provider"]
    assert provider["enum"] == ["anthropic", "openai", "lexical", "dummy"]


def test_a_run_is_answered_by_it_in_a_process_of_its_own(site: Path, project: Path) -> None:
    """The real command, in a new process that finds the plugin the way an installed one is found."""
    environ = {key: value for key, value in os.environ.items() if not key.endswith("_API_KEY")}
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), environ.get("PYTHONPATH")]))
    results = project.parent / "results.ndjson"
    project.write_text(project.read_text("utf-8").replace("provider: dummy", "samples: 1"), "utf-8")
    command = ["run", "--config", str(project), "--provider", "dummy", "--results", str(results)]
    finished = subprocess.run(
        [sys.executable, "-m", "mcp_evals", *command],
        cwd=project.parent,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr
    header, *lines = [json.loads(line) for line in results.read_text("utf-8").splitlines()]
    assert (header["provider"], header["model"]) == ("dummy", "dummy-1")
    called = {line["fixture_id"]: [call["name"] for call in line["calls"]] for line in lines}
    assert called == {"find": ["search_notes"], "write": ["create_note"], "vague": []}
