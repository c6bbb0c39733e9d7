"""`mcp-evals session --dry` end to end on the real example server: nothing billable is sent."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from conftest import EXAMPLES, Cli
from fakes.fake_anthropic import FakeAnthropic

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
    assert "planned run: 2 tasks × 2 arms × 2 fault levels × 1 run(s) = 8 sessions" in lines
    total = re.search(r"\$(\d+\.\d{4}) for the planned run with caching", result.out)
    assert total is not None and float(total.group(1)) > 0
    assert re.search(r"budget \$0\.2: a live run would stop after about \d of 8 sessions", result.out)
    assert "output assumed 120 tokens a turn" in result.out
    roomy = cli("session", "--tasks", TASKS, "--dry", "--limit", "1", "--arm", "A", "--budget-usd", "100")
    assert re.search(r"budget \$100: the planned run fits \(about \$\d+\.\d{4}\)", roomy.out)
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
