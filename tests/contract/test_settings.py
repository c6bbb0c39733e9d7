"""The `contract:` settings, which server a case runs against, and smaller promises of docs/contract.md."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import anyio
import pytest

from mcp_evals.config.model import ContractOptions, JudgeOptions
from mcp_evals.contract.judge import Judge
from mcp_evals.contract.load import load_cases, target_of
from mcp_evals.contract.model import CaseResult, ContractRun
from mcp_evals.contract.regression import evaluate_gate
from mcp_evals.contract.reports import render_console, render_contract_markdown, render_html
from mcp_evals.contract.watch import Watcher
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.serve.harness import Harness, HarnessError
from support.validate_helpers import run_main

from .conftest import Project, case_of, contract_server, step_of


def test_the_defaults_docs_contract_md_lists() -> None:
    options = ContractOptions()
    assert (options.cases, options.history, options.reports) == (
        "evals/contract",
        ".mcp-evals/history.db",
        ".mcp-evals/reports",
    )
    assert (options.suite, options.server, options.timeout_ms, options.concurrency) == (None, None, 30000, 1)
    assert options.continue_on_failure is False
    assert (options.judge.model, options.judge.base_url, options.judge.budget_usd, options.judge.timeout) == (
        "gpt-5.4-mini",
        None,
        None,
        60.0,
    )


def test_settings_from_the_config(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    project.config(
        [{"name": "contract", **contract_server()}],
        contract={
            "cases": "checks",
            "history": "state/runs.db",
            "suite": "nightly",
            "timeout_ms": 1500,
            "continue_on_failure": True,
        },
    )
    folder = project.root / "checks"
    folder.mkdir()
    (folder / "slow.yaml").write_text(
        "name: slow\nsteps:\n  - {id: wait, tool: slow, input: {ms: 2500}}\n  - {id: then, tool: pid}\n"
    )
    outcome = run_main(capsys, "contract", "--config", project.config_path, "--format", "json")
    run = json.loads(outcome.out)["run"]
    assert run["suite"] == "nightly"
    wait, then = run["cases"][0]["steps"]
    assert wait["error"] == "server 'contract': no answer to tools/call 'slow' within 1.5 s"  # timeout_ms
    assert then["status"] != "not_run"  # continue_on_failure from the config
    assert (project.root / "state" / "runs.db").exists()


def test_which_server_a_case_runs_against(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    project.config([{"name": "one", **contract_server()}, {"name": "two", **contract_server()}])
    project.case("named", [{"id": "a", "tool": "pid"}], server="two")
    setup = project.setup()
    [named] = load_cases(setup)
    target = target_of(named, setup)
    assert target.mode == "live" and target.server is not None and target.server.name == "two"

    project.case("unnamed", [{"id": "a", "tool": "pid"}])
    with pytest.raises(
        InputFileError, match="the config has 2 servers; say which one this case uses with `server: <name>`"
    ):
        load_cases(project.setup())
    project.config(
        [{"name": "one", **contract_server()}, {"name": "two", **contract_server()}],
        contract={"server": "one"},
    )
    cases = {case.name: case for case in load_cases(project.setup())}
    assert target_of(cases["unnamed"], project.setup()).server.name == "one"  # type: ignore[union-attr]

    project.case("unknown", [{"id": "a", "tool": "pid"}], server="three")
    with pytest.raises(InputFileError, match=r"unknown\.yaml:\d+ \(server\): no config server named 'three'"):
        load_cases(project.setup())


def test_simulate_and_a_server_block_do_not_mix(project: Project) -> None:
    project.case("both", [{"id": "a", "tool": "t"}], simulate=True, server=contract_server())
    with pytest.raises(InputFileError, match="a case with `simulate: true` runs no server"):
        load_cases(project.setup())


def test_a_protocol_error_fails_the_step_and_the_session_goes_on(project: Project) -> None:
    project.case(
        "protocol",
        [{"id": "bad", "tool": "protocol"}, {"id": "next", "tool": "weather", "input": {"city": "Riga"}}],
        server=contract_server(),
        continue_on_failure=True,
    )
    run = project.run()
    bad = step_of(run, "protocol", "bad")
    assert bad.error == (
        "server 'protocol': tools/call 'protocol' failed: "
        "the server answered with error -32602: 'the arguments make no sense'"
    )
    assert step_of(run, "protocol", "next").status == "passed"


def test_skipped_cases_count_neither_way_in_the_gate() -> None:
    def run(*statuses: str) -> ContractRun:
        cases = [
            CaseResult(name=f"c{index}", mode="live", status=status) for index, status in enumerate(statuses)
        ]  # type: ignore[arg-type]
        return ContractRun(run_id="r", suite="s", started_at="t", cases=cases)

    result = evaluate_gate("s", [run("passed", "skipped", "failed")], min_pass_rate=0.5, lookback_runs=1)
    assert (result.passed_cases, result.judged_cases, result.ok) == (1, 2, True)
    only_skipped = evaluate_gate("s", [run("skipped")], min_pass_rate=0.5, lookback_runs=1)
    assert not only_skipped.ok and "1 run with no judged case" in only_skipped.message


def test_the_judge_endpoint_and_what_the_reports_say_about_it(project: Project) -> None:
    from fakes.fake_openai import FakeOpenAI, Text

    local = FakeOpenAI(key=None, chooser=lambda *_: Text('{"score": 1, "reason": "yes"}')).start()
    try:
        options = JudgeOptions(base_url=f"{local.base_url}/v1", budget_usd=0.5)
        judge = Judge(options, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})  # the config's URL wins
        assert judge.key is None and judge.keyless_endpoint and judge.unavailable() is None
        project.case(
            "judged",
            [
                {
                    "id": "a",
                    "tool": "t",
                    "expected_output": "hi",
                    "expect": {"llm_judge": {"prompt_template": "{actual}"}},
                }
            ],
        )
        run = project.run(judge=judge)
    finally:
        local.stop()
    assert case_of(run, "judged").status == "passed"
    assert len(local.model_requests()) == 1 and "authorization" not in local.model_requests()[0].headers
    assert re.search(r"^judge: 1 request, \$0\.\d{4} of \$0\.5$", render_console(run), re.M)
    assert "Judge: 1 requests" in render_html(run)
    assert (
        Judge(JudgeOptions(), {"OPENAI_BASE_URL": "http://localhost:11434/v1"}).base_url
        == "http://localhost:11434/v1"
    )
    assert Judge(JudgeOptions(), {}).base_url is None  # OpenAI's own


def test_the_markdown_section_is_a_pure_function_of_the_run(project: Project) -> None:
    project.case("fine", [{"id": "a", "tool": "t", "expected_output": "x", "expect": {"output_equals": "x"}}])
    project.case(
        "wrong", [{"id": "b", "tool": "t", "expected_output": "x", "expect": {"output_equals": "y"}}]
    )
    run = project.run()
    first = render_contract_markdown(run)
    assert first == render_contract_markdown(ContractRun.model_validate_json(run.model_dump_json()))
    assert "| fine | simulation | ✅ passed | 1/1 |" in first
    assert "- **wrong** · b: output\\_equals — expected &#x27;y&#x27;, got &#x27;x&#x27;" in first


def test_serve_never_overwrites_and_spends_on_the_judge_only_when_told(project: Project) -> None:
    project.config([{"name": "contract", **contract_server()}], contract={"judge": {"budget_usd": 5}})
    project.case("exists", [{"id": "a", "tool": "t"}], simulate=True)
    harness = Harness(project.setup())
    assert harness.judge_options.budget_usd is None  # the config's budget is not the client's to spend
    assert Harness(project.setup(), judge_budget_usd=0.25).judge_options.budget_usd == 0.25
    with pytest.raises(HarnessError, match=r"exists\.yaml already exists"):
        anyio.run(harness.scaffold_fixture, "exists", ["t"])
    with pytest.raises(HarnessError, match=r"exists\.yaml already exists"):
        harness.create_test_case("Exists", None, [{"id": "a", "tool": "t"}])
    assert (project.cases_dir / "exists.yaml").read_text().startswith("name: exists")


def test_serve_writes_no_case_it_would_refuse_to_run(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.config([{"name": "a", **contract_server()}, {"name": "b", **contract_server()}])
    project.case("fine", [{"id": "a", "tool": "t"}], simulate=True)
    harness = Harness(project.setup())
    before = sorted(path.name for path in project.cases_dir.iterdir())
    dangling = [{"id": "a", "tool": "t", "input": {"x": "{{steps.zz.output}}"}}]
    with pytest.raises(HarnessError, match=r"nothing was written: .*no step 'zz' in this case"):
        harness.create_test_case("dangling", None, dangling)
    later = [{"id": "a", "tool": "t", "input": {"x": "{{steps.b.output}}"}}, {"id": "b", "tool": "t"}]
    with pytest.raises(HarnessError, match=r"step 'b' comes later"):
        harness.create_test_case("later", None, later)
    with pytest.raises(HarnessError, match=r"the config has 2 servers"):  # no `server:`: run_suite refuses it
        anyio.run(harness.scaffold_fixture, "no server", ["t"])
    assert sorted(path.name for path in project.cases_dir.iterdir()) == before  # not even a temporary file
    assert run_main(capsys, "contract", "--config", project.config_path, "--no-history").code == 0
    created = harness.create_test_case("one step", None, [{"id": "a", "tool": "t"}])
    assert Path(created.path).exists()
    assert created.message == "created simulation case 'one step' with 1 step"


def test_serve_lint_checks_the_rule_ids_as_the_cli_does(project: Project) -> None:
    import anyio

    project.config(
        [{"name": "never-started", "command": "/nonexistent/server"}], lint={"rules": {"N999": False}}
    )
    with pytest.raises(ConfigError, match=r"mcp-evals\.yaml:\d+ \(lint\.rules\.N999\): no lint rule 'N999'"):
        anyio.run(Harness(project.setup()).lint_catalog)


def test_the_served_tools_declare_output_schemas(project: Project) -> None:
    import anyio

    from mcp_evals.serve.app import build_server

    project.case("x", [{"id": "a", "tool": "t"}], simulate=True)
    server = build_server(Harness(project.setup()))
    tools = anyio.run(server.list_tools)
    assert len(tools) == 13 and all(tool.output_schema for tool in tools)


def test_a_changed_config_reruns_every_case(project: Project) -> None:
    project.config([{"name": "contract", **contract_server()}])
    project.case("a", [{"id": "a", "tool": "pid"}])
    project.case("b", [{"id": "b", "tool": "pid"}], simulate=True)
    watcher = Watcher(project.setup())
    assert watcher.changed() is None
    time.sleep(0.01)
    text = project.config_path.read_text()
    project.config_path.write_text(text + "\n# changed\n")
    assert watcher.changed() == ["a", "b"]
    assert Path(project.config_path).exists()
