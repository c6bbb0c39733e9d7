"""Writing the configured report files of a run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcp_evals.baseline.compare import Baseline, BaselineComparison, compare_with_baseline
from mcp_evals.baseline.file import load_baseline
from mcp_evals.config.model import BaselineOptions, Config, GateOptions, ReportPaths, ScoringOptions
from mcp_evals.files import atomic_write
from mcp_evals.record.read import Results
from mcp_evals.report import ReportFormat, render
from mcp_evals.report.markdown import render_markdown
from mcp_evals.report.verdict import exit_code, verdict_text
from mcp_evals.score import Scorecard, score_results


@dataclass
class ReportFiles:
    """What ``write_reports`` did, and what the process should exit with."""

    scorecard: Scorecard
    comparison: BaselineComparison | None
    exit_code: int
    verdict: str  # one plain line, for a terminal
    markdown: str = ""
    written: dict[str, Path] = field(default_factory=dict)


# The public name of ``ReportFiles`` before the layout change (``mcp_evals.ReportOutcome``).
ReportOutcome = ReportFiles


def configured_baseline(config: Config) -> tuple[Path | None, str | None]:
    """The config's ``baseline.path`` when that file exists; else None and a note saying there is none yet."""
    if not config.baseline.path:
        return None, None
    configured = config.resolve(config.baseline.path)
    if configured.exists():
        return configured, None
    return None, (
        f"No baseline at {config.baseline.path} yet: accept this run with "
        f"`mcp-evals baseline accept RESULTS --out {config.baseline.path}` to compare later runs."
    )


def compare_to(
    scorecard: Scorecard,
    baseline: str | Path | Baseline | None,
    options: BaselineOptions | None = None,
) -> BaselineComparison | None:
    """Compare with a baseline given as a path or a loaded ``Baseline`` (None: no comparison)."""
    if baseline is None:
        return None
    if isinstance(baseline, Baseline):
        return compare_with_baseline(scorecard, baseline, options)
    return compare_with_baseline(scorecard, load_baseline(baseline), options, baseline_path=str(baseline))


def write_reports(
    results: Results | Scorecard,
    config_or_paths: Config | ReportPaths | None = None,
    baseline: str | Path | Baseline | None = None,
    *,
    max_chars: int | None = 65_000,
) -> ReportFiles:
    """Score a run, compare it with its baseline, write every report the config names.

    With a ``Config``: its ``scoring``, ``gate`` and ``baseline`` sections apply, report paths are
    relative to the config file, and ``baseline.path`` is used when ``baseline`` is not given (a
    missing file there is a note, not an error: the first run has no baseline yet). With
    ``ReportPaths``: the options recorded in the results header apply, paths are as given. The
    baseline file itself is never written here (only ``mcp-evals baseline accept`` does).
    """
    scoring: ScoringOptions | None = None
    gate: GateOptions | None = None
    baseline_options: BaselineOptions | None = None
    paths: dict[ReportFormat, Path] = {}
    notes: list[str] = []
    if isinstance(config_or_paths, Config):
        config = config_or_paths
        scoring, gate, baseline_options = config.scoring, config.gate, config.baseline
        paths = _paths(config.reports, config.resolve)
        if baseline is None:
            baseline, missing = configured_baseline(config)
            notes.extend([missing] if missing else [])
    elif isinstance(config_or_paths, ReportPaths):
        paths = _paths(config_or_paths, Path)
    if isinstance(results, Scorecard):
        scorecard = results
    else:
        scorecard = score_results(results, scoring, gate_options=gate)
    if notes:
        scorecard = scorecard.model_copy(update={"notes": [*scorecard.notes, *notes]})
    comparison = compare_to(scorecard, baseline, baseline_options)
    markdown = render_markdown(scorecard, baseline_comparison=comparison, max_chars=max_chars)
    written: dict[str, Path] = {}
    for report_format, path in paths.items():
        text = (
            markdown
            if report_format == "md"
            else render(scorecard, report_format, baseline_comparison=comparison)
        )
        with atomic_write(path) as stream:
            stream.write(text)
        written[report_format] = path
    return ReportFiles(
        scorecard=scorecard,
        comparison=comparison,
        exit_code=exit_code(scorecard, comparison),
        verdict=verdict_text(scorecard, comparison),
        markdown=markdown,
        written=written,
    )


def configured_report_paths(config: Config) -> dict[ReportFormat, Path]:
    """The report files a run with this config writes (``reports:``), resolved from the config's folder."""
    return _paths(config.reports, config.resolve)


def _paths(reports: ReportPaths, resolve: Callable[[str], Path]) -> dict[ReportFormat, Path]:
    chosen: dict[ReportFormat, str | None] = {
        "md": reports.markdown,
        "json": reports.json_path,
        "junit": reports.junit,
        "html": reports.html,
    }
    return {name: resolve(value) for name, value in chosen.items() if value}
