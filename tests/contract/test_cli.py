"""`mcp-evals contract` as a user runs it: formats, exit codes, timeouts, concurrency, validate, bad input."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from support.validate_helpers import run_main

from .conftest import Project, case_of, contract_server, helpdesk, step_of


def contract(capsys: pytest.CaptureFixture[str], *args: str | Path) -> Any:
    return run_main(capsys, "contract", *map(str, args))


@pytest.fixture
def live(project: Project) -> Project:
    """A config with the contract test server; cases without `server:` run against it."""
    project.config([{"name": "contract", **contract_server()}])
    return project


def test_formats_and_exit_codes(live: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    live.case(
        "weather",
        [{"id": "w", "tool": "weather", "input": {"city": "Rome"}, "expect": {"output_contains": "Rome"}}],
    )
    live.case("broken", [{"id": "f", "tool": "fail", "expect": {"output_contains": "jammed"}}])
    config = live.config_path
    console = contract(capsys, "--config", config, "--no-history")
    assert console.code == 1
    assert re.search(r"^PASS  weather  \(live, 1 step, \d+ ms\)$", console.out, re.M)
    assert "FAIL  broken" in console.out
    assert (
        "f: is_error — the tool reported an error (isError): 'it broke: the widget is jammed'" in console.out
    )

    document = json.loads(contract(capsys, "--config", config, "--no-history", "--format", "json").out)
    assert document["summary"] == {
        "passed": 1,
        "failed": 1,
        "skipped": 0,
        "total": 2,
        "ok": False,
        "trials": 1,
        "flaky": [],
        "pass_k": 0.5,
    }
    assert document["run"]["schema_version"] == "mcp-evals.contract/1"
    assert {case["name"]: case["status"] for case in document["run"]["cases"]} == {
        "broken": "failed",
        "weather": "passed",
    }

    only = contract(capsys, "--config", config, "--no-history", "--case", "weather")
    assert only.code == 0 and "1 passed, 0 failed of 1 case" in only.out

    out = tmp_path / "report.html"
    written = contract(capsys, "--config", config, "--no-history", "--format", "html", "--out", out)
    assert written.code == 1 and written.out == ""
    assert f"report written to {out}" in written.err
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_untrusted_text_is_escaped_in_every_report(live: Project, capsys: pytest.CaptureFixture[str]) -> None:
    live.case(
        "<img src=x onerror=alert(1)> @octocat",
        [{"id": "h", "tool": "hostile", "expect": {"output_contains": "never there"}}],
        file="hostile.yaml",
    )
    html = contract(capsys, "--config", live.config_path, "--no-history", "--format", "html").out
    assert "<script>" not in html and "<img" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"""(src|href)=["']?https?:""", html)  # no external assets
    markdown = contract(capsys, "--config", live.config_path, "--no-history", "--format", "md").out
    assert markdown.startswith("<!-- mcp-evals:contract -->\n")
    assert markdown.count("<!-- mcp-evals:contract -->") == 1  # the server's copy of the marker is broken
    assert "<script>" not in markdown and "<img" not in markdown
    assert "@octocat" not in markdown and "@\u200docto" in markdown
    assert "](https://evil.example)" not in markdown


