"""``mcp-evals improve`` against a model: the wordy model (tests/improve/wordy.py) on the fake
Anthropic API on loopback, whose choices depend on the words of the descriptions."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml

from conftest import Cli
from fakes.fake_anthropic import FakeAnthropic, Text, anthropic_in_env
from mcp_evals.api.improve import ImprovePlan, ImproveRequest, plan_improve
from mcp_evals.compare.overlay import DescriptionOverlay
from mcp_evals.config.load import load_config
from mcp_evals.improve.estimate import PhaseCosts
from mcp_evals.improve.model import ImproveReport
from mcp_evals.record.read import read_results

from .conftest import MakeImproveProject
from .wordy import Wordy


def report_of(out: Path) -> ImproveReport:
    return ImproveReport.model_validate_json((out / "improve.json").read_text("utf-8"))


def proposer_requests(fake: FakeAnthropic) -> list[str]:
    """The text of every request the proposer sent (those without tools)."""
    return [
        request.body.decode("utf-8")
        for request in fake.model_requests()
        if not (request.json or {}).get("tools")
    ]


def test_on_a_vague_catalog_the_rewrites_are_proven_better_on_the_test_split(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    project = improve_project(vague=True)

    result = cli(
        "improve", "--config", project.config, "--budget-usd", "5", "--pairs", "8", "--out", project.out
    )

    assert result.code == 0, result.err
    report = report_of(project.out)
    assert report.overall == "improved", report.verdict
    low, high = re.search(r"95 % interval \+([\d.]+) to \+([\d.]+)\)", report.verdict).groups()  # type: ignore[union-attr]
    assert 0 < float(low) < float(high)  # the change's interval lies above zero
    pair = report.comparison.pairs[0] if report.comparison else None
    assert pair is not None and len(pair.fixes) >= 6 and len(pair.breaks) == 0 and pair.p_value < 0.05
    # pair by pair: the fixes land on the targeted tools, and no pair is worse (a pair's few test
    # fixtures rarely reach significance alone, after Holm: the overall verdict is the proof)
    assert sum(len(row.fixes) for row in report.verdicts) >= 3
    assert not any(row.verdict == "worse" or row.breaks for row in report.verdicts)
    arms = {arm.arm.name: arm for arm in report.comparison.arms} if report.comparison else {}
    assert arms["B"].score is not None and arms["A"].score is not None and arms["B"].score > arms["A"].score
    assert arms["A"].score_low is not None and arms["B"].score_high is not None  # the intervals
    # what was proposed is what was proven: catalog B is catalog A with the accepted rewrites
    accepted = {proposal.tool: proposal.description for proposal in report.accepted}
    assert accepted and all(not text.startswith("Works with") for text in accepted.values())
    b = read_results(project.out / "proof" / "B.ndjson").header.catalog
    assert {name: b.by_name[name].description for name in accepted} == accepted
    # improve.md: the verdict, each rewrite as a diff, printed and written
    markdown = (project.out / "improve.md").read_text("utf-8")
    assert result.out == markdown
    assert markdown.startswith("## ✅ mcp-evals improve: improved")
    assert "```diff\n-Works with support tickets.\n+" in markdown
    # the overlay reads back as the accepted rewrites, and compare and validate read it
    overlay = DescriptionOverlay.model_validate(
        yaml.safe_load((project.out / "descriptions.improved.yaml").read_text("utf-8"))
    )
    assert overlay.descriptions == accepted
    checked = cli(
        "validate", "--config", project.config, "--descriptions", project.out / "descriptions.improved.yaml"
    )
    assert checked.code == 0, checked.out + checked.err
    before = len(wordy_api.requests)
    dry = cli(
        "compare",
        "--config",
        project.config,
        "--descriptions",
        project.out / "descriptions.improved.yaml",
        "--dry",
        "--budget-usd",
        "1",
    )
    assert dry.code == 0, dry.err
    assert "× 2 arms, interleaved in one run" in dry.out and len(wordy_api.requests) == before


def test_no_test_split_query_reaches_the_proposer(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, wordy: Wordy, cli: Cli
) -> None:
    project = improve_project(vague=True)

    result = cli(
        "improve", "--config", project.config, "--budget-usd", "5", "--pairs", "8", "--out", project.out
    )

    assert result.code == 0, result.err
    test_fixtures = read_results(project.out / "proof" / "A.ndjson").header.fixtures
    dev_fixtures = read_results(project.out / "dev" / "dev.ndjson").header.fixtures
    assert test_fixtures and dev_fixtures
    assert not {fixture.id for fixture in test_fixtures} & {fixture.id for fixture in dev_fixtures}
    sent = proposer_requests(wordy_api)
    assert len(sent) == len(wordy.prompts) == len(report_of(project.out).targets) > 0
    # not one test query, in any request the proposer got (as JSON text, and as the prompt it read)
    for fixture in test_fixtures:
        quoted = fixture.query.replace('"', '\\"')
        assert not any(quoted in body for body in sent), fixture.id
        assert not any(fixture.query in prompt for prompt in wordy.prompts), fixture.id
    # …while dev requests are there: the check is not vacuous
    shown = [fixture for fixture in dev_fixtures if any(fixture.query in prompt for prompt in wordy.prompts)]
    assert len(shown) >= 3


def test_on_the_clean_catalog_most_pairs_show_no_detectable_change(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    project = improve_project()

    result = cli(
        "improve", "--config", project.config, "--budget-usd", "5", "--pairs", "6", "--out", project.out
    )

    assert result.code == 0, result.err
    report = report_of(project.out)
    assert report.accepted  # rewrites were proposed and run: the boundary sentences are new
    verdicts = [row.verdict for row in report.verdicts]
    assert verdicts.count("no detectable change") > len(verdicts) / 2, verdicts
    assert "improved" not in verdicts
    assert report.overall == "no detectable change", report.verdict
    assert "No detectable change" in result.out


def phase_costs_of(config: Path, pairs: int = 5) -> PhaseCosts:
    """What improve would keep for the proposals and the proof (the plan of ``--dry``; nothing sent)."""
    plan = plan_improve(ImproveRequest(config=load_config(config), budget_usd=5, dry=True, pairs=pairs))
    assert isinstance(plan, ImprovePlan) and plan.costs is not None
    return plan.costs


def test_a_cap_below_the_full_cost_cuts_the_dev_run_and_proves_the_rewrites(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    """The proposals' and the proof's shares are kept first: the dev run spends only the rest."""
    project = improve_project(vague=True, run={"max_tokens": 64})
    costs = phase_costs_of(project.config)
    cap = round(costs.kept + 2 * costs.eval_request, 4)
    assert cap < costs.total  # below the estimate of the whole run

    result = cli("improve", "--config", project.config, "--budget-usd", str(cap), "--out", project.out)

    assert result.code == 2, result.err  # incomplete: the dev run did not finish
    assert f"the dev run may spend ${cap - costs.kept:.4f}: ${costs.kept:.4f} is kept for the" in result.err
    dev = read_results(project.out / "dev" / "dev.ndjson")
    assert any(result.error_kind == "budget" for result in dev.results)  # the cap stopped the dev run…
    assert any(result.error_kind is None for result in dev.results)  # …after it had sent some
    report = report_of(project.out)
    assert report.spent_usd is not None and report.spent_usd <= cap
    assert report.proposals and all(p.status != "not proposed" for p in report.proposals)
    assert report.comparison is not None and not report.comparison.preliminary
    for arm in ("A", "B"):  # the proof ran whole, on every test fixture
        proof = read_results(project.out / "proof" / f"{arm}.ndjson")
        assert len(proof.results) == 30 and all(r.error_kind is None for r in proof.results)
    pair = report.comparison.pairs[0]
    assert pair.fixes and not pair.breaks  # the rewrites helped, proven on the whole test split
    assert not report.not_proven
    assert any("the dev run did not finish" in note for note in report.notes)


def test_a_cap_below_the_proposals_and_the_proof_is_refused_before_anything_is_sent(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    project = improve_project(vague=True, run={"max_tokens": 64})
    costs = phase_costs_of(project.config)

    result = cli("improve", "--config", project.config, "--budget-usd", "0.02", "--out", project.out)

    assert result.code == 3, result.err
    assert wordy_api.requests == [] and not project.out.exists()
    assert result.err.startswith(
        "error: mcp-evals improve: a budget of $0.02 cannot pay for the proposals and the proof, which "
        f"need ${costs.kept:,.4f} (estimates: proposals ${costs.proposals:,.4f}, proof ${costs.proof:,.4f}"
    )
    assert "nothing was sent" in result.err
    enough = math.ceil(costs.kept * 100) / 100  # in cents, rounded up: a cap that does
    assert enough >= costs.kept and f"hint: give --budget-usd {enough:.2f} or more" in result.err
    assert "Traceback" not in result.err
    # the same cap, with --dry: what the live run would do, and nothing sent
    dry = cli("improve", "--config", project.config, "--budget-usd", "0.02", "--dry")
    assert dry.code == 0 and wordy_api.requests == []
    below = f"budget $0.02: below the estimate of the proposals and the proof: ${costs.kept:,.4f} kept"
    assert below in dry.out
    assert "improve refuses it (exit 3)" in dry.out


def test_answers_dearer_than_the_estimate_stop_the_proof_worst_pair_first_and_say_what_was_not_proven(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, wordy: Wordy, cli: Cli
) -> None:
    """An API that never caches costs more than the estimate (which counts caching): the proof, kept
    its estimated share, stops before its end; the worst pair's fixtures ran first."""
    with anthropic_in_env(clean_env, chooser=wordy.choose, min_cacheable=10**9):
        project = improve_project(vague=True, run={"max_tokens": 64})
        costs = phase_costs_of(project.config, pairs=10)
        cap = round(costs.kept + costs.eval_request / 2, 4)  # too little for a dev run
        args = ["--budget-usd", str(cap), "--pairs", "10", "--out", project.out]

        result = cli("improve", "--config", project.config, *args)

    assert result.code == 2, result.err  # incomplete
    assert "mcp-evals improve: no dev run: the budget keeps" in result.err
    assert not (project.out / "dev" / "dev.ndjson").exists()
    report = report_of(project.out)
    assert report.targets_from.startswith("no dev run (the budget of")
    assert report.spent_usd is not None and report.spent_usd <= cap
    assert report.proposals and all(p.status != "not proposed" for p in report.proposals)  # all asked
    proof = read_results(project.out / "proof" / "A.ndjson")
    assert any(result.error_kind == "budget" for result in proof.results)  # the cap stopped the proof
    not_proven = report.not_proven
    assert not_proven, [row.verdict for row in report.verdicts]
    for row in not_proven:
        assert f"mcp-evals improve: not proven: {row.label}" in result.err
    markdown = (project.out / "improve.md").read_text("utf-8")
    assert "### Not proven" in markdown and markdown.split("\n")[0].endswith(" (incomplete)")
    # the worst pair's fixtures ran first: it was proven before the cap stopped the rest
    assert report.verdicts[0].verdict != "not proven"


