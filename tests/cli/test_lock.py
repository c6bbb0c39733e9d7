"""The catalog as a lockfile: `catalog --update-lock` writes it, `validate` compares the live catalog."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import HELPDESK, REPO_ROOT
from mcp_evals.catalog.lock import check_lock, rerun_command
from mcp_evals.catalog.model import ServerInfo, build_catalog
from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.fixtures.model import Fixture
from mcp_evals.fixtures.validate import fixtures_by_tool
from support.validate_helpers import listing, run_main

LOCK = "evals/catalog.lock.json"


@pytest.fixture
def project(tmp_path: Path, helpdesk_snapshot: Path) -> Path:
    """The helpdesk example reading its catalog from a copy of its snapshot we can change, with a lock."""
    folder = tmp_path / "helpdesk"
    shutil.copytree(HELPDESK / "fixtures", folder / "fixtures")
    shutil.copy(helpdesk_snapshot, folder / "server.json")
    example = yaml.safe_load((HELPDESK / "mcp-evals.yaml").read_text("utf-8"))
    example["servers"] = [{"name": "helpdesk", "snapshot": "server.json"}]
    example["catalog"] = {"lock": LOCK}
    (folder / "mcp-evals.yaml").write_text(yaml.safe_dump(example, sort_keys=False), "utf-8")
    return folder


def change_server(folder: Path, edit: Any) -> None:
    """Change the tools the 'server' publishes (its snapshot), as a pull request would."""
    path = folder / "server.json"
    document = json.loads(path.read_text("utf-8"))
    tools = {tool["name"]: tool for tool in document["servers"][0]["tools"]}
    edit(tools)
    document["servers"][0]["tools"] = list(tools.values())
    path.write_text(json.dumps(document), "utf-8")


def a_pull_request(tools: dict[str, Any]) -> None:
    search = tools["search_tickets"]
    search["description"] = "Full-text search over tickets, attachments included."
    search["inputSchema"]["properties"]["limit"]["maximum"] = 20  # was 50
    search["inputSchema"]["properties"]["status"]["anyOf"][0]["enum"].remove("on_hold")
    tools["list_tickets"]["inputSchema"]["properties"]["sort"] = {"type": "string", "enum": ["new", "old"]}


def test_update_lock_needs_a_lock_in_the_config(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    config.write_text(config.read_text("utf-8").replace("catalog:\n  lock: evals/catalog.lock.json\n", ""))
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "catalog", "--update-lock")
    assert outcome.code == 3
    assert outcome.err.startswith(
        "error: mcp-evals.yaml: --update-lock needs a lock file, and `catalog.lock` is not set\n"
        "  hint: add `catalog: {lock: evals/catalog.lock.json}` to the config"
    )
    assert "Traceback" not in outcome.err and not (project / "evals").exists()


def test_update_lock_writes_a_sorted_stable_readable_lock(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "catalog", "--update-lock")
    assert outcome.code == 0, outcome.err
    live = load_catalog(project / "server.json")
    assert outcome.out.splitlines()[-1] == (
        f"lock written to {LOCK} (22 tools, hash {live.hash[:12]}): commit it"
    )
    text = (project / LOCK).read_text("utf-8")
    document = json.loads(text)
    # Sorted keys, two-space indents, one trailing newline: the same bytes on every machine.
    assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    names = [tool["name"] for tool in document["servers"][0]["tools"]]
    assert names == sorted(names) and len(names) == 22
    # Only the surface: no versions, capabilities or instructions that change without it changing.
    surface = {"name", "transport", "prefix", "tools", "resources", "resource_templates", "prompts"}
    assert set(document["servers"][0]) == surface
    assert document["servers"][0]["prompts"] == [] and document["servers"][0]["resources"] == []
    assert document["hash"] == live.hash and document["format"] == "mcp-evals.catalog/1"
    assert load_catalog(project / LOCK).hash == live.hash  # the lock is a snapshot in the usual format

    again = run_main(capsys, "catalog", "--update-lock")
    assert again.out.splitlines()[-1] == f"lock unchanged: {LOCK} (22 tools, hash {live.hash[:12]})"
    assert (project / LOCK).read_text("utf-8") == text


def test_without_a_lock_validate_says_nothing_about_one(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    config.write_text(config.read_text("utf-8").replace("catalog:\n  lock: evals/catalog.lock.json\n", ""))
    monkeypatch.chdir(project)
    change_server(project, a_pull_request)  # tools change, but nothing is locked
    text = run_main(capsys, "validate")
    assert text.code == 0, text.out
    assert "lock" not in text.out
    assert "lock" not in json.loads(run_main(capsys, "validate", "--format", "json").out)
    assert "Tool surface" not in run_main(capsys, "validate", "--format", "md").out


def test_a_catalog_that_matches_its_lock_is_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.parent)  # the lock's path is relative to the config file
    assert run_main(capsys, "catalog", "--config", project / "mcp-evals.yaml", "--update-lock").code == 0
    assert (project / LOCK).is_file()
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 0, outcome.out
    digest = load_catalog(project / "server.json").hash[:12]
    lines = outcome.out.splitlines()
    assert lines[0] == f"catalog matches the lock (22 tools, hash {digest})"
    assert lines[1].startswith("ok: ") and lines[1].endswith(" · catalog matches the lock")
    assert len(lines) == 2
    document = json.loads(run_main(capsys, "validate", "--format", "json").out)
    assert document["ok"] is True
    assert document["lock"]["status"] == "matches" and document["lock"]["changes"] == []


def test_a_changed_catalog_fails_with_the_classified_changes_and_the_fix(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert run_main(capsys, "catalog", "--update-lock").code == 0
    locked = load_catalog(project / LOCK).hash[:12]
    change_server(project, a_pull_request)
    live = load_catalog(project / "server.json").hash[:12]
    before = listing(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    assert outcome.out == (
        f"catalog differs from the lock {LOCK} (22 tools, hash {locked} -> 22 tools, hash {live}):\n"
        "\n"
        "  breaking (2):\n"
        "    - `search_tickets`: parameter `limit`: `maximum` tightened (`50 → 20`)\n"
        '    - `search_tickets`: enum value `"on_hold"` removed from parameter `status`\n'
        "\n"
        "  selection-affecting (1): re-run the model eval\n"
        "    - `search_tickets`: description changed\n"
        "        was: Full-text search across ticket subjects, descriptions and comments, best match "
        "first. Use it to find tickets about a topic, symptom or phrase, e.g. to check wh…\n"
        "        now: Full-text search over tickets, attachments included.\n"
        "\n"
        "  compatible (1):\n"
        "    - `list_tickets`: optional parameter `sort` added\n"
        "\n"
        "3 fixtures cover `search_tickets`\n"
        "re-run them: mcp-evals run --only-tools search_tickets (or dispatch the paid eval)\n"
        f"fix: mcp-evals catalog --update-lock, then commit {LOCK}\n"
        "FAILED: 56 fixtures (49 select, 4 refuse, 3 clarify) · 22 of 22 tools covered · 5 of 5 areas "
        "covered · 0 errors, 0 warnings · catalog differs from the lock\n"
    )
    assert listing(project) == before  # validate writes nothing, the lock included
    # docs/catalog.md shows this very run
    docs = (REPO_ROOT / "docs" / "catalog.md").read_text("utf-8")
    example = docs[docs.index("$ mcp-evals validate\ncatalog differs") :]
    assert example[: example.index("\n```")] == "$ mcp-evals validate\n" + outcome.out.rstrip("\n")

    document = json.loads(run_main(capsys, "validate", "--format", "json").out)
    assert document["ok"] is False and document["errors"] == 0
    lock = document["lock"]
    assert (lock["status"], lock["counts"]) == ("differs", {"breaking": 2, "selection": 1, "compatible": 1})
    assert lock["lock_hash"][:12] == locked and lock["hash"][:12] == live
    assert lock["tool_count"] == lock["lock_tool_count"] == 22
    assert lock["exercised_by"] == {
        "search_tickets": [
            "tickets-search-android-logout",
            "tickets-search-double-charge",
            "tickets-search-webhook-410",
        ]
    }
    assert lock["rerun"] == "mcp-evals run --only-tools search_tickets"

    # The fix: update the lock (it says what changed), and validate passes the lock.
    updated = run_main(capsys, "catalog", "--update-lock")
    assert updated.code == 0
    assert f"lock updated: {LOCK} (22 tools, hash {live})" in updated.out
    assert updated.out.rstrip().endswith(
        "4 changes: 2 breaking, 1 selection-affecting, 1 compatible; commit the lock with the change"
    )
    assert f"catalog matches the lock (22 tools, hash {live})" in run_main(capsys, "validate").out


def test_a_missing_lock_fails_with_the_fix(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    outcome = run_main(capsys, "validate")
    assert outcome.code == 1
    assert outcome.out.splitlines()[:2] == [
        f"catalog lock {LOCK} does not exist yet",
        f"fix: mcp-evals catalog --update-lock, then commit {LOCK}",
    ]
    assert outcome.out.splitlines()[2].startswith("FAILED: ")
    assert outcome.out.rstrip().endswith("· catalog lock missing")


def test_a_broken_lock_is_bad_input_before_any_server_starts(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    config.write_text(config.read_text("utf-8").replace("snapshot: server.json", "command: /does/not/exist"))
    (project / "evals").mkdir()
    (project / LOCK).write_text('{"format": "mcp-evals.catalog/1",\n "servers": [{"name": 3}]}\n', "utf-8")
    monkeypatch.chdir(project)
    for command in (["validate"], ["catalog", "--update-lock"]):
        outcome = run_main(capsys, *command)
        assert outcome.code == 3, command
        assert outcome.err.startswith(f"error: {project / LOCK}:2 (servers[0].name)"), outcome.err
        assert "Traceback" not in outcome.err and "not found" not in outcome.err


def test_the_lock_may_not_replace_an_input(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = project / "mcp-evals.yaml"
    config.write_text(config.read_text("utf-8").replace(LOCK, "mcp-evals.yaml"))
    monkeypatch.chdir(project)
    before = listing(project)
    outcome = run_main(capsys, "catalog", "--update-lock")
    assert outcome.code == 3
    assert "the catalog lock" in outcome.err and "the config file" in outcome.err
    assert listing(project) == before


def test_under_github_actions_a_differing_lock_is_an_annotation_on_the_lock(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert run_main(capsys, "catalog", "--update-lock").code == 0
    change_server(project, a_pull_request)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(project))
    outcome = run_main(capsys, "validate", "--format", "json")
    assert outcome.code == 1
    assert outcome.err.splitlines()[-1] == (
        f"::error file={LOCK},title=mcp-evals validate%3A catalog lock::the live catalog differs from the "
        "lock: 2 breaking, 1 selection-affecting, 1 compatible; run `mcp-evals catalog --update-lock` and "
        "commit the lock"
    )


def test_a_fixture_exercises_the_tools_it_expects_and_the_ones_it_forbids() -> None:
    old = build_catalog([ServerInfo(name="s", transport="stdio", tools=[
        {"name": name, "description": "Old.", "inputSchema": {"type": "object"}}
        for name in ("issue_refund", "apply_credit", "get_invoice")
    ])])  # fmt: skip
    new = build_catalog([ServerInfo(name="s", transport="stdio", tools=[
        {"name": name, "description": "New.", "inputSchema": {"type": "object"}}
        for name in ("issue_refund", "apply_credit", "get_invoice")
    ])])  # fmt: skip
    fixtures = [
        Fixture(id="refund", query="refund INV-1", expected_tool="issue_refund"),
        Fixture(
            id="credit", query="credit me", expected_tool="apply_credit", forbidden_tools=["issue_refund"]
        ),
        Fixture(id="refuse", query="book a flight", kind="refuse"),
    ]
    check = check_lock(new, old, "lock.json", fixtures_by_tool(fixtures))
    assert check.exercised_by == {"apply_credit": ["credit"], "issue_refund": ["credit", "refund"]}
    assert check.rerun == "mcp-evals run --only-tools apply_credit,issue_refund"
    # a tool name a shell would split is quoted; one with a comma gets a flag of its own
    assert rerun_command(["send email", "a,b"]) == "mcp-evals run --only-tools 'send email' --only-tools a,b"
