"""Whole sessions: `mcp-evals session` against the Helpdesk example's operations tools over HTTP, with
fake Anthropic and OpenAI APIs scripted to make known mistakes; the metrics must count exactly those."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from fakes.fake_openai import Call as OCall
from fakes.fake_openai import FakeOpenAI, RawArguments
from fakes.fake_openai import Text as OText
from mcp_evals.session.aggregate import summarize
from mcp_evals.session.metrics import session_metrics
from mcp_evals.session.record import SessionRecord
from mcp_evals.session.records_file import SessionRecords, newest_records_file, read_records

from .conftest import EU_STATUS, MISSING_JOB, SALESFORCE, write_tasks

REVOKED = "SYNC-7 cannot be retried"


def records_of(folder: Path) -> SessionRecords:
    return read_records(newest_records_file(folder))


def only(records: SessionRecords, task_id: str, arm: str = "A", percent: float = 0) -> SessionRecord:
    [record] = [
        record
        for record in records.sessions
        if record.key.task_id == task_id and record.key.arm == arm and record.key.fault_percent == percent
    ]
    return record


def metrics_of(records: SessionRecords, record: SessionRecord) -> Any:
    task = next(task for task in records.header.task_set.tasks if task.id == record.key.task_id)
    return session_metrics(record, task, records.header.catalog, records.header.task_set.transient_errors)


def test_anthropic_sessions_count_exactly_the_mistakes_the_model_made(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[MISSING_JOB["prompt"]] = [
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Call("get_sync_job", {"job_id": "SYNC-404"}),  # (a) the same call after a definitive error
        Call("get_sync_job", {"job": "SYNC-404"}),  # (b) the schema requires job_id
        Text("SYNC-404 does not exist."),
    ]
    anthropic_fake.sessions[SALESFORCE["prompt"]] = [
        [Call("get_sync_job", {"job_id": "SYNC-7"}), Call("get_service_status", {"region": "us"})],
        Call("retry_sync_job", {"job_id": "SYNC-7"}),
        Call("retry_sync_job", {"job_id": "SYNC-7"}),  # (a)
        Call("retry_sync_job", {"job_id": "SYNC-7"}),  # (a) and (c): a third call, all failed
        Text("The token was revoked: the customer must reconnect Salesforce."),
    ]
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB, SALESFORCE])
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err

    records = records_of(tmp_path / "out")
    missing = only(records, "missing-job")
    assert missing.status == "finished" and missing.end == "answered"
    assert [call.tool for call in missing.calls] == ["get_sync_job"] * 3
    assert all(call.result.is_error for call in missing.calls)
    assert "does not exist" in missing.calls[0].result.text  # the server's own words, as it sent them
    metrics = metrics_of(records, missing)
    assert (metrics.repeated_after_error, metrics.schema_rejected, metrics.insistence) == (1, 1, 0)
    assert metrics.bad_calls == 2 and metrics.steps == 4 and metrics.answer_correct is True

    salesforce = only(records, "salesforce-sync")
    assert [len(turn.calls) for turn in salesforce.turns] == [2, 1, 1, 1, 0]
    assert REVOKED in salesforce.calls[2].result.text
    metrics = metrics_of(records, salesforce)
    assert (metrics.repeated_after_error, metrics.schema_rejected, metrics.insistence) == (2, 0, 1)
    assert metrics.bad_calls == 2 and metrics.calls == 5 and metrics.failed_calls == 3
    assert metrics.tool_success_rate == 0.4 and metrics.path_efficiency == 0.2
    assert metrics.answer_correct is True and metrics.expected_in_order

    # the conversation is cached: each turn reads what the turn before it wrote
    assert all(turn.usage.cache_read_tokens > 0 for turn in salesforce.turns[1:])
    # every turn's usage and cost is recorded, and the report is printed from the records
    assert all(turn.usage.output_tokens > 0 and turn.cost_usd for turn in salesforce.turns)
    assert salesforce.cost_usd == pytest.approx(sum(turn.cost_usd or 0 for turn in salesforce.turns))
    assert "## mcp-evals session: ops" in result.out and "✅ complete" in result.out
    # progress on stderr, one line a session; the report alone on stdout
    assert (
        "[1/2] missing-job · arm A · faults 0% · run 1: answered · 4 steps · 2 bad calls · answer correct"
        in (result.err)
    )
    assert "[1/2]" not in result.out
    assert "| A | 0% | 2/2 | 2.00 [2.00, 2.00] | 1.50 | 0.50 | 0.50 |" in result.out


def test_the_model_gets_every_result_as_the_server_sent_it_and_arm_b_without_the_field(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Text("EU is degraded."),
    ]
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    result = cli("session", "--tasks", tasks, "--budget-usd", "5", "--results", tmp_path / "out")
    assert result.code == 0, result.err
    records = records_of(tmp_path / "out")
    header = records.header
    assert header.arms["A"].system_prompt.endswith("Results may carry `diagnostics`.")
    assert header.arms["B"].system_prompt == "You are the helpdesk's assistant."

    def results_sent(arm_prompt: str) -> list[dict[str, Any]]:
        """The tool_result blocks of the last request the model got in the arm with this system prompt."""
        requests = [
            request.json
            for request in anthropic_fake.model_requests()
            if request.json["system"][0]["text"] == arm_prompt
        ]
        last = requests[-1]["messages"]
        return [block for message in last[1:] if message["role"] == "user" for block in message["content"]]

    a_status, a_missing = results_sent(header.arms["A"].system_prompt)
    b_status, b_missing = results_sent(header.arms["B"].system_prompt)
    server = only(records, "eu-latency", "A").calls[0].result
    assert a_status["content"][0]["text"] == server.content[0]["text"]  # byte for byte
    assert '"diagnostics"' in a_status["content"][0]["text"] and "is_error" not in a_status
    b_value = json.loads(b_status["content"][0]["text"])
    assert "diagnostics" not in b_value
    assert b_value == {key: value for key, value in server.structured_content.items() if key != "diagnostics"}
    assert b_status["content"][0]["text"].startswith('{\n  "region": "eu"')  # the same indented form
    assert a_missing["is_error"] is True and b_missing["is_error"] is True
    assert a_missing["content"] == b_missing["content"]
    # the record keeps both: what the server gave, and what arm B's model was shown instead
    b_record = only(records, "eu-latency", "B")
    assert "diagnostics" in b_record.calls[0].result.structured_content
    assert (
        b_record.calls[0].delivered is not None
        and only(records, "eu-latency", "A").calls[0].delivered is None
    )


def test_injected_faults_never_reach_the_server_and_count_as_insistence_not_repeats(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Call("get_service_status", {"region": "eu"}),
        Call("get_service_status", {"region": "eu"}),
        Text("EU is degraded."),
    ]
    faults = {
        "seed": 1,
        "levels": [
            {"percent": 0},
            {
                "percent": 100,
                "kinds": ["upstream_502", "html_error", "is_error"],
                "tools": ["get_service_status"],
            },
        ],
    }
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS], faults=faults)
    out = tmp_path / "out"
    result = cli(
        "session", "--tasks", tasks, "--arm", "B", "--fault", "0,100", "--budget-usd", "5", "--results", out
    )
    assert result.code == 0, result.err
    records = records_of(out)
    calm, stormy = only(records, "eu-latency", "B", 0), only(records, "eu-latency", "B", 100)
    assert [call.fault for call in calm.calls] == [None] * 3
    assert metrics_of(records, calm).bad_calls == 0  # repeating a call that worked is no bad call
    assert all(call.fault is not None and call.result.is_error for call in stormy.calls)
    assert [call.call_number for call in stormy.calls] == [1, 2, 3]
    metrics = metrics_of(records, stormy)
    assert (metrics.repeated_after_error, metrics.insistence, metrics.bad_calls) == (0, 1, 1)
    assert any("<!DOCTYPE html>" in call.result.text or "502" in call.result.text for call in stormy.calls)


def test_an_injected_timeout_holds_the_call_for_the_step_timeout(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Text("No answer."),
    ]
    faults = {"levels": [{"percent": 100, "kinds": ["timeout"]}]}
    timeouts = {"step_seconds": 0.4, "session_seconds": 30}
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS], faults=faults, timeouts=timeouts)
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    [call] = only(records_of(tmp_path / "out"), "eu-latency", "A", 100).calls
    assert call.fault == "timeout" and call.error == "timeout" and call.latency_ms >= 400
    assert call.result.text == "The tool call timed out: no answer within 0.4 s."
    sent = anthropic_fake.model_requests()[-1].json["messages"][-1]["content"][0]
    assert sent["is_error"] is True and sent["content"][0]["text"] == call.result.text


def test_openai_sessions_count_arguments_that_are_no_json_as_schema_refusals(
    tmp_path: Path, ops_url: str, openai_fake: FakeOpenAI, cli: Cli
) -> None:
    openai_fake.sessions[MISSING_JOB["prompt"]] = [
        OCall("get_sync_job", {"job_id": "SYNC-404"}),
        [
            RawArguments("get_sync_job", '{"job_id": "SYNC-404"'),
            OCall("get_sync_job", {"job_id": "SYNC-404"}),
        ],
        OText("That job does not exist."),
    ]
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB])
    result = cli(
        "session", "--tasks", tasks, "--arm", "B", "--model", "gpt-4.1", "--budget-usd", "5",
        "--results", tmp_path / "out", "--count-tokens",
    )  # fmt: skip
    assert result.code == 0, result.err
    # Chat Completions has no free token count: said once, as --dry says it, and reserved by the estimate
    note = "note: --count-tokens needs the anthropic provider and ANTHROPIC_API_KEY; using a local estimate"
    assert result.err.count(note) == 1
    assert "- note: --count-tokens needs the anthropic provider" in result.out  # the report says it too
    records = records_of(tmp_path / "out")
    assert records.header.provider == "openai" and records.header.model == "gpt-4.1"
    record = only(records, "missing-job", "B")
    broken = record.calls[1]
    assert broken.error == "invalid_arguments" and broken.raw_arguments == '{"job_id": "SYNC-404"'
    assert broken.result.text.startswith("The arguments are not a JSON object, so the tool was not called")
    metrics = metrics_of(records, record)
    assert (metrics.repeated_after_error, metrics.schema_rejected, metrics.insistence) == (1, 1, 0)
    assert metrics.bad_calls == 2 and metrics.answer_correct is True
    # each tool call id got its tool message, the error text as the server sent it
    last = openai_fake.model_requests()[-1].json["messages"]
    tool_messages = [message for message in last if message["role"] == "tool"]
    assert len(tool_messages) == 3
    assert (
        "does not exist" in tool_messages[0]["content"]
        and tool_messages[0]["content"] == record.calls[0].result.text
    )


def test_summary_over_both_arms_and_the_a_minus_b_difference(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.sessions[MISSING_JOB["prompt"]] = [
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Text("It does not exist."),
    ]
    anthropic_fake.sessions[SALESFORCE["prompt"]] = [
        Call("get_sync_job", {"job_id": "SYNC-7"}),
        Text("Reconnect it."),
    ]
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB, SALESFORCE])
    result = cli(
        "session", "--tasks", tasks, "--runs", "2", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    records = records_of(tmp_path / "out")
    summary = summarize(records.headers, records.sessions)
    assert summary.planned == summary.finished == 8 and not summary.preliminary
    # run by run, task by task, the arms side by side, which goes first alternating (A B, then B A, …)
    assert [(r.key.run, r.key.task_id, r.key.arm) for r in records.sessions] == [
        (run, task, arm)
        for run in (1, 2)
        for task in ("missing-job", "salesforce-sync")
        for arm in ("AB" if task == "missing-job" else "BA")
    ]
    for cell in summary.cells:
        assert cell.bad_calls.mean == 0.5 and cell.bad_calls.n == 4  # 1 in missing-job, 0 in salesforce
        assert cell.accuracy.hits == cell.accuracy.total == 4
    [difference] = summary.differences
    assert difference.pairs == 4 and difference.bad_calls.mean == 0.0 and difference.bad_calls.low == 0.0
    # Four pairs right in both arms: no difference, but four pairs cannot show a small one either
    # (Newcombe's paired interval; a t interval on the 0/±1 differences said [+0, +0]).
    assert "| 0% | 4 | +0.00 [+0.00, +0.00] | +0 pts [-49, +49] |" in result.out
    assert (
        "| <code>missing-job</code> | repeat\\_after\\_error | 1.00 [1.00, 1.00] | 1.00 [1.00, 1.00] |"
        in result.out
    )


def test_both_arms_meet_the_same_faults_at_the_same_calls(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    from mcp_evals.session.faults import fault_for
    from mcp_evals.session.model import FaultLevel

    level = FaultLevel(percent=50, kinds=["upstream_502", "is_error"])
    expected = [fault_for(5, level, "get_service_status", number) for number in range(1, 7)]
    assert None in expected and any(expected)  # a mixed draw: the test means something
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        *[Call("get_service_status", {"region": region}) for region in ("eu", "us", "ap", "eu", "us", "ap")],
        Text("EU is degraded."),
    ]
    faults = {"seed": 5, "levels": [{"percent": 50, "kinds": ["upstream_502", "is_error"]}]}
    eu = {**EU_STATUS, "max_steps": 10}
    tasks = write_tasks(tmp_path, ops_url, [eu], faults=faults)
    result = cli(
        "session", "--tasks", tasks, "--runs", "2", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 0, result.err
    records = records_of(tmp_path / "out")
    patterns = {(r.key.arm, r.key.run): [call.fault for call in r.calls] for r in records.sessions}
    assert set(map(tuple, patterns.values())) == {tuple(expected)}  # both arms, both runs
