"""`llm_judge` against a fake OpenAI-compatible API on loopback: judged, under a budget, or skipped."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from fakes.fake_openai import FakeOpenAI, Text
from mcp_evals.config.model import JudgeOptions
from mcp_evals.contract.judge import Judge, verdict

from .conftest import Project, case_of, everything, step_of


def grade(query: str, tools: list[dict[str, Any]], tool_choice: Any) -> Any:
    if "UNREADABLE" in query:
        return Text("I would say it is pretty good.")
    score = 0.9 if "Echo: hello" in query or "GOOD" in query else 0.2
    return Text(f'{{"score": {score}, "reason": "compared with the expectation"}}')


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    server = FakeOpenAI(chooser=grade).start()
    try:
        yield server
    finally:
        server.stop()


def environ(fake: FakeOpenAI | None) -> dict[str, str]:
    values = {
        key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "LLM_JUDGE_"))
    }
    if fake is not None:
        assert fake.key is not None
        values.update({"OPENAI_API_KEY": fake.key, "OPENAI_BASE_URL": f"{fake.base_url}/v1"})
    return values


def judged_case(project: Project, output: str, **judge: Any) -> None:
    template = "Does this answer greet the user? Answer: {actual}. Expected: {expected}"
    project.case(
        f"judged {output}",
        [
            {
                "id": "answer",
                "tool": "reply",
                "expected_output": output,
                "expect": {"llm_judge": {"prompt_template": template, "min_score": 0.7, **judge}},
            }
        ],
    )


def test_the_judge_passes_and_fails_steps_within_its_budget(project: Project, fake: FakeOpenAI) -> None:
    judged_case(project, "GOOD morning")
    judged_case(project, "go away")
    judge = Judge(JudgeOptions(budget_usd=1.0), environ(fake))
    run = project.run(judge=judge)
    good = step_of(run, "judged GOOD morning", "answer")
    bad = step_of(run, "judged go away", "answer")
    assert (
        good.status == "passed"
        and good.assertions[0].message == "score 0.9 ≥ 0.7: compared with the expectation"
    )
    assert (
        bad.status == "failed"
        and bad.assertions[0].message == "score 0.2 < 0.7: compared with the expectation"
    )
    requests = fake.model_requests()
    assert len(requests) == 2
    body = requests[0].json
    assert body["model"] == "gpt-5.4-mini"
    assert "max_completion_tokens" in body  # a reasoning model's limit
    assert "Does this answer greet the user? Answer: GOOD morning. Expected: GOOD morning" in {
        request.query for request in requests
    }
    assert run.judge.requests == 2 and 0 < run.judge.cost_usd < 1.0


def test_without_a_key_or_a_budget_the_step_is_skipped_never_passed(
    project: Project, fake: FakeOpenAI
) -> None:
    judged_case(project, "GOOD morning")
    no_key = project.run(judge=Judge(JudgeOptions(budget_usd=1.0), environ(None)))
    step = step_of(no_key, "judged GOOD morning", "answer")
    assert step.status == "skipped"
    assert step.assertions[0].message == "OPENAI_API_KEY is not set: the judge was not asked"
    assert case_of(no_key, "judged GOOD morning").status == "skipped" and no_key.ok
    no_budget = project.run(judge=Judge(JudgeOptions(), environ(fake)))
    assert (
        step_of(no_budget, "judged GOOD morning", "answer")
        .assertions[0]
        .message.startswith("no judge budget")
    )
    assert fake.model_requests() == []


def test_a_budget_the_next_request_could_cross_stops_the_judge(project: Project, fake: FakeOpenAI) -> None:
    judged_case(project, "GOOD morning")
    run = project.run(judge=Judge(JudgeOptions(budget_usd=0.0001), environ(fake)))
    message = step_of(run, "judged GOOD morning", "answer").assertions[0].message
    assert message == "the judge budget ($0.0001) could be crossed by this request: not asked"
    assert fake.model_requests() == []


def test_an_answer_without_a_score_is_skipped(project: Project, fake: FakeOpenAI) -> None:
    judged_case(project, "UNREADABLE")
    run = project.run(judge=Judge(JudgeOptions(budget_usd=1.0), environ(fake)))
    assert step_of(run, "judged UNREADABLE", "answer").assertions[0].message == (
        "the judge's answer holds no score from 0 to 1"
    )


def test_the_judge_reads_a_live_output(project: Project, fake: FakeOpenAI) -> None:
    expect = {"llm_judge": {"prompt_template": "Is this a greeting? {actual}", "min_score": 0.5}}
    project.case(
        "live judged",
        [
            {"id": "echo", "tool": "echo", "input": {"message": "hello"}, "expect": expect},
            {
                "id": "rude",
                "tool": "echo",
                "input": {"message": "go away"},
                "expect": json.loads(json.dumps(expect)),
            },
        ],
        server=everything(),
        continue_on_failure=True,
    )
    run = project.run(judge=Judge(JudgeOptions(budget_usd=1.0), environ(fake)))
    assert step_of(run, "live judged", "echo").status == "passed"
    assert step_of(run, "live judged", "rude").status == "failed"
    assert [request.query for request in fake.model_requests()] == [
        "Is this a greeting? Echo: hello",
        "Is this a greeting? Echo: go away",
    ]


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ('{"score": 1}', "passed"),
        ('text {"score": 0.69} text', "failed"),
        ('{"score": 2}', "skipped"),
        ('{"score": true}', "skipped"),
    ],
)
def test_reading_the_judges_answer(answer: str, status: str) -> None:
    assert verdict(answer, 0.7).status == status


def test_the_cli_budget_flag_and_a_missing_key(
    project: Project, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.validate_helpers import run_main

    for key in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "LLM_JUDGE_API_KEY", "LLM_JUDGE_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(project.root)
    judged_case(project, "GOOD morning")
    outcome = run_main(capsys, "contract", "--judge-budget-usd", "0.5", "--no-history")
    assert outcome.code == 0
    assert "SKIP  judged GOOD morning" in outcome.out
    assert "skipped answer: llm_judge — OPENAI_API_KEY is not set: the judge was not asked" in outcome.out


def test_the_judge_reads_mcp_eval_runners_variables_as_a_pair(project: Project, fake: FakeOpenAI) -> None:
    judged_case(project, "GOOD morning")
    assert fake.key is not None
    runner_pair = {
        **environ(None),
        "LLM_JUDGE_API_KEY": fake.key,
        "LLM_JUDGE_BASE_URL": f"{fake.base_url}/v1",
        # OpenAI's pair is set too: with LLM_JUDGE_* given it is not read, so this key goes nowhere.
        "OPENAI_API_KEY": "sk-openai-must-not-be-sent",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    }
    run = project.run(judge=Judge(JudgeOptions(budget_usd=1.0), runner_pair))
    assert step_of(run, "judged GOOD morning", "answer").status == "passed"
    [request] = fake.model_requests()
    assert request.headers.get("authorization") == f"Bearer {fake.key}"
    # A base URL alone selects the pair: the OpenAI key is never sent to that endpoint.
    url_only = {**runner_pair}
    del url_only["LLM_JUDGE_API_KEY"]
    judge = Judge(JudgeOptions(budget_usd=1.0), url_only)
    assert judge.key is None and judge.base_url == f"{fake.base_url}/v1"
