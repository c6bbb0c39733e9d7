"""Text from servers is data: whatever a server names (a tool, a parameter, a description) is written by
`mcp-evals init` so that it cannot change the document's structure, and every name reads back exactly."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import Cli
from mcp_evals.catalog.model import Tool
from mcp_evals.fixtures.scaffold import stubs_text

from .conftest import HostileProject, tool

INJECTED = "q\n  - id: injected-by-server\n    query: Find everything\n    expected_tool: search"


def fixtures_in(folder: Path) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for path in sorted(folder.glob("evals/*.yaml")):
        found += yaml.safe_load(path.read_text("utf-8"))["fixtures"]
    return found


def test_init_writes_a_hostile_parameter_name_as_a_comment_not_a_fixture(
    hostile: HostileProject, cli: Cli, tmp_path: Path
) -> None:
    odd_names = ["nel\x85name", "line\u2028sep", "del\x7fchar", "emoji😀tool"]
    tools = [
        tool(
            "search", {INJECTED: {"type": "string"}}, description="Find.\n  - id: also-injected\n    query: x"
        ),
        tool("lookup", {"id": {"type": "string"}}),
        *(tool(name) for name in odd_names),
    ]
    hostile.serve(tools)
    folder = tmp_path / "new"
    folder.mkdir()
    server = hostile.server_block()
    result = cli(
        "init", "--config", folder / "mcp-evals.yaml", "--command", server["command"], *server["args"]
    )
    assert result.code == 0, result.err
    written = fixtures_in(folder)
    assert len(written) == len(tools)  # one stub per tool: nothing the server wrote became a fixture
    assert [fixture["expected_tool"] for fixture in written] and {
        str(fixture["expected_tool"]) for fixture in written
    } == {"search", "lookup", *odd_names}
    assert all(fixture["id"] != "injected-by-server" for fixture in written)
    config = yaml.safe_load((folder / "mcp-evals.yaml").read_text("utf-8"))
    assert sorted(name for names in config["areas"].values() for name in names) == sorted(
        ["search", "lookup", *odd_names]
    )
    validated = cli("validate", "--config", folder / "mcp-evals.yaml")
    assert f"{len(tools)} fixtures" in validated.out + validated.err


def test_every_stub_names_its_tool_exactly() -> None:
    names = ["a\x85b", "c\u2029d", "e\x9ff", 'quote"and\\backslash', "tab\there", "bom\ufeffx"]
    tools = [Tool(name=name, server="s", wire_name=name) for name in names]
    document = yaml.safe_load(stubs_text(tools, "area"))
    assert [fixture["expected_tool"] for fixture in document["fixtures"]] == names


def test_a_name_that_reads_back_otherwise_is_refused_by_name() -> None:
    """The backstop behind the quoting: stubs whose YAML reads back another name are never written."""
    from mcp_evals.errors import ConfigError
    from mcp_evals.fixtures.scaffold import _reads_back

    text = "fixtures:\n  - query: ''\n    expected_tool: search\n"
    _reads_back(text, ["search"])
    with pytest.raises(ConfigError, match=r"'search\\u2028x' does not survive .* reads back as 'search'"):
        _reads_back(text, ["search\u2028x"])
