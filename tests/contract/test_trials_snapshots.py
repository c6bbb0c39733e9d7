"""Trials (pass^k, flaky vs failing), snapshots (stored, compared, masked, updated) and JUnit, against
npm's server-memory: a store every case's server reads, so what one trial wrote the next one sees."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from mcp_evals.contract.history import History
from support.catalog_helpers import node_server
from support.validate_helpers import run_main

from .conftest import Project


def contract(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Any:
    return run_main(capsys, "contract", *map(str, args))


def memory(store: Path) -> dict[str, Any]:
    return {
        "command": str(node_server("mcp-server-memory")),
        "env": {"MEMORY_FILE_PATH": str(store)},
        "timeout": 60,
    }


def entity(name: str, *observations: str) -> str:
    return json.dumps(
        {"type": "entity", "name": name, "entityType": "person", "observations": list(observations)}
    )


CREATE_ADA = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}]}


@pytest.fixture
def suite(project: Project, tmp_path: Path) -> Project:
    """Three cases on one store: one passes every time, one only the first time, one never."""
    store = tmp_path / "memory.jsonl"
    project.config([{"name": "memory", **memory(store)}], contract={"suite": "trials"})
    project.case(
        "reads the graph", [{"id": "read", "tool": "read_graph", "expect": {"output_contains": "entities"}}]
    )
    # create_entities returns only the entities it created: the first trial's, then none
    project.case(
        "creates ada",
        [
            {
                "id": "create",
                "tool": "create_entities",
                "input": CREATE_ADA,
                "expect": {"output_contains": "Ada"},
            }
        ],
    )
    project.case(
        "finds grace",
        [
            {
                "id": "find",
                "tool": "search_nodes",
                "input": {"query": "Grace"},
                "expect": {"output_contains": "Grace"},
            }
        ],
    )
    return project


def test_trials_report_pass_k_flaky_and_failing_everywhere(
    suite: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    junit = tmp_path / "contract-junit.xml"
    db = tmp_path / "history.db"
    ran = contract(capsys, "--config", suite.config_path, "--trials", "3", "--db", db, "--junit", junit)
    assert ran.code == 1
    out = ran.out
    assert "1 passed, 2 failed (1 flaky) of 3 cases · pass^3 33%" in out
    assert "PASS  reads the graph  (live, 1 step" in out and "3/3 trials passed)" in out
    assert "FLAKY  creates ada  (live, 1 step" in out and "1/3 trials passed)" in out
    assert "FAIL  finds grace" in out and "0/3 trials passed)" in out
    assert "flaky: 1/3 trials passed; the first failing trial:" in out
    assert "create: output_contains — 'Ada' is not in the output '[]'" in out

    # JUnit: one testcase per case, the flaky one a failure of type flaky
    root = ET.fromstring(junit.read_text("utf-8"))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert set(cases) == {"reads the graph", "creates ada", "finds grace"}
    flaky = cases["creates ada"].find("failure")
    assert flaky is not None and flaky.get("type") == "flaky"
    assert flaky.get("message", "").startswith("flaky (1/3 trials passed): flaky: 1/3 trials passed")
    assert cases["reads the graph"].find("failure") is None
    out_text = cases["creates ada"].findtext("system-out") or ""
    assert (
        "trials: 1/3 trials passed (flaky)" in out_text
        and "step create · create_entities · failed" in out_text
    )
    assert root.find("testsuite").get("failures") == "2"  # type: ignore[union-attr]

    # the history keeps every trial
    [recorded] = History(db).latest("trials", limit=1)
    by_name = {case.name: case for case in recorded.cases}
    assert by_name["creates ada"].trials is not None
    assert [run.status for run in by_name["creates ada"].trials.runs] == ["passed", "failed", "failed"]
    assert by_name["creates ada"].verdict == "flaky" and by_name["finds grace"].verdict == "failing"

    # the other formats say it too
    document = json.loads(
        contract(
            capsys, "--config", suite.config_path, "--trials", "2", "--no-history", "--format", "json"
        ).out
    )
    assert document["summary"]["trials"] == 2 and document["summary"]["pass_k"] == pytest.approx(1 / 3)
    assert document["summary"]["flaky"] == []  # Ada exists by now: that case fails every time
    markdown = contract(
        capsys, "--config", suite.config_path, "--trials", "2", "--no-history", "--format", "md"
    ).out
    assert "❌ failed (0/2 trials passed)" in markdown
    html = contract(
        capsys, "--config", suite.config_path, "--trials", "2", "--no-history", "--format", "html"
    ).out
    assert "(0/2 trials passed)" in html and "Trials: 2/2 trials passed (passed)" in html


def test_a_case_asks_for_its_own_trials_and_the_flag_overrides_it(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project.config([{"name": "memory", **memory(tmp_path / "m.jsonl")}])
    project.case("read", [{"id": "read", "tool": "read_graph"}], trials=4)
    document = json.loads(
        contract(capsys, "--config", project.config_path, "--no-history", "--format", "json").out
    )
    [case] = document["run"]["cases"]
    assert len(case["trials"]["runs"]) == 4
    document = json.loads(
        contract(
            capsys, "--config", project.config_path, "--no-history", "--format", "json", "--trials", "1"
        ).out
    )
    assert document["run"]["cases"][0]["trials"] is None


def snapshot_case(project: Project, **snapshot: Any) -> None:
    project.case(
        "the graph",
        [{"id": "read", "tool": "read_graph", "expect": {"snapshot": snapshot or True}}],
        file="graph.yaml",
    )


def test_snapshots_are_stored_compared_masked_and_updated(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    store = tmp_path / "memory.jsonl"
    store.write_text(entity("Ada", "seen 2026-11-30T10:00:00Z") + "\n")
    project.config([{"name": "memory", **memory(store)}])
    snapshot_case(project, mask_patterns=[r"\d{4}-\d\d-\d\dT[\d:]+Z"])
    stored = project.cases_dir / "__snapshots__" / "graph.yaml.snap.json"

    first = contract(capsys, "--config", project.config_path, "--no-history")
    assert first.code == 0, first.out
    document = json.loads(stored.read_text("utf-8"))
    assert document["steps"]["read"]["output"]["entities"][0]["observations"] == ["seen <masked>"]
    assert document["steps"]["read"]["is_error"] is False

    store.write_text(entity("Ada", "seen 2026-12-01T08:30:00Z") + "\n")  # only the masked part changed
    again = contract(capsys, "--config", project.config_path, "--no-history")
    assert again.code == 0, again.out

    store.write_text(entity("Grace", "seen 2026-12-01T08:30:00Z") + "\n")
    changed = contract(capsys, "--config", project.config_path, "--no-history")
    assert changed.code == 1
    assert (
        "read: snapshot — the output differs from its snapshot, __snapshots__/graph.yaml.snap.json (read)"
        in changed.out
    )
    assert '-      "name": "Ada",' in changed.out and '+      "name": "Grace",' in changed.out  # the diff
    html = contract(capsys, "--config", project.config_path, "--no-history", "--format", "html").out
    assert "+      &#34;name&#34;: &#34;Grace&#34;," in html or '+      "name": "Grace",' in html
    assert json.loads(stored.read_text("utf-8")) == document  # a failing run writes nothing

    updated = contract(capsys, "--config", project.config_path, "--no-history", "--update-snapshots")
    assert updated.code == 0
    assert json.loads(stored.read_text("utf-8"))["steps"]["read"]["output"]["entities"][0]["name"] == "Grace"
    assert contract(capsys, "--config", project.config_path, "--no-history").code == 0


def test_in_ci_a_missing_snapshot_fails_and_nothing_is_written(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    project.config([{"name": "memory", **memory(tmp_path / "m.jsonl")}])
    snapshot_case(project)
    ran = contract(capsys, "--config", project.config_path, "--no-history")
    assert ran.code == 1
    assert "no snapshot __snapshots__/graph.yaml.snap.json (read); in CI none is written" in ran.out
    assert not (project.cases_dir / "__snapshots__").exists()


def test_mask_paths_and_a_later_trial_compares_with_the_first(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    store = tmp_path / "memory.jsonl"
    project.config([{"name": "memory", **memory(store)}])
    # each trial adds an observation: the output differs from trial to trial, but only where masked
    project.case(
        "observations",
        [
            {"id": "seed", "tool": "create_entities", "input": CREATE_ADA},
            {
                "id": "add",
                "tool": "add_observations",
                "input": {"observations": [{"entityName": "Ada", "contents": ["another note"]}]},
            },
            {
                "id": "read",
                "tool": "open_nodes",
                "input": {"names": ["Ada"]},
                "expect": {"snapshot": {"mask_paths": ["$.entities[*].observations"]}},
            },
        ],
        file="observations.yaml",
        continue_on_failure=True,
    )
    ran = contract(capsys, "--config", project.config_path, "--no-history", "--trials", "2")
    assert "read: snapshot" not in ran.out, ran.out
    stored = json.loads((project.cases_dir / "__snapshots__" / "observations.yaml.snap.json").read_text())
    assert stored["steps"]["read"]["output"]["entities"][0]["observations"] == "<masked>"
    # create_entities answers with what it created: the first trial's entity, then nothing
    project.case(
        "observations",
        [
            {
                "id": "create",
                "tool": "create_entities",
                "input": {"entities": [{"name": "Bob", "entityType": "person", "observations": []}]},
                "expect": {"snapshot": True},
            }
        ],
        file="observations.yaml",
    )
    (project.cases_dir / "__snapshots__" / "observations.yaml.snap.json").unlink()
    flaky = contract(capsys, "--config", project.config_path, "--no-history", "--trials", "2")
    assert "the output differs from this run's first trial" in flaky.out
    assert "FLAKY  observations" in flaky.out


def test_a_snapshot_file_that_is_not_one_stops_the_run_before_anything_starts(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project.config([{"name": "memory", **memory(tmp_path / "m.jsonl")}])
    snapshot_case(project)
    (project.cases_dir / "__snapshots__").mkdir()
    (project.cases_dir / "__snapshots__" / "graph.yaml.snap.json").write_text("{not json")
    ran = contract(capsys, "--config", project.config_path, "--no-history")
    assert ran.code == 3
    assert "graph.yaml.snap.json: not a snapshot file" in ran.err
    assert not (tmp_path / "m.jsonl").exists()  # no server ran


def test_a_mask_path_that_cannot_be_read_is_bad_input(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot_case(project, mask_paths=["entities[0]"])
    ran = contract(capsys, "--no-history", "--fixtures", project.cases_dir)
    assert ran.code == 3
    assert "graph.yaml" in ran.err and "a JSON path starts with $" in ran.err


def test_a_mask_pattern_that_backtracks_fails_its_step_in_time(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from .conftest import contract_server

    monkeypatch.delenv("CI", raising=False)
    project.config([{"name": "contract", **contract_server()}])
    city = "a" * 40 + "!"
    project.case(
        "weather",
        [
            {
                "id": "w",
                "tool": "weather",
                "input": {"city": city},
                "expect": {"snapshot": {"mask_patterns": ["(a+)+$"]}},
            }
        ],
        file="weather.yaml",
    )
    ran = contract(capsys, "--config", project.config_path, "--no-history")
    assert ran.code == 1
    assert (
        "w: snapshot — __snapshots__/weather.yaml.snap.json (w): mask_patterns: the regular expression"
        in ran.out
    )
    assert "backtracks catastrophically" in ran.out
