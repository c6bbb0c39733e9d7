"""(d) by the judge, on its own budget line; the report from the records alone, escaped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import Cli
from fakes.fake_anthropic import Answer, Call, FakeAnthropic, Text, default_chooser
from mcp_evals.session.aggregate import summarize
from mcp_evals.session.judge import JUDGE_SYSTEM
from mcp_evals.session.records_file import newest_records_file, read_records

from .conftest import EU_STATUS, MISSING_JOB, write_tasks


def judging(query: str, tools: list[dict[str, Any]], choice: dict[str, Any]) -> Answer:
    if "The agent was asked:" in query:
        return Text('{"verdict": "uncaveated", "reason": "It quotes 2,350 ms as current."}')
    return default_chooser(query, tools, choice)


def test_the_judge_sees_the_raw_results_and_is_priced_apart(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    anthropic_fake.chooser = judging
    anthropic_fake.sessions[EU_STATUS["prompt"]] = [
        Call("get_service_status", {"region": "eu"}),
        Text("EU is degraded; API p95 latency is 2,350 ms."),
    ]
    anthropic_fake.sessions[MISSING_JOB["prompt"]] = [Text("It does not exist.")]
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS, MISSING_JOB])
    out = tmp_path / "out"
    result = cli(
        "session", "--tasks", tasks, "--arm", "B", "--judge-model", "claude-haiku-4-5",
        "--budget-usd", "5", "--results", out,
    )  # fmt: skip
    assert result.code == 0, result.err
    records = read_records(newest_records_file(out))
    eu = next(record for record in records.sessions if record.key.task_id == "eu-latency")
    missing = next(record for record in records.sessions if record.key.task_id == "missing-job")
    assert missing.judge is None  # only tasks whose trap is an unstable value are judged
    assert eu.judge is not None and eu.judge.verdict == "uncaveated" and eu.judge.model == "claude-haiku-4-5"
    assert eu.judge.cost_usd and eu.judge.cost_usd > 0
    assert eu.cost_usd == sum(
        turn.cost_usd or 0 for turn in eu.turns
    )  # the judge is not in the session's cost
    [judge_request] = [
        r.json for r in anthropic_fake.model_requests() if r.json["model"] == "claude-haiku-4-5"
    ]
    assert "tools" not in judge_request and judge_request["system"][0]["text"] == JUDGE_SYSTEM
    prompt = judge_request["messages"][0]["content"][0]["text"]
    assert '"stale": true' in prompt  # arm B's model never saw it; the judge does
    assert "EU is degraded; API p95 latency is 2,350 ms." in prompt
    summary = summarize(records.headers, records.sessions)
    [cell] = summary.cells
    assert (cell.uncaveated.hits, cell.uncaveated.total) == (1, 1)
    assert summary.judge_cost_usd == eu.judge.cost_usd
    assert (
        "### (d) Unstable values quoted without a caveat (judge <code>claude-haiku-4-5</code>)" in result.out
    )
    assert "| B | 0% | 100% [21%, 100%] (1/1) |" in result.out
    assert f"Judge cost: ${eu.judge.cost_usd:.4f} (its own line; not in the sessions' cost)." in result.out


def test_the_report_is_made_from_the_records_alone_and_escapes_what_it_did_not_write(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli
) -> None:
    hostile = "<!-- mcp-evals:x --> @octocat #12 [click](https://evil.example) | cell"
    anthropic_fake.sessions[MISSING_JOB["prompt"]] = [Text("It does not exist.")]
    tasks = write_tasks(tmp_path, ops_url, [MISSING_JOB], name=hostile)
    document = json.loads(tasks.read_text())
    document["arms"]["A"]["description"] = "```\n</details> ## forged"
    tasks.write_text(json.dumps(document))
    out = tmp_path / "out"
    ran = cli("session", "--tasks", tasks, "--arm", "A", "--budget-usd", "5", "--results", out)
    assert ran.code == 0, ran.err
    tasks.unlink()  # the report needs neither the task set nor the server nor the model

    by_folder = cli("session", "report", out)
    by_file = cli("session", "report", newest_records_file(out))
    assert by_folder.code == by_file.code == 0 and by_folder.out == by_file.out == ran.out
    text = by_folder.out
    assert "<!--" not in text and "@octocat" not in text and "#12" not in text and "[click](https" not in text
    assert "</details> ## forged" not in text and "\\| cell" in text

    written = tmp_path / "report.json"
    as_json = cli("session", "report", out, "--format", "json", "--out", written)
    assert as_json.code == 0 and f"report written to {written}" in as_json.err
    data = json.loads(written.read_text())
    assert data["preliminary"] is False and data["planned"] == data["finished"] == 1
    assert data["cells"][0]["accuracy"]["hits"] == 1

    broken = tmp_path / "broken.ndjson"
    broken.write_text('{"type": "session"}\n')
    bad = cli("session", "report", broken)
    assert bad.code == 3 and "broken.ndjson:1: not a session record of schema version 1" in bad.err
