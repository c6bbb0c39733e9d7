"""Snapshots: our own format, and the plain `tools/list` result teams already keep."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli
from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.errors import InputFileError

TOOLS_LIST = {
    "tools": [
        {
            "name": "get_current_time",
            "description": "Get current time in a specific timezone",
            "inputSchema": {
                "type": "object",
                "properties": {"timezone": {"type": "string"}},
                "required": ["timezone"],
            },
        },
        {"name": "convert_time", "description": "Convert time between timezones", "inputSchema": {}},
    ]
}


def test_a_plain_tools_list_result_is_one_server_named_after_the_file(tmp_path: Path) -> None:
    path = tmp_path / "time server.json"
    path.write_text(json.dumps(TOOLS_LIST))
    catalog = load_catalog(path)
    assert [server.name for server in catalog.servers] == ["time-server"]
    assert catalog.servers[0].transport == "snapshot"
    assert [tool.name for tool in catalog.tools] == ["get_current_time", "convert_time"]
    assert catalog.tools[0].input_schema["required"] == ["timezone"]


def test_a_bare_array_of_tools_is_one_server_too(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS_LIST["tools"]))
    catalog = load_catalog(path)
    assert [server.name for server in catalog.servers] == ["tools"]
    assert [tool.name for tool in catalog.tools] == ["get_current_time", "convert_time"]
    path.write_text('[\n  {"name": "ok"},\n  {"description": "no name"}\n]\n')
    with pytest.raises(InputFileError, match=r"tools\.json:3 \(\[1\]\): a tool needs a `name`"):
        load_catalog(path)


def test_a_tool_without_a_name_points_at_its_entry(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "tools": [\n    {"name": "ok"},\n    {"description": "no name"}\n  ]\n}\n')
    with pytest.raises(InputFileError) as caught:
        load_catalog(path)
    assert "broken.json:4 (tools[1]): a tool needs a `name`" in str(caught.value)


def test_a_config_server_read_from_a_snapshot_is_listed_as_snapshot(tmp_path: Path, cli: Cli) -> None:
    (tmp_path / "listing.json").write_text(json.dumps(TOOLS_LIST))
    config = tmp_path / "mcp-evals.yaml"
    config.write_text("servers:\n  - name: time\n    snapshot: listing.json\n")
    result = cli("catalog", "--config", config)
    assert result.code == 0, result.err
    row = next(line for line in result.out.splitlines() if line.startswith("time "))
    assert "snapshot" in row and "stdio" not in row
