"""`mcp-evals init`: from a live server to a config and fixture stubs that validate fails on until written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import HELPDESK, RunCli
from mcp_evals.catalog.model import Catalog
from mcp_evals.fixtures.scaffold import propose_areas, stubs_text, subject
from support.catalog_helpers import PYTHON, free_port, node_server, serve_http
from support.records import catalog, tool


@pytest.fixture
def server_folder(tmp_path: Path) -> Path:
    """A folder holding only a server, as a user's project would before mcp-evals."""
    shutil.copy(HELPDESK / "server.py", tmp_path / "server.py")
    return tmp_path


def test_init_writes_a_config_and_a_stub_per_tool_that_validate_fails_on(
    run_cli: RunCli, server_folder: Path
) -> None:
    done = run_cli("init", "--command", "python", "server.py", cwd=server_folder)
    assert done.returncode == 0, done.stderr
    config_text = (server_folder / "mcp-evals.yaml").read_text()
    assert config_text.startswith("# yaml-language-server: $schema=https://raw.githubusercontent.com/")
    config = yaml.safe_load(config_text)
    assert config["servers"] == [{"name": "helpdesk", "command": "python", "args": ["server.py"]}]
    assert config["areas"]["ticket"] == [
        "add_ticket_comment",
        "assign_ticket",
        "create_ticket",
        "get_ticket",
        "list_tickets",
        "merge_tickets",
        "search_tickets",
        "update_ticket_status",
    ]
    assert config["areas"]["helpdesk"] == [
        "apply_account_credit",
        "get_support_metrics",
        "issue_refund",
        "list_agents",
    ]
    assert config["fixtures"] == "evals/*.yaml"
    stubs = {path.name: path.read_text() for path in (server_folder / "evals").glob("*.yaml")}
    assert sum(text.count('query: ""') for text in stubs.values()) == 22
    ticket = stubs["ticket.yaml"]
    assert "  # required parameters: ticket_id (string), agent_id (string) — give a concrete value" in ticket
    assert "wrote mcp-evals.yaml" in done.stderr and "22 fixture stubs for 22 tools" in done.stderr

    validated = run_cli("validate", cwd=server_folder)
    assert validated.returncode == 1
    problems = [line for line in validated.stdout.splitlines() if "[not-written-yet]" in line]
    assert len(problems) == 22
    line = next(p for p in problems if "'assign-ticket'" in p)
    number = int(re.match(r"evals/ticket\.yaml:(\d+):", line).group(1))  # type: ignore[union-attr]
    assert ticket.splitlines()[number - 1] == '    query: ""'  # the line to edit

    for path in (server_folder / "evals").glob("*.yaml"):
        text = path.read_text()
        for index in range(text.count('query: ""')):
            text = text.replace('query: ""', f'query: "question {path.stem} {index}"', 1)
        path.write_text(text)
    assert run_cli("validate", cwd=server_folder).returncode == 0


def test_init_never_overwrites_a_file(run_cli: RunCli, server_folder: Path) -> None:
    assert run_cli("init", "--command", "python", "server.py", cwd=server_folder).returncode == 0
    (server_folder / "evals" / "ticket.yaml").write_text("# mine\nfixtures: []\n")
    before = {path: path.read_bytes() for path in server_folder.rglob("*.yaml")}
    again = run_cli("init", "--command", "python", "server.py", cwd=server_folder)
    assert again.returncode == 0 and "kept mcp-evals.yaml: it exists" in again.stderr
    assert {path: path.read_bytes() for path in server_folder.rglob("*.yaml")} == before
    # from the existing config: only the files that are missing, only tools no fixture covers
    (server_folder / "evals" / "article.yaml").unlink()
    from_config = run_cli("init", cwd=server_folder)
    assert from_config.returncode == 0, from_config.stderr
    assert "wrote evals/article.yaml" in from_config.stderr and "kept evals/ticket.yaml" in from_config.stderr
    assert (server_folder / "evals" / "ticket.yaml").read_text() == "# mine\nfixtures: []\n"


def test_init_with_nothing_left_to_stub_gives_no_next_step(run_cli: RunCli, server_folder: Path) -> None:
    assert run_cli("init", "--command", "python", "server.py", cwd=server_folder).returncode == 0
    again = run_cli("init", cwd=server_folder)
    assert again.returncode == 0, again.stderr
    assert "no fixture stub written: every tool has a fixture" in again.stderr
    assert "0 fixture stubs" not in again.stderr and "next:" not in again.stderr


def test_init_from_an_existing_config_without_fixtures(run_cli: RunCli, server_folder: Path) -> None:
    (server_folder / "mcp-evals.yaml").write_text(
        "servers:\n  - {name: desk, command: python, args: [server.py]}\nareas:\n  tickets: ['*ticket*']\n"
    )
    done = run_cli("init", cwd=server_folder)
    assert done.returncode == 0, done.stderr
    assert "add `fixtures: evals/*.yaml`" in done.stderr
    assert (server_folder / "evals" / "tickets.yaml").read_text().count('query: ""') == 8
    assert (server_folder / "evals" / "desk.yaml").read_text().count('query: ""') == 14


