"""The lint as terminal text and as JSON."""

from __future__ import annotations

import json

from mcp_evals.lint.model import LintReport, PredictionCheck, TokenReport
from mcp_evals.report.escape import plain
from mcp_evals.wording import plural

PAIRS_SHOWN = 10


def token_lines(tokens: TokenReport) -> list[str]:
    lines = [
        f"tokens: catalog about {tokens.catalog_tokens:,}; each request's prefix (catalog, system prompt, "
        f"tool-use preamble) about {tokens.prefix_tokens:,}"
    ]
    if tokens.largest:
        lines.append(
            "  largest: " + ", ".join(f"{plain(item.tool, 64)} {item.tokens:,}" for item in tokens.largest)
        )
    if tokens.model and tokens.price_known and tokens.cost_per_request is not None:
        cost = f"  at {tokens.model}: ${tokens.cost_per_request:.5f} per eval request"
        if tokens.cost_per_request_cached is not None:
            cost += f", ${tokens.cost_per_request_cached:.5f} once the prefix is cached"
        lines.append(cost)
        if tokens.cacheable is False:
            lines.append(
                f"  the prefix is below the {tokens.min_cache_tokens:,}-token minimum {tokens.model} caches: "
                "prompt caching will not reduce the cost"
            )
    elif tokens.model:
        lines.append(f"  no price known for {tokens.model}: add it under run.prices to see a cost")
    return lines


def prediction_lines(check: PredictionCheck) -> list[str]:
    def percent(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    predicted = sum(1 for pair in check.observed_pairs if pair.predicted)
    lines = [
        f"prediction vs {plain(check.results_file)} ({check.provider} {plain(check.model)}): "
        f"precision {percent(check.precision)} ({check.hits}/{check.predicted} testable predicted pairs "
        f"confused), recall {percent(check.recall)} ({predicted}/{check.observed} confused pairs predicted)"
    ]
    if not check.catalog_matches:
        lines.append("  note: the run's catalog differs from the linted one")
    for pair in check.observed_pairs[:PAIRS_SHOWN]:
        mark = "predicted" if pair.predicted else "not predicted"
        rank = f", rank {pair.rank} of {check.pairs_total}" if pair.rank is not None else ""
        lines.append(
            f"  {plain(pair.tools[0], 64)} <-> {plain(pair.tools[1], 64)}: {pair.count}× ({mark}{rank})"
        )
    return lines


def render_text(report: LintReport) -> str:
    """One line per finding (``file:line: severity [rule] message``), then grade, pairs, tokens."""
    lines = []
    for finding in report.findings:
        place = f"{finding.location}: " if finding.location else ""
        accepted = f" (ignored: {plain(finding.suppressed, 120)})" if finding.suppressed else ""
        lines.append(f"{place}{finding.severity} [{finding.rule}] {plain(finding.message, 400)}{accepted}")
    if lines:
        lines.append("")
    categories = " · ".join(f"{row.name} {row.score}" for row in report.grade.categories)
    lines.append(f"grade {report.grade.letter} ({report.grade.score}/100): {categories}")
    if report.predicted_pairs:
        lines.append(f"predicted confusable pairs ({len(report.predicted_pairs)}), most likely first:")
        for pair in report.predicted_pairs[:PAIRS_SHOWN]:
            lines.append(f"  {pair.score:.2f}  {plain(pair.tools[0], 64)} <-> {plain(pair.tools[1], 64)}")
        if len(report.predicted_pairs) > PAIRS_SHOWN:
            lines.append(
                f"  … and {len(report.predicted_pairs) - PAIRS_SHOWN} more (--format json lists all)"
            )
    else:
        lines.append("predicted confusable pairs: none")
    lines += token_lines(report.tokens)
    if report.prediction is not None:
        lines += prediction_lines(report.prediction)
    lines += [f"note: {note}" for note in report.notes]
    ignored = len(report.findings) - len(report.active)
    verdict = "FAILED" if report.failed else "ok"
    counts = ", ".join(
        plural(report.count(severity), severity, "info" if severity == "info" else None)
        for severity in ("error", "warning", "info")
    )
    fail_on = "never fails" if report.fail_on == "never" else f"fails on {report.fail_on}"
    lines.append(
        f"{verdict}: {plural(report.tools, 'tool')}, {counts}"
        + (f", {ignored} ignored" if ignored else "")
        + f" ({fail_on})"
    )
    return "\n".join(lines)


def render_json(report: LintReport) -> str:
    """The whole report as JSON (``LintReport.model_validate_json`` reads it back)."""
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)
