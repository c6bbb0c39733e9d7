"""``mcp-evals lint`` as a user runs it: outputs, exit codes, config, ignores, bad input.

``sarif-schema-2.1.0.json`` beside this file is the official OASIS SARIF 2.1.0 schema (errata 01), as
published in oasis-tcs/sarif-spec under Schemata/ (112,768 bytes, unchanged).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from mcp_evals.lint.model import LintReport
from mcp_evals.lint.render.rules_table import BEGIN, END, rules_markdown
from mcp_evals.lint.rules import all_rules
from support.validate_helpers import run_main

from .project import KNOWN_DEFECTS, write_project

REPO = Path(__file__).resolve().parents[2]
SARIF_SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text("utf-8"))
NO_ERRORS = "{N002: false, N003: false, D001: false, D002: false, S001: false, S006: false, S008: false}"
FINDING_LINE = re.compile(
    r"^(?P<file>[^:\s]+):(?P<line>\d+): (?P<severity>error|warning|info) \[(?P<rule>[A-Z]\d{3})\]"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return write_project(tmp_path)


def lines_by_rule(text: str) -> dict[str, list[re.Match[str]]]:
    found: dict[str, list[re.Match[str]]] = {}
    for line in text.splitlines():
        match = FINDING_LINE.match(line)
        if match:
            found.setdefault(match["rule"], []).append(match)
    return found


def test_the_crafted_catalog_shows_every_known_defect_where_to_fix_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run_main(capsys, "lint")
    assert outcome.code == 1, outcome.err  # errors, and lint.fail_on is error
    found = lines_by_rule(outcome.out)
    assert set(KNOWN_DEFECTS) <= set(found), set(KNOWN_DEFECTS) - set(found)
    # A fixture finding points at the fixture's line; a tool finding at its server's config line.
    assert [(m["file"], m["line"]) for m in found["F001"]] == [("fixtures/cases.yaml", "2")]
    assert [(m["file"], m["line"]) for m in found["F002"]] == [("fixtures/cases.yaml", "6")]
    assert {(m["file"], m["line"]) for m in found["N003"]} == {("mcp-evals.yaml", "2")}
    assert {(m["file"], m["line"]) for m in found["F005"]} == {("mcp-evals.yaml", "4")}
    assert re.search(r"^grade [A-F] \(\d+/100\): descriptions \d+ · schema \d+", outcome.out, re.M)
    assert "predicted confusable pairs" in outcome.out
    assert outcome.out.rstrip().splitlines()[-1].startswith("FAILED: 7 tools, ")


def test_fail_on_never_and_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, lint="lint:\n  fail_on: never\n")
    assert run_main(capsys, "lint").code == 0
    write_project(
        tmp_path,
        lint=f"lint:\n  rules: {NO_ERRORS}\n",
    )
    assert run_main(capsys, "lint").code == 0  # no error left; warnings do not fail by default
    write_project(
        tmp_path,
        lint=f"lint:\n  fail_on: warning\n  rules: {NO_ERRORS}\n",
    )
    assert run_main(capsys, "lint").code == 1


def test_rules_can_be_switched_off_or_given_another_severity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, lint="lint:\n  rules:\n    N002: off\n    S006: info\n")
    found = lines_by_rule(run_main(capsys, "lint").out)
    assert "N002" not in found
    assert {m["severity"] for m in found["S006"]} == {"info"}


def test_thresholds_come_from_the_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, lint="lint:\n  thresholds: {max_tools: 3}\n")
    assert "C003" in lines_by_rule(run_main(capsys, "lint").out)
    write_project(tmp_path)
    assert "C003" not in lines_by_rule(run_main(capsys, "lint").out)


def test_an_ignored_finding_is_shown_with_its_reason_and_fails_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(
        tmp_path,
        lint="""\
        lint:
          ignore:
            - {tool: "get_user*", rules: [N002, S001, D002], reason: "legacy API, renamed in v3"}
            - {tool: run, reason: "internal tool, never offered to users"}
            - {tool: tag_ticket, rules: [S006, S008], reason: "fixed upstream"}
        """,
    )
    outcome = run_main(capsys, "lint")
    ignored = [line for line in outcome.out.splitlines() if "(ignored: " in line]
    assert any("[N002]" in line and "(ignored: legacy API, renamed in v3)" in line for line in ignored)
    assert any("[N003]" in line and "internal tool" in line for line in ignored)
    assert outcome.code == 0, outcome.out  # every error is accepted
    assert "ignored (fails on error)" in outcome.out.splitlines()[-1]


@pytest.mark.parametrize(
    ("lint", "message"),
    [
        ("lint:\n  rules: {N999: false}\n", r"mcp-evals.yaml:6 \(lint.rules.N999\): no lint rule 'N999'"),
        ("lint:\n  rules: {bogus: false}\n", r"mcp-evals.yaml:6 \(lint.rules.bogus\): no lint rule 'bogus'"),
        ("lint:\n  rules: {Z999: false}\n", r"mcp-evals.yaml:6 \(lint.rules.Z999\): no lint rule 'Z999' \("),
        (
            "lint:\n  rules:\n    N001: warn\n",
            r"mcp-evals.yaml:7 \(lint.rules.N001\): must be false, true, error, warning or info "
            r"\(not 'warn'\)",
        ),
        ("lint:\n  fail_on: sometimes\n", r"mcp-evals.yaml:6 \(lint.fail_on\)"),
        ("lint:\n  ignore: [{tool: run, reason: ''}]\n", r"lint.ignore\[0\].reason"),
        (
            "lint:\n  ignore: [{tool: run, rules: [Q001], reason: why}]\n",
            r"lint.ignore\[0\].rules\[0\]\): no lint rule 'Q001'",
        ),
        ("lint:\n  thresholds: {max_tool: 3}\n", r"lint.thresholds.max_tool\): unknown key"),
    ],
)
def test_bad_lint_settings_are_one_message_and_exit_3(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lint: str,
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, lint=lint)
    outcome = run_main(capsys, "lint")
    assert outcome.code == 3
    assert re.search(message, outcome.err), outcome.err
    assert "Traceback" not in outcome.err
    problems = [line for line in outcome.err.splitlines() if not line.startswith("  hint:")]
    assert len(problems) == 1, outcome.err  # one message, not one per branch of a union
    assert not re.search(r"\.bool|literal\[|\[key\]|should match pattern", outcome.err), outcome.err


def test_json_output_reads_back_as_a_report(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_main(capsys, "lint", "--format", "json")
    report = LintReport.model_validate_json(outcome.out)
    assert report.failed and outcome.code == 1
    assert report.tools == 7 and report.fixtures == 3
    assert {finding.rule for finding in report.findings} >= set(KNOWN_DEFECTS)


def test_the_vendored_schema_is_the_official_one() -> None:
    assert SARIF_SCHEMA["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert (Path(__file__).parent / "sarif-schema-2.1.0.json").stat().st_size == 112_768
    jsonschema.Draft4Validator.check_schema(SARIF_SCHEMA)


def test_sarif_output_validates_and_every_result_has_a_physical_location(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run_main(capsys, "lint", "--format", "sarif")
    log = json.loads(outcome.out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [run] = log["runs"]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] in ("mcp-evals.yaml", "fixtures/cases.yaml")
        assert physical["region"]["startLine"] >= 1
        assert result["partialFingerprints"]["mcpEvalsLint/v1"]
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels["N002"] == "error" and levels["N001"] == "warning" and levels["S005"] == "note"


def test_sarif_keeps_ignored_findings_as_suppressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, lint="lint:\n  ignore: [{tool: run, rules: [N003], reason: internal tool}]\n")
    log = json.loads(run_main(capsys, "lint", "--format", "sarif").out)
    jsonschema.Draft4Validator(SARIF_SCHEMA).validate(log)
    [generic] = [result for result in log["runs"][0]["results"] if result["ruleId"] == "N003"]
    assert generic["suppressions"] == [{"kind": "external", "justification": "internal tool"}]


def test_markdown_output_and_output_file(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outcome = run_main(capsys, "lint", "--format", "md", "--output", tmp_path / "out" / "lint.md")
    assert outcome.code == 1 and outcome.out == ""
    text = (tmp_path / "out" / "lint.md").read_text("utf-8")
    assert re.match(r"### 🔎 mcp-evals lint: grade [A-F] \(\d+/100\)", text)
    assert "<details>" in text and "</details>" in text and "**fails** (`lint.fail_on: error`)" in text


def test_rules_md_prints_the_table_and_docs_lint_md_is_current(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = run_main(capsys, "lint", "--rules-md")
    assert outcome.code == 0
    assert outcome.out == rules_markdown()
    docs = (REPO / "docs" / "lint.md").read_text("utf-8")
    committed = docs[docs.index(BEGIN) + len(BEGIN) : docs.index(END)]
    assert committed == "\n" + rules_markdown(), "docs/lint.md is stale: run scripts/lint-docs"
    for rule in all_rules():
        assert f'<a id="{rule.id.lower()}"></a>{rule.id}' in committed


def test_sarif_fingerprints_survive_moved_lines(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def fingerprints() -> list[tuple[str, str]]:
        log = json.loads(run_main(capsys, "lint", "--format", "sarif").out)
        return sorted(
            (r["ruleId"], r["partialFingerprints"]["mcpEvalsLint/v1"]) for r in log["runs"][0]["results"]
        )

    before = fingerprints()
    cases = project.parent / "fixtures" / "cases.yaml"
    cases.write_text("# moved down\n\n" + cases.read_text("utf-8"), "utf-8")
    assert fingerprints() == before
