"""``api.improve``: the plan (what is read, in which order, and what the cap keeps), ``--dry``'s
estimate and the execution, called as a library; the model is the wordy model on the fake
Anthropic API on loopback (tests/improve/wordy.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from fakes.fake_anthropic import FakeAnthropic
from improve.conftest import MakeImproveProject
from mcp_evals.api.improve import (
    ImproveOutcome,
    ImprovePlan,
    ImproveRequest,
    estimate_improve,
    execute_improve,
    plan_improve,
)
from mcp_evals.config.load import load_config
from mcp_evals.errors import ConfigError, InputFileError
from mcp_evals.improve.estimate import in_flight
from mcp_evals.run.spending import MissingKey


def planned(request: ImproveRequest) -> ImprovePlan:
    plan = plan_improve(request)
    assert isinstance(plan, ImprovePlan), plan
    return plan


def test_a_results_file_is_read_before_the_key_and_the_catalog(
    tmp_path: Path, clean_env: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "server-started"
    config_path = tmp_path / "mcp-evals.yaml"
    server = {"name": "s", "command": sys.executable, "args": ["-c", f"open({str(marker)!r}, 'w')"]}
    config_path.write_text(yaml.safe_dump({"servers": [server], "fixtures": "f/*.yaml"}), "utf-8")
    missing = tmp_path / "missing.ndjson"

    with pytest.raises(InputFileError) as caught:
        plan_improve(ImproveRequest(config=load_config(config_path), results=missing, environ={}))

    assert caught.value.message == f"{missing}: file not found"
    assert caught.value.hint is not None and "leave --results out" in caught.value.hint
    assert not marker.exists()  # the server never started


def test_a_model_without_its_key_is_returned_not_raised_and_nothing_is_read(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch
) -> None:
    project = improve_project()  # run.model: claude-sonnet-4-6

    plan = plan_improve(ImproveRequest(config=load_config(project.config), environ={}))

    assert isinstance(plan, MissingKey) and plan.kind == "model" and plan.variables == ("ANTHROPIC_API_KEY",)
    assert "mcp-evals improve: skipped: the model claude-sonnet-4-6 needs ANTHROPIC_API_KEY" in plan.message(
        "improve"
    )


def test_the_lexical_loop_plans_nothing_priced_and_executes_into_its_files(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch
) -> None:
    project = improve_project(vague=True)
    said: list[str] = []
    request = ImproveRequest(
        config=load_config(project.config), provider="lexical", out=project.out, environ={}, say=said.append
    )

    plan = planned(request)

    assert plan.costs is None and plan.settings.costs is None and plan.evaluator.lexical
    assert plan.evaluator.settings.model == "bm25" and plan.concurrency == 4
    assert estimate_improve(plan)[-1] == "the lexical baseline and the rule-based rewriter: no model, no cost"
    assert not project.out.exists()  # planning writes nothing
    outcome = execute_improve(plan, say=said.append)
    assert isinstance(outcome, ImproveOutcome) and outcome.exit_code == 0
    assert outcome.markdown == (project.out / "improve.md").read_text("utf-8")
    assert outcome.json == (project.out / "improve.json").read_text("utf-8")
    assert outcome.report.lexical and outcome.report.accepted and outcome.report.comparison is not None
    assert said[0].startswith("mcp-evals improve: lexical/bm25 · 22 tools · 56 fixtures")


def test_a_capped_plan_keeps_the_proposals_and_the_proof_first(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic
) -> None:
    project = improve_project(vague=True, run={"max_tokens": 64})
    config = load_config(project.config)

    plan = planned(ImproveRequest(config=config, budget_usd=5))

    costs = plan.costs
    assert costs is not None and plan.settings.costs == costs  # the loop gets the shares
    assert 0 < costs.proposals < costs.proposals_kept and 0 < costs.proof < costs.proof_kept
    assert costs.kept == costs.proposals_kept + costs.proof_kept < costs.total < costs.worst
    assert costs.proposals_kept == pytest.approx(costs.proposals + costs.proposer_request)  # one in flight
    assert costs.proof_request > costs.eval_request > 0  # catalog B is longer
    assert plan.settings.kept_for_proof == costs.proof_kept
    assert wordy_api.requests == []  # planning sends nothing
    # --dry plans the same shares (and sends nothing either)
    assert planned(ImproveRequest(config=config, budget_usd=5, dry=True)).costs == costs


def test_a_cap_below_the_shares_is_refused_with_the_estimate_and_dry_says_so(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic
) -> None:
    project = improve_project(vague=True, run={"max_tokens": 64})
    config = load_config(project.config)
    costs = planned(ImproveRequest(config=config, budget_usd=5)).costs
    assert costs is not None
    cap = round(costs.kept * 0.9, 4)

    with pytest.raises(ConfigError) as caught:
        plan_improve(ImproveRequest(config=config, budget_usd=cap, out=project.out))

    assert f"a budget of ${cap:g} cannot pay for the proposals and the proof" in caught.value.message
    assert f"proposals ${costs.proposals:,.4f}, proof ${costs.proof:,.4f}" in caught.value.message
    assert f"the dev run ${costs.dev:,.4f} more" in caught.value.message
    assert wordy_api.requests == [] and not project.out.exists()
    dry = planned(ImproveRequest(config=config, budget_usd=cap, dry=True))
    assert estimate_improve(dry)[-1].startswith(f"budget ${cap:g}: below the estimate of the proposals")
    enough = planned(ImproveRequest(config=config, budget_usd=round(costs.kept + costs.dev / 2, 4), dry=True))
    assert "the dev run gets the rest" in estimate_improve(enough)[-1]
    assert wordy_api.requests == []


@pytest.mark.parametrize(
    ("share", "expected", "request_cost", "most", "sent"),
    [
        (None, 1.0, 0.1, 4, 4),  # uncapped: as many as asked
        (1.1, 1.0, 0.1, 4, 1),  # the estimate and one worst case: one at a time
        (1.05, 1.0, 0.1, 4, 1),  # less: still one (the phase stops if it must)
        (1.25, 1.0, 0.1, 4, 2),
        (9.0, 1.0, 0.1, 4, 4),  # room for more than asked
        (1.0, 1.0, 0.0, 4, 4),  # nothing priced
    ],
)
def test_a_phase_sends_as_many_side_by_side_as_its_share_holds(
    share: float | None, expected: float, request_cost: float, most: int, sent: int
) -> None:
    assert in_flight(share, expected, request_cost, most) == sent
