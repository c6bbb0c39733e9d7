"""`mcp-evals contract fuzz`: refused arguments, each finding class, and which tools it may call.

A server that checks its arguments badly (sloppy_server.py) shows every kind of finding; npm's
server-memory and server-filesystem, run read-only, refuse what they should and their stores are
left as they were.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcp_evals.contract.fuzz import HUGE, callable_tool, probes
from support.catalog_helpers import PYTHON, node_server
from support.validate_helpers import listing, run_main

SLOPPY = Path(__file__).resolve().parent / "sloppy_server.py"


def write_config(folder: Path, servers: list[dict[str, Any]]) -> Path:
    path = folder / "mcp-evals.yaml"
    path.write_text(yaml.safe_dump({"servers": servers}), "utf-8")
    return path


def fuzz(capsys: pytest.CaptureFixture[str], config: Path, *args: str) -> Any:
    return run_main(capsys, "contract", "fuzz", "--config", str(config), *args)


def test_each_kind_of_finding_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = tmp_path / "calls.jsonl"
    config = write_config(
        tmp_path, [{"name": "sloppy", "command": PYTHON, "args": [str(SLOPPY), str(calls)]}]
    )
    ran = fuzz(capsys, config, "--timeout", "1500", "--format", "json")
    assert ran.code == 1, ran.err
    [report] = json.loads(ran.out)["servers"]
    found = {(item["tool"], item["what"]): item["outcome"] for item in report["findings"]}
    assert found[("lookup", "without the required `id`")] == "accepted"
    assert found[("lookup", "`id` of the wrong type (int)")] == "accepted"
    assert found[("crashy", "`n` null")] == "crashed"
    assert found[("sleepy", "`text` a 1 MiB string")] == "hung"
    assert found[("strict", "`q` not one of its values")] == "other-error"
    assert found[("strict", "an argument it does not declare")] == "other-error"
    assert not any(tool == "fine" for tool, _ in found)  # isError for each refused call: as it should be
    outcomes = {(item["tool"], item["what"]): item["outcome"] for item in report["calls"]}
    assert outcomes[("fine", "`flag` null")] == "rejected"
    assert outcomes[("crashy", "`n` of the wrong type (str)")] == "rejected"  # after the crash: a new server
    assert report["restarts"] == 2  # the crash and the hang
    assert {item["tool"]: item["why"] for item in report["skipped"]} == {
        "wipe": "annotated destructive: --include-destructive calls it",
        "note": "not annotated read-only or idempotent, it may write: --include-writes calls it",
    }
    assert not calls.exists()  # neither the destructive nor the unannotated tool was called

    console = fuzz(capsys, config, "--timeout", "1500", "--tool", "lookup", "--tool", "fine")
    assert console.code == 1
    assert "FINDING  lookup: `id` null — accepted: a result without isError: found" in console.out
    assert "refused as they should be: 3 calls" in console.out


def test_writes_and_destructive_tools_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = tmp_path / "calls.jsonl"
    config = write_config(
        tmp_path, [{"name": "sloppy", "command": PYTHON, "args": [str(SLOPPY), str(calls)]}]
    )
    fuzz(capsys, config, "--tool", "note", "--tool", "wipe", "--include-writes")
    assert {json.loads(line)["tool"] for line in calls.read_text().splitlines()} == {"note"}
    calls.unlink()
    fuzz(capsys, config, "--tool", "wipe", "--include-destructive")
    assert {json.loads(line)["tool"] for line in calls.read_text().splitlines()} == {"wipe"}


def test_the_reference_servers_refuse_what_they_should_and_keep_their_stores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.txt").write_text("alpha\n")
    (root / "b.md").write_text("# bravo\n")
    store = tmp_path / "memory"
    store.mkdir()
    entity = {"type": "entity", "name": "Ada", "entityType": "person", "observations": ["wrote notes"]}
    (store / "memory.jsonl").write_text(json.dumps(entity) + "\n")
    config = write_config(
        tmp_path,
        [
            {
                "name": "memory",
                "command": str(node_server("mcp-server-memory")),
                "env": {"MEMORY_FILE_PATH": str(store / "memory.jsonl")},
                "timeout": 60,
            },
            {
                "name": "files",
                "command": str(node_server("mcp-server-filesystem")),
                "args": [str(root)],
                "timeout": 60,
            },
        ],
    )
    before = {**listing(root), **{f"memory/{name}": data for name, data in listing(store).items()}}
    ran = fuzz(capsys, config, "--format", "json")
    assert ran.code == 0, ran.out + ran.err
    after = {**listing(root), **{f"memory/{name}": data for name, data in listing(store).items()}}
    assert after == before  # nothing written, nothing made, nothing moved
    reports = {report["server"]: report for report in json.loads(ran.out)["servers"]}
    memory, files = reports["memory"], reports["files"]
    assert {item["tool"] for item in memory["calls"]} == {"search_nodes", "open_nodes"}
    assert {item["tool"] for item in memory["skipped"]} >= {"create_entities", "delete_entities"}
    assert {item["tool"] for item in files["skipped"]} == {"write_file", "edit_file", "move_file"}
    assert "create_directory" in {
        item["tool"] for item in files["calls"]
    }  # idempotent: refused arguments only
    assert not any(
        item["what"].endswith("1 MiB string") for item in files["calls"] if item["tool"] == "create_directory"
    )
    assert all(
        item["outcome"] in ("rejected", "answered") for report in reports.values() for item in report["calls"]
    )
    assert sum(item["outcome"] == "rejected" for item in files["calls"]) >= 20


def test_probes_break_one_thing_and_keep_the_rest_valid() -> None:
    tool = {
        "name": "search",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 3},
                "limit": {"type": "integer", "minimum": 5},
                "mode": {"type": "string", "enum": ["fast", "deep"]},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}},
            },
            "required": ["query", "limit"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True},
    }
    made = {probe.what: (probe.arguments, probe.must_refuse) for probe in probes(tool, refused_only=False)}
    assert made["without the required `query`"] == ({"limit": 6}, True)
    assert made["`limit` of the wrong type (str)"] == ({"query": "fuzz", "limit": "not a number"}, True)
    assert made["`mode` not one of its values"][0]["mode"] == "fuzz-not-one-of-them"
    assert "`tags` null" not in made  # null is one of its types
    assert (
        made["`query` a 1 MiB string"][0]["query"] == "x" * HUGE
        and made["`query` a 1 MiB string"][1] is False
    )
    assert made["an argument it does not declare"][0] == {
        "query": "fuzz",
        "limit": 6,
        "fuzz_unknown_argument": 1,
    }
    refused_only = [probe.what for probe in probes(tool, refused_only=True)]
    assert "`query` a 1 MiB string" not in refused_only


@pytest.mark.parametrize(
    ("notes", "reach", "allowed"),
    [
        ({"readOnlyHint": True}, "read-only", True),
        ({"idempotentHint": True, "destructiveHint": False}, "read-only", True),
        ({"idempotentHint": True, "destructiveHint": True}, "read-only", False),
        ({"idempotentHint": True, "destructiveHint": True}, "writes", False),
        ({}, "read-only", False),
        ({}, "writes", True),
        ({"destructiveHint": True}, "destructive", True),
    ],
)
def test_which_tools_it_may_call(notes: dict[str, Any], reach: Any, allowed: bool) -> None:
    assert callable_tool({"name": "t", "annotations": notes}, reach)[0] is allowed
    task = {"name": "t", "annotations": notes, "execution": {"taskSupport": "required"}}
    assert callable_tool(task, "destructive")[0] is False
