"""``mcp-evals baseline``: accept a run as the baseline, or compare a run with it."""

from __future__ import annotations

from pathlib import Path

import click

from mcp_evals.baseline.compare import compare_with_baseline, make_baseline
from mcp_evals.baseline.file import load_baseline, write_baseline
from mcp_evals.cli.report_cmd import optional_config
from mcp_evals.config.model import Config
from mcp_evals.errors import EXIT_CHECK_FAILED, EXIT_OK, EXIT_PRELIMINARY, ConfigError
from mcp_evals.files import refuse_inputs, updates
from mcp_evals.record.merge import read_results_files
from mcp_evals.report.escape import plain
from mcp_evals.score import outcome_label, score_results
from mcp_evals.wording import plural

DEFAULT_BASELINE = "evals/baseline.json"

_config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="MCP_EVALS_CONFIG",
    help="Take scoring and baseline options (and the default baseline path) from this config "
    "(default: ./mcp-evals.yaml when it exists).",
)


def _baseline_path(given: Path | None, config: Config | None) -> Path:
    if given is not None:
        return given
    if config is not None and config.baseline.path:
        return config.resolve(config.baseline.path)
    return Path(DEFAULT_BASELINE)


@click.group()
def baseline() -> None:
    """Accept a run as the baseline, or compare a run with it."""


@baseline.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"The baseline file (default: the config's baseline.path, else {DEFAULT_BASELINE}).",
)
@_config_option
@click.option(
    "--allow-preliminary", is_flag=True, help="Accept a run where some answers never reached the model."
)
def accept(
    results: tuple[Path, ...], out: Path | None, config_path: Path | None, allow_preliminary: bool
) -> int:
    """Make RESULTS (one run, or its shards) the baseline later runs are compared with.

    Nothing else ever writes the baseline: commit the file, and accept again when a change in the
    numbers is intended.
    """
    config = optional_config(config_path)
    scorecard = score_results(read_results_files(list(results)), config.scoring if config else None)
    if scorecard.preliminary and not allow_preliminary:
        coverage = scorecard.coverage
        raise ConfigError(
            f"{results[0]}: PRELIMINARY run ({coverage.reached}/{coverage.planned} answers reached): "
            "a baseline must be a complete run",
            hint="finish it with `mcp-evals run --resume`, or pass --allow-preliminary",
        )
    path = _baseline_path(out, config)
    inputs: dict[str, Path | None] = {f"the results file {result.name}": result for result in results}
    if config is not None:
        inputs["the config file"] = config.path
    refuse_inputs(path, inputs, what="the baseline file")
    updates(path)  # accepting replaces the earlier baseline, read just below
    replaced = load_baseline(path) if path.exists() else None
    accepted = make_baseline(scorecard)
    write_baseline(accepted, path)
    score = "n/a" if accepted.scores.score is None else f"{accepted.scores.score:.1f}"
    top1 = "n/a" if accepted.scores.top1 is None else f"{accepted.scores.top1 * 100:.1f}%"
    who = "lexical baseline" if scorecard.run.lexical else f"{scorecard.run.provider}/{scorecard.run.model}"
    click.echo(
        f"baseline written to {path}: {plain(who, 120)}, {plural(len(accepted.fixtures), 'fixture')}, "
        f"top-1 {top1}, score {score}"
    )
    if replaced is not None:
        old = "n/a" if replaced.scores.score is None else f"{replaced.scores.score:.1f}"
        click.echo(f"  (replaced the baseline accepted {replaced.accepted_at}, score {old})")
    return EXIT_OK


@baseline.command()
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"The baseline file (default: the config's baseline.path, else {DEFAULT_BASELINE}).",
)
@_config_option
def compare(results: tuple[Path, ...], baseline_path: Path | None, config_path: Path | None) -> int:
    """Compare RESULTS with the baseline: regressions, fixes and the verdict (exit 1 on a regression)."""
    config = optional_config(config_path)
    scorecard = score_results(read_results_files(list(results)), config.scoring if config else None)
    path = _baseline_path(baseline_path, config)
    comparison = compare_with_baseline(
        scorecard, load_baseline(path), config.baseline if config else None, baseline_path=str(path)
    )
    click.echo(plain(comparison.message, 2000))
    for difference in comparison.differences:
        click.echo(
            f"  {difference.field}: {plain(difference.baseline, 100)} → {plain(difference.current, 100)}"
        )
    lost = {change.id for change in comparison.tool_regressions}
    for kind, changes in (("regression", comparison.regressions), ("fix", comparison.fixes)):
        for change in changes:
            before, after = outcome_label(change.before), outcome_label(change.after)
            scores = f"{change.before_score or 0:.1f} → {change.after_score or 0:.1f}"
            tool = " (lost the right tool)" if change.id in lost else ""
            click.echo(f"  {kind:<10}  {plain(change.id, 100)}: {before} → {after} ({scores}){tool}")
    fixture_set = comparison.fixture_set
    for label, ids in (
        ("added", fixture_set.added),
        ("removed", fixture_set.removed),
        ("changed", fixture_set.changed),
    ):
        if ids:
            click.echo(f"  not compared, {label}: {', '.join(plain(fixture_id, 100) for fixture_id in ids)}")
    if scorecard.preliminary:
        click.echo(
            "  (PRELIMINARY run: some answers never reached the model; only reached fixtures compared)"
        )
        return EXIT_PRELIMINARY
    return EXIT_CHECK_FAILED if comparison.fails else EXIT_OK
