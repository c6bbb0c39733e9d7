"""`catalog diff`: what changed between two snapshots, and an exit code that can guard a pull request."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import RunCli
from mcp_evals.catalog.diff import diff_catalogs
from mcp_evals.catalog.model import build_catalog
from mcp_evals.catalog.snapshot import write_snapshot
from support.catalog_helpers import server, wire_tool


def catalog_of(*tools: dict[str, Any]) -> Any:
    return build_catalog([server("helpdesk", *tools)])


BEFORE = catalog_of(
    wire_tool("search_tickets", "Search tickets by text.", query="string"),
    wire_tool("get_ticket", "Get one ticket.", ticket_id="string"),
    wire_tool("issue_refund", "Refund an invoice.", invoice_id="string", amount="number"),
    wire_tool("list_agents", "List the support agents.", team="string"),
    wire_tool("ping", "Check the server is up."),
)
AFTER = catalog_of(
    # renamed, same schema, same description
    wire_tool("find_tickets", "Search tickets by text.", query="string"),
    # description changed
    wire_tool("get_ticket", "Get one ticket with its comments.", ticket_id="string"),
    # schema changed: a new required parameter
    {
        "name": "issue_refund",
        "description": "Refund an invoice.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "invoice_id": {"type": "string"},
                "amount": {"type": "integer"},
                "reason": {"type": "string"},
            },
            "required": ["invoice_id", "reason"],
        },
    },
    # list_agents removed; a new tool with an unrelated schema added
    wire_tool("merge_tickets", "Merge two tickets.", source="string", target="string"),
    # a no-parameter tool with an unrelated description is not a rename of `ping`
    wire_tool("health", "Report database replication lag."),
    wire_tool("ping", "Check the server is up."),
)


def test_diff_names_every_kind_of_change() -> None:
    diff = diff_catalogs(BEFORE, AFTER)
    assert diff.changed
    assert [(pair.old, pair.new, pair.description_changed) for pair in diff.renamed] == [
        ("search_tickets", "find_tickets", False)
    ]
    assert diff.removed == ["list_agents"]
    assert diff.added == ["health", "merge_tickets"]
    assert [(change.name, change.old, change.new) for change in diff.description_changed] == [
        ("get_ticket", "Get one ticket.", "Get one ticket with its comments.")
    ]
    [schema] = diff.schema_changed
    assert schema.name == "issue_refund"
    assert schema.added_parameters == ["reason"]
    assert schema.changed_parameters == ["amount"]
    assert schema.now_required == ["reason"]
    assert schema.summary() == (
        "added parameter: `reason`; changed parameter: `amount`; now required: `reason`"
    )
    assert diff.change_count == 6


def test_a_rename_prefers_the_most_similar_description() -> None:
    before = catalog_of(wire_tool("get_user", "Fetch a user profile by id.", id="string"))
    after = catalog_of(
        wire_tool("get_order", "Fetch an order by id.", id="string"),
        wire_tool("fetch_user", "Fetch a user profile by its id.", id="string"),
    )
    diff = diff_catalogs(before, after)
    assert [(pair.old, pair.new) for pair in diff.renamed] == [("get_user", "fetch_user")]
    assert diff.renamed[0].description_changed
    assert diff.added == ["get_order"]


def test_a_rename_ignores_the_schema_title_python_sdks_derive_from_the_function() -> None:
    before = wire_tool("get_user", "Fetch a user.", id="string")
    after = wire_tool("fetch_user", "Fetch a user.", id="string")
    before["inputSchema"]["title"] = "get_userArguments"
    after["inputSchema"]["title"] = "fetch_userArguments"
    diff = diff_catalogs(catalog_of(before), catalog_of(after))
    assert [(pair.old, pair.new) for pair in diff.renamed] == [("get_user", "fetch_user")]


def test_no_parameter_tools_with_similar_descriptions_are_renames() -> None:
    diff = diff_catalogs(
        catalog_of(wire_tool("ping", "Check the server is up.")),
        catalog_of(wire_tool("health_check", "Check the server is up.")),
    )
    assert [(pair.old, pair.new) for pair in diff.renamed] == [("ping", "health_check")]


def test_identical_catalogs_have_no_changes_and_the_same_hash() -> None:
    diff = diff_catalogs(BEFORE, catalog_of(*reversed(BEFORE.servers[0].tools)))
    assert not diff.changed
    assert diff.old_hash == diff.new_hash


def test_title_annotations_and_output_schema_changes_are_reported() -> None:
    tool = wire_tool("get_ticket", "Get one ticket.", ticket_id="string")
    changed = {**tool, "title": "Get ticket", "annotations": {"readOnlyHint": True}}
    diff = diff_catalogs(catalog_of(tool), catalog_of(changed))
    assert [(change.name, change.fields) for change in diff.other_changed] == [
        ("get_ticket", ["title", "annotations"])
    ]


def snapshots(tmp_path: Path) -> tuple[Path, Path]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    write_snapshot(BEFORE, old)
    write_snapshot(AFTER, new)
    return old, new


def test_catalog_diff_prints_the_changes_and_exits_1(tmp_path: Path, run_cli: RunCli) -> None:
    old, new = snapshots(tmp_path)
    result = run_cli("catalog", "diff", old, new)
    assert result.returncode == 1, result.stderr
    out = result.stdout
    assert out.startswith(
        f"{old} (5 tools, hash {BEFORE.hash[:12]}) -> {new} (6 tools, hash {AFTER.hash[:12]})"
    )
    assert (
        "\n\nbreaking (4):\n"
        "  - `search_tickets` → `find_tickets`: tool renamed "
        "(probably: same input schema, same description)\n"
        "  - `issue_refund`: parameter `amount`: type narrowed: `number` → `integer`\n"
        "  - `issue_refund`: required parameter `reason` added\n"
        "  - `list_agents`: tool removed\n"
        "\n"
        "selection-affecting (3): re-run the model eval\n"
        "  - `get_ticket`: description changed\n"
        "      was: Get one ticket.\n"
        "      now: Get one ticket with its comments.\n"
        "  - `health`: tool added\n"
        "  - `merge_tickets`: tool added\n"
        "\n"
        "compatible (0)\n"
        "\n"
        "7 changes: 4 breaking, 3 selection-affecting, 0 compatible\n"
    ) in out


def test_catalog_diff_of_identical_snapshots_exits_0(tmp_path: Path, run_cli: RunCli) -> None:
    old, _ = snapshots(tmp_path)
    result = run_cli("catalog", "diff", old, old)
    assert result.returncode == 0, result.stderr
    assert "no changes: the catalogs are identical" in result.stdout


def test_catalog_diff_as_json(tmp_path: Path, run_cli: RunCli) -> None:
    old, new = snapshots(tmp_path)
    result = run_cli("catalog", "diff", "--format", "json", old, new)
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["removed"] == ["list_agents"]
    assert document["renamed"][0]["new"] == "find_tickets"
    assert [(item["classification"], item["kind"], item["tool"]) for item in document["changes"]][:2] == [
        ("breaking", "tool_renamed", "find_tickets"),
        ("breaking", "type_narrowed", "issue_refund"),
    ]
    assert document["changes"][0]["before"] == "search_tickets"


def test_catalog_diff_of_a_bad_file_exits_3(tmp_path: Path, run_cli: RunCli) -> None:
    old, _ = snapshots(tmp_path)
    (tmp_path / "notes.json").write_text('{"hello": 1}', "utf-8")
    for args, message in [
        ((old, tmp_path / "missing.json"), "missing.json: file not found"),
        ((tmp_path / "notes.json", old), "not a catalog snapshot"),
        ((old,), "Missing argument"),
    ]:
        result = run_cli("catalog", "diff", *args)
        assert result.returncode == 3, (args, result.stdout, result.stderr)
        assert message in result.stderr
        assert "Traceback" not in result.stderr


def test_untrusted_text_cannot_drive_the_terminal(tmp_path: Path, run_cli: RunCli) -> None:
    hostile = "Get one ticket.\x1b]0;pwned\x07\x1b[2J"
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    write_snapshot(catalog_of(wire_tool("get_ticket", "Get one ticket.")), old)
    write_snapshot(catalog_of(wire_tool("get_ticket", hostile)), new)
    result = run_cli("catalog", "diff", old, new)
    assert result.returncode == 1
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