def test_init_reads_a_server_over_http(run_cli: RunCli, tmp_path: Path) -> None:
    port = free_port()
    with serve_http(
        [PYTHON, HELPDESK / "server.py", "--http", "--host", "127.0.0.1", "--port", str(port)], port
    ) as base:
        done = run_cli("init", "--url", f"{base}/mcp", "--name", "desk", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert config["servers"] == [{"name": "desk", "url": f"{base}/mcp"}]


def test_init_on_a_reference_server_and_bad_usage(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("init", "--command", PYTHON, "-m", "mcp_server_time", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert (
        config["servers"][0]["args"] == ["-m", "mcp_server_time"]
        and config["servers"][0]["name"] == "mcp-time"
    )
    both = run_cli("init", "--command", "x", "--url", "http://127.0.0.1:9/mcp", cwd=tmp_path / "evals")
    assert both.returncode == 3 and "give --command or --url, not both" in both.stderr
    missing = run_cli("init", "--config", "nothing.yaml", cwd=tmp_path)
    assert missing.returncode == 3 and "no config to read a server from" in missing.stderr
    assert "mcp-evals init --command CMD" in missing.stderr


def test_areas_come_from_the_word_a_tool_name_is_about() -> None:
    names = {
        "get_ticket": "ticket",
        "search_tickets": "ticket",
        "tickets.search": "ticket",
        "list_open_tickets": "ticket",
        "get_archived_tickets": "ticket",
        "readGraph": "graph",
        "issue_refund": "refund",  # a leading verb that can be a noun, before a noun
        "issue_read": "issue",  # ... and before a verb
        "get_record": "record",  # the last word is what a name is about, whatever it is
        "copy_file": "file",
        "get_block_children": "block",  # after a verb, a verb-or-noun is the noun
        "toggle-subscriber-updates": "subscriber",
        "trigger-sampling-request": "sampling",
        "gzip-file-as-resource": "file",
        "convert_to_pdf": "pdf",
        "get_feed": "feed",
        "weather": "weather",
        "run": None,
        "echo": None,
    }
    assert {name: subject(name) for name in names} == names
    tickets = (tool("get_ticket", "x"), tool("list_tickets", "x"))
    cat: Catalog = catalog(*tickets, tool("issue_refund", "x"), tool("list_agents", "x"))
    assert propose_areas(cat, "desk") == {
        "ticket": ["get_ticket", "list_tickets"],
        "desk": ["issue_refund", "list_agents"],
    }
    # one tool left over names its own area: an area named after the server would suggest a pool
    alone: Catalog = catalog(*tickets, tool("issue_refund", "x"))
    assert propose_areas(alone, "desk") == {
        "ticket": ["get_ticket", "list_tickets"],
        "refund": ["issue_refund"],
    }
    verbs_only: Catalog = catalog(*tickets, tool("echo", "x"))
    assert propose_areas(verbs_only, "desk") == {"ticket": ["get_ticket", "list_tickets"], "desk": ["echo"]}


@pytest.mark.parametrize(
    ("package_bin", "args", "name", "areas"),
    [
        (
            "mcp-server-memory",
            [],
            "memory-server",
            {
                "entity": ["create_entities", "delete_entities"],
                "node": ["open_nodes", "search_nodes"],
                "observation": ["add_observations", "delete_observations"],
                "relation": ["create_relations", "delete_relations"],
                "graph": ["read_graph"],
            },
        ),
        (
            "mcp-server-everything",
            ["stdio"],
            "everything",  # the server calls itself "mcp-servers/everything"
            {
                "resource": ["get-resource-links", "get-resource-reference"],
                "everything": [
                    "echo",
                    "get-annotated-message",
                    "get-env",
                    "get-roots-list",
                    "get-structured-content",
                    "get-sum",
                    "get-tiny-image",
                    "gzip-file-as-resource",
                    "simulate-research-query",
                    "toggle-simulated-logging",
                    "toggle-subscriber-updates",
                    "trigger-elicitation-request",
                    "trigger-long-running-operation",
                    "trigger-sampling-request",
                    "trigger-url-elicitation",
                ],
            },
        ),
    ],
)
def test_init_areas_on_reference_servers(
    run_cli: RunCli, tmp_path: Path, package_bin: str, args: list[str], name: str, areas: dict[str, list[str]]
) -> None:
    """No area is named after a verb ("toggle", "trigger") and none after the server for one tool."""
    done = run_cli("init", "--command", node_server(package_bin), *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load((tmp_path / "mcp-evals.yaml").read_text())
    assert config["servers"][0]["name"] == name
    assert config["areas"] == areas
    assert sorted(path.stem for path in (tmp_path / "evals").glob("*.yaml")) == sorted(areas)


def test_a_stub_keeps_server_text_on_one_comment_line() -> None:
    hostile = tool("t", "x", "Line one\nfixtures: [] \x1b[31m\u202e evil")
    text = stubs_text([hostile], "x")
    assert "\x1b" not in text and "\u202e" not in text
    assert yaml.safe_load(text) == {"fixtures": [{"id": "t", "query": "", "expected_tool": "t"}]}
