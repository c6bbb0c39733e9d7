"""What stops a session run, and what it keeps: resume after a kill, the budget, dropouts, bad input."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import Cli, cli_environment
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from fakes.fake_http import Malformed, after
from fakes.fake_openai import Call as OCall
from fakes.fake_openai import FakeOpenAI
from fakes.fake_openai import Text as OText
from mcp_evals.session.aggregate import summarize
from mcp_evals.session.records_file import newest_records_file, read_records
from mcp_evals.wording import plural

from .conftest import EU_STATUS, MISSING_JOB, SALESFORCE, write_config, write_tasks

TASKS = [MISSING_JOB, SALESFORCE, EU_STATUS]


def script_all(fake: FakeAnthropic) -> None:
    fake.sessions[MISSING_JOB["prompt"]] = [
        Call("get_sync_job", {"job_id": "SYNC-404"}),
        Text("It does not exist."),
    ]
    fake.sessions[SALESFORCE["prompt"]] = [Call("get_sync_job", {"job_id": "SYNC-7"}), Text("Reconnect it.")]
    fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Text("EU is degraded."),
    ]


def requests_for(fake: FakeAnthropic, prompt: str) -> int:
    return sum(1 for request in fake.model_requests() if prompt in request.body.decode())


def test_resume_after_a_kill_runs_only_the_unfinished_sessions(
    tmp_path: Path, ops_url: str, cli: Cli
) -> None:
    fake = FakeAnthropic(latency=0.4).start()
    try:
        script_all(fake)
        tasks = write_tasks(tmp_path, ops_url, TASKS)
        out = tmp_path / "out"
        args = ["session", "--tasks", str(tasks), "--arm", "A", "--budget-usd", "5", "--results", str(out)]
        env = cli_environment({"ANTHROPIC_API_KEY": fake.key, "ANTHROPIC_BASE_URL": fake.base_url})
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_evals", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # kill it as soon as one session is recorded
            files = list(out.glob("sessions-*.ndjson")) if out.exists() else []
            if files and '"type":"session"' in files[0].read_text():
                break
            time.sleep(0.05)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        first = read_records(newest_records_file(out))
        finished = {record.key.task_id for record in first.sessions if record.status == "finished"}
        assert 1 <= len(finished) < 3
        before = {task["id"]: requests_for(fake, str(task["prompt"])) for task in TASKS}

        fake.latency = 0.0
        os.environ["ANTHROPIC_API_KEY"], os.environ["ANTHROPIC_BASE_URL"] = fake.key, fake.base_url
        try:
            result = cli(*args)
        finally:
            del os.environ["ANTHROPIC_API_KEY"], os.environ["ANTHROPIC_BASE_URL"]
        assert result.code == 0, result.err
        assert f"resume: {plural(len(finished), 'finished session')} kept" in result.err
        for task in TASKS:
            asked = requests_for(fake, str(task["prompt"])) - before[task["id"]]
            assert asked == (0 if task["id"] in finished else 2), task[
                "id"
            ]  # a finished session never runs again
        records = read_records(newest_records_file(out))
        assert len(records.headers) == 2  # one per run started on the file
        summary = summarize(records.headers, records.sessions)
        assert summary.finished == summary.planned == 3 and not summary.preliminary
    finally:
        fake.stop()


def test_resume_keeps_a_finished_last_record_that_lacks_its_newline(
    tmp_path: Path, ops_url: str, cli: Cli, anthropic_fake: FakeAnthropic
) -> None:
    """A whole last line without its newline (a copied or edited file) is a finished session: the
    rerun keeps it, and appending must not cut it (it did: 1 of 2 sessions, PRELIMINARY)."""
    script_all(anthropic_fake)
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB, SALESFORCE])
    out = tmp_path / "out"
    args = ["session", "--tasks", tasks, "--arm", "A", "--fault", "0", "--budget-usd", "5", "--results", out]
    assert cli(*args).code == 0
    path = newest_records_file(out)
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    result = cli(*args)
    assert result.code == 0, result.err
    assert "resume: 2 finished sessions kept" in result.err and "0 to run" in result.err
    records = read_records(path)
    assert len([record for record in records.sessions if record.status == "finished"]) == 2
    summary = summarize(records.headers, records.sessions)
    assert summary.finished == summary.planned == 2 and not summary.preliminary
    assert path.read_bytes().endswith(b"\n") and path.read_bytes().count(b"\n") == 4  # 2 headers, 2 sessions


def test_a_file_of_another_kind_where_the_records_go_is_refused_and_never_appended_to(
    tmp_path: Path, ops_url: str, cli: Cli, anthropic_fake: FakeAnthropic
) -> None:
    """docs/sessions.md: a results file (of `mcp-evals run`) named like today's records file stops the
    run before any request (exit 3), and stays as it was."""
    script_all(anthropic_fake)
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB])
    out = tmp_path / "out"
    args = ["session", "--tasks", tasks, "--arm", "A", "--fault", "0", "--budget-usd", "5", "--results", out]
    assert cli(*args).code == 0
    path = newest_records_file(out)
    results = (Path(__file__).resolve().parents[1] / "record" / "data" / "results-v1.ndjson").read_bytes()
    path.write_bytes(results)
    asked = len(anthropic_fake.model_requests())
    result = cli(*args)
    assert result.code == 3 and f"{path}:1: unknown line type 'run'" in result.err, result.err
    assert "give a file that `mcp-evals session` wrote" in result.err and "Traceback" not in result.err
    assert path.read_bytes() == results and len(anthropic_fake.model_requests()) == asked


def test_the_budget_stops_the_run_before_the_next_request_could_cross_it(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_all(anthropic_fake)
    tasks = write_tasks(tmp_path, ops_url, TASKS)
    out = tmp_path / "out"
    # claude-opus-4-8 at $5/$25 per million: before each turn its worst case is reserved — the request's
    # estimated input (~6,500 tokens with the margin) as a cache write plus 1,024 output tokens, about
    # $0.066. The first turn fits $0.09; after it ~$0.03 is spent, so the second could cross the cap.
    result = cli("session", "--tasks", tasks, "--arm", "A", "--budget-usd", "0.09", "--results", out)
    assert result.code == 2, result.err
    assert "the budget ($0.09) stopped the run" in result.err
    records = read_records(newest_records_file(out))
    [stopped] = records.sessions
    assert (stopped.status, stopped.error_kind, len(stopped.turns)) == ("budget", "budget", 1)
    assert 0 < (stopped.cost_usd or 0) <= 0.09
    assert len(anthropic_fake.model_requests()) == 1  # the refused request was never sent
    summary = summarize(records.headers, records.sessions)
    assert (summary.finished, summary.budget_stops, summary.not_run) == (0, 1, 2)
    assert summary.cost_usd == stopped.cost_usd  # a stopped session's spending still counts
    assert "(what dropouts and budget stops spent is in the cost)" in result.out  # and the report says so
    assert f"| A | 0% | 0/3 | – | – | – | – | – | – | – | – | 0/0 | ${stopped.cost_usd:.4f} |" in result.out
    assert "⚠️ **PRELIMINARY**" in result.out and "1 stopped by the budget" in result.out
    assert "| A | 0% | 0/3 | – |" in result.out  # no finished session: nothing to aggregate
    assert cli("session", "report", out).code == 2  # the report alone says PRELIMINARY too


def test_a_malformed_answer_is_a_dropout_and_the_run_goes_on(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_all(anthropic_fake)
    anthropic_fake.script(Malformed(), times=2)  # the first turn, and its one retry
    write_config(tmp_path)
    tasks = write_tasks(tmp_path, ops_url, TASKS[:2])
    out = tmp_path / "out"
    result = cli(
        "session", "--config", tmp_path / "mcp-evals.yaml", "--tasks", tasks, "--arm", "A",
        "--budget-usd", "5", "--results", out,
    )  # fmt: skip
    assert result.code == 2, result.err
    assert "Traceback" not in result.err
    first, second = read_records(newest_records_file(out)).sessions
    assert (first.status, first.error_kind) == ("dropout", "invalid_response")
    assert first.turns == []
    assert second.status == "finished"
    assert "Dropouts (not scored): <code>invalid\\_response</code> 1." in result.out


def test_a_revoked_key_stops_the_run_and_later_sessions_are_not_run(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_all(anthropic_fake)
    anthropic_fake.script(anthropic_fake.unauthorized(), when=after(2), times=None)
    tasks = write_tasks(tmp_path, ops_url, TASKS)
    out = tmp_path / "out"
    result = cli("session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", out)
    assert result.code == 2
    assert "stopped by a fatal error: HTTP 401 authentication_error" in result.err
    records = read_records(newest_records_file(out))
    assert [(record.status, record.error_kind) for record in records.sessions] == [
        ("finished", None),
        ("dropout", "auth"),
    ]
    assert anthropic_fake.key not in (newest_records_file(out)).read_text()
    assert summarize(records.headers, records.sessions).not_run == 1


def test_a_session_longer_than_its_timeout_is_a_dropout(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    script_all(anthropic_fake)
    anthropic_fake.latency = 0.6
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS], timeouts={"step_seconds": 5, "session_seconds": 1})
    result = cli(
        "session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", tmp_path / "out"
    )
    assert result.code == 2
    [record] = read_records(newest_records_file(tmp_path / "out")).sessions
    assert (record.status, record.error_kind) == ("dropout", "session_timeout")
    assert record.error_message == "the session took longer than 1 s"


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        ([], {}, "a paid session run needs a budget cap: --budget-usd X or EVAL_BUDGET_USD=X"),
        (
            ["--budget-usd", "1", "--model", "claude-nonesuch-9"],
            {},
            "no price known for model 'claude-nonesuch-9'",
        ),
        (["--budget-usd", "1", "--fault", "0,50"], {}, "the task set defines no 50% level (it has: 0)"),
        ([], {"EVAL_BUDGET_USD": "lots"}, "EVAL_BUDGET_USD='lots': expected a number"),
        (
            ["--budget-usd", "1", "--judge-model", "claude-judge-0"],
            {},
            "no price known for model 'claude-judge-0'",
        ),
    ],
    ids=["no budget", "no price", "unknown fault level", "bad budget variable", "judge without a price"],
)
def test_bad_input_is_one_message_and_exit_3(
    tmp_path: Path,
    ops_url: str,
    anthropic_fake: FakeAnthropic,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    result = cli("session", "--tasks", tasks, "--results", tmp_path / "out", *args)
    assert result.code == 3, result.err
    assert message in result.err and "Traceback" not in result.err
    assert anthropic_fake.model_requests() == []


def test_without_a_key_the_run_is_skipped_and_exits_0(
    tmp_path: Path, ops_url: str, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    result = cli("session", "--tasks", tasks, "--results", tmp_path / "out")
    assert result.code == 0
    assert result.err.startswith("mcp-evals session: skipped: no API key.")
    assert not (tmp_path / "out").exists()
    named = cli("session", "--tasks", tasks, "--provider", "openai", "--budget-usd", "1")
    assert named.code == 0 and "but OPENAI_API_KEY is not set" in named.err


@pytest.mark.parametrize(
    ("args", "env", "edit", "message"),
    [
        ([], {}, ('"max_steps": 6', '"max_step": 6'), "(tasks[0].max_step): unknown key"),
        (["--fault", "0,50"], {}, None, "the task set defines no 50% level (it has: 0)"),
        ([], {"EVAL_BUDGET_USD": "lots"}, None, "EVAL_BUDGET_USD='lots': expected a number"),
        (["--base-url", "localhost:8000"], {}, None, "has no http:// or https:// scheme"),
    ],
    ids=["typo", "unknown fault level", "bad budget variable", "base URL without a scheme"],
)
def test_bad_input_is_exit_3_without_a_key_too(
    tmp_path: Path,
    ops_url: str,
    cli: Cli,
    clean_env: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    edit: tuple[str, str] | None,
    message: str,
) -> None:
    for name, value in env.items():
        clean_env.setenv(name, value)
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    if edit is not None:
        text = tasks.read_text()
        assert edit[0] in text
        tasks.write_text(text.replace(*edit))
    result = cli("session", "--tasks", tasks, "--results", tmp_path / "out", *args)
    assert result.code == 3, result.err
    assert message in result.err and "Traceback" not in result.err
    assert "skipped" not in result.err


def test_an_openai_compatible_endpoint_with_a_key_is_paid_and_needs_a_budget(
    tmp_path: Path, ops_url: str, openai_fake: FakeOpenAI, cli: Cli
) -> None:
    """A key sent to any endpoint (Azure, OpenRouter, a gateway) may bill: the budget rule holds."""
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
    out = tmp_path / "out"
    result = cli("session", "--tasks", tasks, "--provider", "openai", "--arm", "A", "--results", out)
    assert result.code == 3, result.err
    assert "a paid session run needs a budget cap" in result.err
    assert openai_fake.model_requests() == [] and not out.exists()


def test_a_keyless_endpoint_of_your_own_is_free_and_needs_no_budget(
    tmp_path: Path, ops_url: str, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    fake = FakeOpenAI(key=None).start()
    try:
        fake.sessions[EU_STATUS["prompt"]] = [
            OCall("get_service_status", {"region": "eu"}),
            OText("EU is degraded."),
        ]
        tasks = write_tasks(tmp_path, ops_url, [EU_STATUS])
        result = cli(
            "session", "--tasks", tasks, "--provider", "openai", "--base-url", fake.base_url + "/v1",
            "--model", "local-model", "--arm", "A", "--results", tmp_path / "out",
        )  # fmt: skip
        assert result.code == 0, result.err
        assert len(fake.model_requests()) == 2
    finally:
        fake.stop()
