"""Resources, resource templates and prompts in the catalog: snapshots, locks and diffs.

Old snapshots and locks (written before they were recorded) still load and compare on tools alone;
the catalog hash is the tools' whatever else was recorded.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcp_evals.catalog.classify import describe
from mcp_evals.catalog.diff import diff_catalogs
from mcp_evals.catalog.lock import check_lock
from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import load_catalog, read_lock, write_lock, write_snapshot

TOOL = {"name": "get_weather", "description": "Weather for a city.", "inputSchema": {"type": "object"}}
PROMPT = {
    "name": "plan_trip",
    "description": "Plan a trip.",
    "arguments": [
        {"name": "city", "description": "Where to.", "required": True},
        {"name": "days", "description": "How long.", "required": False},
    ],
}
RESOURCE = {"uri": "weather://stations", "name": "stations", "mimeType": "application/json"}
TEMPLATE = {"uriTemplate": "weather://station/{id}", "name": "station", "mimeType": "application/json"}


def server(**extras: Any) -> ServerInfo:
    return ServerInfo(name="weather", transport="stdio", tools=[TOOL], **extras)


def recorded(
    prompts: list[dict[str, Any]] | None = None,
    resources: list[dict[str, Any]] | None = None,
    templates: list[dict[str, Any]] | None = None,
) -> ServerInfo:
    return server(
        capabilities={"tools": {}, "prompts": {}, "resources": {}},
        prompts=[PROMPT] if prompts is None else prompts,
        resources=[RESOURCE] if resources is None else resources,
        resource_templates=[TEMPLATE] if templates is None else templates,
    )


def test_the_hash_is_the_tools_whatever_else_was_recorded() -> None:
    plain, full = build_catalog([server()]), build_catalog([recorded()])
    assert plain.hash == full.hash
    assert [prompt.name for prompt in full.prompts] == ["plan_trip"]
    assert [(resource.uri, resource.template) for resource in full.resources] == [
        ("weather://stations", False),
        ("weather://station/{id}", True),
    ]
    assert [argument.required for argument in full.prompts[0].arguments] == [True, False]


def test_a_snapshot_keeps_them_and_an_old_one_without_them_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.json"
    write_snapshot(build_catalog([recorded()]), path)
    document = json.loads(path.read_text("utf-8"))
    assert document["servers"][0]["prompts"] == [PROMPT]
    assert load_catalog(path).servers[0].resource_templates == [TEMPLATE]
    for key in ("prompts", "resources", "resource_templates", "capabilities"):
        del document["servers"][0][key]
    path.write_text(json.dumps(document), "utf-8")
    old = load_catalog(path)
    assert old.servers[0].prompts is None and not old.servers[0].extras_recorded
    assert old.prompts == [] and old.hash == build_catalog([recorded()]).hash


def test_an_old_lock_matches_a_live_catalog_that_has_them(tmp_path: Path) -> None:
    lock = tmp_path / "catalog.lock.json"
    write_lock(build_catalog([server()]), lock)  # as written before they were recorded
    assert "prompts" not in json.loads(lock.read_text("utf-8"))["servers"][0]
    check = check_lock(build_catalog([recorded()]), read_lock(lock), str(lock))
    assert check.status == "matches"


def test_a_new_lock_records_them_sorted_and_fails_when_one_is_removed(tmp_path: Path) -> None:
    lock = tmp_path / "catalog.lock.json"
    second = {"uri": "weather://alerts", "name": "alerts"}
    write_lock(build_catalog([recorded(resources=[RESOURCE, second])]), lock)
    written = json.loads(lock.read_text("utf-8"))["servers"][0]
    assert [entry["uri"] for entry in written["resources"]] == ["weather://alerts", "weather://stations"]
    check = check_lock(build_catalog([recorded()]), read_lock(lock), str(lock))
    assert check.status == "differs" and check.hash == check.lock_hash
    [removed] = check.changes
    assert (removed.subject, removed.kind, removed.classification) == (
        "resource",
        "entry_removed",
        "breaking",
    )
    assert describe(removed) == "resource `weather://alerts`: removed"


def changes(before: ServerInfo, after: ServerInfo) -> list[tuple[str, str, str | None, str]]:
    diff = diff_catalogs(build_catalog([before]), build_catalog([after]))
    assert diff.changed == bool(diff.extras)
    return [(item.kind, item.tool, item.parameter, item.classification) for item in diff.extras]


def test_prompt_changes_are_classified_by_what_they_do_to_a_client() -> None:
    required_city_gone = {
        **PROMPT,
        "arguments": [{"name": "days", "required": True, "description": "How long."}],
    }
    assert changes(recorded(), recorded(prompts=[required_city_gone])) == [
        ("argument_removed", "plan_trip", "city", "breaking"),
        ("argument_now_required", "plan_trip", "days", "breaking"),
    ]
    more = {
        **PROMPT,
        "arguments": [*PROMPT["arguments"], {"name": "budget"}],
        "description": "Plan a journey.",
    }
    assert changes(recorded(), recorded(prompts=[more])) == [
        ("entry_changed", "plan_trip", None, "compatible"),
        ("optional_argument_added", "plan_trip", "budget", "compatible"),
    ]
    assert changes(recorded(), recorded(prompts=[])) == [("entry_removed", "plan_trip", None, "breaking")]
    assert changes(recorded(prompts=[]), recorded()) == [("entry_added", "plan_trip", None, "compatible")]


def test_resource_changes_a_mime_type_breaks_a_description_does_not() -> None:
    retyped = {**RESOURCE, "mimeType": "text/csv", "description": "Every station."}
    assert changes(recorded(), recorded(resources=[retyped])) == [
        ("mime_type_changed", "weather://stations", None, "breaking"),
        ("entry_changed", "weather://stations", None, "compatible"),
    ]
    diff = diff_catalogs(build_catalog([recorded()]), build_catalog([recorded(resources=[retyped])]))
    lines = [describe(item) for item in diff.extras]
    assert lines == [
        "resource `weather://stations`: MIME type changed: `application/json` → `text/csv`",
        "resource `weather://stations`: description changed",
    ]
    assert changes(recorded(), recorded(templates=[])) == [
        ("entry_removed", "weather://station/{id}", None, "breaking")
    ]


def test_a_list_one_side_did_not_record_is_not_compared() -> None:
    assert changes(server(), recorded()) == []
    assert changes(recorded(), server()) == []


def test_docs_catalog_md_table_of_extra_changes_is_what_the_diff_says() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "catalog.md").read_text("utf-8")
    section = docs.split("Resources, resource templates and prompts are compared too", 1)[1]
    rows = [line.split(" | ") for line in section.split("\n\n")[1].splitlines()[2:]]
    documented = {(row[0].strip("| "), row[2].strip("| ")) for row in rows}
    assert len(documented) == 7
    retyped = {**RESOURCE, "mimeType": "text/csv", "description": "Every station."}
    stricter = {**PROMPT, "arguments": [PROMPT["arguments"][1] | {"required": True}]}
    wider = {**PROMPT, "arguments": [*PROMPT["arguments"], {"name": "budget"}]}
    cases = [
        (recorded(), recorded(prompts=[])),
        (recorded(), recorded(prompts=[stricter])),
        (recorded(), recorded(resources=[retyped])),
        (recorded(prompts=[]), recorded()),
        (recorded(), recorded(prompts=[wider])),
    ]
    produced = {
        (item.classification, describe(item))
        for before, after in cases
        for item in diff_catalogs(build_catalog([before]), build_catalog([after])).extras
    }
    assert {line for _, line in documented} <= {line for _, line in produced}
    for label, line in documented:
        assert (label, line) in produced, line
