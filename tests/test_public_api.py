"""The library API is a deliberate choice: this test changes when it does."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcp_evals
from conftest import HELPDESK, MakeProject, cli_environment
from fakes.fake_anthropic import FakeAnthropic

PUBLIC = {
    "Catalog",
    "Config",
    "ConfigError",
    "Fixture",
    "InputFileError",
    "McpEvalsError",
    "Problem",
    "ServerConfig",
    "ServerError",
    "ServerInfo",
    "Tool",
    "ValidationOptions",
    "__version__",
    "extract_catalog",
    "load_catalog",
    "load_config",
    "load_fixtures",
    "validate_fixtures",
    # run, score, gate, baseline, report: imported on first use
    "Baseline",
    "BaselineComparison",
    "CatalogDiff",
    "FixtureResult",
    "GateDecision",
    "ReportFiles",
    "ReportOutcome",
    "Results",
    "RunHeader",
    "Scorecard",
    "compare_with_baseline",
    "diff_catalogs",
    "evaluate_gate",
    "load_baseline",
    "read_results",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "run_eval",
    "score_results",
    "write_reports",
}


def test_the_exported_names_are_exactly_the_public_api() -> None:
    assert set(mcp_evals.__all__) == PUBLIC
    assert all(hasattr(mcp_evals, name) for name in PUBLIC)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = mcp_evals.nothing_here


def test_the_api_validates_a_project_in_a_few_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_evals.catalog.snapshot import write_snapshot

    monkeypatch.setenv("PATH", cli_environment()["PATH"])  # the example runs `python`: this one

    config = mcp_evals.load_config(HELPDESK / "mcp-evals.yaml")
    write_snapshot(mcp_evals.extract_catalog(config), tmp_path / "catalog.json")

    catalog = mcp_evals.load_catalog(tmp_path / "catalog.json", areas=config.areas)
    fixtures = mcp_evals.load_fixtures(config)
    problems = mcp_evals.validate_fixtures(
        fixtures, catalog, config.validation, exclude_tools=config.exclude_tools
    )

    assert problems == []
    assert all(
        isinstance(error, type) and issubclass(error, mcp_evals.McpEvalsError)
        for error in (
            mcp_evals.ConfigError,
            mcp_evals.InputFileError,
            mcp_evals.ServerError,
        )
    )


def test_run_eval_is_the_command_s_run_with_the_whole_config(
    make_project: MakeProject, anthropic_fake: FakeAnthropic, tmp_path: Path
) -> None:
    """The public ``run_eval`` plans and runs as ``mcp-evals run`` does: the config's scoring
    weights, gate thresholds and ``exclude_tools`` all apply (a cut-down copy once ignored them)."""
    scoring = {"tool_weight": 70, "args_weight": 30}
    gate = {"remediate_below": 0.5, "deprioritize_at": 0.6, "fail_on": ["remediate"]}
    project = make_project(exclude_tools=["nothing_matches_*"], scoring=scoring, gate=gate)
    results = tmp_path / "library.ndjson"

    outcome = mcp_evals.run_eval(project.config, limit=6, results=results)

    assert outcome.summary is not None and outcome.reached == outcome.planned == 6
    header = mcp_evals.read_results(results).header
    assert header.exclude_tools == ["nothing_matches_*"] and header.limit == 6
    assert header.scoring.tool_weight == 70 and header.gate.remediate_below == 0.5
    assert outcome.report is not None
    scorecard = outcome.report.scorecard
    assert scorecard.scoring.tool_weight == 70 and scorecard.scoring.args_weight == 30
    assert (scorecard.gate.remediate_below, scorecard.gate.deprioritize_at) == (0.5, 0.6)
    top1 = scorecard.gate.top1
    assert top1 is not None
    expected = "remediate" if top1 < 0.5 else "gray_zone" if top1 < 0.6 else "deprioritize_refactor"
    assert scorecard.gate.decision == expected
    assert outcome.exit_code == (1 if expected == "remediate" else 0)
    # no default cap is lifted: the provider was picked from the key, as in the CLI
    assert any("default cap" in note for note in header.notes)

    # exclude_tools takes part in validation: a fixture expecting an excluded tool is refused
    refused = make_project(exclude_tools=["merge_tickets"])
    with pytest.raises(mcp_evals.InputFileError, match="merge_tickets"):
        mcp_evals.run_eval(refused.config, limit=2, results=tmp_path / "refused.ndjson")
    assert not (tmp_path / "refused.ndjson").exists()


def test_run_eval_without_the_key_is_skipped_not_replaced(
    make_project: MakeProject, clean_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    outcome = mcp_evals.run_eval(
        make_project().config, model="claude-sonnet-4-6", results=tmp_path / "r.ndjson"
    )
    assert outcome.exit_code == 0 and outcome.summary is None and outcome.skipped is not None
    assert outcome.skipped.variables == ("ANTHROPIC_API_KEY",)
    assert not (tmp_path / "r.ndjson").exists()


def test_the_from_python_example_in_running_md_runs(
    make_project: MakeProject,
    clean_env: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (HELPDESK.parents[1] / "docs" / "running.md").read_text("utf-8")
    example = text.split("## From Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    make_project()  # tmp_path/mcp-evals.yaml
    clean_env.chdir(tmp_path)
    exec(compile(example, "running.md", "exec"), {})
    assert capsys.readouterr().out.startswith(
        "mcp-evals run: skipped: the model claude-sonnet-4-6 needs ANTHROPIC_API_KEY, which is not set"
    )
    assert not (tmp_path / "results.ndjson").exists()
