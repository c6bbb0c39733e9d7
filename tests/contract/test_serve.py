"""`mcp-evals serve` driven by real MCP clients: the SDK's over stdio, ours over Streamable HTTP."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml

from conftest import HELPDESK
from mcp_evals.contract.history import History
from mcp_evals.errors import ServerError
from mcp_evals.servers.client import ServerSession, open_session
from support.catalog_helpers import HELPDESK_SERVER, PYTHON, free_port, serve_http, write_config

from .conftest import Project

TOOLS = {
    "run_suite",
    "run_case",
    "list_cases",
    "create_test_case",
    "scaffold_fixture",
    "regression_report",
    "compare_results",
    "generate_html_report",
    "evaluate_deployment_gate",
    "discover_fixtures",
    "validate_fixtures",
    "lint_catalog",
    "run_selection_eval",
}


def helpdesk_project(project: Project) -> Path:
    """A config like the example's (its fixtures, areas and rules), with cases of its own."""
    example = yaml.safe_load((HELPDESK / "mcp-evals.yaml").read_text("utf-8"))
    project.config(
        [{"name": "helpdesk", "command": PYTHON, "args": [str(HELPDESK_SERVER)]}],
        areas=example["areas"],
        fixtures=str(HELPDESK / "fixtures" / "*.yaml"),
        validation=example["validation"],
        contract={"suite": "served"},
    )
    project.case(
        "ticket",
        [
            {
                "id": "t",
                "tool": "get_ticket",
                "input": {"ticket_id": "T-1041"},
                "expect": {"output_contains": "Charged twice"},
            }
        ],
    )
    project.case(
        "simulated",
        [{"id": "s", "tool": "x", "expected_output": "ok", "expect": {"output_equals": "ok"}}],
        simulate=True,
    )
    return project.config_path


