"""``improve --results``: the pairs of an earlier run, from its answers to dev fixtures only."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli
from mcp_evals.catalog.snapshot import load_catalog
from mcp_evals.config.load import load_config
from mcp_evals.fixtures.load import load_fixtures
from mcp_evals.improve.model import ImproveReport
from mcp_evals.improve.split import split_fixtures
from mcp_evals.improve.targets import dev_confusions
from mcp_evals.lint.predict import observed_pairs
from mcp_evals.record.read import read_results
from mcp_evals.score import score_results

from .conftest import MakeImproveProject


def test_the_pairs_of_a_results_file_come_from_its_dev_answers_only(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    project = improve_project(vague=True)
    results = tmp_path / "run.ndjson"
    ran = cli("run", "--config", project.config, "--provider", "lexical", "--results", results)
    assert ran.code in (0, 1), ran.err
    config = load_config(project.config)
    split = split_fixtures(load_fixtures(config))
    card = score_results(read_results(results))
    catalog = load_catalog(config.resolve(config.servers[0].snapshot or ""))
    everything = observed_pairs(card, catalog)
    dev_only = dev_confusions(card, catalog, {fixture.id for fixture in split.dev})
    assert sum(everything.values()) > sum(dev_only.values())  # the run confused test fixtures too

    result = cli(
        "improve",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--results",
        results,
        "--pairs",
        "50",
        "--out",
        project.out,
    )

    assert result.code == 0, result.err
    report = ImproveReport.model_validate_json((project.out / "improve.json").read_text("utf-8"))
    observed = {pair.tools: pair.observed for pair in report.pairs if pair.observed}
    assert observed == dict(dev_only)
    assert report.targets_from.startswith(f"the confusions of {results} on its")
    assert "its answers to test fixtures are not used" in report.targets_from
    assert not (project.out / "dev").exists()  # no dev run: the results file stands for it
    # the same folder again, with its own proof record as the results: refused, never overwritten
    before = (project.out / "proof" / "A.ndjson").read_bytes()
    again = cli(
        "improve",
        "--config",
        project.config,
        "--provider",
        "lexical",
        "--results",
        project.out / "proof" / "A.ndjson",
        "--out",
        project.out,
    )
    assert again.code == 3 and "is also the results file this command reads" in again.err
    assert (project.out / "proof" / "A.ndjson").read_bytes() == before


def test_fixtures_that_do_not_validate_against_the_catalog_are_refused(
    improve_project: MakeImproveProject, clean_env: pytest.MonkeyPatch, cli: Cli, tmp_path: Path
) -> None:
    fixtures = tmp_path / "fixtures.yaml"
    fixtures.write_text(
        "fixtures:\n  - id: a\n    query: Which tickets are open?\n    expected_tool: list_tikets\n", "utf-8"
    )
    project = improve_project(fixtures=str(fixtures))

    result = cli("improve", "--config", project.config, "--provider", "lexical", "--out", project.out)

    assert result.code == 3 and "the fixtures do not validate against the catalog" in result.err
    assert "list_tikets" in result.err and not project.out.exists()
