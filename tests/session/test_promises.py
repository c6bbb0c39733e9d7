"""The smaller promises of docs/sessions.md, one test each."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from conftest import Cli, CliResult
from fakes.fake_anthropic import Call, CutOff, FakeAnthropic, Text
from mcp_evals.session.aggregate import SessionSummary, TaskRow, summarize
from mcp_evals.session.loop import delivered_result
from mcp_evals.session.model import DEFAULT_MAX_STEPS, JudgeSettings, Timeouts
from mcp_evals.session.record import CallRecord, CallResult
from mcp_evals.session.records_file import newest_records_file, read_records
from mcp_evals.session.report import render_session_markdown

from .conftest import EU_STATUS, MISSING_JOB, SALESFORCE, write_config, write_tasks

HERE = Path(__file__).resolve().parent
OUTLOOK = {
    "id": "outlook-sync",
    "prompt": "Retry Harbor Health's Outlook sync SYNC-8.",
    "script": [
        {"tool": "get_sync_job", "arguments": {"job_id": "SYNC-8"}},
        {"tool": "retry_sync_job", "arguments": {"job_id": "SYNC-8"}},
    ],
    "answer": {"contains": "running"},
}


@pytest.fixture
def python_with_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def run(cli: Cli, tasks: Path, out: Path, *args: str) -> CliResult:
    return cli("session", "--tasks", tasks, "--budget-usd", "5", "--results", out, *args)


def test_the_defaults_the_docs_list() -> None:
    assert DEFAULT_MAX_STEPS == 25
    assert (Timeouts().step_seconds, Timeouts().session_seconds) == (30, 900)
    assert (JudgeSettings().model, JudgeSettings().max_tokens) == (None, 300)
    from mcp_evals.session.model import FAULT_KINDS, Faults

    assert [level.percent for level in Faults().levels] == [0] and Faults().seed == 0
    assert Faults.model_validate({"levels": [{"percent": 5}]}).levels[0].kinds == list(FAULT_KINDS)


def test_a_run_refuses_a_task_set_that_does_not_validate(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    broken = {**EU_STATUS, "script": [{"tool": "get_status", "arguments": {}}]}
    result = run(cli, write_tasks(tmp_path, ops_url, [broken]), tmp_path / "out")
    assert result.code == 3
    assert "the task set does not validate against the live catalog (1 error); not running" in result.err
    assert "no tool 'get_status' in the catalog — did you mean 'get_service_status'?" in result.err
    assert anthropic_fake.model_requests() == []


def test_the_config_s_run_budget_does_not_count_for_sessions(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    config = write_config(tmp_path, budget_usd=5)
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    result = cli("session", "--config", config, "--tasks", tasks, "--results", tmp_path / "out")
    assert result.code == 3 and "a paid session run needs a budget cap" in result.err


def test_each_stdio_session_gets_a_fresh_server_process(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli, python_with_mcp: None
) -> None:
    """SYNC-8 can be retried once per server process: the second run's retry works only in a new one."""
    anthropic_fake.sessions[OUTLOOK["prompt"]] = [
        Call("retry_sync_job", {"job_id": "SYNC-8"}),
        Text("It is running."),
    ]
    server = {
        "command": "python",
        "args": [str(HERE.parents[1] / "examples/helpdesk/server.py"), "--ops-tools"],
    }
    tasks = write_tasks(tmp_path, "unused", [OUTLOOK])
    document = json.loads(tasks.read_text())
    document["server"] = server
    tasks.write_text(json.dumps(document))
    result = run(cli, tasks, tmp_path / "out", "--arm", "A", "--runs", "2")
    assert result.code == 0, result.err
    sessions = read_records(newest_records_file(tmp_path / "out")).sessions
    assert [session.calls[0].result.is_error for session in sessions] == [False, False]


