"""`mcp-evals report` and `mcp-evals baseline` as a user runs them; `write_reports` as the runner does."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO_ROOT, RunCli
from mcp_evals.baseline.compare import compare_with_baseline, make_baseline
from mcp_evals.config.model import Config
from mcp_evals.fixtures.model import Fixture
from mcp_evals.output.reports import write_reports
from mcp_evals.record.read import Results, write_line
from mcp_evals.report import render
from mcp_evals.report.json_report import report_json_schema
from mcp_evals.score import score_results
from support.records import answer, call, catalog, header, helpdesk_perfect_results, helpdesk_results, tool


def save(results: Results, path: Path) -> Path:
    with path.open("w", encoding="utf-8") as stream:
        write_line(stream, results.header)
        for row in results.results:
            write_line(stream, row)
    return path


def config_at(tmp_path: Path, **sections: object) -> Config:
    config = Config.model_validate(
        {"servers": [{"name": "helpdesk", "snapshot": "catalog.json"}], **sections}
    )
    config._path = tmp_path / "mcp-evals.yaml"
    return config


def test_report_prints_markdown_with_the_verdict_first(run_cli: RunCli, tmp_path: Path) -> None:
    results = save(helpdesk_results(), tmp_path / "results.ndjson")
    done = run_cli("report", results)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("## 🔴 mcp-evals: remediate — top-1 57.1%")


def test_report_formats_and_exit_codes(run_cli: RunCli, tmp_path: Path) -> None:
    complete = save(helpdesk_results(), tmp_path / "complete.ndjson")
    preliminary = save(helpdesk_results(dropout=True), tmp_path / "preliminary.ndjson")
    done = run_cli("report", preliminary, "--format", "junit", "--out", tmp_path / "junit.xml")
    assert done.returncode == 2
    assert "PRELIMINARY" in done.stderr
    assert ET.parse(tmp_path / "junit.xml").getroot().get("skipped") == "1"
    done = run_cli("report", complete, "--format", "json", "--out", tmp_path / "report.json")
    assert done.returncode == 0
    document = json.loads((tmp_path / "report.json").read_text())
    assert document["format"] == "mcp-evals.report" and document["decision"] == "remediate"
    (tmp_path / "mcp-evals.yaml").write_text(
        "servers: [{name: helpdesk, snapshot: catalog.json}]\ngate: {fail_on: [remediate]}\n"
    )
    done = run_cli("report", complete, "--format", "html", "--out", tmp_path / "r.html", "--config",
                   tmp_path / "mcp-evals.yaml")  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "FAILED: remediate" in done.stderr
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")


def test_bad_input_is_one_message_and_exit_3(run_cli: RunCli, tmp_path: Path) -> None:
    done = run_cli("report", tmp_path / "missing.ndjson")
    assert done.returncode == 3 and "file not found" in done.stderr and "Traceback" not in done.stderr
    results = save(helpdesk_results(), tmp_path / "results.ndjson")
    done = run_cli("report", results, "--format", "pdf")
    assert done.returncode == 3
    done = run_cli("report")
    assert done.returncode == 3 and "at least one RESULTS file" in done.stderr


def _shard(index: int, total: int, fixtures: list[Fixture], tools_catalog: object = None) -> Results:
    cat = tools_catalog or catalog(tool("a", "x"), tool("b", "x"))
    planned = [f for position, f in enumerate(fixtures) if position % total == index - 1]
    run = header(cat, planned, shard=f"{index}/{total}")  # type: ignore[arg-type]
    run = run.model_copy(update={"fixture_set_hash": "whole-set"})
    return Results(run, [answer(run, f.id, call("a", {})) for f in planned])


def test_shards_merge_into_one_report(run_cli: RunCli, tmp_path: Path) -> None:
    fixtures = [Fixture(id=f"f{i}", query=f"q{i}", expected_tool="a") for i in range(6)]
    one = save(_shard(1, 3, fixtures), tmp_path / "1.ndjson")
    two = save(_shard(2, 3, fixtures), tmp_path / "2.ndjson")
    three = save(_shard(3, 3, fixtures), tmp_path / "3.ndjson")
    done = run_cli("report", one, two, three, "--format", "json")
    assert done.returncode == 0, done.stderr
    scorecard = json.loads(done.stdout)["scorecard"]
    assert scorecard["coverage"]["planned"] == 6 and scorecard["run"]["shards"] == ["1/3", "2/3", "3/3"]
    done = run_cli("report", one, three, "--format", "json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["scorecard"]["coverage"]["missing_shards"] == ["2/3"]


def test_a_whole_run_and_shards_or_shards_of_different_splits_are_refused(
    run_cli: RunCli, tmp_path: Path
) -> None:
    fixtures = [Fixture(id=f"f{i}", query=f"q{i}", expected_tool="a") for i in range(6)]
    whole = _shard(1, 1, fixtures)
    whole = Results(whole.header.model_copy(update={"shard": None}), whole.results)
    whole_file = save(whole, tmp_path / "whole.ndjson")
    half = save(_shard(1, 2, fixtures), tmp_path / "half.ndjson")
    third = save(_shard(2, 3, fixtures), tmp_path / "third.ndjson")

    done = run_cli("report", whole_file, half)
    assert done.returncode == 3 and "a whole run (no --shard) given with shards" in done.stderr
    done = run_cli("report", half, third)
    assert done.returncode == 3 and "shards split into different numbers of parts" in done.stderr
    done = run_cli("merge", half, third, "--out", tmp_path / "all.ndjson")
    assert done.returncode == 3 and not (tmp_path / "all.ndjson").exists()


def test_mixed_catalogs_are_refused(run_cli: RunCli, tmp_path: Path) -> None:
    fixtures = [Fixture(id=f"f{i}", query=f"q{i}", expected_tool="a") for i in range(4)]
    one = save(_shard(1, 2, fixtures), tmp_path / "1.ndjson")
    other = save(
        _shard(2, 2, fixtures, catalog(tool("a", "x", "Another description."))), tmp_path / "2.ndjson"
    )
    done = run_cli("report", one, other)
    assert done.returncode == 3 and "another catalog" in done.stderr


def test_baseline_accept_then_compare(run_cli: RunCli, tmp_path: Path) -> None:
    perfect = save(helpdesk_perfect_results(), tmp_path / "perfect.ndjson")
    current = save(helpdesk_results(), tmp_path / "current.ndjson")
    baseline = tmp_path / "evals" / "baseline.json"
    done = run_cli("baseline", "accept", perfect, "--out", baseline)
    assert done.returncode == 0, done.stderr
    assert "baseline written to" in done.stdout and baseline.exists()
    done = run_cli("baseline", "compare", current, "--baseline", baseline)
    assert done.returncode == 1
    assert done.stdout.startswith("Regression: the score fell 52.7 points")
    assert (
        "regression  search-vpn: correct call → wrong tool (100.0 → 0.0) (lost the right tool)" in done.stdout
    )
    done = run_cli("report", current, "--baseline", baseline)
    assert done.returncode == 1
    first_line = done.stdout.splitlines()[0]
    assert "### Baseline" in done.stdout
    # Why it fails, and the gate decision all the same (the first line is the whole verdict).
    assert "FAILED: baseline regression, gate remediate — top-1 57.1%" in first_line


def test_baseline_accept_refuses_a_preliminary_run(run_cli: RunCli, tmp_path: Path) -> None:
    preliminary = save(helpdesk_results(dropout=True), tmp_path / "p.ndjson")
    done = run_cli("baseline", "accept", preliminary, "--out", tmp_path / "b.json")
    assert done.returncode == 3 and "PRELIMINARY" in done.stderr and not (tmp_path / "b.json").exists()
    done = run_cli("baseline", "accept", preliminary, "--out", tmp_path / "b.json", "--allow-preliminary")
    assert done.returncode == 0


def test_write_reports_writes_what_the_config_names(tmp_path: Path) -> None:
    config = config_at(
        tmp_path,
        reports={"markdown": "out/report.md", "json": "out/report.json", "junit": "out/junit.xml",
                 "html": "out/report.html"},
        baseline={"path": "evals/baseline.json"},
    )  # fmt: skip
    outcome = write_reports(helpdesk_results(), config)
    assert outcome.exit_code == 0 and outcome.comparison is None
    assert set(outcome.written) == {"md", "json", "junit", "html"}
    assert (tmp_path / "out" / "report.md").read_text() == outcome.markdown
    assert outcome.verdict.startswith("mcp-evals: remediate — top-1 57.1%")
    assert any("No baseline at evals/baseline.json yet" in note for note in outcome.scorecard.notes)
    assert not (tmp_path / "evals" / "baseline.json").exists()  # only `baseline accept` writes it


def test_write_reports_compares_with_the_configured_baseline(tmp_path: Path, run_cli: RunCli) -> None:
    perfect = save(helpdesk_perfect_results(), tmp_path / "perfect.ndjson")
    assert (
        run_cli("baseline", "accept", perfect, "--out", tmp_path / "evals" / "baseline.json").returncode == 0
    )
    config = config_at(tmp_path, baseline={"path": "evals/baseline.json"})
    outcome = write_reports(helpdesk_results(), config)
    assert outcome.comparison is not None and outcome.comparison.verdict == "regression"
    assert outcome.exit_code == 1 and outcome.written == {}
    preliminary = write_reports(helpdesk_results(dropout=True), config)
    assert preliminary.exit_code == 2


@pytest.mark.parametrize("fail_on", [["remediate"], []])
def test_write_reports_gate_from_the_config(tmp_path: Path, fail_on: list[str]) -> None:
    outcome = write_reports(helpdesk_results(), config_at(tmp_path, gate={"fail_on": fail_on}))
    assert outcome.exit_code == (1 if fail_on else 0)


def test_the_documented_json_schema_is_current() -> None:
    documented = json.loads((REPO_ROOT / "docs" / "report.schema.json").read_text())
    assert documented == report_json_schema(), (
        "docs/report.schema.json is stale: mcp-evals report --json-schema > docs/report.schema.json"
    )


def test_json_reports_validate_against_the_documented_schema() -> None:
    schema = json.loads((REPO_ROOT / "docs" / "report.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)  # e.g. no fragment in $id
    assert schema["properties"]["schema_version"]["const"] == 1 and "version 1" in schema["title"]
    validator = jsonschema.Draft202012Validator(schema)
    baseline = make_baseline(score_results(helpdesk_perfect_results()))
    other_model = baseline.model_copy(
        update={"fingerprint": baseline.fingerprint.model_copy(update={"model": "another-model"})}
    )
    for results in (helpdesk_results(), helpdesk_results(dropout=True), helpdesk_perfect_results()):
        scorecard = score_results(results)
        comparisons = [compare_with_baseline(scorecard, b) for b in (baseline, other_model)]
        assert comparisons[1].verdict == "not_comparable"
        for comparison in (None, *comparisons):
            validator.validate(json.loads(render(scorecard, "json", baseline_comparison=comparison)))


def test_report_and_baseline_read_the_config_run_reads(run_cli: RunCli, tmp_path: Path) -> None:
    """Without --config, ./mcp-evals.yaml decides as it did for `run`: its baseline and tolerance."""
    save(helpdesk_perfect_results(), tmp_path / "perfect.ndjson")
    save(helpdesk_results(), tmp_path / "current.ndjson")
    (tmp_path / "mcp-evals.yaml").write_text(
        "servers: [{name: helpdesk, snapshot: catalog.json}]\n"
        "baseline: {path: evals/baseline.json, max_drop_pp: 60}\n"
    )
    done = run_cli("baseline", "accept", "perfect.ndjson", cwd=tmp_path)
    assert done.returncode == 0 and (tmp_path / "evals" / "baseline.json").exists(), done.stderr
    done = run_cli("report", "current.ndjson", cwd=tmp_path)  # a 52.7-point drop, 60 tolerated
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("· baseline: within tolerance")
    done = run_cli("baseline", "compare", "current.ndjson", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Within tolerance"), done.stdout
    # Elsewhere (no config file), the defaults: the same drop is a regression.
    done = run_cli("report", tmp_path / "current.ndjson", "--baseline", tmp_path / "evals" / "baseline.json")
    assert done.returncode == 1 and "FAILED: baseline regression" in done.stdout.splitlines()[0]


def test_baseline_compare_with_a_missing_baseline_says_how_to_make_one(
    run_cli: RunCli, tmp_path: Path
) -> None:
    current = save(helpdesk_results(), tmp_path / "current.ndjson")

    done = run_cli("baseline", "compare", current, "--baseline", tmp_path / "missing.json")

    assert done.returncode == 3
    assert "baseline file not found" in done.stderr and "mcp-evals baseline accept" in done.stderr


def test_report_notes_a_configured_baseline_that_does_not_exist_yet(run_cli: RunCli, tmp_path: Path) -> None:
    current = save(helpdesk_results(), tmp_path / "current.ndjson")
    config = tmp_path / "mcp-evals.yaml"
    config.write_text(
        "servers: [{name: helpdesk, snapshot: catalog.json}]\nbaseline: {path: evals/baseline.json}\n"
    )

    done = run_cli("report", current, "--config", config)

    assert done.returncode != 3, done.stderr
    assert "note: No baseline at evals/baseline.json yet" in done.stderr
    assert "### Baseline" not in done.stdout


def test_a_drop_the_test_cannot_confirm_fails_and_says_it_could_be_noise(
    run_cli: RunCli, tmp_path: Path
) -> None:
    """93.3 → 66.7 on 12 fixtures used to exit 0 ("insufficient data, p = 0.5")."""
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    cat = catalog(tool("search", "a", schema=schema), tool("create", "a"))
    fixtures = [
        Fixture(id=f"f{i:02d}", query=f"find {i}", expected_tool="search", expected_args={"q": "x"})
        for i in range(12)
    ]
    run = header(cat, fixtures)
    before = [answer(run, f"f{i:02d}", call("search", {"q": "x" if i < 10 else "y"})) for i in range(12)]
    after = [answer(run, f"f{i:02d}", call("search" if i < 10 else "create", {"q": "x"})) for i in range(12)]
    save(Results(run, before), tmp_path / "before.ndjson")
    save(Results(run, after), tmp_path / "after.ndjson")
    assert run_cli("baseline", "accept", "before.ndjson", "--out", "b.json", cwd=tmp_path).returncode == 0
    done = run_cli("baseline", "compare", "after.ndjson", "--baseline", "b.json", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert "Regression: the score fell 10.0 points (93.3 → 83.3 on 12 fixtures" in done.stdout
    assert "could be noise: p = 0.5 on 12 fixtures — add fixtures or `--samples 3`" in done.stdout
    assert "regression  f10: correct call → wrong tool (60.0 → 0.0) (lost the right tool)" in done.stdout
    (tmp_path / "mcp-evals.yaml").write_text(
        "servers: [{name: s, snapshot: catalog.json}]\nbaseline: {gate: significant}\n"
    )
    done = run_cli("baseline", "compare", "after.ndjson", "--baseline", "b.json", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Insufficient data"), done.stdout


def test_report_never_writes_over_its_own_results(run_cli: RunCli, tmp_path: Path) -> None:
    results = save(helpdesk_results(), tmp_path / "results.ndjson")
    before = results.read_bytes()
    done = run_cli("report", results, "--out", results)
    assert done.returncode == 3
    assert f"--out {results} is also the results file results.ndjson" in done.stderr
    assert results.read_bytes() == before
    merged = run_cli("merge", results, "--out", tmp_path / "results.ndjson")
    assert merged.returncode == 3 and results.read_bytes() == before
    accepted = run_cli("baseline", "accept", results, "--out", results)
    assert accepted.returncode == 3 and results.read_bytes() == before
