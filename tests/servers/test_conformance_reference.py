"""The conformance requests against the five reference servers, nobody here wrote them.

The same behaviour mcpscore 1.29 reports on them (measured side by side by ``bench/peers.py``, the
table in docs/audit.md): every one returns a page for a cursor it never issued, on every list it
serves; the three TypeScript servers answer a call to an unknown tool with an ``isError`` result, the
two Python ones with the protocol error -32602.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import one_worker
from mcp_evals.catalog.model import Catalog
from mcp_evals.config.model import Config
from mcp_evals.servers.conformance import check_servers
from mcp_evals.servers.extract import extract_catalog
from mcp_evals.servers.model import Conformance
from support.catalog_helpers import PYTHON, node_server, write_config

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

ALL_LISTS = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]
EXPECTED_ACCEPTED = {
    "memory": ["tools/list", "resources/list", "resources/templates/list"],
    "everything": ALL_LISTS,
    "filesystem": ["tools/list"],
    "time": ALL_LISTS,
    "fetch": ALL_LISTS,
}


def entry(name: str, folder: Path) -> dict[str, Any]:
    if name in ("time", "fetch"):
        module = f"mcp_server_{name}"
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed in the test environment")
        return {"name": name, "command": PYTHON, "args": ["-m", module], "timeout": 60}
    args = {"memory": [], "everything": ["stdio"], "filesystem": [str(folder)]}[name]
    found: dict[str, Any] = {"name": name, "command": str(node_server(f"mcp-server-{name}")), "args": args}
    if name == "memory":
        found["env"] = {"MEMORY_FILE_PATH": str(folder.parent / "memory.jsonl")}
    return {**found, "timeout": 60}


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Conformance]:
    folder = tmp_path_factory.mktemp("reference") / "files"
    folder.mkdir()
    found = {}
    for name in EXPECTED_ACCEPTED:
        config: Config = write_config(tmp_path_factory.mktemp(name), [entry(name, folder)])
        catalog: Catalog = extract_catalog(config)
        [found[name]] = anyio.run(check_servers, config, catalog)
    return found


def test_every_reference_server_accepts_a_cursor_it_never_issued(answers: dict[str, Conformance]) -> None:
    accepted = {
        name: [method for method, answer in found.invalid_cursor.items() if answer.outcome == "result"]
        for name, found in answers.items()
    }
    assert accepted == EXPECTED_ACCEPTED


def test_the_typescript_servers_answer_an_unknown_tool_with_is_error(answers: dict[str, Conformance]) -> None:
    outcomes = {}
    for name, found in answers.items():
        assert found.unknown_tool is not None
        outcomes[name] = (found.unknown_tool.outcome, found.unknown_tool.is_error, found.unknown_tool.code)
    assert outcomes == {
        "memory": ("result", True, None),
        "everything": ("result", True, None),
        "filesystem": ("result", True, None),
        "time": ("error", None, -32602),
        "fetch": ("error", None, -32602),
    }


def test_versions_and_readiness(answers: dict[str, Conformance]) -> None:
    assert {name: found.negotiated_version for name, found in answers.items()} == dict.fromkeys(
        EXPECTED_ACCEPTED, "2025-11-25"
    )
    modern = {name for name, found in answers.items() if found.modern_version == "2026-07-28"}
    assert modern == {"time", "fetch"}
    failed = {
        name: sorted(check.id for check in found.readiness if check.status == "fail")
        for name, found in answers.items()
    }
    assert failed == {
        "memory": ["discover"],
        "everything": ["deprecated_features", "discover"],
        "filesystem": ["discover"],
        "time": [],
        "fetch": [],
    }
