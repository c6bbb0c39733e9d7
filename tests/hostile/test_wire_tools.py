"""Tools no model API would accept are refused when the catalog is read, with a message naming them:
an `inputSchema` that is not a JSON object (the MCP SDK refuses it too) and text with a lone
surrogate (`"\\ud800"`, a legal JSON escape that is not Unicode). No command crashes on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from mcp_evals.catalog.model import Catalog, ServerInfo, Tool, wire_problem

from .conftest import HostileProject, tool

COMMANDS = [("catalog",), ("validate",), ("lint",)]


def fixtures() -> list[dict[str, Any]]:
    return [{"id": "a", "query": "look it up", "expected_tools": ["lookup"]}]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
@pytest.mark.parametrize(
    "schema", ["a string", ["a", "list"], 3, None], ids=["string", "array", "number", "none"]
)
def test_an_input_schema_that_is_not_an_object_is_refused_at_catalog_read(
    hostile: HostileProject, cli: Cli, command: tuple[str, ...], schema: Any
) -> None:
    bad = {"name": "broken", "description": "Break things."}
    if schema is not None:
        bad["inputSchema"] = schema
    hostile.serve([tool("lookup"), bad])
    hostile.configure(fixtures())
    result = cli(*command, "--config", hostile.config)
    assert result.code == 3, result.out + result.err
    assert "tool 'broken' has an inputSchema that is not a JSON object" in result.err
    assert "Traceback" not in result.err


@pytest.mark.parametrize("command", [*COMMANDS, ("init",)], ids=lambda command: command[0])
@pytest.mark.parametrize(
    "where", ["name", "description", "parameter"], ids=["in-name", "in-description", "in-parameter"]
)
def test_a_lone_surrogate_is_refused_by_name_and_crashes_nothing(
    hostile: HostileProject, cli: Cli, command: tuple[str, ...], where: str, tmp_path: Path
) -> None:
    odd = "bad\ud800name"
    broken = tool(
        odd if where == "name" else "broken",
        {odd if where == "parameter" else "q": {"type": "string"}},
        description="Find \ud800 things." if where == "description" else "Find things.",
    )
    hostile.serve([tool("lookup"), broken])
    if command == ("init",):
        folder = tmp_path / "new"
        folder.mkdir()
        server = hostile.server_block()
        result = cli(
            "init", "--config", folder / "mcp-evals.yaml", "--command", server["command"], *server["args"]
        )
    else:
        hostile.configure(fixtures())
        result = cli(*command, "--config", hostile.config)
    assert result.code == 3, result.out + result.err
    assert "not valid Unicode (a lone surrogate" in result.err
    assert "\\ud800" in result.err if where != "description" else "in description)" in result.err
    assert "Traceback" not in result.err


def test_a_snapshot_holding_such_a_tool_is_refused_too(hostile: HostileProject, cli: Cli) -> None:
    snapshot = hostile.root / "catalog.json"
    document = {
        "format": "mcp-evals.catalog/1",
        "servers": [{"name": "saved", "transport": "stdio", "tools": [{"name": "s", "inputSchema": "x"}]}],
    }
    snapshot.write_text(json.dumps(document))
    hostile.config.write_text(json.dumps({"servers": [{"name": "saved", "snapshot": "catalog.json"}]}))
    (hostile.root / "fixtures.yaml").write_text("fixtures: []\n")
    result = cli("lint", "--config", hostile.config)
    assert result.code == 3, result.out + result.err
    assert "tool 's' has an inputSchema that is not a JSON object (a JSON string)" in result.err


def test_wire_problem_is_none_for_a_good_tool_and_the_hash_never_crashes() -> None:
    assert wire_problem(tool("fine", {"q": {"type": "string"}})) is None
    server = ServerInfo(name="s", transport="stdio")
    odd = Tool(name="bad\ud800name", server=server.name, wire_name="bad\ud800name")
    assert len(Catalog(tools=[odd]).hash) == 64
