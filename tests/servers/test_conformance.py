"""The conformance requests against real processes: a server that answers as the specification asks,
one that does not (both plain JSON-RPC, ``conformance_server.py``), and an SDK server over HTTP.

What the reference servers answer, and how it compares with mcpscore's and mcp-assert's findings, is
``test_conformance_reference.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from mcp_evals.lint.engine import lint
from mcp_evals.servers.conformance import check_conformance, check_servers, unknown_tool_name
from mcp_evals.servers.extract import extract_catalog
from support.catalog_helpers import PYTHON, SERVERS, free_port, python_server, serve_http, write_config


def conformance_config(tmp_path: Path, mode: str, **env: str) -> object:
    entry = python_server("conformance_server.py", mode, name="weather", env=env)
    return write_config(tmp_path, [entry])


def test_a_strict_server_passes_every_check(tmp_path: Path) -> None:
    config = write_config(tmp_path, [python_server("conformance_server.py", "strict", name="weather")])
    catalog = extract_catalog(config)
    [found] = anyio.run(check_servers, config, catalog)
    assert found.negotiated_version == "2025-11-25" and found.modern_version == "2026-07-28"
    assert set(found.invalid_cursor) == {
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    }
    assert all(answer.code == -32602 for answer in found.invalid_cursor.values())
    assert found.unknown_tool is not None and found.unknown_tool.code == -32602
    assert (found.undeclared, found.failing, found.notifications) == ([], {}, [])
    assert [(check.id, check.status) for check in found.readiness] == [
        ("stateless", "pass"),
        ("discover", "pass"),
        ("unknown_method", "pass"),
        ("unsupported_version", "pass"),
        ("error_codes", "pass"),
        ("deprecated_features", "pass"),
    ]
    report = lint(catalog, conformance=[found])
    assert [finding for finding in report.findings if finding.category == "P"] == []
    assert "ready for 2026-07-28: 6 of 6 checks pass" in report.notes[-1]


def test_a_sloppy_server_gets_one_finding_per_defect_each_saying_what_a_client_sees(tmp_path: Path) -> None:
    calls = tmp_path / "calls.ndjson"
    config = write_config(
        tmp_path,
        [python_server("conformance_server.py", "sloppy", name="weather", env={"CALLS_FILE": str(calls)})],
    )
    catalog = extract_catalog(config)
    [found] = anyio.run(check_servers, config, catalog)
    report = lint(catalog, conformance=[found])
    messages = {
        (finding.rule, finding.subject): finding.message
        for finding in report.findings
        if finding.category == "P"
    }
    assert set(messages) == {
        ("P001", "tools/list"),
        ("P001", "resources/list"),
        ("P001", "resources/templates/list"),
        ("P002", "tools/call"),
        ("P004", "prompts/list"),
        ("P004", "resources/list"),
        ("P005", "notifications/tools/list_changed"),
        ("P006", "readiness: stateless"),
        ("P006", "readiness: discover"),
        ("P006", "readiness: deprecated_features"),
    }
    assert "returned a page for a cursor it never issued" in messages[("P001", "tools/list")]
    assert "isError ('Tool mcp_evals_no_such_tool not found')" in messages[("P002", "tools/call")]
    assert "answered error -32603" in messages[("P004", "prompts/list")]
    assert "without declaring its capability" in messages[("P004", "resources/list")]
    assert "clients ignore it" in messages[("P005", "notifications/tools/list_changed")]
    assert "declares logging" in messages[("P006", "readiness: deprecated_features")]
    # No tool of the server was called: only the name it does not list.
    assert [json.loads(line)["name"] for line in calls.read_text("utf-8").splitlines()] == [
        "mcp_evals_no_such_tool"
    ]


def test_the_unknown_tool_name_is_one_the_server_does_not_list() -> None:
    assert unknown_tool_name(["a", "b"]) == "mcp_evals_no_such_tool"
    assert (
        unknown_tool_name(["mcp_evals_no_such_tool", "mcp_evals_no_such_tool_2"])
        == "mcp_evals_no_such_tool_3"
    )


def test_an_sdk_server_over_http(tmp_path: Path) -> None:
    port = free_port()
    script = SERVERS / "toy_server.py"
    with serve_http([PYTHON, script, "--http", str(port)], port) as base:
        config = write_config(tmp_path, [{"name": "toy", "url": f"{base}/mcp"}])
        catalog = extract_catalog(config)
        found = anyio.run(check_conformance, config.servers[0], config, catalog.tool_names)
    assert found.transport == "streamable-http" and found.negotiated_version == "2026-07-28"
    # MCPServer (the SDK's high-level server) turns its "Unknown tool" into an isError result, and
    # accepts any cursor: what the lint reports for it.
    assert found.unknown_tool is not None and found.unknown_tool.outcome == "result"
    assert found.unknown_tool.is_error and "Unknown tool" in found.unknown_tool.message
    assert found.invalid_cursor["tools/list"].outcome == "result"
    assert [check.id for check in found.readiness] == ["discover"]
    assert found.notes and "not assessed" in found.notes[0]


def test_no_server_is_left_running(tmp_path: Path) -> None:
    """Every connection is closed: a second check of the same config starts from scratch."""
    config = write_config(tmp_path, [python_server("conformance_server.py", "strict", name="weather")])
    first = anyio.run(check_conformance, config.servers[0], config, ["get_forecast"])
    second = anyio.run(check_conformance, config.servers[0], config, ["get_forecast"])
    assert first == second


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