def test_bad_case_files_are_one_message_with_file_and_line(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.cases_dir.mkdir(parents=True)
    bad = project.cases_dir / "bad.yaml"
    bad.write_text(
        "name: typo\nsteps:\n  - id: one\n    tool: t\n    expect:\n      output_containz: x\n", "utf-8"
    )
    outcome = contract(capsys, "--config", project.root / "absent.yaml")
    assert outcome.code == 3 and "config file not found" in outcome.err  # an explicit config must exist
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys)
    assert outcome.code == 3
    assert outcome.err.startswith(
        "error: evals/contract/bad.yaml:6 (steps[0].expect.output_containz): unknown key"
    )
    assert "`mcp-evals schema contract` lists the allowed keys" in outcome.err
    assert "Traceback" not in outcome.err

    bad.write_text(
        "name: a\nsteps:\n  - id: one\n    tool: t\n    expect: {output_matches: '(unclosed'}\n", "utf-8"
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys)
    assert "bad.yaml:5 (steps[0].expect.output_matches): not a valid regular expression" in outcome.err

    bad.write_text("name: same\nsteps: [{id: a, tool: t}]\n", "utf-8")
    (project.cases_dir / "twin.yaml").write_text("name: same\nsteps: [{id: a, tool: t}]\n", "utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys)
        unknown = contract(capsys, "--case", "nope")
    assert outcome.code == 3
    assert (
        "evals/contract/twin.yaml:1 (name): the case name 'same' is also used by evals/contract/bad.yaml:1"
        in outcome.err
    )
    (project.cases_dir / "twin.yaml").unlink()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        unknown = contract(capsys, "--case", "nope")
    assert (
        unknown.code == 3 and "no case named 'nope'" in unknown.err and "the cases are: same" in unknown.err
    )


def test_no_cases_folder_says_how_to_start(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys)
    assert outcome.code == 3
    assert outcome.err.startswith("error: evals/contract: cases folder not found")


def test_the_per_step_timeout(live: Project, capsys: pytest.CaptureFixture[str]) -> None:
    live.case(
        "slow",
        [
            {"id": "slow", "tool": "slow", "input": {"ms": 3000}},
            {"id": "after", "tool": "weather", "input": {"city": "Oslo"}},
        ],
        continue_on_failure=True,
    )
    started = time.monotonic()
    outcome = contract(
        capsys, "--config", live.config_path, "--no-history", "--timeout", "2000", "--format", "json"
    )
    assert outcome.code == 1
    document = json.loads(outcome.out)
    slow, after = document["run"]["cases"][0]["steps"]
    assert slow["status"] == "failed"
    assert slow["error"] == "server 'contract': no answer to tools/call 'slow' within 2 s"
    assert after["status"] == "passed"  # the session lives on after a timeout
    assert time.monotonic() - started < 20


def test_each_live_case_gets_its_own_server_and_cases_run_side_by_side(live: Project) -> None:
    for index in range(3):
        live.case(
            f"case {index}",
            [{"id": "pid", "tool": "pid"}, {"id": "wait", "tool": "slow", "input": {"ms": 1500}}],
        )
    started = time.monotonic()
    run = live.run(concurrency=3)
    side_by_side = time.monotonic() - started
    pids = {step.output for case in run.cases for step in case.steps if step.id == "pid"}
    assert len(pids) == 3  # three processes
    assert all(case.status == "passed" for case in run.cases)
    started = time.monotonic()
    live.run(concurrency=1)
    one_by_one = time.monotonic() - started
    assert side_by_side < one_by_one - 1.5


def test_a_server_that_dies_fails_its_case_and_stops_it(live: Project) -> None:
    live.case(
        "dies",
        [{"id": "boom", "tool": "exit", "input": {"code": 9}}, {"id": "later", "tool": "pid"}],
        continue_on_failure=True,
    )
    live.case("cannot start", [{"id": "x", "tool": "pid"}], server={"command": "mcp-evals-no-such-binary"})
    run = live.run()
    dies = case_of(run, "dies")
    assert dies.status == "failed"
    assert "exited with exit code 9 during tools/call 'exit'" in (dies.steps[0].error or "")
    assert "| contract-server: exiting as asked" in (dies.steps[0].error or "")
    assert (
        dies.steps[1].status == "not_run"
        and dies.steps[1].error == "the server stopped during an earlier step"
    )
    cannot = case_of(run, "cannot start")
    assert cannot.status == "failed" and "command not found: 'mcp-evals-no-such-binary'" in (
        cannot.error or ""
    )


def test_without_a_config_cases_use_their_own_server_or_simulate(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.case(
        "own server", [{"id": "w", "tool": "weather", "input": {"city": "Kyiv"}}], server=contract_server()
    )
    project.case(
        "simulated",
        [{"id": "s", "tool": "anything", "expected_output": "ok", "expect": {"output_equals": "ok"}}],
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys, "--format", "json")
    assert outcome.code == 0
    modes = {case["name"]: case["mode"] for case in json.loads(outcome.out)["run"]["cases"]}
    assert modes == {"own server": "live", "simulated": "simulation"}
    assert (project.root / ".mcp-evals" / "history.db").exists()


def test_a_case_server_block_runs_in_the_case_folder(project: Project) -> None:
    folder = project.cases_dir
    folder.mkdir(parents=True)
    (folder / "tools.py").write_text("# a file only the case's folder has\n")
    script = "import os, sys; sys.exit(0 if os.path.exists('tools.py') else 5)"
    project.case("cwd", [{"id": "x", "tool": "pid"}], server={"command": "python3", "args": ["-c", script]})
    run = project.run()
    # The server ran (and exited 0) in the case's folder; had it not, it would have exited 5.
    assert "exit code 0" in (case_of(run, "cwd").error or "")


def test_validate_checks_cases_against_the_catalog(live: Project, capsys: pytest.CaptureFixture[str]) -> None:
    live.case(
        "checked",
        [
            {"id": "typo", "tool": "wether", "input": {"city": "x"}},
            {"id": "input", "tool": "slow", "input": {"ms": "fast"}},
            {"id": "reference", "tool": "slow", "input": {"ms": "{{steps.input.json.ms}}"}},
            {"id": "schema", "tool": "fail", "expect": {"structured_matches_output_schema": True}},
            {"id": "called", "tool": "pid", "expect": {"tool_called": "weather"}},
            # Bad input on purpose: the step expects the tool error it provokes.
            {"id": "on_purpose", "tool": "slow", "input": {"ms": "fast"}, "expect": {"is_error": True}},
        ],
    )
    path = live.cases_dir / "checked.yaml"
    lines = path.read_text().splitlines()

    def line_of(text: str) -> int:
        return next(number for number, line in enumerate(lines, 1) if text in line)

    outcome = contract(capsys, "validate", "--config", live.config_path)
    assert outcome.code == 1
    shown = "evals/contract/checked.yaml" if Path.cwd() == live.root else str(path)
    got = outcome.out.splitlines()
    assert got[0] == (
        f"{shown}:{line_of('tool: wether')} (steps[0].tool): "
        "the server lists no tool 'wether'; did you mean 'weather'?"
    )
    assert got[1].startswith(f"{shown}:{line_of('ms: fast')} (steps[1].input.ms): ")
    assert got[1].endswith("does not fit the input schema of 'slow': 'fast' is not of type 'integer'")
    assert "'fail' declares no outputSchema, so this assertion cannot pass" in got[2]
    assert "the step calls 'pid', so `tool_called: weather` cannot pass" in got[3]
    assert len(got) == 5  # the reference-holding input is not judged
    assert got[-1] == "FAILED: 1 case: 1 checked against a catalog; 4 problems"


def test_validate_without_a_catalog_checks_shape_and_references(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.case("simulated", [{"id": "a", "tool": "t", "expected_output": "x"}])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys, "validate")
    assert outcome.code == 0
    assert outcome.out.strip() == (
        "ok: 1 case: 0 checked against a catalog, "
        "1 with no catalog (simulation: shape and references only); 0 problems"
    )


def test_validate_against_a_saved_catalog(
    project: Project, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = project.config([{"name": "helpdesk", **helpdesk(cwd=str(project.root))}])
    snapshot = tmp_path / "catalog.json"
    assert run_main(capsys, "catalog", "--config", config, "--out", snapshot).code == 0
    project.case("ticket", [{"id": "t", "tool": "get_ticket", "input": {"ticket": "T-1"}}])
    outcome = contract(capsys, "validate", "--config", config, "--catalog", snapshot)
    assert outcome.code == 1
    assert "does not fit the input schema of 'get_ticket'" in outcome.out


def test_the_case_schema_describes_case_files(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    import jsonschema

    schema = json.loads(run_main(capsys, "schema", "contract").out)
    assert schema["title"] == "mcp-evals contract case"
    good = {"name": "a", "steps": [{"id": "s", "tool": "t", "expect": {"is_error": False}}]}
    jsonschema.validate(good, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "stepz": []}, schema)
    assert yaml.safe_dump(good)


def test_continue_on_failure_from_the_command_line(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [
        {"id": "one", "tool": "t", "expected_output": "a", "expect": {"output_equals": "b"}},
        {"id": "two", "tool": "t", "expected_output": "a", "expect": {"output_equals": "a"}},
    ]
    project.case("two steps", steps)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        stopped = json.loads(contract(capsys, "--no-history", "--format", "json").out)
        going = json.loads(contract(capsys, "--no-history", "--format", "json", "--continue-on-failure").out)
    assert [step["status"] for step in stopped["run"]["cases"][0]["steps"]] == ["failed", "not_run"]
    assert [step["status"] for step in going["run"]["cases"][0]["steps"]] == ["failed", "passed"]


def test_a_schema_match_that_is_not_a_json_schema(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.case("bad schema", [{"id": "a", "tool": "t", "expect": {"schema_match": {"type": "thing"}}}])
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(project.root)
        outcome = contract(capsys)
    assert outcome.code == 3
    assert (
        "bad-schema.yaml:" in outcome.err
        and "(steps[0].expect.schema_match): not a valid JSON Schema" in outcome.err
    )


def test_runs_record_the_commit(tmp_path: Path) -> None:
    from conftest import REPO_ROOT
    from mcp_evals.contract.runner import git_sha

    assert re.fullmatch(r"[0-9a-f]{40}", git_sha(REPO_ROOT) or "")
    assert git_sha(tmp_path, {"GITHUB_SHA": "abc123"}) == "abc123"  # no repository: the CI's variable
    assert git_sha(tmp_path, {}) is None


def test_validate_reports_every_problem_of_every_case(
    live: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MCP_EVALS_TEST_UNSET", raising=False)
    live.case("typo", [{"id": "t", "tool": "wether", "input": {"city": "x"}}])
    live.case("no start", [{"id": "x", "tool": "pid"}], server={"command": "mcp-evals-no-such-binary"})
    live.case("nor this", [{"id": "x", "tool": "pid"}], server={"command": "mcp-evals-no-such-binary"})
    outcome = contract(capsys, "validate", "--config", live.config_path)
    assert outcome.code == 1  # every case file loaded: the problems are checks that failed
    lines = outcome.out.splitlines()
    assert any("typo.yaml:" in line and "the server lists no tool 'wether'" in line for line in lines)
    started = [line for line in lines if "the server could not be started or read" in line]
    assert len(started) == 2  # each case has a server of its own, and each is reported
    assert all("command not found: 'mcp-evals-no-such-binary'" in line for line in started)
    assert "(cases 'no start')" in outcome.out and "(cases 'nor this')" in outcome.out
    assert lines[-1] == (
        "FAILED: 3 cases: 1 checked against a catalog, 2 whose server cannot be started; 3 problems"
    )

    live.case(
        "unset",
        [{"id": "x", "tool": "pid"}],
        server={"command": "python3", "args": ["${MCP_EVALS_TEST_UNSET}"]},
    )
    (live.cases_dir / "broken.yaml").write_text("name: broken\nsteps:\n  - id: a\n    tol: t\n", "utf-8")
    (live.cases_dir / "z-twin.yaml").write_text("name: typo\nsteps: [{id: a, tool: t}]\n", "utf-8")
    again = contract(capsys, "validate", "--config", live.config_path)
    assert again.code == 3  # cases that `contract` would refuse to run are bad input, reported with the rest
    assert "broken.yaml:4 (steps[0].tol): unknown key" in again.out
    assert "z-twin.yaml:1 (name): the case name 'typo' is also used by" in again.out
    assert "(server.args[0]): environment variable MCP_EVALS_TEST_UNSET is not set" in again.out
    assert "hint: export MCP_EVALS_TEST_UNSET=… before running" in again.out
    assert "the server lists no tool 'wether'" in again.out
    assert again.out.count("the server could not be started or read") == 2
    assert again.out.splitlines()[-1] == (
        "FAILED: 4 cases: 1 checked against a catalog, 3 whose server cannot be started; 6 problems"
    )


def test_validate_reports_a_config_server_that_does_not_start_once(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config([{"name": "gone", "command": "mcp-evals-no-such-binary"}])
    project.case("first", [{"id": "x", "tool": "pid"}])
    project.case("second", [{"id": "x", "tool": "pid"}])
    outcome = contract(capsys, "validate", "--config", project.config_path)
    assert outcome.code == 1
    [line] = [line for line in outcome.out.splitlines() if "could not be started" in line]
    assert "and 1 more (server): the server could not be started or read (cases 'first', 'second')" in line
    assert outcome.out.splitlines()[-1] == (
        "FAILED: 2 cases: 0 checked against a catalog, 2 whose server cannot be started; 1 problem"
    )


def test_a_scaffolded_case_says_what_to_fill_in(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    """`serve`'s scaffold_fixture gives every required parameter a placeholder: validate lists each as
    not written yet (and nothing else), a run fails the step without calling the tool, and once the
    values are written the case validates and runs."""
    import anyio

    from mcp_evals.serve.harness import Harness, HarnessError

    config = project.config([{"name": "helpdesk", **helpdesk(cwd=str(project.root))}])
    harness = Harness(project.setup(), config_path=config)
    written = anyio.run(harness.scaffold_fixture, "assign", ["get_ticket", "assign_ticket"])
    assert "3 required parameters to give in place of a placeholder" in written.message
    path = Path(written.path)
    text = path.read_text()
    assert yaml.safe_load(text)["steps"][1]["input"] == {
        "ticket_id": "<fill in: string>",
        "agent_id": "<fill in: string>",
    }
    outcome = contract(capsys, "validate", "--config", config)
    assert outcome.code == 1
    lines = text.splitlines()
    shown = "evals/contract/assign.yaml" if Path.cwd() == project.root else str(path)
    expected = [
        f"{shown}:{number} (steps[{step}].input.{name}): "
        "not written yet: give a value (string) in place of the placeholder"
        for step, name, number in [
            (0, "ticket_id", lines.index('      ticket_id: "<fill in: string>"') + 1),
            (1, "ticket_id", len(lines) - lines[::-1].index('      ticket_id: "<fill in: string>"')),
            (1, "agent_id", lines.index('      agent_id: "<fill in: string>"') + 1),
        ]
    ]
    assert outcome.out.splitlines() == [*expected, "FAILED: 1 case: 1 checked against a catalog; 3 problems"]

    ran = project.run(["assign"])
    first = step_of(ran, "assign", "step1")
    assert first.status == "failed" and first.output == "" and first.latency_ms is None  # never called
    assert (
        first.error == "input.ticket_id: not written yet: give a value (string) in place of the placeholder"
    )

    path.write_text(
        text.replace('"<fill in: string>"', '"T-1041"', 2).replace('"<fill in: string>"', '"A-2"')
    )
    assert contract(capsys, "validate", "--config", config).code == 0
    assert step_of(project.run(["assign"]), "assign", "step1").status == "passed"

    with pytest.raises(
        HarnessError, match=r"the server lists no tool 'get_tickets'; its tools: add_ticket_comment"
    ):
        anyio.run(harness.scaffold_fixture, "other", ["get_tickets"])
    assert not (project.cases_dir / "other.yaml").exists()
