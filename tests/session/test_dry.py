"""`mcp-evals session --dry` end to end on the real example server: nothing billable is sent."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, Cli
from fakes.fake_anthropic import Call, FakeAnthropic, Text
from mcp_evals.session.aggregate import summarize
from mcp_evals.session.record import SessionHeader, SessionRecord
from mcp_evals.session.records_file import newest_records_file, read_records

from .conftest import EU_STATUS, SALESFORCE, write_tasks

TASKS = EXAMPLES / "helpdesk" / "evals" / "session" / "tasks.yaml"


@pytest.fixture(autouse=True)
def python_with_mcp(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example runs `python server.py`: the interpreter of the tests, which has `mcp`."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def test_the_example_task_set_validates_against_the_live_example_server(cli: Cli) -> None:
    result = cli("session", "validate", "--tasks", TASKS)
    assert result.code == 0, result.err
    assert result.out.strip() == "ok: 6 tasks against 25 tools · 0 errors, 0 warnings"


def test_dry_plays_the_scripts_on_the_real_server_and_estimates_the_cost(
    cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    result = cli("session", "--tasks", TASKS, "--dry", "--limit", "2", "--budget-usd", "0.2")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert (
        lines[0]
        == "mcp-evals session --dry: nothing billable is sent (Anthropic Messages API, model claude-opus-4-8)"
    )
    assert "tokens from a local estimate (±20%)" in lines
    played = [line for line in lines if line.startswith("  ") and " · arm " in line]
    assert [line.split(":")[0].strip() for line in played] == [
        "eu-latency · arm A",
        "eu-latency · arm B",
        "salesforce-sync · arm A",
        "salesforce-sync · arm B",
    ]
    # arm B's model sees the results without `diagnostics`: fewer tokens for the same call
    tokens = [int(re.search(r"get_\w+ ([\d,]+) tokens", line).group(1).replace(",", "")) for line in played]  # type: ignore[union-attr]
    assert tokens[1] < tokens[0] and tokens[3] < tokens[2]
    assert all(
        re.search(r"2 turns · .* · \$\d+\.\d{4} \(\$\d+\.\d{4} without caching\)$", line) for line in played
    )
    assert "planned run: 2 tasks × 2 arms × 2 fault levels × 1 run = 8 sessions" in lines
    total = re.search(r"\$(\d+\.\d{4}) for the planned run with caching", result.out)
    assert total is not None and float(total.group(1)) > 0
    assert re.search(r"budget \$0\.2: a live run would stop after about \d of 8 sessions", result.out)
    assert "output assumed 120 tokens a turn" in result.out
    roomy = cli("session", "--tasks", TASKS, "--dry", "--limit", "1", "--arm", "A", "--budget-usd", "100")
    assert re.search(r"budget \$100: the planned run fits \(about \$\d+\.\d{4}\)", roomy.out)
    # one session costs about $0.04, but its first request reserves about $0.065 (input as a cache
    # write, 1,024 output tokens): a live run under $0.05 stops before it, and --dry says so
    tight = cli(
        "session", "--tasks", TASKS, "--dry", "--limit", "1", "--arm", "A", "--fault", "0",
        "--budget-usd", "0.05",
    )  # fmt: skip
    assert "budget $0.05: a live run would stop before its first request (PRELIMINARY)" in tight.out
    assert "faults add turns" in result.out and "faults add turns" not in tight.out  # --fault 0: none
    assert "warning" not in result.err  # every script call worked as its task says


def test_dry_counts_tokens_with_the_free_endpoint_when_asked_and_never_asks_the_model(
    cli: Cli, anthropic_fake: FakeAnthropic
) -> None:
    result = cli("session", "--tasks", TASKS, "--dry", "--count-tokens", "--limit", "1", "--arm", "B")
    assert result.code == 0, result.err
    assert "tokens counted with Anthropic's free count_tokens endpoint" in result.out
    assert anthropic_fake.model_requests() == []  # nothing billable
    counted = [request for request in anthropic_fake.requests if request.path == "/v1/messages/count_tokens"]
    # two requests (the call's turn and the answer's), the tool result, and the empty baseline
    assert len(counted) == 4
    assert all("max_tokens" not in request.json for request in counted)
    played = next(line for line in result.out.splitlines() if line.startswith("  eu-latency · arm B"))
    assert "2 turns" in played


def test_dry_without_a_key_uses_the_provider_of_the_model_asked_for(
    cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    result = cli("session", "--tasks", TASKS, "--dry", "--limit", "1", "--arm", "B", "--model", "gpt-5.4")
    assert result.code == 0, result.err
    assert result.out.startswith(
        "mcp-evals session --dry: nothing billable is sent "
        "(OpenAI-compatible Chat Completions, model gpt-5.4)"
    )


def _read(folder: Path) -> tuple[list[SessionHeader], list[SessionRecord]]:
    records = read_records(newest_records_file(folder))
    return records.headers, records.sessions


def dry_verdict(out: str) -> int | None:
    """How many sessions `--dry` says a live run under its budget finishes (None: all of them)."""
    if re.search(r"budget \$[\d.]+: the planned run fits", out):
        return None
    if re.search(
        r"budget \$[\d.]+: a live run would stop (before its first request|in its first session)", out
    ):
        return 0
    stops = re.search(r"budget \$[\d.]+: a live run would stop after about (\d+) of \d+ sessions", out)
    assert stops is not None, out
    return int(stops.group(1))


@pytest.mark.parametrize(
    ("budget", "verdict"),
    [
        ("0.05", "stop before its first request"),
        ("0.08", "stop in its first session, after 1 request"),
        ("0.2", "the planned run fits"),
    ],
)
def test_dry_and_the_live_run_agree_on_where_the_budget_stops_it(
    tmp_path: Path, ops_url: str, anthropic_fake: FakeAnthropic, cli: Cli, budget: str, verdict: str
) -> None:
    """`--dry` replays the live rule (each request reserves its worst case: its input as a cache write
    and output at max_tokens), so where it says a budget stops a run is where the live run stops.
    (Near the edge the two may differ by a session: --dry assumes 120 output tokens a turn.)"""
    for task, call in ((EU_STATUS, {"region": "eu"}), (SALESFORCE, {"job_id": "SYNC-7"})):
        tool = task["script"][0]["tool"]  # type: ignore[index]
        anthropic_fake.sessions[str(task["prompt"])] = [Call(tool, call), Text("Done: here is what I found.")]
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS, SALESFORCE], arms={})
    dry = cli("session", "--tasks", tasks, "--dry", "--budget-usd", budget)
    assert dry.code == 0, dry.err
    assert f"budget ${budget}: " in dry.out and verdict in dry.out
    assert anthropic_fake.model_requests() == []
    said = dry_verdict(dry.out)
    live = cli("session", "--tasks", tasks, "--budget-usd", budget, "--results", tmp_path / "out")
    summary = summarize(*_read(tmp_path / "out"))
    if said is None:
        assert live.code == 0, live.err
        assert summary.finished == summary.planned == 4
    else:
        assert live.code == 2, live.err
        assert (summary.finished, summary.budget_stops) == (said, 1)
    requests = len(anthropic_fake.model_requests())
    if "before its first request" in verdict:
        assert requests == 0
    elif "after 1 request" in verdict:
        assert requests == 1


def plain_tasks(tmp_path: Path, field: str) -> Path:
    """A task set on a server whose tools declare no output schema, arm B removing ``field``."""
    document = {
        "server": {"command": "python", "args": [str(Path(__file__).parent / "plain_server.py")]},
        "system_prompt": "You help.",
        "arms": {"B": {"transforms": [{"remove_field": field}]}},
        "tasks": [
            {
                "id": "job",
                "prompt": "Check SYNC-7.",
                "script": [{"tool": "get_job", "arguments": {"job_id": "SYNC-7"}}],
            }
        ],
    }
    path = tmp_path / "tasks.yaml"
    path.write_text(json.dumps(document, indent=2))
    return path


def test_dry_warns_when_a_transform_removed_nothing_from_the_results_of_tools_without_output_schemas(
    tmp_path: Path, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    typo = plain_tasks(tmp_path, "diagnostic")
    validated = cli("session", "validate", "--tasks", typo)
    assert validated.code == 0 and "0 errors, 0 warnings" in validated.out  # no output schema to check
    result = cli("session", "--tasks", typo, "--dry")
    assert result.code == 0, result.err
    assert (
        "warning: arm B: remove_field 'diagnostic' removed nothing from the 1 tool result the scripts "
        "got, so arm B's model saw them as the server sent them — did you mean 'diagnostics'?"
    ) in result.err
    right = cli("session", "--tasks", plain_tasks(tmp_path, "diagnostics.retryable"), "--dry")
    assert right.code == 0 and "removed nothing" not in right.err


def test_validate_and_the_run_warn_of_a_removed_field_no_output_schema_has(
    tmp_path: Path, ops_url: str, cli: Cli, clean_env: pytest.MonkeyPatch
) -> None:
    arms = {"B": {"transforms": [{"remove_field": "diagnostic"}]}}
    tasks = write_tasks(tmp_path, ops_url, [EU_STATUS], arms=arms)
    warning = (
        "no tool's output schema has a field 'diagnostic' (25 of 25 tools declare one): the transform may "
        "remove nothing, leaving arm B the same as arm A — did you mean 'diagnostics'?"
    )
    validated = cli("session", "validate", "--tasks", tasks)
    assert validated.code == 0, validated.out  # a warning: the field may still come where no schema says
    assert warning in validated.out and "0 errors, 1 warning" in validated.out
    dry = cli("session", "--tasks", tasks, "--dry", "--arm", "B")
    assert dry.code == 0 and warning in dry.err  # the run's own validation says it too
    assert "remove_field 'diagnostic' removed nothing" in dry.err