def test_a_tool_the_catalog_lacks_goes_to_the_server_which_answers(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("restart_region", {"region": "eu"}),
        Text("Could not."),
    ]
    result = run(cli, write_tasks(tmp_path, ops_url, [EU_STATUS]), tmp_path / "out", "--arm", "A")
    assert result.code == 0, result.err
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    [call] = record.calls
    assert not call.known and call.result.is_error and "restart_region" in call.result.text
    assert call.error is None  # the server's own answer, not ours


def test_a_turn_cut_off_at_max_tokens_is_a_dropout(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Call("get_service_status", {"region": "eu"}), CutOff()]
    result = run(cli, write_tasks(tmp_path, ops_url, [EU_STATUS]), tmp_path / "out", "--arm", "A")
    assert result.code == 2
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    assert (record.status, record.error_kind, len(record.turns)) == ("dropout", "truncated", 2)
    assert "raise run.max_tokens" in (record.error_message or "")


def test_a_server_that_dies_mid_session_is_a_dropout_and_the_next_session_gets_a_new_one(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli, python_with_mcp: None
) -> None:
    crash = {"id": "crash", "prompt": "Crash it.", "script": [{"tool": "ping"}]}
    calm = {"id": "calm", "prompt": "Ping it.", "script": [{"tool": "ping"}]}
    anthropic_fake.sessions["Crash it."] = [Call("crash"), Text("?")]
    anthropic_fake.sessions["Ping it."] = [Call("ping"), Text("pong")]
    tasks = write_tasks(tmp_path, "unused", [crash, calm])
    document = json.loads(tasks.read_text())
    document["server"] = {"command": "python", "args": [str(HERE / "crash_server.py")]}
    tasks.write_text(json.dumps(document))
    result = run(cli, tasks, tmp_path / "out", "--arm", "A")
    assert result.code == 2, result.err
    first, second = read_records(newest_records_file(tmp_path / "out")).sessions
    assert (first.status, first.error_kind) == ("dropout", "mcp_server")
    assert "server 'session'" in (first.error_message or "")
    assert second.status == "finished" and second.calls[0].result.text == "pong"


def test_a_records_file_of_another_model_is_refused(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Text("Degraded.")]
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    assert run(cli, tasks, tmp_path / "out", "--arm", "A").code == 0
    other = run(cli, tasks, tmp_path / "out", "--arm", "A", "--model", "claude-sonnet-4-6")
    assert other.code == 3
    assert "holds sessions of anthropic/claude-opus-4-8 from today and this commit" in other.err
    assert "give this run its own folder with --results DIR" in other.err


def test_a_changed_task_runs_again_the_same_day(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Text("Degraded.")]
    out = tmp_path / "out"
    assert run(cli, write_tasks(tmp_path, ops_url, [EU_STATUS]), out, "--arm", "A").code == 0
    assert run(cli, write_tasks(tmp_path, ops_url, [EU_STATUS]), out, "--arm", "A").code == 0
    assert len(anthropic_fake.model_requests()) == 1  # the same task: kept
    changed = {**EU_STATUS, "answer": {"contains": "degraded!"}}
    result = run(cli, write_tasks(tmp_path, ops_url, [changed]), out, "--arm", "A")
    assert len(anthropic_fake.model_requests()) == 2  # a new task: run again
    records = read_records(newest_records_file(out))
    summary = summarize(records.headers, records.sessions)
    assert summary.stale == 1 and summary.finished == 1
    assert "1 record of an earlier setup of a task or an arm left out." in result.out


