"""False positives: the security rules on real servers nobody here wrote, and on the examples.

The five reference servers (server-memory, -everything, -filesystem from npm; mcp-server-time and
mcp-server-fetch from PyPI) and the examples are read live, each on its own and all five in one
prefixed catalog (where a server's text could name another's tool). None holds a poisoned text, so
every security rule must stay silent. The resources-and-prompts rules find one real defect:
server-everything's `args-prompt` documents its `city` argument but not `state`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from conftest import EXAMPLES, one_worker
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.load import load_config
from mcp_evals.lint.engine import lint
from mcp_evals.servers.extract import extract_catalog
from support.catalog_helpers import HELPDESK_SERVER, PYTHON, node_server, write_config

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

NPM = {
    "memory": ("mcp-server-memory", []),
    "everything": ("mcp-server-everything", ["stdio"]),
    "filesystem": ("mcp-server-filesystem", ["{folder}"]),
}
PYPI = {"time": "mcp_server_time", "fetch": "mcp_server_fetch"}


def reference_servers(folder: Path) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for name, (package_bin, args) in NPM.items():
        command = str(node_server(package_bin))
        entries.append(
            {"name": name, "command": command, "args": [arg.format(folder=folder) for arg in args]}
        )
    entries[0]["env"] = {"MEMORY_FILE_PATH": str(folder.parent / "memory.jsonl")}
    for name, module in PYPI.items():
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed in the test environment (scripts/bootstrap installs it)")
        entries.append({"name": name, "command": PYTHON, "args": ["-m", module]})
    return [{**entry, "timeout": 60} for entry in entries]


@pytest.fixture(scope="module")
def catalogs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Catalog]:
    root = tmp_path_factory.mktemp("reference")
    (root / "files").mkdir()
    entries = reference_servers(root / "files")
    found = {}
    for entry in entries:
        found[entry["name"]] = extract_catalog(write_config(tmp_path_factory.mktemp(entry["name"]), [entry]))
    together = [{**entry, "prefix": True} for entry in entries]
    found["all five"] = extract_catalog(write_config(tmp_path_factory.mktemp("all"), together))
    helpdesk = {"name": "helpdesk", "command": PYTHON, "args": [str(HELPDESK_SERVER)], "timeout": 60}
    found["helpdesk"] = extract_catalog(write_config(tmp_path_factory.mktemp("helpdesk"), [helpdesk]))
    notes = EXAMPLES / "notes-ts"
    if (notes / "dist" / "index.js").exists():  # built by scripts/bootstrap (`npm ci && npm run build`)
        found["notes-ts"] = extract_catalog(load_config(notes / "mcp-evals.yaml"))
    return found


def test_they_list_resources_and_prompts(catalogs: dict[str, Catalog]) -> None:
    everything = catalogs["everything"]
    assert len(everything.prompts) == 4 and any(item.template for item in everything.resources)
    assert [resource.uri for resource in catalogs["memory"].resources] == ["memory://knowledge-graph"]
    assert [prompt.name for prompt in catalogs["fetch"].prompts] == ["fetch"]


@pytest.mark.parametrize(
    "name", ["memory", "everything", "filesystem", "time", "fetch", "all five", "helpdesk"]
)
def test_the_security_rules_stay_silent(catalogs: dict[str, Catalog], name: str) -> None:
    findings = [finding for finding in lint(catalogs[name]).findings if finding.category == "X"]
    assert findings == []


def test_the_resource_and_prompt_rules_find_only_the_real_defect(catalogs: dict[str, Catalog]) -> None:
    found = {
        name: [
            (finding.rule, finding.message) for finding in lint(source).findings if finding.category == "R"
        ]
        for name, source in catalogs.items()
        if name != "all five"
    }
    assert found == {
        "memory": [],
        "everything": [("R002", "prompt 'args-prompt': optional argument 'state' has no description")],
        "filesystem": [],
        "time": [],
        "fetch": [],
        "helpdesk": [],
        **({"notes-ts": []} if "notes-ts" in catalogs else {}),
    }
