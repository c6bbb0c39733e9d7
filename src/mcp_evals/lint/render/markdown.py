"""The lint as a Markdown section: for the GitHub Action's sticky comment and ``--format md``.

Grade and category scores, the top findings, the predicted confusable pairs, then the full list in a
``<details>``. Tool names, messages and paths come from servers and from files a pull request may
change: every one goes through ``report.escape``. The heading, the scores and the counts are never
cut; when the section would pass ``max_chars`` (UTF-16 units, as GitHub counts), the full list keeps
the rows that fit and says how many it left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from mcp_evals.lint.model import Finding, LintReport, ObservedPair
from mcp_evals.report.escape import md_code, md_text
from mcp_evals.wording import docs_url, plural

DEFAULT_MAX_CHARS = 30_000
TOP_FINDINGS = 10
TOP_PAIRS = 5
ICONS = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}
_TABLE_HEAD = ["| | rule | where | finding |", "|---|---|---|---|"]


def _size(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def _row(finding: Finding) -> str:
    where = md_code(finding.location) if finding.location else ""
    ignored = f" *(ignored: {md_text(finding.suppressed, 120)})*" if finding.suppressed else ""
    return (
        f"| {ICONS[finding.severity]} | [{finding.rule}]({docs_url(f'lint.md#{finding.rule.lower()}')}) | "
        f"{where} | {md_text(finding.message, 400)}{ignored} |"
    )


def _verdict(report: LintReport) -> str:
    counts = ", ".join(
        plural(report.count(severity), severity, "info" if severity == "info" else None)
        for severity in ("error", "warning", "info")
    )
    ignored = len(report.findings) - len(report.active)
    if report.fail_on == "never":
        outcome = "advisory (`lint.fail_on: never`)"
    elif report.failed:
        outcome = f"**fails** (`lint.fail_on: {report.fail_on}`)"
    else:
        outcome = f"passes (`lint.fail_on: {report.fail_on}`)"
    extra = f", {ignored} ignored" if ignored else ""
    return f"{plural(report.tools, 'tool')} · {counts}{extra} · {outcome}"


def _pairs(report: LintReport) -> list[str]:
    if not report.predicted_pairs:
        return ["**Predicted confusable pairs:** none."]
    lines = [
        f"**Predicted confusable pairs** ({len(report.predicted_pairs)}, most likely first):",
        "",
        "| score | tools | shared terms |",
        "|---|---|---|",
    ]
    for pair in report.predicted_pairs[:TOP_PAIRS]:
        terms = ", ".join(str(md_text(term, 40)) for term in pair.terms[:5])
        lines.append(f"| {pair.score:.2f} | {md_code(pair.tools[0])} ↔ {md_code(pair.tools[1])} | {terms} |")
    if len(report.predicted_pairs) > TOP_PAIRS:
        lines.append(f"\n*… and {len(report.predicted_pairs) - TOP_PAIRS} more in the full report.*")
    return lines


def _tokens(report: LintReport) -> str:
    tokens = report.tokens
    text = (
        f"**Token cost:** catalog ≈ {tokens.catalog_tokens:,} tokens, "
        f"request prefix ≈ {tokens.prefix_tokens:,}"
    )
    if tokens.model and tokens.cost_per_request is not None:
        text += f"; ${tokens.cost_per_request:.4f} per eval request at {md_code(tokens.model)}"
        if tokens.cost_per_request_cached is not None:
            text += f" (${tokens.cost_per_request_cached:.4f} cached)"
        elif tokens.cacheable is False:
            text += f" (below the {tokens.min_cache_tokens:,}-token cache minimum: no caching)"
    return text + "."


def _predicted(pairs: Sequence[ObservedPair]) -> int:
    return sum(1 for pair in pairs if pair.predicted)


def _prediction(report: LintReport) -> list[str]:
    check = report.prediction
    if check is None:
        return []

    def percent(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.0%}"

    return [
        "",
        f"**Prediction vs the run** ({md_text(check.provider, 40)} {md_code(check.model)}): precision "
        f"{percent(check.precision)} ({check.hits}/{check.predicted}), recall {percent(check.recall)} "
        f"({_predicted(check.observed_pairs)}/{check.observed} confused pairs predicted).",
    ]


def render_lint_markdown(report: LintReport, *, max_chars: int | None = DEFAULT_MAX_CHARS) -> str:
    """The lint section of a pull-request comment (a pure function of the report)."""
    grade = report.grade
    head = [
        f"### 🔎 mcp-evals lint: grade {grade.letter} ({grade.score}/100)",
        "",
        "| " + " | ".join(row.name for row in grade.categories) + " |",
        "|" + "---|" * len(grade.categories),
        "| " + " | ".join(str(row.score) for row in grade.categories) + " |",
        "",
        _verdict(report),
    ]
    active = report.active
    top = active[:TOP_FINDINGS]
    body: list[str] = []
    if top:
        body += [
            "",
            f"**Top findings** ({len(top)} of {len(active)}):",
            "",
            *_TABLE_HEAD,
            *(_row(f) for f in top),
        ]
    body += ["", *_pairs(report), "", _tokens(report), *_prediction(report)]
    text = "\n".join([*head, *body])
    if not report.findings:
        return text
    details_head = ["", "<details>", f"<summary>All {plural(len(report.findings), 'finding')}</summary>", ""]
    details_tail = ["", "</details>"]
    rows = [_row(finding) for finding in report.findings]
    full = "\n".join([text, *details_head, *_TABLE_HEAD, *rows, *details_tail])
    if max_chars is None or _size(full) <= max_chars:
        return full
    return _shortened(text, details_head, details_tail, rows, report.findings, max_chars)


def _shortened(
    text: str,
    details_head: list[str],
    details_tail: list[str],
    rows: Sequence[str],
    findings: Sequence[Finding],
    max_chars: int,
) -> str:
    note = f"\n*… and {len(findings)} more findings not shown here: `mcp-evals lint` lists them all.*"
    room = max_chars - _size("\n".join([text, *details_head, *_TABLE_HEAD, *details_tail])) - _size(note)
    kept, used = 0, 0
    for row in rows:
        used += _size(row) + 1
        if used > room:
            break
        kept += 1
    hidden = len(findings) - kept
    note = f"\n*… and {hidden} more findings not shown here: `mcp-evals lint` lists them all.*"
    return "\n".join([text, *details_head, *_TABLE_HEAD, *rows[:kept], note, *details_tail])
