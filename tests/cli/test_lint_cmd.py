"""`mcp-evals lint` without a config file: a snapshot in any of the shapes people keep, or a server
named on the command line (`--command CMD ARGS…`, `--url URL`), as `init` takes one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import HELPDESK, RunCli
from mcp_evals.lint.model import LintReport
from support.catalog_helpers import PYTHON, free_port, serve_http

MEMORY = Path(__file__).resolve().parents[1] / "lint" / "calibration" / "catalogs" / "server-memory.json"


def memory_tools() -> list[dict[str, Any]]:
    document = json.loads(MEMORY.read_text("utf-8"))
    tools: list[dict[str, Any]] = document["servers"][0]["tools"]
    return tools


def report_of(text: str) -> LintReport:
    return LintReport.model_validate_json(text)


@pytest.mark.parametrize(
    ("shape", "server"),
    [
        ("ours", "server-memory"),
        ("bare array", "tools"),
        ("tools/list result", "tools"),
        ("JSON-RPC answer", "tools"),
        ("mcpgrade", "modelcontextprotocol-server-memory"),
    ],
)
def test_lint_catalog_reads_any_snapshot_shape_with_no_config(
    run_cli: RunCli, tmp_path: Path, shape: str, server: str
) -> None:
    tools = memory_tools()
    documents: dict[str, Any] = {
        "ours": json.loads(MEMORY.read_text("utf-8")),
        "bare array": tools,
        "tools/list result": {"tools": tools},
        "JSON-RPC answer": {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}},
        "mcpgrade": {"serverName": "@modelcontextprotocol/server-memory", "tools": tools},
    }
    (tmp_path / "tools.json").write_text(json.dumps(documents[shape]), "utf-8")
    assert not (tmp_path / "mcp-evals.yaml").exists()
    done = run_cli("lint", "--catalog", "tools.json", "--format", "json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # server-memory's undescribed parameters are errors (S001)
    report = report_of(done.stdout)
    assert (report.tools, report.servers, report.grade.letter) == (9, [server], "C")
    assert {finding.file for finding in report.findings} == {"tools.json"}  # where to look: the snapshot
    assert ("create_entities", "create_relations") in [pair.tools for pair in report.predicted_pairs]


def test_a_broken_bare_array_names_the_item_and_its_line(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text('[\n  {"name": "ok"},\n  {"description": "no name"}\n]\n', "utf-8")
    done = run_cli("lint", "--catalog", "tools.json", cwd=tmp_path)
    assert done.returncode == 3
    assert "tools.json:3 ([1]): a tool needs a `name` (text)" in done.stderr


def test_lint_command_lints_a_server_with_no_config_and_its_arguments_last(
    run_cli: RunCli, tmp_path: Path
) -> None:
    done = run_cli("lint", "--format", "json", "--command", PYTHON, HELPDESK / "server.py", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    report = report_of(done.stdout)
    assert (report.tools, report.servers) == (22, ["server"])
    assert not list(tmp_path.iterdir())  # nothing written


def test_lint_url_lints_a_server_over_http_with_no_config(run_cli: RunCli, tmp_path: Path) -> None:
    port = free_port()
    with serve_http(
        [PYTHON, HELPDESK / "server.py", "--http", "--host", "127.0.0.1", "--port", str(port)], port
    ) as base:
        done = run_cli("lint", "--url", f"{base}/mcp", "--format", "json", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert report_of(done.stdout).tools == 22


def test_a_config_still_rules_when_there_is_one(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps({"tools": memory_tools()}), "utf-8")
    (tmp_path / "mcp-evals.yaml").write_text(
        "servers:\n  - {name: memory, snapshot: tools.json}\nlint:\n  fail_on: never\n", "utf-8"
    )
    done = run_cli("lint", "--catalog", "tools.json", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # fail_on: never, from the config
    assert {finding.file for finding in report_of(done.stdout).findings} == {"mcp-evals.yaml"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--catalog", "tools.json", "--command", "node"], "give --catalog, --command or --url, not two"),
        (["--command", "node", "--url", "http://127.0.0.1:9/mcp"], "give --command or --url, not both"),
        (["--config", "other.yaml", "--command", "node"], "--config names one"),
        (["--url", "http://127.0.0.1:9/mcp", "--probe", "extra"], "arguments follow --command CMD"),
    ],
)
def test_conflicting_sources_are_bad_usage_before_anything_starts(
    run_cli: RunCli, tmp_path: Path, args: list[str], message: str
) -> None:
    done = run_cli("lint", *args, cwd=tmp_path)
    assert done.returncode == 3 and message in done.stderr, done.stderr