def test_arms_run_one_at_a_time_into_the_same_records_are_both_reported(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Text("EU is degraded.")]
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    out = tmp_path / "out"
    first = run(cli, tasks, out, "--arm", "A")
    assert first.code == 0, first.err
    # both arms' system prompts are written to the record and shown in the report, B's too
    records = read_records(newest_records_file(out))
    assert set(records.header.arms) == {"A", "B"}
    assert records.header.arms["B"].system_prompt == "You are the helpdesk's assistant."
    assert "Results may carry" in first.out and "**B**" in first.out
    assert "- **B** (not in the plan)" in first.out

    second = run(cli, tasks, out, "--arm", "B")
    assert second.code == 0, second.err
    records = read_records(newest_records_file(out))
    summary = summarize(records.headers, records.sessions)
    assert (summary.planned, summary.finished, summary.stale) == (2, 2, 0)
    assert [(cell.arm, cell.finished) for cell in summary.cells] == [("A", 1), ("B", 1)]
    assert [difference.pairs for difference in summary.differences] == [1]
    assert "| A | 0% | 1/1 |" in second.out and "| B | 0% | 1/1 |" in second.out
    assert "earlier setup" not in second.out
    assert cli("session", "report", out).out == second.out.split("records: ")[0]

    # an arm changed since it ran: its session is of an earlier setup, compared arm by arm
    document = json.loads(tasks.read_text())
    document["arms"]["A"]["system_prompt_addition"] = "Results carry `diagnostics`: read them."
    tasks.write_text(json.dumps(document))
    third = run(cli, tasks, out, "--arm", "B")
    assert third.code == 2, third.err  # A's session is not of this setup: not run yet
    records = read_records(newest_records_file(out))
    summary = summarize(records.headers, records.sessions)
    assert [(cell.arm, cell.finished, cell.not_run) for cell in summary.cells] == [("A", 0, 1), ("B", 1, 0)]
    assert summary.stale == 1
    assert "1 record of an earlier setup of a task or an arm left out." in third.out


def test_live_token_counting_counts_every_request(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Text("Degraded."),
    ]
    result = run(
        cli, write_tasks(tmp_path, ops_url, [EU_STATUS]), tmp_path / "out", "--arm", "B", "--count-tokens"
    )
    assert result.code == 0, result.err
    counted = [request for request in anthropic_fake.requests if request.path == "/v1/messages/count_tokens"]
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    assert len(counted) == len(record.turns) == 2
    assert all(turn.input_tokens_counted and turn.input_tokens_counted > 1000 for turn in record.turns)


