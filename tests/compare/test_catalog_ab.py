"""``mcp-evals compare`` on two catalogs (a description rewrite) against the fake Anthropic API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import Cli, MakeProject
from fakes.fake_anthropic import FakeAnthropic, anthropic_in_env
from mcp_evals.catalog.snapshot import load_catalog, write_snapshot
from mcp_evals.compare.paired import Comparison
from mcp_evals.fixtures.model import Fixture
from mcp_evals.record.read import read_results
from mcp_evals.stats import sign_test

from .oracle import REWRITTEN, Oracle

FIXES = 6  # fixtures catalog A gets wrong and B right
BREAKS = 1  # the reverse


@pytest.fixture
def oracle(helpdesk_fixtures: list[Fixture]) -> Oracle:
    selects = [fixture for fixture in helpdesk_fixtures if fixture.kind == "select"]
    wrong: dict[tuple[str, str], str] = {}
    for fixture in selects[:FIXES]:
        wrong[(fixture.query, "full")] = "list_agents"  # catalog A: wrong; catalog B: right
    for fixture in selects[FIXES : FIXES + BREAKS]:
        wrong[(fixture.query, "B")] = "list_agents"
    for fixture in selects[FIXES + BREAKS : FIXES + BREAKS + 2]:
        wrong[(fixture.query, "any")] = "list_agents"  # wrong in both: not discordant
    return Oracle(list(helpdesk_fixtures), wrong)


@pytest.fixture
def fake(clean_env: pytest.MonkeyPatch, oracle: Oracle) -> Iterator[FakeAnthropic]:
    with anthropic_in_env(clean_env, chooser=oracle.anthropic()) as server:
        yield server


def rewritten(names: list[str]) -> dict[str, str]:
    return {name: f"{REWRITTEN} a clearer description of {name}." for name in names}


def test_descriptions_in_the_config_make_catalog_b_and_the_paired_counts_are_right(
    make_project: MakeProject, fake: FakeAnthropic, oracle: Oracle, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"descriptions": rewritten(["search_tickets", "get_invoice"])})
    out = tmp_path / "ab"

    result = cli("compare", "--config", project.config, "--budget-usd", "5", "--out", out)

    assert result.code == 0, result.err
    comparison = Comparison.model_validate_json((out / "comparison.json").read_text())
    pair = comparison.pairs[0]
    assert (pair.first, pair.second) == ("A", "B")
    assert len(pair.fixes) == FIXES and len(pair.breaks) == BREAKS
    assert pair.paired == len(oracle.fixtures)
    assert pair.p_value == pytest.approx(sign_test(BREAKS, FIXES))
    assert pair.delta_pp == pytest.approx(100 * (FIXES - BREAKS) / pair.paired)
    assert f"B fixes {FIXES}, breaks {BREAKS} (p = 0.12) on 56 fixtures answered in both" in result.out
    assert "no difference the paired test can tell from noise" in comparison.verdict
    # per-area deltas add up to the whole
    assert sum(area.fixes for area in pair.areas) == FIXES
    assert sum(area.breaks for area in pair.areas) == BREAKS
    assert sum(area.paired for area in pair.areas) == pair.paired
    # each arm's record is a normal results file, on its own catalog
    a, b = read_results(out / "A.ndjson"), read_results(out / "B.ndjson")
    assert a.header.catalog_hash != b.header.catalog_hash
    assert b.header.catalog.by_name["search_tickets"].description.startswith(REWRITTEN)
    assert {r.catalog_hash for r in b.results} == {b.header.catalog_hash}
    assert len(a.results) == len(b.results) == len(oracle.fixtures)


def test_the_arms_run_interleaved_with_the_same_model_and_settings(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"descriptions": rewritten(["search_tickets"])})

    result = cli(
        "compare",
        "--config",
        project.config,
        "--budget-usd",
        "5",
        "--out",
        tmp_path / "o",
        "--concurrency",
        "1",
    )

    assert result.code == 0, result.err
    requests = fake.model_requests()
    contexts = [
        "B" if any(str(t.get("description", "")).startswith(REWRITTEN) for t in r.json["tools"]) else "A"
        for r in requests
    ]
    # fixture by fixture, the order of the arms rotating: A B, B A, A B, …
    assert contexts[:6] == ["A", "B", "B", "A", "A", "B"]
    settings = {
        json.dumps({k: v for k, v in r.json.items() if k not in ("tools", "messages", "tool_choice")})
        for r in requests
    }
    assert len(settings) == 1  # same model, max_tokens, system prompt


def test_snapshots_for_both_catalogs_and_a_re_render_from_the_records(
    make_project: MakeProject, fake: FakeAnthropic, helpdesk_snapshot: Path, cli: Cli, tmp_path: Path
) -> None:
    project = make_project()
    catalog = load_catalog(helpdesk_snapshot)
    tools = [
        tool.model_copy(update={"description": f"{REWRITTEN} {tool.description}"})
        if tool.name == "get_ticket"
        else tool
        for tool in catalog.tools
    ]
    servers = [
        server.model_copy(
            update={
                "tools": [
                    {**wire, "description": f"{REWRITTEN} {wire['description']}"}
                    if wire["name"] == "get_ticket"
                    else wire
                    for wire in server.tools
                ]
            }
        )
        for server in catalog.servers
    ]
    assert tools  # the rewrite is in the snapshot's wire shape
    snapshot_b = tmp_path / "b.catalog.json"
    write_snapshot(type(catalog)(tools=tools, servers=servers), snapshot_b)
    out = tmp_path / "ab"

    result = cli(
        "compare",
        "--config",
        project.config,
        "--catalog-b",
        snapshot_b,
        "--budget-usd",
        "5",
        "--out",
        out,
        "--limit",
        "8",
    )

    assert result.code == 0, result.err
    again = cli("compare", "--from", out)
    assert again.code == 0 and again.out == (out / "comparison.md").read_text()
    assert "catalog B: " in again.out


def test_an_unknown_tool_in_compare_descriptions_is_bad_input(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli
) -> None:
    project = make_project(compare={"descriptions": {"search_ticket": "A new description."}})

    result = cli("compare", "--config", project.config, "--budget-usd", "5")

    assert result.code == 3
    assert (
        "compare.descriptions.search_ticket" in result.err and "did you mean 'search_tickets'" in result.err
    )
    assert fake.requests == []


def test_a_paid_compare_without_a_budget_cap_sends_nothing(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli
) -> None:
    project = make_project(compare={"descriptions": rewritten(["search_tickets"])})

    result = cli("compare", "--config", project.config)

    assert result.code == 3 and "no budget cap is set" in result.err
    assert fake.requests == []


def test_nothing_to_compare_is_bad_input(make_project: MakeProject, fake: FakeAnthropic, cli: Cli) -> None:
    result = cli("compare", "--config", make_project().config, "--budget-usd", "1")
    assert result.code == 3 and "nothing to compare" in result.err


def test_the_lexical_baseline_compares_two_catalogs_for_free(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"descriptions": rewritten(["search_tickets"])})

    result = cli("compare", "--config", project.config, "--out", tmp_path / "lex")

    assert result.code == 0, result.err
    assert read_results(tmp_path / "lex" / "A.ndjson").header.provider == "lexical"
    assert "A vs B" in result.out


def config_line(config: Path, key: str) -> int:
    lines = config.read_text().splitlines()
    return next(number for number, text in enumerate(lines, start=1) if text.strip().startswith(f"{key}:"))


def test_arms_and_descriptions_in_one_config_are_refused_naming_both_lines(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(
        compare={"arms": ["full", "deferred"], "descriptions": rewritten(["search_tickets"])}
    )

    result = cli("compare", "--config", project.config, "--budget-usd", "5", "--out", tmp_path / "o")

    assert result.code == 3, result.err
    arms, descriptions = config_line(project.config, "arms"), config_line(project.config, "descriptions")
    assert f"{project.config}:{arms} (compare.arms) and {project.config}:{descriptions} " in result.err
    assert "(compare.descriptions): a comparison is either deliveries" in result.err
    assert "hint: remove `arms:`" in result.err
    assert fake.requests == [] and not (tmp_path / "o").exists()
    dry = cli("compare", "--config", project.config, "--budget-usd", "5", "--dry")
    assert dry.code == 3 and "not both" in dry.err


def test_a_flag_that_picks_the_other_comparison_says_which_config_section_it_leaves_unused(
    make_project: MakeProject, fake: FakeAnthropic, cli: Cli, tmp_path: Path
) -> None:
    project = make_project(compare={"descriptions": rewritten(["search_tickets"])})

    result = cli(
        "compare", "--config", project.config, "--arms", "full,deferred", "--budget-usd", "5", "--dry"
    )

    assert result.code == 0, result.err
    line = config_line(project.config, "descriptions")
    assert (
        f"note: {project.config}:{line} (compare.descriptions) is not used: --arms delivers the config's "
        "catalog as it is" in result.err
    )
