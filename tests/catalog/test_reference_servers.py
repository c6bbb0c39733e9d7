"""Catalogs of real servers nobody here wrote (npm and PyPI reference servers) and of the bundled example.

Each extracted catalog must equal what the server publishes, as listed independently by the MCP SDK's
own client over its own stdio transport and the classic ``initialize`` handshake.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from conftest import EXAMPLES, HELPDESK, RunCli, one_worker
from mcp_evals import Catalog, extract_catalog, load_catalog, load_config
from support.catalog_helpers import (
    HELPDESK_SERVER,
    PYTHON,
    independent_listing,
    model_view,
    node_server,
    write_config,
)

# the module-scoped servers: started once, on one worker
pytestmark = one_worker(__name__)

# name -> (command, args); the filesystem server gets a folder of its own at run time.
REFERENCE = {
    "memory": ("mcp-server-memory", []),
    "everything": ("mcp-server-everything", ["stdio"]),
    "filesystem": ("mcp-server-filesystem", ["{folder}"]),
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("filesystem-root")


def reference_command(name: str, folder: Path) -> tuple[str, list[str]]:
    if name == "time":
        return PYTHON, ["-m", "mcp_server_time"]
    if name == "helpdesk":
        return PYTHON, [str(HELPDESK_SERVER)]
    package_bin, args = REFERENCE[name]
    return str(node_server(package_bin)), [arg.format(folder=folder) for arg in args]


SERVERS = ["memory", "everything", "filesystem", "time", "helpdesk"]


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Catalog:
    """One config with every reference server, read at once (prefixed, as some share tool names)."""
    servers = []
    for name in SERVERS:
        command, args = reference_command(name, folder)
        servers.append({"name": name, "command": command, "args": args, "prefix": True, "timeout": 60})
    return extract_catalog(write_config(tmp_path_factory.mktemp("reference"), servers))


@pytest.mark.parametrize("name", SERVERS)
def test_the_catalog_equals_what_the_server_publishes(catalog: Catalog, folder: Path, name: str) -> None:
    command, args = reference_command(name, folder)
    reference = independent_listing(command, args)
    [info] = [info for info in catalog.servers if info.name == name]
    assert (info.server_name, info.server_version) == (reference["name"], reference["version"])
    assert info.protocol_version
    # Names, descriptions, schemas, annotations: tool by tool, in the server's order.
    assert [model_view(tool) for tool in info.tools] == [model_view(tool) for tool in reference["tools"]]
    ours = [tool for tool in catalog.tools if tool.server == name]
    assert [tool.wire_name for tool in ours] == [tool["name"] for tool in reference["tools"]]
    for tool, published in zip(ours, reference["tools"], strict=True):
        assert tool.name == f"{name}__{published['name']}"
        assert tool.description == (published.get("description") or "")
        assert tool.input_schema == published["inputSchema"]
        assert tool.output_schema == published.get("outputSchema")
    assert len(ours) >= 2


def test_reference_servers_negotiate_the_version_they_speak(catalog: Catalog) -> None:
    versions = {info.name: info.protocol_version for info in catalog.servers}
    # npm servers on the 1.x TypeScript SDK speak the initialize handshake (2025 versions);
    # Python servers on mcp 2.x answer the 2026 discovery.
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", version or "") for version in versions.values())
    assert versions["memory"] is not None and versions["memory"] < "2026"
    assert versions["helpdesk"] is not None and versions["helpdesk"] >= "2026"


def test_the_example_catalog_round_trips_through_the_cli(tmp_path: Path, run_cli: RunCli) -> None:
    snapshot = tmp_path / "helpdesk.json"
    result = run_cli("catalog", "--config", HELPDESK / "mcp-evals.yaml", "--out", snapshot)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    info = json.loads(snapshot.read_text("utf-8"))["servers"][0]
    # The summary names the server, what it reports itself as, its version and the protocol.
    assert re.search(
        rf"helpdesk\s+{re.escape(info['server_name'])}\s+{re.escape(info['server_version'])}\s+"
        rf"{re.escape(info['protocol_version'])}\s+stdio\s+{len(info['tools'])}",
        out,
    ), out
    assert "search_tickets" in out and "tickets" in out
    assert f"snapshot written to {snapshot}" in out

    live = load_catalog(snapshot)
    assert f"catalog hash {live.hash[:16]}" in out
    # A config server with `snapshot:` gives the same catalog, and so does a fresh live read.
    from_snapshot = extract_catalog(write_config(tmp_path, [{"name": "helpdesk", "snapshot": str(snapshot)}]))
    assert from_snapshot.hash == live.hash
    assert from_snapshot.tool_names == live.tool_names
    again = run_cli("catalog", "--config", HELPDESK / "mcp-evals.yaml", "--out", tmp_path / "again.json")
    assert again.returncode == 0
    assert load_catalog(tmp_path / "again.json").hash == live.hash
    same = run_cli("catalog", "diff", snapshot, tmp_path / "again.json")
    assert same.returncode == 0, same.stdout


def test_renaming_a_tool_in_the_example_shows_as_a_rename(tmp_path: Path, run_cli: RunCli) -> None:
    source = HELPDESK_SERVER.read_text("utf-8")
    match = re.search(r"@tool\([^)]*\)\ndef (\w+)\(", source)
    assert match, "the example registers its tools with @tool(...)"
    old_name = match.group(1)
    copy = tmp_path / "server.py"
    copy.write_text(source.replace(f"def {old_name}(", f"def {old_name}_v2(", 1), "utf-8")
    shutil.copy(HELPDESK / "mcp-evals.yaml", tmp_path / "mcp-evals.yaml")
    old_snapshot, new_snapshot = tmp_path / "old.json", tmp_path / "new.json"

    assert run_cli("catalog", "--config", HELPDESK / "mcp-evals.yaml", "--out", old_snapshot).returncode == 0
    renamed = run_cli("catalog", "--config", tmp_path / "mcp-evals.yaml", "--out", new_snapshot)
    assert renamed.returncode == 0, renamed.stderr
    result = run_cli("catalog", "diff", old_snapshot, new_snapshot)
    assert result.returncode == 1
    assert (
        f"breaking (1):\n  - `{old_name}` → `{old_name}_v2`: tool renamed "
        "(probably: same input schema, same description)\n"
    ) in result.stdout
    assert "1 change: 1 breaking, 0 selection-affecting, 0 compatible" in result.stdout


def test_the_typescript_example_equals_its_listing_and_passes_validate(run_cli: RunCli) -> None:
    folder = EXAMPLES / "notes-ts"
    entry = folder / "dist" / "index.js"
    if not entry.exists():
        pytest.skip(f"{entry} is missing: run `npm ci && npm run build` in {folder}")
    reference = independent_listing("node", [str(entry)], cwd=folder)
    result = run_cli("validate", "--format", "json", cwd=folder)
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["errors"] == 0 and report["warnings"] == 0
    assert report["coverage"]["covered_tools"] == report["coverage"]["tools"] == len(reference["tools"])
    catalog = extract_catalog(load_config(folder / "mcp-evals.yaml"))
    published = [model_view(tool) for tool in reference["tools"]]
    assert [model_view(tool) for tool in catalog.servers[0].tools] == published
    assert catalog.hash == report["catalog_hash"]


# -- the catalog lock against a real server whose tool set depends on the client ------------------------

# server-everything lists these only to a client that declares roots, sampling and elicitation.
CAPABILITY_TOOLS = {"get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"}


def everything_project(folder: Path, *, capable: bool) -> Path:
    """server-everything behind a config whose `client:` declares every capability, or none."""
    folder.mkdir(exist_ok=True)
    server = {"name": "everything", "command": str(node_server("mcp-server-everything")), "args": ["stdio"]}
    (folder / "fixtures.yaml").write_text(
        "- {id: echo-hello, query: 'Say hello back to me', expected_tool: echo}\n"
        "- {id: sum, query: 'What is 2 plus 3?', expected_tool: get-sum,\n"
        "   forbidden_tools: [trigger-sampling-request]}\n"
        "- {id: sample, query: 'Ask the model for a haiku', expected_tool: trigger-sampling-request}\n"
        "- {id: refuse-flight, query: 'Book me a flight to Lisbon', kind: refuse}\n",
        "utf-8",
    )
    write_config(
        folder,
        [{**server, "timeout": 60}],
        fixtures="fixtures.yaml",
        catalog={"lock": "evals/catalog.lock.json"},
        client={"capabilities": ["roots", "sampling", "elicitation"] if capable else []},
    )
    return folder / "mcp-evals.yaml"


def test_a_config_change_that_hides_server_everything_tools_is_breaking_against_the_lock(
    tmp_path: Path, run_cli: RunCli
) -> None:
    capable = everything_project(tmp_path / "project", capable=True)
    locked = run_cli("catalog", "--config", capable, "--update-lock")
    assert locked.returncode == 0, locked.stderr
    lock = tmp_path / "project" / "evals" / "catalog.lock.json"
    before = {tool["name"] for tool in json.loads(lock.read_text("utf-8"))["servers"][0]["tools"]}
    assert before >= CAPABILITY_TOOLS
    assert "catalog matches the lock" in run_cli("validate", "--config", capable).stdout

    # The config change: the same server, read by a client that declares nothing, hides tools.
    bare = everything_project(tmp_path / "project", capable=False)
    result = run_cli("validate", "--config", bare, "--format", "json")
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    check = document["lock"]
    hidden = {item["tool"] for item in check["changes"]}
    assert hidden >= CAPABILITY_TOOLS
    assert [(item["classification"], item["kind"]) for item in check["changes"]] == [
        ("breaking", "tool_removed")
    ] * len(hidden)
    assert check["counts"] == {"breaking": len(hidden), "selection": 0, "compatible": 0}
    assert check["lock_tool_count"] - check["tool_count"] == len(hidden)
    # the fixture that expected a hidden tool no longer validates, the one that forbids it warns
    rules = {(problem["rule"], problem["fixture_id"]) for problem in document["problems"]}
    assert ("unknown-tool", "sample") in rules and ("unknown-forbidden-tool", "sum") in rules

    text = run_cli("validate", "--config", bare)
    assert f"  breaking ({len(hidden)}):\n" in text.stdout
    assert "    - `trigger-sampling-request`: tool removed\n" in text.stdout
    assert "fix: mcp-evals catalog --update-lock, then commit evals/catalog.lock.json" in text.stdout

    markdown = run_cli("validate", "--config", bare, "--format", "md").stdout
    rendered = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert "<h3>Tool surface</h3>" in rendered
    assert rendered.count("tool removed</li>") == len(hidden)

    # Updating the lock takes the smaller catalog; the capable config now differs the other way.
    assert run_cli("catalog", "--config", bare, "--update-lock").returncode == 0
    assert "catalog matches the lock" in run_cli("validate", "--config", bare).stdout
    capable = everything_project(tmp_path / "project", capable=True)  # the config change, undone
    again = json.loads(run_cli("validate", "--config", capable, "--format", "json").stdout)["lock"]
    assert {item["tool"] for item in again["changes"]} == hidden
    assert {(item["classification"], item["kind"]) for item in again["changes"]} == {
        ("selection", "tool_added")
    }