def test_dry_estimates_every_phase_and_sends_nothing(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    project = improve_project(vague=True)

    result = cli("improve", "--config", project.config, "--dry", "--budget-usd", "0.05", "--out", project.out)

    assert result.code == 0, result.err
    assert wordy_api.requests == [] and not project.out.exists()
    assert re.search(
        r"^1\. dev run: 26 dev fixtures × 1 sample, to find the pairs: 26 requests$", result.out, re.M
    )
    assert re.search(r"^2\. proposals: up to 10 requests \(one per target tool\)", result.out, re.M)
    assert re.search(r"^3\. proof: 30 test fixtures × 1 sample × 2 arms .*: 60 requests$", result.out, re.M)
    assert re.search(r"^estimated cost \(prices as of [^)]+\): \$[\d.]+ \(dev run \$", result.out, re.M)
    assert "budget $0.05: below the estimate of the proposals and the proof" in result.out


def test_a_paid_improve_needs_a_budget_cap_and_sends_nothing_without_one(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, cli: Cli
) -> None:
    project = improve_project(vague=True)

    result = cli("improve", "--config", project.config, "--out", project.out)

    assert result.code == 3 and "no budget cap is set" in result.err
    assert wordy_api.requests == [] and not project.out.exists()


def test_a_proposer_that_never_answers_in_json_leaves_its_targets_not_proposed(
    improve_project: MakeImproveProject, wordy_api: FakeAnthropic, wordy: Wordy, cli: Cli
) -> None:
    project = improve_project(vague=True, run={"max_attempts": 2})
    wordy.propose = lambda prompt: Text("Sure! Here is a better description: it lists tickets.")  # type: ignore[method-assign]

    result = cli(
        "improve", "--config", project.config, "--budget-usd", "5", "--pairs", "2", "--out", project.out
    )

    assert result.code == 2, result.err  # incomplete: no crash, no wrong answer
    report = report_of(project.out)
    assert report.proposals and all(proposal.status == "not proposed" for proposal in report.proposals)
    assert all(
        "no usable answer after every retry (invalid_response)" in (p.reason or "") for p in report.proposals
    )
    assert report.overall == "not proven" and report.comparison is None
    n = len(report.proposals)
    assert f"{n} of {n} target tools got no rewrite (no usable answer after every retry" in report.verdict
    assert not (project.out / "proof" / "A.ndjson").exists()
    assert "### Not proposed or dropped" in result.out
