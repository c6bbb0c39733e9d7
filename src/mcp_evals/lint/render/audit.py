"""The audit as terminal text, Markdown (a job summary or a PR comment), JSON and SARIF 2.1.0.

Pure: an ``AuditReport`` in, a string out. Names, messages and versions come from the server under
audit: the text goes through ``report.escape.plain``, the Markdown through ``md_text``/``md_code``.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_evals.lint.audit import AuditReport
from mcp_evals.lint.model import CATEGORY_NAMES, Finding
from mcp_evals.lint.render.markdown import ICONS
from mcp_evals.lint.render.sarif import sarif_document
from mcp_evals.report.escape import md_code, md_text, plain
from mcp_evals.servers.model import Conformance
from mcp_evals.wording import docs_url, plural

TOP_FINDINGS = 15
# Security first: what a reader must see before anything else.
CATEGORY_ORDER = ("X", "P", "C", "S", "D", "N", "T", "R", "F")


def _ordered(findings: list[Finding]) -> list[Finding]:
    severity = {"error": 0, "warning": 1, "info": 2}
    return sorted(findings, key=lambda f: (severity[f.severity], CATEGORY_ORDER.index(f.category), f.rule))


def _server_line(report: AuditReport, index: int) -> str:
    server = report.servers[index]
    who = " ".join(part for part in (server.server_name, server.server_version) if part) or server.name
    parts = [
        who,
        server.transport,
        f"protocol {server.protocol_version or 'unknown'}",
        ", ".join(
            (
                plural(server.tools, "tool"),
                plural(server.resources, "resource"),
                plural(server.prompts, "prompt"),
            )
        ),
    ]
    return " · ".join(parts)


def readiness_line(found: Conformance) -> str:
    skipped = sum(1 for check in found.readiness if check.status == "skipped")
    line = (
        f"2026-07-28 readiness of {found.server!r}: {found.readiness_passed} of {found.readiness_assessed} "
        "checks pass"
    )
    return line + (f" ({skipped} not assessable: the server does not speak 2026-07-28)" if skipped else "")


def _verdict(report: AuditReport) -> str:
    counts = ", ".join(
        plural(report.lint.count(severity), severity, "info" if severity == "info" else None)
        for severity in ("error", "warning", "info")
    )
    if report.fail_under is None:
        gate = "no --fail-under"
    elif report.failed:
        gate = f"below --fail-under {report.fail_under}"
    else:
        gate = f"at or above --fail-under {report.fail_under}"
    return f"{'FAILED' if report.failed else 'ok'}: score {report.score}/100 ({gate}); {counts}"


def render_audit_text(report: AuditReport) -> str:
    """The audit for a terminal: the servers, the score by category, readiness, then every finding."""
    lines = [f"mcp-evals audit: {plain(report.target, 300)}"]
    lines += [f"  {plain(_server_line(report, index), 300)}" for index in range(len(report.servers))]
    categories = " · ".join(f"{row.name} {row.score}" for row in report.categories)
    lines += ["", f"score {report.score}/100 ({report.letter}): {categories}"]
    if report.capped:
        lines.append(f"  capped: {report.capped}")
    lines += [f"  {plain(readiness_line(found), 300)}" for found in report.conformance]
    findings = _ordered(report.lint.active)
    if findings:
        lines.append("")
    for finding in findings:
        category = CATEGORY_NAMES[finding.category]
        lines.append(f"{finding.severity} [{finding.rule}] {category}: {plain(finding.message, 400)}")
    lines += [f"note: {plain(note, 400)}" for note in report.notes]
    lines += ["", _verdict(report)]
    return "\n".join(lines)


def _row(finding: Finding) -> str:
    return (
        f"| {ICONS[finding.severity]} | [{finding.rule}]({docs_url(f'lint.md#{finding.rule.lower()}')}) | "
        f"{CATEGORY_NAMES[finding.category]} | "
        f"{md_text(finding.message, 400)} |"
    )


def render_audit_markdown(report: AuditReport) -> str:
    """The audit as a Markdown section: score, categories, servers, readiness, top findings, all findings."""
    icon = "❌" if report.failed else ("🛡️" if not report.capped else "⚠️")
    lines = [
        f"### {icon} mcp-evals audit: {report.score}/100 ({report.letter})",
        "",
        f"{md_code(report.target, 200)}",
        "",
        "| " + " | ".join(row.name for row in report.categories) + " |",
        "|" + "---|" * len(report.categories),
        "| "
        + " | ".join(
            f"{row.score} <sub>({row.detail and md_text(row.detail, 60)})</sub>" for row in report.categories
        )
        + " |",
        "",
    ]
    if report.capped:
        lines += [f"**Capped:** {md_text(report.capped, 200)}", ""]
    lines += [f"- {md_text(_server_line(report, index), 300)}" for index in range(len(report.servers))]
    lines += [f"- {md_text(readiness_line(found), 300)}" for found in report.conformance]
    findings = _ordered(report.lint.active)
    lines += ["", md_text(_verdict(report), 300)]
    if findings:
        table = ["| | rule | category | finding |", "|---|---|---|---|"]
        lines += [
            "",
            f"**Top findings** ({min(len(findings), TOP_FINDINGS)} of {len(findings)}):",
            "",
            *table,
        ]
        lines += [_row(finding) for finding in findings[:TOP_FINDINGS]]
        if len(findings) > TOP_FINDINGS:
            lines += [
                "",
                "<details>",
                f"<summary>All {plural(len(findings), 'finding')}</summary>",
                "",
                *table,
            ]
            lines += [_row(finding) for finding in findings]
            lines += ["", "</details>"]
    if report.notes:
        lines += ["", *(f"- *{md_text(note, 400)}*" for note in report.notes)]
    return "\n".join(lines) + "\n"


def render_audit_json(report: AuditReport) -> str:
    """The whole report (``AuditReport.model_validate_json`` reads it back)."""
    return json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)


def audit_sarif_document(report: AuditReport, *, default_file: str) -> dict[str, Any]:
    """The lint's SARIF log of the audit's findings, with the audit's score in the run's properties."""
    document = sarif_document(report.lint, default_file=default_file)
    run = document["runs"][0]
    run["tool"]["driver"]["name"] = "mcp-evals audit"
    run["properties"].update(
        {
            "auditScore": report.score,
            "auditLetter": report.letter,
            "categories": {row.key: row.score for row in report.categories},
        }
    )
    return document


def render_audit_sarif(report: AuditReport, *, default_file: str) -> str:
    return json.dumps(audit_sarif_document(report, default_file=default_file), indent=2, ensure_ascii=False)