def test_dry_warns_about_a_script_call_that_fails_unless_it_is_meant_to(
    tmp_path: Path, ops_url: str, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    meant = MISSING_JOB
    unmeant = {**SALESFORCE, "script": [{"tool": "get_sync_job", "arguments": {"job_id": "SYNC-77"}}]}
    result = cli(
        "session", "--tasks", write_tasks(tmp_path, ops_url, [meant, unmeant]), "--dry", "--arm", "A"
    )
    assert result.code == 0, result.err
    warnings = [line for line in result.err.splitlines() if line.startswith("warning:")]
    assert warnings == [
        "warning: salesforce-sync · arm A: script call 1 (get_sync_job) got an error: Error executing tool "
        "get_sync_job: No sync job 'SYNC-77'. It does not exist; sync job ids look like SYNC-7."
    ]


def test_structured_content_without_a_text_block_reaches_the_model_as_json_text() -> None:
    call = CallRecord(
        id="c1",
        tool="t",
        provider_name="t",
        call_number=1,
        result=CallResult(content=[], structured_content={"région": "eu", "ok": True}),
    )
    result, delivered = delivered_result(call, [])
    assert result.content == [{"type": "text", "text": '{"région": "eu", "ok": true}'}]
    assert delivered == result.content and not result.is_error
    with_text = call.model_copy(
        update={"result": CallResult(content=[{"type": "text", "text": "x"}], structured_content={})}
    )
    assert delivered_result(with_text, [])[1] is None  # as the server sent it


def test_max_chars_cuts_the_task_table_first() -> None:
    summary = SessionSummary(
        name="n", provider="p", model="m", date="d", git_sha="s", tool_version="v", arms={"A": "x"},
        tasks=[TaskRow(task_id=f"task-{index:03d}") for index in range(400)],
    )  # fmt: skip
    whole = render_session_markdown(summary)
    cut = render_session_markdown(summary, max_chars=4000)
    assert len(whole) > 8000 and len(cut) <= 4000
    assert "more lines left out to fit; the records hold them all." in cut
    assert cut.rstrip().endswith("session records</sub>")  # the end of the report is kept


def test_records_are_named_by_the_date_and_the_commit_of_the_task_set_s_folder(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from mcp_evals.session.prepare import today

    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Text("Degraded.")]
    repository = tmp_path / "repo"
    repository.mkdir()
    tasks = write_tasks(repository, ops_url, [EU_STATUS])
    git = ["git", "-C", str(repository), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "tasks"], check=True)
    sha = subprocess.run(
        [*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert run(cli, tasks, tmp_path / "out", "--arm", "A").code == 0
    assert newest_records_file(tmp_path / "out").name == f"sessions-{today()}-{sha[:12]}.ndjson"
    monkeypatch.setenv("GITHUB_SHA", "0123456789abcdef0123")  # outside a repository: the workflow's commit
    elsewhere = write_tasks(tmp_path, ops_url, [EU_STATUS])
    assert run(cli, elsewhere, tmp_path / "out2", "--arm", "A").code == 0
    assert newest_records_file(tmp_path / "out2").name == f"sessions-{today()}-0123456789ab.ndjson"


def test_the_judge_spends_from_the_one_budget_and_stops_at_it() -> None:
    import anyio

    from fakes.fake_anthropic import FakeAnthropic as Fake
    from mcp_evals.answers import GenerateOptions
    from mcp_evals.catalog.model import Catalog
    from mcp_evals.providers.anthropic import AnthropicProvider
    from mcp_evals.providers.base import ProviderSettings, Secret
    from mcp_evals.providers.pricing import find_price
    from mcp_evals.run.asker import Asker
    from mcp_evals.run.budget import Budget
    from mcp_evals.run.retry import RetryPolicy
    from mcp_evals.session.judge import JUDGE_SYSTEM, judge_session
    from mcp_evals.session.loop import ask_live
    from mcp_evals.session.record import SessionKey, SessionRecord

    record = SessionRecord(
        key=SessionKey(date="d", git_sha="s", arm="A", fault_percent=0, task_id="t", run=1),
        setup_hash="h",
        status="finished",
        final_answer="Latency is 2,350 ms.",
    )
    with Fake() as fake:
        assert isinstance(fake, Fake)
        fake.chooser = lambda query, tools, choice: Text('{"verdict": "caveated", "reason": "says cached"}')
        settings = ProviderSettings(
            model="claude-haiku-4-5", base_url=fake.base_url, api_key=Secret(fake.key)
        )
        judge = Asker(
            AnthropicProvider(settings), Catalog(tools=[]), JUDGE_SYSTEM, GenerateOptions(max_tokens=300)
        )
        ask = ask_live(judge, RetryPolicy(max_attempts=1), 10)
        price = find_price("claude-haiku-4-5")
        roomy = Budget(1.0, price, 300, spent_usd=0.5)
        judged = anyio.run(judge_session, judge, ask, roomy, record, "How fast is EU?")
        assert judged.record.verdict == "caveated" and not judged.budget_stop
        assert (
            roomy.spent_usd == pytest.approx(0.5 + (judged.record.cost_usd or 0)) and roomy.reserved_usd == 0
        )
        tight = Budget(0.5001, price, 300, spent_usd=0.5)
        refused = anyio.run(judge_session, judge, ask, tight, record, "How fast is EU?")
        assert refused.budget_stop and refused.record.error == "not judged: budget"
        assert len(fake.model_requests()) == 1  # the refused judge request was never sent


def test_out_of_turns_is_finished_with_no_answer_and_an_arm_s_descriptions_reach_its_model(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    from mcp_evals.report.escape import md_text

    endless = {**EU_STATUS, "max_steps": 2}
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Call("get_service_status", {"region": "eu"})] * 5
    tasks = write_tasks(tmp_path, ops_url, [endless], name="")
    document = json.loads(tasks.read_text())
    document["arms"]["B"]["descriptions"] = {"get_service_status": "Rewritten: the health of one region."}
    tasks.write_text(json.dumps(document))
    result = run(cli, tasks, tmp_path / "out")
    assert result.code == 0, result.err
    records = read_records(newest_records_file(tmp_path / "out"))
    for record in records.sessions:
        assert (record.status, record.end, len(record.turns), record.final_answer) == (
            "finished",
            "max_steps",
            2,
            "",
        )
    summary = summarize(records.headers, records.sessions)
    assert all(cell.accuracy.hits == 0 and cell.accuracy.total == 1 for cell in summary.cells)
    assert records.header.arms["A"].catalog_hash != records.header.arms["B"].catalog_hash

    def description(request_json: dict[str, object]) -> str:
        tools = request_json["tools"]
        assert isinstance(tools, list)
        return next(str(tool["description"]) for tool in tools if tool["name"] == "get_service_status")

    seen = {description(request.json) for request in anthropic_fake.model_requests()}
    assert "Rewritten: the health of one region." in seen and len(seen) == 2
    assert f"## mcp-evals session: {md_text(records.header.task_set_path)}" in result.out  # no name: the path


def test_a_faulted_call_never_reaches_the_server(
    tmp_path: Path, anthropic_fake: FakeAnthropic, cli: Cli, python_with_mcp: None
) -> None:
    """The retry of SYNC-8 is faulted; had it reached the server, the job would read `running` after."""
    anthropic_fake.sessions[OUTLOOK["prompt"]] = [
        Call("retry_sync_job", {"job_id": "SYNC-8"}),
        Call("get_sync_job", {"job_id": "SYNC-8"}),
        Text("Still failed."),
    ]
    faults = {"levels": [{"percent": 100, "kinds": ["is_error"], "tools": ["retry_sync_job"]}]}
    tasks = write_tasks(tmp_path, "unused", [OUTLOOK], faults=faults)
    document = json.loads(tasks.read_text())
    document["server"] = {
        "command": "python",
        "args": [str(HERE.parents[1] / "examples/helpdesk/server.py"), "--ops-tools"],
    }
    tasks.write_text(json.dumps(document))
    result = run(cli, tasks, tmp_path / "out", "--arm", "A")
    assert result.code == 0, result.err
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    retry, read = record.calls
    assert retry.fault == "is_error" and retry.result.is_error
    assert read.fault is None and read.result.structured_content["state"] == "failed"


def test_a_request_reserves_its_counted_size_or_its_estimate_plus_a_quarter() -> None:
    import math

    from mcp_evals.providers.pricing import find_price
    from mcp_evals.providers.tokens import TOOL_USE_PREAMBLE_TOKENS, estimate_tokens
    from mcp_evals.run.budget import Budget
    from mcp_evals.session.loop import reserved_tokens

    request = b"x" * 35_000  # a request's messages and tools, as the local estimate counts them
    assert reserved_tokens(request, 1234) == 1234
    assert (
        reserved_tokens(request, None)
        == math.ceil(estimate_tokens(request) * 1.25) + TOOL_USE_PREAMBLE_TOKENS
    )
    price = find_price("claude-opus-4-8")
    assert price is not None
    budget = Budget(1.0, price, 1024)
    # the input at the dearest input rate (a cache write), the output at max_tokens
    expected = (10_000 * max(price.input, price.cache_write) + 1024 * price.output) / 1_000_000
    assert budget.request_cost(10_000) == pytest.approx(expected)


def test_prices_for_a_model_the_table_lacks_come_from_the_config(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [Text("Degraded.")]
    config = write_config(
        tmp_path, prices={"claude-inhouse-1": {"input": 1.0, "output": 2.0}}, max_tokens=200
    )
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    result = cli(
        "session", "--config", config, "--tasks", tasks, "--model", "claude-inhouse-1", "--arm", "A",
        "--budget-usd", "1", "--results", tmp_path / "out",
    )  # fmt: skip
    assert result.code == 0, result.err
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    usage = record.turns[0].usage
    assert record.cost_usd == pytest.approx(
        (
            usage.input_tokens * 1.0
            + usage.cache_write_tokens * 1.25
            + usage.cache_read_tokens * 0.1
            + usage.output_tokens * 2.0
        )
        / 1_000_000
    )
    assert anthropic_fake.model_requests()[0].json["max_tokens"] == 200