class Served:
    """One stdio session with `mcp-evals serve` through the MCP SDK's own client."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def call(self, name: str, arguments: dict[str, Any] | None = None) -> tuple[bool, Any]:
        result = await self.client.call_tool(name, arguments or {})
        text = result.content[0].text if result.content else ""
        return bool(result.is_error), (
            result.structured_content if result.structured_content is not None else text
        )


def with_served(config: Path, library: Path, use: Any) -> Any:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main() -> Any:
        env = {**os.environ, "FIXTURE_LIBRARY_DIRS": str(library)}
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "mcp_evals", "serve", "--config", str(config)],
            env=env,
            cwd=config.parent,
        )
        with open(os.devnull, "w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                return await use(client, Served(client))

    return anyio.run(main)


def test_every_tool_over_stdio(
    project: Project, tmp_path_factory: pytest.TempPathFactory, run_cli: Any
) -> None:
    config = helpdesk_project(project)
    library = tmp_path_factory.mktemp("library")
    (library / "shared.yaml").write_text(
        "name: from the library\nsimulate: true\nsteps: [{id: a, tool: t}]\n"
    )
    outside = project.root.parent

    async def use(client: Any, served: Served) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        listed = await client.list_tools()
        seen["tools"] = {tool.name: tool for tool in listed.tools}
        seen["list_cases"] = await served.call("list_cases")
        seen["run_case"] = await served.call("run_case", {"name": "ticket"})
        seen["unknown_case"] = await served.call("run_case", {"name": "nope"})
        seen["suite"] = await served.call("run_suite")
        seen["traversal"] = await served.call(
            "create_test_case", {"name": "../../escaped", "steps": [{"id": "a", "tool": "t"}]}
        )
        steps = [
            {"id": "a", "tool": "echo", "expected_output": "hi there", "expect": {"output_contains": "hi"}}
        ]
        seen["created"] = await served.call(
            "create_test_case", {"name": "made by a client", "description": "d", "steps": steps}
        )
        seen["run_created"] = await served.call("run_case", {"name": "made by a client"})
        seen["scaffold"] = await served.call(
            "scaffold_fixture", {"name": "to fill in", "tool_names": ["get_ticket", "search_tickets"]}
        )
        seen["scaffold_traversal"] = await served.call(
            "scaffold_fixture", {"name": "a/b", "tool_names": ["x"]}
        )
        seen["regression"] = await served.call("regression_report")
        run_a = seen["run_case"][1]["run_id"]
        run_b = seen["suite"][1]["run_id"]
        seen["compare"] = await served.call("compare_results", {"run_id_a": run_a, "run_id_b": run_b})
        seen["html"] = await served.call("generate_html_report", {"run_id": run_b})
        seen["html_traversal"] = await served.call("generate_html_report", {"run_id": "../../etc/passwd"})
        seen["gate"] = await served.call("evaluate_deployment_gate", {"min_pass_rate": 0.5})
        seen["gate_other"] = await served.call(
            "evaluate_deployment_gate", {"min_pass_rate": 0.5, "workflow_name": "other"}
        )
        seen["gate_bad"] = await served.call("evaluate_deployment_gate", {"min_pass_rate": 1.5})
        seen["discover"] = await served.call("discover_fixtures")
        seen["discover_dirs"] = await served.call("discover_fixtures", {"dirs": [str(library)]})
        seen["validate"] = await served.call("validate_fixtures")
        seen["lint"] = await served.call("lint_catalog")
        seen["paid"] = await served.call("run_selection_eval", {"provider": "openai"})
        seen["lexical"] = await served.call("run_selection_eval", {"provider": "lexical", "limit": 2})
        return seen

    seen = with_served(config, library, use)
    assert set(seen["tools"]) == TOOLS
    assert seen["tools"]["list_cases"].annotations.read_only_hint is True
    names = {case["name"] for case in seen["list_cases"][1]["cases"]}
    assert names == {"ticket", "simulated"}

    error, ran = seen["run_case"]
    assert not error and ran["passed"] == 1 and ran["cases"][0]["mode"] == "live"
    assert seen["unknown_case"][0] and "no case named 'nope'" in seen["unknown_case"][1]
    error, suite = seen["suite"]
    assert not error and sorted(case["name"] for case in suite["cases"]) == [
        "simulated",
        "ticket",
    ]  # each once

    error, message = seen["traversal"]
    assert error and "could reach outside the cases folder" in message
    assert not list(outside.glob("escaped*")) and not list(project.root.rglob("escaped*"))
    error, created = seen["created"]
    assert not error and Path(created["path"]) == project.cases_dir / "made-by-a-client.yaml"
    written = yaml.safe_load(Path(created["path"]).read_text())
    assert written["simulate"] is True and written["description"] == "d"
    assert seen["run_created"][1]["cases"][0]["mode"] == "simulation" and seen["run_created"][1]["ok"]

    error, scaffold = seen["scaffold"]
    text = Path(scaffold["path"]).read_text()
    assert (
        not error and 'tool: "search_tickets"' in text and "# structured_matches_output_schema: true" in text
    )
    assert '      ticket_id: "<fill in: string>"' in text and '      query: "<fill in: string>"' in text
    assert seen["scaffold_traversal"][0]

    assert seen["regression"][1]["comparison"]["run_id"] == seen["run_created"][1]["run_id"]  # the latest
    compare = seen["compare"][1]["comparison"]
    assert compare["compared_with"] == [ran["run_id"]] and compare["new"] == ["simulated"]
    error, html = seen["html"]
    assert (
        not error
        and Path(html["path"]) == project.root / ".mcp-evals" / "reports" / f"{suite['run_id']}.html"
    )
    assert Path(html["path"]).read_text().startswith("<!DOCTYPE html>")
    assert seen["html_traversal"][0] and "no run '../../etc/passwd'" in seen["html_traversal"][1]

    gate = seen["gate"][1]
    assert gate["ok"] is True and gate["runs_judged"] == 3 and gate["suite"] == "served"
    assert seen["gate_other"][1]["ok"] is False and "nothing to judge" in seen["gate_other"][1]["message"]
    assert seen["gate_bad"][0]  # min_pass_rate is 0–1

    discovered = {case["name"] for case in seen["discover"][1]["cases"]}
    assert {"ticket", "from the library"} <= discovered
    assert [case["name"] for case in seen["discover_dirs"][1]["cases"]] == ["from the library"]

    validation = seen["validate"][1]
    assert validation["ok"] is True and validation["errors"] == 0
    error, linted = seen["lint"]
    assert not error and linted["grade"] in "ABCDF" and isinstance(linted["failed"], bool)
    assert "22 tools" in linted["report"]
    cli = run_cli("lint", "--config", config, cwd=config.parent)  # where serve ran
    assert linted["report"] == cli.stdout.rstrip("\n")  # the CLI's report, config lines and all
    assert re.search(r"^mcp-evals\.yaml:\d+: \w+ \[", linted["report"], re.MULTILINE)
    error, message = seen["paid"]
    assert error and "the openai provider spends money: give budget_usd" in message
    error, lexical = seen["lexical"]
    assert not error and lexical["exit_code"] == 0, lexical["output"]
    assert Path(lexical["results"]).parent == project.root / ".mcp-evals" / "runs"
    assert len(History(project.root / ".mcp-evals" / "history.db").summaries(limit=10)) == 3


@pytest.fixture
def served_http(project: Project) -> Iterator[str]:
    config = helpdesk_project(project)
    port = free_port()
    argv = [sys.executable, "-m", "mcp_evals", "serve", "--config", str(config), "--http-port", str(port)]
    with serve_http(argv, port, env={"MCP_EVALS_SERVE_TOKEN": "serve-token-5b1e"}) as base:
        yield f"{base}/mcp"


def test_over_streamable_http_with_a_token(project: Project, served_http: str, tmp_path: Path) -> None:
    async def use(session: ServerSession) -> Any:
        listed = await session.call_tool("list_cases", {}, timeout=30)
        ran = await session.call_tool("run_case", {"name": "ticket"}, timeout=60)
        return {tool["name"] for tool in session.info.tools}, listed, ran

    for headers in ({"Authorization": "Bearer serve-token-5b1e"}, {"X-API-Key": "serve-token-5b1e"}):
        config = write_config(
            tmp_path, [{"name": "served", "url": served_http, "headers": headers, "timeout": 30}]
        )

        async def main(config: Any = config) -> Any:
            async with open_session(config.servers[0], config) as session:
                return await use(session)

        tools, listed, ran = anyio.run(main)
        assert tools == TOOLS
        assert {case["name"] for case in listed.structured_content["cases"]} == {"ticket", "simulated"}
        assert ran.structured_content["ok"] is True

    refused = write_config(tmp_path, [{"name": "served", "url": served_http, "timeout": 30}])

    async def without_token() -> None:
        async with open_session(refused.servers[0], refused):
            pass

    with pytest.raises(ServerError, match="HTTP 401 Unauthorized"):
        anyio.run(without_token)


def test_binding_beyond_loopback_needs_a_token(project: Project, run_cli: Any) -> None:
    config = helpdesk_project(project)
    result = run_cli("serve", "--config", config, "--http-port", str(free_port()), "--host", "0.0.0.0")
    assert result.returncode == 3
    assert result.stderr.startswith(
        "error: --host 0.0.0.0 is reachable beyond this machine: set MCP_EVALS_SERVE_TOKEN"
    )
    assert json.dumps(result.stderr)  # one message, no traceback
    assert "Traceback" not in result.stderr
